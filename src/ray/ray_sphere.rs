//! Ray/segment–sphere (Ericson §5.3.2; seed `002`; seed `003` "射线/球体").
//!
//! The decision is taken on the closest point of the ray to the center, not on
//! the discriminant `b² - ac` of seed `002`:
//! ```text
//! m = origin - center;  a = dir·dir;  b = m·dir
//! tc = (a == 0) ? 0 : -b/a                  (closest t on the line)
//! tk = clamp(tc, t_min, t_max)              (closest t on the ray's interval)
//! hit = |m + tk·dir|² <= r²
//! t   = clamp(tc - sqrt(max(r² - |m + tc·dir|², 0) / a), t_min, t_max)
//! ```
//! Why: `|m + t·dir|²` is stationary at `tc`, so an error in the rounded `tc`
//! changes it only to second order, and `r² - h²` (Hearn–Baker) does not suffer
//! the cancellation of `b² - ac` for rays far from the sphere. A ray starting
//! inside reports `t_min` (seed `002`: "if t < 0, clamp t to zero").

use super::{finite_t, ray_valid};
use crate::lane::{Lane, LaneMask};
use crate::math::Vec3;
use crate::shapes::{Ray, Segment, Sphere};

/// Result of a ray–sphere query.
#[derive(Clone, Copy, Debug)]
pub struct RaySphereHit<L: Lane = f32> {
    /// Lanes where the ray meets the closed ball.
    pub hit: L::Mask,
    /// Smallest `t ∈ [t_min, t_max]` on the ball in hit lanes (`t_min` when the
    /// ray starts inside; clamped finite); `+∞` in miss lanes.
    pub t: L,
}

struct Common<L: Lane> {
    hit: L::Mask,
    m: crate::math::V3<L>,
    a: L,
    tc: L,
    r2: L,
}

#[inline(always)]
fn decide<L: Lane>(ray: &Ray<L>, s: &Sphere<L>) -> Common<L> {
    let zero = L::splat(0.0);
    let m = ray.origin - s.center;
    let a = ray.dir.dot(ray.dir);
    let b = m.dot(ray.dir);
    // if a == 0 { tc = 0 }: a zero direction is the point `origin` (no 0/0).
    let tc = L::select(a.eq(zero), zero, -b / a);
    let tk = tc.max(ray.t_min).min(ray.t_max);
    let q = m + ray.dir * tk;
    let r2 = s.radius * s.radius;
    let hit = q.dot(q).le(r2) & ray_valid(ray) & s.is_valid();
    Common { hit, m, a, tc, r2 }
}

/// Ray–sphere intersection: hit mask and the `t` of the first point of the
/// closed interval in the closed ball ([`RaySphereHit`]). Lane-generic.
///
/// The direction need not be unit length (seed `002`'s unnormalised form; its
/// printed `2(+m·d)` and `d = (B − A)‖B − A‖` are errata, see `simd-notes.md`).
/// Keeps the crate [contracts](crate#contracts); the ulp band of the hit test is
/// derived in `simd-notes.md`. A zero direction is the point `origin`, hit at
/// `t_min` (clamped finite).
///
/// ```
/// use widephase::{ray::ray_sphere, Ray, Sphere, Vec3};
/// let s = Sphere::new(Vec3::new(0.0, 0.0, 5.0), 1.0);
/// // tangent at (1, 0, 5): touching counts
/// let h = ray_sphere(&Ray::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 2.0)), &s);
/// assert!(h.hit && h.t == 2.5);
/// let h = ray_sphere(&Ray::new(Vec3::ZERO, Vec3::Z), &s);
/// assert!(h.hit && h.t == 4.0);
/// // starting inside: t = t_min
/// assert_eq!(ray_sphere(&Ray::new(Vec3::new(0.0, 0.0, 5.5), Vec3::Z), &s).t, 0.0);
/// ```
#[inline(always)]
pub fn ray_sphere<L: Lane>(ray: &Ray<L>, s: &Sphere<L>) -> RaySphereHit<L> {
    let zero = L::splat(0.0);
    let c = decide(ray, s);
    let h = c.m + ray.dir * c.tc;
    let half = ((c.r2 - h.dot(h)).max(zero) / c.a).sqrt();
    // if a == 0 { t = t_min } else { t = clamp(tc - half, t_min, t_max) }
    let t_line = (c.tc - half).max(ray.t_min).min(ray.t_max);
    let t = L::select(c.a.eq(zero), ray.t_min, t_line);
    RaySphereHit { hit: c.hit, t: L::select(c.hit, finite_t(t), L::splat(f32::INFINITY)) }
}

