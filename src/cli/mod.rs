//! Subcommands of the `widephase` binary.

pub mod bench;
pub mod demo;
pub mod info;
pub mod pairs;
pub mod raycast;
pub mod voxelize;

/// Errors reported at the command-line edge.
pub type CliResult = Result<(), Box<dyn std::error::Error>>;
