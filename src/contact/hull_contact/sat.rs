//! The hull–polytope SAT: face and edge queries, the axis choice, and the
//! exact closest pair of the speculative fallback.

use super::assembly::{finish, id, Cand};
use super::box_edges::{box_edge_query, BestEdge, NO_EDGE};
use super::clip::{clip_faces, inside_polygon, Reference};
use super::polytope::{Polytope, Relative};
use super::PlacedHull;
use crate::contact::box_box::FACE_AXIS_ABS_TOL;
use crate::contact::hull::{ArcRows, ConvexHull, HULL_MAX_VERTICES};
use crate::contact::Manifold;
use crate::lane::LANE_INDEX;
use crate::math::{Vec3, V3};
use crate::overlap::OBB_EDGE_AXIS_BIAS;
use crate::simd::{self, Simd, SimdFn};
use crate::{Lane, LaneMask};

/// Per-pair data of B in A's frame (vertices, face normals), computed once.
pub(super) struct Posed<'p, B: Polytope> {
    pub(super) poly: &'p B,
    pub(super) rel: Relative,
}

impl<B: Polytope> Posed<'_, B> {
    #[inline]
    pub(super) fn vertex(&self, i: usize) -> Vec3 {
        self.rel.point(self.poly.vertex(i))
    }
    #[inline]
    pub(super) fn normal(&self, f: usize) -> Vec3 {
        self.rel.dir(self.poly.normal(f))
    }
    /// Plane offset of face `f` in A's frame.
    #[inline]
    pub(super) fn offset(&self, f: usize) -> f32 {
        self.poly.offset(f) + self.normal(f).dot(self.rel.t)
    }
    /// Largest `dir · v` over B's vertices, `dir` in A's frame.
    #[inline]
    pub(super) fn support(&self, dir: Vec3) -> (usize, f32) {
        let (i, s) = self.poly.support(self.rel.dir_inv(dir));
        (i, s + dir.dot(self.rel.t))
    }
}

