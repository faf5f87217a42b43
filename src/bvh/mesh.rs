//! The BVH over a triangle mesh: each leaf is one `Triangle<f32x8>` pack,
//! tested against a ray with the watertight lane-generic [`ray_triangle`].

use super::order::{KeyFrame, SortScratch, MIN_SORTED};
use super::packet::{packet_tests, PacketLeaves, PacketStack, PACKET};
use super::{better, Bvh, LeafVisitor, Probe, Stack, TraversalStats, EMPTY_BOX, MAX_LEAF, W};
use crate::lane::{Lane, LaneMask};
use crate::math::{Vec3, V3};
use crate::overlap::{sphere_triangle, triangle_aabb};
use crate::pack::LanePod;
#[cfg(doc)]
use crate::ray::{ray_triangle, ray_triangle_precomp};
use crate::ray::{ray_triangle_precomp_valid, RayTrianglePrecomp};
use crate::shapes::{Aabb, Ray, Sphere, Triangle};
use crate::simd::{self, recast_one, Isa, WidthFn};
use crate::voxel::MeshRef;
use core::marker::PhantomData;
use rayon::prelude::*;

/// The closest hit of a ray on a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Triangle index (into the slice or index buffer the BVH was built from).
    pub id: u32,
    /// Ray parameter of the hit ([`ray_triangle`]'s `t`).
    pub t: f32,
    /// Barycentric weight of vertex `b`.
    pub u: f32,
    /// Barycentric weight of vertex `c`.
    pub v: f32,
}

/// Padding lane of a leaf pack: NaN vertices, which [`ray_triangle`] rejects
/// (invalid triangle) without taking its fallback path.
const PAD: f32 = f32::NAN;

/// A wide BVH over triangles with closest-hit, any-hit and refit (see the
/// [module docs](super) for the exactness argument).
///
/// ```
/// use widephase::{bvh::MeshBvh, Ray, Triangle, Vec3};
/// // two triangles sharing the diagonal of the unit square at z = 0
/// let (a, b, c, d) = (Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y);
/// let bvh = MeshBvh::new(&[Triangle::new(a, b, c), Triangle::new(a, c, d)]);
/// // straight down through the shared edge at (0.5, 0.5): both triangles are hit
/// // at t = 1; the tie goes to the smaller id
/// let ray = Ray::new(Vec3::new(0.5, 0.5, 1.0), Vec3::new(0.0, 0.0, -1.0));
/// let hit = bvh.closest_hit(&ray).unwrap();
/// assert_eq!((hit.id, hit.t), (0, 1.0));
/// assert!(bvh.any_hit(&ray));
/// assert!(!bvh.any_hit(&Ray::new(Vec3::new(2.0, 2.0, 1.0), Vec3::new(0.0, 0.0, -1.0))));
/// ```
#[derive(Clone, Debug)]
pub struct MeshBvh {
    bvh: Bvh,
    /// One pack per leaf (lanes past the leaf's count are `PAD`).
    packs: Vec<LeafPack>,
    /// Triangle id per pack lane (`u32::MAX` in padding lanes).
    ids: Vec<[u32; MAX_LEAF]>,
    /// The triangles by id (for the volume queries).
    tris: Vec<Triangle>,
}

fn tri_box(t: &Triangle) -> Aabb {
    let min = Vec3::new(
        t.a.x.min(t.b.x).min(t.c.x),
        t.a.y.min(t.b.y).min(t.c.y),
        t.a.z.min(t.b.z).min(t.c.z),
    );
    let max = Vec3::new(
        t.a.x.max(t.b.x).max(t.c.x),
        t.a.y.max(t.b.y).max(t.c.y),
        t.a.z.max(t.b.z).max(t.c.z),
    );
    // A triangle with a non-finite coordinate gets the empty box (never hit;
    // `min` drops NaN operands, so test the vertices themselves).
    if (t.a.is_finite() & t.b.is_finite() & t.c.is_finite()) && (Aabb { min, max }).is_valid() {
        Aabb { min, max }
    } else {
        EMPTY_BOX
    }
}

impl MeshBvh {
    /// Builds the BVH over `tris` (triangle `i` is `tris[i]`) on the current
    /// rayon pool; the tree does not depend on its thread count.
    pub fn new(tris: &[Triangle]) -> Self {
        let boxes: Vec<Aabb> = tris.par_iter().map(tri_box).collect();
        let bvh = Bvh::new(&boxes);
        let mut m = MeshBvh { bvh, packs: Vec::new(), ids: Vec::new(), tris: tris.to_vec() };
        m.fill_packs(tris);
        m
    }

