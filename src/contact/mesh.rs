//! Static triangle meshes in the narrow phase: a shape against a [`StaticMesh`]
//! gives one manifold per triangle it touches, found through the mesh's BVH
//! and computed by the same wide triangle testers as single triangles.
//!
//! The structure is bepuphysics2's (a `MeshPairOverlapFinder` collects the
//! triangles under each convex's bounds, and the convex–triangle sub-pairs
//! join the other pairs' bundles) with parry3d's output (one manifold per
//! sub-shape, tagged with the sub-shape index):
//!
//! ```text
//! for each pair (shape, mesh), in parallel:
//!     q = the shape's AABB grown by margin (+ a rounding pad, below)
//!     for t in mesh.bvh.overlap_aabb(q) (ascending):  sub-pair (shape, triangle t)
//! manifolds = the pipeline on the sub-pairs (bucketed by kind, L::WIDTH per
//!             bundle, rayon): sphere_triangle / capsule_triangle / box_triangle
//! pair i's output = [(t, manifold) for its sub-pairs if manifold.count > 0]
//! ```
//!
//! # What the query must not lose
//! The output equals the shape tested against **every** triangle of the mesh
//! with the scalar tester, keeping the non-empty manifolds, bit for bit
//! (`tests/contact_mesh.rs`). So the query box must hold every triangle a
//! tester can accept:
//! - sphere, capsule: a contact means the triangle is within `radius +
//!   margin` of the centre / axis, so it meets the AABB grown by `margin`;
//! - box: a contact means every one of [`box_triangle()`]'s 13 SAT axes shows a
//!   depth `>= -margin·(1 + b)`, `b =` [`OBB_EDGE_AXIS_BIAS`] (the chosen axis
//!   is `>= -margin`, and the face bias lets it be shallower than the least
//!   by at most `b·|depth|`). On a unit axis `n` the box grown by `g` on each
//!   half extent projects `g·Σ|n·aᵢ| >= g` wider, so the box grown by
//!   `margin·(1 + b)` overlaps the triangle on all 13 axes, which (a complete
//!   SAT set for a box and a triangle; the cross axes of parallel edges it
//!   skips are covered by the face axes) means it intersects the triangle, so
//!   the triangle meets that grown box's AABB. (Since a speculative box
//!   manifold must also hold a closest pair, the box tester in fact accepts
//!   only triangles within about `margin`; the growth stays a bound that does
//!   not depend on that check.)
//!
//! In floating point each tester decides within a few ulps of these
//! magnitudes, so the growth is `g = margin·(1 + 2b) + 2^-12·s`, with `s` the
//! largest coordinate magnitude of the shape's AABB plus the mesh's largest
//! triangle extent plus the margin. The `2^-12·s` pad is a safety margin some
//! thousand times a few ulps; no test shows it to be needed.
//! An extra triangle in the query only costs a tester call (its manifold
//! comes back empty and is dropped); a missing one would be a lost contact.
//! [`MeshBvh::overlap_aabb`] then keeps exactly the triangles that meet the
//! box (exact `triangle_aabb`), so none is lost there either.
//!
//! # Determinism
//! Sub-pairs are ordered by input pair, then triangle id; each manifold
//! depends only on its sub-pair (the testers are bit-identical in every lane),
//! and is written back by sub-pair index. The output is the same for any
//! thread count and lane width.
//!
//! # Internal edges (ghost contacts)
//! A shape sliding over the shared edge of two coplanar triangles gets, from
//! the triangle it is leaving, an edge-region manifold whose normal leans
//! towards the edge instead of the face normal: the body snags on flat
//! ground. Each [`StaticMesh`] computes its adjacency and edge convexity once
//! ([`internal_edges`](super::internal_edges): welded vertices, active
//! convex/boundary edges), and `mesh_contacts` drops a manifold whose normal
//! comes from an inactive (flat or concave) edge or vertex whenever the
//! shape keeps another manifold on the mesh. The rule, its tolerances and
//! the cases it does not fix are in that module's docs. A mesh made with
//! [`StaticMesh::with_raw_contacts`] returns every triangle's manifold as
//! its tester computed it (the output the brute-force test compares with).
//!
//! # Not done
//! - **No reduction across triangles**: a box over two triangles gets two
//!   manifolds of up to 4 points each; merging them is left to the solver.
//! - No mesh–mesh or triangle–mesh contacts ([`Collider::Triangle`] against a
//!   mesh gives none, as triangle–triangle in [`contacts`](super::contacts)),
//!   and no moving meshes (build a new [`StaticMesh`]).

