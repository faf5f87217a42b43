//! Vertex welding: vertices closer than a tolerance merged into one, for
//! files that split vertices (glTF primitives are split at every seam of
//! normals or texture coordinates, and each mesh instance has its own
//! vertices; an OBJ may repeat positions). STL is merged by bit pattern as
//! it is read.
//!
//! The rule, one pass in vertex order: a finite vertex joins the **earliest
//! kept vertex** within `tolerance` (Euclidean distance, computed in `f64`
//! from the `f32` coordinates), else it is kept. Kept vertices keep their
//! order and their coordinates (no averaging: a welded mesh's vertices are
//! the file's). Non-finite vertices are never merged. The rule is the same
//! as a brute-force scan of the kept vertices (the unit tests check it),
//! found in a grid of cells four tolerances wide: the kept vertices within
//! the tolerance lie in the cells that `[x − 1.5·tol, x + 1.5·tol]` touches
//! on each axis (the half tolerance of margin covers the rounding of the
//! cell coordinates), one or two per axis, so at most 8 cells are searched.
//! (27 cells two tolerances wide took dragon_sub4's 405k vertices
//! 0.66–0.72 s at tolerance 10⁻⁵.)

use super::mesh::Mesh;
use crate::math::Vec3;
use std::collections::HashMap;

/// A multiply–rotate hash (the FxHash scheme of rustc) for keys made of
/// coordinates or cell numbers: vertex maps of large meshes are otherwise
/// dominated by SipHash. (Not for keys an adversary chooses to collide.)
#[derive(Default, Clone, Copy)]
pub(crate) struct BuildBitsHasher;

#[derive(Default)]
pub(crate) struct BitsHasher(u64);

impl std::hash::BuildHasher for BuildBitsHasher {
    type Hasher = BitsHasher;
    fn build_hasher(&self) -> BitsHasher {
        BitsHasher(0)
    }
}

impl std::hash::Hasher for BitsHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

impl Mesh {
    /// Merges every finite vertex into the earliest kept vertex within
    /// `tolerance` (see the module docs for the rule) and renumbers the
    /// triangles; returns how many vertices were removed. `tolerance` 0
    /// merges equal positions (`-0.0` equals `0.0`); a negative or NaN
    /// tolerance is taken as 0. Triangles are kept even when welding makes
    /// two of their corners one vertex; an index out of range stays out of
    /// range.
    pub fn weld(&mut self, tolerance: f32) -> usize {
        let n = self.vertices.len();
        let tol = if tolerance > 0.0 { tolerance as f64 } else { 0.0 };
        let mut kept: Vec<Vec3> = Vec::with_capacity(n);
        let mut new_index = Vec::with_capacity(n);
        if tol == 0.0 {
            let mut slot: HashMap<[u32; 3], u32, BuildBitsHasher> = HashMap::default();
            for &p in &self.vertices {
                let finite = p.x.is_finite() && p.y.is_finite() && p.z.is_finite();
                let j = if finite {
                    // (+ 0.0 turns -0.0 into 0.0)
                    let key = [p.x + 0.0, p.y + 0.0, p.z + 0.0].map(f32::to_bits);
                    *slot.entry(key).or_insert_with(|| keep(p, &mut kept))
                } else {
                    keep(p, &mut kept)
                };
                new_index.push(j);
            }
        } else {
            let cell = 4.0 * tol;
            let mut grid: HashMap<[u64; 3], Vec<u32>, BuildBitsHasher> = HashMap::default();
            for &p in &self.vertices {
                if !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()) {
                    new_index.push(keep(p, &mut kept));
                    continue;
                }
                let q = [p.x, p.y, p.z].map(f64::from);
                let c = q.map(|x| cell_of(x, cell).to_bits());
                // the cells that [q − 1.5 tol, q + 1.5 tol] touches: one or
                // two per axis (the interval is shorter than a cell)
                let span = q.map(|x| (cell_of(x - 1.5 * tol, cell), cell_of(x + 1.5 * tol, cell)));
                let mut best: Option<u32> = None;
                for z in cells(span[2]) {
                    for y in cells(span[1]) {
                        for x in cells(span[0]) {
                            // (each list ascends: its first match is its earliest)
                            let hit = grid.get(&[x, y, z].map(f64::to_bits)).and_then(|list| {
                                list.iter().copied().find(|&j| {
                                    tests::count_comparison();
                                    within(kept[j as usize], p, tol)
                                })
                            });
                            best = match (best, hit) {
                                (Some(b), Some(h)) => Some(b.min(h)),
                                (b, h) => b.or(h),
                            };
                        }
                    }
                }
                let j = best.unwrap_or_else(|| {
                    let j = keep(p, &mut kept);
                    grid.entry(c).or_default().push(j);
                    j
                });
                new_index.push(j);
            }
        }
        let shift = n as u32 - kept.len() as u32;
        for v in self.indices.iter_mut().flatten() {
            *v = match new_index.get(*v as usize) {
                Some(&j) => j,
                None => *v - shift,
            };
        }
        self.vertices = kept;
        shift as usize
    }
}

