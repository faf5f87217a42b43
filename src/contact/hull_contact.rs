//! Contact manifolds of a placed [`ConvexHull`] (A) against spheres,
//! capsules, boxes, one-sided triangles and other hulls (B), with the [module conventions](super):
//! normal from A to B, points on B, `depth >= -margin`, at most
//! [`MAX_CONTACTS`] points, feature ids that depend only on features.
//!
//! Sources: Dirk Gregorius, "The Separating Axis Test between Convex
//! Polyhedra" (GDC 2013: face queries by support points, edge queries only
//! for edge pairs whose Gauss-map arcs cross, i.e. that build a face of the
//! Minkowski difference), Box2D `b2ClipPolygons` and Jolt
//! `ManifoldBetweenTwoFaces` (reference face, most anti-parallel incident
//! face, Sutherland–Hodgman clipping to the reference side planes), Jolt
//! `PruneContactPoints` (reduction to 4 points).
//!
//! # Hull–polytope (hull and box)
//! Everything runs in A's local frame (B's pose relative to A is formed
//! once, a face plane is moved into the other shape's frame instead of
//! moving every vertex). The box is a polytope with the unit cube's
//! topology and analytic support, and a triangle a flat polytope (front
//! and back face, each edge's Gauss arc split at its outward in-plane
//! normal, see [`hull_triangle`]), so hull–box, hull–triangle and
//! hull–hull share one code path (the private `Polytope` trait).
//! 1. *Face queries*: for each face of A the separation of B's support
//!    point along `-n`, and the same for B's faces; the largest is the best
//!    face axis. If it exceeds the margin the pair has no contact.
//! 2. *Edge queries*: edge pairs whose Gauss-map arcs cross (Gregorius's
//!    `IsMinkowskiFace`), axis `e_A × e_B` oriented away from A's centroid,
//!    separation `L·(p_B - p_A)`. Edges are first culled by bounding
//!    spheres: if an edge pair's axis wins with penetration `d`, its witness
//!    points are within `d` of each other (for a penetrating pair the
//!    origin's foot on the nearest face of the Minkowski difference lies in
//!    that face), so an edge of A farther than `reach = max(d_face,
//!    margin)` from B's bounding sphere, or entirely more than `reach`
//!    above B's best face plane, cannot give the answer, and likewise for
//!    B (for resting contacts the second test leaves a thin slab of edges);
//!    an edge pair whose bounding spheres are more than `reach` apart is
//!    skipped before the Gauss-map test.
//! 3. *Axis choice* as [`box_box`](fn@super::box_box): an edge axis must
//!    beat the best face separation by [`OBB_EDGE_AXIS_BIAS`]`·|sep|` plus
//!    [`FACE_AXIS_ABS_TOL`]` · (r_A + r_B)` (bounding radii), and a face of
//!    B must beat the best face of A by the same allowance, so resting
//!    contacts keep one reference face instead of flipping.
//! 4. *Face axis*: the incident face is, among the other shape's faces at
//!    its support vertex along the reference normal, the most anti-parallel
//!    one (so the deepest vertex is on it); its polygon is clipped to the
//!    reference face's side planes (Sutherland–Hodgman), points with
//!    `depth >= -margin` are kept and reduced to 4 (deepest, farthest from
//!    it, then the largest triangle on each side, Jolt's rule).
//!    *Edge axis*: one point, the closest points of the two edges.
//! 5. *Speculative manifolds* (the best separation is `> 0`): the SAT
//!    separation is a lower bound of the distance. If the deepest kept point
//!    is shallower than the SAT depth (clipping dropped the support vertex),
//!    the clip left nothing, or the edge–edge closest points are clamped to
//!    an edge end, the manifold is replaced by the exact closest pair of the
//!    two polytopes (vertex–face and edge–edge, brute force), or dropped
//!    when that is beyond the margin. So a speculative depth is never more
//!    negative than minus the distance.
//!
//! # Sphere and capsule
//! The closest points of the sphere centre (capsule segment) and the hull:
//! outside, by brute force over faces (projection inside the polygon) and
//! edges (segment closest points); inside, by the nearest face plane
//! (sphere) or a SAT over the face normals and the `segment × edge` axes
//! whose Gauss arcs the segment's great circle crosses (capsule). A capsule
//! whose axis is within [`CAPSULE_FACE_PARALLEL`] of a face's plane gets
//! the two ends of its axis clipped to that face (two points), as
//! [`capsule_box`](fn@super::capsule_box) does.
//!
//! # Feature ids
//! `tag · 65536 + local`, every value below `2^24`:
//! - face axis: `tag` = reference face (A's `f`, or `128 + g` for B's face
//!   `g`); `local` = incident vertex `v` (`< 64`), `64 + 64·e + s` for
//!   incident edge `e` crossing reference side `s`, `12288 + k` for
//!   reference corner `k`;
//! - edge axis: `tag = 252`, `local = 192·e_A + e_B`;
//! - exact closest pair (speculative replacement): `tag = 253`,
//!   `local = 64·f_A + v_B`, `8192 + 64·f_B + v_A`, `16384 + 192·e_A + e_B`;
//! - sphere: `tag = 254`, `local` = face `f`, `128 + e` (edge);
//! - capsule: `tag = 255`, `local = 4·feature + end` where `feature` is a
//!   face `f`, `128 + e` an edge, and `end` the capsule end (0, 1) or 2
//!   for an interior point of the axis.
//!
//! Box B uses the unit cube hull's face, vertex and edge indices.
//!
//! # Invalid input
//! NaN or infinite poses, shapes or margin give no contact (`count == 0`).

// `!(x <= y)` is meant: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::box_box::FACE_AXIS_ABS_TOL;
use super::hull::{ConvexHull, HullEdge};
use super::{ContactPoint, Manifold, MAX_CONTACTS};
use crate::math::{Vec3, V3};
use crate::overlap::OBB_EDGE_AXIS_BIAS;
use crate::shapes::{Capsule, Obb, Sphere, Triangle};
use crate::{Lane, LaneMask};
use rayon::prelude::*;
use std::sync::OnceLock;

/// A capsule axis with `|axis · n| <= CAPSULE_FACE_PARALLEL` (unit
/// vectors) is parallel to a face of normal `n` and gets two points. At
/// this slope an end point moved by the radius along `-n` is within
/// `r·CAPSULE_FACE_PARALLEL²/2` of the capsule's surface.
pub const CAPSULE_FACE_PARALLEL: f32 = 1.0 / 128.0;

/// A [`ConvexHull`] placed in the world: `center + Σ local_i · axes[i]`
/// (`axes` orthonormal, like [`Obb`]).
#[derive(Clone, Copy, Debug)]
pub struct PlacedHull<'a> {
    /// The shape in its local frame.
    pub hull: &'a ConvexHull,
    /// World position of the local origin.
    pub center: Vec3,
    /// World directions of the local axes (orthonormal columns of the rotation).
    pub axes: [Vec3; 3],
}

impl<'a> PlacedHull<'a> {
    /// `hull` at `center`, rotated by the orthonormal `axes`.
    pub fn new(hull: &'a ConvexHull, center: Vec3, axes: [Vec3; 3]) -> Self {
        PlacedHull { hull, center, axes }
    }

