//! The voxel ranges of triangles' bounding boxes, one triangle or 16 at a
//! time, for binning and for the per-triangle paths.

use super::{tri_bounds, Ranges, Tables, TWO_52, TWO_M140, TWO_M22, TWO_M50};
use crate::shapes::Triangle;
use crate::simd::unroll::from3;
use crate::simd::vox::{VoxF32, VoxF64, VoxI32};
use crate::simd::Simd;
use crate::LaneMask;
use crate::Vec3;

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
pub(super) fn fast_ranges<D: VoxF64>(t: &Tables, lo: Vec3, hi: Vec3) -> Option<Option<Ranges>> {
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
    pub(super) fast: u32,
    pub(super) miss: u32,
    pub(super) finite: u32,
    pub(super) idx: [[[i32; 16]; 2]; 3],
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
pub(super) fn fast_ranges16<F: VoxF32>(tris: &[Triangle; 16], t: &Tables) -> Ranges16 {
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
