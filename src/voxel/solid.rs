//! Solid mode: the conservative surface plus the voxels whose **centre** is
//! inside the mesh by a parity vote along the three axes.
//!
//! # What "inside" means
//! For each axis `a`, the line through a voxel centre parallel to `a` is cast
//! through the whole grid and its crossings with the triangles are collected.
//! If the line crosses the mesh an **even** number of times, the axis votes:
//! "inside" when an odd number of crossings lie before the centre, "outside"
//! otherwise. If the count is **odd** (the line slipped through a hole or a
//! crack), the axis abstains for the whole line. A centre is inside when the
//! inside votes outnumber the outside votes (ties, and three abstentions, are
//! outside). The solid is the conservative surface ∪ inside centres.
//!
//! On a watertight mesh every line crosses an even number of times and the
//! three votes agree with the exact point-in-polyhedron parity, up to lines
//! passing within rounding of an edge or vertex. Crossings are decided with
//! edge functions evaluated per edge in a **canonical vertex order** (so the
//! two triangles sharing an edge see the same value with opposite signs) and
//! a symbolic tie rule for zeros (the line is nudged by `(ε, ε²)` in the
//! projection plane), so each crossing of an edge is counted exactly once.
//! Duplicated faces add two crossings (parity unchanged); holes make lines
//! abstain instead of flipping whole rows; non-manifold fins add even counts
//! where they are closed. `tests/voxel.rs` measures the agreement with an exact
//! classification.

use super::grid::Grid;
use super::mesh::MeshRef;
use super::storage::DenseBits;
use rayon::prelude::*;

fn edge_fn(p: [f64; 2], q: [f64; 2], c: [f64; 2]) -> (f64, i8) {
    // canonical order: evaluate with the lexicographically smaller vertex first
    let (a, b, s) = if (p[0], p[1]) <= (q[0], q[1]) { (p, q, 1.0) } else { (q, p, -1.0) };
    let du = b[0] - a[0];
    let dv = b[1] - a[1];
    let e = du * (c[1] - a[1]) - dv * (c[0] - a[0]);
    // nudge c by (ε, ε²): e' = e - dv·ε + du·ε²
    let sign = if e != 0.0 {
        e.signum() as i8
    } else if dv != 0.0 {
        (-dv).signum() as i8
    } else {
        du.signum() as i8
    };
    (e * s, sign * s as i8)
}

/// Crossings of the axis-`a` line through `c` (coordinates in the (u, v)
/// plane) with triangle `p`: the a-coordinate of the hit, if it crosses.
fn crossing(p: &[[f64; 3]; 3], a: usize, c: [f64; 2]) -> Option<f64> {
    let (u, v) = ((a + 1) % 3, (a + 2) % 3);
    let q = p.map(|x| [x[u], x[v]]);
    let mut w = [0f64; 3];
    let mut s = [0i8; 3];
    for e in 0..3 {
        let (val, sg) = edge_fn(q[e], q[(e + 1) % 3], c);
        w[(e + 2) % 3] = val;
        s[(e + 2) % 3] = sg;
    }
    if !(s[0] == s[1] && s[1] == s[2]) || s[0] == 0 {
        return None;
    }
    let area = w[0] + w[1] + w[2];
    if area == 0.0 {
        // degenerate projection, yet signs agree: hit at the vertex mean
        return Some((p[0][a] + p[1][a] + p[2][a]) / 3.0);
    }
    Some((w[0] * p[0][a] + w[1] * p[1][a] + w[2] * p[2][a]) / area)
}

/// Index range of voxel centres `o + (n + 1/2)h` inside `[lo, hi]`.
fn centre_range(o: f64, h: f64, d: u32, lo: f64, hi: f64) -> Option<(u32, u32)> {
    let a = ((lo - o) / h - 0.5).ceil().max(0.0);
    let b = ((hi - o) / h - 0.5).floor().min(d as f64 - 1.0);
    if a > b {
        None
    } else {
        Some((a as u32, b as u32))
    }
}

