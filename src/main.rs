//! The `widephase` command-line tool.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cli;

/// SIMD-batched collision kernels: exact, conservative and bit-identical across lane widths.
#[derive(Parser)]
#[command(name = "widephase", version, about, long_about = None)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the compiled SIMD level, lane widths and the CPU's features.
    Info,
    /// Run the catalogue on a built-in scene (no files needed) and print a summary.
    Demo,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Command::Info => cli::info::run(),
        Command::Demo => cli::demo::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("widephase: error: {e}");
            ExitCode::FAILURE
        }
    }
}
