//! Ray–triangle: the watertight algorithm of Woop, Benthin and Wald,
//! "Watertight Ray/Triangle Intersection", JCGT 2(1), 2013. Lane-generic.
//!
//! Pseudocode (per lane; the `if`s on lane data are `select`s):
//! ```text
//! kz = argmax |dir_i|  (ties: x before y before z); kx = kz+1, ky = kx+1 (mod 3)
//! if dir[kz] < 0 { swap(kx, ky) }                 (keeps the winding)
//! Sx = dir[kx]/dir[kz]; Sy = dir[ky]/dir[kz]; Sz = 1/dir[kz]
//! for P in a, b, c: P -= origin; P' = (P[kx] - Sx·P[kz], P[ky] - Sy·P[kz], Sz·P[kz])
//!     (the shear maps the ray to the +z axis, with z' = t)
//! U = C'x·B'y - C'y·B'x   (edge b→c)   V = A'x·C'y - A'y·C'x   (edge c→a)
//! W = B'x·A'y - B'y·A'x   (edge a→b)
//! if U == 0 || V == 0 || W == 0 || dir == 0: redo this lane in f64 (scalar, exact signs)
//! if (U<0 || V<0 || W<0) && (U>0 || V>0 || W>0): miss        (both faces hit)
//! det = U+V+W; if det == 0: miss;  t = (U/det)·A'z + (V/det)·B'z + (W/det)·C'z
//! hit = t_min <= t <= t_max
//! ```
//!
//! Why it is watertight: the shear depends on the ray only, so two triangles
//! sharing an edge transform its two vertices identically, and their edge
//! functions for it are `e` and `-e` exactly (`fl(p·q) = fl(q·p)`). A ray through
//! the edge therefore sees `e = 0` in both, and the double-precision fallback
//! (products of two `f32` are exact in `f64`, and the difference of two exact
//! products keeps its sign when rounded) gives the exact sign of every edge
//! function of the transformed vertices. So a point is never outside both
//! triangles of an edge.

use super::{finite_t, mask_from_bools, point_triangle::point_in_triangle, ray_valid};
use crate::lane::{Lane, LaneMask};
use crate::math::{Vec3, V3};
use crate::shapes::{Ray, Triangle};
use crate::simd::unroll::map3;

/// Result of a ray–triangle query.
#[derive(Clone, Copy, Debug)]
pub struct RayTriangleHit<L: Lane = f32> {
    /// Lanes where the ray meets the closed triangle.
    pub hit: L::Mask,
    /// Ray parameter of the hit (`+∞` in miss lanes).
    pub t: L,
    /// Barycentric weight of vertex `b` (0 in miss lanes).
    pub u: L,
    /// Barycentric weight of vertex `c` (0 in miss lanes); the hit point is
    /// `(1-u-v)·a + u·b + v·c` up to rounding.
    pub v: L,
}

/// The ray-dependent shear of Woop et al. applied to the triangle's vertices.
#[derive(Clone, Copy, Debug)]
struct Sheared<L: Lane> {
    a: V3<L>,
    b: V3<L>,
    c: V3<L>,
    dir_zero: L::Mask,
}

#[inline(always)]
fn shear<L: Lane>(ray: &Ray<L>, tri: &Triangle<L>) -> Sheared<L> {
    let d = ray.dir;
    let ad = d.abs();
    // kz = argmax |d_i|, ties to the lower axis.
    let k0 = ad.x.ge(ad.y) & ad.x.ge(ad.z);
    let k1 = !k0 & ad.y.ge(ad.z);
    // (v[kx], v[ky], v[kz]) for kz = 0: (y, z, x); kz = 1: (z, x, y); kz = 2: (x, y, z)
    // Nested fns and a written-out array, not closures: a closure is
    // compiled without the dispatched entry's target features unless LLVM
    // happens to inline it (`crate::simd`).
    #[inline(always)]
    fn perm<L: Lane>(k0: L::Mask, k1: L::Mask, v: V3<L>) -> V3<L> {
        V3::new(
            L::select(k0, v.y, L::select(k1, v.z, v.x)),
            L::select(k0, v.z, L::select(k1, v.x, v.y)),
            L::select(k0, v.x, L::select(k1, v.y, v.z)),
        )
    }
    let pd = perm(k0, k1, d);
    // if dir[kz] < 0 { swap(kx, ky) }: keeps the orientation of the frame.
    let swap = pd.z.lt(L::splat(0.0));
    #[inline(always)]
    fn fix<L: Lane>(swap: L::Mask, v: V3<L>) -> V3<L> {
        V3::new(L::select(swap, v.y, v.x), L::select(swap, v.x, v.y), v.z)
    }
    let pd = fix(swap, pd);
    let sx = pd.x / pd.z;
    let sy = pd.y / pd.z;
    let sz = L::splat(1.0) / pd.z;
    let [a, b, c] = map3!([tri.a, tri.b, tri.c], |p| {
        let q = fix(swap, perm(k0, k1, p - ray.origin));
        V3::new(q.x - sx * q.z, q.y - sy * q.z, sz * q.z)
    });
    Sheared { a, b, c, dir_zero: pd.z.eq(L::splat(0.0)) }
}

