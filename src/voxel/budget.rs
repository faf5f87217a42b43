//! A voxelize job's memory budget: its peak memory is estimated before it
//! starts ([`estimate_bytes`]), and a job above the limit is refused with
//! what it needs and what to change ([`check`]). The command line's
//! `--max-memory` and the Python package's `max_memory=` set the limit; the
//! default is the memory available right now (`MemAvailable` of
//! `/proc/meminfo`, Linux) plus what the process already holds; without
//! `/proc` there is no default limit.

use super::{Grid, MeshRef, Mode};

/// Parses a size: a number of bytes with an optional binary unit
/// (`K`, `M`, `G`, `T`, optionally followed by `iB` or `B`; `2G` is 2 GiB),
/// fractions allowed (`1.5G`).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return Err(format!("{s:?} is not a size (examples: 512M, 2G, 1.5G, 1000000)")),
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (examples: 512M, 2G, 1.5G, 1000000)"))?;
    let bytes = x * scale as f64;
    if bytes < 1.0 {
        return Err(format!("{s:?} is out of range: give at least 1 byte"));
    }
    if bytes >= 2f64.powi(63) {
        return Err(format!("{s:?} is out of range: give at most 8388607T (2⁶³ bytes)"));
    }
    Ok(bytes as u64)
}

/// `bytes` for people: `1.5 GiB`, `300 MiB`, `12 KiB`, `512 bytes`.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.0} MiB", b / (1u64 << 20) as f64)
    } else if b >= 1024.0 {
        format!("{:.0} KiB", (b / 1024.0).ceil())
    } else {
        // (a limit of a few bytes is not "1 KiB")
        format!("{bytes} byte{}", if bytes == 1 { "" } else { "s" })
    }
}

fn proc_kib(file: &str, key: &str) -> Option<u64> {
    let s = std::fs::read_to_string(file).ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse::<u64>().ok().map(|k| k * 1024)
}

/// The process's resident set size now (0 where `/proc` is missing).
pub fn resident() -> u64 {
    proc_kib("/proc/self/status", "VmRSS:").unwrap_or(0)
}

/// The default limit: memory available now plus what the process holds.
pub fn default_limit() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemAvailable:").map(|a| a + resident())
}

/// Refuses a job whose estimated peak (`needed` bytes, including what the
/// process already holds) is above the limit: `max_memory` if given, else
/// [`default_limit`]. `advice` says what would make the job smaller; `knob`
/// names the limit's setting (`--max-memory`, `max_memory`).
pub fn check(needed: u64, max_memory: Option<u64>, advice: &str, knob: &str) -> Result<(), String> {
    let (limit, source) = match max_memory {
        Some(m) => (m, format!("{knob} {}", human(m))),
        None => match default_limit() {
            Some(l) => (l, format!("the available memory, {}", human(l))),
            None => return Ok(()),
        },
    };
    if needed > limit {
        return Err(format!(
            "this job needs about {} of memory, more than {source}; {advice}, or raise {knob} if the estimate is too cautious",
            human(needed)
        ));
    }
    Ok(())
}

/// Whether an array of at most `upper` bytes fits beside the `held` bytes of
/// the process under `limit`; `exact` (which may scan a voxel set) gives its
/// real size and is asked only when the bound does not fit. `Err` carries
/// the exact size of an array that does not fit.
pub fn array_fits(
    upper: u64,
    exact: impl FnOnce() -> u64,
    held: u64,
    limit: u64,
) -> Result<(), u64> {
    if held.saturating_add(upper) <= limit {
        return Ok(());
    }
    let bytes = exact();
    if held.saturating_add(bytes) <= limit {
        Ok(())
    } else {
        Err(bytes)
    }
}

/// What a voxelize job does, for [`estimate_bytes`].
pub struct Job<'a> {
    /// The voxelization mode.
    pub mode: Mode,
    /// Dense bits (else sparse bricks): [`super::dense_storage`].
    pub dense: bool,
    /// The output file's extension (lower case), if a file is written.
    pub out_ext: Option<&'a str>,
    /// A dense `.npy` (else an index list).
    pub npy_dense: bool,
    /// Per-voxel triangle lists are written.
    pub triangles: bool,
    /// A PNG preview is written.
    pub preview: bool,
}

