//! Voxelizing one tile of a grid: the voxels of the whole-grid answer inside
//! a box of voxel indices, computed from only the triangles near that box.
//!
//! A tile is `[lo, hi)` on each axis of a [`Grid`]. [`voxelize_tile`] finds
//! the triangles whose bounding boxes come within one voxel of the tile
//! (through a [`TileIndex`], a BVH over the triangles' boxes built once per
//! mesh, which also validates the mesh once), voxelizes just those on the **whole** grid (sparse storage, so the
//! memory follows their surface, not the grid), and keeps the voxels inside
//! the tile. Because the grid is the whole grid, every voxel box is the same
//! f32 box the whole-grid call tests; because a voxel's mark is the OR over
//! the triangles that touch it, and a triangle can only mark voxels inside
//! its bounding box's voxel range, the triangles left out cannot mark a
//! voxel of the tile. So the tile equals the whole-grid answer restricted to
//! the tile, bit for bit, in surface and thin mode (thin marks are decided
//! per triangle too). `tests/voxel_tile.rs` checks it against whole-grid
//! calls for tilings that do not divide the grid.
//!
//! Solid mode is refused: a voxel's inside/outside vote counts the surface
//! crossings along the three axis lines through its centre, and those lines
//! run through the whole grid, so a tile would need the crossings of every
//! triangle on every line that passes through it. Solid grids are voxelized
//! whole (dense, up to 2048³).

use super::{storage::BRICK, voxelize, DenseBits, Grid, MeshRef, Mode, Options, Storage};
use super::{VoxelError, VoxelSet};
use crate::bvh::Bvh;
use crate::math::Vec3;
use crate::shapes::Aabb;

/// A box of voxel indices: `lo[a] <= index < hi[a]` on each axis `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    /// First index on each axis.
    pub lo: [u32; 3],
    /// One past the last index on each axis.
    pub hi: [u32; 3],
}

impl Tile {
    /// Voxels per axis.
    pub fn dims(&self) -> [u32; 3] {
        [0, 1, 2].map(|a| self.hi[a].saturating_sub(self.lo[a]))
    }

    /// Checks the tile is non-empty and inside `grid`.
    pub fn validate(&self, grid: &Grid) -> Result<(), VoxelError> {
        for a in 0..3 {
            if self.lo[a] >= self.hi[a] || self.hi[a] > grid.dims[a] {
                let [nx, ny, nz] = grid.dims;
                return Err(VoxelError::Grid(format!(
                    "tile {:?}..{:?} is empty or outside the grid of {nx}×{ny}×{nz} voxels \
                     along {} (need lo < hi <= dims)",
                    self.lo,
                    self.hi,
                    ["x", "y", "z"][a]
                )));
            }
        }
        Ok(())
    }

    /// The tiles of `grid` cut at multiples of `size` (the last ones on each
    /// axis shorter when `size` does not divide the grid), x fastest.
    pub fn tiling(grid: &Grid, size: [u32; 3]) -> Vec<Tile> {
        let size = size.map(|s| s.max(1));
        let n = [0, 1, 2].map(|a| grid.dims[a].div_ceil(size[a]));
        let mut out = Vec::with_capacity((n[0] * n[1] * n[2]) as usize);
        for k in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    let lo = [i * size[0], j * size[1], k * size[2]];
                    let hi = [0, 1, 2].map(|a| (lo[a] + size[a]).min(grid.dims[a]));
                    out.push(Tile { lo, hi });
                }
            }
        }
        out
    }
}

/// The bounds index of a mesh for [`voxelize_tile`]: a BVH over the
/// triangles' bounding boxes, built once and queried per tile.
#[derive(Clone, Debug)]
pub struct TileIndex {
    bvh: Bvh,
    triangles: usize,
}

impl TileIndex {
    /// Validates the mesh ([`MeshRef::validate`]: every tile call may then
    /// trust it) and builds the index.
    pub fn new(mesh: MeshRef<'_>) -> Result<TileIndex, VoxelError> {
        mesh.validate("mesh")?;
        let boxes: Vec<Aabb> = (0..mesh.triangle_count())
            .map(|t| {
                let tri = mesh.triangle(t);
                Aabb::new(tri.a.min(tri.b).min(tri.c), tri.a.max(tri.b).max(tri.c))
            })
            .collect();
        Ok(TileIndex { bvh: Bvh::new(&boxes), triangles: mesh.triangle_count() })
    }

    /// Ids (ascending) of the triangles whose bounding box comes within one
    /// voxel of `tile`'s box on `grid`: a superset of the triangles that can
    /// mark a voxel of the tile.
    pub fn triangles(&self, grid: &Grid, tile: &Tile) -> Vec<u32> {
        let h = grid.voxel;
        let o = grid.base.to_array();
        let lo = [0, 1, 2].map(|a| grid.plane(a, tile.lo[a] as i64 - 1).0);
        let hi = [0, 1, 2].map(|a| grid.plane(a, tile.hi[a] as i64 + 1).1);
        // (one more ulp-scale margin of the coordinates' size: the index only
        // filters, and a box too large costs a few extra triangles)
        let m = |a: usize| 1e-6 * (o[a].abs() + (tile.hi[a] as f32 + 1.0 + grid.offset as f32) * h);
        let q = Aabb::new(
            Vec3::new(lo[0] - m(0), lo[1] - m(1), lo[2] - m(2)),
            Vec3::new(hi[0] + m(0), hi[1] + m(1), hi[2] + m(2)),
        );
        self.bvh.overlap_aabb(&q)
    }
}

