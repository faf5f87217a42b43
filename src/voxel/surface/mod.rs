//! Surface modes: the conservative surface (every voxel whose closed box the
//! triangle touches) and the thin, 6-separating surface.
//!
//! # Per triangle
//! ```text
//! bbox range: voxels i with hi(i+1) >= tmin.x and lo(i) <= tmax.x   (per axis,
//!             exact comparisons on the stored planes, the kernel's face axes;
//!             computed once per triangle when binning by slab)
//! one voxel in range      -> marked (the kernel's answer is known: touching)
//! ≤ 27 voxels in range    -> every voxel to triangle_aabb_conservative::<f32x16>,
//!                            16 (triangle, voxel) pairs per call, shared by
//!                            consecutive triangles (Batch)
//! ≤ 512 voxels in range   -> f32 tile classification (Tile): the 13 SAT axes
//!                            on the exact boxes as linear forms in the voxel
//!                            offsets (set up in f64 for 8 triangles at once,
//!                            TileQueue), 16 voxels per step with a proven
//!                            margin: sure hit -> the row's bits ORed at once,
//!                            sure miss -> dropped, undecided -> the f64 test
//!                            (TileExact), then the kernel
//! larger                  -> f64 Schwarz–Seidel classification (Certain):
//!     columns along the dominant normal axis w; per row a span of columns from
//!     the 2D edge functions; per column an interval from the plane; per voxel
//!     the 13 SAT axes on the exact box with a proven margin:
//!     sure hit -> marked, sure miss -> dropped, undecided -> kernel (VoxPack)
//! ```
//! So every voxel is either decided by the kernel or decided exactly (with a
//! margin far above the f64 error), which keeps zero misses against the exact
//! reference and a result that is a subset of the plain kernel path
//! (`triangle_rows_plain`, `Options::no_precull`); `tests/voxel.rs` checks both.
//!
//! # Thin (6-separating) surface
//! Schwarz & Seidel (2010) §3.2 build a 6-separating voxelization by testing the
//! plane against a thinner voxel core. Here a voxel is thin-marked when the
//! triangle meets one of the voxel's three **axis segments** (the segments of
//! length `h` through its centre along x, y, z), tested in f64 with a relative
//! slack of `1e-9`, and only among voxels the conservative test marked (so thin
//! ⊆ conservative). Why it separates: a 6-connected path of voxels goes from
//! centre to centre along axis segments; if it crosses the surface, the crossing
//! point lies on the half-segment of one of the two voxels, which is marked.
//! Triangles parallel to an axis are skipped for that axis (they are crossed
//! along another axis, or by a neighbouring triangle).
//! Relation to Schwarz & Seidel's thin test: against the triangle's plane it
//! is the same condition (segment `i` meets the plane `n·x + d = 0` iff
//! `|n·c + d| ≤ (h/2)|nᵢ|`, so one of the three does iff their plane-thickness
//! test `|n·c + d| ≤ (h/2)‖n‖∞` holds), but at the triangle's border an axis
//! segment must meet the triangle itself instead of passing their edge tests in
//! the 2D projections.

use super::grid::Grid;
use super::storage::Sink;
use crate::shapes::Triangle;
use crate::simd::Simd;

mod batch;
mod certain;
mod ranges;
mod setup;
mod thin;
mod tile;

pub(crate) use batch::{triangle_rows_plain, Batch, VoxPack};
use certain::triangle_columns;
pub(crate) use ranges::{tri_ranges, tri_ranges16_on};
use setup::TILE_MAX;
pub(crate) use tile::TileQueue;

/// Per-axis plane tables (see [`Grid::plane_table`]).
pub(crate) struct Tables {
    pub lo: [Vec<f32>; 3],
    pub hi: [Vec<f32>; 3],
    pub dims: [u32; 3],
    pub grid: Grid,
    pub inv_h: f64,
    /// `1/h` rounded to f32 (relative error ≤ 2⁻²⁴)
    pub inv_h32: f32,
    /// the planes' base in f64 (per axis; plane `n` is `base + (n − offset)·h`)
    pub o64: [f64; 3],
}

