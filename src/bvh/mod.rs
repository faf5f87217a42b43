//! Bounding volume hierarchies: a wide (8 children per node) BVH over boxes
//! ([`Bvh`]) and over triangle meshes ([`MeshBvh`]), built by parallel binned
//! SAH and refitted after motion.
//!
//! **Layout.** A node stores its eight child boxes as one `Aabb<f32x8>`
//! (structure of arrays), so a node's children are tested at once by the
//! crate's lane-generic kernels: [`ray_aabb_conservative_precomp`] for rays,
//! [`aabb_aabb`] and [`sphere_aabb`] for volumes. Empty slots hold an inverted
//! box (`+∞..-∞`), which every kernel rejects. Leaves hold at most
//! [`MAX_LEAF`] = 8 primitives; a mesh leaf is one `Triangle<f32x8>` pack, so a
//! leaf's triangles are tested together by the watertight [`ray_triangle`].
//!
//! **Build.** Binned SAH (Wald, "On fast Construction of SAH-based Bounding
//! Volume Hierarchies", 2007; 16 bins per axis, as in Embree's and parry's
//! binned builders) produces a binary tree; the two halves of every split are
//! built in parallel with `rayon::join`. The binary tree is then collapsed into
//! 8-wide nodes by repeatedly opening the child of largest surface area (the
//! usual BVH2 → BVH8 conversion, Wald et al. "Getting rid of packets", 2008).
//! Every step depends only on the input (no thread-dependent order, no atomics),
//! so the tree is identical for any thread count. Degenerate inputs: primitives
//! whose box is not valid (NaN, ±∞, inverted) are kept in the tree with an empty
//! box (so a later refit can bring them back) and are never reported; when all
//! centroids coincide, or the recursion gets deep, the split is the object
//! median (by centroid, ties by id), so identical boxes still build a balanced
//! tree.
//!
//! **Queries** and their exactness:
//! - box and sphere overlap report exactly the primitives for which the scalar
//!   kernel [`aabb_aabb`] / [`sphere_aabb`] says "overlap": node tests use the
//!   same kernel on a containing box, and both kernels are monotone in the box
//!   (rounded subtraction and products are monotone), so no node containing a
//!   reported primitive is culled; on a mesh, [`MeshBvh::overlap_aabb`] and
//!   [`MeshBvh::overlap_sphere`] report exactly the triangles the scalar
//!   `triangle_aabb` / `sphere_triangle` accept;
//! - rays ([`MeshBvh::closest_hit`], [`MeshBvh::any_hit`], [`Bvh::pick`]) test
//!   nodes with the **conservative** slab test, which never misses a box the
//!   exact ray segment touches (rays with `t_min >= 0` and no zero direction
//!   component take a reduced form with the same guarantee and entries never
//!   above the exact ones; proof at the private `NodeRay`), so a ray through
//!   an edge or vertex shared by two triangles reaches both leaves and the
//!   watertight triangle test decides.
//!   The closest hit is the smallest `(t, id)` pair (ties on `t`: smallest
//!   primitive id) over every primitive the scalar kernel hits, which makes the
//!   answer independent of the tree's shape; children are visited front to back
//!   by entry distance and culled when their conservative entry exceeds the best
//!   `t` so far.
//!
//! [`ray_aabb_conservative_precomp`]: crate::ray::ray_aabb_conservative_precomp
//! [`aabb_aabb`]: crate::overlap::aabb_aabb
//! [`sphere_aabb`]: crate::overlap::sphere_aabb
//! [`ray_triangle`]: crate::ray::ray_triangle

mod build;
mod camera;
mod mesh;
mod order;
mod packet;

pub use camera::{Pinhole, MAX_PIXELS};
pub use mesh::{HitColumns, MeshBvh, RayColumns, RayHit, RayRows, RaySource};

use crate::lane::{Lane, LaneMask};
use crate::math::{Vec3, V3};
use crate::overlap::{aabb_aabb, sphere_aabb, sphere_aabb_conservative};
use crate::pack::LanePod;
use crate::ray::{
    ray_aabb, ray_aabb_conservative_precomp, RayPrecomp, RAY_AABB_WIDEN_ABS, RAY_AABB_WIDEN_REL,
};
use crate::shapes::{Aabb, Ray, Sphere};
use crate::simd::{self, recast_one, WidthFn};
use crate::workload::SplitMix;
use rayon::prelude::*;
use wide::f32x8;

/// Children per node (one `f32x8` lane each).
pub const BRANCH: usize = 8;
/// Most primitives in one leaf (one `f32x8` pack of triangles).
pub const MAX_LEAF: usize = 8;

/// The lane type of node and leaf tests.
pub(crate) type W = f32x8;

/// Child slot tag: the slot is a leaf (index into the leaf table in the low bits).
pub(crate) const LEAF_BIT: u32 = 1 << 31;
/// Child slot tag: the slot is empty.
pub(crate) const EMPTY: u32 = u32::MAX;

/// One wide node: eight child boxes in SoA form and what each slot holds.
/// 256 bytes, aligned to a cache line so a node spans exactly four lines.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(crate) struct Node {
    pub(crate) bounds: Aabb<W>,
    /// `EMPTY`, `LEAF_BIT | leaf`, or an index of a node (always greater than
    /// this node's own index: nodes are laid out in preorder).
    pub(crate) child: [u32; BRANCH],
}

/// A leaf: `count` primitive ids at `prims[start..start + count]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Leaf {
    pub(crate) start: u32,
    pub(crate) count: u32,
}

/// The empty box: inverted, so every kernel rejects it and it is the identity
/// of [`union_valid`].
pub(crate) const EMPTY_BOX: Aabb = Aabb {
    min: Vec3::new(f32::INFINITY, f32::INFINITY, f32::INFINITY),
    max: Vec3::new(f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY),
};

