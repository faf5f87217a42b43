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
use super::storage::{Runs, Sink};
use crate::lane::{F64Lanes, LaneMask};
use crate::math::V3;
use crate::overlap::triangle_aabb_conservative;
use crate::shapes::{Aabb, Triangle};
use crate::simd::unroll::{from3, map3};
use crate::simd::vox::{VoxF32, VoxF64, VoxI32};
use crate::simd::Simd;
use crate::{Lane, Vec3};

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

/// The voxel ranges of `tri`'s bounding box ([`Tables::range`] per axis), or
/// `None` when it misses the grid: first by [`fast_ranges`] (all six bounds
/// in one `f64x8` pass, no table reads), else by the exact table walks.
/// Binning computes them once per triangle, 16 triangles at a time
/// ([`tri_ranges16`], which falls back to this for the lanes it cannot
/// prove).
#[inline]
pub(crate) fn tri_ranges(tri: &Triangle, t: &Tables) -> Option<Ranges> {
    let (lo, hi) = tri_bounds(tri);
    // (the rare fallback of the dispatched binning and `triangle_lists`:
    // `wide`'s build-time lanes)
    if let Some(r) = fast_ranges::<wide::f64x8>(t, lo, hi) {
        return r;
    }
    Some([t.range(0, lo.x, hi.x)?, t.range(1, lo.y, hi.y)?, t.range(2, lo.z, hi.z)?])
}

/// [`Tables::range`] of the three axes at once when every bound is provably
/// far from a grid plane; `None` (use the walks) otherwise.
///
/// Why the answer is the walks' answer (`o` is the grid's base and `n` counts
/// from its offset, added exactly after the floor). Let `P_n = o + n·h` (exact) and
/// `lo[n] = RD32(P_n)`, `hi[n] = RU32(P_n)` (the tables, nondecreasing in
/// `n`). For an f32 bound `x` with `P_m < x < P_{m+1}` and both gaps
/// `x - P_m`, `P_{m+1} - x` at least `g = 2⁻²³·|x| + 2⁻¹⁴⁹` (≥ the distance
/// from `x` to its f32 neighbours): `hi[m] ≤ pred(x) < x ≤ hi[m+1]` and
/// `lo[m] ≤ x < succ(x) ≤ lo[m+1]`. So the first `i` with `hi[i+1] >= x` is
/// `m` and the last `i` with `lo[i] <= x` is `m` (both then clamped to the
/// grid: `a = max(m, 0)`, none when `m >= d`; `b = min(m, d - 1)`, none when
/// `m < 0`). With `F = (x - o)/h` this needs `F - m ≥ g/h` and `m + 1 - F ≥
/// g/h`. The f64 estimate `f = (x - o)·(1/h)` has `|f - F| ≤ 3.01·2⁻⁵³·|F|`
/// (three roundings), `f - floor(f)` is exact and `1 - frac` rounds by at
/// most 2⁻⁵³, so testing both gaps against `δ = (2⁻²²·|x| + 2⁻¹⁴⁰)·(1/h) +
/// 2⁻⁵⁰·(|f| + 2)` (twice `g/h`, plus the estimate's error, plus the
/// rounding of `δ` itself) is sufficient. `|f| ≥ 2⁵²` gives `frac = 0` and
/// fails the test, so `m` fits an `i64`.
#[inline(always)]
fn fast_ranges<D: VoxF64>(t: &Tables, lo: Vec3, hi: Vec3) -> Option<Option<Ranges>> {
    let x = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, 0.0, 0.0];
    let x = D::from_array([
        x[0] as f64,
        x[1] as f64,
        x[2] as f64,
        x[3] as f64,
        x[4] as f64,
        x[5] as f64,
        0.0,
        0.0,
    ]);
    let o = t.o64;
    let inv_h = D::splat(t.inv_h);
    let f = (x - D::from_array([o[0], o[1], o[2], o[0], o[1], o[2], 0.0, 0.0])) * inv_h;
    let m = f.floor();
    let frac = f - m;
    let m = m + D::splat(t.grid.offset as f64);
    let two = D::splat(2.0);
    let delta = (x.abs() * D::splat(TWO_M22) + D::splat(TWO_M140)) * inv_h
        + (f.abs() + two) * D::splat(TWO_M50);
    let ok = frac.ge(delta) & (D::splat(1.0) - frac).ge(delta);
    if D::bits(ok) & 0x3f != 0x3f {
        return None;
    }
    // misses the grid: a lower bound at or past the last voxel, or an upper
    // bound before the first (lanes 6, 7 ignored)
    let d = t.dims.map(|v| v as f64);
    let dv = D::from_array([d[0], d[1], d[2], d[0], d[1], d[2], 1.0, 1.0]);
    let zero = D::splat(0.0);
    if (D::bits(m.ge(dv)) & 0b111) | (D::bits(m.lt(zero)) & 0b111000) != 0 {
        return Some(None);
    }
    // then `max(m, 0)` of a lower and `min(m, d - 1)` of an upper bound are
    // both `m` clamped to `[0, d - 1]`: integers below 2³², read from the low
    // bits of `m + 2⁵²` (exact), without saturating float-to-int casts
    let c = m.max_num(zero).min_num(dv - D::splat(1.0)) + D::splat(TWO_52);
    let c = c.to_array().map(|v| v.to_bits() as u32);
    let r = [(c[0], c[3]), (c[1], c[4]), (c[2], c[5])];
    // (never true: the bounds are ordered and the rounding is monotone)
    if r.iter().any(|&(a, b)| a > b) {
        return Some(None);
    }
    Some(Some(r))
}

/// [`tri_ranges`] of 16 triangles at once ([`Ranges16::get`]), on the
/// lanes of the path `S`.
#[inline(always)]
pub(crate) fn tri_ranges16<S: Simd>(tris: &[Triangle; 16], t: &Tables) -> Ranges16 {
    fast_ranges16::<S::F16>(tris, t)
}

/// [`tri_ranges16`] on the path `isa`.
pub(crate) fn tri_ranges16_on(
    isa: crate::simd::Isa,
    tris: &[Triangle; 16],
    t: &Tables,
) -> Ranges16 {
    struct Task<'a>(&'a [Triangle; 16], &'a Tables);
    impl crate::simd::SimdFn for Task<'_> {
        type Out = Ranges16;
        #[inline(always)]
        fn call<S: Simd>(self) -> Ranges16 {
            tri_ranges16::<S>(self.0, self.1)
        }
    }
    crate::simd::dispatch(isa, Task(tris, t))
}

/// The voxel ranges of 16 triangles: lanes [`fast_ranges16`] proved, and
/// their indices (`idx[axis][0 = first, 1 = last][lane]`).
pub(crate) struct Ranges16 {
    fast: u32,
    miss: u32,
    finite: u32,
    idx: [[[i32; 16]; 2]; 3],
}

impl Ranges16 {
    /// Bit `l`: lane `l`'s nine coordinates are finite.
    #[inline(always)]
    pub fn finite(&self) -> u32 {
        self.finite
    }

    /// [`tri_ranges`] of lane `l`'s triangle `tri`: the proved answer, or
    /// the scalar path for the lanes the proof does not cover.
    #[inline(always)]
    pub fn get(&self, l: usize, tri: &Triangle, t: &Tables) -> Option<Ranges> {
        if self.fast >> l & 1 == 0 {
            return tri_ranges(tri, t);
        }
        if self.miss >> l & 1 != 0 {
            return None;
        }
        Some([0, 1, 2].map(|a| (self.idx[a][0][l] as u32, self.idx[a][1][l] as u32)))
    }
}

/// The six bounds of 16 triangles in `f32x16` lanes (one triangle per lane):
/// bit `l` of the mask says lane `l`'s ranges are proved (its entry is then
/// the answer of the table walks, `None` when it misses the grid).
///
/// The argument of [`fast_ranges`], in f32. `F = (x - o)/h` (exact reals,
/// `o`, `h` the grid's f32 base and voxel, the offset added after the floor);
/// `f = fl(fl(x - o)·fl(1/h))` has
/// `|f - F| ≤ 3.01·2⁻²⁴·|F|` plus, when `x - o` is subnormal, an absolute
/// `2⁻¹⁵⁰/h`; `|F| ≤ |f|·(1 + 2⁻²¹)`. `m = floor(f)` and `frac = f - m` are
/// exact (`|f| < 2²³`: otherwise `frac = 0` and the lane fails), `1 - frac`
/// rounds by at most 2⁻²⁴. The walks' answer is `m` when both gaps `F - m`
/// and `m + 1 - F` are at least `g/h`, `g = 2⁻²³·|x| + 2⁻¹⁴⁹`; testing
/// `frac` and `1 - frac` against `δ = (2⁻²²·|x| + 2⁻¹⁴⁰)·fl(1/h) + 2⁻²¹·(|f| +
/// 2)` suffices: the first term is at least `g/h` with room for its own
/// roundings (factor 2), the second at least the estimate's error plus the
/// rounding of `1 - frac` (2⁻²⁰ ≥ 2⁻²⁴) and of `δ`. NaN or infinite values
/// fail the comparisons, so such lanes fall back. At 512³ `δ` is ~3·10⁻⁴
/// voxel: about 0.4 % of the triangles fall back.
#[inline(always)]
fn fast_ranges16<F: VoxF32>(tris: &[Triangle; 16], t: &Tables) -> Ranges16 {
    // (lane-major copies: `p[a][v][l]` = coordinate `a` of vertex `v` of
    // triangle `l`)
    let mut p = [[[0f32; 16]; 3]; 3];
    for (l, tri) in tris.iter().enumerate() {
        for (v, q) in [tri.a, tri.b, tri.c].iter().enumerate() {
            p[0][v][l] = q.x;
            p[1][v][l] = q.y;
            p[2][v][l] = q.z;
        }
    }
    let p: [[F; 3]; 3] = from3!(|a| from3!(|v| F::load(&p[a][v])));
    let inf = F::splat(f32::INFINITY);
    let mut finite = u32::MAX;
    for c in p.iter().flatten() {
        finite &= c.abs().lt(inf).bits() as u32;
    }
    let inv_h = F::splat(t.inv_h32);
    let (two_m22, two_m140, two_m21) = (
        F::splat(1.0 / (1u32 << 22) as f32),
        F::splat(f32::from_bits(1 << 9)), // 2⁻¹⁴⁰ (subnormal)
        F::splat(1.0 / (1u32 << 21) as f32),
    );
    let (zero, one, two) = (F::splat(0.0), F::splat(1.0), F::splat(2.0));
    let mut ok = u32::MAX;
    let mut miss = 0u32;
    let mut idx = [[[0i32; 16]; 2]; 3];
    for a in 0..3 {
        let [u, v, w] = p[a];
        let o = F::splat(t.grid.base.get(a));
        let d = F::splat(t.dims[a] as f32);
        // (`wide`'s NaN-ignoring min and max, as before dispatch)
        for (b, x) in [u.min_num(v).min_num(w), u.max_num(v).max_num(w)].into_iter().enumerate() {
            let f = (x - o) * inv_h;
            let m = f.floor();
            let frac = f - m;
            let m = m + F::splat(t.grid.offset as f32);
            let delta = (x.abs() * two_m22 + two_m140) * inv_h + (f.abs() + two) * two_m21;
            ok &= (frac.ge(delta) & (one - frac).ge(delta)).bits() as u32;
            // a lower bound at or past the last voxel, or an upper bound
            // before the first: the triangle misses the grid
            miss |= if b == 0 { m.ge(d) } else { m.lt(zero) }.bits() as u32;
            idx[a][b] = m.max_num(zero).min_num(d - one).round_int().to_array();
        }
    }
    // (a proved lane has `first <= last` on every axis: the bounds are
    // ordered and the rounding is monotone)
    Ranges16 { fast: ok & finite & 0xffff, miss, finite, idx }
}

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