/// Ray–triangle intersection, watertight, both faces hit; returns the hit mask,
/// `t` and barycentrics (see [`RayTriangleHit`]).
///
/// - **Watertight**: a ray through an edge or vertex shared by triangles of a
///   mesh hits at least one of them (see the module docs for the argument;
///   tested on meshes with rays aimed exactly at shared edges and vertices).
/// - **Backfaces**: both sides hit; the triangle's winding does not matter.
/// - **Degenerate** triangles (zero area) are their segment or point, and a ray
///   lying in the triangle's plane ("edge-on") hits where it enters the closed
///   triangle: these lanes go through the scalar double-precision fallback.
/// - A zero direction is the point `origin`: a hit at `t_min` (clamped finite)
///   when the origin is in the closed triangle ([`point_in_triangle`]).
///
/// Keeps the crate [contracts](crate#contracts); the ulp band (edge functions and
/// `t` near the interval ends) is derived in `simd-notes.md`.
///
/// Source: Woop, Benthin, Wald 2013 (the paper's f64 fallback when an edge
/// function is exactly 0 is kept, run per lane by a deterministic scalar routine
/// so every width agrees bit for bit); seed `003` "射线/三角形相交测试" gives the
/// Möller–Trumbore linear system, which is not watertight.
///
/// ```
/// use widephase::{ray::ray_triangle, Ray, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// // through the hypotenuse midpoint (1, 1, 0): an edge hit counts
/// let ray = Ray::new(Vec3::new(1.0, 1.0, 5.0), Vec3::new(0.0, 0.0, -2.0));
/// let h = ray_triangle(&ray, &tri);
/// assert!(h.hit && h.t == 2.5 && h.u == 0.5 && h.v == 0.5);
/// // the back face is hit too
/// let up = Ray::new(Vec3::new(0.5, 0.5, -1.0), Vec3::new(0.0, 0.0, 1.0));
/// assert!(ray_triangle(&up, &tri).hit);
/// ```
#[inline(always)]
pub fn ray_triangle<L: Lane>(ray: &Ray<L>, tri: &Triangle<L>) -> RayTriangleHit<L> {
    finish(ray, tri, shear(ray, tri), ray_valid(ray) & tri.is_valid())
}

/// Per-ray data of [`ray_triangle`] computed once for one ray tested against
/// many triangles (a BVH leaf pack): the axis permutation and the shear
/// constants `Sx, Sy, Sz` of Woop et al. With one ray the permutation is the
/// same in every lane, so it is applied by index instead of by lane selects.
#[derive(Clone, Copy, Debug)]
pub struct RayTrianglePrecomp<L: Lane = f32> {
    ray: Ray<L>,
    /// `(kx, ky, kz)` after the winding swap.
    k: [usize; 3],
    /// `(Sx, Sy, Sz)`.
    s: V3<L>,
    dir_zero: bool,
    /// [`ray_valid`] of the ray (checked once, not per triangle pack).
    valid: bool,
}

impl RayTrianglePrecomp<f32> {
    /// The shear of `ray` (the same arithmetic as inside [`ray_triangle`]).
    #[inline(always)]
    pub fn new(ray: &Ray) -> Self {
        let d = ray.dir.to_array();
        let ad = ray.dir.abs();
        // kz = argmax |d_i|, ties to the lower axis (as in `shear`).
        let kz = if ad.x >= ad.y && ad.x >= ad.z {
            0
        } else if ad.y >= ad.z {
            1
        } else {
            2
        };
        let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
        if d[kz] < 0.0 {
            core::mem::swap(&mut kx, &mut ky);
        }
        let s = V3::new(d[kx] / d[kz], d[ky] / d[kz], 1.0 / d[kz]);
        RayTrianglePrecomp {
            ray: *ray,
            k: [kx, ky, kz],
            s,
            dir_zero: d[kz] == 0.0,
            valid: ray_valid(ray),
        }
    }