/// `a ∪ b`, where an invalid `b` (NaN, ±∞, inverted) contributes nothing.
#[inline]
pub(crate) fn union_valid(a: Aabb, b: &Aabb) -> Aabb {
    if !b.is_valid() {
        return a;
    }
    Aabb {
        min: Vec3::new(a.min.x.min(b.min.x), a.min.y.min(b.min.y), a.min.z.min(b.min.z)),
        max: Vec3::new(a.max.x.max(b.max.x), a.max.y.max(b.max.y), a.max.z.max(b.max.z)),
    }
}

/// Reusable traversal stack entries: (child slot value, entry `t`). The
/// traversal uses it as a fixed-length slice (resized on demand), not as a
/// growing `Vec`.
pub(crate) type Stack = Vec<(u32, f32)>;

/// A wide BVH over axis-aligned boxes: box, sphere and ray queries, self-overlap
/// pairs, and refit after the boxes move (see the [module docs](self)).
///
/// ```
/// use widephase::{bvh::Bvh, Aabb, Ray, Sphere, Vec3};
/// let boxes: Vec<Aabb> = (0..100)
///     .map(|i| Aabb::new(Vec3::new(i as f32, 0.0, 0.0), Vec3::new(i as f32 + 1.0, 1.0, 1.0)))
///     .collect();
/// let bvh = Bvh::new(&boxes);
/// // box 10 spans x in [10, 11]: the query touches boxes 9, 10 and 11 (closed sets)
/// let q = Aabb::new(Vec3::new(10.0, 0.5, 0.5), Vec3::new(11.0, 0.5, 0.5));
/// assert_eq!(bvh.overlap_aabb(&q), vec![9, 10, 11]);
/// assert_eq!(bvh.overlap_sphere(&Sphere::new(Vec3::new(50.5, 0.5, 0.5), 0.1)), vec![50]);
/// // picking: the first box along the ray
/// let ray = Ray::new(Vec3::new(-5.0, 0.5, 0.5), Vec3::new(1.0, 0.0, 0.0));
/// assert_eq!(bvh.pick(&ray), Some((0, 5.0)));
/// // neighbours touch: 99 pairs (i, i + 1)
/// assert_eq!(bvh.self_pairs().len(), 99);
/// ```
#[derive(Clone, Debug)]
pub struct Bvh {
    pub(crate) nodes: Vec<Node>,
    pub(crate) leaves: Vec<Leaf>,
    /// Primitive ids in leaf order.
    pub(crate) prims: Vec<u32>,
    /// Primitive boxes by id (as given; invalid ones are never reported).
    pub(crate) boxes: Vec<Aabb>,
    /// Node levels on the longest root-to-leaf path (0 for an empty tree);
    /// bounds the ray traversal's stack ([`Bvh::stack_need`]).
    pub(crate) depth: u32,
}

impl Bvh {
    /// Builds the tree over `boxes` (primitive `i` is `boxes[i]`) with the
    /// parallel binned-SAH builder on the current rayon pool. The tree does not
    /// depend on the pool's thread count.
    pub fn new(boxes: &[Aabb]) -> Self {
        assert!(boxes.len() < LEAF_BIT as usize, "at most 2^31 - 1 primitives");
        let mut bvh = build::build(boxes);
        bvh.boxes = boxes.to_vec();
        bvh
    }

