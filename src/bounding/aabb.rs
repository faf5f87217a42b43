//! AABB of a point set.

use super::usable;
use crate::math::Vec3;
use crate::shapes::Aabb;

/// The smallest AABB containing every point: component-wise min and max, which
/// are exact (no rounding), so containment is exact.
///
/// Returns `None` for an empty slice or any NaN/∞ coordinate (see the
/// [module docs](crate::bounding)). Source: seed 003 (AABB construction).
///
/// ```
/// use widephase::{bounding::aabb_from_points, Aabb, Vec3};
/// let pts = [Vec3::new(1.0, -2.0, 0.0), Vec3::new(-1.0, 3.0, 0.5)];
/// let b = aabb_from_points(&pts).unwrap();
/// assert_eq!(b, Aabb::new(Vec3::new(-1.0, -2.0, 0.0), Vec3::new(1.0, 3.0, 0.5)));
/// assert_eq!(aabb_from_points(&[]), None);
/// ```
pub fn aabb_from_points(points: &[Vec3]) -> Option<Aabb> {
    if !usable(points) {
        return None;
    }
    let mut b = Aabb::new(points[0], points[0]);
    for &p in &points[1..] {
        b.min = b.min.min(p);
        b.max = b.max.max(p);
    }
    Some(b)
}
