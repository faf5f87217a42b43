//! `widephase raycast`: closest-hit ray casting against a mesh through the
//! wide BVH, with a seeded random ray set (origins on a sphere around the mesh,
//! each aimed at a uniform random point of its bounding box), timed.

use super::outputs::Output;
use super::CliResult;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use widephase::bvh::{random_rays, MeshBvh};
use widephase::voxel::{builtin, formats, Mesh};

/// Most rays in one run (24 bytes each in memory, plus the `.npy` dump).
pub const MAX_RAYS: usize = 100_000_000;

/// Options of the subcommand (filled by clap in `main.rs`).
pub struct RaycastOptions {
    pub mesh: String,
    pub rays: usize,
    pub seed: u64,
    pub json: bool,
    pub dump_rays: Option<PathBuf>,
    pub dump_hits: Option<PathBuf>,
    pub stats: bool,
}

/// Stages a little-endian float32 `.npy` array of the given shape (see
/// [`formats::stage`]; the dumps are renamed into place together).
fn stage_npy_f32(
    path: &Path,
    shape: &[usize],
    data: &[f32],
) -> Result<formats::Staged, Box<dyn std::error::Error>> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_s =
        if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape_s}, }}");
    // Pad so that magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    Ok(formats::stage(path, |w| {
        w.write_all(b"\x93NUMPY\x01\x00")?;
        w.write_all(&(header.len() as u16).to_le_bytes())?;
        w.write_all(header.as_bytes())?;
        let mut buf = Vec::with_capacity(1 << 16);
        for chunk in data.chunks(1 << 14) {
            buf.clear();
            for &x in chunk {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            w.write_all(&buf)?;
        }
        Ok(())
    })?)
}

/// Runs the subcommand.
pub fn run(o: RaycastOptions) -> CliResult {
    if o.rays == 0 || o.rays > MAX_RAYS {
        return Err(format!("--rays {} is out of range: must be 1..={MAX_RAYS}", o.rays).into());
    }
    let mut outs = Vec::new();
    if let Some(p) = &o.dump_rays {
        outs.push(Output { flag: "--dump-rays", path: p, extensions: &["npy"] });
    }
    if let Some(p) = &o.dump_hits {
        outs.push(Output { flag: "--dump-hits", path: p, extensions: &["npy"] });
    }
    super::outputs::check(&outs)?;
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
    let mut staged = Vec::new();
    let (lo, hi) = mesh.as_ref().bounds();
    let rays = random_rays(lo, hi, o.rays, o.seed);
    if let Some(p) = &o.dump_rays {
        let flat: Vec<f32> = rays
            .iter()
            .flat_map(|r| [r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z])
            .collect();
        staged.push(stage_npy_f32(p, &[rays.len(), 6], &flat)?);
    }
    let t0 = Instant::now();
    let bvh = MeshBvh::from_mesh(mesh.as_ref());
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let (hits, ms) = if let Some(p) = &o.dump_hits {
        let t1 = Instant::now();
        let res = bvh.closest_hits(&rays);
        let ms = t1.elapsed().as_secs_f64() * 1e3;
        let ts: Vec<f32> = res.iter().map(|h| h.map_or(f32::INFINITY, |h| h.t)).collect();
        staged.push(stage_npy_f32(p, &[ts.len()], &ts)?);
        (res.iter().filter(|h| h.is_some()).count(), ms)
    } else {
        let t1 = Instant::now();
        let hits = bvh.count_hits(&rays);
        (hits, t1.elapsed().as_secs_f64() * 1e3)
    };
    let mrays = o.rays as f64 / (ms * 1e3);
    let written: Vec<PathBuf> = staged.iter().map(|s| s.path().to_path_buf()).collect();
    formats::commit_all(staged)?;
    if !o.json {
        super::outputs::report(&written.iter().map(|p| p.as_path()).collect::<Vec<_>>());
    }
    // Untimed second pass with the traversal counters.
    let stats = o.stats.then(|| bvh.trace_stats(&rays));
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
