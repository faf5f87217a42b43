//! [`ConvexHull`]: a convex polyhedron built from points, in its own local
//! frame, with the topology a SAT contact tester needs (face planes, face
//! polygons with coplanar triangles merged, unique edges with their two
//! faces) and a support function.
//!
//! # Construction
//! An incremental (beneath–beyond) hull in `f64`, points taken farthest
//! first from the initial tetrahedron's centroid, which gives quickhull's
//! behaviour on large inputs (interior points are rejected against an
//! already large hull in one pass over its faces) without its conflict
//! lists: the vertex limit keeps the hull small, so a linear scan over the
//! faces per point is cheap. Points within `HULL_PLANE_TOLERANCE ·
//! extent` of a face plane count as on it (not outside), so duplicated,
//! coplanar and mid-edge points never become vertices. Adjacent triangles
//! within that tolerance of each other's planes are merged into one convex
//! polygon (Jolt's `ConvexHullBuilder` and Gregorius's quickhull merge
//! coplanar faces the same way), and vertices left collinear on a merged
//! polygon's boundary are removed. The result is checked (every edge has
//! exactly two faces with opposite windings, Euler `V - E + F = 2`, every
//! vertex below every face plane within the tolerance), so a numerically
//! inconsistent input is an error, never a broken hull.
//!
//! # Vertex limit
//! At most [`HULL_MAX_VERTICES`]` = 64` vertices (so at most 124 faces and
//! 186 edges, Euler with triangular faces). The limit keeps every index in
//! a `u8`, the contact feature ids of `super::hull_contact` exact in an
//! `f32` (face `< 128`, local feature `< 2^16`), and the support loop at
//! most four 16-wide bundles. A physics hull rarely needs more (Jolt and
//! bepu recommend simplifying render meshes to tens of vertices for
//! collision); simplify larger inputs before building.

use crate::math::Vec3;
use std::collections::HashMap;
use std::fmt;

/// Most vertices a [`ConvexHull`] may have (see the [module docs](self)).
pub const HULL_MAX_VERTICES: usize = 64;

/// Relative tolerance of the construction: a point within this fraction of
/// the input's extent from a face plane is on it (`2^-18`, a few dozen `f32`
/// ulps of the coordinates, far above the `f64` rounding of the planes).
pub const HULL_PLANE_TOLERANCE: f64 = 1.0 / 262_144.0;

/// Why a [`ConvexHull`] could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum HullError {
    /// Fewer than 4 points.
    TooFewPoints {
        /// Points given.
        count: usize,
    },
    /// A coordinate is NaN or infinite.
    NonFinite {
        /// Index of the first such point.
        index: usize,
    },
    /// All points coincide (within the tolerance).
    Coincident,
    /// All points lie on one line.
    Collinear,
    /// All points lie in one plane (the hull has no volume).
    Coplanar,
    /// The hull has more vertices than [`HULL_MAX_VERTICES`].
    TooManyVertices {
        /// Vertices of the hull.
        count: usize,
    },
    /// The points are too close to degenerate for a consistent hull at the
    /// construction tolerance (e.g. extents differing by 2^20).
    Inconsistent(&'static str),
}

impl fmt::Display for HullError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HullError::TooFewPoints { count } => {
                write!(f, "a convex hull needs at least 4 points, got {count}")
            }
            HullError::NonFinite { index } => write!(f, "point {index} is NaN or infinite"),
            HullError::Coincident => write!(f, "all points coincide"),
            HullError::Collinear => write!(f, "all points are collinear"),
            HullError::Coplanar => write!(f, "all points are coplanar (the hull is flat)"),
            HullError::TooManyVertices { count } => write!(
                f,
                "the hull has {count} vertices, more than the limit of {HULL_MAX_VERTICES}"
            ),
            HullError::Inconsistent(what) => {
                write!(f, "numerically inconsistent hull ({what}); the input is nearly degenerate")
            }
        }
    }
}

impl std::error::Error for HullError {}

/// An edge of a [`ConvexHull`]: vertices `a`, `b` and the two faces that
/// share it; `faces[0]` walks it from `a` to `b` (counter-clockwise seen
/// from outside), `faces[1]` from `b` to `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HullEdge {
    /// First vertex.
    pub a: u8,
    /// Second vertex.
    pub b: u8,
    /// The face walking `a → b`, then the one walking `b → a`.
    pub faces: [u8; 2],
}

