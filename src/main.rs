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
#[command(group(clap::ArgGroup::new("source").required(true).args(["rays", "rays_file", "camera"])))]
struct RaycastArgs {
    /// Mesh file (.obj, .stl, .ply) or builtin:NAME (torus, knot, cube).
    mesh: String,
    /// Number of random rays (origins on a sphere around the mesh, aimed into its bounding box).
    #[arg(long)]
    rays: Option<usize>,
    /// Seed of the random ray set.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cast the rays of an N×6 float32 .npy (origin xyz, direction xyz), or
    /// N×8 with t_min, t_max appended.
    #[arg(long, value_name = "R.npy")]
    rays_file: Option<std::path::PathBuf>,
    /// Cast one ray per pixel of a pinhole camera of W×H pixels (Open3D's
    /// create_rays_pinhole convention: t is depth along the view axis).
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    camera: Option<(usize, usize)>,
    /// Camera position (default: on the +z side of the bounding box's centre,
    /// far enough that its bounding sphere fills the view).
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vec3, allow_hyphen_values = true)]
    eye: Option<[f64; 3]>,
    /// Point the camera looks at (default: the bounding box's centre).
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vec3, allow_hyphen_values = true)]
    center: Option<[f64; 3]>,
    /// Camera up vector [default: 0,1,0].
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_vec3, allow_hyphen_values = true)]
    up: Option<[f64; 3]>,
    /// Horizontal field of view of the camera in degrees (Open3D's fov_deg) [default: 60].
    #[arg(long, value_name = "DEG")]
    fov: Option<f64>,
    /// Worker threads: 0 or absent = all cores; at most 4× the cores (at least 64).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object (n, triangles, rays, hits, ms, build_ms, mrays_per_s,
    /// repeat, best_ms, threads).
    #[arg(long)]
    json: bool,
    /// Write the rays as an N×6 float32 .npy (origin xyz, direction xyz).
    #[arg(long)]
    dump_rays: Option<std::path::PathBuf>,
    /// Write each ray's closest-hit t as an N float32 .npy (inf for a miss).
    #[arg(long)]
    dump_hits: Option<std::path::PathBuf>,
    /// Write each ray's hit triangle id as an N int32 .npy (-1 for a miss).
    #[arg(long)]
    dump_ids: Option<std::path::PathBuf>,
    /// Write each hit's barycentric weights (u, v) of vertices b and c as an
    /// N×2 float32 .npy (NaN for a miss).
    #[arg(long)]
    dump_bary: Option<std::path::PathBuf>,
    /// Write each hit triangle's unit normal (b - a) × (c - a) as an N×3
    /// float32 .npy (NaN for a miss).
    #[arg(long)]
    dump_normals: Option<std::path::PathBuf>,
    /// With --camera: write the depth image (t per pixel) as an H×W float32 .npy (inf for a miss).
    #[arg(long)]
    depth: Option<std::path::PathBuf>,
    /// With --camera: write the depth image as a grey PNG (near white, misses black).
    #[arg(long)]
    depth_png: Option<std::path::PathBuf>,
    /// After the timed run, trace the rays again counting nodes, child boxes,
    /// leaves and triangles tested per ray (untimed), and print the averages.
    #[arg(long)]
    stats: bool,
    /// Trace the rays N times in this process (a benchmark: the outputs come
    /// from the first run; the summary and JSON add the best time of the N,
    /// as libraries are timed in one process).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
}

fn parse_size(s: &str) -> Result<(usize, usize), String> {
    let (w, h) = s
        .split_once(['x', 'X', '×'])
        .ok_or_else(|| format!("{s:?}: expected WxH, e.g. 640x480"))?;
    let p = |t: &str| {
        t.trim().parse::<usize>().map_err(|_| format!("{s:?}: expected WxH, e.g. 640x480"))
    };
    Ok((p(w)?, p(h)?))
}

fn parse_vec3(s: &str) -> Result<[f64; 3], String> {
    let v: Vec<&str> = s.split(',').collect();
    if v.len() != 3 {
        return Err(format!("{s:?}: expected three comma-separated numbers X,Y,Z"));
    }
    let mut out = [0.0; 3];
    for (o, t) in out.iter_mut().zip(v) {
        *o = t.trim().parse::<f64>().map_err(|_| format!("{s:?}: {t:?} is not a number"))?;
        if !o.is_finite() {
            return Err(format!("{s:?}: {t:?} is not finite"));
        }
    }
    Ok(out)
}

