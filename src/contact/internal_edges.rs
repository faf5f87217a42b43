//! Internal edges of a static triangle mesh: which triangle edges and
//! vertices can produce a true contact normal, and which are internal to a
//! flat or concave region (where a normal leaning towards the edge is a
//! *ghost contact*: a box sliding over flat tessellated ground snags on it).
//!
//! Built once per [`StaticMesh`](super::StaticMesh) (as parry3d's
//! `TriMeshFlags::FIX_INTERNAL_EDGES` and Jolt's active edges: welded
//! adjacency, per-edge convexity, precomputed), and used by
//! [`mesh_contacts`](super::mesh_contacts) to drop ghost manifolds: a
//! manifold whose normal is outside the mesh surface's normal cone at the
//! feature it touches (parry's pseudo-normal cones) is dropped when the
//! shape keeps a proper contact with the mesh elsewhere (the filter of
//! Jolt's `InternalEdgeRemovingCollector` and bepuphysics2's
//! `MeshReduction`).
//!
//! # Adjacency
//! Vertices are **welded** when every coordinate differs by at most
//! `tol = 2^-20·s` ([`WELD_RELATIVE`]), `s` the largest coordinate
//! magnitude of the mesh (at least 1): 16 ulps of the largest coordinate, so
//! vertices of two triangle soups that should coincide but were computed
//! separately (two coplanar meshes' seam, a mesh exported per part) meet,
//! and no two distinct vertices of a sane mesh do. Welding is greedy in
//! vertex order (a vertex joins the first earlier representative within
//! `tol`), so the result does not depend on the thread count.
//!
//! An edge (two welded vertex ids) shared by exactly two triangles that
//! traverse it in opposite directions (consistent winding) is **internal**;
//! any other edge (one triangle, three or more, inconsistent winding, or a
//! degenerate or non-finite triangle on either side) is a **boundary** edge.
//!
//! # Convexity
//! With `f` the unit normal of a triangle, `u` the outward unit normal of an
//! edge in its plane and `f'` the unit normal of the neighbour across it,
//! `f' = cos θ·f + sin θ·u` for the dihedral bend `θ` (positive when the
//! surface turns away: convex). [`InternalEdges::edge_active`] reports an
//! edge as active when it is a boundary edge or convex by more than
//! [`CONVEX_EDGE_MIN_ANGLE`]; flat, nearly flat and concave edges are
//! inactive (Jolt's active-edge flag).
//!
//! # The filter (per shape and mesh)
//! Each manifold's normal `n` (shape → triangle) gives `m = -n`, the unit
//! direction out of the triangle. It is a **face** manifold when `m` is
//! within [`FACE_ANGLE`] (`2^-9` rad) of `f`. Otherwise its **feature** is
//! the triangle's support feature along the in-plane part `m_t` of `m` (the
//! vertex farthest along `m_t`, or the edge when both its ends are within
//! `2^-10·|m_t|·(longest side)` of the farthest): the one feature whose
//! normal cone in the triangle holds `m`. The manifold is **in the mesh's
//! cone** when `m` is, within `FACE_ANGLE`, in the mesh surface's normal
//! cone at that feature (the polar of the surface's tangent cone there):
//! - edge: `m·w⊥ ≤ sin(FACE_ANGLE)·|w⊥|`, `w⊥` the neighbour's far vertex
//!   relative to the edge line (for a convex edge: `m` between `f` and `f'`;
//!   for a flat or concave one only `f` passes); a boundary edge always
//!   passes;
//! - vertex `v`: `m·(w − v) ≤ sin(FACE_ANGLE)·|w − v|` for every welded
//!   neighbour `w` of `v` along a mesh edge (for a convex corner: between
//!   its faces' normals; for a vertex of a flat region only `f` passes, for
//!   a vertex on a straight ridge only the ridge's wedge).
//!
//! A face manifold or one in the mesh's cone is **kept**. Then:
//! - if at least one manifold of the (shape, mesh) pair is kept, the others
//!   (normals the mesh surface cannot have there: ghosts of flat and concave
//!   edges and vertices) are dropped;
//! - otherwise (every manifold is a ghost, e.g. a shape sunk below the plane
//!   of the face it should rest on, where the one-sided face tester sees
//!   nothing) all are returned unchanged: losing every contact would be
//!   worse than a tilted normal.
//!
//! What survives on a flat region leans at most `FACE_ANGLE / cos(γ/2)`
//! from the face normal, `γ` the widest angle between two consecutive ring
//! neighbours of a vertex (90° on a grid: 0.16°).
//!
//! Why dropping is enough on a flat or concave region: the point of the
//! region nearest to (or deepest in) a convex shape lies on some triangle
//! whose own tester reports it along that triangle's face normal, at least
//! as deep as the leaning contact of a neighbour.
//!
//! # Not fixed
//! - Seams **between two [`StaticMesh`](super::StaticMesh)es** and
//!   T-junctions (a vertex of one triangle in the middle of another's edge):
//!   those edges are boundary edges, so their ghosts stay. Build one mesh
//!   from both soups (welding joins their seam).
//! - A boundary vertex whose triangles span a reflex angle (the inner
//!   corner of an L-shaped patch): the cone test uses the polar of the
//!   convex hull of its edges, so a legitimate normal into the notch is
//!   dropped when another manifold is kept.
//! - Manifolds are dropped whole, never re-computed along a corrected
//!   normal: a box whose only contact with a triangle comes out on an edge
//!   axis loses that triangle's points (the triangles under it keep theirs).
//! - The fallback above keeps ghosts of a shape with no proper contact.

