//! Ray/segment–capsule: the capsule is the cylinder around its segment united
//! with the balls at both ends (Ericson §5.3.7).

use super::ray_cylinder::{ray_cylinder_interval, unit_scaled};
use super::ray_sphere::ray_sphere;
use crate::shapes::{Capsule, Cylinder, Ray, Segment, Sphere};

/// Entry parameter of the ray into the closed capsule, or `None`: the smallest
/// of the entries into the finite cylinder around `[a, b]` and into the balls
/// of `radius` at `a` and `b` (each clipped to `[t_min, t_max]`; `t_min` when
/// starting inside). A capsule with `a == b` is a ball; radius 0 is the segment;
/// a negative radius is empty; NaN/∞ give `None` (crate
/// [contracts](crate#contracts); band: that of the three parts). The ray and
/// capsule are first multiplied by the power of two that brings their largest
/// coordinate magnitude into `[1, 2)` (exact, `t` unchanged), so the range is
/// that of [`ray_cylinder`](super::ray_cylinder) for every part.
///
/// ```
/// use widephase::{ray::ray_capsule, Capsule, Ray, Vec3};
/// let cap = Capsule::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), 1.0);
/// // into the top ball along the axis
/// assert_eq!(ray_capsule(&Ray::new(Vec3::new(0.0, 0.0, 5.0), -Vec3::Z), &cap), Some(2.0));
/// // tangent to the side
/// assert_eq!(ray_capsule(&Ray::new(Vec3::new(-3.0, 1.0, 1.0), Vec3::X), &cap), Some(3.0));
/// assert_eq!(ray_capsule(&Ray::new(Vec3::new(-3.0, 1.5, 1.0), Vec3::X), &cap), None);
/// ```
pub fn ray_capsule(ray: &Ray, cap: &Capsule) -> Option<f32> {
    if !(cap.radius.is_finite() && cap.radius >= 0.0 && cap.a.is_finite() && cap.b.is_finite()) {
        return None;
    }
    if !(ray.origin.is_finite() && ray.dir.is_finite()) {
        return None;
    }
    // One common power-of-two scale (t unchanged) keeps the three parts'
    // products in range; see `unit_scaled`.
    let (ray, a, b, radius) = unit_scaled(ray, cap.a, cap.b, cap.radius);
    let side = ray_cylinder_interval(&ray, &Cylinder::new(a, b, radius)).map(|(lo, _)| lo);
    let ends = [a, b].map(|c| {
        let h = ray_sphere(&ray, &Sphere::new(c, radius));
        h.hit.then_some(h.t)
    });
    [side, ends[0], ends[1]]
        .into_iter()
        .flatten()
        .min_by(|x, y| x.total_cmp(y))
        .map(|t| t.max(f32::MIN))
}

/// Segment–capsule: the smallest `t ∈ [0, 1]` with `a + t·(b - a)` in the
/// closed capsule (see [`ray_capsule`]), or `None`.
///
/// ```
/// use widephase::{ray::segment_capsule, Capsule, Segment, Vec3};
/// let cap = Capsule::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), 1.0);
/// assert_eq!(segment_capsule(&Segment::new(Vec3::new(0.0, 0.0, -3.0), Vec3::new(0.0, 0.0, -2.0)), &cap), None);
/// ```
pub fn segment_capsule(seg: &Segment, cap: &Capsule) -> Option<f32> {
    ray_capsule(&Ray::with_interval(seg.a, seg.b - seg.a, 0.0, 1.0), cap)
}
