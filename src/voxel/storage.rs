//! Voxel storage: a dense bit grid (x fastest, one `u64` word per 64 voxels of
//! a row) up to [`DENSE_AUTO_LIMIT`] voxels, and sparse 8³ bricks above it, so
//! a surface at 8192³ takes memory proportional to its area.
//!
//! Both are filled slab by slab: every rayon task owns a disjoint range of
//! z layers (a `chunks_mut` slice of the dense words, or its own brick map),
//! so the hot path has no atomics and no locks, and the result is the same for
//! any thread count.

use crate::simd::vox::VoxI32;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher of the brick maps: their keys are brick indices (integers, not
/// attacker-chosen), so SipHash's DoS resistance buys nothing, and it cost
/// 6–7 % of a tile's time (`perf`, dragon_sub4 4096³ tiles on one thread).
/// A multiply by the golden-ratio constant, folded so the low bits (the
/// table's bucket index) see the high ones.
#[derive(Default, Clone, Copy)]
pub(crate) struct BrickHasher(u64);

impl Hasher for BrickHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, key: u64) {
        let h = (self.0.rotate_left(5) ^ key).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

/// A map from brick keys with [`BrickHasher`].
pub(crate) type BrickMap<V> = HashMap<u64, V, BuildHasherDefault<BrickHasher>>;

/// Grids with at most this many voxels (1024³) are stored densely by default.
pub const DENSE_AUTO_LIMIT: u64 = 1 << 30;
/// Largest dense grid accepted (2048³ voxels = 1 GiB of bits); larger grids
/// must be sparse.
pub const DENSE_MAX: u64 = 1 << 33;

/// Edge of a sparse brick, in voxels.
pub const BRICK: u32 = 8;

/// A dense bit grid, x fastest: voxel `(i, j, k)` is bit `i % 64` of word
/// `(k·ny + j)·words_per_row + i / 64`.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseBits {
    /// Dimensions.
    pub dims: [u32; 3],
    /// `ceil(nx / 64)`.
    pub words_per_row: usize,
    /// The bits.
    pub words: GridWords,
}

/// The words of a [`DenseBits`] grid: a `[u64]` (it derefs to one) in a
/// block that starts on a 2 MiB boundary, on transparent huge pages.
///
/// Why not a `Vec<u64>`: a `Vec` starts where the allocator puts it, and
/// only its 2 MiB-aligned interior can get huge pages; the rest (up to 2 MiB
/// at each end) faulted in 4 KiB pages, ~500 faults of 2.6 µs on every
/// fresh 512³ grid (simd-notes.md, "Voxelizer").
#[derive(Clone)]
pub struct GridWords(crate::mem::HugeBuf<u64>);

impl GridWords {
    /// `len` zero words.
    pub fn zeroed(len: usize) -> GridWords {
        GridWords(crate::mem::HugeBuf::zeroed(len))
    }
}

/// The words as given (a plain block, not moved onto huge pages).
impl From<Vec<u64>> for GridWords {
    fn from(words: Vec<u64>) -> GridWords {
        GridWords(words.into())
    }
}

impl std::ops::Deref for GridWords {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.0
    }
}

impl std::ops::DerefMut for GridWords {
    fn deref_mut(&mut self) -> &mut [u64] {
        &mut self.0
    }
}

impl std::fmt::Debug for GridWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for GridWords {
    fn eq(&self, other: &GridWords) -> bool {
        **self == **other
    }
}

impl DenseBits {
    /// An empty grid. Errors (as `None`) when it would exceed [`DENSE_MAX`].
    pub fn new(dims: [u32; 3]) -> Option<DenseBits> {
        let n: u64 = dims.iter().map(|&d| d as u64).product();
        if n > DENSE_MAX {
            return None;
        }
        let wpr = DenseBits::row_words(dims[0]);
        let words = GridWords::zeroed(wpr * dims[1] as usize * dims[2] as usize);
        Some(DenseBits { dims, words_per_row: wpr, words })
    }

    /// Words per row of `nx` voxels (`ceil(nx / 64)`).
    pub(crate) fn row_words(nx: u32) -> usize {
        (nx as usize).div_ceil(64)
    }

