//! Triangle–triangle overlap: a batched separating-axis kernel
//! ([`triangle_triangle`], [`triangle_triangle_conservative`]), Möller's
//! interval-overlap test ([`triangle_triangle_moller`]) and the
//! Devillers–Guigue orientation test ([`triangle_triangle_guigue`]).
//!
//! Sources: seed `000` §5.2.1 (SAT), §5.2.1.1 (near-parallel edges) and the
//! triangle–triangle section; seed `001` (Möller interval overlap with the
//! vertex-on-plane cases, Guigue–Devillers with the REORDER step; its errata are
//! listed in `notes/convex.md`); T. Möller, "A Fast Triangle-Triangle
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
/// [contracts](crate#contracts); the band is stated in `notes/convex.md`
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
#[inline]
pub fn triangle_triangle<L: Lane>(a: &Triangle<L>, b: &Triangle<L>) -> L::Mask {
    triangle_triangle_sat(a, b, false)
}

/// Conservative triangle–triangle overlap, per lane: never answers "separated"
/// when exact arithmetic says the closed triangles touch or overlap
/// ([contracts](crate#contracts), "Conservative variants"); may answer
/// "overlapping" for pairs separated by less than the projection error bound
/// `10u·Σ|L_i|·reach_i` on every axis (derived in `notes/convex.md`). The
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
#[inline]
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