/// A convex polyhedron in its local frame (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    normals: Vec<Vec3>,
    offsets: Vec<f32>,
    face_start: Vec<u16>,
    face_vertices: Vec<u8>,
    face_edges: Vec<u8>,
    edges: Vec<HullEdge>,
    centroid: Vec3,
    radius: f32,
    /// `n_faces[1] × n_faces[0]` of each edge (its Gauss arc's plane).
    edge_cross: Vec<Vec3>,
    /// The edges' Gauss arcs, bounding spheres and half vectors, for the
    /// SAT's edge queries.
    arc_rows: ArcRows,
    /// The face planes as `n.x…, n.y…, n.z…, offset…`, each padded with
    /// zeros to a multiple of [`SOA_PAD`].
    plane_lanes: Vec<f32>,
}

/// Gauss-map arcs and edges as lanes, for the hull SAT's edge queries.
/// Per arc, rows from [`ArcRows::C`] on: `c = -n0`, `d = -n1`, `d × c`
/// (`n1 × n0`; the arc runs from face normal `n0` to `n1`), its edge's
/// midpoint, half vector `h = (q - p)/2` (3 rows each) and `|h|`; each row
/// padded with zeros to a multiple of [`SOA_PAD`] (callers mask the padding
/// by [`count`](Self::count)). `edges[i]` is arc `i`'s edge; a solid
/// polytope has one arc per edge, in edge order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ArcRows {
    rows: Vec<f32>,
    pub(crate) edges: Vec<u8>,
    pub(crate) padded: usize,
    pub(crate) count: usize,
}

impl ArcRows {
    /// First row of `c`.
    pub(crate) const C: usize = 0;
    /// First row of the midpoint.
    pub(crate) const MID: usize = 9;
    /// First row of `h`.
    pub(crate) const H: usize = 12;
    /// The row of `|h|`.
    pub(crate) const HALF: usize = 15;
    const ROWS: usize = 16;

    /// Room for `count` arcs, all zero.
    pub(crate) fn reset(&mut self, count: usize) {
        self.count = count;
        self.padded = count.div_ceil(SOA_PAD) * SOA_PAD;
        self.rows.clear();
        self.rows.resize(Self::ROWS * self.padded, 0.0);
        self.edges.clear();
        self.edges.resize(count, 0);
    }

    /// Arc `i`: normals `n0 → n1`, `cross = n1 × n0`, on edge `edge` from
    /// `p` to `q`.
    pub(crate) fn set(
        &mut self,
        i: usize,
        (n0, n1, cross): (Vec3, Vec3, Vec3),
        (p, q): (Vec3, Vec3),
        edge: u8,
    ) {
        let (mid, h) = ((p + q) * 0.5, (q - p) * 0.5);
        let (c, d) = (-n0, -n1);
        let values = [
            c.x,
            c.y,
            c.z,
            d.x,
            d.y,
            d.z,
            cross.x,
            cross.y,
            cross.z,
            mid.x,
            mid.y,
            mid.z,
            h.x,
            h.y,
            h.z,
            h.length(),
        ];
        for (row, x) in values.into_iter().enumerate() {
            self.rows[row * self.padded + i] = x;
        }
        self.edges[i] = edge;
    }

    /// `src` with every point scaled by `s` per axis (midpoints, half
    /// vectors and their lengths; the arcs' normals unchanged, so only for
    /// a polytope whose face normals are the axes: a box from the unit
    /// cube).
    pub(crate) fn scaled_box(&mut self, src: &ArcRows, s: Vec3) {
        self.clone_from(src);
        let n = self.padded;
        for (axis, f) in [s.x, s.y, s.z].into_iter().enumerate() {
            for row in [Self::MID + axis, Self::H + axis] {
                self.rows[row * n..(row + 1) * n].iter_mut().for_each(|x| *x *= f);
            }
        }
        for i in 0..self.count {
            let h = Vec3::new(
                self.rows[Self::H * n + i],
                self.rows[(Self::H + 1) * n + i],
                self.rows[(Self::H + 2) * n + i],
            );
            self.rows[Self::HALF * n + i] = h.length();
        }
    }

