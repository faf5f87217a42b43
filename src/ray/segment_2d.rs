//! 2D segment–segment and line–line intersection (Ericson §5.1.9.1; seed `000`
//! "2D segment intersection"; seed `003` "2D line/segment intersection").

use super::point_polygon::on_segment_2d;
use super::{exact_sign_sum, orient2d_exact};
use core::cmp::Ordering;

/// How two 2D segments or lines meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Intersection2d {
    /// They do not meet (for lines: parallel and distinct).
    None,
    /// One common point `p = a0 + t·(a1 - a0) = b0 + s·(b1 - b0)` (for lines:
    /// `p0 + t·d0 = p1 + s·d1`).
    Point {
        /// The point (f64 evaluation rounded to f32).
        p: [f32; 2],
        /// Parameter on the first segment/line.
        t: f32,
        /// Parameter on the second segment/line.
        s: f32,
    },
    /// Collinear and overlapping in more than a point: the common part is
    /// `a0 + t·(a1 - a0)` for `t ∈ [t0, t1]`, `t0 <= t1` (`t0 < t1` exactly; the
    /// f32 roundings may coincide for an overlap shorter than an ulp of `t`).
    /// For lines: coincident, `t0 = -∞`, `t1 = +∞`.
    Overlap {
        /// Start parameter on the first segment.
        t0: f32,
        /// End parameter on the first segment.
        t1: f32,
    },
}

fn param(p: [f32; 2], a0: [f32; 2], a1: [f32; 2]) -> f64 {
    // Parameter of p along a0→a1 on the dominant axis (p is on the line).
    let k = if (a1[0] as f64 - a0[0] as f64).abs() >= (a1[1] as f64 - a0[1] as f64).abs() {
        0
    } else {
        1
    };
    let den = a1[k] as f64 - a0[k] as f64;
    if den == 0.0 {
        0.0
    } else {
        (p[k] as f64 - a0[k] as f64) / den
    }
}

