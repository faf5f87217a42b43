//! Moving sphere vs AABB.

use super::aabb_aabb::moving_aabb_aabb;
use super::support::{
    corner, earliest, max_magnitude, pow2_normalizer, segment_capsule_first_time,
};
use crate::math::Vec3;
use crate::shapes::{Aabb, Sphere};

/// Moving sphere–AABB: the earliest `t ∈ [0, 1]` at which the sphere `s`,
/// whose center moves by `d`, touches the box `b` (`Some(0.0)` when it touches
/// or overlaps at the start), or `None`.
///
/// Pseudocode (seed 000 §5.5.7, Ericson's `IntersectMovingSphereAABB`):
/// ```text
/// e = b grown by r on every side            // a box around b ⊕ sphere
/// t, p = first point of segment c..c+d in e // none → no contact
/// u, v = axes where p is below b.min / above b.max
/// one axis   (face region):   contact at t
/// two axes   (edge region):   segment vs the capsule of that edge
/// three axes (vertex region): earliest of the capsules of its three edges
/// ```
/// The segment meets the rounded box `b ⊕ sphere` exactly where it meets `e`
/// except in `e`'s edge and corner blocks, where the rounding is the capsules.
/// The seed's `Corner()` helper has an erratum (all three coordinates test bit
/// 0); the corner used here selects bit `i` for axis `i`. Contracts:
/// [crate#contracts]. An inverted box never hits; a box of zero extent is its
/// rectangle, segment or point.
///
/// Band: the hit/miss answer can differ from exact arithmetic only when the
/// exact minimum over the sweep of `dist²(center, box) - r²` is within
/// `256u·S²` of 0, `S = max |input coordinate| + r` — a first-order estimate
/// with margin (`simd-notes.md`, "Moving sphere–triangle and sphere–AABB"),
/// not a rigorous bound, and the band the tests enforce. Measured: the largest
/// in-band disagreement is `1.14u·S²` (4.4e-3 of the band; 1 676 in-band
/// disagreements, none outside, in 100 000 exact-reference cases at scales
/// `2^-60 … 2^36`, `WIDEPHASE_CASES=400000 cargo test --release --test dynamic
/// sphere_aabb`); larger in-band errors (reported up to about 18 ulps of the
/// contact quantity) are possible and are not excluded by any derivation.
///
/// ```
/// use widephase::{dynamic::moving_sphere_aabb, Aabb, Sphere, Vec3};
/// let b = Aabb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 1.0));
/// let s = Sphere::new(Vec3::new(-3.0, 0.5, 0.5), 1.0);
/// // Face contact when the center reaches x = -1: t = 2/4.
/// assert_eq!(moving_sphere_aabb(&s, Vec3::new(4.0, 0.0, 0.0), &b), Some(0.5));
/// // Passing diagonally past an edge: the rounded edge is missed ...
/// let s = Sphere::new(Vec3::new(-1.0, 1.9, 0.5), 1.0);
/// assert_eq!(moving_sphere_aabb(&s, Vec3::new(0.1, 0.0, 0.0), &b), None);
/// // ... although the center enters the grown box [-1, 2]^3 at t = 0.
/// ```
pub fn moving_sphere_aabb(s: &Sphere, d: Vec3, b: &Aabb) -> Option<f32> {
    if !(s.is_valid() && b.is_valid() && d.is_finite()) {
        return None;
    }
    // Local frame: origin at b.min, lengths scaled by a power of two so the
    // capsule quadratics (degree 8) neither underflow nor overflow.
    let ext = b.max - b.min;
    let c = s.center - b.min;
    let k = pow2_normalizer(max_magnitude(&[ext, c, d], s.radius));
    let (ext, c, d, r) = (ext * k, c * k, d * k, s.radius * k);
    let b = &Aabb::new(Vec3::ZERO, ext);
    let e = Aabb::new(b.min - Vec3::splat(r), b.max + Vec3::splat(r));
    // The center as a moving point-box against e: the slab test, with zero
    // direction components handled exactly.
    let entry = moving_aabb_aabb::<f32>(&e, &Vec3::ZERO, &Aabb::new(c, c), &d);
    if !entry.hit {
        return None;
    }
    let t = entry.t_first;
    let p = c + d * t;
    // Bit i of u: p below b.min on axis i; of v: above b.max (never both).
    let mut u = 0u32;
    let mut v = 0u32;
    for i in 0..3 {
        if p.get(i) < b.min.get(i) {
            u |= 1 << i;
        }
        if p.get(i) > b.max.get(i) {
            v |= 1 << i;
        }
    }
    let m = u | v;
    if m & m.wrapping_sub(1) == 0 {
        // Face region (one bit) or inside b (no bit): t is the contact time.
        return Some(t);
    }
    if m == 7 {
        // Vertex region: the corner is `v` (bits above max), its three edges go
        // to the corners that differ in one bit.
        let mut best = None;
        for bit in [1u32, 2, 4] {
            let hit = segment_capsule_first_time(c, d, corner(b, v), corner(b, v ^ bit), r);
            best = earliest(best, hit);
        }
        return best;
    }
    // Edge region: the edge from corner(u ^ 7) to corner(v) runs along the one
    // axis not set in m.
    segment_capsule_first_time(c, d, corner(b, u ^ 7), corner(b, v), r)
}
