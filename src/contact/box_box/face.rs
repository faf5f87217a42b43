//! Face contacts: reference and incident faces, clipping against the
//! reference side planes, and the reduction to 4 points.

use super::{pick3, pick3v, select_obb, sign};
use crate::contact::closest_pair::{keep_closest_pair, BOX_BOX_CLOSEST_ID_BASE};
use crate::contact::{ContactPoint, Manifold, MAX_CONTACTS};
use crate::simd::unroll::{from3, from4};
use crate::{Lane, LaneMask, Obb, V3};

/// One candidate point of the clipped face polygon, in the reference plane's
/// frame `(o, u, v, n)`: the point on the incident shape's surface is
/// `o + x·u + y·v - depth·n`. The 3D point is rebuilt only for the (at most
/// 4) candidates the reduction keeps: carrying it through every pass of
/// [`reduce4`] cost 3 more blends per candidate and pass, and computing it
/// for every candidate a multiply–add chain each.
#[derive(Clone, Copy)]
pub(in crate::contact) struct Candidate<L: Lane> {
    /// Reference-plane coordinates.
    pub x: L,
    pub y: L,
    /// Depth below the reference plane along its outward normal.
    pub depth: L,
    pub local_id: L,
    pub valid: L::Mask,
}

/// Interval of the parameter `t` for which `p + t·d` lies in `[-h, h]`, and the
/// reference sides (`neg_side` is the side at `-h`) where it enters and exits.
/// `inv = 1/d`: the crossings only need to be deterministic, not correctly
/// rounded, and callers share one division between opposite edges; a zero
/// `d` is handled by `parallel`.
#[inline(always)]
pub(in crate::contact) fn slab<L: Lane>(
    p: L,
    d: L,
    inv: L,
    h: L,
    pos_side: f32,
    neg_side: f32,
) -> (L, L, L, L) {
    let zero = L::splat(0.0);
    let inf = L::splat(f32::INFINITY);
    let ta = (-h - p) * inv;
    let tb = (h - p) * inv;
    let parallel = d.eq(zero);
    let inside = p.abs().le(h);
    let enter = L::select(parallel, L::select(inside, -inf, inf), ta.min(tb));
    let exit = L::select(parallel, L::select(inside, inf, -inf), ta.max(tb));
    // moving towards +h (d > 0) enters through the -h side and exits through +h
    let up = d.gt(zero);
    let (ps, ns) = (L::splat(pos_side), L::splat(neg_side));
    (enter, exit, L::select(up, ns, ps), L::select(up, ps, ns))
}

/// A face of a box used as the reference face: centre `c`, tangents `u`, `v`
/// (axes `k+1`, `k+2` of face axis `k`) with half extents `hu`, `hv`, and the
/// face number `2k + [outward normal along -axis k]`.
#[derive(Clone, Copy)]
pub(in crate::contact) struct RefFace<L: Lane> {
    pub c: V3<L>,
    pub u: V3<L>,
    pub v: V3<L>,
    pub hu: L,
    pub hv: L,
    pub face: L,
}

/// The face of `r` on axis `kr ∈ 0..3` whose outward normal points along `n`.
#[inline(always)]
pub(in crate::contact) fn ref_face<L: Lane>(r: &Obb<L>, kr: L, n: V3<L>) -> RefFace<L> {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let (k0, k1) = (kr.eq(zero), kr.eq(one));
    let hr = [r.half.x, r.half.y, r.half.z];
    let ax = pick3v(k0, k1, r.axes);
    let sr = sign(ax.dot(n));
    RefFace {
        c: r.center + ax * (sr * pick3(k0, k1, hr)),
        u: pick3v(k0, k1, [r.axes[1], r.axes[2], r.axes[0]]),
        v: pick3v(k0, k1, [r.axes[2], r.axes[0], r.axes[1]]),
        hu: pick3(k0, k1, [hr[1], hr[2], hr[0]]),
        hv: pick3(k0, k1, [hr[2], hr[0], hr[1]]),
        face: kr * L::splat(2.0) + L::select(sr.lt(zero), one, zero),
    }
}

/// The face of box `inc` most anti-parallel to `n` (lowest index on ties):
/// its vertices (counter-clockwise order `++, -+, --, +-` in its tangents),
/// centre, outward normal, tangents with half extents and face number
/// `2j + [negative]`; and the box's support vertex along `-n` with its id
/// `Σ 2^i·[negative along axis i]`.
#[derive(Clone, Copy)]
pub(in crate::contact) struct IncidentFace<L: Lane> {
    pub verts: [V3<L>; 4],
    pub c: V3<L>,
    pub n: V3<L>,
    pub a1: V3<L>,
    pub a2: V3<L>,
    pub h1: L,
    pub h2: L,
    pub face: L,
    pub support: V3<L>,
    pub support_id: L,
}

