//! Point–AABB closest point and squared distance (Ericson §5.1.3, seed `000`
//! §5.1.3–5.1.3.1).

use super::NAN3;
use crate::math::Vec3;
use crate::shapes::Aabb;

/// The point of the closed box `b` nearest to `p`: `p` clamped to `[min, max]`
/// per axis. Inside the box this is `p` itself.
///
/// The clamp is exact (no rounding: every coordinate of the result is a
/// coordinate of `p` or of the box). Returns NaN when any input is non-finite or
/// the box is inverted (empty; see the [contracts](crate#contracts)).
///
/// ```
/// use widephase::{closest, Aabb, Vec3};
/// let b = Aabb::new(Vec3::ZERO, Vec3::splat(1.0));
/// assert_eq!(closest::closest_point_aabb(Vec3::new(2.0, 0.5, -1.0), &b), Vec3::new(1.0, 0.5, 0.0));
/// // a point on the face is its own closest point (touching)
/// assert_eq!(closest::closest_point_aabb(Vec3::new(1.0, 0.5, 0.5), &b), Vec3::new(1.0, 0.5, 0.5));
/// ```
pub fn closest_point_aabb(p: Vec3, b: &Aabb) -> Vec3 {
    if !(p.is_finite() & b.is_valid()) {
        return NAN3;
    }
    // Per axis: if p < min { min } else if p > max { max } else { p }.
    p.max(b.min).min(b.max)
}

/// Squared distance from `p` to the closed box `b` (0 inside), summing the
/// per-axis excess `max(min - p, 0, p - max)` squared in the order x, y, z.
///
/// Error: each excess is one rounded subtraction, so the result is within
/// `4u` relative of the exact squared distance, plus an underflow term (see
/// `simd-notes.md`). NaN for non-finite input or an inverted box.
///
/// ```
/// use widephase::{closest, Aabb, Vec3};
/// let b = Aabb::new(Vec3::ZERO, Vec3::splat(1.0));
/// assert_eq!(closest::sq_dist_point_aabb(Vec3::new(4.0, 5.0, 0.5), &b), 9.0 + 16.0);
/// assert_eq!(closest::sq_dist_point_aabb(Vec3::new(1.0, 1.0, 1.0), &b), 0.0); // corner: touching
/// ```
pub fn sq_dist_point_aabb(p: Vec3, b: &Aabb) -> f32 {
    if !(p.is_finite() & b.is_valid()) {
        return f32::NAN;
    }
    let mut sum = 0.0;
    for i in 0..3 {
        let (v, lo, hi) = (p.get(i), b.min.get(i), b.max.get(i));
        // Only one of the two excesses can be positive (lo <= hi).
        let excess = if v < lo {
            lo - v
        } else if v > hi {
            v - hi
        } else {
            0.0
        };
        sum += excess * excess;
    }
    sum
}
