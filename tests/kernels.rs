//! The integration tests of the kernel catalogue: every predicate against its
//! exact reference at every lane width, the batch drivers, and every run-time
//! SIMD path. One crate with a module per file (see `Cargo.toml`), built by
//! `.ci/run` once per SIMD backend. One file's tests:
//! `cargo test --release --test kernels -- rays::`.

mod common;

mod batch;
mod bounding;
mod boxes;
mod closest;
mod convex;
mod culling;
mod dynamic;
mod exact_kit;
mod rays;
mod simd_paths;