impl Tables {
    pub fn new(grid: &Grid) -> Tables {
        let (lx, hx) = grid.plane_table(0);
        let (ly, hy) = grid.plane_table(1);
        let (lz, hz) = grid.plane_table(2);
        Tables {
            lo: [lx, ly, lz],
            hi: [hx, hy, hz],
            dims: grid.dims,
            grid: *grid,
            inv_h: 1.0 / grid.voxel as f64,
            inv_h32: 1.0 / grid.voxel,
            o64: [0, 1, 2].map(|a| grid.base.get(a) as f64),
        }
    }

    /// Voxels `a..=b` along `axis` whose slab `[lo(i), hi(i+1)]` meets `[tmin, tmax]`.
    ///
    /// Exact comparisons on the stored planes (the kernel's face axes), found
    /// by an f64 estimate `(x - o) / h` corrected by walking the tables (the
    /// estimate is off by at most one voxel; the walk makes the answer exact).
    #[inline(always)]
    pub fn range(&self, axis: usize, tmin: f32, tmax: f32) -> Option<(u32, u32)> {
        let d = self.dims[axis] as i64;
        let (lo, hi) = (&self.lo[axis], &self.hi[axis]);
        let o = self.o64[axis];
        // only an estimate: the walk below corrects it, so a reciprocal will do
        let inv_h = self.inv_h;
        let est = |x: f32| {
            (((x as f64 - o) * inv_h).floor() as i64 + self.grid.offset as i64).clamp(0, d - 1)
        };
        // first i with hi[i+1] >= tmin
        let mut a = est(tmin);
        while a > 0 && hi[a as usize] >= tmin {
            a -= 1;
        }
        while a < d && hi[a as usize + 1] < tmin {
            a += 1;
        }
        // last i with lo[i] <= tmax
        let mut b = est(tmax);
        while b < d - 1 && lo[b as usize + 1] <= tmax {
            b += 1;
        }
        while b >= 0 && lo[b as usize] > tmax {
            b -= 1;
        }
        if a >= d || b < 0 || a > b {
            None
        } else {
            Some((a as u32, b as u32))
        }
    }
}

/// A triangle's voxel ranges `(first, last)` along x, y, z.
pub(crate) type Ranges = [(u32, u32); 3];

const TWO_52: f64 = (1u64 << 52) as f64;

const TWO_M22: f64 = 1.0 / (1u64 << 22) as f64;
const TWO_M50: f64 = 1.0 / (1u64 << 50) as f64;
const TWO_M140: f64 = 7.174648137343064e-43; // 2^-140

/// Triangle's bbox.
#[inline]
pub(crate) fn tri_bounds(t: &Triangle) -> (crate::Vec3, crate::Vec3) {
    (t.a.min(t.b).min(t.c), t.a.max(t.b).max(t.c))
}

/// Relative slack of the f64 pre-cull (plane slab and 2D edge tests): far above
/// the f64 rounding error of those tests (~1e-15 relative), so the cull never
/// drops a voxel whose exact box touches the triangle.
const CULL_SLACK: f64 = 1e-7;

/// Triangles whose bounding range holds at most this many voxels (a 3×3×3
/// block) skip the f64 setup: their voxels go to the kernel in [`Batch`]es
/// shared by consecutive triangles (full lanes). Measured (callgrind, x86-64-v3,
/// 1 thread, voxelize only): 8 → bunny 512³ 498 M / dragon_sub4 2066 M
/// instructions, 27 → 497 M / 1972 M; sending every triangle through the f64
/// classification costs dragon_sub4 ~1000 M more (its setup dominates for
/// triangles 2–3 voxels wide).
const PRECULL_MIN: u64 = 27;

/// Is `tri`'s bounding box inside voxel `v`'s stored box `[lo(i), hi(i+1)]`
/// (per axis; exact f32 comparisons)?
#[inline]
fn inside_voxel(tri: &Triangle, t: &Tables, v: [u32; 3]) -> bool {
    let (lo, hi) = tri_bounds(tri);
    (0..3).all(|a| {
        let i = v[a] as usize;
        t.lo[a][i] <= lo.get(a) && hi.get(a) <= t.hi[a][i + 1]
    })
}

