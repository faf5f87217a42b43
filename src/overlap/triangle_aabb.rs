//! Triangle–AABB overlap: the 13-axis separating-axis test.
//!
//! Source: Ericson, *Real-Time Collision Detection* §5.2.9 (seed 000, "Тестирование
//! пересечения AABB и Треугольника"), after Akenine-Möller's tribox3 (2001).
//! The printed listing has an erratum in the first edge axis: it computes
//! `p2 = v2.z*(v1.y - v0.y) - v2.z*(v1.z - v0.z)`; the second product must use
//! `v2.y`. `tests/boxes.rs` replays the printed formula and shows it misses
//! overlaps.
//!
//! # The kernel
//! ```text
//! separated on a box face axis k  <=>  min_j T_j.k > max.k  or  max_j T_j.k < min.k
//!     (plain comparisons on the inputs: exact, so faces lying on a box face touch)
//! c = (min+max)/2, h = (max-min)/2, v_j = T_j - c, f_i = T_{i+1} - T_i
//! for each box axis u_k and edge f_i:   a = u_k × f_i
//!     p, q = a·v_j for the two distinct projections (two vertices project equally)
//!     r    = h · |a|
//!     separated  <=>  max(-max(p, q), min(p, q)) > r
//! triangle normal n = f_0 × f_1:  separated <=> |n·v_0| > h·|n|
//! ```
//! `max(-max(p,q), min(p,q)) > r` is the one-comparison form of
//! `max(p,q) < -r || min(p,q) > r` (Ericson's suggestion for SIMD): the distance
//! by which the triangle's interval clears the box's symmetric interval `[-r, r]`.
//!
//! The conservative variant replaces `h` on the edge axes by `h + G` and adds a
//! bound `E_n` on the normal axis, where `G = K·(max_j |v_j| + |c| + h)`; both are
//! upper bounds of the accumulated rounding error derived in `simd-notes.md`
//! ("Triangle–AABB error bound"). Folding the bound into the half extents makes
//! the conservative kernel cost the same as the default one on the nine edge axes.

use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::shapes::{Aabb, Triangle};

/// Relative error constant for the nine edge axes: `2^-20 = 16u`, more than
/// twice the derived `7.1u` (see `simd-notes.md`), so the bound also covers the rounding
/// of its own evaluation.
pub const TRI_AABB_EDGE_K: f32 = 1.0 / 1_048_576.0;
/// Relative error constant for the triangle-normal axis: `2^-19 = 32u`, more than
/// three times the derived `9.1u`.
pub const TRI_AABB_NORMAL_K: f32 = 1.0 / 524_288.0;
/// Absolute error term covering underflow (each operation that underflows loses
/// at most `2^-150`): `2^-140`.
pub const TRI_AABB_ABS: f32 = f32::from_bits(512);

/// Does the closed triangle `t` touch or overlap the closed box `b`?
///
/// Exact except inside the ulp band of contact, see the crate
/// [contracts](crate#contracts). The three box-face axes are pure comparisons
/// of input coordinates, so they never separate a triangle that lies in a box
/// face's plane or touches it; but the nine edge axes and the normal axis
/// round their projections, so a vertex or edge contact on a box face (or a
/// triangle in the face's plane that only meets the face at its border) can
/// still be answered "separated" when some edge or normal axis puts it within
/// that axis' band (`7.1u` and `9.1u` of the projection magnitudes,
/// `simd-notes.md`). Use [`triangle_aabb_conservative`] where touching pairs
/// must never be missed.
/// Degenerate triangles are tested as the segment or point they are. Returns
/// `false` for non-finite coordinates and for inverted (empty) boxes.
///
/// Written once over [`Lane`]: with `L = f32` this is the scalar test returning
/// `bool`; with `f32x8` it tests eight triangle–box pairs, bit-identically.
///
/// ```
/// use widephase::{overlap::triangle_aabb, Aabb, Triangle, Vec3};
/// let voxel = Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
/// // a triangle lying exactly in the box's top face plane: touching
/// let on_face = Triangle::new(Vec3::new(0.5, 1.0, 0.5), Vec3::new(3.0, 1.0, 0.5), Vec3::new(0.5, 1.0, 3.0));
/// assert!(triangle_aabb(&on_face, &voxel));
/// // an edge crossing near the corner, just outside
/// let edge = Triangle::new(Vec3::new(2.0, 0.0, 0.5), Vec3::new(0.0, 2.0 + 1e-6, 0.5), Vec3::new(5.0, 5.0, 0.5));
/// assert!(!triangle_aabb(&edge, &voxel));
/// ```
#[inline(always)]
pub fn triangle_aabb<L: Lane>(t: &Triangle<L>, b: &Aabb<L>) -> L::Mask {
    triangle_aabb_impl::<L, false>(t, b)
}

