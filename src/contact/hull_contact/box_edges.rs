//! The edge queries of a hull (A) against a box (B), in lanes over A's
//! edges.
//!
//! A box's twelve edges run along its three axes `u_k`, and the Gauss arcs
//! of the four along `u_k` (from the normal `±u_j` of one face to the
//! normal `±u_l` of the other) tile the great circle normal to `u_k`. So
//! an edge of A with face normals `n0 → n1` forms a face of the Minkowski
//! difference (Gregorius's `IsMinkowskiFace`: A's arc crosses B's negated
//! arc) with an edge along `u_k` exactly when its arc crosses that circle,
//! `(n0·u_k)(n1·u_k) < 0`, and with one edge only: the crossing point
//! `x = |n1·u_k|·n0 + |n0·u_k|·n1` lies on B's negated arc of the edge at
//! `σ_j·h_j·u_j + σ_l·h_l·u_l` with `σ = -sign(x·u)` (the box's outward
//! normals there are `-x`'s). A crossing exactly at a box face normal
//! (`x·u_j = 0`) is that face's axis and is skipped, as the strict signs of
//! the general test skip it. Three sign tests per edge of A replace the
//! general loop's test of every arc pair, with no culls and no copies:
//! every edge of A is tried against every axis of the box in lanes, and
//! the separation `L·(p_B - p_A)` along `L = h_A × u_k` (oriented away
//! from A's centroid) is computed only for what crosses. Each block of A's
//! edges is first rotated into the box's frame, where `h_A × u_k` is two of
//! the edge's coordinates and the box edge's point two signed half extents:
//! about 45 lane operations per edge and axis instead of about 75 in A's
//! frame (simd-notes, "Contacts: convex hulls").

use super::polytope::{unit_cube, Relative};
use super::sat::{row3, splat3};
use crate::contact::hull::{ArcRows, ConvexHull};
use crate::lane::LANE_INDEX;
use crate::math::{Vec3, V3};
use crate::{Lane, LaneMask};

/// The winning edge pair of an edge query: A's edge, B's edge, the
/// separation and the unit axis (A's frame, from A to B); `NO_EDGE` when no
/// pair forms a Minkowski face.
pub(super) type BestEdge = (usize, usize, f32, Vec3);

pub(super) const NO_EDGE: BestEdge = (usize::MAX, usize::MAX, f32::NEG_INFINITY, Vec3::ZERO);

/// The largest separation over the Minkowski-face pairs of A's edges and
/// the box's (half extents `half`, posed by `rel` in A's frame), ties to
/// the least (A's edge, box axis). Each lane does the same operations as
/// the scalar lane (`L = f32`), so every width finds the same pair and the
/// same bits.
#[inline(always)]
pub(super) fn box_edge_query<L: Lane>(ha: &ConvexHull, rel: &Relative, half: Vec3) -> BestEdge {
    let arcs = ha.arc_rows();
    // written out: `[T; 3].map` is a function of its own, compiled without
    // the dispatched entry's features (simd-notes, "Run-time SIMD dispatch")
    let axes = [splat3::<L>(rel.cols[0]), splat3::<L>(rel.cols[1]), splat3::<L>(rel.cols[2])];
    let t = splat3::<L>(rel.t);
    // A's centroid seen from the box's centre, in the box's frame
    let to_centre = ha.centroid() - rel.t;
    let centre =
        [rel.cols[0].dot(to_centre), rel.cols[1].dot(to_centre), rel.cols[2].dot(to_centre)];
    let neg_inf = L::splat(f32::NEG_INFINITY);
    // per lane: the best separation and its `3·edge + axis`
    let (mut best, mut code) = (neg_inf, L::splat(-1.0));
    let mut k0 = 0;
    while k0 < arcs.count {
        // padding lanes have zero normals: they never cross
        let edges = EdgeLanes::<L>::load(arcs, k0, &axes, t, centre);
        let index = (L::load(&LANE_INDEX) + L::splat(k0 as f32)) * L::splat(3.0);
        for k in 0..3 {
            if edges.crossing(k).none() {
                continue;
            }
            let c = edges.candidate(k, half);
            let sep = L::select(c.keep, c.sep, neg_inf);
            let better = sep.gt(best);
            best = L::select(better, sep, best);
            code = L::select(better, index + L::splat(k as f32), code);
        }
        k0 += L::WIDTH;
    }
    let (mut sep, mut codes) = ([0.0f32; 16], [0.0f32; 16]);
    best.store(&mut sep);
    code.store(&mut codes);
    let mut win = (f32::NEG_INFINITY, f32::INFINITY);
    for (&s, &c) in sep[..L::WIDTH].iter().zip(&codes[..L::WIDTH]) {
        if s > win.0 || (s == win.0 && c < win.1) {
            win = (s, c);
        }
    }
    if win.0 == f32::NEG_INFINITY {
        return NO_EDGE;
    }
    // the winner again as a scalar lane: the same operations, so the same
    // bits, and its axis and box edge
    let (ka, k) = (win.1 as usize / 3, win.1 as usize % 3);
    let axes1 =
        [splat3::<f32>(rel.cols[0]), splat3::<f32>(rel.cols[1]), splat3::<f32>(rel.cols[2])];
    let edge = EdgeLanes::<f32>::load(arcs, ka, &axes1, splat3(rel.t), centre);
    let c = edge.candidate(k, half);
    debug_assert_eq!(c.sep.to_bits(), win.0.to_bits());
    // the unit axis back in A's frame: `u_j·a_j + u_l·a_l`
    let (j, l) = ((k + 1) % 3, (k + 2) % 3);
    let axis = rel.cols[j] * c.axis[0] + rel.cols[l] * c.axis[1];
    (ka, box_edge(k, c.sides), c.sep, axis)
}