#[inline(always)]
pub(in crate::contact) fn incident_face<L: Lane>(inc: &Obb<L>, n: V3<L>) -> IncidentFace<L> {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let d = [inc.axes[0].dot(n), inc.axes[1].dot(n), inc.axes[2].dot(n)];
    let ad = [d[0].abs(), d[1].abs(), d[2].abs()];
    let j0 = ad[0].ge(ad[1]) & ad[0].ge(ad[2]);
    let j1 = !j0 & ad[1].ge(ad[2]);
    let hi = [inc.half.x, inc.half.y, inc.half.z];
    let aj = pick3v(j0, j1, inc.axes);
    let a1 = pick3v(j0, j1, [inc.axes[1], inc.axes[2], inc.axes[0]]);
    let a2 = pick3v(j0, j1, [inc.axes[2], inc.axes[0], inc.axes[1]]);
    let h1 = pick3(j0, j1, [hi[1], hi[2], hi[0]]);
    let h2 = pick3(j0, j1, [hi[2], hi[0], hi[1]]);
    let (e1, e2) = (a1 * h1, a2 * h2);
    let si = -sign(pick3(j0, j1, d));
    let n_i = aj * si;
    let c_i = inc.center + n_i * pick3(j0, j1, hi);
    let jf = pick3(j0, j1, [zero, one, L::splat(2.0)]);
    let s = [-sign(d[0]), -sign(d[1]), -sign(d[2])];
    let support = inc.center
        + inc.axes[0] * (s[0] * hi[0])
        + inc.axes[1] * (s[1] * hi[1])
        + inc.axes[2] * (s[2] * hi[2]);
    let bit = |x: L, w: f32| L::select(x.lt(zero), L::splat(w), zero);
    IncidentFace {
        verts: [c_i + e1 + e2, c_i - e1 + e2, c_i - e1 - e2, c_i + e1 - e2],
        c: c_i,
        n: n_i,
        a1,
        a2,
        h1,
        h2,
        face: jf * L::splat(2.0) + L::select(si.lt(zero), one, zero),
        support,
        support_id: bit(s[0], 1.0) + bit(s[1], 2.0) + bit(s[2], 4.0),
    }
}

/// An incident edge in reference-face coordinates: its start `[x, y,
/// depth]` (depth below the face along its outward normal), its direction
/// (the same three, end minus start) and the reciprocals of the direction's
/// `x` and `y`.
#[derive(Clone, Copy)]
pub(in crate::contact) struct FaceEdge<L: Lane> {
    pub start: [L; 3],
    pub dir: [L; 3],
    pub inv: [L; 2],
}

impl<L: Lane> FaceEdge<L> {
    /// The edge from `p0` to `p1` (each `[x, y, depth]`), with its own divisions.
    #[inline(always)]
    pub fn between(p0: [L; 3], p1: [L; 3]) -> Self {
        let dir = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
        let one = L::splat(1.0);
        FaceEdge { start: p0, dir, inv: [one / dir[0], one / dir[1]] }
    }
}