    /// Builds the BVH over an indexed mesh.
    pub fn from_mesh(mesh: MeshRef<'_>) -> Self {
        let tris: Vec<Triangle> = (0..mesh.triangle_count()).map(|t| mesh.triangle(t)).collect();
        Self::new(&tris)
    }

    fn fill_packs(&mut self, tris: &[Triangle]) {
        let bvh = &self.bvh;
        let (packs, ids): (Vec<LeafPack>, Vec<[u32; MAX_LEAF]>) = bvh
            .leaves
            .par_iter()
            .map(|l| {
                let mut c = [[PAD; MAX_LEAF]; 9];
                let mut id = [u32::MAX; MAX_LEAF];
                for (lane, &p) in
                    bvh.prims[l.start as usize..(l.start + l.count) as usize].iter().enumerate()
                {
                    let t = &tris[p as usize];
                    for (k, v) in [t.a.x, t.a.y, t.a.z, t.b.x, t.b.y, t.b.z, t.c.x, t.c.y, t.c.z]
                        .into_iter()
                        .enumerate()
                    {
                        c[k][lane] = v;
                    }
                    id[lane] = p;
                }
                let v3 = |k: usize| V3::new(W::new(c[k]), W::new(c[k + 1]), W::new(c[k + 2]));
                let tri = Triangle { a: v3(0), b: v3(3), c: v3(6) };
                (LeafPack { tri, valid: tri.is_valid() }, id)
            })
            .unzip();
        self.packs = packs;
        self.ids = ids;
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.bvh.len()
    }

    /// Whether the mesh has no triangle.
    pub fn is_empty(&self) -> bool {
        self.bvh.is_empty()
    }

    /// The underlying BVH over the triangles' bounding boxes (box and sphere
    /// queries on those boxes, node statistics, fingerprint).
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    /// Moves the triangles to `tris` (same count and ids) and refits the tree
    /// bottom-up; queries then answer as a rebuild on `tris` would. Panics when
    /// the count differs.
    pub fn refit(&mut self, tris: &[Triangle]) {
        assert_eq!(tris.len(), self.len(), "refit needs one triangle per id");
        let boxes: Vec<Aabb> = tris.par_iter().map(tri_box).collect();
        self.bvh.refit(&boxes);
        self.fill_packs(tris);
        self.tris.copy_from_slice(tris);
    }

    /// Ids (ascending) of the triangles that touch or overlap the closed box
    /// `q` ([`triangle_aabb`]). Candidates come from the tree over the
    /// triangles' bounding boxes ([`Bvh::overlap_aabb`]), which loses none:
    /// `triangle_aabb` decides the box-face axes by exact comparisons, so it
    /// never reports a triangle whose bounding box misses `q`.
    pub fn overlap_aabb(&self, q: &Aabb) -> Vec<u32> {
        let mut ids = Vec::new();
        self.overlap_aabb_into(q, &mut ids, &mut Vec::new());
        ids
    }

    /// [`overlap_aabb`](Self::overlap_aabb) appending its ids (ascending) to
    /// `out`, with a caller-owned traversal stack (no allocation per query
    /// once both have grown).
    pub fn overlap_aabb_into(&self, q: &Aabb, out: &mut Vec<u32>, stack: &mut Vec<u32>) {
        let start = out.len();
        self.bvh.overlap_aabb_into(q, out, stack);
        let mut kept = start;
        for k in start..out.len() {
            let i = out[k];
            if triangle_aabb(&self.tris[i as usize], q) {
                out[kept] = i;
                kept += 1;
            }
        }
        out.truncate(kept);
        out[start..].sort_unstable();
    }

    /// The triangles, by id (as given to [`new`](Self::new) or the last
    /// [`refit`](Self::refit)).
    pub fn triangles(&self) -> &[Triangle] {
        &self.tris
    }

    /// Ids (ascending) of the triangles that touch or overlap the closed ball
    /// `s` ([`sphere_triangle`]). Candidates: the triangles whose bounding box
    /// passes the conservative
    /// [`sphere_aabb_conservative`](crate::overlap::sphere_aabb_conservative)
    /// (a superset of the exact test, so rounding in the closest-point
    /// computation cannot make a reported triangle's box look separated).
    pub fn overlap_sphere(&self, s: &Sphere) -> Vec<u32> {
        let mut out = Vec::new();
        self.bvh.query(&mut Vec::new(), Probe::BallConservative(s), |p| {
            if sphere_triangle(s, &self.tris[p as usize]) {
                out.push(p);
            }
        });
        out.sort_unstable();
        out
    }