use super::hull::ConvexHull;
use super::internal_edges::InternalEdges;
use super::pipeline::{run_pairs, Collider, ColliderShape, PairSource, ShapeKind};
use super::Manifold;
#[cfg(doc)]
use super::{box_triangle, capsule_triangle, sphere_triangle};
use crate::bvh::MeshBvh;
use crate::math::Vec3;
use crate::overlap::OBB_EDGE_AXIS_BIAS;
use crate::pack::LanePod;
use crate::shapes::{Aabb, Capsule, Obb, Sphere, Triangle};
use crate::voxel::MeshRef;
use rayon::prelude::*;
use wide::f32x16;

/// Relative rounding pad of the query box (`2^-12`, see the
/// [module docs](self)).
pub const QUERY_PAD: f32 = 1.0 / 4096.0;

/// Pairs per rayon task in the BVH query (a query visits a few nodes: small
/// tasks still amortise the task cost, and balance a few hundred pairs).
const QUERY_CHUNK: usize = 64;

/// A static triangle mesh for the narrow phase: the triangles and an 8-wide
/// BVH over them ([`MeshBvh`]). Triangles are **one-sided** like the triangle
/// testers (front = the side of `(b - a) × (c - a)`): wind a closed mesh
/// counter-clockwise seen from outside, a ground counter-clockwise seen from
/// above. Triangles with a non-finite coordinate are kept (ids stay those of
/// the input) but never touch anything.
///
/// ```
/// use widephase::contact::{mesh_contacts, Collider, StaticMesh};
/// use widephase::{Sphere, Triangle, Vec3};
/// // a 2×2 ground square at y = 0 as two triangles facing +Y
/// let (a, b, c, d) = (
///     Vec3::new(-1.0, 0.0, -1.0), Vec3::new(-1.0, 0.0, 1.0),
///     Vec3::new(1.0, 0.0, 1.0), Vec3::new(1.0, 0.0, -1.0),
/// );
/// let ground = StaticMesh::new(&[Triangle::new(a, b, c), Triangle::new(a, c, d)]);
/// // a sphere 0.1 deep over the shared diagonal touches both triangles
/// let bodies = [Collider::Sphere(Sphere::new(Vec3::new(0.0, 0.4, 0.0), 0.5))];
/// let out = mesh_contacts(&bodies, &[ground], &[(0, 0)], 0.0);
/// let hits = out.pair(0);
/// assert_eq!(hits.iter().map(|h| h.triangle).collect::<Vec<_>>(), [0, 1]);
/// for h in hits {
///     assert_eq!((h.manifold.count, h.manifold.normal), (1.0, -Vec3::Y));
/// }
/// ```
#[derive(Clone, Debug)]
pub struct StaticMesh {
    bvh: MeshBvh,
    /// Union of the valid triangles' bounding boxes (inverted when none).
    bounds: Aabb,
    /// Largest side of a valid triangle's bounding box (part of the query
    /// pad: the testers round relative to the triangle's size).
    max_extent: f32,
    /// Adjacency and active features for the ghost-contact filter.
    edges: InternalEdges,
    /// Return every triangle's manifold unfiltered.
    raw: bool,
}

impl StaticMesh {
    /// The mesh of `tris` (triangle `i` is `tris[i]`), its BVH built on the
    /// current rayon pool (the tree does not depend on the thread count).
    pub fn new(tris: &[Triangle]) -> Self {
        Self::from_bvh(MeshBvh::new(tris))
    }

    /// The mesh of an indexed triangle list.
    pub fn from_mesh(mesh: MeshRef<'_>) -> Self {
        Self::from_bvh(MeshBvh::from_mesh(mesh))
    }

