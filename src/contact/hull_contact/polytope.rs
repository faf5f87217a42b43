//! The convex polytopes of the hull SAT (hull, box, flat triangle) behind one
//! trait, and the pose of B in A's frame.

use super::PlacedHull;
use crate::contact::hull::{ArcRows, ConvexHull, HullEdge};
use crate::math::{Vec3, V3};
use crate::Lane;
use std::sync::OnceLock;

/// A Gauss-map arc `(n0, n1, n1 × n0)`.
pub(super) type GaussArc = (Vec3, Vec3, Vec3);

/// What the SAT needs of a convex polytope in its local frame.
pub(super) trait Polytope {
    fn vertex(&self, i: usize) -> Vec3;
    fn vertex_count(&self) -> usize;
    fn face_count(&self) -> usize;
    fn normal(&self, f: usize) -> Vec3;
    fn offset(&self, f: usize) -> f32;
    fn face_vertices(&self, f: usize) -> &[u8];
    fn face_edges(&self, f: usize) -> &[u8];
    fn edges(&self) -> &[HullEdge];
    fn centroid(&self) -> Vec3;
    fn radius(&self) -> f32;
    /// Largest `dir · v` over the vertices (the lowest index on ties).
    fn support(&self, dir: Vec3) -> (usize, f32);
    /// `faces[1] normal × faces[0] normal` of edge `e`.
    fn edge_cross(&self, e: usize) -> Vec3;
    /// The Gauss-map arcs of edge `e` as `(n0, n1, n1 × n0)`: one arc from
    /// `faces[0]`'s normal to `faces[1]`'s for a solid polytope; a flat one
    /// overrides it (its two faces are antipodal, see [`TrianglePolytope`]).
    /// At most three arcs, as an array and a count.
    #[inline]
    fn gauss_arcs(&self, e: usize) -> ([GaussArc; 3], usize) {
        let f = self.edges()[e].faces;
        let arc = (self.normal(f[0] as usize), self.normal(f[1] as usize), self.edge_cross(e));
        ([arc; 3], 1)
    }
    /// A one-sided flat shape (a triangle): face `0` (its front) is its only
    /// face axis and the preferred reference on near ties (a hull resting on
    /// a mesh keeps the triangle's normal, as
    /// [`box_triangle`](fn@super::box_triangle) does). Without the back face
    /// the winning edge axis of a hull poking through the triangle deeper
    /// than it stands in front need not be a face of the Minkowski
    /// difference nearest the origin, so its edges' closest points may be
    /// clamped; that manifold is then built on the front face instead (the
    /// one-sided answer: push the hull out the front).
    const ONE_SIDED: bool = false;
    /// A box's half extents (its edge queries then take the box's own
    /// path, `box_edges`); `None` for every other polytope.
    #[inline(always)]
    fn box_half(&self) -> Option<Vec3> {
        None
    }
    /// The value of [`support`](Self::support) for `L::WIDTH` directions at
    /// once (the same products and sums, and the maximum is exact: each lane
    /// is the scalar value, a zero maximum up to its sign, the same at every
    /// width). `#[inline(always)]` in every implementation: it runs
    /// inside the dispatched entry of the hull testers.
    fn support_lanes<L: Lane>(&self, dir: V3<L>) -> L;
    /// Face planes `f..f + L::WIDTH` in lanes (normals, offsets); lanes past
    /// the last face are zero.
    #[inline(always)]
    fn plane_lanes<L: Lane>(&self, f: usize) -> (V3<L>, L) {
        let mut rows = [[0.0f32; 16]; 4];
        let live = L::WIDTH.min(self.face_count().saturating_sub(f));
        for (i, g) in (f..f + live).enumerate() {
            let n = self.normal(g);
            (rows[0][i], rows[1][i], rows[2][i], rows[3][i]) = (n.x, n.y, n.z, self.offset(g));
        }
        (V3::new(L::load(&rows[0]), L::load(&rows[1]), L::load(&rows[2])), L::load(&rows[3]))
    }
    /// The Gauss arcs as lanes ([`ArcRows`], in the local frame): a hull's
    /// own, or filled into `scratch`.
    fn arc_rows<'s>(&'s self, scratch: &'s mut ArcRows) -> &'s ArcRows {
        let count = (0..self.edges().len()).map(|k| self.gauss_arcs(k).1).sum();
        scratch.reset(count);
        let mut i = 0;
        for (k, e) in self.edges().iter().enumerate() {
            let ends = (self.vertex(e.a as usize), self.vertex(e.b as usize));
            let (arcs, n) = self.gauss_arcs(k);
            for &arc in &arcs[..n] {
                scratch.set(i, arc, ends, k as u8);
                i += 1;
            }
        }
        scratch
    }
}

