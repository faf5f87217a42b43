//! Triangle–triangle overlap: a batched separating-axis kernel
//! ([`triangle_triangle`], [`triangle_triangle_conservative`]), Möller's
//! interval-overlap test ([`triangle_triangle_moller`]) and the
//! Devillers–Guigue orientation test ([`triangle_triangle_guigue`]).
//!
//! Sources: seed `000` §5.2.1 (SAT), §5.2.1.1 (near-parallel edges) and the
//! triangle–triangle section; seed `001` (Möller interval overlap with the
//! vertex-on-plane cases, Guigue–Devillers with the REORDER step; its errata are
//! listed in `simd-notes.md`); T. Möller, "A Fast Triangle-Triangle
//! Intersection Test", JGT 1997; P. Guigue, O. Devillers, "Fast and Robust
//! Triangle-Triangle Overlap Test Using Orientation Predicates", JGT 2003.
//!
//! All functions follow the [contracts](crate#contracts): triangles are closed
//! sets, touching counts, a zero-area triangle is its segment or point, and any
//! non-finite coordinate answers `false`.
//!
//! # The batched kernel
//!
//! ```text
//! o = A.a; scale = a power of two bringing max|P - o| near 1   (exact)
//! pa = (A - o)·scale, pb = (B - o)·scale                        (one rounding each)
//! if A or B has a normal that may be zero (degenerate lane):
//!     answer that lane with the scalar f64 hull test         (rare; same code at every width)
//! 23 axes: nA, nB, eA_i × eB_j (9), nA × eA_i, nB × eB_j, nA × eB_j, nB × eA_i (12)
//! separated = some axis with gap(proj(pa), proj(pb)) > tol
//!     default:      tol = 0, axes that may be exactly zero are skipped (noise)
//!     conservative: tol = projection error bound (sat::projection_tolerance)
//! ```
//!
//! For two genuine triangles the 23 axes are complete: the Minkowski difference
//! `A ⊕ (-B)` is a polytope whose facet normals are `nA`, `nB` and the
//! `eA_i × eB_j` when it is 3-dimensional; when the triangles are coplanar it is
//! a polygon in that plane, separated by the in-plane edge normals `n × e` of
//! either triangle's edges. Degenerate triangles (segments, points) need
//! second-order axes (e.g. `(eA × eB) × eA` for two coplanar segments, the
//! segment direction itself for collinear ones); those lanes go to
//! [`hulls_intersect_f64`], an exact-direction-candidate test in `f64`.

use crate::overlap::sat::{
    cross_with_magnitude, interval_gap, is_noise_axis, project3, projection_tolerance,
};
use crate::{Lane, LaneMask, Triangle, Vec3, V3};

/// Triangle coordinates relative to `A.a`, scaled by a power of two.
struct Prepared<L: Lane> {
    pa: [V3<L>; 3],
    pb: [V3<L>; 3],
    ea: [V3<L>; 3],
    eb: [V3<L>; 3],
    /// Component-wise max of `|p|` over the six points.
    reach: V3<L>,
}

/// A power of two `s` such that `m·s` lies in `[2^-16, 2^16]` when possible
/// (exact scaling; keeps degree-4 products of the in-plane axes away from
/// overflow and underflow: `2^(4·17)` and `2^(-4·17)` are comfortably in range).
#[inline(always)]
fn power_of_two_scale<L: Lane>(m: L) -> L {
    let hi = L::splat(65536.0);
    let lo = L::splat(1.0 / 65536.0);
    let up = L::splat(4_294_967_296.0); // 2^32
    let down = L::splat(1.0 / 4_294_967_296.0);
    // if (m > 2^16) s = 2^-32; (coordinates up to COORD_LIMIT·2 = 2^41 → 2^9)
    let mut s = L::select(m.gt(hi), down, L::splat(1.0));
    // while (m·s < 2^-16) s *= 2^32; three times at most (tiny coordinates).
    for _ in 0..3 {
        s = L::select((m * s).lt(lo), s * up, s);
    }
    s
}