    /// The mesh of an existing BVH (its triangles as they are now).
    pub fn from_bvh(bvh: MeshBvh) -> Self {
        let inverted = Aabb::new(Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        let (mut bounds, mut max_extent) = (inverted, 0.0f32);
        // MeshBvh gives a triangle with a non-finite coordinate an invalid box
        for b in bvh.bvh().boxes().iter().filter(|b| b.is_valid()) {
            bounds = Aabb::new(bounds.min.min(b.min), bounds.max.max(b.max));
            max_extent = max_extent.max((b.max - b.min).max_element());
        }
        let edges = InternalEdges::new(bvh.triangles());
        StaticMesh { bvh, bounds, max_extent, edges, raw: false }
    }

    /// With `raw`, [`mesh_contacts`] returns every touched triangle's
    /// manifold as its tester computed it, ghost contacts of internal edges
    /// included; without (the default), it drops them (see the
    /// [module docs](self)).
    pub fn with_raw_contacts(mut self, raw: bool) -> Self {
        self.raw = raw;
        self
    }

    /// Whether the mesh returns raw per-triangle manifolds
    /// ([`StaticMesh::with_raw_contacts`]).
    pub fn raw_contacts(&self) -> bool {
        self.raw
    }

    /// The adjacency and active features of the ghost-contact filter.
    pub fn internal_edges(&self) -> &InternalEdges {
        &self.edges
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.bvh.len()
    }

    /// Whether the mesh has no triangle.
    pub fn is_empty(&self) -> bool {
        self.bvh.is_empty()
    }

    /// The triangles, by id.
    pub fn triangles(&self) -> &[Triangle] {
        self.bvh.triangles()
    }

    /// The BVH (ray casts, volume queries).
    pub fn bvh(&self) -> &MeshBvh {
        &self.bvh
    }

    /// The bounding box of the valid triangles, for a broad phase (inverted,
    /// so overlapping nothing, when there is none).
    pub fn aabb(&self) -> Aabb {
        self.bounds
    }

    /// The box the BVH is queried with for `shape` (see the
    /// [module docs](self)): the shape grown by `margin·(1 + 2b) + 2^-12·s`
    /// (radius or half extents), then its AABB. `None` — no triangle is
    /// tested — for a triangle collider, a shape whose AABB is invalid
    /// (non-finite coordinates, or a negative radius or extent that inverts
    /// it) or an invalid margin (negative or non-finite), for which every
    /// tester says "no contact". Other invalid shapes (a capsule of negative
    /// radius longer than its diameter) are queried, and their testers reject
    /// every triangle.
    pub fn query_aabb(&self, shape: &Collider, margin: f32) -> Option<Aabb> {
        if !(margin.is_finite() && margin >= 0.0) {
            return None;
        }
        let tight = shape.aabb();
        if !tight.is_valid() {
            return None;
        }
        let s = tight.min.abs().max(tight.max.abs()).max_element() + self.max_extent + margin;
        let g = margin * (1.0 + 2.0 * OBB_EDGE_AXIS_BIAS) + QUERY_PAD * s;
        let grown = match *shape {
            Collider::Sphere(a) => Collider::Sphere(Sphere::new(a.center, a.radius + g)),
            Collider::Capsule(a) => Collider::Capsule(Capsule::new(a.a, a.b, a.radius + g)),
            Collider::Box(a) => Collider::Box(Obb::new(a.center, a.axes, a.half + Vec3::splat(g))),
            Collider::Triangle(_) => return None,
            // the AABB grown by g holds the hull grown by g
            Collider::Hull(_) => {
                let q = Aabb::new(tight.min - Vec3::splat(g), tight.max + Vec3::splat(g));
                return q.is_valid().then_some(q);
            }
        };
        let q = grown.aabb();
        q.is_valid().then_some(q)
    }
}

/// One triangle's manifold in a [`MeshManifolds`]. `(triangle,
/// manifold.points[k].feature_id)` names a contact uniquely across the mesh
/// (feature ids alone repeat from triangle to triangle).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshContact {
    /// Triangle id in the [`StaticMesh`].
    pub triangle: u32,
    /// The manifold of (shape, triangle): normal from the shape to the mesh,
    /// points on the triangle, `count > 0`.
    pub manifold: Manifold,
}

/// The output of [`mesh_contacts`]: for each input pair, the [`MeshContact`]s
/// of the triangles in contact, by ascending triangle id (stored flat, with
/// one offset per pair).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshManifolds {
    /// Pair `i`'s contacts are `contacts[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    contacts: Vec<MeshContact>,
    tested: usize,
    ghosts: usize,
}

impl MeshManifolds {
    /// Number of input pairs.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Whether there were no input pairs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The contacts of pair `i`, by ascending triangle id (empty when the
    /// shape touches no triangle). Panics if `i >= len()`.
    pub fn pair(&self, i: usize) -> &[MeshContact] {
        &self.contacts[self.starts[i]..self.starts[i + 1]]
    }