    /// The same ray in every lane, to test a pack of triangles.
    #[inline(always)]
    pub fn splat<L: Lane>(&self) -> RayTrianglePrecomp<L> {
        RayTrianglePrecomp {
            ray: Ray {
                origin: V3::broadcast(self.ray.origin),
                dir: V3::broadcast(self.ray.dir),
                t_min: L::splat(self.ray.t_min),
                t_max: L::splat(self.ray.t_max),
            },
            k: self.k,
            s: V3::broadcast(self.s),
            dir_zero: self.dir_zero,
            valid: self.valid,
        }
    }
}

/// [`ray_triangle`] with the per-ray shear precomputed
/// ([`RayTrianglePrecomp::new`], then [`splat`](RayTrianglePrecomp::splat) for
/// a pack of triangles). Bit-identical to [`ray_triangle`] on the same ray.
///
/// ```
/// use widephase::ray::{ray_triangle, ray_triangle_precomp, RayTrianglePrecomp};
/// use widephase::{Ray, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// let ray = Ray::new(Vec3::new(0.5, 0.5, 3.0), Vec3::new(0.1, 0.0, -1.0));
/// let pre = RayTrianglePrecomp::new(&ray);
/// let (h, g) = (ray_triangle_precomp(&pre, &tri), ray_triangle(&ray, &tri));
/// assert!(h.hit && h.t.to_bits() == g.t.to_bits() && h.u.to_bits() == g.u.to_bits());
/// ```
#[inline(always)]
pub fn ray_triangle_precomp<L: Lane>(
    pre: &RayTrianglePrecomp<L>,
    tri: &Triangle<L>,
) -> RayTriangleHit<L> {
    ray_triangle_precomp_valid(pre, tri, tri.is_valid())
}

/// [`ray_triangle_precomp`] with the triangle validity `tri_valid` (which must
/// equal `tri.is_valid()`) computed once by the caller, e.g. when a BVH leaf
/// pack is built.
#[inline(always)]
pub(crate) fn ray_triangle_precomp_valid<L: Lane>(
    pre: &RayTrianglePrecomp<L>,
    tri: &Triangle<L>,
    tri_valid: L::Mask,
) -> RayTriangleHit<L> {
    debug_assert!(tri_valid.bits() == tri.is_valid().bits());
    let valid = L::Mask::splat(pre.valid) & tri_valid;
    // One instance per axis permutation, so the permutation is free (register
    // renaming) instead of an indexed load per coordinate.
    match pre.k {
        [1, 2, 0] => sheared_finish::<L, 1, 2, 0>(pre, tri, valid),
        [2, 1, 0] => sheared_finish::<L, 2, 1, 0>(pre, tri, valid),
        [2, 0, 1] => sheared_finish::<L, 2, 0, 1>(pre, tri, valid),
        [0, 2, 1] => sheared_finish::<L, 0, 2, 1>(pre, tri, valid),
        [0, 1, 2] => sheared_finish::<L, 0, 1, 2>(pre, tri, valid),
        _ => sheared_finish::<L, 1, 0, 2>(pre, tri, valid),
    }
}

#[inline(always)]
fn sheared_finish<L: Lane, const KX: usize, const KY: usize, const KZ: usize>(
    pre: &RayTrianglePrecomp<L>,
    tri: &Triangle<L>,
    valid: L::Mask,
) -> RayTriangleHit<L> {
    debug_assert!(pre.k == [KX, KY, KZ]);
    // (a function, not a closure: a closure would compile outside a
    // dispatched path's featured entry, see `crate::simd`)
    #[inline(always)]
    fn tr<L: Lane, const KX: usize, const KY: usize, const KZ: usize>(
        pre: &RayTrianglePrecomp<L>,
        p: V3<L>,
    ) -> V3<L> {
        let o = pre.ray.origin;
        let q = [p.x - o.x, p.y - o.y, p.z - o.z];
        V3::new(q[KX] - pre.s.x * q[KZ], q[KY] - pre.s.y * q[KZ], pre.s.z * q[KZ])
    }
    let sheared = Sheared {
        a: tr::<L, KX, KY, KZ>(pre, tri.a),
        b: tr::<L, KX, KY, KZ>(pre, tri.b),
        c: tr::<L, KX, KY, KZ>(pre, tri.c),
        dir_zero: L::Mask::splat(pre.dir_zero),
    };
    finish(&pre.ray, tri, sheared, valid)
}