/// The part of the incident edge `e` inside the face rectangle `|x| <= hu,
/// |y| <= hv` of `f`, as two candidates: the entry point (id `k`, the vertex,
/// or `first_crossing + 4k + side` for a crossing of side `+u, -u, +v, -v`)
/// and the exit crossing. Coordinates and depth are affine along the edge,
/// so a crossing interpolates them at its parameter.
#[inline(always)]
pub(in crate::contact) fn clip_edge_rect<L: Lane>(
    f: &RefFace<L>,
    e: &FaceEdge<L>,
    k: usize,
    first_crossing: f32,
    neg_margin: L,
) -> [Candidate<L>; 2] {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let [x0, y0, _] = e.start;
    let [dx, dy, _] = e.dir;
    let (enx, exx, sex, sxx) = slab(x0, dx, e.inv[0], f.hu, 0.0, 1.0);
    let (eny, exy, sey, sxy) = slab(y0, dy, e.inv[1], f.hv, 2.0, 3.0);
    // t0 = max(0, enx, eny), t1 = min(1, exx, exy), each with its side;
    // strict comparisons so a vertex on the boundary keeps its vertex id.
    // Nested fns, not closures: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    #[inline(always)]
    fn replace<L: Lane>(take: L::Mask, (t, side): (L, L), best: (L, L)) -> (L, L) {
        (L::select(take, t, best.0), L::select(take, side, best.1))
    }
    let none = L::splat(-1.0);
    let (t0, s0) = replace(enx.gt(zero), (enx, sex), (zero, none));
    let (t0, s0) = replace(eny.gt(t0), (eny, sey), (t0, s0));
    let (t1, s1) = replace(exx.lt(one), (exx, sxx), (one, none));
    let (t1, s1) = replace(exy.lt(t1), (exy, sxy), (t1, s1));
    let nonempty = t0.le(t1);
    let kf = L::splat(k as f32);
    let crossing_base = first_crossing + 4.0 * k as f32;
    /// The point at parameter `t` of `e`, leaving through `side`.
    #[inline(always)]
    fn at<L: Lane>(
        e: &FaceEdge<L>,
        (t, side): (L, L),
        valid: L::Mask,
        kf: L,
        crossing_base: f32,
        neg_margin: L,
    ) -> Candidate<L> {
        let [x0, y0, d0] = e.start;
        let [dx, dy, dd] = e.dir;
        let depth = d0 + dd * t;
        Candidate {
            x: x0 + dx * t,
            y: y0 + dy * t,
            depth,
            local_id: L::select(side.lt(L::splat(0.0)), kf, L::splat(crossing_base) + side),
            valid: valid & depth.ge(neg_margin),
        }
    }
    [
        at(
            e,
            (t0, s0),
            nonempty & <L::Mask as LaneMask>::splat(true),
            kf,
            crossing_base,
            neg_margin,
        ),
        at(e, (t1, s1), nonempty & t1.lt(one), kf, crossing_base, neg_margin),
    ]
}