    /// The contacts of every pair, in pair order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[MeshContact]> + '_ {
        (0..self.len()).map(|i| self.pair(i))
    }

    /// All contacts, flat, in pair order then triangle id.
    pub fn contacts(&self) -> &[MeshContact] {
        &self.contacts
    }

    /// Number of (shape, triangle) sub-pairs the BVH query found and the
    /// testers ran on (kept or not).
    pub fn tested(&self) -> usize {
        self.tested
    }

    /// Number of manifolds dropped as ghost contacts of internal edges or
    /// vertices (always 0 for raw meshes).
    pub fn ghosts_dropped(&self) -> usize {
        self.ghosts
    }
}

/// One query task's output: its sub-pairs `(pair index, triangle id)` and
/// the number of them per pair.
type Found = (Vec<(u32, u32)>, Vec<u32>);

/// The sub-pairs: `(pair index, triangle id)`, read as (shape, triangle).
struct SubPairs<'a> {
    colliders: &'a [Collider],
    hulls: &'a [ConvexHull],
    meshes: &'a [StaticMesh],
    pairs: &'a [(u32, u32)],
    sub: &'a [(u32, u32)],
}

impl PairSource for SubPairs<'_> {
    fn len(&self) -> usize {
        self.sub.len()
    }
    #[inline(always)]
    fn pair(&self, i: usize) -> (Collider, Collider) {
        let (p, t) = self.sub[i];
        let (c, m) = self.pairs[p as usize];
        let tri = self.meshes[m as usize].triangles()[t as usize];
        (self.colliders[c as usize], Collider::Triangle(tri))
    }
    #[inline]
    fn kinds(&self, i: usize) -> (ShapeKind, ShapeKind) {
        let c = self.pairs[self.sub[i].0 as usize].0;
        (self.colliders[c as usize].kind(), ShapeKind::Triangle)
    }
    fn hulls(&self) -> &[ConvexHull] {
        self.hulls
    }
    /// The shape first (a triangle-kind collider meets the mesh's triangles
    /// in no bucket: triangle–triangle has no tester), the triangle read in
    /// place from the mesh.
    #[inline(always)]
    fn canonical<A: ColliderShape, B: ColliderShape>(&self, i: usize) -> (&A, &B, bool) {
        let (p, t) = self.sub[i];
        let (c, m) = self.pairs[p as usize];
        let tri = &self.meshes[m as usize].triangles()[t as usize];
        let a = A::of(&self.colliders[c as usize]).expect("bucketed by kind");
        let b = (tri as &dyn core::any::Any).downcast_ref::<B>().expect("bucketed by kind");
        (a, b, false)
    }
}

/// Contacts of shapes against static meshes: for each `(collider, mesh)` of
/// `pairs` (indices into `colliders` and `meshes`), the manifold of
/// `colliders[collider]` against every triangle of `meshes[mesh]` it touches
/// within the speculative `margin`, at the widest lanes (`f32x16`) over rayon,
/// by the triangle testers [`sphere_triangle`], [`capsule_triangle`] and
/// [`box_triangle()`].
/// See the [module docs](self): what is queried, what is returned, what is
/// not done.
///
/// - Normals point from the shape to the triangle (the shape is A); points
///   lie on the triangle ([conventions](super)).
/// - Triangles whose tester reports no contact are dropped; the rest come
///   by ascending triangle id.
/// - Sphere, capsule and box shapes (hulls with
///   [`mesh_contacts_with_hulls`]); a [`Collider::Triangle`] gets no
///   contacts. Invalid shapes (NaN/∞ coordinates, negative radii or extents)
///   and an invalid margin give no contacts and never panic.
///
/// Panics if a pair indexes past `colliders` or `meshes`.
pub fn mesh_contacts(
    colliders: &[Collider],
    meshes: &[StaticMesh],
    pairs: &[(u32, u32)],
    margin: f32,
) -> MeshManifolds {
    mesh_contacts_with::<f32x16>(colliders, meshes, pairs, margin)
}

/// [`mesh_contacts`] with [`Collider::Hull`]s indexing `hulls`: a hull's
/// manifolds against the triangles come from
/// [`hull_triangle`](super::hull_triangle), through the same ghost-contact
/// filter as the other shapes.
pub fn mesh_contacts_with_hulls(
    colliders: &[Collider],
    hulls: &[ConvexHull],
    meshes: &[StaticMesh],
    pairs: &[(u32, u32)],
    margin: f32,
) -> MeshManifolds {
    mesh_contacts_with_hulls_at::<f32x16>(colliders, hulls, meshes, pairs, margin)
}

