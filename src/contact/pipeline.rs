//! The narrow-phase pipeline: candidate pairs from a broad phase → buckets by
//! shape-type pair → SoA bundles as wide as the SIMD register → the wide
//! testers → one [`Manifold`] per input pair, in input order (the structure of
//! bepuphysics2's narrow phase: `CollisionBatcher` groups pairs by type into
//! bundles for the `*PairTester`s).
//!
//! **Canonical order.** Shape kinds are ordered `Sphere < Capsule < Box <
//! Triangle`; every tester takes its pair in that order (`sphere_box`, never
//! `box_sphere`). A pair given the other way round is tested swapped and its
//! manifold converted back by [`swap_roles`] — written once for every pair
//! type.
//!
//! **Determinism.** Each manifold depends only on its own pair (the testers are
//! bit-identical in every lane), and results are written back by pair index,
//! so the output is the same for any thread count, lane width or bucket
//! layout; `tests/contact_spheres.rs` checks it against the scalar testers.
//!
//! **Static meshes** go through the same buckets: [`mesh_contacts`]
//! turns each (shape, mesh) pair into (shape, triangle) sub-pairs from the
//! mesh's BVH and runs them here (`run_pairs` over a `PairSource`), so
//! mesh triangles share the triangle testers, bundles and tasks of
//! [`Collider::Triangle`] pairs.
//!
//! **Adding a pair type** is one row of the `contact_testers!` table below
//! (the bench table in `src/cli/bench.rs` takes one more line).
//!
//! [`mesh_contacts`]: super::mesh_contacts

use super::hull::ConvexHull;
use super::hull_contact::{hull_partner, HullPartner, PlacedHull};
use super::util::copy_lane;
use super::{
    box_box::{self, box_box},
    box_triangle, capsule_box, capsule_capsule, capsule_triangle, sphere_box, sphere_capsule,
    sphere_sphere,
};
use super::{sphere_triangle, ContactPoint, Manifold, MAX_CONTACTS};
use crate::lane::LaneMask;
use crate::math::{Vec3, V3};
use crate::pack::{LanePod, Pack, Packable};
use crate::shapes::{Aabb, Capsule, Obb, Sphere, Triangle};
use crate::simd::{self, recast, recast_mut, Isa, WidthFn};
use core::mem::MaybeUninit;
use rayon::prelude::*;
use wide::f32x16;

/// The shape of one body in the narrow phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Collider {
    /// A sphere.
    Sphere(Sphere),
    /// A capsule.
    Capsule(Capsule),
    /// An oriented box.
    Box(Obb),
    /// A triangle (one triangle of a static mesh; one-sided, see
    /// [`sphere_triangle`](fn@super::sphere_triangle)).
    Triangle(Triangle),
    /// A convex hull: an index into the hull table passed beside the
    /// colliders ([`contacts_with_hulls`]) and a pose.
    Hull(HullCollider),
}

/// A placed convex hull in a [`Collider`]: `hulls[hull]` of the table given
/// to [`contacts_with_hulls`] (or [`mesh_contacts_with_hulls`],
/// [`NarrowPhase::update_with_hulls`]) at `center`, rotated by the
/// orthonormal `axes` (as [`PlacedHull`]), with the hull's local bounding
/// box kept for [`Collider::aabb`]. Build it with [`HullCollider::new`]; an
/// index past the table gives no contacts.
///
/// [`mesh_contacts_with_hulls`]: super::mesh::mesh_contacts_with_hulls
/// [`NarrowPhase::update_with_hulls`]: super::NarrowPhase::update_with_hulls
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullCollider {
    /// Index into the hull table.
    pub hull: u32,
    /// World position of the hull's local origin.
    pub center: Vec3,
    /// World directions of the local axes.
    pub axes: [Vec3; 3],
    /// The hull's local bounding box (min corner).
    pub local_min: Vec3,
    /// The hull's local bounding box (max corner).
    pub local_max: Vec3,
}

impl HullCollider {
    /// `hulls[hull]` at `center` rotated by `axes`; the local bounds are NaN
    /// (the collider overlaps nothing) when `hull` is past the table.
    pub fn new(hulls: &[ConvexHull], hull: u32, center: Vec3, axes: [Vec3; 3]) -> Self {
        let (local_min, local_max) = match hulls.get(hull as usize) {
            Some(h) => h.vertices().iter().fold(
                (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
                |(lo, hi), &v| (lo.min(v), hi.max(v)),
            ),
            None => (Vec3::splat(f32::NAN), Vec3::splat(f32::NAN)),
        };
        HullCollider { hull, center, axes, local_min, local_max }
    }

    /// The same hull at `center` rotated by `axes`.
    pub fn moved_to(&self, center: Vec3, axes: [Vec3; 3]) -> Self {
        HullCollider { center, axes, ..*self }
    }

    /// The placed hull of the table, `None` when the index is past it.
    pub fn placed<'h>(&self, hulls: &'h [ConvexHull]) -> Option<PlacedHull<'h>> {
        hulls.get(self.hull as usize).map(|h| PlacedHull::new(h, self.center, self.axes))
    }

    /// Largest `|coordinate|` of the local bounds per axis: every vertex is
    /// within it of the local origin along each axis.
    pub fn local_reach(&self) -> Vec3 {
        self.local_min.abs().max(self.local_max.abs())
    }
}

/// The kind of a [`Collider`], in canonical pair order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeKind {
    /// [`Collider::Sphere`].
    Sphere = 0,
    /// [`Collider::Capsule`].
    Capsule = 1,
    /// [`Collider::Box`].
    Box = 2,
    /// [`Collider::Triangle`].
    Triangle = 3,
    /// [`Collider::Hull`] (tested by the scalar hull testers, outside the
    /// lane buckets).
    Hull = 4,
}

impl ShapeKind {
    /// Number of kinds.
    pub const COUNT: usize = 5;
}

impl Collider {
    /// The collider's kind.
    #[inline(always)]
    pub fn kind(&self) -> ShapeKind {
        match self {
            Collider::Sphere(_) => ShapeKind::Sphere,
            Collider::Capsule(_) => ShapeKind::Capsule,
            Collider::Box(_) => ShapeKind::Box,
            Collider::Triangle(_) => ShapeKind::Triangle,
            Collider::Hull(_) => ShapeKind::Hull,
        }
    }