    /// Number of primitives.
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// Whether the tree holds no primitive.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// Number of wide nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.leaves.len()
    }

    /// Mean number of used child slots per node (of [`BRANCH`]); 0 for an
    /// empty tree.
    pub fn mean_fill(&self) -> f64 {
        if self.nodes.is_empty() {
            return 0.0;
        }
        let used: usize =
            self.nodes.iter().map(|n| n.child.iter().filter(|&&c| c != EMPTY).count()).sum();
        used as f64 / self.nodes.len() as f64
    }

    /// Mean number of primitives per leaf; 0 for an empty tree.
    pub fn mean_leaf_size(&self) -> f64 {
        if self.leaves.is_empty() {
            return 0.0;
        }
        self.leaves.iter().map(|l| l.count as f64).sum::<f64>() / self.leaves.len() as f64
    }

    /// The union of the root's child boxes (`None` for an empty tree).
    pub(crate) fn root_bounds(&self) -> Option<Aabb> {
        let b = &self.nodes.first()?.bounds;
        let l = [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z].map(|w| w.to_array());
        Some((0..BRANCH).fold(EMPTY_BOX, |acc, s| {
            let c = Aabb {
                min: Vec3::new(l[0][s], l[1][s], l[2][s]),
                max: Vec3::new(l[3][s], l[4][s], l[5][s]),
            };
            union_valid(acc, &c)
        }))
    }

    /// The primitive boxes, by id.
    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// A hash of the tree's exact structure and boxes (bit patterns), for
    /// checking that builds with different thread counts agree.
    pub fn fingerprint(&self) -> u64 {
        // FNV-1a over every word of the tree.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |w: u32| {
            h ^= w as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        for n in &self.nodes {
            let b = &n.bounds;
            for v in [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z] {
                v.to_array().iter().for_each(|x| eat(x.to_bits()));
            }
            n.child.iter().for_each(|&c| eat(c));
        }
        for l in &self.leaves {
            eat(l.start);
            eat(l.count);
        }
        self.prims.iter().for_each(|&p| eat(p));
        h
    }

    /// Moves the primitives to `boxes` (same count, same ids) and refits every
    /// node's child boxes bottom-up; the topology is kept. Queries afterwards
    /// give the same answers as a tree rebuilt on `boxes` (the tree may be less
    /// tight). Panics when the count differs.
    pub fn refit(&mut self, boxes: &[Aabb]) {
        assert_eq!(boxes.len(), self.boxes.len(), "refit needs one box per primitive");
        self.boxes.copy_from_slice(boxes);
        let prim_boxes = &self.boxes;
        let (leaves, prims) = (&self.leaves, &self.prims);
        refit_nodes(&mut self.nodes, |leaf| {
            let l = leaves[leaf as usize];
            prims[l.start as usize..(l.start + l.count) as usize]
                .iter()
                .fold(EMPTY_BOX, |acc, &p| union_valid(acc, &prim_boxes[p as usize]))
        });
    }

    /// Ids (ascending) of the primitives whose box overlaps `q` ([`aabb_aabb`]:
    /// closed boxes, touching counts). An invalid `q` overlaps nothing.
    pub fn overlap_aabb(&self, q: &Aabb) -> Vec<u32> {
        let mut out = Vec::new();
        self.overlap_aabb_into(q, &mut out, &mut Vec::new());
        out.sort_unstable();
        out
    }

    /// [`overlap_aabb`](Self::overlap_aabb) appending to `out` in tree order
    /// (unsorted), with a caller-owned traversal stack.
    pub fn overlap_aabb_into(&self, q: &Aabb, out: &mut Vec<u32>, stack: &mut Vec<u32>) {
        self.query(stack, Probe::Box(q), |p| {
            if aabb_aabb(q, &self.boxes[p as usize]) {
                out.push(p);
            }
        });
    }

    /// Ids (ascending) of the primitives whose box overlaps the closed ball `s`
    /// ([`sphere_aabb`]). An invalid sphere overlaps nothing.
    pub fn overlap_sphere(&self, s: &Sphere) -> Vec<u32> {
        let mut out = Vec::new();
        self.query(&mut Vec::new(), Probe::Ball(s), |p| {
            if sphere_aabb(s, &self.boxes[p as usize]) {
                out.push(p);
            }
        });
        out.sort_unstable();
        out
    }

    /// [`visit`](Self::visit) with the node test of `probe`, on the
    /// dispatched path ([`crate::simd`]): the eight child boxes of a node are
    /// tested on the path's lane type with its instructions. `prim` runs on
    /// every primitive of an entered leaf (scalar code: it may stay a
    /// closure compiled for the baseline).
    pub(crate) fn query(&self, stack: &mut Vec<u32>, probe: Probe, prim: impl FnMut(u32)) {
        struct Query<'a, P> {
            bvh: &'a Bvh,
            stack: &'a mut Vec<u32>,
            probe: Probe<'a>,
            prim: P,
        }
        impl<P: FnMut(u32)> WidthFn<W> for Query<'_, P> {
            type Out = ();
            #[inline(always)]
            fn call<M: LanePod>(self) {
                let Query { bvh, stack, probe, prim } = self;
                match probe {
                    Probe::Box(q) => {
                        let q = Aabb::<M> { min: V3::broadcast(q.min), max: V3::broadcast(q.max) };
                        bvh.visit(stack, &BoxMask(q), prim)
                    }
                    Probe::Ball(s) => {
                        let s = Sphere::<M> {
                            center: V3::broadcast(s.center),
                            radius: M::splat(s.radius),
                        };
                        bvh.visit(stack, &BallMask(s), prim)
                    }
                    Probe::BallConservative(s) => {
                        let s = Sphere::<M> {
                            center: V3::broadcast(s.center),
                            radius: M::splat(s.radius),
                        };
                        bvh.visit(stack, &BallConservativeMask(s), prim)
                    }
                }
            }
        }
        simd::dispatch_width::<W, _>(simd::current(), Query { bvh: self, stack, probe, prim })
    }

    /// Picking: the primitive whose box the ray enters first ([`ray_aabb`],
    /// the box's entry `t`; a ray starting inside reports `t_min`), as
    /// `(id, t)`. Ties on `t`: the smallest id. `None` when no box is hit or
    /// the ray is invalid.
    pub fn pick(&self, ray: &Ray) -> Option<(u32, f32)> {
        self.pick_with(ray, &mut Vec::new())
    }

    /// [`pick`](Self::pick) with a caller-owned traversal stack.
    pub fn pick_with(&self, ray: &Ray, stack: &mut Stack) -> Option<(u32, f32)> {
        simd::dispatch_width::<W, _>(simd::current(), Pick { bvh: self, ray, stack })
    }

    /// [`pick_with`](Self::pick_with) at node lane type `M`.
    #[inline(always)]
    fn pick_at<M: LanePod>(&self, ray: &Ray, stack: &mut Stack) -> Option<(u32, f32)> {
        let mut best_t = ray.t_max;
        struct PickLeaf<'a> {
            bvh: &'a Bvh,
            ray: &'a Ray,
            best: Option<(u32, f32)>,
        }
        impl LeafVisitor for PickLeaf<'_> {
            #[inline(always)]
            fn visit(&mut self, leaf: u32, best_t: &mut f32) -> bool {
                let (boxes, prims) = (&self.bvh.boxes, &self.bvh.prims);
                let l = self.bvh.leaves[leaf as usize];
                for &p in &prims[l.start as usize..(l.start + l.count) as usize] {
                    let h = ray_aabb(self.ray, &boxes[p as usize]);
                    if h.hit && better(h.t, p, *best_t, self.best) {
                        self.best = Some((p, h.t));
                        *best_t = h.t;
                    }
                }
                false
            }
        }
        let mut v = PickLeaf { bvh: self, ray, best: None };
        self.ray_visit::<M>(ray, stack, &mut best_t, &mut v);
        v.best
    }

    /// All pairs `(i, j)`, `i < j`, of primitives whose boxes overlap
    /// ([`aabb_aabb`]), sorted. One tree query per primitive, in parallel over
    /// rayon; the list does not depend on the thread count.
    pub fn self_pairs(&self) -> Vec<[u32; 2]> {
        let n = self.boxes.len();
        (0..n)
            .into_par_iter()
            .with_min_len(256)
            .fold(
                || (Vec::new(), Vec::new(), Vec::new()),
                |(mut pairs, mut hits, mut stack): (Vec<[u32; 2]>, Vec<u32>, Vec<u32>), i| {
                    hits.clear();
                    self.overlap_aabb_into(&self.boxes[i], &mut hits, &mut stack);
                    hits.sort_unstable();
                    pairs.extend(hits.iter().filter(|&&j| j as usize > i).map(|&j| [i as u32, j]));
                    (pairs, hits, stack)
                },
            )
            .map(|(p, _, _)| p)
            .reduce(Vec::new, |mut a, b| {
                a.extend(b);
                a
            })
    }

    /// Depth-first traversal: `node_mask` says which children of a node to
    /// enter (bit per slot; the node's boxes read as lane type `M`), `prim`
    /// is called for every primitive of an entered leaf. `#[inline(always)]`:
    /// [`query`](Self::query) runs it inside a dispatched path's entry.
    #[inline(always)]
    pub(crate) fn visit<M: LanePod>(
        &self,
        stack: &mut Vec<u32>,
        node_mask: &impl NodeMask<M>,
        mut prim: impl FnMut(u32),
    ) {
        if self.nodes.is_empty() {
            return;
        }
        stack.clear();
        stack.push(0);
        while let Some(c) = stack.pop() {
            let node = &self.nodes[c as usize];
            let mut m = node_mask.mask(recast_one::<Aabb, W, M>(&node.bounds));
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                let ch = node.child[i];
                if ch & LEAF_BIT != 0 {
                    let l = self.leaves[(ch & !LEAF_BIT) as usize];
                    for &p in &self.prims[l.start as usize..(l.start + l.count) as usize] {
                        prim(p);
                    }
                } else {
                    stack.push(ch);
                }
            }
        }
    }

    /// Stack entries a ray traversal can need: a visited node keeps at most
    /// `BRANCH - 1` of its hit children pending (the nearest is entered at
    /// once), and the pending entries of one node level are all popped before
    /// the ones of the level above, so `depth · (BRANCH - 1)` bounds the stack.
    #[inline]
    pub(crate) fn stack_need(&self) -> usize {
        self.depth as usize * (BRANCH - 1) + 1
    }

    /// Ordered ray traversal shared by picking and the mesh queries: children
    /// whose conservative slab test hits with entry `<= best_t` are visited
    /// nearest first; `leaf(leaf_index, &mut best_t)` tests a leaf, may lower
    /// `best_t`, and returns `true` to stop (any-hit).
    #[inline(always)]
    pub(crate) fn ray_visit<M: LanePod>(
        &self,
        ray: &Ray,
        stack: &mut Stack,
        best_t: &mut f32,
        leaf: &mut impl LeafVisitor,
    ) {
        self.ray_visit_counted::<false, M>(ray, stack, best_t, &mut TraversalStats::default(), leaf)
    }

    /// [`ray_visit`](Self::ray_visit), counting node tests and leaf visits into
    /// `stats` when `COUNT` (the counters compile away otherwise).
    ///
    /// `M` is the node lane type (eight lanes: wide's `f32x8` as built, or a
    /// dispatched path's own, see [`crate::simd`]); the node boxes are read as
    /// `M` in place.
    #[inline(always)]
    pub(crate) fn ray_visit_counted<const COUNT: bool, M: LanePod>(
        &self,
        ray: &Ray,
        stack: &mut Stack,
        best_t: &mut f32,
        stats: &mut TraversalStats,
        leaf: &mut impl LeafVisitor,
    ) {
        if self.nodes.is_empty() || !crate::ray::ray_valid(ray) {
            return;
        }
        // The node test folds `best_t` into the exit, so it must not exceed
        // `t_max` (every caller starts at `t_max`; this keeps it so).
        if best_t.is_nan() || *best_t > ray.t_max {
            *best_t = ray.t_max;
        }
        // One instance of the loop per node test, chosen once per ray.
        match NodeRay::<M>::new(ray) {
            Some(pre) => self.traverse::<COUNT, M>(&pre, stack, best_t, stats, leaf),
            None => {
                let pre = GeneralNodeRay(RayPrecomp::new(ray).splat::<M>());
                self.traverse::<COUNT, M>(&pre, stack, best_t, stats, leaf)
            }
        }
    }

    /// Hints child `c` (a node, or a leaf through `leaf`) into the cache.
    #[inline(always)]
    fn prefetch_child(&self, c: u32, leaf: &impl LeafVisitor) {
        if c & LEAF_BIT != 0 {
            leaf.prefetch(c & !LEAF_BIT);
        } else {
            let node = &self.nodes[c as usize];
            crate::mem::prefetch(&node.bounds.min.x);
            crate::mem::prefetch(&node.bounds.min.z);
            crate::mem::prefetch(&node.bounds.max.y);
            crate::mem::prefetch(&node.child);
        }
    }

    /// The loop of [`ray_visit_counted`](Self::ray_visit_counted) for one
    /// node test (a valid ray, a non-empty tree, `*best_t <= t_max`).
    #[inline(always)]
    fn traverse<const COUNT: bool, M: LanePod>(
        &self,
        pre: &impl NodeTest<M>,
        stack: &mut Stack,
        best_t: &mut f32,
        stats: &mut TraversalStats,
        leaf: &mut impl LeafVisitor,
    ) {
        // The stack is a fixed slice with its own top `sp` (no `Vec::push`
        // bookkeeping), long enough for any traversal of this tree.
        let need = self.stack_need();
        if stack.len() < need {
            stack.resize(need, (0, 0.0));
        }
        let stack = &mut stack[..];
        let mut sp = 0usize;
        let mut cur = 0u32;
        loop {
            if cur & LEAF_BIT != 0 {
                if COUNT {
                    let l = self.leaves[(cur & !LEAF_BIT) as usize];
                    stats.leaves += 1;
                    stats.prims += l.count as u64;
                }
                if leaf.visit(cur & !LEAF_BIT, best_t) {
                    return;
                }
            } else {
                let node = &self.nodes[cur as usize];
                if COUNT {
                    stats.nodes += 1;
                    stats.boxes += node.child.iter().filter(|&&ch| ch != EMPTY).count() as u64;
                }
                let (m, tv) = pre.test(recast_one::<Aabb, W, M>(&node.bounds), *best_t);
                if m != 0 {
                    // Visit the hit children nearest first by `(entry t, slot)`:
                    // descend into the nearest now, push the others farthest
                    // first so the next nearest is popped next (Embree's
                    // order). One hit: no stack; two: one compare.
                    let i0 = m.trailing_zeros() as usize;
                    let rest = m & (m - 1);
                    if rest == 0 {
                        cur = node.child[i0];
                        continue;
                    }
                    let mut ts = [0f32; BRANCH];
                    tv.store(&mut ts);
                    let i1 = rest.trailing_zeros() as usize;
                    if rest & (rest - 1) == 0 {
                        // i0 < i1: on equal t the smaller slot is nearer.
                        let (near, far) = if ts[i1] < ts[i0] { (i1, i0) } else { (i0, i1) };
                        stack[sp] = (node.child[far], ts[far]);
                        sp += 1;
                        self.prefetch_child(node.child[far], leaf);
                        cur = node.child[near];
                        continue;
                    }
                    // Three or more: each hit child's rank r ([`rank`])
                    // is written to `stack[sp + n - 1 - r]`, so the
                    // pushed ones lie farthest first and the nearest
                    // (r = 0) lands just above them, where it is taken as
                    // `cur`. No data-dependent branch; the same order as
                    // a sort.
                    let n = m.count_ones() as usize;
                    let mut mm = m;
                    while mm != 0 {
                        let i = mm.trailing_zeros() as usize;
                        mm &= mm - 1;
                        stack[sp + n - 1 - rank(tv, ts[i], i, m)] = (node.child[i], ts[i]);
                        self.prefetch_child(node.child[i], leaf);
                    }
                    sp += n - 1;
                    cur = stack[sp].0;
                    continue;
                }
            }
            // The nearest pending entry that is not beyond the best hit.
            loop {
                if sp == 0 {
                    return;
                }
                sp -= 1;
                let (c, t_enter) = stack[sp];
                if t_enter <= *best_t {
                    cur = c;
                    break;
                }
            }
        }
    }
}