/// The column walk of one triangle over the voxels `lo..=hi` (its range,
/// clipped to the slab): degenerate triangles test the whole range, the
/// others take [`Certain`]'s classification (see [`triangle_rows`]).
#[inline(always)]
fn triangle_columns<P: Simd, S: Sink>(
    tri: &Triangle,
    t: &Tables,
    lo: [u32; 3],
    hi: [u32; 3],
    pack: &mut VoxPack<'_, P>,
    sink: &mut S,
) {
    let g = &t.grid;
    let h = g.voxel as f64;
    let (o, off) = ([0, 1, 2].map(|a| g.base.get(a) as f64), g.offset as f64);
    let setup = TriSetup::new(tri_f64(tri), h, o);
    let TriSetup { p, e1, e2, n, n1, nabs1, scale } = setup;
    if !setup.ok(h) {
        // degenerate: every voxel of the bounding range is a candidate
        pack.start(tri);
        whole_range(lo, hi, pack, sink);
        return;
    }
    let w = if n[0].abs() >= n[1].abs() && n[0].abs() >= n[2].abs() {
        0
    } else if n[1].abs() >= n[2].abs() {
        1
    } else {
        2
    };
    pack.start(tri);
    let (u, v) = ((w + 1) % 3, (w + 2) % 3);
    // 2D edge functions in the (u, v) projection, oriented inward
    let area = e1[u] * e2[v] - e1[v] * e2[u];
    let sgn = if area >= 0.0 { 1.0 } else { -1.0 };
    let mut edges = [[0f64; 3]; 3]; // (nu, nv, c): inside when nu*x + nv*y + c >= 0
    for (ei, ed) in edges.iter_mut().enumerate() {
        let (a, b) = (p[ei], p[(ei + 1) % 3]);
        let nu = -(b[v] - a[v]) * sgn;
        let nv = (b[u] - a[u]) * sgn;
        // the square's critical corner (Schwarz & Seidel's edge offset) plus
        // the slack, folded into the constant term
        let crit = 0.5 * h * (nu.abs() + nv.abs());
        let slack = CULL_SLACK * (nu.abs() + nv.abs()) * scale;
        *ed = [nu, nv, -(nu * a[u] + nv * a[v]) + crit + slack];
    }
    let hh = 0.5 * h;
    let rm = hh * n1 + CULL_SLACK * nabs1 * scale;
    let cert = Certain::<P::D8>::new(&p, tri, g, &n, nabs1, w, scale);
    let d0 = n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2];
    let inv_nwh = 1.0 / (n[w] * h);
    let base_w = n[w] * (o[w] + hh) - d0;
    // Index slack of the span and interval solves: far above the rounding of
    // the division and of `(x - o)/h` (a few ulps of |t| and of scale/h).
    let sidx = 1e-6 + 1e-9 * scale / h;
    let (lu, hu) = (lo[u] as f64, hi[u] as f64);
    let (lw, hw) = (lo[w] as f64, hi[w] as f64);
    for cv in lo[v]..=hi[v] {
        let yv = g.centre_f64(v, cv as i64);
        // The row's span of columns (Schwarz & Seidel's per-row interval):
        // each dilated edge function nu·x + (nv·y + c) >= 0 is linear in the
        // column centre x, so the columns passing all three form an interval,
        // solved per edge and widened by the index slack (a superset of the
        // columns the per-column test keeps).
        let (mut ca, mut cb) = (lu, hu);
        for ed in &edges {
            let ev = ed[1] * yv + ed[2];
            if ed[0] == 0.0 {
                if ev < 0.0 {
                    ca = f64::INFINITY;
                }
                continue;
            }
            let t = (-ev / ed[0] - o[u]) / h - 0.5;
            let sl = sidx + 1e-6 * t.abs();
            if ed[0] > 0.0 {
                ca = ca.max((t - sl).ceil() + off);
            } else {
                cb = cb.min((t + sl).floor() + off);
            }
        }
        // (never NaN: f64::max/min drop a NaN bound)
        if ca > cb {
            continue;
        }
        let base_v = n[v] * yv + base_w;
        for cu in ca as u32..=cb as u32 {
            let xu = g.centre_f64(u, cu as i64);
            let Some(col_sure) = cert.column(xu, yv) else { continue };
            let cb8 = cert.column_base(xu, yv);
            // value(cw) = base + n_w·h·cw ; keep |value| <= rm
            let base = n[u] * xu + base_v;
            // (a reciprocal instead of a division: its rounding is far below
            // the index slack)
            let ta = (-rm - base) * inv_nwh;
            let tb = (rm - base) * inv_nwh;
            let (ta, tb) = if ta <= tb { (ta, tb) } else { (tb, ta) };
            let a = ((ta - (sidx + 1e-6 * ta.abs())).ceil() + off).max(lw);
            let b = ((tb + (sidx + 1e-6 * tb.abs())).floor() + off).min(hw);
            if a > b {
                continue;
            }
            for cw in a as u32..=b as u32 {
                let mut vx = [0u32; 3];
                vx[u] = cu;
                vx[v] = cv;
                vx[w] = cw;
                // Sure hit: all 13 SAT axes overlap by more than the f64 error
                // bound on the exact voxel box, so the triangle touches it
                // exactly and the conservative kernel necessarily answers
                // "touching": skip the call, same answer. Sure miss: one axis
                // separates the exact box by more than the bound, so the voxel
                // is not in the exact set (dropped like the pre-cull drops
                // voxels). Only undecided voxels (within ~1e-9 relative of
                // touching) go to the kernel, whose answer is final.
                match cert.voxel(cb8, cw, h) {
                    Some(true) if col_sure => pack.mark(vx, sink),
                    None => {}
                    _ => pack.push(vx, sink),
                }
            }
        }
    }
    pack.flush(sink);
}

/// Up to 16 voxels of one triangle, tested in one call of the 16-lane kernel
/// with the triangle broadcast (its per-triangle terms — edges, normal, the
/// conservative bound's `|f|` products — are loop-invariant across calls and
/// hoisted by the compiler).
///
/// The lanes hold `16 / W` runs ("rows") of `W` consecutive voxels along one
/// axis (`W` a power of two chosen per triangle to fit its runs, so a triangle
/// 2–3 voxels wide fills the lanes with 8 or 4 runs instead of leaving 13 of
/// 16 lanes idle). Lane `r·W + d` holds voxel `start_r + d·e_axis`; its box is
/// `[lo(start + d), hi(start + d + 1)]` from the plane tables, exactly the box
/// the plain path builds, so each voxel gets the kernel's answer for the same
/// inputs. Lanes past a run's length and unused runs get NaN boxes (the
/// kernel answers "no contact", and they count as decided for its early exits)
/// and are masked off anyway.
/// Relative margin of the certain-hit test: far above its f64 rounding error
/// (≤ 40u ≈ 4.4e-15 of the same magnitudes, see [`Certain`]).
const SURE_SLACK: f64 = 1e-9;

/// `A = e_k × f` (a zero vector when the edge is parallel to `e_k`).
#[inline(always)]
fn cross_axis<F: F64Lanes>(k: usize, f: [F; 3]) -> [F; 3] {
    let mut a = [F::splat(0.0); 3];
    a[(k + 1) % 3] = -f[(k + 2) % 3];
    a[(k + 2) % 3] = f[(k + 1) % 3];
    a
}

/// The certain-hit test of one triangle: the full 13-axis SAT on the
/// **exact** voxel box `[o + q·h, o + (q+1)·h]` (centre `c`, half size `hh`),
/// evaluated in f64 with a margin `M = SURE_SLACK·|A|₁·scale` per axis
/// (Schwarz & Seidel 2010 §3: set up once per triangle, then each voxel costs
/// a dot product and a comparison per axis).
///
/// Per axis `A` the test is `|A·c − mid| ≤ half` with `mid = (pmin + pmax)/2`
/// and `half = (pmax − pmin)/2 + hh·|A|₁ − M`, where `[pmin, pmax]` is the
/// triangle's projection; in exact arithmetic this says the box's projection
/// `[A·c − hh|A|₁, A·c + hh|A|₁]` overlaps `[pmin, pmax]` by at least `M`.
/// The face axes use `A = e_k` (`[pmin, pmax]` = the triangle's bbox), the
/// normal axis `A = n` with `pmin = pmax = n·p₀`.
///
/// Error bound: coordinates are f32 (exact in f64); `f_i = p_{i+1} − p_i`,
/// `q·h` and `o + hh` are exact or rounded once; `n` has error `≤ 5u·N` per
/// component (`N_k = |e1_j e2_l| + |e1_l e2_j|`, the magnitudes of its two
/// products, which do not cancel on slivers); every tested value is a sum of
/// at most eight such products, each term bounded by `|A|₁·scale` (or
/// `N₁·scale`) with `scale ≥` every coordinate magnitude involved. So each
/// side has error `< 50u·|A|₁·scale` (`u = 2⁻⁵³`), and the margin is `2·10⁵`
/// times larger: "sure" on all 13 axes implies that no axis separates the
/// exact box from the triangle, i.e. they touch (SAT: for a triangle of
/// non-zero area and a box these 13 are the only candidate separating axes;
/// zero axes separate nothing and get `half = ∞`).
struct Certain<D> {
    /// column tests: the three axes `e_w × f_i` and the u, v face axes
    col_a: [[f64; 2]; 5],
    col_mid: [f64; 5],
    col_half: [f64; 5],
    col_out: [f64; 5],
    /// voxel tests, 8 lanes: the six axes `e_u × f_i`, `e_v × f_i`, the
    /// normal, the w face axis; value = `ku·x_u + kv·y_v + kc + kw·z_w`
    ku: D,
    kv: D,
    kc: D,
    kw: D,
    half: D,
    out: D,
    ow: f64,
    off: f64,
}

impl<D: VoxF64> Certain<D> {
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn new(
        p: &[[f64; 3]; 3],
        tri: &Triangle,
        g: &Grid,
        n: &[f64; 3],
        nabs1: f64,
        w: usize,
        scale: f64,
    ) -> Certain<D> {
        let h = g.voxel as f64;
        let hh = 0.5 * h;
        let f = [0, 1, 2].map(|i| [0, 1, 2].map(|k| p[(i + 1) % 3][k] - p[i][k]));
        let (u, v) = ((w + 1) % 3, (w + 2) % 3);
        // (mid, half) of an axis
        let band = |a: [f64; 3]| {
            let a1 = a[0].abs() + a[1].abs() + a[2].abs();
            if a1 == 0.0 {
                return (0.0, f64::INFINITY, f64::INFINITY);
            }
            let pr = p.map(|q| a[0] * q[0] + a[1] * q[1] + a[2] * q[2]);
            let (pmin, pmax) = (pr[0].min(pr[1]).min(pr[2]), pr[0].max(pr[1]).max(pr[2]));
            let (hf, m) = (0.5 * (pmax - pmin) + hh * a1, SURE_SLACK * a1 * scale);
            (0.5 * (pmin + pmax), hf - m, hf + m)
        };
        let (tmin, tmax) = tri_bounds(tri);
        let face = |k: usize| {
            let (lo, hi) = (tmin.get(k) as f64, tmax.get(k) as f64);
            let (hf, m) = (0.5 * (hi - lo) + hh, SURE_SLACK * scale);
            (0.5 * (lo + hi), hf - m, hf + m)
        };
        let mut col_a = [[0.0; 2]; 5];
        let mut col_mid = [0.0; 5];
        let mut col_half = [0.0; 5];
        let mut col_out = [0.0; 5];
        for i in 0..3 {
            let a = cross_axis(w, f[i]);
            col_a[i] = [a[u], a[v]];
            (col_mid[i], col_half[i], col_out[i]) = band(a);
        }
        col_a[3] = [1.0, 0.0];
        (col_mid[3], col_half[3], col_out[3]) = face(u);
        col_a[4] = [0.0, 1.0];
        (col_mid[4], col_half[4], col_out[4]) = face(v);
        let mut k = [[0.0; 8]; 6]; // ku, kv, kw, kc, half, out
        let mut set = |l: usize, a: [f64; 3], (m, hf, ho): (f64, f64, f64)| {
            (k[0][l], k[1][l], k[2][l], k[3][l], k[4][l], k[5][l]) = (a[u], a[v], a[w], -m, hf, ho);
        };
        for (i, &fi) in f.iter().enumerate() {
            for (l, ax) in [(i, u), (i + 3, v)] {
                let a = cross_axis(ax, fi);
                set(l, a, band(a));
            }
        }
        let d0 = n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2];
        let n1 = n[0].abs() + n[1].abs() + n[2].abs();
        let (hf, m) = (hh * n1, SURE_SLACK * nabs1 * scale);
        set(6, *n, (d0, hf - m, hf + m));
        let mut ew = [0.0; 3];
        ew[w] = 1.0;
        set(7, ew, face(w));
        let [ku, kv, kw, kc, half, out] = k;
        Certain {
            col_a,
            col_mid,
            col_half,
            col_out,
            ku: D::from_array(ku),
            kv: D::from_array(kv),
            kc: D::from_array(kc),
            kw: D::from_array(kw),
            half: D::from_array(half),
            out: D::from_array(out),
            ow: g.base.get(w) as f64 + hh,
            off: g.offset as f64,
        }
    }

    /// The column test for the column centre `(x_u, y_v)`: `Some(true)` when
    /// its five axes certainly overlap, `None` when one certainly separates
    /// (the whole column misses the triangle in exact arithmetic).
    #[inline(always)]
    fn column(&self, xu: f64, yv: f64) -> Option<bool> {
        let (mut sure, mut miss) = (true, false);
        for i in 0..5 {
            let d = (self.col_a[i][0] * xu + self.col_a[i][1] * yv - self.col_mid[i]).abs();
            sure &= d <= self.col_half[i];
            miss |= d > self.col_out[i];
        }
        if miss {
            None
        } else {
            Some(sure)
        }
    }

    /// The column part of the voxel tests.
    #[inline(always)]
    fn column_base(&self, xu: f64, yv: f64) -> D {
        self.ku * D::splat(xu) + self.kv * D::splat(yv) + self.kc
    }

    /// Voxel `cw` of a column (with `column_base` `b`): `Some(true)` for a
    /// sure hit, `None` for a sure miss, `Some(false)` when undecided.
    #[inline(always)]
    fn voxel(&self, b: D, cw: u32, h: f64) -> Option<bool> {
        let zw = self.ow + (cw as f64 - self.off) * h;
        let d = (b + self.kw * D::splat(zw)).abs();
        if D::bits(d.gt(self.out)) != 0 {
            None
        } else {
            Some(D::bits(d.le(self.half)) == 0xff)
        }
    }
}

/// Triangles whose bounding range holds more than [`PRECULL_MIN`] and at most
/// this many voxels take the tile classification ([`Tile`]), which tests every
/// voxel of the range (work ∝ volume); larger ones, whose range is mostly
/// empty, keep the column walk of [`Certain`] (work ∝ area). The choice uses
/// the unclipped range, so it does not depend on the slab layout.
const TILE_MAX: u64 = 512;