    /// The closest hit: the smallest `t` over every triangle [`ray_triangle`]
    /// hits within `[t_min, t_max]`; ties on `t` go to the smallest id. `None`
    /// for a miss or an invalid ray. Equals that minimum over all triangles
    /// (brute force) for every input: nodes are culled only by the
    /// conservative slab test.
    pub fn closest_hit(&self, ray: &Ray) -> Option<RayHit> {
        self.closest_hit_with(ray, &mut Vec::with_capacity(64))
    }

    /// [`closest_hit`](Self::closest_hit) with a caller-owned traversal stack
    /// (no allocation per ray once it has grown).
    pub fn closest_hit_with(&self, ray: &Ray, stack: &mut Stack) -> Option<RayHit> {
        self.closest_hit_on(simd::current(), ray, stack)
    }

    /// [`closest_hit_with`](Self::closest_hit_with) on the instruction-set
    /// path `isa` ([`crate::simd`]).
    fn closest_hit_on(&self, isa: Isa, ray: &Ray, stack: &mut Stack) -> Option<RayHit> {
        let q = RayQuery { mesh: self, ray, stack, any: false };
        simd::dispatch_width::<W, _>(isa, q).0
    }

    /// Traversal counters of [`closest_hit`](Self::closest_hit) summed over
    /// `rays` (nodes visited, child boxes in them, leaves and triangles
    /// tested), in parallel; the sums do not depend on the thread count.
    pub fn trace_stats(&self, rays: &[Ray]) -> TraversalStats {
        // (baseline lanes: a diagnostic, not a hot path)
        rays.par_iter()
            .with_min_len(1024)
            .fold(
                || (TraversalStats::default(), Vec::with_capacity(64)),
                |(mut st, mut stack), r| {
                    self.closest_hit_counted::<true, W>(r, &mut stack, &mut st);
                    st.rays += 1;
                    (st, stack)
                },
            )
            .map(|(st, _)| st)
            .reduce(TraversalStats::default, |mut a, b| {
                a += b;
                a
            })
    }

    #[inline(always)]
    fn closest_hit_counted<const COUNT: bool, M: LanePod>(
        &self,
        ray: &Ray,
        stack: &mut Stack,
        stats: &mut TraversalStats,
    ) -> Option<RayHit> {
        let mut v = ClosestLeaf::<M> { mesh: self, ray, rw: None, best: None };
        let mut best_t = ray.t_max;
        self.bvh.ray_visit_counted::<COUNT, M>(ray, stack, &mut best_t, stats, &mut v);
        v.best
    }

    /// Whether the ray hits any triangle within `[t_min, t_max]` (the same
    /// answer as `closest_hit(ray).is_some()`, stopping at the first hit).
    pub fn any_hit(&self, ray: &Ray) -> bool {
        self.any_hit_with(ray, &mut Vec::with_capacity(64))
    }

    /// [`any_hit`](Self::any_hit) with a caller-owned traversal stack.
    pub fn any_hit_with(&self, ray: &Ray, stack: &mut Stack) -> bool {
        self.any_hit_on(simd::current(), ray, stack)
    }

    /// [`any_hit_with`](Self::any_hit_with) on the path `isa`.
    fn any_hit_on(&self, isa: Isa, ray: &Ray, stack: &mut Stack) -> bool {
        let q = RayQuery { mesh: self, ray, stack, any: true };
        simd::dispatch_width::<W, _>(isa, q).1
    }

