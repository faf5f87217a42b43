//! Lane-generic helpers shared by the contact testers: the scaled
//! normalisation with a documented fallback, the one-point manifold, the
//! lane-generic segment–segment closest points, input validity masks, and the
//! frames the testers form points in (relative to a nearby vertex or centre).

use super::{ContactPoint, Manifold, MAX_CONTACTS};
use crate::lane::Lane;
use crate::math::V3;
use crate::shapes::{Capsule, Obb, Triangle};

/// The normal used when a direction is undefined (coincident sphere centres,
/// a sphere centre on a degenerate triangle, intersecting collinear capsule
/// axes): world `+Y`. A fixed axis keeps the answer deterministic; `+Y` is "up"
/// in the example scenes, so a solver pushes B upwards out of A.
pub const FALLBACK_NORMAL: [f32; 3] = [0.0, 1.0, 0.0];

/// Smallest scale the normaliser divides by (2^-126, the least normal `f32`).
const TINY: f32 = 1.175_494_4e-38;

/// `t` moved by `-t.a`: `(0, b - a, c - a)`. The triangle testers form
/// closest points and edge normals `q - p` in this frame: from absolute
/// coordinates `x` a normal over a gap `d` leans by up to about `ulp(x)/d`
/// (`10^-2` rad at `10^4` from the origin for `d = 0.1`, enough to read a
/// face contact as an edge's), from offsets to a vertex near the shape by the
/// offsets' ulps. The offsets are exact when the two coordinates are within
/// a factor 2 of each other (Sterbenz), as they are for a shape near a
/// triangle far from the origin.
#[inline(always)]
pub(crate) fn from_first_vertex<L: Lane>(t: &Triangle<L>) -> Triangle<L> {
    Triangle { a: V3::splat(L::splat(0.0)), b: t.b - t.a, c: t.c - t.a }
}

/// Box `o` moved to the origin. The box testers ([`box_box`](fn@super::box_box),
/// [`box_triangle`](fn@super::box_triangle)) clip, form edge points and the
/// exact closest pair with box A here and the other shape moved by
/// `-a.center`, then move the points back ([`moved_by`]): their rounding,
/// and the closest-pair check's `δ` (proportional to `|position|₁`,
/// `src/contact/closest_pair.rs`), then follow the pair's size instead of
/// its distance from the origin. From world coordinates 10⁴ away, `δ` (0.1)
/// let a SAT edge manifold stand for the closest pair of a speculative
/// box–triangle lane, its normal leaning up to 0.68 rad from the one the same
/// pair gets at the origin (simd-notes.md, "Speculative and touching
/// manifolds"). The SAT itself already works on `b − a.center`.
#[inline(always)]
pub(crate) fn at_origin<L: Lane>(o: &Obb<L>) -> Obb<L> {
    Obb { center: V3::splat(L::splat(0.0)), axes: o.axes, half: o.half }
}

/// `m` with the positions of its points moved by `c` (back from
/// [`at_origin`]'s frame); unused points stay zero.
#[inline(always)]
pub(crate) fn moved_by<L: Lane>(mut m: Manifold<L>, c: V3<L>) -> Manifold<L> {
    for (k, p) in m.points.iter_mut().enumerate() {
        let used = m.count.gt(L::splat(k as f32));
        p.position = V3::select(used, p.position + c, p.position);
    }
    m
}

/// `(v / |v|, |v|)`, or `(fallback, 0)` in lanes where `v` is zero.
///
/// `v` is first divided by its largest absolute component `m`, so neither the
/// squared length underflows (components down to the subnormal range still
/// give a unit vector) nor overflows; the length is `m·|v/m|`. NaN lanes give
/// NaN (callers mask invalid inputs before use).
#[inline(always)]
pub(crate) fn unit_or<L: Lane>(v: V3<L>, fallback: V3<L>) -> (V3<L>, L) {
    let zero = L::splat(0.0);
    let m = v.abs().max_element();
    // if (m == 0) return (fallback, 0);
    let nonzero = m.gt(zero);
    let k = L::splat(1.0) / m.max(L::splat(TINY));
    let s = v * k;
    let len_s = s.length();
    let n = s / len_s;
    (V3::select(nonzero, n, fallback), L::select(nonzero, m * len_s, zero))
}

/// The fallback normal in every lane.
#[inline(always)]
pub(crate) fn fallback<L: Lane>() -> V3<L> {
    V3::new(
        L::splat(FALLBACK_NORMAL[0]),
        L::splat(FALLBACK_NORMAL[1]),
        L::splat(FALLBACK_NORMAL[2]),
    )
}

/// Lanes whose margin is finite and `>= 0` (a NaN margin invalidates the pair).
#[inline(always)]
pub(crate) fn margin_ok<L: Lane>(margin: L) -> L::Mask {
    margin.is_finite() & margin.ge(L::splat(0.0))
}

/// Lanes holding a capsule with finite end points and a finite radius `>= 0`.
#[inline(always)]
pub(crate) fn capsule_ok<L: Lane>(c: &Capsule<L>) -> L::Mask {
    c.a.is_finite() & c.b.is_finite() & c.radius.is_finite() & c.radius.ge(L::splat(0.0))
}

/// `x` clamped to `[0, 1]`; NaN maps to 0 (`maxps` rule: `NaN.max(0) = 0`).
#[inline(always)]
pub(crate) fn clamp01<L: Lane>(x: L) -> L {
    x.max(L::splat(0.0)).min(L::splat(1.0))
}