    /// `|h|` of arc `i`.
    #[inline(always)]
    pub(crate) fn half_length(&self, i: usize) -> f32 {
        self.rows[Self::HALF * self.padded + i]
    }

    /// Row `row` from arc `i` on.
    #[inline(always)]
    pub(crate) fn row(&self, row: usize, i: usize) -> &[f32] {
        &self.rows[row * self.padded + i..(row + 1) * self.padded]
    }
}

/// Padding of the hull's lane rows (planes, arcs): the widest lane (16).
pub const SOA_PAD: usize = 16;

type P = [f64; 3];

#[inline]
fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline]
fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline]
fn cross(a: P, b: P) -> P {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
#[inline]
fn norm(a: P) -> f64 {
    dot(a, a).sqrt()
}

/// A triangle of the construction: vertices (counter-clockwise from
/// outside), unit normal and plane offset.
#[derive(Clone, Copy)]
struct Tri {
    v: [u32; 3],
    n: P,
    d: f64,
    alive: bool,
}

fn tri(pts: &[P], v: [u32; 3]) -> Tri {
    let (a, b, c) = (pts[v[0] as usize], pts[v[1] as usize], pts[v[2] as usize]);
    let n = cross(sub(b, a), sub(c, a));
    let l = norm(n);
    let n = if l > 0.0 { [n[0] / l, n[1] / l, n[2] / l] } else { [0.0; 3] };
    Tri { v, n, d: dot(n, a), alive: true }
}

impl ConvexHull {
    /// The convex hull of `points` (see the [module docs](self) for the
    /// construction, the tolerance and the errors).
    ///
    /// ```
    /// use widephase::contact::ConvexHull;
    /// use widephase::Vec3;
    /// let mut cube = Vec::new();
    /// for i in 0..8 {
    ///     let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
    ///     cube.push(Vec3::new(s(0), s(1), s(2)));
    /// }
    /// cube.push(Vec3::ZERO); // interior: not a vertex
    /// let hull = ConvexHull::new(&cube).unwrap();
    /// assert_eq!((hull.vertex_count(), hull.face_count(), hull.edges().len()), (8, 6, 12));
    /// assert!(ConvexHull::new(&cube[..3]).is_err());
    /// ```
    pub fn new(points: &[Vec3]) -> Result<ConvexHull, HullError> {
        if points.len() < 4 {
            return Err(HullError::TooFewPoints { count: points.len() });
        }
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(HullError::NonFinite { index });
        }
        let pts: Vec<P> = points.iter().map(|p| [p.x as f64, p.y as f64, p.z as f64]).collect();
        let mut lo = pts[0];
        let mut hi = pts[0];
        for p in &pts {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let extent = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        let eps = HULL_PLANE_TOLERANCE
            * extent.max(lo.iter().chain(&hi).fold(0.0, |m, x| m.max(x.abs())));
        if extent <= eps {
            return Err(HullError::Coincident);
        }
        let tris = build_triangles(&pts, eps)?;
        Self::from_triangles(points, &pts, &tris, eps)
    }

    /// Gathers coplanar triangles into polygons and packs the result.
    fn from_triangles(
        points: &[Vec3],
        pts: &[P],
        tris: &[Tri],
        eps: f64,
    ) -> Result<ConvexHull, HullError> {
        // directed edge -> triangle
        let mut owner: HashMap<(u32, u32), usize> = HashMap::new();
        for (i, t) in tris.iter().enumerate() {
            for k in 0..3 {
                owner.insert((t.v[k], t.v[(k + 1) % 3]), i);
            }
        }
        // union coplanar neighbours
        let mut parent: Vec<usize> = (0..tris.len()).collect();
        fn find(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        for (i, t) in tris.iter().enumerate() {
            for k in 0..3 {
                let Some(&j) = owner.get(&(t.v[(k + 1) % 3], t.v[k])) else {
                    return Err(HullError::Inconsistent("open triangle mesh"));
                };
                let u = &tris[j];
                let far_u = u.v.iter().find(|&&x| !t.v.contains(&x)).copied().unwrap_or(u.v[0]);
                let far_t = t.v.iter().find(|&&x| !u.v.contains(&x)).copied().unwrap_or(t.v[0]);
                let coplanar = (dot(t.n, pts[far_u as usize]) - t.d).abs() <= eps
                    && (dot(u.n, pts[far_t as usize]) - u.d).abs() <= eps
                    && dot(t.n, u.n) > 0.0;
                if coplanar {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        let groups: Vec<usize> = (0..tris.len()).map(|i| find(&mut parent, i)).collect();
        // boundary loops of each group
        let mut roots: Vec<usize> = groups.clone();
        roots.sort_unstable();
        roots.dedup();
        let mut polys: Vec<(Vec<u32>, P)> = Vec::new();
        for &r in &roots {
            let mut next: HashMap<u32, u32> = HashMap::new();
            let mut normal = [0.0; 3];
            for (i, t) in tris.iter().enumerate() {
                if groups[i] != r {
                    continue;
                }
                let (a, b, c) = (pts[t.v[0] as usize], pts[t.v[1] as usize], pts[t.v[2] as usize]);
                let area = cross(sub(b, a), sub(c, a));
                for k in 0..3 {
                    normal[k] += area[k];
                }
                for k in 0..3 {
                    let (x, y) = (t.v[k], t.v[(k + 1) % 3]);
                    if groups[owner[&(y, x)]] != r && next.insert(x, y).is_some() {
                        return Err(HullError::Inconsistent("face boundary is not a simple loop"));
                    }
                }
            }
            let start = *next.keys().min().ok_or(HullError::Inconsistent("empty face"))?;
            let mut lp = vec![start];
            let mut cur = next[&start];
            while cur != start {
                if lp.len() > next.len() {
                    return Err(HullError::Inconsistent("face boundary is not a simple loop"));
                }
                lp.push(cur);
                cur = *next.get(&cur).ok_or(HullError::Inconsistent("open face boundary"))?;
            }
            if lp.len() != next.len() {
                return Err(HullError::Inconsistent("face boundary has several loops"));
            }
            let l = norm(normal);
            polys.push((lp, [normal[0] / l, normal[1] / l, normal[2] / l]));
        }
        // vertices collinear on a boundary are not extreme points: drop them
        // everywhere (they lie on an edge line, so on both faces' boundaries)
        let mut drop = vec![false; pts.len()];
        for (lp, _) in &polys {
            let m = lp.len();
            for k in 0..m {
                let (a, b, c) = (
                    pts[lp[(k + m - 1) % m] as usize],
                    pts[lp[k] as usize],
                    pts[lp[(k + 1) % m] as usize],
                );
                let ac = sub(c, a);
                let l = norm(ac);
                if l > 0.0 && norm(cross(sub(b, a), ac)) / l <= eps {
                    drop[lp[k] as usize] = true;
                }
            }
        }
        for (lp, _) in polys.iter_mut() {
            lp.retain(|&v| !drop[v as usize]);
            if lp.len() < 3 {
                return Err(HullError::Inconsistent("face collapsed to an edge"));
            }
        }
        // compact vertex indices, in input order
        let mut used: Vec<u32> = polys.iter().flat_map(|(lp, _)| lp.iter().copied()).collect();
        used.sort_unstable();
        used.dedup();
        if used.len() > HULL_MAX_VERTICES {
            return Err(HullError::TooManyVertices { count: used.len() });
        }
        let mut index = vec![u8::MAX; pts.len()];
        for (k, &v) in used.iter().enumerate() {
            index[v as usize] = k as u8;
        }
        let vertices: Vec<Vec3> = used.iter().map(|&v| points[v as usize]).collect();
        let nv = vertices.len();
        // faces: f32 normal, offset = max over the face's vertices (so every
        // vertex is on or below its face plane up to one rounding)
        let mut normals = Vec::with_capacity(polys.len());
        let mut offsets = Vec::with_capacity(polys.len());
        let mut face_start = vec![0u16];
        let mut face_vertices = Vec::new();
        for (lp, n) in &polys {
            let nf = Vec3::new(n[0] as f32, n[1] as f32, n[2] as f32);
            let n64 = [nf.x as f64, nf.y as f64, nf.z as f64];
            let d = lp.iter().map(|&v| dot(n64, pts[v as usize])).fold(f64::MIN, f64::max);
            normals.push(nf);
            offsets.push(d as f32);
            face_vertices.extend(lp.iter().map(|&v| index[v as usize]));
            face_start.push(face_vertices.len() as u16);
        }
        let nf = normals.len();
        // edges: each undirected edge walked once each way
        let mut edge_of: HashMap<(u8, u8), usize> = HashMap::new();
        let mut edges: Vec<HullEdge> = Vec::new();
        let mut face_edges = vec![0u8; face_vertices.len()];
        for f in 0..nf {
            let (s, e) = (face_start[f] as usize, face_start[f + 1] as usize);
            for k in s..e {
                let (a, b) = (face_vertices[k], face_vertices[if k + 1 == e { s } else { k + 1 }]);
                let key = (a.min(b), a.max(b));
                let id = match edge_of.get(&key) {
                    Some(&id) => {
                        let edge = &mut edges[id];
                        if edge.faces[1] != u8::MAX || edge.a != b {
                            return Err(HullError::Inconsistent("edge not shared by two faces"));
                        }
                        edge.faces[1] = f as u8;
                        id
                    }
                    None => {
                        edges.push(HullEdge { a, b, faces: [f as u8, u8::MAX] });
                        edge_of.insert(key, edges.len() - 1);
                        edges.len() - 1
                    }
                };
                face_edges[k] = id as u8;
            }
        }
        if edges.iter().any(|e| e.faces[1] == u8::MAX) {
            return Err(HullError::Inconsistent("edge not shared by two faces"));
        }
        if nv + nf != edges.len() + 2 {
            return Err(HullError::Inconsistent("Euler characteristic is not 2"));
        }
        // convexity: every vertex below every plane (within the tolerance)
        for f in 0..nf {
            let n = [normals[f].x as f64, normals[f].y as f64, normals[f].z as f64];
            if used.iter().any(|&v| dot(n, pts[v as usize]) - offsets[f] as f64 > 4.0 * eps) {
                return Err(HullError::Inconsistent("not convex at the tolerance"));
            }
        }
        let mut c = [0.0f64; 3];
        for &v in &used {
            for k in 0..3 {
                c[k] += pts[v as usize][k] / nv as f64;
            }
        }
        let centroid = Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32);
        let c64 = [centroid.x as f64, centroid.y as f64, centroid.z as f64];
        let r = used.iter().map(|&v| norm(sub(pts[v as usize], c64))).fold(0.0, f64::max);
        // rounded up so the sphere holds every vertex
        let radius = (r * (1.0 + 1e-6)) as f32;
        let edge_cross: Vec<Vec3> = edges
            .iter()
            .map(|e| normals[e.faces[1] as usize].cross(normals[e.faces[0] as usize]))
            .collect();
        let mut arc_rows = ArcRows::default();
        arc_rows.reset(edges.len());
        for (k, e) in edges.iter().enumerate() {
            let (n0, n1) = (normals[e.faces[0] as usize], normals[e.faces[1] as usize]);
            let ends = (vertices[e.a as usize], vertices[e.b as usize]);
            arc_rows.set(k, (n0, n1, edge_cross[k]), ends, k as u8);
        }
        let faces_padded = normals.len().div_ceil(SOA_PAD) * SOA_PAD;
        let mut plane_lanes = vec![0.0f32; 4 * faces_padded];
        for (f, (n, &d)) in normals.iter().zip(&offsets).enumerate() {
            for (row, x) in [n.x, n.y, n.z, d].into_iter().enumerate() {
                plane_lanes[row * faces_padded + f] = x;
            }
        }
        Ok(ConvexHull {
            edge_cross,
            arc_rows,
            plane_lanes,
            vertices,
            normals,
            offsets,
            face_start,
            face_vertices,
            face_edges,
            edges,
            centroid,
            radius,
        })
    }

    /// The vertices (a subset of the input points, in input order).
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    /// Number of faces.
    pub fn face_count(&self) -> usize {
        self.normals.len()
    }

    /// Outward unit normal of face `f`.
    pub fn face_normal(&self, f: usize) -> Vec3 {
        self.normals[f]
    }

    /// Plane offset of face `f`: the face is `normal · p = offset`, every
    /// vertex has `normal · v <= offset`.
    pub fn face_offset(&self, f: usize) -> f32 {
        self.offsets[f]
    }

    /// Vertex indices of face `f`, counter-clockwise seen from outside.
    pub fn face_vertices(&self, f: usize) -> &[u8] {
        &self.face_vertices[self.face_start[f] as usize..self.face_start[f + 1] as usize]
    }

    /// Edge indices of face `f`: entry `k` joins vertices `k` and `k + 1`
    /// of [`face_vertices`](Self::face_vertices).
    pub fn face_edges(&self, f: usize) -> &[u8] {
        &self.face_edges[self.face_start[f] as usize..self.face_start[f + 1] as usize]
    }

    /// The unique edges, each with its two faces.
    pub fn edges(&self) -> &[HullEdge] {
        &self.edges
    }

    /// Mean of the vertices (an interior point).
    pub fn centroid(&self) -> Vec3 {
        self.centroid
    }

    /// Radius of a sphere about [`centroid`](Self::centroid) holding every vertex.
    pub fn bounding_radius(&self) -> f32 {
        self.radius
    }

    /// `faces[1] normal × faces[0] normal` of edge `e` (Gregorius's `B × A`).
    pub fn edge_cross(&self, e: usize) -> Vec3 {
        self.edge_cross[e]
    }

    /// Face planes `f..f + L::WIDTH` in lanes: normals and offsets (lanes
    /// past the last face are zero).
    #[inline(always)]
    pub(crate) fn plane_lanes<L: crate::Lane>(&self, f: usize) -> (crate::math::V3<L>, L) {
        let padded = self.plane_lanes.len() / 4;
        let rows = &self.plane_lanes;
        let (x, y, z, d) = (
            L::load(&rows[f..padded]),
            L::load(&rows[padded + f..2 * padded]),
            L::load(&rows[2 * padded + f..3 * padded]),
            L::load(&rows[3 * padded + f..]),
        );
        (crate::math::V3::new(x, y, z), d)
    }

    /// The largest `dir · v` over the vertices for `L::WIDTH` directions at
    /// once: each lane equals the value of [`support`](Self::support) for
    /// its direction (the same products and sums; the maximum is exact, up
    /// to the sign of a zero maximum, and the same at every width: each lane
    /// visits the vertices in the same order). Two running maxima, even
    /// and odd vertices, halve the dependency chain.
    #[inline(always)]
    pub(crate) fn support_lanes<L: crate::Lane>(&self, dir: crate::math::V3<L>) -> L {
        #[inline(always)]
        fn dot<L: crate::Lane>(v: Vec3, dir: crate::math::V3<L>) -> L {
            L::splat(v.x) * dir.x + L::splat(v.y) * dir.y + L::splat(v.z) * dir.z
        }
        let mut m = [L::splat(f32::NEG_INFINITY); 2];
        let pairs = self.vertices.chunks_exact(2);
        if let [v] = pairs.remainder() {
            m[0] = dot(*v, dir);
        }
        for v in pairs {
            m[0] = m[0].max(dot(v[0], dir));
            m[1] = m[1].max(dot(v[1], dir));
        }
        m[0].max(m[1])
    }

    /// The edges' Gauss arcs as lanes (see [`ArcRows`]).
    pub(crate) fn arc_rows(&self) -> &ArcRows {
        &self.arc_rows
    }

    /// Index of the vertex farthest along `dir` (the lowest index on ties)
    /// and its projection.
    #[inline]
    pub fn support(&self, dir: Vec3) -> (usize, f32) {
        let mut best = (0, f32::NEG_INFINITY);
        for (i, v) in self.vertices.iter().enumerate() {
            let d = v.dot(dir);
            if d > best.1 {
                best = (i, d);
            }
        }
        best
    }
}

/// The hull's triangles (incremental construction, see the module docs).
fn build_triangles(pts: &[P], eps: f64) -> Result<Vec<Tri>, HullError> {
    // initial tetrahedron from extreme points
    let i0 = (0..pts.len()).min_by(|&a, &b| pts[a][0].total_cmp(&pts[b][0])).unwrap_or(0);
    let far = |f: &dyn Fn(P) -> f64| {
        (0..pts.len()).map(|i| (i, f(pts[i]))).fold((0, -1.0), |m, x| if x.1 > m.1 { x } else { m })
    };
    let (i1, d1) = far(&|p| norm(sub(p, pts[i0])));
    if d1 <= eps {
        return Err(HullError::Coincident);
    }
    let axis = sub(pts[i1], pts[i0]);
    let (i2, d2) = far(&|p| norm(cross(axis, sub(p, pts[i0]))) / d1);
    if d2 <= eps {
        return Err(HullError::Collinear);
    }
    let pn = cross(axis, sub(pts[i2], pts[i0]));
    let pl = norm(pn);
    let (i3, d3) = far(&|p| (dot(pn, sub(p, pts[i0])) / pl).abs());
    if d3 <= eps {
        return Err(HullError::Coplanar);
    }
    let (i0, i1, i2, i3) = (i0 as u32, i1 as u32, i2 as u32, i3 as u32);
    let mut tris: Vec<Tri> = Vec::new();
    let above = dot(pn, sub(pts[i3 as usize], pts[i0 as usize])) > 0.0;
    let base = if above { [i0, i2, i1] } else { [i0, i1, i2] };
    tris.push(tri(pts, base));
    for k in 0..3 {
        tris.push(tri(pts, [base[(k + 1) % 3], base[k], i3]));
    }
    let mut c = [0.0; 3];
    for &i in &[i0, i1, i2, i3] {
        for k in 0..3 {
            c[k] += pts[i as usize][k] / 4.0;
        }
    }
    // farthest first, like quickhull
    let mut order: Vec<u32> =
        (0..pts.len() as u32).filter(|i| ![i0, i1, i2, i3].contains(i)).collect();
    let dist: Vec<f64> = pts.iter().map(|p| norm(sub(*p, c))).collect();
    order.sort_by(|&a, &b| dist[b as usize].total_cmp(&dist[a as usize]).then(a.cmp(&b)));
    let mut owner: HashMap<(u32, u32), usize> = HashMap::new();
    for (i, t) in tris.iter().enumerate() {
        for k in 0..3 {
            owner.insert((t.v[k], t.v[(k + 1) % 3]), i);
        }
    }
    let mut visible: Vec<usize> = Vec::new();
    for &p in &order {
        let q = pts[p as usize];
        visible.clear();
        visible.extend(
            (0..tris.len()).filter(|&i| tris[i].alive && dot(tris[i].n, q) - tris[i].d > eps),
        );
        if visible.is_empty() {
            continue;
        }
        for &i in &visible {
            tris[i].alive = false;
        }
        // horizon: edges of visible triangles whose twin is not visible
        let mut horizon: Vec<(u32, u32)> = Vec::new();
        for &i in &visible {
            let t = tris[i];
            for k in 0..3 {
                let (a, b) = (t.v[k], t.v[(k + 1) % 3]);
                let twin = owner.get(&(b, a)).copied();
                match twin {
                    Some(j) if !tris[j].alive => {}
                    Some(_) => horizon.push((a, b)),
                    None => return Err(HullError::Inconsistent("open triangle mesh")),
                }
            }
        }
        for &i in &visible {
            let t = tris[i];
            for k in 0..3 {
                owner.remove(&(t.v[k], t.v[(k + 1) % 3]));
            }
        }
        for &(a, b) in &horizon {
            let t = tri(pts, [a, b, p]);
            tris.push(t);
            let id = tris.len() - 1;
            for k in 0..3 {
                if owner.insert((t.v[k], t.v[(k + 1) % 3]), id).is_some() {
                    return Err(HullError::Inconsistent("visible region is not a disc"));
                }
            }
        }
        if tris.len() > 64 * (pts.len() + 8) {
            return Err(HullError::Inconsistent("construction does not converge"));
        }
    }
    let alive: Vec<Tri> = tris.into_iter().filter(|t| t.alive).collect();
    if alive.iter().any(|t| t.n == [0.0; 3]) {
        return Err(HullError::Inconsistent("zero-area triangle"));
    }
    Ok(alive)
}
