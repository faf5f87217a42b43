//! Point–convex polygon closest point (used by the sphere–polygon test,
//! Ericson §5.2.8; seed `000` §5.2.8).

use super::point_triangle::closest_point_triangle;
use super::{finite, NAN3};
use crate::math::Vec3;
use crate::shapes::Triangle;

/// The point of the closed convex planar polygon `poly` (vertices in order,
/// either winding) nearest to `p`.
///
/// A convex planar polygon is the union of its fan triangles
/// `(v0, v_i, v_{i+1})`, so the answer is the nearest of their
/// [`closest_point_triangle`] points (ties to the first fan triangle). This
/// needs no polygon normal, so collinear or repeated vertices — a polygon
/// degenerated to a segment or a point — are handled as the sets they are; one
/// vertex is a point and two are a segment. For a non-planar or non-convex
/// input the result is that of the fan triangulation. NaN for an empty slice
/// or a non-finite coordinate.
///
/// ```
/// use widephase::closest::closest_point_polygon;
/// use widephase::Vec3;
/// let square = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
/// // above the face: the foot, up to the rounding of the barycentric weights
/// let q = closest_point_polygon(Vec3::new(0.5, 0.75, 2.0), &square);
/// assert!((q - Vec3::new(0.5, 0.75, 0.0)).length() < 1e-6);
/// assert_eq!(closest_point_polygon(Vec3::new(3.0, 0.5, 0.0), &square), Vec3::new(1.0, 0.5, 0.0));
/// ```
pub fn closest_point_polygon(p: Vec3, poly: &[Vec3]) -> Vec3 {
    if poly.is_empty() || !finite(p) || !poly.iter().all(|v| finite(*v)) {
        return NAN3;
    }
    let v0 = poly[0];
    if poly.len() < 3 {
        // a point, or a segment as the triangle (v0, v1, v1)
        let v1 = poly[poly.len() - 1];
        return closest_point_triangle(p, &Triangle::new(v0, v1, v1)).point;
    }
    let mut best = v0;
    let mut best_sq = f32::INFINITY;
    for w in poly[1..].windows(2) {
        let q = closest_point_triangle(p, &Triangle::new(v0, w[0], w[1])).point;
        let sq = (q - p).length_squared();
        if sq < best_sq {
            best_sq = sq;
            best = q;
        }
    }
    best
}
