//! Ray–AABB: the slab test (Kay–Kajiya; Ericson §5.3.3; seed `003` "平板层相交法"),
//! lane-generic, with a precomputed inverse direction for one-ray-vs-many-boxes
//! traversal (Jolt's `RayInvDirection` / `RayAABox4`).
//!
//! Pseudocode (per lane; every `if` below is a `select`):
//! ```text
//! inv = 1 / dir                                   (once per ray: RayPrecomp)
//! for each axis i:
//!     lo = min_i - o_i;  hi = max_i - o_i         (exact when the result is subnormal)
//!     t_lo = (lo == 0) ? 0 : lo * inv_i           (0·∞ would be NaN: plane through origin)
//!     t_hi = (hi == 0) ? 0 : hi * inv_i
//!     near_i = min(t_lo, t_hi);  far_i = max(t_lo, t_hi)
//!     if dir_i == 0:                              (parallel to the slab)
//!         (near_i, far_i) = (lo <= 0 <= hi) ? (-∞, +∞) : (+∞, -∞)
//! enter = max(t_min, near_x, near_y, near_z);  exit = min(t_max, far_x, far_y, far_z)
//! hit = enter <= exit && valid(ray) && valid(box)
//! ```

use super::{finite_t, ray_valid};
use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::shapes::{Aabb, Ray};

/// Per-ray data of the slab test, computed once and reused against many boxes
/// (Jolt's `RayInvDirection`): the origin, `1/dir` per axis, which direction
/// components are zero, the interval and the ray's validity.
///
/// [`ray_aabb`] builds one internally, so [`ray_aabb_precomp`] with a precomputed
/// (and possibly [`splat`](RayPrecomp::splat)-ed) value gives bit-identical
/// answers: `1/dir` is one correctly rounded division, the same in every lane.
#[derive(Clone, Copy, Debug)]
pub struct RayPrecomp<L: Lane = f32> {
    origin: V3<L>,
    inv_dir: V3<L>,
    dir_zero: [L::Mask; 3],
    t_min: L,
    t_max: L,
    valid: L::Mask,
    /// Whether some lane has a zero direction component. When not, the
    /// zero-direction selects are skipped: they would return their input.
    any_zero_dir: bool,
}

impl<L: Lane> RayPrecomp<L> {
    /// Precomputes the slab-test data of `ray` (one pack of rays, or one ray for `L = f32`).
    #[inline(always)]
    pub fn new(ray: &Ray<L>) -> Self {
        let zero = L::splat(0.0);
        let one = L::splat(1.0);
        RayPrecomp {
            origin: ray.origin,
            // ±∞ for a zero component; never used there (see `dir_zero`).
            inv_dir: V3::new(one / ray.dir.x, one / ray.dir.y, one / ray.dir.z),
            dir_zero: [ray.dir.x.eq(zero), ray.dir.y.eq(zero), ray.dir.z.eq(zero)],
            t_min: ray.t_min,
            t_max: ray.t_max,
            valid: ray_valid(ray),
            any_zero_dir: (ray.dir.x.eq(zero) | ray.dir.y.eq(zero) | ray.dir.z.eq(zero)).any(),
        }
    }
}

impl RayPrecomp<f32> {
    /// The same ray in every lane of a pack (the one-ray-vs-pack-of-boxes path).
    #[inline(always)]
    pub fn splat<L: Lane>(&self) -> RayPrecomp<L> {
        RayPrecomp {
            origin: V3::broadcast(self.origin),
            inv_dir: V3::broadcast(self.inv_dir),
            dir_zero: self.dir_zero.map(L::Mask::splat),
            t_min: L::splat(self.t_min),
            t_max: L::splat(self.t_max),
            valid: L::Mask::splat(self.valid),
            any_zero_dir: self.any_zero_dir,
        }
    }
}

/// Result of a ray–box query.
#[derive(Clone, Copy, Debug)]
pub struct RayAabbHit<L: Lane = f32> {
    /// Lanes where the ray meets the box.
    pub hit: L::Mask,
    /// Entry parameter in hit lanes: the smallest `t ∈ [t_min, t_max]` on the box
    /// (`t_min` when the ray starts inside; clamped to be finite). `+∞` in miss lanes.
    pub t: L,
}