#[inline(always)]
fn prepare<L: Lane>(a: &Triangle<L>, b: &Triangle<L>) -> Prepared<L> {
    let o = a.a;
    let raw = [a.b - o, a.c - o, b.a - o, b.b - o, b.c - o];
    let mut reach = raw[0].abs();
    for p in &raw[1..] {
        reach = reach.max(p.abs());
    }
    let s = power_of_two_scale(reach.max_element());
    let z = V3::splat(L::splat(0.0));
    let pa = [z, raw[0] * s, raw[1] * s];
    let pb = [raw[2] * s, raw[3] * s, raw[4] * s];
    let ea = [pa[1] - pa[0], pa[2] - pa[1], pa[0] - pa[2]];
    let eb = [pb[1] - pb[0], pb[2] - pb[1], pb[0] - pb[2]];
    Prepared { pa, pb, ea, eb, reach: reach * s }
}

/// The separated lanes on one axis, for both variants: `(default, conservative)`.
#[inline(always)]
fn axis_test<L: Lane>(p: &Prepared<L>, axis: V3<L>, magnitude: V3<L>) -> (L::Mask, L::Mask) {
    let (a_min, a_max) = project3(axis, &p.pa);
    let (b_min, b_max) = project3(axis, &p.pb);
    let gap = interval_gap(a_min, a_max, b_min, b_max);
    // default: if (gap > 0 && axis is not rounding noise) return separated;
    let default = gap.gt(L::splat(0.0)).and_not(is_noise_axis(axis, magnitude));
    // conservative: if (gap > error bound) return separated;
    let conservative = gap.gt(projection_tolerance(axis, p.reach));
    (default, conservative)
}

/// Shared body of the two batched variants.
#[inline(always)]
fn triangle_triangle_sat<L: Lane>(a: &Triangle<L>, b: &Triangle<L>, conservative: bool) -> L::Mask {
    let valid = a.is_valid() & b.is_valid();
    let p = prepare(a, b);
    let pick = |t: (L::Mask, L::Mask)| if conservative { t.1 } else { t.0 };

    // Face normals. pa[2] = -ea[2] exactly (fl(x - y) = -fl(y - x)).
    let (na, ma) = cross_with_magnitude(p.ea[0], p.pa[2]);
    let (nb, mb) = cross_with_magnitude(p.eb[0], p.pb[2] - p.pb[0]);
    // A normal that may be zero in exact arithmetic: the triangle may be a
    // segment or a point, for which these 23 axes are not complete.
    let degenerate = (is_noise_axis(na, ma) | is_noise_axis(nb, mb)) & valid;

    let mut separated = pick(axis_test(&p, na, ma)) | pick(axis_test(&p, nb, mb));
    // if every live lane is already decided, skip the other 21 axes
    if (separated | !valid | degenerate).all() {
        return finish(a, b, valid & !separated, degenerate, conservative);
    }
    // Edge × edge axes.
    for ea in &p.ea {
        for eb in &p.eb {
            let (axis, m) = cross_with_magnitude(*ea, *eb);
            separated = separated | pick(axis_test(&p, axis, m));
        }
    }
    // In-plane edge normals (complete the set for coplanar triangles). The
    // magnitude bound uses |n|'s own unrounded magnitude `ma`/`mb`.
    for (n, mn) in [(na, ma), (nb, mb)] {
        for e in p.ea.iter().chain(p.eb.iter()) {
            let (axis, _) = cross_with_magnitude(n, *e);
            let (_, m) = cross_with_magnitude(mn, e.abs());
            separated = separated | pick(axis_test(&p, axis, m));
        }
    }
    finish(a, b, valid & !separated, degenerate, conservative)
}

/// Replaces the answer of degenerate lanes by the scalar `f64` fallback.
#[inline(always)]
fn finish<L: Lane>(
    a: &Triangle<L>,
    b: &Triangle<L>,
    sat_hit: L::Mask,
    degenerate: L::Mask,
    conservative: bool,
) -> L::Mask {
    if degenerate.none() {
        return sat_hit;
    }
    let mut fix = [0.0f32; 64];
    for (i, slot) in fix.iter_mut().enumerate().take(L::WIDTH) {
        if (degenerate.bits() >> i) & 1 == 1 {
            let ta = [a.a.lane(i), a.b.lane(i), a.c.lane(i)];
            let tb = [b.a.lane(i), b.b.lane(i), b.c.lane(i)];
            *slot = if hulls_intersect_f64(&ta, &tb, conservative) { 1.0 } else { 0.0 };
        }
    }
    let fixed = L::load(&fix[..L::WIDTH]).gt(L::splat(0.5));
    (sat_hit.and_not(degenerate)) | (fixed & degenerate)
}