impl RaycastArgs {
    /// The options, or an error naming a camera option given without `--camera`.
    fn options(self) -> Result<cli::raycast::RaycastOptions, String> {
        use cli::raycast::{CameraOptions, RaySource};
        if self.camera.is_none() {
            let given = [
                ("--eye", self.eye.is_some()),
                ("--center", self.center.is_some()),
                ("--up", self.up.is_some()),
                ("--fov", self.fov.is_some()),
            ];
            if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
                return Err(format!("{flag} needs --camera WxH"));
            }
        }
        let source = if let Some(p) = self.rays_file {
            RaySource::File(p)
        } else if let Some((width, height)) = self.camera {
            RaySource::Camera(CameraOptions {
                width,
                height,
                eye: self.eye,
                center: self.center,
                up: self.up.unwrap_or([0.0, 1.0, 0.0]),
                fov: self.fov.unwrap_or(60.0),
            })
        } else {
            RaySource::Random { n: self.rays.unwrap_or(0), seed: self.seed }
        };
        Ok(cli::raycast::RaycastOptions {
            mesh: self.mesh,
            source,
            json: self.json,
            dump_rays: self.dump_rays,
            dump_hits: self.dump_hits,
            dump_ids: self.dump_ids,
            dump_bary: self.dump_bary,
            dump_normals: self.dump_normals,
            depth: self.depth,
            depth_png: self.depth_png,
            stats: self.stats,
            repeat: self.repeat,
        })
    }
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

/// `--weld`: a finite distance ≥ 0.
fn parse_weld(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!("{s:?}: expected a finite distance ≥ 0, e.g. 0 or 1e-5")),
    }
}

/// `--max-memory`: a size such as 512M, 2G, 1.5G or a byte count.
fn parse_memory(s: &str) -> Result<u64, String> {
    widephase::voxel::budget::parse_size(s)
}

#[derive(clap::Args)]
struct VoxelizeArgs {
    /// Mesh file (.obj, .stl, .ply, .gltf, .glb) or builtin:NAME (torus, knot, cube).
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
    /// Merge vertices within this distance after loading (0: equal
    /// positions), e.g. the split vertices of a glTF or OBJ export; the
    /// earliest vertex of each group is kept.
    #[arg(long, value_name = "TOL", value_parser = parse_weld, allow_hyphen_values = true)]
    weld: Option<f32>,
    /// Refuse the job when its estimated peak memory is above this (e.g.
    /// 512M, 2G; default: the memory available now).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    max_memory: Option<u64>,
    /// Voxelize only the tile [I0, I1) × [J0, J1) × [K0, K1) of the grid
    /// (surface or thin): exactly the whole grid's voxels there, written as
    /// an .npy index list of whole-grid indices (the files of a tiling
    /// concatenate into the whole list).
    #[arg(long, value_name = "I0,J0,K0:I1,J1,K1", value_parser = parse_tile, conflicts_with_all = ["preview", "triangles", "npy_dense", "repeat"])]
    tile: Option<([u32; 3], [u32; 3])>,
}

/// `--tile I0,J0,K0:I1,J1,K1`: two corners of voxel indices, the second
/// one past the last voxel on each axis.
fn parse_tile(s: &str) -> Result<([u32; 3], [u32; 3]), String> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| "expected I0,J0,K0:I1,J1,K1 (two corners separated by ':')".to_string())?;
    let (lo, hi) = (parse3::<u32>(a)?, parse3::<u32>(b)?);
    if (0..3).any(|k| lo[k] >= hi[k]) {
        return Err(format!("the tile {lo:?}:{hi:?} is empty: each start must be below its end"));
    }
    Ok((lo, hi))
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
        Command::Voxelize(a) => cli::voxelize::run(voxelize_options(a)),
        Command::Raycast(a) => cli::raycast::run(a.options()?),
    }
}

fn voxelize_options(a: VoxelizeArgs) -> cli::voxelize::VoxelizeOptions {
    use widephase::voxel::{Mode, Storage};
    cli::voxelize::VoxelizeOptions {
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
        weld: a.weld,
        tile: a.tile,
    }
}

