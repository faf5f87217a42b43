//! # widephase
//!
//! Collision kernels that are exact, conservative when asked, and bit-identical
//! from the scalar function to 16-lane AVX-512 packs.
//!
//! Every query is written once over the [`Lane`] trait: `f32` is the scalar
//! catalogue (`widephase::overlap::triangle_aabb(&tri, &aabb) -> bool`), and
//! `f32x4`/`f32x8`/`f32x16` instantiate the same code for structure-of-arrays
//! packs of shapes.
//!
//! ```
//! use widephase::{overlap, Aabb, Triangle, Vec3};
//! let tri = Triangle::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
//! let touching = Aabb::new(Vec3::new(1.0, 1.0, 0.0), Vec3::new(3.0, 3.0, 3.0));
//! assert!(overlap::triangle_aabb(&tri, &touching)); // closed sets: touching counts
//! let apart = Aabb::new(Vec3::new(1.0, 1.0, 0.5), Vec3::new(3.0, 3.0, 3.0));
//! assert!(!overlap::triangle_aabb(&tri, &apart));
//! ```
//!
//! # Contracts
//!
//! Every function in the crate keeps these rules; function docs link here
//! instead of restating them.
//!
//! ## Closed sets
//! Shapes are closed point sets. Touching — a shared face, edge, vertex or single
//! point — counts as intersecting. A ray's parameter interval `[t_min, t_max]`
//! is closed too: a hit exactly at `t_max` is a hit.
//!
//! ## Exact answers, and the ulp band
//! Boolean predicates answer as exact (real-number) arithmetic on the given `f32`
//! inputs would, except when the exact configuration is *within the ulp band of
//! contact*: when the exact separation margin on some separating axis (or the
//! quantity a test compares) is smaller in magnitude than the rounding-error bound
//! derived for that computation in `simd-notes.md` (a few ulps of the magnitudes
//! involved). Inside the band the answer may go either way. Functions that return
//! numbers (distances, times, points) return the f32 evaluation of the documented
//! formula; they are accurate to a few ulps of the magnitudes involved.
//!
//! ## Conservative variants
//! Functions named `*_conservative` never answer "separated" when exact arithmetic
//! says the closed shapes touch or overlap: they widen each comparison by the
//! derived error bound, or answer "separated" only on a certificate that survives
//! the rounding (a separating direction whose computed margin exceeds its error
//! bound), so their only errors are false positives inside the band. Moving-shape
//! variants widen the contact interval instead (`t_first` never later, `t_last`
//! never earlier than exact). The voxelizer uses these.
//!
//! ## Range
//! The bounds assume no overflow: coordinates (and ray parameters used in
//! products) of magnitude at most [`COORD_LIMIT`] = 2^40 ≈ 1.1e12, so that every
//! intermediate product stays far below `f32::MAX`. Inputs beyond it are still
//! answered without panicking, but exactness is not promised. Underflow is covered:
//! bounds carry an absolute term for subnormal results.
//!
//! ## Non-finite inputs and degenerate shapes
//! One rule: **a predicate never panics, and answers "no intersection" (`false`,
//! an empty hit mask, no time of impact) when any coordinate of its inputs is NaN
//! or ±∞** — with one exception, ray intervals, whose `t_min` may be `-∞` and
//! `t_max` `+∞` (NaN is still invalid). Functions returning numbers return NaN
//! (or `None` for `Option` results) for such inputs. The same rule holds in every
//! lane of a pack, so padding lanes can never hit.
//!
//! Degenerate shapes are the lower-dimensional sets they are, and are tested as
//! such: a zero-area triangle is its segment or point; a zero-length segment or a
//! ray with zero direction is the point at its origin (a hit when the point meets
//! the other shape and `[t_min, t_max]` is non-empty, reported at `t = t_min`
//! clamped to be finite); a box with zero extent is a rectangle, segment or point.
//! An **inverted** box (`min > max` on some axis), a sphere with negative radius
//! and a ray with `t_min > t_max` are **empty** and intersect nothing.
//!
//! ## Bit-identical widths, and FMA
//! Scalar and every lane width give bit-identical results, in any lane position
//! and for any chunking or thread count: kernels use only correctly rounded IEEE
//! operations in one fixed order and never `mul_add` (whose fusion depends on the
//! build's target features). See `simd-notes.md` for the FMA policy.
//!
//! # Cargo features
//!
//! With `default-features = false` the library depends on `wide`, `bytemuck`
//! and `rayon` only (plus `libc` on Linux, for the huge-page advice of large
//! buffers). The default features add what the command line needs:
//! - `loaders`: reading mesh files, `voxel::Mesh::load` and
//!   `voxel::mesh::{parse_obj, parse_stl, parse_ply}` (stl_io, ply-rs);
//! - `preview`: `voxel::formats::write_png` (png);
//! - `cli`: the `widephase` binary (clap, indicatif), with both of the above.
//!
//! Optional: `glam`, `mint` (`From` conversions to and from their vector
//! types), `peers` (parry3d and obvhs in the benchmarks).

#![deny(missing_docs)]
#![deny(unsafe_code)]
#![warn(clippy::all)]

pub mod batch;
pub mod bounding;
pub mod broad;
pub mod bvh;
pub mod closest;
pub mod contact;
pub mod convert;
pub mod dynamic;
pub mod lane;
pub mod math;
mod mem;
pub mod overlap;
pub mod pack;
pub mod ray;
pub mod shapes;
pub mod simd;
pub mod voxel;
pub mod workload;

// The README's Rust snippets, compiled and run as doctests, so the README
// cannot drift from the API (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

pub use lane::{Lane, LaneMask};
pub use math::{Vec3, V3};
pub use shapes::{
    Aabb, Capsule, Cone, Cylinder, Dop14, Dop18, Dop26, Frustum, Kdop, Obb, Plane, Ray, Rect3,
    Segment, ShapeError, Sphere, Tetrahedron, Triangle,
};

/// Largest coordinate magnitude for which the exactness and conservativeness
/// bounds of the [contracts](crate#contracts) hold: 2^40.
pub const COORD_LIMIT: f32 = 1_099_511_627_776.0;

/// Unit roundoff of `f32` round-to-nearest: `u = 2^-24`. Every error bound in the
/// crate is a multiple of it (see `simd-notes.md`).
pub const UNIT_ROUNDOFF: f32 = 5.960_464_5e-8;
