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
    /// Throughput of the batched kernels per lane width, next to the memory roofline.
    Bench {
        /// Smaller inputs, one hit-rate tier: finishes in well under a minute.
        #[arg(long)]
        quick: bool,
        /// One JSON object per line (fields: kernel, variant, threads, n,
        /// items_per_s, roofline_items_per_s, hits).
        #[arg(long)]
        json: bool,
        /// Only kernels whose name contains this string.
        #[arg(long)]
        filter: Option<String>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Command::Info => cli::info::run(),
        Command::Demo => cli::demo::run(),
        Command::Bench { quick, json, filter } => {
            cli::bench::run(cli::bench::BenchOptions { quick, json, filter })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("widephase: error: {e}");
            ExitCode::FAILURE
        }
    }
}
