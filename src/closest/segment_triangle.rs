//! Closest points of a segment and a triangle (Ericson §5.1.10; seed `000`
//! §5.1.10).

use super::point_triangle::closest_point_triangle;
use super::segment_segment::{closest_points_segment_segment, ClosestPair};
use super::{finite, max_abs, tiny_input_scale, NAN3};
use crate::math::Vec3;
use crate::shapes::{Segment, Triangle};

/// Closest points of the closed segment `seg` and the closed triangle `tri`:
/// `point1 = seg.a + s·(seg.b - seg.a)` on the segment, `point2` on the
/// triangle; `t` is NaN-free but meaningless here and set to 0.
///
/// The minimum distance is attained (Ericson §5.1.10) by one of: the segment
/// against each of the three edges; an endpoint against the triangle; or — when
/// the segment crosses the triangle's plane — the crossing point against the
/// triangle (distance 0 when the segment pierces the triangle). Every
/// candidate is a genuine pair of points of the two sets, so the smallest one
/// is the answer; ties go to the earliest candidate in the order: edges `ab`,
/// `bc`, `ca`, endpoint `a`, endpoint `b`, crossing point. Degenerate
/// segments and triangles need no special case: every sub-query handles them.
/// Inputs whose largest coordinate magnitude is below 1 are first multiplied by
/// the power of two that brings it into `[1, 2)` (exact), so that the degree-3
/// plane heights and the sub-queries do not underflow for tiny shapes; the
/// points are divided back. NaN in every field for non-finite input.
///
/// ```
/// use widephase::closest::closest_points_segment_triangle;
/// use widephase::{Segment, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), Vec3::new(0.0, 4.0, 0.0));
/// // a segment piercing the triangle: distance 0 at the crossing point
/// let seg = Segment::new(Vec3::new(1.0, 1.0, -1.0), Vec3::new(1.0, 1.0, 3.0));
/// let r = closest_points_segment_triangle(&seg, &tri);
/// assert_eq!((r.sq_dist, r.point2), (0.0, Vec3::new(1.0, 1.0, 0.0)));
/// // hovering above the face
/// let seg = Segment::new(Vec3::new(1.0, 1.0, 2.0), Vec3::new(2.0, 1.0, 3.0));
/// assert_eq!(closest_points_segment_triangle(&seg, &tri).sq_dist, 4.0);
/// ```
pub fn closest_points_segment_triangle(seg: &Segment, tri: &Triangle) -> ClosestPair {
    if !(finite(seg.a) && finite(seg.b) && finite(tri.a) && finite(tri.b) && finite(tri.c)) {
        return ClosestPair::NAN;
    }
    let k = tiny_input_scale(max_abs(&[seg.a, seg.b, tri.a, tri.b, tri.c]));
    if k == 1.0 {
        return segment_triangle_scaled(seg, tri);
    }
    let seg = Segment::new(seg.a * k, seg.b * k);
    let tri = Triangle::new(tri.a * k, tri.b * k, tri.c * k);
    segment_triangle_scaled(&seg, &tri).unscaled(k)
}

/// The body of [`closest_points_segment_triangle`] on inputs already scaled.
fn segment_triangle_scaled(seg: &Segment, tri: &Triangle) -> ClosestPair {
    let mut best =
        ClosestPair { s: 0.0, t: 0.0, point1: NAN3, point2: NAN3, sq_dist: f32::INFINITY };
    let mut consider = |s: f32, point1: Vec3, point2: Vec3| {
        let cand = ClosestPair::new(s, 0.0, point1, point2);
        // strict: ties keep the earlier candidate
        if cand.sq_dist < best.sq_dist {
            best = cand;
        }
    };
    for (u, v) in [(tri.a, tri.b), (tri.b, tri.c), (tri.c, tri.a)] {
        let r = closest_points_segment_segment(seg, &Segment::new(u, v));
        consider(r.s, r.point1, r.point2);
    }
    consider(0.0, seg.a, closest_point_triangle(seg.a, tri).point);
    consider(1.0, seg.b, closest_point_triangle(seg.b, tri).point);
    // Crossing of the triangle's plane: signed heights of the endpoints.
    let n = tri.normal();
    let ha = n.dot(seg.a - tri.a);
    let hb = n.dot(seg.b - tri.a);
    if (ha < 0.0 && hb > 0.0) || (ha > 0.0 && hb < 0.0) {
        let s = ha / (ha - hb); // in (0, 1): opposite signs, no cancellation
        let x = seg.a + (seg.b - seg.a) * s;
        consider(s, x, closest_point_triangle(x, tri).point);
    }
    best
}
