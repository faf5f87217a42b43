//! Moving sphere vs moving sphere.

use super::support::{max_magnitude, pow2_normalizer};
use crate::math::Vec3;
use crate::shapes::Sphere;

/// Moving sphere–sphere: the earliest `t ∈ [0, 1]` at which sphere `a` moving
/// by `da` and sphere `b` moving by `db` touch (`Some(0.0)` when they touch or
/// overlap at the start), or `None`.
///
/// Relative motion: `s = b.c - a.c`, `v = db - da`, `r = a.r + b.r`; the
/// squared gap `f(t) = |s + t v|² - r² = A t² + 2 B t + C` with `A = v·v`,
/// `B = v·s`, `C = s·s - r²`. Contact in `[0, 1]` iff `min f <= 0` on `[0, 1]`:
/// `C <= 0` (touching at the start); otherwise `B < 0` (approaching) and either
/// the vertex `-B/A` is past 1 and `f(1) = |s + v|² - r² <= 0`, or the
/// discriminant `B² - A C >= 0`. The first root is computed as
/// `C / (-B + √(B² - A C))`, which has no cancellation since `-B > 0`.
/// Contracts: [crate#contracts]; band and accuracy in `simd-notes.md`.
///
/// Source: seed 000 §5.5.5 (heading only), seed 003 "动态相交测试";
/// Ericson §5.5.5 `TestMovingSphereSphere` (there `c - b²/a`-style form).
///
/// ```
/// use widephase::{dynamic::moving_sphere_sphere, Sphere, Vec3};
/// let a = Sphere::new(Vec3::ZERO, 1.0);
/// let b = Sphere::new(Vec3::new(10.0, 0.0, 0.0), 1.0);
/// // Both move towards each other by 4: the gap of 8 closes to 2 at t = 1.
/// let t = moving_sphere_sphere(&a, Vec3::new(4.0, 0.0, 0.0), &b, Vec3::new(-4.0, 0.0, 0.0));
/// assert_eq!(t, Some(1.0));
/// assert_eq!(moving_sphere_sphere(&a, Vec3::ZERO, &b, Vec3::new(0.0, 9.0, 0.0)), None);
/// ```
pub fn moving_sphere_sphere(a: &Sphere, da: Vec3, b: &Sphere, db: Vec3) -> Option<f32> {
    if !(a.is_valid() && b.is_valid() && da.is_finite() && db.is_finite()) {
        return None;
    }
    // Normalise lengths by a power of two (exact, see support::pow2_normalizer):
    // the discriminant is of degree 4 and would underflow for tiny inputs.
    let s = b.center - a.center;
    let v = db - da;
    let r = a.radius + b.radius;
    let k = pow2_normalizer(max_magnitude(&[s, v], r));
    let (s, v, r) = (s * k, v * k, r * k);
    let c = s.dot(s) - r * r;
    if c <= 0.0 {
        return Some(0.0);
    }
    let bq = v.dot(s);
    if bq >= 0.0 {
        // Not approaching (includes v = 0): the gap never shrinks.
        return None;
    }
    let aq = v.dot(v);
    let disc = bq * bq - aq * c;
    let hit = if aq + bq <= 0.0 {
        // The closest approach is at t >= 1: the gap at t = 1, computed from the
        // separation itself (no cancellation in C + 2B + A).
        let s1 = s + v;
        s1.dot(s1) - r * r <= 0.0
    } else {
        disc >= 0.0
    };
    if !hit {
        return None;
    }
    let t = c / (-bq + disc.max(0.0).sqrt());
    Some(t.clamp(0.0, 1.0))
}
