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

use super::radix::sort_by_key_u32;
use crate::lane::{Lane, LaneMask};
use crate::mem::resize_advised;
use crate::shapes::Aabb;
use core::hint::select_unpredictable;
use rayon::prelude::*;
use wide::{f32x4, u32x16};

/// Lanes of padding after the sorted arrays: a sentinel with `min.x = +∞`, so a
/// forward scan of any width stops inside the arrays without a bounds test.
pub(crate) const PAD: usize = 16;

/// An order-preserving 32-bit key for a finite `f32` (`-0.0` and `+0.0` map to
/// the same key): sorting keys as integers sorts the floats.
#[inline(always)]
pub(crate) fn sort_key(x: f32) -> u32 {
    let b = (x + 0.0).to_bits(); // -0 + 0 = +0 in round-to-nearest
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// Valid boxes in structure-of-arrays form, sorted by `min.x`, each array
/// followed by [`PAD`] sentinel lanes. `id[k]` is the caller's index of entry `k`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sorted {
    pub min_x: Vec<f32>,
    pub max_x: Vec<f32>,
    pub min_y: Vec<f32>,
    pub max_y: Vec<f32>,
    pub min_z: Vec<f32>,
    pub max_z: Vec<f32>,
    pub id: Vec<u32>,
}

impl Sorted {
    /// Number of boxes (without the padding).
    #[inline]
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Empties the arrays, keeping their allocations.
    pub fn clear(&mut self) {
        self.min_x.clear();
        self.max_x.clear();
        self.min_y.clear();
        self.max_y.clear();
        self.min_z.clear();
        self.max_z.clear();
        self.id.clear();
    }

    /// Appends one box (no padding).
    #[inline(always)]
    pub fn push(&mut self, b: &Aabb, id: u32) {
        self.min_x.push(b.min.x);
        self.max_x.push(b.max.x);
        self.min_y.push(b.min.y);
        self.max_y.push(b.max.y);
        self.min_z.push(b.min.z);
        self.max_z.push(b.max.z);
        self.id.push(id);
    }

    /// Appends entry `k` of `other` (no padding).
    #[inline]
    pub fn push_from(&mut self, other: &Sorted, k: usize) {
        self.min_x.push(other.min_x[k]);
        self.max_x.push(other.max_x[k]);
        self.min_y.push(other.min_y[k]);
        self.max_y.push(other.max_y[k]);
        self.min_z.push(other.min_z[k]);
        self.max_z.push(other.max_z[k]);
        self.id.push(other.id[k]);
    }

    /// Appends the sentinel lanes: `min > max` on every axis and `min.x = +∞`,
    /// so a padded lane never passes the x test of any valid box.
    pub fn pad(&mut self) {
        for _ in 0..PAD {
            self.min_x.push(f32::INFINITY);
            self.max_x.push(f32::NEG_INFINITY);
            self.min_y.push(f32::INFINITY);
            self.max_y.push(f32::NEG_INFINITY);
            self.min_z.push(f32::INFINITY);
            self.max_z.push(f32::NEG_INFINITY);
        }
    }

    /// Rebuilds from `boxes`, keeping the valid ones ([`Aabb::is_valid`]: no
    /// NaN, finite extents, `min <= max`); `ids[k]` names `boxes[k]`. Equal
    /// `min.x` keep input order (the radix sort is stable).
    pub fn build(&mut self, boxes: &[Aabb], keys: &mut Vec<u64>, tmp: &mut Vec<u64>) {
        sorted_keys(boxes, |_| true, keys, tmp);
        self.fill(boxes, keys);
    }

    /// Rebuilds from sort keys made by [`sorted_keys`] over `boxes`, padded.
    pub fn fill(&mut self, boxes: &[Aabb], keys: &[u64]) {
        self.clear();
        self.reserve(keys.len() + PAD);
        for &k in keys {
            let i = k as u32;
            self.push(&boxes[i as usize], i);
        }
        self.pad();
    }

    fn reserve(&mut self, n: usize) {
        self.min_x.reserve(n);
        self.max_x.reserve(n);
        self.min_y.reserve(n);
        self.max_y.reserve(n);
        self.min_z.reserve(n);
        self.max_z.reserve(n);
        self.id.reserve(n);
    }

    /// First position whose `min.x` is `>= x` (`strict`: `> x`), searching the
    /// unpadded entries.
    #[inline]
    pub fn lower_bound(&self, x: f32, strict: bool) -> usize {
        let s = &self.min_x[..self.len()];
        if strict {
            s.partition_point(|&m| m <= x)
        } else {
            s.partition_point(|&m| m < x)
        }
    }
}

/// The probe box of a scan, each coordinate broadcast to every lane.
#[derive(Clone, Copy)]
struct Probe<L: Lane> {
    max_x: L,
    min_y: L,
    max_y: L,
    min_z: L,
    max_z: L,
}

impl<L: Lane> Probe<L> {
    #[inline(always)]
    fn of(s: &Sorted, k: usize) -> Self {
        Probe {
            max_x: L::splat(s.max_x[k]),
            min_y: L::splat(s.min_y[k]),
            max_y: L::splat(s.max_y[k]),
            min_z: L::splat(s.min_z[k]),
            max_z: L::splat(s.max_z[k]),
        }
    }
}

/// Scans `t` forward from `start` while `t.min_x <= probe.max_x`, calling
/// `emit(j)` for each position `j` that also overlaps the probe on y and z.
///
/// Precondition: every scanned box has `t.min_x >= probe.min_x` (so the other
/// half of the x test holds), and `t` is padded ([`Sorted::pad`]).
#[inline(always)]
fn scan<L: Lane>(t: &Sorted, start: usize, p: &Probe<L>, mut emit: impl FnMut(usize)) {
    let mut j = start;
    loop {
        // if (min_x[j] > max_x[i]) break;   -- per lane, a prefix of the lanes passes
        let in_x = L::load(&t.min_x[j..]).le(p.max_x);
        if in_x.none() {
            return;
        }
        // closed overlap on y and z: min_j <= max_i && min_i <= max_j
        let hit = in_x
            & L::load(&t.min_y[j..]).le(p.max_y)
            & p.min_y.le(L::load(&t.max_y[j..]))
            & L::load(&t.min_z[j..]).le(p.max_z)
            & p.min_z.le(L::load(&t.max_z[j..]));
        let mut bits = hit.bits();
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            emit(j + k);
            bits &= bits - 1;
        }
        if !in_x.all() {
            return;
        }
        j += L::WIDTH;
    }
}

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

/// Turns pair keys `(a << 32) | b` with `a < n_a`, `b < n_b`, spread over
/// `parts`, into the sorted list of `(a, b)` (the keys are distinct).
pub(crate) fn sort_pairs(parts: &[Vec<u64>], n_a: usize, n_b: usize) -> Vec<(u32, u32)> {
    let mut sc = PairScratch::default();
    let mut out = Vec::new();
    let slices: Vec<&[u64]> = parts.iter().map(Vec::as_slice).collect();
    place_pairs(&slices, n_a, n_b, false, &mut sc, &mut out);
    out
}

/// Most first-index buckets [`place_pairs`] splits the pairs into: each is
/// a sequential write stream of its first pass, so they stay few.
const MAX_BUCKETS: usize = 64;

