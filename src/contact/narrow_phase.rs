//! Persistent manifolds: a [`NarrowPhase`] keeps each pair's manifold from
//! frame to frame, so a solver can warm-start its impulses, and skips the
//! testers for pairs that did not move.
//!
//! ```text
//! update(colliders, pairs)        pairs: sorted (i, j), i < j (BroadPhase::pairs)
//!   for each pair, merged with last frame's sorted pairs:
//!     kept from last frame, and both colliders bit-identical to those its
//!     manifold was computed from, or the manifold non-empty (or empty and
//!     separated by more than margin + bound) and both colliders within the
//!     reuse bound of them
//!         -> reuse the cached manifold (no tester call)
//!     else -> recompute (the pipeline, `contacts_with::<L>`, on these pairs;
//!             those without contact again at margin + bound: "separated")
//!   per point: Kept (with its index in last frame's manifold of the pair)
//!              when last frame's manifold had a point of the same feature id,
//!              else New;   gone: last frame's points whose id is not there
//! ```
//!
//! Bepu keys warm starting by feature ids the same way, Jolt caches manifolds
//! by body pair, and Box2D v3 skips the collide of pairs whose relative
//! motion is small.
//!
//! # Cost
//! Bodies are compared once per frame each (not once per pair) and stamped
//! with the frame they last changed; a pair remembers the frame its
//! colliders were last found identical to those of its manifold, so a pair
//! of unchanged bodies is decided by two loads. An unchanged pair list is
//! updated in place. A frame in which nothing moved costs about 4 ns per
//! pair (`widephase bench`, row `contact_persistent_rest`). A caller that
//! knows which bodies it moved (a physics engine's awake set) passes them to
//! [`NarrowPhase::update_moved`], and the other bodies are not read at all
//! (row `contact_persistent_moved`).
//!
//! # The reuse bound
//! For a collider, the **displacement** `δ` from the pose its cached
//! manifold was computed at is an upper bound of how far any point of the
//! shape moved (computed in f64 and rounded up):
//! sphere `|Δc|`; capsule `max(|Δa|, |Δb|)` (every point of the segment is
//! an affine mix of its ends); box `|Δc| + Σ hᵢ·|Δaxisᵢ|`; triangle
//! `max(|Δa|, |Δb|, |Δc|)`; hull `|Δc| + Σ rᵢ·|Δaxisᵢ|` with `rᵢ` the
//! largest `|coordinate i|` of its local bounding box (every vertex, hence
//! every point, within it), the same table index and local box required —
//! the hull table itself must not change under an index between frames (its
//! shape is not compared). A radius or half extent that changed, a
//! different kind or a non-finite coordinate means "moved" (recompute).
//!
//! A pair's cached manifold is reused when both colliders are bit-identical
//! to those it was computed from (a body at rest: any manifold, empty or
//! not), or when `δ_A + δ_B <= reuse_distance`
//! ([`NarrowPhase::with_reuse_distance`], default `0`) and the manifold is
//! non-empty or **separated**: when a recomputed pair has no contact and its
//! bodies moved at most the bound since its last computation (a kept pair
//! the bound would have let reuse; not a new pair, nor one moving faster),
//! it is run through the testers a second time at `margin + reuse_distance`
//! (rounded up), and it is separated when that finds no contact either. A
//! triangle is one-sided, so a pair with one is also tested with the
//! triangle's winding reversed; two triangles are never separated.
//! `δ` is measured from the poses at the **last computation**, not from the
//! previous frame, so reuse never drifts further than the bound.
//!
//! What it guarantees:
//! - a bit-identical pair reuses exactly the manifold the testers would give
//!   (they are deterministic), and every recomputed pair gets exactly the
//!   manifold of [`contacts`](super::contacts): with `reuse_distance = 0`
//!   the output equals a non-persistent run bit for bit;
//! - for a reused point, the two material points it pairs (on B:
//!   `position`, on A: `position + depth·normal`) each moved at most `δ_B`,
//!   `δ_A`, so their current separation along the kept normal differs from
//!   `-depth` by at most `δ_A + δ_B`: a solver sees an error of at most the
//!   bound in penetration, as if the margin were that much off;
//! - an empty manifold is reused for moved colliders only when separated:
//!   the pair was farther apart than `margin + reuse_distance` (as the
//!   testers decide presence: exactly up to their band, the conservative box
//!   testers never closer), and the distance of two shapes whose points
//!   moved at most `δ_A`, `δ_B` changes by at most `δ_A + δ_B`, so it is
//!   still beyond `margin`: no pair within `margin` is missed. The check
//!   costs one or two more tester calls for such a pair (none when the bound
//!   is 0, none for new pairs); a jittering pile then stops recomputing its
//!   near misses every frame. A pair whose check found contact (within
//!   `margin + reuse_distance` of the other shape, or on a triangle's other
//!   side) is not checked again while its bodies have moved at most
//!   `reuse_distance` in total since that check (the sum of `δ_A + δ_B` over
//!   its recomputations): a shape resting just behind a triangle would fail
//!   the check every frame. Skipping only withholds the mark, so such a pair
//!   is recomputed (exactly [`contacts`](super::contacts)); what it can cost
//!   is the reuse of a pair that moved out of the band within that motion.
//!
//! It does not bound the change of the *normal* or of the feature set a
//! fresh computation would choose (a box tipping over an edge switches face
//! within any bound); keep the bound small against the shapes' size.
//!
//! The displacement is absolute, not relative: two bodies moving together
//! are recomputed, since manifold points are world coordinates.

use super::hull::ConvexHull;
use super::pipeline::{contacts_with_hulls_at, ShapeKind};
use super::{Collider, Manifold, MAX_CONTACTS};
use crate::math::Vec3;
use crate::pack::LanePod;
use crate::shapes::Triangle;
use crate::simd::{self, Simd, SimdFn};
use wide::f32x16;

/// What happened to one contact point between two frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactChange {
    /// No point of this feature id in the pair's previous manifold (or the
    /// pair is new).
    New,
    /// The previous manifold of the pair had a point with the same feature
    /// id, at index `previous` (carry its impulse).
    Kept {
        /// Index of the matching point in the previous frame's manifold.
        previous: u8,
    },
}

/// A point of last frame's manifolds that is not in this frame's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoneContact {
    /// The body pair.
    pub pair: (u32, u32),
    /// The point's feature id.
    pub feature_id: f32,
}

/// Counters of the last [`NarrowPhase::update`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Pairs whose cached manifold was reused.
    pub reused: usize,
    /// Pairs run through the testers.
    pub recomputed: usize,
    /// Points matched to last frame's by feature id.
    pub kept: usize,
    /// Points without a match.
    pub new: usize,
    /// Last frame's points without a match.
    pub gone: usize,
    /// Recomputed pairs without contact tested again at `margin + d`: kept
    /// pairs whose bodies moved at most `d` (the separation check of the
    /// reuse rule, see the [module docs](self)).
    pub separation_tested: usize,
    /// Of those, the pairs still without contact (marked separated).
    pub separated: usize,
    /// Recomputed pairs without contact not tested again: their last check
    /// found contact and their bodies moved at most `d` in total since.
    pub separation_skipped: usize,
}