    /// The bounding box grown by `margin / 2` on every side, for a broad
    /// phase feeding [`contacts`] with speculative `margin`: two colliders at
    /// most `margin` apart have overlapping boxes (up to the rounding of the
    /// two sums).
    pub fn speculative_aabb(&self, margin: f32) -> Aabb {
        let b = self.aabb();
        let grow = Vec3::splat(0.5 * margin);
        Aabb::new(b.min - grow, b.max + grow)
    }

    /// The tight axis-aligned bounding box, for the broad phase (NaN
    /// coordinates for invalid shapes, which then overlap nothing).
    pub fn aabb(&self) -> Aabb {
        match self {
            Collider::Sphere(s) => {
                Aabb::new(s.center - Vec3::splat(s.radius), s.center + Vec3::splat(s.radius))
            }
            Collider::Capsule(c) => {
                let r = Vec3::splat(c.radius);
                Aabb::new(c.a.min(c.b) - r, c.a.max(c.b) + r)
            }
            Collider::Box(b) => {
                let e = b.axes[0].abs() * b.half.x
                    + b.axes[1].abs() * b.half.y
                    + b.axes[2].abs() * b.half.z;
                Aabb::new(b.center - e, b.center + e)
            }
            Collider::Triangle(t) => Aabb::new(t.a.min(t.b).min(t.c), t.a.max(t.b).max(t.c)),
            Collider::Hull(h) => {
                // the local box's centre and half extents, rotated (as a box)
                let (c, e) = ((h.local_min + h.local_max) * 0.5, (h.local_max - h.local_min) * 0.5);
                let wc = h.center + h.axes[0] * c.x + h.axes[1] * c.y + h.axes[2] * c.z;
                let we = h.axes[0].abs() * e.x + h.axes[1].abs() * e.y + h.axes[2].abs() * e.z;
                // one part in 2^20 up: the rotated sums round either way
                let we = we + we * (1.0 / 1_048_576.0);
                Aabb::new(wc - we, wc + we)
            }
        }
    }

    /// The collider moved by `t` (every point of the shape).
    pub fn translated(&self, t: Vec3) -> Collider {
        match *self {
            Collider::Sphere(mut s) => {
                s.center += t;
                Collider::Sphere(s)
            }
            Collider::Capsule(mut c) => {
                c.a += t;
                c.b += t;
                Collider::Capsule(c)
            }
            Collider::Box(mut b) => {
                b.center += t;
                Collider::Box(b)
            }
            Collider::Triangle(mut s) => {
                s.a += t;
                s.b += t;
                s.c += t;
                Collider::Triangle(s)
            }
            Collider::Hull(mut h) => {
                h.center += t;
                Collider::Hull(h)
            }
        }
    }
}

/// A shape type a [`Collider`] can hold.
pub trait ColliderShape: Packable {
    /// Its kind.
    const KIND: ShapeKind;
    /// The shape, when `c` holds this kind.
    fn of(c: &Collider) -> Option<&Self>;
}

macro_rules! collider_shape {
    ($($t:ident => $v:ident),*) => {$(
        impl ColliderShape for $t {
            const KIND: ShapeKind = ShapeKind::$v;
            #[inline(always)]
            fn of(c: &Collider) -> Option<&Self> {
                match c {
                    Collider::$v(s) => Some(s),
                    _ => None,
                }
            }
        }
    )*};
}
collider_shape!(Sphere => Sphere, Capsule => Capsule, Obb => Box, Triangle => Triangle);

/// A lane-generic contact tester for one pair type, in canonical order
/// (`A::KIND <= B::KIND`).
pub trait ContactTester: Send + Sync {
    /// First shape.
    type A: ColliderShape;
    /// Second shape.
    type B: ColliderShape;
    /// Bench and report name, `contact_<a>_<b>`.
    const NAME: &'static str;
    /// The tester: lane `j` of the result is the manifold of lane `j` of `a`
    /// and `b`.
    fn test<L: LanePod>(
        a: &<Self::A as Packable>::Lanes<L>,
        b: &<Self::B as Packable>::Lanes<L>,
        margin: L,
    ) -> Manifold<L>;
    /// `out[c] = test(&a[c], &b[c], margin)` for every bundle `c` (equal
    /// lengths). A tester with a batched form overrides it (box–box compacts
    /// the contacting lanes between its SAT and its clipping); the results are
    /// the same bit for bit.
    #[inline(always)]
    fn test_slice<L: LanePod>(
        a: &[<Self::A as Packable>::Lanes<L>],
        b: &[<Self::B as Packable>::Lanes<L>],
        margin: L,
        out: &mut [Manifold<L>],
    ) {
        for ((o, a), b) in out.iter_mut().zip(a).zip(b) {
            *o = Self::test::<L>(a, b, margin);
        }
    }
    /// Whether the pipeline runs this tester through
    /// [`test_or_lanes`](Self::test_or_lanes).
    const STAGED: bool = false;
    /// [`test`](Self::test) when at least `dense` lanes may have a contact,
    /// else those lanes (every other lane of `test` is
    /// [`Manifold::empty`]). A tester whose SAT is cheap beside its
    /// manifold stage answers from its SAT (and sets
    /// [`STAGED`](Self::STAGED)); the pipeline then runs `test` on sparse
    /// bundles' contacting lanes gathered into dense bundles.
    #[inline(always)]
    fn test_or_lanes<L: LanePod>(
        a: &<Self::A as Packable>::Lanes<L>,
        b: &<Self::B as Packable>::Lanes<L>,
        margin: L,
        _dense: u32,
    ) -> Result<Manifold<L>, L::Mask> {
        Ok(Self::test::<L>(a, b, margin))
    }
}

