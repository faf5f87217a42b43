//! OBB–OBB overlap and contact by the 15-axis separating-axis test.
//!
//! Sources: seed `000` §4.4.1/§5.2.1 (Ericson's `TestOBBOBB`), seed `004`
//! (OBB collision with SAT; the axis of least overlap as contact normal and
//! penetration depth), seed `003` (15 axes).
//!
//! # Formulation
//!
//! Ericson expresses everything in A's frame through `R_ij = A_i·B_j` and
//! assumes exactly orthonormal axes, adding an arbitrary `ε` to `|R_ij|` so that
//! the noise cross products of parallel edges cannot separate. Here the test is
//! written in world space on the box *as given* — the parallelepiped
//! `c + Σ s_i h_i A_i`, `|s_i| <= 1` — so it agrees with an exact reference even
//! though `f32` axes are never exactly orthonormal:
//!
//! ```text
//! t = c_B - c_A
//! axes L: A_1×A_2, A_2×A_0, A_0×A_1          (A's face normals, index 0..2)
//!         B_1×B_2, B_2×B_0, B_0×B_1          (B's face normals, index 3..5)
//!         A_i × B_j                          (edge pairs, index 6 + 3i + j)
//! r_A(L) = Σ h_A,i |A_i·L|,  r_B(L) = Σ h_B,j |B_j·L|     (support radii)
//! overlap(L) = r_A + r_B - |t·L|      separated on L  iff  overlap < 0
//! ```
//!
//! An edge axis whose components are all within their rounding bound of zero
//! (parallel edges, [`sat::is_noise_axis`](crate::overlap::sat::is_noise_axis))
//! is skipped: its direction is noise (Ericson §5.2.1.1), and the face axes
//! already cover the configurations where it would be zero.

use crate::overlap::sat::{cross_with_magnitude, is_noise_axis};
use crate::{Lane, LaneMask, Obb, V3};

/// The 15 axes with their unrounded magnitudes, in index order.
#[inline(always)]
fn axes15<L: Lane>(a: &Obb<L>, b: &Obb<L>) -> [(V3<L>, V3<L>); 15] {
    // Functions, not closures: a closure is a separate function that would be
    // compiled without a dispatched path's features (src/simd).
    #[inline(always)]
    fn face<L: Lane>(o: &Obb<L>, i: usize) -> (V3<L>, V3<L>) {
        cross_with_magnitude(o.axes[(i + 1) % 3], o.axes[(i + 2) % 3])
    }
    #[inline(always)]
    fn edge_of<L: Lane>(a: &Obb<L>, b: &Obb<L>, i: usize, j: usize) -> (V3<L>, V3<L>) {
        cross_with_magnitude(a.axes[i], b.axes[j])
    }
    // Written out (not `array::from_fn` over a `match`), so every axis is
    // straight-line code after inlining.
    [
        face(a, 0),
        face(a, 1),
        face(a, 2),
        face(b, 0),
        face(b, 1),
        face(b, 2),
        edge_of(a, b, 0, 0),
        edge_of(a, b, 0, 1),
        edge_of(a, b, 0, 2),
        edge_of(a, b, 1, 0),
        edge_of(a, b, 1, 1),
        edge_of(a, b, 1, 2),
        edge_of(a, b, 2, 0),
        edge_of(a, b, 2, 1),
        edge_of(a, b, 2, 2),
    ]
}

/// Support radius `Σ h_i |axes_i·L|` of a box on `L`.
#[inline(always)]
fn radius<L: Lane>(o: &Obb<L>, l: V3<L>) -> L {
    o.half.x * o.axes[0].dot(l).abs()
        + o.half.y * o.axes[1].dot(l).abs()
        + o.half.z * o.axes[2].dot(l).abs()
}

/// `(overlap, t·L)` on one axis.
#[inline(always)]
fn overlap_on<L: Lane>(a: &Obb<L>, b: &Obb<L>, t: V3<L>, l: V3<L>) -> (L, L) {
    let tl = t.dot(l);
    (radius(a, l) + radius(b, l) - tl.abs(), tl)
}