/// Closest points of segments `p1 q1` and `p2 q2`: `(s, t, clamped)`.
pub(super) fn closest_params(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (f32, f32) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    if a <= 0.0 && e <= 0.0 {
        return (0.0, 0.0);
    }
    if a <= 0.0 {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= 0.0 {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// The SAT and manifold of hull A against polytope B posed by `rel`. The
/// support and edge-pair loops run `L::WIDTH` lanes at a time (the same
/// decisions at every width); `#[inline(always)]` so that the dispatched
/// entry of `super::polytope_pair` compiles them with its instructions.
#[inline(always)]
pub(super) fn hull_polytope<L: Lane, B: Polytope>(
    a: &PlacedHull,
    b: &B,
    rel: Relative,
    margin: f32,
) -> Manifold {
    let ha = a.hull;
    let pb = Posed { poly: b, rel };
    // 1. face queries, L::WIDTH faces at a time (each lane the same
    // products and sums as a single face's query)
    let rel = &pb.rel;
    let mut scan_a = FaceScan::<L>::new(ha.face_count());
    let mut f0 = 0;
    while f0 < ha.face_count() {
        // A's faces f0.. against B's support along -n, in B's frame
        let (n, offset) = ha.plane_lanes::<L>(f0);
        let dir = -n;
        let dir_b = V3::new(
            dir.dot(splat3(rel.cols[0])),
            dir.dot(splat3(rel.cols[1])),
            dir.dot(splat3(rel.cols[2])),
        );
        let sep = -(b.support_lanes::<L>(dir_b) + dir.dot(splat3(rel.t))) - offset;
        // a separating axis beyond the margin settles the pair (and the
        // result, empty, does not depend on which axis was found first)
        if !scan_a.add(sep, f0, margin) {
            return Manifold::EMPTY;
        }
        f0 += L::WIDTH;
    }
    let best_a = scan_a.best();
    let b_faces = if B::ONE_SIDED { 1 } else { b.face_count() };
    let mut scan_b = FaceScan::<L>::new(b_faces);
    let mut g0 = 0;
    while g0 < b_faces {
        // B's faces g0.. moved into A's frame, against A's support along -m
        let (n, offset) = b.plane_lanes::<L>(g0);
        let [c0, c1, c2] = rel.cols;
        let m = V3::new(
            L::splat(c0.x) * n.x + L::splat(c1.x) * n.y + L::splat(c2.x) * n.z,
            L::splat(c0.y) * n.x + L::splat(c1.y) * n.y + L::splat(c2.y) * n.z,
            L::splat(c0.z) * n.x + L::splat(c1.z) * n.y + L::splat(c2.z) * n.z,
        );
        let sep = -ha.support_lanes::<L>(-m) - (offset + m.dot(splat3(rel.t)));
        if !scan_b.add(sep, g0, margin) {
            return Manifold::EMPTY;
        }
        g0 += L::WIDTH;
    }
    let best_b = scan_b.best();
    let scale = ha.bounding_radius() + b.radius();
    let allowance = |sep: f32| OBB_EDGE_AXIS_BIAS * sep.abs() + FACE_AXIS_ABS_TOL * scale;
    // the preferred reference keeps the axis unless the other beats it
    let face_b = if B::ONE_SIDED {
        !(best_a.1 > best_b.1 + allowance(best_b.1))
    } else {
        best_b.1 > best_a.1 + allowance(best_a.1)
    };
    let best_face = if face_b { best_b.1 } else { best_a.1 };
    // 2. edge queries
    let best_e = if let Some(half) = b.box_half() {
        // a box: A's edges against its three axes, no culls needed
        box_edge_query::<L>(ha, &pb.rel, half)
    } else {
        // culled by bounding spheres, slabs and cones
        let reach = margin.max(-best_face) + FACE_AXIS_ABS_TOL * scale;
        general_edge_query::<L, B>(ha, &pb, (best_a, best_b, best_face), margin, reach, scale)
    };
    if best_e.2 > margin {
        return Manifold::EMPTY;
    }
    let has_edge = best_e.0 != usize::MAX;
    let preferred = if has_edge && best_e.2 > best_face + allowance(best_face) {
        Axis::Edge
    } else if face_b {
        Axis::FaceB
    } else {
        Axis::FaceA
    };
    // the unbiased least-overlap axis, tried when the preferred one's
    // manifold cannot reach its SAT depth
    let mut exact = if best_b.1 > best_a.1 { Axis::FaceB } else { Axis::FaceA };
    if has_edge && best_e.2 > best_a.1.max(best_b.1) {
        exact = Axis::Edge;
    }
    let sep_of = |ax: Axis| match ax {
        Axis::FaceA => best_a.1,
        Axis::FaceB => best_b.1,
        Axis::Edge => best_e.2,
    };
    let tol = DEPTH_REACH_TOL * (pb.rel.t.abs().max_element() + scale);
    let build = |ax: Axis| match ax {
        Axis::Edge => edge_contact(a, ha, &pb, best_e.0, best_e.1, best_e.3, best_e.2 > 0.0),
        Axis::FaceB => face_contact_b(a, ha, &pb, best_b.0, margin, best_b.1 + tol),
        Axis::FaceA => face_contact_a(a, ha, &pb, best_a.0, margin, best_a.1 + tol),
    };
    let reaches = |m: &Manifold, sep: f32| m.max_depth().is_some_and(|d| d >= -sep - tol);
    let m = build(preferred);
    if reaches(&m, sep_of(preferred)) {
        return m;
    }
    if exact != preferred {
        let m2 = build(exact);
        if reaches(&m2, sep_of(exact)) {
            return m2;
        }
    }
    // 5. speculative: the deepest point must reach the SAT depth
    if sep_of(exact) > 0.0 {
        return closest_pair(a, ha, &pb, margin);
    }
    if B::ONE_SIDED && m.count == 0.0 {
        // a clamped edge witness (see `Polytope::ONE_SIDED`)
        return build(Axis::FaceB);
    }
    m
}

/// The edge queries of hull A against a hull or a triangle: both shapes'
/// edges culled (see `near_edges` and the module docs), B's surviving arcs
/// in blocks of lanes tested against each of A's surviving edges (Gregorius's
/// Minkowski-face test), the best pair's separation and axis.
#[inline(always)]
pub(super) fn general_edge_query<L: Lane, B: Polytope>(
    ha: &ConvexHull,
    pb: &Posed<B>,
    (best_a, best_b, best_face): ((usize, f32), (usize, f32), f32),
    margin: f32,
    reach: f32,
    scale: f32,
) -> BestEdge {
    let (b, rel) = (pb.poly, &pb.rel);
    let cb = pb.rel.point(b.centroid());
    let ca = ha.centroid();
    let mut best_e = NO_EDGE;
    let a_edges = ha.edges();
    let b_edges = b.edges();
    // A's best face plane (f*) and B's (g*, in A's frame): an edge whose
    // witness point is within `reach` of the other shape is at most `reach`
    // above that shape's face planes, so edges entirely farther above the
    // other's best plane are culled (a thin slab for resting contacts).
    let (na_best, da_best) = (ha.face_normal(best_a.0), ha.face_offset(best_a.0));
    let (nb_best, db_best) = (pb.normal(best_b.0), pb.offset(best_b.0));
    // the cone cull of `near_edges`: an edge pair whose axis separates by
    // at most `-cone` is below every face axis's separation (by more than
    // rounding), so it can be neither the edge axis chosen nor the exact one
    // (run when the pair penetrates deeper than the margin: in a resting
    // contact the slab test above culls as much, and the cone test's two
    // dot products per lane cost more than it saves)
    let cone = (-best_face > margin && cone_cull_on()).then_some(reach + FACE_AXIS_ABS_TOL * scale);
    // a second point of each shape for the cone test: its vertex farthest
    // towards the other's centroid, deeper in the other shape than its own
    // centroid when they overlap deeply (unused without the cone test)
    let (deep_b, deep_a) = if cone.is_some() {
        let vb = pb.vertex(pb.support(ca - cb).0);
        let va = ha.vertices()[ha.support(cb - ca).0];
        (vb, rel.dir_inv(va - rel.t))
    } else {
        (Vec3::ZERO, Vec3::ZERO)
    };
    // the loops run here, not in a closure of `EDGES.with` (a closure is a
    // function of its own, compiled without the dispatched entry's features
    // unless inlined)
    let mut soa = EDGES.with(|cell| cell.take());
    let mut scratch = std::mem::take(&mut soa.scratch);
    'edges: {
        soa.clear();
        // B's arcs whose edges are near A (culled in B's frame against A's
        // best plane and centroid moved there once), copied into compact
        // blocks of lanes; the Gauss-map tests run in B's frame
        let b_arcs = b.arc_rows(&mut scratch);
        let plane_in_b = (rel.dir_inv(na_best), da_best - na_best.dot(rel.t));
        let ca_in_b = rel.dir_inv(ca - rel.t);
        let mut j0 = 0;
        while j0 < b_arcs.count {
            let r = ha.bounding_radius() + reach;
            let mut bits =
                near_edges::<L>(b_arcs, j0, plane_in_b, reach, (ca_in_b, deep_a), r, cone);
            while bits != 0 {
                soa.push::<L>(b_arcs, j0 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
            j0 += L::WIDTH;
        }
        if soa.len == 0 {
            break 'edges;
        }
        // A's edges near B (culled in A's frame), their arcs and midpoints
        // moved into B's frame
        let a_arcs = ha.arc_rows();
        let mut k0 = 0;
        while k0 < a_arcs.count {
            let mut bits = near_edges::<L>(
                a_arcs,
                k0,
                (nb_best, db_best),
                reach,
                (cb, deep_b),
                b.radius() + reach,
                cone,
            );
            while bits != 0 {
                let ka = k0 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let e = a_edges[ka];
                let (p, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
                let (n0, n1) =
                    (ha.face_normal(e.faces[0] as usize), ha.face_normal(e.faces[1] as usize));
                soa.a_edges.push(EdgeOfA {
                    ka,
                    arc: [rel.dir_inv(n0), rel.dir_inv(n1)],
                    bxa: rel.dir_inv(ha.edge_cross(ka)),
                    mid: rel.dir_inv((p + q) * 0.5 - rel.t),
                    radius: a_arcs.half_length(ka) + reach,
                    p,
                    dir: q - p,
                });
            }
            k0 += L::WIDTH;
        }
        // a block of B's arcs stays in registers while A's edges are
        // broadcast against it. The winner is the largest separation, ties
        // to the least `(e_A, e_B)`, so the visiting order (which depends on
        // the width) cannot change it.
        for g in 0..soa.len.div_ceil(L::WIDTH) {
            let block = soa.block::<L>(g);
            for ea in &soa.a_edges {
                let mut bits = block.candidates(ea);
                while bits != 0 {
                    let j = g * L::WIDTH + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let kb = soa.edges[j] as usize;
                    let e = b_edges[kb];
                    let (bp, bq) = (pb.vertex(e.a as usize), pb.vertex(e.b as usize));
                    let eb = bq - bp;
                    let l = ea.dir.cross(eb);
                    let len = l.length();
                    // parallel edges: their axis is a face normal's
                    if !(len > 1e-5 * ea.dir.length() * eb.length()) {
                        continue;
                    }
                    let mut l = l / len;
                    if l.dot(ea.p - ca) < 0.0 {
                        l = -l;
                    }
                    let sep = l.dot(bp - ea.p);
                    let tie = sep == best_e.2 && (ea.ka, kb) < (best_e.0, best_e.1);
                    if sep > best_e.2 || (tie && best_e.0 != usize::MAX) {
                        best_e = (ea.ka, kb, sep, l);
                    }
                }
            }
        }
    }
    soa.scratch = scratch;
    EDGES.with(|cell| cell.replace(soa));
    best_e
}

/// Every lane of `v`.
#[inline(always)]
pub(super) fn splat3<L: Lane>(v: Vec3) -> V3<L> {
    V3::new(L::splat(v.x), L::splat(v.y), L::splat(v.z))
}

/// The face queries' fold: the largest separation and its face, the
/// lowest index on ties; a separation beyond the margin, or NaN, ends the
/// pair (no contact, whichever face found it). Faces filling one block of
/// lanes are scanned lane by lane; more are folded in lanes (each lane
/// keeps its own best and its first face reaching it, so the fold over the
/// lanes at the end, largest then lowest index, is the scan's answer at
/// every width) and scanned once at the end.
pub(super) struct FaceScan<L: Lane> {
    count: usize,
    best: (usize, f32),
    lanes: L,
    index: L,
}

impl<L: Lane> FaceScan<L> {
    #[inline(always)]
    pub(super) fn new(count: usize) -> Self {
        let lanes = L::splat(f32::NEG_INFINITY);
        FaceScan { count, best: (usize::MAX, f32::NEG_INFINITY), lanes, index: L::splat(0.0) }
    }

    /// Folds the separations of faces `f0..f0 + L::WIDTH` (lanes past the
    /// count ignored); false when one exceeds the margin or is NaN.
    #[inline(always)]
    pub(super) fn add(&mut self, sep: L, f0: usize, margin: f32) -> bool {
        if self.count <= L::WIDTH {
            return scan_faces(sep, f0, self.count, margin, &mut self.best);
        }
        let index = L::load(&LANE_INDEX) + L::splat(f0 as f32);
        let valid = index.lt(L::splat(self.count as f32));
        if valid.and_not(sep.le(L::splat(margin))).any() {
            return false;
        }
        let better = sep.gt(self.lanes) & valid;
        self.lanes = L::select(better, sep, self.lanes);
        self.index = L::select(better, index, self.index);
        true
    }

    /// The best face and its separation (`usize::MAX` and `-∞` when no
    /// separation exceeded `-∞`).
    #[inline(always)]
    pub(super) fn best(&self) -> (usize, f32) {
        if self.count <= L::WIDTH {
            return self.best;
        }
        let (mut sep, mut index) = ([0.0f32; 16], [0.0f32; 16]);
        self.lanes.store(&mut sep);
        self.index.store(&mut index);
        let mut best = (usize::MAX, f32::NEG_INFINITY);
        for (&s, &i) in sep[..L::WIDTH].iter().zip(&index[..L::WIDTH]) {
            if s > best.1 || (s == best.1 && s > f32::NEG_INFINITY && (i as usize) < best.0) {
                best = (i as usize, s);
            }
        }
        best
    }
}

/// Folds the separations of faces `f0..` (lanes past `count` ignored) into
/// `best` (the largest, the lowest index on ties); false when one exceeds
/// the margin or is NaN (the pair has no contact).
#[inline(always)]
fn scan_faces<L: Lane>(
    sep: L,
    f0: usize,
    count: usize,
    margin: f32,
    best: &mut (usize, f32),
) -> bool {
    let mut lanes = [0.0f32; 16];
    sep.store(&mut lanes);
    for (i, &s) in lanes[..L::WIDTH.min(count - f0)].iter().enumerate() {
        if !(s <= margin) {
            return false;
        }
        if s > best.1 {
            *best = (f0 + i, s);
        }
    }
    true
}

/// Scratch of the edge queries: B's arcs that passed their culls, copied
/// from its [`ArcRows`] into blocks of `L::WIDTH` lanes (structure of
/// arrays within a block: `BLOCK_ROWS` rows `c, d, d × c, mid` (3 each)
/// and `|h|`, padding lanes zero); A's edges that passed theirs; and B's
/// `ArcRows` when B is not a hull (a hull keeps its own).
#[derive(Default)]
pub(super) struct EdgeSoa {
    pub(super) blocks: Vec<f32>,
    /// B's edge of each copied arc.
    pub(super) edges: Vec<u8>,
    pub(super) len: usize,
    pub(super) a_edges: Vec<EdgeOfA>,
    pub(super) scratch: ArcRows,
}

/// Rows of an [`EdgeSoa`] block: `ArcRows::C..ArcRows::MID + 3`, then
/// `ArcRows::HALF`.
const BLOCK_ROWS: usize = 13;

impl EdgeSoa {
    pub(super) fn clear(&mut self) {
        self.blocks.clear();
        self.edges.clear();
        self.len = 0;
        self.a_edges.clear();
    }

    /// Copies arc `j` of `arcs` into the next lane.
    #[inline(always)]
    pub(super) fn push<L: Lane>(&mut self, arcs: &ArcRows, j: usize) {
        let (block, lane) = (self.len / L::WIDTH, self.len % L::WIDTH);
        let base = block * BLOCK_ROWS * L::WIDTH;
        if lane == 0 {
            self.blocks.resize(base + BLOCK_ROWS * L::WIDTH, 0.0);
        }
        let rows = &mut self.blocks[base..base + BLOCK_ROWS * L::WIDTH];
        for r in 0..BLOCK_ROWS - 1 {
            rows[r * L::WIDTH + lane] = arcs.row(ArcRows::C + r, j)[0];
        }
        rows[(BLOCK_ROWS - 1) * L::WIDTH + lane] = arcs.half_length(j);
        self.edges.push(arcs.edges[j]);
        self.len += 1;
    }

    /// Block `g` in lanes.
    #[inline(always)]
    pub(super) fn block<L: Lane>(&self, g: usize) -> EdgeBlock<L> {
        // a nested fn, not a closure: see `hull_polytope`
        #[inline(always)]
        fn v3<L: Lane>(rows: &[f32], k: usize) -> V3<L> {
            let w = L::WIDTH;
            V3::new(
                L::load(&rows[3 * k * w..]),
                L::load(&rows[(3 * k + 1) * w..]),
                L::load(&rows[(3 * k + 2) * w..]),
            )
        }
        let w = L::WIDTH;
        let rows = &self.blocks[g * BLOCK_ROWS * w..(g + 1) * BLOCK_ROWS * w];
        EdgeBlock {
            c: v3(rows, 0),
            d: v3(rows, 1),
            dxc: v3(rows, 2),
            mid: v3(rows, 3),
            half: L::load(&rows[(BLOCK_ROWS - 1) * w..]),
        }
    }
}

/// One of A's edges in the edge queries: its index; Gauss arc (face
/// normals `arc[0] → arc[1]`, their cross `bxa`) and midpoint in B's frame;
/// half length + reach; start and direction in A's frame.
pub(super) struct EdgeOfA {
    pub(super) ka: usize,
    pub(super) arc: [Vec3; 2],
    pub(super) bxa: Vec3,
    pub(super) mid: Vec3,
    pub(super) radius: f32,
    pub(super) p: Vec3,
    pub(super) dir: Vec3,
}

/// Bits of the arcs `k..k + L::WIDTH` of `arcs` whose edge may hold the
/// winning edge pair (see `hull_polytope`): not entirely more than `reach`
/// above the plane `n·x = d` (the other shape's best face), within
/// `radius` (the other shape's bounding radius plus `reach`) of its centre
/// `c`, and (when `cone` is given) not culled by the **cone test**: `c`
/// or `c2` (two points of the other shape: its centroid, and its vertex
/// farthest towards this shape's centroid) more than `cone` below both
/// face planes of the edge. Padding lanes are clear.
///
/// Why the cone test keeps every edge that can win: an axis `l` of edge
/// `e` of this shape (X) against an edge of the other (Y) lies in `e`'s
/// normal cone, so X's support along it (towards Y, for B's edges the
/// reverse) is `l·m` (`m` the edge's midpoint: `l` is normal to the edge),
/// and Y's is at least its value at any `c ∈ Y`; the separation along `l` is
/// then at most `-l·(m - c)`. With `l = (α·n0 + β·n1)/|α·n0 + β·n1|`
/// (`α, β >= 0`, the unit normals of the edge's faces) and `n_i·(m - c) >=
/// cone >= 0`, `l·(m - c) >= cone·(α + β)/|α·n0 + β·n1| >= cone`. Every such
/// axis separates by at most `-cone = -reach - tol <= s - 2·tol` (`s` the
/// larger face separation, `reach >= -s + tol`), while an edge axis counts
/// only when it separates by more than `s`; `tol`
/// ([`FACE_AXIS_ABS_TOL`] of the scale) dwarfs the rounding of the
/// computed separations, so the culled pairs could not have been chosen.
#[inline(always)]
fn near_edges<L: Lane>(
    arcs: &ArcRows,
    k: usize,
    (n, d): (Vec3, f32),
    reach: f32,
    (c, c2): (Vec3, Vec3),
    radius: f32,
    cone: Option<f32>,
) -> u64 {
    let (mid, h) = (row3::<L>(arcs, ArcRows::MID, k), row3::<L>(arcs, ArcRows::H, k));
    let n = splat3::<L>(n);
    // the lower end's height: n·mid - |n·h| = min(n·p, n·q)
    let below = (n.dot(mid) - n.dot(h).abs() - L::splat(d)).le(L::splat(reach));
    let m = mid - splat3::<L>(c);
    let r = L::splat(radius) + L::load(arcs.row(ArcRows::HALF, k));
    let near = m.dot(m).le(r * r);
    // the rows hold the negated face normals (`c = -n0`, `d = -n1`)
    let mut keep = below & near;
    let live = (1u64 << (arcs.count - k).min(L::WIDTH)) - 1;
    if let Some(cone) = cone {
        let low = L::splat(-cone);
        let (cr, dr) = (row3::<L>(arcs, ArcRows::C, k), row3::<L>(arcs, ArcRows::C + 3, k));
        let m2 = mid - splat3::<L>(c2);
        let open =
            (cr.dot(m).gt(low) | dr.dot(m).gt(low)) & (cr.dot(m2).gt(low) | dr.dot(m2).gt(low));
        #[cfg(test)]
        cone_test_hooks::CULLED
            .with(|c| c.set(c.get() + ((keep.bits() & !open.bits() & live).count_ones() as u64)));
        keep = keep & open;
    }
    keep.bits() & live
}

/// Whether `hull_polytope` runs the cone test of [`near_edges`] (always,
/// except in the unit test that compares its answers with and without it).
#[inline(always)]
fn cone_cull_on() -> bool {
    #[cfg(test)]
    if cone_test_hooks::OFF.with(|c| c.get()) {
        return false;
    }
    true
}

/// The unit tests' switch of the cone test and its count of culled edges.
#[cfg(test)]
pub(super) mod cone_test_hooks {
    use std::cell::Cell;
    thread_local! {
        pub(crate) static OFF: Cell<bool> = const { Cell::new(false) };
        pub(crate) static CULLED: Cell<u64> = const { Cell::new(0) };
    }
}

/// Rows `row..row + 3` of `arcs` from arc `k` on, as a vector of lanes (a
/// nested fn, not a closure: see `hull_polytope`).
#[inline(always)]
pub(super) fn row3<L: Lane>(arcs: &ArcRows, row: usize, k: usize) -> V3<L> {
    V3::new(L::load(arcs.row(row, k)), L::load(arcs.row(row + 1, k)), L::load(arcs.row(row + 2, k)))
}

/// `L::WIDTH` of B's arcs in lanes, in B's frame (see [`ArcRows`]).
pub(super) struct EdgeBlock<L> {
    c: V3<L>,
    d: V3<L>,
    dxc: V3<L>,
    mid: V3<L>,
    half: L,
}

impl<L: Lane> EdgeBlock<L> {
    /// Bit `i` set when lane `i`'s edge passes the sphere test and forms a
    /// Minkowski face with A's edge `e` (Gregorius's `IsMinkowskiFace`, arc
    /// `a → b` against `c → d`).
    #[inline(always)]
    pub(super) fn candidates(&self, e: &EdgeOfA) -> u64 {
        let m = self.mid - splat3::<L>(e.mid);
        let r = L::splat(e.radius) + self.half;
        let near = m.dot(m).le(r * r);
        let bxa = splat3::<L>(e.bxa);
        let cba = self.c.dot(bxa);
        let dba = self.d.dot(bxa);
        let adc = splat3::<L>(e.arc[0]).dot(self.dxc);
        let bdc = splat3::<L>(e.arc[1]).dot(self.dxc);
        let zero = L::splat(0.0);
        let face = (cba * dba).lt(zero) & (adc * bdc).lt(zero) & (cba * bdc).gt(zero);
        (near & face).bits()
    }
}

thread_local! {
    static EDGES: std::cell::RefCell<EdgeSoa> = std::cell::RefCell::new(EdgeSoa::default());
}

/// The axis kinds of [`hull_polytope`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Axis {
    FaceA,
    FaceB,
    Edge,
}

/// Tolerance factor of "the deepest point reaches the SAT depth" (relative
/// to the local coordinates' magnitude: a few dozen ulps of `f32`).
pub(super) const DEPTH_REACH_TOL: f32 = 1.0 / 131_072.0;

/// One point from the closest points of A's edge `ea` and B's edge `eb`
/// (`l` the unit axis in A's frame, from A to B). `Manifold::EMPTY` with
/// `count == 0` when the closest points are clamped (the caller's
/// speculative rule then takes the exact closest pair).
pub(super) fn edge_contact<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    ea: usize,
    eb: usize,
    l: Vec3,
    separated: bool,
) -> Manifold {
    let e1 = ha.edges()[ea];
    let e2 = pb.poly.edges()[eb];
    let (p1, q1) = (ha.vertices()[e1.a as usize], ha.vertices()[e1.b as usize]);
    let (p2, q2) = (pb.vertex(e2.a as usize), pb.vertex(e2.b as usize));
    let (s, t) = closest_params(p1, q1, p2, q2);
    if (separated || B::ONE_SIDED) && (s == 0.0 || s == 1.0 || t == 0.0 || t == 1.0) {
        return Manifold::EMPTY;
    }
    let pa = p1 + (q1 - p1) * s;
    let pbp = p2 + (q2 - p2) * t;
    let depth = l.dot(pa - pbp);
    finish(a, l, &[Cand { pos: pbp, depth, id: id(252, 192 * ea as u32 + eb as u32) }])
}

/// Face axis with A's face `f` as reference: the incident face is B's
/// face most anti-parallel to the normal; if its clipped points do not
/// reach `-sep` (the support vertex was not on it), the most anti-parallel
/// face at B's support vertex is tried too and the deeper result kept.
pub(super) fn face_contact_a<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    f: usize,
    margin: f32,
    sep: f32,
) -> Manifold {
    let n = ha.face_normal(f);
    let nb = pb.poly.face_count();
    let inc = most_antiparallel(nb, |g| pb.normal(g).dot(n), |_| true);
    let clip = |inc| clip_faces(a, &posed_a(ha), f, pb, inc, Reference::A, f as u32, margin);
    let m = clip(inc);
    if m.max_depth().is_some_and(|d| d >= -sep) {
        return m;
    }
    let (sv, _) = pb.support(-n);
    let inc2 = most_antiparallel(
        nb,
        |g| pb.normal(g).dot(n),
        |g| pb.poly.face_vertices(g).contains(&(sv as u8)),
    );
    if inc2 == inc {
        return m;
    }
    let m2 = clip(inc2);
    deeper(m, m2)
}

/// The manifold whose deepest point is deeper (the first on ties).
pub(super) fn deeper(m: Manifold, m2: Manifold) -> Manifold {
    let d = |m: &Manifold| m.max_depth().unwrap_or(f32::NEG_INFINITY);
    if d(&m2) > d(&m) {
        m2
    } else {
        m
    }
}

/// The face `g < count` with `allowed(g)` and the least `dot(g)` (the lowest
/// index on ties).
pub(super) fn most_antiparallel(
    count: usize,
    dot: impl Fn(usize) -> f32,
    allowed: impl Fn(usize) -> bool,
) -> usize {
    let mut inc = 0;
    let mut lo = f32::INFINITY;
    for g in 0..count {
        if !allowed(g) {
            continue;
        }
        let x = dot(g);
        if x < lo {
            lo = x;
            inc = g;
        }
    }
    inc
}

/// Face axis with B's face `g` as reference (normal `-m`); the incident
/// face as in [`face_contact_a`].
pub(super) fn face_contact_b<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    g: usize,
    margin: f32,
    sep: f32,
) -> Manifold {
    let m = pb.normal(g);
    let na = ha.face_count();
    let inc = most_antiparallel(na, |f| ha.face_normal(f).dot(m), |_| true);
    let tag = 128 + g as u32;
    let clip = |inc| clip_faces(a, pb, g, &posed_a(ha), inc, Reference::B, tag, margin);
    let out = clip(inc);
    if out.max_depth().is_some_and(|d| d >= -sep) {
        return out;
    }
    let (sv, _) = Polytope::support(ha, -m);
    let inc2 = most_antiparallel(
        na,
        |f| ha.face_normal(f).dot(m),
        |f| ha.face_vertices(f).contains(&(sv as u8)),
    );
    if inc2 == inc {
        return out;
    }
    deeper(out, clip(inc2))
}

/// A's own frame as a posed polytope (the identity transform is exact up to
/// the sign of a zero), so both sides of a face clip read alike.
#[inline]
pub(super) fn posed_a(ha: &ConvexHull) -> Posed<'_, ConvexHull> {
    Posed { poly: ha, rel: Relative::IDENTITY }
}