/// The edge functions, the sign tests and `t` on sheared vertices, with the
/// per-lane f64 fallback (shared by [`ray_triangle`] and [`ray_triangle_precomp`]).
/// `valid` is `ray_valid(ray) & tri.is_valid()`.
#[inline(always)]
fn finish<L: Lane>(
    ray: &Ray<L>,
    tri: &Triangle<L>,
    s: Sheared<L>,
    valid: L::Mask,
) -> RayTriangleHit<L> {
    let zero = L::splat(0.0);
    let (a, b, c) = (s.a, s.b, s.c);
    let u = c.x * b.y - c.y * b.x;
    let v = a.x * c.y - a.y * c.x;
    let w = b.x * a.y - b.y * a.x;
    // Lanes whose answer hinges on an exactly-zero edge function (or a zero
    // direction) are recomputed below in f64.
    let fallback = valid & (s.dir_zero | u.eq(zero) | v.eq(zero) | w.eq(zero));
    let neg = u.lt(zero) | v.lt(zero) | w.lt(zero);
    let pos = u.gt(zero) | v.gt(zero) | w.gt(zero);
    // if no lane can hit (edge functions of both signs, or invalid) and no
    // lane needs the fallback: the all-miss answer the code below would give,
    // without its three divisions (most packs a traversal tests are misses).
    if !(valid.and_not(neg & pos) | fallback).any() {
        return RayTriangleHit {
            hit: L::Mask::splat(false),
            t: L::splat(f32::INFINITY),
            u: zero,
            v: zero,
        };
    }
    let det = u + v + w;
    // Barycentric weights first, then t = Σ w_i·z_i: Woop's `T = ΣU_i·z_i`
    // is a product of three coordinates and underflows for tiny triangles
    // (coordinates below 2^-50), while the weights are O(1).
    let (wa, wb, wc) = (u / det, v / det, w / det);
    let t = wa * a.z + wb * b.z + wc * c.z;
    // if (neg && pos) || det == 0 || t < t_min || t > t_max { miss }
    let hit = valid.and_not(fallback).and_not(neg & pos).and_not(det.eq(zero))
        & t.ge(ray.t_min)
        & t.le(ray.t_max);
    let mut out = RayTriangleHit {
        hit,
        t: L::select(hit, t, L::splat(f32::INFINITY)),
        u: L::select(hit, wb, zero),
        v: L::select(hit, wc, zero),
    };
    if fallback.any() {
        let bits = fallback.bits();
        let mut hit_b = [false; 16];
        let (mut tt, mut uu, mut vv) = ([0.0f32; 16], [0.0f32; 16], [0.0f32; 16]);
        for (i, h) in hit_b.iter_mut().enumerate().take(L::WIDTH) {
            *h = (out.hit.bits() >> i) & 1 == 1;
        }
        out.t.store(&mut tt);
        out.u.store(&mut uu);
        out.v.store(&mut vv);
        for i in 0..L::WIDTH {
            if (bits >> i) & 1 == 1 {
                let r = Ray {
                    origin: ray.origin.lane(i),
                    dir: ray.dir.lane(i),
                    t_min: ray.t_min.lane(i),
                    t_max: ray.t_max.lane(i),
                };
                let tr = Triangle { a: tri.a.lane(i), b: tri.b.lane(i), c: tri.c.lane(i) };
                let f = exact_sign_fallback(&r, &tr);
                hit_b[i] = f.hit;
                tt[i] = f.t;
                uu[i] = f.u;
                vv[i] = f.v;
            }
        }
        out = RayTriangleHit {
            hit: mask_from_bools::<L>(&hit_b[..L::WIDTH]),
            t: L::load(&tt[..L::WIDTH]),
            u: L::load(&uu[..L::WIDTH]),
            v: L::load(&vv[..L::WIDTH]),
        };
    }
    out
}

/// Relative factor of the edge-function tolerance of
/// [`ray_triangle_conservative`]: `128u` against the derived `80.01u`
/// (`simd-notes.md`, "Ray–triangle").
pub const RAY_TRIANGLE_EDGE_K: f32 = 128.0 * crate::UNIT_ROUNDOFF;

