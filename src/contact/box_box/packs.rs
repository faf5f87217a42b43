//! Box–box over a slice of packs: the contacting lanes of sparse packs are
//! moved into dense packs between the SAT and the clipping.

use super::edge::edge_manifold;
use super::face::face_manifold;
use super::sat::sat_with_fallback;
use super::select_manifold;
use crate::contact::util::{at_origin, copy_lane, moved_by};
use crate::contact::Manifold;
use crate::lane::LANE_INDEX;
use crate::overlap::ObbContact;
use crate::pack::LanePod;
use crate::{Lane, LaneMask, Obb, V3};
use bytemuck::Zeroable;

/// Smallest share of a pack's lanes, in sixteenths, that runs the face path in
/// place in [`box_box_packs`]; sparser packs send their face lanes to a
/// compacted pack instead (moving a lane in and out costs about a third of
/// clipping it). Tuned at x16 on the bench's two tiers (half a pack: resting
/// and random tiers both at their best among 1–17 sixteenths).
const FACE_IN_PLACE_16THS: u32 = 8;
/// The same for the edge path, cheap per pack: a pack runs it in place from
/// 2 edge lanes of 16 on; a lone edge lane is moved to the edge stage.
const EDGE_IN_PLACE_16THS: u32 = 2;

/// `out[c] = box_box(&a[c], &b[c], margin)` for every pack `c`, bit for bit,
/// with the lanes compacted between the SAT and the manifold stage (the
/// bepuphysics2 idea of batching pairs by the work they need).
///
/// [`box_box`](super::box_box) on one pack runs the face clipping whenever one lane needs it,
/// so a pack with a few contacts costs as much as a full one, and the
/// edge–edge path runs for a single edge lane. Here the SAT runs pack by pack;
/// a pack whose contacts are dense enough for a path (at x16: 8 face lanes
/// for the face path, 2 edge lanes for the edge path) runs that path in
/// place, and the lanes of sparse packs are copied into dense staging packs, one per path, which are run when
/// full (and once at the end) and whose results are copied back to their
/// lanes. Packs with no contact only store an empty manifold. Every manifold
/// depends only on its own pair (the testers are lane-independent), so the
/// output equals [`box_box`](super::box_box)'s whatever the batch, width or mix of pairs
/// (`tests/contact_boxes.rs` checks it bit for bit).
///
/// Panics if the three slices differ in length.
#[inline(always)]
pub fn box_box_packs<L: LanePod>(a: &[Obb<L>], b: &[Obb<L>], margin: L, out: &mut [Manifold<L>]) {
    assert!(a.len() == b.len() && a.len() == out.len(), "box_box_packs needs equal lengths");
    let w = L::WIDTH;
    // in-place thresholds in lanes (at least 1: width 1 never stages)
    let face_min = ((w as u32 * FACE_IN_PLACE_16THS).div_ceil(16)).max(1);
    let edge_min = ((w as u32 * EDGE_IN_PLACE_16THS).div_ceil(16)).max(1);
    let mut face_stage = Stage::<L>::new(true);
    let mut edge_stage = Stage::<L>::new(false);
    let no = <L::Mask as LaneMask>::splat(false);
    for (c, (pa, pb)) in a.iter().zip(b).enumerate() {
        let sat = sat_with_fallback(pa, pb, margin);
        let (face, edge) = contact_lanes(&sat, margin);
        let face_here = if face.bits().count_ones() >= face_min { face } else { no };
        let edge_here = if edge.bits().count_ones() >= edge_min { edge } else { no };
        out[c] = if (face_here | edge_here).none() {
            Manifold::empty()
        } else {
            finish(pa, pb, &sat, margin, face_here, edge_here)
        };
        // (after `out[c]` is written: a stage that fills up runs at once)
        face_stage.push_lanes(face.and_not(face_here), c, pa, pb, &sat, margin, out);
        edge_stage.push_lanes(edge.and_not(edge_here), c, pa, pb, &sat, margin, out);
    }
    face_stage.flush(out);
    edge_stage.flush(out);
}

/// Lanes waiting for one path of [`box_box_packs`]: their inputs, SAT result
/// and margin in lanes `0..n`, and where each result goes.
struct Stage<L: LanePod> {
    a: Obb<L>,
    b: Obb<L>,
    axis: L,
    normal: V3<L>,
    margin: L,
    /// `(pack, lane)` of staged lane `k`.
    dst: [(u32, u32); 16],
    n: usize,
    /// Face path (else edge path).
    face: bool,
}