/// The best pair of [`closest_pair`] so far: (distance², point on A, point
/// on B, feature id).
type Nearest = (f32, Vec3, Vec3, u32);

/// The vertex–face candidates of one face (`plane`, its polygon's corners
/// as indices into points) against the other shape's vertices (`others`:
/// lane rows and points, A's frame): a vertex above the plane whose foot
/// lies in the polygon replaces `best` when nearer. `face_on_a` says which
/// shape holds the face; the id is `253 · 65536 + id_base + v`. Lanes as
/// described at [`closest_pair`].
#[inline(always)]
fn vertex_face<L: Lane>(
    (n, d): (Vec3, f32),
    (corners, corner_points): (&[u8], &[Vec3]),
    (rows, points): (&[[f32; HULL_MAX_VERTICES]; 3], &[Vec3]),
    face_on_a: bool,
    id_base: u32,
    poly: &mut Vec<Vec3>,
    best: &mut Nearest,
) {
    poly.clear();
    let mut v0 = 0;
    while v0 < points.len() {
        let p3 = V3::new(L::load(&rows[0][v0..]), L::load(&rows[1][v0..]), L::load(&rows[2][v0..]));
        let h = splat3::<L>(n).dot(p3) - L::splat(d);
        let live = (1u64 << (points.len() - v0).min(L::WIDTH)) - 1;
        let mut bits = (h.ge(L::splat(0.0)) & (h * h).lt(L::splat(best.0))).bits() & live;
        while bits != 0 {
            let v = v0 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let p = points[v];
            let h = n.dot(p) - d;
            if h >= 0.0 && h * h < best.0 {
                if poly.is_empty() {
                    poly.extend(corners.iter().map(|&c| corner_points[c as usize]));
                }
                let foot = p - n * h;
                if inside_polygon(poly, n, foot) {
                    let (on_a, on_b) = if face_on_a { (foot, p) } else { (p, foot) };
                    *best = (h * h, on_a, on_b, id(253, id_base + v as u32));
                }
            }
        }
        v0 += L::WIDTH;
    }
}

