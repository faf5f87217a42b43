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

/// Index range of voxel centres ([`Grid::centre_f64`]) inside `[lo, hi]` along `axis`.
fn centre_range(grid: &Grid, axis: usize, lo: f64, hi: f64) -> Option<(u32, u32)> {
    // (relative to the base, in unpadded indices, the offset added after
    // rounding: the same decisions whatever the padding)
    let (o, h, off) = (grid.base.get(axis) as f64, grid.voxel as f64, grid.offset as f64);
    let a = (((lo - o) / h - 0.5).ceil() + off).max(0.0);
    let b = (((hi - o) / h - 0.5).floor() + off).min(grid.dims[axis] as f64 - 1.0);
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
    let mut out = DenseBits::new(grid.dims)?;
    add_interior(mesh, grid, &mut out);
    Some(out)
}

/// ORs the interior of `mesh` on `grid` (the voxels [`interior`] returns)
/// into `bits`, which must have the grid's dimensions (the solid pass ORs
/// it into the surface grid in place).
///
/// Memory: besides `bits`, the crossings of one axis at a time (16 bytes
/// each) and the fill spans of the three axes (24 bytes per span, about
/// half a crossing each), plus a few layers of words per thread. The vote
/// never needs a grid per axis: the lines along x and y lie in one z
/// layer, so their votes are computed layer by layer, and the votes along
/// z are swept upward through the layers (a span sets its line's bit at
/// its first layer and clears it after its last). Whether a line abstains
/// is a property of the whole line, so it is one bit per line.
pub fn add_interior(mesh: MeshRef<'_>, grid: &Grid, bits: &mut DenseBits) {
    assert_eq!(bits.dims, grid.dims, "add_interior: grid and bits differ in dimensions");
    let dims = grid.dims;
    let [nx, ny, nz] = dims.map(|d| d as usize);
    let wpr = bits.words_per_row;
    let spans = [0, 1, 2].map(|a| axis_spans(mesh, grid, a));
    let [sx, sy, sz] = &spans;
    // The z-axis spans bucketed by first layer and by the layer after their
    // last (a counting sort of span indices).
    let bucket = |layer: &dyn Fn(&Span) -> usize| -> (Vec<usize>, Vec<u32>) {
        let mut start = vec![0usize; nz + 2];
        for s in &sz.spans {
            start[layer(s) + 1] += 1;
        }
        for l in 0..=nz {
            start[l + 1] += start[l];
        }
        let mut at = start.clone();
        let mut idx = vec![0u32; sz.spans.len()];
        for (n, s) in sz.spans.iter().enumerate() {
            idx[at[layer(s)]] = n as u32;
            at[layer(s)] += 1;
        }
        (start, idx)
    };
    let (open_at, opens) = bucket(&|s| s.n0 as usize);
    let (close_at, closes) = bucket(&|s| s.n1 as usize + 1);
    // z lines that abstain, as a layer mask (bit set: the line votes)
    let layer_words = ny * wpr;
    let mut z_votes = vec![!0u64; layer_words];
    for &key in &sz.odd {
        let (i, j) = ((key % nx as u64) as usize, (key / nx as u64) as usize);
        z_votes[j * wpr + i / 64] &= !(1 << (i % 64));
    }
    // layers per task: a few tasks per thread; each starts its sweep by
    // scanning all z spans for those open at its first layer
    let tasks = (4 * rayon::current_num_threads()).clamp(1, nz);
    let per_task = nz.div_ceil(tasks);
    bits.words.par_chunks_mut(per_task * layer_words).enumerate().for_each(|(t, words)| {
        let k0 = t * per_task;
        let mut zin = vec![0u64; layer_words];
        for s in sz.spans.iter().filter(|s| (s.n0 as usize) <= k0 && k0 <= s.n1 as usize) {
            set_bit(&mut zin, wpr, s.key, nx);
        }
        let mut xin = vec![0u64; layer_words];
        let mut yin = vec![0u64; layer_words];
        let mut x_votes = vec![true; ny];
        let mut y_votes = vec![!0u64; wpr];
        for (l, layer) in words.chunks_mut(layer_words).enumerate() {
            let k = k0 + l;
            if l > 0 {
                for &s in &closes[close_at[k]..close_at[k + 1]] {
                    let s = &sz.spans[s as usize];
                    let (i, j) = ((s.key % nx as u64) as usize, (s.key / nx as u64) as usize);
                    zin[j * wpr + i / 64] &= !(1 << (i % 64));
                }
                for &s in &opens[open_at[k]..open_at[k + 1]] {
                    set_bit(&mut zin, wpr, sz.spans[s as usize].key, nx);
                }
            }
            // x lines of layer k: key k·ny + j, spans along i
            xin.fill(0);
            x_votes.fill(true);
            let lines = (k * ny) as u64..((k + 1) * ny) as u64;
            for s in sx.in_keys(&lines) {
                let j = (s.key - lines.start) as usize;
                let row = &mut xin[j * wpr..(j + 1) * wpr];
                for i in s.n0..=s.n1 {
                    row[i as usize / 64] |= 1 << (i % 64);
                }
            }
            for &key in sx.odd_in(&lines) {
                x_votes[(key - lines.start) as usize] = false;
            }
            // y lines of layer k: key k·nx + i, spans along j
            yin.fill(0);
            y_votes.fill(!0);
            let lines = (k * nx) as u64..((k + 1) * nx) as u64;
            for s in sy.in_keys(&lines) {
                let i = (s.key - lines.start) as usize;
                for j in s.n0..=s.n1 {
                    yin[j as usize * wpr + i / 64] |= 1 << (i % 64);
                }
            }
            for &key in sy.odd_in(&lines) {
                let i = (key - lines.start) as usize;
                y_votes[i / 64] &= !(1 << (i % 64));
            }
            for (w, out) in layer.iter_mut().enumerate() {
                let (j, c) = (w / wpr, w % wpr);
                let i = [zin[w], xin[w], yin[w]];
                let votes = [z_votes[w], if x_votes[j] { !0 } else { 0 }, y_votes[c]];
                let o = [0, 1, 2].map(|a| votes[a] & !i[a]);
                // bit-sliced 2-bit counts, then in > out
                let (i0, i1) = (i[0] ^ i[1] ^ i[2], (i[0] & i[1]) | (i[0] & i[2]) | (i[1] & i[2]));
                let (o0, o1) = (o[0] ^ o[1] ^ o[2], (o[0] & o[1]) | (o[0] & o[2]) | (o[1] & o[2]));
                *out |= (i1 & !o1) | (!(i1 ^ o1) & i0 & !o0);
            }
        }
    });
}

