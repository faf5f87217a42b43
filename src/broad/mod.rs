//! Broad phase: all overlapping pairs among many AABBs.
//!
//! - [`self_pairs`] / [`bipartite_pairs`]: one-shot box pruning (sort on x,
//!   SoA overlap tests on y and z over wide lanes, rayon across the sweep);
//!   see [`box_pruning`](self_pairs_with) for the algorithm. `self_pairs`
//!   keeps its scratch per thread between calls (up to 32 MiB).
//! - [`BoxPruner`]: the same query with its scratch kept between calls (no
//!   allocation after the first call).
//! - [`BroadPhase`]: the frame-to-frame version for moving boxes (insert,
//!   update, remove; re-sorts and re-queries only what moved).
//! - [`workload`]: the seeded box distributions used by the benchmarks and the
//!   `widephase pairs --random` command.
//!
//! Pairs are `(u32, u32)` index pairs in a sorted `Vec`: `(i, j)` with `i < j`
//! for self pairs, `(index in a, index in b)` for bipartite pairs. The overlap
//! rule is exactly [`aabb_aabb`](crate::overlap::aabb_aabb): closed boxes
//! (touching faces, edges or corners pair; a zero-size box is a point), and a
//! box that is not [valid](crate::Aabb::is_valid) (NaN, `min > max`, infinite
//! extent) never pairs. Comparisons only, no arithmetic: the answer is exact.
//!
//! ```
//! use widephase::broad::{bipartite_pairs, self_pairs};
//! use widephase::{Aabb, Vec3};
//! let b = |x: f32| Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 1.0, 1.0, 1.0));
//! let boxes = [b(0.0), b(3.0), b(1.0), b(0.5)];
//! assert_eq!(self_pairs(&boxes), vec![(0, 2), (0, 3), (2, 3)]);
//! assert_eq!(bipartite_pairs(&boxes[..1], &boxes[1..]), vec![(0, 1), (0, 2)]);
//! ```

mod box_pruning;
mod incremental;
mod radix;
pub mod workload;

pub use box_pruning::{
    bipartite_pairs, bipartite_pairs_with, self_pairs, self_pairs_with, BoxPruner,
};
pub use incremental::{BroadPhase, Handle};

/// The lane type the convenience entry points use: 16 lanes (one AVX-512
/// register, two AVX2 registers). Measured against 8 lanes in `benches/broad.rs`.
pub type NativeLane = wide::f32x16;
