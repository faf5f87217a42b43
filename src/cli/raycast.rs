//! `widephase raycast`: closest-hit ray casting against a mesh through the
//! wide BVH, timed. The rays are a seeded random set (origins on a sphere
//! around the mesh, each aimed at a uniform random point of its bounding
//! box), the rows of a `.npy` file (`--rays-file`), or the pixels of a
//! pinhole camera (`--camera`, Open3D's `create_rays_pinhole` convention,
//! [`Pinhole`]).
//!
//! Per-ray outputs, in ray order (row-major pixels for a camera): `t`
//! (`--dump-hits`, float32, `inf` for a miss), the triangle id
//! (`--dump-ids`, int32, `-1` for a miss), the barycentric weights `(u, v)`
//! of vertices b and c (`--dump-bary`, float32 N×2, NaN for a miss) and the
//! hit triangle's geometric unit normal `(b − a) × (c − a)` normalized
//! (`--dump-normals`, float32 N×3, NaN for a miss); a camera also writes
//! `--depth` (float32 H×W, the `t` image) and `--depth-png`.

use super::outputs::Output;
use super::CliResult;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use widephase::bvh::{random_rays, MeshBvh, Pinhole, RayHit};
use widephase::voxel::{builtin, formats, Mesh};
use widephase::{Ray, Triangle, Vec3};

/// Most rays in one run (24 bytes each in memory, plus the `.npy` dump).
pub const MAX_RAYS: usize = 100_000_000;

/// A pinhole camera as given on the command line (`None`: framing default).
pub struct CameraOptions {
    pub width: usize,
    pub height: usize,
    pub eye: Option<[f64; 3]>,
    pub center: Option<[f64; 3]>,
    pub up: [f64; 3],
    pub fov: f64,
}

/// Where the rays come from.
pub enum RaySource {
    /// `--rays N --seed S`: [`random_rays`] about the mesh's bounding box.
    Random { n: usize, seed: u64 },
    /// `--rays-file R.npy`: N×6 (origin, direction) or N×8 (… t_min, t_max).
    File(PathBuf),
    /// `--camera WxH`: one ray per pixel.
    Camera(CameraOptions),
}

/// Options of the subcommand (filled by clap in `main.rs`).
pub struct RaycastOptions {
    pub mesh: String,
    pub source: RaySource,
    pub json: bool,
    pub dump_rays: Option<PathBuf>,
    pub dump_hits: Option<PathBuf>,
    pub dump_ids: Option<PathBuf>,
    pub dump_bary: Option<PathBuf>,
    pub dump_normals: Option<PathBuf>,
    pub depth: Option<PathBuf>,
    pub depth_png: Option<PathBuf>,
    pub stats: bool,
    /// `--repeat N`: the query traced N times, the best time reported too.
    pub repeat: u32,
}

impl RaycastOptions {
    /// The output files, as `outputs::check` takes them.
    pub fn outputs(&self) -> Vec<Output<'_>> {
        let npy: &[&str] = &["npy"];
        [
            ("--dump-rays", &self.dump_rays, npy),
            ("--dump-hits", &self.dump_hits, npy),
            ("--dump-ids", &self.dump_ids, npy),
            ("--dump-bary", &self.dump_bary, npy),
            ("--dump-normals", &self.dump_normals, npy),
            ("--depth", &self.depth, npy),
            ("--depth-png", &self.depth_png, &["png"]),
        ]
        .into_iter()
        .filter_map(|(flag, p, extensions)| {
            p.as_deref().map(|path| Output { flag, path, extensions })
        })
        .collect()
    }

    /// Checks the outputs before any work: paths (`outputs::check`), no
    /// output over an input, and image outputs only with `--camera`.
    pub fn check(&self) -> Result<(), String> {
        let outs = self.outputs();
        super::outputs::check(&outs)?;
        let camera = matches!(self.source, RaySource::Camera(_));
        if !camera {
            if let Some(o) = outs.iter().find(|o| o.flag.starts_with("--depth")) {
                return Err(format!("{} needs --camera (an image of rays)", o.flag));
            }
        }
        let mut inputs: Vec<&Path> = Vec::new();
        if !self.mesh.starts_with("builtin:") {
            inputs.push(Path::new(&self.mesh));
        }
        if let RaySource::File(p) = &self.source {
            inputs.push(p);
        }
        for o in &outs {
            super::outputs::not_an_input(o.flag, o.path, &inputs)?;
        }
        Ok(())
    }
}