/// Whether the closed oriented boxes `a` and `b` intersect, per lane
/// (touching counts; a zero half extent is a rectangle, segment or point).
///
/// **LANE-GENERIC** (`L = f32` is the scalar API). 15-axis SAT in world space
/// (see the module docs); exact outside the ulp band of the
/// [contracts](crate#contracts), the band being stated in `simd-notes.md`.
/// The box is the parallelepiped spanned by its axes as given; the axes are
/// expected orthonormal (as [`Obb::try_new`] checks), and for boxes with a
/// zero half extent the answer is exact only up to their deviation from
/// orthonormality. Invalid lanes (non-finite values, negative half extent)
/// answer `false`.
///
/// ```
/// use widephase::{overlap::obb_obb, Obb, Vec3};
/// let a = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// let face_touch = Obb::new(Vec3::new(3.0, 0.5, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::new(2.0, 1.0, 1.0));
/// assert!(obb_obb(&a, &face_touch));
/// let apart = Obb::new(Vec3::new(3.5, 0.0, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::new(2.0, 1.0, 1.0));
/// assert!(!obb_obb(&a, &apart));
/// ```
#[inline(always)]
pub fn obb_obb<L: Lane>(a: &Obb<L>, b: &Obb<L>) -> L::Mask {
    let valid = a.is_valid() & b.is_valid();
    let t = b.center - a.center;
    let zero = L::splat(0.0);
    let mut separated = <L::Mask as LaneMask>::splat(false);
    for (k, (l, m)) in axes15(a, b).into_iter().enumerate() {
        let (overlap, _) = overlap_on(a, b, t, l);
        // if (r_A + r_B < |t·L| && L is a real axis) return separated;
        let mut sep = overlap.lt(zero);
        if k >= 6 {
            sep = sep.and_not(is_noise_axis(l, m));
        }
        separated = separated | sep;
    }
    valid.and_not(separated)
}

/// Relative tolerance of [`obb_obb_conservative`]: `16u` (the derived need is
/// `8.01u`, see the function docs).
pub const OBB_CONSERVATIVE_K: f32 = 16.0 * crate::UNIT_ROUNDOFF;
/// Absolute term of [`obb_obb_conservative`]: `2^-140`, covering underflowed
/// products (at most about 40 of `2^-150` each per axis).
pub const OBB_CONSERVATIVE_FLOOR: f32 = f32::from_bits(512);

