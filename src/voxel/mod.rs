//! The voxelizer: exact conservative surface, thin 6-separating surface and
//! solid voxelization of triangle meshes, on widephase's own triangle–box
//! kernel ([`triangle_aabb_conservative`](crate::overlap::triangle_aabb_conservative)).
//!
//! ```
//! use widephase::voxel::{builtin, voxelize, Grid, Mode, Options};
//! let mesh = builtin::torus(48, 24, 1.0, 0.35);
//! let m = mesh.as_ref();
//! let (lo, hi) = m.bounds();
//! let grid = Grid::fit(lo, hi, 32, 1).unwrap();
//! let surf = voxelize(m, &grid, &Options::default()).unwrap();
//! let solid = voxelize(m, &grid, &Options { mode: Mode::Solid, ..Options::default() }).unwrap();
//! assert!(surf.set.count() > 0 && solid.set.count() > surf.set.count());
//! // the voxel holding the origin (the torus's hole) stays empty; the one
//! // holding the tube's centre line at (1, 0, 0) is solid but not surface
//! let idx = |p: [f32; 3]| {
//!     let mut v = [0u32; 3];
//!     for a in 0..3 {
//!         v[a] = ((p[a] - grid.origin.get(a)) / grid.voxel) as u32;
//!     }
//!     v
//! };
//! assert!(!solid.set.get(idx([0.0, 0.0, 0.0])));
//! assert!(solid.set.get(idx([1.0, 0.0, 0.0])) && !surf.set.get(idx([1.0, 0.0, 0.0])));
//! ```
//!
//! Guarantees (tested in `tests/voxel.rs` against an exact rational reference):
//! - [`Mode::Surface`]: every voxel whose **exact** closed box the closed
//!   triangle touches is marked (zero misses, including faces lying on grid
//!   planes). Extra voxels occur only inside the ulp band: the stored box is
//!   the exact box rounded outward to the next f32 ([`grid`] module), and the
//!   kernel's own band of the crate [contracts](crate#contracts).
//! - [`Mode::Thin`]: a subset of the surface that still separates inside from
//!   outside for 6-connected paths ([`surface`] module docs).
//! - [`Mode::Solid`]: surface ∪ voxels whose centre is inside by a vote of
//!   the three axis lines through it (nonzero winding on balanced lines,
//!   parity otherwise; [`solid`] module docs).
//! - The result is identical for any number of rayon threads.

pub mod budget;
pub mod builtin;
pub mod formats;
pub mod grid;
#[cfg(feature = "loaders")]
pub mod load;
pub mod mesh;
pub mod solid;
pub mod storage;
pub mod surface;
pub mod tile;
mod weld;

pub use grid::{Grid, MAX_RES};
#[cfg(feature = "loaders")]
pub use mesh::LoadReport;
pub use mesh::{Mesh, MeshRef};
pub use storage::{DenseBits, GridWords, SparseBricks, VoxelSet, DENSE_AUTO_LIMIT, DENSE_MAX};
pub use tile::{voxelize_tile, Tile, TileIndex, TileVoxels};

use crate::math::Vec3;
use crate::shapes::Triangle;
use crate::simd::{self, Baseline, Isa, Simd, SimdFn};
use rayon::prelude::*;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use storage::{DenseSlab, Sink, SparseSlab, WindowSlab, BRICK};
use surface::{
    tri_ranges, tri_ranges16_on, triangle_rows, triangle_rows_plain, Batch, Ranges, Tables,
    TileQueue, VoxPack,
};

/// Errors of the voxelizer (mesh input, grid, storage and file output).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum VoxelError {
    /// A mesh file or buffer is malformed; the message names file, line or element.
    Mesh(String),
    /// The grid is invalid (resolution, voxel size, origin).
    Grid(String),
    /// The requested storage cannot hold the grid.
    TooLarge(String),
    /// Reading or writing a file failed; the message names the file.
    Io(String),
    /// An output format cannot represent this grid.
    Format(String),
}

