//! Static intersection tests: one file per shape pair.
//!
//! All predicates follow the crate [contracts](crate#contracts): closed sets,
//! exact answers outside the ulp band, `false` on non-finite input.

mod aabb_aabb;
mod frustum;
mod kdop;
mod obb_obb;
mod plane;
pub mod sat;
mod sphere_aabb;
mod sphere_obb;
mod sphere_polygon;
mod sphere_sphere;
mod sphere_triangle;
mod triangle_aabb;
mod triangle_triangle;

pub use aabb_aabb::*;
pub use frustum::*;
pub use kdop::*;
pub use obb_obb::*;
pub use plane::*;
pub use sphere_aabb::*;
pub use sphere_obb::*;
pub use sphere_polygon::*;
pub use sphere_sphere::*;
pub use sphere_triangle::*;
pub use triangle_aabb::*;
pub use triangle_triangle::*;