/// Persistent manifolds keyed by body pair and feature id (see the
/// [module docs](self)).
///
/// ```
/// use widephase::broad::BroadPhase;
/// use widephase::contact::narrow_phase::{ContactChange, NarrowPhase};
/// use widephase::contact::Collider;
/// use widephase::{Sphere, Vec3};
/// let mut bodies = vec![
///     Collider::Sphere(Sphere::new(Vec3::ZERO, 1.0)),
///     Collider::Sphere(Sphere::new(Vec3::new(1.9, 0.0, 0.0), 1.0)),
/// ];
/// let mut bp = BroadPhase::new();
/// let handles: Vec<_> = bodies.iter().map(|b| bp.insert(b.speculative_aabb(0.05))).collect();
/// let mut np = NarrowPhase::new(0.05).with_reuse_distance(1e-3);
/// np.update(&bodies, bp.pairs());
/// assert_eq!(np.changes(0)[0], ContactChange::New);
/// // a tiny move: the manifold is reused, its point kept
/// bodies[1] = Collider::Sphere(Sphere::new(Vec3::new(1.9001, 0.0, 0.0), 1.0));
/// bp.update(handles[1], bodies[1].speculative_aabb(0.05));
/// np.update(&bodies, bp.pairs());
/// assert_eq!(np.stats().reused, 1);
/// assert_eq!(np.changes(0)[0], ContactChange::Kept { previous: 0 });
/// ```
#[derive(Clone, Debug, Default)]
pub struct NarrowPhase {
    margin: f32,
    reuse_distance: f32,
    /// Number of [`update`](NarrowPhase::update) calls so far (the clock of
    /// `changed_at` and `checked_at`).
    frame: u64,
    /// Per body: its collider at the last update, and the frame its bits
    /// last differed from the update before (or it first appeared).
    seen: Vec<Collider>,
    changed_at: Vec<u64>,
    /// The bodies grouped by kind (index order within a kind), rebuilt when
    /// a kind or the body count changes: compared in this order, the
    /// comparison's branch on the kind follows long runs instead of a
    /// random mix (8.4 → 7.4 ns per pair of a resting frame).
    by_kind: Vec<u32>,
    /// This frame's pairs (sorted) and manifolds.
    pairs: Vec<(u32, u32)>,
    manifolds: Vec<Manifold>,
    /// Per pair: the colliders its manifold was computed from, and the last
    /// frame at which both bodies were seen bit-identical to them. A pair
    /// whose two bodies have not changed since that frame is still
    /// bit-identical (`changed_at <= checked_at`): the common case of a
    /// resting pile costs two loads, not two collider comparisons.
    computed_at: Vec<(Collider, Collider)>,
    checked_at: Vec<u64>,
    /// Per pair: its manifold may be reused for bodies that moved within
    /// the bound: it is non-empty, or it is empty and the separation check
    /// found no contact at `margin + reuse_distance` either (on both sides
    /// of a triangle) at the poses it was computed from (so it stays empty
    /// while the bodies move at most the bound in total). A flag beside the
    /// stamps, so deciding a moved pair does not load its manifold.
    distance_reusable: Vec<bool>,
    /// Per pair: when its last separation check found contact, the sum of
    /// its bodies' displacements (`δ_A + δ_B`) over its recomputations since
    /// that check; `∞` otherwise. The check is not repeated while the sum
    /// stays within the bound.
    unclear_moved: Vec<f64>,
    /// Per pair: the changes of its manifold matched against itself (what
    /// a reuse reports: a `Kept` per point), computed with the manifold, so
    /// a reused pair reports them ([`NarrowPhase::changes`] reads them in
    /// place) instead of matching ids again (the match's branches on point
    /// counts: 15 → 9.4 ns per pair of a resting frame).
    reuse_changes: Vec<[ContactChange; MAX_CONTACTS]>,
    /// Per pair: index in the previous frame's pairs; `previous_is_identity`
    /// when that is `Some(k)` for every pair `k` (an unchanged pair list),
    /// which then is not written again nor read per pair.
    previous: Vec<Option<u32>>,
    previous_is_identity: bool,
    /// Per pair: whether its manifold was reused this frame.
    reused: Vec<bool>,
    /// Per recomputed pair: its changes (a reused pair's are its
    /// `reuse_changes`, not copied here).
    changes: Vec<[ContactChange; MAX_CONTACTS]>,
    gone: Vec<GoneContact>,
    stats: FrameStats,
    /// Scratch: pairs to recompute, their positions and their previous
    /// manifolds (`None`: a new pair).
    todo: Vec<(u32, u32)>,
    todo_at: Vec<u32>,
    todo_old: Vec<Option<Manifold>>,
    /// Per queued pair: `δ_A + δ_B` since its computation when it is kept
    /// from last frame and that is at most the bound (an empty manifold that
    /// was not separated: the pairs the separation check runs on), else `∞`
    /// (a new pair, or one moving faster).
    todo_moved: Vec<f64>,
    /// Scratch of `decide`: the new pairs and the kept pairs with a changed
    /// body (in pair order), and the latter's order grouped by kind.
    checks: Vec<Check>,
    check_order: Vec<u32>,
    /// The previous frame's per-pair arrays while a changed pair list is
    /// merged (kept to reuse their allocations).
    old_pairs: Vec<(u32, u32)>,
    old_manifolds: Vec<Manifold>,
    old_at: Vec<(Collider, Collider)>,
    old_checked: Vec<u64>,
    old_distance_reusable: Vec<bool>,
    old_unclear_moved: Vec<f64>,
    old_reuse_changes: Vec<[ContactChange; MAX_CONTACTS]>,
}

impl NarrowPhase {
    /// An empty narrow phase with speculative `margin` (as in
    /// [`contacts`](super::contacts)) and reuse bound 0.
    pub fn new(margin: f32) -> Self {
        NarrowPhase { margin, ..Default::default() }
    }

    /// Reuse a pair's manifold while its colliders moved at most `d` in
    /// total since it was computed (see the [module docs](self)); a negative
    /// or NaN `d` means 0.
    pub fn with_reuse_distance(mut self, d: f32) -> Self {
        self.reuse_distance = if d > 0.0 { d } else { 0.0 };
        self
    }

    /// The reuse bound.
    pub fn reuse_distance(&self) -> f32 {
        self.reuse_distance
    }

    /// One frame at the widest lanes: manifolds of `pairs` (indices into
    /// `colliders`, sorted ascending, no repeats, as [`BroadPhase::pairs`]
    /// gives them), reusing last frame's where the bound allows.
    ///
    /// Panics if `pairs` is not strictly ascending or indexes past
    /// `colliders`.
    ///
    /// [`BroadPhase::pairs`]: crate::broad::BroadPhase::pairs
    pub fn update(&mut self, colliders: &[Collider], pairs: &[(u32, u32)]) {
        self.update_with::<f32x16>(colliders, pairs)
    }

    /// [`NarrowPhase::update`] at lane width `L` (same output at every
    /// width).
    pub fn update_with<L: LanePod>(&mut self, colliders: &[Collider], pairs: &[(u32, u32)]) {
        self.update_with_hulls_at::<L>(colliders, &[], pairs)
    }

