//! Persistent manifolds: a [`NarrowPhase`] keeps each pair's manifold from
//! frame to frame, so a solver can warm-start its impulses, and skips the
//! testers for pairs that did not move.
//!
//! ```text
//! update(colliders, pairs)        pairs: sorted (i, j), i < j (BroadPhase::pairs)
//!   for each pair, merged with last frame's sorted pairs:
//!     kept from last frame, and both colliders bit-identical to those its
//!     manifold was computed from, or the manifold non-empty and both
//!     colliders within the reuse bound of them
//!         -> reuse the cached manifold (no tester call)
//!     else -> recompute (the pipeline, `contacts_with::<L>`, on these pairs)
//!   per point: Kept (with its index in last frame's manifold of the pair)
//!              when last frame's manifold had a point of the same feature id,
//!              else New;   gone: last frame's points whose id is not there
//! ```
//!
//! Bepu keys warm starting by feature ids the same way, Jolt caches manifolds
//! by body pair, and Box2D v3 skips the collide of pairs whose relative
//! motion is small.
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
//! not), or when it is non-empty and `δ_A + δ_B <= reuse_distance`
//! ([`NarrowPhase::with_reuse_distance`], default `0`). `δ` is measured from the poses at the **last computation**,
//! not from the previous frame, so reuse never drifts further than the bound.
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
//! - an empty manifold is reused only for bit-identical colliders (a pair
//!   that moved may have come within the margin), so no pair within
//!   `margin` is missed.
//!
//! It does not bound the change of the *normal* or of the feature set a
//! fresh computation would choose (a box tipping over an edge switches face
//! within any bound); keep the bound small against the shapes' size.
//!
//! The displacement is absolute, not relative: two bodies moving together
//! are recomputed, since manifold points are world coordinates.

