//! Exact closest pairs of a box and a segment, two boxes, and a box and a
//! triangle, and the check that keeps the speculative manifolds of
//! [`box_box`](fn@super::box_box) and [`box_triangle`](fn@super::box_triangle)
//! honest.
//!
//! # Why
//! A SAT manifold of a separated pair reports, per point, the gap along the
//! SAT normal. That is right when the manifold holds a closest pair of the
//! two shapes, and the SAT gap (a lower bound of the distance) then equals the
//! distance. It is not when the closest features are not seen along the
//! normal: clipping dropped the incident support vertex (it projects outside
//! the reference face) and kept shallower points, the clipping left nothing
//! and the support vertex alone was reported (its partner along the normal is
//! off A), or an edge–edge pair's closest points were clamped to an edge's
//! end (vertex–edge). A solver trusting such a manifold lets the bodies
//! approach by more than they are apart, or sees a point pair that is not on
//! both shapes.
//!
//! # Rule
//! A lane whose deepest point is speculative or touching (`depth <= δ`) is
//! kept when that point is a pair of surface points (`position + depth·n`
//! within `δ` of A's surface; `position` is on B by construction) as far
//! apart as the SAT gap (`depth >= sat_depth - δ`). Since no pair of surface
//! points is closer than the distance and the SAT gap is at most the distance,
//! the point is then a closest pair (up to `δ`) and the manifold's depth is
//! minus the distance. Every other such lane is replaced by the exact closest
//! pair: one point on B, `depth = -distance`, the normal along the pair (the
//! SAT normal when the pair is within `δ`), or by no contact when the
//! distance exceeds the margin. This is Box2D's rule for polygons in 2D
//! (`b2ClipPolygons` falls back to the closest points of the two reference
//! edges when they are vertex–vertex), in 3D.
//!
//! `δ = 2^-18 · (|position|₁ + Σ h_A)`: a few hundred times the rounding of
//! the coordinates the candidates are built from. The callers run it with A
//! at the origin (`util::at_origin`), so `position` is relative to A's centre
//! and δ is below `10^-4` of the pair's scale (the bound the tests check)
//! wherever the pair is; from world coordinates it followed the coordinates
//! instead (0.1 at 10⁴ from the origin, which let SAT manifolds of
//! speculative pairs stand for the closest pair; simd-notes.md, "Speculative
//! and touching manifolds").
//!
//! # Cost
//! The closest pair runs only for packs holding such a lane (rare: a tilted
//! box at a face's rim, vertex–vertex pairs), 20 segment/point–box or
//! point–triangle distances; the check is a point–box distance per pack.

use super::util::unit_or;
use super::{ContactPoint, Manifold};
use crate::closest::closest_point_triangle;
use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::shapes::{Obb, Triangle};

/// Feature id of a replaced box–box point: `BOX_BOX_CLOSEST_ID_BASE + f`,
/// `f` `0..12` an edge of A (`4·axis + sign bits` of the other two axes),
/// `12..20` a vertex of B (`Σ 2^i·[negative along axis i]`).
pub const BOX_BOX_CLOSEST_ID_BASE: f32 = 8192.0;
/// Feature id of a replaced box–triangle point: `BOX_TRIANGLE_CLOSEST_ID_BASE
/// + f`, `f` `0..3` a triangle edge, `3..11` a box vertex.
pub const BOX_TRIANGLE_CLOSEST_ID_BASE: f32 = 1024.0;

/// `δ` of the [rule](self) per unit of `|position|₁ + Σ h_A`.
const CHECK_TOL: f32 = 1.0 / 262_144.0;

/// Sorting network for 6 values (12 comparators; checked exhaustively with the
/// 0-1 principle).
const SORT6: [(usize, usize); 12] = [
    (0, 5),
    (1, 3),
    (2, 4),
    (1, 2),
    (3, 4),
    (0, 3),
    (2, 5),
    (0, 1),
    (2, 3),
    (4, 5),
    (1, 2),
    (3, 4),
];

/// `x` clamped to `[0, 1]`; NaN maps to 0.
#[inline(always)]
fn clamp01<L: Lane>(x: L) -> L {
    x.max(L::splat(0.0)).min(L::splat(1.0))
}