    /// [`any_hit_with`](Self::any_hit_with) at lane type `M`.
    #[inline(always)]
    fn any_hit_at<M: LanePod>(&self, ray: &Ray, stack: &mut Stack) -> bool {
        struct AnyLeaf<'a, M: LanePod> {
            mesh: &'a MeshBvh,
            rw: RayTrianglePrecomp<M>,
            found: bool,
        }
        impl<M: LanePod> LeafVisitor for AnyLeaf<'_, M> {
            #[inline(always)]
            fn visit(&mut self, leaf: u32, _: &mut f32) -> bool {
                self.found = self.mesh.packs[leaf as usize].hit::<M>(&self.rw).hit.any();
                self.found
            }
        }
        let mut v = AnyLeaf::<M> { mesh: self, rw: splat_ray::<M>(ray), found: false };
        let mut t_max = ray.t_max;
        self.bvh.ray_visit::<M>(ray, stack, &mut t_max, &mut v);
        v.found
    }

    /// [`closest_hit`](Self::closest_hit) for every ray, in input order, in
    /// parallel over the current rayon pool; the answers do not depend on the
    /// thread count. Traced in input order: with a result of 20 bytes per ray
    /// the coherent order of [`count_hits`](Self::count_hits) costs more in
    /// scattered writes than it saves (simd-notes.md, "BVH and ray casting").
    /// Eight consecutive rays from one origin with the same direction signs
    /// (a camera's neighbouring pixels) are traced together as a packet
    /// (`bvh/packet.rs`), with the same answers.
    pub fn closest_hits(&self, rays: &[Ray]) -> Vec<Option<RayHit>> {
        let mut out = vec![None; rays.len()];
        self.map_rays_in_order::<Closest, _, _>(rays, out.as_mut_slice());
        out
    }

    /// [`closest_hits`](Self::closest_hits) of any [`RaySource`] (a `[Ray]`
    /// slice, [`RayColumns`] or [`RayRows`]) written straight into `out`'s
    /// columns: no per-ray `Option` and no ray array in between, each output
    /// row written once (`uv` only when given). Every column must hold
    /// `rays.len()` rows.
    ///
    /// # Panics
    /// When a column's length differs from `rays.len()`.
    pub fn closest_hits_into<R: RaySource + ?Sized>(&self, rays: &R, out: HitColumns<'_>) {
        let n = rays.len();
        let uv_rows = out.uv.as_deref().map_or(n, <[_]>::len);
        assert!(
            out.t.len() == n && out.id.len() == n && uv_rows == n,
            "closest_hits_into: columns of {}, {} and {uv_rows} rows for {n} rays",
            out.t.len(),
            out.id.len(),
        );
        self.map_rays_in_order::<Closest, _, _>(rays, out);
    }

    /// [`any_hit`](Self::any_hit) for every ray, in input order, in parallel
    /// over the current rayon pool, traced in a coherent order (sorted by
    /// where the rays cross the root box; the answers do not depend on it).
    pub fn any_hits(&self, rays: &[Ray]) -> Vec<bool> {
        let mut out = vec![false; rays.len()];
        self.map_rays_sorted::<Any, _>(rays, out.as_mut_slice());
        out
    }

    /// Number of rays that hit, over the current rayon pool (the benchmark
    /// path: no per-ray output; traced in the coherent order).
    pub fn count_hits(&self, rays: &[Ray]) -> usize {
        let mut hit = vec![false; rays.len()];
        self.map_rays_sorted::<Hits, _>(rays, hit.as_mut_slice());
        hit.iter().filter(|&&h| h).count()
    }

    /// [`count_hits`](Self::count_hits) traced in input order, for rays that
    /// are already coherent (a camera's pixels, row by row): no sort and no
    /// gather; coherent groups of eight traced as packets, as in
    /// [`closest_hits`](Self::closest_hits). The same count (answers depend
    /// on no order).
    pub fn count_hits_in_order(&self, rays: &[Ray]) -> usize {
        let mut hit = vec![false; rays.len()];
        self.map_rays_in_order::<Hits, _, _>(rays, hit.as_mut_slice());
        hit.iter().filter(|&&h| h).count()
    }

    /// `Q`'s answer for every ray, written to `sink` at the ray's input
    /// index, in parallel, traced in a coherent order: rays are split into
    /// one chunk per thread (at least `MIN_SORTED` rays each; smaller batches
    /// are traced in input order), each chunk traced in the order of
    /// `order.rs` (by where the rays cross the root box: coherent node and
    /// leaf loads). The sorted rays are gathered `GATHER` at a time into a
    /// small buffer before tracing: read straight through the permutation,
    /// each ray's load would be a cache miss at the start of its traversal
    /// (measured 1.3–1.5× slower than input order), while the gather's
    /// independent loads overlap.
    ///
    /// The answers are then written in scattered order. For a bit per ray
    /// that stays in cache and the order pays (bunny, 1M random rays, one
    /// thread: 160 against 168 ms in input order); for the 16–20 bytes of a
    /// closest hit the scattered writes evict the tree (190 against 173 ms),
    /// so those are traced in input order ([`map_rays_in_order`]).
    ///
    /// [`map_rays_in_order`]: Self::map_rays_in_order
    fn map_rays_sorted<Q: BatchQuery, S: RaySink<Item = Q::Item>>(&self, rays: &[Ray], sink: S) {
        const GATHER: usize = 1024;
        let chunk = rays.len().div_ceil(rayon::current_num_threads());
        let Some(frame) = self.bvh.root_bounds().map(|b| KeyFrame::new(&b)) else { return };
        if chunk < MIN_SORTED {
            return self.map_rays_in_order::<Q, _, _>(rays, sink);
        }
        let isa = simd::current();
        split_sink(sink, chunk).into_par_iter().zip(rays.par_chunks(chunk)).for_each_init(
            || (Vec::with_capacity(64), SortScratch::default(), Vec::new()),
            |(stack, scratch, block), (mut out, rays)| {
                for idx in scratch.order(&frame, rays).chunks(GATHER) {
                    block.clear();
                    block.extend(idx.iter().map(|&i| rays[i as usize]));
                    let body = TraceBlock::<Q, S, [Ray]> {
                        mesh: self,
                        rays: block,
                        range: 0..block.len(),
                        at: Some(idx),
                        out: &mut out,
                        stack,
                        query: PhantomData,
                    };
                    simd::dispatch_width::<W, _>(isa, body);
                }
            },
        )
    }

    /// `Q`'s answer for every ray, written to `sink` at the ray's index,
    /// traced in input order, `IN_ORDER` rays per rayon task.
    fn map_rays_in_order<Q, S, R>(&self, rays: &R, sink: S)
    where
        Q: BatchQuery,
        S: RaySink<Item = Q::Item>,
        R: RaySource + ?Sized,
    {
        const IN_ORDER: usize = 1024;
        let isa = simd::current();
        split_sink(sink, IN_ORDER).into_par_iter().enumerate().for_each_init(
            || Vec::with_capacity(64),
            |stack, (k, mut out)| {
                let start = k * IN_ORDER;
                let body = TraceBlock::<Q, S, R> {
                    mesh: self,
                    rays,
                    range: start..start + out.len(),
                    at: None,
                    out: &mut out,
                    stack,
                    query: PhantomData,
                };
                simd::dispatch_width::<W, _>(isa, body);
            },
        )
    }
}