/// `(dx, dy)` of lane `l` in a tile of `W = 2^lw` voxels along x and `16 / W`
/// rows along y: `(l % W, l / W)` (small integers: exact in f32).
const TILE_D: [[[f32; 16]; 5]; 2] = {
    let mut t = [[[0.0; 16]; 5]; 2];
    let mut lw = 0;
    while lw < 5 {
        let mut l = 0;
        while l < 16 {
            t[0][lw][l] = (l % (1 << lw)) as f32;
            t[1][lw][l] = (l >> lw) as f32;
            l += 1;
        }
        lw += 1;
    }
    t
};

/// A triangle's vertices in f64 (exact).
#[inline(always)]
fn tri_f64(tri: &Triangle) -> [[f64; 3]; 3] {
    [tri.a, tri.b, tri.c].map(|v| [v.x as f64, v.y as f64, v.z as f64])
}

/// What every classification of a triangle starts from (f64, one triangle
/// or a lane each): the vertices `p`, the edges `e1 = p₁ − p₀`,
/// `e2 = p₂ − p₀`, the normal `n = e1 × e2`, `|n|₁`, `N₁` (the sum of the
/// magnitudes of `n`'s six products: its rounding is relative to these, not
/// to `|n|`, which cancels on slivers) and `scale`, the magnitude of every
/// coordinate involved (the triangle, the grid's base and the boxes near the
/// triangle, which are within 2h of it; it does not depend on the grid's
/// dimensions, so a window of a grid gives the same voxels).
#[derive(Clone, Copy)]
struct TriSetup<F> {
    p: [[F; 3]; 3],
    e1: [F; 3],
    e2: [F; 3],
    n: [F; 3],
    n1: F,
    nabs1: F,
    scale: F,
}

impl<F: F64Lanes> TriSetup<F> {
    /// The setup of the triangle(s) `p` on a grid of voxel size `h` and
    /// base `o` (every coordinate is computed from it: [`Grid::coord_f64`]).
    #[inline(always)]
    fn new(p: [[F; 3]; 3], h: f64, o: [f64; 3]) -> TriSetup<F> {
        let e1 = from3!(|k| p[1][k] - p[0][k]);
        let e2 = from3!(|k| p[2][k] - p[0][k]);
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let n1 = n[0].abs() + n[1].abs() + n[2].abs();
        let h2 = F::splat(2.0 * h);
        let mut scale = h2;
        for a in 0..3 {
            scale = scale.max(F::splat(o[a].abs() + 2.0 * h));
            for v in &p {
                scale = scale.max(v[a].abs() + h2);
            }
        }
        let nabs1 = (e1[1] * e2[2]).abs()
            + (e1[2] * e2[1]).abs()
            + (e1[2] * e2[0]).abs()
            + (e1[0] * e2[2]).abs()
            + (e1[0] * e2[1]).abs()
            + (e1[1] * e2[0]).abs();
        TriSetup { p, e1, e2, n, n1, nabs1, scale }
    }

    /// Non-degenerate: `|n|₁` finite and positive and the dominant normal
    /// component times `h` not zero (NaN-safe: a NaN normal fails `|n|₁ > 0`).
    #[inline(always)]
    fn ok(&self, h: f64) -> F::Mask {
        let n = self.n;
        let nmax = n[0].abs().max(n[1].abs()).max(n[2].abs());
        let zero = F::splat(0.0);
        self.n1.gt(zero) & (nmax * F::splat(h)).gt(zero) & self.n1.is_finite()
    }
}

/// One SAT axis of [`tile_axes`]: `A`, the projections `q0, q1` spanning
/// the triangle's interval `[min(q0, q1), max(q0, q1)]`, `|A|₁` and the f64
/// margin `M` of [`Certain`].
type AxisIn<F> = ([F; 3], F, F, F, F);

/// The 13 SAT axes of a non-degenerate triangle: axis 0 the normal, 1–3 the
/// faces, 4–12 the edge axes `e_k × f_i`. The caller skips axes with
/// `|A|₁ = 0` (zero edge axes separate nothing). `tb` holds the triangle's
/// bounding box (its f32 [`tri_bounds`], in f64). (An array, not a callback
/// per axis: the callback was not inlined into the eight-lane setup.)
#[inline(always)]
fn tile_axes<F: F64Lanes>(s: &TriSetup<F>, tb: &[[F; 3]; 2]) -> [AxisIn<F>; 13] {
    // (functions, not closures: the body compiles inside a dispatched entry)
    #[inline(always)]
    fn dot<F: F64Lanes>(a: [F; 3], q: [F; 3]) -> F {
        a[0] * q[0] + a[1] * q[1] + a[2] * q[2]
    }
    #[inline(always)]
    fn face<F: F64Lanes>(s: &TriSetup<F>, tb: &[[F; 3]; 2], k: usize) -> AxisIn<F> {
        let (zero, one) = (F::splat(0.0), F::splat(1.0));
        let mut a = [zero; 3];
        a[k] = one;
        (a, tb[0][k], tb[1][k], one, F::splat(SURE_SLACK) * s.scale)
    }
    #[inline(always)]
    fn edge<F: F64Lanes>(s: &TriSetup<F>, f: &[[F; 3]; 3], i: usize, k: usize) -> AxisIn<F> {
        let p = &s.p;
        let a = cross_axis(k, f[i]);
        let a1 = a[0].abs() + a[1].abs() + a[2].abs();
        // p_i and p_{i+1} have the same exact projection on e_k × f_i:
        // the interval is spanned by p_i and p_{i+2}
        (a, dot(a, p[i]), dot(a, p[(i + 2) % 3]), a1, F::splat(SURE_SLACK) * a1 * s.scale)
    }
    let (p, n) = (&s.p, s.n);
    let slack = F::splat(SURE_SLACK);
    let d0 = dot(n, p[0]);
    let f = from3!(|i| from3!(|k| p[(i + 1) % 3][k] - p[i][k]));
    [
        (n, d0, d0, s.n1, slack * s.nabs1 * s.scale),
        face(s, tb, 0),
        face(s, tb, 1),
        face(s, tb, 2),
        edge(s, &f, 0, 0),
        edge(s, &f, 0, 1),
        edge(s, &f, 0, 2),
        edge(s, &f, 1, 0),
        edge(s, &f, 1, 1),
        edge(s, &f, 1, 2),
        edge(s, &f, 2, 0),
        edge(s, &f, 2, 1),
        edge(s, &f, 2, 2),
    ]
}

/// What [`Tile`] and [`TileExact`] share per axis: the centre `c0` of the
/// range's corner voxel and the voxel size, in f64.
struct TileFrame<F> {
    c0: [F; 3],
    h: F,
}

impl<F: F64Lanes> TileFrame<F> {
    /// The frame of ranges starting at voxel `lo` (integers, as f64).
    #[inline(always)]
    fn new(g: &Grid, lo: [F; 3]) -> TileFrame<F> {
        let h = F::splat(g.voxel as f64);
        let half = F::splat(0.5);
        TileFrame {
            c0: from3!(
                |a| F::splat(g.base.get(a) as f64) + (lo[a] + half - F::splat(g.offset as f64)) * h
            ),
            h,
        }
    }

    /// Axis `a` whose triangle interval is spanned by `q0, q1` (`a1 = |a|₁`):
    /// the half width of the exact box's interval plus the triangle's,
    /// `b = a·c0 − mid` and the steps `a·h` per voxel along x, y, z.
    #[inline(always)]
    fn axis(&self, a: [F; 3], q0: F, q1: F, a1: F) -> (F, F, [F; 3]) {
        let half = F::splat(0.5);
        let hw = half * (q0 - q1).abs() + half * self.h * a1;
        let b = a[0] * self.c0[0] + a[1] * self.c0[1] + a[2] * self.c0[2] - half * (q0 + q1);
        (hw, b, map3!(a, |ak| ak * self.h))
    }
}

/// The f64 test of the voxels the f32 [`Tile`] leaves undecided (its band is
/// ~2⁻¹⁹ relative, [`Certain`]'s 10⁻⁹): `V = b + X·s_x + Y·s_y + Z·s_z` per
/// axis in f64 from the range's corner, sure hit when `|V| ≤ half − M` on
/// every axis, sure miss when `|V| > half + M` on one, else the kernel. The
/// f64 evaluation error is `≤ 10·u₆₄·T ≤ 60·u₆₄·|A|₁·scale`, far under `M`
/// (same argument as [`Certain`]). Built only when a tile has an undecided
/// voxel (faces within an ulp of a grid plane; rare on real meshes).
struct TileExact {
    b: [f64; 13],
    s: [[f64; 13]; 3],
    lo: [f64; 13],
    hi: [f64; 13],
}

impl TileExact {
    /// The test of `tri` (non-degenerate) over the range starting at `lo`.
    fn new(tri: &Triangle, g: &Grid, lo: [u32; 3]) -> TileExact {
        let h = g.voxel as f64;
        let s = TriSetup::new(tri_f64(tri), h, [0, 1, 2].map(|a| g.base.get(a) as f64));
        let (tmin, tmax) = tri_bounds(tri);
        let tb = [tmin, tmax].map(|v| [v.x as f64, v.y as f64, v.z as f64]);
        let frame = TileFrame::new(g, lo.map(|c| c as f64));
        let mut e = TileExact {
            b: [0.0; 13],
            s: [[0.0; 13]; 3],
            lo: [f64::INFINITY; 13],
            hi: [f64::INFINITY; 13],
        };
        for (x, (a, q0, q1, a1, m)) in tile_axes(&s, &tb).into_iter().enumerate() {
            if a1 == 0.0 {
                // a zero axis keeps v = 0 and infinite bounds
                continue;
            }
            let (half, b, sa) = frame.axis(a, q0, q1, a1);
            e.b[x] = b;
            for (k, &sk) in sa.iter().enumerate() {
                e.s[k][x] = sk;
            }
            (e.lo[x], e.hi[x]) = (half - m, half + m);
        }
        e
    }

    /// Voxel at offsets `o` from the corner: `Some(true)` sure hit, `None`
    /// sure miss, `Some(false)` undecided.
    fn voxel(&self, o: [u32; 3]) -> Option<bool> {
        let o = o.map(|c| c as f64);
        let mut sure = true;
        for x in 0..13 {
            let v = (self.b[x] + (o[0] * self.s[0][x] + o[1] * self.s[1][x]) + o[2] * self.s[2][x])
                .abs();
            if v > self.hi[x] {
                return None;
            }
            sure &= v <= self.lo[x];
        }
        Some(sure)
    }
}

/// The tile classification of one small triangle (Schwarz & Seidel's
/// per-voxel test, 16 voxels per step in f32 lanes): the same 13 axes, exact
/// boxes and f64 margins as [`Certain`], with the per-voxel evaluation in f32
/// and its rounding error added to the margin.
///
/// ```text
/// setup (f64, once):  per axis A (the normal, 3 faces, 9 edges e_k × f_i):
///                     mid, half (as in Certain), M = SURE_SLACK·|A|₁·scale,
///                     b = A·c₀ − mid at the centre c₀ of the range's corner
///                     voxel, steps s = A·h; T = |b| + Σ_k D_k|s_k| + half + M
///                     (D = range extent in voxels); E = M + 2⁻¹⁹·T + 2⁻¹²⁰;
///                     hin = f32(half − E), hout = f32(half + E)
/// per 16 voxels:      v = fl(b + fl(fl(X·sx + Y·sy) + Z·sz)) + fl(dx·sx + dy·sy)
///                     sure hit  ⇔ |v| ≤ hin on all 13 axes  -> marked
///                     sure miss ⇔ |v| > hout on one axis    -> dropped
///                     else -> the f64 test (TileExact), whose undecided
///                             voxels go to the kernel (VoxPack)
/// ```
///
/// Why the f32 test is safe: `(X + dx, Y + dy, Z)` are the voxel's integer
/// offsets from the corner (at most `D`, exact in f32), so every intermediate
/// of `v` has magnitude `≤ T(1 + 2⁻²⁰)`; `v` takes 4 roundings of `b`, `s`
/// to f32 (an error in `s` counts `D` times: still `≤ u₃₂·T`), 5 of products
/// and 5 of sums, each `≤ u₃₂ = 2⁻²⁴` of a value `≤ T`, so
/// `|v − (b + offsets·s)| ≤ 14.1·u₃₂·T`; rounding `half ∓ E` to the nearest
/// f32 adds `≤ 1.01·u₃₂·T`; values subnormal in f32 add at most `2¹⁸·2⁻¹⁵⁰`
/// (conversions scaled by `D ≤ 2¹⁶`, products). All of it is under
/// `E − M = 32·u₃₂·T + 2⁻¹²⁰`. The f64 values `b`, `s`, `mid`, `half` carry
/// the error that [`Certain`]'s margin `M` already covers (2·10⁵ times over;
/// `D·h ≤ 2·scale`, so the step errors are of the same size). Hence
/// `|v| ≤ hin` implies the exact projection distance is `≤` the exact half
/// width (the axis overlaps the exact box), and `|v| > hout` that it exceeds
/// it (the axis separates): the same sure-hit / sure-miss meaning as
/// [`Certain::voxel`]. Triangles with `T > 2¹⁰⁰` (no f32 overflow below
/// that) fall back to the column walk. Lanes outside the range are masked off.
///
/// The values live in the setup, lane `l` (eight triangles are set up at
/// once, [`TileQueue`]); the tile reads them in place.
struct Tile<'s, F: F64Lanes> {
    setup: &'s TileSetup<F>,
    l: usize,
    /// log2 of the tile width along x
    lw: u32,
}