use crate::math::Vec3;
use crate::shapes::Triangle;
use std::collections::HashMap;

/// Weld tolerance relative to the mesh's largest coordinate magnitude
/// (`2^-20`, see the [module docs](self)).
pub const WELD_RELATIVE: f32 = 1.0 / 1_048_576.0;

/// Convex bends smaller than this (radians, 1°) count as flat.
pub const CONVEX_EDGE_MIN_ANGLE: f32 = 0.017_453_292;

/// A normal within this angle (radians, `2^-9` ≈ 0.11°) of the triangle's
/// face normal is a face normal; also the tolerance of the cone tests. The
/// triangle testers' own normals lean up to about `5·10^-4` rad from the
/// face normal for a point within rounding of an edge (the closest-point
/// region test decides by squared distances), so the tolerance is a few
/// times that.
pub const FACE_ANGLE: f32 = 1.0 / 512.0;

/// Relative tie tolerance of the support feature along `m_t`.
const FEATURE_TIE: f64 = 1.0 / 1024.0;

type D3 = [f64; 3];

fn d3(v: Vec3) -> D3 {
    [v.x as f64, v.y as f64, v.z as f64]
}
fn sub(a: D3, b: D3) -> D3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: D3, b: D3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: D3, b: D3) -> D3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn unit(a: D3) -> Option<D3> {
    let l = dot(a, a).sqrt();
    (l.is_finite() && l > 1e-300).then(|| [a[0] / l, a[1] / l, a[2] / l])
}

/// The f64 unit normal of `t` (`None` when degenerate or non-finite).
fn face_normal(t: &Triangle) -> Option<D3> {
    let (a, b, c) = (d3(t.a), d3(t.b), d3(t.c));
    unit(cross(sub(b, a), sub(c, a)))
}

/// Greedy welding: the welded id of every vertex `3·t + k`, and the
/// welded positions (the first vertex of each group).
fn weld(tris: &[Triangle]) -> (Vec<u32>, Vec<Vec3>) {
    let mut s = 1.0f32;
    for t in tris {
        for p in [t.a, t.b, t.c] {
            if p.is_finite() {
                s = s.max(p.abs().max_element());
            }
        }
    }
    let tol = WELD_RELATIVE * s;
    // cells of side 2·tol: a vertex within tol of another is in a
    // neighbouring cell
    let cell = |x: f32| (x / (2.0 * tol)).floor() as i64;
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    let mut reps: Vec<Vec3> = Vec::new();
    let mut ids = Vec::with_capacity(tris.len() * 3);
    for t in tris {
        for p in [t.a, t.b, t.c] {
            if !p.is_finite() {
                ids.push(reps.len() as u32);
                reps.push(p);
                continue;
            }
            let c = [cell(p.x), cell(p.y), cell(p.z)];
            let mut found: Option<u32> = None;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let k = [c[0] + dx, c[1] + dy, c[2] + dz];
                        for &r in grid.get(&k).into_iter().flatten() {
                            let q = reps[r as usize];
                            if (q - p).abs().max_element() <= tol && found.is_none_or(|f| r < f) {
                                found = Some(r);
                            }
                        }
                    }
                }
            }
            let id = found.unwrap_or_else(|| {
                let id = reps.len() as u32;
                reps.push(p);
                grid.entry(c).or_default().push(id);
                id
            });
            ids.push(id);
        }
    }
    (ids, reps)
}

