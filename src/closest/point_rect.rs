//! Point–3D rectangle closest point (Ericson §5.1.4.2, seed `000` §5.1.4.2).

use super::{finite, NAN3};
use crate::math::Vec3;
use crate::shapes::Rect3;

/// The point of the closed rectangle `r` nearest to `p`: an OBB with zero
/// extent along the normal. `p - center` is projected on `u` and `v`, each
/// coordinate clamped to `[-half, half]`, and `q = center + s·u + t·v`.
///
/// Exact closest point for orthonormal `u`, `v` ([`Rect3::try_new`] checks);
/// NaN for non-finite input or a negative half extent (an empty rectangle).
///
/// ```
/// use widephase::{closest, Rect3, Vec3};
/// let r = Rect3::try_new(Vec3::ZERO, Vec3::X, Vec3::Y, 1.0, 2.0).unwrap();
/// assert_eq!(closest::closest_point_rect(Vec3::new(3.0, 1.0, 7.0), &r), Vec3::new(1.0, 1.0, 0.0));
/// ```
pub fn closest_point_rect(p: Vec3, r: &Rect3) -> Vec3 {
    if !(finite(p) && r.is_valid()) {
        return NAN3;
    }
    let d = p - r.center;
    // if dist > e { e } else if dist < -e { -e } else { dist }
    let s = d.dot(r.u).max(-r.half_u).min(r.half_u);
    let t = d.dot(r.v).max(-r.half_v).min(r.half_v);
    r.center + r.u * s + r.v * t
}

/// Squared distance from `p` to the closed rectangle `r`: the squared excess
/// along `u` and `v` outside the half extents plus the squared offset along the
/// normal `u × v`, i.e. `|p - q|²` written without forming `q`
/// (`Σ excess² + (d·n)²`, `n = u × v`). NaN for invalid input.
///
/// ```
/// use widephase::{closest, Rect3, Vec3};
/// let r = Rect3::try_new(Vec3::ZERO, Vec3::X, Vec3::Y, 1.0, 1.0).unwrap();
/// assert_eq!(closest::sq_dist_point_rect(Vec3::new(3.0, 0.0, 1.0), &r), 4.0 + 1.0);
/// assert_eq!(closest::sq_dist_point_rect(Vec3::new(1.0, 1.0, 0.0), &r), 0.0); // corner
/// ```
pub fn sq_dist_point_rect(p: Vec3, r: &Rect3) -> f32 {
    if !(finite(p) && r.is_valid()) {
        return f32::NAN;
    }
    let d = p - r.center;
    let excess = |x: f32, e: f32| {
        if x < -e {
            x + e
        } else if x > e {
            x - e
        } else {
            0.0
        }
    };
    let eu = excess(d.dot(r.u), r.half_u);
    let ev = excess(d.dot(r.v), r.half_v);
    let h = d.dot(r.u.cross(r.v));
    eu * eu + ev * ev + h * h
}