/// The parameter `t ∈ [0, 1]` of the point of the segment `p + t·d` closest
/// to the box `|x_i| <= h_i`, all in the box's frame, and the squared
/// distance `f(t)` there.
///
/// `f(t) = Σ_i (x_i(t) - clamp(x_i(t), -h_i, h_i))²` is convex and piecewise
/// quadratic, its pieces change only where some `x_i(t) = ±h_i` (6
/// breakpoints). The breakpoints are sorted (a 12-comparator network) and on
/// each of the 7 pieces the quadratic's minimiser, clamped to the piece, is a
/// candidate; the best candidate is the global minimiser (a convex function
/// restricted to the piece holding its minimiser is that piece's quadratic).
/// Every lane does the same fixed work.
#[inline(always)]
pub(super) fn segment_box_param<L: Lane>(p: [L; 3], d: [L; 3], h: [L; 3]) -> (L, L) {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let half = L::splat(0.5);
    // Nested fns, not closures: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    #[inline(always)]
    fn x_at<L: Lane>(p: &[L; 3], d: &[L; 3], i: usize, t: L) -> L {
        p[i] + t * d[i]
    }
    #[inline(always)]
    fn f_at<L: Lane>(p: &[L; 3], d: &[L; 3], h: &[L; 3], t: L) -> L {
        let mut f = L::splat(0.0);
        for (i, &hi) in h.iter().enumerate() {
            let x = x_at(p, d, i, t);
            let e = x - x.max(-hi).min(hi);
            f = f + e * e;
        }
        f
    }
    // Breakpoints x_i(t) = ±h_i in [0, 1] (d_i = 0 gives ±∞ or NaN -> 0 or 1,
    // a harmless extra knot), sorted.
    let mut k = [zero; 6];
    for i in 0..3 {
        let inv = one / d[i];
        k[2 * i] = clamp01((-h[i] - p[i]) * inv);
        k[2 * i + 1] = clamp01((h[i] - p[i]) * inv);
    }
    for (i, j) in SORT6 {
        let (lo, hi) = (k[i].min(k[j]), k[i].max(k[j]));
        k[i] = lo;
        k[j] = hi;
    }
    let knots = [zero, k[0], k[1], k[2], k[3], k[4], k[5], one];
    let mut best = L::splat(f32::INFINITY);
    let mut t_best = zero;
    for w in knots.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        let mid = (lo + hi) * half;
        let mut num = zero;
        let mut den = zero;
        for i in 0..3 {
            let x = x_at(&p, &d, i, mid);
            let above = x.gt(h[i]);
            let below = x.lt(-h[i]);
            let target = L::select(above, h[i], -h[i]);
            let active = above | below;
            num = num + L::select(active, d[i] * (target - p[i]), zero);
            den = den + L::select(active, d[i] * d[i], zero);
        }
        // no active axis: the piece lies inside the box; its midpoint (just
        // classified inside, so f(mid) is exactly 0) rather than a knot,
        // where rounding can put x_i a hair outside
        let t = L::select(den.gt(zero), num / den, mid).max(lo).min(hi);
        let f = f_at(&p, &d, &h, t);
        let take = f.lt(best);
        best = L::select(take, f, best);
        t_best = L::select(take, t, t_best);
    }
    (t_best, best)
}

/// A closest pair per lane: `on_a`, `on_b`, the squared distance and the
/// feature number (see the id constants).
#[derive(Clone, Copy)]
pub(super) struct ClosestPair<L: Lane> {
    pub on_a: V3<L>,
    pub on_b: V3<L>,
    pub dist2: L,
    pub feature: L,
}

impl<L: Lane> ClosestPair<L> {
    #[inline(always)]
    fn none() -> Self {
        let z = L::splat(0.0);
        ClosestPair {
            on_a: V3::splat(z),
            on_b: V3::splat(z),
            dist2: L::splat(f32::INFINITY),
            feature: z,
        }
    }

    /// Keeps `other` in lanes where it is strictly closer (lowest feature
    /// first on ties: callers offer features in increasing order).
    #[inline(always)]
    fn keep_closer(&mut self, other: ClosestPair<L>) {
        let take = other.dist2.lt(self.dist2);
        self.on_a = V3::select(take, other.on_a, self.on_a);
        self.on_b = V3::select(take, other.on_b, self.on_b);
        self.dist2 = L::select(take, other.dist2, self.dist2);
        self.feature = L::select(take, other.feature, self.feature);
    }
}

/// `(p·axes_i)`, the point `p` (relative to the box centre) in the box frame.
#[inline(always)]
fn local<L: Lane>(o: &Obb<L>, rel: V3<L>) -> [L; 3] {
    [rel.dot(o.axes[0]), rel.dot(o.axes[1]), rel.dot(o.axes[2])]
}

/// The point of box `o` closest to `p` and the squared distance.
#[inline(always)]
fn point_box<L: Lane>(o: &Obb<L>, p: V3<L>) -> (V3<L>, L) {
    let h = [o.half.x, o.half.y, o.half.z];
    let x = local(o, p - o.center);
    let mut q = o.center;
    let mut f = L::splat(0.0);
    for i in 0..3 {
        let c = x[i].max(-h[i]).min(h[i]);
        let e = x[i] - c;
        f = f + e * e;
        q += o.axes[i] * c;
    }
    (q, f)
}

