//! Per-triangle f64 setup shared by the tile classifications: the 13 SAT
//! axes as linear forms in the voxel offsets, and the exact f64 voxel test.

use super::certain::{cross_axis, SURE_SLACK};
use super::tri_bounds;
use crate::lane::F64Lanes;
use crate::shapes::Triangle;
use crate::simd::unroll::{from3, map3};
use crate::voxel::grid::Grid;

/// Triangles whose bounding range holds more than [`PRECULL_MIN`] and at most
/// this many voxels take the tile classification ([`Tile`]), which tests every
/// voxel of the range (work ∝ volume); larger ones, whose range is mostly
/// empty, keep the column walk of [`Certain`] (work ∝ area). The choice uses
/// the unclipped range, so it does not depend on the slab layout.
pub(super) const TILE_MAX: u64 = 512;

/// `(dx, dy)` of lane `l` in a tile of `W = 2^lw` voxels along x and `16 / W`
/// rows along y: `(l % W, l / W)` (small integers: exact in f32).
pub(super) const TILE_D: [[[f32; 16]; 5]; 2] = {
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
pub(super) fn tri_f64(tri: &Triangle) -> [[f64; 3]; 3] {
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
pub(super) struct TriSetup<F> {
    pub(super) p: [[F; 3]; 3],
    pub(super) e1: [F; 3],
    pub(super) e2: [F; 3],
    pub(super) n: [F; 3],
    pub(super) n1: F,
    pub(super) nabs1: F,
    pub(super) scale: F,
}

impl<F: F64Lanes> TriSetup<F> {
    /// The setup of the triangle(s) `p` on a grid of voxel size `h` and
    /// base `o` (every coordinate is computed from it: [`Grid::coord_f64`]).
    #[inline(always)]
    pub(super) fn new(p: [[F; 3]; 3], h: f64, o: [f64; 3]) -> TriSetup<F> {
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
    pub(super) fn ok(&self, h: f64) -> F::Mask {
        let n = self.n;
        let nmax = n[0].abs().max(n[1].abs()).max(n[2].abs());
        let zero = F::splat(0.0);
        self.n1.gt(zero) & (nmax * F::splat(h)).gt(zero) & self.n1.is_finite()
    }
}

/// One SAT axis of [`tile_axes`]: `A`, the projections `q0, q1` spanning
/// the triangle's interval `[min(q0, q1), max(q0, q1)]`, `|A|₁` and the f64
/// margin `M` of [`Certain`].
pub(super) type AxisIn<F> = ([F; 3], F, F, F, F);

/// The 13 SAT axes of a non-degenerate triangle: axis 0 the normal, 1–3 the
/// faces, 4–12 the edge axes `e_k × f_i`. The caller skips axes with
/// `|A|₁ = 0` (zero edge axes separate nothing). `tb` holds the triangle's
/// bounding box (its f32 [`tri_bounds`], in f64). (An array, not a callback
/// per axis: the callback was not inlined into the eight-lane setup.)
#[inline(always)]
pub(super) fn tile_axes<F: F64Lanes>(s: &TriSetup<F>, tb: &[[F; 3]; 2]) -> [AxisIn<F>; 13] {
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
pub(super) struct TileFrame<F> {
    c0: [F; 3],
    h: F,
}

impl<F: F64Lanes> TileFrame<F> {
    /// The frame of ranges starting at voxel `lo` (integers, as f64).
    #[inline(always)]
    pub(super) fn new(g: &Grid, lo: [F; 3]) -> TileFrame<F> {
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
    pub(super) fn axis(&self, a: [F; 3], q0: F, q1: F, a1: F) -> (F, F, [F; 3]) {
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
pub(super) struct TileExact {
    b: [f64; 13],
    s: [[f64; 13]; 3],
    lo: [f64; 13],
    hi: [f64; 13],
}

impl TileExact {
    /// The test of `tri` (non-degenerate) over the range starting at `lo`.
    pub(super) fn new(tri: &Triangle, g: &Grid, lo: [u32; 3]) -> TileExact {
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
    pub(super) fn voxel(&self, o: [u32; 3]) -> Option<bool> {
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