    /// A grid of `dims` built slab by slab: `fill(s, words)` runs once for
    /// each slab `s` of `layers` z layers (its words, zeroed), on the rayon
    /// threads, the slabs handed out one at a time in decreasing order of
    /// `work(s)` (longest processing time first). `None` above
    /// [`DENSE_MAX`].
    ///
    /// Each slab's task zeroes its own words before filling them
    /// ([`HugeBuf::zeroed_in_parts`](crate::mem::HugeBuf::zeroed_in_parts)),
    /// instead of `calloc` zeroing the whole grid up front: a reused heap
    /// block is zeroed by a serial memset (16 MiB at 512³, ~0.65 ms on this
    /// machine), and the task's zeroing also brings its slab into cache just
    /// before it writes there (bunny 512³, 2 threads: −0.25 ms of 6.4;
    /// simd-notes.md, "Voxelizer").
    pub(crate) fn build_by_slabs(
        dims: [u32; 3],
        layers: u32,
        work: impl Fn(usize) -> u64,
        fill: impl Fn(usize, &mut [u64]) + Sync,
    ) -> Option<DenseBits> {
        let n: u64 = dims.iter().map(|&d| d as u64).product();
        if n > DENSE_MAX || layers == 0 {
            return None;
        }
        let wpr = DenseBits::row_words(dims[0]);
        let len = wpr * dims[1] as usize * dims[2] as usize;
        let stride = (layers as usize * dims[1] as usize * wpr).max(1);
        let words = crate::mem::HugeBuf::zeroed_in_parts(len, stride, work, fill);
        Some(DenseBits { dims, words_per_row: wpr, words: GridWords(words) })
    }

    /// Calls `f` on every set voxel, `k` slowest, then `j`, then `i`.
    pub fn for_each(&self, mut f: impl FnMut([u32; 3])) {
        let ny = self.dims[1] as usize;
        for (w, &word) in self.words.iter().enumerate() {
            let mut bits = word;
            let row = w / self.words_per_row;
            let base = (w % self.words_per_row) as u32 * 64;
            while bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                f([base + b, (row % ny) as u32, (row / ny) as u32]);
            }
        }
    }

    /// Whether voxel `v` is set.
    #[inline]
    pub fn get(&self, v: [u32; 3]) -> bool {
        let w = (v[2] as usize * self.dims[1] as usize + v[1] as usize) * self.words_per_row
            + v[0] as usize / 64;
        self.words[w] >> (v[0] % 64) & 1 == 1
    }

    /// Clears voxel `v`.
    #[inline]
    pub fn clear(&mut self, v: [u32; 3]) {
        let w = (v[2] as usize * self.dims[1] as usize + v[1] as usize) * self.words_per_row
            + v[0] as usize / 64;
        self.words[w] &= !(1 << (v[0] % 64));
    }

    /// Sets voxel `v`.
    #[inline]
    pub fn set(&mut self, v: [u32; 3]) {
        let w = (v[2] as usize * self.dims[1] as usize + v[1] as usize) * self.words_per_row
            + v[0] as usize / 64;
        self.words[w] |= 1 << (v[0] % 64);
    }
}

/// Sparse storage: 8³ bricks (`[u64; 8]`, word `z % 8`, bit `(y % 8)·8 + x % 8`)
/// keyed by `(bz·nby + by)·nbx + bx`, sorted by key.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseBricks {
    /// Dimensions.
    pub dims: [u32; 3],
    /// Non-empty bricks sorted by key.
    pub bricks: Vec<(u64, [u64; 8])>,
}

impl SparseBricks {
    fn nb(&self) -> [u64; 3] {
        self.dims.map(|d| d.div_ceil(BRICK) as u64)
    }
    /// Whether voxel `v` is set.
    pub fn get(&self, v: [u32; 3]) -> bool {
        let nb = self.nb();
        let key =
            ((v[2] / BRICK) as u64 * nb[1] + (v[1] / BRICK) as u64) * nb[0] + (v[0] / BRICK) as u64;
        match self.bricks.binary_search_by_key(&key, |b| b.0) {
            Ok(p) => {
                self.bricks[p].1[(v[2] % BRICK) as usize] >> ((v[1] % 8) * 8 + v[0] % 8) & 1 == 1
            }
            Err(_) => false,
        }
    }
}

/// A set of voxels of a grid.
#[derive(Clone, Debug, PartialEq)]
pub enum VoxelSet {
    /// Dense bits.
    Dense(DenseBits),
    /// Sparse bricks.
    Sparse(SparseBricks),
}

impl VoxelSet {
    /// Grid dimensions.
    pub fn dims(&self) -> [u32; 3] {
        match self {
            VoxelSet::Dense(d) => d.dims,
            VoxelSet::Sparse(s) => s.dims,
        }
    }

    /// Whether voxel `v` is in the set (false outside the grid).
    pub fn get(&self, v: [u32; 3]) -> bool {
        let d = self.dims();
        if v[0] >= d[0] || v[1] >= d[1] || v[2] >= d[2] {
            return false;
        }
        match self {
            VoxelSet::Dense(b) => b.get(v),
            VoxelSet::Sparse(s) => s.get(v),
        }
    }