/// Conservative ray–triangle test: never answers "miss" when the exact ray
/// (its segment `[t_min, t_max]`) touches the exact closed triangle. Hit mask
/// only; use [`ray_triangle`] for `t` and barycentrics.
///
/// Same shear and edge functions `U, V, W` as [`ray_triangle`], but a miss is
/// reported only on a certificate:
/// - **edges**: some edge function is `< -τ` and another `> τ`, with
///   `τ_PQ = 128u·M_P·M_Q + 2^-140`, `M_P = max_i |P_i - o_i|`. The computed
///   sheared edge function is within `80.01u·M_P·M_Q` (+ underflow) of the exact
///   one, whose sign says on which side of the edge the ray's line passes, so
///   two certified opposite signs mean the line misses the triangle;
/// - **vertex range**: every sheared `z_i` (the ray parameter of vertex `i`'s
///   plane across the dominant axis; `γ3` relative error) is below `t_min` or
///   every one above `t_max` after moving it outward by `8u·|z_i| + 2^-140`:
///   the hit parameter is a convex combination of the `z_i`;
/// - **hit parameter**: when `|det| > 4E`, `E = τ_BC + τ_CA + τ_AB` (so the
///   exact `det` is not 0 and the line crosses the plane once), `t` computed as
///   in [`ray_triangle`] is within `Z·(2.02·E/|det| + 12.7u) + 2^-149` of the
///   exact parameter of any exact hit (`Z = max|z_i|`); the tolerance used is
///   `Z·(4E/|det| + 16u) + 2^-129`. Derivation in `simd-notes.md`.
///
/// A zero direction is the point `origin`, decided by the scalar f64
/// [`point_in_triangle`] (relative tolerance `2^-40`, above its own rounding), as
/// in [`ray_triangle`]. Invalid lanes and `t_min > t_max` answer `false`. No
/// f64 path otherwise: an edge function at 0 is inside its tolerance. False
/// positives (the band the tests check): an exact edge function within `2τ` of
/// 0, a ray nearly in the triangle's plane (exact `|det| <= 8E`, where only the
/// vertex-range certificate applies), or an exact hit parameter within twice
/// the tolerance of the interval.
///
/// **LANE-GENERIC**, bit-identical at every width.
///
/// ```
/// use widephase::{ray::{ray_triangle_conservative}, Ray, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// let ray = Ray::new(Vec3::new(1.0, 1.0, 5.0), Vec3::new(0.0, 0.0, -2.0));
/// assert!(ray_triangle_conservative(&ray, &tri));
/// let beside = Ray::new(Vec3::new(1.5, 1.5, 5.0), Vec3::new(0.0, 0.0, -2.0));
/// assert!(!ray_triangle_conservative(&beside, &tri));
/// ```
#[inline(always)]
pub fn ray_triangle_conservative<L: Lane>(ray: &Ray<L>, tri: &Triangle<L>) -> L::Mask {
    let valid = ray_valid(ray) & tri.is_valid() & ray.t_min.le(ray.t_max);
    let s = shear(ray, tri);
    let (a, b, c) = (s.a, s.b, s.c);
    let u = c.x * b.y - c.y * b.x;
    let v = a.x * c.y - a.y * c.x;
    let w = b.x * a.y - b.y * a.x;
    // M_P from the rounded differences (each at least (1 - u) of the exact one).
    // (functions, not closures, in dispatched kernels: see `crate::simd`)
    #[inline(always)]
    fn reach<L: Lane>(p: V3<L>, o: V3<L>) -> L {
        (p - o).abs().max_element()
    }
    let (ma, mb, mc) =
        (reach(tri.a, ray.origin), reach(tri.b, ray.origin), reach(tri.c, ray.origin));
    let k = L::splat(RAY_TRIANGLE_EDGE_K);
    let floor = L::splat(f32::from_bits(512)); // 2^-140
    let (tu, tv, tw) = (k * (mb * mc) + floor, k * (mc * ma) + floor, k * (ma * mb) + floor);
    // if (some edge certainly < 0 && some edge certainly > 0) the line misses
    let neg = u.lt(-tu) | v.lt(-tv) | w.lt(-tw);
    let pos = u.gt(tu) | v.gt(tv) | w.gt(tw);
    let line_misses = neg & pos;
    // if (every z_i certainly < t_min || every z_i certainly > t_max) miss
    let z_k = L::splat(8.0 * crate::UNIT_ROUNDOFF);
    #[inline(always)]
    fn widen<L: Lane>(z: L, z_k: L, floor: L) -> L {
        z_k * z.abs() + floor
    }
    let (wa, wb, wc) = (widen(a.z, z_k, floor), widen(b.z, z_k, floor), widen(c.z, z_k, floor));
    let z_hi = (a.z + wa).max(b.z + wb).max(c.z + wc);
    let z_lo = (a.z - wa).min(b.z - wb).min(c.z - wc);
    let vertices_outside = z_hi.lt(ray.t_min) | z_lo.gt(ray.t_max);
    // if (|det| > 4E && t ± tol_t outside [t_min, t_max]) miss
    let det = u + v + w;
    let e_sum = tu + tv + tw;
    let det_abs = det.abs();
    let well = det_abs.gt(L::splat(4.0) * e_sum);
    let t = (u / det) * a.z + (v / det) * b.z + (w / det) * c.z;
    let z_max = a.z.abs().max(b.z.abs()).max(c.z.abs());
    let tol_t = z_max * (L::splat(4.0) * e_sum / det_abs + L::splat(16.0 * crate::UNIT_ROUNDOFF))
        + L::splat(f32::from_bits(0x0010_0000)); // 2^-129
    let t_outside = well & ((t + tol_t).lt(ray.t_min) | (t - tol_t).gt(ray.t_max));
    let mut hit = valid.and_not(line_misses | vertices_outside | t_outside);
    let point_lanes = valid & s.dir_zero;
    if point_lanes.any() {
        // The ray is its origin: the scalar point test, per lane.
        let bits = point_lanes.bits();
        let mut hit_b = [false; 16];
        for (i, h) in hit_b.iter_mut().enumerate().take(L::WIDTH) {
            *h = if (bits >> i) & 1 == 1 {
                let r = Ray {
                    origin: ray.origin.lane(i),
                    dir: ray.dir.lane(i),
                    t_min: ray.t_min.lane(i),
                    t_max: ray.t_max.lane(i),
                };
                let tr = Triangle { a: tri.a.lane(i), b: tri.b.lane(i), c: tri.c.lane(i) };
                exact_sign_fallback(&r, &tr).hit
            } else {
                (hit.bits() >> i) & 1 == 1
            };
        }
        hit = mask_from_bools::<L>(&hit_b[..L::WIDTH]);
    }
    hit
}