    /// A world point from a local one.
    #[inline]
    pub fn to_world(&self, p: Vec3) -> Vec3 {
        self.center + self.axes[0] * p.x + self.axes[1] * p.y + self.axes[2] * p.z
    }

    #[inline]
    fn dir_to_world(&self, d: Vec3) -> Vec3 {
        self.axes[0] * d.x + self.axes[1] * d.y + self.axes[2] * d.z
    }

    #[inline]
    fn local_point(&self, p: Vec3) -> Vec3 {
        let t = p - self.center;
        Vec3::new(t.dot(self.axes[0]), t.dot(self.axes[1]), t.dot(self.axes[2]))
    }

    fn valid(&self) -> bool {
        self.center.is_finite() && self.axes.iter().all(|a| a.is_finite())
    }
}

/// The B side of a hull pair in [`hull_contacts`].
#[derive(Clone, Copy, Debug)]
pub enum HullPartner<'a> {
    /// A sphere.
    Sphere(Sphere),
    /// A capsule.
    Capsule(Capsule),
    /// An oriented box.
    Box(Obb),
    /// Another hull.
    Hull(PlacedHull<'a>),
    /// A one-sided triangle.
    Triangle(Triangle),
}

/// Manifolds of the pairs `(hulls[i], others[j])` for `(i, j)` in `pairs`,
/// in pair order, A = the hull (see the [module docs](self)). Runs on the
/// rayon pool; each manifold depends only on its pair, so the result is
/// the same for any thread count and pair order. Indices out of range give
/// an empty manifold.
pub fn hull_contacts(
    hulls: &[PlacedHull],
    others: &[HullPartner],
    pairs: &[(u32, u32)],
    margin: f32,
) -> Vec<Manifold> {
    pairs
        .par_iter()
        .with_min_len(64)
        .map(|&(i, j)| match (hulls.get(i as usize), others.get(j as usize)) {
            (Some(a), Some(b)) => hull_partner(a, b, margin),
            _ => Manifold::EMPTY,
        })
        .collect()
}

/// One pair of [`hull_contacts`].
pub fn hull_partner(a: &PlacedHull, b: &HullPartner, margin: f32) -> Manifold {
    match b {
        HullPartner::Sphere(s) => hull_sphere(a, s, margin),
        HullPartner::Capsule(c) => hull_capsule(a, c, margin),
        HullPartner::Box(o) => hull_box(a, o, margin),
        HullPartner::Hull(h) => hull_hull(a, h, margin),
        HullPartner::Triangle(t) => hull_triangle(a, t, margin),
    }
}

// ---------------------------------------------------------------------------
// Polytopes

/// What the SAT needs of a convex polytope in its local frame.
trait Polytope {
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
    /// Largest `dir · v` (the value of [`support`](Self::support)).
    fn support_value(&self, dir: Vec3) -> f32;
    /// `faces[1] normal × faces[0] normal` of edge `e`.
    fn edge_cross(&self, e: usize) -> Vec3;
    /// The Gauss-map arcs of edge `e` as `(n0, n1, n1 × n0)`: one arc from
    /// `faces[0]`'s normal to `faces[1]`'s for a solid polytope; a flat one
    /// overrides it (its two faces are antipodal, see [`TrianglePolytope`]).
    #[inline]
    fn gauss_arcs(&self, e: usize, mut arc: impl FnMut(Vec3, Vec3, Vec3)) {
        let f = self.edges()[e].faces;
        arc(self.normal(f[0] as usize), self.normal(f[1] as usize), self.edge_cross(e));
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
}

/// The lane type of the support loops (bit-identical at every width: the
/// maximum is exact).
type SupportLane = wide::f32x8;

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
    fn support_value(&self, dir: Vec3) -> f32 {
        ConvexHull::support_value::<SupportLane>(self, dir)
    }
    #[inline]
    fn edge_cross(&self, e: usize) -> Vec3 {
        ConvexHull::edge_cross(self, e)
    }
}

/// The unit cube `[-1, 1]³` as a hull: the topology every box shares.
fn unit_cube() -> &'static ConvexHull {
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
struct BoxPolytope {
    cube: &'static ConvexHull,
    half: Vec3,
}

