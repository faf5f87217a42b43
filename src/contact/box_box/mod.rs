//! Box–box ([`Obb`]–[`Obb`]) contact manifolds: 15-axis SAT, then reference
//! face clipping (face axes) or closest points of two edges (edge axes).
//!
//! Sources: ODE `dBoxBox` and Box2D's `b2CollidePolygons` (reference face,
//! incident face = the most anti-parallel face of the other box, clip the
//! incident face against the reference face's side planes, keep points below
//! the reference face), bepuphysics2 `BoxPairTester` (every lane runs every
//! step; the candidates of the clipped polygon are the incident vertices and
//! edge crossings inside the reference face plus the reference corners inside
//! the incident face), Jolt `PruneContactPoints` (reduce to 4: deepest, the
//! farthest from it, then the largest triangle on each side of that line).
//!
//! # Axis choice and tie rule
//! The axis is [`box_box_sat`]'s, which keeps
//! [`obb_obb_contact`](crate::overlap::obb_obb_contact)'s axes and tie rule
//! but works on the rotation matrix `Aᵀ·B` (Ericson §4.4.1) with a derived
//! allowance on edge axes instead of world-space cross products: the axis of
//! least overlap, where an edge
//! axis must beat the best face axis by more than
//! [`OBB_EDGE_AXIS_BIAS`](crate::overlap::OBB_EDGE_AXIS_BIAS)` · |face depth|` plus
//! [`FACE_AXIS_ABS_TOL`]` · (max h_A + max h_B)` (the relative tolerance of
//! Box2D's `k_relativeTol`, ODE's fudge factor, and an absolute one as Box2D
//! v3's `0.1·b2_linearSlop`, so that the preference does not vanish at exact
//! touching), so resting stacks keep a face normal and a stable manifold
//! instead of flipping to a near-equivalent edge axis. Among face axes, A's
//! win ties (lowest index).
//!
//! # Speculative margin
//! A lane gets a manifold when the SAT gap along the chosen axis is at most
//! `margin` (`depth >= -margin`). The SAT gap is a lower bound on the distance
//! (equal to it for face–face and edge–edge configurations), so a pair at most
//! `margin` apart always gets a contact (never a miss).
//! Face-clipped points deeper than `-margin` are kept; if clipping leaves
//! none (a strongly tilted box near the reference face's rim), the incident
//! box's support vertex is reported alone, whose depth is the SAT depth.
//! A speculative or touching manifold whose deepest point is not a closest
//! pair of the boxes (clipping dropped the support vertex, the lone support
//! vertex is off A along the normal, an edge–edge pair was clamped, or the
//! pair is farther apart diagonally than along any SAT axis) is replaced by
//! the exact closest pair, or dropped when that is beyond the margin
//! (`src/contact/closest_pair.rs`): every point lies on both boxes and the
//! deepest speculative depth is minus the distance.
//!
//! # Feature ids
//! Face contacts: `(ref_face · 6 + inc_face) · 32 + local`, where `ref_face`
//! is `0..6` for A's faces and `6..12` for B's (`2·axis + (1 if the face is on
//! the negative side)`), `inc_face` the incident face `0..6`, and `local`
//! names the point: `0..4` incident vertex `k`, `4 + 4k + s` incident edge `k`
//! crossing reference side `s` (`+u, -u, +v, -v`), `20 + m` reference corner
//! `m`, `24 + v` the fallback support vertex. Edge contacts:
//! `4096 + 16·edge_A + edge_B` with `edge = 4·axis + sign bits`. A replaced
//! speculative manifold: [`BOX_BOX_CLOSEST_ID_BASE`]` + f` (`8192..8212`). Ids
//! depend only on features, so they are stable under small motions.
//!
//! # Batches
//! [`box_box_packs`] tests a slice of packs with the same results as
//! [`box_box`] pack by pack, moving the contacting lanes of sparse packs into
//! dense packs between the SAT and the clipping (the pipeline and the benches
//! use it).
//!
//! # Files
//! `sat.rs` the 15-axis SAT and its fallback, `face.rs` reference/incident
//! faces, clipping and the reduction to 4 points, `edge.rs` the edge–edge
//! pair, `packs.rs` the slice driver; this file the lane helpers they share
//! and [`box_box`] itself.

pub use super::closest_pair::BOX_BOX_CLOSEST_ID_BASE;
use super::Manifold;
use crate::{Lane, LaneMask, Obb, V3};

