//! Moving sphere vs plane.

use crate::math::Vec3;
use crate::shapes::{Plane, Sphere};

/// Moving sphere–plane: the earliest `t ∈ [0, 1]` at which the sphere `s`,
/// whose center moves by `d` (center `s.center + t·d`), touches the plane, or
/// `None`. `Some(0.0)` when it touches or crosses the plane at the start.
///
/// Distance is measured as `normal·x - plane.d`, the Euclidean signed distance
/// when `normal` is unit length (as [`Plane::try_from_points`] makes it). For a
/// non-unit normal the result is the time the center enters the slab
/// `|normal·x - d| <= radius`; a zero normal makes that slab all of space
/// (`|d| <= radius`) or empty. Both sides of the plane count (use the sign of
/// [`Plane::signed_distance`] at the start to tell which side was hit).
///
/// With `s0 = n·c - D` and `s1 = s0 + n·d` the signed distances at `t = 0` and
/// `t = 1` (linear in between), the sphere touches the plane at some time iff
/// `min(s0, s1) <= r` and `max(s0, s1) >= -r`; the first time is
/// `(r - s0)/(n·d)` coming from the front, `(-r - s0)/(n·d)` from behind.
/// Contracts: [crate#contracts]; the ulp band and time accuracy are derived in
/// `simd-notes.md`.
///
/// Source: seed 000 §5.5.3 (heading only), seed 003 "球体/平面动态相交测试";
/// Ericson §5.5.3 `IntersectMovingSpherePlane`.
///
/// ```
/// use widephase::{dynamic::moving_sphere_plane, Plane, Sphere, Vec3};
/// let ground = Plane::new(Vec3::Y, 0.0);
/// let ball = Sphere::new(Vec3::new(0.0, 3.0, 0.0), 1.0);
/// // Falls 4 units: touches the ground when the center is at y = 1, t = 0.5.
/// assert_eq!(moving_sphere_plane(&ball, Vec3::new(0.0, -4.0, 0.0), &ground), Some(0.5));
/// // Falls exactly 2 units: touching at t = 1 counts.
/// assert_eq!(moving_sphere_plane(&ball, Vec3::new(0.0, -2.0, 0.0), &ground), Some(1.0));
/// assert_eq!(moving_sphere_plane(&ball, Vec3::new(5.0, 0.0, 0.0), &ground), None);
/// ```
pub fn moving_sphere_plane(s: &Sphere, d: Vec3, plane: &Plane) -> Option<f32> {
    let valid = s.is_valid() && d.is_finite() && plane.normal.is_finite() && plane.d.is_finite();
    if !valid {
        return None;
    }
    let r = s.radius;
    let s0 = plane.normal.dot(s.center) - plane.d;
    let vd = plane.normal.dot(d);
    let s1 = s0 + vd;
    // The range [min(s0, s1), max(s0, s1)] of s(t) meets [-r, r] (false on NaN).
    let meets = s0.min(s1) <= r && s0.max(s1) >= -r;
    if !meets {
        return None;
    }
    if s0.abs() <= r {
        return Some(0.0);
    }
    // s0 > r: vd < 0 (s1 <= r < s0); s0 < -r: vd > 0. The quotient is in [0, 1]
    // in exact arithmetic; clamp its rounding.
    let target = if s0 > r { r } else { -r };
    let t = (target - s0) / vd;
    Some(t.clamp(0.0, 1.0))
}