    /// Number of voxels in the set. Dense bits are counted in blocks over
    /// the current rayon pool, each block a dispatched body (`popcnt` on a
    /// plain x86-64 build too, as in [`indices_flat`](Self::indices_flat)).
    pub fn count(&self) -> u64 {
        use rayon::prelude::*;
        match self {
            VoxelSet::Dense(d) => {
                let isa = crate::simd::current();
                d.words
                    .par_chunks(COUNT_BLOCK_WORDS)
                    .map(|c| crate::simd::dispatch(isa, IndexPass::Count(c)) as u64)
                    .sum()
            }
            VoxelSet::Sparse(s) => s
                .bricks
                .iter()
                .map(|b| b.1.iter().map(|w| w.count_ones() as u64).sum::<u64>())
                .sum(),
        }
    }

    /// Bytes used by the voxel storage itself.
    pub fn heap_bytes(&self) -> usize {
        match self {
            VoxelSet::Dense(d) => d.words.len() * 8,
            VoxelSet::Sparse(s) => s.bricks.len() * 72,
        }
    }

    /// Calls `f` on every voxel of the set, in z-major, then y, then x order
    /// (`k`, then `j`, then `i` increasing) for dense sets; sparse sets go
    /// brick by brick (use [`VoxelSet::indices`] for a sorted list).
    pub fn for_each(&self, mut f: impl FnMut([u32; 3])) {
        match self {
            VoxelSet::Dense(d) => d.for_each(f),
            VoxelSet::Sparse(s) => {
                let nb = s.nb();
                for (key, brick) in &s.bricks {
                    let bx = (key % nb[0]) as u32 * BRICK;
                    let by = (key / nb[0] % nb[1]) as u32 * BRICK;
                    let bz = (key / nb[0] / nb[1]) as u32 * BRICK;
                    for (z, &word) in brick.iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let b = bits.trailing_zeros();
                            bits &= bits - 1;
                            f([bx + b % 8, by + b / 8, bz + z as u32]);
                        }
                    }
                }
            }
        }
    }

    /// All voxels as `[i, j, k]`, sorted by `(k, j, i)`.
    pub fn indices(&self) -> Vec<[u32; 3]> {
        let mut v = Vec::new();
        self.for_each_sorted(|p| v.push(p));
        v
    }

    /// The set over `dims` holding the voxels of `idx` (flat `i, j, k`
    /// triples, each inside `dims`; duplicates allowed): dense bits up to
    /// [`DENSE_AUTO_LIMIT`] voxels, sparse bricks above. The inverse of
    /// [`indices_flat`](Self::indices_flat).
    pub fn from_indices(dims: [u32; 3], idx: &[u32]) -> VoxelSet {
        let n: u64 = dims.iter().map(|&d| d as u64).product();
        if n <= DENSE_AUTO_LIMIT {
            let mut d = DenseBits::new(dims).expect("at most DENSE_AUTO_LIMIT voxels");
            for v in idx.chunks_exact(3) {
                d.set([v[0], v[1], v[2]]);
            }
            return VoxelSet::Dense(d);
        }
        let nb = dims.map(|d| d.div_ceil(BRICK) as u64);
        let mut map: BrickMap<[u64; 8]> = BrickMap::default();
        for v in idx.chunks_exact(3) {
            let key = ((v[2] / BRICK) as u64 * nb[1] + (v[1] / BRICK) as u64) * nb[0]
                + (v[0] / BRICK) as u64;
            map.entry(key).or_default()[(v[2] % BRICK) as usize] |=
                1 << ((v[1] % 8) * 8 + v[0] % 8);
        }
        let mut bricks: Vec<(u64, [u64; 8])> = map.into_iter().collect();
        bricks.sort_unstable_by_key(|b| b.0);
        VoxelSet::Sparse(SparseBricks { dims, bricks })
    }

    /// [`indices`](Self::indices) as one flat `i, j, k, i, j, k, …` buffer,
    /// built in parallel over the current rayon pool for dense sets: blocks
    /// of rows are counted first, then each block writes its own part of the
    /// output (the same values in the same order for any thread count).
    pub fn indices_flat(&self) -> Vec<u32> {
        match self {
            VoxelSet::Dense(d) => d.indices_flat_rows(0..d.words.len() / d.words_per_row.max(1)),
            VoxelSet::Sparse(_) => self.indices().into_iter().flatten().collect(),
        }
    }
}

