//! Ray–OBB: the slab test in the box's frame (Ericson §5.3.3; seed `003`
//! "平板层相交法 … 可以处理 AABB、OBB、K-DOP").

use super::ray_aabb::ray_aabb;
use crate::math::Vec3;
use crate::shapes::{Aabb, Obb, Ray};

/// Entry parameter of the ray into the closed OBB: the smallest
/// `t ∈ [t_min, t_max]` with `origin + t·dir` in the box (`t_min` when starting
/// inside), or `None`.
///
/// The origin (relative to the center) and the direction are projected on the
/// three axes, then [`ray_aabb`] runs against `[-half, half]`. The projections
/// round (about `3u` of `|origin - center|` and `|dir|`), so the ulp band is
/// that of `ray_aabb` plus the projection error (`simd-notes.md`); axes must be
/// orthonormal (as [`Obb::try_new`] checks) for `t` to be the true parameter.
/// Negative half extents are an empty box; NaN/∞ give `None`
/// (crate [contracts](crate#contracts)).
///
/// ```
/// use widephase::{ray::ray_obb, Obb, Ray, Vec3};
/// let s = std::f32::consts::FRAC_1_SQRT_2;
/// // a cube of half size 1 rotated 45° about z
/// let obb = Obb::new(Vec3::ZERO, [Vec3::new(s, s, 0.0), Vec3::new(-s, s, 0.0), Vec3::Z], Vec3::splat(1.0));
/// let t = ray_obb(&Ray::new(Vec3::new(-5.0, 0.0, 0.0), Vec3::X), &obb).unwrap();
/// assert!((t - (5.0 - 2.0f32.sqrt())).abs() < 1e-5);
/// assert!(ray_obb(&Ray::new(Vec3::new(-5.0, 1.5, 0.0), Vec3::X), &obb).is_none());
/// ```
pub fn ray_obb(ray: &Ray, obb: &Obb) -> Option<f32> {
    let finite =
        obb.center.is_finite() && obb.half.is_finite() && obb.axes.iter().all(|a| a.is_finite());
    if !finite {
        return None;
    }
    let rel = ray.origin - obb.center;
    let local = Ray {
        origin: Vec3::new(rel.dot(obb.axes[0]), rel.dot(obb.axes[1]), rel.dot(obb.axes[2])),
        dir: Vec3::new(
            ray.dir.dot(obb.axes[0]),
            ray.dir.dot(obb.axes[1]),
            ray.dir.dot(obb.axes[2]),
        ),
        t_min: ray.t_min,
        t_max: ray.t_max,
    };
    let h = ray_aabb(&local, &Aabb::new(-obb.half, obb.half));
    h.hit.then_some(h.t)
}

/// [`ray_obb`] with the arguments swapped.
///
/// ```
/// use widephase::{ray::obb_ray, Aabb, Obb, Ray, Vec3};
/// let obb = Obb::from_aabb(&Aabb::new(Vec3::ZERO, Vec3::splat(2.0)));
/// assert_eq!(obb_ray(&obb, &Ray::new(Vec3::new(1.0, 1.0, -3.0), Vec3::Z)), Some(3.0));
/// ```
pub fn obb_ray(obb: &Obb, ray: &Ray) -> Option<f32> {
    ray_obb(ray, obb)
}