/// [`Tile`]'s values for one triangle or eight (a lane each), computed in
/// f64 and rounded to f32: per axis `b`, the steps `s_x, s_y, s_z` and
/// `half ∓ E`; a zero axis keeps `b = s = 0` and infinite bounds (it
/// separates nothing). `fits` is false where the values could overflow f32.
struct TileSetup<F: F64Lanes> {
    b: [F::F32; 13],
    s: [[F::F32; 13]; 3],
    hin: [F::F32; 13],
    hout: [F::F32; 13],
    fits: F::Mask,
    /// the per-row form ([`Tile::run_rows`]) of the axes with `f32(s_x) ≠ 0`:
    /// `G_lo + ω`, `G_hi − ω`, `S_Y`, `S_Z` (other axes: the neutral
    /// `−8192, 8192, 0, 0`), `Δ''`, and whether every such axis has
    /// `R ≤ ROW_R_MAX`
    rows: [[F::F32; 13]; 4],
    delta: F::F32,
    rows_ok: F::Mask,
    /// every axis of [`ROW_LIN`] has `f32(s_x) ≠ 0` or is a zero axis, so
    /// [`Tile::run_rows`] can take the axes in their fixed places
    fixed: F::Mask,
}

impl<F: F64Lanes> TileSetup<F> {
    /// An unset setup (every value is written by [`TileSetup::compute`]).
    #[inline(always)]
    fn new() -> TileSetup<F> {
        let z = F::splat(0.0);
        let z32 = z.to_f32();
        TileSetup {
            b: [z32; 13],
            s: [[z32; 13]; 3],
            hin: [z32; 13],
            hout: [z32; 13],
            fits: z.le(z),
            rows: [[z32; 13]; 4],
            delta: z32,
            rows_ok: z.le(z),
            fixed: z.le(z),
        }
    }

    /// The setup of the triangle(s) `s` with bounding boxes `tb` for the
    /// bounding ranges starting at voxel `lo` and `d` voxels long minus one
    /// (unclipped; integers as f64). Axis 0 is the normal (tested first: it
    /// separates most voxels of the range), 1–3 the faces, 4–12 the edge axes
    /// `e_k × f_i`. (In place: zeroing and moving the eight-lane setup cost
    /// more than computing it.)
    #[inline(always)]
    fn compute(&mut self, s: &TriSetup<F>, tb: &[[F; 3]; 2], g: &Grid, lo: [F; 3], d: [F; 3]) {
        let frame = TileFrame::new(g, lo);
        let (zero, inf) = (F::splat(0.0), F::splat(f64::INFINITY));
        let t_max = F::splat(TILE_T_MAX);
        let one = F::splat(1.0);
        let (mut fits, mut rows_ok, mut delta) = (zero.le(zero), zero.le(zero), zero);
        let mut fixed = zero.le(zero);
        // axis x: A, the projections q0, q1 spanning the triangle's interval,
        // |A|₁ and the f64 margin M
        for (x, (a, q0, q1, a1, m)) in tile_axes(s, tb).into_iter().enumerate() {
            let used = a1.ne(zero);
            let (half, bx, sa) = frame.axis(a, q0, q1, a1);
            let t = bx.abs() + d[0] * sa[0].abs() + d[1] * sa[1].abs() + d[2] * sa[2].abs();
            let t = t + half + m;
            // (also false for NaN; a zero axis always fits)
            fits = fits & F::select(used, t, zero).le(t_max);
            let e = m + (t * F::splat(TILE_E_REL) + F::splat(TILE_E_ABS));
            self.hin[x] = F::select(used, half - e, inf).to_f32();
            self.hout[x] = F::select(used, half + e, inf).to_f32();
            self.b[x] = F::select(used, bx, zero).to_f32();
            for (k, &sk) in sa.iter().enumerate() {
                self.s[k][x] = F::select(used, sk, zero).to_f32();
            }
            // the per-row form (Tile::run_rows) of a linear axis. The axes of
            // ROW_CON have A_x = 0 exactly (the y, z faces and e_x × f_i), so
            // s_x = 0 and they are never linear: their row values would be
            // neither used nor change rows_ok or Δ'' (skipped, with their
            // five divisions)
            if ROW_CON.contains(&x) {
                continue;
            }
            let lin = used & sa[0].abs().gt(F::splat(F32_ZERO_MAX));
            let (gh, gm) = (half - e, half + e);
            let inv = one / sa[0];
            let sg = F::select(inv.gt(zero), one, -one);
            let (glo, ghi) = ((-sg * gh - bx) * inv, (sg * gh - bx) * inv);
            let (sy, sz) = (-sa[1] * inv, -sa[2] * inv);
            let r = glo.abs().max(ghi.abs()) + d[1] * sy.abs() + d[2] * sz.abs();
            // (also false for NaN)
            rows_ok = rows_ok & F::select(lin, r, zero).le(F::splat(ROW_R_MAX));
            let w = r * F::splat(ROW_W_REL) + F::splat(ROW_W_ABS);
            if ROW_LIN.contains(&x) {
                // (a linear or a zero axis; false for NaN)
                fixed = fixed & F::select(used, sa[0].abs(), inf).gt(F::splat(F32_ZERO_MAX));
            }
            let r = &mut self.rows;
            let (nlo, nhi) = (F::splat(-ROW_NEUTRAL), F::splat(ROW_NEUTRAL));
            (r[0][x], r[1][x], r[2][x], r[3][x]) = (
                F::select(lin, glo + w, nlo).to_f32(),
                F::select(lin, ghi - w, nhi).to_f32(),
                F::select(lin, sy, zero).to_f32(),
                F::select(lin, sz, zero).to_f32(),
            );
            let dx = F::splat(2.0) * w + (gm - gh) * inv.abs();
            delta = delta.max(F::select(lin, dx, zero));
        }
        self.fits = fits;
        self.rows_ok = rows_ok;
        self.fixed = fixed;
        self.delta = (delta * F::splat(1.0 + ROW_W_REL) + F::splat(ROW_SLACK)).to_f32();
    }
}

impl TileSetup<f64> {
    /// The one-lane setup of the tile of the non-degenerate `tri` for the
    /// bounding range `lo..=hi`, or `None` when it does not fit f32.
    #[cfg(test)]
    fn one(tri: &Triangle, g: &Grid, lo: [u32; 3], hi: [u32; 3]) -> Option<TileSetup<f64>> {
        let h = g.voxel as f64;
        let s = TriSetup::new(tri_f64(tri), h, [0, 1, 2].map(|a| g.base.get(a) as f64));
        let (tmin, tmax) = tri_bounds(tri);
        let tb = [tmin, tmax].map(|v| [v.x as f64, v.y as f64, v.z as f64]);
        let d = [0, 1, 2].map(|a| (hi[a] - lo[a]) as f64);
        let mut setup = TileSetup::new();
        setup.compute(&s, &tb, g, lo.map(|c| c as f64), d);
        (s.ok(h) && setup.fits).then_some(setup)
    }
}

impl<'s, F: F64Lanes> Tile<'s, F> {
    /// The tile of lane `l` of `setup` (which fits), for the bounding range
    /// `lo..=hi` (unclipped).
    #[inline(always)]
    fn from_setup(setup: &'s TileSetup<F>, l: usize, lo: [u32; 3], hi: [u32; 3]) -> Self {
        let ext = hi[0] - lo[0] + 1;
        let lw = if ext >= 16 { 4 } else { ext.next_power_of_two().trailing_zeros() };
        Tile { setup, l, lw }
    }

    /// Axis `x` of the value `v` (one of the setup's arrays).
    #[inline(always)]
    fn at(&self, v: &[F::F32; 13], x: usize) -> f32 {
        F::f32_lane(&v[x], self.l)
    }

    /// [`Tile::run`]'s f32 test of the one voxel at offsets `o` from the
    /// range's corner (its tile at `(x0, y0) = (o_x, o_y)`, lane `dx = dy =
    /// 0`: the same operations, so the same answer and the same proof):
    /// `Some(true)` sure hit, `None` sure miss, `Some(false)` undecided.
    fn voxel(&self, o: [u32; 3]) -> Option<bool> {
        let st = self.setup;
        let [x, y, z] = o.map(|c| c as f32);
        let mut sure = true;
        for a in 0..13 {
            let (sx, sy, sz) = (self.at(&st.s[0], a), self.at(&st.s[1], a), self.at(&st.s[2], a));
            let v = (self.at(&st.b, a) + ((x * sx + y * sy) + z * sz)).abs();
            if v > self.at(&st.hout, a) {
                return None;
            }
            sure &= v <= self.at(&st.hin, a);
        }
        Some(sure)
    }

    /// The value `v` of the 13 axes in lanes 0..13.
    #[inline(always)]
    fn lanes<V: Lane>(&self, v: &[F::F32; 13]) -> V {
        let mut a = [0.0; 16];
        for (x, ax) in a.iter_mut().enumerate().take(13) {
            *ax = self.at(v, x);
        }
        V::load(&a)
    }

    /// Classifies the voxels of the range `lo..=hi` in z layers `ka..=kb`:
    /// sure hits are ORed into `sink` a row at a time; undecided voxels get
    /// the f64 test (`make_exact` builds it on first use), and those still
    /// undecided go to `pack` (the caller flushes it).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn run<P: Simd, S: Sink>(
        &self,
        lo: [u32; 3],
        hi: [u32; 3],
        ka: u32,
        kb: u32,
        make_exact: &mut dyn FnMut() -> TileExact,
        pack: &mut VoxPack<'_, P>,
        sink: &mut S,
    ) {
        type V<P> = <P as Simd>::F16;
        let mut exact: Option<TileExact> = None;
        let st = self.setup;
        let (tb, tsx, tsy, tsz): (V<P>, V<P>, V<P>, V<P>) =
            (self.lanes(&st.b), self.lanes(&st.s[0]), self.lanes(&st.s[1]), self.lanes(&st.s[2]));
        let (mut hin, mut hout) = ([0f32; 13], [0f32; 13]);
        for x in 0..13 {
            (hin[x], hout[x]) = (self.at(&st.hin, x), self.at(&st.hout, x));
        }
        // per axis: `fl(dx·s_x) + fl(dy·s_y)` over the lanes
        let (dx, dy) = (
            V::<P>::load(&TILE_D[0][self.lw as usize]),
            V::<P>::load(&TILE_D[1][self.lw as usize]),
        );
        let mut lt = [V::<P>::splat(0.0); 13];
        for (x, l) in lt.iter_mut().enumerate() {
            let (sx, sy) = (self.at(&st.s[0], x), self.at(&st.s[1], x));
            *l = dx * V::<P>::splat(sx) + dy * V::<P>::splat(sy);
        }
        let w = 1u32 << self.lw;
        let rows = 16 >> self.lw;
        let ext = hi[0] - lo[0] + 1;
        let row_bits = (1u32 << w) - 1; // (w ≤ 16)
        for k in ka..=kb {
            let z = V::<P>::splat((k - lo[2]) as f32);
            let mut y0 = 0;
            while y0 <= hi[1] - lo[1] {
                let rows_here = rows.min(hi[1] - lo[1] - y0 + 1);
                let mut x0 = 0;
                while x0 < ext {
                    let xn = w.min(ext - x0);
                    let xm = (1u32 << xn) - 1;
                    let mut valid = 0u32;
                    for r in 0..rows_here {
                        valid |= xm << (r * w);
                    }
                    // per axis (lanes): b + (X·sx + Y·sy) + Z·sz
                    let xy = tsx * V::<P>::splat(x0 as f32) + tsy * V::<P>::splat(y0 as f32);
                    let mut base = [0f32; 16];
                    (tb + (xy + tsz * z)).store(&mut base);
                    let v = (V::<P>::splat(base[0]) + lt[0]).abs();
                    let mut hit = v.le(V::<P>::splat(hin[0]));
                    let mut miss = v.gt(V::<P>::splat(hout[0]));
                    // every voxel of the pack is off the plane: skip the other axes
                    if valid & !(miss.bits() as u32) == 0 {
                        x0 += w;
                        continue;
                    }
                    let axes = base.iter().zip(&lt).zip(hin.iter().zip(&hout));
                    for ((&bx, &lt), (&hin, &hout)) in axes.skip(1) {
                        let v = (V::<P>::splat(bx) + lt).abs();
                        hit = hit & v.le(V::<P>::splat(hin));
                        miss = miss | v.gt(V::<P>::splat(hout));
                    }
                    let hit = hit.bits() as u32 & valid;
                    let mut und = valid & !hit & !(miss.bits() as u32);
                    for r in 0..rows_here {
                        let bits = (hit >> (r * w)) & row_bits;
                        if bits != 0 {
                            pack.mark_row(lo[0] + x0, lo[1] + y0 + r, k, bits, sink);
                        }
                    }
                    while und != 0 {
                        let l = und.trailing_zeros();
                        und &= und - 1;
                        let o = [x0 + (l & (w - 1)), y0 + (l >> self.lw), k - lo[2]];
                        let v = [lo[0] + o[0], lo[1] + o[1], k];
                        match exact.get_or_insert_with(&mut *make_exact).voxel(o) {
                            Some(true) => pack.mark_row(v[0], v[1], v[2], 1, sink),
                            None => {}
                            Some(false) => pack.push(v, sink),
                        }
                    }
                    x0 += w;
                }
                y0 += rows;
            }
        }
    }
}

