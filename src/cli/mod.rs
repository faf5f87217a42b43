//! Subcommands of the `widephase` binary, and what they share (threads,
//! memory limits, output checks, interrupt handling).

pub mod bench;
pub mod demo;
pub mod info;
pub mod outputs;
pub mod pairs;
pub mod raycast;
pub mod signals;
pub mod threads;
pub mod voxelize;

/// Errors reported at the command-line edge.
pub type CliResult = Result<(), Box<dyn std::error::Error>>;