/// The rank of hit child `i` (entry `t_i`) in the `(entry t, slot)` order
/// of the hit children `m` (entries `tv`): how many of them are nearer, with
/// a smaller `t`, or an equal `t` and a smaller slot. Two lane compares; `t`
/// compared as floats, so +0 and −0 tie.
#[inline(always)]
fn rank<M: LanePod>(tv: M, t_i: f32, i: usize, m: u64) -> usize {
    let ti = M::splat(t_i);
    let below = (1u64 << i) - 1;
    ((tv.lt(ti).bits() | (tv.eq(ti).bits() & below)) & m).count_ones() as usize
}

/// The node test of a box query ([`Bvh::query`]).
#[derive(Clone, Copy)]
pub(crate) enum Probe<'a> {
    /// Boxes meeting the closed box ([`aabb_aabb`]).
    Box(&'a Aabb),
    /// Boxes meeting the closed ball ([`sphere_aabb`]).
    Ball(&'a Sphere),
    /// Boxes passing [`sphere_aabb_conservative`] (a superset of `Ball`).
    BallConservative(&'a Sphere),
}

/// The node test of [`Bvh::visit`]: a trait with an `#[inline(always)]`
/// method rather than a closure. LLVM compiled the closures first written
/// here as functions of their own, outside the dispatched entry, so each
/// lane operation became a call (`scripts/check_dispatch.sh` found them).
pub(crate) trait NodeMask<M: LanePod> {
    /// Bit per child slot to enter.
    fn mask(&self, bounds: &Aabb<M>) -> u64;
}

struct BoxMask<M: LanePod>(Aabb<M>);
impl<M: LanePod> NodeMask<M> for BoxMask<M> {
    #[inline(always)]
    fn mask(&self, bounds: &Aabb<M>) -> u64 {
        aabb_aabb(&self.0, bounds).bits()
    }
}

struct BallMask<M: LanePod>(Sphere<M>);
impl<M: LanePod> NodeMask<M> for BallMask<M> {
    #[inline(always)]
    fn mask(&self, bounds: &Aabb<M>) -> u64 {
        sphere_aabb(&self.0, bounds).bits()
    }
}

struct BallConservativeMask<M: LanePod>(Sphere<M>);
impl<M: LanePod> NodeMask<M> for BallConservativeMask<M> {
    #[inline(always)]
    fn mask(&self, bounds: &Aabb<M>) -> u64 {
        sphere_aabb_conservative(&self.0, bounds).bits()
    }
}

/// A leaf test of the ordered ray traversal: tests leaf `leaf`, may lower
/// `best_t`, returns `true` to stop (any-hit). A trait with an
/// `#[inline(always)]` method rather than a closure, so that it compiles inside
/// a dispatched path's featured entry ([`crate::simd`]).
pub(crate) trait LeafVisitor {
    /// Tests one leaf.
    fn visit(&mut self, leaf: u32, best_t: &mut f32) -> bool;
    /// Hints the leaf's data into the cache (it will be visited soon).
    #[inline(always)]
    fn prefetch(&self, _leaf: u32) {}
}

/// [`Bvh::pick_with`] as a dispatched body ([`crate::simd`]).
struct Pick<'a> {
    bvh: &'a Bvh,
    ray: &'a Ray,
    stack: &'a mut Stack,
}

impl WidthFn<W> for Pick<'_> {
    type Out = Option<(u32, f32)>;
    #[inline(always)]
    fn call<M: LanePod>(self) -> Self::Out {
        self.bvh.pick_at::<M>(self.ray, self.stack)
    }
}