/// Rays a batch query reads by index: a `[Ray]` slice, or [`RayColumns`] and
/// [`RayRows`] (rays as they arrive from NumPy), which build each ray when it
/// is traced instead of materializing an array of them.
pub trait RaySource: Sync {
    /// Number of rays.
    fn len(&self) -> usize;
    /// Whether there are no rays.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Ray `i` (`i < len()`).
    fn ray(&self, i: usize) -> Ray;
}

impl RaySource for [Ray] {
    fn len(&self) -> usize {
        <[Ray]>::len(self)
    }
    #[inline(always)]
    fn ray(&self, i: usize) -> Ray {
        self[i]
    }
}

/// Rays given as two `(N, 3)` columns over one interval `[t_min, t_max]`.
#[derive(Clone, Copy, Debug)]
pub struct RayColumns<'a> {
    /// Ray origins.
    pub origins: &'a [[f32; 3]],
    /// Ray directions (any length), as many as `origins`.
    pub directions: &'a [[f32; 3]],
    /// Start of every ray's parameter interval.
    pub t_min: f32,
    /// End of every ray's parameter interval.
    pub t_max: f32,
}

impl RaySource for RayColumns<'_> {
    /// The shorter column's length.
    fn len(&self) -> usize {
        self.origins.len().min(self.directions.len())
    }
    #[inline(always)]
    fn ray(&self, i: usize) -> Ray {
        let v = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
        Ray {
            origin: v(self.origins[i]),
            dir: v(self.directions[i]),
            t_min: self.t_min,
            t_max: self.t_max,
        }
    }
}

/// Rays given as one `(N, 6)` array of `origin, direction` rows (Open3D's
/// `cast_rays` layout, and `pinhole_rays`'), over one interval
/// `[t_min, t_max]`: read in place, with no split into columns first.
#[derive(Clone, Copy, Debug)]
pub struct RayRows<'a> {
    /// `[ox, oy, oz, dx, dy, dz]` per ray.
    pub rows: &'a [[f32; 6]],
    /// Start of every ray's parameter interval.
    pub t_min: f32,
    /// End of every ray's parameter interval.
    pub t_max: f32,
}

impl RaySource for RayRows<'_> {
    fn len(&self) -> usize {
        self.rows.len()
    }
    #[inline(always)]
    fn ray(&self, i: usize) -> Ray {
        let r = self.rows[i];
        Ray {
            origin: Vec3::new(r[0], r[1], r[2]),
            dir: Vec3::new(r[3], r[4], r[5]),
            t_min: self.t_min,
            t_max: self.t_max,
        }
    }
}