    /// [`NarrowPhase::update`] with [`Collider::Hull`]s indexing `hulls`
    /// (see [`contacts_with_hulls`](super::pipeline::contacts_with_hulls)).
    /// The table must not change between frames under the same indices: a
    /// reused hull manifold is keyed by the index and pose only.
    pub fn update_with_hulls(
        &mut self,
        colliders: &[Collider],
        hulls: &[ConvexHull],
        pairs: &[(u32, u32)],
    ) {
        self.update_with_hulls_at::<f32x16>(colliders, hulls, pairs)
    }

    /// [`NarrowPhase::update_with_hulls`] at lane width `L`.
    ///
    /// A frame runs in three steps: each body is compared with the
    /// collider it had at the last update (once per body, not once per
    /// pair); when the pair list differs from last frame's, the per-pair
    /// arrays are merged into the new list (vanished pairs noted gone, new
    /// pairs empty); then every pair is decided in place: reused, or queued
    /// for the testers with its old manifold kept for the feature-id match.
    /// A resting pile, whose pair list does not change, copies no manifold
    /// and no collider.
    pub fn update_with_hulls_at<L: LanePod>(
        &mut self,
        colliders: &[Collider],
        hulls: &[ConvexHull],
        pairs: &[(u32, u32)],
    ) {
        self.frame_at::<L>(colliders, hulls, None, pairs)
    }

    /// [`NarrowPhase::update`] for a caller that knows which bodies it
    /// moved, as a physics engine does (its awake bodies): only the bodies
    /// listed in `moved` are compared with the collider they had at the last
    /// update, and every other body must be bit-identical to it. Comparing
    /// every body reads all colliders and their copies each frame, about a
    /// fifth of a frame in which a tenth of a pile moves (simd-notes,
    /// "Persistent manifolds"). The output is that of
    /// [`NarrowPhase::update`] on the same colliders whenever the contract
    /// holds; listing a body that did not change, or twice, is allowed.
    /// Bodies past the last update's count are new and need no listing.
    ///
    /// A changed body left out of `moved` is taken as unchanged: the
    /// manifolds of its pairs whose other body did not move either are
    /// reused as they were (debug builds assert the contract).
    ///
    /// Panics as [`NarrowPhase::update`], and if `moved` indexes past
    /// `colliders`.
    pub fn update_moved(&mut self, colliders: &[Collider], moved: &[u32], pairs: &[(u32, u32)]) {
        self.update_moved_with_hulls_at::<f32x16>(colliders, &[], moved, pairs)
    }

    /// [`NarrowPhase::update_moved`] with [`Collider::Hull`]s indexing
    /// `hulls`, at lane width `L` (see
    /// [`NarrowPhase::update_with_hulls_at`]).
    pub fn update_moved_with_hulls_at<L: LanePod>(
        &mut self,
        colliders: &[Collider],
        hulls: &[ConvexHull],
        moved: &[u32],
        pairs: &[(u32, u32)],
    ) {
        let n = colliders.len();
        if let Some(&i) = moved.iter().find(|&&i| i as usize >= n) {
            panic!("moved body {i} indexes past the {n} colliders");
        }
        self.frame_at::<L>(colliders, hulls, Some(moved), pairs)
    }

    /// One frame: `moved` lists the bodies to compare (`None`: every body).
    fn frame_at<L: LanePod>(
        &mut self,
        colliders: &[Collider],
        hulls: &[ConvexHull],
        moved: Option<&[u32]>,
        pairs: &[(u32, u32)],
    ) {
        // The per-body and per-pair loops around the testers are copies of
        // colliders and manifolds and word compares: each runs inside the
        // dispatched entry of the current path, as the kernels do, or a
        // plain x86-64 build would run them as SSE2 copies (simd-notes,
        // "Run-time SIMD dispatch").
        let isa = simd::current();
        let decide = FrameStep::Decide { np: self, colliders, moved, pairs };
        let mut stats = simd::dispatch(isa, decide);
        stats.recomputed = self.todo.len();
        let fresh = contacts_with_hulls_at::<L>(colliders, hulls, &self.todo, self.margin);
        let store = FrameStep::Store { np: self, colliders, pairs, fresh: &fresh, stats };
        self.stats = simd::dispatch(isa, store);
        self.test_separation::<L>(colliders, hulls, &fresh);
    }

    /// The separation check of the reuse rule: the recomputed pairs
    /// without contact whose bodies moved at most the bound (those the
    /// bound would have let reuse, had they been separated: not new pairs,
    /// nor pairs moving faster) are run through the testers again at
    /// `margin + reuse_distance` (rounded up), and those still without
    /// contact are marked separated (`distance_reusable`): their distance
    /// exceeded the margin by more than the bound, so the manifold stays
    /// empty while the bodies move less than the bound in total. A triangle
    /// is one-sided, so a pair with one is also tested with the triangle's
    /// winding reversed: no contact on either side means no contact for
    /// distance. Skipped when the bound is 0 or the widened margin is not
    /// finite, and for a pair whose last check found contact while its
    /// bodies have moved at most the bound in total since (`unclear_moved`):
    /// it would most likely find contact again, and not marking a pair only
    /// costs a recomputation.
    fn test_separation<L: LanePod>(
        &mut self,
        colliders: &[Collider],
        hulls: &[ConvexHull],
        fresh: &[Manifold],
    ) {
        let wide = widened_margin(self.margin, self.reuse_distance);
        let d = self.reuse_distance as f64;
        let (mut empty, mut at) = (Vec::new(), Vec::new());
        let queue = self.todo.iter().zip(&self.todo_at).zip(&self.todo_moved);
        for (m, ((&(a, b), &k), &moved)) in fresh.iter().zip(queue) {
            let pending = std::mem::replace(&mut self.unclear_moved[k as usize], f64::INFINITY);
            if wide.is_some()
                && moved.is_finite()
                && m.count == 0.0
                && separable(&colliders[a as usize], &colliders[b as usize])
            {
                if pending + moved <= d {
                    self.unclear_moved[k as usize] = pending + moved;
                    self.stats.separation_skipped += 1;
                } else {
                    empty.push((a, b));
                    at.push(k);
                }
            }
        }
        let Some(wide) = wide else { return };
        // Pairs with a triangle are tested first with the triangle reversed,
        // as their own colliders, pair `j` at `(2j, 2j + 1)`: a shape just
        // behind a triangle (no contact by the one-sided rule) has contact
        // there, and needs no second call. Then the pairs still clear as
        // they are. (Clear means no contact in both calls: the order only
        // saves calls.)
        let (mut reversed, mut reversed_of) = (Vec::new(), Vec::new());
        for (i, &(a, b)) in empty.iter().enumerate() {
            let (ca, cb) = (&colliders[a as usize], &colliders[b as usize]);
            if is_triangle(ca) || is_triangle(cb) {
                reversed.extend([reverse_triangle(ca), reverse_triangle(cb)]);
                reversed_of.push(i);
            }
        }
        let reversed_pairs: Vec<(u32, u32)> =
            (0..reversed_of.len() as u32).map(|j| (2 * j, 2 * j + 1)).collect();
        let back = contacts_with_hulls_at::<L>(&reversed, hulls, &reversed_pairs, wide);
        let mut clear = vec![true; empty.len()];
        for (m, &i) in back.iter().zip(&reversed_of) {
            clear[i] = m.count == 0.0;
        }
        let forward: Vec<(u32, u32)> =
            empty.iter().zip(&clear).filter(|(_, &c)| c).map(|(&p, _)| p).collect();
        let again = contacts_with_hulls_at::<L>(colliders, hulls, &forward, wide);
        for (c, m) in clear.iter_mut().filter(|c| **c).zip(&again) {
            *c = m.count == 0.0;
        }
        for (&clear, &k) in clear.iter().zip(&at) {
            self.distance_reusable[k as usize] = clear;
            self.unclear_moved[k as usize] = if clear { f64::INFINITY } else { 0.0 };
            self.stats.separated += clear as usize;
        }
        self.stats.separation_tested = empty.len();
    }