/// The pair-type table. One row per tester: `Name: A, B => function, "label";`
/// (optionally `, batch slice_function` before the `;`, see
/// [`ContactTester::test_slice`]). It defines the tester types, [`PAIR_TYPES`]
/// and the pipeline's dispatch.
macro_rules! contact_testers {
    ($($(#[$doc:meta])* $name:ident: $a:ident, $b:ident => $f:path, $label:literal
        $(, batch $bf:path)? $(, staged $sf:path)?;)*) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default)]
            pub struct $name;
            impl ContactTester for $name {
                type A = $a;
                type B = $b;
                const NAME: &'static str = $label;
                #[inline(always)]
                fn test<L: LanePod>(a: &$a<L>, b: &$b<L>, margin: L) -> Manifold<L> {
                    $f(a, b, margin)
                }
                $(
                    #[inline(always)]
                    fn test_slice<L: LanePod>(
                        a: &[$a<L>],
                        b: &[$b<L>],
                        margin: L,
                        out: &mut [Manifold<L>],
                    ) {
                        $bf(a, b, margin, out)
                    }
                )?
                $(
                    const STAGED: bool = true;
                    #[inline(always)]
                    fn test_or_lanes<L: LanePod>(
                        a: &$a<L>,
                        b: &$b<L>,
                        margin: L,
                        dense: u32,
                    ) -> Result<Manifold<L>, L::Mask> {
                        $sf(a, b, margin, dense)
                    }
                )?
            }
        )*

        /// Names of the implemented pair types, in table order.
        pub const PAIR_TYPES: &[&str] = &[$($label),*];

        /// Runs one task of the bucket of canonical pair type `(ka, kb)`
        /// ([`run_task`]), writing each pair's manifold to `out` at the
        /// pair's index; [`Manifold::EMPTY`] when the table has no tester
        /// for it.
        fn dispatch<L: LanePod, S: PairSource>(
            ka: ShapeKind,
            kb: ShapeKind,
            job: &Job<'_, S>,
            task: &[u32],
            out: &mut TaskOut<'_>,
            scratch: &mut BlockScratch,
        ) {
            // every pair with a hull (the last kind) goes to the hull testers
            if kb == ShapeKind::Hull {
                return run_hull_task(job, task, out);
            }
            $(
                if ka == <$a as ColliderShape>::KIND && kb == <$b as ColliderShape>::KIND {
                    return run_task::<$name, L, S>(job, task, out, scratch);
                }
            )*
            for &pi in task {
                out.write(pi, Manifold::EMPTY);
            }
        }
    };
}

contact_testers! {
    /// [`sphere_sphere`](fn@super::sphere_sphere).
    SphereSphere: Sphere, Sphere => sphere_sphere, "contact_sphere_sphere";
    /// [`sphere_capsule`](fn@super::sphere_capsule).
    SphereCapsule: Sphere, Capsule => sphere_capsule, "contact_sphere_capsule";
    /// [`sphere_box`](fn@super::sphere_box).
    SphereBox: Sphere, Obb => sphere_box, "contact_sphere_box";
    /// [`sphere_triangle`](fn@super::sphere_triangle).
    SphereTriangle: Sphere, Triangle => sphere_triangle, "contact_sphere_triangle";
    /// [`capsule_capsule`](fn@super::capsule_capsule).
    CapsuleCapsule: Capsule, Capsule => capsule_capsule, "contact_capsule_capsule";
    /// [`capsule_box`](fn@super::capsule_box).
    CapsuleBox: Capsule, Obb => capsule_box, "contact_capsule_box";
    /// [`capsule_triangle`](fn@super::capsule_triangle).
    CapsuleTriangle: Capsule, Triangle => capsule_triangle, "contact_capsule_triangle";
    /// [`box_box`](fn@super::box_box).
    BoxBox: Obb, Obb => box_box, "contact_box_box", batch box_box::box_box_packs;
    /// [`box_triangle`](fn@super::box_triangle).
    BoxTriangle: Obb, Triangle => box_triangle, "contact_box_triangle",
        staged box_triangle::box_triangle_or_lanes;
    // Triangle–triangle has no tester (static mesh against static mesh is not
    // a narrow-phase pair); those pairs get empty manifolds.
}

/// The manifold of the pair `(B, A)` from the manifold `m` of `(A, B)`: the
/// normal flips, and each point moves by `depth·normal` from B's surface onto
/// A's (the module conventions put the matching point on A there). Depths and
/// feature ids are unchanged; an empty manifold stays empty.
///
/// ```
/// use widephase::contact::{pipeline::swap_roles, sphere_sphere};
/// use widephase::{Sphere, Vec3};
/// let (a, b) = (Sphere::new(Vec3::ZERO, 1.0), Sphere::new(Vec3::new(1.5, 0.0, 0.0), 1.0));
/// let ab = sphere_sphere(&a, &b, 0.0);
/// assert_eq!(swap_roles(&ab), sphere_sphere(&b, &a, 0.0));
/// ```
pub fn swap_roles(m: &Manifold) -> Manifold {
    swap_roles_lanes::<f32>(m, true)
}

/// [`swap_roles`] in the lanes `swap` of `m` (every width, the one-pair form
/// included), the others unchanged. A lane's points are those below
/// `count` as [`Manifold::contacts`] reads it (`k < count as usize`, i.e.
/// `count >= k + 1`); only those move, and the normal flips only in a lane
/// with a point, so each lane's bits are those of the one-pair form.
#[inline(always)]
fn swap_roles_lanes<L: LanePod>(m: &Manifold<L>, swap: L::Mask) -> Manifold<L> {
    let swap = swap & m.count.ge(L::splat(1.0));
    if swap.none() {
        return *m;
    }
    let mut r = *m;
    let n = m.normal;
    // 0 - n rather than -n: a zero component stays +0, as a tester computing
    // the swapped pair directly would give it
    r.normal = V3::select(swap, V3::splat(L::splat(0.0)) - n, n);
    for (k, p) in r.points.iter_mut().enumerate() {
        let moved = swap & m.count.ge(L::splat(k as f32 + 1.0));
        p.position = V3::select(moved, p.position + n * p.depth, p.position);
    }
    r
}

/// Pairs per rayon task of [`par_test_packs`]: enough work (≥ 64 bundles of
/// 16) to amortise the task, small enough to balance two threads on a few
/// thousand pairs.
pub const PAIRS_PER_TASK: usize = 1024;

/// Pairs per task of the pipeline, at most: a task is a contiguous range of
/// the batch, bucketed by pair type inside the task, so each bucket ends on
/// a partial bundle: ranges of 4096 pairs cost one thread 50–51 ns per pair
/// on the bench scene (7631 pairs), of 1024 pairs 56–57 (simd-notes,
/// "Contact pipeline"). A batch is cut into one range per thread, within
/// [`MIN_PAIRS_PER_RANGE`] and this.
pub const MAX_PAIRS_PER_RANGE: usize = 4096;