/// Adjacency facts for the ghost-contact filter, per triangle and per
/// welded vertex.
#[derive(Clone, Debug, Default)]
pub struct InternalEdges {
    /// Unit face normal per triangle (zero for a degenerate or non-finite
    /// triangle, whose manifolds are always kept).
    normals: Vec<Vec3>,
    /// Welded vertex id of each triangle corner (`3·t + k`).
    ids: Vec<u32>,
    /// Per triangle edge `3·t + k` (vertex `k` to `k + 1 mod 3`): the welded
    /// id of the neighbour's vertex opposite it, or [`NO_NEIGHBOUR`] for a
    /// boundary edge.
    opposite: Vec<u32>,
    /// Bit `k` set: edge `k` of the triangle is active (boundary, or convex
    /// by more than [`CONVEX_EDGE_MIN_ANGLE`]).
    active: Vec<u8>,
    /// Welded vertex positions.
    verts: Vec<Vec3>,
    /// Vertex `v`'s neighbours along mesh edges are
    /// `ring[ring_start[v]..ring_start[v + 1]]`.
    ring_start: Vec<u32>,
    ring: Vec<u32>,
}

/// [`InternalEdges`]' mark of a boundary edge.
pub const NO_NEIGHBOUR: u32 = u32::MAX;

impl InternalEdges {
    /// Adjacency and edge convexity of `tris` (see the [module docs](self)).
    pub fn new(tris: &[Triangle]) -> Self {
        let (ids, verts) = weld(tris);
        let normals64: Vec<Option<D3>> = tris.iter().map(face_normal).collect();
        // (edge key, triangle·3 + k): sorted, equal keys are adjacent
        let mut edges: Vec<(u64, u32)> = Vec::with_capacity(tris.len() * 3);
        for t in 0..tris.len() {
            for k in 0..3 {
                let (i, j) = (ids[3 * t + k], ids[3 * t + (k + 1) % 3]);
                if i != j {
                    let key = ((i.min(j) as u64) << 32) | i.max(j) as u64;
                    edges.push((key, (3 * t + k) as u32));
                }
            }
        }
        edges.sort_unstable();
        let mut active = vec![0b111u8; tris.len()];
        let mut opposite = vec![NO_NEIGHBOUR; tris.len() * 3];
        // the 1-rings: every distinct edge once, both directions
        let mut links: Vec<(u32, u32)> = Vec::with_capacity(edges.len());
        let mut g = 0;
        while g < edges.len() {
            let mut h = g + 1;
            while h < edges.len() && edges[h].0 == edges[g].0 {
                h += 1;
            }
            let key = edges[g].0;
            let (i, j) = ((key >> 32) as u32, key as u32);
            links.push((i, j));
            links.push((j, i));
            if h - g == 2 {
                let (e0, e1) = (edges[g].1 as usize, edges[g + 1].1 as usize);
                let (t0, k0, t1, k1) = (e0 / 3, e0 % 3, e1 / 3, e1 % 3);
                // opposite directions: consistent winding
                if ids[e0] == ids[3 * t1 + (k1 + 1) % 3] {
                    opposite[e0] = ids[3 * t1 + (k1 + 2) % 3];
                    opposite[e1] = ids[3 * t0 + (k0 + 2) % 3];
                    for (t, k, o) in [(t0, k0, t1), (t1, k1, t0)] {
                        if !edge_is_active(&tris[t], k, normals64[t], normals64[o]) {
                            active[t] &= !(1 << k);
                        }
                    }
                }
            }
            g = h;
        }
        links.sort_unstable();
        let mut ring_start = vec![0u32; verts.len() + 1];
        for &(i, _) in &links {
            ring_start[i as usize + 1] += 1;
        }
        for v in 0..verts.len() {
            ring_start[v + 1] += ring_start[v];
        }
        let ring = links.iter().map(|&(_, j)| j).collect();
        let normals = normals64
            .iter()
            .map(|n| n.map_or(Vec3::ZERO, |n| Vec3::new(n[0] as f32, n[1] as f32, n[2] as f32)))
            .collect();
        InternalEdges { normals, ids, opposite, active, verts, ring_start, ring }
    }