impl fmt::Display for VoxelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VoxelError::Mesh(m) => write!(f, "mesh: {m}"),
            VoxelError::Grid(m) => write!(f, "grid: {m}"),
            VoxelError::TooLarge(m) => write!(f, "too large: {m}"),
            VoxelError::Io(m) => write!(f, "i/o: {m}"),
            VoxelError::Format(m) => write!(f, "format: {m}"),
        }
    }
}

impl std::error::Error for VoxelError {}

/// What to voxelize.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Conservative surface: every voxel the surface touches.
    #[default]
    Surface,
    /// Thin, 6-separating surface (a subset of `Surface`).
    Thin,
    /// Surface plus interior (dense grids only).
    Solid,
}

/// Storage choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Storage {
    /// Dense up to [`DENSE_AUTO_LIMIT`] voxels, sparse above; solid mode (dense
    /// only) stays dense up to [`DENSE_MAX`] ([`dense_storage`]).
    #[default]
    Auto,
    /// Dense bits (error above [`DENSE_MAX`]).
    Dense,
    /// Sparse 8³ bricks.
    Sparse,
}

/// A progress callback: `(slabs done, slabs total)`.
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// Options of [`voxelize`].
#[derive(Clone, Copy, Default)]
pub struct Options<'a> {
    /// Surface, thin or solid.
    pub mode: Mode,
    /// Dense or sparse storage.
    pub storage: Storage,
    /// Called after each slab (not on the hot path).
    pub progress: Option<Progress<'a>>,
    /// Skip the f64 pre-cull and test every voxel of each triangle's bounding
    /// range with the kernel (slower; the reference path the tests compare with).
    pub no_precull: bool,
}

/// The result of [`voxelize`]: the grid and the set of marked voxels.
#[derive(Clone, Debug, PartialEq)]
pub struct Voxels {
    /// The grid voxel indices refer to.
    pub grid: Grid,
    /// The marked voxels.
    pub set: VoxelSet,
}

/// A triangle as stored in its slab's list: the nine vertex coordinates
/// (f32 bits) and its voxel ranges `(first, last)` along x, y, z, one axis
/// per word as two `u16` (voxel indices are below [`MAX_RES`] = 2¹⁶). A
/// plain `u32` array, so a fresh `vec!` of them is zero pages from the
/// kernel. (Triangles that miss the grid get no record.)
type SlabTri = [u32; 12];

fn slab_tri(tri: &Triangle, r: Ranges) -> SlabTri {
    let p = [tri.a, tri.b, tri.c];
    let mut o = [0u32; 12];
    for (v, q) in p.iter().enumerate() {
        o[3 * v] = q.x.to_bits();
        o[3 * v + 1] = q.y.to_bits();
        o[3 * v + 2] = q.z.to_bits();
    }
    for (a, &(first, last)) in r.iter().enumerate() {
        o[9 + a] = first | last << 16;
    }
    o
}

fn unpack_slab_tri(o: &SlabTri) -> (Triangle, Ranges) {
    let v = |q: usize| {
        Vec3::new(f32::from_bits(o[q]), f32::from_bits(o[q + 1]), f32::from_bits(o[q + 2]))
    };
    let r = [0, 1, 2].map(|a| (o[9 + a] & 0xffff, o[9 + a] >> 16));
    (Triangle::new(v(0), v(3), v(6)), r)
}

/// Triangles binned by slab of `layers` z layers, in one pass over the mesh.
///
/// Chunk `c` of [`BIN_CHUNK`] consecutive triangles writes one 48-byte record
/// (coordinates and voxel ranges, computed once) per triangle that meets the
/// grid into its own part of `recs`, in mesh order, and lists for every slab
/// the indices of its records that reach that slab ([`BinPart`]). Slab `s`
/// reads, chunk by chunk, its records in increasing order: it never fetches a
/// vertex by index, and the result does not depend on the thread count (the
/// voxels do not depend on the order at all: hits are ORed).
///
/// Why one pass. The mesh is read once, in mesh order, where consecutive
/// fetches are independent and overlap ([`gathered16`]), and each record is
/// written once, where the slab pass reads it. (Before: a ranges pass and a
/// fill pass each fetched every triangle, with a 12-byte ranges array between
/// them, and the fill copied each record into per-slab order; simd-notes.md,
/// "Voxelizer".) Fresh memory costs on first touch (the kernel zeroes each
/// page), so `recs` is one buffer of one record per triangle on huge pages
/// ([`crate::mem::HugeBuf`]), kept for the thread's next call.
struct Bins {
    recs: crate::mem::HugeBuf<SlabTri>,
    parts: Vec<BinPart>,
}

