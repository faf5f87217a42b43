//! The integration tests of the file readers and writers and of the
//! `widephase` command line: no SIMD code of their own, so `.ci/run` builds
//! them for the native backend only. One crate with a module per file (see
//! `Cargo.toml`); one file's tests: `cargo test --release --test io -- cli::`.

#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "loaders")]
mod gltf;
#[cfg(feature = "loaders")]
mod loaders;
#[cfg(feature = "cli")]
mod voxel_io;