/// `L::WIDTH` of A's edges from `k0` on, with what every box axis needs,
/// in the box's frame (coordinates along its axes `u_0, u_1, u_2`): there
/// `h × u_k` is two of the edge's coordinates, one negated, and the box
/// edge's point two signed half extents.
struct EdgeLanes<L> {
    /// Their face normals' (negated, as in [`ArcRows`]) components along
    /// the box axes: `cu[m] = c·u_m = -n0·u_m`, `du[m] = -n1·u_m`.
    cu: [L; 3],
    du: [L; 3],
    /// Half vectors, their lengths, and the midpoints relative to the box's
    /// centre and to A's centroid.
    h: [L; 3],
    half_len: L,
    mid: [L; 3],
    out: [L; 3],
}

impl<L: Lane> EdgeLanes<L> {
    /// `centre`: A's centroid relative to the box's centre, in its frame.
    #[inline(always)]
    fn load(arcs: &ArcRows, k0: usize, axes: &[V3<L>; 3], t: V3<L>, centre: [f32; 3]) -> Self {
        let (c, d) = (row3::<L>(arcs, ArcRows::C, k0), row3::<L>(arcs, ArcRows::C + 3, k0));
        let h = row3::<L>(arcs, ArcRows::H, k0);
        let mid = row3::<L>(arcs, ArcRows::MID, k0) - t;
        let mid = [mid.dot(axes[0]), mid.dot(axes[1]), mid.dot(axes[2])];
        EdgeLanes {
            cu: [c.dot(axes[0]), c.dot(axes[1]), c.dot(axes[2])],
            du: [d.dot(axes[0]), d.dot(axes[1]), d.dot(axes[2])],
            h: [h.dot(axes[0]), h.dot(axes[1]), h.dot(axes[2])],
            half_len: L::load(arcs.row(ArcRows::HALF, k0)),
            out: [
                mid[0] - L::splat(centre[0]),
                mid[1] - L::splat(centre[1]),
                mid[2] - L::splat(centre[2]),
            ],
            mid,
        }
    }

    /// The edges whose arc crosses the great circle normal to box axis `k`.
    #[inline(always)]
    fn crossing(&self, k: usize) -> L::Mask {
        (self.cu[k] * self.du[k]).lt(L::splat(0.0))
    }

    /// Against the box's edges along axis `k`.
    #[inline(always)]
    fn candidate(&self, k: usize, half: Vec3) -> Candidate<L> {
        let zero = L::splat(0.0);
        let (j, l) = ((k + 1) % 3, (k + 2) % 3);
        let hs = [half.x, half.y, half.z];
        let (a0, a1) = (self.cu[k].abs(), self.du[k].abs());
        // -x·u_m for the crossing point x = a1·n0 + a0·n1 (n = -c, -d), so
        // σ_m = -sign(x·u_m) is its sign
        let xj = self.cu[j] * a1 + self.du[j] * a0;
        let xl = self.cu[l] * a1 + self.du[l] * a0;
        let (pj, pl) = (xj.gt(zero), xl.gt(zero));
        let off_face = (pj | xj.lt(zero)) & (pl | xl.lt(zero));
        let sj = L::select(pj, L::splat(hs[j]), L::splat(-hs[j]));
        let sl = L::select(pl, L::splat(hs[l]), L::splat(-hs[l]));
        // from the midpoint of A's edge to the box edge's point
        // `σ_j·h_j·u_j + σ_l·h_l·u_l` (its `u_k` part meets a zero below)
        let (gap_j, gap_l) = (sj - self.mid[j], sl - self.mid[l]);
        // `h × u_k`: `h_l` along `u_j`, `-h_j` along `u_l`, none along `u_k`
        let (ax_j, ax_l) = (self.h[l], zero - self.h[j]);
        let len = (ax_j * ax_j + ax_l * ax_l).sqrt();
        // parallel edges: their axis is a face normal's
        let keep = self.crossing(k) & off_face & len.gt(self.half_len * L::splat(1e-5));
        let outward = (ax_j * self.out[j] + ax_l * self.out[l]).lt(zero);
        let ax_j = L::select(outward, zero - ax_j, ax_j) / len;
        let ax_l = L::select(outward, zero - ax_l, ax_l) / len;
        Candidate { sep: ax_j * gap_j + ax_l * gap_l, keep, axis: [ax_j, ax_l], sides: [pj, pl] }
    }
}