/// Stages a little-endian `.npy` array (`descr` `<f4` or `<i4`) of the
/// given shape (see [`formats::stage`]; the outputs are renamed into place
/// together).
fn stage_npy(
    path: &Path,
    descr: &str,
    shape: &[usize],
    data: &[[u8; 4]],
) -> Result<formats::Staged, Box<dyn std::error::Error>> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_s =
        if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_s}, }}");
    // Pad so that magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    Ok(formats::stage(path, |w| {
        w.write_all(b"\x93NUMPY\x01\x00")?;
        w.write_all(&(header.len() as u16).to_le_bytes())?;
        w.write_all(header.as_bytes())?;
        for chunk in data.chunks(1 << 14) {
            w.write_all(bytemuck::cast_slice(chunk))?;
        }
        Ok(())
    })?)
}

/// [`stage_npy`] of float32 values.
fn stage_npy_f32(
    path: &Path,
    shape: &[usize],
    data: &[f32],
) -> Result<formats::Staged, Box<dyn std::error::Error>> {
    let le: Vec<[u8; 4]> = data.iter().map(|x| x.to_le_bytes()).collect();
    stage_npy(path, "<f4", shape, &le)
}

/// The rays of a `.npy` file: N×6 float32 rows `origin xyz, direction xyz`
/// (`t` in `[0, ∞]`) or N×8 rows with `t_min, t_max` appended. Refused,
/// naming the problem: anything `read_npy_f32_table` refuses (dtype, shape,
/// Fortran order, truncation, more than [`MAX_RAYS`] rows), no rows, and a
/// row with a non-finite origin or direction component, a NaN or infinite
/// `t_min`, a NaN `t_max`, or `t_min > t_max` (the row and column are named).
pub fn read_rays(path: &Path) -> Result<Vec<Ray>, String> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let (cols, v) = formats::read_npy_f32_table(&bytes, &[6, 8], MAX_RAYS)
        .map_err(|e| format!("{name}: {e}"))?;
    if v.is_empty() {
        return Err(format!("{name}: no rays (0 rows)"));
    }
    const COLUMNS: [&str; 8] = ["ox", "oy", "oz", "dx", "dy", "dz", "t_min", "t_max"];
    let mut rays = Vec::with_capacity(v.len() / cols);
    for (i, r) in v.chunks_exact(cols).enumerate() {
        if let Some(k) = r[..6].iter().position(|x| !x.is_finite()) {
            return Err(format!("{name}: row {i}: {} = {} is not finite", COLUMNS[k], r[k]));
        }
        let mut ray = Ray::new(Vec3::new(r[0], r[1], r[2]), Vec3::new(r[3], r[4], r[5]));
        if cols == 8 {
            let (lo, hi) = (r[6], r[7]);
            if !lo.is_finite() {
                return Err(format!("{name}: row {i}: t_min = {lo} is not finite"));
            }
            if hi.is_nan() {
                return Err(format!("{name}: row {i}: t_max is NaN"));
            }
            if lo > hi {
                return Err(format!("{name}: row {i}: t_min = {lo} exceeds t_max = {hi}"));
            }
            ray.t_min = lo;
            ray.t_max = hi;
        }
        rays.push(ray);
    }
    Ok(rays)
}

/// The geometric unit normal of a triangle, `(b − a) × (c − a)` normalized
/// (Open3D's `primitive_normals`).
fn unit_normal(t: &Triangle) -> [f32; 3] {
    let n = (t.b - t.a).cross(t.c - t.a);
    let n = n * (1.0 / n.length());
    [n.x, n.y, n.z]
}

/// An 8-bit grey PNG of a depth image: the nearest hit white, the farthest
/// dark grey (32), a miss black; linear in depth.
fn stage_depth_png(
    path: &Path,
    width: usize,
    height: usize,
    depth: &[f32],
) -> Result<formats::Staged, Box<dyn std::error::Error>> {
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for &d in depth.iter().filter(|d| d.is_finite()) {
        lo = lo.min(d);
        hi = hi.max(d);
    }
    let span = if hi > lo { hi - lo } else { 1.0 };
    let img: Vec<u8> = depth
        .iter()
        .map(|&d| if d.is_finite() { (255.0 - 223.0 * ((d - lo) / span)).round() as u8 } else { 0 })
        .collect();
    Ok(formats::stage(path, |w| formats::write_gray_png(w, width, height, &img))?)
}