/// `(dy, dz)` of lane `l` for rows of width `W` (`1..=16`) along y:
/// `(l % W, l / W)` for the `(16 / W)·W` used lanes (small integers: exact
/// in f32); the other lanes are never valid.
const ROW_D: [[[f32; 16]; 17]; 2] = {
    let mut t = [[[0.0; 16]; 17]; 2];
    let mut w = 1;
    while w <= 16 {
        let mut l = 0;
        while l < 16 {
            t[0][w][l] = (l % w) as f32;
            t[1][w][l] = (l / w) as f32;
            l += 1;
        }
        w += 1;
    }
    t
};

/// [`ROW_D`] as integers.
const ROW_DI: [[[u8; 16]; 17]; 2] = {
    let mut t = [[[0; 16]; 17]; 2];
    let mut w = 1;
    while w <= 16 {
        let mut l = 0;
        while l < 16 {
            t[0][w][l] = (l % w) as u8;
            t[1][w][l] = (l / w) as u8;
            l += 1;
        }
        w += 1;
    }
    t
};

/// Per-row bounds ([`Tile::run_rows`]): the widening `ω = 2⁻²⁰·R + 2⁻⁴⁰`
/// (index units), the largest `R` accepted, and the slack added to `Δ`.
const ROW_W_REL: f64 = 1.0 / (1u64 << 20) as f64;
const ROW_W_ABS: f64 = 1.0 / (1u64 << 40) as f64;
const ROW_R_MAX: f64 = 4096.0;
const ROW_SLACK: f64 = 1.0 / (1u64 << 10) as f64;
/// `2⁻¹⁵⁰`: an f64 rounds to the f32 zero iff its magnitude is at most this
/// (half the smallest f32 subnormal; the tie goes to the even zero).
const F32_ZERO_MAX: f64 = 7.006492321624085e-46;
/// A row bound no axis reaches (`R ≤ ROW_R_MAX`, so `|G' + Y·S_Y + Z·S_Z|`
/// stays below `2·ROW_R_MAX`): the bounds of a zero axis in a fixed place
/// (neutral in the max / min).
const ROW_NEUTRAL: f64 = 8192.0;
/// The axes [`Tile::run_rows`] takes in fixed places (when the setup's
/// `fixed` holds): the normal, the x face and the edge axes `e_y × f_i`,
/// `e_z × f_i`, whose x component (`n_x`, 1, `f_z`, `−f_y`) is nonzero on
/// most triangles (linear along a row); and the y, z faces and `e_x × f_i`,
/// whose x component is exactly zero (constant along a row).
/// (The x face, axis 1, comes first: [`Tile::run_rows`] starts the row
/// bounds from it and loops over the other seven.)
const ROW_LIN: [usize; 8] = [1, 0, 5, 6, 8, 9, 11, 12];
const ROW_CON: [usize; 5] = [2, 3, 4, 7, 10];

impl<F: F64Lanes> Tile<'_, F> {
    /// The same classification as [`Tile::run`] (sure hit / sure miss /
    /// undecided → [`TileExact`] → kernel), one x **row** per lane: each
    /// axis is linear in the voxel's x offset `X` along a row, so per row the
    /// sure hits are one interval of `X` and the not-sure-misses lie in a
    /// slightly wider one (Schwarz & Seidel's per-row interval, here on all
    /// 13 axes), and the sure hits are written as one run (a masked word OR)
    /// instead of bit groups per 16-voxel tile. Returns `false` (nothing done;
    /// the caller runs [`Tile::run`]) when an axis has `R > ROW_R_MAX`.
    ///
    /// ```text
    /// setup (f64, per axis; b, s, half, e as in Tile, g = half − e; in
    /// TileSetup::compute, eight triangles at once):
    ///   f32(s_x) = 0:  constant along a row: [b, s_y, s_z, hin, hout] (f32)
    ///   else:          G_lo, G_hi = (∓sgn(s_x)·g − b)/s_x,  S_Y = −s_y/s_x,
    ///                  S_Z = −s_z/s_x;  R = max|G| + D_y|S_Y| + D_z|S_Z|,
    ///                  ω = 2⁻²⁰·R + 2⁻⁴⁰;  stored f32(G_lo + ω), f32(G_hi − ω)
    ///   Δ'' = max over axes (2ω + 2e/|s_x|)·(1 + 2⁻²⁰) + 2⁻¹⁰
    /// per row (Y, Z) (16 rows per step, f32):
    ///   Lh = max over linear axes of fl(G_lo' + fl(fl(Y·S_Y) + fl(Z·S_Z)))
    ///   Hh = min of the same with G_hi'
    ///   constant axes: hit ⇔ |B| ≤ hin on all, miss ⇔ |B| > hout on one,
    ///                  B = fl(fl(b + fl(Y·s_y)) + fl(Z·s_z))
    ///   sure hits     X ∈ [ceil(Lh), floor(Hh)] ∩ [0, ext)        -> one run
    ///   not sure miss X ∈ [ceil(Lh − Δ''), floor(Hh + Δ'')] ∩ [0, ext)
    ///   the difference -> TileExact, then the kernel
    /// ```
    ///
    /// Why it is sound (the argument first written for this form in commit
    /// dca991d). Let `β = b + Y·s_y + Z·s_z` with the f64 setup
    /// values (real arithmetic). [`Tile`]'s argument shows that
    /// `|β + X·s_x| ≤ half − e` implies a sure hit of the exact box with room
    /// `≥ 2⁻¹⁹·T − f64 error` to spare (so [`TileExact`] also says hit), and
    /// `|β + X·s_x| > half + e` a sure miss likewise. For a linear axis the
    /// first is `X ∈ [Q_lo, Q_hi]` with `Q = G + Y·S_Y + Z·S_Z` exactly (real
    /// arithmetic on the f64 `G, S`; the f64 rounding of `G, S` is
    /// `≤ 3·2⁻⁵³·R`). The f32 evaluation of `G' + Y·S_Y + Z·S_Z` takes four
    /// conversions, two products and two sums, each `≤ 2⁻²⁴` of a value
    /// `≤ R + ω`, so it errs by `≤ 7.2·2⁻²⁴·R + 7·2⁻¹⁴⁹ < ω`: the computed
    /// lower bound is `≥ Q_lo` and `≤ Q_lo + 2ω`, the upper `≤ Q_hi`. Hence
    /// `X ∈ [ceil(Lh), floor(Hh)]` is a sure hit on every linear axis. The
    /// not-miss bounds are the hit bounds moved by `2e/|s_x|`: a not-sure-miss
    /// `X` has `X ≥ max(Q_lo − 2e/|s_x|) ≥ Lh − Δ` (`Δ` without the slack),
    /// and `fl(Lh − Δ'')` errs by `≤ 2⁻²⁴·2¹³ < 2⁻¹⁰` (`|Lh| ≤ R + 2ω ≤ 2¹²⁺`),
    /// which the slack covers; so every `X` outside `[ceil(Lh − Δ''),
    /// floor(Hh + Δ'')]` is a sure miss. The constant axes use [`Tile`]'s
    /// f32 test with fewer roundings (`|B − β| ≤ 6.01·2⁻²⁴·T + 2⁻¹³⁰` and
    /// `hin`, `hout` within `1.01·2⁻²⁴·T` of `half ∓ e`). `R ≤ 2¹²` keeps
    /// every value finite (no NaN in the max / min). An axis is linear iff
    /// `|s_x| > 2⁻¹⁵⁰` in f64, i.e. iff `f32(s_x) ≠ 0` (the test `run_rows`
    /// makes), so `Δ''` and the `R` check cover exactly the linear axes. So
    /// each voxel is classified as [`Tile::run`] would or left undecided
    /// (then [`TileExact`] decides it), and the final set — `TileExact`'s
    /// sure hits plus the kernel's answer on its undecided voxels — is the
    /// same bit for bit (`run_rows_matches_tile_run`, `tests/voxel.rs`, and
    /// `.npy` outputs compared byte for byte when this form was introduced).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn run_rows<P: Simd, S: Sink>(
        &self,
        lo: [u32; 3],
        hi: [u32; 3],
        ka: u32,
        kb: u32,
        make_exact: &mut dyn FnMut() -> TileExact,
        pack: &mut VoxPack<'_, P>,
        sink: &mut S,
    ) -> bool {
        let st = self.setup;
        if !F::mask_lane(&st.rows_ok, self.l) {
            return false;
        }
        // (`black_box`: with the axes known, the compiler unrolled the axis
        // loops, hoisted the 57 broadcasts out of the row loop and spilled
        // them, per triangle, and gathered the values with vgather; most
        // triangles have one or two row groups)
        if F::mask_lane(&st.fixed, self.l) {
            // the axes in their fixed places: ROW_LIN linear or zero (neutral
            // row values), ROW_CON constant along x (a zero axis there keeps
            // b = s = 0 and infinite bounds: hit, never miss)
            let (lin, con) =
                (std::hint::black_box(&ROW_LIN[1..]), std::hint::black_box(&ROW_CON[..]));
            self.rows_loop(lo, hi, ka, kb, lin, con, make_exact, pack, sink);
            return true;
        }
        // the axes linear in X and those constant along a row (zero axes,
        // `hout = ∞`, separate nothing and are left out)
        let (mut lin, mut nl) = ([0usize; 13], 0);
        let (mut con, mut nc) = ([0usize; 13], 0);
        for x in 0..13 {
            if self.at(&st.hout, x) == f32::INFINITY {
                continue;
            }
            if self.at(&st.s[0], x) == 0.0 {
                con[nc] = x;
                nc += 1;
            } else if x != 1 {
                // (the x face, always linear, starts the row bounds)
                lin[nl] = x;
                nl += 1;
            }
        }
        self.rows_loop(lo, hi, ka, kb, &lin[..nl], &con[..nc], make_exact, pack, sink);
        true
    }

    /// [`Tile::run_rows`]'s loop over the rows of z layers `ka..=kb`, with
    /// the linear axes `lin` (their `[G_lo', G_hi', S_Y, S_Z]` from the
    /// setup's `rows`) and the constant ones `con` (`[b, s_y, s_z, hin,
    /// hout]`), read in place. Neutral entries (a zero axis) change nothing:
    /// the bounds are max / min of the axes' bounds and the masks AND / OR of
    /// theirs, so the order and the neutral entries do not change a bit.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn rows_loop<P: Simd, S: Sink>(
        &self,
        lo: [u32; 3],
        hi: [u32; 3],
        ka: u32,
        kb: u32,
        lin: &[usize],
        con: &[usize],
        make_exact: &mut dyn FnMut() -> TileExact,
        pack: &mut VoxPack<'_, P>,
        sink: &mut S,
    ) {
        type V<P> = <P as Simd>::F16;
        type I<P> = <<P as Simd>::F16 as VoxF32>::Int;
        /// The lanes `v` (integers, exact) as `i32`, plus `o`.
        #[inline(always)]
        fn org<P: Simd>(v: V<P>, o: u32) -> I<P> {
            v.fast_round_int() + I::<P>::splat(o as i32)
        }
        debug_assert!(!pack.thin);
        let st = self.setup;
        let mut exact: Option<TileExact> = None;
        let ext = hi[0] - lo[0] + 1;
        let ey = hi[1] - lo[1] + 1;
        let w = ey.min(16);
        let zstep = 16 / w;
        let (dy, dz) = (V::<P>::load(&ROW_D[0][w as usize]), V::<P>::load(&ROW_D[1][w as usize]));
        let (dyi, dzi) = (&ROW_DI[0][w as usize], &ROW_DI[1][w as usize]);
        let dl = V::<P>::splat(F::f32_lane(&st.delta, self.l));
        let (zero, last) = (V::<P>::splat(0.0), V::<P>::splat((ext - 1) as f32));
        let (za, zb) = (ka - lo[2], kb - lo[2]);
        let mut z0 = za;
        while z0 <= zb {
            let zv = V::<P>::splat(z0 as f32) + dz;
            let mut y0 = 0;
            while y0 < ey {
                let yv = V::<P>::splat(y0 as f32) + dy;
                // valid lanes: y0 + dy < ey and z0 + dz ≤ zb, i.e. the first
                // min(zstep, zb − z0 + 1)·min(w, ey − y0) lanes (either
                // ey ≤ 16: y0 = 0, w = ey; or w = 16, zstep = 1)
                let nv = zstep.min(zb - z0 + 1) * w.min(ey - y0);
                let valid = ((1u64 << nv) - 1) as u32;
                // The bounds start from the x face (axis 1: A = e_x, always
                // linear, R ≤ ROW_R_MAX): its S_Y = S_Z = −0 (−(0·h)/h), so
                // its term fl(G' + fl(fl(Y·S_Y) + fl(Z·S_Z))) = fl(G' + (−0))
                // is G' bit for bit, and G' is inside ±ROW_R_MAX·(1 + 2⁻²⁰), so
                // max(−ROW_NEUTRAL, G') = G': the same bounds as with the
                // x face in the loop, one linear axis fewer per row group.
                let r = &st.rows;
                let (mut lh, mut hh) =
                    (V::<P>::splat(self.at(&r[0], 1)), V::<P>::splat(self.at(&r[1], 1)));
                for &x in lin {
                    let (glo, ghi) = (self.at(&r[0], x), self.at(&r[1], x));
                    let (sy, sz) = (self.at(&r[2], x), self.at(&r[3], x));
                    let q = yv * V::<P>::splat(sy) + zv * V::<P>::splat(sz);
                    // (no NaN: every value is finite, below 2¹⁴; `Lane`'s
                    // max and min are `vmaxps`/`vminps`, `wide`'s fast ones)
                    lh = lh.max(V::<P>::splat(glo) + q);
                    hh = hh.min(V::<P>::splat(ghi) + q);
                }
                let (mut hit, mut miss) = (valid, 0u32);
                for &x in con {
                    let (bx, syx, szx) =
                        (self.at(&st.b, x), self.at(&st.s[1], x), self.at(&st.s[2], x));
                    let (hin, hout) = (self.at(&st.hin, x), self.at(&st.hout, x));
                    let v = ((V::<P>::splat(bx) + yv * V::<P>::splat(syx))
                        + zv * V::<P>::splat(szx))
                    .abs();
                    hit &= v.le(V::<P>::splat(hin)).bits() as u32;
                    miss |= v.gt(V::<P>::splat(hout)).bits() as u32;
                }
                // per row, in lanes (integers, exact in f32): the not-miss
                // interval [a_m, b_m] clipped to the range, the hit run
                // [a_h, b_h] inside it; `sure`: a non-empty hit run, `full`:
                // it covers [a_m, b_m] (nothing undecided)
                let am = (lh - dl).ceil().max(zero);
                let bm = (hh + dl).floor().min(last);
                let ah = lh.ceil().max(am);
                let bh = hh.floor().min(bm);
                let rows = valid & !miss & am.le(bm).bits() as u32;
                let sure = rows & hit & ah.le(bh).bits() as u32;
                let full = sure & (ah.eq(am) & bh.eq(bm)).bits() as u32;
                // the hit runs, all rows at once (surface mode only)
                if sure != 0 {
                    sink.or_runs(&Runs {
                        lanes: sure,
                        x0: org::<P>(ah, lo[0]),
                        x1: org::<P>(bh, lo[0]),
                        j: org::<P>(yv, lo[1]),
                        k: org::<P>(zv, lo[2]),
                    });
                }
                let mut rest = rows & !full;
                if rest == 0 {
                    y0 += w;
                    continue;
                }
                let (am, bm) = (am.fast_round_int().to_array(), bm.fast_round_int().to_array());
                let (ah, bh) = (ah.fast_round_int().to_array(), bh.fast_round_int().to_array());
                while rest != 0 {
                    let l = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let (j, z) = (lo[1] + y0 + dyi[l] as u32, z0 + dzi[l] as u32);
                    debug_assert!(j <= hi[1] && z <= zb);
                    let k = lo[2] + z;
                    // not-miss minus hits (all of it without a hit run): the
                    // f64 test, then the kernel
                    let (a_m, b_m) = (am[l], bm[l]);
                    let (a_h, b_h) =
                        if sure >> l & 1 != 0 { (ah[l], bh[l]) } else { (b_m + 1, b_m) };
                    let und = (a_m..a_h).chain(b_h + 1..=b_m);
                    for xo in und {
                        let o = [xo as u32, j - lo[1], z];
                        let v = [lo[0] + o[0], j, k];
                        // Tile::run's f32 test of this voxel first (it decides almost all
                        // of them; the 2⁻¹⁰ slack of Δ'' leaves ~5,000 on bunny 512³),
                        // then the f64 test
                        let c = match self.voxel(o) {
                            Some(false) => exact.get_or_insert_with(&mut *make_exact).voxel(o),
                            c => c,
                        };
                        match c {
                            Some(true) => pack.mark_row(v[0], v[1], v[2], 1, sink),
                            None => {}
                            Some(false) => pack.push(v, sink),
                        }
                    }
                }
                y0 += w;
            }
            z0 += zstep;
        }
    }
}