/// Conservative triangle–box test: never returns `false` when the closed
/// triangle and box touch or overlap in exact arithmetic (see the crate
/// [contracts](crate#contracts)). It may return `true` for pairs separated by less
/// than the derived rounding bound. Used by the voxelizer.
///
/// ```
/// use widephase::{overlap::{triangle_aabb, triangle_aabb_conservative}, Aabb, Triangle, Vec3};
/// let voxel = Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
/// let t = Triangle::new(Vec3::new(2.0, 0.0, 0.25), Vec3::new(0.0, 2.0, 0.25), Vec3::new(5.0, 5.0, 0.5));
/// assert!(triangle_aabb(&t, &voxel) && triangle_aabb_conservative(&t, &voxel));
/// ```
#[inline(always)]
pub fn triangle_aabb_conservative<L: Lane>(t: &Triangle<L>, b: &Aabb<L>) -> L::Mask {
    triangle_aabb_impl::<L, true>(t, b)
}

/// [`triangle_aabb`] with the arguments swapped.
#[inline(always)]
pub fn aabb_triangle<L: Lane>(b: &Aabb<L>, t: &Triangle<L>) -> L::Mask {
    triangle_aabb(t, b)
}

/// One projection-interval test on an edge axis: separated when the triangle's
/// interval `[min(p,q), max(p,q)]` misses `[-r, r]`.
#[inline(always)]
fn clears<L: Lane>(p: L, q: L, r: L) -> L::Mask {
    // if (max(p,q) < -r || min(p,q) > r) separated
    (-(p.max(q))).max(p.min(q)).gt(r)
}

/// The screen of the compacting pairwise driver ([`crate::batch::PairKernel::screen`]):
/// the answer of the three box-face axes and the triangle-normal axis alone. A
/// lane it clears is cleared by [`triangle_aabb`] too (the same operations on the
/// same inputs decide those four axes in both), so the driver runs the nine edge
/// axes only on the lanes it keeps, packed together.
#[inline(always)]
pub(crate) fn triangle_aabb_screen<L: Lane, const CONSERVATIVE: bool>(
    t: &Triangle<L>,
    b: &Aabb<L>,
) -> L::Mask {
    match first_axes::<L, CONSERVATIVE>(t, b) {
        FirstAxes::Decided(m) => m,
        FirstAxes::Open(rest) => rest.valid & !rest.sep,
    }
}

#[inline(always)]
fn triangle_aabb_impl<L: Lane, const CONSERVATIVE: bool>(t: &Triangle<L>, b: &Aabb<L>) -> L::Mask {
    match first_axes::<L, CONSERVATIVE>(t, b) {
        FirstAxes::Decided(m) => m,
        FirstAxes::Open(rest) => rest.edge_axes::<CONSERVATIVE>(),
    }
}

/// The four first axes either decide every lane or leave the nine edge axes.
enum FirstAxes<L: Lane> {
    Decided(L::Mask),
    Open(EdgeAxes<L>),
}

/// The state the nine edge axes need, with the lanes the first axes separated.
struct EdgeAxes<L: Lane> {
    valid: L::Mask,
    sep: L::Mask,
    /// Vertices relative to the box centre.
    v: [V3<L>; 3],
    /// Edges `f_i = T_{i+1} - T_i`.
    f: [V3<L>; 3],
    /// Half extents used on the edge axes: `h`, or `h + G` (conservative).
    he: V3<L>,
    /// Covers products that underflow (absolute error ≤ 2^-150 each); zero when exact.
    flat: L,
}

#[inline(always)]
fn first_axes<L: Lane, const CONSERVATIVE: bool>(t: &Triangle<L>, b: &Aabb<L>) -> FirstAxes<L> {
    let valid = t.is_valid() & b.is_valid();

    // Category 1 — the box's face normals, as exact comparisons on the inputs.
    let tmin = t.a.min(t.b).min(t.c);
    let tmax = t.a.max(t.b).max(t.c);
    let mut sep = tmin.x.gt(b.max.x)
        | tmax.x.lt(b.min.x)
        | tmin.y.gt(b.max.y)
        | tmax.y.lt(b.min.y)
        | tmin.z.gt(b.max.z)
        | tmax.z.lt(b.min.z);
    // Leave early only when every lane is decided.
    if (sep | !valid).all() {
        return FirstAxes::Decided(valid & !sep);
    }

    let EdgeState { h, w0, rest } = edge_state::<L, CONSERVATIVE>(t, b, valid, sep);
    let EdgeAxes { v: [v0, _, _], f: [f0, f1, _], .. } = rest;

    // Category 2 — the triangle's normal: does the box straddle its plane?
    // Tested before the edge axes: for voxel-sized boxes near a triangle it is
    // the axis that most often separates (Schwarz & Seidel test it first), so
    // whole packs leave early. The OR of the masks does not depend on order.
    let n = f0.cross(f1);
    let s = n.dot(v0).abs();
    let na = n.abs();
    let mut r = h.x * na.x + h.y * na.y + h.z * na.z;
    if CONSERVATIVE {
        // |n_k| is bounded by the unrounded magnitudes of its two products.
        let fa = f0.abs();
        let fb = f1.abs();
        let nabs = V3::new(
            fa.y * fb.z + fa.z * fb.y,
            fa.z * fb.x + fa.x * fb.z,
            fa.x * fb.y + fa.y * fb.x,
        );
        // The MIN_POSITIVE floor covers the absolute (subnormal) error of v_0.
        let m = w0 + h + V3::splat(L::splat(f32::MIN_POSITIVE));
        let bound = (nabs.x * m.x + nabs.y * m.y + nabs.z * m.z) * L::splat(TRI_AABB_NORMAL_K)
            + L::splat(TRI_AABB_ABS);
        r = r + bound;
    }
    sep = sep | s.gt(r);
    if (sep | !valid).all() {
        return FirstAxes::Decided(valid & !sep);
    }
    FirstAxes::Open(EdgeAxes { sep, ..rest })
}