/// The exact closest pair of A and B (separated, A's frame), by brute force
/// over vertex–face and edge–edge pairs; one speculative point, or nothing
/// beyond the margin.
///
/// B's vertices are moved into A's frame once. The brute-force loops test
/// `L::WIDTH` vertices (edges) at a time with the scalar test's own float
/// operations against the best distance at the start of the group (a
/// superset of what the scalar scan would try), then re-test each hit in
/// order exactly as the scalar scan does, so the result is the scalar
/// scan's, bit for bit, at every width. Out of line (it is rare, and
/// inlined it slowed every pair by about 12 %), so it enters the
/// dispatched path ([`crate::simd`]) again for its lanes.
#[inline(never)]
pub(super) fn closest_pair<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    margin: f32,
) -> Manifold {
    struct Job<'r, 'h, 'p, B: Polytope> {
        a: &'r PlacedHull<'h>,
        ha: &'r ConvexHull,
        pb: &'r Posed<'p, B>,
        margin: f32,
    }
    impl<B: Polytope> SimdFn for Job<'_, '_, '_, B> {
        type Out = Manifold;
        #[inline(always)]
        fn call<S: Simd>(self) -> Manifold {
            closest_pair_lanes::<S::F8, B>(self.a, self.ha, self.pb, self.margin)
        }
    }
    simd::dispatch(simd::current(), Job { a, ha, pb, margin })
}

