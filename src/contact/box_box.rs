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
//! [`OBB_EDGE_AXIS_BIAS`]` · |face depth|` plus
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

use super::closest_pair::keep_closest_pair;
pub use super::closest_pair::BOX_BOX_CLOSEST_ID_BASE;
use super::{ContactPoint, Manifold, MAX_CONTACTS};
use crate::overlap::{ObbContact, OBB_EDGE_AXIS_BIAS};
use crate::pack::LanePod;
use crate::simd::unroll::{from3, from4, map3};
use crate::{Lane, LaneMask, Obb, V3};
use bytemuck::{Pod, Zeroable};

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
pub(super) fn pick3<L: Lane>(is0: L::Mask, is1: L::Mask, x: [L; 3]) -> L {
    L::select(is0, x[0], L::select(is1, x[1], x[2]))
}

#[inline(always)]
pub(super) fn pick3v<L: Lane>(is0: L::Mask, is1: L::Mask, x: [V3<L>; 3]) -> V3<L> {
    V3::select(is0, x[0], V3::select(is1, x[1], x[2]))
}

/// `+1` where `x >= 0`, else `-1` (a fixed choice at 0 keeps ids deterministic).
#[inline(always)]
pub(super) fn sign<L: Lane>(x: L) -> L {
    L::select(x.ge(L::splat(0.0)), L::splat(1.0), L::splat(-1.0))
}