/// Pairs per task of the pipeline, at least (so a small batch, such as the
/// recomputed pairs of a [`NarrowPhase`](super::NarrowPhase) frame, still
/// runs on two threads).
pub const MIN_PAIRS_PER_RANGE: usize = 512;

/// A batch of pairs for the bucketed testers: [`contacts`] reads them from
/// the broad phase's index pairs, [`mesh_contacts`](super::mesh_contacts)
/// forms them from a shape and the triangles the BVH finds near it.
pub(super) trait PairSource: Sync {
    /// Number of pairs.
    fn len(&self) -> usize;
    /// Pair `i` as given (either order; the pipeline makes it canonical).
    fn pair(&self, i: usize) -> (Collider, Collider);
    /// The kinds of pair `i` (for bucketing, without copying the shapes).
    #[inline]
    fn kinds(&self, i: usize) -> (ShapeKind, ShapeKind) {
        let (a, b) = self.pair(i);
        (a.kind(), b.kind())
    }
    /// The hull table [`Collider::Hull`] indexes.
    fn hulls(&self) -> &[ConvexHull];
    /// Pair `i`'s two shapes in place, in canonical order (A's kind first;
    /// equal kinds keep the given order), and whether that swapped them.
    /// Panics if the pair's kinds are not `A`'s and `B`'s (buckets hold one
    /// kind pair).
    fn canonical<A: ColliderShape, B: ColliderShape>(&self, i: usize) -> (&A, &B, bool);
}

/// The shapes of the pair `(c0, c1)` in canonical order and whether that
/// swapped them ([`PairSource::canonical`]).
#[inline(always)]
fn canonical_shapes<'c, A: ColliderShape, B: ColliderShape>(
    c0: &'c Collider,
    c1: &'c Collider,
) -> (&'c A, &'c B, bool) {
    let swap = c0.kind() > c1.kind();
    let (a, b) = if swap { (c1, c0) } else { (c0, c1) };
    (A::of(a).expect("bucketed by kind"), B::of(b).expect("bucketed by kind"), swap)
}

/// The pairs of [`contacts`]: `colliders[pairs[i].0]`, `colliders[pairs[i].1]`.
struct IndexPairs<'a> {
    colliders: &'a [Collider],
    hulls: &'a [ConvexHull],
    pairs: &'a [(u32, u32)],
}

impl PairSource for IndexPairs<'_> {
    fn len(&self) -> usize {
        self.pairs.len()
    }
    #[inline(always)]
    fn pair(&self, i: usize) -> (Collider, Collider) {
        let (a, b) = self.pairs[i];
        (self.colliders[a as usize], self.colliders[b as usize])
    }
    #[inline]
    fn kinds(&self, i: usize) -> (ShapeKind, ShapeKind) {
        let (a, b) = self.pairs[i];
        (self.colliders[a as usize].kind(), self.colliders[b as usize].kind())
    }
    fn hulls(&self) -> &[ConvexHull] {
        self.hulls
    }
    #[inline(always)]
    fn canonical<A: ColliderShape, B: ColliderShape>(&self, i: usize) -> (&A, &B, bool) {
        let (i0, i1) = self.pairs[i];
        canonical_shapes(&self.colliders[i0 as usize], &self.colliders[i1 as usize])
    }
}

/// What every bucket needs to see.
struct Job<'a, S> {
    src: &'a S,
    margin: f32,
    /// The instruction-set path, read on the calling thread ([`simd::current`]).
    isa: Isa,
}

/// Bundles packed, tested and written back at a time by [`run_task`]: small
/// enough to live on the stack and in L1 (8 box–box bundles of 16 lanes are
/// 15 KiB of shapes and 10 KiB of manifolds), large enough for box–box's
/// batched tester to compact lanes across bundles.
const BLOCK_BUNDLES: usize = 8;

/// Bytes of [`BlockScratch`]: a block's A and B bundles and manifolds at 16
/// lanes of `f32`, with the box (the largest packed shape) on both sides.
const SCRATCH_BYTES: usize =
    BLOCK_BUNDLES * 16 * (2 * core::mem::size_of::<Obb>() + core::mem::size_of::<Manifold>());
const _: () = assert!(
    core::mem::size_of::<Sphere>() <= core::mem::size_of::<Obb>()
        && core::mem::size_of::<Capsule>() <= core::mem::size_of::<Obb>()
        && core::mem::size_of::<Triangle>() <= core::mem::size_of::<Obb>()
);

/// One range's room for a block's bundles ([`run_task`] views it as the
/// bucket's lane types), aligned for every lane type.
#[repr(C, align(64))]
struct BlockScratch([u8; SCRATCH_BYTES]);

/// Tests the pairs `task` (indices into `job.src`, all of `T`'s type in
/// either order) in bundles of `L::WIDTH` and writes their manifolds, in task
/// order, to `out` (`out.len() == task.len()`).
///
/// A block of [`BLOCK_BUNDLES`] bundles at a time: each SoA bundle is
/// packed in place (in the range's [`BlockScratch`], reused from bucket to
/// bucket, no allocation) from its pairs' shapes read where they are, a
/// whole shape per lane ([`LanePod::lanes_from_rows`]: transposes in
/// registers on the AVX paths), tested, swapped pairs converted in lanes,
/// and the manifolds go straight from the SoA bundle to `out`: the
/// pipeline's own cost per pair is one pair fetch, its share of two
/// transposes and the manifold's words stored in its slot
/// ([`TaskOut::write_lanes`]; simd-notes, "Contact pipeline").
///
/// The whole task runs inside one dispatched entry ([`BucketTask`]): the
/// packing and the slot writes get the path's instructions too, not only
/// the tester (on a plain x86-64 build they otherwise run as SSE2 copies).
fn run_task<T: ContactTester, L: LanePod, S: PairSource>(
    job: &Job<'_, S>,
    task: &[u32],
    out: &mut TaskOut<'_>,
    scratch: &mut BlockScratch,
) {
    let body = BucketTask::<T, L, S> { job, task, out, scratch, lanes: core::marker::PhantomData };
    simd::dispatch_width::<L, _>(job.isa, body)
}

/// [`run_task`]'s body as a [`WidthFn`].
struct BucketTask<'a, 'o, T, L, S> {
    job: &'a Job<'a, S>,
    task: &'a [u32],
    out: &'a mut TaskOut<'o>,
    scratch: &'a mut BlockScratch,
    lanes: core::marker::PhantomData<(T, L)>,
}