impl BoxPolytope {
    fn new(half: Vec3) -> Self {
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
    #[inline]
    fn support_value(&self, dir: Vec3) -> f32 {
        dir.abs().dot(self.half)
    }
    #[inline]
    fn edge_cross(&self, e: usize) -> Vec3 {
        self.cube.edge_cross(e)
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
struct TrianglePolytope {
    v: [Vec3; 3],
    n: Vec3,
    /// Outward in-plane edge normals `o_k`.
    out: [Vec3; 3],
    /// Front and back plane offsets (the largest over the vertices, so every
    /// vertex is on or below each plane, as a hull's faces).
    off: [f32; 2],
    centroid: Vec3,
    radius: f32,
}

const TRIANGLE_EDGES: [HullEdge; 3] = [
    HullEdge { a: 0, b: 1, faces: [0, 1] },
    HullEdge { a: 1, b: 2, faces: [0, 1] },
    HullEdge { a: 2, b: 0, faces: [0, 1] },
];
const TRIANGLE_FACE_VERTICES: [[u8; 3]; 2] = [[0, 1, 2], [0, 2, 1]];
/// `face_edges[i]` runs from `face_vertices[i]` to the next.
const TRIANGLE_FACE_EDGES: [[u8; 3]; 2] = [[0, 1, 2], [2, 1, 0]];

impl TrianglePolytope {
    /// `None` for a degenerate (zero-area) triangle.
    fn new(v: [Vec3; 3]) -> Option<Self> {
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
    #[inline]
    fn support_value(&self, dir: Vec3) -> f32 {
        self.support(dir).1
    }
    #[inline]
    fn edge_cross(&self, e: usize) -> Vec3 {
        // both quarter arcs lie on one great circle: o × N
        self.out[e].cross(self.n)
    }
    #[inline]
    fn gauss_arcs(&self, e: usize, mut arc: impl FnMut(Vec3, Vec3, Vec3)) {
        let (o, c) = (self.out[e], self.edge_cross(e));
        arc(self.n, o, c);
        arc(o, -self.n, c);
        let eps = self.n * (1.0 / 256.0);
        arc(o + eps, o - eps, c);
    }
    const ONE_SIDED: bool = true;
}

/// B's pose relative to A: `p_A = rot · p_B + t` (rows of `rot` are A's
/// axes dotted with B's).
#[derive(Clone, Copy)]
struct Relative {
    /// `cols[j]` = B's axis `j` in A's frame.
    cols: [Vec3; 3],
    t: Vec3,
}

impl Relative {
    /// B already in A's frame (every transform below is then exact).
    const IDENTITY: Relative = Relative { cols: [Vec3::X, Vec3::Y, Vec3::Z], t: Vec3::ZERO };

    fn new(a: &PlacedHull, b_center: Vec3, b_axes: &[Vec3; 3]) -> Self {
        let col = |v: Vec3| Vec3::new(v.dot(a.axes[0]), v.dot(a.axes[1]), v.dot(a.axes[2]));
        Relative {
            cols: [col(b_axes[0]), col(b_axes[1]), col(b_axes[2])],
            t: a.local_point(b_center),
        }
    }
    /// A direction of B's frame in A's frame.
    #[inline]
    fn dir(&self, d: Vec3) -> Vec3 {
        self.cols[0] * d.x + self.cols[1] * d.y + self.cols[2] * d.z
    }
    /// A point of B's frame in A's frame.
    #[inline]
    fn point(&self, p: Vec3) -> Vec3 {
        self.t + self.dir(p)
    }
    /// A direction of A's frame in B's frame.
    #[inline]
    fn dir_inv(&self, d: Vec3) -> Vec3 {
        Vec3::new(d.dot(self.cols[0]), d.dot(self.cols[1]), d.dot(self.cols[2]))
    }
}

// ---------------------------------------------------------------------------
// Manifold assembly

/// A contact point in A's frame before the reduction.
#[derive(Clone, Copy, Debug, Default)]
struct Cand {
    /// Point on B (A's frame).
    pos: Vec3,
    depth: f32,
    id: u32,
}

/// Jolt's `PruneContactPoints` rule on at most `n` candidates: the deepest
/// (lowest index on ties), the farthest from it, then on each side of that
/// line the point spanning the largest triangle with it.
fn reduce4(c: &[Cand], normal: Vec3) -> ([Cand; MAX_CONTACTS], usize) {
    let mut out = [Cand::default(); MAX_CONTACTS];
    if c.len() <= MAX_CONTACTS {
        out[..c.len()].copy_from_slice(c);
        return (out, c.len());
    }
    let mut i0 = 0;
    for (i, p) in c.iter().enumerate() {
        if p.depth > c[i0].depth {
            i0 = i;
        }
    }
    let p0 = c[i0].pos;
    let mut i1 = usize::MAX;
    let mut best = -1.0;
    for (i, p) in c.iter().enumerate() {
        let d = (p.pos - p0).length_squared();
        if i != i0 && d > best {
            best = d;
            i1 = i;
        }
    }
    let p1 = c[i1].pos;
    let (mut i2, mut i3) = (usize::MAX, usize::MAX);
    let (mut b2, mut b3) = (0.0f32, 0.0f32);
    for (i, p) in c.iter().enumerate() {
        if i == i0 || i == i1 {
            continue;
        }
        let area = (p1 - p0).cross(p.pos - p0).dot(normal);
        if area > b2 {
            b2 = area;
            i2 = i;
        } else if area < b3 {
            b3 = area;
            i3 = i;
        }
    }
    let mut n = 0;
    for i in [i0, i2, i1, i3] {
        if i != usize::MAX {
            out[n] = c[i];
            n += 1;
        }
    }
    (out, n)
}

/// The world manifold of candidates in A's frame with A-frame `normal`.
fn finish(a: &PlacedHull, normal: Vec3, cands: &[Cand]) -> Manifold {
    let (pts, n) = reduce4(cands, normal);
    let mut m = Manifold::EMPTY;
    if n == 0 {
        return m;
    }
    // renormalised: two rotations (B's frame to A's, A's to the world) with
    // axes orthonormal only to f32 precision
    let w = a.dir_to_world(normal);
    m.normal = w / w.length();
    m.count = n as f32;
    for (o, c) in m.points.iter_mut().zip(&pts[..n]) {
        *o = ContactPoint { position: a.to_world(c.pos), depth: c.depth, feature_id: c.id as f32 };
    }
    m
}

#[inline]
fn id(tag: u32, local: u32) -> u32 {
    tag * 65536 + local
}

// ---------------------------------------------------------------------------
// Hull–polytope SAT

/// Per-pair data of B in A's frame (vertices, face normals), computed once.
struct Posed<'p, B: Polytope> {
    poly: &'p B,
    rel: Relative,
}

impl<B: Polytope> Posed<'_, B> {
    #[inline]
    fn vertex(&self, i: usize) -> Vec3 {
        self.rel.point(self.poly.vertex(i))
    }
    #[inline]
    fn normal(&self, f: usize) -> Vec3 {
        self.rel.dir(self.poly.normal(f))
    }
    /// Plane offset of face `f` in A's frame.
    #[inline]
    fn offset(&self, f: usize) -> f32 {
        self.poly.offset(f) + self.normal(f).dot(self.rel.t)
    }
    /// Largest `dir · v` over B's vertices, `dir` in A's frame.
    #[inline]
    fn support(&self, dir: Vec3) -> (usize, f32) {
        let (i, s) = self.poly.support(self.rel.dir_inv(dir));
        (i, s + dir.dot(self.rel.t))
    }
    /// The value of [`support`](Self::support).
    #[inline]
    fn support_value(&self, dir: Vec3) -> f32 {
        self.poly.support_value(self.rel.dir_inv(dir)) + dir.dot(self.rel.t)
    }
}

/// Closest points of segments `p1 q1` and `p2 q2`: `(s, t, clamped)`.
fn closest_params(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (f32, f32) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    if a <= 0.0 && e <= 0.0 {
        return (0.0, 0.0);
    }
    if a <= 0.0 {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= 0.0 {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// A point of the clipped polygon: position, feature id, and what the edge
/// to the next point lies on (`Inc(e)`: incident edge `e`; `Side(s)`:
/// reference side `s`).
#[derive(Clone, Copy)]
struct ClipVertex {
    p: Vec3,
    id: u32,
    next_on: u32,
}

const ON_SIDE: u32 = 1 << 16;

/// Clips `poly` (incident face, ids and edge tags set) to the side planes of
/// the reference polygon `ref_pts` (counter-clockwise about `n`).
fn clip_polygon(
    poly: &mut Vec<ClipVertex>,
    scratch: &mut Vec<ClipVertex>,
    ref_pts: &[Vec3],
    n: Vec3,
) {
    let m = ref_pts.len();
    for s in 0..m {
        if poly.is_empty() {
            return;
        }
        let (v0, v1) = (ref_pts[s], ref_pts[(s + 1) % m]);
        let side = (v1 - v0).cross(n);
        let off = side.dot(v0);
        scratch.clear();
        let k = poly.len();
        for i in 0..k {
            let p = poly[i];
            let q = poly[(i + 1) % k];
            let dp = side.dot(p.p) - off;
            let dq = side.dot(q.p) - off;
            if dp <= 0.0 {
                scratch.push(p);
            }
            if (dp <= 0.0) != (dq <= 0.0) {
                let t = dp / (dp - dq);
                let x = p.p + (q.p - p.p) * t;
                let xid = if p.next_on & ON_SIDE != 0 {
                    // the edge runs along an earlier side: a reference corner
                    let s0 = (p.next_on & (ON_SIDE - 1)) as usize;
                    let corner = if (s0 + 1) % m == s {
                        s
                    } else if (s + 1) % m == s0 {
                        s0
                    } else {
                        s
                    };
                    12288 + ((corner + 1) % m) as u32
                } else {
                    64 + 64 * p.next_on + s as u32
                };
                let next_on = if dp <= 0.0 { ON_SIDE | s as u32 } else { p.next_on };
                if dp <= 0.0 {
                    // leaving: the kept point's edge now ends here
                    scratch.push(ClipVertex { p: x, id: xid, next_on });
                } else {
                    scratch.push(ClipVertex { p: x, id: xid, next_on });
                }
            }
        }
        std::mem::swap(poly, scratch);
    }
}

/// Per-thread scratch of the clipping: polygon, its next version, the
/// reference polygon, the candidates.
type ClipScratch = (Vec<ClipVertex>, Vec<ClipVertex>, Vec<Vec3>, Vec<Cand>);

thread_local! {
    static CLIP: std::cell::RefCell<ClipScratch> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new(), Vec::new())) };
}

/// The SAT and manifold of hull A against polytope B posed by `rel`.
fn hull_polytope<B: Polytope>(a: &PlacedHull, b: &B, rel: Relative, margin: f32) -> Manifold {
    let ha = a.hull;
    let pb = Posed { poly: b, rel };
    // 1. face queries
    let mut best_a = (usize::MAX, f32::NEG_INFINITY);
    for f in 0..ha.face_count() {
        let n = ha.face_normal(f);
        let sep = -pb.support_value(-n) - ha.face_offset(f);
        // a separating axis beyond the margin settles the pair (and the
        // result, empty, does not depend on which axis was found first)
        if !(sep <= margin) {
            return Manifold::EMPTY;
        }
        if sep > best_a.1 {
            best_a = (f, sep);
        }
    }
    if !(best_a.1 <= margin) {
        return Manifold::EMPTY;
    }
    let mut best_b = (usize::MAX, f32::NEG_INFINITY);
    for g in 0..if B::ONE_SIDED { 1 } else { b.face_count() } {
        let m = pb.normal(g);
        let sep = -Polytope::support_value(ha, -m) - pb.offset(g);
        if !(sep <= margin) {
            return Manifold::EMPTY;
        }
        if sep > best_b.1 {
            best_b = (g, sep);
        }
    }
    if !(best_b.1 <= margin) {
        return Manifold::EMPTY;
    }
    let scale = ha.bounding_radius() + b.radius();
    let allowance = |sep: f32| OBB_EDGE_AXIS_BIAS * sep.abs() + FACE_AXIS_ABS_TOL * scale;
    // the preferred reference keeps the axis unless the other beats it
    let face_b = if B::ONE_SIDED {
        !(best_a.1 > best_b.1 + allowance(best_b.1))
    } else {
        best_b.1 > best_a.1 + allowance(best_a.1)
    };
    let best_face = if face_b { best_b.1 } else { best_a.1 };
    // 2. edge queries, culled by bounding spheres
    let reach = margin.max(-best_face) + FACE_AXIS_ABS_TOL * scale;
    let cb = pb.rel.point(b.centroid());
    let ca = ha.centroid();
    let mut best_e = (usize::MAX, usize::MAX, f32::NEG_INFINITY, Vec3::ZERO);
    let a_edges = ha.edges();
    let b_edges = b.edges();
    // A's best face plane (f*) and B's (g*, in A's frame): an edge whose
    // witness point is within `reach` of the other shape is at most `reach`
    // above that shape's face planes, so edges entirely farther above the
    // other's best plane are culled (a thin slab for resting contacts).
    let (na_best, da_best) = (ha.face_normal(best_a.0), ha.face_offset(best_a.0));
    let (nb_best, db_best) = (pb.normal(best_b.0), pb.offset(best_b.0));
    EDGES.with(|cell| {
        let mut soa = cell.borrow_mut();
        // B's edges near A, SoA: negated face normals c, d, their cross d × c
        // (= n1 × n0), midpoint, half length + reach; padded to the lane
        // width with an edge whose radius is -inf (never passes)
        soa.clear();
        for (k, e) in b_edges.iter().enumerate() {
            let (p, q) = (pb.vertex(e.a as usize), pb.vertex(e.b as usize));
            if (na_best.dot(p) - da_best).min(na_best.dot(q) - da_best) > reach {
                continue;
            }
            let mid = (p + q) * 0.5;
            let half = (q - p).length() * 0.5;
            if (mid - ca).length() <= ha.bounding_radius() + half + reach {
                b.gauss_arcs(k, |n0, n1, cross| {
                    let (c, d) = (-pb.rel.dir(n0), -pb.rel.dir(n1));
                    soa.push(k as u8, [c, d, pb.rel.dir(cross), mid], half + reach, p, q);
                });
            }
        }
        if soa.ids.is_empty() {
            return;
        }
        soa.pad::<EdgeLane>();
        for (ka, e) in a_edges.iter().enumerate() {
            let (p, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
            if (nb_best.dot(p) - db_best).min(nb_best.dot(q) - db_best) > reach {
                continue;
            }
            let mid = (p + q) * 0.5;
            let half = (q - p).length() * 0.5;
            if (mid - cb).length() > b.radius() + half + reach {
                continue;
            }
            let na = ha.face_normal(e.faces[0] as usize);
            let nb = ha.face_normal(e.faces[1] as usize);
            let bxa = ha.edge_cross(ka);
            let ea = q - p;
            let mut j0 = 0;
            while j0 < soa.len {
                let hits = soa.candidates::<EdgeLane>(j0, na, nb, bxa, mid, half);
                let mut bits = hits;
                while bits != 0 {
                    let j = j0 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let (bp, bq) = soa.ends[j];
                    let eb = bq - bp;
                    let l = ea.cross(eb);
                    let len = l.length();
                    // parallel edges: their axis is a face normal's
                    if !(len > 1e-5 * ea.length() * eb.length()) {
                        continue;
                    }
                    let mut l = l / len;
                    if l.dot(p - ca) < 0.0 {
                        l = -l;
                    }
                    let sep = l.dot(bp - p);
                    if sep > best_e.2 {
                        best_e = (ka, soa.ids[j] as usize, sep, l);
                    }
                }
                j0 += EdgeLane::WIDTH;
            }
        }
    });
    if best_e.2 > margin {
        return Manifold::EMPTY;
    }
    let has_edge = best_e.0 != usize::MAX;
    let preferred = if has_edge && best_e.2 > best_face + allowance(best_face) {
        Axis::Edge
    } else if face_b {
        Axis::FaceB
    } else {
        Axis::FaceA
    };
    // the unbiased least-overlap axis, tried when the preferred one's
    // manifold cannot reach its SAT depth
    let mut exact = if best_b.1 > best_a.1 { Axis::FaceB } else { Axis::FaceA };
    if has_edge && best_e.2 > best_a.1.max(best_b.1) {
        exact = Axis::Edge;
    }
    let sep_of = |ax: Axis| match ax {
        Axis::FaceA => best_a.1,
        Axis::FaceB => best_b.1,
        Axis::Edge => best_e.2,
    };
    let tol = DEPTH_REACH_TOL * (pb.rel.t.abs().max_element() + scale);
    let build = |ax: Axis| match ax {
        Axis::Edge => edge_contact(a, ha, &pb, best_e.0, best_e.1, best_e.3, best_e.2 > 0.0),
        Axis::FaceB => face_contact_b(a, ha, &pb, best_b.0, margin, best_b.1 + tol),
        Axis::FaceA => face_contact_a(a, ha, &pb, best_a.0, margin, best_a.1 + tol),
    };
    let reaches = |m: &Manifold, sep: f32| m.max_depth().is_some_and(|d| d >= -sep - tol);
    let m = build(preferred);
    if reaches(&m, sep_of(preferred)) {
        return m;
    }
    if exact != preferred {
        let m2 = build(exact);
        if reaches(&m2, sep_of(exact)) {
            return m2;
        }
    }
    // 5. speculative: the deepest point must reach the SAT depth
    if sep_of(exact) > 0.0 {
        return closest_pair(a, ha, &pb, margin);
    }
    if B::ONE_SIDED && m.count == 0.0 {
        // a clamped edge witness (see `Polytope::ONE_SIDED`)
        return build(Axis::FaceB);
    }
    m
}

/// The lane type of the edge-pair loop.
type EdgeLane = wide::f32x8;

/// B's candidate edges for the edge queries, in structure-of-arrays form so
/// the edge-sphere test and Gregorius's Gauss-map test run `L::WIDTH` edges
/// of B at a time against one edge of A (the same float operations as the
/// scalar test, so the same decisions).
#[derive(Default)]
struct EdgeSoa {
    /// `[c.x, c.y, c.z, d.x, …, mid.z]`: 12 arrays of `cap` entries.
    cols: [Vec<f32>; 12],
    /// Half length + reach (`-inf` in padding).
    radius: Vec<f32>,
    ids: Vec<u8>,
    ends: Vec<(Vec3, Vec3)>,
    len: usize,
}

impl EdgeSoa {
    fn clear(&mut self) {
        for c in &mut self.cols {
            c.clear();
        }
        self.radius.clear();
        self.ids.clear();
        self.ends.clear();
        self.len = 0;
    }

    fn push(&mut self, id: u8, v: [Vec3; 4], radius: f32, p: Vec3, q: Vec3) {
        for (k, x) in v.iter().enumerate() {
            self.cols[3 * k].push(x.x);
            self.cols[3 * k + 1].push(x.y);
            self.cols[3 * k + 2].push(x.z);
        }
        self.radius.push(radius);
        self.ids.push(id);
        self.ends.push((p, q));
        self.len += 1;
    }

    #[inline(always)]
    fn pad<L: Lane>(&mut self) {
        while !self.radius.len().is_multiple_of(L::WIDTH) {
            for c in &mut self.cols {
                c.push(0.0);
            }
            self.radius.push(f32::NEG_INFINITY);
        }
    }

    #[inline(always)]
    fn v3<L: Lane>(&self, col: usize, j: usize) -> V3<L> {
        V3::new(
            L::load(&self.cols[col][j..]),
            L::load(&self.cols[col + 1][j..]),
            L::load(&self.cols[col + 2][j..]),
        )
    }

    /// Bit `i` set when B's edge `j + i` passes the sphere test and forms a
    /// Minkowski face with A's edge (arc `a → b`, `bxa`, midpoint, half length).
    #[inline(always)]
    fn candidates<L: Lane>(
        &self,
        j: usize,
        a: Vec3,
        b: Vec3,
        bxa: Vec3,
        mid: Vec3,
        half: f32,
    ) -> u64 {
        let splat = |v: Vec3| V3::new(L::splat(v.x), L::splat(v.y), L::splat(v.z));
        let m = self.v3::<L>(9, j) - splat(mid);
        let r = L::splat(half) + L::load(&self.radius[j..]);
        let near = m.dot(m).le(r * r);
        let (c, d, dxc) = (self.v3::<L>(0, j), self.v3::<L>(3, j), self.v3::<L>(6, j));
        let bxa = splat(bxa);
        let cba = c.dot(bxa);
        let dba = d.dot(bxa);
        let adc = splat(a).dot(dxc);
        let bdc = splat(b).dot(dxc);
        let zero = L::splat(0.0);
        let face = (cba * dba).lt(zero) & (adc * bdc).lt(zero) & (cba * bdc).gt(zero);
        (near & face).bits()
    }
}

thread_local! {
    static EDGES: std::cell::RefCell<EdgeSoa> = std::cell::RefCell::new(EdgeSoa::default());
}

/// The axis kinds of [`hull_polytope`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Axis {
    FaceA,
    FaceB,
    Edge,
}

/// Tolerance factor of "the deepest point reaches the SAT depth" (relative
/// to the local coordinates' magnitude: a few dozen ulps of `f32`).
const DEPTH_REACH_TOL: f32 = 1.0 / 131_072.0;

/// One point from the closest points of A's edge `ea` and B's edge `eb`
/// (`l` the unit axis in A's frame, from A to B). `Manifold::EMPTY` with
/// `count == 0` when the closest points are clamped (the caller's
/// speculative rule then takes the exact closest pair).
fn edge_contact<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    ea: usize,
    eb: usize,
    l: Vec3,
    separated: bool,
) -> Manifold {
    let e1 = ha.edges()[ea];
    let e2 = pb.poly.edges()[eb];
    let (p1, q1) = (ha.vertices()[e1.a as usize], ha.vertices()[e1.b as usize]);
    let (p2, q2) = (pb.vertex(e2.a as usize), pb.vertex(e2.b as usize));
    let (s, t) = closest_params(p1, q1, p2, q2);
    if (separated || B::ONE_SIDED) && (s == 0.0 || s == 1.0 || t == 0.0 || t == 1.0) {
        return Manifold::EMPTY;
    }
    let pa = p1 + (q1 - p1) * s;
    let pbp = p2 + (q2 - p2) * t;
    let depth = l.dot(pa - pbp);
    finish(a, l, &[Cand { pos: pbp, depth, id: id(252, 192 * ea as u32 + eb as u32) }])
}

/// Face axis with A's face `f` as reference: the incident face is B's
/// face most anti-parallel to the normal; if its clipped points do not
/// reach `-sep` (the support vertex was not on it), the most anti-parallel
/// face at B's support vertex is tried too and the deeper result kept.
fn face_contact_a<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    f: usize,
    margin: f32,
    sep: f32,
) -> Manifold {
    let n = ha.face_normal(f);
    let nb = pb.poly.face_count();
    let inc = most_antiparallel(nb, |g| pb.normal(g).dot(n), |_| true);
    let clip = |inc| clip_faces(a, &posed_a(ha), f, pb, inc, Reference::A, f as u32, margin);
    let m = clip(inc);
    if m.max_depth().is_some_and(|d| d >= -sep) {
        return m;
    }
    let (sv, _) = pb.support(-n);
    let inc2 = most_antiparallel(
        nb,
        |g| pb.normal(g).dot(n),
        |g| pb.poly.face_vertices(g).contains(&(sv as u8)),
    );
    if inc2 == inc {
        return m;
    }
    let m2 = clip(inc2);
    deeper(m, m2)
}