/// Conservative OBB–OBB overlap, per lane: never answers "separated" when the
/// closed boxes (the parallelepipeds as given, as in [`obb_obb`]) touch or
/// overlap in exact arithmetic.
///
/// Same 15 axes and the same `overlap(L) = r_A + r_B - |t·L|` as [`obb_obb`],
/// but an axis separates only when `overlap < -(16u·M_L + 2^-140)`,
/// `M_L = (Σ h_A,i|A_i| + Σ h_B,j|B_j| + |t|)·|L|` (componentwise absolute
/// values, `W = Σ h_A,i|A_i| + Σ h_B,j|B_j|` computed once per pair).
///
/// Why it cannot miss: the rounded axis `L` is some float vector, and if the
/// exact projections on *that* vector are disjoint the boxes are disjoint (any
/// vector is a certificate, [`sat`](crate::overlap::sat)), so the rounding of
/// the cross products needs no allowance and parallel-edge noise axes need no
/// rule. What remains is the rounding of the projections on `L`: each dot
/// `A_i·L` errs by `γ3·Σ_k|A_ik||L_k|`, the product with `h` and the two sums
/// of the radius add `3u`, `t = fl(c_B - c_A)` and `t·L` err by `4u·|t|·|L|`,
/// and the last two operations by `2u` of everything: in all
/// `<= 8.01u·M_L`. The computed `M_L` is at least `(1 - 14u)` of the exact
/// one, so `16u·M_L` (an exact power-of-two product) covers it; the floor
/// covers underflow. Overflow gives `±∞` or NaN overlaps and tolerances, and
/// those compare "not separated". False positives only when every one of the
/// 15 exact axes has `overlap >= -32u·M` (inside [`obb_obb`]'s band,
/// `simd-notes.md`, "OBB–OBB").
///
/// **LANE-GENERIC**, bit-identical at every width. Invalid lanes answer `false`.
///
/// ```
/// use widephase::{overlap::obb_obb_conservative, Obb, Vec3};
/// let a = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// let touch = Obb::new(Vec3::new(3.0, 0.5, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::new(2.0, 1.0, 1.0));
/// assert!(obb_obb_conservative(&a, &touch));
/// let apart = Obb::new(Vec3::new(3.5, 0.0, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::new(2.0, 1.0, 1.0));
/// assert!(!obb_obb_conservative(&a, &apart));
/// ```
#[inline(always)]
pub fn obb_obb_conservative<L: Lane>(a: &Obb<L>, b: &Obb<L>) -> L::Mask {
    let valid = a.is_valid() & b.is_valid();
    let t = b.center - a.center;
    // (functions, not closures, in dispatched kernels: see `crate::simd`)
    #[inline(always)]
    fn reach<L: Lane>(o: &Obb<L>) -> V3<L> {
        o.axes[0].abs() * o.half.x + o.axes[1].abs() * o.half.y + o.axes[2].abs() * o.half.z
    }
    let w = reach(a) + reach(b) + t.abs();
    let k = L::splat(OBB_CONSERVATIVE_K);
    let floor = L::splat(OBB_CONSERVATIVE_FLOOR);
    let mut separated = <L::Mask as LaneMask>::splat(false);
    for (l, _) in axes15(a, b) {
        let (overlap, _) = overlap_on(a, b, t, l);
        let tol = k * w.dot(l.abs()) + floor;
        // if (r_A + r_B - |t·L| < -tol) return separated;
        separated = separated | overlap.lt(-tol);
    }
    valid.and_not(separated)
}

/// The contact of [`obb_obb_contact`]: per lane, the axis of least overlap.
#[derive(Clone, Copy, Debug)]
pub struct ObbContact<L: Lane> {
    /// Lanes where the boxes intersect (touching counts): exactly [`obb_obb`].
    pub hit: L::Mask,
    /// Index of the chosen axis as a float: `0..=2` A's face normals
    /// (`A_1×A_2`, `A_2×A_0`, `A_0×A_1`), `3..=5` B's, `6 + 3i + j` the edge
    /// pair `A_i × B_j`. NaN in invalid lanes.
    pub axis: L,
    /// Unit contact normal along that axis, pointing from A to B
    /// (`normal·(c_B - c_A) >= 0`). NaN in invalid lanes.
    pub normal: V3<L>,
    /// Penetration depth: the length of the smallest translation of B along
    /// `normal` that separates the boxes (touching: 0). Negative in lanes that
    /// do not intersect: the boxes are then at least `-depth` apart along
    /// `normal`. NaN in invalid lanes.
    pub depth: L,
}

/// Relative margin by which an edge axis must beat the best face axis to be
/// chosen (`2^-7`): the face-axis bias of the tie rule, as in Box2D's
/// `b2_linearSlop`-scaled tolerance, so that resting contacts do not flip
/// between a face normal and a near-equivalent edge normal.
pub const OBB_EDGE_AXIS_BIAS: f32 = 1.0 / 128.0;