/// A point with every field zeroed outside `keep`.
#[inline(always)]
pub(crate) fn point<L: Lane>(
    keep: L::Mask,
    position: V3<L>,
    depth: L,
    feature_id: L,
) -> ContactPoint<L> {
    let z = L::splat(0.0);
    ContactPoint {
        position: V3::select(keep, position, V3::splat(z)),
        depth: L::select(keep, depth, z),
        feature_id: L::select(keep, feature_id, z),
    }
}

/// A manifold of up to two points: lanes in `hit` get `normal`, point 0, and
/// point 1 where `two`; everything else is zero (the module conventions).
#[inline(always)]
pub(crate) fn manifold2<L: Lane>(
    hit: L::Mask,
    two: L::Mask,
    normal: V3<L>,
    p0: ContactPoint<L>,
    p1: ContactPoint<L>,
) -> Manifold<L> {
    let z = L::splat(0.0);
    let two = hit & two;
    let count = L::select(two, L::splat(2.0), L::select(hit, L::splat(1.0), z));
    let empty = ContactPoint { position: V3::splat(z), depth: z, feature_id: z };
    let mut points = [empty; MAX_CONTACTS];
    points[0] = point(hit, p0.position, p0.depth, p0.feature_id);
    points[1] = point(two, p1.position, p1.depth, p1.feature_id);
    Manifold { normal: V3::select(hit, normal, V3::splat(z)), count, points }
}

/// A one-point manifold (see [`manifold2`]).
#[inline(always)]
pub(crate) fn manifold1<L: Lane>(
    hit: L::Mask,
    normal: V3<L>,
    position: V3<L>,
    depth: L,
    feature_id: L,
) -> Manifold<L> {
    let z = L::splat(0.0);
    let mut m = Manifold::empty();
    m.normal = V3::select(hit, normal, V3::splat(z));
    m.count = L::select(hit, L::splat(1.0), z);
    m.points[0] = point(hit, position, depth, feature_id);
    m
}

/// Closest points of two segments, per lane: `p1 + s·(q1 - p1)` and
/// `p2 + t·(q2 - p2)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SegmentPair<L: Lane> {
    pub s: L,
    pub t: L,
    pub point1: V3<L>,
    pub point2: V3<L>,
}

/// Ericson §5.1.9 `ClosestPtSegmentSegment`, branch-free: the lane-generic
/// twin of [`crate::closest::closest_points_segment_segment`] (same case
/// rules: degenerate segments tested with `== 0`, parallel segments start at
/// `s = 0`). The degree-4 terms are formed from the degree-2 dots scaled by
/// `1/max` (one rounding each) so nothing overflows within the crate's
/// coordinate range; the scalar version scales by a power of two instead, so
/// the two may differ by an ulp — the contact testers only use this one.
///
/// ```text
/// s = clamp((b·f - c·e) / (a·e - b²)) or 0 if a·e - b² <= 0
/// t = (b·s + f) / e
/// t < 0 -> t = 0, s = clamp(-c / a);  t > 1 -> t = 1, s = clamp((b - c) / a)
/// e == 0 -> t = 0, s = clamp(-c / a);  a == 0 -> s = 0, t = clamp(f / e)
/// ```
#[inline(always)]
pub(crate) fn closest_segments<L: Lane>(
    p1: V3<L>,
    q1: V3<L>,
    p2: V3<L>,
    q2: V3<L>,
) -> SegmentPair<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let c = d1.dot(r);
    let b = d1.dot(d2);
    let k = one / a.max(e).max(b.abs()).max(c.abs()).max(f.abs()).max(L::splat(TINY));
    let (as_, bs, cs, es, fs) = (a * k, b * k, c * k, e * k, f * k);
    let denom = as_ * es - bs * bs;
    // if (denom > 0) s = clamp((b f - c e) / denom) else s = 0;
    let s0 = L::select(denom.gt(zero), clamp01((bs * fs - cs * es) / denom), zero);
    let t0 = (b * s0 + f) / e;
    let s_lo = clamp01(-c / a);
    let s_hi = clamp01((b - c) / a);
    let below = t0.lt(zero);
    let above = t0.gt(one);
    let mut t = L::select(below, zero, L::select(above, one, t0));
    let mut s = L::select(below, s_lo, L::select(above, s_hi, s0));
    // degenerate segments (a == 0 wins when both are points: s = t = 0)
    let e0 = e.eq(zero);
    t = L::select(e0, zero, t);
    s = L::select(e0, s_lo, s);
    let a0 = a.eq(zero);
    s = L::select(a0, zero, s);
    t = L::select(a0, clamp01(f / e), t);
    SegmentPair { s, t, point1: p1 + d1 * s, point2: p2 + d2 * t }
}

/// Copies lane `sj` of the field-major lane struct `src` to lane `dj` of `dst`
/// (every `f32` field of a `T<L>` is `L::WIDTH` consecutive floats).
#[inline(always)]
pub(crate) fn copy_lane<L: crate::pack::LanePod, T: bytemuck::Pod>(
    dst: &mut T,
    dj: usize,
    src: &T,
    sj: usize,
) {
    let w = L::WIDTH;
    let d: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(dst));
    let s: &[f32] = bytemuck::cast_slice(core::slice::from_ref(src));
    for (dc, sc) in d.chunks_exact_mut(w).zip(s.chunks_exact(w)) {
        dc[dj] = sc[sj];
    }
}