impl DenseBits {
    /// [`VoxelSet::indices_flat`] of the rows `rows` (row `j + ny·k`) only.
    ///
    /// Both passes (counting each block's voxels, then writing them) run as
    /// dispatched bodies ([`crate::simd::dispatch`], once per block): on a
    /// plain x86-64 build `count_ones` is otherwise a bit-twiddling sequence
    /// (no `popcnt`) and the scan SSE2 (bunny 512³: 2.62–2.72 ms against
    /// 1.85–2.10 native, now 2.09–2.27; simd-notes, "Python package").
    /// On the AVX-512 path with VBMI2 the write pass is
    /// [`write_indices_vbmi2`](crate::simd::x86::indices::write_indices_vbmi2),
    /// the same values without a branch per word.
    pub(crate) fn indices_flat_rows(&self, rows: std::ops::Range<usize>) -> Vec<u32> {
        use rayon::prelude::*;
        let isa = crate::simd::current();
        #[cfg(target_arch = "x86_64")]
        let vbmi2 = isa == crate::simd::Isa::Avx512 && crate::simd::x86::indices::has_vbmi2();
        #[cfg(not(target_arch = "x86_64"))]
        let vbmi2 = false;
        let (wpr, ny) = (self.words_per_row.max(1), self.dims[1] as usize);
        let words = &self.words[rows.start * wpr..rows.end * wpr];
        let block = INDEX_BLOCK_ROWS * wpr;
        let counts: Vec<usize> = words
            .par_chunks(block)
            .map(|c| crate::simd::dispatch(isa, IndexPass::Count(c)))
            .collect();
        let len = 3 * counts.iter().sum::<usize>();
        // Fresh output memory, advised onto huge pages and written once
        // (not zeroed first): faulting it in 4 KiB at a time cost more than
        // the scan itself (`mem::advise_huge_pages`).
        let mut out: Vec<u32> = Vec::with_capacity(len);
        crate::mem::advise_huge_pages(out.spare_capacity_mut());
        let mut parts = Vec::with_capacity(counts.len());
        let mut rest = &mut out.spare_capacity_mut()[..len];
        for &c in &counts {
            let (part, tail) = rest.split_at_mut(3 * c);
            parts.push(part);
            rest = tail;
        }
        words.par_chunks(block).zip(parts).enumerate().for_each(|(b, (words, part))| {
            let row0 = rows.start + b * INDEX_BLOCK_ROWS;
            let jk = ((row0 % ny) as u32, (row0 / ny) as u32);
            let want = part.len();
            #[allow(unsafe_code)]
            let at = match vbmi2 {
                // SAFETY: the AVX-512 path runs only where it was detected,
                // and `vbmi2` checked the byte compress; `part` holds the
                // block's count.
                #[cfg(target_arch = "x86_64")]
                true => unsafe {
                    crate::simd::x86::indices::write_indices_vbmi2(words, wpr, ny, jk, part)
                },
                _ => crate::simd::dispatch(isa, IndexPass::Write { words, wpr, ny, jk, part }),
            };
            // every block writes exactly the 3·count values it counted
            assert_eq!(at, want);
        });
        // SAFETY: the parts tile `out`'s first `len` elements, and each was
        // written in full (the assertion above; a panic propagates before
        // this line).
        #[allow(unsafe_code)]
        unsafe {
            out.set_len(len)
        };
        out
    }
}

/// Words per block of [`VoxelSet::count`] (a rayon task each: 128 KiB).
const COUNT_BLOCK_WORDS: usize = 1 << 14;

/// Rows per block of [`DenseBits::indices_flat_rows`] (a rayon task each).
const INDEX_BLOCK_ROWS: usize = 1024;

/// A pass of [`DenseBits::indices_flat_rows`] over one block of rows, as a
/// dispatched body (it uses no lane type, only the path's instructions).
enum IndexPass<'a> {
    /// The block's voxel count.
    Count(&'a [u64]),
    /// Writes the block's voxels as `i, j, k` into `part` (exactly its
    /// count's worth) and returns how many values it wrote; the block's
    /// first row is `(j, k) = jk`.
    Write {
        words: &'a [u64],
        wpr: usize,
        ny: usize,
        jk: (u32, u32),
        part: &'a mut [std::mem::MaybeUninit<u32>],
    },
}

impl crate::simd::SimdFn for IndexPass<'_> {
    type Out = usize;
    #[inline(always)]
    fn call<S: crate::simd::Simd>(self) -> usize {
        match self {
            IndexPass::Count(words) => words.iter().map(|w| w.count_ones() as usize).sum(),
            IndexPass::Write { words, wpr, ny, jk, part } => {
                write_indices(words, wpr, ny, jk, part)
            }
        }
    }
}

