//! Point in polygon, 2D, by the crossing test (Jordan curve theorem; Ericson
//! §5.4.1; seed `003` "Crossing Test").

use super::orient2d_exact;
use core::cmp::Ordering;

/// Whether `p` is on the closed segment `[a, b]` (exact).
pub(crate) fn on_segment_2d(p: [f32; 2], a: [f32; 2], b: [f32; 2]) -> bool {
    orient2d_exact(a, b, p) == Ordering::Equal
        && p[0] >= a[0].min(b[0])
        && p[0] <= a[0].max(b[0])
        && p[1] >= a[1].min(b[1])
        && p[1] <= a[1].max(b[1])
}

/// Whether the 2D point `p` is inside the polygon `poly` (vertices in order,
/// either winding, closed implicitly from last to first; it may be concave or
/// self-intersecting, where the even-odd rule decides).
///
/// **Boundary rule: closed.** A point on an edge or at a vertex is inside,
/// decided exactly (exact orientation signs, see `orient2d_exact`). Away from
/// the boundary the crossing count is exact as well: the test "does edge
/// `v_i v_j` cross the horizontal ray from `p` to +x" uses the half-open rule
/// `(v_i.y > p.y) != (v_j.y > p.y)` (so a vertex on the ray is counted once) and
/// the exact sign of the orientation instead of a division. The answer is
/// exact for all finite inputs; NaN/∞ give `false`; fewer than one vertex is
/// empty, one vertex is a point, two a segment.
///
/// Source: seed `003` crossing test (translate by `-p`, count crossings of the
/// +x axis); Haines, "Point in Polygon Strategies", Graphics Gems IV.
///
/// ```
/// use widephase::ray::point_in_polygon_2d;
/// let square = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
/// assert!(point_in_polygon_2d([1.0, 1.0], &square));
/// assert!(point_in_polygon_2d([2.0, 1.0], &square)); // on an edge: inside
/// assert!(point_in_polygon_2d([2.0, 2.0], &square)); // at a vertex: inside
/// assert!(!point_in_polygon_2d([2.0, 2.000001], &square));
/// ```
pub fn point_in_polygon_2d(p: [f32; 2], poly: &[[f32; 2]]) -> bool {
    let finite = |q: &[f32; 2]| q[0].is_finite() && q[1].is_finite();
    if poly.is_empty() || !finite(&p) || !poly.iter().all(finite) {
        return false;
    }
    let n = poly.len();
    let mut inside = false;
    for i in 0..n {
        let a = poly[i];
        let b = poly[(i + 1) % n];
        if on_segment_2d(p, a, b) {
            return true;
        }
        if (a[1] > p[1]) != (b[1] > p[1]) {
            // The crossing is right of p iff p is left of the edge directed upward.
            let o = orient2d_exact(a, b, p);
            let right = if b[1] > a[1] { o == Ordering::Greater } else { o == Ordering::Less };
            if right {
                inside = !inside;
            }
        }
    }
    inside
}