/// A seeded mutation fuzzer of the argument handling: valid command lines
/// (the seeds) mutated by deleting, duplicating, swapping and replacing
/// arguments (with tokens that have broken the CLI before: negative and
/// huge numbers, NaN, infinities, `=` forms, paths with wrong extensions or
/// shared between outputs) and characters, run in-process through clap and
/// everything a command checks before its work (threads, outputs, the
/// voxelize grid, storage and memory plan on a builtin mesh). No input may
/// panic. The short run is a test; `fuzz_cli_arguments_long` (ignored) runs
/// `WP_FUZZ_INPUTS` inputs (default 10⁶) from `WP_FUZZ_SEED`.
#[cfg(test)]
mod fuzz {
    use super::*;

    const SEEDS: &[&str] = &[
        "voxelize builtin:torus --res 16",
        "voxelize builtin:cube --res 8 --mode solid --out a.npy --preview a.png --triangles t.npy",
        "voxelize builtin:knot --voxel-size 0.1 --origin -1,-1,-1 --dims 8,8,8 --out a.binvox",
        "voxelize builtin:cube --voxel-size 0.25 --pad 2 --storage sparse --out a.vox --json",
        "voxelize --builtin torus --res 32 --mode thin --npy-dense --out d.npy --threads 2",
        "voxelize builtin:torus --res 64 --max-memory 2G --repeat 2 --weld 1e-4",
        "pairs --random 100 --seed 3 --out p.npy --threads 0",
        "pairs a.npy b.npy --json",
        "raycast builtin:torus --rays 100 --dump-rays r.npy --dump-hits h.npy --threads 1 --repeat 2",
        "raycast builtin:knot --camera 8x6 --eye 0,-1,3 --fov 50 --depth d.npy --dump-ids i.npy",
        "raycast builtin:cube --rays-file r.npy --dump-bary b.npy --dump-normals n.npy",
        "bench --quick --filter sphere --json --threads 1",
        "info",
        "demo",
    ];

    const TOKENS: &[&str] = &[
        "-5",
        "0",
        "1",
        "65536",
        "65537",
        "100000",
        "4294967296",
        "18446744073709551616",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "1e40",
        "-0",
        "0.0",
        "2.5",
        "",
        " ",
        "=",
        "--res",
        "--res=-5",
        "--threads",
        "--threads=100000",
        "--out",
        "--preview",
        "--triangles",
        "--origin",
        "inf,0,0",
        "nan,nan,nan",
        "1,2",
        "1,2,3,4",
        ",,",
        "--dims",
        "0,1,1",
        "65536,65536,65536",
        "--voxel-size",
        "1e-30",
        "--pad",
        "4294967295",
        "--max-memory",
        "0",
        "1K",
        "-1G",
        "1e9T",
        "--mode",
        "solid",
        "--storage",
        "dense",
        "a.npy",
        "a.binvox",
        "a.txt",
        "a.png",
        "./a.npy",
        "/",
        ".",
        "..",
        "builtin:",
        "builtin:torus",
        "builtin:nothing",
        "--",
        "-",
        "--json",
        "--filter",
        "é",
        "\u{0}",
    ];

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            // SplitMix64
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    fn mutate(rng: &mut Rng, args: &mut Vec<String>) {
        for _ in 0..1 + rng.below(2) {
            let n = args.len();
            match rng.below(7) {
                0 if n > 1 => {
                    args.remove(1 + rng.below(n - 1));
                }
                1 => {
                    let t = TOKENS[rng.below(TOKENS.len())].to_string();
                    args.insert(1 + rng.below(n), t);
                }
                2 if n > 1 => {
                    let i = 1 + rng.below(n - 1);
                    args[i] = TOKENS[rng.below(TOKENS.len())].to_string();
                }
                3 if n > 2 => {
                    let (i, j) = (1 + rng.below(n - 1), 1 + rng.below(n - 1));
                    args.swap(i, j);
                }
                4 if n > 1 => {
                    let i = 1 + rng.below(n - 1);
                    let dup = args[i].clone();
                    args.insert(i, dup);
                }
                5 if n > 1 => {
                    // one character replaced, inserted or removed
                    let i = 1 + rng.below(n - 1);
                    let mut cs: Vec<char> = args[i].chars().collect();
                    let at = rng.below(cs.len() + 1);
                    let c = b"-=,.0159aeinx/:"[rng.below(15)] as char;
                    match rng.below(3) {
                        0 if at < cs.len() => cs[at] = c,
                        1 if at < cs.len() => {
                            cs.remove(at);
                        }
                        _ => cs.insert(at, c),
                    }
                    args[i] = cs.into_iter().collect();
                }
                _ => {
                    // a digit string of random length (huge values)
                    let i = 1 + rng.below(n.max(2) - 1).min(n.saturating_sub(1));
                    let len = 1 + rng.below(30);
                    let v: String =
                        (0..len).map(|_| (b'0' + rng.below(10) as u8) as char).collect();
                    if i < args.len() {
                        args[i] = v;
                    } else {
                        args.push(v);
                    }
                }
            }
        }
    }

