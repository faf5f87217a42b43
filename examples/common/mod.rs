//! What the voxel examples share: `MESH RES [N]` from the command line, the
//! mesh loaded and its bounds fitted into a grid of `RES` along the longest
//! axis.

use widephase::voxel::{Grid, Mesh};

/// A loaded mesh, its fitted grid and how many calls to time.
pub struct VoxelArgs {
    pub mesh: Mesh,
    pub grid: Grid,
    pub calls: usize,
}

/// Reads `MESH RES [N]` (`N` defaults to 10, at least 1); `usage` names the
/// example in the error.
pub fn voxel_args(usage: &str) -> Result<VoxelArgs, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err(format!("usage: {usage} MESH RES [N]").into());
    }
    let mesh = Mesh::load(std::path::Path::new(&args[1]))?;
    let res: u32 = args[2].parse()?;
    let calls: usize = args.get(3).map_or(Ok(10), |s| s.parse())?;
    let (lo, hi) = mesh.as_ref().bounds();
    let grid = Grid::fit(lo, hi, res, 0)?;
    Ok(VoxelArgs { mesh, grid, calls: calls.max(1) })
}