/// What a batch of rays asks of each ray, traced at lane type `M`.
trait BatchQuery {
    type Item: Copy;
    fn trace<M: LanePod>(mesh: &MeshBvh, ray: &Ray, stack: &mut Stack) -> Self::Item;
    /// The answers of a coherent packet ([`super::packet`]), or `None` when
    /// the query has no packet traversal or the rays do not form a packet.
    #[inline(always)]
    fn trace_packet<M: LanePod>(
        _mesh: &MeshBvh,
        _rays: &[Ray; PACKET],
        _stack: &mut PacketStack,
    ) -> Option<[Self::Item; PACKET]> {
        None
    }
}

/// The closest hit.
struct Closest;
/// Whether any triangle is hit.
struct Any;
/// Whether the closest-hit traversal finds a hit (the benchmark count).
struct Hits;

impl BatchQuery for Closest {
    type Item = Option<RayHit>;
    #[inline(always)]
    fn trace<M: LanePod>(mesh: &MeshBvh, ray: &Ray, stack: &mut Stack) -> Self::Item {
        mesh.closest_hit_counted::<false, M>(ray, stack, &mut TraversalStats::default())
    }
    #[inline(always)]
    fn trace_packet<M: LanePod>(
        mesh: &MeshBvh,
        rays: &[Ray; PACKET],
        stack: &mut PacketStack,
    ) -> Option<[Self::Item; PACKET]> {
        mesh.closest_hits_packet::<M>(rays, stack)
    }
}

impl BatchQuery for Any {
    type Item = bool;
    #[inline(always)]
    fn trace<M: LanePod>(mesh: &MeshBvh, ray: &Ray, stack: &mut Stack) -> bool {
        mesh.any_hit_at::<M>(ray, stack)
    }
}

impl BatchQuery for Hits {
    type Item = bool;
    #[inline(always)]
    fn trace<M: LanePod>(mesh: &MeshBvh, ray: &Ray, stack: &mut Stack) -> bool {
        Closest::trace::<M>(mesh, ray, stack).is_some()
    }
    #[inline(always)]
    fn trace_packet<M: LanePod>(
        mesh: &MeshBvh,
        rays: &[Ray; PACKET],
        stack: &mut PacketStack,
    ) -> Option<[bool; PACKET]> {
        let hits = Closest::trace_packet::<M>(mesh, rays, stack)?;
        let mut out = [false; PACKET];
        for (o, h) in out.iter_mut().zip(hits) {
            *o = h.is_some();
        }
        Some(out)
    }
}

/// The rays `range` of `rays` traced as one dispatched body
/// ([`crate::simd`]; one dispatch per block, not per ray): the `k`-th ray's
/// answer goes to `out` at `at[k]`, or at `k` without `at`.
struct TraceBlock<'a, Q, S, R: ?Sized> {
    mesh: &'a MeshBvh,
    rays: &'a R,
    range: core::ops::Range<usize>,
    at: Option<&'a [u32]>,
    out: &'a mut S,
    stack: &'a mut Stack,
    query: PhantomData<Q>,
}

impl<Q, S, R> WidthFn<W> for TraceBlock<'_, Q, S, R>
where
    Q: BatchQuery,
    S: RaySink<Item = Q::Item>,
    R: RaySource + ?Sized,
{
    type Out = ();
    #[inline(always)]
    fn call<M: LanePod>(self) {
        let start = self.range.start;
        let mut k = 0;
        if self.at.is_none() {
            // In input order, `PACKET` rays at a time: a coherent packet
            // (a camera's neighbouring pixels) is traced as one, any other
            // group ray by ray.
            let mut packet_stack = PacketStack::new();
            while k + PACKET <= self.range.len() {
                let i = start + k;
                let mut rays = [self.rays.ray(i); PACKET];
                for (j, ray) in rays.iter_mut().enumerate().skip(1) {
                    *ray = self.rays.ray(i + j);
                }
                if let Some(items) = Q::trace_packet::<M>(self.mesh, &rays, &mut packet_stack) {
                    for (j, item) in items.into_iter().enumerate() {
                        self.out.put(k + j, item);
                    }
                } else {
                    for (j, ray) in rays.iter().enumerate() {
                        self.out.put(k + j, Q::trace::<M>(self.mesh, ray, self.stack));
                    }
                }
                k += PACKET;
            }
        }
        for (k, i) in self.range.enumerate().skip(k) {
            let at = match self.at {
                Some(at) => at[k] as usize,
                None => k,
            };
            let ray = self.rays.ray(i);
            self.out.put(at, Q::trace::<M>(self.mesh, &ray, self.stack));
        }
    }
}

