//! Point–OBB closest point and squared distance (Ericson §5.1.4, seed `000`
//! §5.1.4–5.1.4.1).

use super::NAN3;
use crate::math::Vec3;
use crate::shapes::Obb;

/// The point of the closed OBB `b` nearest to `p`.
///
/// `p - center` is projected on each axis (`dist_i = (p - c)·u_i`), clamped to
/// `[-half_i, half_i]` and mapped back: `q = c + Σ dist_i·u_i`, summed in axis
/// order. This is the exact closest point when the axes are orthonormal (as
/// [`Obb::try_new`] checks); for axes that are orthonormal only to `f32`
/// precision it is the formula's value, which the tests check exactly.
/// NaN for non-finite input or a negative half extent (an empty box).
///
/// ```
/// use widephase::{closest, Obb, Vec3};
/// // the unit cube rotated so that its local x axis is world y
/// let b = Obb::new(Vec3::ZERO, [Vec3::Y, Vec3::Z, Vec3::X], Vec3::new(1.0, 2.0, 3.0));
/// assert_eq!(closest::closest_point_obb(Vec3::new(5.0, 5.0, 5.0), &b), Vec3::new(3.0, 1.0, 2.0));
/// ```
pub fn closest_point_obb(p: Vec3, b: &Obb) -> Vec3 {
    if !(finite_point(p) && b.is_valid()) {
        return NAN3;
    }
    let d = p - b.center;
    let mut q = b.center;
    for i in 0..3 {
        let e = b.half.get(i);
        // if dist > e { e } else if dist < -e { -e } else { dist }
        let dist = d.dot(b.axes[i]).max(-e).min(e);
        q += b.axes[i] * dist;
    }
    q
}

fn finite_point(p: Vec3) -> bool {
    super::finite(p)
}

/// Squared distance from `p` to the closed OBB `b`: `Σ excess_i²` with
/// `excess_i = max(|(p - c)·u_i| - half_i, 0)` (Ericson's `SqDistPointOBB`,
/// second form; it never forms the closest point, so it is more accurate).
///
/// Exact for orthonormal axes up to the rounding bound of `simd-notes.md`
/// (`≤ 12u` relative to `Σ (|d_i| + half_i)²`-scale terms). NaN for non-finite
/// input or a negative half extent.
///
/// ```
/// use widephase::{closest, Obb, Vec3};
/// let b = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// assert_eq!(closest::sq_dist_point_obb(Vec3::new(3.0, 0.0, 0.0), &b), 4.0);
/// assert_eq!(closest::sq_dist_point_obb(Vec3::new(1.0, -1.0, 1.0), &b), 0.0); // corner
/// ```
pub fn sq_dist_point_obb(p: Vec3, b: &Obb) -> f32 {
    if !(finite_point(p) && b.is_valid()) {
        return f32::NAN;
    }
    let v = p - b.center;
    let mut sum = 0.0;
    for i in 0..3 {
        let d = v.dot(b.axes[i]);
        let e = b.half.get(i);
        let excess = if d < -e {
            d + e
        } else if d > e {
            d - e
        } else {
            0.0
        };
        sum += excess * excess;
    }
    sum
}