impl TileIndex {
    /// The tiles of [`Tile::tiling`]`(grid, size)` that a triangle's bounding
    /// box comes near (within two voxels), sorted x fastest: a superset of
    /// the tiles with voxels, found from the triangles alone (the number of
    /// tiles a large grid has never enters), so a driver schedules only
    /// these and knows the others are empty.
    pub fn occupied_tiles(&self, grid: &Grid, size: [u32; 3]) -> Vec<Tile> {
        let size = size.map(|s| s.max(1));
        let n = [0, 1, 2].map(|a| grid.dims[a].div_ceil(size[a]) as i64);
        let (o, h) = (grid.base.to_array().map(|x| x as f64), grid.voxel as f64);
        let off = grid.offset as f64;
        let mut keys = std::collections::HashSet::new();
        for b in self.bvh.boxes() {
            if !b.is_valid() {
                continue;
            }
            let (lo, hi) = (b.min.to_array(), b.max.to_array());
            let range = |a: usize| {
                let t = |x: f32, d: f64| {
                    let v = ((x as f64 - o[a]) / h).floor() + off + d;
                    (v.clamp(0.0, grid.dims[a] as f64 - 1.0) as i64) / size[a] as i64
                };
                (t(lo[a], -2.0), t(hi[a], 2.0).min(n[a] - 1))
            };
            let (r0, r1, r2) = (range(0), range(1), range(2));
            for k in r2.0..=r2.1 {
                for j in r1.0..=r1.1 {
                    for i in r0.0..=r0.1 {
                        keys.insert((k, j, i));
                    }
                }
            }
        }
        let mut keys: Vec<_> = keys.into_iter().collect();
        keys.sort_unstable();
        keys.into_iter()
            .map(|(k, j, i)| {
                let lo = [i as u32 * size[0], j as u32 * size[1], k as u32 * size[2]];
                Tile { lo, hi: [0, 1, 2].map(|a| (lo[a] + size[a]).min(grid.dims[a])) }
            })
            .collect()
    }
}

/// The voxels of one tile: bits over the tile's own dims (x fastest), voxel
/// `(i, j, k)` of the tile being voxel `tile.lo + (i, j, k)` of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct TileVoxels {
    /// The tile.
    pub tile: Tile,
    /// Its voxels, indexed relative to `tile.lo`.
    pub bits: DenseBits,
}

impl TileVoxels {
    /// Number of marked voxels.
    pub fn count(&self) -> u64 {
        self.bits.words.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// The marked voxels by their **whole-grid** indices, sorted by `(k, j, i)`
    /// (so the index lists of a tiling concatenate into the grid's list,
    /// after a sort).
    pub fn indices(&self) -> Vec<[u32; 3]> {
        let lo = self.tile.lo;
        VoxelSet::Dense(self.bits.clone())
            .indices()
            .into_iter()
            .map(|v| [v[0] + lo[0], v[1] + lo[1], v[2] + lo[2]])
            .collect()
    }
}

/// Voxelizes the part of `grid` inside `tile`: exactly the voxels the
/// whole-grid [`voxelize`] marks there (module docs). `index` must have been
/// built from `mesh`. Errors for solid mode, for a tile outside the grid,
/// and for an invalid selected triangle (named as [`voxelize`] names it).
pub fn voxelize_tile(
    mesh: MeshRef<'_>,
    index: &TileIndex,
    grid: &Grid,
    tile: &Tile,
    mode: Mode,
) -> Result<TileVoxels, VoxelError> {
    if mode == Mode::Solid {
        return Err(VoxelError::Format(
            "solid mode is not available tile by tile: a voxel's inside/outside vote counts \
             crossings along whole axis lines of the grid; voxelize solid grids whole"
                .into(),
        ));
    }
    tile.validate(grid)?;
    if index.triangles != mesh.triangle_count() {
        return Err(VoxelError::Mesh(format!(
            "the tile index was built for {} triangles, the mesh has {}",
            index.triangles,
            mesh.triangle_count()
        )));
    }
    let dims = tile.dims();
    let mut bits = DenseBits::new(dims).ok_or_else(|| {
        VoxelError::TooLarge(format!("tile of {dims:?} voxels is above the dense limit"))
    })?;
    let selected: Vec<[u32; 3]> =
        index.triangles(grid, tile).iter().map(|&t| mesh.indices[t as usize]).collect();
    if selected.is_empty() {
        return Ok(TileVoxels { tile: *tile, bits });
    }
    let sub = MeshRef { vertices: mesh.vertices, indices: &selected };
    let opts = Options { mode, storage: Storage::Sparse, ..Options::default() };
    let set = match voxelize(sub, grid, &opts)?.set {
        VoxelSet::Sparse(s) => s,
        VoxelSet::Dense(_) => unreachable!("sparse storage was requested"),
    };
    // keep the bricks that meet the tile, and their voxels inside it
    let nb = grid.dims.map(|d| d.div_ceil(BRICK) as u64);
    for (key, brick) in &set.bricks {
        let b = [key % nb[0], key / nb[0] % nb[1], key / nb[0] / nb[1]].map(|x| x as u32 * BRICK);
        if (0..3).any(|a| b[a] + BRICK <= tile.lo[a] || b[a] >= tile.hi[a]) {
            continue;
        }
        for (z, &word) in brick.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let bit = w.trailing_zeros();
                w &= w - 1;
                let v = [b[0] + bit % 8, b[1] + bit / 8, b[2] + z as u32];
                if (0..3).all(|a| v[a] >= tile.lo[a] && v[a] < tile.hi[a]) {
                    bits.set([v[0] - tile.lo[0], v[1] - tile.lo[1], v[2] - tile.lo[2]]);
                }
            }
        }
    }
    Ok(TileVoxels { tile: *tile, bits })
}
