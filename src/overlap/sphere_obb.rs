//! Sphere–OBB intersection via the closest point (Ericson §5.2.6,
//! `TestSphereOBB`; seed `000` §5.2.6).

use crate::closest::closest_point_obb;
use crate::math::Vec3;
use crate::shapes::{Obb, Sphere};

/// Whether the closed ball `s` and the closed box `b` intersect (touching
/// counts), and the point of the box nearest to the sphere's center.
///
/// Returns `Some(q)` with `q` from
/// [`closest_point_obb`](crate::closest::closest_point_obb) when
/// `|q - center|² <= radius²`, else `None`. `None` for a non-finite input,
/// a negative radius or half extent ([contracts](crate#contracts)). Like the
/// closest point, exact for orthonormal axes outside the band of
/// `simd-notes.md` ("sphere–OBB").
///
/// ```
/// use widephase::{overlap, Obb, Sphere, Vec3};
/// let b = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// let s = Sphere::new(Vec3::new(3.0, 0.0, 0.0), 2.0); // touching the face
/// assert_eq!(overlap::sphere_obb_contact(&s, &b), Some(Vec3::new(1.0, 0.0, 0.0)));
/// assert_eq!(overlap::sphere_obb_contact(&Sphere::new(Vec3::new(3.0, 0.0, 0.0), 1.5), &b), None);
/// ```
pub fn sphere_obb_contact(s: &Sphere, b: &Obb) -> Option<Vec3> {
    if !s.is_valid() {
        return None;
    }
    let q = closest_point_obb(s.center, b);
    let v = q - s.center;
    (v.dot(v) <= s.radius * s.radius).then_some(q) // NaN compares false
}

/// Whether the closed ball `s` and the closed box `b` intersect (touching
/// counts): [`sphere_obb_contact`] without the point.
///
/// ```
/// use widephase::{overlap, Obb, Sphere, Vec3};
/// let b = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// assert!(overlap::sphere_obb(&Sphere::new(Vec3::new(2.0, 2.0, 1.0), 1.5), &b)); // near an edge
/// assert!(!overlap::sphere_obb(&Sphere::new(Vec3::new(2.0, 2.0, 2.0), 1.7), &b));
/// ```
pub fn sphere_obb(s: &Sphere, b: &Obb) -> bool {
    sphere_obb_contact(s, b).is_some()
}