    /// Everything before the work: the one that may not panic.
    fn check(args: &[String], dir: &std::path::Path, cube: &widephase::voxel::Mesh) {
        let Ok(parsed) = Args::try_parse_from(args) else { return };
        let threads = match &parsed.command {
            Command::Bench { threads, .. } => *threads,
            Command::Voxelize(a) => a.threads,
            Command::Pairs(a) => a.threads,
            Command::Raycast(a) => a.threads,
            Command::Info | Command::Demo => None,
        };
        let _ = cli::threads::resolve(threads);
        let in_dir = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| dir.join(p));
        match parsed.command {
            Command::Voxelize(a) => {
                let mut o = voxelize_options(a);
                o.out = in_dir(&o.out);
                o.preview = in_dir(&o.preview);
                o.triangles = in_dir(&o.triangles);
                // (a small limit: the plan may be refused, never run)
                o.max_memory = Some(o.max_memory.unwrap_or(1 << 30).min(1 << 30));
                let _ = cli::voxelize::check_outputs(&o);
                let _ = cli::voxelize::plan(&o, cube.as_ref());
            }
            Command::Raycast(a) => {
                let Ok(mut o) = a.options() else { return };
                for p in [
                    &mut o.dump_rays,
                    &mut o.dump_hits,
                    &mut o.dump_ids,
                    &mut o.dump_bary,
                    &mut o.dump_normals,
                    &mut o.depth,
                    &mut o.depth_png,
                ] {
                    *p = in_dir(p);
                }
                let _ = o.check();
            }
            Command::Pairs(a) => {
                if let Some(out) = in_dir(&a.out) {
                    let _ = cli::outputs::check(&[cli::outputs::Output {
                        flag: "--out",
                        path: &out,
                        extensions: &["npy"],
                    }]);
                    let inputs: Vec<std::path::PathBuf> =
                        a.boxes.iter().chain(&a.other).map(|p| dir.join(p)).collect();
                    let inputs: Vec<&std::path::Path> =
                        inputs.iter().map(|p| p.as_path()).collect();
                    let _ = cli::outputs::not_an_input("--out", &out, &inputs);
                }
            }
            Command::Bench { .. } | Command::Info | Command::Demo => {}
        }
    }

    fn run_fuzz(inputs: u64, seed: u64) -> u64 {
        let dir = std::env::temp_dir().join(format!("wp-argfuzz-{}-{seed}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cube = widephase::voxel::builtin::by_name("cube").unwrap();
        let mut rng = Rng(seed);
        let mut parsed_ok = 0;
        for _ in 0..inputs {
            let seed_line = SEEDS[rng.below(SEEDS.len())];
            let mut args: Vec<String> = std::iter::once("widephase")
                .chain(seed_line.split(' '))
                .map(String::from)
                .collect();
            mutate(&mut rng, &mut args);
            let r = std::panic::catch_unwind(|| check(&args, &dir, &cube));
            assert!(r.is_ok(), "panic on {args:?}");
            parsed_ok += Args::try_parse_from(&args).is_ok() as u64;
        }
        // (nothing may be written by the checks)
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "a check wrote a file");
        std::fs::remove_dir_all(&dir).unwrap();
        parsed_ok
    }

    #[test]
    fn fuzz_cli_arguments_short() {
        let ok = run_fuzz(5_000, 1);
        assert!(ok > 500, "too few mutated lines parse ({ok}): the fuzzer tests little");
    }

    #[test]
    #[ignore]
    fn fuzz_cli_arguments_long() {
        let n =
            std::env::var("WP_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
        let seed =
            std::env::var("WP_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0xF022);
        let t = std::time::Instant::now();
        let ok = run_fuzz(n, seed);
        eprintln!(
            "{n} inputs (seed {seed}), {ok} parsed, no panic, {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
}
