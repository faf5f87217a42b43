//! k-DOP vs k-DOP overlap, exact on the stored `f32` slab bounds.
//!
//! Sources: the k-DOP definition and `KDOP_Intersect` slides of seed
//! `003_9226422f2bc80208.txt` (Klosowski et al., "Efficient collision detection
//! using bounding volume hierarchies of k-DOPs", 1998); R. T. Rockafellar, "The
//! elementary vectors of a subspace of R^N" (1969) and P. Camion (1968) for the
//! exact feasibility criterion used here.
//!
//! The algorithm and why the slab test is not enough: see [`kdop_kdop`].

use crate::math::Vec3;
use crate::shapes::Kdop;
use std::sync::OnceLock;

/// An integer relation `Σ coef[k]·axis[idx[k]] = 0` between `len` slab axes with
/// no proper sub-relation.
#[derive(Clone, Copy, Debug)]
struct Circuit {
    len: usize,
    idx: [usize; 4],
    coef: [f64; 4],
}

fn to_int(v: Vec3) -> [i64; 3] {
    [v.x as i64, v.y as i64, v.z as i64]
}

fn cross(a: [i64; 3], b: [i64; 3]) -> [i64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn dot(a: [i64; 3], b: [i64; 3]) -> i64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn det(a: [i64; 3], b: [i64; 3], c: [i64; 3]) -> i64 {
    dot(a, cross(b, c))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Builds a circuit from its indices and integer coefficients, divided by their
/// gcd.
fn circuit(idx: &[usize], coef: &[i64]) -> Circuit {
    let g = coef.iter().fold(0, |g, &c| gcd(g, c)).max(1);
    let mut out = Circuit { len: idx.len(), idx: [0; 4], coef: [0.0; 4] };
    for k in 0..idx.len() {
        out.idx[k] = idx[k];
        out.coef[k] = (coef[k] / g) as f64;
    }
    out
}

/// All circuits of a set of integer axes (sizes 2, 3 and 4; in 3D every
/// circuit has at most 4 elements).
fn enumerate_circuits(axes: &[Vec3]) -> Vec<Circuit> {
    let a: Vec<[i64; 3]> = axes.iter().map(|&v| to_int(v)).collect();
    let n = a.len();
    let parallel = |i: usize, j: usize| cross(a[i], a[j]) == [0, 0, 0];
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if parallel(i, j) {
                // a_j = (a_j·a_i / a_i·a_i)·a_i: relation (a_j·a_i)·a_i - (a_i·a_i)·a_j = 0
                out.push(circuit(&[i, j], &[dot(a[j], a[i]), -dot(a[i], a[i])]));
            }
        }
    }
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                if parallel(i, j) || parallel(i, k) || parallel(j, k) {
                    continue;
                }
                if det(a[i], a[j], a[k]) == 0 {
                    // coplanar: (a_j×a_k)·m a_i + (a_k×a_i)·m a_j + (a_i×a_j)·m a_k = 0
                    // for the plane normal m = a_i×a_j
                    let m = cross(a[i], a[j]);
                    out.push(circuit(
                        &[i, j, k],
                        &[dot(cross(a[j], a[k]), m), dot(cross(a[k], a[i]), m), dot(m, m)],
                    ));
                }
            }
        }
    }
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                for l in k + 1..n {
                    let (dl, dk, dj, di) = (
                        det(a[i], a[j], a[k]),
                        det(a[i], a[j], a[l]),
                        det(a[i], a[k], a[l]),
                        det(a[j], a[k], a[l]),
                    );
                    if dl == 0 || dk == 0 || dj == 0 || di == 0 {
                        continue; // contains a smaller circuit
                    }
                    // Cramer: det(j,k,l) a_i - det(i,k,l) a_j + det(i,j,l) a_k - det(i,j,k) a_l = 0
                    out.push(circuit(&[i, j, k, l], &[di, -dj, dk, -dl]));
                }
            }
        }
    }
    out
}

/// The circuits of `Kdop::<N>::AXES`, computed once per `N`.
fn circuits<const N: usize>() -> &'static [Circuit] {
    static C3: OnceLock<Vec<Circuit>> = OnceLock::new();
    static C7: OnceLock<Vec<Circuit>> = OnceLock::new();
    static C9: OnceLock<Vec<Circuit>> = OnceLock::new();
    static C13: OnceLock<Vec<Circuit>> = OnceLock::new();
    let cell = match N {
        3 => &C3,
        7 => &C7,
        9 => &C9,
        // `Kdop::<N>::AXES` fails to compile for any other N, so this is 13.
        _ => &C13,
    };
    cell.get_or_init(|| enumerate_circuits(&Kdop::<N>::AXES))
}