impl<T: ContactTester, L: LanePod, S: PairSource> WidthFn<L> for BucketTask<'_, '_, T, L, S> {
    type Out = ();
    #[inline(always)]
    fn call<M: LanePod>(self) {
        run_bucket::<T, M, S>(self.job, self.task, self.out, self.scratch)
    }
}

/// [`run_task`] at the dispatched lane type `M`.
#[inline(always)]
fn run_bucket<T: ContactTester, M: LanePod, S: PairSource>(
    job: &Job<'_, S>,
    task: &[u32],
    out: &mut TaskOut<'_>,
    scratch: &mut BlockScratch,
) {
    use core::mem::size_of;
    let w = M::WIDTH;
    let (pa, rest) =
        scratch.0.split_at_mut(BLOCK_BUNDLES * size_of::<<T::A as Packable>::Lanes<M>>());
    let (pb, rest) = rest.split_at_mut(BLOCK_BUNDLES * size_of::<<T::B as Packable>::Lanes<M>>());
    let m = &mut rest[..BLOCK_BUNDLES * size_of::<Manifold<M>>()];
    let pa: &mut [<T::A as Packable>::Lanes<M>] = bytemuck::cast_slice_mut(pa);
    let pb: &mut [<T::B as Packable>::Lanes<M>] = bytemuck::cast_slice_mut(pb);
    let m: &mut [Manifold<M>] = bytemuck::cast_slice_mut(m);
    // 1.0 where the pair was given in the other order, read as lanes of `M`
    // (at most 16: f32x16)
    let mut swapped = [0f32; 16 * BLOCK_BUNDLES];
    // the lanes of a partial bundle past its pairs
    let (pad_a, pad_b) = (<T::A as Packable>::PADDING, <T::B as Packable>::PADDING);
    let margin = M::splat(job.margin);
    // a staged tester: bundles with at least half their lanes in contact
    // are tested in place, the others' contacting lanes in `stage`
    let in_place = (w as u32).div_ceil(2);
    let mut stage = Stage::<T, M>::new();
    for block in task.chunks(w * BLOCK_BUNDLES) {
        let nb = block.len().div_ceil(w);
        for (c, bundle) in block.chunks(w).enumerate() {
            // each bundle from its pairs' shapes read in place, a whole shape
            // per lane (`LanePod::lanes_from_rows`)
            let (mut ra, mut rb) = ([&pad_a; 16], [&pad_b; 16]);
            for (j, &pi) in bundle.iter().enumerate() {
                let (a, b, swap) = job.src.canonical::<T::A, T::B>(pi as usize);
                (ra[j], rb[j]) = (a, b);
                swapped[c * w + j] = if swap { 1.0 } else { 0.0 };
            }
            M::lanes_from_rows(
                bytemuck::cast_slice_mut(core::slice::from_mut(&mut pa[c])),
                &ra[..w],
            );
            M::lanes_from_rows(
                bytemuck::cast_slice_mut(core::slice::from_mut(&mut pb[c])),
                &rb[..w],
            );
        }
        if T::STAGED {
            for (c, pis) in block.chunks(w).enumerate() {
                let swap = M::load(&swapped[c * w..]).gt(M::splat(0.0));
                let touch = match T::test_or_lanes::<M>(&pa[c], &pb[c], margin, in_place) {
                    Ok(m) => {
                        out.write_lanes(&swap_roles_lanes(&m, swap), pis);
                        continue;
                    }
                    Err(touch) => touch,
                };
                // every slot empty; the contacting ones are written again
                // when their stage runs
                out.write_lanes(&Manifold::<M>::empty(), pis);
                let mut bits = touch.bits() & ((1u64 << pis.len()) - 1);
                while bits != 0 {
                    let j = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    copy_lane::<M, _>(&mut stage.a, stage.n, &pa[c], j);
                    copy_lane::<M, _>(&mut stage.b, stage.n, &pb[c], j);
                    stage.pairs[stage.n] = pis[j];
                    stage.swapped[stage.n] = swapped[c * w + j];
                    stage.n += 1;
                    if stage.n == w {
                        stage.run(margin, out);
                    }
                }
            }
            continue;
        }
        // the block at once (a batched tester compacts across bundles)
        T::test_slice::<M>(&pa[..nb], &pb[..nb], margin, &mut m[..nb]);
        for (c, block) in block.chunks(w).enumerate() {
            let swap = M::load(&swapped[c * w..]).gt(M::splat(0.0));
            out.write_lanes(&swap_roles_lanes(&m[c], swap), block);
        }
    }
    if T::STAGED {
        stage.run(margin, out);
    }
}

/// A staged tester's contacting lanes from sparse bundles of one bucket
/// ([`ContactTester::test_or_lanes`]), gathered into one dense bundle: the
/// shapes in lanes `0..n`, each lane's pair and whether it was swapped.
/// Lanes past `n` hold zeros or stale pairs (a tester never fails on any
/// input, and their results are not written).
struct Stage<T: ContactTester, M: LanePod> {
    a: <T::A as Packable>::Lanes<M>,
    b: <T::B as Packable>::Lanes<M>,
    pairs: [u32; 16],
    swapped: [f32; 16],
    n: usize,
}

impl<T: ContactTester, M: LanePod> Stage<T, M> {
    #[inline(always)]
    fn new() -> Self {
        Stage {
            a: bytemuck::Zeroable::zeroed(),
            b: bytemuck::Zeroable::zeroed(),
            pairs: [0; 16],
            swapped: [0.0; 16],
            n: 0,
        }
    }

    /// Tests the staged lanes and writes their manifolds to their pairs'
    /// slots.
    #[inline(always)]
    fn run(&mut self, margin: M, out: &mut TaskOut<'_>) {
        if self.n == 0 {
            return;
        }
        let m = T::test::<M>(&self.a, &self.b, margin);
        let swap = M::load(&self.swapped[..M::WIDTH]).gt(M::splat(0.0));
        out.write_lanes(&swap_roles_lanes(&m, swap), &self.pairs[..self.n]);
        self.n = 0;
    }
}