/// [`ray_triangle`] with the arguments swapped.
///
/// ```
/// use widephase::{ray::triangle_ray, Ray, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// assert!(triangle_ray(&tri, &Ray::new(Vec3::new(0.0, 0.0, 1.0), -Vec3::Z)).hit);
/// ```
#[inline(always)]
pub fn triangle_ray<L: Lane>(tri: &Triangle<L>, ray: &Ray<L>) -> RayTriangleHit<L> {
    ray_triangle(ray, tri)
}

const MISS: RayTriangleHit<f32> = RayTriangleHit { hit: false, t: f32::INFINITY, u: 0.0, v: 0.0 };

/// The scalar double-precision path of one lane (deterministic: it depends
/// only on that lane's inputs, so every width gets the same bits).
fn exact_sign_fallback(ray: &Ray, tri: &Triangle) -> RayTriangleHit<f32> {
    let s = shear::<f32>(ray, tri);
    if s.dir_zero {
        // The ray is the point `origin`.
        if !point_in_triangle(ray.origin, tri) {
            return MISS;
        }
        let (u, v) = barycentric_f64(ray.origin, tri);
        return RayTriangleHit { hit: true, t: finite_t(ray.t_min), u, v };
    }
    let p = [s.a, s.b, s.c].map(|q| [q.x as f64, q.y as f64, q.z as f64]);
    // Exact products; the rounded difference has the exact sign.
    let e = |i: usize, j: usize| p[j][0] * p[i][1] - p[j][1] * p[i][0];
    let (u, v, w) = (e(1, 2), e(2, 0), e(0, 1));
    let neg = u < 0.0 || v < 0.0 || w < 0.0;
    let pos = u > 0.0 || v > 0.0 || w > 0.0;
    if neg && pos {
        return MISS;
    }
    if neg || pos {
        let det = u + v + w;
        let t = ((u / det) * p[0][2] + (v / det) * p[1][2] + (w / det) * p[2][2]) as f32;
        if t >= ray.t_min && t <= ray.t_max {
            return RayTriangleHit { hit: true, t, u: (v / det) as f32, v: (w / det) as f32 };
        }
        return MISS;
    }
    edge_on(ray, &p)
}