/// `a + b` and its rounding error (Knuth's TwoSum; exact under round-to-nearest
/// when no overflow occurs — the terms here are below `2^130`).
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// The exact sign (-1, 0, 1) of `Σ terms` for at most four finite `f64` terms.
fn sign_of_sum(terms: &[f64]) -> i32 {
    let approx: f64 = terms.iter().sum();
    let magnitude: f64 = terms.iter().map(|t| t.abs()).sum();
    // Summing k <= 4 terms left to right errs by at most γ_3·Σ|t| < 4e-16·Σ|t|
    // (f64, no underflow: every term is a multiple of 2^-149).
    if approx.abs() > 4e-16 * magnitude {
        return if approx > 0.0 { 1 } else { -1 };
    }
    // Shewchuk's GROW-EXPANSION with zero elimination: `e` is a nonoverlapping
    // expansion in increasing magnitude whose exact sum is that of the terms seen.
    let mut e = [0.0f64; 5];
    let mut len = 0;
    for &t in terms {
        let mut q = t;
        let mut out = 0;
        for i in 0..len {
            let (s, err) = two_sum(q, e[i]);
            if err != 0.0 {
                e[out] = err;
                out += 1;
            }
            q = s;
        }
        if q != 0.0 {
            e[out] = q;
            out += 1;
        }
        len = out;
    }
    // the most significant component carries the sign
    match e[..len].last() {
        Some(&top) if top > 0.0 => 1,
        Some(&top) if top < 0.0 => -1,
        _ => 0,
    }
}

fn kdop_is_valid<const N: usize>(k: &Kdop<N>) -> bool {
    (0..N).all(|i| k.min[i].is_finite() && k.max[i].is_finite())
}

/// The classic slab test (seed `003`, `KDOP_Intersect`): `true` iff every slab
/// pair overlaps, `a.min[i] <= b.max[i] && b.min[i] <= a.max[i]`.
///
/// This is exact for `N = 3` (AABBs). For `N = 7, 9, 13` it **never misses an
/// overlap but may report overlap for disjoint k-DOPs** (a separating direction
/// may be an edge–edge cross product that is not a slab axis, or the stored
/// bounds may be loose); use [`kdop_kdop`] for the exact answer. It compares
/// stored floats only, so there is no rounding at all. Non-finite bounds answer
/// `false`, and so does an empty (inverted) slab ([contracts](crate#contracts)).
///
/// ```
/// use widephase::{overlap, Dop14};
/// let a = Dop14::try_new([0.0; 7], [1.0, 1.0, 1.0, 3.0, 1.0, 2.0, 1.0]).unwrap();
/// let mut b = a;
/// b.min[0] = 1.0; b.max[0] = 2.0; // shares only the face x = 1 on the x slab
/// assert!(overlap::kdop_kdop_slabs(&a, &b));
/// ```
pub fn kdop_kdop_slabs<const N: usize>(a: &Kdop<N>, b: &Kdop<N>) -> bool {
    let mut overlap = true;
    for i in 0..N {
        // any slab pair disjoint (or a slab empty) => separated
        let lo = a.min[i].max(b.min[i]);
        let hi = a.max[i].min(b.max[i]);
        overlap &= lo <= hi && a.min[i] <= a.max[i] && b.min[i] <= b.max[i];
    }
    overlap && kdop_is_valid(a) && kdop_is_valid(b)
}

