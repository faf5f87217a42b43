//! Capsule–box contact: one point, or two when the capsule lies along a box
//! face (bepuphysics2 `CapsuleBoxTester`, Box2D's capsule–polygon manifold:
//! clip the capsule axis against the face's side planes and keep both ends).
//!
//! # Method
//! The distance of the capsule's axis segment to the box is found **exactly**
//! (up to rounding), not by treating the segment as a flat box: in the box's
//! frame the squared distance of `p(t) = p0 + t·d` to the box is the convex,
//! piecewise quadratic `f(t) = Σ_i (x_i(t) - clamp(x_i(t), -h_i, h_i))²`,
//! minimised piece by piece between its 6 breakpoints `x_i(t) = ±h_i` (see
//! `segment_box_param` in `src/contact/closest_pair.rs`, shared with the
//! box–box and box–triangle closest pairs). Every lane does the same fixed
//! work. This gives the right normal near box edges and corners: a
//! capsule near a corner that is separated reports a positive gap.
//!
//! When the segment meets the box (distance 0) the capsule is deep: the normal
//! is the SAT axis of least penetration among the 3 box face normals and the 3
//! axes `d × box axis` (the complete set for a segment against a box), with
//! the box_box tie rule: an edge axis must beat the best face axis by more
//! than [`OBB_EDGE_AXIS_BIAS`]` · |face depth|`; lowest index wins ties.
//! The point is on B and `point + depth·normal` on A: for a cross axis the
//! closest points of the segment and B's edge along that box axis, for a face
//! axis the deepest point of the segment over the face.
//!
//! # Two points
//! Only when the normal already is a face normal (see [`capsule_box`]): then
//! the closest axis point lies in the clipped interval and, heights being
//! linear along the axis, the deeper end is at least as deep as the single
//! point would be (the two-point manifold never under-reports the depth). A
//! nearly flat capsule whose low end hangs over a box edge gets one point.
//! Points on A (`position + depth·normal = p(t_i) - r·f`) lie inside A by at
//! most `r·(1 - cos θ)` for an axis tilted by θ from the face (bepu's face
//! manifolds do the same).

use super::capsule_capsule::CAPSULE_PARALLEL_SIN;
use super::closest_pair::segment_box_param;
use super::util::{capsule_ok, closest_segments, fallback, manifold2, margin_ok, unit_or};
use super::{ContactPoint, Manifold};
use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::overlap::OBB_EDGE_AXIS_BIAS;
use crate::shapes::{Capsule, Obb};
use crate::simd::unroll::from2;

/// Base of the two-point (capsule lying on a face) feature ids:
/// `CAPSULE_FACE_ID_BASE + 2·face + end`.
pub const CAPSULE_FACE_ID_BASE: f32 = 128.0;