/// [`mesh_contacts`] at lane width `L` (every width gives the same output).
pub fn mesh_contacts_with<L: LanePod>(
    colliders: &[Collider],
    meshes: &[StaticMesh],
    pairs: &[(u32, u32)],
    margin: f32,
) -> MeshManifolds {
    mesh_contacts_with_hulls_at::<L>(colliders, &[], meshes, pairs, margin)
}

/// [`mesh_contacts_with_hulls`] at lane width `L`.
pub fn mesh_contacts_with_hulls_at<L: LanePod>(
    colliders: &[Collider],
    hulls: &[ConvexHull],
    meshes: &[StaticMesh],
    pairs: &[(u32, u32)],
    margin: f32,
) -> MeshManifolds {
    let (nc, nm) = (colliders.len(), meshes.len());
    for (i, &(c, m)) in pairs.iter().enumerate() {
        assert!(
            (c as usize) < nc && (m as usize) < nm,
            "mesh pair {i} = ({c}, {m}) indexes past the {nc} colliders or {nm} meshes"
        );
    }
    // The midphase: per pair, the triangles under its query box, ascending.
    let found: Vec<Found> = pairs
        .par_chunks(QUERY_CHUNK)
        .enumerate()
        .map(|(k, chunk)| {
            let (mut sub, mut counts) = (Vec::new(), Vec::with_capacity(chunk.len()));
            let (mut ids, mut stack) = (Vec::new(), Vec::new());
            for (j, &(c, m)) in chunk.iter().enumerate() {
                let mesh = &meshes[m as usize];
                ids.clear();
                if let Some(q) = mesh.query_aabb(&colliders[c as usize], margin) {
                    mesh.bvh.overlap_aabb_into(&q, &mut ids, &mut stack);
                }
                let p = (k * QUERY_CHUNK + j) as u32;
                sub.extend(ids.iter().map(|&t| (p, t)));
                counts.push(ids.len() as u32);
            }
            (sub, counts)
        })
        .collect();
    let mut sub = Vec::with_capacity(found.iter().map(|f| f.0.len()).sum());
    let mut counts = Vec::with_capacity(pairs.len());
    for (s, c) in found {
        sub.extend(s);
        counts.extend(c);
    }
    // The narrow phase: the sub-pairs through the bucketed testers.
    let src = SubPairs { colliders, hulls, meshes, pairs, sub: &sub };
    let manifolds = run_pairs::<L, _>(&src, margin);
    let mut starts = Vec::with_capacity(pairs.len() + 1);
    starts.push(0);
    let mut contacts = Vec::new();
    let (mut at, mut ghosts) = (0, 0);
    let mut kept = Vec::new();
    for (n, &(_, m)) in counts.into_iter().zip(pairs) {
        let end = at + n as usize;
        let first = contacts.len();
        for (&(_, triangle), m) in sub[at..end].iter().zip(&manifolds[at..end]) {
            if m.count > 0.0 {
                contacts.push(MeshContact { triangle, manifold: *m });
            }
        }
        let mesh = &meshes[m as usize];
        if !mesh.raw {
            ghosts += drop_ghosts(mesh, &mut contacts, first, &mut kept);
        }
        starts.push(contacts.len());
        at = end;
    }
    MeshManifolds { starts, contacts, tested: sub.len(), ghosts }
}

/// The ghost-contact filter on one pair's contacts `contacts[first..]` (see
/// [`internal_edges`](super::internal_edges)): when at least one is a face
/// manifold or comes from an active feature, the others are removed.
/// Returns the number removed.
fn drop_ghosts(
    mesh: &StaticMesh,
    contacts: &mut Vec<MeshContact>,
    first: usize,
    kept: &mut Vec<bool>,
) -> usize {
    let tris = mesh.triangles();
    kept.clear();
    kept.extend(contacts[first..].iter().map(|c| {
        let t = c.triangle as usize;
        mesh.edges.keeps(t, &tris[t], c.manifold.normal)
    }));
    if kept.iter().all(|&k| k) || !kept.iter().any(|&k| k) {
        return 0;
    }
    let before = contacts.len();
    let mut w = first;
    for (i, r) in (first..before).enumerate() {
        if kept[i] {
            contacts[w] = contacts[r];
            w += 1;
        }
    }
    contacts.truncate(w);
    before - w
}
