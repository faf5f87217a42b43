//! `widephase voxelize`: mesh file (or builtin) → voxels → binvox / vox / npy,
//! with an optional PNG preview, a progress bar and a summary line (or JSON).

use super::CliResult;
use std::path::{Path, PathBuf};
use std::time::Instant;
use widephase::voxel::{
    self, builtin, formats, Grid, Mesh, Mode, Options, Storage, DENSE_MAX, MAX_RES,
};
use widephase::Vec3;

/// Options of the subcommand (filled by clap in `main.rs`).
pub struct VoxelizeOptions {
    pub mesh: Option<String>,
    pub builtin: Option<String>,
    pub res: Option<u32>,
    pub mode: Mode,
    pub out: Option<PathBuf>,
    pub preview: Option<PathBuf>,
    pub pad: u32,
    pub origin: Option<[f32; 3]>,
    pub voxel_size: Option<f32>,
    pub dims: Option<[u32; 3]>,
    pub storage: Storage,
    pub npy_dense: bool,
    pub json: bool,
    pub threads: Option<usize>,
}

fn peak_rss_mb() -> f64 {
    // VmHWM: the process's peak resident set size (Linux)
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// Runs the subcommand.
pub fn run(o: VoxelizeOptions) -> CliResult {
    if let Some(t) = o.threads {
        rayon::ThreadPoolBuilder::new().num_threads(t).build_global()?;
    }
    let t0 = Instant::now();
    let src = match (o.builtin.as_deref(), o.mesh.as_deref()) {
        (Some(b), None) => format!("builtin:{b}"),
        (None, Some(p)) => p.to_string(),
        (Some(_), Some(_)) => return Err("give either MESH or --builtin, not both".into()),
        (None, None) => {
            return Err(
                "no mesh: give MESH (a .obj/.stl/.ply file or builtin:torus) or --builtin NAME"
                    .into(),
            )
        }
    };
    let mesh = match src.strip_prefix("builtin:") {
        Some(b) => builtin::by_name(b)
            .ok_or_else(|| format!("unknown builtin mesh {b:?} (try torus, knot, cube)"))?,
        None => Mesh::load(Path::new(&src))?,
    };
    let name = src;
    let load_ms = t0.elapsed().as_secs_f64() * 1e3;
    let m = mesh.as_ref();
    let grid = match (o.origin, o.voxel_size, o.dims) {
        (Some(org), Some(h), Some(d)) => Grid::new(Vec3::from_array(org), h, d)?,
        (None, None, None) => {
            let res = o.res.ok_or("--res N is required (or --origin, --voxel-size and --dims)")?;
            if res == 0 || res > MAX_RES {
                return Err(format!("--res {res} is out of range: must be 1..={MAX_RES}").into());
            }
            let (lo, hi) = m.bounds();
            Grid::fit(lo, hi, res, o.pad)?
        }
        _ => return Err("--origin, --voxel-size and --dims go together".into()),
    };
    let n = grid.len();
    if o.storage == Storage::Dense && n > DENSE_MAX {
        return Err(format!(
            "a dense grid of {:?} = {n} voxels would not fit (limit {DENSE_MAX}); use --storage sparse",
            grid.dims
        )
        .into());
    }
    // Check the output locations before the work, so a typo fails fast.
    for p in o.out.iter().chain(o.preview.iter()) {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(
                format!("{}: directory {} does not exist", p.display(), dir.display()).into()
            );
        }
    }
    let bar = if o.json {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "voxelize {bar:40} {pos}/{len} slabs {elapsed}",
            )
            .expect("valid template"),
        );
        b
    };
    let progress = |d: u64, t: u64| {
        bar.set_length(t);
        bar.set_position(d);
    };
    let t1 = Instant::now();
    let vox = voxel::voxelize(
        m,
        &grid,
        &Options { mode: o.mode, storage: o.storage, progress: Some(&progress), no_precull: false },
    )?;
    let voxelize_ms = t1.elapsed().as_secs_f64() * 1e3;
    bar.finish_and_clear();
    let count = vox.set.count();

    let t2 = Instant::now();
    if let Some(out) = &o.out {
        let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let set = &vox.set;
        match ext.as_str() {
            "binvox" => {
                if n > DENSE_MAX {
                    return Err(format!("{}: binvox is run-length coded over all {n} voxels; grids above {DENSE_MAX} voxels are not written (use .vox or .npy)", out.display()).into());
                }
                formats::write_atomic(out, |w| formats::write_binvox(w, &grid, set))?
            }
            "vox" => formats::write_atomic(out, |w| formats::write_vox(w, set))?,
            "npy" => {
                if o.npy_dense && n > DENSE_MAX {
                    return Err(format!(
                        "{}: dense .npy of {n} voxels is too large",
                        out.display()
                    )
                    .into());
                }
                formats::write_atomic(out, |w| formats::write_npy(w, set, o.npy_dense))?
            }
            _ => {
                return Err(format!(
                    "{}: unknown output format {ext:?} (use .binvox, .vox or .npy)",
                    out.display()
                )
                .into())
            }
        }
    }
    if let Some(p) = &o.preview {
        formats::write_atomic(p, |w| formats::write_png(w, &vox.set))?;
    }
    let write_ms = t2.elapsed().as_secs_f64() * 1e3;
    let tris = m.triangle_count();
    let rss = peak_rss_mb();
    let [nx, ny, nz] = grid.dims;
    let storage = match vox.set {
        voxel::VoxelSet::Dense(_) => "dense",
        voxel::VoxelSet::Sparse(_) => "sparse",
    };
    if o.json {
        println!(
            "{{\"mesh\":{:?},\"mode\":\"{:?}\",\"dims\":[{nx},{ny},{nz}],\"voxel_size\":{},\"origin\":[{},{},{}],\"storage\":\"{storage}\",\"triangles\":{tris},\"voxels\":{count},\"load_ms\":{load_ms:.3},\"voxelize_ms\":{voxelize_ms:.3},\"write_ms\":{write_ms:.3},\"peak_rss_mb\":{rss:.1},\"threads\":{}}}",
            name,
            o.mode,
            grid.voxel,
            grid.origin.x,
            grid.origin.y,
            grid.origin.z,
            rayon::current_num_threads()
        );
    } else {
        println!(
            "{name}: {tris} triangles → {count} voxels ({:?}, {nx}×{ny}×{nz}, {storage}) in {voxelize_ms:.1} ms (load {load_ms:.1} ms, write {write_ms:.1} ms, peak RSS {rss:.0} MB)",
            o.mode
        );
    }
    Ok(())
}