/// All three edge functions are exactly zero: the ray's line and the (possibly
/// degenerate) triangle are coplanar. In the sheared frame the ray is the z axis
/// and the projected vertices lie on one line through the origin; the hit set is
/// the interval of `z = t` where the triangle, seen in the plane spanned by that
/// line and z, crosses `s = 0`.
fn edge_on(ray: &Ray, p: &[[f64; 3]; 3]) -> RayTriangleHit<f32> {
    // Direction of the projected line: the projected vertex farthest from 0.
    let far = (0..3)
        .max_by(|&i, &j| {
            let ni = p[i][0].abs() + p[i][1].abs();
            let nj = p[j][0].abs() + p[j][1].abs();
            ni.partial_cmp(&nj).unwrap_or(core::cmp::Ordering::Equal)
        })
        .unwrap_or(0);
    let w = [p[far][0], p[far][1]];
    // Signed position along the line (exact sign: two exact products, one rounding).
    let s: [f64; 3] = core::array::from_fn(|i| p[i][0] * w[0] + p[i][1] * w[1]);
    // Candidate crossings of s = 0, with their barycentric weights (b, c).
    let unit = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)];
    let mut lo: Option<(f64, (f64, f64))> = None;
    let mut hi: Option<(f64, (f64, f64))> = None;
    let mut add = |z: f64, bc: (f64, f64)| {
        if lo.is_none_or(|(l, _)| z < l) {
            lo = Some((z, bc));
        }
        if hi.is_none_or(|(h, _)| z > h) {
            hi = Some((z, bc));
        }
    };
    for i in 0..3 {
        let j = (i + 1) % 3;
        if s[i] == 0.0 {
            add(p[i][2], unit[i]);
        }
        if (s[i] < 0.0 && s[j] > 0.0) || (s[i] > 0.0 && s[j] < 0.0) {
            let lam = s[i] / (s[i] - s[j]);
            let z = p[i][2] + (p[j][2] - p[i][2]) * lam;
            let bc = (
                unit[i].0 + (unit[j].0 - unit[i].0) * lam,
                unit[i].1 + (unit[j].1 - unit[i].1) * lam,
            );
            add(z, bc);
        }
    }
    let (Some((z0, bc0)), Some((z1, bc1))) = (lo, hi) else {
        return MISS;
    };
    let (t_min, t_max) = (ray.t_min as f64, ray.t_max as f64);
    if z1 < t_min || z0 > t_max {
        return MISS;
    }
    // Enter at z0, or at t_min when the ray starts inside the triangle.
    let t = z0.max(t_min);
    let lam = if z1 > z0 { (t - z0) / (z1 - z0) } else { 0.0 };
    let u = bc0.0 + (bc1.0 - bc0.0) * lam;
    let v = bc0.1 + (bc1.1 - bc0.1) * lam;
    RayTriangleHit { hit: true, t: finite_t(t as f32), u: u as f32, v: v as f32 }
}

/// Barycentric weights `(u, v)` of `b`, `c` for a point in the triangle's plane,
/// in f64 by the dominant-axis projection; `(0, 0)` for a zero-area triangle
/// (when the point is a vertex that is exact; otherwise an approximation).
fn barycentric_f64(p: Vec3, tri: &Triangle) -> (f32, f32) {
    let f = |v: Vec3| [v.x as f64, v.y as f64, v.z as f64];
    let (a, b, c, q) = (f(tri.a), f(tri.b), f(tri.c), f(p));
    let sub = |x: [f64; 3], y: [f64; 3]| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
    let (e1, e2, d) = (sub(b, a), sub(c, a), sub(q, a));
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let k = if n[0].abs() >= n[1].abs() && n[0].abs() >= n[2].abs() {
        0
    } else if n[1].abs() >= n[2].abs() {
        1
    } else {
        2
    };
    if n[k] == 0.0 {
        return (0.0, 0.0);
    }
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let u = (d[i] * e2[j] - d[j] * e2[i]) / n[k];
    let v = (e1[i] * d[j] - e1[j] * d[i]) / n[k];
    (u as f32, v as f32)
}
