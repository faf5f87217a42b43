//! The binvox writer's encoding alone: a mesh file voxelized at `RES`, then
//! written `N` times into memory with `formats::write_binvox_cube` (what
//! `widephase voxelize --out X.binvox` encodes before staging the file).
//!
//! `cargo run --release --example binvox_encode -- MESH RES [N]` prints one
//! JSON object: `first_ms`, `best_ms`, the file's `bytes` and an FNV-1a
//! `hash` of them (equal hashes: equal files).

mod common;

use std::time::Instant;
use widephase::voxel::{formats, voxelize, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let common::VoxelArgs { mesh, grid, calls: n } = common::voxel_args("binvox_encode")?;
    let m = mesh.as_ref();
    let v = voxelize(m, &grid, &Options::default())?;
    let (mut first_ms, mut best_ms, mut bytes) = (0.0, f64::MAX, Vec::new());
    for call in 0..n {
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
