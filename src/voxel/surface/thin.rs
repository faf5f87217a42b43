//! The thin (6-separating) filter: a voxel is kept when the triangle meets
//! one of its three axis segments (see the module docs of `surface`).

use crate::shapes::Triangle;
use crate::voxel::grid::Grid;

/// Keeps the bits whose voxel's axis cross meets the triangle (see module docs).
pub(super) fn thin_filter(tri: &Triangle, g: &Grid, i0: u32, j: u32, k: u32, bits: u32) -> u32 {
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
pub(super) fn parallel_to_axis(p: &[[f64; 3]; 3], axis: usize) -> bool {
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