/// Counters of one or more ray traversals ([`MeshBvh::trace_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraversalStats {
    /// Rays traced.
    pub rays: u64,
    /// Wide nodes visited (each tests its child boxes at once).
    pub nodes: u64,
    /// Non-empty child boxes in the visited nodes.
    pub boxes: u64,
    /// Leaves visited (one triangle pack test each, for a mesh).
    pub leaves: u64,
    /// Primitives in the visited leaves (for a mesh: occupied pack lanes; the
    /// other `MAX_LEAF·leaves − prims` lanes are padding).
    pub prims: u64,
}

impl core::ops::AddAssign for TraversalStats {
    fn add_assign(&mut self, o: Self) {
        self.rays += o.rays;
        self.nodes += o.nodes;
        self.boxes += o.boxes;
        self.leaves += o.leaves;
        self.prims += o.prims;
    }
}

/// Per-ray data of the traversal's node test.
///
/// The common case (every direction component non-zero with a finite
/// inverse, and `t_min >= 0`) is the reduced slab test below; any other
/// valid ray uses the crate's [`ray_aabb_conservative_precomp`], which
/// handles zero components and negative starts.
///
/// **What it guarantees.** A child is hit whenever the exact segment
/// `[t_min, best_t]` touches its closed box, and its returned entry is never
/// above the exact entry `max(t_min, max_i near_i)`: the traversal then
/// culls a child or a popped entry only when no point of it can hold a hit
/// at most `best_t` (the leaf test decides every answer). Why:
/// - With `inv_i` finite and non-zero, `min_i - o_i <= max_i - o_i` stay in
///   order after the (monotone) rounded product, so on a valid box the near
///   plane's time is that of `min_i` when `inv_i > 0` and of `max_i`
///   otherwise. The planes are picked once per ray by the sign of `inv_i`
///   (`near`/`far`, an indexed load per plane instead of a `min` and a `max`
///   per axis). A slot's box is either valid or the empty box `+∞..−∞` on
///   every axis (boxes are unions of valid boxes, or `EMPTY_BOX`); for the
///   empty box the picked near time is `+∞` and the far time `−∞` on every
///   axis whatever the sign, so it is rejected without a separate mask.
/// - A computed plane time `fl(fl(p - o)·fl(1/d))` has the sign of the exact
///   `(p - o)/d` (rounding keeps signs; an underflow gives a signed zero) and
///   is within a factor `1 ± 3.01u` of it, plus `2^-149` for an underflow.
/// - The entry `n = max(t_min, near_0, near_1, near_2) >= 0` is moved down
///   once: `fl(fl(min(n, MAX)·(1 − 16u)) − 2^-126)`. Where `n` is `t_min`
///   the result is below it; where `n` is an axis time, that time is positive,
///   so the exact one is too and at most the exact entry, and
///   `(1 + 3.01u)(1 − 16u)(1 + u)² < 1` with the underflow term below
///   `2^-126`: the result is below the exact entry `e`.
/// - The exit is not widened. If the exact segment touches the box, its
///   exact far times are `>= e >= 0`, so the computed ones are at least
///   `e(1 − 3.01u) − 2^-149`, which the moved-down entry (at most
///   `e(1 − 11u) − 2^-127`) does not exceed; and it does not exceed
///   `best_t >= e` either. So `enter <= min(best_t, far)` holds.
/// - Entries of `+∞` (the empty box, or an overflow outside the kernel's
///   documented range of coordinates `<= 2^40` and `|d_i| >= 2^-40`, where
///   slab times stay below `2^81`) are clamped to `f32::MAX` first, so no
///   entry is NaN and an overflowed box is still entered with an entry
///   below its exact one.
///
/// `tests::reduced_node_test_is_conservative_on_exact_touches` checks both
/// guarantees exactly on rays that graze box corners, edges and faces.
struct NodeRay<M> {
    origin: [M; 3],
    inv: [M; 3],
    /// Per axis, the index into a node's six planes (`min.x, min.y, min.z,
    /// max.x, max.y, max.z`) of the near plane (`min` when `inv > 0`) and of
    /// the far plane; chosen once per ray (Embree's `nearX`/`farX` offsets).
    near: [usize; 3],
    far: [usize; 3],
    t_min: M,
}