/// The pairs `task` of `job.src` that hold a hull, by the scalar hull
/// testers ([`hull_partner`], the hull as A; a pair given with the hull
/// second is swapped back by [`swap_roles`]), in task order.
fn run_hull_task<S: PairSource>(job: &Job<'_, S>, task: &[u32], out: &mut TaskOut<'_>) {
    let hulls = job.src.hulls();
    for &pi in task {
        let (c0, c1) = job.src.pair(pi as usize);
        let m = match (c0, c1) {
            (Collider::Hull(h), other) => hull_against(hulls, &h, &other, job.margin),
            (other, Collider::Hull(h)) => swap_roles(&hull_against(hulls, &h, &other, job.margin)),
            _ => Manifold::EMPTY,
        };
        out.write(pi, m);
    }
}

/// The manifold of hull `h` (A) against `other` (B); empty for an index past
/// the table.
fn hull_against(hulls: &[ConvexHull], h: &HullCollider, other: &Collider, margin: f32) -> Manifold {
    let Some(a) = h.placed(hulls) else { return Manifold::EMPTY };
    let b = match *other {
        Collider::Sphere(s) => HullPartner::Sphere(s),
        Collider::Capsule(c) => HullPartner::Capsule(c),
        Collider::Box(o) => HullPartner::Box(o),
        Collider::Triangle(t) => HullPartner::Triangle(t),
        Collider::Hull(g) => match g.placed(hulls) {
            Some(p) => HullPartner::Hull(p),
            None => return Manifold::EMPTY,
        },
    };
    hull_partner(&a, &b, margin)
}

/// One manifold per pair of `pairs` (indices into `colliders`), in input
/// order, with speculative `margin`, at the widest lanes (`f32x16`) over
/// rayon. See the [module docs](self) and the [conventions](super): the
/// normal points from `colliders[pair.0]` to `colliders[pair.1]`.
///
/// Pair types without a tester (only triangle–triangle) get
/// [`Manifold::EMPTY`]. Panics if a pair indexes past `colliders`.
///
/// ```
/// use widephase::contact::{contacts, Collider};
/// use widephase::{Sphere, Triangle, Vec3};
/// let ground = Triangle::new(Vec3::new(-4.0, 0.0, -4.0), Vec3::new(0.0, 0.0, 4.0), Vec3::new(4.0, 0.0, -4.0));
/// let bodies = [
///     Collider::Triangle(ground),
///     Collider::Sphere(Sphere::new(Vec3::new(0.0, 0.9, 0.0), 1.0)),
/// ];
/// // (triangle, sphere): tested as sphere–triangle, returned for the given order
/// let m = contacts(&bodies, &[(0, 1)], 0.0);
/// assert_eq!((m[0].count, m[0].normal, m[0].points[0].depth), (1.0, Vec3::Y, 0.100000024));
/// ```
pub fn contacts(colliders: &[Collider], pairs: &[(u32, u32)], margin: f32) -> Vec<Manifold> {
    contacts_with::<f32x16>(colliders, pairs, margin)
}

/// [`contacts`] with [`Collider::Hull`]s indexing `hulls` (a hull pair is
/// tested by [`hull_partner`], the hull as A; hull–hull keeps the given
/// order). Without a table ([`contacts`]) every hull pair is empty.
pub fn contacts_with_hulls(
    colliders: &[Collider],
    hulls: &[ConvexHull],
    pairs: &[(u32, u32)],
    margin: f32,
) -> Vec<Manifold> {
    contacts_with_hulls_at::<f32x16>(colliders, hulls, pairs, margin)
}

/// [`contacts`] at lane width `L` (every width gives the same manifolds).
pub fn contacts_with<L: LanePod>(
    colliders: &[Collider],
    pairs: &[(u32, u32)],
    margin: f32,
) -> Vec<Manifold> {
    contacts_with_hulls_at::<L>(colliders, &[], pairs, margin)
}

/// [`contacts_with_hulls`] at lane width `L`.
pub fn contacts_with_hulls_at<L: LanePod>(
    colliders: &[Collider],
    hulls: &[ConvexHull],
    pairs: &[(u32, u32)],
    margin: f32,
) -> Vec<Manifold> {
    let n = colliders.len();
    for (i, &(a, b)) in pairs.iter().enumerate() {
        assert!(
            (a as usize) < n && (b as usize) < n,
            "pair {i} = ({a}, {b}) indexes past the {n} colliders"
        );
    }
    run_pairs::<L, _>(&IndexPairs { colliders, hulls, pairs }, margin)
}

/// The manifolds of one task's range of pairs while it runs: pair `pi`
/// (an index into the whole batch) goes to `out[pi - base]`.
struct TaskOut<'a> {
    out: &'a mut [MaybeUninit<Manifold>],
    base: usize,
}