    /// The frame's steps before the testers: checks `pairs` (the panics of
    /// [`NarrowPhase::update`]), stamps changed bodies (of those in `moved`,
    /// or of all), aligns the per-pair arrays to `pairs` and decides every
    /// pair.
    #[inline(always)]
    fn begin_frame(
        &mut self,
        colliders: &[Collider],
        moved: Option<&[u32]>,
        pairs: &[(u32, u32)],
    ) -> FrameStats {
        check_pairs(pairs, colliders.len());
        self.frame += 1;
        self.note_changed_bodies(colliders, moved);
        self.gone.clear();
        if pairs == self.pairs.as_slice() {
            if !self.previous_is_identity {
                self.previous.clear();
                self.previous.extend((0..pairs.len() as u32).map(Some));
                self.previous_is_identity = true;
            }
        } else {
            self.align_to(pairs);
            self.previous_is_identity = false;
        }
        self.decide(colliders, pairs)
    }

    /// Stores the recomputed manifolds `fresh` (one per queued pair, in
    /// queue order) with their changes, and returns the frame's counters.
    #[inline(always)]
    fn store_fresh(
        &mut self,
        colliders: &[Collider],
        pairs: &[(u32, u32)],
        fresh: &[Manifold],
        mut stats: FrameStats,
    ) -> FrameStats {
        for (i, &m) in fresh.iter().enumerate() {
            let k = self.todo_at[i] as usize;
            let (a, b) = self.todo[i];
            let old = self.todo_old[i];
            let ch = match_features(&m, old.as_ref());
            let kept = ch[..m.count as usize].iter().filter(|c| **c != ContactChange::New).count();
            stats.kept += kept;
            stats.new += m.count as usize - kept;
            self.changes[k] = ch;
            if let Some(o) = &old {
                self.note_gone(pairs[k], o, Some(&m));
            }
            self.manifolds[k] = m;
            self.computed_at[k] = (colliders[a as usize], colliders[b as usize]);
            self.checked_at[k] = self.frame;
            self.distance_reusable[k] = m.count > 0.0;
            self.reuse_changes[k] = match_features(&m, Some(&m));
        }
        stats.gone = self.gone.len();
        stats
    }

    /// Reuses or queues every pair of the (aligned) list: a reused pair
    /// takes its stored changes, a queued one goes to `todo` with its old
    /// manifold. Returns the frame's counters so far.
    #[inline(always)]
    fn decide(&mut self, colliders: &[Collider], pairs: &[(u32, u32)]) -> FrameStats {
        let n = pairs.len();
        let Self {
            frame,
            reuse_distance,
            changed_at,
            manifolds,
            computed_at,
            checked_at,
            distance_reusable,
            reuse_changes,
            previous,
            previous_is_identity,
            reused,
            changes,
            todo,
            todo_at,
            todo_old,
            todo_moved,
            checks,
            check_order,
            ..
        } = self;
        // (every slot is written below: `reused` for every pair, `changes`
        // for every recomputed one when it is stored)
        reused.resize(n, false);
        changes.resize(n, [ContactChange::New; MAX_CONTACTS]);
        todo.clear();
        todo_at.clear();
        todo_old.clear();
        todo_moved.clear();
        // (slices of one length: the loop runs without bounds checks)
        let (manifolds, computed_at, checked_at) =
            (&manifolds[..n], &computed_at[..n], &mut checked_at[..n]);
        let (reuse_changes, previous) = (&reuse_changes[..n], &previous[..n]);
        let distance_reusable = &distance_reusable[..n];
        let mut stats = FrameStats::default();
        // Pairs of unchanged bodies are reused here; the others are listed
        // in pair order, new pairs to be queued and the pairs with a changed
        // body to be checked after the loop, grouped by kind (`check_moved`).
        checks.clear();
        for (k, &(a, b)) in pairs.iter().enumerate() {
            let (ca, cb) = (changed_at[a as usize], changed_at[b as usize]);
            let unchanged = (ca <= checked_at[k], cb <= checked_at[k]);
            if !*previous_is_identity && previous[k].is_none() {
                checks.push(Check {
                    pair: k as u32,
                    key: 0,
                    verdict: Check::NEW,
                    moved: f64::INFINITY,
                });
            } else if unchanged == (true, true) {
                reuse_pair(k, reused, reuse_changes, &mut stats);
            } else {
                let (then_a, then_b) = &computed_at[k];
                let kinds = then_a.kind() as usize * ShapeKind::COUNT + then_b.kind() as usize;
                let key = kinds as u8 * 4 + unchanged.0 as u8 * 2 + unchanged.1 as u8;
                checks.push(Check { pair: k as u32, key, verdict: 0, moved: f64::INFINITY });
            }
        }
        check_moved(
            checks,
            check_order,
            (colliders, pairs),
            (computed_at, distance_reusable),
            checked_at,
            (*frame, *reuse_distance),
        );
        for c in checks.iter() {
            let k = c.pair as usize;
            if c.verdict & Check::REUSE != 0 {
                reuse_pair(k, reused, reuse_changes, &mut stats);
            } else {
                let new = c.verdict & Check::NEW != 0;
                reused[k] = false;
                todo.push(pairs[k]);
                todo_at.push(k as u32);
                todo_old.push(if new { None } else { Some(manifolds[k]) });
                todo_moved.push(c.moved);
            }
        }
        stats
    }

    /// Stamps `changed_at` of every body (of those in `moved`, when given)
    /// whose collider is not bit-identical to the one it had at the last
    /// update (bodies past last frame's count are new).
    #[inline(always)]
    fn note_changed_bodies(&mut self, colliders: &[Collider], moved: Option<&[u32]>) {
        let (frame, n) = (self.frame, colliders.len());
        let mut regroup = n != self.seen.len();
        self.seen.truncate(n);
        self.changed_at.truncate(n);
        let (seen, changed_at) = (&mut self.seen[..], &mut self.changed_at[..]);
        match moved {
            None => {
                for &i in &self.by_kind {
                    regroup |= note_body(i as usize, colliders, seen, changed_at, frame);
                }
            }
            Some(moved) => {
                for &i in moved {
                    regroup |= note_body(i as usize, colliders, seen, changed_at, frame);
                }
                debug_assert!(
                    seen.iter().zip(colliders).all(|(s, c)| same_bits(s, c)),
                    "update_moved: body {} changed but is not listed in `moved`",
                    seen.iter().zip(colliders).position(|(s, c)| !same_bits(s, c)).unwrap_or(0)
                );
            }
        }
        let old = self.seen.len();
        self.seen.extend_from_slice(&colliders[old..]);
        self.changed_at.resize(n, frame);
        if regroup {
            self.by_kind.clear();
            self.by_kind.extend(0..n as u32);
            self.by_kind.sort_by_key(|&i| colliders[i as usize].kind() as u8);
        }
    }

