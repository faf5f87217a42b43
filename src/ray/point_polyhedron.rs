//! Point in convex polyhedron given by planes (Ericson §5.4.3; seed `000`
//! heading only).

use super::exact_sign_sum;
use crate::math::Vec3;
use crate::shapes::Plane;
use core::cmp::Ordering;

/// Whether `p` lies in the convex polyhedron `∩ {x : normal·x <= d}` of
/// `planes` (the half-space convention of [`Plane`]: normals point out).
/// Closed: a point on a face, edge or vertex is inside. Exact for all finite
/// inputs: each `normal·p - d` is a sum of three exact f64 products and `-d`,
/// whose sign is computed exactly. An empty plane list is all of space (`true`
/// for a finite point); NaN or ±∞ anywhere gives `false`. A plane with a zero
/// normal is `0 <= d`: all of space or empty.
///
/// Source: Ericson §5.4.3 (seed `000` heading only).
///
/// ```
/// use widephase::{ray::point_in_convex_polyhedron, Plane, Vec3};
/// // the unit cube [0, 1]^3 as six planes
/// let cube = [
///     Plane::new(Vec3::X, 1.0), Plane::new(-Vec3::X, 0.0),
///     Plane::new(Vec3::Y, 1.0), Plane::new(-Vec3::Y, 0.0),
///     Plane::new(Vec3::Z, 1.0), Plane::new(-Vec3::Z, 0.0),
/// ];
/// assert!(point_in_convex_polyhedron(Vec3::new(1.0, 1.0, 1.0), &cube)); // a corner
/// assert!(!point_in_convex_polyhedron(Vec3::new(1.0, 0.5, -1e-30), &cube));
/// ```
pub fn point_in_convex_polyhedron(p: Vec3, planes: &[Plane]) -> bool {
    if !p.is_finite() {
        return false;
    }
    let m = |a: f32, b: f32| a as f64 * b as f64;
    planes.iter().all(|pl| {
        pl.normal.is_finite()
            && pl.d.is_finite()
            && exact_sign_sum(&[
                m(pl.normal.x, p.x),
                m(pl.normal.y, p.y),
                m(pl.normal.z, p.z),
                -(pl.d as f64),
            ]) != Ordering::Greater
    })
}
