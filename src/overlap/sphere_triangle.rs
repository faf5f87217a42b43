//! Sphere–triangle intersection via the closest point (Ericson §5.2.7,
//! `TestSphereTriangle`; seed `000` §5.2.7). **Lane-generic.**

use crate::closest::closest_point_triangle;
use crate::lane::Lane;
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