    /// Rebuilds the per-pair arrays for a new pair list: a pair kept from
    /// last frame brings its manifold, colliders and check frame; a new one
    /// starts empty (it is recomputed); the points of vanished pairs are
    /// noted gone, in pair order.
    #[inline(always)]
    fn align_to(&mut self, pairs: &[(u32, u32)]) {
        std::mem::swap(&mut self.pairs, &mut self.old_pairs);
        std::mem::swap(&mut self.manifolds, &mut self.old_manifolds);
        std::mem::swap(&mut self.computed_at, &mut self.old_at);
        std::mem::swap(&mut self.checked_at, &mut self.old_checked);
        std::mem::swap(&mut self.distance_reusable, &mut self.old_distance_reusable);
        std::mem::swap(&mut self.unclear_moved, &mut self.old_unclear_moved);
        std::mem::swap(&mut self.reuse_changes, &mut self.old_reuse_changes);
        self.pairs.clear();
        self.pairs.extend_from_slice(pairs);
        self.manifolds.clear();
        self.computed_at.clear();
        self.checked_at.clear();
        self.distance_reusable.clear();
        self.unclear_moved.clear();
        self.reuse_changes.clear();
        self.previous.clear();
        let mut j = 0;
        let old = std::mem::take(&mut self.old_pairs);
        for &(a, b) in pairs {
            while j < old.len() && old[j] < (a, b) {
                let m = self.old_manifolds[j];
                self.note_gone(old[j], &m, None);
                j += 1;
            }
            if j < old.len() && old[j] == (a, b) {
                self.previous.push(Some(j as u32));
                self.manifolds.push(self.old_manifolds[j]);
                self.computed_at.push(self.old_at[j]);
                self.checked_at.push(self.old_checked[j]);
                self.distance_reusable.push(self.old_distance_reusable[j]);
                self.unclear_moved.push(self.old_unclear_moved[j]);
                self.reuse_changes.push(self.old_reuse_changes[j]);
                j += 1;
            } else {
                self.previous.push(None);
                self.manifolds.push(Manifold::EMPTY);
                // (a placeholder: a new pair is recomputed, which sets it)
                let none = Collider::Sphere(Default::default());
                self.computed_at.push((none, none));
                self.checked_at.push(0);
                self.distance_reusable.push(false);
                self.unclear_moved.push(f64::INFINITY);
                self.reuse_changes.push([ContactChange::New; MAX_CONTACTS]);
            }
        }
        for (jj, &pair) in old.iter().enumerate().skip(j) {
            let m = self.old_manifolds[jj];
            self.note_gone(pair, &m, None);
        }
        self.old_pairs = old;
    }

    /// Records `old`'s points whose feature id is not in `new` (all of them
    /// when the pair is gone).
    #[inline]
    fn note_gone(&mut self, pair: (u32, u32), old: &Manifold, new: Option<&Manifold>) {
        for p in old.contacts() {
            let still =
                new.is_some_and(|m| m.contacts().iter().any(|q| q.feature_id == p.feature_id));
            if !still {
                self.gone.push(GoneContact { pair, feature_id: p.feature_id });
            }
        }
    }

    /// This frame's pairs (as given to the last [`NarrowPhase::update`]).
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// This frame's manifolds, one per pair (normal from `pair.0` to
    /// `pair.1`, the [conventions](super)).
    pub fn manifolds(&self) -> &[Manifold] {
        &self.manifolds
    }

    /// What happened to each point of pair `k`'s manifold (entries past
    /// its `count` are [`ContactChange::New`] and mean nothing).
    pub fn changes(&self, k: usize) -> &[ContactChange; MAX_CONTACTS] {
        if self.reused[k] {
            &self.reuse_changes[k]
        } else {
            &self.changes[k]
        }
    }

    /// Whether pair `k`'s manifold was reused (not recomputed) this frame.
    pub fn reused(&self, k: usize) -> bool {
        self.reused[k]
    }

    /// Index of pair `k` in the previous frame's pairs (`None`: new pair).
    pub fn previous(&self, k: usize) -> Option<usize> {
        self.previous[k].map(|j| j as usize)
    }

    /// Last frame's points that have no match this frame (by pair, then
    /// point order).
    pub fn gone(&self) -> &[GoneContact] {
        &self.gone
    }

    /// Counters of the last update.
    pub fn stats(&self) -> FrameStats {
        self.stats
    }
}

/// A step of [`NarrowPhase::update_with_hulls_at`] as a dispatched body
/// ([`simd::dispatch`]; it uses no lane type, only the path's instructions).
enum FrameStep<'a> {
    /// [`NarrowPhase::begin_frame`].
    Decide {
        np: &'a mut NarrowPhase,
        colliders: &'a [Collider],
        moved: Option<&'a [u32]>,
        pairs: &'a [(u32, u32)],
    },
    /// [`NarrowPhase::store_fresh`].
    Store {
        np: &'a mut NarrowPhase,
        colliders: &'a [Collider],
        pairs: &'a [(u32, u32)],
        fresh: &'a [Manifold],
        stats: FrameStats,
    },
}

impl SimdFn for FrameStep<'_> {
    type Out = FrameStats;
    #[inline(always)]
    fn call<S: Simd>(self) -> FrameStats {
        match self {
            FrameStep::Decide { np, colliders, moved, pairs } => {
                np.begin_frame(colliders, moved, pairs)
            }
            FrameStep::Store { np, colliders, pairs, fresh, stats } => {
                np.store_fresh(colliders, pairs, fresh, stats)
            }
        }
    }
}

/// Stamps body `i` with `frame` when its collider differs from `seen[i]`
/// (taking the new one), and returns whether its kind changed. A body past
/// `seen` (new this frame, or dropped since the kind grouping) is skipped.
#[inline(always)]
fn note_body(
    i: usize,
    colliders: &[Collider],
    seen: &mut [Collider],
    changed_at: &mut [u64],
    frame: u64,
) -> bool {
    let Some(then) = seen.get_mut(i) else { return false };
    let now = &colliders[i];
    if same_bits(then, now) {
        return false;
    }
    let kind_changed = then.kind() != now.kind();
    *then = *now;
    changed_at[i] = frame;
    kind_changed
}

/// Panics unless `pairs` is strictly ascending and indexes only the `n`
/// colliders (one pass).
#[inline(always)]
fn check_pairs(pairs: &[(u32, u32)], n: usize) {
    let (mut sorted, mut top) = (true, 0);
    for (k, &(a, b)) in pairs.iter().enumerate() {
        sorted &= k == 0 || pairs[k - 1] < (a, b);
        top = top.max(a).max(b);
    }
    assert!(sorted, "NarrowPhase::update needs strictly ascending pairs (BroadPhase::pairs order)");
    if top as usize >= n && !pairs.is_empty() {
        let &(a, b) = pairs.iter().find(|&&(a, b)| a as usize >= n || b as usize >= n).unwrap();
        panic!("pair ({a}, {b}) indexes past the {n} colliders");
    }
}

