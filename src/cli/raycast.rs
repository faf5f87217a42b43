//! `widephase raycast`: closest-hit ray casting against a mesh through the
//! wide BVH, with a seeded random ray set (origins on a sphere around the mesh,
//! each aimed at a uniform random point of its bounding box), timed.

use super::CliResult;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use widephase::bvh::{random_rays, MeshBvh};
use widephase::voxel::{builtin, formats::write_atomic, Mesh};

/// Most rays in one run (24 bytes each in memory, plus the `.npy` dump).
pub const MAX_RAYS: usize = 100_000_000;

/// Options of the subcommand (filled by clap in `main.rs`).
pub struct RaycastOptions {
    pub mesh: String,
    pub rays: usize,
    pub seed: u64,
    pub threads: Option<usize>,
    pub json: bool,
    pub dump_rays: Option<PathBuf>,
    pub dump_hits: Option<PathBuf>,
    pub stats: bool,
}

/// Writes a little-endian float32 `.npy` array of the given shape.
fn write_npy_f32(path: &Path, shape: &[usize], data: &[f32]) -> CliResult {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_s =
        if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape_s}, }}");
    // Pad so that magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    write_atomic(path, |w| {
        w.write_all(b"\x93NUMPY\x01\x00")?;
        w.write_all(&(header.len() as u16).to_le_bytes())?;
        w.write_all(header.as_bytes())?;
        for &x in data {
            w.write_all(&x.to_le_bytes())?;
        }
        Ok(())
    })?;
    Ok(())
}

fn check_out_dir(p: &Path) -> CliResult {
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!("{}: directory {} does not exist", p.display(), dir.display()).into());
    }
    Ok(())
}

/// Runs the subcommand.
pub fn run(o: RaycastOptions) -> CliResult {
    if o.rays == 0 || o.rays > MAX_RAYS {
        return Err(format!("--rays {} is out of range: must be 1..={MAX_RAYS}", o.rays).into());
    }
    if let Some(t) = o.threads {
        if t == 0 || t > 1024 {
            return Err(format!("--threads {t} is out of range: must be 1..=1024").into());
        }
    }
    for p in o.dump_rays.iter().chain(o.dump_hits.iter()) {
        check_out_dir(p)?;
    }
    let mesh = match o.mesh.strip_prefix("builtin:") {
        Some(b) => builtin::by_name(b)
            .ok_or_else(|| format!("unknown builtin mesh {b:?} (try torus, knot, cube)"))?,
        None => Mesh::load(Path::new(&o.mesh))?,
    };
    if mesh.indices.is_empty() {
        return Err(format!("{}: the mesh has no triangles", o.mesh).into());
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = o.threads {
        pool = pool.num_threads(t);
    }
    let pool = pool.build()?;
    let threads = pool.current_num_threads();
    let (lo, hi) = mesh.as_ref().bounds();
    let rays = random_rays(lo, hi, o.rays, o.seed);
    if let Some(p) = &o.dump_rays {
        let flat: Vec<f32> = rays
            .iter()
            .flat_map(|r| [r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z])
            .collect();
        write_npy_f32(p, &[rays.len(), 6], &flat)?;
    }
    let t0 = Instant::now();
    let bvh = pool.install(|| MeshBvh::from_mesh(mesh.as_ref()));
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let (hits, ms) = if let Some(p) = &o.dump_hits {
        let t1 = Instant::now();
        let res = pool.install(|| bvh.closest_hits(&rays));
        let ms = t1.elapsed().as_secs_f64() * 1e3;
        let ts: Vec<f32> = res.iter().map(|h| h.map_or(f32::INFINITY, |h| h.t)).collect();
        write_npy_f32(p, &[ts.len()], &ts)?;
        (res.iter().filter(|h| h.is_some()).count(), ms)
    } else {
        let t1 = Instant::now();
        let hits = pool.install(|| bvh.count_hits(&rays));
        (hits, t1.elapsed().as_secs_f64() * 1e3)
    };
    let mrays = o.rays as f64 / (ms * 1e3);
    // Untimed second pass with the traversal counters.
    let stats = o.stats.then(|| pool.install(|| bvh.trace_stats(&rays)));
    let per_ray = |x: u64| x as f64 / o.rays as f64;
    let mut out = std::io::stdout().lock();
    if o.json {
        writeln!(
            out,
            "{{\"mesh\":{:?},\"n\":{},\"triangles\":{},\"rays\":{},\"hits\":{},\"ms\":{:.3},\"build_ms\":{:.3},\"mrays_per_s\":{:.3},\"threads\":{},\"seed\":{},\"nodes\":{},\"leaves\":{}{}}}",
            o.mesh,
            bvh.len(),
            bvh.len(),
            o.rays,
            hits,
            ms,
            build_ms,
            mrays,
            threads,
            o.seed,
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
            "{}: {} triangles, {} rays, {} hits; build {:.1} ms, query {:.1} ms ({:.2} Mrays/s, {} threads)",
            o.mesh,
            bvh.len(),
            o.rays,
            hits,
            build_ms,
            ms,
            mrays,
            threads
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