/// A node test: the hit mask (bit per slot) of the children whose
/// conservative entry `t` is `<= best_t`, and the entries (any value in
/// the other lanes). `best_t` never exceeds the ray's `t_max`.
trait NodeTest<M> {
    fn test(&self, b: &Aabb<M>, best_t: f32) -> (u64, M);
}

/// The general node test: the crate's kernel, for rays with a zero or
/// tiny direction component.
struct GeneralNodeRay<M: Lane>(RayPrecomp<M>);

impl<M: LanePod> NodeTest<M> for GeneralNodeRay<M> {
    #[inline(always)]
    fn test(&self, b: &Aabb<M>, best_t: f32) -> (u64, M) {
        let h = ray_aabb_conservative_precomp(&self.0, b);
        let m = h.hit & h.t.le(M::splat(best_t));
        (m.bits(), h.t)
    }
}

impl<M: LanePod> NodeRay<M> {
    /// The reduced test's data, or `None` when a direction component is zero
    /// or has an infinite inverse, or `t_min` is negative (those rays use
    /// [`GeneralNodeRay`]).
    #[inline(always)]
    fn new(ray: &Ray) -> Option<Self> {
        let d = ray.dir.to_array();
        let inv = d.map(|x| 1.0 / x);
        let fast =
            d.iter().all(|&x| x != 0.0) && inv.iter().all(|x| x.is_finite()) && ray.t_min >= 0.0;
        let o = ray.origin.to_array();
        let near: [usize; 3] = core::array::from_fn(|k| if inv[k] > 0.0 { k } else { k + 3 });
        if !fast {
            return None;
        }
        // (no closures over lane values here: see `crate::simd`)
        Some(NodeRay {
            origin: [M::splat(o[0]), M::splat(o[1]), M::splat(o[2])],
            inv: [M::splat(inv[0]), M::splat(inv[1]), M::splat(inv[2])],
            near,
            far: [(near[0] + 3) % 6, (near[1] + 3) % 6, (near[2] + 3) % 6],
            t_min: M::splat(ray.t_min),
        })
    }
}