/// The closest pair of segment `[s, s + d]` and box `o`: (point on the
/// segment, point on the box, squared distance).
#[inline(always)]
fn segment_box<L: Lane>(o: &Obb<L>, s: V3<L>, d: V3<L>) -> (V3<L>, V3<L>, L) {
    let h = [o.half.x, o.half.y, o.half.z];
    let (t, _) = segment_box_param(local(o, s - o.center), local(o, d), h);
    let on_seg = s + d * t;
    let (q, f) = point_box(o, on_seg);
    (on_seg, q, f)
}

/// The box's vertex `v` (`bit i` set: negative along axis `i`).
#[inline(always)]
fn vertex<L: Lane>(o: &Obb<L>, v: usize) -> V3<L> {
    let h = [o.half.x, o.half.y, o.half.z];
    let mut p = o.center;
    for (i, (&axis, &hi)) in o.axes.iter().zip(&h).enumerate() {
        p += axis * if v >> i & 1 == 1 { -hi } else { hi };
    }
    p
}

/// Exact (up to rounding) closest pair of two disjoint boxes. The closest
/// pair of two convex polytopes has a vertex of one against the other or two
/// edges (face–face and edge–face pairs contain such a pair), so the 12
/// edges of A against B and the 8 vertices of B against A find it.
#[inline(always)]
pub(super) fn box_box_closest<L: Lane>(a: &Obb<L>, b: &Obb<L>) -> ClosestPair<L> {
    let h = [a.half.x, a.half.y, a.half.z];
    let mut best = ClosestPair::none();
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let dir = a.axes[i] * (h[i] + h[i]);
        for signs in 0..4 {
            let s1 = if signs & 2 == 0 { h[i1] } else { -h[i1] };
            let s2 = if signs & 1 == 0 { h[i2] } else { -h[i2] };
            let start = a.center + a.axes[i1] * s1 + a.axes[i2] * s2 - a.axes[i] * h[i];
            let (on_a, on_b, dist2) = segment_box(b, start, dir);
            let feature = L::splat((4 * i + signs) as f32);
            best.keep_closer(ClosestPair { on_a, on_b, dist2, feature });
        }
    }
    for v in 0..8 {
        let on_b = vertex(b, v);
        let (on_a, dist2) = point_box(a, on_b);
        best.keep_closer(ClosestPair { on_a, on_b, dist2, feature: L::splat((12 + v) as f32) });
    }
    best
}

/// Exact (up to rounding) closest pair of a box and a triangle disjoint from
/// it: the triangle's 3 edges against the box and the box's 8 vertices
/// against the triangle (as [`box_box_closest`]; a degenerate triangle is its
/// edges).
#[inline(always)]
pub(super) fn box_triangle_closest<L: Lane>(a: &Obb<L>, t: &Triangle<L>) -> ClosestPair<L> {
    let mut best = ClosestPair::none();
    let verts = [t.a, t.b, t.c];
    for j in 0..3 {
        let (s, e) = (verts[j], verts[(j + 1) % 3]);
        let (on_b, on_a, dist2) = segment_box(a, s, e - s);
        best.keep_closer(ClosestPair { on_a, on_b, dist2, feature: L::splat(j as f32) });
    }
    for v in 0..8 {
        let on_a = vertex(a, v);
        let on_b = closest_point_triangle(on_a, t).point;
        let d = on_b - on_a;
        best.keep_closer(ClosestPair {
            on_a,
            on_b,
            dist2: d.dot(d),
            feature: L::splat((3 + v) as f32),
        });
    }
    best
}

/// Shape B of [`keep_closest_pair`]: its exact closest pair with the box
/// `a` (a trait, not a closure argument: a closure is compiled without the
/// dispatched entry's target features unless LLVM happens to inline it,
/// `crate::simd`).
pub(super) trait ClosestToBox<L: Lane> {
    /// The closest pair of box `a` and `self` (`on_a` on `a`).
    fn closest_to(&self, a: &Obb<L>) -> ClosestPair<L>;
}

impl<L: Lane> ClosestToBox<L> for Obb<L> {
    #[inline(always)]
    fn closest_to(&self, a: &Obb<L>) -> ClosestPair<L> {
        box_box_closest(a, self)
    }
}

impl<L: Lane> ClosestToBox<L> for Triangle<L> {
    #[inline(always)]
    fn closest_to(&self, a: &Obb<L>) -> ClosestPair<L> {
        box_triangle_closest(a, self)
    }
}

