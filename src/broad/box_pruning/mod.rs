//! Box pruning: one-shot all-pairs of AABBs (self and bipartite).
//!
//! ```text
//! sort the valid boxes by min.x                       (radix sort, 32-bit keys)
//! for each box i in that order:                       (rayon: chunks of i)
//!     for j = i+1, i+1+W, ...:                        (W = lane width)
//!         in_x = min_x[j..j+W] <= max_x[i]            (a prefix of the lanes: sorted)
//!         hit  = in_x & y-overlap & z-overlap         (SoA, closed intervals)
//!         emit the set bits of hit
//!         if !all(in_x): stop
//! ```
//!
//! `min_x[i] <= max_x[j]` never needs testing: `min_x[i] <= min_x[j] <= max_x[j]`
//! for every later `j` of a valid box. Every unordered pair is found once, from the
//! box that comes first in the sorted order. This is Terdiman's "complete box
//! pruning" ("Box pruning revisited", 2017, versions 1–17: sorted flat arrays, SIMD
//! on the other axes, a sentinel to end the scan), written once over [`Lane`].
//!
//! The files follow the steps: [`keys`] (the x order and the sorted SoA
//! arrays), [`sweep`] (the scan along x), [`grid`] (the y/z grid's cell
//! function and home thresholds), [`cells`] (the boxes copied into the cells,
//! and the scan inside a cell), [`pair_sort`] (ordering the found pairs), and
//! this file, the driver ([`BoxPruner::run`] and the public entry points).

mod cells;
mod grid;
mod keys;
mod pair_sort;
mod sweep;

pub(crate) use keys::{sort_key, Sorted};
pub(crate) use sweep::scan_full;

use crate::lane::Lane;
use crate::mem::resize_advised;
use crate::shapes::Aabb;
use crate::simd::{self, LaneFn};
use cells::{build_cells, build_cells_par, CellScratch, Cells, ScanCellsTask};
use keys::sorted_keys;
use pair_sort::{place_pairs, sort_pairs, PairScratch};
use rayon::prelude::*;
use sweep::{pair_key, scan, Probe, SweepTask};

/// Default number of sorted boxes per rayon task: enough to amortise the task,
/// small enough that two threads balance on clustered inputs.
fn auto_chunk(n: usize) -> usize {
    (n / (8 * rayon::current_num_threads().max(1))).clamp(256, 1 << 16)
}

/// Runs `f(range, out)` over chunks of `0..n` in parallel; one output per
/// chunk, in chunk order (the final sort makes the result independent of the
/// chunking anyway; the order here only keeps the work deterministic).
fn par_chunks(
    n: usize,
    chunk: usize,
    f: impl Fn(core::ops::Range<usize>, &mut Vec<u64>) + Sync,
) -> Vec<Vec<u64>> {
    let chunk = chunk.max(1);
    if rayon::current_num_threads() == 1 {
        let mut out = Vec::new();
        for c in 0..n.div_ceil(chunk) {
            f(c * chunk..((c + 1) * chunk).min(n), &mut out);
        }
        return vec![out];
    }
    (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut out = Vec::new();
            f(c * chunk..((c + 1) * chunk).min(n), &mut out);
            out
        })
        .collect()
}

/// Reusable scratch for all-pairs box pruning: repeated queries (one per
/// frame, say) reuse every array, so after the first call no memory is
/// allocated or first touched unless the input grows (not even the pair
/// array). [`self_pairs_with`] is this on a per-thread pruner whose pair
/// array goes to the caller.
///
/// ```
/// use widephase::broad::{self_pairs, BoxPruner};
/// use widephase::{Aabb, Vec3};
/// let b = |x: f32| Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 1.0, 1.0, 1.0));
/// let mut pruner = BoxPruner::new();
/// let boxes = [b(0.0), b(3.0), b(1.0), b(0.5)];
/// assert_eq!(pruner.self_pairs(&boxes), &[(0, 2), (0, 3), (2, 3)]);
/// assert_eq!(pruner.self_pairs(&boxes[1..]), &self_pairs(&boxes[1..])[..]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct BoxPruner {
    keys: Vec<u64>,
    tmp: Vec<u64>,
    scratch: CellScratch,
    cells: Cells,
    sorted: Sorted,
    /// Unsorted pair keys (one thread).
    raw: Vec<u64>,
    /// Unsorted pair keys per group of cells (more threads), kept like `raw`.
    par_raw: Vec<Vec<u64>>,
    /// Scratch of the pair sort.
    sort: PairScratch,
    pairs: Vec<(u32, u32)>,
}

