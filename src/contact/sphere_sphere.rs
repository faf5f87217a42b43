//! Sphere–sphere contact (one point).

use super::util::{fallback, manifold1, margin_ok, unit_or};
use super::Manifold;
use crate::lane::{Lane, LaneMask};
use crate::shapes::Sphere;

/// Contact of spheres `a` and `b` with speculative `margin` (see the
/// [module conventions](super)). **Lane-generic**: `f32` is the scalar
/// tester; every width gives bit-identical manifolds.
///
/// ```text
/// d = c_b - c_a;  n = d / |d|   (|d| == 0: n = +Y, see FALLBACK_NORMAL)
/// depth = r_a + r_b - |d|;  contact iff depth >= -margin
/// point = c_b - n·r_b (B's deepest point), feature id 0
/// ```
///
/// Coincident centres take the documented fallback normal `+Y` with depth
/// `r_a + r_b`. Invalid lanes (non-finite values, negative radius, NaN or
/// negative margin) have no contact.
///
/// ```
/// use widephase::contact::sphere_sphere;
/// use widephase::{Sphere, Vec3};
/// let m = sphere_sphere(&Sphere::new(Vec3::ZERO, 1.0), &Sphere::new(Vec3::new(1.5, 0.0, 0.0), 1.0), 0.0);
/// assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::X, 0.5));
/// assert_eq!(m.points[0].position, Vec3::new(0.5, 0.0, 0.0));
/// ```
#[inline(always)]
pub fn sphere_sphere<L: Lane>(a: &Sphere<L>, b: &Sphere<L>, margin: L) -> Manifold<L> {
    let valid = a.is_valid() & b.is_valid() & margin_ok(margin);
    let (n, dist) = unit_or(b.center - a.center, fallback());
    let depth = a.radius + b.radius - dist;
    // if (depth < -margin) return no contact;
    let hit = valid & depth.ge(-margin);
    if hit.none() {
        return Manifold::empty();
    }
    manifold1(hit, n, b.center - n * b.radius, depth, L::splat(0.0))
}