/// The edge axes' inputs, with the box's half extents `h` and `w0` (`|v_0|`,
/// plus `|c|` when conservative) that the normal axis also reads.
struct EdgeState<L: Lane> {
    h: V3<L>,
    w0: V3<L>,
    rest: EdgeAxes<L>,
}

#[inline(always)]
fn edge_state<L: Lane, const CONSERVATIVE: bool>(
    t: &Triangle<L>,
    b: &Aabb<L>,
    valid: L::Mask,
    sep: L::Mask,
) -> EdgeState<L> {
    let half = L::splat(0.5);
    let c = (b.min + b.max) * half;
    let h = (b.max - b.min) * half;
    let v0 = t.a - c;
    let v1 = t.b - c;
    let v2 = t.c - c;
    // Edges from the inputs directly (one rounding each), not from v_j.
    let f0 = t.b - t.a;
    let f1 = t.c - t.b;
    let f2 = t.a - t.c;

    // Half extents used on the edge axes: h, or h + G (conservative).
    // `flat` covers products that underflow (absolute error ≤ 2^-150 each).
    let (he, w0, flat) = if CONSERVATIVE {
        let cabs = c.abs();
        let wmax = v0.abs().max(v1.abs()).max(v2.abs()) + cabs;
        let k = L::splat(TRI_AABB_EDGE_K);
        let abs = V3::splat(L::splat(TRI_AABB_ABS));
        (h + ((wmax + h) * k + abs), v0.abs() + cabs, L::splat(TRI_AABB_ABS))
    } else {
        (h, v0.abs(), L::splat(0.0))
    };
    EdgeState { h, w0, rest: EdgeAxes { valid, sep, v: [v0, v1, v2], f: [f0, f1, f2], he, flat } }
}

/// [`triangle_aabb`] on lanes its screen kept, which are valid and not
/// separated by the first four axes: only the nine edge axes run, with the
/// same operations as in the whole test, so a kept lane gets the same answer.
/// Lanes the screen did not keep get an unspecified answer.
#[inline(always)]
pub(crate) fn triangle_aabb_kept<L: Lane, const CONSERVATIVE: bool>(
    t: &Triangle<L>,
    b: &Aabb<L>,
) -> L::Mask {
    let (yes, no) = (L::Mask::splat(true), L::Mask::splat(false));
    edge_state::<L, CONSERVATIVE>(t, b, yes, no).rest.edge_axes::<CONSERVATIVE>()
}

impl<L: Lane> EdgeAxes<L> {
    #[inline(always)]
    fn edge_axes<const CONSERVATIVE: bool>(self) -> L::Mask {
        let EdgeAxes { valid, mut sep, v: [v0, v1, v2], f, he, flat } = self;
        // Conservative: add the flat underflow term to each edge-axis radius.
        #[inline(always)]
        fn widen<L: Lane, const CONSERVATIVE: bool>(r: L, flat: L) -> L {
            if CONSERVATIVE {
                r + flat
            } else {
                r
            }
        }

        // Category 3 — the nine axes u_k × f_i. For f_i, the two vertices of that
        // edge project to the same value; test the other vertex and one of them:
        // (one vertex of edge i, the vertex opposite edge i).
        let pick = [(v0, v2), (v1, v0), (v2, v1)];
        for i in 0..3 {
            let e = f[i];
            let (va, vb) = pick[i];
            let ea = e.abs();
            // a = u_x × e = (0, -e.z, e.y)
            let p = va.z * e.y - va.y * e.z;
            let q = vb.z * e.y - vb.y * e.z;
            let r = he.y * ea.z + he.z * ea.y;
            sep = sep | clears(p, q, widen::<L, CONSERVATIVE>(r, flat));
            // a = u_y × e = (e.z, 0, -e.x)
            let p = va.x * e.z - va.z * e.x;
            let q = vb.x * e.z - vb.z * e.x;
            let r = he.x * ea.z + he.z * ea.x;
            sep = sep | clears(p, q, widen::<L, CONSERVATIVE>(r, flat));
            // a = u_z × e = (-e.y, e.x, 0)
            let p = va.y * e.x - va.x * e.y;
            let q = vb.y * e.x - vb.x * e.y;
            let r = he.x * ea.y + he.y * ea.x;
            sep = sep | clears(p, q, widen::<L, CONSERVATIVE>(r, flat));
            if (sep | !valid).all() {
                return valid & !sep;
            }
        }

        valid & !sep
    }
}