impl Polytope for ConvexHull {
    #[inline]
    fn vertex(&self, i: usize) -> Vec3 {
        self.vertices()[i]
    }
    #[inline]
    fn vertex_count(&self) -> usize {
        ConvexHull::vertex_count(self)
    }
    #[inline]
    fn face_count(&self) -> usize {
        ConvexHull::face_count(self)
    }
    #[inline]
    fn normal(&self, f: usize) -> Vec3 {
        self.face_normal(f)
    }
    #[inline]
    fn offset(&self, f: usize) -> f32 {
        self.face_offset(f)
    }
    #[inline]
    fn face_vertices(&self, f: usize) -> &[u8] {
        ConvexHull::face_vertices(self, f)
    }
    #[inline]
    fn face_edges(&self, f: usize) -> &[u8] {
        ConvexHull::face_edges(self, f)
    }
    #[inline]
    fn edges(&self) -> &[HullEdge] {
        ConvexHull::edges(self)
    }
    #[inline]
    fn centroid(&self) -> Vec3 {
        ConvexHull::centroid(self)
    }
    #[inline]
    fn radius(&self) -> f32 {
        self.bounding_radius()
    }
    #[inline]
    fn support(&self, dir: Vec3) -> (usize, f32) {
        ConvexHull::support(self, dir)
    }
    #[inline]
    fn edge_cross(&self, e: usize) -> Vec3 {
        ConvexHull::edge_cross(self, e)
    }
    #[inline]
    fn arc_rows<'s>(&'s self, _: &'s mut ArcRows) -> &'s ArcRows {
        ConvexHull::arc_rows(self)
    }
    #[inline(always)]
    fn support_lanes<L: Lane>(&self, dir: V3<L>) -> L {
        ConvexHull::support_lanes(self, dir)
    }
    #[inline(always)]
    fn plane_lanes<L: Lane>(&self, f: usize) -> (V3<L>, L) {
        ConvexHull::plane_lanes(self, f)
    }
}

/// The unit cube `[-1, 1]³` as a hull: the topology every box shares.
pub(super) fn unit_cube() -> &'static ConvexHull {
    static CUBE: OnceLock<ConvexHull> = OnceLock::new();
    CUBE.get_or_init(|| {
        let pts: Vec<Vec3> = (0..8)
            .map(|i| {
                let s = |b: usize| if (i >> b) & 1 == 1 { 1.0 } else { -1.0 };
                Vec3::new(s(0), s(1), s(2))
            })
            .collect();
        ConvexHull::new(&pts).expect("the unit cube is a valid hull")
    })
}

/// A box in its local frame: the unit cube's topology scaled by `half`
/// (face normals stay the axes, offsets become the half extents).
pub(super) struct BoxPolytope {
    pub(super) cube: &'static ConvexHull,
    pub(super) half: Vec3,
}

impl BoxPolytope {
    pub(super) fn new(half: Vec3) -> Self {
        BoxPolytope { cube: unit_cube(), half }
    }
}