/// The bucket of first index `a` is `a >> bucket_shift(n_a)`: at most
/// [`MAX_BUCKETS`] buckets of `2^shift` consecutive first indices.
#[inline]
fn bucket_shift(n_a: usize) -> u32 {
    let mut s = 0;
    while (n_a >> s) >= MAX_BUCKETS {
        s += 1;
    }
    s
}

/// Scratch of [`place_pairs`], kept between calls by a [`BoxPruner`].
#[derive(Clone, Debug, Default)]
struct PairScratch {
    /// Pairs per first-index bucket ([`bucket_shift`]).
    count: Vec<u32>,
    /// One bucket's pairs while they are scattered.
    stage: Vec<(u32, u32)>,
    /// One bucket's pairs per first index, then its run offsets.
    local: Vec<u32>,
}

/// Sorts the distinct pair keys `(a << 32) | b`, `a < n_a`, `b < n_b`, of
/// `parts` into `out` as `(a, b)` pairs.
///
/// Up to [`ONE_LEVEL_MAX`] pairs whose two indices fit in 32 bits together:
/// an LSD radix sort of packed keys ([`packed_radix`]). Other pairs up to
/// [`ONE_LEVEL_MAX`]: one CSR scatter by first index, then each
/// `a`'s run sorted on `b` ([`sort_run_by_second`]). More: a two-level
/// counting sort on `a`, each run sorted likewise. The bucket counts of
/// level 1 take a pass of their own over the keys, made only on that path:
/// counting them in the scan as each pair was found (sessions 5–6) cost
/// every call a read-modify-write per emitted lane, flagged non-owned ones
/// included, also when the one-level path never reads the counts (Terdiman
/// 10k; `simd-notes.md`, "Broad phase", session 7). Level 1 scatters every pair into its bucket's
/// stretch of `out` (at most [`MAX_BUCKETS`] sequential write streams);
/// level 2 takes one bucket at a time (a few thousand pairs), copies its
/// stretch to `sc.stage`, counts it per first index, scatters it back by
/// first index (CSR) and sorts the runs, all in cache. It replaced a
/// one-level CSR scatter over the whole output, whose store missed the
/// caches (at 100k Terdiman boxes ~2/3 of the sort's time; `simd-notes.md`,
/// "Broad phase", session 5), which had replaced an LSD radix sort of the
/// packed keys. `out` keeps its allocation and is not zero-filled where it
/// already has the length. With `par`, the two levels run on the rayon pool
/// ([`place_two_level_par`]).
fn place_pairs(
    parts: &[&[u64]],
    n_a: usize,
    n_b: usize,
    par: bool,
    sc: &mut PairScratch,
    out: &mut Vec<(u32, u32)>,
) {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if total > u32::MAX as usize {
        // More pairs than the u32 offsets hold: plain comparison sort.
        let mut all: Vec<u64> = parts.iter().flat_map(|p| p.iter()).copied().collect();
        all.sort_unstable();
        out.clear();
        out.extend(all.iter().map(|&k| ((k >> 32) as u32, k as u32)));
        return;
    }
    let PairScratch { count, stage, local } = sc;
    if out.len() < total {
        resize_advised(out, total, (0, 0));
    } else {
        out.truncate(total);
    }
    let (bits_a, bits_b) = (index_bits(n_a), index_bits(n_b));
    if total <= ONE_LEVEL_MAX && bits_a + bits_b <= 32 {
        packed_radix(parts, bits_a + bits_b, bits_b, local, out);
        return;
    }
    if total <= ONE_LEVEL_MAX {
        // Few pairs: the output is cache-sized and one CSR scatter of the
        // keys by first index is cheaper than two levels.
        let keys = parts.iter().flat_map(|p| p.iter()).map(|&k| ((k >> 32) as u32, k as u32));
        scatter_and_sort(keys, 0, n_a, 0, local, out);
        return;
    }
    let s = bucket_shift(n_a);
    if par {
        place_two_level_par(parts, n_a, s, out);
        return;
    }
    // count[q] = the number of pairs in buckets < q.
    count.clear();
    count.resize(n_a.div_ceil(1 << s).max(1), 0);
    for p in parts {
        for &k in *p {
            count[((k >> 32) as usize) >> s] += 1;
        }
    }
    let mut sum = 0u32;
    for c in count.iter_mut() {
        let t = *c;
        *c = sum;
        sum += t;
    }
    // Level 1: afterwards count[q] is the end of bucket q's stretch.
    for p in parts {
        for &k in *p {
            let a = (k >> 32) as u32;
            let f = &mut count[(a >> s) as usize];
            out[*f as usize] = (a, k as u32);
            *f += 1;
        }
    }
    // Level 2.
    let mut p0 = 0usize;
    for (q, &end) in count.iter().enumerate() {
        let p1 = end as usize;
        if p1 - p0 > 1 {
            let n_f = (1usize << s).min(n_a - (q << s));
            stage.clear();
            stage.extend_from_slice(&out[p0..p1]);
            scatter_and_sort(stage.iter().copied(), q << s, n_f, p0, local, out);
        }
        p0 = p1;
    }
}

/// The two levels of [`place_pairs`] (bucket shift `s`) on the rayon pool:
/// each part counts its pairs per bucket and scatters them into its own
/// stretch of each bucket (bucket `q` holds part 0's pairs, then part 1's,
/// ..., as in the one-thread scatter), the parts in parallel; then the
/// buckets are sorted in parallel, each task with its own staging arrays.
/// All stretches are split off `out` with `split_at_mut`.
fn place_two_level_par(parts: &[&[u64]], n_a: usize, s: u32, out: &mut [(u32, u32)]) {
    let nb = n_a.div_ceil(1 << s).max(1);
    let counts: Vec<Vec<u32>> = parts
        .par_iter()
        .map(|p| {
            let mut c = vec![0u32; nb];
            for &k in *p {
                c[((k >> 32) as usize) >> s] += 1;
            }
            c
        })
        .collect();
    let mut rest = &mut *out;
    let mut dst: Vec<Vec<&mut [(u32, u32)]>> =
        (0..parts.len()).map(|_| Vec::with_capacity(nb)).collect();
    let mut ends = Vec::with_capacity(nb);
    let mut at = 0usize;
    for q in 0..nb {
        for (d, c) in dst.iter_mut().zip(&counts) {
            let (h, t) = core::mem::take(&mut rest).split_at_mut(c[q] as usize);
            rest = t;
            at += h.len();
            d.push(h);
        }
        ends.push(at);
    }
    parts.par_iter().zip(dst.into_par_iter()).for_each(|(p, mut d)| {
        let mut pos = vec![0usize; nb];
        for &k in *p {
            let a = (k >> 32) as u32;
            let q = (a >> s) as usize;
            d[q][pos[q]] = (a, k as u32);
            pos[q] += 1;
        }
    });
    let mut rest = &mut *out;
    let mut jobs = Vec::with_capacity(nb);
    let mut p0 = 0usize;
    for (q, &end) in ends.iter().enumerate() {
        let (h, t) = core::mem::take(&mut rest).split_at_mut(end - p0);
        rest = t;
        jobs.push((q, h));
        p0 = end;
    }
    jobs.into_par_iter().with_max_len(1).for_each_init(
        || (Vec::new(), Vec::new()),
        |(stage, local), (q, h)| {
            if h.len() > 1 {
                let n_f = (1usize << s).min(n_a - (q << s));
                stage.clear();
                stage.extend_from_slice(h);
                scatter_and_sort(stage.iter().copied(), q << s, n_f, 0, local, h);
            }
        },
    );
}