/// Manifold for a face axis `axis ∈ 0..6` (lanes on other axes give garbage
/// that the caller discards).
#[inline(always)]
pub(super) fn face_manifold<L: Lane>(
    a: &Obb<L>,
    b: &Obb<L>,
    axis: L,
    normal: V3<L>,
    margin: L,
    need: L::Mask,
) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let ref_is_a = axis.lt(L::splat(3.0));
    let r = select_obb(ref_is_a, a, b);
    let inc = select_obb(ref_is_a, b, a);
    // Outward normal of the reference face, towards the incident box.
    let n = V3::select(ref_is_a, normal, -normal);
    let kr = L::select(ref_is_a, axis, axis - L::splat(3.0));
    // Reference face: axis kr, tangents u = axes[kr+1], v = axes[kr+2].
    let f = ref_face(&r, kr, n);
    let (c_r, u, v, hu, hv) = (f.c, f.u, f.v, f.hu, f.hv);
    // Incident face: the face of `inc` most anti-parallel to n.
    let inc_f = incident_face(&inc, n);
    let (n_i, c_i) = (inc_f.n, inc_f.c);
    let ref_face = L::select(ref_is_a, zero, L::splat(6.0)) + f.face;
    let id_base = (ref_face * L::splat(6.0) + inc_f.face) * L::splat(32.0);

    let neg_margin = -margin;
    let rel = |p: V3<L>| p - c_r;
    let rc = c_i - c_r;

    // Candidates 0..8: per incident edge k, the entry point (vertex k or a
    // crossing) and the exit crossing. Vertex k is `c_i + s1·e1 + s2·e2`
    // with `(s1, s2) = (+,+), (-,+), (-,-), (+,-)`, so its reference
    // coordinates `[x, y, depth]` are those of `c_i` plus or minus those of
    // `e1`, `e2` (9 dot products for the 4 vertices), and the edges run along
    // `-2e1, -2e2, +2e1, +2e2`: opposite edges share their divisions.
    let (e1, e2) = (inc_f.a1 * inc_f.h1, inc_f.a2 * inc_f.h2);
    // Nested fns and written-out arrays, not closures: a closure is compiled
    // without the dispatched entry's target features unless LLVM happens to
    // inline it (`crate::simd`).
    #[inline(always)]
    fn frame<L: Lane>(p: V3<L>, u: V3<L>, v: V3<L>, n: V3<L>) -> [L; 3] {
        [p.dot(u), p.dot(v), -(p.dot(n))]
    }
    let (g0, g1, g2) = (frame(rc, u, v, n), frame(e1, u, v, n), frame(e2, u, v, n));
    let plus1: [L; 3] = from3!(|i| g0[i] + g1[i]);
    let minus1: [L; 3] = from3!(|i| g0[i] - g1[i]);
    #[inline(always)]
    fn vert<L: Lane>(h: &[L; 3], g2: &[L; 3], s2: bool) -> [L; 3] {
        from3!(|i| if s2 { h[i] + g2[i] } else { h[i] - g2[i] })
    }
    let two = L::splat(2.0);
    let (d1, d2): ([L; 3], [L; 3]) = (from3!(|i| g1[i] * two), from3!(|i| g2[i] * two));
    let (i1, i2) = ([one / d1[0], one / d1[1]], [one / d2[0], one / d2[1]]);
    #[inline(always)]
    fn neg<L: Lane>(d: [L; 3]) -> [L; 3] {
        [-d[0], -d[1], -d[2]]
    }
    let edges = [
        FaceEdge { start: vert(&plus1, &g2, true), dir: neg(d1), inv: [-i1[0], -i1[1]] },
        FaceEdge { start: vert(&minus1, &g2, true), dir: neg(d2), inv: [-i2[0], -i2[1]] },
        FaceEdge { start: vert(&minus1, &g2, false), dir: d1, inv: i1 },
        FaceEdge { start: vert(&plus1, &g2, false), dir: d2, inv: i2 },
    ];
    let no = <L::Mask as LaneMask>::splat(false);
    // Four direct calls, not a closure: the closure was not inlined and
    // returned its 2 candidates through `memcpy` (callgrind: ~6 % of the
    // resting tier's instructions).
    let e0 = clip_edge_rect(&f, &edges[0], 0, 4.0, neg_margin);
    let e1 = clip_edge_rect(&f, &edges[1], 1, 4.0, neg_margin);
    let e2 = clip_edge_rect(&f, &edges[2], 2, 4.0, neg_margin);
    let e3 = clip_edge_rect(&f, &edges[3], 3, 4.0, neg_margin);
    // Candidates 8..12: reference corners `q = c_r + su·hu·u + sv·hv·v`
    // inside the incident face, projected along n: depth `(q - c_i)·n_i /
    // (n·n_i)` to the incident face plane, and the inside test in the
    // incident face's own frame (robust for zero extents, where a 2D winding
    // test of the projected quad would be degenerate). Both are linear in
    // `(su, sv)` again: 11 dot products for the 4 corners.
    // n·n_i < 0: the incident face is the most anti-parallel (|cos| >= 1/sqrt(3))
    let inv_cos = one / n.dot(n_i);
    let (a1, a2) = (inc_f.a1, inc_f.a2);
    #[inline(always)]
    fn inc_frame<L: Lane>(p: V3<L>, n_i: V3<L>, a1: V3<L>, a2: V3<L>) -> [L; 3] {
        [p.dot(n_i), p.dot(a1), p.dot(a2)]
    }
    let (q0, qu, qv) = (
        inc_frame(-rc, n_i, a1, a2),
        inc_frame(u * hu, n_i, a1, a2),
        inc_frame(v * hv, n_i, a1, a2),
    );
    let (n1, n2) = (n.dot(a1), n.dot(a2));
    let qplus: [L; 3] = from3!(|i| q0[i] + qu[i]);
    let qminus: [L; 3] = from3!(|i| q0[i] - qu[i]);
    // Corner m at signs (su, sv) = (+,+), (-,+), (-,-), (+,-).
    let corners: [Candidate<L>; 4] = from4!(|m| {
        let (su, sv) = [(true, true), (false, true), (false, false), (true, false)][m];
        let h = if su { &qplus } else { &qminus };
        let w: [L; 3] = from3!(|i| if sv { h[i] + qv[i] } else { h[i] - qv[i] });
        let depth = w[0] * inv_cos;
        // the projected point q - n·depth in the incident face's frame
        let (wx, wy) = (w[1] - depth * n1, w[2] - depth * n2);
        let inside = wx.abs().le(inc_f.h1) & wy.abs().le(inc_f.h2);
        Candidate {
            x: if su { hu } else { -hu },
            y: if sv { hv } else { -hv },
            depth,
            local_id: L::splat(20.0 + m as f32),
            valid: inside & depth.ge(neg_margin),
        }
    });
    let cand = [
        e0[0], e0[1], e1[0], e1[1], e2[0], e2[1], e3[0], e3[1], corners[0], corners[1], corners[2],
        corners[3],
    ];
    let mut chosen = reduce4(&cand);
    // The incident box's support vertex along -n: its depth is the SAT depth
    // along n (checked against the deepest point by `keep_closest_pair`), and
    // it is the only point of a lane
    // whose clipping left nothing (its depth is the SAT depth). Patched in
    // only when some lane of `need` has no candidate (rare: speculative rim
    // pairs), so it is not a 13th candidate in every reduction pass.
    let mut any = no;
    for c in &cand {
        any = any | c.valid;
    }
    let sv = inc_f.support;
    let sv_depth = -(rel(sv).dot(n));
    if need.and_not(any).any() {
        let (svx, svy) = (rel(sv).dot(u), rel(sv).dot(v));
        // When B is the reference box, the reported point must lie on B: clamp
        // the vertex's projection into the reference face (the pair is then not
        // a true face contact; the depth stays the SAT depth, a lower bound of
        // the gap).
        let x = L::select(ref_is_a, svx, svx.max(-hu).min(hu));
        let y = L::select(ref_is_a, svy, svy.max(-hv).min(hv));
        // where `!any`, the reduction chose nothing: slot 0 takes the vertex
        let c0 = &mut chosen[0];
        c0.x = L::select(!any, x, c0.x);
        c0.y = L::select(!any, y, c0.y);
        c0.depth = L::select(!any, sv_depth, c0.depth);
        c0.local_id = L::select(!any, L::splat(24.0) + inc_f.support_id, c0.local_id);
        c0.valid = c0.valid | !any;
    }
    // the point on B: the incident point itself when A is the reference box,
    // else its projection on the reference face
    let on_b = FacePoint { origin: c_r, u, v, n, below: ref_is_a };
    let m = manifold_of_chosen(&chosen, normal, id_base, &on_b);
    keep_closest_pair(m, a, sv_depth, margin, BOX_BOX_CLOSEST_ID_BASE, b, need)
}