/// Whether the closed triangles `a` and `b` intersect, per lane (touching
/// counts; a zero-area triangle is its segment or point).
///
/// **LANE-GENERIC**: `L = f32` is the scalar API; `f32x4/8/16` evaluate packs
/// with bit-identical answers. Exact outside the ulp band of the
/// [contracts](crate#contracts); the band is stated in `simd-notes.md`
/// (some separating axis has an exact margin within `32u` of its unrounded
/// magnitude). See the module docs for the algorithm (SAT on 23 axes, a
/// deterministic `f64` path for degenerate lanes).
///
/// ```
/// use widephase::{overlap::triangle_triangle, Triangle, Vec3};
/// let v = Vec3::new;
/// let a = Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0));
/// // shares only the vertex (2, 0, 0), from another plane
/// let b = Triangle::new(v(2.0, 0.0, 0.0), v(3.0, 0.0, 1.0), v(3.0, 1.0, 1.0));
/// assert!(triangle_triangle(&a, &b));
/// let c = Triangle::new(v(2.5, 0.0, 0.0), v(3.0, 0.0, 1.0), v(3.0, 1.0, 1.0));
/// assert!(!triangle_triangle(&a, &c));
/// ```
#[inline(always)]
pub fn triangle_triangle<L: Lane>(a: &Triangle<L>, b: &Triangle<L>) -> L::Mask {
    triangle_triangle_sat(a, b, false)
}

/// Conservative triangle–triangle overlap, per lane: never answers "separated"
/// when exact arithmetic says the closed triangles touch or overlap
/// ([contracts](crate#contracts), "Conservative variants"); may answer
/// "overlapping" for pairs separated by less than the projection error bound
/// `10u·Σ|L_i|·reach_i` on every axis (derived in `simd-notes.md`). The
/// voxelizer uses this one.
///
/// **LANE-GENERIC**, same algorithm as [`triangle_triangle`] with every axis
/// compared against [`projection_tolerance`].
///
/// ```
/// use widephase::{overlap::triangle_triangle_conservative, Triangle, Vec3};
/// let v = Vec3::new;
/// let a = Triangle::new(v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0));
/// let b = Triangle::new(v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0), v(1.0, 1.0, 0.0)); // shared edge
/// assert!(triangle_triangle_conservative(&a, &b));
/// let far = Triangle::new(v(0.0, 0.0, 1.0), v(1.0, 0.0, 1.0), v(0.0, 1.0, 1.0));
/// assert!(!triangle_triangle_conservative(&a, &far));
/// ```
#[inline(always)]
pub fn triangle_triangle_conservative<L: Lane>(a: &Triangle<L>, b: &Triangle<L>) -> L::Mask {
    triangle_triangle_sat(a, b, true)
}

/// `f64` difference of two `f32` points (exact when their exponents are within
/// 29 of each other, otherwise one rounding).
fn sub64(p: Vec3, q: Vec3) -> [f64; 3] {
    [p.x as f64 - q.x as f64, p.y as f64 - q.y as f64, p.z as f64 - q.z as f64]
}

