//! Dynamic (continuous) intersection tests: moving shapes over the time
//! interval `t ∈ [0, 1]`, where a shape moving with displacement `d` occupies
//! its start position translated by `t·d` at time `t`.
//!
//! Every query answers the *earliest* time of contact (and, for boxes, the last)
//! of the closed shapes, following the crate [contracts](crate#contracts):
//! touching counts as contact, shapes already in contact at `t = 0` report
//! `t = 0`, and any non-finite input gives no time of impact. Derivations of the
//! error bounds and the errata found in the source texts are in
//! `simd-notes.md` (source: seed 000 §5.5, seed 003 "动态相交测试";
//! Ericson, *Real-Time Collision Detection*, §5.5).

mod aabb_aabb;
mod interval_halving;
mod sphere_aabb;
mod sphere_plane;
mod sphere_sphere;
mod sphere_triangle;
mod support;

pub use aabb_aabb::*;
pub use interval_halving::*;
pub use sphere_aabb::*;
pub use sphere_plane::*;
pub use sphere_sphere::*;
pub use sphere_triangle::*;
