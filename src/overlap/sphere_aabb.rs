//! Sphere–AABB overlap (Ericson §5.2.5, `TestSphereAABB` via `SqDistPointAABB`).

use crate::lane::Lane;
use crate::shapes::{Aabb, Sphere};

/// Relative error constant of the conservative sphere–box test: `2^-20 = 16u`,
/// twice the derived `7.1u` (see `simd-notes.md`, "Sphere–AABB error bound").
pub const SPHERE_AABB_K: f32 = 1.0 / 1_048_576.0;
/// Absolute term for underflow in the squares: `2^-140`.
pub const SPHERE_AABB_ABS: f32 = f32::from_bits(512);

/// Squared distance from the sphere's center to the box, per the shared
/// formula: `d_k = max(min_k - c_k, 0, c_k - max_k)` (at most one is positive),
/// summed as `d_x² + d_y² + d_z²`.
#[inline(always)]
fn sq_dist_center<L: Lane>(s: &Sphere<L>, b: &Aabb<L>) -> L {
    let zero = L::splat(0.0);
    let dx = (b.min.x - s.center.x).max(s.center.x - b.max.x).max(zero);
    let dy = (b.min.y - s.center.y).max(s.center.y - b.max.y).max(zero);
    let dz = (b.min.z - s.center.z).max(s.center.z - b.max.z).max(zero);
    dx * dx + dy * dy + dz * dz
}

/// Does the closed ball `s` touch or overlap the closed box `b`?
///
/// Compares the squared distance from the center to the box with `radius²`;
/// exact except inside the ulp band (see [contracts](crate#contracts)). Returns
/// `false` for non-finite input, negative radii and inverted boxes. A sphere of
/// radius 0 is a point.
///
/// ```
/// use widephase::{overlap::sphere_aabb, Aabb, Sphere, Vec3};
/// let b = Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
/// assert!(sphere_aabb(&Sphere::new(Vec3::new(2.0, 0.5, 0.5), 1.0), &b)); // touches a face
/// assert!(!sphere_aabb(&Sphere::new(Vec3::new(2.0, 2.0, 2.0), 1.7), &b)); // corner is √3 away
/// ```
#[inline(always)]
pub fn sphere_aabb<L: Lane>(s: &Sphere<L>, b: &Aabb<L>) -> L::Mask {
    let valid = s.is_valid() & b.is_valid();
    valid & sq_dist_center(s, b).le(s.radius * s.radius)
}

/// Conservative sphere–box test: never `false` when the ball and the box touch
/// or overlap in exact arithmetic; may be `true` within the rounding bound.
///
/// ```
/// use widephase::{overlap::sphere_aabb_conservative, Aabb, Sphere, Vec3};
/// let b = Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
/// // 0.1 is not representable: exact arithmetic on the f32 inputs decides.
/// assert!(sphere_aabb_conservative(&Sphere::new(Vec3::new(1.1, 1.0, 1.0), 0.1), &b));
/// ```
#[inline(always)]
pub fn sphere_aabb_conservative<L: Lane>(s: &Sphere<L>, b: &Aabb<L>) -> L::Mask {
    let valid = s.is_valid() & b.is_valid();
    let d2 = sq_dist_center(s, b);
    let r2 = s.radius * s.radius;
    // if (d2 - r2 <= K (d2 + r2) + abs) overlapping
    let slack = (d2 + r2) * L::splat(SPHERE_AABB_K) + L::splat(SPHERE_AABB_ABS);
    valid & d2.le(r2 + slack)
}

/// [`sphere_aabb`] with the arguments swapped.
#[inline(always)]
pub fn aabb_sphere<L: Lane>(b: &Aabb<L>, s: &Sphere<L>) -> L::Mask {
    sphere_aabb(s, b)
}