/// One chunk's part of [`Bins`].
struct BinPart {
    /// index of the chunk's first record in `recs`
    base: usize,
    /// `idx[at[s]..at[s + 1]]`: the chunk's records (relative to `base`, in
    /// increasing order) of the triangles that reach slab `s`
    at: Vec<u32>,
    idx: Vec<u16>,
}

/// How many records ahead a slab task (`run_slab`) prefetches: a slab reads a
/// sparse subset of the records (those reaching it, in mesh order), which the
/// hardware prefetcher does not follow; the first load of each record was
/// 39 % of the slab loop's own time (bunny 512³, one thread). Measured: 8
/// and 16 ahead the same, both lines of a 48-byte record better than one.
const AHEAD: usize = 16;

/// Triangles per binning chunk (record indices fit a `u16`).
const BIN_CHUNK: usize = 1 << 13;

/// Most bytes of records [`voxelize`] keeps per calling thread between
/// calls: 1.4 M triangles (dragon_sub4, 810k triangles, keeps 39 MB).
const KEEP_RECORDS_MAX: usize = 64 << 20;

std::thread_local! {
    /// The record buffer of this thread's last [`voxelize`] call. Fresh
    /// memory is zeroed by the kernel on first touch: at dragon_sub4 512³ a
    /// fresh 39 MB buffer per call cost ~10 % of a warm call's CPU time in
    /// page faults (simd-notes.md, "Voxelizer").
    static KEPT_RECORDS: core::cell::Cell<crate::mem::HugeBuf<SlabTri>> = core::cell::Cell::new(crate::mem::HugeBuf::default());

    /// A binning chunk's list of (record, first slab, last slab), kept by
    /// each worker thread for its next chunk: a fresh 96 KiB list per chunk
    /// faulted in 4 KiB pages on every first call.
    static KEPT_SPANS: core::cell::Cell<Vec<(u16, u32, u32)>> = const { core::cell::Cell::new(Vec::new()) };
}

impl Bins {
    /// Keeps the record buffer for this thread's next call (when at most
    /// [`KEEP_RECORDS_MAX`] bytes).
    fn keep(self) {
        if std::mem::size_of_val(&*self.recs) <= KEEP_RECORDS_MAX {
            KEPT_RECORDS.set(self.recs);
        }
    }
}

impl Bins {
    /// How many records slab `s` has (its share of the work).
    fn slab_records(&self, s: usize) -> u32 {
        self.parts.iter().map(|p| p.at[s + 1] - p.at[s]).sum()
    }
}

/// Calls `f(i, block, n, bad)` for the triangles `first + i..first + count`
/// in blocks of 16 (`n` valid, the rest of a short last block stale),
/// fetching each block into a local buffer first: the fetch loop has no other
/// work, so its scattered loads overlap. (Measured on blocks of 32: −6 % CPU
/// per call on dragon_sub4 512³; blocks of 16 or 64 did the same.) Bit `l`
/// of `bad` marks a triangle with a vertex index out of range (its lane holds
/// a default triangle).
#[inline(always)]
fn gathered16(
    mesh: MeshRef<'_>,
    first: usize,
    count: usize,
    mut f: impl FnMut(usize, &[Triangle; 16], usize, u32),
) {
    let (v, nv) = (mesh.vertices, mesh.vertices.len());
    let mut buf = [Triangle::default(); 16];
    let mut i = 0;
    while i < count {
        let n = 16.min(count - i);
        let mut bad = 0;
        for (k, b) in buf[..n].iter_mut().enumerate() {
            let [p, q, r] = mesh.indices[first + i + k].map(|x| x as usize);
            bad |= ((p.max(q).max(r) >= nv) as u32) << k;
            // (the vertices written in place, one at a time: a whole
            // `Triangle` built aside and copied in was read back by a
            // 16-byte load spanning three of its stores, which stalls
            // store forwarding; 23 % of the binning loop's samples)
            b.a = v.get(p).copied().unwrap_or_default();
            b.b = v.get(q).copied().unwrap_or_default();
            b.c = v.get(r).copied().unwrap_or_default();
        }
        f(i, &buf, n, bad);
        i += n;
    }
}

