//! Sorting the found pairs: keys `(a << 32) | b` from the scans, in any
//! order, become the sorted list of `(a, b)`. A packed LSD radix sort when
//! both indices fit in 32 bits together, a CSR scatter by first index with
//! rank-sorted runs up to [`ONE_LEVEL_MAX`] pairs, two cache-sized levels
//! above (optionally on the rayon pool).

use crate::mem::resize_advised;
use rayon::prelude::*;
use wide::u32x16;

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
pub(super) const MAX_BUCKETS: usize = 64;

/// The bucket of first index `a` is `a >> bucket_shift(n_a)`: at most
/// [`MAX_BUCKETS`] buckets of `2^shift` consecutive first indices.
#[inline]
pub(super) fn bucket_shift(n_a: usize) -> u32 {
    let mut s = 0;
    while (n_a >> s) >= MAX_BUCKETS {
        s += 1;
    }
    s
}

/// Scratch of [`place_pairs`], kept between calls by a [`BoxPruner`].
#[derive(Clone, Debug, Default)]
pub(super) struct PairScratch {
    /// Pairs per first-index bucket ([`bucket_shift`]).
    pub(super) count: Vec<u32>,
    /// One bucket's pairs while they are scattered.
    pub(super) stage: Vec<(u32, u32)>,
    /// One bucket's pairs per first index, then its run offsets.
    pub(super) local: Vec<u32>,
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
/// counting them in the scan as each pair was found cost every call a
/// read-modify-write per emitted lane, flagged non-owned ones included,
/// also when the one-level path never reads the counts (Terdiman 10k:
/// 3.5 % of its instructions; `simd-notes.md`, "Broad phase"). Level 1 scatters every pair into its bucket's
/// stretch of `out` (at most [`MAX_BUCKETS`] sequential write streams);
/// level 2 takes one bucket at a time (a few thousand pairs), copies its
/// stretch to `sc.stage`, counts it per first index, scatters it back by
/// first index (CSR) and sorts the runs, all in cache. It replaced a
/// one-level CSR scatter over the whole output, whose store missed the
/// caches (at 100k Terdiman boxes ~2/3 of the sort's time; `simd-notes.md`,
/// "Broad phase"), which had replaced an LSD radix sort of the
/// packed keys. `out` keeps its allocation and is not zero-filled where it
/// already has the length. With `par`, the two levels run on the rayon pool
/// ([`place_two_level_par`]).
pub(super) fn place_pairs(
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
pub(super) fn place_two_level_par(parts: &[&[u64]], n_a: usize, s: u32, out: &mut [(u32, u32)]) {
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
/// its time (`simd-notes.md`, "Broad phase").
pub(super) const ONE_LEVEL_MAX: usize = 256 * 1024;

/// Bits of an index below `n` (`n - 1` in binary; 0 for `n <= 1`).
pub(super) fn index_bits(n: usize) -> u32 {
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
/// phase"). A packed sort with two fresh scratch arrays per one-shot call
/// lost there (their first-touch page faults); this one lives in the
/// kept `PairScratch::local`.
pub(super) fn packed_radix(
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
pub(super) fn scatter_and_sort(
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
pub(super) fn sort_run_by_second(run: &mut [(u32, u32)]) {
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
pub(super) const RANK_SORT_MAX: usize = 64;