/// Runs the subcommand.
pub fn run(o: RaycastOptions) -> CliResult {
    if let RaySource::Random { n, .. } = o.source {
        if n == 0 || n > MAX_RAYS {
            return Err(format!("--rays {n} is out of range: must be 1..={MAX_RAYS}").into());
        }
    }
    o.check()?;
    let mesh = match o.mesh.strip_prefix("builtin:") {
        Some(b) => builtin::by_name(b)
            .ok_or_else(|| format!("unknown builtin mesh {b:?} (try torus, knot, cube)"))?,
        None => {
            let (mesh, report) = Mesh::load_with_report(Path::new(&o.mesh))?;
            for w in report.warnings() {
                eprintln!("widephase: warning: {w}");
            }
            mesh
        }
    };
    if mesh.indices.is_empty() {
        return Err(format!("{}: the mesh has no triangles", o.mesh).into());
    }
    // (`--threads` is applied by `main.rs`: this runs on its pool)
    let threads = rayon::current_num_threads();
    let (lo, hi) = mesh.as_ref().bounds();
    let (rays, image) = match &o.source {
        RaySource::Random { n, seed } => (random_rays(lo, hi, *n, *seed), None),
        RaySource::File(p) => (read_rays(p)?, None),
        RaySource::Camera(c) => {
            let cam = Pinhole::framing((lo, hi), c.width, c.height, c.fov, c.eye, c.center, c.up);
            cam.validate().map_err(|e| format!("--camera: {e}"))?;
            (cam.rays(), Some((c.width, c.height)))
        }
    };
    let n_rays = rays.len();
    let mut staged = Vec::new();
    if let Some(p) = &o.dump_rays {
        let flat: Vec<f32> = rays
            .iter()
            .flat_map(|r| [r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z])
            .collect();
        staged.push(stage_npy_f32(p, &[n_rays, 6], &flat)?);
    }
    let t0 = Instant::now();
    let bvh = MeshBvh::from_mesh(mesh.as_ref());
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let per_ray = o.dump_hits.is_some()
        || o.dump_ids.is_some()
        || o.dump_bary.is_some()
        || o.dump_normals.is_some()
        || o.depth.is_some()
        || o.depth_png.is_some();
    let (hits, ms) = if per_ray {
        let t1 = Instant::now();
        let res = bvh.closest_hits(&rays);
        let ms = t1.elapsed().as_secs_f64() * 1e3;
        stage_hits(&o, &bvh, &res, image, &mut staged)?;
        (res.iter().filter(|h| h.is_some()).count(), ms)
    } else {
        let t1 = Instant::now();
        let hits =
            if image.is_some() { bvh.count_hits_in_order(&rays) } else { bvh.count_hits(&rays) };
        (hits, t1.elapsed().as_secs_f64() * 1e3)
    };
    // --repeat: the same query again, timed alone (as a library is timed in
    // one process, with its pool and caches warm); every run must hit as the
    // first did
    let mut best_ms = ms;
    for _ in 1..o.repeat {
        let t = Instant::now();
        let again = if per_ray {
            bvh.closest_hits(&rays).iter().filter(|h| h.is_some()).count()
        } else if image.is_some() {
            bvh.count_hits_in_order(&rays)
        } else {
            bvh.count_hits(&rays)
        };
        best_ms = best_ms.min(t.elapsed().as_secs_f64() * 1e3);
        if again != hits {
            return Err(format!("--repeat: a later run gave {again} hits, the first {hits}").into());
        }
    }
    let mrays = n_rays as f64 / (ms * 1e3);
    let written: Vec<PathBuf> = staged.iter().map(|s| s.path().to_path_buf()).collect();
    formats::commit_all(staged)?;
    if !o.json {
        super::outputs::report(&written.iter().map(|p| p.as_path()).collect::<Vec<_>>());
    }
    // Untimed second pass with the traversal counters.
    let stats = o.stats.then(|| bvh.trace_stats(&rays));
    let per_ray = |x: u64| x as f64 / n_rays as f64;
    let mut out = std::io::stdout().lock();
    if o.json {
        writeln!(
            out,
            "{{\"mesh\":{:?},\"n\":{},\"triangles\":{},\"rays\":{},\"hits\":{},\"ms\":{:.3},\"build_ms\":{:.3},\"mrays_per_s\":{:.3},\"repeat\":{},\"best_ms\":{:.3},\"threads\":{},\"seed\":{},\"nodes\":{},\"leaves\":{}{}}}",
            o.mesh,
            bvh.len(),
            bvh.len(),
            n_rays,
            hits,
            ms,
            build_ms,
            mrays,
            o.repeat,
            best_ms,
            threads,
            match o.source {
                RaySource::Random { seed, .. } => seed.to_string(),
                _ => "null".into(),
            },
            bvh.bvh().node_count(),
            bvh.bvh().leaf_count(),
            stats.map_or(String::new(), |st| format!(
                ",\"nodes_per_ray\":{:.3},\"boxes_per_ray\":{:.3},\"leaves_per_ray\":{:.3},\"tris_per_ray\":{:.3},\"node_fill\":{:.3}",
                per_ray(st.nodes),
                per_ray(st.boxes),
                per_ray(st.leaves),
                per_ray(st.prims),
                bvh.bvh().mean_fill()
            ))
        )?;
    } else {
        writeln!(
            out,
            "{}: {} triangles, {} rays, {} hits; build {:.1} ms, query {:.1} ms ({:.2} Mrays/s, {} threads){}",
            o.mesh,
            bvh.len(),
            n_rays,
            hits,
            build_ms,
            ms,
            mrays,
            threads,
            if o.repeat > 1 {
                format!("; best of {} runs {best_ms:.1} ms", o.repeat)
            } else {
                String::new()
            }
        )?;
        if let Some(st) = stats {
            writeln!(
                out,
                "per ray: {:.2} nodes ({:.2} child boxes), {:.2} leaves, {:.2} triangles ({:.2} pack lanes); {:.2} of {} slots used per node",
                per_ray(st.nodes),
                per_ray(st.boxes),
                per_ray(st.leaves),
                per_ray(st.prims),
                per_ray(st.leaves * widephase::bvh::MAX_LEAF as u64),
                bvh.bvh().mean_fill(),
                widephase::bvh::BRANCH
            )?;
        }
    }
    Ok(())
}

