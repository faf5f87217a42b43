//! The frame-to-frame broad phase: boxes that move a little, a few at a time.
//!
//! ```text
//! pairs():                                   (only if something changed)
//!   D = handles inserted, updated or removed since the last call
//!   if |D| > n/16: full rebuild (grid box pruning)               O(n + P)
//!   else:
//!     drop D from the sorted arrays; sort D's new boxes; merge     O(n + |D| log |D|)
//!     prefix_max[k] = max(max_x[0..=k])                            O(n)
//!     drop the pairs that touch D                                  O(P)
//!     for d in D: scan the sorted arrays from the first k with
//!       prefix_max[k] >= d.min.x while min_x <= d.max.x            O(|D| · window)
//!     sort the new pairs, merge them in                            O(P + new)
//! ```
//!
//! The prefix maximum makes the backward half of the query exact without a
//! "largest box" bound: every box that can reach `d.min.x` from the left sits
//! at or after the first position whose running maximum of `max.x` reaches it.
//! This is the persistent-pairs idea of PhysX's ABP and Bullet's SAP (keep last
//! frame's pairs, re-query only what moved) on Terdiman's flat sorted arrays;
//! instead of swapping endpoints one by one we re-sort the moved boxes, so the
//! cost does not grow with how far a box moved.

use super::box_pruning::{sort_key, BoxPruner, Sorted};
use super::NativeLane;
use crate::lane::Lane;
use crate::shapes::Aabb;
use crate::simd::{self, LaneFn};

/// A box in a [`BroadPhase`]: its index is the number used in the pairs.
///
/// Handles of removed boxes are reused by later inserts (lowest free slot
/// last freed first), like a slab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle(u32);

impl Handle {
    /// The slot index, as it appears in [`BroadPhase::pairs`].
    pub fn index(self) -> u32 {
        self.0
    }
}

/// Incremental all-pairs of moving boxes (the algorithm is described at the
/// top of `src/broad/incremental.rs`).
///
/// After any sequence of [`insert`](Self::insert), [`update`](Self::update) and
/// [`remove`](Self::remove), [`pairs`](Self::pairs) equals
/// [`self_pairs`](super::self_pairs) of the live boxes indexed by handle (dead
/// slots count as empty boxes). Invalid boxes (NaN, inverted, infinite extent)
/// may be inserted; they never pair.
///
/// ```
/// use widephase::broad::BroadPhase;
/// use widephase::{Aabb, Vec3};
/// let cube = |x: f32| Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 1.0, 1.0, 1.0));
/// let mut bp = BroadPhase::new();
/// let a = bp.insert(cube(0.0));
/// let b = bp.insert(cube(5.0));
/// assert!(bp.pairs().is_empty());
/// bp.update(b, cube(1.0)); // touching faces count
/// assert_eq!(bp.pairs(), &[(a.index(), b.index())]);
/// bp.remove(a);
/// assert!(bp.pairs().is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    boxes: Vec<Aabb>,
    alive: Vec<bool>,
    free: Vec<u32>,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    sorted: Sorted,
    spare: Sorted,
    prefix_max: Vec<f32>,
    pairs: Vec<(u32, u32)>,
    spare_pairs: Vec<(u32, u32)>,
    new_pairs: Vec<u64>,
    keys: Vec<u64>,
    pruner: BoxPruner,
    built: bool,
}

impl BroadPhase {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of live boxes.
    pub fn len(&self) -> usize {
        self.alive.iter().filter(|&&a| a).count()
    }

    /// Whether no box is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The current box of a live handle.
    ///
    /// # Panics
    /// If `h` was removed.
    pub fn get(&self, h: Handle) -> Aabb {
        assert!(self.is_live(h), "BroadPhase: handle {} is not live", h.0);
        self.boxes[h.0 as usize]
    }

    fn is_live(&self, h: Handle) -> bool {
        self.alive.get(h.0 as usize).copied().unwrap_or(false)
    }

    fn touch(&mut self, i: u32) {
        if !self.dirty[i as usize] {
            self.dirty[i as usize] = true;
            self.dirty_list.push(i);
        }
    }

    /// Adds a box; it takes part from the next [`pairs`](Self::pairs) call.
    pub fn insert(&mut self, b: Aabb) -> Handle {
        let i = match self.free.pop() {
            Some(i) => {
                self.boxes[i as usize] = b;
                self.alive[i as usize] = true;
                i
            }
            None => {
                let i = u32::try_from(self.boxes.len()).expect("at most 2^32 - 1 boxes");
                self.boxes.push(b);
                self.alive.push(true);
                self.dirty.push(false);
                i
            }
        };
        self.touch(i);
        Handle(i)
    }

    /// Moves a live box.
    ///
    /// # Panics
    /// If `h` was removed.
    pub fn update(&mut self, h: Handle, b: Aabb) {
        assert!(self.is_live(h), "BroadPhase::update: handle {} is not live", h.0);
        self.boxes[h.0 as usize] = b;
        self.touch(h.0);
    }

    /// Removes a live box; its handle may be returned by a later insert.
    ///
    /// # Panics
    /// If `h` was already removed.
    pub fn remove(&mut self, h: Handle) {
        assert!(self.is_live(h), "BroadPhase::remove: handle {} is not live", h.0);
        self.alive[h.0 as usize] = false;
        self.free.push(h.0);
        self.touch(h.0);
    }