/// Whether the closed k-DOPs `a` and `b` share a point — **exact** on the
/// stored `f32` bounds, with no ulp band (algorithm and sources below).
///
/// Each k-DOP is the closed set `{x : min[i] <= AXES[i]·x <= max[i]}` of
/// [`Kdop`]; its bounds need not be tight (an inconsistent set of bounds is an
/// empty k-DOP, which overlaps nothing). Zero-thickness slabs (flat or
/// lower-dimensional k-DOPs) are handled exactly. Non-finite bounds (including
/// [`Kdop::EMPTY`]) answer `false` ([contracts](crate#contracts)).
///
/// # Why the classic slab test is not enough
///
/// A [`Kdop<N>`] is the closed set `{x : min_i <= axis_i·x <= max_i}`. The slab
/// test of the seed (`KDOP_Intersect`: disjoint iff some slab pair is disjoint)
/// is a separating-axis test on the `N` face normals only. For AABBs (`N = 3`)
/// that is exact, but in 3D the edges of two k-DOPs give further separating
/// directions (cross products of edge directions) that are not slab axes, and
/// the stored bounds need not be tight, so two disjoint 14/18/26-DOPs can
/// overlap on every slab. [`kdop_kdop_slabs`] is that classic test (never a
/// false negative, false positives possible); [`kdop_kdop`] is exact.
///
/// # The exact test
///
/// `A ∩ B` is `{x : lo_i <= axis_i·x <= hi_i}` with `lo = max(A.min, B.min)` and
/// `hi = min(A.max, B.max)` (exact: comparisons only). Writing `y = Mx` (the
/// `N` projections), the question is whether the box `Π [lo_i, hi_i]` meets the
/// column space of the `N×3` axis matrix `M`. By Camion's/Rockafellar's theorem
/// on elementary vectors, it does iff `0 ∈ Σ c_i·[lo_i, hi_i]` for every
/// *elementary vector* `c` of the orthogonal complement, i.e. every **circuit**
/// of the axes: a minimal set of axes with an integer relation
/// `Σ c_i·axis_i = 0` (two parallel axes, three coplanar axes, or four axes in
/// general position), plus the one-axis conditions `lo_i <= hi_i`.
///
/// ```text
/// for each slab i:            if lo_i > hi_i: return false     // the seed's test
/// for each circuit (c_i):
///     low  = Σ_{c_i>0} c_i·lo_i + Σ_{c_i<0} c_i·hi_i           // min of Σ c_i y_i
///     high = Σ_{c_i>0} c_i·hi_i + Σ_{c_i<0} c_i·lo_i           // max of Σ c_i y_i
///     if low > 0 or high < 0: return false                     // exact signs
/// return true
/// ```
///
/// The circuits of the fixed integer axes are enumerated once per `N` (none for
/// `N = 3`). Each `c_i·bound` is exact in `f64` (a 24-bit mantissa times a small
/// integer), and the sign of a sum of at most four such terms is decided exactly
/// by a floating-point filter and, when the filter cannot decide, Shewchuk's
/// error-free expansion sum. So the answer is **exact** for the stored bounds:
/// no ulp band.
///
/// # Example
///
/// ```
/// use widephase::{overlap, Dop14, Vec3};
/// // Two unit cubes' tight 14-DOPs, touching along the face x = 1.
/// let mut a = Dop14::EMPTY;
/// let mut b = Dop14::EMPTY;
/// for &(x, y, z) in &[(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0),
///                     (0.0, 0.0, 1.0), (1.0, 0.0, 1.0), (0.0, 1.0, 1.0), (1.0, 1.0, 1.0f32)] {
///     a.grow(Vec3::new(x, y, z));
///     b.grow(Vec3::new(x + 1.0, y, z));
/// }
/// assert!(overlap::kdop_kdop(&a, &b)); // touching counts
/// b.min[0] = 1.25; // b's x slab is now [1.25, 2]: separated
/// assert!(!overlap::kdop_kdop(&a, &b));
///
/// // Tight 14-DOPs of two skew segments: all seven slab pairs overlap, but the
/// // sets are disjoint — the classic slab test gets this wrong.
/// let mut s = Dop14::EMPTY;
/// s.grow(Vec3::new(2.0, -2.0, 2.0));
/// s.grow(Vec3::new(-1.0, 1.0, -1.0));
/// let mut t = Dop14::EMPTY;
/// t.grow(Vec3::new(0.0, -2.0, 2.0));
/// t.grow(Vec3::new(0.0, 2.0, 2.0));
/// assert!(overlap::kdop_kdop_slabs(&s, &t));
/// assert!(!overlap::kdop_kdop(&s, &t));
/// ```
pub fn kdop_kdop<const N: usize>(a: &Kdop<N>, b: &Kdop<N>) -> bool {
    if !kdop_kdop_slabs(a, b) {
        return false;
    }
    let mut lo = [0.0f64; N];
    let mut hi = [0.0f64; N];
    for i in 0..N {
        lo[i] = a.min[i].max(b.min[i]) as f64;
        hi[i] = a.max[i].min(b.max[i]) as f64;
    }
    for c in circuits::<N>() {
        let mut low = [0.0f64; 4];
        let mut high = [0.0f64; 4];
        for k in 0..c.len {
            let (i, w) = (c.idx[k], c.coef[k]);
            // min and max of w·y_i over y_i ∈ [lo_i, hi_i]; exact products
            if w > 0.0 {
                low[k] = w * lo[i];
                high[k] = w * hi[i];
            } else {
                low[k] = w * hi[i];
                high[k] = w * lo[i];
            }
        }
        // 0 must lie in [Σ low, Σ high]
        if sign_of_sum(&low[..c.len]) > 0 || sign_of_sum(&high[..c.len]) < 0 {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_relations<const N: usize>() {
        let axes = Kdop::<N>::AXES;
        for c in circuits::<N>() {
            for comp in 0..3 {
                let s: f64 = (0..c.len).map(|k| c.coef[k] * axes[c.idx[k]].get(comp) as f64).sum();
                assert_eq!(s, 0.0, "circuit {c:?} is not a relation");
            }
            assert!((0..c.len).all(|k| c.coef[k] != 0.0));
        }
    }

    #[test]
    fn circuits_are_relations() {
        check_relations::<3>();
        check_relations::<7>();
        check_relations::<9>();
        check_relations::<13>();
        assert!(circuits::<3>().is_empty(), "coordinate axes are independent");
        assert!(!circuits::<7>().is_empty());
    }

    #[test]
    fn exact_sign_of_sum_beats_rounding() {
        let big = 2f64.powi(100);
        assert_eq!(sign_of_sum(&[big, 1.0, -big]), 1);
        assert_eq!(sign_of_sum(&[big, -1.0, -big, 1.0]), 0);
        assert_eq!(sign_of_sum(&[-big, 2f64.powi(-149), big]), 1);
        assert_eq!(sign_of_sum(&[]), 0);
    }
}
