//! parry3d's voxelizer on widephase's grid: the Rust peer of
//! `scripts/voxel_peers.py` (issue: voxelizer benchmark against Open3D,
//! trimesh and parry3d on the same meshes and grids).
//!
//! `cargo run --release --features peers --example parry_voxelize -- MESH RES OUT.npy`
//!
//! Builds widephase's default grid for `RES` (origin at the mesh's
//! bounding-box minimum `o`, voxel size `h` from [`Grid::fit`]), then runs
//! parry3d 0.31's `VoxelizedVolume::with_voxel_size(.., h, SurfaceOnly, ..)`
//! (one thread, a scalar triangle–box test per voxel of each triangle's range,
//! in f32 after mapping the mesh to voxel units). parry centres its voxel `k`
//! on `origin + k·h` with `origin` the minimum of *all* the points it is given,
//! so one extra, unreferenced point at `o − h/2` puts its lattice on ours
//! without moving any mesh vertex: parry's voxel `k` is our voxel `k − 1`.
//! Writes the voxels inside our grid as widephase's `.npy` (N×3 int32) and
//! prints one JSON object: `ms` (parry's call alone), `voxels`, `dims`.
use parry3d::math::Vector;
use parry3d::transformation::voxelization::{FillMode, VoxelValue, VoxelizedVolume};
use std::path::Path;
use std::time::Instant;
use widephase::voxel::formats::{write_atomic, write_npy};
use widephase::voxel::{DenseBits, Grid, Mesh, VoxelSet};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, mesh, res, out] = args.as_slice() else {
        return Err("usage: parry_voxelize MESH RES OUT.npy".into());
    };
    let mesh = Mesh::load(Path::new(mesh))?;
    let (lo, hi) = mesh.as_ref().bounds();
    let grid = Grid::fit(lo, hi, res.parse()?, 0)?;
    let h = grid.voxel;
    let o = grid.origin;
    let mut points: Vec<Vector> =
        mesh.vertices.iter().map(|p| Vector::new(p.x, p.y, p.z)).collect();
    points.push(Vector::new(o.x - 0.5 * h, o.y - 0.5 * h, o.z - 0.5 * h));

    let t = Instant::now();
    let vol =
        VoxelizedVolume::with_voxel_size(&points, &mesh.indices, h, FillMode::SurfaceOnly, false);
    let ms = t.elapsed().as_secs_f64() * 1e3;

    let mut bits = DenseBits::new(grid.dims).ok_or("grid too large for a dense set")?;
    let r = vol.resolution();
    for k in 1..r[2] {
        for j in 1..r[1] {
            for i in 1..r[0] {
                let v = [i - 1, j - 1, k - 1];
                let inside = (0..3).all(|a| v[a] < grid.dims[a]);
                if inside && vol.voxel(i, j, k) == VoxelValue::PrimitiveOnSurface {
                    bits.set(v);
                }
            }
        }
    }
    let set = VoxelSet::Dense(bits);
    write_atomic(Path::new(out), |w| write_npy(w, &set, false))?;
    let [nx, ny, nz] = grid.dims;
    println!("{{\"ms\":{ms:.3},\"voxels\":{},\"dims\":[{nx},{ny},{nz}]}}", set.count());
    Ok(())
}