/// The manifold whose deepest point is deeper (the first on ties).
fn deeper(m: Manifold, m2: Manifold) -> Manifold {
    let d = |m: &Manifold| m.max_depth().unwrap_or(f32::NEG_INFINITY);
    if d(&m2) > d(&m) {
        m2
    } else {
        m
    }
}

/// The face `g < count` with `allowed(g)` and the least `dot(g)` (the lowest
/// index on ties).
fn most_antiparallel(
    count: usize,
    dot: impl Fn(usize) -> f32,
    allowed: impl Fn(usize) -> bool,
) -> usize {
    let mut inc = 0;
    let mut lo = f32::INFINITY;
    for g in 0..count {
        if !allowed(g) {
            continue;
        }
        let x = dot(g);
        if x < lo {
            lo = x;
            inc = g;
        }
    }
    inc
}

/// Face axis with B's face `g` as reference (normal `-m`); the incident
/// face as in [`face_contact_a`].
fn face_contact_b<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    g: usize,
    margin: f32,
    sep: f32,
) -> Manifold {
    let m = pb.normal(g);
    let na = ha.face_count();
    let inc = most_antiparallel(na, |f| ha.face_normal(f).dot(m), |_| true);
    let tag = 128 + g as u32;
    let clip = |inc| clip_faces(a, pb, g, &posed_a(ha), inc, Reference::B, tag, margin);
    let out = clip(inc);
    if out.max_depth().is_some_and(|d| d >= -sep) {
        return out;
    }
    let (sv, _) = Polytope::support(ha, -m);
    let inc2 = most_antiparallel(
        na,
        |f| ha.face_normal(f).dot(m),
        |f| ha.face_vertices(f).contains(&(sv as u8)),
    );
    if inc2 == inc {
        return out;
    }
    deeper(out, clip(inc2))
}