/// Where [`MeshBvh::map_rays_sorted`] and [`MeshBvh::map_rays_in_order`] write each ray's answer: an output indexed
/// like the rays, split into the disjoint pieces the rayon tasks own.
trait RaySink: Send + Sized {
    type Item;
    fn len(&self) -> usize;
    fn split_at(self, mid: usize) -> (Self, Self);
    fn put(&mut self, i: usize, item: Self::Item);
}

impl<T: Send> RaySink for &mut [T] {
    type Item = T;
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
    #[inline(always)]
    fn put(&mut self, i: usize, item: T) {
        self[i] = item;
    }
}

/// `sink` in pieces of `len` (the last one shorter).
fn split_sink<S: RaySink>(sink: S, len: usize) -> Vec<S> {
    let mut pieces = Vec::with_capacity(sink.len().div_ceil(len.max(1)));
    let mut rest = sink;
    while rest.len() > len {
        let (head, tail) = rest.split_at(len);
        pieces.push(head);
        rest = tail;
    }
    pieces.push(rest);
    pieces
}

/// Closest hits as columns, the layout NumPy callers and the command line's
/// `--dump-*` files use: `t` (`inf` for a miss), triangle `id` as `i32`
/// (`-1` for a miss) and barycentric `uv` (`[0, 0]` for a miss), one row
/// per ray. Written in place by [`MeshBvh::closest_hits_into`].
#[derive(Debug)]
pub struct HitColumns<'a> {
    /// Ray parameter of the closest hit.
    pub t: &'a mut [f32],
    /// Triangle index of the closest hit.
    pub id: &'a mut [i32],
    /// Barycentric weights of vertices `b` and `c`, when wanted.
    pub uv: Option<&'a mut [[f32; 2]]>,
}

impl RaySink for HitColumns<'_> {
    type Item = Option<RayHit>;
    fn len(&self) -> usize {
        self.t.len()
    }
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (t0, t1) = self.t.split_at_mut(mid);
        let (i0, i1) = self.id.split_at_mut(mid);
        let (u0, u1) = match self.uv {
            Some(uv) => {
                let (u0, u1) = uv.split_at_mut(mid);
                (Some(u0), Some(u1))
            }
            None => (None, None),
        };
        (HitColumns { t: t0, id: i0, uv: u0 }, HitColumns { t: t1, id: i1, uv: u1 })
    }
    #[inline(always)]
    fn put(&mut self, i: usize, hit: Option<RayHit>) {
        let (t, id, uv) = match hit {
            Some(h) => (h.t, h.id as i32, [h.u, h.v]),
            None => (f32::INFINITY, -1, [0.0; 2]),
        };
        self.t[i] = t;
        self.id[i] = id;
        if let Some(out) = self.uv.as_deref_mut() {
            out[i] = uv;
        }
    }
}

/// One leaf's triangles as a pack (lanes past the leaf's count are `PAD`)
/// with the pack's `is_valid()` mask, computed once at build (padding lanes
/// and triangles with a non-finite coordinate are invalid). One allocation,
/// so a leaf test touches consecutive cache lines (320 bytes, aligned to a
/// cache line: exactly five lines).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct LeafPack {
    tri: Triangle<W>,
    valid: <W as Lane>::Mask,
}

impl LeafPack {
    /// [`ray_triangle_precomp`] on the pack (bit-identical), read as lane
    /// type `M` (see [`Bvh::ray_visit_counted`]). The mask is wide's
    /// all-ones/all-zeros lanes, i.e. NaN where valid: `M`'s mask is its
    /// unordered lanes.
    #[inline(always)]
    fn hit<M: LanePod>(&self, rw: &RayTrianglePrecomp<M>) -> crate::ray::RayTriangleHit<M> {
        let tri = recast_one::<Triangle, W, M>(&self.tri);
        let valid: &M = bytemuck::cast_ref(&self.valid);
        ray_triangle_precomp_valid(rw, tri, !valid.is_ordered())
    }
}

/// The per-ray shear of the watertight test, splat over a leaf pack.
#[inline(always)]
fn splat_ray<M: LanePod>(r: &Ray) -> RayTrianglePrecomp<M> {
    RayTrianglePrecomp::new(r).splat::<M>()
}

/// The closest-hit leaf test: the leaf's pack against the ray (its shear
/// computed at the first leaf: many rays reach none), keeping the nearest hit
/// (ties: the smallest id).
struct ClosestLeaf<'a, M: LanePod> {
    mesh: &'a MeshBvh,
    ray: &'a Ray,
    rw: Option<RayTrianglePrecomp<M>>,
    best: Option<RayHit>,
}