impl TaskOut<'_> {
    /// Writes the manifold of pair `pi` (inside the task's range).
    #[inline(always)]
    fn write(&mut self, pi: u32, m: Manifold) {
        self.out[pi as usize - self.base] = MaybeUninit::new(m);
    }

    /// Writes lane `j` of the bundle `m` as the manifold of pair `pis[j]`
    /// (inside the task's range), for every lane `j < pis.len()`.
    ///
    /// Every slot is first stored as one whole [`Manifold::EMPTY`]. Most
    /// candidate pairs of a frame do not touch, and a lane without contact
    /// is all zero bits (the testers' `EMPTY`): those lanes, found by OR-ing
    /// the bundle's rows in lanes, are done. A lane with contacts then has
    /// its normal, count and its `count` points stored word by word (the
    /// points past `count` are zero in the testers' output too): most such
    /// manifolds have one point, 9 of the 24 words (simd-notes, "Contact
    /// pipeline"). Word by word, in their slots: lanes extracted into a
    /// buffer first were read back by wide loads right after their narrow
    /// stores (a store-forwarding stall per manifold).
    #[inline(always)]
    fn write_lanes<L: LanePod>(&mut self, m: &Manifold<L>, pis: &[u32]) {
        const FIELDS: usize = core::mem::size_of::<Manifold>() / 4;
        let (w, n) = (L::WIDTH, pis.len().min(L::WIDTH));
        let mut slot = [0usize; 16];
        for (s, &pi) in slot.iter_mut().zip(&pis[..n]) {
            *s = pi as usize - self.base;
            assert!(*s < self.out.len(), "pair inside the task's range");
        }
        let src: &[f32] = bytemuck::cast_slice(core::slice::from_ref(m));
        // field-major lanes: `FIELDS` rows of `w`, so the rows below write
        // every word of each slot and no word past it
        assert_eq!(src.len(), FIELDS * w, "field-major manifold lanes");
        // the rows ORed as lanes (a loop over the words of each lane was
        // vectorized across the rows, as gathers)
        let mut any = L::splat(0.0);
        for &row in bytemuck::cast_slice::<Manifold<L>, L>(core::slice::from_ref(m)) {
            any = any.or_bits(row);
        }
        let mut bits = [0f32; 16];
        any.store(&mut bits);
        let bits = bits.map(f32::to_bits);
        let dst = self.out.as_mut_ptr().cast::<f32>();
        // the normal's three words and the count, then each point's five
        const HEAD: usize = 4;
        const COUNT_ROW: usize = HEAD - 1;
        const POINT: usize = core::mem::size_of::<ContactPoint>() / 4;
        const _: () = assert!(HEAD + POINT * MAX_CONTACTS == FIELDS);
        for (j, &s) in slot[..n].iter().enumerate() {
            // (the points past `count` are zero: `Manifold::points` docs)
            self.out[s] = MaybeUninit::new(Manifold::EMPTY);
            if bits[j] == 0 {
                continue;
            }
            // (a saturating cast: a count outside 0..=4 is not a tester's)
            let count = (src[COUNT_ROW * w + j] as usize).min(MAX_CONTACTS);
            for (f, row) in src.chunks_exact(w).take(HEAD + POINT * count).enumerate() {
                // SAFETY: `s < self.out.len()` and `f < FIELDS` (both
                // asserted above), so the word is inside slot `s`; a
                // `Manifold` is `repr(C)` words (`Pod`), any of which may
                // be written as an `f32`.
                #[allow(unsafe_code)]
                unsafe {
                    dst.add(s * FIELDS + f).write(row[j])
                };
            }
        }
    }
}

/// The pipeline proper: one manifold per pair of `src`, in its order.
///
/// ```text
/// tasks:    contiguous ranges of the batch (one per thread, within
///           MIN/MAX_PAIRS_PER_RANGE pairs), in parallel; each
/// bucket:   counting-sorts its pair indices by canonical kind pair,
/// test:     runs every bucket in bundles (`run_task`), and writes the
///           manifolds into its own range of the output
/// ```
///
/// Every manifold depends only on its own pair, so the output does not
/// depend on the thread count or the task cut. Why ranges and not global
/// buckets (simd-notes, "Contact pipeline"): a serial sort of the whole
/// batch, and on two threads either a gather of what the other core had
/// written or writes of both cores into the same output lines, kept two
/// threads at 1.3–1.4× one.
pub(super) fn run_pairs<L: LanePod, S: PairSource>(src: &S, margin: f32) -> Vec<Manifold> {
    let n = src.len();
    let job = Job { src, margin, isa: simd::current() };
    let per =
        n.div_ceil(rayon::current_num_threads()).clamp(MIN_PAIRS_PER_RANGE, MAX_PAIRS_PER_RANGE);
    let mut out = Vec::with_capacity(n);
    out.spare_capacity_mut()[..n]
        .par_chunks_mut(per)
        .enumerate()
        .for_each(|(t, out)| run_range::<L, S>(&job, &mut TaskOut { out, base: t * per }));
    // SAFETY: the chunks cover the `n` slots and `run_range` writes every
    // slot of its chunk (each pair of the range is in exactly one bucket,
    // and every bucket's task writes each of its pairs); a task that panics
    // never gets here.
    #[allow(unsafe_code)]
    unsafe {
        out.set_len(n)
    };
    out
}

/// The pairs `out.base..out.base + out.out.len()` of `job.src`: bucketed by
/// canonical kind pair (a counting sort on the stack), each bucket tested by
/// [`dispatch`].
fn run_range<L: LanePod, S: PairSource>(job: &Job<'_, S>, out: &mut TaskOut<'_>) {
    const NK: usize = ShapeKind::COUNT * ShapeKind::COUNT;
    const KINDS: [ShapeKind; ShapeKind::COUNT] = [
        ShapeKind::Sphere,
        ShapeKind::Capsule,
        ShapeKind::Box,
        ShapeKind::Triangle,
        ShapeKind::Hull,
    ];
    // The range is walked as four quarters side by side, each with its own
    // counts and cursors: one counter per bucket, incremented by consecutive
    // pairs of one type (a one-type batch, or a run in the broad phase's
    // output), was a chain of store-to-load forwards, twice per pair. The
    // order is a single pass's (a bucket holds quarter 0's pairs, then
    // quarter 1's, ...): the same bundles, and slots written in ascending
    // order. The last quarter's missing pairs have the key `NK`, a bucket
    // past the others that is never run.
    const WAYS: usize = 4;
    const KEYS: usize = MAX_PAIRS_PER_RANGE + WAYS;
    let (base, len) = (out.base, out.out.len());
    let quarter = len.div_ceil(WAYS);
    let mut key = [NK as u8; KEYS];
    let mut count = [[0u32; NK + 1]; WAYS];
    for i in 0..quarter {
        for (w, count) in count.iter_mut().enumerate() {
            let p = w * quarter + i;
            if p < len {
                let (ka, kb) = job.src.kinds(base + p);
                let (lo, hi) = if ka <= kb { (ka, kb) } else { (kb, ka) };
                key[p] = (lo as usize * ShapeKind::COUNT + hi as usize) as u8;
            }
            count[key[p] as usize] += 1;
        }
    }
    let mut start = [0usize; NK + 2];
    let mut next = [[0u32; NK + 1]; WAYS];
    for k in 0..=NK {
        let mut at = start[k] as u32;
        for (next, count) in next.iter_mut().zip(&count) {
            next[k] = at;
            at += count[k];
        }
        start[k + 1] = at as usize;
    }
    let mut order = [0u32; KEYS];
    // zeroed once per range, not once per bucket (a 27 KiB fill each)
    let mut scratch = BlockScratch([0; SCRATCH_BYTES]);
    for i in 0..quarter {
        for (w, next) in next.iter_mut().enumerate() {
            let p = w * quarter + i;
            let at = &mut next[key[p] as usize];
            order[*at as usize] = (base + p) as u32;
            *at += 1;
        }
    }
    for k in (0..NK).filter(|&k| start[k + 1] > start[k]) {
        let (ka, kb) = (KINDS[k / ShapeKind::COUNT], KINDS[k % ShapeKind::COUNT]);
        dispatch::<L, S>(ka, kb, job, &order[start[k]..start[k + 1]], out, &mut scratch);
    }
}

