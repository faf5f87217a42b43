//! Sphere–sphere overlap (seed `000` §4.3.1 / `003` "sphere overlap").
//!
//! Two closed balls intersect iff `|c_b - c_a|^2 <= (r_a + r_b)^2` (touching
//! counts). Comparing squares avoids the square root and keeps the test exact
//! up to the ulp band derived in `simd-notes.md`:
//! `|D² - R²| <= 6u·(D² + R²) + 2^-147`, with `D²`, `R²` the exact values.

use crate::{Lane, Sphere};

/// Whether the closed balls `a` and `b` intersect (touching counts), per lane.
///
/// **LANE-GENERIC**: `L = f32` is the scalar API (returns `bool`); `f32x4`,
/// `f32x8`, `f32x16` evaluate packs of sphere pairs with bit-identical results.
/// Follows the [contracts](crate#contracts): invalid lanes (non-finite values,
/// negative radius = empty sphere) answer `false`; a zero radius is a point.
///
/// Formula: `d = c_b - c_a; d·d <= (r_a + r_b)^2`; source: seed `000` §4.3.1.
///
/// ```
/// use widephase::{overlap::sphere_sphere, Sphere, Vec3};
/// let a = Sphere::new(Vec3::ZERO, 1.0);
/// let touching = Sphere::new(Vec3::new(3.0, 0.0, 0.0), 2.0);
/// assert!(sphere_sphere(&a, &touching));
/// let apart = Sphere::new(Vec3::new(3.0, 0.0, 0.0), 1.5);
/// assert!(!sphere_sphere(&a, &apart));
/// ```
#[inline(always)]
pub fn sphere_sphere<L: Lane>(a: &Sphere<L>, b: &Sphere<L>) -> L::Mask {
    let d = b.center - a.center;
    let r = a.radius + b.radius;
    // if (dot(d, d) <= r * r) return hit;
    d.dot(d).le(r * r) & a.is_valid() & b.is_valid()
}

/// Conservative sphere–sphere overlap, per lane: never answers "separated" when
/// exact arithmetic says the closed balls touch or overlap
/// ([contracts](crate#contracts), "Conservative variants").
///
/// ```text
/// lhs = d·d, rhs = (r_a + r_b)², d = c_b - c_a          (as in sphere_sphere)
/// hit <=> lhs <= rhs + 16u·(lhs + rhs) + 2^-140
/// ```
///
/// Why it cannot miss: the computed `lhs - rhs` differs from the exact
/// `D² - R²` by at most `6u·(D² + R²) + 2^-147` (the band of
/// [`sphere_sphere`], module docs), and `D² + R² <= (lhs + rhs)(1 + 6u) +
/// 2^-147`; so when `D² <= R²`, `lhs - rhs <= 7u·(lhs + rhs) + 2^-146`. The
/// tolerance is evaluated in `f32` (`16u` is a power of two: the product is
/// exact; the two additions lose at most `2u·(lhs + rhs + tol)`), which still
/// leaves it above `7u·(lhs + rhs) + 2^-146`. False positives: pairs separated
/// by `D² - R² <= 22u·(D² + R²) + 2^-139`. Invalid lanes answer `false`.
///
/// **LANE-GENERIC**, bit-identical at every width.
///
/// ```
/// use widephase::{overlap::sphere_sphere_conservative, Sphere, Vec3};
/// let a = Sphere::new(Vec3::ZERO, 1.0);
/// assert!(sphere_sphere_conservative(&a, &Sphere::new(Vec3::new(3.0, 0.0, 0.0), 2.0)));
/// assert!(!sphere_sphere_conservative(&a, &Sphere::new(Vec3::new(3.0, 0.0, 0.0), 1.5)));
/// ```
#[inline(always)]
pub fn sphere_sphere_conservative<L: Lane>(a: &Sphere<L>, b: &Sphere<L>) -> L::Mask {
    let d = b.center - a.center;
    let r = a.radius + b.radius;
    let (lhs, rhs) = (d.dot(d), r * r);
    let k = L::splat(16.0 * crate::UNIT_ROUNDOFF);
    let floor = L::splat(f32::from_bits(512)); // 2^-140
    lhs.le(rhs + k * (lhs + rhs) + floor) & a.is_valid() & b.is_valid()
}