/// [`closest_pair`] with `L::WIDTH` lanes.
#[inline(always)]
pub(super) fn closest_pair_lanes<L: Lane, B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    margin: f32,
) -> Manifold {
    const V: usize = HULL_MAX_VERTICES;
    // every polytope's edge count is below 192 (feature ids), a multiple of 16
    const E: usize = 192;
    #[inline(always)]
    fn live(count: usize, k: usize, width: usize) -> u64 {
        (1u64 << (count - k).min(width)) - 1
    }
    let mut best: Nearest = (f32::INFINITY, Vec3::ZERO, Vec3::ZERO, 0);
    let nv_b = pb.poly.vertex_count();
    let mut bv = [Vec3::ZERO; V];
    let (mut b_rows, mut a_rows) = ([[0.0f32; V]; 3], [[0.0f32; V]; 3]);
    for (v, slot) in bv[..nv_b].iter_mut().enumerate() {
        *slot = pb.vertex(v);
        (b_rows[0][v], b_rows[1][v], b_rows[2][v]) = (slot.x, slot.y, slot.z);
    }
    for (v, p) in ha.vertices().iter().enumerate() {
        (a_rows[0][v], a_rows[1][v], a_rows[2][v]) = (p.x, p.y, p.z);
    }
    let mut poly: Vec<Vec3> = Vec::with_capacity(64);
    for f in 0..ha.face_count() {
        let plane = (ha.face_normal(f), ha.face_offset(f));
        let face = (ha.face_vertices(f), ha.vertices());
        let id_base = 64 * f as u32;
        vertex_face::<L>(plane, face, (&b_rows, &bv[..nv_b]), true, id_base, &mut poly, &mut best);
    }
    for g in 0..pb.poly.face_count() {
        let plane = (pb.normal(g), pb.offset(g));
        let face = (pb.poly.face_vertices(g), &bv[..nv_b]);
        let (others, id_base) = ((&a_rows, ha.vertices()), 8192 + 64 * g as u32);
        vertex_face::<L>(plane, face, others, false, id_base, &mut poly, &mut best);
    }
    // edge pairs: only those whose bounding spheres are within the margin
    // (a pair farther apart cannot be a closest pair the margin keeps)
    let b_edges = pb.poly.edges();
    let mut e_rows = [[0.0f32; E]; 4];
    for (k, e) in b_edges.iter().enumerate() {
        let (p, q) = (bv[e.a as usize], bv[e.b as usize]);
        let mid = (p + q) * 0.5;
        let reach = (q - p).length() * 0.5 + margin;
        (e_rows[0][k], e_rows[1][k], e_rows[2][k], e_rows[3][k]) = (mid.x, mid.y, mid.z, reach);
    }
    for (ka, e1) in ha.edges().iter().enumerate() {
        let (p1, q1) = (ha.vertices()[e1.a as usize], ha.vertices()[e1.b as usize]);
        let (mid, half) = ((p1 + q1) * 0.5, (q1 - p1).length() * 0.5);
        let mut k0 = 0;
        while k0 < b_edges.len() {
            let mid2 = V3::new(
                L::load(&e_rows[0][k0..]),
                L::load(&e_rows[1][k0..]),
                L::load(&e_rows[2][k0..]),
            );
            let r = L::splat(half) + L::load(&e_rows[3][k0..]);
            let m = mid2 - splat3::<L>(mid);
            // the scalar test skips when `|m|² > r²` (so a NaN is kept)
            let far = m.dot(m).gt(r * r).bits();
            let mut bits = !far & live(b_edges.len(), k0, L::WIDTH);
            while bits != 0 {
                let kb = k0 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let e2 = b_edges[kb];
                let (p2, q2) = (bv[e2.a as usize], bv[e2.b as usize]);
                let (s, t) = closest_params(p1, q1, p2, q2);
                let x = p1 + (q1 - p1) * s;
                let y = p2 + (q2 - p2) * t;
                let d2 = (y - x).length_squared();
                if d2 < best.0 {
                    best = (d2, x, y, id(253, 16384 + 192 * ka as u32 + kb as u32));
                }
            }
            k0 += L::WIDTH;
        }
    }
    let dist = best.0.sqrt();
    if !(dist <= margin) {
        return Manifold::EMPTY;
    }
    let Some(n) = (best.2 - best.1).try_normalize() else {
        return Manifold::EMPTY;
    };
    finish(a, n, &[Cand { pos: best.2, depth: -dist, id: best.3 }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::SplitMix;
    use wide::{f32x16, f32x4, f32x8};

    /// The scan written out: every face in order, the first largest kept.
    fn reference(seps: &[f32], margin: f32) -> Option<(usize, f32)> {
        let mut best = (usize::MAX, f32::NEG_INFINITY);
        for (f, &s) in seps.iter().enumerate() {
            if !(s <= margin) {
                return None;
            }
            if s > best.1 {
                best = (f, s);
            }
        }
        Some(best)
    }

    fn fold<L: Lane>(seps: &[f32], margin: f32) -> Option<(usize, f32)> {
        let mut scan = FaceScan::<L>::new(seps.len());
        for (block, f0) in seps.chunks(L::WIDTH).zip((0..).step_by(L::WIDTH)) {
            // lanes past the count hold what a padded row may hold
            let mut lanes = [f32::NAN; 16];
            lanes[..block.len()].copy_from_slice(block);
            if !scan.add(L::load(&lanes), f0, margin) {
                return None;
            }
        }
        Some(scan.best())
    }

    /// Every width's fold (one block scanned, several folded in lanes)
    /// finds the scan's face and separation: ties between lanes and within
    /// one lane, `-∞` everywhere, NaN and separations past the margin in
    /// every position, counts from 1 to 70.
    #[test]
    fn face_scan_equals_the_scalar_scan() {
        let mut rng = SplitMix(17);
        let values = [-0.5, -0.25, -0.125, 0.0, -0.0, 0.01, f32::NEG_INFINITY];
        let (mut folded, mut ended) = (0, 0);
        for case in 0..20_000 {
            let count = 1 + case % 70;
            let margin = 0.02;
            let seps: Vec<f32> = (0..count)
                .map(|_| match rng.next_u64() % 16 {
                    0 if case % 7 == 0 => f32::NAN,
                    1 if case % 5 == 0 => 0.03,
                    2..=9 => values[(rng.next_u64() % values.len() as u64) as usize],
                    _ => (rng.next_u64() % 1000) as f32 / -1000.0,
                })
                .collect();
            let want = reference(&seps, margin);
            if want.is_none() {
                ended += 1;
            } else if count > 8 {
                folded += 1;
            }
            let bits = |r: Option<(usize, f32)>| r.map(|(f, s)| (f, s.to_bits()));
            assert_eq!(bits(fold::<f32>(&seps, margin)), bits(want), "{seps:?}");
            assert_eq!(bits(fold::<f32x4>(&seps, margin)), bits(want), "{seps:?}");
            assert_eq!(bits(fold::<f32x8>(&seps, margin)), bits(want), "{seps:?}");
            assert_eq!(bits(fold::<f32x16>(&seps, margin)), bits(want), "{seps:?}");
        }
        assert!(folded > 5_000 && ended > 2_000, "{folded} folded, {ended} ended");
    }
}