impl<M: LanePod> NodeTest<M> for NodeRay<M> {
    #[inline(always)]
    fn test(&self, b: &Aabb<M>, best_t: f32) -> (u64, M) {
        // The six plane lanes of the node, `min.x .. max.z` (`Aabb` is
        // `repr(C)`: two `V3`, each three lanes).
        let planes: &[M; 6] = bytemuck::cast_ref(b);
        // Near and far plane times per axis, the planes picked by the sign of
        // `inv` (an indexed load, no min/max).
        // (a function, not a closure: see `crate::simd`)
        #[inline(always)]
        fn slab<M: Lane>(r: &NodeRay<M>, planes: &[M; 6], k: usize, plane: usize) -> M {
            (planes[plane] - r.origin[k]) * r.inv[k]
        }
        let (p, nr, fr) = (planes, self.near, self.far);
        let near = [slab(self, p, 0, nr[0]), slab(self, p, 1, nr[1]), slab(self, p, 2, nr[2])];
        let far = [slab(self, p, 0, fr[0]), slab(self, p, 1, fr[1]), slab(self, p, 2, fr[2])];
        slab_entry(near, far, self.t_min, best_t)
    }
}

/// The end of [`NodeRay`]'s test from the near and far plane times of each
/// axis: the hit mask of the lanes whose entry, moved down, is at most the
/// exit and `best_t`, and those entries (see [`NodeRay`] for why this never
/// culls a box the exact segment touches). Shared with the packet traversal
/// ([`packet`]), which forms the plane times differently but identically.
#[inline(always)]
fn slab_entry<M: LanePod>(near: [M; 3], far: [M; 3], t_min: M, best_t: f32) -> (u64, M) {
    // The crate's `Lane` min/max (plain `maxps`/`minps`): no operand is NaN
    // here (finite non-zero `inv`, finite or infinite box coordinates), so
    // wide's NaN-checking inherent `f32x8::max` would only cost a compare
    // and a blend per call.
    let (max, min) = (<M as Lane>::max, <M as Lane>::min);
    let n = max(max(near[0], near[1]), max(near[2], t_min));
    let f = min(min(far[0], far[1]), far[2]);
    let enter = min(n, M::splat(f32::MAX)) * M::splat(1.0 - RAY_AABB_WIDEN_REL)
        - M::splat(RAY_AABB_WIDEN_ABS);
    (enter.le(min(M::splat(best_t), f)).bits(), enter)
}

/// The ray-casting benchmark's ray set (used by `widephase raycast` and
/// `benches/bvh.rs`, and dumped for peers by `--dump-rays`): `n` rays, origins
/// uniform on the sphere of radius `|hi - lo|` (the box diagonal) about the box
/// center, each aimed at a point uniform in the box; `dir = target - origin`
/// (not normalized). Deterministic in `seed`.
///
/// A hit's `t` lies in `[1/3, 3]`, not `[0, 1]`: the ray goes on past its
/// target, and a hit point `x` and the target both lie in the box, within
/// `R/2` of its centre (`R` the diagonal), while the origin is `R` from it,
/// so `t = |x - o| / |target - o|` is between `(R/2) / (3R/2)` and
/// `(3R/2) / (R/2)`. Both ends are reached only by a line through two
/// opposite corners; on the bunny, 19 % of the hits have `t > 1`, up to
/// 2.13 (`tests/cli.rs` checks the bound on dumped hits).
pub fn random_rays(lo: Vec3, hi: Vec3, n: usize, seed: u64) -> Vec<Ray> {
    let c = (lo + hi) * 0.5;
    let ext = hi - lo;
    let r = ext.length();
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|_| {
            // Uniform direction on the sphere: z uniform in [-1, 1], angle uniform.
            let z = 2.0 * rng.f() - 1.0;
            let phi = core::f32::consts::TAU * rng.f();
            let s = (1.0 - z * z).max(0.0).sqrt();
            let o = c + Vec3::new(s * phi.cos(), s * phi.sin(), z) * r;
            let target = lo + Vec3::new(ext.x * rng.f(), ext.y * rng.f(), ext.z * rng.f());
            Ray::new(o, target - o)
        })
        .collect()
}

/// Whether `(t, id)` beats the current best (smaller `t`, ties: smaller id).
#[inline(always)]
pub(crate) fn better(t: f32, id: u32, best_t: f32, best: Option<(u32, f32)>) -> bool {
    match best {
        None => t <= best_t,
        Some((bid, _)) => t < best_t || (t == best_t && id < bid),
    }
}

/// Bottom-up refit of every node's child boxes (nodes are in preorder, so
/// children come after parents: a reverse sweep sees children first).
pub(crate) fn refit_nodes(nodes: &mut [Node], leaf_box: impl Fn(u32) -> Aabb) {
    let mut node_box = vec![EMPTY_BOX; nodes.len()];
    for i in (0..nodes.len()).rev() {
        let mut lanes = [[0.0f32; BRANCH]; 6];
        let mut total = EMPTY_BOX;
        for (s, &ch) in nodes[i].child.iter().enumerate() {
            let b = if ch == EMPTY {
                EMPTY_BOX
            } else if ch & LEAF_BIT != 0 {
                leaf_box(ch & !LEAF_BIT)
            } else {
                node_box[ch as usize]
            };
            total = union_valid(total, &b);
            for (k, v) in
                [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z].into_iter().enumerate()
            {
                lanes[k][s] = v;
            }
        }
        nodes[i].bounds = soa_box(&lanes);
        node_box[i] = total;
    }
}

/// An `Aabb<W>` from six lane arrays (min x, y, z, max x, y, z).
pub(crate) fn soa_box(l: &[[f32; BRANCH]; 6]) -> Aabb<W> {
    Aabb {
        min: V3::new(W::new(l[0]), W::new(l[1]), W::new(l[2])),
        max: V3::new(W::new(l[3]), W::new(l[4]), W::new(l[5])),
    }
}

#[cfg(test)]
mod tests {
    use super::{soa_box, NodeRay, NodeTest, BRANCH, EMPTY_BOX, W};
    use crate::math::Vec3;
    use crate::shapes::Ray;
    use crate::workload::SplitMix;

    /// Dyadic coordinates `k / 2^8`, `|k| < 2^20`: exact in `f32`, and the
    /// slab times' numerators and denominators (in units of `2^-8`) are
    /// integers whose products fit an `i64`.
    const SCALE: f32 = 256.0;

