//! Bounding volumes from point sets: AABB, k-DOP, spheres (Ritter's
//! approximation and Welzl's exact minimal sphere) and an OBB from the
//! covariance (PCA) of the points.
//!
//! Every builder returns a volume that **contains every input point exactly**
//! (as a closed set, with the `f32` values it returns): bounds that would need
//! rounding are rounded outward, and computed radii and half extents are
//! inflated by a derived bound and then rounded up (see `simd-notes.md`).
//! The tests check containment of every point with exact rational arithmetic.
//!
//! **Empty input and non-finite points** (the [contracts](crate#contracts)):
//! every builder returns `None` for an empty slice and **rejects** (returns
//! `None` for) a slice with any NaN or infinite coordinate, since a volume that
//! silently skipped a point would break the containment promise.
//!
//! Source: seed 003 ("包围体的构造": AABB, k-DOP, Ritter, Welzl, covariance /
//! PCA OBB); Ericson §4.2–4.6; Welzl 1991; Ritter, *Graphics Gems* (1990).

mod aabb;
mod kdop;
mod obb;
mod sphere;

pub use aabb::*;
pub use kdop::*;
pub use obb::*;
pub use sphere::*;

use crate::math::Vec3;

/// All coordinates finite and the slice non-empty.
pub(crate) fn usable(points: &[Vec3]) -> bool {
    !points.is_empty() && points.iter().all(|p| p.is_finite())
}

/// The smallest `f32` that is `>= x` (`+∞` above `f32::MAX`).
pub(crate) fn round_up(x: f64) -> f32 {
    let y = x as f32;
    if (y as f64) < x {
        y.next_up()
    } else {
        y
    }
}

/// The largest `f32` that is `<= x` (`-∞` below `-f32::MAX`).
pub(crate) fn round_down(x: f64) -> f32 {
    let y = x as f32;
    if (y as f64) > x {
        y.next_down()
    } else {
        y
    }
}

/// `[x, y, z]` of a point in `f64` (exact).
pub(crate) fn to64(p: Vec3) -> [f64; 3] {
    [p.x as f64, p.y as f64, p.z as f64]
}