/// A's own frame as a posed polytope (the identity transform is exact up to
/// the sign of a zero), so both sides of a face clip read alike.
#[inline]
fn posed_a(ha: &ConvexHull) -> Posed<'_, ConvexHull> {
    Posed { poly: ha, rel: Relative::IDENTITY }
}

/// Which shape holds the reference face of a clip.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reference {
    /// A's face: the normal is its outward normal, points are the clipped
    /// incident (B) vertices.
    A,
    /// B's face: the normal is minus its outward normal, points are the
    /// clipped incident (A) vertices moved onto B's face plane.
    B,
}

/// The incident face `inc` of `incident` clipped to the reference face `f`
/// of `reference` (both in A's frame), points with `depth >= -margin`,
/// feature ids tagged `tag` (see the [module docs](self)).
#[allow(clippy::too_many_arguments)]
fn clip_faces<R: Polytope, I: Polytope>(
    a: &PlacedHull,
    reference: &Posed<R>,
    f: usize,
    incident: &Posed<I>,
    inc: usize,
    side: Reference,
    tag: u32,
    margin: f32,
) -> Manifold {
    let n = reference.normal(f);
    let d = reference.offset(f);
    CLIP.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (poly, scratch, refp, cands) = &mut *cell;
        poly.clear();
        let iv = incident.poly.face_vertices(inc);
        let ie = incident.poly.face_edges(inc);
        for (&v, &e) in iv.iter().zip(ie) {
            poly.push(ClipVertex {
                p: incident.vertex(v as usize),
                id: v as u32,
                next_on: e as u32,
            });
        }
        refp.clear();
        refp.extend(reference.poly.face_vertices(f).iter().map(|&v| reference.vertex(v as usize)));
        clip_polygon(poly, scratch, refp, n);
        cands.clear();
        for c in poly.iter() {
            let depth = d - n.dot(c.p);
            if depth >= -margin {
                // on B: the incident point itself, or A's point moved onto
                // B's face plane
                let pos = if side == Reference::A { c.p } else { c.p + n * depth };
                cands.push(Cand { pos, depth, id: id(tag, c.id) });
            }
        }
        finish(a, if side == Reference::A { n } else { -n }, cands)
    })
}

