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

/// `x` clamped to `[0, 1]`; NaN maps to 0 (`maxps` rule: `NaN.max(0) = 0`).
#[inline]
pub(crate) fn clamp01(x: f32) -> f32 {
    crate::Lane::min(crate::Lane::max(x, 0.0), 1.0)
}