/// Runs one triangle over the voxels of z layers `k_lo..=k_hi` (clipped to its
/// range), ORing marked voxels into `sink`; `thin` selects the 6-separating
/// filter. Triangles of the tile path are queued in `tiles` and run when it
/// holds eight (the caller flushes it at the end, as `batch`).
///
/// Candidates come from a Schwarz–Seidel-style setup in f64, used only as a
/// **pre-cull that keeps a superset of the exactly touching voxels**: with `w`
/// the dominant axis of the normal `n`, each column of voxels along `w` whose
/// cross-section square misses the triangle's projection by more than the
/// slack is skipped (the three 2D edge functions, tested at the square's
/// critical corner), and along the column only the voxels whose centre `c`
/// has `|n·(c - a)| <= (h/2)|n|_1 + slack` are kept (an interval of at most
/// ~3 voxels, solved in closed form). The survivors are packed 16 to a call of
/// [`triangle_aabb_conservative`], whose answer is final. So the result is a
/// subset of the kernel's and a superset of the exact set (`tests/voxel.rs`
/// checks both directions against the exact reference and the brute-force
/// kernel). Degenerate (zero-area) triangles skip the pre-cull and test their
/// whole bounding range.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn triangle_rows<P: Simd, S: Sink>(
    tri: &Triangle,
    t: &Tables,
    ranges: Ranges,
    k_lo: u32,
    k_hi: u32,
    pack: &mut VoxPack<'_, P>,
    batch: &mut Batch<'_, P>,
    tiles: &mut TileQueue<'_, P>,
    sink: &mut S,
) {
    let [(i0, i1), (j0, j1), (za, zb)] = ranges;
    let (ka, kb) = (za.max(k_lo), zb.min(k_hi));
    if ka > kb {
        return;
    }
    if i0 == i1 && j0 == j1 && za == zb && !pack.thin && inside_voxel(tri, t, [i0, j0, za]) {
        // The exact face-axis ranges leave one voxel on every axis and the
        // triangle's bounding box lies inside that voxel's stored box, so the
        // triangle touches it in exact arithmetic and the conservative kernel
        // necessarily answers "touching" — skip the call, same answer. (The
        // containment is not implied at the grid's border: a range clamped
        // to the first or last voxel only says the bounding boxes overlap,
        // and a triangle crossing a corner outside the grid can miss the
        // corner voxel; `tests/voxel.rs` `small_triangle_shortcuts_equal_kernel`.)
        sink.or_row(i0, j0, ka, 1);
        return;
    }
    // Small ranges skip the f64 setup: every voxel goes to the kernel, which
    // decides alone — except voxels already set (by earlier triangles of the
    // slab), whose answer could not change the set: the pair is dropped
    // without a branch (its lane is overwritten by the next push). Small
    // triangles share most of their voxels with their neighbours: 60 % of
    // dragon_sub4's 5.46 M pairs at 512³ (simd-notes.md, "Voxelizer").
    // (`Sink::is_set` is `false` where a sink must see every pair:
    // `triangle_lists`.) The choice uses the unclipped z range, so a triangle
    // straddling two slabs takes the same path in both (the voxels do not
    // depend on the slab layout, hence not on dense/sparse storage).
    let count = (i1 - i0 + 1) as u64 * (j1 - j0 + 1) as u64 * (zb - za + 1) as u64;
    if count <= PRECULL_MIN {
        batch.start(tri);
        for k in ka..=kb {
            let (zl, zh) = (t.lo[2][k as usize], t.hi[2][k as usize + 1]);
            for j in j0..=j1 {
                let (yl, yh) = (t.lo[1][j as usize], t.hi[1][j as usize + 1]);
                for i in i0..=i1 {
                    let (xl, xh) = (t.lo[0][i as usize], t.hi[0][i as usize + 1]);
                    let keep = !sink.is_set(i, j, k);
                    batch.push([i, j, k], [xl, yl, zl], [xh, yh, zh], keep, sink);
                }
            }
        }
        return;
    }
    if count <= TILE_MAX {
        tiles.push(tri, [i0, j0, za], [i1, j1, zb], (ka, kb), pack, sink);
        return;
    }
    triangle_columns(tri, t, [i0, j0, ka], [i1, j1, kb], pack, sink);
}

#[cfg(test)]
mod tests;