/// Is `p` (on the plane of face `f` of `poly`'s vertices `pts`, normal `n`)
/// inside the polygon (closed)?
fn inside_polygon(pts: &[Vec3], n: Vec3, p: Vec3) -> bool {
    let m = pts.len();
    (0..m).all(|k| {
        let (v0, v1) = (pts[k], pts[(k + 1) % m]);
        (v1 - v0).cross(n).dot(p - v0) <= 0.0
    })
}

/// The exact closest pair of A and B (separated, A's frame), by brute force
/// over vertex–face and edge–edge pairs; one speculative point, or nothing
/// beyond the margin.
#[inline(never)]
fn closest_pair<B: Polytope>(
    a: &PlacedHull,
    ha: &ConvexHull,
    pb: &Posed<B>,
    margin: f32,
) -> Manifold {
    // (distance², point on A, point on B, id)
    let mut best = (f32::INFINITY, Vec3::ZERO, Vec3::ZERO, 0u32);
    let mut poly: Vec<Vec3> = Vec::with_capacity(64);
    for f in 0..ha.face_count() {
        let n = ha.face_normal(f);
        let d = ha.face_offset(f);
        poly.clear();
        poly.extend(ha.face_vertices(f).iter().map(|&v| ha.vertices()[v as usize]));
        for v in 0..pb.poly.vertex_count() {
            let p = pb.vertex(v);
            let h = n.dot(p) - d;
            if h >= 0.0 && h * h < best.0 {
                let foot = p - n * h;
                if inside_polygon(&poly, n, foot) {
                    best = (h * h, foot, p, id(253, 64 * f as u32 + v as u32));
                }
            }
        }
    }
    for g in 0..pb.poly.face_count() {
        let m = pb.normal(g);
        let d = pb.offset(g);
        poly.clear();
        poly.extend(pb.poly.face_vertices(g).iter().map(|&v| pb.vertex(v as usize)));
        for (v, &p) in ha.vertices().iter().enumerate() {
            let h = m.dot(p) - d;
            if h >= 0.0 && h * h < best.0 {
                let foot = p - m * h;
                if inside_polygon(&poly, m, foot) {
                    best = (h * h, p, foot, id(253, 8192 + 64 * g as u32 + v as u32));
                }
            }
        }
    }
    // edge pairs: only those whose bounding spheres are within the margin
    // (a pair farther apart cannot be a closest pair the margin keeps)
    let b_edges: Vec<(Vec3, Vec3, Vec3, f32)> = pb
        .poly
        .edges()
        .iter()
        .map(|e| {
            let (p, q) = (pb.vertex(e.a as usize), pb.vertex(e.b as usize));
            (p, q, (p + q) * 0.5, (q - p).length() * 0.5 + margin)
        })
        .collect();
    for (ka, e1) in ha.edges().iter().enumerate() {
        let (p1, q1) = (ha.vertices()[e1.a as usize], ha.vertices()[e1.b as usize]);
        let (mid, half) = ((p1 + q1) * 0.5, (q1 - p1).length() * 0.5);
        for (kb, &(p2, q2, mid2, reach2)) in b_edges.iter().enumerate() {
            let r = half + reach2;
            if (mid2 - mid).length_squared() > r * r {
                continue;
            }
            let (s, t) = closest_params(p1, q1, p2, q2);
            let x = p1 + (q1 - p1) * s;
            let y = p2 + (q2 - p2) * t;
            let d2 = (y - x).length_squared();
            if d2 < best.0 {
                best = (d2, x, y, id(253, 16384 + 192 * ka as u32 + kb as u32));
            }
        }
    }
    let dist = best.0.sqrt();
    if !(dist <= margin) {
        return Manifold::EMPTY;
    }
    let Some(n) = (best.2 - best.1).try_normalize() else {
        return Manifold::EMPTY;
    };
    finish(a, n, &[Cand { pos: best.2, depth: -dist, id: best.3 }])
}

