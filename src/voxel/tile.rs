//! Voxelizing one tile of a grid: the voxels of the whole-grid answer inside
//! a box of voxel indices, computed from only the triangles near that box.
//!
//! A tile is `[lo, hi)` on each axis of a [`Grid`]. [`voxelize_tile`] finds
//! the triangles whose bounding boxes come within one voxel of the tile
//! (through a [`TileIndex`], a uniform grid of buckets over the triangles'
//! boxes built once per mesh, which also validates the mesh once), and
//! voxelizes just those on the **whole** grid straight into the tile's dense
//! bits: each triangle takes the path its whole voxel ranges choose, and the
//! voxels outside the tile are dropped as they are written. Because the grid
//! is the whole grid, every voxel box is the same f32 box the whole-grid call
//! tests, and each voxel gets the same decision; because a voxel's mark is
//! the OR over the triangles that touch it, and a triangle can only mark
//! voxels inside its bounding box's voxel range, the triangles left out
//! cannot mark a voxel of the tile. So the tile equals the whole-grid answer
//! restricted to the tile, bit for bit, in surface and thin mode (thin marks
//! are decided per triangle too). `tests/voxel_tile.rs` checks it against whole-grid
//! calls for tilings that do not divide the grid.
//!
//! Solid mode is refused: a voxel's inside/outside vote counts the surface
//! crossings along the three axis lines through its centre, and those lines
//! run through the whole grid, so a tile would need the crossings of every
//! triangle on every line that passes through it. Solid grids are voxelized
//! whole (dense, up to 2048³).

use super::{DenseBits, Grid, MeshRef, Mode, DENSE_MAX};
use super::{VoxelError, VoxelSet};
use crate::math::Vec3;
use crate::overlap::aabb_aabb;
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

/// The bounds index of a mesh for [`voxelize_tile`]: the triangles' bounding
/// boxes, bucketed into a uniform grid of cells over the mesh's bounds, built
/// once and queried per tile.
///
/// Why buckets and not the crate's SAH [`crate::bvh::Bvh`]: a tile query is
/// a box of hundreds of voxels a side that returns thousands of triangles,
/// where a tree's pruning buys little, while the index is built on every
/// worker a mesh is sent to. The BVH took 0.53 s on one thread for
/// dragon_sub4's 810k triangles (most of the Dask driver's start-up per
/// worker); the buckets are two counting passes. The answers are the same:
/// the cells give a superset, and each candidate passes the same closed-box
/// test ([`aabb_aabb`]).
#[derive(Clone, Debug)]
pub struct TileIndex {
    /// Bounding box of each triangle.
    boxes: Vec<Aabb>,
    /// Lower corner of the cell grid and cells per unit length, per axis
    /// (0 on an axis of zero extent: one cell).
    lo: [f64; 3],
    per_unit: [f64; 3],
    /// Cells per axis.
    n: [u32; 3],
    /// `ids[start[c]..start[c + 1]]`: the triangles whose box meets cell `c`
    /// (x fastest), ascending.
    start: Vec<u32>,
    ids: Vec<u32>,
    /// Triangles whose box spans more than `LARGE_SPAN` cells, tested on
    /// every query instead of being copied into each cell.
    large: Vec<u32>,
}