fn cross_f64(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

/// Intersection of the closed 2D segments `[a0, a1]` and `[b0, b1]`.
///
/// The decision (none / point / overlap) is **exact** for all finite inputs:
/// it uses only exact orientation signs (`orient2d_exact`: six exact f64
/// products summed by an error-free expansion) and coordinate comparisons.
/// The reported point and parameters are f64 evaluations rounded to f32.
/// Touching at an endpoint is a `Point`; a zero-length segment is its point;
/// collinear segments overlapping in one point give `Point`, in more give
/// `Overlap`. NaN/∞ give `None` (crate [contracts](crate#contracts)).
///
/// Source: Ericson §5.1.9.1 `Test2DSegmentSegment` (signed areas; its `a3 =
/// a1 + a2 - a4` shortcut is exact only in real arithmetic and is not used).
///
/// ```
/// use widephase::ray::{segment_segment_2d, Intersection2d};
/// let x = segment_segment_2d([0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0]);
/// assert_eq!(x, Intersection2d::Point { p: [1.0, 1.0], t: 0.5, s: 0.5 });
/// // T-junction: an endpoint on the other segment
/// assert!(matches!(segment_segment_2d([0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [1.0, 5.0]), Intersection2d::Point { .. }));
/// // collinear overlap
/// assert_eq!(segment_segment_2d([0.0, 0.0], [4.0, 0.0], [2.0, 0.0], [6.0, 0.0]), Intersection2d::Overlap { t0: 0.5, t1: 1.0 });
/// ```
pub fn segment_segment_2d(
    a0: [f32; 2],
    a1: [f32; 2],
    b0: [f32; 2],
    b1: [f32; 2],
) -> Intersection2d {
    let fin = |p: [f32; 2]| p[0].is_finite() && p[1].is_finite();
    if !(fin(a0) && fin(a1) && fin(b0) && fin(b1)) {
        return Intersection2d::None;
    }
    let point_on = |p: [f32; 2]| Intersection2d::Point {
        p,
        t: param(p, a0, a1) as f32,
        s: param(p, b0, b1) as f32,
    };
    // Degenerate segments are points.
    if a0 == a1 || b0 == b1 {
        let (pt, seg) = if a0 == a1 { (a0, (b0, b1)) } else { (b0, (a0, a1)) };
        return if on_segment_2d(pt, seg.0, seg.1) { point_on(pt) } else { Intersection2d::None };
    }
    let o1 = orient2d_exact(a0, a1, b0);
    let o2 = orient2d_exact(a0, a1, b1);
    let o3 = orient2d_exact(b0, b1, a0);
    let o4 = orient2d_exact(b0, b1, a1);
    let strictly_same = |x: Ordering, y: Ordering| x != Ordering::Equal && x == y;
    if strictly_same(o1, o2) || strictly_same(o3, o4) {
        return Intersection2d::None;
    }
    if o1 == Ordering::Equal && o2 == Ordering::Equal {
        // Collinear: overlap of the parameter ranges (ordering by coordinates on
        // the dominant axis is exact).
        let k = if (a1[0] as f64 - a0[0] as f64).abs() >= (a1[1] as f64 - a0[1] as f64).abs() {
            0
        } else {
            1
        };
        let (alo, ahi) = (a0[k].min(a1[k]), a0[k].max(a1[k]));
        let (blo, bhi) = (b0[k].min(b1[k]), b0[k].max(b1[k]));
        let (lo, hi) = (alo.max(blo), ahi.min(bhi));
        if lo > hi {
            return Intersection2d::None;
        }
        let pick = |c: f32| -> [f32; 2] {
            // the endpoint (of a or b) with coordinate c on axis k
            [a0, a1, b0, b1].into_iter().find(|p| p[k] == c).unwrap_or(a0)
        };
        if lo == hi {
            return point_on(pick(lo));
        }
        let (ta, tb) = (param(pick(lo), a0, a1), param(pick(hi), a0, a1));
        return Intersection2d::Overlap { t0: ta.min(tb) as f32, t1: ta.max(tb) as f32 };
    }
    // A single crossing point (proper, or at an endpoint).
    let f = |p: [f32; 2]| [p[0] as f64, p[1] as f64];
    let (pa, pb) = (f(a0), f(b0));
    let da = [a1[0] as f64 - pa[0], a1[1] as f64 - pa[1]];
    let db = [b1[0] as f64 - pb[0], b1[1] as f64 - pb[1]];
    let w = [pb[0] - pa[0], pb[1] - pa[1]];
    let den = cross_f64(da, db);
    let t = (cross_f64(w, db) / den).clamp(0.0, 1.0);
    let s = (cross_f64(w, da) / den).clamp(0.0, 1.0);
    // An endpoint on the other segment's line is the (unique) common point:
    // report it exactly.
    if o3 == Ordering::Equal {
        return Intersection2d::Point { p: a0, t: 0.0, s: param(a0, b0, b1) as f32 };
    }
    if o4 == Ordering::Equal {
        return Intersection2d::Point { p: a1, t: 1.0, s: param(a1, b0, b1) as f32 };
    }
    if o1 == Ordering::Equal {
        return Intersection2d::Point { p: b0, t: param(b0, a0, a1) as f32, s: 0.0 };
    }
    if o2 == Ordering::Equal {
        return Intersection2d::Point { p: b1, t: param(b1, a0, a1) as f32, s: 1.0 };
    }
    Intersection2d::Point {
        p: [(pa[0] + t * da[0]) as f32, (pa[1] + t * da[1]) as f32],
        t: t as f32,
        s: s as f32,
    }
}

/// Intersection of the 2D lines `p0 + t·d0` and `p1 + s·d1`.
///
/// Parallel lines are detected **exactly** (`d0 × d1 = 0` as a sign of two
/// exact products), and so is coincidence (`(p1 - p0) × d0 = 0`, four exact
/// products). Otherwise `Point` with `t = ((p1 - p0) × d1) / (d0 × d1)`,
/// `s = ((p1 - p0) × d0) / (d0 × d1)` evaluated in f64 and rounded to f32.
/// Returns `Overlap { t0: -∞, t1: +∞ }` for coincident lines and `None` for
/// distinct parallel ones, for a zero direction (not a line) and for NaN/∞
/// (crate [contracts](crate#contracts)).
///
/// Source: seed `003` "2D line intersection" (Cramer's rule).
///
/// ```
/// use widephase::ray::{line_line_2d, Intersection2d};
/// assert_eq!(line_line_2d([0.0, 0.0], [1.0, 0.0], [3.0, -1.0], [0.0, 2.0]),
///            Intersection2d::Point { p: [3.0, 0.0], t: 3.0, s: 0.5 });
/// assert_eq!(line_line_2d([0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 2.0]), Intersection2d::None);
/// assert!(matches!(line_line_2d([0.0, 0.0], [1.0, 1.0], [5.0, 5.0], [-2.0, -2.0]), Intersection2d::Overlap { .. }));
/// ```
pub fn line_line_2d(p0: [f32; 2], d0: [f32; 2], p1: [f32; 2], d1: [f32; 2]) -> Intersection2d {
    let fin = |p: [f32; 2]| p[0].is_finite() && p[1].is_finite();
    if !(fin(p0) && fin(d0) && fin(p1) && fin(d1)) || d0 == [0.0, 0.0] || d1 == [0.0, 0.0] {
        return Intersection2d::None;
    }
    let m = |a: f32, b: f32| a as f64 * b as f64;
    let den_sign = exact_sign_sum(&[m(d0[0], d1[1]), -m(d0[1], d1[0])]);
    if den_sign == Ordering::Equal {
        // (p1 - p0) × d0 = p1x d0y - p0x d0y - p1y d0x + p0y d0x
        let coincident =
            exact_sign_sum(&[m(p1[0], d0[1]), -m(p0[0], d0[1]), -m(p1[1], d0[0]), m(p0[1], d0[0])]);
        return if coincident == Ordering::Equal {
            Intersection2d::Overlap { t0: f32::NEG_INFINITY, t1: f32::INFINITY }
        } else {
            Intersection2d::None
        };
    }
    let f = |p: [f32; 2]| [p[0] as f64, p[1] as f64];
    let (a, da, b, db) = (f(p0), f(d0), f(p1), f(d1));
    let w = [b[0] - a[0], b[1] - a[1]];
    let den = cross_f64(da, db);
    let t = cross_f64(w, db) / den;
    let s = cross_f64(w, da) / den;
    Intersection2d::Point {
        p: [(a[0] + t * da[0]) as f32, (a[1] + t * da[1]) as f32],
        t: t as f32,
        s: s as f32,
    }
}