    /// `a/b <= c/d` for `b, d > 0`, exactly.
    fn frac_le((a, b): (i64, i64), (c, d): (i64, i64)) -> bool {
        a * d <= c * b
    }

    /// The exact entry `max(t_min, max_i near_i)` and whether the exact
    /// segment `[t_min, best_t]` touches the closed box: fractions of the
    /// integer coordinates (`lo`, `hi`, `o`, `d` in units of `2^-8`).
    fn exact(
        lo: [i64; 3],
        hi: [i64; 3],
        o: [i64; 3],
        d: [i64; 3],
        t_min: (i64, i64),
        best_t: (i64, i64),
    ) -> ((i64, i64), bool) {
        let (mut enter, mut exit) = (t_min, best_t);
        for k in 0..3 {
            let (near, far) = if d[k] > 0 { (lo[k], hi[k]) } else { (hi[k], lo[k]) };
            // (p - o)/d with a positive denominator
            let t = |p: i64| if d[k] > 0 { (p - o[k], d[k]) } else { (o[k] - p, -d[k]) };
            if frac_le(enter, t(near)) {
                enter = t(near);
            }
            if frac_le(t(far), exit) {
                exit = t(far);
            }
        }
        (enter, frac_le(enter, exit))
    }

    /// The reduced node test never misses a box the exact segment
    /// `[t_min, best_t]` touches, and never reports an entry beyond the
    /// exact one: rays aimed exactly at a box's corners, edges and faces (so
    /// they graze it, entering and leaving at the same `t`), from inside and
    /// outside, with `t_min` and `best_t` at the touching parameter; every
    /// lane of the node; directions whose inverses round.
    #[test]
    fn reduced_node_test_is_conservative_on_exact_touches() {
        let mut r = SplitMix(0x51ab);
        let mut int = |lo: i64, hi: i64| lo + (r.next_u64() % (hi - lo + 1) as u64) as i64;
        let (mut touching, mut grazing) = (0usize, 0usize);
        for case in 0..20_000 {
            // eight boxes, one per lane; the ray aims at a boundary point of
            // the box in lane `aim`
            let mut boxes = [[0i64; 6]; BRANCH];
            for b in &mut boxes {
                for k in 0..3 {
                    let (x, y) = (int(-4096, 4096), int(-4096, 4096));
                    b[k] = x.min(y);
                    b[k + 3] = x.max(y) + int(0, 1) * int(0, 300);
                }
            }
            let aim = case % BRANCH;
            let b = boxes[aim];
            // a point of the box's boundary: each coordinate on a plane, or
            // (for at most two axes) strictly inside; one in eight steps one
            // unit outside (an exact miss or a touch elsewhere)
            let mut target = [0i64; 3];
            let on_planes = int(1, 3);
            for k in 0..3 {
                target[k] = if k < on_planes as usize {
                    if int(0, 1) == 0 {
                        b[k]
                    } else {
                        b[k + 3]
                    }
                } else {
                    int(b[k], b[k + 3])
                };
            }
            if int(0, 7) == 0 {
                target[int(0, 2) as usize] += if int(0, 1) == 0 { -1 } else { 1 };
            }
            let o = [int(-8192, 8192), int(-8192, 8192), int(-8192, 8192)];
            let d = [target[0] - o[0], target[1] - o[1], target[2] - o[2]];
            if d.contains(&0) {
                continue;
            }
            // the target is reached at t = 1: start or stop there, or not
            let t_min = [(0, 1), (1, 1), (int(0, 512), 256)][int(0, 2) as usize];
            let best_t = [(1, 1), (int(256, 1024), 256), (4, 1)][int(0, 2) as usize];
            let f = |x: i64| x as f32 / SCALE;
            let ray = Ray {
                origin: Vec3::new(f(o[0]), f(o[1]), f(o[2])),
                dir: Vec3::new(f(d[0]), f(d[1]), f(d[2])),
                t_min: t_min.0 as f32 / t_min.1 as f32,
                t_max: f32::INFINITY,
            };
            let mut rows = [[0f32; BRANCH]; 6];
            for (lane, b) in boxes.iter().enumerate() {
                for k in 0..6 {
                    rows[k][lane] = f(b[k]);
                }
            }
            // an empty slot in one lane other than the aimed one
            let empty = (aim + 1 + case / BRANCH % (BRANCH - 1)) % BRANCH;
            let e = [EMPTY_BOX.min.x, EMPTY_BOX.min.y, EMPTY_BOX.min.z];
            let e2 = [EMPTY_BOX.max.x, EMPTY_BOX.max.y, EMPTY_BOX.max.z];
            for k in 0..3 {
                rows[k][empty] = e[k];
                rows[k + 3][empty] = e2[k];
            }
            let pre = NodeRay::<W>::new(&ray).expect("non-zero direction, t_min >= 0");
            let best = best_t.0 as f32 / best_t.1 as f32;
            let (mask, entries) = pre.test(&soa_box(&rows), best);
            let entries = entries.to_array();
            assert!(mask >> empty & 1 == 0, "case {case}: the empty slot is hit");
            for (lane, bx) in boxes.iter().enumerate() {
                if lane == empty {
                    continue;
                }
                let lo = [bx[0], bx[1], bx[2]];
                let hi = [bx[3], bx[4], bx[5]];
                let ((en, ed), touch) = exact(lo, hi, o, d, t_min, best_t);
                if !touch {
                    continue;
                }
                touching += 1;
                grazing += usize::from(lane == aim);
                assert!(mask >> lane & 1 == 1, "case {case} lane {lane}: a touched box is culled");
                // entry <= en/ed, exactly (an f32 times a 21-bit integer is
                // exact in f64)
                assert!(
                    entries[lane] as f64 * ed as f64 <= en as f64,
                    "case {case} lane {lane}: entry {} beyond the exact {en}/{ed}",
                    entries[lane]
                );
            }
        }
        assert!(touching > 10_000 && grazing > 5_000, "{touching} touching, {grazing} aimed");
    }
}