/// One candidate point of the clipped face polygon, in the reference plane's
/// frame `(o, u, v, n)`: the point on the incident shape's surface is
/// `o + x·u + y·v - depth·n`. The 3D point is rebuilt only for the (at most
/// 4) candidates the reduction keeps: carrying it through every pass of
/// [`reduce4`] cost 3 more blends per candidate and pass, and computing it
/// for every candidate a multiply–add chain each.
#[derive(Clone, Copy)]
pub(super) struct Candidate<L: Lane> {
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
pub(super) fn slab<L: Lane>(
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

/// Allowance factor `ε` of [`box_box_sat`]'s edge axes (`2^-19 = 32u`): to
/// first order it bounds, per unit of the magnitudes it multiplies, the
/// absolute error of an edge overlap: `γ3 ≈ 3u` per entry of `R = Aᵀ·B` and
/// of `t_A`, `~4u` for the expression, and `2δ` for the frame-of-A
/// identities when the axes are orthonormal to within `δ <= 8u` (f32
/// rotations built by normalising and crossing are within a few `u`). See
/// `simd-notes.md`, "Box–box: rotation-matrix SAT".
pub const BOX_SAT_EDGE_ALLOWANCE: f32 = 1.0 / 524_288.0;

/// The SAT of [`box_box`]: the axis of least overlap of the 15 box–box axes
/// with [`obb_obb_contact`](crate::overlap::obb_obb_contact)'s axis indices, tie rule and edge bias, computed
/// in A's frame (Ericson RTCD §4.4.1, Gottschalk's OBBTree, ODE `dBoxBox`):
///
/// ```text
/// R_ij = A_i·B_j,  t_A = (t·A_0, t·A_1, t·A_2),  t = c_B - c_A
/// face A_i:  overlap = h_A,i + Σ_j h_B,j |R_ij| - |t_A,i|
/// face B_j:  overlap = Σ_i h_A,i |R_ij| + h_B,j - |t·B_j|
/// edge A_i×B_j (i1, i2 = i+1, i+2 mod 3; j1, j2 likewise):
///   r_A = h_A,i1 |R_i2j| + h_A,i2 |R_i1j|,  r_B = h_B,j1 |R_ij2| + h_B,j2 |R_ij1|
///   t·L = t_A,i2 R_i1j - t_A,i1 R_i2j,       |L| = sqrt(R_i1j² + R_i2j²)
///   overlap = r_A + r_B - |t·L| + err_ij       (depth = overlap / |L|)
///   err_ij  = ε·(h_A,i1 + h_A,i2 + |t_A,i1| + |t_A,i2| + h_B,j1 + h_B,j2
///                + |t|₁·(|R_i1j| + |R_i2j|))
/// ```
///
/// Face axis `k < 3` is `A_k` itself (`obb_obb_contact` uses `A_1×A_2` etc.,
/// the same vector for orthonormal axes), `k = 3..6` is `B_(k-3)`.
/// No cross product is formed per axis and only the winning edge axis is
/// divided by its length (edge depths are compared cross-multiplied,
/// `o_k·|L_best| < o_best·|L_k|`). The frame-of-A identities hold for
/// orthonormal axes, and `R`'s entries carry an absolute rounding error that
/// does not shrink with `|L|`, so near-parallel edge axes have a direction and
/// overlap made of noise (Ericson §5.2.1.1 adds an arbitrary `ε` to `|R|`).
/// Here each edge overlap is raised by `err_ij`, a bound on that absolute
/// error ([`BOX_SAT_EDGE_ALLOWANCE`]): an edge axis never claims a separation
/// or depth smaller than exact arithmetic gives on it, and a near-parallel
/// axis (`|L| → 0`) gets a depth `→ +∞`, so it is never chosen (the role of
/// `obb_obb`'s noise-axis rule, without a threshold). Face overlaps are not
/// raised: their `|L| = 1`, so their error stays a few ulps of the sizes.
///
/// A lane reported as touching only because of an edge allowance (some edge
/// axis might separate in exact arithmetic) is recomputed by
/// [`obb_obb_contact`](crate::overlap::obb_obb_contact), so `hit` is exact
/// outside `obb_obb`'s few-ulp band for edges at any angle (axes orthonormal
/// to within `8u`; see simd-notes, "Box–box: rotation-matrix SAT").
///
/// `hit` is `depth >= 0` (the least overlap is negative exactly when some
/// axis separates, whatever the bias); invalid lanes give NaN `axis`,
/// `normal` and `depth` and `hit == false`, as [`obb_obb_contact`](crate::overlap::obb_obb_contact).
///
/// ```
/// use widephase::{contact::box_box::box_box_sat, Obb, Vec3};
/// let i3 = [Vec3::X, Vec3::Y, Vec3::Z];
/// let a = Obb::new(Vec3::ZERO, i3, Vec3::splat(1.0));
/// let c = box_box_sat(&a, &Obb::new(Vec3::new(-1.5, 0.0, 0.0), i3, Vec3::splat(1.0)));
/// assert!(c.hit);
/// assert_eq!((c.axis, c.normal, c.depth), (0.0, -Vec3::X, 0.5)); // A's face x
/// let c = box_box_sat(&a, &Obb::new(Vec3::new(0.0, 2.5, 0.0), i3, Vec3::splat(1.0)));
/// assert!(!c.hit);
/// assert_eq!((c.axis, c.normal, c.depth), (1.0, Vec3::Y, -0.5)); // 0.5 apart
/// ```
#[inline(always)]
pub fn box_box_sat<L: Lane>(a: &Obb<L>, b: &Obb<L>) -> ObbContact<L> {
    sat_with_fallback(a, b, L::splat(0.0))
}

/// [`box_box_sat`] for contact generation at `margin`: lanes whose decision
/// "depth >= -margin" the edge allowance could have made (some edge axis
/// would separate by more than `margin` without its allowance) are
/// recomputed by the world-space [`obb_obb_contact`](crate::overlap::obb_obb_contact),
/// so every decision is either certain or `obb_obb`'s own (its few-ulp
/// band), however near-parallel the edges. Such lanes are rare (a pair
/// separated along a near-parallel edge axis by less than its allowance);
/// the fallback runs only for packs that hold one.
#[inline(always)]
fn sat_with_fallback<L: Lane>(a: &Obb<L>, b: &Obb<L>, margin: L) -> ObbContact<L> {
    let (fast, unsure, face) = rotation_matrix_sat(a, b, margin);
    if unsure.none() {
        return fast;
    }
    let exact = crate::overlap::obb_obb_contact(a, b);
    // `obb_obb_contact` has only the relative face bias: its edge axis
    // replaces the best face here only by more than the face tolerance
    let edge_wins = exact.depth.lt(face.depth - face_tolerance(a, b, face.depth));
    let keep_face = unsure & exact.axis.ge(L::splat(6.0)) & !edge_wins;
    let take_exact = unsure.and_not(keep_face);
    ObbContact {
        hit: (unsure & exact.hit) | fast.hit.and_not(unsure),
        axis: L::select(take_exact, exact.axis, L::select(keep_face, face.axis, fast.axis)),
        normal: V3::select(
            take_exact,
            exact.normal,
            V3::select(keep_face, face.normal, fast.normal),
        ),
        depth: L::select(take_exact, exact.depth, L::select(keep_face, face.depth, fast.depth)),
    }
}

/// Absolute part of the face preference, per unit of `max h_A + max h_B`
/// (`2^-12`). A relative bias alone (`OBB_EDGE_AXIS_BIAS · |face depth|`)
/// vanishes for boxes resting at exact touching, where a near-equivalent edge
/// axis of a stack (`A_x × B_z ≈ ±A_y` for a small twist) then wins or loses
/// by rounding and the manifold flips between four face points and one edge
/// point. Box2D v3 (`b2CollidePolygons`) prefers A's face unless B's
/// separation is larger by `0.1·b2_linearSlop`, an absolute tolerance of
/// about `5·10^-4` of a metre-sized body; this is the scale-free analogue.
pub const FACE_AXIS_ABS_TOL: f32 = 1.0 / 4096.0;

/// How much an edge axis must beat the best face depth `face_depth` by:
/// `OBB_EDGE_AXIS_BIAS·|face_depth| + FACE_AXIS_ABS_TOL·(max h_A + max h_B)`.
#[inline(always)]
pub(super) fn face_tolerance<L: Lane>(a: &Obb<L>, b: &Obb<L>, face_depth: L) -> L {
    let size = a.half.max_element() + b.half.max_element();
    L::splat(OBB_EDGE_AXIS_BIAS) * face_depth.abs() + L::splat(FACE_AXIS_ABS_TOL) * size
}

/// The best face axis of [`rotation_matrix_sat`] (axis index, unit normal
/// from A to B, depth).
#[derive(Clone, Copy)]
struct FaceAxis<L: Lane> {
    axis: L,
    normal: V3<L>,
    depth: L,
}

/// The rotation-matrix SAT of [`box_box_sat`], and the lanes whose contact
/// decision at `margin` is not certain (see [`sat_with_fallback`]).
#[inline(always)]
fn rotation_matrix_sat<L: Lane>(
    a: &Obb<L>,
    b: &Obb<L>,
    margin: L,
) -> (ObbContact<L>, L::Mask, FaceAxis<L>) {
    let valid = a.is_valid() & b.is_valid();
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let inf = L::splat(f32::INFINITY);
    let nan = L::splat(f32::NAN);
    let t = b.center - a.center;
    let ha = [a.half.x, a.half.y, a.half.z];
    let hb = [b.half.x, b.half.y, b.half.z];
    let r: [[L; 3]; 3] = from3!(|i| {
        let ai = a.axes[i];
        [ai.dot(b.axes[0]), ai.dot(b.axes[1]), ai.dot(b.axes[2])]
    });
    let ar: [[L; 3]; 3] = map3!(r, |row| map3!(row, |x| x.abs()));
    let ta = [t.dot(a.axes[0]), t.dot(a.axes[1]), t.dot(a.axes[2])];
    let ata = map3!(ta, |x| x.abs());

    // faces: (overlap, index, t·L) of the least overlap, lowest index on ties
    let (mut f_o, mut f_k, mut f_tl) = (inf, zero, zero);
    for i in 0..3 {
        let o = ha[i] + (hb[0] * ar[i][0] + hb[1] * ar[i][1] + hb[2] * ar[i][2]) - ata[i];
        // if (o < best) best = (o, i, t·A_i);
        let take = o.lt(f_o);
        f_o = L::select(take, o, f_o);
        f_k = L::select(take, L::splat(i as f32), f_k);
        f_tl = L::select(take, ta[i], f_tl);
    }
    for j in 0..3 {
        let tb = t.dot(b.axes[j]);
        let o = (ha[0] * ar[0][j] + ha[1] * ar[1][j] + ha[2] * ar[2][j]) + hb[j] - tb.abs();
        let take = o.lt(f_o);
        f_o = L::select(take, o, f_o);
        f_k = L::select(take, L::splat((3 + j) as f32), f_k);
        f_tl = L::select(take, tb, f_tl);
    }

    // edges: (raised overlap, |L|, index, t·L) of the least depth
    let eps = L::splat(BOX_SAT_EDGE_ALLOWANCE);
    let t1 = t.x.abs() + t.y.abs() + t.z.abs();
    let eps_t = eps * t1;
    let p: [L; 3] = from3!(|i| {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        eps * (ha[i1] + ha[i2] + ata[i1] + ata[i2])
    });
    let q: [L; 3] = from3!(|j| eps * (hb[(j + 1) % 3] + hb[(j + 2) % 3]));
    let (mut e_o, mut e_len, mut e_k, mut e_tl) = (inf, one, zero, zero);
    let mut unsure = <L::Mask as LaneMask>::splat(false);
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = ha[i1] * ar[i2][j] + ha[i2] * ar[i1][j];
            let rb = hb[j1] * ar[i][j2] + hb[j2] * ar[i][j1];
            let tl = ta[i2] * r[i1][j] - ta[i1] * r[i2][j];
            let err = (p[i] + q[j]) + eps_t * (ar[i1][j] + ar[i2][j]);
            let o = ra + rb - tl.abs() + err;
            let len = (r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j]).sqrt();
            // exact overlap is in [o - 2·err, o]: could this axis separate
            // by more than the margin? (`eps·margin` absorbs the rounding
            // of `margin·len`)
            unsure = unsure | (o - (err + err) - eps * margin).lt(-(margin * len));
            // if (o/len < e_o/e_len) best = ...;  (len = 0: inf·0 or 0 < 0, never)
            let take = (o * e_len).lt(e_o * len);
            e_o = L::select(take, o, e_o);
            e_len = L::select(take, len, e_len);
            e_k = L::select(take, L::splat((6 + 3 * i + j) as f32), e_k);
            e_tl = L::select(take, tl, e_tl);
        }
    }
    let e_depth = e_o / e_len;
    // if (edge.depth < face.depth - face_tolerance) use the edge axis;
    let use_edge = e_depth.lt(f_o - face_tolerance(a, b, f_o));
    let depth = L::select(use_edge, e_depth, f_o);
    let axis = L::select(use_edge, e_k, f_k);
    let tl = L::select(use_edge, e_tl, f_tl);
    // the winner's world axis: A_k, B_(k-3) or A_i × B_j
    let is = |x: L, k: f32| x.eq(L::splat(k));
    let fa = pick3v(is(f_k, 0.0), is(f_k, 1.0), a.axes);
    let fb = pick3v(is(f_k, 3.0), is(f_k, 4.0), b.axes);
    let face_l = V3::select(f_k.lt(L::splat(3.0)), fa, fb);
    let e_i0 = e_k.lt(L::splat(9.0));
    let e_i1 = !e_i0 & e_k.lt(L::splat(12.0));
    let e_j =
        e_k - L::splat(6.0) - L::select(e_i0, zero, L::select(e_i1, L::splat(3.0), L::splat(6.0)));
    let ea = pick3v(e_i0, e_i1, a.axes);
    let eb = pick3v(e_j.eq(zero), e_j.eq(one), b.axes);
    let l = V3::select(use_edge, ea.cross(eb), face_l);
    // normal = L/|L|, flipped to point from A to B (t·L >= 0)
    let s = L::select(tl.lt(zero), L::splat(-1.0), one) / l.length();
    let normal = l * s;
    let face = FaceAxis {
        axis: f_k,
        normal: face_l * L::select(f_tl.lt(zero), L::splat(-1.0), one),
        depth: f_o,
    };
    let contact = ObbContact {
        // the least overlap, not the chosen one: the face tolerance may keep
        // a face whose overlap is >= 0 while an edge axis separates
        hit: valid & f_o.min(e_depth).ge(zero),
        axis: L::select(valid, axis, nan),
        normal: V3::select(valid, normal, V3::splat(nan)),
        depth: L::select(valid, depth, nan),
    };
    // a lane reported separated is certain (edge overlaps are never below
    // exact); one reported within the margin may owe it to an allowance
    (contact, unsure & valid & depth.ge(-margin), face)
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
/// [`box_box`] on one pack runs the face clipping whenever one lane needs it,
/// so a pack with a few contacts costs as much as a full one, and the
/// edge–edge path runs for a single edge lane. Here the SAT runs pack by pack;
/// a pack whose contacts are dense enough for a path (at x16: 8 face lanes
/// for the face path, 2 edge lanes for the edge path) runs that path in
/// place, and the lanes of sparse packs are copied into dense staging packs, one per path, which are run when
/// full (and once at the end) and whose results are copied back to their
/// lanes. Packs with no contact only store an empty manifold. Every manifold
/// depends only on its own pair (the testers are lane-independent), so the
/// output equals [`box_box`]'s whatever the batch, width or mix of pairs
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
        let m = if self.face {
            let need = lanes_below::<L>(self.n);
            face_manifold(&self.a, &self.b, self.axis, self.normal, self.margin, need)
        } else {
            edge_manifold(&self.a, &self.b, self.axis, self.normal, self.margin)
        };
        for (k, &(c, j)) in self.dst[..self.n].iter().enumerate() {
            copy_lane::<L, _>(&mut out[c as usize], j as usize, &m, k);
        }
        self.n = 0;
    }
}