mod edge;
mod face;
mod packs;
mod sat;

pub(in crate::contact) use edge::support_edge;
pub(in crate::contact) use face::{
    clip_edge_rect, incident_face, manifold_of, ref_face, Candidate, FaceEdge, FacePoint, PointOnB,
};
pub use packs::box_box_packs;
use packs::{contact_lanes, finish};
use sat::sat_with_fallback;
pub use sat::{box_box_sat, BOX_SAT_EDGE_ALLOWANCE, FACE_AXIS_ABS_TOL};

/// Base of the edge–edge feature ids (`4096 + 16·edge_A + edge_B`).
pub const EDGE_EDGE_ID_BASE: f32 = 4096.0;

/// Per lane `if m { t } else { f }` on a whole manifold.
#[inline(always)]
pub(crate) fn select_manifold<L: Lane>(
    m: L::Mask,
    t: &Manifold<L>,
    f: &Manifold<L>,
) -> Manifold<L> {
    let mut out = *f;
    out.normal = V3::select(m, t.normal, f.normal);
    out.count = L::select(m, t.count, f.count);
    for (o, (pt, pf)) in out.points.iter_mut().zip(t.points.iter().zip(f.points.iter())) {
        o.position = V3::select(m, pt.position, pf.position);
        o.depth = L::select(m, pt.depth, pf.depth);
        o.feature_id = L::select(m, pt.feature_id, pf.feature_id);
    }
    out
}

/// Per lane `if m { t } else { f }` on a box.
#[inline(always)]
fn select_obb<L: Lane>(m: L::Mask, t: &Obb<L>, f: &Obb<L>) -> Obb<L> {
    Obb {
        center: V3::select(m, t.center, f.center),
        axes: [
            V3::select(m, t.axes[0], f.axes[0]),
            V3::select(m, t.axes[1], f.axes[1]),
            V3::select(m, t.axes[2], f.axes[2]),
        ],
        half: V3::select(m, t.half, f.half),
    }
}

/// Per lane element `i` of `[x0, x1, x2]` given the masks `i == 0`, `i == 1`.
#[inline(always)]
pub(in crate::contact) fn pick3<L: Lane>(is0: L::Mask, is1: L::Mask, x: [L; 3]) -> L {
    L::select(is0, x[0], L::select(is1, x[1], x[2]))
}

#[inline(always)]
pub(in crate::contact) fn pick3v<L: Lane>(is0: L::Mask, is1: L::Mask, x: [V3<L>; 3]) -> V3<L> {
    V3::select(is0, x[0], V3::select(is1, x[1], x[2]))
}

/// `+1` where `x >= 0`, else `-1` (a fixed choice at 0 keeps ids deterministic).
#[inline(always)]
pub(in crate::contact) fn sign<L: Lane>(x: L) -> L {
    L::select(x.ge(L::splat(0.0)), L::splat(1.0), L::splat(-1.0))
}

/// Box–box contact manifold (see the [module docs](self) and the
/// [conventions](super)): up to 4 points, normal from `a` to `b`.
///
/// **LANE-GENERIC** (`L = f32` is the scalar API): every lane runs every step
/// and widths give bit-identical manifolds; the only branches skip a path
/// (face clipping or edge–edge) no lane of the pack needs. Invalid lanes
/// (non-finite values, negative half extents, negative or non-finite
/// `margin`) give `count == 0`. Zero half extents are rectangles, segments or
/// points and get manifolds like any box.
///
/// ```
/// use widephase::{contact::box_box::box_box, Obb, Vec3};
/// let ground = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::new(5.0, 1.0, 5.0));
/// let cube = Obb::new(Vec3::new(0.0, 1.9, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// let m = box_box(&ground, &cube, 0.0);
/// assert_eq!(m.count, 4.0);
/// assert_eq!(m.normal, Vec3::Y);
/// for p in m.contacts() {
///     assert!((p.depth - 0.1).abs() < 1e-6);
///     assert!((p.position.y - 0.9).abs() < 1e-6); // on the cube's bottom face
/// }
/// ```
#[inline(always)]
pub fn box_box<L: Lane>(a: &Obb<L>, b: &Obb<L>, margin: L) -> Manifold<L> {
    let sat = sat_with_fallback(a, b, margin);
    let (face, edge) = contact_lanes(&sat, margin);
    if (face | edge).none() {
        return Manifold::empty();
    }
    finish(a, b, &sat, margin, face, edge)
}