use super::hull::ConvexHull;
use super::pipeline::contacts_with_hulls_at;
use super::{Collider, Manifold, MAX_CONTACTS};
use crate::math::Vec3;
use crate::pack::LanePod;
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
    /// This frame's pairs (sorted) and manifolds.
    pairs: Vec<(u32, u32)>,
    manifolds: Vec<Manifold>,
    /// The colliders each manifold was computed from.
    computed_at: Vec<(Collider, Collider)>,
    /// Per pair: index in the previous frame's pairs.
    previous: Vec<Option<u32>>,
    /// Per pair: whether its manifold was reused this frame.
    reused: Vec<bool>,
    changes: Vec<[ContactChange; MAX_CONTACTS]>,
    gone: Vec<GoneContact>,
    stats: FrameStats,
    /// Scratch: pairs to recompute and their positions.
    todo: Vec<(u32, u32)>,
    todo_at: Vec<u32>,
    /// Last-but-one frame's buffers, reused for the next frame (a frame
    /// allocates nothing once the pair count settles).
    spare_pairs: Vec<(u32, u32)>,
    spare_manifolds: Vec<Manifold>,
    spare_at: Vec<(Collider, Collider)>,
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
    pub fn update_with_hulls_at<L: LanePod>(
        &mut self,
        colliders: &[Collider],
        hulls: &[ConvexHull],
        pairs: &[(u32, u32)],
    ) {
        assert!(
            pairs.windows(2).all(|w| w[0] < w[1]),
            "NarrowPhase::update needs strictly ascending pairs (BroadPhase::pairs order)"
        );
        let n = colliders.len();
        if let Some(&(a, b)) = pairs.iter().find(|&&(a, b)| a as usize >= n || b as usize >= n) {
            panic!("pair ({a}, {b}) indexes past the {n} colliders");
        }
        let old_pairs = std::mem::take(&mut self.pairs);
        let old_manifolds = std::mem::take(&mut self.manifolds);
        let old_at = std::mem::take(&mut self.computed_at);
        let mut stats = FrameStats::default();
        self.previous.clear();
        self.reused.clear();
        self.todo.clear();
        self.todo_at.clear();
        self.gone.clear();
        let mut manifolds = std::mem::take(&mut self.spare_manifolds);
        let mut computed_at = std::mem::take(&mut self.spare_at);
        manifolds.clear();
        computed_at.clear();
        // merge with last frame's sorted pairs
        let mut j = 0;
        for (k, &(a, b)) in pairs.iter().enumerate() {
            while j < old_pairs.len() && old_pairs[j] < (a, b) {
                self.note_gone(old_pairs[j], &old_manifolds[j], None);
                j += 1;
            }
            let now = (colliders[a as usize], colliders[b as usize]);
            let prev = (j < old_pairs.len() && old_pairs[j] == (a, b)).then_some(j);
            self.previous.push(prev.map(|j| j as u32));
            let reuse = prev.is_some_and(|j| self.reusable(&old_at[j], &now, &old_manifolds[j]));
            self.reused.push(reuse);
            if let (true, Some(j)) = (reuse, prev) {
                manifolds.push(old_manifolds[j]);
                computed_at.push(old_at[j]);
                stats.reused += 1;
            } else {
                manifolds.push(Manifold::EMPTY);
                computed_at.push(now);
                self.todo.push((a, b));
                self.todo_at.push(k as u32);
            }
            if prev.is_some() {
                j += 1;
            }
        }
        for (p, m) in old_pairs[j..].iter().zip(&old_manifolds[j..]) {
            self.note_gone(*p, m, None);
        }
        stats.recomputed = self.todo.len();
        let fresh = contacts_with_hulls_at::<L>(colliders, hulls, &self.todo, self.margin);
        for (&k, m) in self.todo_at.iter().zip(fresh) {
            manifolds[k as usize] = m;
        }
        // feature-id matching against last frame's manifold of each pair
        self.changes.clear();
        for (k, m) in manifolds.iter().enumerate() {
            let old = self.previous[k].map(|j| &old_manifolds[j as usize]);
            let mut ch = [ContactChange::New; MAX_CONTACTS];
            for (c, p) in ch.iter_mut().zip(m.contacts()) {
                let at = old
                    .and_then(|o| o.contacts().iter().position(|q| q.feature_id == p.feature_id));
                *c = match at {
                    Some(i) => {
                        stats.kept += 1;
                        ContactChange::Kept { previous: i as u8 }
                    }
                    None => {
                        stats.new += 1;
                        ContactChange::New
                    }
                };
            }
            self.changes.push(ch);
            if let Some(o) = old {
                self.note_gone(pairs[k], o, Some(m));
            }
        }
        stats.gone = self.gone.len();
        let mut new_pairs = std::mem::take(&mut self.spare_pairs);
        new_pairs.clear();
        new_pairs.extend_from_slice(pairs);
        self.pairs = new_pairs;
        self.manifolds = manifolds;
        self.computed_at = computed_at;
        (self.spare_pairs, self.spare_manifolds, self.spare_at) =
            (old_pairs, old_manifolds, old_at);
        self.stats = stats;
    }

    /// Records `old`'s points whose feature id is not in `new` (all of them
    /// when the pair is gone).
    fn note_gone(&mut self, pair: (u32, u32), old: &Manifold, new: Option<&Manifold>) {
        for p in old.contacts() {
            let still =
                new.is_some_and(|m| m.contacts().iter().any(|q| q.feature_id == p.feature_id));
            if !still {
                self.gone.push(GoneContact { pair, feature_id: p.feature_id });
            }
        }
    }

    /// Whether the manifold `m` computed from `then` may stand for `now`:
    /// bit-identical colliders, or a non-empty manifold within the bound.
    fn reusable(
        &self,
        then: &(Collider, Collider),
        now: &(Collider, Collider),
        m: &Manifold,
    ) -> bool {
        if same_bits(&then.0, &now.0) && same_bits(&then.1, &now.1) {
            return true;
        }
        if m.count == 0.0 || self.reuse_distance <= 0.0 {
            return false;
        }
        match (displacement(&then.0, &now.0), displacement(&then.1, &now.1)) {
            (Some(da), Some(db)) => da + db <= self.reuse_distance as f64,
            _ => false,
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
        &self.changes[k]
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

fn bits(v: Vec3) -> [u32; 3] {
    [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()]
}

/// Whether two colliders are the same bit for bit.
fn same_bits(a: &Collider, b: &Collider) -> bool {
    match (a, b) {
        (Collider::Sphere(a), Collider::Sphere(b)) => {
            bits(a.center) == bits(b.center) && a.radius.to_bits() == b.radius.to_bits()
        }
        (Collider::Capsule(a), Collider::Capsule(b)) => {
            bits(a.a) == bits(b.a)
                && bits(a.b) == bits(b.b)
                && a.radius.to_bits() == b.radius.to_bits()
        }
        (Collider::Box(a), Collider::Box(b)) => {
            bits(a.center) == bits(b.center)
                && bits(a.half) == bits(b.half)
                && (0..3).all(|i| bits(a.axes[i]) == bits(b.axes[i]))
        }
        (Collider::Triangle(a), Collider::Triangle(b)) => {
            bits(a.a) == bits(b.a) && bits(a.b) == bits(b.b) && bits(a.c) == bits(b.c)
        }
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