impl BoxPruner {
    /// An empty pruner (allocates on first use).
    pub fn new() -> Self {
        Self::default()
    }

    /// [`self_pairs`] with this pruner's scratch: the same pairs, valid
    /// until the next call.
    pub fn self_pairs(&mut self, boxes: &[Aabb]) -> &[(u32, u32)] {
        self.self_pairs_with::<super::NativeLane>(boxes, auto_chunk(boxes.len()))
    }

    /// [`self_pairs_with`] with this pruner's scratch: the same pairs, valid
    /// until the next call.
    pub fn self_pairs_with<L: Lane>(&mut self, boxes: &[Aabb], chunk: usize) -> &[(u32, u32)] {
        self.run::<L>(boxes, |_| true, chunk);
        &self.pairs
    }

    /// Bytes allocated by the scratch arrays (not the pair output).
    fn heap_bytes(&self) -> usize {
        fn b<T>(v: &Vec<T>) -> usize {
            v.capacity() * core::mem::size_of::<T>()
        }
        let BoxPruner { keys, tmp, scratch, cells, sorted, raw, par_raw, sort, pairs: _ } = self;
        let CellScratch { spans, count, fill, slot, ranges } = scratch;
        let Cells { f, stride: _, id, start, end, first } = cells;
        let Sorted { min_x, max_x, min_y, max_y, min_z, max_z, id: sid } = sorted;
        let PairScratch { count: pc, stage, local } = sort;
        [b(keys), b(tmp), b(raw), b(spans), b(count), b(fill), b(slot), b(f), b(id)]
            .into_iter()
            .chain([b(start), b(end), b(first), b(min_x), b(max_x), b(min_y), b(max_y)])
            .chain([b(min_z), b(max_z), b(sid), b(pc), b(stage), b(local), b(ranges)])
            .chain(ranges.iter().flat_map(|r| [b(&r.count), b(&r.fill), b(&r.slot)]))
            .chain(par_raw.iter().map(b).chain([b(par_raw)]))
            .sum()
    }

    /// The sort keys of the last query's boxes ([`sorted_keys`]).
    pub(crate) fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The last query's pairs, to take or swap out.
    pub(crate) fn pairs_mut(&mut self) -> &mut Vec<(u32, u32)> {
        &mut self.pairs
    }