/// `part = stage`, element by element (`part` is uninitialised output):
/// how the index writers move a staged block of values out.
#[inline(always)]
pub(crate) fn copy_out(part: &mut [std::mem::MaybeUninit<u32>], stage: &[u32]) {
    for (d, &v) in part.iter_mut().zip(stage) {
        *d = std::mem::MaybeUninit::new(v);
    }
}

/// [`IndexPass::Write`].
///
/// Rows are walked with their `(j, k)` carried along: dividing each
/// non-empty word's index into row, `j` and `k` cost three integer divisions
/// per word, ~30 % of this loop's samples on bunny 512³. A word's first
/// `UNROLL` voxels are written unconditionally (lanes past its last bit are
/// garbage, overwritten next) into a staging buffer with room for a whole
/// word, copied out when full: the exit of a per-bit loop mispredicted on
/// most words (3.5 voxels per non-empty word there). Both together: 1.45 →
/// 1.32 ms per call (`examples/voxel_indices.rs`, alternated with the
/// per-word division loop).
#[inline(always)]
pub(crate) fn write_indices(
    words: &[u64],
    wpr: usize,
    ny: usize,
    (mut j, mut k): (u32, u32),
    part: &mut [std::mem::MaybeUninit<u32>],
) -> usize {
    const STAGE: usize = 3 * 1024;
    const UNROLL: usize = 4;
    let mut at = 0;
    let mut stage = [0u32; STAGE + 3 * 64];
    let mut n = 0;
    for row in words.chunks_exact(wpr) {
        for (w, &word) in row.iter().enumerate() {
            if word == 0 {
                continue;
            }
            let base = (w * 64) as u32;
            let mut bits = word;
            let cnt = bits.count_ones() as usize;
            for u in 0..UNROLL {
                stage[n + 3 * u] = base + bits.trailing_zeros();
                stage[n + 3 * u + 1] = j;
                stage[n + 3 * u + 2] = k;
                bits &= bits.wrapping_sub(1);
            }
            let mut m = n + 3 * UNROLL;
            while bits != 0 {
                stage[m] = base + bits.trailing_zeros();
                stage[m + 1] = j;
                stage[m + 2] = k;
                bits &= bits - 1;
                m += 3;
            }
            n += 3 * cnt;
            if n >= STAGE {
                copy_out(&mut part[at..at + n], &stage[..n]);
                at += n;
                n = 0;
            }
        }
        j += 1;
        if j as usize == ny {
            (j, k) = (0, k + 1);
        }
    }
    copy_out(&mut part[at..at + n], &stage[..n]);
    at + n
}

impl VoxelSet {
    /// Calls `f` on every voxel of the set in `(k, j, i)` order (`k`
    /// slowest), for both storages, without collecting them: sparse bricks
    /// are visited one brick layer (8 z layers) at a time, row by row
    /// across the layer's bricks, which are sorted by `(by, bx)` within it.
    pub fn for_each_sorted(&self, mut f: impl FnMut([u32; 3])) {
        let s = match self {
            VoxelSet::Dense(_) => return self.for_each(f),
            VoxelSet::Sparse(s) => s,
        };
        let nb = s.nb();
        let mut start = 0;
        while start < s.bricks.len() {
            let bz = s.bricks[start].0 / (nb[0] * nb[1]);
            let end = start + s.bricks[start..].partition_point(|b| b.0 / (nb[0] * nb[1]) == bz);
            let layer = &s.bricks[start..end];
            for z in 0..BRICK as usize {
                let k = bz as u32 * BRICK + z as u32;
                let mut r = 0;
                while r < layer.len() {
                    let by = layer[r].0 / nb[0] % nb[1];
                    let re = r + layer[r..].partition_point(|b| b.0 / nb[0] % nb[1] == by);
                    for y in 0..BRICK {
                        for (key, brick) in &layer[r..re] {
                            let mut bits = brick[z] >> (y * 8) & 0xff;
                            let bx = (key % nb[0]) as u32 * BRICK;
                            while bits != 0 {
                                let b = bits.trailing_zeros();
                                bits &= bits - 1;
                                f([bx + b, by as u32 * BRICK + y, k]);
                            }
                        }
                    }
                    r = re;
                }
            }
            start = end;
        }
    }