/// The test-only variant (seed `002` `TestRaySphere`): whether the ray meets the
/// closed ball, without a square root. Bit-identical to `ray_sphere(..).hit`
/// (the same decision code). Lane-generic.
///
/// ```
/// use widephase::{ray::test_ray_sphere, Ray, Sphere, Vec3};
/// let s = Sphere::new(Vec3::ZERO, 1.0);
/// assert!(test_ray_sphere(&Ray::new(Vec3::new(-5.0, 1.0, 0.0), Vec3::X), &s));
/// assert!(!test_ray_sphere(&Ray::new(Vec3::new(5.0, 0.0, 0.0), Vec3::X), &s)); // pointing away
/// ```
#[inline(always)]
pub fn test_ray_sphere<L: Lane>(ray: &Ray<L>, s: &Sphere<L>) -> L::Mask {
    decide(ray, s).hit
}

/// [`ray_sphere`] with the arguments swapped.
///
/// ```
/// use widephase::{ray::sphere_ray, Ray, Sphere, Vec3};
/// assert!(sphere_ray(&Sphere::new(Vec3::ZERO, 1.0), &Ray::new(Vec3::ZERO, Vec3::X)).hit);
/// ```
#[inline(always)]
pub fn sphere_ray<L: Lane>(s: &Sphere<L>, ray: &Ray<L>) -> RaySphereHit<L> {
    ray_sphere(ray, s)
}

/// Ray–sphere with the point: `Some((t, origin + t·dir))` for the first point of
/// the closed ray interval in the closed ball (see [`ray_sphere`]), else `None`.
///
/// ```
/// use widephase::{ray::ray_sphere_point, Ray, Sphere, Vec3};
/// let s = Sphere::new(Vec3::new(3.0, 0.0, 0.0), 1.0);
/// assert_eq!(ray_sphere_point(&Ray::new(Vec3::ZERO, Vec3::X), &s), Some((2.0, Vec3::new(2.0, 0.0, 0.0))));
/// ```
pub fn ray_sphere_point(ray: &Ray, s: &Sphere) -> Option<(f32, Vec3)> {
    let h = ray_sphere(ray, s);
    h.hit.then(|| (h.t, ray.origin + ray.dir * h.t))
}

/// Segment–sphere: `Some((t, point))` for the first point of the closed segment
/// `a + t·(b - a)`, `t ∈ [0, 1]`, in the closed ball (`t = 0` if `a` is inside;
/// a zero-length segment is the point `a`), else `None`. The parameter is not
/// normalised by the segment's length (seed `002` divides by `‖B − A‖`; here
/// the non-normalised quadratic is solved directly, so no `t <= ‖B − A‖` test).
///
/// ```
/// use widephase::{ray::segment_sphere, Segment, Sphere, Vec3};
/// let s = Sphere::new(Vec3::ZERO, 1.0);
/// let seg = Segment::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(-1.0, 0.0, 0.0)); // ends on the surface
/// assert_eq!(segment_sphere(&seg, &s), Some((1.0, Vec3::new(-1.0, 0.0, 0.0))));
/// ```
pub fn segment_sphere(seg: &Segment, s: &Sphere) -> Option<(f32, Vec3)> {
    ray_sphere_point(&Ray::with_interval(seg.a, seg.b - seg.a, 0.0, 1.0), s)
}

/// Test-only segment–sphere (no square root): whether the closed segment meets
/// the closed ball. Equal to `segment_sphere(..).is_some()`.
///
/// ```
/// use widephase::{ray::test_segment_sphere, Segment, Sphere, Vec3};
/// let s = Sphere::new(Vec3::ZERO, 1.0);
/// assert!(!test_segment_sphere(&Segment::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(-1.5, 0.0, 0.0)), &s));
/// ```
pub fn test_segment_sphere(seg: &Segment, s: &Sphere) -> bool {
    test_ray_sphere(&Ray::with_interval(seg.a, seg.b - seg.a, 0.0, 1.0), s).any()
}