/// Contact of capsule `a` and box `b` with speculative `margin` (the method
/// is described at the top of `src/contact/capsule_box.rs`; see the
/// [conventions](super)). **Lane-generic.** The
/// box axes are assumed orthonormal ([`Obb::try_new`]).
///
/// ```text
/// t* = argmin f(t) (module docs); x = p0 + t*·d in the box frame
/// e_i = x_i - clamp(x_i, -h_i, h_i);  gap = |Σ e_i·axis_i|
/// gap > 0: n = -Σ e_i·axis_i / gap, depth = r - gap, point = box point
///          c + Σ clamp(x_i)·axis_i
/// gap = 0: SAT (face axes ±axis_k: depth = r + min(hi_k + h_k, h_k - lo_k);
///          cross axes d × axis_k likewise);
///          cross axis: point = closest point of the segment on B's edge
///          along axis_k farthest along -n, depth = r + overlap;
///          face axis: point = the deeper end of the segment clipped to the
///          face's side slabs, projected on the face, depth = r + its depth
///          below the face (the SAT overlap when the support end is over the
///          face)
/// contact iff depth >= -margin
/// two points when n is a face normal of the box (the closest box point is
///   inside a face, or the deep SAT chose a face axis), the capsule axis is
///   within CAPSULE_PARALLEL_SIN of that face's plane (|û·axis_k| <= sin, as
///   capsule_capsule), the segment clipped to the face's side
///   slabs is a non-empty [t0, t1] and both ends are within the margin:
///   normal = -(outward face normal f), point_i = p(t_i) projected on the face,
///   depth_i = r - height of p(t_i) above the face
/// ```
///
/// Feature ids: one point outside: `Σ_i 3^i·f_i + 27·s` with `f_i` the box
/// region (0 within the slab, 1 below, 2 above) and `s` the capsule feature (0
/// interior, 1 end `a`, 2 end `b`); deep: `81 + axis` (faces `2k + [negative]`,
/// cross axes `6 + k`); two points: [`CAPSULE_FACE_ID_BASE`]` + 2·face + end`.
///
/// ```
/// use widephase::contact::capsule_box;
/// use widephase::{Capsule, Obb, Vec3};
/// let b = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// // lying on the top face, 0.25 deep, ends beyond the face: clipped at x = ±1
/// let c = Capsule::new(Vec3::new(-2.0, 1.25, 0.0), Vec3::new(2.0, 1.25, 0.0), 0.5);
/// let m = capsule_box(&c, &b, 0.0);
/// assert_eq!((m.count, m.normal), (2.0, -Vec3::Y));
/// assert_eq!((m.points[0].position.x, m.points[1].position.x), (-1.0, 1.0));
/// assert_eq!((m.points[0].depth, m.points[0].position.y), (0.25, 1.0));
/// ```
#[inline(always)]
pub fn capsule_box<L: Lane>(a: &Capsule<L>, b: &Obb<L>, margin: L) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let inf = L::splat(f32::INFINITY);
    let valid = capsule_ok(a) & b.is_valid() & margin_ok(margin);
    let ax = b.axes;
    let h = [b.half.x, b.half.y, b.half.z];
    let rel0 = a.a - b.center;
    let seg = a.b - a.a;
    let p = [rel0.dot(ax[0]), rel0.dot(ax[1]), rel0.dot(ax[2])];
    let d = [seg.dot(ax[0]), seg.dot(ax[1]), seg.dot(ax[2])];
    // Nested fns and written-out arrays, not closures: a closure is compiled
    // without the dispatched entry's target features unless LLVM happens to
    // inline it (`crate::simd`).
    #[inline(always)]
    fn x_at<L: Lane>(p: &[L; 3], d: &[L; 3], i: usize, t: L) -> L {
        p[i] + t * d[i]
    }
    let clamp_h = |i: usize, x: L| x.max(-h[i]).min(h[i]);
    let (t_best, _) = segment_box_param(p, d, h);

    // Outside: the closest points.
    let mut excess = V3::splat(zero);
    let mut q = b.center;
    let mut region = zero;
    let mut weight = one;
    let mut out_axes = zero;
    for i in 0..3 {
        let x = x_at(&p, &d, i, t_best);
        let c = clamp_h(i, x);
        excess += ax[i] * (x - c);
        q += ax[i] * c;
        let f = L::select(x.lt(-h[i]), one, L::select(x.gt(h[i]), L::splat(2.0), zero));
        region = region + f * weight;
        out_axes = out_axes + L::select(f.gt(zero), one, zero);
        weight = weight * L::splat(3.0);
    }
    let end_id = L::select(t_best.eq(zero), one, L::select(t_best.eq(one), L::splat(2.0), zero));
    let out_id = region + end_id * L::splat(27.0);
    let (n_out, gap) = unit_or(-excess, fallback());
    let inside = gap.eq(zero);

    // Inside: SAT of the segment against the box.
    let mut face_depth = inf;
    let mut face_n = fallback();
    let mut face_id = zero;
    for i in 0..3 {
        let (lo, hi) = (p[i].min(p[i] + d[i]), p[i].max(p[i] + d[i]));
        let neg = h[i] - lo; // push B along -axis
        let pos = hi + h[i]; // push B along +axis
        let use_neg = neg.le(pos);
        let depth = L::select(use_neg, neg, pos);
        let take = depth.lt(face_depth);
        face_depth = L::select(take, depth, face_depth);
        face_n = V3::select(take, V3::select(use_neg, -ax[i], ax[i]), face_n);
        let fid = L::splat(2.0 * i as f32) + L::select(use_neg, one, zero);
        face_id = L::select(take, fid, face_id);
    }
    let rel1 = a.b - b.center;
    let mut edge_depth = inf;
    let mut edge_n = fallback();
    let mut edge_id = zero;
    for (i, axis) in ax.iter().enumerate() {
        let (m, len) = unit_or(seg.cross(*axis), fallback());
        let (s0, s1) = (rel0.dot(m), rel1.dot(m));
        let rb = h[0] * ax[0].dot(m).abs() + h[1] * ax[1].dot(m).abs() + h[2] * ax[2].dot(m).abs();
        let neg = rb - s0.min(s1);
        let pos = s0.max(s1) + rb;
        let use_neg = neg.le(pos);
        // parallel axes (len == 0) never win
        let depth = L::select(len.gt(zero), L::select(use_neg, neg, pos), inf);
        let take = depth.lt(edge_depth);
        edge_depth = L::select(take, depth, edge_depth);
        edge_n = V3::select(take, V3::select(use_neg, -m, m), edge_n);
        edge_id = L::select(take, L::splat(6.0 + i as f32), edge_id);
    }
    let use_edge = edge_depth.lt(face_depth - L::splat(OBB_EDGE_AXIS_BIAS) * face_depth.abs());
    let n_in = V3::select(use_edge, edge_n, face_n);
    let ov = L::select(use_edge, edge_depth, face_depth);
    let in_id = L::splat(81.0) + L::select(use_edge, edge_id, face_id);
    // The deep point of a cross axis `d × axis_k` is the closest point of
    // the axis segment and B's edge along `axis_k` farthest along `-n` (the
    // edge–edge point of box_box): the two points differ by `ov` along `n`,
    // so `position + depth·n` is on A. (The capsule's support point along n
    // would not do: `d ⊥ n`, so which end supports is decided by rounding, and
    // moved back by `ov` it lands on B's supporting plane, up to the segment's
    // length away from the box.)
    let cross_deep = inside & use_edge;
    let mut edge_point = b.center;
    if cross_deep.any() {
        let mut e_mid = b.center;
        let mut e_dir = V3::splat(zero);
        for i in 0..3 {
            let along = edge_id.eq(L::splat(6.0 + i as f32));
            let side = L::select(ax[i].dot(n_in).gt(zero), -h[i], h[i]);
            e_mid += ax[i] * L::select(along, zero, side);
            e_dir += ax[i] * L::select(along, h[i], zero);
        }
        edge_point = closest_segments(a.a, a.b, e_mid - e_dir, e_mid + e_dir).point2;
    }

    let n = V3::select(inside, n_in, n_out);
    let depth = L::select(inside, a.radius + ov, a.radius - gap);
    let hit = valid & depth.ge(-margin);
    if hit.none() {
        return Manifold::empty();
    }
    let id = L::select(inside, in_id, out_id);

    // Two points: the capsule lying along a face.
    let g = [n.dot(ax[0]), n.dot(ax[1]), n.dot(ax[2])];
    let ag = [g[0].abs(), g[1].abs(), g[2].abs()];
    let j0 = ag[0].ge(ag[1]) & ag[0].ge(ag[2]);
    let j1 = !j0 & ag[1].ge(ag[2]);
    let is = [j0, j1, !(j0 | j1)];
    #[inline(always)]
    fn pick<L: Lane>(j0: L::Mask, j1: L::Mask, x: [L; 3]) -> L {
        L::select(j0, x[0], L::select(j1, x[1], x[2]))
    }
    let gk = pick(j0, j1, g);
    // outward normal of the face towards A is -n: its sign along axis k
    let s = L::select(gk.gt(zero), -one, one);
    let nf = V3::select(j0, ax[0], V3::select(j1, ax[1], ax[2])) * s;
    let sin = L::splat(CAPSULE_PARALLEL_SIN);
    let (_, len) = unit_or(seg, fallback());
    let along = pick(j0, j1, d).abs();
    let mut t0 = zero;
    let mut t1 = one;
    for i in 0..3 {
        let inv = one / d[i];
        let ta = (-h[i] - p[i]) * inv;
        let tb = (h[i] - p[i]) * inv;
        let flat = d[i].eq(zero);
        let within = p[i].abs().le(h[i]);
        let enter = L::select(flat, L::select(within, -inf, inf), ta.min(tb));
        let exit = L::select(flat, L::select(within, inf, -inf), ta.max(tb));
        t0 = L::select(is[i], t0, t0.max(enter));
        t1 = L::select(is[i], t1, t1.min(exit));
    }
    let hk = pick(j0, j1, h);
    let [(q0, d0), (q1, d1)] = from2!(|end| {
        let t = if end == 0 { t0 } else { t1 };
        let mut pt = b.center;
        for i in 0..3 {
            pt += ax[i] * L::select(is[i], s * hk, x_at(&p, &d, i, t));
        }
        let xs = [x_at(&p, &d, 0, t), x_at(&p, &d, 1, t), x_at(&p, &d, 2, t)];
        let height = s * pick(j0, j1, xs) - hk;
        (pt, a.radius - height)
    });
    // The deep point of a face axis: the deeper end of the segment clipped to
    // the face's side slabs (non-empty: the segment meets the box), projected
    // on the face, with its own depth. That is the capsule's support point
    // moved back onto the face when the support lies over the face; when it
    // lies beyond a side of the box, the SAT overlap along `n` overstates the
    // depth any point of B reaches, and a point moved back by it would be off
    // B.
    let deeper_end = d1.gt(d0);
    let face_deep_point = V3::select(deeper_end, q1, q0);
    let face_deep_depth = L::select(deeper_end, d1, d0);
    let face_deep = inside.and_not(use_edge);
    let position = V3::select(inside, V3::select(use_edge, edge_point, face_deep_point), q);
    let depth = L::select(face_deep, face_deep_depth, depth);
    // the normal is a face normal: the closest box point is on a face's
    // interior (one axis out of its slab), or a deep face axis won
    let face_normal = L::select(inside, L::select(use_edge, zero, one), out_axes).eq(one);
    let two = face_normal
        & along.le(sin * len)
        & len.gt(zero)
        & t1.gt(t0)
        & d0.ge(-margin)
        & d1.ge(-margin);
    let face =
        pick(j0, j1, [zero, L::splat(2.0), L::splat(4.0)]) + L::select(s.lt(zero), one, zero);
    let base = L::splat(CAPSULE_FACE_ID_BASE) + face * L::splat(2.0);
    let p0 = ContactPoint {
        position: V3::select(two, q0, position),
        depth: L::select(two, d0, depth),
        feature_id: L::select(two, base, id),
    };
    let p1 = ContactPoint { position: q1, depth: d1, feature_id: base + one };
    manifold2(hit, two, V3::select(two, -nf, n), p0, p1)
}