/// An edge of A against the box's edges along one axis `k`: the
/// separation, whether the pair counts (crossing, not at a face normal,
/// edges not parallel), the unit axis from A to B (its components along
/// `u_j`, `u_l`; none along `u_k`), and the box edge's side signs
/// (`σ_j > 0`, `σ_l > 0`).
struct Candidate<L: Lane> {
    sep: L,
    keep: L::Mask,
    axis: [L; 2],
    sides: [L::Mask; 2],
}

/// The unit cube's edge along axis `k` on the sides `(σ_j, σ_l)` (`true`
/// for `+`), `j, l = k + 1, k + 2` (a cube vertex has bit `m` set where its
/// coordinate `m` is `+1`).
fn box_edge(k: usize, [pj, pl]: [bool; 2]) -> usize {
    let side = (pj as u8) << ((k + 1) % 3) | (pl as u8) << ((k + 2) % 3);
    let along = 1u8 << k;
    unit_cube()
        .edges()
        .iter()
        .position(|e| e.a ^ e.b == along && e.a & !along == side)
        .expect("the unit cube has every edge")
}

#[cfg(test)]
mod tests {
    use super::super::polytope::BoxPolytope;
    use super::super::sat::{cone_test_hooks::OFF, general_edge_query, Posed};
    use super::super::PlacedHull;
    use super::*;
    use crate::workload::hull_box_pairs;
    use wide::{f32x16, f32x4, f32x8};

    fn bits((ka, kb, sep, l): BestEdge) -> [u64; 6] {
        let [x, y, z] = [l.x, l.y, l.z].map(|v| v.to_bits() as u64);
        [ka as u64, kb as u64, sep.to_bits() as u64, x, y, z]
    }

    /// The box's own edge query finds, at every width bit for bit, the
    /// pair the general Gauss-map loop finds with its culls off (every
    /// edge pair tested), at its separation and axis up to rounding, boxes
    /// whose axes are A's (crossings at face normals) included. On a flat
    /// box it may separate more: the general loop skips the box's
    /// zero-length edges, whose axes (a corner of the rectangle against an
    /// edge of A) are true separating axes.
    #[test]
    fn box_edges_equal_the_general_loop() {
        let (hulls, poses, boxes) = hull_box_pairs(3000, 48, 40, 31);
        let (mut found, mut same_pair) = (0, 0);
        for (k, (&(i, p), b)) in poses.iter().zip(&boxes).enumerate() {
            let mut b = *b;
            match k % 10 {
                // a flat box (a rectangle)
                0 => b.half.y = 0.0,
                // the box's axes are A's: arcs cross the box's circles at
                // face normals
                1 => b.axes = p.axes,
                _ => {}
            }
            let a = PlacedHull::new(&hulls[i], p.center, p.axes);
            let rel = Relative::new(&a, b.center, &b.axes);
            let want = box_edge_query::<f32>(a.hull, &rel, b.half);
            assert_eq!(bits(box_edge_query::<f32x4>(a.hull, &rel, b.half)), bits(want), "{k} x4");
            assert_eq!(bits(box_edge_query::<f32x8>(a.hull, &rel, b.half)), bits(want), "{k} x8");
            assert_eq!(bits(box_edge_query::<f32x16>(a.hull, &rel, b.half)), bits(want), "{k} x16");
            let bp = BoxPolytope::new(b.half);
            let pb = Posed { poly: &bp, rel };
            OFF.with(|c| c.set(true));
            let no_cull = (f32::INFINITY, f32::INFINITY);
            let general = general_edge_query::<f32x8, _>(
                a.hull,
                &pb,
                ((0, 0.0), (0, 0.0), 0.0),
                no_cull.0,
                no_cull.1,
                1.0,
            );
            OFF.with(|c| c.set(false));
            let scale = a.hull.bounding_radius() + b.half.length() + rel.t.length();
            if want.0 == usize::MAX {
                assert_eq!(general.0, usize::MAX, "{k}: only the general loop found {general:?}");
                continue;
            }
            assert!(general.0 != usize::MAX, "{k}: only the box query found {want:?}");
            let flat = b.half.min_element() == 0.0;
            let tol = 1e-5 * scale;
            let close =
                if flat { want.2 >= general.2 - tol } else { (want.2 - general.2).abs() <= tol };
            assert!(close, "{k}: {want:?} against {general:?}");
            if flat {
                continue;
            }
            found += 1;
            if (want.0, want.1) == (general.0, general.1) {
                same_pair += 1;
                assert!((want.3 - general.3).length() <= 1e-4, "{k}: {want:?} against {general:?}");
            }
        }
        assert!(found > 2500, "only {found} pairs with an edge pair");
        assert!(same_pair * 100 > found * 99, "the same pair in only {same_pair} of {found}");
    }
}