/// `None` when a triangle references a vertex out of range or a non-finite
/// one: the one pass over the mesh is also its validation (the error message
/// is then [`MeshRef::validate`]'s).
///
/// Only the triangles whose voxel ranges meet the window `lo..hi` (voxel
/// indices, `hi` exclusive; the whole grid for [`voxelize`]) get a record,
/// and slab `s` is the window's z layers `lo.z + s·layers ..`.
fn bin_by_slab(
    mesh: MeshRef<'_>,
    t: &Tables,
    (lo, hi): ([u32; 3], [u32; 3]),
    layers: u32,
    nslabs: usize,
    isa: Isa,
) -> Option<Bins> {
    let n = mesh.triangle_count();
    let mut recs = KEPT_RECORDS.take();
    if recs.len() < n {
        // (fresh zero pages on 2 MiB boundaries, advised before the
        // parallel first touch: bunny's 3.3 MB of records had faulted ~800
        // times in 4 KiB pages; every slot read later is written first, so
        // a kept buffer is reused as is)
        recs = crate::mem::HugeBuf::zeroed(n);
    }
    // the slab of each z layer (a table: two integer divisions per record
    // showed in profiles)
    let slab_of: Vec<u32> = (0..hi[2] - lo[2]).map(|k| k / layers).collect();
    let slabs_of = |rec: &SlabTri| {
        // (the range along axis `a` is `rec[9 + a] & 0xffff ..= rec[9 + a] >> 16`)
        let r = |a: usize| (rec[9 + a] & 0xffff, rec[9 + a] >> 16);
        if (0..3).any(|a| r(a).1 < lo[a] || r(a).0 >= hi[a]) {
            return None;
        }
        let (z0, z1) = r(2);
        Some((
            slab_of[(z0.max(lo[2]) - lo[2]) as usize],
            slab_of[(z1.min(hi[2] - 1) - lo[2]) as usize],
        ))
    };
    let parts = recs[..n]
        .par_chunks_mut(BIN_CHUNK)
        .enumerate()
        .map(|(c, out)| {
            // records in mesh order, straight into the chunk's part of
            // `recs`; each one's slabs, and per-slab counts (shifted by one
            // for the prefix)
            let mut spans = KEPT_SPANS.take();
            spans.clear();
            spans.reserve(out.len());
            let mut at = vec![0u32; nslabs + 1];
            let mut valid = true;
            gathered16(mesh, c * BIN_CHUNK, out.len(), |i, tris, n, bad| {
                let ranges = tri_ranges16_on(isa, tris, t);
                let lanes = (1u32 << n) - 1;
                valid &= (bad | !ranges.finite()) & lanes == 0;
                for (l, tri) in tris.iter().enumerate().take(n) {
                    let Some(r) = ranges.get(l, tri, t) else { continue };
                    let rec = slab_tri(tri, r);
                    let Some((s0, s1)) = slabs_of(&rec) else { continue };
                    for a in &mut at[s0 as usize + 1..=s1 as usize + 1] {
                        *a += 1;
                    }
                    out[i + l] = rec;
                    spans.push(((i + l) as u16, s0, s1));
                }
            });
            for s in 0..nslabs {
                at[s + 1] += at[s];
            }
            let mut fill = at.clone();
            let mut idx = vec![0u16; at[nslabs] as usize];
            for &(i, s0, s1) in &spans {
                for f in &mut fill[s0 as usize..=s1 as usize] {
                    idx[*f as usize] = i;
                    *f += 1;
                }
            }
            KEPT_SPANS.set(spans);
            valid.then_some(BinPart { base: c * BIN_CHUNK, at, idx })
        })
        .collect::<Option<_>>()?;
    Some(Bins { recs, parts })
}

