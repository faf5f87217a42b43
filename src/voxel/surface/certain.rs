//! The f64 column walk of large triangles (Schwarz–Seidel classification
//! with a proven margin): `Certain`.

use super::batch::{whole_range, VoxPack};
use super::setup::{tri_f64, TriSetup};
use super::{tri_bounds, Tables, CULL_SLACK};
use crate::lane::F64Lanes;
use crate::shapes::Triangle;
use crate::simd::vox::VoxF64;
use crate::simd::Simd;
use crate::voxel::grid::Grid;
use crate::voxel::storage::Sink;

/// The column walk of one triangle over the voxels `lo..=hi` (its range,
/// clipped to the slab): degenerate triangles test the whole range, the
/// others take [`Certain`]'s classification (see [`triangle_rows`]).
#[inline(always)]
pub(super) fn triangle_columns<P: Simd, S: Sink>(
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
pub(super) const SURE_SLACK: f64 = 1e-9;

/// `A = e_k × f` (a zero vector when the edge is parallel to `e_k`).
#[inline(always)]
pub(super) fn cross_axis<F: F64Lanes>(k: usize, f: [F; 3]) -> [F; 3] {
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
pub(super) struct Certain<D> {
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
    pub(super) fn new(
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
    pub(super) fn column(&self, xu: f64, yv: f64) -> Option<bool> {
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
    pub(super) fn column_base(&self, xu: f64, yv: f64) -> D {
        self.ku * D::splat(xu) + self.kv * D::splat(yv) + self.kc
    }

    /// Voxel `cw` of a column (with `column_base` `b`): `Some(true)` for a
    /// sure hit, `None` for a sure miss, `Some(false)` when undecided.
    #[inline(always)]
    pub(super) fn voxel(&self, b: D, cw: u32, h: f64) -> Option<bool> {
        let zw = self.ow + (cw as f64 - self.off) * h;
        let d = (b + self.kw * D::splat(zw)).abs();
        if D::bits(d.gt(self.out)) != 0 {
            None
        } else {
            Some(D::bits(d.le(self.half)) == 0xff)
        }
    }
}