    /// Copies words `c0..c1` (64 voxels along x each, as in [`DenseBits`])
    /// of every row of the z layers `k0..k1` into `out`, at
    /// `((k - k0)·ny + j)·(c1 - c0) + (c - c0)`; `out` must hold exactly
    /// that many words. Sparse sets assemble the words from their bricks
    /// (one binary search per brick row of the layers).
    pub fn rows_into(&self, k0: u32, k1: u32, c0: usize, c1: usize, out: &mut [u64]) {
        let ny = self.dims()[1] as usize;
        let cw = c1 - c0;
        assert_eq!(out.len(), (k1 - k0) as usize * ny * cw, "rows_into: output size");
        match self {
            VoxelSet::Dense(d) => {
                let wpr = d.words_per_row;
                let rows = (k0 as usize * ny)..(k1 as usize * ny);
                if cw == 1 {
                    // one word per row (the binvox writer's columns): a
                    // strided gather, not a `memcpy` call per word
                    for (o, r) in out.iter_mut().zip(rows) {
                        *o = d.words[r * wpr + c0];
                    }
                    return;
                }
                for (at, r) in rows.enumerate() {
                    let row = r * wpr;
                    out[at * cw..at * cw + cw].copy_from_slice(&d.words[row + c0..row + c1]);
                }
            }
            VoxelSet::Sparse(s) => {
                out.fill(0);
                if k0 >= k1 {
                    return;
                }
                let nb = s.nb();
                // bricks bx = 8·c0 .. 8·c1 (a word spans 8 bricks)
                let (bx0, bx1) = ((c0 * 8) as u64, ((c1 * 8) as u64).min(nb[0]));
                for bz in (k0 / BRICK) as u64..=((k1 - 1) / BRICK) as u64 {
                    for by in 0..nb[1] {
                        let row = (bz * nb[1] + by) * nb[0];
                        let a = s.bricks.partition_point(|b| b.0 < row + bx0);
                        let e = s.bricks.partition_point(|b| b.0 < row + bx1);
                        for (key, brick) in &s.bricks[a..e] {
                            let bx = (key - row) as usize;
                            let (c, shift) = (bx / 8, (bx % 8) * 8);
                            for (z, &word) in brick.iter().enumerate() {
                                let k = bz as u32 * BRICK + z as u32;
                                if word == 0 || k < k0 || k >= k1 {
                                    continue;
                                }
                                for y in 0..BRICK as usize {
                                    let j = by as usize * BRICK as usize + y;
                                    if j >= ny {
                                        break;
                                    }
                                    let byte = word >> (y * 8) & 0xff;
                                    out[((k - k0) as usize * ny + j) * cw + c - c0] |=
                                        byte << shift;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Up to 16 runs of voxels, one per lane: lane `l` (bit `l` of `lanes`) is
/// the run `x0[l]..=x1[l]` (`x0 <= x1`) of the row `(j[l], k[l])`; the lanes
/// hold distinct rows. Absolute voxel indices (below 2³¹), in the sixteen
/// `i32` lanes `I` of the dispatched path.
pub(crate) struct Runs<I> {
    pub lanes: u32,
    pub x0: I,
    pub x1: I,
    pub j: I,
    pub k: I,
}

/// Where one slab task writes: rows of voxels, 16 at a time.
pub(crate) trait Sink {
    /// ORs `bits` (bit `l` = voxel `(i0 + l, j, k)`, at most 16 bits) into the set.
    fn or_row(&mut self, i0: u32, j: u32, k: u32, bits: u32);

    /// Whether voxel `(i, j, k)` is already in the set, as far as this sink
    /// knows cheaply (`false` when unsure: callers only use it to skip work
    /// whose result would be ORed into an already-set voxel).
    #[inline]
    fn is_set(&self, _i: u32, _j: u32, _k: u32) -> bool {
        false
    }

    /// ORs the run of voxels `(i0..=i1, j, k)` (`i0 <= i1`) into the set.
    #[inline]
    fn or_span(&mut self, i0: u32, i1: u32, j: u32, k: u32) {
        let mut i = i0;
        while i <= i1 {
            let n = (i1 - i + 1).min(16);
            self.or_row(i, j, k, (1u32 << n) - 1);
            i += n;
        }
    }

    /// ORs the runs of `r` into the set.
    #[inline(always)]
    fn or_runs<I: VoxI32>(&mut self, r: &Runs<I>) {
        let (x0, x1) = (r.x0.to_array(), r.x1.to_array());
        let (j, k) = (r.j.to_array(), r.k.to_array());
        let mut m = r.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            self.or_span(x0[l] as u32, x1[l] as u32, j[l] as u32, k[l] as u32);
        }
    }
}

/// A dense slab: z layers `k0..k0 + layers` of a [`DenseBits`].
pub(crate) struct DenseSlab<'a> {
    pub words: &'a mut [u64],
    pub k0: u32,
    pub ny: usize,
    pub wpr: usize,
}

impl DenseSlab<'_> {
    /// ORs `m0` into word `w0`, `m1` into word `w1` and sets the words
    /// between; `m0 & m1` into the word when `w0 == w1`.
    #[inline(always)]
    fn or_words(&mut self, w0: usize, w1: usize, m0: u64, m1: u64) {
        if w0 == w1 {
            self.words[w0] |= m0 & m1;
        } else {
            self.words[w0] |= m0;
            self.words[w0 + 1..w1].fill(!0);
            self.words[w1] |= m1;
        }
    }
}

impl Sink for DenseSlab<'_> {
    #[inline]
    fn is_set(&self, i: u32, j: u32, k: u32) -> bool {
        let base = ((k - self.k0) as usize * self.ny + j as usize) * self.wpr;
        self.words[base + i as usize / 64] >> (i % 64) & 1 != 0
    }

    #[inline]
    fn or_row(&mut self, i0: u32, j: u32, k: u32, bits: u32) {
        let base = ((k - self.k0) as usize * self.ny + j as usize) * self.wpr;
        let w = base + i0 as usize / 64;
        let off = i0 % 64;
        self.words[w] |= (bits as u64) << off;
        if off > 48 {
            let hi = (bits as u64) >> (64 - off);
            if hi != 0 {
                self.words[w + 1] |= hi;
            }
        }
    }

    /// One masked OR per word of the run (a run inside one word, the common
    /// case: one OR).
    #[inline]
    fn or_span(&mut self, i0: u32, i1: u32, j: u32, k: u32) {
        let base = ((k - self.k0) as usize * self.ny + j as usize) * self.wpr;
        let (w0, w1) = (base + i0 as usize / 64, base + i1 as usize / 64);
        // bits i0 % 64.. of the first word, ..=i1 % 64 of the last
        self.or_words(w0, w1, !0u64 << (i0 % 64), !0u64 >> (63 - i1 % 64));
    }

    /// [`DenseSlab::or_span`] of each lane, with the word indices and bit
    /// offsets computed in lanes (the slab holds fewer than 2³¹ words: a
    /// dense grid has at most 2²⁷).
    #[inline(always)]
    fn or_runs<I: VoxI32>(&mut self, r: &Runs<I>) {
        let (ny, wpr) = (I::splat(self.ny as i32), I::splat(self.wpr as i32));
        let row = ((r.k - I::splat(self.k0 as i32)) * ny + r.j) * wpr;
        let (w0, w1) = (row + r.x0.shr6(), row + r.x1.shr6());
        debug_assert!({
            let (rows, m) = (row.to_array(), r.lanes);
            (0..16).all(|a| (a + 1..16).all(|b| m >> a & m >> b & 1 == 0 || rows[a] != rows[b]))
        });
        if I::or_word_runs(self.words, r.lanes, r.x0, r.x1, w0, w1) {
            return;
        }
        let six = I::splat(63);
        let (w0, w1) = (w0.to_array(), w1.to_array());
        let (b0, b1) = (r.x0.and(six).to_array(), r.x1.and(six).to_array());
        let mut m = r.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let (w0, w1) = (w0[l] as usize, w1[l] as usize);
            // bits b0.. of the first word, ..=b1 of the last
            self.or_words(w0, w1, !0u64 << b0[l], !0u64 >> (63 - b1[l]));
        }
    }
}

/// A [`DenseSlab`] of a window `lo..hi` of the grid (a tile): voxels are
/// given in grid indices, those outside the window's x and y are dropped
/// (z is the slab's: `k0` is a grid layer), and the rest land at
/// `(i − lo.x, j − lo.y)` of the window's rows.
pub(crate) struct WindowSlab<'a> {
    pub slab: DenseSlab<'a>,
    /// the window's first voxel along x and y
    pub lo: [u32; 2],
    /// one past its last voxel along x and y
    pub hi: [u32; 2],
}

impl WindowSlab<'_> {
    /// `(i0, i1)` clipped to the window along x, in window indices.
    #[inline(always)]
    fn clip_x(&self, i0: u32, i1: u32) -> Option<(u32, u32)> {
        let (a, b) = (i0.max(self.lo[0]), i1.min(self.hi[0] - 1));
        (a <= b).then(|| (a - self.lo[0], b - self.lo[0]))
    }

    #[inline(always)]
    fn has_row(&self, j: u32) -> bool {
        (self.lo[1]..self.hi[1]).contains(&j)
    }
}

impl Sink for WindowSlab<'_> {
    #[inline]
    fn is_set(&self, i: u32, j: u32, k: u32) -> bool {
        (self.lo[0]..self.hi[0]).contains(&i)
            && self.has_row(j)
            && self.slab.is_set(i - self.lo[0], j - self.lo[1], k)
    }

    #[inline]
    fn or_row(&mut self, i0: u32, j: u32, k: u32, bits: u32) {
        if bits == 0 || !self.has_row(j) {
            return;
        }
        let last = i0 + 31 - bits.leading_zeros();
        if let Some((a, b)) = self.clip_x(i0, last) {
            // the bits of voxels a..=b (window indices), shifted to start at a
            let from = a + self.lo[0] - i0;
            let kept = (bits >> from) & (u32::MAX >> (31 - (b - a)));
            self.slab.or_row(a, j - self.lo[1], k, kept);
        }
    }

    #[inline]
    fn or_span(&mut self, i0: u32, i1: u32, j: u32, k: u32) {
        if let (true, Some((a, b))) = (self.has_row(j), self.clip_x(i0, i1)) {
            self.slab.or_span(a, b, j - self.lo[1], k);
        }
    }

    /// The lanes clipped to the window, then the slab's vector path.
    #[inline(always)]
    fn or_runs<I: VoxI32>(&mut self, r: &Runs<I>) {
        let (mut x0, mut x1) = (r.x0.to_array(), r.x1.to_array());
        let mut j = r.j.to_array();
        let mut lanes = r.lanes;
        let mut m = r.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            match (self.has_row(j[l] as u32), self.clip_x(x0[l] as u32, x1[l] as u32)) {
                (true, Some((a, b))) => {
                    (x0[l], x1[l], j[l]) = (a as i32, b as i32, j[l] - self.lo[1] as i32)
                }
                _ => lanes &= !(1 << l),
            }
        }
        if lanes != 0 {
            let (x0, x1, j) = (I::from_array(x0), I::from_array(x1), I::from_array(j));
            self.slab.or_runs(&Runs { lanes, x0, x1, j, k: r.k });
        }
    }
}