/// The reported position (a point on B) of a contact candidate: what
/// [`manifold_of`] writes for each chosen candidate. A trait, not a closure
/// argument: a closure is compiled without the dispatched entry's target
/// features unless LLVM happens to inline it (`crate::simd`).
pub(in crate::contact) trait PointOnB<L: Lane> {
    /// The position of candidate `c`.
    fn on_b(&self, c: &Candidate<L>) -> V3<L>;
}

/// Candidates in the frame `(origin, u, v)` of a face with outward normal
/// `n`: the point `origin + u·x + v·y`, moved by `depth` against `n` in the
/// lanes of `below` (it is then on the other face).
pub(in crate::contact) struct FacePoint<L: Lane> {
    pub origin: V3<L>,
    pub u: V3<L>,
    pub v: V3<L>,
    pub n: V3<L>,
    pub below: L::Mask,
}

impl<L: Lane> PointOnB<L> for FacePoint<L> {
    #[inline(always)]
    fn on_b(&self, c: &Candidate<L>) -> V3<L> {
        let on_face = self.origin + self.u * c.x + self.v * c.y;
        V3::select(self.below, on_face - self.n * c.depth, on_face)
    }
}

/// The manifold of the candidates reduced to at most 4 (see [`reduce4`]),
/// with `on_b.on_b(c)` the reported position of candidate `c` (a point on B)
/// and ids `id_base + local_id`.
#[inline(always)]
pub(in crate::contact) fn manifold_of<L: Lane, const N: usize>(
    cand: &[Candidate<L>; N],
    normal: V3<L>,
    id_base: L,
    on_b: &impl PointOnB<L>,
) -> Manifold<L> {
    manifold_of_chosen(&reduce4(cand), normal, id_base, on_b)
}

/// The manifold of the chosen candidates (valid ones packed to the front).
#[inline(always)]
fn manifold_of_chosen<L: Lane>(
    chosen: &[Candidate<L>; MAX_CONTACTS],
    normal: V3<L>,
    id_base: L,
    on_b: &impl PointOnB<L>,
) -> Manifold<L> {
    let zero = L::splat(0.0);
    #[inline(always)]
    fn count_of<L: Lane>(c: &Candidate<L>) -> L {
        L::select(c.valid, L::splat(1.0), L::splat(0.0))
    }
    Manifold {
        normal,
        count: count_of(&chosen[0])
            + count_of(&chosen[1])
            + count_of(&chosen[2])
            + count_of(&chosen[3]),
        points: from4!(|k| {
            let c = &chosen[k];
            ContactPoint {
                position: V3::select(c.valid, on_b.on_b(c), V3::splat(zero)),
                depth: L::select(c.valid, c.depth, zero),
                feature_id: L::select(c.valid, id_base + c.local_id, zero),
            }
        }),
    }
}