impl<M: LanePod> LeafVisitor for ClosestLeaf<'_, M> {
    #[inline(always)]
    fn prefetch(&self, leaf: u32) {
        let pack = &self.mesh.packs[leaf as usize];
        crate::mem::prefetch(&pack.tri.a);
        crate::mem::prefetch(&pack.tri.b.y);
        crate::mem::prefetch(&pack.tri.c.z);
    }

    #[inline(always)]
    fn visit(&mut self, leaf: u32, best_t: &mut f32) -> bool {
        self.mesh.closest_in_leaf(self.ray, &mut self.rw, leaf, best_t, &mut self.best);
        false
    }
}

impl MeshBvh {
    /// The closest-hit leaf test of one ray: the leaf's pack against the ray
    /// (its shear `rw` computed at its first leaf: many rays reach none),
    /// keeping the nearest hit in `best` (ties: the smallest id).
    #[inline(always)]
    fn closest_in_leaf<M: LanePod>(
        &self,
        ray: &Ray,
        rw: &mut Option<RayTrianglePrecomp<M>>,
        leaf: u32,
        best_t: &mut f32,
        best: &mut Option<RayHit>,
    ) {
        // (no `get_or_insert_with`: its closure would compile outside a
        // dispatched path's featured entry, see `crate::simd`)
        if rw.is_none() {
            *rw = Some(splat_ray::<M>(ray));
        }
        let Some(rw) = rw.as_ref() else { return };
        let h = self.packs[leaf as usize].hit::<M>(rw);
        let mut m = h.hit.bits();
        if m != 0 {
            let (mut ts, mut us, mut vs) = ([0f32; MAX_LEAF], [0f32; MAX_LEAF], [0f32; MAX_LEAF]);
            h.t.store(&mut ts);
            h.u.store(&mut us);
            h.v.store(&mut vs);
            let ids = &self.ids[leaf as usize];
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                if better(ts[i], ids[i], *best_t, best.map(|b| (b.id, b.t))) {
                    *best = Some(RayHit { id: ids[i], t: ts[i], u: us[i], v: vs[i] });
                    *best_t = ts[i];
                }
            }
        }
    }

    /// The closest hits of a coherent packet ([`super::packet`]), or `None`
    /// when the rays do not form one (they are then traced one by one).
    #[inline(always)]
    pub(super) fn closest_hits_packet<M: LanePod>(
        &self,
        rays: &[Ray; PACKET],
        stack: &mut PacketStack,
    ) -> Option<[Option<RayHit>; PACKET]> {
        let tests = packet_tests::<M>(rays)?;
        let mut leaves =
            ClosestPacket::<M> { mesh: self, rays, rw: [None; PACKET], best: [None; PACKET] };
        let mut best_t = [0f32; PACKET];
        for (t, r) in best_t.iter_mut().zip(rays) {
            *t = r.t_max;
        }
        self.bvh.ray_visit_packet::<M>(&tests, (1 << PACKET) - 1, &mut best_t, stack, &mut leaves);
        Some(leaves.best)
    }
}

/// The closest-hit leaf tests of a packet: [`ClosestLeaf`] per ray.
struct ClosestPacket<'a, M: LanePod> {
    mesh: &'a MeshBvh,
    rays: &'a [Ray; PACKET],
    rw: [Option<RayTrianglePrecomp<M>>; PACKET],
    best: [Option<RayHit>; PACKET],
}

impl<M: LanePod> PacketLeaves for ClosestPacket<'_, M> {
    #[inline(always)]
    fn visit(&mut self, r: usize, leaf: u32, best_t: &mut f32) {
        self.mesh.closest_in_leaf(&self.rays[r], &mut self.rw[r], leaf, best_t, &mut self.best[r]);
    }
}

/// One ray's closest hit (or any hit) as a dispatched body ([`crate::simd`]).
struct RayQuery<'a> {
    mesh: &'a MeshBvh,
    ray: &'a Ray,
    stack: &'a mut Stack,
    any: bool,
}

impl WidthFn<W> for RayQuery<'_> {
    type Out = (Option<RayHit>, bool);
    #[inline(always)]
    fn call<M: LanePod>(self) -> Self::Out {
        if self.any {
            (None, self.mesh.any_hit_at::<M>(self.ray, self.stack))
        } else {
            let stats = &mut TraversalStats::default();
            (self.mesh.closest_hit_counted::<false, M>(self.ray, self.stack, stats), false)
        }
    }
}
