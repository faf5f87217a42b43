//! Sphere–convex polygon intersection (Ericson §5.2.8; seed `000` §5.2.8).

use crate::closest::closest_point_polygon;
use crate::math::Vec3;
use crate::shapes::Sphere;

/// Whether the closed ball `s` and the closed convex planar polygon `poly`
/// (vertices in order, either winding) intersect; touching counts.
///
/// Computed as `|q - center|² <= radius²` for the nearest polygon point `q` of
/// [`closest_point_polygon`](crate::closest::closest_point_polygon) (the
/// nearest point of the fan triangles). The seed's alternative — plane test,
/// then edges against the sphere, then point-in-polygon — needs the polygon's
/// normal, which does not exist for a degenerate polygon, and its printed
/// plane offset has the wrong sign (`simd-notes.md`). `false` for an empty
/// polygon, a negative radius or a non-finite coordinate
/// ([contracts](crate#contracts)).
///
/// ```
/// use widephase::{overlap, Sphere, Vec3};
/// let square = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
/// assert!(overlap::sphere_polygon(&Sphere::new(Vec3::new(2.0, 0.5, 0.0), 1.0), &square)); // touching the edge
/// assert!(!overlap::sphere_polygon(&Sphere::new(Vec3::new(0.5, 0.5, 1.5), 1.0), &square));
/// ```
pub fn sphere_polygon(s: &Sphere, poly: &[Vec3]) -> bool {
    if !s.is_valid() {
        return false;
    }
    let q = closest_point_polygon(s.center, poly);
    let v = q - s.center;
    v.dot(v) <= s.radius * s.radius // NaN (invalid polygon) compares false
}