/// Contact manifold of hulls `a` and `b` (see the [module docs](self)).
pub fn hull_hull(a: &PlacedHull, b: &PlacedHull, margin: f32) -> Manifold {
    if !(a.valid() && b.valid() && margin.is_finite() && margin >= 0.0) {
        return Manifold::EMPTY;
    }
    let rel = Relative::new(a, b.center, &b.axes);
    hull_polytope(a, b.hull, rel, margin)
}

/// Contact manifold of hull `a` and box `b` (the box as a polytope with the
/// unit cube's topology; see the [module docs](self)).
pub fn hull_box(a: &PlacedHull, b: &Obb, margin: f32) -> Manifold {
    let ok = a.valid()
        && b.center.is_finite()
        && b.axes.iter().all(|x| x.is_finite())
        && b.half.is_finite()
        && b.half.min_element() >= 0.0
        && margin.is_finite()
        && margin >= 0.0;
    if !ok {
        return Manifold::EMPTY;
    }
    let rel = Relative::new(a, b.center, &b.axes);
    hull_polytope(a, &BoxPolytope::new(b.half), rel, margin)
}

/// Contact manifold of hull `a` and the one-sided triangle `b` (front: the
/// side of `(b - a) × (c - a)`), with the hull–polytope SAT of the
/// [module docs](self): the triangle is a flat polytope
/// (`TrianglePolytope`) whose front face is its only face axis and the
/// preferred reference on near ties (a hull a face's bias above the
/// triangle keeps the triangle's normal, as
/// [`box_triangle`](fn@super::box_triangle)); the same margin, reach and
/// speculative closest-pair rules as [`hull_box`].
///
/// The rules of [`box_triangle`](fn@super::box_triangle): no contact when
/// the hull's centroid is behind the triangle's plane; a degenerate
/// (zero-area) triangle is tested two-sided as the segment (or point) it is,
/// through [`hull_capsule`] with radius 0 on its longest edge (capsule
/// feature ids, tag 255).
pub fn hull_triangle(a: &PlacedHull, b: &Triangle, margin: f32) -> Manifold {
    let ok = a.valid()
        && b.a.is_finite()
        && b.b.is_finite()
        && b.c.is_finite()
        && margin.is_finite()
        && margin >= 0.0;
    if !ok {
        return Manifold::EMPTY;
    }
    // the triangle in A's frame, once: B's transform is then the identity
    let v = [a.local_point(b.a), a.local_point(b.b), a.local_point(b.c)];
    let Some(tri) = TrianglePolytope::new(v) else {
        let (p, q) =
            [(b.a, b.b), (b.b, b.c), (b.c, b.a)].into_iter().fold((b.a, b.a), |best, e| {
                if (e.1 - e.0).length_squared() > (best.1 - best.0).length_squared() {
                    e
                } else {
                    best
                }
            });
        return hull_capsule(a, &Capsule { a: p, b: q, radius: 0.0 }, margin);
    };
    // one-sided: the hull's centroid must not be behind the plane
    if tri.n.dot(a.hull.centroid() - v[0]) < 0.0 {
        return Manifold::EMPTY;
    }
    hull_polytope(a, &tri, Relative::IDENTITY, margin)
}

// ---------------------------------------------------------------------------
// Sphere and capsule

