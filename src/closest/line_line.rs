//! Closest points of two infinite lines (Ericson §5.1.8; seed `000` §5.1.8).

use super::segment_segment::ClosestPair;
use super::segment_segment::{exactly_parallel, pow2_scale};
use super::{finite, max_abs, tiny_input_scale};
use crate::math::Vec3;

/// Closest points of the infinite lines `L1(s) = p1 + s·(q1 - p1)` and
/// `L2(t) = p2 + t·(q2 - p2)`.
///
/// The perpendicularity conditions `d1·v = d2·v = 0` (`v = L1(s) - L2(t)`)
/// give the 2×2 system `a·s - b·t = -c`, `b·s - e·t = -f` with `a = d1·d1`,
/// `b = d1·d2`, `c = d1·r`, `e = d2·d2`, `f = d2·r`, `r = p1 - p2`, solved by
/// Cramer's rule: `s = (b·f - c·e)/d`, `t = (a·f - b·c)/d`, `d = a·e - b²`
/// (the seed prints the second row of the matrix as `[b e]` and
/// `d = |d1|²|d2|²(|d1||d2|cos θ)²`; both lose a minus sign, see
/// `simd-notes.md`).
///
/// The degree-4 terms are formed from `a..f` scaled by a power of two close to
/// `1/max(a, e, |b|, |c|, |f|)`
/// so that they neither overflow nor underflow in the coordinate range.
///
/// * Parallel lines: `s = 0` and `t` is the projection of `p1` on `L2`,
///   `t = f / e` — deterministic. Exactly parallel lines (`d1 × d2 = 0`,
///   decided exactly for the `f32` differences `d1 = q1 - p1`,
///   `d2 = q2 - p2`: each component's two products are exact in `f64` and
///   compared) always take this branch, whatever `d` rounds to. Lines within
///   rounding of parallel (`d <= 0` in `f32`) take it too; the band for that
///   case is in `simd-notes.md`.
/// * A line given by two equal points is the single point `p`, parameter 0:
///   `q1 == p1` gives `s = 0`, `t = f / e`; both degenerate gives `s = t = 0`.
///
/// Inputs whose largest coordinate magnitude is below 1 are first multiplied by
/// the power of two that brings it into `[1, 2)` (exact), so that tiny lines
/// do not underflow; the points are divided back. `s`, `t` are not clamped.
/// NaN in every field for non-finite input.
///
/// ```
/// use widephase::closest::closest_points_line_line;
/// use widephase::Vec3;
/// // the x axis and a line parallel to y through (3, 0, 2)
/// let r = closest_points_line_line(Vec3::ZERO, Vec3::X, Vec3::new(3.0, 0.0, 2.0), Vec3::new(3.0, 1.0, 2.0));
/// assert_eq!((r.s, r.t, r.sq_dist), (3.0, 0.0, 4.0));
/// // parallel lines: s = 0 and t projects p1
/// let r = closest_points_line_line(Vec3::ZERO, Vec3::X, Vec3::new(5.0, 1.0, 0.0), Vec3::new(7.0, 1.0, 0.0));
/// assert_eq!((r.s, r.t, r.sq_dist), (0.0, -2.5, 1.0));
/// ```
pub fn closest_points_line_line(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> ClosestPair {
    if !(finite(p1) && finite(q1) && finite(p2) && finite(q2)) {
        return ClosestPair::NAN;
    }
    let k = tiny_input_scale(max_abs(&[p1, q1, p2, q2]));
    if k == 1.0 {
        return line_line_scaled(p1, q1, p2, q2);
    }
    line_line_scaled(p1 * k, q1 * k, p2 * k, q2 * k).unscaled(k)
}

/// The body of [`closest_points_line_line`] on inputs already scaled.
fn line_line_scaled(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> ClosestPair {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let c = d1.dot(r);
    let (s, t) = if a == 0.0 && e == 0.0 {
        (0.0, 0.0)
    } else if a == 0.0 {
        (0.0, f / e)
    } else if e == 0.0 {
        (-c / a, 0.0)
    } else {
        let f_unscaled = f;
        let e_unscaled = e;
        let b = d1.dot(d2);
        // Degree-4 terms from a..f scaled by a power of two ≈ 1/max (as in
        // segment–segment): no overflow or underflow, exact scaling.
        let k = pow2_scale(a.max(e).max(b.abs()).max(c.abs()).max(f.abs()));
        let (a, b, c, e, f) = (a * k, b * k, c * k, e * k, f * k);
        let d = a * e - b * b;
        if d > 0.0 && !exactly_parallel(d1, d2) {
            ((b * f - c * e) / d, (a * f - b * c) / d)
        } else {
            (0.0, f_unscaled / e_unscaled)
        }
    };
    ClosestPair::new(s, t, p1 + d1 * s, p2 + d2 * t)
}