/// Interior of `mesh` on `grid` by the three-axis parity vote (see module
/// docs): a dense set of voxels whose centre is inside. Returns `None` when the
/// grid is too large for dense storage.
pub fn interior(mesh: MeshRef<'_>, grid: &Grid) -> Option<DenseBits> {
    let dims = grid.dims;
    let h = grid.voxel as f64;
    let o = [0, 1, 2].map(|a| grid.origin.get(a) as f64);
    let mut ins: Vec<DenseBits> = Vec::new();
    let mut dec: Vec<DenseBits> = Vec::new();
    for a in 0..3 {
        let (u, v) = ((a + 1) % 3, (a + 2) % 3);
        let nu = dims[u];
        // crossings (row id, coordinate) from every triangle, in parallel chunks
        let mut hits: Vec<(u64, f64)> = mesh
            .indices
            .par_chunks(4096)
            .flat_map_iter(|chunk| {
                let mut out = Vec::new();
                for tri in chunk {
                    let p = tri.map(|ix| {
                        let q = mesh.vertices[ix as usize];
                        [q.x as f64, q.y as f64, q.z as f64]
                    });
                    let lo = |k: usize| p[0][k].min(p[1][k]).min(p[2][k]);
                    let hi = |k: usize| p[0][k].max(p[1][k]).max(p[2][k]);
                    let Some((u0, u1)) = centre_range(o[u], h, dims[u], lo(u), hi(u)) else {
                        continue;
                    };
                    let Some((v0, v1)) = centre_range(o[v], h, dims[v], lo(v), hi(v)) else {
                        continue;
                    };
                    for jv in v0..=v1 {
                        let cv = o[v] + (jv as f64 + 0.5) * h;
                        for ju in u0..=u1 {
                            let cu = o[u] + (ju as f64 + 0.5) * h;
                            if let Some(x) = crossing(&p, a, [cu, cv]) {
                                out.push((jv as u64 * nu as u64 + ju as u64, x));
                            }
                        }
                    }
                }
                out
            })
            .collect();
        hits.par_sort_unstable_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
        let mut inside = DenseBits::new(dims)?;
        // every line votes unless it has an odd crossing count (bits past nx
        // in a row's last word are never inside, so they stay "outside")
        let mut decided = DenseBits::new(dims)?;
        decided.words.fill(!0);
        let na = dims[a];
        let mut s = 0;
        while s < hits.len() {
            let row = hits[s].0;
            let mut e = s;
            while e < hits.len() && hits[e].0 == row {
                e += 1;
            }
            let (ju, jv) = ((row % nu as u64) as u32, (row / nu as u64) as u32);
            let at = |n: u32| {
                let mut vx = [0u32; 3];
                vx[a] = n;
                vx[u] = ju;
                vx[v] = jv;
                vx
            };
            if (e - s) % 2 == 0 {
                for pair in hits[s..e].chunks(2) {
                    if let Some((n0, n1)) = centre_range(o[a], h, na, pair[0].1, pair[1].1) {
                        for n in n0..=n1 {
                            inside.set(at(n));
                        }
                    }
                }
            } else {
                for n in 0..na {
                    decided.clear(at(n));
                }
            }
            s = e;
        }
        ins.push(inside);
        dec.push(decided);
    }
    let mut out = DenseBits::new(dims)?;
    for w in 0..out.words.len() {
        let i = [ins[0].words[w], ins[1].words[w], ins[2].words[w]];
        let o = [0, 1, 2].map(|k| dec[k].words[w] & !i[k]);
        // bit-sliced 2-bit counts, then in > out
        let (i0, i1) = (i[0] ^ i[1] ^ i[2], (i[0] & i[1]) | (i[0] & i[2]) | (i[1] & i[2]));
        let (o0, o1) = (o[0] ^ o[1] ^ o[2], (o[0] & o[1]) | (o[0] & o[2]) | (o[1] & o[2]));
        out.words[w] = (i1 & !o1) | (!(i1 ^ o1) & i0 & !o0);
    }
    Some(out)
}
