//! The integration tests of the BVH, the broad phase and the voxelizer, on
//! scenes and meshes. One crate with a module per file (see `Cargo.toml`),
//! built by `.ci/run` once per SIMD backend. One file's tests:
//! `cargo test --release --test scenes -- voxel::`.

mod common;

mod broad;
#[cfg(feature = "loaders")]
mod bvh;
#[cfg(feature = "loaders")]
mod voxel;
mod voxel_edges;
mod voxel_pad;
mod voxel_paths;
#[cfg(feature = "loaders")]
mod voxel_tile;