/// `out[c] = T(as_[c], bs[c])` for every bundle `c` of two equal-length packs
/// (the kernel loop of the benches: no bucketing, manifolds stay SoA).
/// Panics if the packs differ in length.
pub fn test_packs<T: ContactTester, L: LanePod>(
    as_: &Pack<T::A, L>,
    bs: &Pack<T::B, L>,
    margin: f32,
    out: &mut Vec<Manifold<L>>,
) {
    assert_eq!(as_.len(), bs.len(), "test_packs needs packs of equal length");
    // every slot is overwritten: resize only when the length changes
    if out.len() != as_.chunks().len() {
        out.clear();
        out.resize(as_.chunks().len(), Manifold::empty());
    }
    SliceTask::<T, L> { a: as_.chunks(), b: bs.chunks(), margin, out }.run(simd::current());
}

/// [`test_packs`] over rayon, [`PAIRS_PER_TASK`] pairs per task.
pub fn par_test_packs<T: ContactTester, L: LanePod>(
    as_: &Pack<T::A, L>,
    bs: &Pack<T::B, L>,
    margin: f32,
    out: &mut Vec<Manifold<L>>,
) {
    assert_eq!(as_.len(), bs.len(), "test_packs needs packs of equal length");
    let per = (PAIRS_PER_TASK / L::WIDTH).max(1);
    let isa = simd::current();
    // every slot is overwritten: resize only when the length changes
    if out.len() != as_.chunks().len() {
        out.clear();
        out.resize(as_.chunks().len(), Manifold::empty());
    }
    out.par_chunks_mut(per)
        .zip(as_.chunks().par_chunks(per).zip(bs.chunks().par_chunks(per)))
        .for_each(|(out, (a, b))| SliceTask::<T, L> { a, b, margin, out }.run(isa));
}

/// [`ContactTester::test_slice`] as a body dispatched to the instruction-set
/// path `isa` ([`crate::simd`]).
struct SliceTask<'a, T: ContactTester, L: LanePod> {
    a: &'a [<T::A as Packable>::Lanes<L>],
    b: &'a [<T::B as Packable>::Lanes<L>],
    margin: f32,
    out: &'a mut [Manifold<L>],
}

impl<T: ContactTester, L: LanePod> SliceTask<'_, T, L> {
    fn run(self, isa: Isa) {
        simd::dispatch_width::<L, _>(isa, self)
    }
}

impl<T: ContactTester, L: LanePod> WidthFn<L> for SliceTask<'_, T, L> {
    type Out = ();
    #[inline(always)]
    fn call<M: LanePod>(self) {
        let a = recast::<T::A, L, M>(self.a);
        let b = recast::<T::B, L, M>(self.b);
        let out = recast_mut::<Manifold, L, M>(self.out);
        T::test_slice::<M>(a, b, M::splat(self.margin), out);
    }
}

/// Number of pairs with a contact in the output of [`test_packs`] (the first
/// `len` lanes).
pub fn count_contacts<L: LanePod>(out: &[Manifold<L>], len: usize) -> usize {
    let mut n = 0;
    for (c, m) in out.iter().enumerate() {
        for j in 0..L::WIDTH {
            if c * L::WIDTH + j < len && m.count.lane(j) > 0.0 {
                n += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::{extract, transpose};
    use wide::{f32x16, f32x4, f32x8};

    /// The one-pair rule written out: the normal flips and the points below
    /// `count as usize` move by `depth·normal`, only when there is one.
    fn swap_reference(m: &Manifold) -> Manifold {
        let mut r = *m;
        let n = (m.count as usize).min(r.points.len());
        if n > 0 {
            r.normal = Vec3::ZERO - m.normal;
            for p in &mut r.points[..n] {
                p.position += m.normal * p.depth;
            }
        }
        r
    }

    fn bits(m: &Manifold) -> Vec<u32> {
        bytemuck::cast_slice::<Manifold, u32>(core::slice::from_ref(m)).to_vec()
    }

    /// Every count a caller can hand in (fractional, negative, NaN, past
    /// four) with non-zero words beyond it, in every lane of 4-, 8- and
    /// 16-lane bundles with random lanes swapped: each lane equals the rule
    /// above (or stays unchanged when not swapped), and `swap_roles` too.
    #[test]
    fn swap_roles_lanes_equal_the_one_pair_rule() {
        fn check<L: LanePod>(rng: &mut fastrand::Rng) {
            let counts = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 7.0, -1.0, f32::NAN, f32::INFINITY];
            for round in 0..200 {
                let lanes: Vec<Manifold> = (0..L::WIDTH)
                    .map(|_| {
                        let mut m = Manifold::EMPTY;
                        m.count = counts[rng.usize(..counts.len())];
                        m.normal = Vec3::new(rng.f32() - 0.5, -0.0, rng.f32() - 0.5);
                        for p in &mut m.points {
                            p.position = Vec3::new(rng.f32(), rng.f32() * 1e3, -rng.f32());
                            p.depth = rng.f32() - 0.25;
                            p.feature_id = rng.u32(..100) as f32;
                        }
                        m
                    })
                    .collect();
                let mut flags = [0f32; 16];
                flags[..L::WIDTH].iter_mut().for_each(|f| *f = rng.bool() as u8 as f32);
                let bundle: Manifold<L> = transpose::<Manifold, L>(&lanes);
                let got = swap_roles_lanes(&bundle, L::load(&flags).gt(L::splat(0.0)));
                for (j, m) in lanes.iter().enumerate() {
                    let want = if flags[j] > 0.0 { swap_reference(m) } else { *m };
                    let what = format!("x{} round {round} lane {j}", L::WIDTH);
                    assert_eq!(bits(&extract::<Manifold, L>(&got, j)), bits(&want), "{what}");
                    assert_eq!(bits(&swap_roles(m)), bits(&swap_reference(m)), "{what}");
                }
            }
        }
        let mut rng = fastrand::Rng::with_seed(5);
        check::<f32x4>(&mut rng);
        check::<f32x8>(&mut rng);
        check::<f32x16>(&mut rng);
    }
}