impl Polytope for BoxPolytope {
    #[inline]
    fn vertex(&self, i: usize) -> Vec3 {
        self.cube.vertices()[i].mul_elem(self.half)
    }
    #[inline]
    fn vertex_count(&self) -> usize {
        8
    }
    #[inline]
    fn face_count(&self) -> usize {
        6
    }
    #[inline]
    fn normal(&self, f: usize) -> Vec3 {
        self.cube.face_normal(f)
    }
    #[inline]
    fn offset(&self, f: usize) -> f32 {
        self.cube.face_normal(f).abs().dot(self.half)
    }
    #[inline]
    fn face_vertices(&self, f: usize) -> &[u8] {
        self.cube.face_vertices(f)
    }
    #[inline]
    fn face_edges(&self, f: usize) -> &[u8] {
        self.cube.face_edges(f)
    }
    #[inline]
    fn edges(&self) -> &[HullEdge] {
        self.cube.edges()
    }
    #[inline]
    fn centroid(&self) -> Vec3 {
        Vec3::ZERO
    }
    #[inline]
    fn radius(&self) -> f32 {
        self.half.length() * (1.0 + 1e-6)
    }
    #[inline]
    fn support(&self, dir: Vec3) -> (usize, f32) {
        // the cube vertex with bit k set where dir_k > 0 (ties to -)
        let i =
            (dir.x > 0.0) as usize | ((dir.y > 0.0) as usize) << 1 | ((dir.z > 0.0) as usize) << 2;
        (i, dir.abs().dot(self.half))
    }
    #[inline(always)]
    fn support_lanes<L: Lane>(&self, dir: V3<L>) -> L {
        let h = &self.half;
        dir.x.abs() * L::splat(h.x) + dir.y.abs() * L::splat(h.y) + dir.z.abs() * L::splat(h.z)
    }
    #[inline]
    fn edge_cross(&self, e: usize) -> Vec3 {
        self.cube.edge_cross(e)
    }
    #[inline(always)]
    fn box_half(&self) -> Option<Vec3> {
        Some(self.half)
    }
    fn arc_rows<'s>(&'s self, scratch: &'s mut ArcRows) -> &'s ArcRows {
        scratch.scaled_box(self.cube.arc_rows(), self.half);
        scratch
    }
}

/// A triangle as a flat polytope in A's frame: vertices `0, 1, 2`, the
/// front face `0` (normal `N = (b - a) × (c - a)` normalised, vertices
/// counter-clockwise about it) and the back face `1` (`-N`, reversed),
/// edges `k = (k, k + 1)` walked `0 → 1` by the front.
///
/// Its Gauss map: the faces are the antipodal points `±N`, an edge's arc
/// is the half great circle from `N` through the edge's outward in-plane
/// normal `o_k = e_k × N` to `-N`. Gregorius's Minkowski-face test needs
/// arcs shorter than a half circle, so each edge gives two quarter arcs,
/// `N → o_k` and `o_k → -N` (the normal cone of a flat polygon's edge is
/// that half circle: `αN + βo_k`, `β ≥ 0`). The test is strict, so a hull
/// arc crossing exactly at the split point `o_k` (a hull edge parallel to
/// `N`, common in built scenes) would pass neither quarter: a third short
/// arc `o_k ± 2^-8·N` around it holds that crossing in its interior (it is
/// a sub-arc of the half circle, so whatever crosses it is a true
/// Minkowski face).
pub(super) struct TrianglePolytope {
    pub(super) v: [Vec3; 3],
    pub(super) n: Vec3,
    /// Outward in-plane edge normals `o_k`.
    pub(super) out: [Vec3; 3],
    /// Front and back plane offsets (the largest over the vertices, so every
    /// vertex is on or below each plane, as a hull's faces).
    pub(super) off: [f32; 2],
    pub(super) centroid: Vec3,
    pub(super) radius: f32,
}

pub(super) const TRIANGLE_EDGES: [HullEdge; 3] = [
    HullEdge { a: 0, b: 1, faces: [0, 1] },
    HullEdge { a: 1, b: 2, faces: [0, 1] },
    HullEdge { a: 2, b: 0, faces: [0, 1] },
];
pub(super) const TRIANGLE_FACE_VERTICES: [[u8; 3]; 2] = [[0, 1, 2], [0, 2, 1]];
/// `face_edges[i]` runs from `face_vertices[i]` to the next.
pub(super) const TRIANGLE_FACE_EDGES: [[u8; 3]; 2] = [[0, 1, 2], [2, 1, 0]];

impl TrianglePolytope {
    /// `None` for a degenerate (zero-area) triangle.
    pub(super) fn new(v: [Vec3; 3]) -> Option<Self> {
        let n = (v[1] - v[0]).cross(v[2] - v[0]).try_normalize()?;
        let out = [0, 1, 2].map(|k| (v[(k + 1) % 3] - v[k]).cross(n).try_normalize());
        let out = [out[0]?, out[1]?, out[2]?];
        let front = n.dot(v[0]).max(n.dot(v[1])).max(n.dot(v[2]));
        let back = (-n).dot(v[0]).max((-n).dot(v[1])).max((-n).dot(v[2]));
        let centroid = (v[0] + v[1] + v[2]) / 3.0;
        let r = v.iter().map(|&p| (p - centroid).length()).fold(0.0, f32::max);
        Some(TrianglePolytope { v, n, out, off: [front, back], centroid, radius: r * (1.0 + 1e-6) })
    }
}