/// A pair `decide` could not settle by stamps: new ([`Check::NEW`]), or
/// kept with a changed body, decided by [`check_moved`].
#[derive(Clone, Copy, Debug)]
struct Check {
    /// The pair's index.
    pair: u32,
    /// `(kind_A·ShapeKind::COUNT + kind_B)·4 + 2·unchanged_A + unchanged_B`:
    /// the kinds of the colliders its manifold was computed from, and which
    /// bodies are known identical to them (below [`Check::KEYS`]).
    key: u8,
    /// [`Check::NEW`], or [`Check::REUSE`] once decided.
    verdict: u8,
    /// `δ_A + δ_B` once decided, when at most the bound ("slow"); else `∞`.
    moved: f64,
}

impl Check {
    const KEYS: usize = ShapeKind::COUNT * ShapeKind::COUNT * 4;
    const REUSE: u8 = 1;
    const NEW: u8 = 4;
}

// (every key fits the `u8`)
const _: () = assert!(Check::KEYS <= 256);

/// Reuses pair `k`'s manifold: it reports the changes stored with it
/// (read in place by [`NarrowPhase::changes`]).
#[inline(always)]
fn reuse_pair(
    k: usize,
    reused: &mut [bool],
    reuse_changes: &[[ContactChange; MAX_CONTACTS]],
    stats: &mut FrameStats,
) {
    reused[k] = true;
    stats.reused += 1;
    stats.kept += reuse_changes[k].iter().filter(|c| **c != ContactChange::New).count();
}

/// Decides `checks` by [`reusable_moved`] (stamping the pairs found
/// bit-identical again), in the order of their keys. The comparisons and
/// displacements branch on the two kinds: in pair order a random mix of
/// kinds mispredicts those branches, grouped by kind they follow runs. A
/// counting sort (stable, so pair order within a key) puts them in groups;
/// each verdict is the one the pair-order loop would give.
#[inline(always)]
fn check_moved(
    checks: &mut [Check],
    order: &mut Vec<u32>,
    (colliders, pairs): (&[Collider], &[(u32, u32)]),
    (computed_at, distance_reusable): (&[(Collider, Collider)], &[bool]),
    checked_at: &mut [u64],
    (frame, d): (u64, f32),
) {
    let mut start = [0u32; Check::KEYS + 1];
    for c in checks.iter().filter(|c| c.verdict != Check::NEW) {
        start[c.key as usize + 1] += 1;
    }
    for i in 0..Check::KEYS {
        start[i + 1] += start[i];
    }
    order.clear();
    order.resize(start[Check::KEYS] as usize, 0);
    for (i, c) in checks.iter().enumerate().filter(|(_, c)| c.verdict != Check::NEW) {
        let s = &mut start[c.key as usize];
        order[*s as usize] = i as u32;
        *s += 1;
    }
    for &i in order.iter() {
        let c = &mut checks[i as usize];
        let k = c.pair as usize;
        let (a, b) = pairs[k];
        let unchanged = (c.key & 2 != 0, c.key & 1 != 0);
        let now = (&colliders[a as usize], &colliders[b as usize]);
        let (same, reuse, moved) =
            reusable_moved(&computed_at[k], now, unchanged, distance_reusable[k], d);
        if same {
            checked_at[k] = frame;
        }
        c.verdict = reuse as u8 * Check::REUSE;
        c.moved = moved.unwrap_or(f64::INFINITY);
    }
}

/// Whether a pair whose manifold was computed from `then` may keep it now
/// that a body changed since it was last checked: `(same, reuse, slow)`
/// with `same` when both colliders are bit-identical to `then` again (a body
/// that moved and came back: the pair is then stamped checked), `slow` the
/// sum `δ_A + δ_B` when it is at most `d` (`Some(0)` when the same), and
/// `reuse` when the same, or slow and `distance_reusable` (the manifold
/// non-empty or separated). `unchanged` says which bodies are known
/// identical to `then` from their stamps: those are not compared again, and
/// their `δ` is 0 (what `displacement` gives for identical finite colliders;
/// a non-finite one has an empty manifold, the contract of every tester,
/// which is never reused by distance).
/// Inlined into the grouped loop of [`check_moved`]: a call per checked
/// pair cost about a sixth of the checks (simd-notes, "Persistent manifolds").
#[inline(always)]
fn reusable_moved(
    then: &(Collider, Collider),
    now: (&Collider, &Collider),
    unchanged: (bool, bool),
    distance_reusable: bool,
    d: f32,
) -> (bool, bool, Option<f64>) {
    let same_a = unchanged.0 || same_bits(&then.0, now.0);
    if same_a && (unchanged.1 || same_bits(&then.1, now.1)) {
        return (true, true, Some(0.0));
    }
    if d <= 0.0 {
        return (false, false, None);
    }
    let moved =
        |unchanged: bool, then, now| if unchanged { Some(0.0) } else { displacement(then, now) };
    let slow = match (moved(same_a, &then.0, now.0), moved(unchanged.1, &then.1, now.1)) {
        (Some(da), Some(db)) if da + db <= d as f64 => Some(da + db),
        _ => None,
    };
    (false, slow.is_some() && distance_reusable, slow)
}

/// Whether an empty manifold of `a` and `b` may be tested for separation:
/// both finite (a non-finite collider counts as moved, whatever the testers
/// say) and not two triangles (which have no tester).
fn separable(a: &Collider, b: &Collider) -> bool {
    let finite = |c: &Collider| displacement(c, c).is_some();
    finite(a) && finite(b) && !(is_triangle(a) && is_triangle(b))
}

fn is_triangle(c: &Collider) -> bool {
    matches!(c, Collider::Triangle(_))
}

/// `c` with a triangle's winding reversed (`a, c, b`: its front is the
/// other side, the normal exactly negated), any other collider as it is.
/// The triangle testers are one-sided (no contact while the other shape's
/// centre, or its closest axis point, is behind the plane, at any
/// distance); in every position one of the two windings has the shape on
/// or in front of it, where presence is decided by distance alone.
fn reverse_triangle(c: &Collider) -> Collider {
    match *c {
        Collider::Triangle(t) => Collider::Triangle(Triangle { a: t.a, b: t.c, c: t.b }),
        other => other,
    }
}

/// The margin of the separation check, `margin + d` rounded up (so a pair
/// it clears was farther apart than `margin + d` in exact arithmetic, up to
/// the testers' band); `None` when `d` is 0 or the sum is not finite.
fn widened_margin(margin: f32, d: f32) -> Option<f32> {
    if !(d > 0.0 && margin >= 0.0) {
        return None;
    }
    let w = margin + d;
    let w = if (w as f64) < margin as f64 + d as f64 { w.next_up() } else { w };
    w.is_finite().then_some(w)
}

fn bits(v: Vec3) -> [u32; 3] {
    [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()]
}