fn dot64(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross64(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Whether the convex hulls of two point sets of at most three points meet
/// (closed sets), evaluated in `f64`: the scalar path for degenerate lanes of
/// [`triangle_triangle`] (and the coplanar/degenerate fallback of the scalar
/// tests). Deterministic, so every lane width gets the same answer.
///
/// `0 ∉ conv(D)`, `D = {a_i - b_j}`, iff some direction `c` has `c·d > 0` for
/// every `d ∈ D`; the direction to the closest point of `conv(D)` works, and it
/// lies in the relative interior of a simplex of at most three points of `D`,
/// so it is one of: a point `d_i`; the component of `d_i` orthogonal to
/// `d_j - d_i`; the normal of the plane through `d_i, d_j, d_k` (oriented away
/// from the origin). All 129 candidates are tried. With `conservative`, a
/// candidate separates only when every `c·d` exceeds its `f64` rounding bound
/// `8·2^-53·Σ|c_i|·max|d_i|` (the candidate is a float vector, hence a valid
/// certificate whatever its rounding), so no touching pair is ever rejected.
fn hulls_intersect_f64(a: &[Vec3; 3], b: &[Vec3; 3], conservative: bool) -> bool {
    let mut d = [[0.0f64; 3]; 9];
    for (i, p) in a.iter().enumerate() {
        for (j, q) in b.iter().enumerate() {
            d[3 * i + j] = sub64(*p, *q);
        }
    }
    let mut reach = [0.0f64; 3];
    for p in &d {
        for k in 0..3 {
            reach[k] = reach[k].max(p[k].abs());
        }
    }
    let separates = |c: &[f64; 3]| -> bool {
        if c[0] == 0.0 && c[1] == 0.0 && c[2] == 0.0 {
            return false;
        }
        let tol = if conservative {
            8.0 * f64::EPSILON
                * 0.5
                * (c[0].abs() * reach[0] + c[1].abs() * reach[1] + c[2].abs() * reach[2])
                + 1e-300
        } else {
            0.0
        };
        d.iter().all(|p| dot64(c, p) > tol)
    };
    for i in 0..9 {
        if separates(&d[i]) {
            return false;
        }
        for j in i + 1..9 {
            let e = [d[j][0] - d[i][0], d[j][1] - d[i][1], d[j][2] - d[i][2]];
            let e2 = dot64(&e, &e);
            let t = dot64(&d[i], &e);
            let c = [d[i][0] * e2 - e[0] * t, d[i][1] * e2 - e[1] * t, d[i][2] * e2 - e[2] * t];
            if separates(&c) {
                return false;
            }
            for k in j + 1..9 {
                let f = [d[k][0] - d[i][0], d[k][1] - d[i][1], d[k][2] - d[i][2]];
                let mut n = cross64(&e, &f);
                if dot64(&n, &d[i]) < 0.0 {
                    n = [-n[0], -n[1], -n[2]];
                }
                if separates(&n) {
                    return false;
                }
            }
        }
    }
    true
}

// ------------------------------------------------------------------ scalar --

/// `(b - a) × (c - a) · (d - a)`: the orientation determinant `[a, b, c, d]`
/// of seed `001` eq. 4.29 (positive when `d` is on the side of plane `abc`
/// that `(b - a) × (c - a)` points to). Evaluated on differences, so it is
/// translation invariant; error `<= 8u·` its permanent (`simd-notes.md`).
#[inline]
fn orient3d(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> f32 {
    (b - a).cross(c - a).dot(d - a)
}

/// `(b - a) × (c - a)` in 2-D (`> 0`: counter-clockwise).
#[inline]
fn orient2d(a: [f32; 2], b: [f32; 2], c: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// `-1`, `0` or `1`: the sign of `x` (no products of small values, which could
/// underflow to zero — the seeds' `d0·d1 > 0` tests do).
#[inline]
fn sign(x: f32) -> i32 {
    (x > 0.0) as i32 - (x < 0.0) as i32
}

/// Whether the closed 2-D segments `p0p1` and `q0q1` intersect (touching and
/// collinear overlap count).
fn segments_intersect_2d(p0: [f32; 2], p1: [f32; 2], q0: [f32; 2], q1: [f32; 2]) -> bool {
    let d1 = sign(orient2d(p0, p1, q0));
    let d2 = sign(orient2d(p0, p1, q1));
    let d3 = sign(orient2d(q0, q1, p0));
    let d4 = sign(orient2d(q0, q1, p1));
    if d1 == 0 && d2 == 0 {
        // collinear: overlap of the coordinate ranges on both axes
        let overlap =
            |k: usize| p0[k].min(p1[k]) <= q0[k].max(q1[k]) && q0[k].min(q1[k]) <= p0[k].max(p1[k]);
        return overlap(0) && overlap(1);
    }
    d1 * d2 <= 0 && d3 * d4 <= 0
}

/// Whether the 2-D point `p` lies in the closed triangle `t` (non-degenerate).
fn point_in_triangle_2d(p: [f32; 2], t: &[[f32; 2]; 3]) -> bool {
    let s0 = sign(orient2d(t[0], t[1], p));
    let s1 = sign(orient2d(t[1], t[2], p));
    let s2 = sign(orient2d(t[2], t[0], p));
    (s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0)
}

/// Coplanar triangles: project by dropping the dominant axis of the normal `n`
/// and test the 2-D triangles (edge pairs, then containment). Seed `001`
/// §4.4.2 "coplanar case"; Möller 1997 §3 (the same projection).
fn coplanar_triangles(a: &[Vec3; 3], b: &[Vec3; 3], n: Vec3) -> bool {
    let an = n.abs();
    let (i, j) = if an.x >= an.y && an.x >= an.z {
        (1, 2)
    } else if an.y >= an.z {
        (0, 2)
    } else {
        (0, 1)
    };
    let p = |v: Vec3| [v.get(i), v.get(j)];
    let ta = [p(a[0]), p(a[1]), p(a[2])];
    let tb = [p(b[0]), p(b[1]), p(b[2])];
    for e in 0..3 {
        for f in 0..3 {
            if segments_intersect_2d(ta[e], ta[(e + 1) % 3], tb[f], tb[(f + 1) % 3]) {
                return true;
            }
        }
    }
    point_in_triangle_2d(ta[0], &tb) || point_in_triangle_2d(tb[0], &ta)
}

/// Scalar preamble shared by Möller and Devillers–Guigue: validity, the
/// degenerate-triangle dispatch and translation to `A.a`. Returns `Err(answer)`
/// when decided, else the translated vertices and the two normals.
#[allow(clippy::type_complexity)]
fn scalar_setup(a: &Triangle, b: &Triangle) -> Result<([Vec3; 3], [Vec3; 3], Vec3, Vec3), bool> {
    if !a.is_valid() || !b.is_valid() {
        return Err(false);
    }
    // translate to A.a and scale by a power of two (exact) so that the degree-3
    // orientation determinants neither underflow nor overflow
    let o = a.a;
    let raw = [a.b - o, a.c - o, b.a - o, b.b - o, b.c - o];
    let m = raw.iter().fold(0.0f32, |m, p| m.max(p.abs().max_element()));
    let s = power_of_two_scale(m);
    let ta = [Vec3::ZERO, raw[0] * s, raw[1] * s];
    let tb = [raw[2] * s, raw[3] * s, raw[4] * s];
    let (na, ma) = cross_with_magnitude(ta[1], ta[2]);
    let (nb, mb) = cross_with_magnitude(tb[1] - tb[0], tb[2] - tb[0]);
    let finite =
        ta.iter().chain(tb.iter()).all(|p| p.is_finite()) && na.is_finite() && nb.is_finite();
    if !finite || is_noise_axis(na, ma) || is_noise_axis(nb, mb) {
        // a (possibly) zero-area triangle is a segment or a point: the plane
        // based tests do not apply; use the exact-direction hull test.
        return Err(hulls_intersect_f64(&a.vertices(), &b.vertices(), false));
    }
    Ok((ta, tb, na, nb))
}

/// Möller's interval-overlap triangle–triangle test (scalar).
///
/// Follows the [contracts](crate#contracts) (closed sets, touching counts,
/// `false` on non-finite input); exact outside the ulp band stated in
/// `simd-notes.md`. Source: T. Möller, "A Fast Triangle-Triangle
/// Intersection Test", JGT 2(2), 1997; seed `001` §4.4.2 (with its errata
/// fixed, see the notes), seed `000` triangle–triangle section.
///
/// ```text
/// dA_i = orientation of A_i w.r.t. B's plane; all same non-zero sign → disjoint
/// dB_i = orientation of B_i w.r.t. A's plane; all same non-zero sign → disjoint
/// all dB zero → coplanar: 2-D test in the dominant projection of nA
/// L = nA × nB; project on the dominant axis of L;
/// each triangle meets L in [t0, t1], computed from the vertex alone on its
///   side (a vertex on the plane is handled by the sign cases, not by ε)
/// overlap iff the closed intervals overlap
/// ```
///
/// Differences from the published code: distances are evaluated relative to a
/// vertex (translation invariant), signs are compared directly (the
/// published `d0·d1 > 0` underflows for tiny distances), no ε snapping
/// (Möller's `EPSILON` is not scale invariant), and degenerate triangles are
/// tested as the segments/points they are.
///
/// ```
/// use widephase::{overlap::triangle_triangle_moller, Triangle, Vec3};
/// let v = Vec3::new;
/// let a = Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0));
/// let touching = Triangle::new(v(1.0, 1.0, 0.0), v(2.0, 2.0, 1.0), v(2.0, 2.0, -1.0));
/// assert!(triangle_triangle_moller(&a, &touching)); // edge through the hypotenuse point
/// let apart = Triangle::new(v(1.25, 1.0, 0.0), v(2.0, 2.0, 1.0), v(2.0, 2.0, -1.0));
/// assert!(!triangle_triangle_moller(&a, &apart));
/// ```
pub fn triangle_triangle_moller(a: &Triangle, b: &Triangle) -> bool {
    let (ta, tb, na, nb) = match scalar_setup(a, b) {
        Ok(s) => s,
        Err(answer) => return answer,
    };
    // signed distances (scaled by |n|) of A's vertices to B's plane and back
    let da = ta.map(|p| nb.dot(p - tb[0]));
    let db = tb.map(|p| na.dot(p));
    let sa = da.map(sign);
    let sb = db.map(sign);
    let same_side = |s: [i32; 3]| s[0] != 0 && s[0] == s[1] && s[0] == s[2];
    if same_side(sa) || same_side(sb) {
        return false;
    }
    if sb == [0, 0, 0] || sa == [0, 0, 0] {
        return coplanar_triangles(&ta, &tb, na);
    }
    let l = na.cross(nb);
    let al = l.abs();
    let axis = if al.x >= al.y && al.x >= al.z {
        0
    } else if al.y >= al.z {
        1
    } else {
        2
    };
    let Some((a0, a1)) = interval_on_line(&ta, &da, &sa, axis) else {
        return coplanar_triangles(&ta, &tb, na);
    };
    let Some((b0, b1)) = interval_on_line(&tb, &db, &sb, axis) else {
        return coplanar_triangles(&ta, &tb, na);
    };
    // closed intervals: touching counts
    !(a1 < b0 || b1 < a0)
}

/// The interval `[t0, t1]` (sorted) where a triangle with vertices `v`,
/// signed distances `d` (signs `s`) to the other plane, meets the
/// intersection line, in coordinate `axis`. `None` if all distances are zero.
fn interval_on_line(v: &[Vec3; 3], d: &[f32; 3], s: &[i32; 3], axis: usize) -> Option<(f32, f32)> {
    // the vertex alone on its side (Möller's COMPUTE_INTERVALS case analysis,
    // with sign tests instead of products)
    let alone = if s[0] * s[1] > 0 {
        2
    } else if s[0] * s[2] > 0 {
        1
    } else if s[1] * s[2] > 0 || s[0] != 0 {
        0
    } else if s[1] != 0 {
        1
    } else if s[2] != 0 {
        2
    } else {
        return None;
    };
    let (i, j) = ((alone + 1) % 3, (alone + 2) % 3);
    let p = |k: usize| v[k].get(axis);
    // point where edge (alone, k) crosses the plane: p_alone + (p_k - p_alone)·d_alone/(d_alone - d_k)
    let cross_at = |k: usize| {
        let den = d[alone] - d[k];
        if den == 0.0 {
            p(k) // both on the plane (d = 0): the edge lies in it; its end is on L
        } else {
            p(alone) + (p(k) - p(alone)) * (d[alone] / den)
        }
    };
    let (t0, t1) = (cross_at(i), cross_at(j));
    Some(if t0 <= t1 { (t0, t1) } else { (t1, t0) })
}

/// Devillers–Guigue triangle–triangle test with orientation predicates only
/// (scalar).
///
/// Follows the [contracts](crate#contracts); exact outside the ulp band of
/// its orientation determinants (`simd-notes.md`). Source: P. Guigue,
/// O. Devillers, "Fast and Robust Triangle-Triangle Overlap Test Using
/// Orientation Predicates", JGT 8(1), 2003; seed `001` §4.4.3 (its REORDER
/// pseudocode swaps the wrong triangle's vertices; see the notes).
///
/// ```text
/// [a,b,c,d] = (d - a)·((b - a) × (c - a))
/// dA_i = [B0,B1,B2,A_i]; all same non-zero sign → disjoint (and dB likewise)
/// all zero → coplanar 2-D test
/// rotate A so that A0 is alone on its side of B's plane (A1, A2 on the other
///   side or on the plane); if dA0 < 0 swap B1,B2 (B's orientation flips so
///   that A0 is on its positive side); the same for B with respect to A
/// overlap iff [A0,A1,B0,B1] <= 0 and [A0,A2,B2,B0] <= 0
/// ```
///
/// ```
/// use widephase::{overlap::triangle_triangle_guigue, Triangle, Vec3};
/// let v = Vec3::new;
/// let a = Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0));
/// let vertex_on_face = Triangle::new(v(0.5, 0.5, 0.0), v(0.5, 0.5, 2.0), v(1.0, 0.0, 2.0));
/// assert!(triangle_triangle_guigue(&a, &vertex_on_face));
/// let above = Triangle::new(v(0.5, 0.5, 0.25), v(0.5, 0.5, 2.0), v(1.0, 0.0, 2.0));
/// assert!(!triangle_triangle_guigue(&a, &above));
/// ```
pub fn triangle_triangle_guigue(a: &Triangle, b: &Triangle) -> bool {
    let (ta, tb, na, _nb) = match scalar_setup(a, b) {
        Ok(s) => s,
        Err(answer) => return answer,
    };
    let da = ta.map(|p| orient3d(tb[0], tb[1], tb[2], p));
    let db = tb.map(|p| orient3d(ta[0], ta[1], ta[2], p));
    let sa = da.map(sign);
    let sb = db.map(sign);
    let same_side = |s: [i32; 3]| s[0] != 0 && s[0] == s[1] && s[0] == s[2];
    if same_side(sa) || same_side(sb) {
        return false;
    }
    if sa == [0, 0, 0] || sb == [0, 0, 0] {
        return coplanar_triangles(&ta, &tb, na);
    }
    // canonical rotation: index of the vertex alone on its side, and its sign
    let (ra, sign_a) = alone_vertex(&sa);
    let (rb, sign_b) = alone_vertex(&sb);
    let rot = |t: &[Vec3; 3], k: usize| [t[k], t[(k + 1) % 3], t[(k + 2) % 3]];
    let mut p = rot(&ta, ra);
    let mut q = rot(&tb, rb);
    // make each alone vertex lie on the positive side of the other plane by
    // flipping the *other* triangle's orientation
    if sign_a < 0 {
        q.swap(1, 2);
    }
    if sign_b < 0 {
        p.swap(1, 2);
    }
    !(orient3d(p[0], p[1], q[0], q[1]) > 0.0 || orient3d(p[0], p[2], q[2], q[0]) > 0.0)
}

/// For signs `s` (not all equal non-zero, not all zero): the index `k` of the
/// vertex alone on its side — the others are on the opposite side or on the
/// plane — and the side it is on (`+1`/`-1`), treating a vertex on the plane
/// as the pair's side. Derived from the Devillers–Guigue case table.
fn alone_vertex(s: &[i32; 3]) -> (usize, i32) {
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        // k strictly on one side, the others not on that side
        if s[k] != 0 && s[i] != s[k] && s[j] != s[k] {
            return (k, s[k]);
        }
    }
    // no strict loner: exactly one vertex is off the plane... or two on the
    // same side with the third on the plane: the plane vertex is "alone" on
    // the opposite side
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        if s[k] == 0 && s[i] != 0 && s[i] == s[j] {
            return (k, -s[i]);
        }
    }
    // two vertices on the plane, one off it: that one is alone
    match s.iter().position(|&x| x != 0) {
        Some(k) => (k, s[k]),
        None => (0, 1),
    }
}
