//! The integration tests of the polytope contact testers: box–box, box–
//! triangle and convex hulls. One crate with a module per file (see
//! `Cargo.toml`), built by `.ci/run` once per SIMD backend. One file's
//! tests: `cargo test --release --test polytopes -- contact_hull::`.

mod common;

mod contact_box_triangle;
mod contact_boxes;
mod contact_hull;