impl Polytope for TrianglePolytope {
    #[inline]
    fn vertex(&self, i: usize) -> Vec3 {
        self.v[i]
    }
    #[inline]
    fn vertex_count(&self) -> usize {
        3
    }
    #[inline]
    fn face_count(&self) -> usize {
        2
    }
    #[inline]
    fn normal(&self, f: usize) -> Vec3 {
        if f == 0 {
            self.n
        } else {
            -self.n
        }
    }
    #[inline]
    fn offset(&self, f: usize) -> f32 {
        self.off[f]
    }
    #[inline]
    fn face_vertices(&self, f: usize) -> &[u8] {
        &TRIANGLE_FACE_VERTICES[f]
    }
    #[inline]
    fn face_edges(&self, f: usize) -> &[u8] {
        &TRIANGLE_FACE_EDGES[f]
    }
    #[inline]
    fn edges(&self) -> &[HullEdge] {
        &TRIANGLE_EDGES
    }
    #[inline]
    fn centroid(&self) -> Vec3 {
        self.centroid
    }
    #[inline]
    fn radius(&self) -> f32 {
        self.radius
    }
    #[inline]
    fn support(&self, dir: Vec3) -> (usize, f32) {
        let mut best = (0, dir.dot(self.v[0]));
        for i in 1..3 {
            let s = dir.dot(self.v[i]);
            if s > best.1 {
                best = (i, s);
            }
        }
        best
    }
    #[inline(always)]
    fn support_lanes<L: Lane>(&self, dir: V3<L>) -> L {
        #[inline(always)]
        fn dot<L: Lane>(dir: V3<L>, v: Vec3) -> L {
            dir.x * L::splat(v.x) + dir.y * L::splat(v.y) + dir.z * L::splat(v.z)
        }
        let (s0, s1, s2) = (dot(dir, self.v[0]), dot(dir, self.v[1]), dot(dir, self.v[2]));
        // `support`'s scan: a later vertex wins only when strictly greater
        let s01 = L::select(s1.gt(s0), s1, s0);
        L::select(s2.gt(s01), s2, s01)
    }
    #[inline]
    fn edge_cross(&self, e: usize) -> Vec3 {
        // both quarter arcs lie on one great circle: o × N
        self.out[e].cross(self.n)
    }
    #[inline]
    fn gauss_arcs(&self, e: usize) -> ([GaussArc; 3], usize) {
        let (o, c) = (self.out[e], self.edge_cross(e));
        let eps = self.n * (1.0 / 256.0);
        ([(self.n, o, c), (o, -self.n, c), (o + eps, o - eps, c)], 3)
    }
    const ONE_SIDED: bool = true;
}

/// B's pose relative to A: `p_A = rot · p_B + t` (rows of `rot` are A's
/// axes dotted with B's).
#[derive(Clone, Copy)]
pub(super) struct Relative {
    /// `cols[j]` = B's axis `j` in A's frame.
    pub(super) cols: [Vec3; 3],
    pub(super) t: Vec3,
}

impl Relative {
    /// B already in A's frame (every transform below is then exact).
    pub(super) const IDENTITY: Relative =
        Relative { cols: [Vec3::X, Vec3::Y, Vec3::Z], t: Vec3::ZERO };

    pub(super) fn new(a: &PlacedHull, b_center: Vec3, b_axes: &[Vec3; 3]) -> Self {
        let col = |v: Vec3| Vec3::new(v.dot(a.axes[0]), v.dot(a.axes[1]), v.dot(a.axes[2]));
        Relative {
            cols: [col(b_axes[0]), col(b_axes[1]), col(b_axes[2])],
            t: a.local_point(b_center),
        }
    }
    /// A direction of B's frame in A's frame.
    #[inline]
    pub(super) fn dir(&self, d: Vec3) -> Vec3 {
        self.cols[0] * d.x + self.cols[1] * d.y + self.cols[2] * d.z
    }
    /// A point of B's frame in A's frame.
    #[inline]
    pub(super) fn point(&self, p: Vec3) -> Vec3 {
        self.t + self.dir(p)
    }
    /// A direction of A's frame in B's frame.
    #[inline]
    pub(super) fn dir_inv(&self, d: Vec3) -> Vec3 {
        Vec3::new(d.dot(self.cols[0]), d.dot(self.cols[1]), d.dot(self.cols[2]))
    }
}