    /// Self pairs of the valid boxes whose index `keep` admits, into
    /// `self.pairs`, over a y/z grid of box-pruning regions (PhysX's "multi
    /// box pruning"): every box is copied, in x order, into each cell its y/z
    /// range touches; each cell is pruned on its own; a pair is reported only
    /// by the cell holding the corner `(max(min_y), max(min_z))` of the two
    /// boxes' y/z overlap, i.e. the cell `(max(cy0_i, cy0_j), max(cz0_i,
    /// cz0_j))` (the cell function is monotone), so each pair comes out
    /// exactly once. The scan windows shrink by about the number of cells.
    /// Without a grid this is plain box pruning over the sorted boxes with
    /// `chunk` sorted boxes per rayon task. With one rayon thread nothing is
    /// handed to rayon and the pair keys go to one kept array (`raw`); with
    /// more, the cells are built ([`build_cells_par`]) and scanned in
    /// parallel, each group of cells into a kept array of its own
    /// (`par_raw`), and the pairs placed in parallel.
    pub(crate) fn run<L: Lane>(
        &mut self,
        boxes: &[Aabb],
        keep: impl Fn(usize) -> bool,
        chunk: usize,
    ) {
        assert!(boxes.len() <= u32::MAX as usize, "at most 2^32 - 1 boxes");
        let n_a = boxes.len();
        // The instruction-set path, read on this thread: `simd::with_isa`'s
        // override does not reach the rayon workers.
        let isa = simd::current();
        let st = sorted_keys(boxes, keep, &mut self.keys, &mut self.tmp);
        let grid = if rayon::current_num_threads() == 1 {
            build_cells(boxes, &self.keys, &st, &mut self.scratch, &mut self.cells)
        } else {
            build_cells_par(boxes, &self.keys, &st, &mut self.scratch, &mut self.cells)
        };
        if !grid {
            self.sorted.fill(boxes, &self.keys);
        }
        let n_cells = self.cells.start.len();
        if rayon::current_num_threads() == 1 {
            let w = if grid {
                // `raw` keeps its length between calls (no clear, no refill):
                // only `raw[..w]` is read. A fresh one starts at twice the
                // cell entries (sparse sets need no growth then): grown from
                // empty, a one-shot call at 100k sparse boxes refaulted ~900
                // pages per call (`perf stat -e page-faults`).
                let entries = self.cells.end.last().copied().unwrap_or(0);
                if self.raw.len() < 2 * entries {
                    resize_advised(&mut self.raw, 2 * entries, 0);
                }
                let (cells, keys) = (&self.cells, &mut self.raw);
                simd::dispatch_lane::<L, _>(
                    isa,
                    ScanCellsTask { cells, range: 0..n_cells, keys, w: 0 },
                )
            } else {
                self.raw.clear();
                let (s, out) = (&self.sorted, &mut self.raw);
                simd::dispatch_lane::<L, _>(isa, SweepTask { s, range: 0..s.len(), out });
                self.raw.len()
            };
            place_pairs(&[&self.raw[..w]], n_a, n_a, false, &mut self.sort, &mut self.pairs);
            return;
        }
        if grid {
            // Groups of consecutive cells of about equal entries, several per
            // thread, each scanned into its own kept array as on one thread.
            let cells = &self.cells;
            let groups = 8 * rayon::current_num_threads();
            let entries = cells.end.last().copied().unwrap_or(0);
            let target = entries.div_ceil(groups).max(1);
            let mut bounds = vec![0];
            for (c, &e) in cells.end.iter().enumerate() {
                if e - cells.start[bounds[bounds.len() - 1]] >= target || c + 1 == n_cells {
                    bounds.push(c + 1);
                }
            }
            let n_groups = bounds.len() - 1;
            if self.par_raw.len() < n_groups {
                self.par_raw.resize_with(n_groups, Vec::new);
            }
            let ws: Vec<usize> = self.par_raw[..n_groups]
                .par_iter_mut()
                .zip(bounds.par_windows(2))
                .map(|(raw, b)| {
                    let ent = cells.end[b[1] - 1] - cells.start[b[0]];
                    if raw.len() < 2 * ent {
                        resize_advised(raw, 2 * ent, 0);
                    }
                    let task = ScanCellsTask { cells, range: b[0]..b[1], keys: raw, w: 0 };
                    simd::dispatch_lane::<L, _>(isa, task)
                })
                .collect();
            let slices: Vec<&[u64]> = self.par_raw.iter().zip(&ws).map(|(r, &w)| &r[..w]).collect();
            place_pairs(&slices, n_a, n_a, true, &mut self.sort, &mut self.pairs);
            return;
        }
        let parts: Vec<Vec<u64>> = {
            let s = &self.sorted;
            par_chunks(s.len(), chunk, |range, out| {
                simd::dispatch_lane::<L, _>(isa, SweepTask { s, range, out })
            })
        };
        let slices: Vec<&[u64]> = parts.iter().map(Vec::as_slice).collect();
        place_pairs(&slices, n_a, n_a, true, &mut self.sort, &mut self.pairs);
    }
}

/// All pairs `(i, j)`, `i < j`, of boxes in `boxes` that overlap
/// ([`aabb_aabb`](crate::overlap::aabb_aabb): closed boxes, so touching boxes
/// pair; invalid boxes — inverted, NaN, infinite extent — never pair), sorted.
///
/// Box pruning over lane type `L` in the regions of a y/z grid
/// ([`BoxPruner`]), with `chunk` sorted boxes per rayon task when there is
/// no grid. The result is identical for every `L`, `chunk` and thread count.
///
/// The scratch of the query (everything but the returned pairs) is a
/// [`BoxPruner`] kept per calling thread between calls, up to 32 MiB of it
/// (larger scratch is freed on return):
/// freed after every call, it went back to the OS whenever glibc trimmed
/// the heap (which depends on the heap's layout, not on this code), and the
/// next call faulted it all in again: at 10k Terdiman boxes ~200 page
/// faults per call, 0.55 instead of 0.37 ms in criterion's one-shot row
/// (`simd-notes.md`, "Broad phase"). Keep a [`BoxPruner`] of
/// your own to also reuse the pair array.
pub fn self_pairs_with<L: Lane>(boxes: &[Aabb], chunk: usize) -> Vec<(u32, u32)> {
    // Taken out for the call (a nested call on this thread finds none and
    // uses a fresh one), put back after.
    let mut p = KEPT.take().unwrap_or_default();
    p.run::<L>(boxes, |_| true, chunk);
    let pairs = core::mem::take(&mut p.pairs);
    if p.heap_bytes() <= KEEP_SCRATCH_MAX {
        KEPT.set(Some(p));
    }
    pairs
}