/// Triangles of the tile path (more than [`PRECULL_MIN`] and at most
/// [`TILE_MAX`] candidates), queued so that their f64 setup ([`TriSetup`],
/// the degenerate test, [`TileSetup`]) runs in `f64x8` lanes, eight
/// triangles at once, instead of ~1,000 scalar instructions per triangle.
/// Each lane computes exactly the one-triangle operations ([`F64Lanes`]),
/// so every triangle gets the same [`Tile`] and the same path as alone; and
/// since the hits are ORed into the sink, the order in which the queued
/// triangles run does not change the result. Degenerate triangles and
/// tiles that would overflow f32 take [`triangle_columns`], as before.
pub(crate) struct TileQueue<'a, P: Simd> {
    t: &'a Tables,
    n: usize,
    tri: [Triangle; 8],
    /// the unclipped range `lo..=hi` and the slab's z layers `ka..=kb`
    lo: [[u32; 3]; 8],
    hi: [[u32; 3]; 8],
    k: [(u32, u32); 8],
    /// lane inputs in f64 (lanes past `n` keep earlier, unused triangles):
    /// vertices, range corners and extents minus one (the bounding boxes
    /// come from the vertices, eight at a time)
    p: [[[f64; 8]; 3]; 3],
    lo64: [[f64; 8]; 3],
    d64: [[f64; 8]; 3],
    setup: TileSetup<P::D8>,
}

impl<'a, P: Simd> TileQueue<'a, P> {
    /// An empty queue over the plane tables `t`.
    #[inline(always)]
    pub fn new(t: &'a Tables) -> Self {
        TileQueue {
            t,
            n: 0,
            tri: [Triangle::default(); 8],
            lo: [[0; 3]; 8],
            hi: [[0; 3]; 8],
            k: [(0, 0); 8],
            p: [[[0.0; 8]; 3]; 3],
            lo64: [[0.0; 8]; 3],
            d64: [[0.0; 8]; 3],
            setup: TileSetup::new(),
        }
    }

    /// Queues `tri` (range `lo..=hi`, layers `ka..=kb` of the slab); runs
    /// the queue when it is full.
    #[inline(always)]
    fn push<S: Sink>(
        &mut self,
        tri: &Triangle,
        lo: [u32; 3],
        hi: [u32; 3],
        k: (u32, u32),
        pack: &mut VoxPack<'_, P>,
        sink: &mut S,
    ) {
        let l = self.n;
        (self.tri[l], self.lo[l], self.hi[l], self.k[l]) = (*tri, lo, hi, k);
        for a in 0..3 {
            for (v, q) in [tri.a, tri.b, tri.c].iter().enumerate() {
                self.p[v][a][l] = q.get(a) as f64;
            }
            self.lo64[a][l] = lo[a] as f64;
            self.d64[a][l] = (hi[a] - lo[a]) as f64;
        }
        self.n += 1;
        if self.n == 8 {
            self.flush(pack, sink);
        }
    }

    /// Runs the queued triangles (`pack` must be empty; it is left empty).
    #[inline(always)]
    pub fn flush<S: Sink>(&mut self, pack: &mut VoxPack<'_, P>, sink: &mut S) {
        let n = self.n;
        if n == 0 {
            return;
        }
        self.n = 0;
        let t = self.t;
        let g = &t.grid;
        let h = g.voxel as f64;
        type D<P> = <P as Simd>::D8;
        let (q, lo64, d64) = (&self.p, &self.lo64, &self.d64);
        let p: [[D<P>; 3]; 3] = from3!(|v| from3!(|a| D::<P>::from_array(q[v][a])));
        let s = TriSetup::new(p, h, [0, 1, 2].map(|a| g.base.get(a) as f64));
        // the bounding boxes: [`tri_bounds`] lane by lane (exact: min and max
        // of the exactly converted, finite vertices; `wide`'s NaN-ignoring
        // min and max, as before dispatch)
        let p = &s.p;
        let tb = [
            from3!(|a| p[0][a].min_num(p[1][a]).min_num(p[2][a])),
            from3!(|a| p[0][a].max_num(p[1][a]).max_num(p[2][a])),
        ];
        let lo = from3!(|a| D::<P>::from_array(lo64[a]));
        let d = from3!(|a| D::<P>::from_array(d64[a]));
        self.setup.compute(&s, &tb, g, lo, d);
        let tiled = D::<P>::bits(s.ok(h) & self.setup.fits);
        for l in 0..n {
            let tri = &self.tri[l];
            let (lo, hi, (ka, kb)) = (self.lo[l], self.hi[l], self.k[l]);
            if tiled >> l & 1 == 0 {
                triangle_columns(tri, t, [lo[0], lo[1], ka], [hi[0], hi[1], kb], pack, sink);
                continue;
            }
            let tile = Tile::from_setup(&self.setup, l, lo, hi);
            pack.start(tri);
            let mut exact = || TileExact::new(tri, g, lo);
            if pack.thin || !tile.run_rows(lo, hi, ka, kb, &mut exact, pack, sink) {
                tile.run(lo, hi, ka, kb, &mut exact, pack, sink);
            }
            pack.flush(sink);
        }
    }
}

/// Tile setup limits (see [`Tile`]): relative and absolute error allowance of
/// the f32 evaluation, and the largest `T` for which it cannot overflow.
const TILE_E_REL: f64 = 1.0 / (1u64 << 19) as f64;
const TILE_E_ABS: f64 = 7.52316384526264e-37; // 2^-120
const TILE_T_MAX: f64 = 1.2676506002282294e30; // 2^100

/// Up to 16 candidate voxels of one triangle, tested in one call of the
/// 16-lane kernel with the triangle broadcast.
///
/// Lane `l` holds candidate voxel `vox[l]` with the box `[lo(v), hi(v + 1)]`
/// from the plane tables — exactly the box the plain row path builds, so each
/// voxel gets the kernel's answer for the same inputs. Packing single voxels
/// (not runs of a row) keeps the lanes full: bunny triangles at 512³ leave
/// only 2–3 candidates per column after the pre-cull, and a 16-voxel row pack
/// was mostly idle lanes. Unused lanes get NaN boxes: the kernel answers "no
/// contact" for them and counts them as decided for its early exits.
pub(crate) struct VoxPack<'a, P: Simd> {
    t: &'a Tables,
    thin: bool,
    tri: Triangle,
    /// `tri` in every lane, built by the first flush after [`VoxPack::start`]
    /// (`tri16_ok`): most tile-path triangles never call the kernel
    tri16: Triangle<P::F16>,
    tri16_ok: bool,
    n: usize,
    vox: [[u32; 3]; 16],
    mn: [[f32; 16]; 3],
    mx: [[f32; 16]; 3],
}

impl<'a, P: Simd> VoxPack<'a, P> {
    /// An empty pack over the plane tables `t`.
    #[inline(always)]
    pub fn new(t: &'a Tables, thin: bool) -> Self {
        let z = V3::broadcast(Vec3::ZERO);
        VoxPack {
            t,
            thin,
            tri: Triangle::default(),
            tri16: Triangle { a: z, b: z, c: z },
            tri16_ok: false,
            n: 0,
            vox: [[0; 3]; 16],
            mn: [[f32::NAN; 16]; 3],
            mx: [[f32::NAN; 16]; 3],
        }
    }

    /// Starts a triangle. The pack must be empty (flushed).
    #[inline]
    fn start(&mut self, tri: &Triangle) {
        debug_assert_eq!(self.n, 0);
        self.tri = *tri;
        self.tri16_ok = false;
    }

    /// Adds candidate voxel `v`.
    #[inline(always)]
    fn push<S: Sink>(&mut self, v: [u32; 3], sink: &mut S) {
        let l = self.n;
        let t = self.t;
        for (a, &va) in v.iter().enumerate() {
            self.mn[a][l] = t.lo[a][va as usize];
            self.mx[a][l] = t.hi[a][va as usize + 1];
        }
        self.vox[l] = v;
        self.n += 1;
        if self.n == 16 {
            self.flush(sink);
        }
    }

    /// Marks voxel `v` without a kernel call (its answer is known: touching),
    /// through the thin filter in thin mode.
    #[inline(always)]
    fn mark<S: Sink>(&mut self, v: [u32; 3], sink: &mut S) {
        if !self.thin || thin_filter(&self.tri, &self.t.grid, v[0], v[1], v[2], 1) != 0 {
            sink.or_row(v[0], v[1], v[2], 1);
        }
    }

    /// Marks the voxels `bits` of the row at `(i0, j, k)` without a kernel
    /// call (their answer is known: touching), through the thin filter in
    /// thin mode.
    #[inline(always)]
    fn mark_row<S: Sink>(&mut self, i0: u32, j: u32, k: u32, bits: u32, sink: &mut S) {
        let bits =
            if self.thin { thin_filter(&self.tri, &self.t.grid, i0, j, k, bits) } else { bits };
        if bits != 0 {
            sink.or_row(i0, j, k, bits);
        }
    }

