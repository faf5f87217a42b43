//! Tile classification of middle-sized triangles: f32 rows of 16 voxels with
//! a proven margin, set up in f64 for 8 triangles at once (`TileQueue`).

use super::batch::VoxPack;
use super::certain::triangle_columns;
use super::setup::{tile_axes, TileExact, TileFrame, TriSetup, TILE_D};
use super::Tables;
#[cfg(test)]
use super::{setup::tri_f64, tri_bounds};
use crate::lane::F64Lanes;
use crate::shapes::Triangle;
use crate::simd::unroll::from3;
use crate::simd::vox::{VoxF32, VoxF64, VoxI32};
use crate::simd::Simd;
use crate::voxel::grid::Grid;
use crate::voxel::storage::{Runs, Sink};
use crate::{Lane, LaneMask};

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
pub(super) struct Tile<'s, F: F64Lanes> {
    pub(super) setup: &'s TileSetup<F>,
    pub(super) l: usize,
    /// log2 of the tile width along x
    pub(super) lw: u32,
}

/// [`Tile`]'s values for one triangle or eight (a lane each), computed in
/// f64 and rounded to f32: per axis `b`, the steps `s_x, s_y, s_z` and
/// `half ∓ E`; a zero axis keeps `b = s = 0` and infinite bounds (it
/// separates nothing). `fits` is false where the values could overflow f32.
pub(super) struct TileSetup<F: F64Lanes> {
    pub(super) b: [F::F32; 13],
    pub(super) s: [[F::F32; 13]; 3],
    pub(super) hin: [F::F32; 13],
    pub(super) hout: [F::F32; 13],
    pub(super) fits: F::Mask,
    /// the per-row form ([`Tile::run_rows`]) of the axes with `f32(s_x) ≠ 0`:
    /// `G_lo + ω`, `G_hi − ω`, `S_Y`, `S_Z` (other axes: the neutral
    /// `−8192, 8192, 0, 0`), `Δ''`, and whether every such axis has
    /// `R ≤ ROW_R_MAX`
    pub(super) rows: [[F::F32; 13]; 4],
    pub(super) delta: F::F32,
    pub(super) rows_ok: F::Mask,
    /// every axis of [`ROW_LIN`] has `f32(s_x) ≠ 0` or is a zero axis, so
    /// [`Tile::run_rows`] can take the axes in their fixed places
    pub(super) fixed: F::Mask,
}

impl<F: F64Lanes> TileSetup<F> {
    /// An unset setup (every value is written by [`TileSetup::compute`]).
    #[inline(always)]
    pub(super) fn new() -> TileSetup<F> {
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
    pub(super) fn compute(
        &mut self,
        s: &TriSetup<F>,
        tb: &[[F; 3]; 2],
        g: &Grid,
        lo: [F; 3],
        d: [F; 3],
    ) {
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
    pub(super) fn one(
        tri: &Triangle,
        g: &Grid,
        lo: [u32; 3],
        hi: [u32; 3],
    ) -> Option<TileSetup<f64>> {
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
    pub(super) fn from_setup(
        setup: &'s TileSetup<F>,
        l: usize,
        lo: [u32; 3],
        hi: [u32; 3],
    ) -> Self {
        let ext = hi[0] - lo[0] + 1;
        let lw = if ext >= 16 { 4 } else { ext.next_power_of_two().trailing_zeros() };
        Tile { setup, l, lw }
    }

    /// Axis `x` of the value `v` (one of the setup's arrays).
    #[inline(always)]
    pub(super) fn at(&self, v: &[F::F32; 13], x: usize) -> f32 {
        F::f32_lane(&v[x], self.l)
    }

    /// [`Tile::run`]'s f32 test of the one voxel at offsets `o` from the
    /// range's corner (its tile at `(x0, y0) = (o_x, o_y)`, lane `dx = dy =
    /// 0`: the same operations, so the same answer and the same proof):
    /// `Some(true)` sure hit, `None` sure miss, `Some(false)` undecided.
    pub(super) fn voxel(&self, o: [u32; 3]) -> Option<bool> {
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
    pub(super) fn lanes<V: Lane>(&self, v: &[F::F32; 13]) -> V {
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
    pub(super) fn run<P: Simd, S: Sink>(
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
pub(super) const ROW_D: [[[f32; 16]; 17]; 2] = {
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
pub(super) const ROW_DI: [[[u8; 16]; 17]; 2] = {
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
pub(super) const ROW_W_REL: f64 = 1.0 / (1u64 << 20) as f64;
pub(super) const ROW_W_ABS: f64 = 1.0 / (1u64 << 40) as f64;
pub(super) const ROW_R_MAX: f64 = 4096.0;
pub(super) const ROW_SLACK: f64 = 1.0 / (1u64 << 10) as f64;
/// `2⁻¹⁵⁰`: an f64 rounds to the f32 zero iff its magnitude is at most this
/// (half the smallest f32 subnormal; the tie goes to the even zero).
pub(super) const F32_ZERO_MAX: f64 = 7.006492321624085e-46;
/// A row bound no axis reaches (`R ≤ ROW_R_MAX`, so `|G' + Y·S_Y + Z·S_Z|`
/// stays below `2·ROW_R_MAX`): the bounds of a zero axis in a fixed place
/// (neutral in the max / min).
pub(super) const ROW_NEUTRAL: f64 = 8192.0;
/// The axes [`Tile::run_rows`] takes in fixed places (when the setup's
/// `fixed` holds): the normal, the x face and the edge axes `e_y × f_i`,
/// `e_z × f_i`, whose x component (`n_x`, 1, `f_z`, `−f_y`) is nonzero on
/// most triangles (linear along a row); and the y, z faces and `e_x × f_i`,
/// whose x component is exactly zero (constant along a row).
/// (The x face, axis 1, comes first: [`Tile::run_rows`] starts the row
/// bounds from it and loops over the other seven.)
pub(super) const ROW_LIN: [usize; 8] = [1, 0, 5, 6, 8, 9, 11, 12];
pub(super) const ROW_CON: [usize; 5] = [2, 3, 4, 7, 10];

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
    pub(super) fn run_rows<P: Simd, S: Sink>(
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
    pub(super) fn rows_loop<P: Simd, S: Sink>(
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
    pub(super) fn push<S: Sink>(
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
pub(super) const TILE_E_REL: f64 = 1.0 / (1u64 << 19) as f64;
pub(super) const TILE_E_ABS: f64 = 7.52316384526264e-37; // 2^-120
pub(super) const TILE_T_MAX: f64 = 1.2676506002282294e30; // 2^100