/// Runs slab `s`'s triangles (`bins`) over z layers `k0..=k1` into `sink`,
/// on the instruction-set path `isa` (one dispatch per slab task).
#[allow(clippy::too_many_arguments)]
fn run_slab<S: Sink>(
    bins: &Bins,
    s: usize,
    t: &Tables,
    (k0, k1): (u32, u32),
    thin: bool,
    plain: bool,
    isa: Isa,
    sink: &mut S,
) {
    struct Task<'a, S> {
        bins: &'a Bins,
        s: usize,
        t: &'a Tables,
        k: (u32, u32),
        thin: bool,
        plain: bool,
        sink: &'a mut S,
    }
    impl<S: Sink> SimdFn for Task<'_, S> {
        type Out = ();
        #[inline(always)]
        fn call<P: Simd>(self) {
            let Task { bins, s, t, k: (k0, k1), thin, plain, sink } = self;
            let mut pack = VoxPack::<P>::new(t, thin);
            let mut batch = Batch::<P>::new(t, thin);
            let mut tiles = TileQueue::<P>::new(t);
            // (slab `s`'s records, chunk by chunk, in increasing order; a
            // loop, not a callback, so that it compiles inside the
            // dispatched entry)
            for part in &bins.parts {
                let recs = &bins.recs[part.base..];
                let idx = &part.idx[part.at[s] as usize..part.at[s + 1] as usize];
                for (n, &i) in idx.iter().enumerate() {
                    if let Some(&a) = idx.get(n + AHEAD) {
                        crate::mem::prefetch(&recs[a as usize][0]);
                        crate::mem::prefetch(&recs[a as usize][11]);
                    }
                    let (tri, r) = unpack_slab_tri(&recs[i as usize]);
                    if plain {
                        triangle_rows_plain::<P, S>(&tri, t, k0, k1, thin, sink)
                    } else {
                        triangle_rows(&tri, t, r, k0, k1, &mut pack, &mut batch, &mut tiles, sink)
                    }
                }
            }
            tiles.flush(&mut pack, sink);
            batch.flush(sink);
        }
    }
    simd::dispatch(isa, Task { bins, s, t, k: (k0, k1), thin, plain, sink });
}

/// The error for a mesh the binning pass found invalid: what
/// [`MeshRef::validate`] says about it.
fn invalid_mesh(mesh: MeshRef<'_>) -> VoxelError {
    mesh.validate("mesh").err().unwrap_or_else(|| VoxelError::Mesh("mesh: invalid".into()))
}