    /// Tests the pending voxels and ORs the hits into `sink`.
    #[inline(always)]
    pub fn flush<S: Sink>(&mut self, sink: &mut S) {
        if self.n == 0 {
            return;
        }
        self.mn[0][self.n..].fill(f32::NAN);
        if !self.tri16_ok {
            let tri = &self.tri;
            self.tri16 = Triangle {
                a: V3::broadcast(tri.a),
                b: V3::broadcast(tri.b),
                c: V3::broadcast(tri.c),
            };
            self.tri16_ok = true;
        }
        let (mn, mx) = (&self.mn, &self.mx);
        let boxes = Aabb {
            min: V3::new(P::F16::load(&mn[0]), P::F16::load(&mn[1]), P::F16::load(&mn[2])),
            max: V3::new(P::F16::load(&mx[0]), P::F16::load(&mx[1]), P::F16::load(&mx[2])),
        };
        let mut bits = triangle_aabb_conservative::<P::F16>(&self.tri16, &boxes).bits() as u32;
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let [i, j, k] = self.vox[l];
            if !self.thin || thin_filter(&self.tri, &self.t.grid, i, j, k, 1) != 0 {
                sink.or_row(i, j, k, 1);
            }
        }
        self.n = 0;
    }
}

/// Every voxel of the bounding range `lo..=hi` is a candidate (no pre-cull).
#[inline(always)]
fn whole_range<P: Simd, S: Sink>(
    lo: [u32; 3],
    hi: [u32; 3],
    pack: &mut VoxPack<'_, P>,
    sink: &mut S,
) {
    for k in lo[2]..=hi[2] {
        for j in lo[1]..=hi[1] {
            for i in lo[0]..=hi[0] {
                pack.push([i, j, k], sink);
            }
        }
    }
    pack.flush(sink);
}

/// Up to 16 candidate (triangle, voxel) pairs, tested in one call of the
/// 16-lane kernel. Pairs from consecutive triangles share a call, so tiny
/// triangles (a few candidates each) still fill the lanes.
///
/// A triangle is recorded once per batch as a segment (its first lane and
/// its coordinates; again after a flush that interrupts its voxels); per
/// pair only the voxel and its six box coordinates are stored. At a flush
/// the nine triangle coordinate vectors are built in registers: each segment
/// in order overwrites the lanes from its first lane on, so every used lane
/// ends up with its own triangle's coordinates.
pub(crate) struct Batch<'a, P: Simd> {
    t: &'a Tables,
    thin: bool,
    n: usize,
    cur: Triangle,
    vox: [[u32; 3]; 16],
    tris: [Triangle; 16],
    // segments: first lane and triangle (at most one per lane, plus the
    // continuation recorded after a flush)
    nseg: usize,
    seg_first: [f32; 17],
    seg_tri: [Triangle; 17],
    // lane-major box coordinates
    bc: [[f32; 16]; 6],
    path: core::marker::PhantomData<P>,
}

/// `l` in lane `l`.
const LANE_INDEX: [f32; 16] =
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0];

impl<'a, P: Simd> Batch<'a, P> {
    /// An empty batch over the plane tables `t`.
    #[inline(always)]
    pub fn new(t: &'a Tables, thin: bool) -> Self {
        Batch {
            t,
            thin,
            n: 0,
            cur: Triangle::default(),
            vox: [[0; 3]; 16],
            tris: [Triangle::default(); 16],
            nseg: 0,
            seg_first: [0.0; 17],
            seg_tri: [Triangle::default(); 17],
            bc: [[f32::NAN; 16]; 6],
            path: core::marker::PhantomData,
        }
    }

    /// Records the current triangle from lane `n` on.
    #[inline(always)]
    fn segment(&mut self) {
        // (a segment that got no lane is dead: the next one overrides it)
        if self.nseg > 0 && self.seg_first[self.nseg - 1] == self.n as f32 {
            self.nseg -= 1;
        }
        self.seg_first[self.nseg] = self.n as f32;
        self.seg_tri[self.nseg] = self.cur;
        self.nseg += 1;
    }

    /// Makes `tri` the triangle of the following [`Batch::push`]es.
    #[inline]
    fn start(&mut self, tri: &Triangle) {
        self.cur = *tri;
        self.segment();
    }

    /// Queues voxel `v` (stored box `lo..hi`) of the current triangle; with
    /// `keep` false the lane is written but not taken (no branch).
    #[inline(always)]
    fn push<S: Sink>(&mut self, v: [u32; 3], lo: [f32; 3], hi: [f32; 3], keep: bool, sink: &mut S) {
        let l = self.n;
        self.vox[l] = v;
        if self.thin {
            // (read only by the thin filter)
            self.tris[l] = self.cur;
        }
        for a in 0..3 {
            self.bc[a][l] = lo[a];
            self.bc[3 + a][l] = hi[a];
        }
        self.n += keep as usize;
        if self.n == 16 {
            self.flush(sink);
            // (the current triangle may have voxels left; if not, the next
            // triangle's segment, also from lane 0, overrides this one)
            self.segment();
        }
    }

    /// Tests the pending pairs and ORs the hits into `sink`.
    #[inline(always)]
    pub fn flush<S: Sink>(&mut self, sink: &mut S) {
        if self.n == 0 {
            self.nseg = 0;
            return;
        }
        // Unused lanes get NaN boxes: the kernel answers "no contact" for them.
        for q in 0..6 {
            self.bc[q][self.n..].fill(f32::NAN);
        }
        type V<P> = <P as Simd>::F16;
        let lane = V::<P>::load(&LANE_INDEX);
        let mut c = [V::<P>::splat(0.0); 9];
        for (&first, t) in self.seg_first[..self.nseg].iter().zip(&self.seg_tri) {
            let m = lane.ge(V::<P>::splat(first));
            let x = [t.a.x, t.a.y, t.a.z, t.b.x, t.b.y, t.b.z, t.c.x, t.c.y, t.c.z];
            for (cq, &xq) in c.iter_mut().zip(&x) {
                // (a full-lane mask: the select is `wide`'s bitselect)
                *cq = V::<P>::select(m, V::<P>::splat(xq), *cq);
            }
        }
        self.nseg = 0;
        let tri = Triangle::<V<P>> {
            a: V3::new(c[0], c[1], c[2]),
            b: V3::new(c[3], c[4], c[5]),
            c: V3::new(c[6], c[7], c[8]),
        };
        let bc = &self.bc;
        let boxes = Aabb {
            min: V3::new(V::<P>::load(&bc[0]), V::<P>::load(&bc[1]), V::<P>::load(&bc[2])),
            max: V3::new(V::<P>::load(&bc[3]), V::<P>::load(&bc[4]), V::<P>::load(&bc[5])),
        };
        let mut bits = triangle_aabb_conservative::<V<P>>(&tri, &boxes).bits() as u32;
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let [i, j, k] = self.vox[l];
            if !self.thin || thin_filter(&self.tris[l], &self.t.grid, i, j, k, 1) != 0 {
                sink.or_row(i, j, k, 1);
            }
        }
        self.n = 0;
    }
}

/// The plain row loop (no pre-cull): every voxel of the triangle's bounding
/// range, 16 consecutive voxels of a row per kernel call. Kept as the
/// reference path the pre-culled one is tested against.
#[inline(always)]
pub(crate) fn triangle_rows_plain<P: Simd, S: Sink>(
    tri: &Triangle,
    t: &Tables,
    k_lo: u32,
    k_hi: u32,
    thin: bool,
    sink: &mut S,
) {
    let (tmin, tmax) = tri_bounds(tri);
    let Some((i0, i1)) = t.range(0, tmin.x, tmax.x) else { return };
    let Some((j0, j1)) = t.range(1, tmin.y, tmax.y) else { return };
    let Some((ka, kb)) = t.range(2, tmin.z, tmax.z) else { return };
    let (ka, kb) = (ka.max(k_lo), kb.min(k_hi));
    type V<P> = <P as Simd>::F16;
    let tri16 = Triangle::<V<P>> {
        a: V3::broadcast(tri.a),
        b: V3::broadcast(tri.b),
        c: V3::broadcast(tri.c),
    };
    let (lox, hix) = (&t.lo[0], &t.hi[0]);
    for k in ka..=kb {
        let zl = V::<P>::splat(t.lo[2][k as usize]);
        let zh = V::<P>::splat(t.hi[2][k as usize + 1]);
        for j in j0..=j1 {
            let yl = V::<P>::splat(t.lo[1][j as usize]);
            let yh = V::<P>::splat(t.hi[1][j as usize + 1]);
            let mut i = i0;
            while i <= i1 {
                let iu = i as usize;
                let boxes = Aabb {
                    min: V3::new(V::<P>::load(&lox[iu..]), yl, zl),
                    max: V3::new(V::<P>::load(&hix[iu + 1..]), yh, zh),
                };
                let n = i1 - i + 1;
                let valid = if n >= 16 { 0xffff } else { (1u32 << n) - 1 };
                let mut bits =
                    triangle_aabb_conservative::<V<P>>(&tri16, &boxes).bits() as u32 & valid;
                if thin && bits != 0 {
                    bits = thin_filter(tri, &t.grid, i, j, k, bits);
                }
                if bits != 0 {
                    sink.or_row(i, j, k, bits);
                }
                i += 16;
            }
        }
    }
}

/// Keeps the bits whose voxel's axis cross meets the triangle (see module docs).
fn thin_filter(tri: &Triangle, g: &Grid, i0: u32, j: u32, k: u32, bits: u32) -> u32 {
    let p = [tri.a, tri.b, tri.c].map(|v| [v.x as f64, v.y as f64, v.z as f64]);
    if (0..3).all(|a| parallel_to_axis(&p, a)) {
        // A zero-area triangle (a segment or a point) is parallel to every
        // axis, so no axis segment would ever "cross" it and thin mode
        // dropped it; it separates nothing, and is kept as the voxels it
        // touches, as surface mode marks them.
        return bits;
    }
    let half = g.voxel as f64 * 0.5;
    let mut out = 0;
    let mut b = bits;
    while b != 0 {
        let l = b.trailing_zeros();
        b &= b - 1;
        let c = g.center_f64([i0 + l, j, k]);
        if (0..3).any(|a| segment_hits(&p, c, a, half)) {
            out |= 1 << l;
        }
    }
    out
}

/// Whether the triangle's projection along `axis` has zero area by the
/// test of [`segment_hits`] (twice the area within `1e-9` of the largest
/// edge-function term; for a zero-area triangle, which has zero area in every
/// projection, the terms' scale is independent of the centre, taken here at
/// the first vertex).
fn parallel_to_axis(p: &[[f64; 3]; 3], axis: usize) -> bool {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let (e1, e2) = ([p[1][u] - p[0][u], p[1][v] - p[0][v]], [p[2][u] - p[0][u], p[2][v] - p[0][v]]);
    let (t1, t2) = (e1[0] * e2[1], e1[1] * e2[0]);
    (t1 - t2).abs() <= t1.abs().max(t2.abs()) * 1e-9
}