    /// Whether edge `k` of triangle `t` is active: a boundary edge, or convex
    /// by more than [`CONVEX_EDGE_MIN_ANGLE`].
    pub fn edge_active(&self, t: usize, k: usize) -> bool {
        self.active[t] & (1 << k) != 0
    }

    /// Whether edge `k` of triangle `t` has a neighbour (is internal).
    pub fn edge_internal(&self, t: usize, k: usize) -> bool {
        self.opposite[3 * t + k] != NO_NEIGHBOUR
    }

    /// Whether the manifold normal `n` (from the shape to triangle `t` of
    /// `tri`) is a face normal or lies in the mesh's normal cone at the
    /// triangle feature it comes from (kept by the filter, see the
    /// [module docs](self)).
    pub fn keeps(&self, t: usize, tri: &Triangle, n: Vec3) -> bool {
        let f = d3(self.normals[t]);
        let m = [-(n.x as f64), -(n.y as f64), -(n.z as f64)];
        let Some(m) = unit(m) else { return true };
        if f == [0.0; 3] {
            return true;
        }
        let along = dot(m, f);
        let sin_tol = (FACE_ANGLE as f64).sin();
        if along >= (FACE_ANGLE as f64).cos() {
            return true;
        }
        let mt = sub(m, [f[0] * along, f[1] * along, f[2] * along]);
        let p = [d3(tri.a), d3(tri.b), d3(tri.c)];
        let d = [0.0, dot(mt, sub(p[1], p[0])), dot(mt, sub(p[2], p[0]))];
        let longest = dot(sub(p[1], p[0]), sub(p[1], p[0]))
            .max(dot(sub(p[2], p[1]), sub(p[2], p[1])))
            .max(dot(sub(p[0], p[2]), sub(p[0], p[2])))
            .sqrt();
        let tie = FEATURE_TIE * dot(mt, mt).sqrt() * longest;
        let top = d[0].max(d[1]).max(d[2]);
        let near = [d[0] >= top - tie, d[1] >= top - tie, d[2] >= top - tie];
        // m within the tolerance of the half-space {x : x·dir <= 0}
        let inside = |dir: D3| dot(m, dir) <= sin_tol * dot(dir, dir).sqrt();
        let edge = |k: usize| {
            let w = self.opposite[3 * t + k];
            if w == NO_NEIGHBOUR {
                return true;
            }
            // the neighbour's far vertex, across the edge's line
            let (a, b) = (p[k], p[(k + 1) % 3]);
            let Some(e) = unit(sub(b, a)) else { return true };
            let r = sub(d3(self.verts[w as usize]), a);
            let re = dot(r, e);
            inside(sub(r, [e[0] * re, e[1] * re, e[2] * re]))
        };
        let vertex = |k: usize| {
            let v = self.ids[3 * t + k] as usize;
            let c = d3(self.verts[v]);
            let (lo, hi) = (self.ring_start[v] as usize, self.ring_start[v + 1] as usize);
            self.ring[lo..hi].iter().all(|&w| inside(sub(d3(self.verts[w as usize]), c)))
        };
        match near {
            [true, false, false] => vertex(0),
            [false, true, false] => vertex(1),
            [false, false, true] => vertex(2),
            [true, true, false] => edge(0),
            [false, true, true] => edge(1),
            [true, false, true] => edge(2),
            // no direction in the plane (NaN)
            _ => true,
        }
    }
}

/// Edge `k` of `t` with face normal `f` and neighbour normal `g`: active
/// when convex by more than [`CONVEX_EDGE_MIN_ANGLE`] (either normal
/// missing: active).
fn edge_is_active(t: &Triangle, k: usize, f: Option<D3>, g: Option<D3>) -> bool {
    let (Some(f), Some(g)) = (f, g) else { return true };
    let v = [d3(t.a), d3(t.b), d3(t.c)];
    let e = sub(v[(k + 1) % 3], v[k]);
    // outward in-plane normal of a counter-clockwise edge
    let Some(u) = unit(cross(e, f)) else { return true };
    let s = dot(g, u);
    s > (CONVEX_EDGE_MIN_ANGLE as f64).sin() || (s > 0.0 && dot(g, f) < 0.0)
}