/// Dense bits of the window `lo..hi` of `t`'s grid (voxel indices, `hi`
/// exclusive): the whole grid for [`voxelize`], a tile for
/// [`voxelize_window`]. The voxels are those of the whole grid inside the
/// window: a triangle takes the path its whole ranges choose, and the
/// window only drops the voxels outside it (as a slab drops the layers
/// outside it).
#[allow(clippy::too_many_arguments)]
fn dense_window(
    mesh: MeshRef<'_>,
    t: &Tables,
    (lo, hi): ([u32; 3], [u32; 3]),
    thin: bool,
    plain: bool,
    isa: Isa,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<DenseBits, VoxelError> {
    let dims = [0, 1, 2].map(|a| hi[a] - lo[a]);
    let [nx, ny, nz] = dims;
    // Slabs of z layers, ten per thread (at least 16): with the slabs
    // handed out largest first (below) that balances the threads, and
    // the slabs stay thick enough that few triangles straddle two and
    // pay their setup twice (bunny 512³: 20 slabs run 5 % faster than
    // 32 on 2 threads; simd-notes.md, "Voxelizer"). The voxels do not
    // depend on the slab layout (hits are ORed, and a straddling
    // triangle takes the same path in each slab), so neither do they
    // on the thread count.
    let per_thread = 10 * rayon::current_num_threads().max(1) as u32;
    let layers = nz.div_ceil(per_thread.max(16)).max(1);
    let nslabs = nz.div_ceil(layers) as usize;
    let bins =
        bin_by_slab(mesh, t, (lo, hi), layers, nslabs, isa).ok_or_else(|| invalid_mesh(mesh))?;
    // Slabs are handed out one at a time, most records first (longest
    // processing time first): a mesh's slabs differ several times over
    // in work (bunny 512³: 0.1–1.0 ms, and the 7 slabs above the mesh
    // none), and rayon's halving split of the slab range had left one
    // thread idle for the last ~30 % of the pass.
    let (wpr, rows) = (DenseBits::row_words(nx), ny as usize);
    let work = |s: usize| bins.slab_records(s) as u64;
    // (the whole grid needs no clipping: its sink is the plain slab)
    let whole = lo == [0; 3] && hi == t.dims;
    let bits = DenseBits::build_by_slabs(dims, layers, work, |s, words| {
        let k0 = lo[2] + s as u32 * layers;
        let k1 = (k0 + layers).min(hi[2]) - 1;
        let slab = DenseSlab { words, k0, ny: rows, wpr };
        if whole {
            run_slab(&bins, s, t, (k0, k1), thin, plain, isa, &mut { slab });
        } else {
            let mut sink = WindowSlab { slab, lo: [lo[0], lo[1]], hi: [hi[0], hi[1]] };
            run_slab(&bins, s, t, (k0, k1), thin, plain, isa, &mut sink);
        }
        tick(nslabs as u64);
    })
    .ok_or_else(|| {
        let n = dims.iter().map(|&d| d as u64).product::<u64>();
        VoxelError::TooLarge(format!(
            "dense grid {nx}×{ny}×{nz} = {n} voxels exceeds {DENSE_MAX}; use sparse storage"
        ))
    })?;
    bins.keep();
    Ok(bits)
}

/// The voxels of `grid` inside the window `lo..hi` (voxel indices, `hi`
/// exclusive, inside the grid), as dense bits of the window's dimensions:
/// exactly those [`voxelize`] marks on the whole grid there, in surface or
/// thin mode (solid mode needs whole axis lines). Work is spent on the
/// triangles whose ranges meet the window only.
pub(crate) fn voxelize_window(
    mesh: MeshRef<'_>,
    grid: &Grid,
    (lo, hi): ([u32; 3], [u32; 3]),
    mode: Mode,
) -> Result<DenseBits, VoxelError> {
    debug_assert!(mode != Mode::Solid && (0..3).all(|a| lo[a] < hi[a] && hi[a] <= grid.dims[a]));
    if mesh.indices.is_empty() {
        mesh.validate("mesh")?;
    }
    let t = Tables::new(grid);
    dense_window(mesh, &t, (lo, hi), mode == Mode::Thin, false, simd::current(), &|_| ())
}

/// Whether [`voxelize`] stores `dims` densely for `storage` and `mode`:
/// [`Storage::Auto`] is dense up to [`DENSE_AUTO_LIMIT`] voxels, and for
/// [`Mode::Solid`] (which needs dense bits) up to [`DENSE_MAX`]. Errors when
/// the request cannot be met: dense above [`DENSE_MAX`], or solid mode with
/// sparse storage or above [`DENSE_MAX`] voxels.
pub fn dense_storage(storage: Storage, mode: Mode, dims: [u32; 3]) -> Result<bool, VoxelError> {
    let n: u64 = dims.iter().map(|&d| d as u64).product();
    let [nx, ny, nz] = dims;
    let too_large = |what: &str| {
        VoxelError::TooLarge(format!(
            "{what}; {nx}×{ny}×{nz} = {n} voxels is above the dense limit {DENSE_MAX}"
        ))
    };
    match (storage, mode) {
        (Storage::Sparse, Mode::Solid) => Err(VoxelError::TooLarge(
            "solid mode needs dense storage, but sparse storage was requested".into(),
        )),
        (Storage::Sparse, _) => Ok(false),
        (_, Mode::Solid) if n > DENSE_MAX => Err(too_large("solid mode needs dense storage")),
        (Storage::Dense, _) if n > DENSE_MAX => {
            Err(too_large("dense storage requested (use sparse storage)"))
        }
        (Storage::Dense, _) | (Storage::Auto, Mode::Solid) => Ok(true),
        (Storage::Auto, _) => Ok(n <= DENSE_AUTO_LIMIT),
    }
}

/// Voxelizes `mesh` on `grid`.
///
/// The mesh is validated ([`MeshRef::validate`]'s rules and errors; checked
/// by the binning pass, which reads every triangle anyway). Errors when the
/// requested storage cannot hold the grid (dense above [`DENSE_MAX`], solid on
/// a sparse grid).
///
/// Memory: besides the result, a call uses 48 bytes per triangle of records
/// (the triangles binned by slab), which it keeps per calling thread for the
/// next call when they take at most 64 MiB (1.4 M triangles), so repeated
/// calls do not fault fresh memory in again.
pub fn voxelize(mesh: MeshRef<'_>, grid: &Grid, opts: &Options<'_>) -> Result<Voxels, VoxelError> {
    if mesh.indices.is_empty() {
        mesh.validate("mesh")?;
    }
    let dense = dense_storage(opts.storage, opts.mode, grid.dims)?;
    let t = Tables::new(grid);
    let thin = opts.mode == Mode::Thin;
    // (read on the calling thread: a `simd::with_isa` override covers the
    // rayon tasks below)
    let isa = simd::current();
    let nz = grid.dims[2];
    let done = AtomicU64::new(0);
    let tick = |total: u64| {
        if let Some(p) = opts.progress {
            p(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        }
    };
    let set = if dense {
        let whole = ([0; 3], grid.dims);
        let mut bits = dense_window(mesh, &t, whole, thin, opts.no_precull, isa, &tick)?;
        if opts.mode == Mode::Solid {
            // (in place: the interior pass needs no grid of its own)
            solid::add_interior(mesh, grid, &mut bits);
        }
        VoxelSet::Dense(bits)
    } else {
        let nb = grid.dims.map(|d| d.div_ceil(BRICK) as u64);
        let nslabs = nb[2] as usize;
        let bins = bin_by_slab(mesh, &t, ([0; 3], grid.dims), BRICK, nslabs, isa)
            .ok_or_else(|| invalid_mesh(mesh))?;
        let parts: Vec<Vec<(u64, [u64; 8])>> = (0..nslabs)
            .into_par_iter()
            .map(|s| {
                let k0 = s as u32 * BRICK;
                let k1 = (k0 + BRICK).min(nz) - 1;
                let mut sink = SparseSlab::new(nb);
                run_slab(&bins, s, &t, (k0, k1), thin, opts.no_precull, isa, &mut sink);
                let v = sink.into_sorted();
                tick(nslabs as u64);
                v
            })
            .collect();
        bins.keep();
        VoxelSet::Sparse(SparseBricks { dims: grid.dims, bricks: parts.concat() })
    };
    Ok(Voxels { grid: *grid, set })
}

/// `(voxel, triangle indices)` pairs, see [`triangle_lists`].
pub type TriangleLists = Vec<([u32; 3], Vec<u32>)>;

/// Per-voxel lists of the triangles touching each voxel (conservative test).
///
/// Returns `(voxel, triangles)` pairs sorted by voxel `(k, j, i)`; each list is
/// sorted by triangle index. Same voxels as [`Mode::Surface`].
pub fn triangle_lists(mesh: MeshRef<'_>, grid: &Grid) -> Result<TriangleLists, VoxelError> {
    mesh.validate("mesh")?;
    struct ListSink {
        cur: u32,
        out: Vec<([u32; 3], u32)>,
    }
    impl Sink for ListSink {
        fn or_row(&mut self, i0: u32, j: u32, k: u32, bits: u32) {
            let mut b = bits;
            while b != 0 {
                let l = b.trailing_zeros();
                b &= b - 1;
                self.out.push(([i0 + l, j, k], self.cur));
            }
        }
    }
    let t = Tables::new(grid);
    let nz = grid.dims[2];
    let mut pairs: Vec<([u32; 3], u32)> = (0..mesh.triangle_count())
        .into_par_iter()
        .fold(
            // (the tile queue, ~6 KB, is reused: it is empty after each
            // flush; boxed, so the fold moves a pointer)
            || (ListSink { cur: 0, out: Vec::new() }, Box::new(TileQueue::<Baseline>::new(&t))),
            |(mut s, mut q), i| {
                s.cur = i as u32;
                // each triangle flushes its own pack: hits are attributed to `cur`
                let mut p = VoxPack::<Baseline>::new(&t, false);
                let mut b = Batch::<Baseline>::new(&t, false);
                let tri = mesh.triangle(i);
                if let Some(r) = tri_ranges(&tri, &t) {
                    triangle_rows(&tri, &t, r, 0, nz - 1, &mut p, &mut b, &mut q, &mut s);
                }
                q.flush(&mut p, &mut s);
                b.flush(&mut s);
                (s, q)
            },
        )
        .map(|(s, _)| s.out)
        .flatten_iter()
        .collect();
    pairs.par_sort_unstable_by_key(|(v, tri)| (v[2], v[1], v[0], *tri));
    let mut out: Vec<([u32; 3], Vec<u32>)> = Vec::new();
    for (v, tri) in pairs {
        match out.last_mut() {
            Some((lv, l)) if *lv == v => l.push(tri),
            _ => out.push((v, vec![tri])),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Auto storage: dense up to the auto limit, sparse above it, except
    /// solid mode, which stays dense up to `DENSE_MAX` (a 2048×1024×1024
    /// solid grid used to be refused as "above the dense limit").
    #[test]
    fn storage_decision() {
        use Mode::*;
        use Storage::*;
        let at_auto = [1024, 1024, 1024];
        let above_auto = [2048, 1024, 1024];
        let at_max = [2048, 2048, 2048];
        let above_max = [2048, 2048, 2049];
        assert_eq!(dense_storage(Auto, Surface, at_auto), Ok(true));
        assert_eq!(dense_storage(Auto, Thin, above_auto), Ok(false));
        assert_eq!(dense_storage(Auto, Solid, above_auto), Ok(true));
        assert_eq!(dense_storage(Auto, Solid, at_max), Ok(true));
        assert_eq!(dense_storage(Dense, Surface, at_max), Ok(true));
        assert_eq!(dense_storage(Sparse, Surface, [1, 1, 1]), Ok(false));
        let msg = |r: Result<bool, VoxelError>| r.unwrap_err().to_string();
        let e = msg(dense_storage(Auto, Solid, above_max));
        assert!(e.contains("solid") && e.contains("2048×2048×2049") && e.contains("above"), "{e}");
        let e = msg(dense_storage(Dense, Surface, above_max));
        assert!(e.contains("above the dense limit"), "{e}");
        let e = msg(dense_storage(Sparse, Solid, [8, 8, 8]));
        assert!(e.contains("sparse storage was requested") && !e.contains("above"), "{e}");
    }

    /// The slab records give back each triangle's coordinates bit for bit
    /// and its ranges at the extremes of the `u16` packing (indices up to
    /// `MAX_RES - 1`).
    #[test]
    fn slab_records_round_trip() {
        let tri = Triangle::new(
            Vec3::new(-0.0, f32::MIN_POSITIVE, 1.0e-45),
            Vec3::new(f32::MAX, -f32::MAX, 3.25),
            Vec3::new(0.1, -7.5e-39, 65535.0),
        );
        let m = MAX_RES - 1;
        for r in [[(0, m), (m, m), (0, 0)], [(5, 7), (0, 1), (m - 1, m)]] {
            let rec = slab_tri(&tri, r);
            let (t2, r2) = unpack_slab_tri(&rec);
            assert_eq!(r2, r);
            for (p, q) in [(tri.a, t2.a), (tri.b, t2.b), (tri.c, t2.c)] {
                assert_eq!(p.to_array().map(f32::to_bits), q.to_array().map(f32::to_bits));
            }
        }
    }
}
