//! The Rust side of the Python package's overhead figure: a mesh file
//! voxelized at `RES` and its voxels extracted as flat indices
//! (`VoxelSet::indices_flat`, what `VoxelGrid.indices()` returns), best of
//! `N` calls in one process, as `python/bench/peers.py` times the package.
//!
//! `cargo run --release --example voxel_indices -- MESH RES [N]` prints one
//! JSON object: `voxelize_ms`, `indices_ms`, `total_ms` (best of N each), `voxels`.

mod common;

use std::time::Instant;
use widephase::voxel::{voxelize, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let common::VoxelArgs { mesh, grid, calls: n } = common::voxel_args("voxel_indices")?;
    let m = mesh.as_ref();
    let (mut vox_ms, mut idx_ms, mut total_ms, mut voxels) = (f64::MAX, f64::MAX, f64::MAX, 0);
    for _ in 0..n {
        let t0 = Instant::now();
        let v = voxelize(m, &grid, &Options::default())?;
        let t1 = Instant::now();
        let flat = v.set.indices_flat();
        let t2 = Instant::now();
        voxels = flat.len() / 3;
        vox_ms = vox_ms.min((t1 - t0).as_secs_f64() * 1e3);
        idx_ms = idx_ms.min((t2 - t1).as_secs_f64() * 1e3);
        total_ms = total_ms.min((t2 - t0).as_secs_f64() * 1e3);
    }
    println!(
        "{{\"voxelize_ms\":{vox_ms:.3},\"indices_ms\":{idx_ms:.3},\"total_ms\":{total_ms:.3},\"voxels\":{voxels},\"threads\":{}}}",
        rayon::current_num_threads()
    );
    Ok(())
}