/// The slab interval of one axis. `widen` is `Some((c, eta))` for the
/// conservative variant: finite endpoints move outward by `c·|t| + eta`.
#[inline(always)]
fn slab<L: Lane, const ZERO_DIRS: bool>(
    min: L,
    max: L,
    o: L,
    inv: L,
    dir_zero: L::Mask,
    widen: Option<(L, L)>,
) -> (L, L) {
    let zero = L::splat(0.0);
    let inf = L::splat(f32::INFINITY);
    let lo = min - o;
    let hi = max - o;
    // if lo == 0 { t_lo = 0 }: the slab plane passes through the origin. Needed
    // when inv is ±∞ (a subnormal-small direction), where 0·∞ would be NaN.
    let t_lo = L::select(lo.eq(zero), zero, lo * inv);
    let t_hi = L::select(hi.eq(zero), zero, hi * inv);
    let mut near = t_lo.min(t_hi);
    let mut far = t_lo.max(t_hi);
    if let Some((c, eta)) = widen {
        // near -= c·|near| + eta; far += c·|far| + eta (finite values only: ∞ - ∞ is NaN)
        near = L::select(near.is_finite(), near - (c * near.abs() + eta), near);
        far = L::select(far.is_finite(), far + (c * far.abs() + eta), far);
    }
    // if dir == 0 { inside ? (-∞, +∞) : (+∞, -∞) }: a ray parallel to the slab
    // is inside it for all t or for none; the comparison of the origin with the
    // slab is exact, and no division by zero is ever looked at.
    if ZERO_DIRS {
        let inside = lo.le(zero) & hi.ge(zero);
        near = L::select(dir_zero, L::select(inside, -inf, inf), near);
        far = L::select(dir_zero, L::select(inside, inf, -inf), far);
    }
    (near, far)
}

#[inline(always)]
fn slab_test<L: Lane>(p: &RayPrecomp<L>, b: &Aabb<L>, widen: Option<(L, L)>) -> RayAabbHit<L> {
    let ((nx, fx), (ny, fy), (nz, fz)) = if p.any_zero_dir {
        (
            slab::<L, true>(b.min.x, b.max.x, p.origin.x, p.inv_dir.x, p.dir_zero[0], widen),
            slab::<L, true>(b.min.y, b.max.y, p.origin.y, p.inv_dir.y, p.dir_zero[1], widen),
            slab::<L, true>(b.min.z, b.max.z, p.origin.z, p.inv_dir.z, p.dir_zero[2], widen),
        )
    } else {
        // No lane has a zero direction component: the same arithmetic without
        // the selects that would return their input (bit-identical).
        (
            slab::<L, false>(b.min.x, b.max.x, p.origin.x, p.inv_dir.x, p.dir_zero[0], widen),
            slab::<L, false>(b.min.y, b.max.y, p.origin.y, p.inv_dir.y, p.dir_zero[1], widen),
            slab::<L, false>(b.min.z, b.max.z, p.origin.z, p.inv_dir.z, p.dir_zero[2], widen),
        )
    };
    let enter = p.t_min.max(nx).max(ny).max(nz);
    let exit = p.t_max.min(fx).min(fy).min(fz);
    let hit = enter.le(exit) & p.valid & b.is_valid();
    RayAabbHit { hit, t: L::select(hit, finite_t(enter), L::splat(f32::INFINITY)) }
}

/// Whether the ray meets the closed box for some `t ∈ [t_min, t_max]`, and the
/// entry `t` (see [`RayAabbHit`]).
///
/// Slab test over a precomputed inverse direction ([`RayPrecomp`]); zero
/// direction components and origins exactly on a slab plane are handled without
/// NaN (see the pseudocode in the module source). Keeps the crate
/// [contracts](crate#contracts): exact outside the ulp band derived in
/// `simd-notes.md` (computed slab times are within `γ₃|t| + 2⁻¹⁴⁹` of the exact
/// ones), provided every non-zero `|dir_i| >= 1/COORD_LIMIT` (so that `1/dir_i`
/// stays in range; zero components are exact). An inverted box, NaN or ±∞
/// coordinates, or an empty interval never hit. Lane-generic: the scalar call is
/// `L = f32`.
///
/// Source: Ericson §5.3.3 (seed `000` heading only), seed `003` slab method
/// (whose printed test `t_i^min <= t_i^max` per slab is an erratum: the test is
/// on the max of the entries against the min of the exits); Jolt `RayAABox.h`.
///
/// ```
/// use widephase::{ray::ray_aabb, Aabb, Ray, Vec3};
/// let bx = Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
/// // grazes the top edge y = 1 exactly, with a zero z direction: a hit (closed sets)
/// let ray = Ray::new(Vec3::new(0.0, 0.0, 0.5), Vec3::new(1.0, 1.0, 0.0));
/// let h = ray_aabb(&ray, &bx);
/// assert!(h.hit && h.t == 1.0);
/// // one ulp above the edge: a miss
/// let ray = Ray::new(Vec3::new(0.0, 1.0e-7, 0.5), Vec3::new(1.0, 1.0, 0.0));
/// assert!(!ray_aabb(&ray, &bx).hit);
/// ```
#[inline(always)]
pub fn ray_aabb<L: Lane>(ray: &Ray<L>, b: &Aabb<L>) -> RayAabbHit<L> {
    slab_test(&RayPrecomp::new(ray), b, None)
}

