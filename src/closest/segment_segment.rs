//! Closest points of two segments (Ericson §5.1.9, `ClosestPtSegmentSegment`;
//! seed `000` §5.1.9), with every degenerate case.

use super::{clamp01, finite, max_abs, tiny_input_scale, NAN3};
use crate::math::Vec3;

/// A power of two `k` with `x·k ∈ [1, 4)` for `x > 0` normal (`2^-126 ≤ x`),
/// `2^126` for zero or subnormal `x`, `2^-126` for huge or non-finite `x`.
/// Scaling by a power of two is exact (barring underflow of much smaller
/// terms), so the scaled solves below stay exact where the inputs allow.
pub(crate) fn pow2_scale(x: f32) -> f32 {
    let e = ((x.to_bits() >> 23) & 0xff).clamp(1, 253);
    f32::from_bits((254 - e) << 23)
}
use crate::shapes::Segment;

/// A pair of closest points: `point1 = p1 + s·d1` on the first shape,
/// `point2 = p2 + t·d2` on the second, and `sq_dist = |point1 - point2|²`
/// (evaluated in `f32` from the two points).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPair {
    /// Parameter of `point1` on the first shape (`a + s·(b - a)` for a segment).
    pub s: f32,
    /// Parameter of `point2` on the second shape.
    pub t: f32,
    /// The point on the first shape.
    pub point1: Vec3,
    /// The point on the second shape.
    pub point2: Vec3,
    /// `|point1 - point2|²`.
    pub sq_dist: f32,
}

impl ClosestPair {
    /// All fields NaN: the answer for invalid input.
    pub const NAN: ClosestPair =
        ClosestPair { s: f32::NAN, t: f32::NAN, point1: NAN3, point2: NAN3, sq_dist: f32::NAN };

    pub(crate) fn new(s: f32, t: f32, point1: Vec3, point2: Vec3) -> ClosestPair {
        ClosestPair { s, t, point1, point2, sq_dist: (point1 - point2).length_squared() }
    }

    /// The pair of a query evaluated on inputs multiplied by `k`
    /// ([`tiny_input_scale`]), mapped back: points divided by `k` (exact unless
    /// subnormal), parameters unchanged, `sq_dist` recomputed from the points.
    pub(crate) fn unscaled(self, k: f32) -> ClosestPair {
        ClosestPair::new(self.s, self.t, self.point1 / k, self.point2 / k)
    }
}

/// Whether `d1 × d2 = 0` exactly (the two directions are parallel, or one of
/// them is zero). Each product of two `f32` is exact in `f64` (24 + 24
/// significant bits), so comparing the two products of every cross-product
/// component decides the sign of that component without rounding.
pub(crate) fn exactly_parallel(d1: Vec3, d2: Vec3) -> bool {
    let m = |x: f32, y: f32| x as f64 * y as f64;
    m(d1.y, d2.z) == m(d1.z, d2.y)
        && m(d1.z, d2.x) == m(d1.x, d2.z)
        && m(d1.x, d2.y) == m(d1.y, d2.x)
}