/// Stages the per-ray outputs of `res` (see the module docs for the layout
/// and the miss values).
fn stage_hits(
    o: &RaycastOptions,
    bvh: &MeshBvh,
    res: &[Option<RayHit>],
    image: Option<(usize, usize)>,
    staged: &mut Vec<formats::Staged>,
) -> Result<(), Box<dyn std::error::Error>> {
    let n = res.len();
    let ts: Vec<f32> = res.iter().map(|h| h.map_or(f32::INFINITY, |h| h.t)).collect();
    if let Some(p) = &o.dump_hits {
        staged.push(stage_npy_f32(p, &[n], &ts)?);
    }
    if let Some(p) = &o.dump_ids {
        let ids: Vec<[u8; 4]> =
            res.iter().map(|h| h.map_or(-1i32, |h| h.id as i32).to_le_bytes()).collect();
        staged.push(stage_npy(p, "<i4", &[n], &ids)?);
    }
    if let Some(p) = &o.dump_bary {
        let uv: Vec<f32> =
            res.iter().flat_map(|h| h.map_or([f32::NAN; 2], |h| [h.u, h.v])).collect();
        staged.push(stage_npy_f32(p, &[n, 2], &uv)?);
    }
    if let Some(p) = &o.dump_normals {
        let tris = bvh.triangles();
        let nrm: Vec<f32> = res
            .iter()
            .flat_map(|h| h.map_or([f32::NAN; 3], |h| unit_normal(&tris[h.id as usize])))
            .collect();
        staged.push(stage_npy_f32(p, &[n, 3], &nrm)?);
    }
    if let Some((w, h)) = image {
        if let Some(p) = &o.depth {
            staged.push(stage_npy_f32(p, &[h, w], &ts)?);
        }
        if let Some(p) = &o.depth_png {
            staged.push(stage_depth_png(p, w, h, &ts)?);
        }
    }
    Ok(())
}