impl<L: LanePod> Stage<L> {
    #[inline(always)]
    fn new(face: bool) -> Self {
        // Lanes past `n` hold zeros or stale pairs: the testers never fail on
        // any input, and those lanes' results are never copied out.
        Stage {
            a: Obb::zeroed(),
            b: Obb::zeroed(),
            axis: L::splat(0.0),
            normal: V3::splat(L::splat(0.0)),
            margin: L::splat(0.0),
            dst: [(0, 0); 16],
            n: 0,
            face,
        }
    }

    /// Copies the lanes `m` of pack `c` in, running the stage whenever it is
    /// full (`out[c]` must already hold the pack's in-place result).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn push_lanes(
        &mut self,
        m: L::Mask,
        c: usize,
        a: &Obb<L>,
        b: &Obb<L>,
        sat: &ObbContact<L>,
        margin: L,
        out: &mut [Manifold<L>],
    ) {
        let mut bits = m.bits();
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let k = self.n;
            copy_lane::<L, _>(&mut self.a, k, a, j);
            copy_lane::<L, _>(&mut self.b, k, b, j);
            copy_lane::<L, _>(&mut self.axis, k, &sat.axis, j);
            copy_lane::<L, _>(&mut self.normal, k, &sat.normal, j);
            copy_lane::<L, _>(&mut self.margin, k, &margin, j);
            self.dst[k] = (c as u32, j as u32);
            self.n += 1;
            if self.n == L::WIDTH {
                self.flush(out);
            }
        }
    }

    /// Runs the staged lanes through the stage's path and copies each result
    /// to its pack and lane.
    #[inline(always)]
    fn flush(&mut self, out: &mut [Manifold<L>]) {
        if self.n == 0 {
            return;
        }
        let need = lanes_below::<L>(self.n);
        let (a, b, c) = box_at_origin(&self.a, &self.b);
        let m = if self.face {
            face_manifold(&a, &b, self.axis, self.normal, self.margin, need)
        } else {
            edge_manifold(&a, &b, self.axis, self.normal, self.margin, need)
        };
        let m = moved_by(m, c);
        for (k, &(c, j)) in self.dst[..self.n].iter().enumerate() {
            copy_lane::<L, _>(&mut out[c as usize], j as usize, &m, k);
        }
        self.n = 0;
    }
}

/// The mask of lanes `0..n`.
#[inline(always)]
fn lanes_below<L: Lane>(n: usize) -> L::Mask {
    L::load(&LANE_INDEX[..L::WIDTH]).lt(L::splat(n as f32))
}

/// The lanes that get a contact, split by path: `(face, edge)` (face axis
/// `0..6`, edge axis `6..15`). Invalid lanes are in neither.
#[inline(always)]
pub(super) fn contact_lanes<L: Lane>(sat: &ObbContact<L>, margin: L) -> (L::Mask, L::Mask) {
    let margin_ok = margin.is_finite() & margin.ge(L::splat(0.0));
    // `depth` is NaN in invalid lanes, so the comparison also drops them.
    let hit = margin_ok & sat.depth.ge(-margin);
    let is_edge = sat.axis.ge(L::splat(6.0));
    (hit.and_not(is_edge), hit & is_edge)
}

/// The manifolds after the SAT: face clipping for the lanes `face`, closest
/// edge points for the lanes `edge`, empty elsewhere. A path no lane needs is
/// skipped.
#[inline(always)]
pub(super) fn finish<L: Lane>(
    a: &Obb<L>,
    b: &Obb<L>,
    sat: &ObbContact<L>,
    margin: L,
    face: L::Mask,
    edge: L::Mask,
) -> Manifold<L> {
    let empty = Manifold::empty();
    let mut out = empty;
    let (a, b, c) = box_at_origin(a, b);
    if face.any() {
        out = face_manifold(&a, &b, sat.axis, sat.normal, margin, face);
    }
    if edge.any() {
        let e = edge_manifold(&a, &b, sat.axis, sat.normal, margin, edge);
        out = select_manifold(edge, &e, &out);
    }
    moved_by(select_manifold(face | edge, &out, &empty), c)
}

/// `a` moved to the origin, `b` by the same offset, and the offset's
/// opposite `a.center`: the frame the paths clip and form the closest pair in
/// (`util::at_origin`; the SAT already works on `b.center − a.center`).
#[inline(always)]
fn box_at_origin<L: Lane>(a: &Obb<L>, b: &Obb<L>) -> (Obb<L>, Obb<L>, V3<L>) {
    let c = a.center;
    (at_origin(a), Obb { center: b.center - c, axes: b.axes, half: b.half }, c)
}
