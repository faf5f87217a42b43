//! Surface modes: the conservative surface (every voxel whose closed box the
//! triangle touches, decided by [`triangle_aabb_conservative`] on 16 voxels of a
//! row at once) and the thin, 6-separating surface.
//!
//! # Per triangle
//! ```text
//! bbox range: voxels i with hi(i+1) >= tmin.x and lo(i) <= tmax.x   (per axis,
//!             exact comparisons on the stored planes, the kernel's face axes)
//! for each row (j, k) in range:
//!     for i in range, 16 at a time:
//!         boxes = [lo_x(i+l), hi_x(i+l+1)] × [lo_y(j), hi_y(j+1)] × [lo_z(k), hi_z(k+1)]
//!         bits  = triangle_aabb_conservative::<f32x16>(broadcast(tri), boxes)
//! ```
//! The boxes are built from the plane tables on the fly (no stored pack); the
//! triangle is broadcast once, so its per-triangle terms (edges, bbox) are
//! loop-invariant and hoisted by the compiler.
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

use super::grid::Grid;
use super::storage::Sink;
use crate::lane::LaneMask;
use crate::math::V3;
use crate::overlap::triangle_aabb_conservative;
use crate::shapes::{Aabb, Triangle};
use crate::Lane;
use wide::f32x16;