/// Closest point of the hull surface to `p` (A's frame) when `p` is
/// outside: `(point, feature)` with feature `f` (face) or `128 + e` (edge).
fn closest_outside(ha: &ConvexHull, p: Vec3) -> (Vec3, u32) {
    let mut best = (f32::INFINITY, Vec3::ZERO, 0u32);
    let mut poly: Vec<Vec3> = Vec::with_capacity(64);
    for f in 0..ha.face_count() {
        let n = ha.face_normal(f);
        let h = n.dot(p) - ha.face_offset(f);
        if h >= 0.0 && h * h < best.0 {
            poly.clear();
            poly.extend(ha.face_vertices(f).iter().map(|&v| ha.vertices()[v as usize]));
            let foot = p - n * h;
            if inside_polygon(&poly, n, foot) {
                best = (h * h, foot, f as u32);
            }
        }
    }
    for (k, e) in ha.edges().iter().enumerate() {
        let (s, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
        let d = q - s;
        let l2 = d.length_squared();
        let t = if l2 > 0.0 { ((p - s).dot(d) / l2).clamp(0.0, 1.0) } else { 0.0 };
        let x = s + d * t;
        let d2 = (p - x).length_squared();
        if d2 < best.0 {
            best = (d2, x, 128 + k as u32);
        }
    }
    (best.1, best.2)
}

/// Largest face-plane distance of `p`: `(face, signed distance)`.
fn deepest_face(ha: &ConvexHull, p: Vec3) -> (usize, f32) {
    let mut best = (0, f32::NEG_INFINITY);
    for f in 0..ha.face_count() {
        let h = ha.face_normal(f).dot(p) - ha.face_offset(f);
        if h > best.1 {
            best = (f, h);
        }
    }
    best
}

/// Contact manifold of hull `a` and sphere `b` (see the [module docs](self)).
pub fn hull_sphere(a: &PlacedHull, b: &Sphere, margin: f32) -> Manifold {
    let ok = a.valid()
        && b.center.is_finite()
        && b.radius.is_finite()
        && b.radius >= 0.0
        && margin.is_finite()
        && margin >= 0.0;
    if !ok {
        return Manifold::EMPTY;
    }
    let ha = a.hull;
    let c = a.local_point(b.center);
    let r = b.radius;
    let (f, h) = deepest_face(ha, c);
    if h > r + margin {
        return Manifold::EMPTY;
    }
    let (n, dist, feature) = if h <= 0.0 {
        (ha.face_normal(f), h, f as u32)
    } else {
        let (q, feature) = closest_outside(ha, c);
        let (n, dist) = match (c - q).try_normalize() {
            Some(n) => (n, (c - q).length()),
            None => (ha.face_normal(f), 0.0),
        };
        (n, dist, feature)
    };
    let depth = r - dist;
    if !(depth >= -margin) {
        return Manifold::EMPTY;
    }
    finish(a, n, &[Cand { pos: c - n * r, depth, id: id(254, feature) }])
}

/// Contact manifold of hull `a` and capsule `b` (see the [module docs](self)).
pub fn hull_capsule(a: &PlacedHull, b: &Capsule, margin: f32) -> Manifold {
    let ok = a.valid()
        && b.a.is_finite()
        && b.b.is_finite()
        && b.radius.is_finite()
        && b.radius >= 0.0
        && margin.is_finite()
        && margin >= 0.0;
    if !ok {
        return Manifold::EMPTY;
    }
    let ha = a.hull;
    let p0 = a.local_point(b.a);
    let p1 = a.local_point(b.b);
    let r = b.radius;
    let seg = p1 - p0;
    let u = seg.try_normalize();
    // SAT over face normals and segment × edge axes (Gauss arcs crossing the
    // segment's great circle): the separation of the axis, A's support
    // plane included.
    let mut best_f = (0usize, f32::NEG_INFINITY);
    for f in 0..ha.face_count() {
        let n = ha.face_normal(f);
        let sep = n.dot(p0).min(n.dot(p1)) - ha.face_offset(f);
        if sep > best_f.1 {
            best_f = (f, sep);
        }
    }
    if best_f.1 > r + margin {
        return Manifold::EMPTY;
    }
    let mut best_e = (usize::MAX, f32::NEG_INFINITY, Vec3::ZERO);
    if let Some(u) = u {
        for (k, e) in ha.edges().iter().enumerate() {
            let na = ha.face_normal(e.faces[0] as usize);
            let nb = ha.face_normal(e.faces[1] as usize);
            if na.dot(u) * nb.dot(u) > 0.0 {
                continue;
            }
            let va = ha.vertices()[e.a as usize];
            let ea = ha.vertices()[e.b as usize] - va;
            let l = ea.cross(u);
            let len = l.length();
            if !(len > 1e-5 * ea.length()) {
                continue;
            }
            let mut l = l / len;
            if l.dot(na + nb) < 0.0 {
                l = -l;
            }
            let sep = l.dot(p0 - va);
            if sep > best_e.1 {
                best_e = (k, sep, l);
            }
        }
    }
    let sat = best_f.1.max(best_e.1);
    if sat > r + margin {
        return Manifold::EMPTY;
    }
    let scale = ha.bounding_radius() + seg.length() + r;
    let allowance = OBB_EDGE_AXIS_BIAS * best_f.1.abs() + FACE_AXIS_ABS_TOL * scale;
    let edge_wins = best_e.0 != usize::MAX && best_e.1 > best_f.1 + allowance;
    let closest_core = |x: Vec3| -> (Vec3, u32) { closest_outside(ha, x) };
    if sat > 0.0 {
        // separated cores: exact closest pair of segment and hull
        let mut best = (f32::INFINITY, Vec3::ZERO, Vec3::ZERO, 0u32);
        for (end, &p) in [p0, p1].iter().enumerate() {
            if deepest_face(ha, p).1 > 0.0 {
                let (q, feat) = closest_core(p);
                let d2 = (p - q).length_squared();
                if d2 < best.0 {
                    best = (d2, q, p, 4 * feat + end as u32);
                }
            }
        }
        for (k, e) in ha.edges().iter().enumerate() {
            let (s, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
            let (ts, tt) = closest_params(s, q, p0, p1);
            let x = s + (q - s) * ts;
            let y = p0 + seg * tt;
            let d2 = (y - x).length_squared();
            if d2 < best.0 {
                let end = if tt == 0.0 {
                    0
                } else if tt == 1.0 {
                    1
                } else {
                    2
                };
                best = (d2, x, y, 4 * (128 + k as u32) + end);
            }
        }
        let dist = best.0.sqrt();
        if !(dist <= r + margin) {
            return Manifold::EMPTY;
        }
        let n = match (best.2 - best.1).try_normalize() {
            Some(n) => n,
            None => ha.face_normal(best_f.0),
        };
        // two points when the axis lies along the closest face
        if best.3 / 4 < 128 {
            let f = (best.3 / 4) as usize;
            if let Some(m) = capsule_face_pair(a, ha, f, p0, p1, r, margin, dist) {
                return m;
            }
        }
        return finish(a, n, &[Cand { pos: best.2 - n * r, depth: r - dist, id: id(255, best.3) }]);
    }
    // penetrating cores
    if edge_wins {
        let e = ha.edges()[best_e.0];
        let (s, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
        let (_, tt) = closest_params(s, q, p0, p1);
        let y = p0 + seg * tt;
        let l = best_e.2;
        let end = if tt == 0.0 {
            0
        } else if tt == 1.0 {
            1
        } else {
            2
        };
        return finish(
            a,
            l,
            &[Cand {
                pos: y - l * r,
                depth: r - best_e.1,
                id: id(255, 4 * (128 + best_e.0 as u32) + end),
            }],
        );
    }
    let f = best_f.0;
    if let Some(m) = capsule_face_pair(a, ha, f, p0, p1, r, margin, best_f.1) {
        return m;
    }
    // one point: the deeper end, clipped into the face
    let n = ha.face_normal(f);
    let (lo, hi) = clip_segment_to_face(ha, f, p0, p1);
    let (t, end) = if n.dot(seg) >= 0.0 { (lo, 0) } else { (hi, 1) };
    let t = t.clamp(0.0, 1.0);
    let p = p0 + seg * t;
    let end = if t == 0.0 || t == 1.0 { end } else { 2 };
    let depth = r - (n.dot(p) - ha.face_offset(f));
    finish(a, n, &[Cand { pos: p - n * r, depth, id: id(255, 4 * f as u32 + end) }])
}

/// Parameter interval of the segment `p0 p1` inside face `f`'s side planes
/// (empty: `lo > hi`).
fn clip_segment_to_face(ha: &ConvexHull, f: usize, p0: Vec3, p1: Vec3) -> (f32, f32) {
    let n = ha.face_normal(f);
    let fv = ha.face_vertices(f);
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    let d = p1 - p0;
    for k in 0..fv.len() {
        let v0 = ha.vertices()[fv[k] as usize];
        let v1 = ha.vertices()[fv[(k + 1) % fv.len()] as usize];
        let side = (v1 - v0).cross(n);
        let a = side.dot(p0 - v0);
        let b = side.dot(d);
        if b == 0.0 {
            if a > 0.0 {
                return (1.0, 0.0);
            }
        } else {
            let t = -a / b;
            if b > 0.0 {
                hi = hi.min(t);
            } else {
                lo = lo.max(t);
            }
        }
    }
    (lo, hi)
}

/// The two-point manifold of a capsule whose axis is parallel to face `f`
/// (within [`CAPSULE_FACE_PARALLEL`]), or `None`.
#[allow(clippy::too_many_arguments)]
fn capsule_face_pair(
    a: &PlacedHull,
    ha: &ConvexHull,
    f: usize,
    p0: Vec3,
    p1: Vec3,
    r: f32,
    margin: f32,
    core_gap: f32,
) -> Option<Manifold> {
    let n = ha.face_normal(f);
    let seg = p1 - p0;
    let u = seg.try_normalize()?;
    if n.dot(u).abs() > CAPSULE_FACE_PARALLEL {
        return None;
    }
    let (lo, hi) = clip_segment_to_face(ha, f, p0, p1);
    if !(lo < hi) {
        return None;
    }
    let mut cands = [Cand::default(); 2];
    let mut k = 0;
    for (t, end) in [(lo, 0u32), (hi, 1u32)] {
        let p = p0 + seg * t;
        let depth = r - (n.dot(p) - ha.face_offset(f));
        let end = if (end == 0 && t == 0.0) || (end == 1 && t == 1.0) { end } else { 2 };
        if depth >= -margin {
            cands[k] = Cand { pos: p - n * r, depth, id: id(255, 4 * f as u32 + end) };
            k += 1;
        }
    }
    // the deepest point must reach the closest pair's depth
    let deepest = cands[..k].iter().map(|c| c.depth).fold(f32::NEG_INFINITY, f32::max);
    if k == 0
        || deepest
            < r - core_gap.max(0.0) - 4.0 * f32::EPSILON * (r + seg.length() + ha.bounding_radius())
    {
        return None;
    }
    Some(finish(a, n, &cands[..k]))
}
