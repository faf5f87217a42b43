//! Sphere–triangle intersection via the closest point (Ericson §5.2.7,
//! `TestSphereTriangle`; seed `000` §5.2.7). **Lane-generic.**

use crate::closest::closest_point_triangle;
use crate::lane::{Lane, LaneMask};
use crate::shapes::{Sphere, Triangle};

/// Whether the closed ball `s` and the closed triangle `tri` intersect
/// (touching counts): `|q - center|² <= radius²` for the point `q` of
/// [`closest_point_triangle`](crate::closest::closest_point_triangle).
///
/// One code path for `f32` (returns `bool`) and every pack width (returns a
/// lane mask); `false` in lanes with a non-finite input or a negative radius
/// ([contracts](crate#contracts)). Exact outside the ulp band derived in
/// `simd-notes.md` ("sphere–triangle").
///
/// ```
/// use widephase::{overlap, Sphere, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// assert!(overlap::sphere_triangle(&Sphere::new(Vec3::new(0.5, 0.5, 1.0), 1.0), &tri)); // touching
/// assert!(!overlap::sphere_triangle(&Sphere::new(Vec3::new(0.5, 0.5, 1.5), 1.0), &tri));
/// ```
#[inline(always)]
pub fn sphere_triangle<L: Lane>(s: &Sphere<L>, tri: &Triangle<L>) -> L::Mask {
    let q = closest_point_triangle(s.center, tri).point;
    let v = q - s.center;
    // NaN in invalid lanes makes the comparison false; the validity mask also
    // rejects negative and non-finite radii.
    v.dot(v).le(s.radius * s.radius) & s.is_valid() & tri.is_valid()
}

/// Relative factor of [`sphere_triangle_conservative`]'s tolerances: `8u`
/// (the derived need is `4.0002u` on the projections and `3.6u` on `r·|l|`).
const SPHERE_TRIANGLE_K: f32 = 8.0 * crate::UNIT_ROUNDOFF;

/// Conservative sphere–triangle test: never answers "separated" when the closed
/// ball and the closed triangle touch or overlap in exact arithmetic.
///
/// Method (a separating-axis certificate): `q` is the point of
/// [`closest_point_triangle`] and `l = (q - c)/max_k|q_k - c_k|` (any vector
/// would do; this one is the separating direction when `q` is the exact closest
/// point, scaled so `|l|² ∈ [1, 3]` neither underflows nor overflows). The
/// triangle lies in `{x: l·(x - c) >= m}`, `m = min_i l·(v_i - c)` over the three
/// vertices, and the ball in `{x: l·(x - c) <= r·|l|}`, so `m > r·|l|` in exact
/// arithmetic proves them disjoint. The computed `m` errs by at most
/// `4.0002u·A` (+ underflow), `A = max_i Σ_k |l_k||v_ik - c_k|`, and
/// `fl(r·sqrt(l·l))` is at least `(1 - 3.6u)·r|l|`; the test
/// `fl(m - (8u·A + 2^-140)) > fl(r|l| + (8u·r|l| + 2^-140))` is therefore only
/// true when the exact `m > r|l|` (derivation in `simd-notes.md`). No bound on
/// the rounding of `q` is needed: `q` only chooses the direction. When `q = c`
/// (the centre is on the triangle up to rounding) `l` is NaN and the answer is
/// "touching".
///
/// False positives only where the computed `q` is not close enough to the exact
/// closest point for the certificate to hold; no bound is derived for them (it
/// would inherit the point–triangle conditioning term). Measured against exact
/// rationals on near-contact cases: the largest false-positive gap `D - r²` was
/// half of [`sphere_triangle`]'s band (`simd-notes.md`, "point–triangle"); the
/// test allows twice the band. **LANE-GENERIC**, bit-identical at every width;
/// invalid lanes (non-finite values, negative radius) answer `false`.
///
/// ```
/// use widephase::{overlap, Sphere, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// assert!(overlap::sphere_triangle_conservative(&Sphere::new(Vec3::new(0.5, 0.5, 1.0), 1.0), &tri));
/// assert!(!overlap::sphere_triangle_conservative(&Sphere::new(Vec3::new(0.5, 0.5, 1.5), 1.0), &tri));
/// ```
#[inline(always)]
pub fn sphere_triangle_conservative<L: Lane>(s: &Sphere<L>, tri: &Triangle<L>) -> L::Mask {
    let c = s.center;
    let q = closest_point_triangle(c, tri).point;
    let d = q - c;
    let l = d / d.abs().max_element();
    let (wa, wb, wc) = (tri.a - c, tri.b - c, tri.c - c);
    let m = l.dot(wa).min(l.dot(wb)).min(l.dot(wc));
    let la = l.abs();
    let reach = la.dot(wa.abs()).max(la.dot(wb.abs())).max(la.dot(wc.abs()));
    let k = L::splat(SPHERE_TRIANGLE_K);
    let floor = L::splat(f32::from_bits(512)); // 2^-140
    let m_lo = m - (k * reach + floor);
    let rl = s.radius * l.dot(l).sqrt();
    let r_hi = rl + (k * rl + floor);
    // if (min_i l·(v_i - c) > r·|l| certainly) separated
    (s.is_valid() & tri.is_valid()).and_not(m_lo.gt(r_hi))
}

/// [`sphere_triangle`] with the arguments swapped.
///
/// ```
/// use widephase::{overlap, Sphere, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// assert!(overlap::triangle_sphere(&tri, &Sphere::new(Vec3::new(2.0, 0.0, 0.0), 1.0)));
/// ```
#[inline(always)]
pub fn triangle_sphere<L: Lane>(tri: &Triangle<L>, s: &Sphere<L>) -> L::Mask {
    sphere_triangle(s, tri)
}