/// Most bytes of one-shot scratch [`self_pairs_with`] keeps per thread:
/// 10k Terdiman boxes need 1.1 MB, 100k 17.5 MB; 1M boxes (~4 overlaps
/// each) need 100 MB and free it.
const KEEP_SCRATCH_MAX: usize = 32 << 20;

std::thread_local! {
    /// The one-shot scratch of this thread ([`self_pairs_with`]).
    static KEPT: core::cell::Cell<Option<BoxPruner>> = const { core::cell::Cell::new(None) };
}

/// [`self_pairs_with`] at the native lane width and an automatic chunk size,
/// on the current rayon pool. See the [module docs](super) for an example.
pub fn self_pairs(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    self_pairs_with::<super::NativeLane>(boxes, auto_chunk(boxes.len()))
}

/// All pairs `(i, j)` with `a[i]` overlapping `b[j]` (same rule as
/// [`self_pairs_with`]), sorted by `i` then `j`; identical for every `L`,
/// `chunk` and thread count.
///
/// Two sweeps (Terdiman's bipartite pruning): each box of `a` scans the boxes of
/// `b` with `min.x` in `[a.min.x, a.max.x]`, and each box of `b` scans the boxes
/// of `a` with `min.x` in `(b.min.x, b.max.x]`; the strict bound makes a pair
/// with equal `min.x` come from the first sweep only.
pub fn bipartite_pairs_with<L: Lane>(a: &[Aabb], b: &[Aabb], chunk: usize) -> Vec<(u32, u32)> {
    assert!(a.len() <= u32::MAX as usize && b.len() <= u32::MAX as usize, "at most 2^32 - 1 boxes");
    let (mut sa, mut sb) = (Sorted::default(), Sorted::default());
    let (mut keys, mut tmp) = (Vec::new(), Vec::new());
    sa.build(a, &mut keys, &mut tmp);
    sb.build(b, &mut keys, &mut tmp);
    // Read on this thread: `simd::with_isa` does not reach the rayon workers.
    let isa = simd::current();
    let mut parts = par_chunks(sa.len(), chunk, |range, out| {
        let task = BipartiteTask { probes: &sa, targets: &sb, a_probes: true, range, out };
        simd::dispatch_lane::<L, _>(isa, task)
    });
    let second = par_chunks(sb.len(), chunk, |range, out| {
        let task = BipartiteTask { probes: &sb, targets: &sa, a_probes: false, range, out };
        simd::dispatch_lane::<L, _>(isa, task)
    });
    parts.extend(second);
    sort_pairs(&parts, a.len(), b.len())
}

/// One rayon task of [`bipartite_pairs_with`]'s sweeps, as one dispatched
/// body (`crate::simd`): the sorted `probes` in `range` each scan the
/// `targets` from the first one with `min.x` at or after theirs (`a_probes`:
/// the sweep of `a`'s boxes) or strictly after (the sweep of `b`'s), pair
/// keys `(index in a) << 32 | index in b` into `out`.
struct BipartiteTask<'a> {
    probes: &'a Sorted,
    targets: &'a Sorted,
    a_probes: bool,
    range: core::ops::Range<usize>,
    out: &'a mut Vec<u64>,
}

impl<L: Lane> LaneFn<L> for BipartiteTask<'_> {
    type Out = ();
    #[inline(always)]
    fn call<M: Lane>(self) {
        let BipartiteTask { probes: p, targets: t, a_probes, range, out } = self;
        // The first sweep takes `t.min_x >= p.min_x`, the second
        // `t.min_x > p.min_x`: a pair with equal `min.x` comes from the first.
        let mut j0 = match range.clone().next() {
            Some(i) => t.lower_bound(p.min_x[i], !a_probes),
            None => return,
        };
        for i in range {
            // min_x is non-decreasing in i, so the start only moves forward.
            while j0 < t.len()
                && (t.min_x[j0] < p.min_x[i] || !a_probes && t.min_x[j0] == p.min_x[i])
            {
                j0 += 1;
            }
            let id = p.id[i];
            if a_probes {
                scan(t, j0, &Probe::<M>::of(p, i), |k| out.push(pair_key(id, t.id[k])));
            } else {
                scan(t, j0, &Probe::<M>::of(p, i), |k| out.push(pair_key(t.id[k], id)));
            }
        }
    }
}

/// [`bipartite_pairs_with`] at the native lane width and an automatic chunk
/// size, on the current rayon pool.
pub fn bipartite_pairs(a: &[Aabb], b: &[Aabb]) -> Vec<(u32, u32)> {
    bipartite_pairs_with::<super::NativeLane>(a, b, auto_chunk(a.len().max(b.len())))
}