/// The [rule](self) applied to manifold `m` of a box `a` and a shape B in
/// the lanes `lanes` (the others are returned as they are): `sat_depth` the
/// SAT depth along `m.normal`, `b` shape B (its exact closest pair is
/// computed only when one of `lanes` needs it), `id_base` the replaced
/// points' id base.
///
/// `lanes` are the lanes whose result the caller keeps. A path run for a
/// whole pack fills the other lanes with manifolds of a path they do not take
/// (an edge manifold of a face pair, of a separated pair, or of a staged
/// pack's stale lane), which would otherwise ask for the closest pair and
/// run it for nothing.
#[inline(always)]
pub(super) fn keep_closest_pair<L: Lane>(
    m: Manifold<L>,
    a: &Obb<L>,
    sat_depth: L,
    margin: L,
    id_base: f32,
    b: &impl ClosestToBox<L>,
    lanes: L::Mask,
) -> Manifold<L> {
    let zero = L::splat(0.0);
    let p = m.points[0];
    let pos = p.position;
    let ha = [a.half.x, a.half.y, a.half.z];
    let size = pos.x.abs() + pos.y.abs() + pos.z.abs() + ha[0] + ha[1] + ha[2];
    let tol = L::splat(CHECK_TOL) * size;
    let check = lanes & m.count.gt(zero) & p.depth.le(tol);
    if check.none() {
        return m;
    }
    // `position + depth·n` within `tol` of A's surface: outside A by at most
    // `tol` and not deeper inside than `tol`
    let x = local(a, pos + m.normal * p.depth - a.center);
    let mut out2 = zero;
    let mut inner = L::splat(f32::NEG_INFINITY);
    for i in 0..3 {
        let e = x[i].abs() - ha[i];
        let o = e.max(zero);
        out2 = out2 + o * o;
        inner = inner.max(e);
    }
    let on_a = out2.le(tol * tol) & inner.ge(-tol);
    let need = check & !(on_a & p.depth.ge(sat_depth - tol));
    if need.none() {
        return m;
    }
    #[cfg(test)]
    tests::CLOSEST_RUNS.with(|n| n.set(n.get() + 1));
    let c = b.closest_to(a);
    // the distance of the two world points (not `dist2`, summed in a box's
    // frame: the normal must be the unit direction of the pair reported)
    let (dir, dist) = unit_or(c.on_b - c.on_a, m.normal);
    let normal = V3::select(dist.gt(tol), dir, m.normal);
    let keep = dist.le(margin);
    let mut r = Manifold::empty();
    r.normal = V3::select(keep, normal, V3::splat(zero));
    r.count = L::select(keep, L::splat(1.0), zero);
    r.points[0] = ContactPoint {
        position: V3::select(keep, c.on_b, V3::splat(zero)),
        depth: L::select(keep, -dist, zero),
        feature_id: L::select(keep, L::splat(id_base) + c.feature, zero),
    };
    super::box_box::select_manifold(need, &r, &m)
}

#[cfg(test)]
mod tests {
    use crate::contact::box_box::{box_box, box_box_packs};
    use crate::contact::pipeline::BoxBox;
    use crate::contact::Manifold;
    use crate::pack::{LanePod, Pack};
    use std::cell::Cell;

    thread_local! {
        /// Calls of the exact closest pair on this thread.
        pub(super) static CLOSEST_RUNS: Cell<usize> = const { Cell::new(0) };
    }

    fn runs_of(f: impl FnOnce()) -> usize {
        let before = CLOSEST_RUNS.with(Cell::get);
        f();
        CLOSEST_RUNS.with(Cell::get) - before
    }

    fn packs<L: LanePod>(a: &[crate::Obb], b: &[crate::Obb]) {
        let (pa, pb) = (Pack::<crate::Obb, L>::new(a), Pack::<crate::Obb, L>::new(b));
        let mut out = vec![Manifold::<L>::empty(); pa.chunks().len()];
        box_box_packs(pa.chunks(), pb.chunks(), L::splat(0.05), &mut out);
    }

    /// A path runs for a whole pack, so lanes of other paths, separated
    /// lanes and a stage's stale lanes hold manifolds the caller discards;
    /// the exact closest pair must not run for them. On the bench's box–box
    /// pairs (most in contact) each run of it in packs must answer a lane
    /// the scalar tester runs it for: when it ran for discarded lanes, the
    /// x16 packs ran it 269 times per pass on these pairs (the packs took 5×
    /// as long) while the scalar tester ran it for none.
    #[test]
    fn packs_run_the_closest_pair_only_for_kept_lanes() {
        for seed in [55, 56, 57] {
            let (a, b) = crate::workload::contact_pairs::<BoxBox>(4096, 1.0, seed);
            let scalar = runs_of(|| {
                for (a, b) in a.iter().zip(&b) {
                    box_box(a, b, 0.05);
                }
            });
            let x8 = runs_of(|| packs::<wide::f32x8>(&a, &b));
            let x16 = runs_of(|| packs::<wide::f32x16>(&a, &b));
            assert!(
                x8 <= scalar && x16 <= scalar,
                "seed {seed}: scalar {scalar}, x8 {x8}, x16 {x16}"
            );
        }
    }
}
