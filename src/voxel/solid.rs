//! Solid mode: the conservative surface plus the voxels whose **centre** is
//! inside the mesh by a vote of three axis lines, each line deciding by the
//! nonzero winding rule when its crossings balance and by parity otherwise.
//!
//! # What "inside" means
//! For each axis `a`, the line through a voxel centre parallel to `a` is cast
//! through the whole grid and its crossings with the triangles are collected,
//! each with a **sign**: `+1` when the triangle's normal `(p1-p0)×(p2-p0)` has a
//! positive `a` component (the line leaves a counter-clockwise closed surface),
//! `-1` when negative. The line's vote for a centre is:
//! - **balanced** line (the signs sum to 0, as on every line through
//!   consistently oriented closed surfaces): *inside* iff the winding number
//!   at the centre, `-Σ signs of the crossings before it`, is **nonzero**;
//! - unbalanced line with an **even** crossing count (inconsistent
//!   orientation, e.g. a flipped face): *inside* iff an **odd** number of
//!   crossings lie before the centre (parity);
//! - **odd** crossing count (the line slipped through a hole or crack, or met
//!   one extra copy of a face): the axis **abstains** for the whole line.
//!
//! A centre is inside when its inside votes outnumber its outside votes (ties,
//! and three abstentions, are outside). The solid is the conservative surface
//! ∪ the inside centres' voxels.
//!
//! Consequences: on a consistently oriented closed mesh made of overlapping
//! closed parts (a union modelled as overlapping shells) the overlap is
//! inside (winding 2, where parity would say outside); a hollow shell whose
//! inner surface faces inward (opposite orientation) has an *outside* cavity
//! (winding 0), while a cavity bounded by a *same*-oriented inner surface is
//! *inside* (winding 2: nested same-orientation shells fill up). An inside-out
//! mesh (all faces clockwise) is filled like the correctly oriented one
//! (winding −1 ≠ 0). One flipped face unbalances only the lines through it,
//! which fall back to parity and stay right. One extra copy of a face adds
//! **one** crossing to the lines through it (their count turns odd: they
//! abstain and the other two axes decide); two extra copies add two crossings
//! of one sign, which unbalances those lines (parity, still right). A hole
//! makes the lines through it abstain instead of flipping whole rows; a
//! single-sheet non-manifold fin adds one crossing (abstain) and a
//! double-sided fin two opposite ones (balanced, zero-length interval).
//!
//! On a watertight consistently oriented mesh every line is balanced and the
//! three votes agree with the exact winding number (and with the exact
//! point-in-polyhedron parity where the mesh does not self-overlap), up to
//! lines passing within rounding of an edge or vertex. Crossings are decided
//! with edge functions evaluated per edge in a **canonical vertex order** (so
//! the two triangles sharing an edge see the same value with opposite signs)
//! and a symbolic tie rule for zeros (the line is nudged by `(ε, ε²)` in the
//! projection plane), so each crossing of an edge is counted exactly once.
//!
//! `tests/voxel.rs` compares every non-surface centre of a seeded sample (plus
//! the band of centres next to the surface) with the generalized winding
//! number (Jacobson et al. 2013; solid angles by van Oosterom–Strackee in f64,
//! inside iff > 1/2): zero disagreements on spot and armadillo (watertight,
//! 66³, 47 394 and 44 393 centres). On the open or non-manifold meshes, at 66³
//! (pad 1), non-surface centres: bunny (5 holes in the base) 99.903 %
//! (51 650 / 51 700; 17 solid-only, 33 winding-only), teapot (open unwelded
//! patches, lid and spout overlapping the body) 100 % (40 271; plain parity:
//! 99.824 %, the 71 misses are overlaps), dragon (non-manifold edges,
//! duplicated triangles) 100 % (43 822). The winding number is itself only a
//! convention on open meshes: these are agreement figures, not error rates.

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

/// Crossing of the axis-`a` line through `c` (coordinates in the (u, v)
/// plane) with triangle `p`: the a-coordinate of the hit and its **sign**, if
/// it crosses. The sign is that of the triangle's normal component along `a`
/// (`(p1 - p0) × (p2 - p0)`, i.e. the sign the three edge functions share:
/// they sum to twice the projected signed area): `+1` where the line leaves a
/// counter-clockwise (outward-normal) closed surface, `-1` where it enters.
fn crossing(p: &[[f64; 3]; 3], a: usize, c: [f64; 2]) -> Option<(f64, i8)> {
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
        return Some(((p[0][a] + p[1][a] + p[2][a]) / 3.0, s[0]));
    }
    Some(((w[0] * p[0][a] + w[1] * p[1][a] + w[2] * p[2][a]) / area, s[0]))
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

/// Interior of `mesh` on `grid` by the three-axis vote (see module docs): a
/// dense set of voxels whose centre is inside. Returns `None` when the grid is
/// too large for dense storage.
pub fn interior(mesh: MeshRef<'_>, grid: &Grid) -> Option<DenseBits> {
    let dims = grid.dims;
    let h = grid.voxel as f64;
    let o = [0, 1, 2].map(|a| grid.origin.get(a) as f64);
    let mut ins: Vec<DenseBits> = Vec::new();
    let mut dec: Vec<DenseBits> = Vec::new();
    for a in 0..3 {
        let (u, v) = ((a + 1) % 3, (a + 2) % 3);
        let nu = dims[u];
        // crossings (key, coordinate) from every triangle, in parallel chunks;
        // key = 2·row id + (sign > 0), which keeps an entry at 16 bytes
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
                            if let Some((x, sg)) = crossing(&p, a, [cu, cv]) {
                                let row = jv as u64 * nu as u64 + ju as u64;
                                out.push((row << 1 | (sg > 0) as u64, x));
                            }
                        }
                    }
                }
                out
            })
            .collect();
        // the sign breaks ties at equal coordinates so the order (and the
        // result) does not depend on the thread count
        hits.par_sort_unstable_by(|x, y| {
            (x.0 >> 1).cmp(&(y.0 >> 1)).then(x.1.total_cmp(&y.1)).then(x.0.cmp(&y.0))
        });
        let mut inside = DenseBits::new(dims)?;
        // every line votes unless it has an odd crossing count (bits past nx
        // in a row's last word are never inside, so they stay "outside")
        let mut decided = DenseBits::new(dims)?;
        decided.words.fill(!0);
        let na = dims[a];
        let mut s = 0;
        while s < hits.len() {
            let row = hits[s].0 >> 1;
            let mut e = s;
            while e < hits.len() && hits[e].0 >> 1 == row {
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
            let line = &hits[s..e];
            let sign = |k: usize| if line[k].0 & 1 == 1 { 1i64 } else { -1 };
            let balanced = (0..line.len()).map(sign).sum::<i64>() == 0;
            let mut fill = |x0: f64, x1: f64| {
                if let Some((n0, n1)) = centre_range(o[a], h, na, x0, x1) {
                    for n in n0..=n1 {
                        inside.set(at(n));
                    }
                }
            };
            if balanced {
                // nonzero rule: winding after crossing k is -Σ signs[..=k]
                // (entering a CCW surface is a -1 crossing)
                let mut wind = 0i64;
                for k in 0..line.len() - 1 {
                    wind -= sign(k);
                    if wind != 0 {
                        fill(line[k].1, line[k + 1].1);
                    }
                }
            } else if line.len().is_multiple_of(2) {
                // even-odd rule
                for pair in line.chunks(2) {
                    fill(pair[0].1, pair[1].1);
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
