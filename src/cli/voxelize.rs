//! `widephase voxelize`: mesh file (or builtin) → voxels → binvox / vox / npy,
//! with an optional PNG preview, a progress bar and a summary line (or JSON).

use super::outputs::Output;
use super::CliResult;
use indicatif::ProgressDrawTarget;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use widephase::voxel::{
    self, budget, builtin, formats, Grid, Mesh, Mode, Options, Storage, Tile, TileIndex, DENSE_MAX,
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
    /// Voxelize this many times (≥ 1); the outputs come from the first run.
    pub repeat: u32,
    /// Only this tile `[lo, hi)` of the grid (`--tile`).
    pub tile: Option<([u32; 3], [u32; 3])>,
    /// `--max-memory` in bytes (default: the memory available).
    pub max_memory: Option<u64>,
    /// `--weld TOL`: vertices within TOL merged after loading (`Mesh::weld`).
    pub weld: Option<f32>,
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
    // The outputs are checked before the mesh is read: a typo fails fast.
    check_outputs(&o)?;
    let t0 = Instant::now();
    // unknown OBJ statements the reader skipped (reported once, and in --json)
    let mut unknown = 0;
    let src = match (o.builtin.as_deref(), o.mesh.as_deref()) {
        (Some(b), None) => format!("builtin:{b}"),
        (None, Some(p)) => p.to_string(),
        (Some(_), Some(_)) => return Err("give either MESH or --builtin, not both".into()),
        (None, None) => {
            return Err(
                "no mesh: give MESH (a .obj/.stl/.ply/.gltf/.glb file or builtin:torus) or --builtin NAME"
                    .into(),
            )
        }
    };
    let mut mesh = match src.strip_prefix("builtin:") {
        Some(b) => builtin::by_name(b)
            .ok_or_else(|| format!("unknown builtin mesh {b:?} (try torus, knot, cube)"))?,
        None => {
            let (mesh, report) = Mesh::load_with_report(Path::new(&src))?;
            for w in report.warnings() {
                eprintln!("widephase: warning: {w}");
            }
            unknown = report.unknown_statements;
            mesh
        }
    };
    let welded = o.weld.map_or(0, |tol| mesh.weld(tol));
    let name = src;
    let load_ms = t0.elapsed().as_secs_f64() * 1e3;
    let m = mesh.as_ref();
    let Plan { grid, out_ext, need } = plan(&o, m)?;
    if let Some((lo, hi)) = o.tile {
        return run_tile(&o, &name, m, &grid, Tile { lo, hi }, load_ms);
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
        let set = &vox.set;
        let s = match out_ext.as_deref() {
            Some("binvox") => formats::stage(out, |w| formats::write_binvox_cube(w, &grid, set))?,
            Some("vox") if count > formats::VOX_MAX_VOXELS => {
                return Err(format!(
                    "{}: {count} voxels do not fit a .vox file (at most {}: its chunk sizes are 32-bit); use .npy or .binvox, or a lower --res",
                    out.display(),
                    formats::VOX_MAX_VOXELS
                )
                .into())
            }
            Some("vox") => formats::stage(out, |w| formats::write_vox(w, set))?,
            // (the extension was checked before the work: npy)
            _ => formats::stage(out, |w| formats::write_npy(w, set, o.npy_dense))?,
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
    let written: Vec<PathBuf> = staged.iter().map(|s| s.path().to_path_buf()).collect();
    formats::commit_all(staged)?;
    if count == 0 && !o.json {
        eprintln!(
            "widephase: warning: no voxel of the grid touches the mesh; the outputs are empty"
        );
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
        let f = |x: f64, digits: usize| json_num(x, digits);
        // (f32 Display: the shortest form that reads back as the same f32)
        let g = |x: f32| if x.is_finite() { format!("{x}") } else { "null".to_string() };
        println!(
            "{{\"mesh\":{},\"mode\":\"{}\",\"dims\":[{nx},{ny},{nz}],\"voxel_size\":{},\"origin\":[{},{},{}],\"storage\":\"{storage}\",\"triangles\":{tris},\"voxels\":{count},\"load_ms\":{},\"voxelize_ms\":{},\"write_ms\":{},\"peak_rss_mb\":{},\"estimated_peak_mb\":{},\"threads\":{},\"repeat\":{},\"voxelize_best_ms\":{},\"unknown_statements\":{unknown},\"welded_vertices\":{welded},\"files\":[{}]}}",
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
            f(need as f64 / (1u64 << 20) as f64, 1),
            rayon::current_num_threads(),
            o.repeat,
            f(best_ms, 3),
            written
                .iter()
                .map(|p| json_str(&p.display().to_string()))
                .collect::<Vec<_>>()
                .join(",")
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
        super::outputs::report(&written.iter().map(|p| p.as_path()).collect::<Vec<_>>());
    }
    Ok(())
}

/// `--tile`: the tile's voxels (`voxel::voxelize_tile`, from the triangles
/// near it only), written as an `.npy` index list of whole-grid indices.
fn run_tile(
    o: &VoxelizeOptions,
    name: &str,
    m: voxel::MeshRef<'_>,
    grid: &Grid,
    tile: Tile,
    load_ms: f64,
) -> CliResult {
    tile.validate(grid)?;
    let t1 = Instant::now();
    let index = TileIndex::new(m)?;
    let tv = voxel::voxelize_tile(m, &index, grid, &tile, o.mode)?;
    let voxelize_ms = t1.elapsed().as_secs_f64() * 1e3;
    let rows = tv.indices();
    let t2 = Instant::now();
    let mut written = Vec::new();
    if let Some(out) = &o.out {
        let staged = formats::stage(out, |w| formats::write_npy_index_rows(w, &rows))?;
        written.push(staged.path().to_path_buf());
        formats::commit_all(vec![staged])?;
    }
    let write_ms = t2.elapsed().as_secs_f64() * 1e3;
    let ([i0, j0, k0], [i1, j1, k1]) = (tile.lo, tile.hi);
    let [nx, ny, nz] = grid.dims;
    if o.json {
        println!(
            "{{\"mesh\":{},\"mode\":\"{}\",\"dims\":[{nx},{ny},{nz}],\"tile\":[[{i0},{j0},{k0}],[{i1},{j1},{k1}]],\"voxels\":{},\"load_ms\":{},\"voxelize_ms\":{},\"write_ms\":{},\"threads\":{}}}",
            json_str(name),
            format!("{:?}", o.mode).to_ascii_lowercase(),
            rows.len(),
            json_num(load_ms, 3),
            json_num(voxelize_ms, 3),
            json_num(write_ms, 3),
            rayon::current_num_threads()
        );
    } else {
        println!(
            "{name}: tile [{i0}, {i1}) × [{j0}, {j1}) × [{k0}, {k1}) of {nx}×{ny}×{nz} → {} voxels ({:?}) in {voxelize_ms:.1} ms (load {load_ms:.1} ms, write {write_ms:.1} ms)",
            rows.len(),
            o.mode
        );
        super::outputs::report(&written.iter().map(|p| p.as_path()).collect::<Vec<_>>());
    }
    Ok(())
}

/// The output paths of a job (see `outputs::check`), and none of them the
/// input mesh.
pub(crate) fn check_outputs(o: &VoxelizeOptions) -> CliResult {
    let mut outs = Vec::new();
    if let Some(p) = &o.out {
        // a tile is an index list of whole-grid indices: .npy only
        let extensions: &[&str] =
            if o.tile.is_some() { &["npy"] } else { &["binvox", "vox", "npy"] };
        outs.push(Output { flag: "--out", path: p, extensions });
    }
    if let Some(p) = &o.preview {
        outs.push(Output { flag: "--preview", path: p, extensions: &["png"] });
    }
    if let Some(p) = &o.triangles {
        outs.push(Output { flag: "--triangles", path: p, extensions: &["npy"] });
    }
    super::outputs::check(&outs)?;
    if let Some(m) = o.mesh.as_deref().filter(|m| !m.starts_with("builtin:")) {
        for out in &outs {
            super::outputs::not_an_input(out.flag, out.path, &[Path::new(m)])?;
        }
    }
    Ok(())
}

/// A job's grid and storage, checked and with its memory estimate, before
/// any work.
pub(crate) struct Plan {
    pub grid: Grid,
    pub out_ext: Option<String>,
    pub need: u64,
}

/// Everything decided before the work: the grid from the options and the
/// mesh's bounds, the storage, the output limits and the memory estimate
/// against `--max-memory` (also run by the argument fuzzer, `main.rs`).
pub(crate) fn plan(
    o: &VoxelizeOptions,
    m: voxel::MeshRef<'_>,
) -> Result<Plan, Box<dyn std::error::Error>> {
    let (lo, hi) = m.bounds();
    // (clap rejects the contradictory combinations; see `VoxelizeArgs`)
    let grid = match (o.res, o.voxel_size, o.origin, o.dims) {
        (Some(res), None, None, None) => Grid::fit(lo, hi, res, o.pad)?,
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
    // A grid (placed by --origin) that cannot touch the mesh is an error, not
    // an empty file: its closed box and the mesh's bounding box are disjoint.
    let near = [0, 1, 2].map(|a| grid.plane(a, 0).0);
    let far = [0, 1, 2].map(|a| grid.plane(a, grid.dims[a] as i64).1);
    if m.triangle_count() > 0 && (0..3).any(|a| hi.get(a) < near[a] || lo.get(a) > far[a]) {
        return Err(format!(
            "the grid [{}, {}] × [{}, {}] × [{}, {}] misses the mesh, whose bounding box is [{}, {}] × [{}, {}] × [{}, {}]: check --origin and --dims",
            near[0], far[0], near[1], far[1], near[2], far[2], lo.x, hi.x, lo.y, hi.y, lo.z, hi.z
        )
        .into());
    }
    if o.tile.is_some() {
        // a tile's memory follows the tile and the triangles near it, not
        // the grid (voxel::tile); its own checks run in `run_tile`
        return Ok(Plan { grid, out_ext: Some("npy".into()), need: 0 });
    }
    // the storage decision (and its errors) before the work
    let dense = voxel::dense_storage(o.storage, o.mode, grid.dims)?;
    let out_ext: Option<String> = o
        .out
        .as_ref()
        .map(|p| p.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase());
    if let Some(out) = &o.out {
        match out_ext.as_deref() {
            Some("binvox") => {
                // (a non-cubic grid is padded to the cube of its largest side)
                let side = grid.dims.into_iter().max().unwrap_or(1) as u64;
                if side.pow(3) > DENSE_MAX {
                    return Err(format!("{}: binvox is run-length coded over all {side}³ voxels of its cube; cubes above {DENSE_MAX} voxels are not written (use .vox or .npy)", out.display()).into());
                }
            }
            Some("npy") if o.npy_dense && n > DENSE_MAX => {
                return Err(format!(
                    "{}: dense .npy of {n} voxels is too large (at most {DENSE_MAX}; drop --npy-dense for an index list)",
                    out.display()
                )
                .into());
            }
            _ => {}
        }
    }
    let job = budget::Job {
        mode: o.mode,
        dense,
        out_ext: out_ext.as_deref(),
        npy_dense: o.npy_dense,
        triangles: o.triangles.is_some(),
        preview: o.preview.is_some(),
    };
    let need = budget::resident() + budget::estimate_bytes(m, &grid, &job);
    let advice = match (o.mode, dense) {
        (Mode::Solid, _) => {
            "lower --res (the grid's memory grows with its cube) or use --mode surface"
        }
        (_, true) => "lower --res, or use --storage sparse (memory then grows with the surface)",
        (_, false) => "lower --res",
    };
    budget::check(need, o.max_memory, advice, "--max-memory")?;
    Ok(Plan { grid, out_ext, need })
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