/// The cell of coordinate `x`: `⌊x / cell⌋` as an integer-valued `f64`
/// (`-0.0` as `0.0`). Not converted to an integer: below ~2⁻⁶⁵ of the
/// coordinates a tolerance's cells number more than `i64` holds, and
/// saturated indices put every vertex in the same few cells, each searched
/// whole (`--weld 1e-30` on bunny took 0.22 s, quadratic in the vertices).
/// Rounding is monotone, so a kept vertex within the tolerance still has its
/// cell between the cells of `x ∓ 1.5·tol` when the quotients round.
fn cell_of(x: f64, cell: f64) -> f64 {
    (x / cell).floor() + 0.0
}

/// Every cell value from `lo` to `hi` (integer-valued; above 2⁵³, where
/// `v + 1` rounds back to `v`, the next representable value): at most
/// three, since `hi − lo` covers 3 tolerances of a 4-tolerance cell.
fn cells((lo, hi): (f64, f64)) -> impl Iterator<Item = f64> {
    std::iter::successors(Some(lo), move |&v| {
        let next = v + 1.0;
        let next = if next > v { next } else { v.next_up() };
        (next <= hi).then_some(next)
    })
}

/// Appends a kept vertex; its new index.
fn keep(p: Vec3, kept: &mut Vec<Vec3>) -> u32 {
    kept.push(p);
    kept.len() as u32 - 1
}

/// Whether `a` and `b` are within `tol` (Euclidean, in `f64`).
fn within(a: Vec3, b: Vec3, tol: f64) -> bool {
    let d = |x: f32, y: f32| x as f64 - y as f64;
    let (dx, dy, dz) = (d(a.x, b.x), d(a.y, b.y), d(a.z, b.z));
    dx * dx + dy * dy + dz * dz <= tol * tol
}

/// Outside the tests the grid search's comparison counter (which
/// `tiny_tolerances_keep_cells_small` reads) is a no-op.
#[cfg(not(test))]
mod tests {
    #[inline(always)]
    pub(super) fn count_comparison() {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Vertex comparisons of the grid search on this thread.
        static COMPARISONS: Cell<u64> = const { Cell::new(0) };
    }

    pub(super) fn count_comparison() {
        COMPARISONS.with(|c| c.set(c.get() + 1));
    }

    /// The rule as written: each finite vertex against every kept one.
    fn brute(m: &Mesh, tol: f32) -> Mesh {
        let tol = if tol > 0.0 { tol as f64 } else { 0.0 };
        let mut kept: Vec<Vec3> = Vec::new();
        let map: Vec<u32> = m
            .vertices
            .iter()
            .map(|&p| {
                let finite = p.x.is_finite() && p.y.is_finite() && p.z.is_finite();
                let near = kept.iter().position(|&q| {
                    let qf = q.x.is_finite() && q.y.is_finite() && q.z.is_finite();
                    finite && qf && within(q, p, tol)
                });
                near.map_or_else(|| keep(p, &mut kept), |j| j as u32)
            })
            .collect();
        Mesh {
            vertices: kept,
            indices: m.indices.iter().map(|t| t.map(|v| map[v as usize])).collect(),
        }
    }