/// [`ray_aabb`] with the per-ray data precomputed once ([`RayPrecomp::new`], or
/// [`RayPrecomp::splat`] for one ray against a pack of boxes). Bit-identical to
/// [`ray_aabb`] on the same ray.
///
/// ```
/// use widephase::{ray::{ray_aabb, ray_aabb_precomp, RayPrecomp}, Aabb, Ray, Vec3};
/// let ray = Ray::new(Vec3::new(0.0, 0.5, 0.5), Vec3::new(1.0, 0.0, 0.0));
/// let pre = RayPrecomp::new(&ray);
/// let bx = Aabb::new(Vec3::new(3.0, 0.0, 0.0), Vec3::new(4.0, 1.0, 1.0));
/// let h = ray_aabb_precomp(&pre, &bx);
/// assert!(h.hit && h.t == 3.0 && h.t == ray_aabb(&ray, &bx).t);
/// ```
#[inline(always)]
pub fn ray_aabb_precomp<L: Lane>(pre: &RayPrecomp<L>, b: &Aabb<L>) -> RayAabbHit<L> {
    slab_test(pre, b, None)
}

/// Relative widening of the conservative slab test: `2⁻²⁰ = 16u`, at least the
/// derived bound `(3u + 4.01u)(1 + 2⁻¹⁰)` (see `simd-notes.md`).
pub const RAY_AABB_WIDEN_REL: f32 = 9.536_743e-7;
/// Absolute widening of the conservative slab test: `2⁻¹²⁶`, covering the
/// underflow of `lo·inv` (at most `2⁻¹⁵⁰`) with room for the widening's own rounding.
pub const RAY_AABB_WIDEN_ABS: f32 = f32::MIN_POSITIVE;

/// Conservative [`ray_aabb`]: never misses a box that the exact ray touches
/// (within the range of the [contracts](crate#contracts), and every non-zero
/// `|dir_i| >= 1/COORD_LIMIT`). Each finite slab time moves outward by
/// `RAY_AABB_WIDEN_REL·|t| + RAY_AABB_WIDEN_ABS`, so errors are false positives
/// only, inside the band. `t` is the widened entry parameter (never later than
/// the exact entry). Source and derivation: `simd-notes.md`; Ize, "Robust BVH
/// Ray Traversal" (JCGT 2013) for the idea.
///
/// ```
/// use widephase::{ray::{ray_aabb, ray_aabb_conservative}, Aabb, Ray, Vec3};
/// let bx = Aabb::new(Vec3::splat(1.0), Vec3::splat(3.0));
/// let ray = Ray::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 1.0));
/// assert!(ray_aabb_conservative(&ray, &bx).hit && ray_aabb(&ray, &bx).hit);
/// // touches the box only at the corner (3, 3, 3), at t = 1: must be reported
/// let corner = Ray::new(Vec3::new(0.0, 4.0, 3.0), Vec3::new(3.0, -1.0, 0.0));
/// let h = ray_aabb_conservative(&corner, &bx);
/// assert!(h.hit && h.t <= 1.0);
/// ```
#[inline(always)]
pub fn ray_aabb_conservative<L: Lane>(ray: &Ray<L>, b: &Aabb<L>) -> RayAabbHit<L> {
    ray_aabb_conservative_precomp(&RayPrecomp::new(ray), b)
}

/// [`ray_aabb_conservative`] over precomputed per-ray data; bit-identical to it.
///
/// ```
/// use widephase::{ray::{ray_aabb_conservative_precomp, RayPrecomp}, Aabb, Ray, Vec3};
/// let pre = RayPrecomp::new(&Ray::new(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0)));
/// let below = Aabb::new(Vec3::new(-1.0, -1.0, -3.0), Vec3::new(0.0, 0.0, -2.0));
/// assert!(ray_aabb_conservative_precomp(&pre, &below).hit);
/// ```
#[inline(always)]
pub fn ray_aabb_conservative_precomp<L: Lane>(pre: &RayPrecomp<L>, b: &Aabb<L>) -> RayAabbHit<L> {
    slab_test(pre, b, Some((L::splat(RAY_AABB_WIDEN_REL), L::splat(RAY_AABB_WIDEN_ABS))))
}

/// [`ray_aabb`] with the arguments swapped.
///
/// ```
/// use widephase::{ray::aabb_ray, Aabb, Ray, Vec3};
/// let bx = Aabb::new(Vec3::ZERO, Vec3::splat(1.0));
/// assert!(aabb_ray(&bx, &Ray::new(Vec3::splat(-1.0), Vec3::splat(1.0))).hit);
/// ```
#[inline(always)]
pub fn aabb_ray<L: Lane>(b: &Aabb<L>, ray: &Ray<L>) -> RayAabbHit<L> {
    ray_aabb(ray, b)
}