/// Closest points of the closed segments `s1 = [p1, q1]` and `s2 = [p2, q2]`,
/// with `point1 = p1 + s·(q1 - p1)`, `point2 = p2 + t·(q2 - p2)`,
/// `s, t ∈ [0, 1]`.
///
/// With `d1 = q1 - p1`, `d2 = q2 - p2`, `r = p1 - p2`, `a = d1·d1`,
/// `b = d1·d2`, `c = d1·r`, `e = d2·d2`, `f = d2·r` (Ericson's names):
///
/// ```text
/// a == 0 && e == 0: both are points          -> s = t = 0
/// a == 0:          s1 is a point             -> s = 0, t = clamp(f / e)
/// e == 0:          s2 is a point             -> t = 0, s = clamp(-c / a)
/// otherwise: s = 0 if d1 × d2 = 0 exactly or a·e - b² <= 0 (parallel),
///            else s = clamp((b·f - c·e) / (a·e - b²))
///            (both degree-4 terms formed from a..f scaled by a power of two ≈ 1/max(a, e, |b|, |c|, |f|))
///            t = (b·s + f) / e; if t is outside [0, 1], clamp it and
///            recompute s = clamp((b·t - c) / a)
/// ```
///
/// Degenerate segments are tested exactly (`a == 0`, not `a <= ε`: any
/// non-zero `a` is a usable direction, and every quotient is clamped, so a
/// tiny `a` cannot produce anything outside the segment). Parallel segments
/// (`d1 × d2 = 0`, decided exactly for the `f32` differences `d1`, `d2`, or
/// `a·e - b² <= 0` in `f32` for nearly parallel ones) start at `s = 0`: the result is the closest pair with the smallest `s` reachable by
/// that rule — deterministic, and at the exact minimal distance, since for
/// parallel segments the one clamp-and-reproject round solves the 1-D interval
/// problem. Inputs whose largest coordinate magnitude is below 1 are first
/// multiplied by the power of two that brings it into `[1, 2)` (exact), so that
/// `a`, `e` and the degree-4 terms do not underflow for tiny segments; the
/// points are divided back (exact unless subnormal). NaN in every field for
/// non-finite input.
///
/// ```
/// use widephase::closest::closest_points_segment_segment;
/// use widephase::{Segment, Vec3};
/// let s1 = Segment::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0));
/// let s2 = Segment::new(Vec3::new(0.0, -1.0, 2.0), Vec3::new(0.0, 1.0, 2.0));
/// let r = closest_points_segment_segment(&s1, &s2);
/// assert_eq!((r.s, r.t, r.sq_dist), (0.5, 0.5, 4.0));
/// // touching at an endpoint
/// let s3 = Segment::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 5.0, 0.0));
/// assert_eq!(closest_points_segment_segment(&s1, &s3).sq_dist, 0.0);
/// ```
pub fn closest_points_segment_segment(s1: &Segment, s2: &Segment) -> ClosestPair {
    if !(finite(s1.a) && finite(s1.b) && finite(s2.a) && finite(s2.b)) {
        return ClosestPair::NAN;
    }
    let k = tiny_input_scale(max_abs(&[s1.a, s1.b, s2.a, s2.b]));
    if k == 1.0 {
        return segment_segment_scaled(s1, s2);
    }
    let scale = |s: &Segment| Segment::new(s.a * k, s.b * k);
    segment_segment_scaled(&scale(s1), &scale(s2)).unscaled(k)
}

/// The body of [`closest_points_segment_segment`] on inputs already scaled.
fn segment_segment_scaled(s1: &Segment, s2: &Segment) -> ClosestPair {
    let (p1, p2) = (s1.a, s2.a);
    let d1 = s1.b - p1;
    let d2 = s2.b - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let (s, t);
    if a == 0.0 && e == 0.0 {
        s = 0.0;
        t = 0.0;
    } else if a == 0.0 {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            let b = d1.dot(d2);
            // denom = a·e - b² ≥ 0 exactly (it may round to ≤ 0 when nearly
            // parallel). Degree 4 in the coordinates, so it and the numerator
            // are formed from the degree-2 terms scaled by 1/max: no overflow
            // or underflow in the coordinate range, and the quotient is
            // unchanged (the scale is a power of two).
            let k = pow2_scale(a.max(e).max(b.abs()).max(c.abs()).max(f.abs()));
            let (as_, bs, cs, es, fs) = (a * k, b * k, c * k, e * k, f * k);
            let denom = as_ * es - bs * bs;
            let parallel = exactly_parallel(d1, d2) || denom <= 0.0 || denom.is_nan();
            let s0 = if parallel { 0.0 } else { clamp01((bs * fs - cs * es) / denom) };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = clamp01(-c / a);
            } else if t0 > 1.0 {
                t = 1.0;
                s = clamp01((b - c) / a);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    ClosestPair::new(s, t, p1 + d1 * s, p2 + d2 * t)
}

/// Closest point of the closed segment `seg` to `p`: `a + t·(b - a)` with
/// `t = clamp((p - a)·(b - a) / |b - a|², 0, 1)` (Ericson §5.1.2), `t = 0` for
/// a zero-length segment. Returns `(t, point)`; NaN for non-finite input.
///
/// ```
/// use widephase::closest::closest_point_segment;
/// use widephase::{Segment, Vec3};
/// let s = Segment::new(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0));
/// assert_eq!(closest_point_segment(Vec3::new(1.0, 3.0, 0.0), &s), (0.25, Vec3::new(1.0, 0.0, 0.0)));
/// assert_eq!(closest_point_segment(Vec3::new(9.0, 0.0, 0.0), &s), (1.0, Vec3::new(4.0, 0.0, 0.0)));
/// ```
pub fn closest_point_segment(p: Vec3, seg: &Segment) -> (f32, Vec3) {
    if !(finite(p) && finite(seg.a) && finite(seg.b)) {
        return (f32::NAN, NAN3);
    }
    let ab = seg.b - seg.a;
    let e = ab.dot(ab);
    let t = if e == 0.0 { 0.0 } else { clamp01((p - seg.a).dot(ab) / e) };
    (t, seg.a + ab * t)
}
