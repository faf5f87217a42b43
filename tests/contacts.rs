//! The integration tests of the round-shape contact testers (spheres,
//! capsules), contacts against static meshes and their internal edges, and
//! the persistent narrow phase. One crate with a module per file (see
//! `Cargo.toml`), built by `.ci/run` once per SIMD backend. One file's tests:
//! `cargo test --release --test contacts -- contact_spheres::`.

mod common;

mod contact_mesh;
mod contact_mesh_ghosts;
mod contact_persistent;
mod contact_spheres;
