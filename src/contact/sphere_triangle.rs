//! Sphere–triangle contact (one point), **one-sided**: the front face is the
//! side of `(b - a) × (c - a)` (counter-clockwise winding seen from the
//! front), as for triangle-mesh ground in bepuphysics2 (`SphereTriangleTester`
//! rejects centres behind the face) and Jolt's back-face option.

use super::util::{fallback, from_first_vertex, manifold1, margin_ok, unit_or};
use super::Manifold;
use crate::closest::{closest_point_triangle, TriangleRegion};
use crate::lane::{Lane, LaneMask};
use crate::shapes::{Sphere, Triangle};

/// Contact of sphere `a` and triangle `b` with speculative `margin` (see the
/// [module conventions](super)). **Lane-generic, one-sided.**
///
/// ```text
/// q, region = closest_point_triangle(c, b) (Ericson §5.1.5, Voronoi regions;
///   formed relative to b.a, exact offsets far from the origin)
/// N = unit((b.b - b.a) × (b.c - b.a));  h = N·(c - b.a)  (signed height)
/// face region, or the centre on the triangle: n = -N, gap = h
/// edge / vertex region:                       n = (q - c)/|q - c|, gap = |q - c|
/// depth = r - gap;  point = c + n·gap (face) or q (edge / vertex)
/// contact iff depth >= -margin and h >= 0   (centre on or in front of the plane)
/// feature id = the TriangleRegion code of q (A, B, C = 0..2, AB, BC, CA = 3..5, face 6)
/// ```
///
/// Why one-sided: a sphere pushed slightly through a ground triangle must be
/// pushed back up, not out through the back; a two-sided test would flip the
/// normal once the centre crosses the plane. A sphere whose centre is behind
/// the plane gets no contact from this triangle.
///
/// A degenerate (zero-area) triangle has no front: it is tested two-sided as
/// the segment or point it is, and a centre lying on it takes the fallback
/// normal `+Y`.
///
/// ```
/// use widephase::contact::sphere_triangle;
/// use widephase::{Sphere, Triangle, Vec3};
/// // a ground triangle facing +Y (counter-clockwise seen from above)
/// let t = Triangle::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 4.0), Vec3::new(4.0, 0.0, 0.0));
/// let m = sphere_triangle(&Sphere::new(Vec3::new(1.0, 0.75, 1.0), 1.0), &t, 0.0);
/// assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, -Vec3::Y, 0.25));
/// // the same sphere below the ground: behind the face, no contact
/// let m = sphere_triangle(&Sphere::new(Vec3::new(1.0, -0.75, 1.0), 1.0), &t, 0.0);
/// assert_eq!(m.count, 0.0);
/// ```
#[inline(always)]
pub fn sphere_triangle<L: Lane>(a: &Sphere<L>, b: &Triangle<L>, margin: L) -> Manifold<L> {
    let zero = L::splat(0.0);
    let valid = a.is_valid() & b.is_valid() & margin_ok(margin);
    // (the closest point and the edge normal in the frame of `b.a`: exact
    // offsets far from the origin, see `from_first_vertex`)
    let t = from_first_vertex(b);
    let c = a.center - b.a;
    let tc = closest_point_triangle(c, &t);
    let (nf, area2) = unit_or(t.b.cross(t.c), fallback());
    let proper = area2.gt(zero);
    let h = nf.dot(c);
    let (nv, dist) = unit_or(tc.point - c, fallback());
    let face = tc.region.eq(L::splat(TriangleRegion::Face.code()));
    let use_face = proper & (face | dist.eq(zero));
    let n = crate::math::V3::select(use_face, -nf, nv);
    let gap = L::select(use_face, h, dist);
    let depth = a.radius - gap;
    // if (proper && h < 0) return no contact;  (one-sided)
    let front = !proper | h.ge(zero);
    let hit = valid & front & depth.ge(-margin);
    if hit.none() {
        return Manifold::empty();
    }
    // the face point is the centre's projection; elsewhere the exact closest point
    let position = crate::math::V3::select(use_face, a.center + n * gap, tc.point + b.a);
    manifold1(hit, n, position, depth, tc.region)
}
