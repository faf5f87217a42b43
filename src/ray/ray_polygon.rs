//! Ray–convex polygon (Ericson §5.3.8 area; seed `003` "射线/多边形相交测试").

use super::ray_triangle::ray_triangle;
use crate::math::Vec3;
use crate::shapes::{Ray, Triangle};

/// The smallest `t ∈ [t_min, t_max]` at which the ray meets the closed convex
/// planar polygon with vertices `poly` (in order, either winding), or `None`.
///
/// The polygon is the union of the fan triangles `(p0, p_i, p_i+1)`, each tested
/// with the watertight [`ray_triangle`] (both faces; a ray lying in the polygon's
/// plane hits where it enters it): so a ray through a diagonal of the fan, an
/// edge or a vertex is never lost, and the answer carries `ray_triangle`'s band.
/// Seed `003` projects onto the dominant plane and runs a 2D crossing test;
/// the fan gives the same set for a convex polygon without a division-based
/// plane intersection. One vertex is a point, two a segment; no vertex: `None`.
/// NaN/∞ give `None` (crate [contracts](crate#contracts)). Non-planar or
/// non-convex input is answered for the fan's union.
///
/// ```
/// use widephase::{ray::ray_polygon, Ray, Vec3};
/// let hexagon: Vec<Vec3> = (0..6)
///     .map(|i| { let a = i as f32 * std::f32::consts::FRAC_PI_3; Vec3::new(a.cos(), a.sin(), 0.0) })
///     .collect();
/// assert_eq!(ray_polygon(&Ray::new(Vec3::new(0.0, 0.0, 3.0), -Vec3::Z), &hexagon), Some(3.0));
/// assert_eq!(ray_polygon(&Ray::new(Vec3::new(1.0, 1.0, 3.0), -Vec3::Z), &hexagon), None);
/// ```
pub fn ray_polygon(ray: &Ray, poly: &[Vec3]) -> Option<f32> {
    let fan: Vec<Triangle> = match poly.len() {
        0 => return None,
        1 => vec![Triangle::new(poly[0], poly[0], poly[0])],
        2 => vec![Triangle::new(poly[0], poly[1], poly[1])],
        n => (1..n - 1).map(|i| Triangle::new(poly[0], poly[i], poly[i + 1])).collect(),
    };
    if !poly.iter().all(|p| p.is_finite()) {
        return None;
    }
    fan.iter()
        .map(|tri| ray_triangle(ray, tri))
        .filter(|h| h.hit)
        .map(|h| h.t)
        .min_by(|a, b| a.total_cmp(b))
}