    fn lcg(s: &mut u64) -> f32 {
        *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*s >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Clusters of jittered copies (so merges chain across cells and some
    /// pairs sit right at the tolerance), exact duplicates, `-0.0`, NaN and
    /// infinite vertices, at several tolerances including 0, NaN and
    /// negative: the grid gives the brute-force answer, and welding again
    /// at the same tolerance changes nothing.
    #[test]
    fn grid_weld_equals_the_brute_force_rule() {
        let mut s = 7u64;
        for (round, &tol) in
            [0.0f32, 1e-3, 0.01, 0.05, 0.3, f32::NAN, -1.0, 1e-7].iter().enumerate()
        {
            let mut v: Vec<Vec3> = Vec::new();
            for _ in 0..60 {
                let c = Vec3::new(lcg(&mut s) * 4.0 - 2.0, lcg(&mut s), lcg(&mut s) * 0.5);
                for _ in 0..(1 + (lcg(&mut s) * 5.0) as usize) {
                    let j = 0.04 * (lcg(&mut s) - 0.5);
                    v.push(c + Vec3::new(j, -j, 0.5 * j));
                }
                v.push(c); // an exact duplicate
            }
            v.push(Vec3::new(0.0, 0.0, 0.0));
            v.push(Vec3::new(-0.0, 0.0, -0.0));
            v.push(Vec3::new(f32::NAN, 0.0, 0.0));
            v.push(Vec3::new(f32::NAN, 0.0, 0.0));
            v.push(Vec3::new(f32::INFINITY, 1.0, 1.0));
            v.push(Vec3::new(f32::INFINITY, 1.0, 1.0));
            // a point exactly at the tolerance from another, on an axis
            if tol > 0.0 {
                v.push(Vec3::new(10.0, 0.0, 0.0));
                v.push(Vec3::new(10.0 + tol, 0.0, 0.0));
            }
            let n = v.len() as u32;
            let indices: Vec<[u32; 3]> =
                (0..3 * n).map(|k| [k % n, (k * 7 + 1) % n, (k * 13 + 2) % n]).collect();
            let m = Mesh { vertices: v, indices };
            let want = brute(&m, tol);
            let mut got = m.clone();
            let removed = got.weld(tol);
            let bits = |m: &Mesh| -> Vec<[u32; 3]> {
                m.vertices.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
            };
            assert_eq!(bits(&got), bits(&want), "round {round}, tolerance {tol}");
            assert_eq!(got.indices, want.indices, "round {round}");
            assert_eq!(removed, m.vertices.len() - got.vertices.len());
            assert!(removed > 0, "round {round}: nothing merged");
            if tol.is_nan() || tol < 1e-6 {
                // exact merges only: -0.0 joined 0.0, the NaNs and infinities stayed
                assert_eq!(got.vertices.iter().filter(|p| p.x.is_nan()).count(), 2);
                assert_eq!(got.vertices.iter().filter(|p| p.x == f32::INFINITY).count(), 2);
            }
            let mut again = got.clone();
            assert_eq!(again.weld(tol), 0, "round {round}: not idempotent");
            assert!(bits(&again) == bits(&got) && again.indices == got.indices);
        }
    }

    /// A cube with its 24 split corners (as a glTF exporter writes it, one
    /// vertex per face corner) welds to 8, the triangles unchanged as
    /// positions; an out-of-range index stays out of range.
    #[test]
    fn split_cube_welds_to_eight_corners() {
        let mut m = Mesh::default();
        for axis in 0..3 {
            for side in [0.0f32, 1.0] {
                let base = m.vertices.len() as u32;
                for (u, w) in [(0.0f32, 0.0f32), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
                    let mut p = [0.0f32; 3];
                    p[axis] = side;
                    p[(axis + 1) % 3] = u;
                    p[(axis + 2) % 3] = w;
                    m.vertices.push(Vec3::from_array(p));
                }
                m.indices.push([base, base + 1, base + 2]);
                m.indices.push([base, base + 2, base + 3]);
            }
        }
        let before: Vec<[Vec3; 3]> =
            m.indices.iter().map(|t| t.map(|v| m.vertices[v as usize])).collect();
        m.indices.push([0, 1, 30]);
        assert_eq!(m.weld(0.0), 16);
        assert_eq!(m.vertices.len(), 8);
        let after: Vec<[Vec3; 3]> =
            m.indices[..12].iter().map(|t| t.map(|v| m.vertices[v as usize])).collect();
        assert_eq!(before, after);
        assert!(m.indices[12][2] as usize >= m.vertices.len());
    }

    /// Tolerances far below the coordinates' spacing: cells that `i64`
    /// indices cannot number (they saturated, and every vertex of a sign
    /// octant shared one cell, searched whole) still give the brute-force
    /// answer, with a few comparisons per vertex; and huge coordinates and
    /// tolerances.
    #[test]
    fn tiny_tolerances_keep_cells_small() {
        let mut s = 11u64;
        let mut v: Vec<Vec3> = (0..20_000)
            .map(|_| Vec3::new(lcg(&mut s) - 0.5, lcg(&mut s) - 0.5, lcg(&mut s) - 0.5))
            .collect();
        // exact duplicates and one-ulp neighbours, which a tiny tolerance
        // must tell apart
        for i in 0..2000 {
            let p = v[i * 7];
            v.push(p);
            v.push(Vec3::new(p.x.next_up(), p.y, p.z));
        }
        v.extend([Vec3::new(3e38, -3e38, 1.0), Vec3::new(3e38, -3e38, 1.0)]);
        let mesh = Mesh { indices: vec![[0, 1, 2], [20_000, 20_001, 20_002]], vertices: v };
        for tol in [1e-30f32, f32::from_bits(1), 1e-12, 1e37, 3e38] {
            let mut m = mesh.clone();
            COMPARISONS.with(|c| c.set(0));
            m.weld(tol);
            let per_vertex = COMPARISONS.with(|c| c.get()) as f64 / mesh.vertices.len() as f64;
            let b = brute(&mesh, tol);
            assert_eq!(m.vertices, b.vertices, "tol {tol:e}");
            assert_eq!(m.indices, b.indices, "tol {tol:e}");
            if tol < 1e-3 {
                assert!(per_vertex < 4.0, "tol {tol:e}: {per_vertex} comparisons per vertex");
            }
        }
    }
}