    /// All overlapping pairs `(i, j)`, `i < j`, of live handle indices, sorted.
    pub fn pairs(&mut self) -> &[(u32, u32)] {
        if !self.dirty_list.is_empty() || !self.built {
            if !self.built || self.dirty_list.len() * 16 > self.sorted.len().max(64) {
                self.rebuild();
            } else {
                self.repair();
            }
            for &i in &self.dirty_list {
                self.dirty[i as usize] = false;
            }
            self.dirty_list.clear();
            self.built = true;
        }
        &self.pairs
    }

    /// Full box pruning over the live boxes (dead slots are skipped), with
    /// a kept [`BoxPruner`] so repeated rebuilds reuse their memory.
    fn rebuild(&mut self) {
        let alive = &self.alive;
        self.pruner.run::<NativeLane>(&self.boxes, |k| alive[k], 4096);
        self.sorted.fill(&self.boxes, self.pruner.keys());
        core::mem::swap(&mut self.pairs, self.pruner.pairs_mut());
    }

    /// The incremental path: only the dirty boxes are re-sorted and re-queried.
    fn repair(&mut self) {
        let dirty = &self.dirty;
        // 1. The moved boxes' new entries, sorted by min.x (stable on handle).
        self.keys.clear();
        for &i in &self.dirty_list {
            let b = &self.boxes[i as usize];
            if self.alive[i as usize] && b.is_valid() {
                self.keys.push(((sort_key(b.min.x) as u64) << 32) | i as u64);
            }
        }
        self.keys.sort_unstable();
        // 2. Merge the clean entries with the moved ones into `spare`.
        let (old, new) = (&self.sorted, &mut self.spare);
        new.clear();
        let mut m = 0;
        for k in 0..old.len() {
            if dirty[old.id[k] as usize] {
                continue;
            }
            let key = sort_key(old.min_x[k]);
            while m < self.keys.len() && (self.keys[m] >> 32) as u32 <= key {
                let i = self.keys[m] as u32;
                new.push(&self.boxes[i as usize], i);
                m += 1;
            }
            new.push_from(old, k);
        }
        for &km in &self.keys[m..] {
            let i = km as u32;
            new.push(&self.boxes[i as usize], i);
        }
        new.pad();
        core::mem::swap(&mut self.sorted, &mut self.spare);
        // 3. Running maximum of max.x along the order.
        let s = &self.sorted;
        self.prefix_max.clear();
        let mut run = f32::NEG_INFINITY;
        for &x in &s.max_x[..s.len()] {
            run = if x > run { x } else { run };
            self.prefix_max.push(run);
        }
        // 4. Query each moved box against everything.
        self.new_pairs.clear();
        let task = QueryMoved {
            s,
            moved: &self.keys,
            boxes: &self.boxes,
            prefix_max: &self.prefix_max,
            dirty,
            out: &mut self.new_pairs,
        };
        simd::dispatch_lane::<NativeLane, _>(simd::current(), task);
        self.new_pairs.sort_unstable();
        // 5. Old pairs without moved boxes, merged with the new ones.
        self.spare_pairs.clear();
        let mut n = 0;
        for &p in &self.pairs {
            if dirty[p.0 as usize] || dirty[p.1 as usize] {
                continue;
            }
            let key = ((p.0 as u64) << 32) | p.1 as u64;
            while n < self.new_pairs.len() && self.new_pairs[n] < key {
                let k = self.new_pairs[n];
                self.spare_pairs.push(((k >> 32) as u32, k as u32));
                n += 1;
            }
            self.spare_pairs.push(p);
        }
        for &k in &self.new_pairs[n..] {
            self.spare_pairs.push(((k >> 32) as u32, k as u32));
        }
        core::mem::swap(&mut self.pairs, &mut self.spare_pairs);
    }
}

/// Step 4 of [`BroadPhase::repair`] as one dispatched body (`crate::simd`):
/// each moved box (`moved`: sort keys whose low half is the handle) queried
/// against the sorted arrays `s` with [`scan_full`](super::box_pruning::scan_full),
/// new pair keys `(lo << 32) | hi` into `out`.
struct QueryMoved<'a> {
    s: &'a Sorted,
    moved: &'a [u64],
    boxes: &'a [Aabb],
    prefix_max: &'a [f32],
    dirty: &'a [bool],
    out: &'a mut Vec<u64>,
}

impl<L: Lane> LaneFn<L> for QueryMoved<'_> {
    type Out = ();
    #[inline(always)]
    fn call<M: Lane>(self) {
        let QueryMoved { s, moved, boxes, prefix_max, dirty, out } = self;
        for &km in moved {
            let d = km as u32;
            let q = boxes[d as usize];
            let start = prefix_max.partition_point(|&pm| pm < q.min.x);
            super::box_pruning::scan_full::<M>(s, start, &q, |e| {
                // A pair of two moved boxes is found twice: keep it from the lower handle.
                if e != d && (!dirty[e as usize] || d < e) {
                    out.push(if d < e {
                        ((d as u64) << 32) | e as u64
                    } else {
                        ((e as u64) << 32) | d as u64
                    });
                }
            });
        }
    }
}