/// A sparse slab: one layer of bricks, in its own map (key → index into
/// `bricks`), with the last brick cached: consecutive voxels mostly share it.
pub(crate) struct SparseSlab {
    pub map: BrickMap<usize>,
    pub bricks: Vec<(u64, [u64; 8])>,
    pub last: (u64, usize),
    pub nb: [u64; 3],
}

impl SparseSlab {
    pub fn new(nb: [u64; 3]) -> Self {
        SparseSlab { map: BrickMap::default(), bricks: Vec::new(), last: (u64::MAX, 0), nb }
    }
    /// The bricks sorted by key.
    pub fn into_sorted(mut self) -> Vec<(u64, [u64; 8])> {
        self.bricks.sort_unstable_by_key(|b| b.0);
        self.bricks
    }
}

impl Sink for SparseSlab {
    /// Looks only at the last brick written (no map lookup): `false` for
    /// voxels of other bricks.
    #[inline]
    fn is_set(&self, i: u32, j: u32, k: u32) -> bool {
        let key = ((k / BRICK) as u64 * self.nb[1] + (j / BRICK) as u64) * self.nb[0]
            + (i / BRICK) as u64;
        key == self.last.0
            && self.bricks[self.last.1].1[(k % BRICK) as usize] >> ((j % 8) * 8 + i % 8) & 1 != 0
    }

    #[inline]
    fn or_row(&mut self, i0: u32, j: u32, k: u32, bits: u32) {
        let mut bits = bits as u64;
        let mut i = i0;
        while bits != 0 {
            let skip = bits.trailing_zeros();
            i += skip;
            bits >>= skip;
            let bx = i / BRICK;
            let take = BRICK - i % BRICK;
            let part = bits & ((1u64 << take) - 1);
            let key =
                ((k / BRICK) as u64 * self.nb[1] + (j / BRICK) as u64) * self.nb[0] + bx as u64;
            if self.last.0 != key {
                let n = self.bricks.len();
                let at = *self.map.entry(key).or_insert(n);
                if at == n {
                    self.bricks.push((key, [0; 8]));
                }
                self.last = (key, at);
            }
            let brick = &mut self.bricks[self.last.1].1;
            brick[(k % BRICK) as usize] |= part << ((j % 8) * 8 + i % 8);
            bits >>= take.min(63);
            if take == 64 {
                bits = 0;
            }
            i += take;
        }
    }
}