/// The changes of `new`'s points against `old` (the pair's previous
/// manifold; `None` for a new pair): `Kept` with the index of the first old
/// point of the same feature id, else `New`.
#[inline]
fn match_features(new: &Manifold, old: Option<&Manifold>) -> [ContactChange; MAX_CONTACTS] {
    let mut ch = [ContactChange::New; MAX_CONTACTS];
    if let Some(o) = old {
        for (c, p) in ch.iter_mut().zip(new.contacts()) {
            if let Some(i) = o.contacts().iter().position(|q| q.feature_id == p.feature_id) {
                *c = ContactChange::Kept { previous: i as u8 };
            }
        }
    }
    ch
}

/// A shape's bits as words, read in place (the shapes are `repr(C)` f32
/// fields, no padding): compared as arrays, not field by field. (Copied
/// into arrays first, they were stored in pieces and read back whole, a
/// store-forwarding stall per comparison.)
#[inline(always)]
fn words<T: bytemuck::Pod, const N: usize>(t: &T) -> &[u32; N] {
    bytemuck::cast_ref(t)
}

/// Whether two colliders are the same bit for bit.
#[inline(always)]
fn same_bits(a: &Collider, b: &Collider) -> bool {
    match (a, b) {
        (Collider::Sphere(a), Collider::Sphere(b)) => words::<_, 4>(a) == words(b),
        (Collider::Capsule(a), Collider::Capsule(b)) => words::<_, 7>(a) == words(b),
        (Collider::Box(a), Collider::Box(b)) => words::<_, 15>(a) == words(b),
        (Collider::Triangle(a), Collider::Triangle(b)) => words::<_, 9>(a) == words(b),
        (Collider::Hull(a), Collider::Hull(b)) => {
            a.hull == b.hull
                && bits(a.center) == bits(b.center)
                && (0..3).all(|i| bits(a.axes[i]) == bits(b.axes[i]))
                && bits(a.local_min) == bits(b.local_min)
                && bits(a.local_max) == bits(b.local_max)
        }
        _ => false,
    }
}