/// Estimated peak memory of a voxelize job beyond what the process already
/// holds (the mesh), in bytes: the voxel set, the largest working set of
/// the passes and writers on top of it, and 10 % slack. Measured against
/// the peak RSS (bunny, dragon; 512³–8192³, dense and sparse, solid,
/// surface, thin, with each writer) it is 1.0–1.6× the real peak.
///
/// - dense bits: `⌈nx/64⌉·ny·nz` words; sparse bricks: 200 bytes per brick
///   (72 stored, the per-slab maps and the concatenation), a brick per
///   `(8h)²` of surface area, times 1.5 (a surface crosses more than one
///   brick per brick face it spans), at most every brick of the grid;
/// - binning: 48 bytes per triangle and slab it spans (about 1.3);
/// - solid: 32 bytes per crossing of the busiest axis (16-byte entries,
///   a vector grown by doubling) and 12 per crossing of all axes (spans),
///   crossings per axis = the mesh's projected area along it / h²;
/// - writers: binvox 8 bytes per (y, z) of its cube side for each column
///   of a group (`formats::binvox_group_columns`) plus 8, dense npy 9 per
///   (y, z), triangle lists 96 bytes per surface voxel; the others stream
///   in fixed buffers.
pub fn estimate_bytes(mesh: MeshRef<'_>, grid: &Grid, job: &Job<'_>) -> u64 {
    let [nx, ny, nz] = grid.dims.map(|d| d as u64);
    let h = grid.voxel as f64;
    // The surface's area and its projections, only where the estimate reads
    // them (a dense surface job's is the grid and the records alone: no pass
    // over the mesh). Triangles with an index out of range or a non-finite
    // area are skipped: the mesh is validated by the work itself.
    let (mut area, mut proj) = (0f64, [0f64; 3]);
    if !job.dense || job.mode == Mode::Solid || job.triangles {
        // (in f64: an f32 cross product overflows on far-flung meshes)
        let vertex = |i: u32| mesh.vertices.get(i as usize).map(|v| [v.x, v.y, v.z].map(f64::from));
        for t in mesh.indices {
            let (Some(a), Some(b), Some(c)) = (vertex(t[0]), vertex(t[1]), vertex(t[2])) else {
                continue;
            };
            let (u, v) = ([0, 1, 2].map(|k| b[k] - a[k]), [0, 1, 2].map(|k| c[k] - a[k]));
            let n =
                [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
            let twice = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if twice.is_finite() {
                area += 0.5 * twice;
                for a in 0..3 {
                    proj[a] += 0.5 * n[a].abs();
                }
            }
        }
    }
    let tris = mesh.indices.len() as f64;
    // voxels a surface touches: its area in voxel faces, ×1.5 for the
    // conservative shell, plus a few per triangle
    let surface_voxels = (area / (h * h) * 1.5 + 4.0 * tris).min((nx * ny * nz) as f64);
    let set = if job.dense {
        (nx.div_ceil(64) * ny * nz * 8) as f64
    } else {
        let all_bricks = (nx.div_ceil(8) * ny.div_ceil(8) * nz.div_ceil(8)) as f64;
        200.0 * (1.5 * area / (64.0 * h * h) + tris).min(all_bricks)
    };
    let bins = 48.0 * 1.3 * tris;
    let solid = if job.mode == Mode::Solid {
        let c = proj.map(|p| p / (h * h) + tris);
        32.0 * c.iter().cloned().fold(0.0, f64::max) + 12.0 * c.iter().sum::<f64>()
    } else {
        0.0
    };
    let side = nx.max(ny).max(nz) as f64;
    let writer = match job.out_ext {
        Some("binvox") => {
            (8.0 * super::formats::binvox_group_columns(side as u64) as f64 + 8.0) * side * side
        }
        Some("npy") if job.npy_dense => 9.0 * (ny * nz) as f64,
        _ => 1e6,
    } + if job.triangles { 96.0 * surface_voxels } else { 0.0 }
        + if job.preview { 3.0 * 4.0 * 512.0 * 512.0 } else { 0.0 };
    let work = (bins + solid).max(writer);
    (1.1 * (set + work)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        for bad in ["", "G", "2X", "-1G", "0", "1e9", "nan"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
        // too large is not "give at least 1 byte"
        let huge = parse_size("99999999999999999999999T").unwrap_err();
        assert!(huge.contains("at most 8388607T"), "{huge}");
        assert!(parse_size("8388607T").is_ok());
        assert!(parse_size("0.1").unwrap_err().contains("at least 1 byte"));
        assert_eq!(human(3 << 29), "1.5 GiB");
        assert_eq!(human(1500), "2 KiB");
        assert_eq!(human(1), "1 byte");
        assert_eq!(human(1000), "1000 bytes");
    }

    #[test]
    fn array_fits_scans_only_when_the_bound_does_not_fit() {
        let never = || -> u64 { panic!("the bound fits: no scan") };
        assert_eq!(array_fits(100, never, 50, 150), Ok(()));
        assert_eq!(array_fits(u64::MAX, || 80, 50, 150), Ok(()));
        assert_eq!(array_fits(u64::MAX, || 101, 50, 150), Err(101));
        assert_eq!(array_fits(200, || 200, u64::MAX, 150), Err(200));
    }

    #[test]
    fn estimates_of_unvalidated_meshes_do_not_panic() {
        // the Python package estimates before the work validates the mesh:
        // indices out of range and non-finite coordinates are skipped
        use crate::Vec3;
        let vertices =
            [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, f32::NAN, 0.0)];
        let indices = [[0, 1, 2], [0, 1, 7], [0, 1, u32::MAX]];
        let mesh = MeshRef { vertices: &vertices, indices: &indices };
        let grid = Grid::new(Vec3::new(0.0, 0.0, 0.0), 0.25, [4, 4, 4]).unwrap();
        for (mode, dense, triangles) in
            [(Mode::Surface, false, false), (Mode::Solid, true, false), (Mode::Surface, true, true)]
        {
            let job =
                Job { mode, dense, out_ext: None, npy_dense: false, triangles, preview: false };
            let bytes = estimate_bytes(mesh, &grid, &job);
            assert!(bytes > 0 && bytes < 1 << 30, "{bytes}");
        }
    }
}
