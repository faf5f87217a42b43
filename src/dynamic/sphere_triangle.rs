//! Moving sphere vs triangle.

use super::support::{
    earliest, max_magnitude, pow2_normalizer, projects_inside_triangle, segment_capsule_first_time,
};
use crate::math::Vec3;
use crate::shapes::{Sphere, Triangle};

/// Moving sphere–triangle: the earliest `t ∈ [0, 1]` at which the sphere `s`,
/// whose center moves by `d`, touches the closed triangle `tri` (`Some(0.0)`
/// when it touches at the start), or `None`.
///
/// The set of center positions in contact, `tri ⊕ ball(r)`, is the union of the
/// prism `{x : projection of x into tri's plane is in tri, |dist| <= r}` and
/// the three edge capsules. The first contact is the earliest of: the start
/// (if the center is in the prism; capsules report 0 themselves), the time the
/// center crosses one of the prism's two caps (the triangle offset by `±r`
/// along its normal; a crossing of the prism's sides is inside a capsule, so it
/// is never first), and the three segment–capsule times.
///
/// Pseudocode:
/// ```text
/// n = (b-a)×(c-a); rn = r·|n|; s0 = n·(center - a); vd = n·d
/// if n ≠ 0 and |s0| <= rn and inside(center): return 0
/// if n ≠ 0 and the plane at ±rn is reached at t in [0,1] and inside(center + t d): t
/// earliest with the capsules of ab, bc, ca
/// ```
/// A degenerate (zero-area) triangle is its segment or point: the capsules
/// alone. Contracts: [crate#contracts]; band in `simd-notes.md`.
///
/// Source: seed 000 §5.5.6 (heading only), seed 003 "球体/多边形动态相交测试";
/// Ericson §5.5.6.
///
/// ```
/// use widephase::{dynamic::moving_sphere_triangle, Sphere, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), Vec3::new(0.0, 4.0, 0.0));
/// let s = Sphere::new(Vec3::new(1.0, 1.0, 5.0), 1.0);
/// // Face contact when the center is at z = 1: t = 4/8.
/// assert_eq!(moving_sphere_triangle(&s, Vec3::new(0.0, 0.0, -8.0), &tri), Some(0.5));
/// // Falling beside the triangle, 1 away from edge ca: the sphere grazes the edge.
/// let s = Sphere::new(Vec3::new(-1.0, 1.0, 5.0), 1.0);
/// assert_eq!(moving_sphere_triangle(&s, Vec3::new(0.0, 0.0, -10.0), &tri), Some(0.5));
/// ```
pub fn moving_sphere_triangle(s: &Sphere, d: Vec3, tri: &Triangle) -> Option<f32> {
    if !(s.is_valid() && tri.is_valid() && d.is_finite()) {
        return None;
    }
    // Local frame: origin at vertex a, lengths scaled by a power of two so the
    // capsule quadratics (degree 8) neither underflow nor overflow.
    let (b, c, p) = (tri.b - tri.a, tri.c - tri.a, s.center - tri.a);
    let k = pow2_normalizer(max_magnitude(&[b, c, p, d], s.radius));
    let (a, b, c, p, d, r) = (Vec3::ZERO, b * k, c * k, p * k, d * k, s.radius * k);
    let n = (b - a).cross(c - a);
    let nn = n.dot(n);
    let mut best = None;
    if nn > 0.0 && nn.is_finite() {
        let rn = r * nn.sqrt();
        let s0 = n.dot(p - a);
        let vd = n.dot(d);
        if s0.abs() <= rn && projects_inside_triangle(p, a, b, c, n) {
            return Some(0.0);
        }
        // Crossing the cap facing the start: from the front (s0 > rn) the
        // center reaches s = rn, from behind s = -rn.
        let target = if s0 > 0.0 { rn } else { -rn };
        let approaching = (s0 > rn && vd < 0.0) || (s0 < -rn && vd > 0.0);
        if approaching {
            let t = (target - s0) / vd;
            if t <= 1.0 {
                let t = t.max(0.0);
                if projects_inside_triangle(p + d * t, a, b, c, n) {
                    best = Some(t);
                }
            }
        }
    }
    for (e0, e1) in [(a, b), (b, c), (c, a)] {
        best = earliest(best, segment_capsule_first_time(p, d, e0, e1, r));
    }
    best
}