/// Reduces the candidates to at most 4, packed to the front (Jolt's
/// `PruneContactPoints`): the deepest; the farthest from it; the largest
/// positive and the largest negative triangle area with those two. Ties go
/// to the lowest candidate index, so the choice is deterministic.
#[inline(always)]
pub(in crate::contact) fn reduce4<L: Lane, const N: usize>(
    cand: &[Candidate<L>; N],
) -> [Candidate<L>; MAX_CONTACTS] {
    let zero = L::splat(0.0);
    let neg_inf = L::splat(f32::NEG_INFINITY);
    let no = <L::Mask as LaneMask>::splat(false);
    // Each pass carries its chosen candidate (4 blends per candidate and
    // pass): cheaper than carrying an index and gathering the 4 points at the
    // end (4 gathers of a compare and 4 blends per candidate), same choice.
    // A candidate valid in no lane is never chosen, so the passes skip it
    // (resting packs often have no corner or exit crossing at all).
    // An invalid candidate's depth is -inf and its x NaN, so every comparison
    // below is false for it without a `valid &` in each pass (valid depths
    // are >= -margin, finite; NaN propagates into distances and areas).
    // (A loop, not `array::from_fn`: see `crate::simd::unroll`.)
    let (mut active, mut depth, mut xs) = ([false; N], [neg_inf; N], [zero; N]);
    for (k, c) in cand.iter().enumerate() {
        active[k] = c.valid.any();
        depth[k] = L::select(c.valid, c.depth, neg_inf);
        xs[k] = L::select(c.valid, c.x, L::splat(f32::NAN));
    }
    let empty = Candidate { x: zero, y: zero, depth: zero, local_id: zero, valid: no };
    // deepest (lowest index on ties): `p0.depth` is the best depth so far
    let mut p0 = Candidate { depth: neg_inf, ..empty };
    for k in 0..N {
        if active[k] {
            take(depth[k].gt(p0.depth), &cand[k], &mut p0);
        }
    }
    p0.valid = p0.depth.gt(neg_inf);
    // without p0 (no valid candidate) its coordinates are 0
    let (x0, y0) = (p0.x, p0.y);
    // farthest from p0 (distance > 0)
    let mut p1 = empty;
    let mut best = zero;
    for k in 0..N {
        if active[k] {
            let (dx, dy) = (xs[k] - x0, cand[k].y - y0);
            let d2 = dx * dx + dy * dy;
            let m = d2.gt(best);
            best = L::select(m, d2, best);
            take(m, &cand[k], &mut p1);
        }
    }
    p1.valid = best.gt(zero);
    // largest areas on either side of p0→p1 (none when there is no p1: the
    // valid candidates then all lie at p0 and their areas are zero)
    let (ex, ey) = (p1.x - x0, p1.y - y0);
    let (mut p2, mut p3) = (empty, empty);
    let (mut best_pos, mut best_neg) = (zero, zero);
    for k in 0..N {
        if active[k] {
            let area = ex * (cand[k].y - y0) - ey * (xs[k] - x0);
            let m = area.gt(best_pos);
            best_pos = L::select(m, area, best_pos);
            take(m, &cand[k], &mut p2);
            let m = area.lt(best_neg);
            best_neg = L::select(m, area, best_neg);
            take(m, &cand[k], &mut p3);
        }
    }
    p2.valid = best_pos.gt(zero);
    p3.valid = best_neg.lt(zero);
    // pack: p3 moves into slot 2 when there is no p2
    let has2 = p2.valid;
    let mut slot2 = p3;
    take(has2, &p2, &mut slot2);
    slot2.valid = has2 | p3.valid;
    let mut slot3 = p3;
    slot3.valid = p3.valid & has2;
    [p0, p1, slot2, slot3]
}

/// `if m { *cur = *c }` per lane on the fields the manifold reports (`valid`
/// is set by the caller).
#[inline(always)]
fn take<L: Lane>(m: L::Mask, c: &Candidate<L>, cur: &mut Candidate<L>) {
    cur.x = L::select(m, c.x, cur.x);
    cur.y = L::select(m, c.y, cur.y);
    cur.depth = L::select(m, c.depth, cur.depth);
    cur.local_id = L::select(m, c.local_id, cur.local_id);
}
