//! The 15-axis SAT of box–box in A's frame, with its world-space fallback.

use super::pick3v;
use crate::overlap::{ObbContact, OBB_EDGE_AXIS_BIAS};
use crate::simd::unroll::{from3, map3};
use crate::{Lane, LaneMask, Obb, V3};

/// Allowance factor `ε` of [`box_box_sat`]'s edge axes (`2^-19 = 32u`): to
/// first order it bounds, per unit of the magnitudes it multiplies, the
/// absolute error of an edge overlap: `γ3 ≈ 3u` per entry of `R = Aᵀ·B` and
/// of `t_A`, `~4u` for the expression, and `2δ` for the frame-of-A
/// identities when the axes are orthonormal to within `δ <= 8u` (f32
/// rotations built by normalising and crossing are within a few `u`). See
/// `simd-notes.md`, "Box–box: rotation-matrix SAT".
pub const BOX_SAT_EDGE_ALLOWANCE: f32 = 1.0 / 524_288.0;

/// The SAT of [`box_box`](super::box_box): the axis of least overlap of the 15 box–box axes
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
pub(super) fn sat_with_fallback<L: Lane>(a: &Obb<L>, b: &Obb<L>, margin: L) -> ObbContact<L> {
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
pub(in crate::contact) fn face_tolerance<L: Lane>(a: &Obb<L>, b: &Obb<L>, face_depth: L) -> L {
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