/// Average triangles per cell the grid is sized for.
const PER_CELL: usize = 2;
/// Cells per axis at most.
const MAX_CELLS_PER_AXIS: u32 = 1024;
/// A triangle whose box meets more cells than this goes to the `large` list.
const LARGE_SPAN: u64 = 64;

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
        let (lo, hi) =
            boxes.iter().fold(([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]), |(lo, hi), b| {
                let (bl, bh) = (b.min.to_array(), b.max.to_array());
                (
                    [0, 1, 2].map(|a| lo[a].min(bl[a] as f64)),
                    [0, 1, 2].map(|a| hi[a].max(bh[a] as f64)),
                )
            });
        let ext = [0, 1, 2].map(|a| (hi[a] - lo[a]).max(0.0));
        // cells of edge `s` so that the box holds about `n / PER_CELL` of
        // them (axes of zero extent left out of the volume)
        let cells = (boxes.len() / PER_CELL).max(1) as f64;
        let used: Vec<f64> = ext.iter().copied().filter(|&e| e > 0.0).collect();
        let s = if used.is_empty() {
            1.0
        } else {
            (used.iter().product::<f64>() / cells).powf(1.0 / used.len() as f64)
        };
        let n = ext.map(|e| {
            if e > 0.0 && s > 0.0 {
                ((e / s).ceil() as u32).clamp(1, MAX_CELLS_PER_AXIS)
            } else {
                1
            }
        });
        let per_unit = [0, 1, 2].map(|a| if ext[a] > 0.0 { n[a] as f64 / ext[a] } else { 0.0 });
        let mut index = TileIndex {
            boxes,
            lo: if lo[0].is_finite() { lo } else { [0.0; 3] },
            per_unit,
            n,
            start: Vec::new(),
            ids: Vec::new(),
            large: Vec::new(),
        };
        index.bucket();
        Ok(index)
    }

    /// The cell range `[c0, c1]` per axis of the box `b` (clamped to the
    /// grid; monotone in the coordinates, so a point of `b` lies in a cell of
    /// the range).
    fn cells_of(&self, b: &Aabb) -> [[u32; 2]; 3] {
        let (bl, bh) = (b.min.to_array(), b.max.to_array());
        [0, 1, 2].map(|a| {
            let cell = |x: f32| {
                let c = ((x as f64 - self.lo[a]) * self.per_unit[a]).floor();
                // (NaN casts to 0; infinities saturate, then clamp)
                (c.max(0.0) as u64).min(self.n[a] as u64 - 1) as u32
            };
            [cell(bl[a]), cell(bh[a])]
        })
    }

    /// Fills `start`, `ids` and `large` by two counting passes in id order
    /// (so each cell's ids are ascending).
    fn bucket(&mut self) {
        let [nx, ny, nz] = self.n.map(|x| x as usize);
        let span = |r: &[[u32; 2]; 3]| r.iter().map(|&[a, b]| (b - a + 1) as u64).product::<u64>();
        let mut count = vec![0u32; nx * ny * nz + 1];
        let each_cell = |r: &[[u32; 2]; 3], f: &mut dyn FnMut(usize)| {
            for k in r[2][0]..=r[2][1] {
                for j in r[1][0]..=r[1][1] {
                    for i in r[0][0]..=r[0][1] {
                        f(i as usize + nx * (j as usize + ny * k as usize));
                    }
                }
            }
        };
        let ranges: Vec<[[u32; 2]; 3]> = self.boxes.iter().map(|b| self.cells_of(b)).collect();
        for r in &ranges {
            if span(r) <= LARGE_SPAN {
                each_cell(r, &mut |c| count[c + 1] += 1);
            }
        }
        for c in 1..count.len() {
            count[c] += count[c - 1];
        }
        let mut ids = vec![0u32; count[nx * ny * nz] as usize];
        let mut at = count.clone();
        for (t, r) in ranges.iter().enumerate() {
            if span(r) <= LARGE_SPAN {
                each_cell(r, &mut |c| {
                    ids[at[c] as usize] = t as u32;
                    at[c] += 1;
                });
            } else {
                self.large.push(t as u32);
            }
        }
        self.start = count;
        self.ids = ids;
    }

    /// Ids (ascending) of the triangles whose box meets the closed box `q`
    /// ([`aabb_aabb`]); none for an invalid `q`.
    fn overlap_aabb(&self, q: &Aabb) -> Vec<u32> {
        if !q.is_valid() || self.boxes.is_empty() {
            return Vec::new();
        }
        let hit = |t: u32| aabb_aabb(&self.boxes[t as usize], q);
        let r = self.cells_of(q);
        let [nx, ny, _] = self.n.map(|x| x as usize);
        let mut out: Vec<u32> = self.large.iter().copied().filter(|&t| hit(t)).collect();
        for k in r[2][0]..=r[2][1] {
            for j in r[1][0]..=r[1][1] {
                let row = nx * (j as usize + ny * k as usize);
                let (c0, c1) = (row + r[0][0] as usize, row + r[0][1] as usize);
                let cell_ids = &self.ids[self.start[c0] as usize..self.start[c1 + 1] as usize];
                out.extend(cell_ids.iter().copied().filter(|&t| hit(t)));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
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
        self.overlap_aabb(&q)
    }
}

/// Most tiles [`TileIndex::occupied_tiles`] lists (2²⁴): a task graph of
/// that many tiles is already far past what a scheduler handles, and the
/// list's sets cost about 100 bytes a tile.
pub const MAX_LISTED_TILES: u64 = 1 << 24;

impl TileIndex {
    /// The tiles of [`Tile::tiling`]`(grid, size)` that a triangle's bounding
    /// box comes near (within two voxels), sorted x fastest: a superset of
    /// the tiles with voxels, found from the triangles alone (the number of
    /// tiles a large grid has never enters), so a driver schedules only
    /// these and knows the others are empty.
    ///
    /// At most [`MAX_LISTED_TILES`] tiles are listed: when the triangles'
    /// tile ranges could hold more (counted before any is listed), the call
    /// is refused with [`VoxelError::TooLarge`] instead of filling memory;
    /// larger tiles are the remedy.
    pub fn occupied_tiles(&self, grid: &Grid, size: [u32; 3]) -> Result<Vec<Tile>, VoxelError> {
        let size = size.map(|s| s.max(1));
        let n = [0, 1, 2].map(|a| grid.dims[a].div_ceil(size[a]) as i64);
        let (o, h) = (grid.base.to_array().map(|x| x as f64), grid.voxel as f64);
        let off = grid.offset as f64;
        // each valid triangle's tile range, (i, j, k) inclusive bounds
        let ranges = || {
            self.boxes.iter().filter(|b| b.is_valid()).map(move |b| {
                let (lo, hi) = (b.min.to_array(), b.max.to_array());
                [0, 1, 2].map(|a| {
                    let t = |x: f32, d: f64| {
                        let v = ((x as f64 - o[a]) / h).floor() + off + d;
                        (v.clamp(0.0, grid.dims[a] as f64 - 1.0) as i64) / size[a] as i64
                    };
                    (t(lo[a], -2.0), t(hi[a], 2.0).min(n[a] - 1))
                })
            })
        };
        // the listed tiles are at most the tiles of all ranges together and
        // at most the grid's tiles
        let incidences = ranges().fold(0u64, |sum, r| {
            sum.saturating_add(r.iter().map(|&(a, b)| (b - a + 1).max(0) as u64).product())
        });
        let bound = incidences.min(n.iter().map(|&x| x as u64).product());
        if bound > MAX_LISTED_TILES {
            let [nx, ny, nz] = grid.dims;
            return Err(VoxelError::TooLarge(format!(
                "up to {bound} tiles of {}×{}×{} of the {nx}×{ny}×{nz} grid may hold voxels, more than the {MAX_LISTED_TILES} listed at most: use larger tiles",
                size[0], size[1], size[2]
            )));
        }
        let mut keys = std::collections::HashSet::new();
        for [r0, r1, r2] in ranges() {
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
        Ok(keys
            .into_iter()
            .map(|(k, j, i)| {
                let lo = [i as u32 * size[0], j as u32 * size[1], k as u32 * size[2]];
                Tile { lo, hi: [0, 1, 2].map(|a| (lo[a] + size[a]).min(grid.dims[a])) }
            })
            .collect())
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
/// whole-grid [`voxelize`](super::voxelize) marks there (module docs). `index` must have been
/// built from `mesh`. Errors for solid mode, for a tile outside the grid,
/// and for an invalid selected triangle (named as [`voxelize`](super::voxelize) names it).
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
    if index.boxes.len() != mesh.triangle_count() {
        return Err(VoxelError::Mesh(format!(
            "the tile index was built for {} triangles, the mesh has {}",
            index.boxes.len(),
            mesh.triangle_count()
        )));
    }
    let dims = tile.dims();
    // (checked before any work, whether or not the tile has triangles)
    if dims.iter().map(|&d| d as u64).product::<u64>() > DENSE_MAX {
        return Err(VoxelError::TooLarge(format!(
            "tile of {dims:?} voxels is above the dense limit {DENSE_MAX}; use smaller tiles"
        )));
    }
    let selected: Vec<[u32; 3]> =
        index.triangles(grid, tile).iter().map(|&t| mesh.indices[t as usize]).collect();
    let bits = if selected.is_empty() {
        DenseBits::new(dims)
            .ok_or_else(|| VoxelError::TooLarge("tile above the dense limit".into()))?
    } else {
        // (straight into the tile's dense bits: a sparse whole-grid call on
        // the selected triangles, copied into the tile, cost 14 % over one
        // whole-grid call at dragon_sub4 4096³ in tiles of 256³)
        let sub = MeshRef { vertices: mesh.vertices, indices: &selected };
        super::voxelize_window(sub, grid, (tile.lo, tile.hi), mode)?
    };
    Ok(TileVoxels { tile: *tile, bits })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voxel::Mesh;

    /// xorshift: the test's own reproducible numbers.
    fn next(s: &mut u64) -> f32 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        (*s >> 40) as f32 / (1u64 << 24) as f32
    }

    fn brute(index: &TileIndex, q: &Aabb) -> Vec<u32> {
        (0..index.boxes.len() as u32).filter(|&t| aabb_aabb(&index.boxes[t as usize], q)).collect()
    }

    /// The buckets answer exactly the brute-force closed-box overlaps: small
    /// and huge triangles (the `large` list), a mesh flat along z (one cell
    /// on that axis), queries touching boxes exactly, outside the bounds,
    /// infinite and NaN.
    #[test]
    fn buckets_equal_brute_force() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for flat in [false, true] {
            let mut vertices = Vec::new();
            let mut indices = Vec::new();
            for t in 0..3000u32 {
                let size = if t % 500 == 0 { 8.0 } else { 0.05 };
                let c = [next(&mut s) * 10.0, next(&mut s) * 10.0, next(&mut s) * 10.0];
                for _ in 0..3 {
                    let z = if flat { 1.0 } else { c[2] + next(&mut s) * size };
                    vertices.push(Vec3::new(
                        c[0] + next(&mut s) * size,
                        c[1] + next(&mut s) * size,
                        z,
                    ));
                }
                indices.push([3 * t, 3 * t + 1, 3 * t + 2]);
            }
            let mesh = Mesh { vertices, indices };
            let index = TileIndex::new(mesh.as_ref()).unwrap();
            assert!(!index.large.is_empty(), "the huge triangles take the large list");
            let mut queries: Vec<Aabb> = (0..400)
                .map(|_| {
                    let lo = Vec3::new(
                        next(&mut s) * 12.0 - 1.0,
                        next(&mut s) * 12.0 - 1.0,
                        next(&mut s) * 12.0 - 1.0,
                    );
                    let e = next(&mut s) * 3.0;
                    Aabb::new(lo, lo + Vec3::new(e, e * 0.5, e * 2.0))
                })
                .collect();
            // touching a triangle's box exactly, at one corner
            for b in index.boxes.iter().step_by(97) {
                queries.push(Aabb::new(b.max, b.max + Vec3::new(1.0, 1.0, 1.0)));
                queries.push(Aabb::new(b.min - Vec3::new(0.5, 0.5, 0.5), b.min));
            }
            queries.push(Aabb::new(Vec3::new(50.0, 50.0, 50.0), Vec3::new(60.0, 60.0, 60.0)));
            queries.push(Aabb::new(Vec3::new(-1e30, -1e30, -1e30), Vec3::new(1e30, 1e30, 1e30)));
            queries.push(Aabb::new(
                Vec3::new(f32::NEG_INFINITY, 2.0, 2.0),
                Vec3::new(f32::INFINITY, 3.0, 3.0),
            ));
            queries.push(Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0)));
            let mut hits = 0;
            for q in &queries {
                let want = brute(&index, q);
                hits += want.len();
                assert_eq!(index.overlap_aabb(q), want, "flat {flat}, query {q:?}");
            }
            assert!(hits > 3000, "the queries find triangles ({hits})");
        }
    }
}
