//! Closest points of two triangles (Ericson §5.1.11; seed `000` §5.1.11).

use super::segment_segment::ClosestPair;
use super::segment_triangle::closest_points_segment_triangle;
use super::{finite, max_abs, tiny_input_scale, NAN3};
use crate::shapes::{Segment, Triangle};

/// Closest points of the closed triangles `t1` and `t2`: `point1` on `t1`,
/// `point2` on `t2` (`s`, `t` are set to 0).
///
/// A closest pair always has a point on an edge of one of the triangles, so the
/// answer is the minimum of [`closest_points_segment_triangle`] over the three
/// edges of `t1` against `t2` and the three edges of `t2` against `t1`. This
/// covers Ericson's nine edge–edge and six vertex–face pairs, and
/// intersecting triangles too: if the triangles meet, an edge of one meets the
/// other, and the segment–triangle query reports that crossing at distance 0.
/// Ties go to the first candidate in the order `t1.ab, t1.bc, t1.ca, t2.ab,
/// t2.bc, t2.ca`. Inputs whose largest coordinate magnitude is below 1 are
/// first multiplied by the power of two that brings it into `[1, 2)` (exact),
/// so that tiny triangles do not underflow; the points are divided back. NaN
/// in every field for non-finite input.
///
/// ```
/// use widephase::closest::closest_points_triangle_triangle;
/// use widephase::{Triangle, Vec3};
/// let t1 = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// // a triangle above, pointing its vertex down at (0.5, 0.5, 1)
/// let t2 = Triangle::new(Vec3::new(0.5, 0.5, 1.0), Vec3::new(0.5, 0.5, 5.0), Vec3::new(3.0, 3.0, 5.0));
/// let r = closest_points_triangle_triangle(&t1, &t2);
/// assert_eq!((r.point1, r.point2, r.sq_dist), (Vec3::new(0.5, 0.5, 0.0), Vec3::new(0.5, 0.5, 1.0), 1.0));
/// // crossing triangles: distance 0
/// let t3 = Triangle::new(Vec3::new(0.5, 0.5, -1.0), Vec3::new(0.5, 0.5, 1.0), Vec3::new(5.0, 5.0, 0.0));
/// assert_eq!(closest_points_triangle_triangle(&t1, &t3).sq_dist, 0.0);
/// ```
pub fn closest_points_triangle_triangle(t1: &Triangle, t2: &Triangle) -> ClosestPair {
    if !(finite(t1.a)
        && finite(t1.b)
        && finite(t1.c)
        && finite(t2.a)
        && finite(t2.b)
        && finite(t2.c))
    {
        return ClosestPair::NAN;
    }
    let k = tiny_input_scale(max_abs(&[t1.a, t1.b, t1.c, t2.a, t2.b, t2.c]));
    if k == 1.0 {
        return triangle_triangle_scaled(t1, t2);
    }
    let scale = |t: &Triangle| Triangle::new(t.a * k, t.b * k, t.c * k);
    triangle_triangle_scaled(&scale(t1), &scale(t2)).unscaled(k)
}

/// The body of [`closest_points_triangle_triangle`] on inputs already scaled.
fn triangle_triangle_scaled(t1: &Triangle, t2: &Triangle) -> ClosestPair {
    let mut best =
        ClosestPair { s: 0.0, t: 0.0, point1: NAN3, point2: NAN3, sq_dist: f32::INFINITY };
    for (u, v) in [(t1.a, t1.b), (t1.b, t1.c), (t1.c, t1.a)] {
        let r = closest_points_segment_triangle(&Segment::new(u, v), t2);
        if r.sq_dist < best.sq_dist {
            best = ClosestPair::new(0.0, 0.0, r.point1, r.point2);
        }
    }
    for (u, v) in [(t2.a, t2.b), (t2.b, t2.c), (t2.c, t2.a)] {
        let r = closest_points_segment_triangle(&Segment::new(u, v), t1);
        if r.sq_dist < best.sq_dist {
            best = ClosestPair::new(0.0, 0.0, r.point2, r.point1);
        }
    }
    best
}