/// `|b - a|` in f64.
fn dist(a: Vec3, b: Vec3) -> f64 {
    let d = [(b.x as f64) - a.x as f64, (b.y as f64) - a.y as f64, (b.z as f64) - a.z as f64];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// An upper bound of how far any point of the shape moved from `then` to
/// `now` (see the [module docs](self)); `None` when the kind or size changed
/// or a coordinate is not finite. The f64 sum is exact enough: rounded up by
/// one part in 2^40 to stay an upper bound.
#[inline(always)]
fn displacement(then: &Collider, now: &Collider) -> Option<f64> {
    let d = match (then, now) {
        (Collider::Sphere(a), Collider::Sphere(b)) if a.radius == b.radius => {
            dist(a.center, b.center)
        }
        (Collider::Capsule(a), Collider::Capsule(b)) if a.radius == b.radius => {
            dist(a.a, b.a).max(dist(a.b, b.b))
        }
        (Collider::Box(a), Collider::Box(b)) if bits(a.half) == bits(b.half) => {
            let h = [a.half.x as f64, a.half.y as f64, a.half.z as f64];
            dist(a.center, b.center)
                + (0..3).map(|i| h[i] * dist(a.axes[i], b.axes[i])).sum::<f64>()
        }
        (Collider::Triangle(a), Collider::Triangle(b)) => {
            dist(a.a, b.a).max(dist(a.b, b.b)).max(dist(a.c, b.c))
        }
        // a vertex v moves by Δc + Σ v_i·Δaxes_i, |v_i| <= the local reach
        (Collider::Hull(a), Collider::Hull(b))
            if a.hull == b.hull
                && bits(a.local_min) == bits(b.local_min)
                && bits(a.local_max) == bits(b.local_max) =>
        {
            let r = a.local_reach();
            let h = [r.x as f64, r.y as f64, r.z as f64];
            dist(a.center, b.center)
                + (0..3).map(|i| h[i] * dist(a.axes[i], b.axes[i])).sum::<f64>()
        }
        _ => return None,
    };
    d.is_finite().then_some(d * (1.0 + 1.0 / (1u64 << 40) as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::pipeline::contacts;
    use crate::workload::{contact_scene, SplitMix};

    /// The narrow phase written the plain way, one merge per frame that
    /// copies every kept pair's manifold and colliders and compares the
    /// colliders per pair: the reference the frame-stamped, in-place
    /// [`NarrowPhase`] must equal in every output.
    #[derive(Default)]
    struct Plain {
        pairs: Vec<(u32, u32)>,
        manifolds: Vec<Manifold>,
        at: Vec<(Collider, Collider)>,
        separated: Vec<bool>,
        unclear: Vec<f64>,
        previous: Vec<Option<usize>>,
        reused: Vec<bool>,
        changes: Vec<[ContactChange; MAX_CONTACTS]>,
        gone: Vec<GoneContact>,
        stats: FrameStats,
    }

    impl Plain {
        fn update(&mut self, colliders: &[Collider], pairs: &[(u32, u32)], margin: f32, d: f32) {
            let gone_of = |pair, old: &Manifold, new: Option<&Manifold>, out: &mut Vec<_>| {
                for p in old.contacts() {
                    if !new
                        .is_some_and(|m| m.contacts().iter().any(|q| q.feature_id == p.feature_id))
                    {
                        out.push(GoneContact { pair, feature_id: p.feature_id });
                    }
                }
            };
            let (mut manifolds, mut at, mut gone) = (vec![], vec![], vec![]);
            let (mut separated, mut unclear, mut slow_todo) = (vec![], vec![], vec![]);
            let (mut previous, mut reused, mut todo) = (vec![], vec![], vec![]);
            let mut stats = FrameStats::default();
            let mut next = 0;
            for (k, &(a, b)) in pairs.iter().enumerate() {
                while next < self.pairs.len() && self.pairs[next] < (a, b) {
                    gone_of(self.pairs[next], &self.manifolds[next], None, &mut gone);
                    next += 1;
                }
                let j = (next < self.pairs.len() && self.pairs[next] == (a, b)).then_some(next);
                next += j.is_some() as usize;
                let now = (colliders[a as usize], colliders[b as usize]);
                let moved = j.and_then(|j| {
                    let then = &self.at[j];
                    match (displacement(&then.0, &now.0), displacement(&then.1, &now.1)) {
                        (Some(x), Some(y)) if d > 0.0 && x + y <= d as f64 => Some(x + y),
                        _ => None,
                    }
                });
                let slow = moved.is_some();
                let reuse = j.is_some_and(|j| {
                    let (then, m) = (&self.at[j], &self.manifolds[j]);
                    (same_bits(&then.0, &now.0) && same_bits(&then.1, &now.1))
                        || ((m.count > 0.0 || self.separated[j]) && slow)
                });
                previous.push(j);
                reused.push(reuse);
                if reuse {
                    manifolds.push(self.manifolds[j.unwrap()]);
                    at.push(self.at[j.unwrap()]);
                    separated.push(self.separated[j.unwrap()]);
                    unclear.push(self.unclear[j.unwrap()]);
                    stats.reused += 1;
                } else {
                    manifolds.push(Manifold::EMPTY);
                    at.push(now);
                    separated.push(false);
                    // (the previous check's motion, consumed below)
                    unclear.push(j.map_or(f64::INFINITY, |j| self.unclear[j]));
                    todo.push(k);
                    slow_todo.push(moved);
                }
            }
            for (p, m) in self.pairs[next..].iter().zip(&self.manifolds[next..]) {
                gone_of(*p, m, None, &mut gone);
            }
            stats.recomputed = todo.len();
            let fresh =
                contacts(colliders, &todo.iter().map(|&k| pairs[k]).collect::<Vec<_>>(), margin);
            for (&k, m) in todo.iter().zip(fresh) {
                manifolds[k] = m;
            }
            // the separation check, pair by pair: empty at `margin + d`
            // (rounded up) too
            if d > 0.0 {
                let mut wide = margin + d;
                if (wide as f64) < margin as f64 + d as f64 {
                    wide = wide.next_up();
                }
                for (&k, &moved) in todo.iter().zip(&slow_todo) {
                    let pending = std::mem::replace(&mut unclear[k], f64::INFINITY);
                    let (a, b) = (&colliders[pairs[k].0 as usize], &colliders[pairs[k].1 as usize]);
                    let Some(moved) = moved else { continue };
                    if manifolds[k].count == 0.0 && separable(a, b) {
                        if pending + moved <= d as f64 {
                            unclear[k] = pending + moved;
                            stats.separation_skipped += 1;
                            continue;
                        }
                        let back = [reverse_triangle(a), reverse_triangle(b)];
                        separated[k] = contacts(colliders, &[pairs[k]], wide)[0].count == 0.0
                            && contacts(&back, &[(0, 1)], wide)[0].count == 0.0;
                        unclear[k] = if separated[k] { f64::INFINITY } else { 0.0 };
                        stats.separation_tested += 1;
                        stats.separated += separated[k] as usize;
                    }
                }
            } else {
                unclear.fill(f64::INFINITY);
            }
            let mut changes = vec![];
            for (k, m) in manifolds.iter().enumerate() {
                let old = previous[k].map(|j| &self.manifolds[j]);
                let ch = match_features(m, old);
                let kept =
                    ch[..m.count as usize].iter().filter(|c| **c != ContactChange::New).count();
                stats.kept += kept;
                stats.new += m.count as usize - kept;
                changes.push(ch);
                if let Some(o) = old {
                    gone_of(pairs[k], o, Some(m), &mut gone);
                }
            }
            stats.gone = gone.len();
            *self = Plain {
                pairs: pairs.to_vec(),
                manifolds,
                at,
                separated,
                unclear,
                previous,
                reused,
                changes,
                gone,
                stats,
            };
        }
    }

    fn manifold_bits(m: &Manifold) -> Vec<u32> {
        bytemuck::cast_slice::<Manifold, u32>(std::slice::from_ref(m)).to_vec()
    }

    /// Random frames: pairs that come and go, bodies resting, creeping
    /// within and past the bound, jumping, coming back to their exact
    /// earlier bits, changing kind or size, turning NaN, and bodies added
    /// and removed; every output of every frame equals the plain merge's.
    #[test]
    fn frame_stamps_and_in_place_updates_equal_the_plain_merge() {
        const MARGIN: f32 = 0.05;
        for (seed, d) in [(3u64, 0.0f32), (5, 1.1e-3), (7, 0.3)] {
            let (start, all_pairs) = contact_scene(600, MARGIN, seed);
            let mut r = SplitMix(seed * 31);
            let mut bodies = start.clone();
            let mut pairs = all_pairs.clone();
            let (mut np, mut plain) =
                (NarrowPhase::new(MARGIN).with_reuse_distance(d), Plain::default());
            let (mut same_list, mut reused_total, mut moved_reuse) = (0, 0, 0);
            let (mut tested, mut skipped) = (0, 0);
            for frame in 0..60 {
                // pairs: keep the list, drop some, or bring some back
                match r.next_u64() % 4 {
                    0 => pairs.retain(|_| !r.next_u64().is_multiple_of(8)),
                    1 => {
                        pairs = all_pairs
                            .iter()
                            .copied()
                            .filter(|_| !r.next_u64().is_multiple_of(8))
                            .collect()
                    }
                    _ => same_list += 1,
                }
                for (i, b) in bodies.iter_mut().enumerate() {
                    let axis = [Vec3::new(2e-4, 0.0, 0.0), Vec3::new(0.0, -2e-4, 0.0)][i % 2];
                    *b = match r.next_u64() % 40 {
                        0..=3 => b.translated(axis),
                        4 => b.translated(Vec3::new(0.0, 0.0, 0.05)),
                        5 | 6 => start[i],
                        7 if frame % 7 == 3 => b.translated(Vec3::new(f32::NAN, 0.0, 0.0)),
                        8 if frame % 5 == 1 => start[(i + 1) % start.len()],
                        _ => *b,
                    };
                }
                // bodies past the last pair's may be dropped or appended
                let used = pairs.iter().map(|&(a, b)| a.max(b) as usize + 1).max().unwrap_or(0);
                let n = match frame % 9 {
                    4 => used.max(start.len() - 20),
                    8 => start.len(),
                    _ => bodies.len(),
                };
                bodies.resize(n, start[0]);
                np.update(&bodies, &pairs);
                plain.update(&bodies, &pairs, MARGIN, d);
                let at = format!("seed {seed}, frame {frame}");
                assert_eq!(np.pairs(), plain.pairs.as_slice(), "{at}");
                for (k, &(a, b)) in pairs.iter().enumerate() {
                    assert_eq!(
                        manifold_bits(&np.manifolds()[k]),
                        manifold_bits(&plain.manifolds[k]),
                        "{at}, pair {k}"
                    );
                    assert_eq!(np.reused(k), plain.reused[k], "{at}, pair {k}");
                    assert_eq!(np.previous(k), plain.previous[k], "{at}, pair {k}");
                    assert_eq!(np.changes(k), &plain.changes[k], "{at}, pair {k}");
                    if np.reused(k) {
                        reused_total += 1;
                        let then = &np.computed_at[k];
                        if !same_bits(&then.0, &bodies[a as usize])
                            || !same_bits(&then.1, &bodies[b as usize])
                        {
                            moved_reuse += 1;
                        }
                    }
                }
                assert_eq!(np.gone(), plain.gone.as_slice(), "{at}");
                assert_eq!(np.stats(), plain.stats, "{at}");
                (tested, skipped) = (
                    tested + np.stats().separation_tested,
                    skipped + np.stats().separation_skipped,
                );
            }
            // the frames exercised what they are meant to
            assert!(
                same_list > 20 && reused_total > 10_000,
                "seed {seed}: {same_list} {reused_total}"
            );
            assert_eq!(
                moved_reuse > 0,
                d > 0.0,
                "seed {seed}: reuse within the bound {moved_reuse}"
            );
            // checks run, and (within 1.1e-3, pairs creeping by 2e-4) some
            // are skipped after one found contact
            assert_eq!(tested > 0 && skipped > 0, d > 0.0, "seed {seed}: {tested} {skipped}");
        }
    }
}
