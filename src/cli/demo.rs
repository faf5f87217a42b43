//! `widephase demo`: the catalogue on a built-in scene.

use super::CliResult;

/// Runs a few queries on built-in shapes and prints what they found.
pub fn run() -> CliResult {
    println!("widephase demo: catalogue being built");
    Ok(())
}
