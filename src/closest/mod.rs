//! Closest points between primitives (Ericson, *Real-Time Collision Detection*
//! §5.1; seed `000`, sections 5.1.3–5.1.11): one file per shape pair.
//!
//! Every function follows the crate [contracts](crate#contracts): it never
//! panics, returns NaN (or `None`) when an input coordinate is NaN or ±∞ or a
//! shape is empty, treats degenerate shapes as the lower-dimensional sets they
//! are, and returns the `f32` evaluation of the documented formula. The error
//! bounds of the squared distances are derived in `simd-notes.md`.
//!
//! [`closest_point_triangle`] is **lane-generic**: the same branch-free code
//! runs for a scalar `f32` query and for `f32x4`/`f32x8`/`f32x16` packs, with
//! bit-identical results. The others are scalar.

mod line_line;
mod point_aabb;
mod point_obb;
mod point_polygon;
mod point_polyhedron;
mod point_rect;
mod point_tetrahedron;
mod point_triangle;
mod segment_segment;
mod segment_triangle;
mod triangle_triangle;

pub use line_line::*;
pub use point_aabb::*;
pub use point_obb::*;
pub use point_polygon::*;
pub use point_polyhedron::*;
pub use point_rect::*;
pub use point_tetrahedron::*;
pub use point_triangle::*;
pub use segment_segment::*;
pub use segment_triangle::*;
pub use triangle_triangle::*;

use crate::math::Vec3;

/// `(x, x, x)` with `x = NaN`: the answer for invalid input.
pub(crate) const NAN3: Vec3 = Vec3 { x: f32::NAN, y: f32::NAN, z: f32::NAN };

/// Whether all three coordinates are finite.
#[inline]
pub(crate) fn finite(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// Largest coordinate magnitude of `pts` (all finite).
#[inline]
pub(crate) fn max_abs(pts: &[Vec3]) -> f32 {
    pts.iter().fold(0.0f32, |m, v| m.max(v.x.abs()).max(v.y.abs()).max(v.z.abs()))
}

/// The power of two `2^k`, `k >= 0`, that brings a largest coordinate
/// magnitude `m < 1` into `[1, 2)` (`k <= 127`, so a subnormal `m` lands in
/// `[2^-22, 2)`); 1 for `m >= 1` and for `m = 0`.
///
/// The closest-point queries below form degree-2 to degree-4 products of
/// coordinate differences; at coordinates near `2^-40` and below these
/// underflow (squared lengths round to 0, orientation determinants to noise)
/// although every coordinate is an ordinary `f32`. Multiplying every input by
/// `2^k` is exact (no rounding: only the exponent changes, and `2^k·m < 2`
/// cannot overflow), every operation on the scaled inputs is the scaled
/// operation on the originals up to the underflow it avoids, and dividing the
/// returned points by `2^k` is exact unless the point itself is subnormal
/// (one rounding of at most `2^-150`). For `m >= 1` nothing changes, so
/// answers at ordinary scales are bit-identical to the unscaled evaluation.
#[inline]
pub(crate) fn tiny_input_scale(m: f32) -> f32 {
    let e = (m.to_bits() >> 23) & 0xff;
    if m == 0.0 || e >= 127 {
        1.0
    } else {
        f32::from_bits((254 - e) << 23)
    }
}

/// `x` clamped to `[0, 1]`; NaN maps to 0 (`maxps` rule: `NaN.max(0) = 0`).
#[inline]
pub(crate) fn clamp01(x: f32) -> f32 {
    crate::Lane::min(crate::Lane::max(x, 0.0), 1.0)
}
