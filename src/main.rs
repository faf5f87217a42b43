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
        /// items_per_s, ns_per_pair, roofline_items_per_s, hits).
        #[arg(long)]
        json: bool,
        /// Only kernels whose name contains this string.
        #[arg(long)]
        filter: Option<String>,
        /// Worker threads: 0 or absent = all cores; at most 4× the cores (at least 64).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Voxelize a mesh (OBJ/STL/PLY or builtin:torus) into binvox, vox or npy.
    Voxelize(VoxelizeArgs),
    /// All overlapping pairs of N boxes (box pruning): count, time and rate.
    Pairs(PairsArgs),
    /// Cast seeded random rays at a mesh (OBJ/STL/PLY or builtin:torus) through the wide BVH.
    Raycast(RaycastArgs),
}

#[derive(clap::Args)]
struct PairsArgs {
    /// N×6 little-endian float32 .npy, rows min.x,min.y,min.z,max.x,max.y,max.z.
    boxes: Option<std::path::PathBuf>,
    /// A second N×6 .npy: the pairs (i, j) of a box i of BOXES overlapping a
    /// box j of this set (bipartite), instead of the pairs within BOXES.
    other: Option<std::path::PathBuf>,
    /// Use N seeded random boxes (about 4 overlaps per box) instead of a file.
    #[arg(long)]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the sorted pairs as a uint32 (P, 2) .npy.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Worker threads: 0 or absent = all cores; at most 4× the cores (at least 64).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object (n, pairs, ms for the query alone, threads).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct RaycastArgs {
    /// Mesh file (.obj, .stl, .ply) or builtin:NAME (torus, knot, cube).
    mesh: String,
    /// Number of rays (origins on a sphere around the mesh, aimed into its bounding box).
    #[arg(long)]
    rays: usize,
    /// Seed of the ray set.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads: 0 or absent = all cores; at most 4× the cores (at least 64).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object (n, triangles, rays, hits, ms, build_ms, mrays_per_s, threads).
    #[arg(long)]
    json: bool,
    /// Write the rays as an N×6 float32 .npy (origin xyz, direction xyz).
    #[arg(long)]
    dump_rays: Option<std::path::PathBuf>,
    /// Write each ray's closest-hit t as an N float32 .npy (inf for a miss).
    #[arg(long)]
    dump_hits: Option<std::path::PathBuf>,
    /// After the timed run, trace the rays again counting nodes, child boxes,
    /// leaves and triangles tested per ray (untimed), and print the averages.
    #[arg(long)]
    stats: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ModeArg {
    Surface,
    Thin,
    Solid,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum StorageArg {
    Auto,
    Dense,
    Sparse,
}

fn parse3<T: std::str::FromStr>(s: &str) -> Result<[T; 3], String> {
    let v: Vec<T> = s
        .split(',')
        .map(|t| t.trim().parse::<T>().map_err(|_| format!("{:?} is not a number", t.trim())))
        .collect::<Result<_, _>>()?;
    <[T; 3]>::try_from(v).map_err(|_| "expected three comma-separated numbers".to_string())
}

/// `--origin`: three finite numbers (an infinite or NaN origin is named
/// here, not later as a grid that cannot cover the mesh).
fn parse_origin(s: &str) -> Result<[f32; 3], String> {
    let v = parse3::<f32>(s)?;
    for (a, x) in v.iter().enumerate() {
        if !x.is_finite() {
            return Err(format!("{} = {x} is not finite", ["x", "y", "z"][a]));
        }
    }
    Ok(v)
}

/// `--res`: a whole number of voxels in 1..=MAX_RES; `--res -5`,
/// `--res=-5` and `--res 0` all get this one message style (clap's
/// "invalid value" line).
fn parse_res(s: &str) -> Result<u32, String> {
    let max = widephase::voxel::MAX_RES;
    let out_of_range = || format!("must be a whole number of voxels in 1..={max}");
    match s.trim().parse::<i64>() {
        Ok(r) if (1..=max as i64).contains(&r) => Ok(r as u32),
        Ok(_) => Err(out_of_range()),
        Err(_) if s.trim().parse::<f64>().is_ok() => Err(out_of_range()),
        Err(_) => Err(format!("{:?} is not a number; {}", s.trim(), out_of_range())),
    }
}

/// `--max-memory`: a size such as 512M, 2G, 1.5G or a byte count.
fn parse_memory(s: &str) -> Result<u64, String> {
    cli::memory::parse_size(s)
}

#[derive(clap::Args)]
struct VoxelizeArgs {
    /// Mesh file (.obj, .stl, .ply) or builtin:NAME (torus, knot, cube).
    mesh: Option<String>,
    /// Use a builtin mesh instead of a file (torus, knot, cube).
    #[arg(long)]
    builtin: Option<String>,
    /// Voxels along the mesh's largest extent (1..=65536); the grid is a cube
    /// fitted to the mesh. Alternative to --voxel-size.
    #[arg(long, value_name = "N", value_parser = parse_res, allow_hyphen_values = true, conflicts_with_all = ["voxel_size", "origin", "dims"])]
    res: Option<u32>,
    /// surface (conservative), thin (6-separating) or solid.
    #[arg(long, value_enum, default_value = "surface")]
    mode: ModeArg,
    /// Output file: .binvox, .vox or .npy (by extension).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// PNG preview (three depth-shaded axis projections).
    #[arg(long)]
    preview: Option<std::path::PathBuf>,
    /// Per-voxel triangle lists as a uint32 (P, 4) .npy of rows i,j,k,triangle,
    /// sorted by voxel (k, j, i) then triangle (the conservative surface's
    /// voxels, whatever --mode is).
    #[arg(long, value_name = "FILE.npy")]
    triangles: Option<std::path::PathBuf>,
    /// Empty voxels added on every side of a fitted grid (--res, or
    /// --voxel-size without --origin).
    #[arg(long, default_value_t = 0, conflicts_with_all = ["origin", "dims"])]
    pad: u32,
    /// Grid origin x,y,z (needs --voxel-size; without --dims the grid extends
    /// to cover the mesh's bounding box).
    #[arg(long, value_parser = parse_origin, allow_hyphen_values = true, requires = "voxel_size")]
    origin: Option<[f32; 3]>,
    /// Voxel edge length. Alone: a grid fitted to the mesh (origin = bounding
    /// box min − pad·H, ceil(extent/H) + 2·pad voxels per axis, not a cube).
    #[arg(long)]
    voxel_size: Option<f32>,
    /// Grid dimensions nx,ny,nz (needs --origin and --voxel-size).
    #[arg(long, value_parser = parse3::<u32>, requires_all = ["origin", "voxel_size"])]
    dims: Option<[u32; 3]>,
    /// Storage: auto (dense up to 1024³; solid mode up to 2048³), dense or sparse.
    #[arg(long, value_enum, default_value = "auto")]
    storage: StorageArg,
    /// Write .npy as a dense uint8 (nx, ny, nz) array instead of an (N, 3) index list.
    #[arg(long)]
    npy_dense: bool,
    /// Print one JSON object instead of the summary line.
    #[arg(long)]
    json: bool,
    /// Worker threads: 0 or absent = all cores; at most 4× the cores (at least 64).
    #[arg(long)]
    threads: Option<usize>,
    /// Voxelize N times in this process (a benchmark: the outputs come from
    /// the first run; the summary and JSON add the best time of the N, as
    /// libraries are timed in one process).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
    /// Refuse the job when its estimated peak memory is above this (e.g.
    /// 512M, 2G; default: the memory available now).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    max_memory: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    cli::signals::remove_temp_files_on_interrupt();
    // one --threads rule for every subcommand (cli/threads.rs); the command
    // runs on that pool
    let threads = match &args.command {
        Command::Bench { threads, .. } => *threads,
        Command::Voxelize(a) => a.threads,
        Command::Pairs(a) => a.threads,
        Command::Raycast(a) => a.threads,
        Command::Info | Command::Demo => None,
    };
    // (errors cross back from the pool as their messages)
    let result = cli::threads::pool(threads)
        .and_then(|pool| pool.install(|| run(args.command).map_err(|e| e.to_string())));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("widephase: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> cli::CliResult {
    match command {
        Command::Info => cli::info::run(),
        Command::Demo => cli::demo::run(),
        Command::Bench { quick, json, filter, threads: _ } => {
            cli::bench::run(cli::bench::BenchOptions { quick, json, filter })
        }
        Command::Pairs(a) => cli::pairs::run(cli::pairs::PairsOptions {
            boxes: a.boxes,
            other: a.other,
            random: a.random,
            seed: a.seed,
            out: a.out,
            json: a.json,
        }),
        Command::Voxelize(a) => {
            use widephase::voxel::{Mode, Storage};
            cli::voxelize::run(cli::voxelize::VoxelizeOptions {
                mesh: a.mesh,
                builtin: a.builtin,
                res: a.res,
                mode: match a.mode {
                    ModeArg::Surface => Mode::Surface,
                    ModeArg::Thin => Mode::Thin,
                    ModeArg::Solid => Mode::Solid,
                },
                out: a.out,
                preview: a.preview,
                triangles: a.triangles,
                pad: a.pad,
                origin: a.origin,
                voxel_size: a.voxel_size,
                dims: a.dims,
                storage: match a.storage {
                    StorageArg::Auto => Storage::Auto,
                    StorageArg::Dense => Storage::Dense,
                    StorageArg::Sparse => Storage::Sparse,
                },
                npy_dense: a.npy_dense,
                json: a.json,
                repeat: a.repeat,
                max_memory: a.max_memory,
            })
        }
        Command::Raycast(a) => cli::raycast::run(cli::raycast::RaycastOptions {
            mesh: a.mesh,
            rays: a.rays,
            seed: a.seed,
            json: a.json,
            dump_rays: a.dump_rays,
            dump_hits: a.dump_hits,
            stats: a.stats,
        }),
    }
}