/// Does the triangle `p` meet the segment `c ± half·e_axis`? f64, slack 1e-9.
pub(crate) fn segment_hits(p: &[[f64; 3]; 3], c: [f64; 3], axis: usize, half: f64) -> bool {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut w = [0f64; 3];
    let mut scale = 0f64;
    for e in 0..3 {
        let (a, b) = (p[e], p[(e + 1) % 3]);
        let t1 = (b[u] - a[u]) * (c[v] - a[v]);
        let t2 = (b[v] - a[v]) * (c[u] - a[u]);
        w[(e + 2) % 3] = t1 - t2;
        scale = scale.max(t1.abs()).max(t2.abs());
    }
    let area = w[0] + w[1] + w[2];
    let eps = scale * 1e-9;
    if area.abs() <= eps {
        return false;
    }
    let s = area.signum();
    if w.iter().any(|&x| x * s < -eps) {
        return false;
    }
    let hit = (w[0] * p[0][axis] + w[1] * p[1][axis] + w[2] * p[2][axis]) / area;
    (hit - c[axis]).abs() <= half * (1.0 + 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Baseline;
    use wide::f64x8;

    /// The two non-dyadic grids of the tile tests: voxel size just above 0.1
    /// near the origin, and 0.1 (not an f32) far from it.
    fn tile_grids() -> [Grid; 2] {
        [
            Grid::new(Vec3::new(-1.1, -0.9, -1.05), 0.1 + 1e-7, [24, 20, 22]).unwrap(),
            Grid::new(Vec3::new(1000.25, -3.0e3, 7.0), 0.1, [40, 30, 36]).unwrap(),
        ]
    }

    /// A seeded xorshift64 stream of f32 in `[0, 1)` (24-bit fractions).
    fn unit_f32(mut rng: u64) -> impl FnMut() -> f32 {
        move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 40) as f32 / (1u32 << 24) as f32
        }
    }

    /// Collects marked voxels.
    struct SetSink(Vec<[u32; 3]>);
    impl Sink for SetSink {
        fn or_row(&mut self, i0: u32, j: u32, k: u32, bits: u32) {
            for l in 0..32 {
                if bits >> l & 1 != 0 {
                    self.0.push([i0 + l, j, k]);
                }
            }
        }
    }

    /// `Tile::run_rows` (per-row intervals) gives exactly `Tile::run`'s
    /// voxels (per-16-voxel tiles), after the f64 re-test and the kernel, on
    /// tile-sized triangles of non-dyadic grids: random, slivers, faces on a
    /// grid plane and one ulp off it, axis-aligned, nearly axis-parallel.
    #[test]
    fn run_rows_matches_tile_run() {
        let grids = tile_grids();
        let mut rnd = unit_f32(0x2545_f491_4f6c_dd1d);
        let (mut rows_used, mut total, mut voxels) = (0, 0, 0);
        // triangles whose axes run_rows takes in fixed places, and the others
        // (a face on a y or z grid plane: axes with f32(s_x) = 0 in ROW_LIN)
        let (mut fixed, mut split) = (0, 0);
        for g in &grids {
            let t = Tables::new(g);
            let h = g.voxel;
            let o = g.origin;
            for it in 0..3000 {
                let c = o
                    + Vec3::new(g.dims[0] as f32, g.dims[1] as f32, g.dims[2] as f32) * (0.5 * h)
                    + Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (8.0 * h);
                let mut d = || Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (7.0 * h);
                let (mut a, mut b, mut e) = (c + d(), c + d(), c + d());
                match it % 6 {
                    // a face on the f32 below a grid plane, or one ulp above
                    1 | 2 => {
                        let ax = it / 6 % 3;
                        let n = ((c.get(ax) - o.get(ax)) / h) as i64;
                        let (lo, hi) = g.plane(ax, n);
                        let z = if it % 6 == 1 { lo } else { hi.next_up() };
                        for v in [&mut a, &mut b, &mut e] {
                            v.set(ax, z);
                        }
                    }
                    // a sliver
                    3 => e = a + (b - a) * 0.5 + Vec3::splat(1e-6 * h),
                    // nearly parallel to x (tiny x components of some axes)
                    4 => {
                        b.y = a.y + 1e-5 * h;
                        e.z = a.z - 3e-6 * h;
                    }
                    // one vertex (the lowest or highest in x) on the f32
                    // below an x grid plane or one ulp above it: the x face
                    // axis alone decides the end voxels of rows
                    5 => {
                        let n = ((a.x - o.x) / h) as i64;
                        let (lo, hi) = g.plane(0, n);
                        a.x = if it / 6 % 2 == 0 { lo } else { hi.next_up() };
                        if it / 12 % 2 == 0 {
                            b.x = b.x.max(a.x);
                            e.x = e.x.max(a.x);
                        } else {
                            b.x = b.x.min(a.x);
                            e.x = e.x.min(a.x);
                        }
                    }
                    _ => {}
                }
                let tri = Triangle::new(a, b, e);
                let Some(r) = tri_ranges(&tri, &t) else { continue };
                let [(i0, i1), (j0, j1), (z0, z1)] = r;
                let count = (i1 - i0 + 1) as u64 * (j1 - j0 + 1) as u64 * (z1 - z0 + 1) as u64;
                if count <= PRECULL_MIN || count > TILE_MAX {
                    continue;
                }
                let (lo, hi) = ([i0, j0, z0], [i1, j1, z1]);
                let Some(setup) = TileSetup::one(&tri, g, lo, hi) else {
                    continue;
                };
                let tile = Tile::from_setup(&setup, 0, lo, hi);
                total += 1;
                let mut exact = || TileExact::new(&tri, g, lo);
                let mut pack = VoxPack::<Baseline>::new(&t, false);
                pack.start(&tri);
                let mut a_set = SetSink(Vec::new());
                tile.run(lo, hi, z0, z1, &mut exact, &mut pack, &mut a_set);
                pack.flush(&mut a_set);
                let mut b_set = SetSink(Vec::new());
                pack.start(&tri);
                if tile.run_rows(lo, hi, z0, z1, &mut exact, &mut pack, &mut b_set) {
                    rows_used += 1;
                    if setup.fixed {
                        fixed += 1;
                    } else {
                        split += 1;
                    }
                    pack.flush(&mut b_set);
                    a_set.0.sort_unstable();
                    a_set.0.dedup();
                    b_set.0.sort_unstable();
                    b_set.0.dedup();
                    assert_eq!(a_set.0, b_set.0, "{tri:?} on {g:?}");
                    voxels += a_set.0.len();
                }
            }
        }
        // most tile-sized triangles take the rows path
        assert!(total > 2000 && rows_used * 10 > total * 8, "{rows_used} of {total}");
        // both ways of taking the axes are checked
        assert!(fixed > 1000 && split > 200, "{fixed} fixed, {split} split");
        assert!(voxels > 20 * rows_used, "{voxels} voxels");
    }

    /// The eight-lane setup of [`TileQueue`] gives every triangle the same
    /// tile (bit for bit) and the same degenerate / fits decision as the
    /// one-triangle setup, on random, sliver, degenerate (collinear, point),
    /// axis-aligned and huge triangles of two non-dyadic grids.
    #[test]
    fn batched_setup_matches_scalar() {
        let grids = tile_grids();
        let mut rnd = unit_f32(0x9e37_79b9_7f4a_7c15);
        let (mut tiles, mut other) = (0, 0);
        for g in &grids {
            let h = g.voxel as f64;
            let o = [0, 1, 2].map(|a| g.origin.get(a) as f64);
            for it in 0..2000 {
                let mut tris = [Triangle::default(); 8];
                let mut ranges = [([0u32; 3], [0u32; 3]); 8];
                for (l, tri) in tris.iter_mut().enumerate() {
                    let c = g.origin
                        + Vec3::new(g.dims[0] as f32, g.dims[1] as f32, g.dims[2] as f32)
                            * (0.5 * g.voxel)
                        + Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (8.0 * g.voxel);
                    let mut d =
                        || Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (7.0 * g.voxel);
                    let (a, mut b, mut e) = (c + d(), c + d(), c + d());
                    match (it + l) % 7 {
                        1 => e = a + (b - a) * 0.5,                               // collinear
                        2 => (b, e) = (a, a),                                     // a point
                        3 => e = a + (b - a) * 0.5 + Vec3::splat(1e-6 * g.voxel), // sliver
                        4 => (b.z, e.z) = (a.z, a.z),                             // z-parallel face
                        5 => (b, e) = (a + (b - a) * 1e30, a - (e - a) * 1e30),   // overflows f32
                        _ => {}
                    }
                    *tri = Triangle::new(a, b, e);
                    let (lo, hi) = (
                        [0, 1, 2].map(|_| (rnd() * 8.0) as u32),
                        [0, 1, 2].map(|_| 8 + (rnd() * 9.0) as u32),
                    );
                    ranges[l] = (lo, hi);
                }
                let lanes = |f: &dyn Fn(usize) -> f64| f64x8::new(std::array::from_fn(f));
                let p = [0, 1, 2].map(|v| {
                    [0, 1, 2]
                        .map(|k| lanes(&|l| [tris[l].a, tris[l].b, tris[l].c][v].get(k) as f64))
                });
                let bounds = tris.map(|tr| tri_bounds(&tr));
                let tb = [
                    [0, 1, 2].map(|k| lanes(&|l| bounds[l].0.get(k) as f64)),
                    [0, 1, 2].map(|k| lanes(&|l| bounds[l].1.get(k) as f64)),
                ];
                let lo = [0, 1, 2].map(|a| lanes(&|l| ranges[l].0[a] as f64));
                let d = [0, 1, 2].map(|a| lanes(&|l| (ranges[l].1[a] - ranges[l].0[a]) as f64));
                let s8 = TriSetup::new(p, h, o);
                let mut setup = TileSetup::new();
                setup.compute(&s8, &tb, g, lo, d);
                let used = (s8.ok(h) & setup.fits).to_bitmask();
                for (l, tri) in tris.iter().enumerate() {
                    let (lo, hi) = ranges[l];
                    let s1 = TriSetup::new(tri_f64(tri), h, o);
                    let one = TileSetup::one(tri, g, lo, hi);
                    assert_eq!(one.is_some(), used >> l & 1 != 0, "{tri:?}");
                    assert_eq!(s1.ok(h), s8.ok(h).to_bitmask() >> l & 1 != 0, "{tri:?}");
                    let Some(one) = one else {
                        other += 1;
                        continue;
                    };
                    // every value of the tile, bit for bit (f32)
                    let (a, b) =
                        (Tile::from_setup(&one, 0, lo, hi), Tile::from_setup(&setup, l, lo, hi));
                    for (va, vb) in [
                        (&one.b, &setup.b),
                        (&one.s[0], &setup.s[0]),
                        (&one.s[1], &setup.s[1]),
                        (&one.s[2], &setup.s[2]),
                        (&one.hin, &setup.hin),
                        (&one.hout, &setup.hout),
                    ] {
                        for x in 0..13 {
                            assert_eq!(a.at(va, x).to_bits(), b.at(vb, x).to_bits(), "{tri:?}");
                        }
                    }
                    assert_eq!(a.lw, b.lw);
                    tiles += 1;
                }
            }
        }
        assert!(tiles > 15000 && other > 3000, "{tiles} tiles, {other} other");
    }

    /// Grids for the range tests: non-dyadic voxels, far from the origin, at
    /// `MAX_RES`, and a voxel of 7·10⁻³³.
    fn range_test_grids() -> [Grid; 5] {
        [
            Grid::new(Vec3::new(-0.37, 0.11, -1.3), 0.013, [97, 64, 130]).unwrap(),
            Grid::new(Vec3::new(1000.25, -3.0e3, 7.0), 0.1, [512, 300, 8]).unwrap(),
            Grid::new(Vec3::new(0.0, 0.0, 0.0), 1.0 / 3.0, [24, 20, 22]).unwrap(),
            Grid::new(Vec3::new(-5.0e4, 2.5e4, 1.0e-3), 1.7, [crate::voxel::MAX_RES, 4000, 9])
                .unwrap(),
            Grid::new(Vec3::new(3.0e-30, -1.0e-29, 0.0), 7.0e-33, [1000, 77, 300]).unwrap(),
        ]
    }

    /// A coordinate on axis `a` of `g`: a grid plane's f32 bounds, one ulp
    /// beside them, within 10⁻⁷..10⁻² voxel of a plane (where the fast
    /// paths' margins decide), or anywhere in and around the grid.
    fn range_test_coord(g: &Grid, a: usize, rng: &mut fastrand::Rng) -> f32 {
        let d = g.dims[a] as f64;
        let n = ((rng.f64() * (d + 4.0)) as i64 - 2).max(0);
        let (l, h) = g.plane(a, n);
        let o = g.origin.get(a) as f64;
        match rng.u32(0..24) {
            0 => l,
            1 => h,
            2 => l.next_down(),
            3 => h.next_up(),
            4..=11 => {
                let e = 10f64.powf(-7.0 + 5.0 * rng.f64()) * (rng.f64() - 0.5).signum();
                (o + (n as f64 + e) * g.voxel as f64) as f32
            }
            _ => (o + (rng.f64() * (d + 6.0) - 3.0) * g.voxel as f64) as f32,
        }
    }

    /// The exact answer: [`Tables::range`]'s table walks on each axis.
    fn range_walks(t: &Tables, lo: Vec3, hi: Vec3) -> Option<Ranges> {
        Some([t.range(0, lo.x, hi.x)?, t.range(1, lo.y, hi.y)?, t.range(2, lo.z, hi.z)?])
    }

    /// The one-pass f64 ranges ([`fast_ranges`]) equal the exact table walks
    /// wherever they answer, and answer often.
    #[test]
    fn fast_ranges_match_walks() {
        let mut rng = fastrand::Rng::with_seed(15);
        let (mut fast, mut total) = (0, 0);
        for g in &range_test_grids() {
            let t = Tables::new(g);
            for _ in 0..20_000 {
                let p = [0, 1].map(|_| [0, 1, 2].map(|a| range_test_coord(g, a, &mut rng)));
                let lo =
                    Vec3::new(p[0][0].min(p[1][0]), p[0][1].min(p[1][1]), p[0][2].min(p[1][2]));
                let hi =
                    Vec3::new(p[0][0].max(p[1][0]), p[0][1].max(p[1][1]), p[0][2].max(p[1][2]));
                total += 1;
                if let Some(r) = fast_ranges::<f64x8>(&t, lo, hi) {
                    fast += 1;
                    assert_eq!(r, range_walks(&t, lo, hi), "{lo:?} {hi:?} on {g:?}");
                }
            }
        }
        // the fast path must actually be exercised (most bounds on or next to
        // a plane fall back)
        assert!(fast * 20 > total, "{fast} of {total}");
    }

    /// [`tri_ranges16`] gives every lane the table walks' answer, and its
    /// f32 proof (`fast_ranges16`) covers many lanes.
    #[test]
    fn ranges16_match_walks() {
        let mut rng = fastrand::Rng::with_seed(16);
        let (mut fast, mut total) = (0u32, 0u32);
        for g in &range_test_grids() {
            let t = Tables::new(g);
            for _ in 0..2_000 {
                let tris: [Triangle; 16] = std::array::from_fn(|_| {
                    let mut v = || {
                        let [x, y, z] = [0, 1, 2].map(|a| range_test_coord(g, a, &mut rng));
                        Vec3::new(x, y, z)
                    };
                    Triangle::new(v(), v(), v())
                });
                let r16 = tri_ranges16::<Baseline>(&tris, &t);
                fast += r16.fast.count_ones();
                for (l, tri) in tris.iter().enumerate() {
                    total += 1;
                    let (lo, hi) = tri_bounds(tri);
                    let walk = range_walks(&t, lo, hi);
                    assert_eq!(r16.get(l, tri, &t), walk, "lane {l}: {tri:?} on {g:?}");
                }
            }
        }
        assert!(fast * 20 > total, "{fast} of {total}");
    }
}