/// Most pairs [`place_pairs`] sorts with a one-level scatter (2 MiB of
/// output, so it stays in the caches): at 100k boxes the two levels cost
/// the sparse set (194,596 pairs) ~7 % more instructions than main and no
/// measurable time, and saved the Terdiman set (1,144,045 pairs) ~15 % of
/// its time (`simd-notes.md`, "Broad phase", session 5).
const ONE_LEVEL_MAX: usize = 256 * 1024;

/// Bits of an index below `n` (`n - 1` in binary; 0 for `n <= 1`).
fn index_bits(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

/// Sorts the pair keys `(a << 32) | b` of `parts` into `out` (already as
/// long as all parts) by an LSD radix sort of the packed keys `a << bits_b
/// | b`, which the caller has made sure fit in `bits <= 32` bits (`b <
/// 2^bits_b`; self pairs of up to 2^16 boxes, say): three passes of at most
/// 11 bits,
/// `scratch` holding two `u32` key arrays, the last pass unpacking into
/// `out`.
///
/// For few boxes this beat the CSR scatter by first index: that one zeroes,
/// prefix-sums and walks `n_a` run counters (a branch per first index on
/// the run length, mispredicted about as often as a box has partners) and
/// sorts each run; here every pass is a straight read and a scatter into at
/// most 2048 buckets, with no per-box work at all (`simd-notes.md`, "Broad
/// phase", session 7). An earlier packed sort (session 6) took two fresh
/// scratch arrays per one-shot call and lost there; this one lives in the
/// kept `PairScratch::local`.
fn packed_radix(
    parts: &[&[u64]],
    bits: u32,
    bits_b: u32,
    scratch: &mut Vec<u32>,
    out: &mut [(u32, u32)],
) {
    let total = out.len();
    let pack = |k: u64| ((k >> 32) << bits_b | (k & 0xffff_ffff)) as u32;
    let width = bits.div_ceil(3);
    let mask = (1u32 << width) - 1;
    let digit = |v: u32, p: u32| ((v >> (p * width)) & mask) as usize;
    let mut hist = [[0u32; 2048]; 3];
    for p in parts {
        for &k in *p {
            let v = pack(k);
            hist[0][digit(v, 0)] += 1;
            hist[1][digit(v, 1)] += 1;
            hist[2][digit(v, 2)] += 1;
        }
    }
    for h in hist.iter_mut() {
        let mut sum = 0u32;
        for c in h[..=mask as usize].iter_mut() {
            let t = *c;
            *c = sum;
            sum += t;
        }
    }
    // Kept between calls (only the first 2 * total entries are used).
    if scratch.len() < 2 * total {
        scratch.resize(2 * total, 0);
    }
    let (x, y) = scratch[..2 * total].split_at_mut(total);
    let [h0, h1, h2] = &mut hist;
    for p in parts {
        for &k in *p {
            let v = pack(k);
            let f = &mut h0[digit(v, 0)];
            x[*f as usize] = v;
            *f += 1;
        }
    }
    for &v in x.iter() {
        let f = &mut h1[digit(v, 1)];
        y[*f as usize] = v;
        *f += 1;
    }
    let low = (1u64 << bits_b) - 1;
    for &v in y.iter() {
        let f = &mut h2[digit(v, 2)];
        let v = v as u64;
        out[*f as usize] = ((v >> bits_b) as u32, (v & low) as u32);
        *f += 1;
    }
}

/// Places the pairs `src` (iterated twice), whose first indices are
/// `f0..f0 + n_f`, at `out[p0..]` sorted: counts them per first index in
/// `local`, scatters them by first index (CSR), sorts each run by second.
#[inline]
fn scatter_and_sort(
    src: impl Iterator<Item = (u32, u32)> + Clone,
    f0: usize,
    n_f: usize,
    p0: usize,
    local: &mut Vec<u32>,
    out: &mut [(u32, u32)],
) {
    let f0 = f0 as u32;
    local.clear();
    local.resize(n_f, 0);
    for (a, _) in src.clone() {
        local[(a - f0) as usize] += 1;
    }
    let mut sum = p0 as u32;
    for c in local.iter_mut() {
        let t = *c;
        *c = sum;
        sum += t;
    }
    for (a, x) in src {
        let f = &mut local[(a - f0) as usize];
        out[*f as usize] = (a, x);
        *f += 1;
    }
    // Now local[i] is the end of first index f0 + i's run.
    let mut begin = p0;
    for &e in local.iter() {
        let e = e as usize;
        if e - begin > 1 {
            sort_run_by_second(&mut out[begin..e]);
        }
        begin = e;
    }
}

/// Sorts a run of pairs that share their first index by their (distinct)
/// second. Runs are a handful of entries: up to [`RANK_SORT_MAX`] are placed
/// by rank, each entry's rank being the number of entries below it, counted
/// with one lane compare per 16 entries (branch-free, unlike an insertion
/// sort whose data-dependent loop exits mispredict); a longer run (a box
/// overlapping very many) falls back to the library sort.
#[inline]
fn sort_run_by_second(run: &mut [(u32, u32)]) {
    let n = run.len();
    if n > RANK_SORT_MAX {
        run.sort_unstable_by_key(|p| p.1);
        return;
    }
    let a = run[0].0;
    // Unused lanes hold u32::MAX, above every index (< 2^32 - 1 boxes).
    let mut b = [u32::MAX; RANK_SORT_MAX];
    for (x, p) in b.iter_mut().zip(run.iter()) {
        *x = p.1;
    }
    let chunk = |c: usize| u32x16::new(b[16 * c..16 * c + 16].try_into().expect("16 lanes"));
    let rank = |v: u32x16, x: u32x16| v.simd_lt(x).to_bitmask().count_ones();
    match n.div_ceil(16) {
        1 => {
            let c0 = chunk(0);
            for &x in &b[..n] {
                run[rank(c0, u32x16::splat(x)) as usize] = (a, x);
            }
        }
        2 => {
            let (c0, c1) = (chunk(0), chunk(1));
            for &x in &b[..n] {
                let s = u32x16::splat(x);
                run[(rank(c0, s) + rank(c1, s)) as usize] = (a, x);
            }
        }
        k => {
            let cs: [u32x16; RANK_SORT_MAX / 16] = core::array::from_fn(chunk);
            for &x in &b[..n] {
                let s = u32x16::splat(x);
                let r: u32 = cs[..k].iter().map(|&c| rank(c, s)).sum();
                run[r as usize] = (a, x);
            }
        }
    }
}

/// Longest partner run [`sort_run_by_second`] sorts by rank (4 vectors of 16;
/// at 100k Terdiman boxes runs of 33–64 went to the library sort for ~13 M
/// instructions per call before this was raised from 32).
const RANK_SORT_MAX: usize = 64;

#[inline(always)]
fn pair_key(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

/// Where the scans put the pairs they find.
trait PairSink {
    /// Takes the pair of box indices `a != b`, in either order.
    fn pair(&mut self, a: u32, b: u32);
}

/// Unsorted keys `(min << 32) | max` in one array (one rayon task's share).
impl PairSink for Vec<u64> {
    #[inline(always)]
    fn pair(&mut self, a: u32, b: u32) {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        self.push(pair_key(lo, hi));
    }
}

/// Self pairs of sorted boxes `range` of `s` (plain box pruning, no grid).
fn sweep<L: Lane>(s: &Sorted, range: core::ops::Range<usize>, out: &mut impl PairSink) {
    for i in range {
        let p = Probe::<L>::of(s, i);
        let id = s.id[i];
        scan(s, i + 1, &p, |k| out.pair(id, s.id[k]));
    }
}

/// The y/z bounds and mean extent of a set of boxes, for choosing the grid.
#[derive(Clone, Copy, Debug)]
pub(crate) struct YzStats {
    lo: [f32; 2],
    hi: [f32; 2],
    /// Sums over the boxes of their y and of their z extents (two sums: one
    /// sum of both was a chain of two dependent f64 adds per box).
    extent: [f64; 2],
    n: usize,
}

impl Default for YzStats {
    fn default() -> Self {
        YzStats { lo: [f32::INFINITY; 2], hi: [f32::NEG_INFINITY; 2], extent: [0.0; 2], n: 0 }
    }
}

impl YzStats {
    #[inline(always)]
    fn add(&mut self, b: &Aabb) {
        self.lo[0] = self.lo[0].min(b.min.y);
        self.lo[1] = self.lo[1].min(b.min.z);
        self.hi[0] = self.hi[0].max(b.max.y);
        self.hi[1] = self.hi[1].max(b.max.z);
        self.extent[0] += (b.max.y - b.min.y) as f64;
        self.extent[1] += (b.max.z - b.min.z) as f64;
        self.n += 1;
    }
}

/// Sort keys `(sort_key(min.x) << 32) | index` of the valid boxes ([`Aabb::is_valid`])
/// whose index `keep` admits, radix-sorted (stable: equal `min.x` keep index
/// order), and their y/z statistics.
pub(crate) fn sorted_keys(
    boxes: &[Aabb],
    keep: impl Fn(usize) -> bool,
    keys: &mut Vec<u64>,
    tmp: &mut Vec<u64>,
) -> YzStats {
    keys.clear();
    keys.reserve(boxes.len());
    let mut st = YzStats::default();
    for (k, b) in boxes.iter().enumerate() {
        if b.is_valid() && keep(k) {
            keys.push(((sort_key(b.min.x) as u64) << 32) | k as u64);
            st.add(b);
        }
    }
    sort_by_key_u32(keys, tmp);
    st
}

/// A `g × g` grid over the y/z bounds of the boxes, `g <= 256`. `cell` is
/// monotone (subtraction, multiplication by a positive constant and clamping
/// all preserve order), which is all the pair rule below needs: the rounding
/// of the cell boundaries never changes an answer, only which cell reports it.
#[derive(Clone, Copy)]
struct Grid {
    /// `[lo_y, lo_y, lo_z, lo_z]`, matching `[min.y, max.y, min.z, max.z]`.
    lo: f32x4,
    /// Cells per unit length, laid out like `lo`.
    inv: f32x4,
    /// `g - 1` as a float, the clamp of the cell coordinate.
    top: f32x4,
}

impl Grid {
    fn new(lo: [f32; 2], hi: [f32; 2], g: usize) -> Self {
        let inv = |a: usize| {
            let w = hi[a] - lo[a];
            let i = g as f32 / w;
            if i.is_finite() && i > 0.0 {
                i
            } else {
                0.0 // zero or overflowing span: every box in cell 0 on this axis
            }
        };
        let (iy, iz) = (inv(0), inv(1));
        Grid {
            lo: f32x4::from([lo[0], lo[0], lo[1], lo[1]]),
            inv: f32x4::from([iy, iy, iz, iz]),
            top: f32x4::splat((g - 1) as f32),
        }
    }
    /// The box's cell range `y0..=y1`, `z0..=z1`, packed one byte each: per
    /// coordinate floor(t) clamped to [0, g-1], with `t = (x - lo) * inv`.
    /// `max` maps a NaN t (an overflowing `x - lo` times a zero `inv`) to 0,
    /// and truncation is the floor once t >= 0. The four coordinates go
    /// through one 4-lane vector: computed one float at a time, the
    /// saturating `as u32` conversions and the compiler's attempt to
    /// vectorize across boxes cost ~20 cycles per box (session 6).
    #[inline(always)]
    fn span(&self, b: &Aabb) -> Span {
        let x = f32x4::from([b.min.y, b.max.y, b.min.z, b.max.z]);
        let t = ((x - self.lo) * self.inv).max(f32x4::ZERO).min(self.top);
        // In [0, 255] (g <= 256), so the plain truncating conversion is exact.
        let [y0, y1, z0, z1] = t.fast_trunc_int().to_array();
        Span((y0 | y1 << 8 | z0 << 16 | z1 << 24) as u32)
    }

    /// `first[c]` = the home thresholds of cell `c` of this `g × g` grid:
    /// [`Grid::first_of`] of its row on y and of its column on z.
    fn home_thresholds(&self, g: usize, first: &mut Vec<[f32; 2]>) {
        let rows: Vec<[f32; 2]> =
            (0..g).map(|c| [self.first_of(c, 0), self.first_of(c, 1)]).collect();
        first.clear();
        first.extend((0..g * g).map(|c| [rows[c / g][0], rows[c % g][1]]));
    }

    /// The least `f32` whose cell is `c` or more on axis `a` (0: y, 1: z):
    /// a box in cell row `c` starts in it iff its `min` on that axis is at
    /// least this. Searched over the floats in order ([`sort_key`]) with
    /// [`Grid::span`] itself as the test, so it is exact for the same
    /// rounding (the cell function is monotone): steps doubling from the
    /// boundary's estimate `lo + c / inv` bracket it, a bisection ends it.
    /// Usually a few steps; at worst ~64 (the estimate can be far off in
    /// floats when `x - lo` cancels, e.g. bounds of ±1e30: single float
    /// steps took seconds there).
    fn first_of(&self, c: usize, a: usize) -> f32 {
        let lane = 2 * a;
        let (lo, inv) = (self.lo.to_array()[lane], self.inv.to_array()[lane]);
        if c == 0 {
            return f32::NEG_INFINITY;
        }
        if inv == 0.0 {
            return f32::INFINITY; // every box is in cell 0 on this axis
        }
        let from_key = |k: u32| f32::from_bits(if k >> 31 != 0 { k & 0x7fff_ffff } else { !k });
        // at_least(k): the float of key k is in cell c or later; false at
        // -inf (cell 0 < c), true at +inf (cell g - 1 >= c).
        let at_least = |k: u32| {
            let p = crate::Vec3::new(0.0, from_key(k), from_key(k));
            let sp = self.span(&Aabb::new(p, p)).0;
            ((if a == 0 { sp } else { sp >> 16 }) & 255) as usize >= c
        };
        let (k_min, k_max) = (sort_key(f32::NEG_INFINITY), sort_key(f32::INFINITY));
        let k0 = sort_key(lo + c as f32 / inv).clamp(k_min, k_max);
        // Bracket: at_least(f) false, at_least(t) true.
        let (mut f, mut t) = (k0, k0);
        let mut d = 1u32;
        if at_least(k0) {
            loop {
                f = t.saturating_sub(d).max(k_min);
                if !at_least(f) {
                    break;
                }
                t = f;
                d = d.saturating_mul(2);
            }
        } else {
            loop {
                t = f.saturating_add(d).min(k_max);
                if at_least(t) {
                    break;
                }
                f = t;
                d = d.saturating_mul(2);
            }
        }
        while t - f > 1 {
            let m = f + (t - f) / 2;
            if at_least(m) {
                t = m;
            } else {
                f = m;
            }
        }
        from_key(t)
    }
}

/// A box's cell range, `y0 | y1 << 8 | z0 << 16 | z1 << 24`.
#[derive(Clone, Copy, Debug, Default)]
struct Span(u32);

impl Span {
    #[inline(always)]
    fn y(self) -> core::ops::Range<usize> {
        (self.0 & 255) as usize..((self.0 >> 8) & 255) as usize + 1
    }
    #[inline(always)]
    fn z(self) -> core::ops::Range<usize> {
        ((self.0 >> 16) & 255) as usize..(self.0 >> 24) as usize + 1
    }
}

/// Boxes copied into the cells of a [`Grid`], each cell's run in x order and
/// followed by [`PAD`] sentinels. An entry is "home" on y in its cell if
/// its box starts in the cell's row (its first y cell is the cell's), i.e.
/// iff its `min.y >= first[c][0]` ([`Grid::first_of`]); likewise on z.
///
/// The six float arrays (`min_x, max_x, min_y, max_y, min_z, max_z`, in
/// that order) are consecutive stretches of `stride` entries of one
/// allocation, so that it is large enough for huge pages
/// ([`resize_advised`]): nine separate arrays (0.7 MB each at 100k boxes)
/// were faulted in page by page on every one-shot call that got fresh memory.
#[derive(Clone, Debug, Default)]
struct Cells {
    f: Vec<f32>,
    stride: usize,
    id: Vec<u32>,
    /// Cell `c` holds entries `start[c]..end[c]`.
    start: Vec<usize>,
    end: Vec<usize>,
    /// The least `min.y` and `min.z` of a box that starts in cell `c`'s row
    /// and column.
    first: Vec<[f32; 2]>,
}

/// Scratch of [`build_cells`], kept between calls by a [`BoxPruner`].
#[derive(Clone, Debug, Default)]
struct CellScratch {
    spans: Vec<Span>,
    count: Vec<u32>,
    fill: Vec<u32>,
    slot: Vec<u32>,
    /// One per contiguous range of the sorted keys ([`build_cells_par`]).
    ranges: Vec<RangeScratch>,
}

/// The share of one contiguous range of the sorted keys in
/// [`build_cells_par`]: its entries per cell, then where its run of each
/// cell ends in `slot`, and its box indices cell by cell.
#[derive(Clone, Debug, Default)]
struct RangeScratch {
    count: Vec<u32>,
    fill: Vec<u32>,
    slot: Vec<u32>,
}

/// `count[c]` = the number of boxes of `keys` whose `spans` touch cell `c` of
/// a `g × g` grid. A 2-D difference array: each box adds +1 at its first
/// cell and at one past its last on both axes, -1 at the two mixed corners,
/// and prefix sums over rows and columns give the counts. Four increments
/// to four distinct cells per box whatever its size, with no branch (a loop
/// over each box's cells mispredicted on about every other box).
fn count_cells(keys: &[u64], spans: &[Span], g: usize, count: &mut Vec<u32>) {
    let w = g + 1;
    count.clear();
    count.resize(w * w, 0);
    for &key in keys {
        let sp = spans[key as u32 as usize];
        let (ys, zs) = (sp.y(), sp.z());
        let (y0, y1, z0, z1) = (ys.start * w, ys.end * w, zs.start, zs.end);
        count[y0 + z0] = count[y0 + z0].wrapping_add(1);
        count[y0 + z1] = count[y0 + z1].wrapping_sub(1);
        count[y1 + z0] = count[y1 + z0].wrapping_sub(1);
        count[y1 + z1] = count[y1 + z1].wrapping_add(1);
    }
    // Prefix sums along z in each row, then along y, keeping the g × g
    // corner, packed to rows of g.
    for row in count.chunks_exact_mut(w) {
        let mut s = 0u32;
        for c in row {
            s = s.wrapping_add(*c);
            *c = s;
        }
    }
    for y in 1..g {
        for z in 0..g {
            count[y * w + z] = count[y * w + z].wrapping_add(count[(y - 1) * w + z]);
        }
    }
    for y in 0..g {
        for z in 0..g {
            count[y * g + z] = count[y * w + z];
        }
    }
    count.truncate(g * g);
}

/// Chooses the grid and copies the boxes (`keys` from [`sorted_keys`], with
/// their statistics `st`) into `cells`. Cells are about 3.5 times the mean y/z
/// extent (2×, the earlier choice, measured slower at 10k and 100k: more
/// copies and sentinels than the shorter scans save), at most `sqrt(n/16)`
/// per axis and 256; halved while boxes spanning several cells would make
/// more than `3n` entries. `false` (and `cells` untouched) when one cell
/// would do: then plain box pruning over the sorted boxes is the same and
/// cheaper.
///
/// Count the entries per cell, place each box's index in its cells in x
/// order (a counting sort, so each cell's run stays sorted), then gather the
/// boxes cell by cell into padded SoA arrays: each SoA array is written once,
/// front to back, and none is zero-filled first.
fn build_cells(
    boxes: &[Aabb],
    keys: &[u64],
    st: &YzStats,
    sc: &mut CellScratch,
    cells: &mut Cells,
) -> bool {
    let n = keys.len();
    if n < 64 {
        return false;
    }
    let mut g = grid_side(n, st);
    // Spans by box index, computed in input order (sequential reads: at 1M
    // boxes a pass in x order, a random gather, ran at memory latency).
    let CellScratch { spans, count, fill, slot, .. } = sc;
    let (total, grid) = loop {
        if g <= 1 {
            return false;
        }
        let grid = Grid::new(st.lo, st.hi, g);
        spans.clear();
        spans.extend(boxes.iter().map(|b| grid.span(b)));
        count_cells(keys, spans, g, count);
        let total: usize = count.iter().map(|&c| c as usize).sum();
        if total <= 3 * n {
            break (total, grid);
        }
        g /= 2;
    };
    if total >= u32::MAX as usize {
        return false; // entry offsets are u32 (more than 1.4e9 boxes)
    }
    let n_cells = g * g;
    // fill[c] = where cell c's next index goes. Padded by g + 1 unused
    // entries so that the fast path below may name the cells right of and
    // below any cell.
    cell_offsets(count, g, fill);
    // The box indices of each cell, cell by cell, each cell's in x order;
    // slot[total] takes the writes of the fast path's unused cells.
    slot.clear();
    slot.resize(total + 1, 0);
    scatter_slots(keys, spans, g, fill, slot);
    let len = total + n_cells * PAD;
    let Cells { f, stride, id: ids, start, end, first } = cells;
    // Sized once and written by index (a push per array per entry cost more
    // than the gather itself: ~1 M instructions per call at 10k boxes).
    *stride = len;
    resize_advised(f, 6 * len, 0.0);
    ids.resize(len, 0);
    let mut parts = f.chunks_exact_mut(len);
    let [min_x, max_x, min_y, max_y, min_z, max_z] =
        core::array::from_fn(|_| parts.next().expect("6 arrays"));
    start.clear();
    end.clear();
    // Home by threshold per row and column, not by two more arrays of
    // per-entry flags: those were two more stores per entry in the gather
    // below (its cost is the stores) and two more streams for the scan.
    grid.home_thresholds(g, first);
    let (mut e, mut o) = (0, 0);
    for &cnt in count.iter() {
        let cnt = cnt as usize;
        let src = &slot[e..e + cnt];
        let (x0, x1) = (&mut min_x[o..o + cnt], &mut max_x[o..o + cnt]);
        let (y0, y1) = (&mut min_y[o..o + cnt], &mut max_y[o..o + cnt]);
        let (z0, z1) = (&mut min_z[o..o + cnt], &mut max_z[o..o + cnt]);
        let id = &mut ids[o..o + cnt];
        for k in 0..cnt {
            let i = src[k];
            let b = &boxes[i as usize];
            (x0[k], x1[k]) = (b.min.x, b.max.x);
            (y0[k], y1[k]) = (b.min.y, b.max.y);
            (z0[k], z1[k]) = (b.min.z, b.max.z);
            id[k] = i;
        }
        start.push(o);
        end.push(o + cnt);
        e += cnt;
        o += cnt;
        pad_cell(
            [&mut *min_x, &mut *max_x, &mut *min_y, &mut *max_y, &mut *min_z, &mut *max_z],
            ids,
            o,
        );
        o += PAD;
    }
    true
}

/// `fill[c]` = the sum of `count` before cell `c` (where cell `c`'s first
/// slot goes), padded by `g + 1` unused entries so that [`scatter_slots`]'
/// fast path may name the cells right of and below any cell; returns the
/// total.
fn cell_offsets(count: &[u32], g: usize, fill: &mut Vec<u32>) -> u32 {
    fill.clear();
    let mut at = 0;
    for &c in count {
        fill.push(at);
        at += c;
    }
    fill.resize(count.len() + g + 1, 0);
    at
}

/// Writes the [`PAD`] sentinels of a cell at entry `o` of the six float
/// arrays (`min_x, max_x, min_y, max_y, min_z, max_z`) and of `ids`: min >
/// max on every axis and min.x = +inf, so no scan passes them.
#[inline]
fn pad_cell(arrays: [&mut [f32]; 6], ids: &mut [u32], o: usize) {
    let pad = o..o + PAD;
    for (a, v) in arrays.into_iter().enumerate() {
        v[pad.clone()].fill(if a % 2 == 0 { f32::INFINITY } else { f32::NEG_INFINITY });
    }
    ids[pad].fill(0);
}

/// Cells per axis of the grid of [`build_cells`] before halving: about 3.5
/// mean y/z extents per cell, at most `sqrt(n/16)` and 256.
#[inline(always)]
fn grid_side(n: usize, st: &YzStats) -> usize {
    let mean = ((st.extent[0] + st.extent[1]) / (2 * n) as f64).max(f64::MIN_POSITIVE);
    let span = ((st.hi[0] - st.lo[0]) as f64).max((st.hi[1] - st.lo[1]) as f64);
    (span / (3.5 * mean)).min(((n / 16) as f64).sqrt()).clamp(1.0, 256.0) as usize
}

/// Writes the index of each box of `keys` (in order) to `slot[fill[c]]` for
/// each cell `c` it touches, advancing `fill[c]`. `fill` holds `g + 1`
/// unused entries past the `g × g` cells and the last entry of `slot` takes
/// the writes of the fast path's unused cells.
#[inline(always)]
fn scatter_slots(keys: &[u64], spans: &[Span], g: usize, fill: &mut [u32], slot: &mut [u32]) {
    let trash = (slot.len() - 1) as u32;
    for &key in keys {
        let id = key as u32;
        let sp = spans[id as usize];
        let (ys, zs) = (sp.y(), sp.z());
        let c = ys.start * g + zs.start;
        let (dy, dz) = (ys.len() - 1, zs.len() - 1);
        if dy <= 1 && dz <= 1 {
            // At most 2 × 2 cells (every box when cells are wider than the
            // boxes): the four candidate cells, each written whether the box
            // touches it or not, the unused ones into `trash`. Branch-free:
            // the loops below mispredicted on about every other box.
            for (k, on) in [(0, true), (1, dz == 1), (g, dy == 1), (g + 1, dy + dz == 2)] {
                let f = fill[c + k];
                slot[(if on { f } else { trash }) as usize] = id;
                fill[c + k] = f + on as u32;
            }
        } else {
            for cy in ys {
                for cz in zs.clone() {
                    let f = &mut fill[cy * g + cz];
                    slot[*f as usize] = id;
                    *f += 1;
                }
            }
        }
    }
}

/// Boxes per rayon task of the span pass of [`build_cells_par`].
const SPAN_CHUNK: usize = 1 << 14;

/// [`build_cells`] on the rayon pool (the same cells, entry for entry), for
/// more than one thread: a parallel stable counting sort. The spans are
/// computed in parallel over the boxes; the sorted keys are cut into one
/// contiguous range per thread, each range counts its entries per cell
/// ([`count_cells`]) and scatters its box indices by cell into its own
/// slot array ([`scatter_slots`]); the gather into the SoA arrays runs in
/// parallel over groups of consecutive cells (disjoint output stretches,
/// split off with `split_at_mut`), each cell taking range 0's run, then
/// range 1's, ..., which is x order since the ranges are.
fn build_cells_par(
    boxes: &[Aabb],
    keys: &[u64],
    st: &YzStats,
    sc: &mut CellScratch,
    cells: &mut Cells,
) -> bool {
    let n = keys.len();
    if n < 64 {
        return false;
    }
    let threads = rayon::current_num_threads().max(1);
    let mut g = grid_side(n, st);
    let CellScratch { spans, count, ranges, .. } = sc;
    ranges.resize_with(threads, Default::default);
    let per = n.div_ceil(threads);
    let range_keys = |r: usize| &keys[(r * per).min(n)..((r + 1) * per).min(n)];
    let (total, grid) = loop {
        if g <= 1 {
            return false;
        }
        let grid = Grid::new(st.lo, st.hi, g);
        spans.resize(boxes.len(), Span(0));
        spans.par_chunks_mut(SPAN_CHUNK).zip(boxes.par_chunks(SPAN_CHUNK)).for_each(|(s, b)| {
            for (s, b) in s.iter_mut().zip(b) {
                *s = grid.span(b);
            }
        });
        let sp = &spans[..];
        ranges.par_iter_mut().enumerate().for_each(|(r, rs)| {
            count_cells(range_keys(r), sp, g, &mut rs.count);
        });
        let total: usize = ranges.iter().flat_map(|rs| rs.count.iter()).map(|&c| c as usize).sum();
        if total <= 3 * n {
            break (total, grid);
        }
        g /= 2;
    };
    if total >= u32::MAX as usize {
        return false;
    }
    let n_cells = g * g;
    count.clear();
    count.extend((0..n_cells).map(|c| ranges.iter().map(|rs| rs.count[c]).sum::<u32>()));
    let sp = &spans[..];
    ranges.par_iter_mut().enumerate().for_each(|(r, rs)| {
        let RangeScratch { count, fill, slot } = rs;
        let at = cell_offsets(count, g, fill);
        slot.clear();
        slot.resize(at as usize + 1, 0);
        scatter_slots(range_keys(r), sp, g, fill, slot);
        // Now fill[c] is the end of cell c's run in slot.
    });
    let len = total + n_cells * PAD;
    let Cells { f, stride, id: ids, start, end, first } = cells;
    *stride = len;
    resize_advised(f, 6 * len, 0.0);
    ids.resize(len, 0);
    start.clear();
    end.clear();
    let mut o = 0;
    for &cnt in count.iter() {
        start.push(o);
        end.push(o + cnt as usize);
        o += cnt as usize + PAD;
    }
    grid.home_thresholds(g, first);
    // Groups of consecutive cells of about equal stretches, several per
    // thread, each with its own slices of the seven arrays.
    let target = len.div_ceil(4 * threads).max(1);
    let mut arrs: [&mut [f32]; 6] = {
        let mut parts = f.chunks_exact_mut(len);
        core::array::from_fn(|_| parts.next().expect("6 arrays"))
    };
    let mut id_rest: &mut [u32] = &mut ids[..];
    let mut jobs = Vec::with_capacity(4 * threads + 1);
    let mut c0 = 0;
    for (c, &e) in end.iter().enumerate() {
        let stop = e + PAD;
        if stop - start[c0] >= target || c + 1 == n_cells {
            let glen = stop - start[c0];
            let heads: [&mut [f32]; 6] = core::array::from_fn(|a| {
                let (h, t) = core::mem::take(&mut arrs[a]).split_at_mut(glen);
                arrs[a] = t;
                h
            });
            let (h, t) = core::mem::take(&mut id_rest).split_at_mut(glen);
            id_rest = t;
            jobs.push((c0..c + 1, heads, h));
            c0 = c + 1;
        }
    }
    let (start, ranges) = (&start[..], &ranges[..]);
    jobs.into_par_iter().for_each(|(cs, heads, ids)| {
        let [min_x, max_x, min_y, max_y, min_z, max_z] = heads;
        let base = start[cs.start];
        for c in cs {
            let mut o = start[c] - base;
            for rs in ranges {
                let e = rs.fill[c] as usize;
                for &i in &rs.slot[e - rs.count[c] as usize..e] {
                    let b = &boxes[i as usize];
                    (min_x[o], max_x[o]) = (b.min.x, b.max.x);
                    (min_y[o], max_y[o]) = (b.min.y, b.max.y);
                    (min_z[o], max_z[o]) = (b.min.z, b.max.z);
                    ids[o] = i;
                    o += 1;
                }
            }
            pad_cell(
                [&mut *min_x, &mut *max_x, &mut *min_y, &mut *max_y, &mut *min_z, &mut *max_z],
                ids,
                o,
            );
        }
    });
    true
}

/// The slices of one cell of [`Cells`] (its entries and the [`PAD`]
/// sentinels after them).
struct CellView<'a> {
    min_x: &'a [f32],
    max_x: &'a [f32],
    min_y: &'a [f32],
    max_y: &'a [f32],
    min_z: &'a [f32],
    max_z: &'a [f32],
    id: &'a [u32],
    /// The least `min.y` and `min.z` of a box starting in the cell's row and
    /// column ([`Cells::first`]).
    first: [f32; 2],
    /// Number of entries (without the sentinels).
    len: usize,
}

impl<'a> CellView<'a> {
    #[inline(always)]
    fn of(cells: &'a Cells, c: usize) -> Self {
        let (s, e) = (cells.start[c], cells.end[c]);
        let lim = e + PAD;
        // Array `a` of the six in `cells.f`, this cell's stretch.
        let arr = |a: usize| &cells.f[a * cells.stride + s..a * cells.stride + lim];
        CellView {
            min_x: arr(0),
            max_x: arr(1),
            min_y: arr(2),
            max_y: arr(3),
            min_z: arr(4),
            max_z: arr(5),
            id: &cells.id[s..lim],
            first: cells.first[c],
            len: e - s,
        }
    }

    /// Box pruning of entry `i` against the later entries of the cell,
    /// calling `emit(k, true)` for each entry `k` whose pair with `i` the cell
    /// owns, and `emit(k, false)` for some entries `k` it does not own (at
    /// most two per lane vector), which the sink must ignore.
    ///
    /// A pair belongs to the cell iff, on each axis, one of the two boxes
    /// starts in it (is "home"). That test is folded into the overlap
    /// compares, so a duplicate costs no branch: on y, if probe `i` is home
    /// the test is the plain `min_y[k] <= max_y[i] && min_y[i] <= max_y[k]`;
    /// if it is not, box `k` must be home, and then `cell(min_y[i]) <
    /// cell(min_y[k])` gives `min_y[i] < min_y[k] <= max_y[k]` (the cell
    /// function is monotone), so the second half holds and is replaced by
    /// "`k` is home": `first_y <= min_y[k]`. Same on z. The probe picks the
    /// array and the value it compares against once.
    #[inline(always)]
    fn probe<L: Lane>(&self, i: usize, mut emit: impl FnMut(usize, bool)) {
        let CellView { min_x, max_x, min_y, max_y, min_z, max_z, first, .. } = *self;
        let [first_y, first_z] = first;
        // if i is home: min_y[i] <= max_y[k]   else: first_y <= min_y[k]
        // About a quarter of the probes are not home on an axis, in no
        // pattern: as a plain `if` these compiled to branches that
        // mispredicted; `select_unpredictable` asks for conditional moves.
        let home = |m: f32, f: f32| m >= f;
        let (ty, vy) =
            select_unpredictable(home(min_y[i], first_y), (max_y, min_y[i]), (min_y, first_y));
        let (tz, vz) =
            select_unpredictable(home(min_z[i], first_z), (max_z, min_z[i]), (min_z, first_z));
        let (px, py, pz) = (L::splat(max_x[i]), L::splat(max_y[i]), L::splat(max_z[i]));
        let (vy, vz) = (L::splat(vy), L::splat(vz));
        let mut j = i + 1;
        loop {
            // if (min_x[j] > max_x[i]) break;   -- per lane, a prefix of the lanes passes
            let in_x = L::load(&min_x[j..]).le(px);
            if in_x.none() {
                break;
            }
            let hit = in_x
                & L::load(&min_y[j..]).le(py)
                & vy.le(L::load(&ty[j..]))
                & L::load(&min_z[j..]).le(pz)
                & vz.le(L::load(&tz[j..]));
            let mut bits = hit.bits();
            // The first two hits (for a missing one, lane W - 1, inside the
            // loaded vector) go out with a flag instead of a branch: most
            // vectors hold zero to two hits, and the loop over the mask bits
            // mispredicted on about every other probe. One flagged hit cut
            // Terdiman 10k by 7 %, a second one 100k by another 5 %.
            for _ in 0..2 {
                emit(j + (bits | 1 << (L::WIDTH - 1)).trailing_zeros() as usize, bits != 0);
                bits &= bits.wrapping_sub(1);
            }
            while bits != 0 {
                emit(j + bits.trailing_zeros() as usize, true);
                bits &= bits - 1;
            }
            if !in_x.all() {
                break;
            }
            j += L::WIDTH;
        }
    }
}

/// Box pruning inside cell `c`, keeping the pairs the cell owns (see
/// [`CellView::probe`]): writes the keys `(lo << 32) | hi` to
/// `keys[w..]` (growing `keys` once per probe as needed, not per pair) and
/// returns the new `w`.
#[inline]
fn scan_cell_into<L: Lane>(cells: &Cells, c: usize, keys: &mut Vec<u64>, mut w: usize) -> usize {
    let v = CellView::of(cells, c);
    for i in 0..v.len {
        // Entry i pairs with at most the v.len - i - 1 entries after it.
        let need = w + v.len - i;
        if need > keys.len() {
            let grown = (2 * keys.len()).max(need).max(1024);
            resize_advised(keys, grown, 0);
        }
        let buf = keys.as_mut_slice();
        let a = v.id[i];
        // A pair the cell does not own is written past the end (room is
        // there: it comes before this probe's last pair).
        v.probe::<L>(i, |k, own| {
            let b = v.id[k];
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            buf[w] = pair_key(lo, hi);
            w += own as usize;
        });
    }
    w
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
                let mut w = 0;
                for c in 0..n_cells {
                    w = scan_cell_into::<L>(&self.cells, c, &mut self.raw, w);
                }
                w
            } else {
                self.raw.clear();
                let n = self.sorted.len();
                sweep::<L>(&self.sorted, 0..n, &mut self.raw);
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
                    let mut w = 0;
                    for c in b[0]..b[1] {
                        w = scan_cell_into::<L>(cells, c, raw, w);
                    }
                    w
                })
                .collect();
            let slices: Vec<&[u64]> = self.par_raw.iter().zip(&ws).map(|(r, &w)| &r[..w]).collect();
            place_pairs(&slices, n_a, n_a, true, &mut self.sort, &mut self.pairs);
            return;
        }
        let parts: Vec<Vec<u64>> = {
            let s = &self.sorted;
            par_chunks(s.len(), chunk, |range, out| sweep::<L>(s, range, out))
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
/// (`simd-notes.md`, "Broad phase", session 7). Keep a [`BoxPruner`] of
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
    let mut parts = par_chunks(sa.len(), chunk, |range, out| {
        let mut j0 = match range.clone().next() {
            Some(i) => sb.lower_bound(sa.min_x[i], false),
            None => return,
        };
        for i in range {
            // min_x is non-decreasing in i, so the start only moves forward.
            while j0 < sb.len() && sb.min_x[j0] < sa.min_x[i] {
                j0 += 1;
            }
            let id = sa.id[i];
            scan(&sb, j0, &Probe::<L>::of(&sa, i), |k| out.push(pair_key(id, sb.id[k])));
        }
    });
    let second = par_chunks(sb.len(), chunk, |range, out| {
        let mut i0 = match range.clone().next() {
            Some(j) => sa.lower_bound(sb.min_x[j], true),
            None => return,
        };
        for j in range {
            while i0 < sa.len() && sa.min_x[i0] <= sb.min_x[j] {
                i0 += 1;
            }
            let id = sb.id[j];
            scan(&sa, i0, &Probe::<L>::of(&sb, j), |k| out.push(pair_key(sa.id[k], id)));
        }
    });
    parts.extend(second);
    sort_pairs(&parts, a.len(), b.len())
}

