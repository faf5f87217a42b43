//! The binvox writer's encoding alone: a mesh file voxelized at `RES`, then
//! written `N` times into memory with `formats::write_binvox_cube` (what
//! `widephase voxelize --out X.binvox` encodes before staging the file).
//!
//! `cargo run --release --example binvox_encode -- MESH RES [N]` prints one
//! JSON object: `first_ms`, `best_ms`, the file's `bytes` and an FNV-1a
//! `hash` of them (equal hashes: equal files).

use std::time::Instant;
use widephase::voxel::{formats, voxelize, Grid, Mesh, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: binvox_encode MESH RES [N]".into());
    }
    let mesh = Mesh::load(std::path::Path::new(&args[1]))?;
    let res: u32 = args[2].parse()?;
    let n: usize = args.get(3).map_or(Ok(10), |s| s.parse())?;
    let m = mesh.as_ref();
    let (lo, hi) = m.bounds();
    let grid = Grid::fit(lo, hi, res, 0)?;
    let v = voxelize(m, &grid, &Options::default())?;
    let (mut first_ms, mut best_ms, mut bytes) = (0.0, f64::MAX, Vec::new());
    for call in 0..n.max(1) {
        let mut out = Vec::new();
        let t0 = Instant::now();
        formats::write_binvox_cube(&mut out, &v.grid, &v.set)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if call == 0 {
            first_ms = ms;
        }
        best_ms = f64::min(best_ms, ms);
        bytes = out;
    }
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    println!(
        "{{\"first_ms\":{first_ms:.3},\"best_ms\":{best_ms:.3},\"bytes\":{},\"hash\":\"{hash:016x}\",\"threads\":{}}}",
        bytes.len(),
        rayon::current_num_threads()
    );
    Ok(())
}