/// OBB–OBB contact by the axis of least overlap (seed `004`): the 15 axes of
/// [`obb_obb`], each normalised, the overlap `(r_A + r_B - |t·L|)/|L|` being
/// the depth along it.
///
/// **Tie rule** (deterministic, favours face axes): among face axes `0..=5` the
/// smallest depth wins, the lowest index on equal depths; an edge axis
/// `6..=14` replaces it only if its depth is smaller by more than
/// [`OBB_EDGE_AXIS_BIAS`]` · |face depth|`, the lowest index again winning
/// among edges. Edge axes of (nearly) parallel edges are skipped (their
/// direction is rounding noise).
///
/// **LANE-GENERIC** (`L = f32` is the scalar API). Follows the
/// [contracts](crate#contracts); numeric fields are accurate to a few ulps of
/// the magnitudes involved.
///
/// ```
/// use widephase::{overlap::obb_obb_contact, Obb, Vec3};
/// let a = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// let b = Obb::new(Vec3::new(1.5, 0.0, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// let c = obb_obb_contact(&a, &b);
/// assert!(c.hit);
/// assert_eq!(c.axis, 0.0); // A's face normal A_1×A_2 = +x
/// assert_eq!(c.normal, Vec3::X);
/// assert_eq!(c.depth, 0.5);
/// ```
#[inline(always)]
pub fn obb_obb_contact<L: Lane>(a: &Obb<L>, b: &Obb<L>) -> ObbContact<L> {
    let valid = a.is_valid() & b.is_valid();
    let t = b.center - a.center;
    let zero = L::splat(0.0);
    let inf = L::splat(f32::INFINITY);
    let nan = L::splat(f32::NAN);
    let mut separated = <L::Mask as LaneMask>::splat(false);

    // (depth, index, signed axis, |axis|) among faces and among edges; the
    // winner is normalised once at the end (same values as normalising every
    // axis, three divisions instead of forty-five).
    let mut best = (inf, zero, V3::splat(zero), L::splat(1.0));
    let mut edge = best;
    let axes = axes15(a, b);
    // Faces and edges in two loops with their own running minimum, so the
    // state stays in registers (one loop choosing a `&mut` slot per axis kept
    // it on the stack).
    // A function, not a closure: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    type Slot<L> = (L, L, V3<L>, L);
    #[inline(always)]
    fn visit<L: Lane>(
        (a, b, t): (&Obb<L>, &Obb<L>, V3<L>),
        separated: &mut L::Mask,
        slot: &mut Slot<L>,
        (k, l): (usize, V3<L>),
        real: L::Mask,
    ) {
        let zero = L::splat(0.0);
        let (overlap, tl) = overlap_on(a, b, t, l);
        *separated = *separated | (overlap.lt(zero) & real);
        let len = l.length();
        let depth = overlap / len;
        // normal = L/|L|, flipped to point from A to B (t·L >= 0)
        let signed = V3::select(tl.lt(zero), -l, l);
        // if (real && depth < slot.depth) slot = (depth, k, normal);
        let take = depth.lt(slot.0) & real;
        slot.0 = L::select(take, depth, slot.0);
        slot.1 = L::select(take, L::splat(k as f32), slot.1);
        slot.2 = V3::select(take, signed, slot.2);
        slot.3 = L::select(take, len, slot.3);
    }
    for (k, (l, _)) in axes.iter().enumerate().take(6) {
        visit((a, b, t), &mut separated, &mut best, (k, *l), <L::Mask as LaneMask>::splat(true));
    }
    for (k, (l, m)) in axes.iter().enumerate().skip(6) {
        visit((a, b, t), &mut separated, &mut edge, (k, *l), !is_noise_axis(*l, *m));
    }
    // if (edge.depth < face.depth - bias·|face.depth|) use the edge axis;
    let use_edge = edge.0.lt(best.0 - L::splat(OBB_EDGE_AXIS_BIAS) * best.0.abs());
    let depth = L::select(use_edge, edge.0, best.0);
    let axis = L::select(use_edge, edge.1, best.1);
    let normal = V3::select(use_edge, edge.2, best.2) / L::select(use_edge, edge.3, best.3);
    ObbContact {
        hit: valid.and_not(separated),
        axis: L::select(valid, axis, nan),
        normal: V3::select(valid, normal, V3::splat(nan)),
        depth: L::select(valid, depth, nan),
    }
}