/// [`bipartite_pairs_with`] at the native lane width and an automatic chunk
/// size, on the current rayon pool.
pub fn bipartite_pairs(a: &[Aabb], b: &[Aabb]) -> Vec<(u32, u32)> {
    bipartite_pairs_with::<super::NativeLane>(a, b, auto_chunk(a.len().max(b.len())))
}

/// Scans all of `t` for boxes overlapping `q` (both halves of every axis
/// test), starting at `start`, which must be at or before the first entry
/// whose `max.x >= q.min.x`. Used by the incremental broad phase. Kept apart
/// from `scan`: folding it in as a const-generic variant made the one-shot
/// query 12 % slower at 100k boxes (measured, 4 alternating CLI runs each).
#[inline]
pub(crate) fn scan_full<L: Lane>(t: &Sorted, start: usize, q: &Aabb, mut emit: impl FnMut(u32)) {
    let p = Probe::<L> {
        max_x: L::splat(q.max.x),
        min_y: L::splat(q.min.y),
        max_y: L::splat(q.max.y),
        min_z: L::splat(q.min.z),
        max_z: L::splat(q.max.z),
    };
    let min_x = L::splat(q.min.x);
    let mut j = start;
    loop {
        let in_x = L::load(&t.min_x[j..]).le(p.max_x);
        if in_x.none() {
            return;
        }
        let hit = in_x
            & min_x.le(L::load(&t.max_x[j..]))
            & L::load(&t.min_y[j..]).le(p.max_y)
            & p.min_y.le(L::load(&t.max_y[j..]))
            & L::load(&t.min_z[j..]).le(p.max_z)
            & p.min_z.le(L::load(&t.max_z[j..]));
        let mut bits = hit.bits();
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            emit(t.id[j + k]);
            bits &= bits - 1;
        }
        if !in_x.all() {
            return;
        }
        j += L::WIDTH;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vec3;

    /// The cell of coordinate `v` on axis `a` (0: y, 1: z), by [`Grid::span`].
    fn cell(grid: &Grid, v: f32, a: usize) -> usize {
        let p = Vec3::new(0.0, v, v);
        let sp = grid.span(&Aabb::new(p, p));
        if a == 0 {
            sp.y().start
        } else {
            sp.z().start
        }
    }

    /// [`Grid::first_of`] is exactly the least float of each cell: the scan's
    /// home test (`min >= first`) must agree with the cell of `min` for every
    /// float, and a threshold one float off would misjudge boxes that start
    /// on a cell boundary.
    #[test]
    fn first_of_is_the_least_float_of_its_cell() {
        let cases: [([f32; 2], [f32; 2], usize); 6] = [
            ([-2175.0, -2175.0], [2175.0, 2175.0], 9),
            ([0.1, -0.3], [0.7, 0.9], 7),
            ([0.0, 0.0], [64.0, 64.0], 8),
            ([-1e30, 1e-3], [1e30, 1e7], 256),
            ([3.0, 5.0], [3.0, 5.0000005], 2),
            ([-7.25, 1.0], [1e-20, 1.0], 255),
        ];
        for (lo, hi, g) in cases {
            let grid = Grid::new(lo, hi, g);
            for a in 0..2 {
                let mut prev = f32::NEG_INFINITY;
                for c in 0..g {
                    let f = grid.first_of(c, a);
                    assert!(f >= prev, "{lo:?} {hi:?} g={g} axis {a} cell {c}: not monotone");
                    prev = f;
                    if f.is_finite() {
                        assert!(cell(&grid, f, a) >= c, "{lo:?} {hi:?} g={g} a={a} c={c}: {f}");
                    }
                    if c > 0 && f > f32::MIN {
                        let below = f.next_down();
                        assert!(cell(&grid, below, a) < c, "{lo:?} {hi:?} g={g} a={a} c={c}: {f}");
                    }
                }
            }
        }
    }
}