/// Per-axis plane tables (see [`Grid::plane_table`]).
pub(crate) struct Tables {
    pub lo: [Vec<f32>; 3],
    pub hi: [Vec<f32>; 3],
    pub dims: [u32; 3],
    pub grid: Grid,
    pub inv_h: f64,
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
        }
    }

    /// Voxels `a..=b` along `axis` whose slab `[lo(i), hi(i+1)]` meets `[tmin, tmax]`.
    ///
    /// Exact comparisons on the stored planes (the kernel's face axes), found
    /// by an f64 estimate `(x - o) / h` corrected by walking the tables (the
    /// estimate is off by at most one voxel; the walk makes the answer exact).
    #[inline]
    pub fn range(&self, axis: usize, tmin: f32, tmax: f32) -> Option<(u32, u32)> {
        let d = self.dims[axis] as i64;
        let (lo, hi) = (&self.lo[axis], &self.hi[axis]);
        let o = self.grid.origin.get(axis) as f64;
        // only an estimate: the walk below corrects it, so a reciprocal will do
        let inv_h = self.inv_h;
        let est = |x: f32| (((x as f64 - o) * inv_h).floor() as i64).clamp(0, d - 1);
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

/// Triangle's bbox.
#[inline]
pub(crate) fn tri_bounds(t: &Triangle) -> (crate::Vec3, crate::Vec3) {
    (t.a.min(t.b).min(t.c), t.a.max(t.b).max(t.c))
}

/// Relative slack of the f64 pre-cull (plane slab and 2D edge tests): far above
/// the f64 rounding error of those tests (~1e-15 relative), so the cull never
/// drops a voxel whose exact box touches the triangle.
const CULL_SLACK: f64 = 1e-7;

/// Runs one triangle over the voxels of z layers `k_lo..=k_hi` (clipped to its
/// range), ORing marked voxels into `sink`; `thin` selects the 6-separating
/// filter.
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
#[inline]
pub(crate) fn triangle_rows<S: Sink>(
    tri: &Triangle,
    t: &Tables,
    k_lo: u32,
    k_hi: u32,
    batch: &mut Batch<'_>,
    sink: &mut S,
) {
    let (tmin, tmax) = tri_bounds(tri);
    let Some((i0, i1)) = t.range(0, tmin.x, tmax.x) else { return };
    let Some((j0, j1)) = t.range(1, tmin.y, tmax.y) else { return };
    let Some((za, zb)) = t.range(2, tmin.z, tmax.z) else { return };
    let (ka, kb) = (za.max(k_lo), zb.min(k_hi));
    if ka > kb {
        return;
    }
    if i0 == i1 && j0 == j1 && za == zb {
        // The exact face-axis ranges leave one voxel on every axis: the
        // triangle's bounding box lies inside that voxel's stored box, so the
        // triangle touches it in exact arithmetic and the conservative kernel
        // necessarily answers "touching" — skip the call, same answer.
        if !batch.thin() {
            sink.or_row(i0, j0, ka, 1);
            return;
        }
    }
    let lo = [i0, j0, ka];
    let hi = [i1, j1, kb];
    // Small ranges (≤ 8 voxels, the common case at high resolution) skip the
    // f64 setup: every voxel goes to the kernel, which decides alone.
    let count = (i1 - i0 + 1) as u64 * (j1 - j0 + 1) as u64 * (kb - ka + 1) as u64;
    if count <= 8 {
        for k in ka..=kb {
            for j in j0..=j1 {
                for i in i0..=i1 {
                    batch.push(tri, [i, j, k], sink);
                }
            }
        }
        return;
    }

    let p = [tri.a, tri.b, tri.c].map(|v| [v.x as f64, v.y as f64, v.z as f64]);
    let e1 = [0, 1, 2].map(|k| p[1][k] - p[0][k]);
    let e2 = [0, 1, 2].map(|k| p[2][k] - p[0][k]);
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let n1 = n[0].abs() + n[1].abs() + n[2].abs();
    let g = &t.grid;
    let h = g.voxel as f64;
    let o = [0, 1, 2].map(|a| g.origin.get(a) as f64);
    // magnitude scale of every coordinate involved (the triangle, the origin,
    // and the boxes near the triangle, which are within 2h of it); it does not
    // depend on the grid's dimensions, so a window of a grid gives the same voxels
    let mut scale = 2.0 * h;
    for a in 0..3 {
        scale = scale.max(o[a].abs() + 2.0 * h);
        for v in &p {
            scale = scale.max(v[a].abs() + 2.0 * h);
        }
    }
    let w = if n[0].abs() >= n[1].abs() && n[0].abs() >= n[2].abs() {
        0
    } else if n[1].abs() >= n[2].abs() {
        1
    } else {
        2
    };
    // (NaN-safe: a NaN normal also takes the degenerate path)
    let ok = n1 > 0.0 && n[w].abs() * h > 0.0 && n1.is_finite();
    if !ok {
        // degenerate: every voxel of the bounding range is a candidate
        for k in lo[2]..=hi[2] {
            for j in lo[1]..=hi[1] {
                for i in lo[0]..=hi[0] {
                    batch.push(tri, [i, j, k], sink);
                }
            }
        }
        return;
    }
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
    let rm = hh * n1 + CULL_SLACK * n1 * scale;
    let d0 = n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2];
    let inv_nwh = 1.0 / (n[w] * h);
    let base_w = n[w] * (o[w] + hh) - d0;
    for cv in lo[v]..=hi[v] {
        let yv = o[v] + (cv as f64 + 0.5) * h;
        'col: for cu in lo[u]..=hi[u] {
            let xu = o[u] + (cu as f64 + 0.5) * h;
            for ed in &edges {
                // inside the dilated edge: nu·x + nv·y + (c + crit + slack) >= 0
                if ed[0] * xu + ed[1] * yv + ed[2] < 0.0 {
                    continue 'col;
                }
            }
            // value(cw) = base + n_w·h·cw ; keep |value| <= rm
            let base = n[u] * xu + n[v] * yv + base_w;
            // (a reciprocal instead of a division: its rounding is far below
            // the index slack)
            let ta = (-rm - base) * inv_nwh;
            let tb = (rm - base) * inv_nwh;
            let (ta, tb) = if ta <= tb { (ta, tb) } else { (tb, ta) };
            // index slack far above the rounding of the product
            let slack = 1e-6 * (1.0 + ta.abs().max(tb.abs()));
            let a = (ta - slack).ceil().max(lo[w] as f64);
            let b = (tb + slack).floor().min(hi[w] as f64);
            if a > b {
                continue;
            }
            for cw in a as u32..=b as u32 {
                let mut vx = [0u32; 3];
                vx[u] = cu;
                vx[v] = cv;
                vx[w] = cw;
                batch.push(tri, vx, sink);
            }
        }
    }
}