/// The mask of lanes `0..n`.
#[inline(always)]
fn lanes_below<L: Lane>(n: usize) -> L::Mask {
    let idx: [f32; 16] = core::array::from_fn(|i| i as f32);
    L::load(&idx[..L::WIDTH]).lt(L::splat(n as f32))
}

/// Copies lane `sj` of the field-major lane struct `src` to lane `dj` of `dst`
/// (every `f32` field of a `T<L>` is `L::WIDTH` consecutive floats).
#[inline(always)]
fn copy_lane<L: LanePod, T: Pod>(dst: &mut T, dj: usize, src: &T, sj: usize) {
    let w = L::WIDTH;
    let d: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(dst));
    let s: &[f32] = bytemuck::cast_slice(core::slice::from_ref(src));
    for (dc, sc) in d.chunks_exact_mut(w).zip(s.chunks_exact(w)) {
        dc[dj] = sc[sj];
    }
}

/// The lanes that get a contact, split by path: `(face, edge)` (face axis
/// `0..6`, edge axis `6..15`). Invalid lanes are in neither.
#[inline(always)]
fn contact_lanes<L: Lane>(sat: &ObbContact<L>, margin: L) -> (L::Mask, L::Mask) {
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
fn finish<L: Lane>(
    a: &Obb<L>,
    b: &Obb<L>,
    sat: &ObbContact<L>,
    margin: L,
    face: L::Mask,
    edge: L::Mask,
) -> Manifold<L> {
    let empty = Manifold::empty();
    let mut out = empty;
    if face.any() {
        out = face_manifold(a, b, sat.axis, sat.normal, margin, face);
    }
    if edge.any() {
        let e = edge_manifold(a, b, sat.axis, sat.normal, margin);
        out = select_manifold(edge, &e, &out);
    }
    select_manifold(face | edge, &out, &empty)
}

/// A face of a box used as the reference face: centre `c`, tangents `u`, `v`
/// (axes `k+1`, `k+2` of face axis `k`) with half extents `hu`, `hv`, and the
/// face number `2k + [outward normal along -axis k]`.
#[derive(Clone, Copy)]
pub(super) struct RefFace<L: Lane> {
    pub c: V3<L>,
    pub u: V3<L>,
    pub v: V3<L>,
    pub hu: L,
    pub hv: L,
    pub face: L,
}

/// The face of `r` on axis `kr ∈ 0..3` whose outward normal points along `n`.
#[inline(always)]
pub(super) fn ref_face<L: Lane>(r: &Obb<L>, kr: L, n: V3<L>) -> RefFace<L> {
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
pub(super) struct IncidentFace<L: Lane> {
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
pub(super) fn incident_face<L: Lane>(inc: &Obb<L>, n: V3<L>) -> IncidentFace<L> {
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
pub(super) struct FaceEdge<L: Lane> {
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
pub(super) fn clip_edge_rect<L: Lane>(
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
fn face_manifold<L: Lane>(
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
    keep_closest_pair(m, a, sv_depth, margin, BOX_BOX_CLOSEST_ID_BASE, b)
}

/// The reported position (a point on B) of a contact candidate: what
/// [`manifold_of`] writes for each chosen candidate. A trait, not a closure
/// argument: a closure is compiled without the dispatched entry's target
/// features unless LLVM happens to inline it (`crate::simd`).
pub(super) trait PointOnB<L: Lane> {
    /// The position of candidate `c`.
    fn on_b(&self, c: &Candidate<L>) -> V3<L>;
}

/// Candidates in the frame `(origin, u, v)` of a face with outward normal
/// `n`: the point `origin + u·x + v·y`, moved by `depth` against `n` in the
/// lanes of `below` (it is then on the other face).
pub(super) struct FacePoint<L: Lane> {
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
pub(super) fn manifold_of<L: Lane, const N: usize>(
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
pub(super) fn reduce4<L: Lane, const N: usize>(
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

/// The edge of box `o` along axis `e ∈ 0..3` farthest along `dir` (ties to
/// the `+` side): its centre, direction (the unit axis), half length and id
/// `4·e + 2·[s_(e+1) < 0] + [s_(e+2) < 0]` (`s_m` the side along axis `m`).
#[inline(always)]
pub(super) fn support_edge<L: Lane>(o: &Obb<L>, dir: V3<L>, e: L) -> (V3<L>, V3<L>, L, L) {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let hs = [o.half.x, o.half.y, o.half.z];
    let mut p = o.center;
    let mut sgn = [zero; 3];
    for m in 0..3 {
        let on_edge_axis = e.eq(L::splat(m as f32));
        let s = sign(o.axes[m].dot(dir));
        sgn[m] = s;
        p += o.axes[m] * L::select(on_edge_axis, zero, s * hs[m]);
    }
    let (e0, e1) = (e.eq(zero), e.eq(one));
    let s1 = pick3(e0, e1, [sgn[1], sgn[2], sgn[0]]);
    let s2 = pick3(e0, e1, [sgn[2], sgn[0], sgn[1]]);
    let id = e * L::splat(4.0)
        + L::select(s1.lt(zero), L::splat(2.0), zero)
        + L::select(s2.lt(zero), one, zero);
    (p, pick3v(e0, e1, o.axes), pick3(e0, e1, hs), id)
}

/// Manifold for an edge axis `axis = 6 + 3i + j` (edge of A along `A_i`, of B
/// along `B_j`): one point at the closest points of the two support edges.
#[inline(always)]
fn edge_manifold<L: Lane>(
    a: &Obb<L>,
    b: &Obb<L>,
    axis: L,
    normal: V3<L>,
    margin: L,
) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let k = axis - L::splat(6.0);
    let i =
        L::select(k.lt(L::splat(3.0)), zero, L::select(k.lt(L::splat(6.0)), one, L::splat(2.0)));
    let j = k - i * L::splat(3.0);
    // The support edge of A along +normal and of B along -normal.
    let (pa, da, ha, ida) = support_edge(a, normal, i);
    let (pb, db, hb, idb) = support_edge(b, -normal, j);
    // Closest points of the segments pa + s·da, |s| <= ha and pb + t·db,
    // |t| <= hb (Ericson §5.1.9, specialised to non-parallel edges: parallel
    // edge axes are never chosen). Not `contact::util::closest_segments`: its
    // scaling and degenerate-segment handling, not needed here, made box–box
    // 2.3–4.5 % slower at x16 (criterion A/B, `--bench contact_boxes`).
    let r = pa - pb;
    let aa = da.dot(da);
    let ee = db.dot(db);
    let bb = da.dot(db);
    let c = da.dot(r);
    let f = db.dot(r);
    let denom = aa * ee - bb * bb;
    let clamp = |x: L, h: L| x.max(-h).min(h);
    let s = L::select(denom.gt(zero), clamp((bb * f - c * ee) / denom, ha), zero);
    let t = L::select(ee.gt(zero), clamp((bb * s + f) / ee, hb), zero);
    let s = L::select(aa.gt(zero), clamp((bb * t - c) / aa, ha), zero);
    let qa = pa + da * s;
    let qb = pb + db * t;
    let depth = (qa - qb).dot(normal);
    let mut m = Manifold::empty();
    m.normal = normal;
    m.count = one;
    m.points[0] = ContactPoint {
        position: qb,
        depth,
        feature_id: L::splat(EDGE_EDGE_ID_BASE) + ida * L::splat(16.0) + idb,
    };
    // the support edges' gap along the normal is the SAT gap: only a point
    // pair clamped to an edge's end (not along the normal) is replaced
    keep_closest_pair(m, a, depth, margin, BOX_BOX_CLOSEST_ID_BASE, b)
}