/// Sets the bit of z line `key = j·nx + i` in a layer mask.
fn set_bit(layer: &mut [u64], wpr: usize, key: u64, nx: usize) {
    let (i, j) = ((key % nx as u64) as usize, (key / nx as u64) as usize);
    layer[j * wpr + i / 64] |= 1 << (i % 64);
}

/// The centres `n0..=n1` along a line that its vote calls inside.
struct Span {
    key: u64,
    n0: u32,
    n1: u32,
}

/// One axis's votes: the inside spans of every line (sorted by line key,
/// disjoint and not adjacent within a line) and the lines that abstain
/// (sorted).
struct AxisSpans {
    spans: Vec<Span>,
    odd: Vec<u64>,
}

impl AxisSpans {
    fn in_keys(&self, keys: &std::ops::Range<u64>) -> &[Span] {
        let a = self.spans.partition_point(|s| s.key < keys.start);
        let b = self.spans.partition_point(|s| s.key < keys.end);
        &self.spans[a..b]
    }
    fn odd_in(&self, keys: &std::ops::Range<u64>) -> &[u64] {
        let a = self.odd.partition_point(|&k| k < keys.start);
        let b = self.odd.partition_point(|&k| k < keys.end);
        &self.odd[a..b]
    }
}

/// The votes of the lines along axis `a` (see module docs). Lines are keyed
/// z-layer first where they lie in one layer: along x by `k·ny + j`, along
/// y by `k·nx + i`; along z by `j·nx + i`.
fn axis_spans(mesh: MeshRef<'_>, grid: &Grid, a: usize) -> AxisSpans {
    let dims = grid.dims;
    let (u, v) = ((a + 1) % 3, (a + 2) % 3);
    let key = |ju: u32, jv: u32| {
        if a == 1 {
            ju as u64 * dims[v] as u64 + jv as u64
        } else {
            jv as u64 * dims[u] as u64 + ju as u64
        }
    };
    // crossings (key, coordinate) from every triangle, in parallel chunks;
    // 2·line key + (sign > 0) keeps an entry at 16 bytes
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
                let Some((u0, u1)) = centre_range(grid, u, lo(u), hi(u)) else {
                    continue;
                };
                let Some((v0, v1)) = centre_range(grid, v, lo(v), hi(v)) else {
                    continue;
                };
                for jv in v0..=v1 {
                    let cv = grid.centre_f64(v, jv as i64);
                    for ju in u0..=u1 {
                        let cu = grid.centre_f64(u, ju as i64);
                        if let Some((x, sg)) = crossing(&p, a, [cu, cv]) {
                            out.push((key(ju, jv) << 1 | (sg > 0) as u64, x));
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
    let mut out = AxisSpans { spans: Vec::new(), odd: Vec::new() };
    let mut s = 0;
    while s < hits.len() {
        let line_key = hits[s].0 >> 1;
        let mut e = s;
        while e < hits.len() && hits[e].0 >> 1 == line_key {
            e += 1;
        }
        let line = &hits[s..e];
        let sign = |k: usize| if line[k].0 & 1 == 1 { 1i64 } else { -1 };
        let balanced = (0..line.len()).map(sign).sum::<i64>() == 0;
        let first = out.spans.len();
        let mut fill = |x0: f64, x1: f64| {
            if let Some((n0, n1)) = centre_range(grid, a, x0, x1) {
                // spans come in increasing order along the line: merge
                // overlapping or adjacent ones (the sweep along z sets and
                // clears bits at span ends)
                let len = out.spans.len();
                match out.spans.last_mut() {
                    Some(l) if len > first && n0 <= l.n1 + 1 => l.n1 = l.n1.max(n1),
                    _ => out.spans.push(Span { key: line_key, n0, n1 }),
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
            out.odd.push(line_key);
        }
        s = e;
    }
    out
}