/// Up to 16 candidate (triangle, voxel) pairs, tested in one call of the
/// 16-lane kernel. Pairs from consecutive triangles share a call, so tiny
/// triangles (a few candidates each) still fill the lanes.
pub(crate) struct Batch<'a> {
    t: &'a Tables,
    thin: bool,
    n: usize,
    vox: [[u32; 3]; 16],
    tris: [Triangle; 16],
    // lane-major coordinates: 9 triangle coordinates, then 6 box coordinates
    c: [[f32; 16]; 15],
}

impl<'a> Batch<'a> {
    /// An empty batch over the plane tables `t`.
    pub fn new(t: &'a Tables, thin: bool) -> Self {
        Batch {
            t,
            thin,
            n: 0,
            vox: [[0; 3]; 16],
            tris: [Triangle::default(); 16],
            c: [[f32::NAN; 16]; 15],
        }
    }

    #[inline]
    fn push<S: Sink>(&mut self, tri: &Triangle, v: [u32; 3], sink: &mut S) {
        let l = self.n;
        self.vox[l] = v;
        self.tris[l] = *tri;
        let tc = [tri.a.x, tri.a.y, tri.a.z, tri.b.x, tri.b.y, tri.b.z, tri.c.x, tri.c.y, tri.c.z];
        for (q, x) in tc.iter().enumerate() {
            self.c[q][l] = *x;
        }
        for (a, &va) in v.iter().enumerate() {
            self.c[9 + a][l] = self.t.lo[a][va as usize];
            self.c[12 + a][l] = self.t.hi[a][va as usize + 1];
        }
        self.n += 1;
        if self.n == 16 {
            self.flush(sink);
        }
    }

    /// Whether the thin filter is on.
    #[inline]
    pub fn thin(&self) -> bool {
        self.thin
    }

    /// Tests the pending pairs and ORs the hits into `sink`.
    #[inline]
    pub fn flush<S: Sink>(&mut self, sink: &mut S) {
        if self.n == 0 {
            return;
        }
        // Unused lanes get NaN boxes: the kernel answers "no contact" for them.
        for q in 9..15 {
            self.c[q][self.n..].fill(f32::NAN);
        }
        let c = &self.c;
        let v = |q: usize| f32x16::new(c[q]);
        let tri = Triangle::<f32x16> {
            a: V3::new(v(0), v(1), v(2)),
            b: V3::new(v(3), v(4), v(5)),
            c: V3::new(v(6), v(7), v(8)),
        };
        let boxes = Aabb { min: V3::new(v(9), v(10), v(11)), max: V3::new(v(12), v(13), v(14)) };
        let mut bits = triangle_aabb_conservative::<f32x16>(&tri, &boxes).bits() as u32;
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
pub(crate) fn triangle_rows_plain<S: Sink>(
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
    let tri16 = Triangle::<f32x16> {
        a: V3::broadcast(tri.a),
        b: V3::broadcast(tri.b),
        c: V3::broadcast(tri.c),
    };
    let (lox, hix) = (&t.lo[0], &t.hi[0]);
    for k in ka..=kb {
        let zl = f32x16::splat(t.lo[2][k as usize]);
        let zh = f32x16::splat(t.hi[2][k as usize + 1]);
        for j in j0..=j1 {
            let yl = f32x16::splat(t.lo[1][j as usize]);
            let yh = f32x16::splat(t.hi[1][j as usize + 1]);
            let mut i = i0;
            while i <= i1 {
                let iu = i as usize;
                let boxes = Aabb {
                    min: V3::new(<f32x16 as Lane>::load(&lox[iu..]), yl, zl),
                    max: V3::new(<f32x16 as Lane>::load(&hix[iu + 1..]), yh, zh),
                };
                let n = i1 - i + 1;
                let valid = if n >= 16 { 0xffff } else { (1u32 << n) - 1 };
                let mut bits =
                    triangle_aabb_conservative::<f32x16>(&tri16, &boxes).bits() as u32 & valid;
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
