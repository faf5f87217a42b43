//! `widephase voxelize`: mesh file (or builtin) → voxels → binvox / vox / npy,
//! with an optional PNG preview, a progress bar and a summary line (or JSON).

use super::CliResult;
use indicatif::ProgressDrawTarget;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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
    pub triangles: Option<PathBuf>,
    pub pad: u32,
    pub origin: Option<[f32; 3]>,
    pub voxel_size: Option<f32>,
    pub dims: Option<[u32; 3]>,
    pub storage: Storage,
    pub npy_dense: bool,
    pub json: bool,
    pub threads: Option<usize>,
    /// Voxelize this many times (≥ 1); the outputs come from the first run.
    pub repeat: u32,
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
    let (lo, hi) = m.bounds();
    // (clap rejects the contradictory combinations; see `VoxelizeArgs`)
    let grid = match (o.res, o.voxel_size, o.origin, o.dims) {
        (Some(res), None, None, None) => {
            if res == 0 || res > MAX_RES {
                return Err(format!("--res {res} is out of range: must be 1..={MAX_RES}").into());
            }
            Grid::fit(lo, hi, res, o.pad)?
        }
        (None, Some(h), None, None) => Grid::fit_voxel(lo, hi, h, o.pad)?,
        (None, Some(h), Some(org), None) => Grid::covering(Vec3::from_array(org), h, hi)?,
        (None, Some(h), Some(org), Some(d)) => Grid::new(Vec3::from_array(org), h, d)?,
        (None, None, None, None) => {
            return Err("give --res N or --voxel-size H (optionally with --origin and --dims)".into())
        }
        _ => {
            return Err("conflicting grid options: use --res N, --voxel-size H, --voxel-size H --origin X,Y,Z, or all of --voxel-size, --origin and --dims".into())
        }
    };
    let n = grid.len();
    // the storage decision (and its errors) before the work
    voxel::dense_storage(o.storage, o.mode, grid.dims)?;
    // Check the output locations before the work, so a typo fails fast.
    for p in o.out.iter().chain(&o.preview).chain(&o.triangles) {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(
                format!("{}: directory {} does not exist", p.display(), dir.display()).into()
            );
        }
    }
    if let Some(p) = &o.triangles {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        if ext != "npy" {
            return Err(format!("{}: --triangles writes .npy (got {ext:?})", p.display()).into());
        }
    }
    // The progress bar starts hidden and is drawn only on a terminal, once
    // the run has taken half a second: short runs print nothing but the
    // summary, and redirected stderr never gets escape codes.
    let tty = !o.json && std::io::stderr().is_terminal();
    let bar = indicatif::ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        indicatif::ProgressStyle::with_template("voxelize {bar:40} {pos}/{len} slabs {elapsed}")
            .expect("valid template"),
    );
    let shown = AtomicBool::new(false);
    let t1 = Instant::now();
    let progress = |d: u64, t: u64| {
        bar.set_length(t);
        bar.set_position(d);
        if tty
            && !shown.load(Ordering::Relaxed)
            && t1.elapsed() >= SHOW_PROGRESS_AFTER
            && !shown.swap(true, Ordering::Relaxed)
        {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    };
    let vox = voxel::voxelize(
        m,
        &grid,
        &Options { mode: o.mode, storage: o.storage, progress: Some(&progress), no_precull: false },
    )?;
    let voxelize_ms = t1.elapsed().as_secs_f64() * 1e3;
    bar.finish_and_clear();
    let count = vox.set.count();
    // --repeat: the same call again, timed alone (as a library is timed in
    // one process, with its allocator and caches warm); every run must give
    // the same voxels
    let mut best_ms = voxelize_ms;
    for _ in 1..o.repeat {
        let opts = Options { mode: o.mode, storage: o.storage, progress: None, no_precull: false };
        let t = Instant::now();
        let again = voxel::voxelize(m, &grid, &opts)?;
        best_ms = best_ms.min(t.elapsed().as_secs_f64() * 1e3);
        if again.set.count() != count {
            return Err(format!(
                "--repeat: a later run gave {} voxels, the first {count}",
                again.set.count()
            )
            .into());
        }
    }

    // Every output is staged to a temporary file first and renamed only when
    // all of them are complete: a failing preview leaves no --out file.
    let t2 = Instant::now();
    let mut staged = Vec::new();
    if let Some(out) = &o.out {
        let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let set = &vox.set;
        let s = match ext.as_str() {
            "binvox" => {
                // (a non-cubic grid is padded to the cube of its largest side)
                let side = grid.dims.into_iter().max().unwrap_or(1) as u64;
                if side.pow(3) > DENSE_MAX {
                    return Err(format!("{}: binvox is run-length coded over all {side}³ voxels of its cube; cubes above {DENSE_MAX} voxels are not written (use .vox or .npy)", out.display()).into());
                }
                formats::stage(out, |w| formats::write_binvox_cube(w, &grid, set))?
            }
            "vox" => formats::stage(out, |w| formats::write_vox(w, set))?,
            "npy" => {
                if o.npy_dense && n > DENSE_MAX {
                    return Err(format!(
                        "{}: dense .npy of {n} voxels is too large",
                        out.display()
                    )
                    .into());
                }
                formats::stage(out, |w| formats::write_npy(w, set, o.npy_dense))?
            }
            _ => {
                return Err(format!(
                    "{}: unknown output format {ext:?} (use .binvox, .vox or .npy)",
                    out.display()
                )
                .into())
            }
        };
        staged.push(s);
    }
    if let Some(p) = &o.triangles {
        let lists = voxel::triangle_lists(m, &grid)?;
        staged.push(formats::stage(p, |w| formats::write_npy_triangle_rows(w, &lists))?);
    }
    if let Some(p) = &o.preview {
        staged.push(formats::stage(p, |w| formats::write_png(w, &vox.set))?);
    }
    formats::commit_all(staged)?;
    let write_ms = t2.elapsed().as_secs_f64() * 1e3;
    let tris = m.triangle_count();
    let rss = peak_rss_mb();
    let [nx, ny, nz] = grid.dims;
    let storage = match vox.set {
        voxel::VoxelSet::Dense(_) => "dense",
        voxel::VoxelSet::Sparse(_) => "sparse",
    };
    if o.json {
        let f = |x: f64, digits: usize| json_num(x, digits);
        // (f32 Display: the shortest form that reads back as the same f32)
        let g = |x: f32| if x.is_finite() { format!("{x}") } else { "null".to_string() };
        println!(
            "{{\"mesh\":{},\"mode\":\"{}\",\"dims\":[{nx},{ny},{nz}],\"voxel_size\":{},\"origin\":[{},{},{}],\"storage\":\"{storage}\",\"triangles\":{tris},\"voxels\":{count},\"load_ms\":{},\"voxelize_ms\":{},\"write_ms\":{},\"peak_rss_mb\":{},\"threads\":{},\"repeat\":{},\"voxelize_best_ms\":{}}}",
            json_str(&name),
            format!("{:?}", o.mode).to_ascii_lowercase(),
            g(grid.voxel),
            g(grid.origin.x),
            g(grid.origin.y),
            g(grid.origin.z),
            f(load_ms, 3),
            f(voxelize_ms, 3),
            f(write_ms, 3),
            f(rss, 1),
            rayon::current_num_threads(),
            o.repeat,
            f(best_ms, 3)
        );
    } else {
        let best = if o.repeat > 1 {
            format!("; best of {} runs {best_ms:.1} ms", o.repeat)
        } else {
            String::new()
        };
        println!(
            "{name}: {tris} triangles → {count} voxels ({:?}, {nx}×{ny}×{nz}, {storage}) in {voxelize_ms:.1} ms{best} (load {load_ms:.1} ms, write {write_ms:.1} ms, peak RSS {rss:.0} MB)",
            o.mode
        );
    }
    Ok(())
}

/// When the progress bar appears (on a terminal): runs shorter than this
/// print only the summary line.
const SHOW_PROGRESS_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

/// `s` as a JSON string literal (RFC 8259: `"` and `\` escaped, control
/// characters as `\u00XX`; everything else, including non-ASCII, verbatim).
pub(crate) fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// `x` as a JSON number with `digits` decimals (`usize::MAX`: shortest
/// round-trip form), or `null` when it is not finite (JSON has no NaN or
/// infinity; the peak RSS is NaN where `/proc` is missing).
pub(crate) fn json_num(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        "null".into()
    } else if digits == usize::MAX {
        // (Display of a float never uses exponent notation, and always
        // gives a valid JSON number: "-0", "1.5", "100")
        format!("{x}")
    } else {
        format!("{x:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    use super::{json_num, json_str};

    #[test]
    fn json_escapes_and_non_finite() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"");
        assert_eq!(json_num(f64::NAN, 1), "null");
        assert_eq!(json_num(f64::INFINITY, usize::MAX), "null");
        assert_eq!(json_num(1.25, 1), "1.2");
        assert_eq!(json_num(-0.5, usize::MAX), "-0.5");
    }
}
