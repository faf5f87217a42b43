//! Batched drivers: every pair predicate in three call shapes — one-vs-many,
//! pairwise, many-vs-many — serial or over rayon, at any lane width.
//!
//! A predicate enters through [`PairKernel`], whose `test` is the crate's
//! lane-generic kernel (e.g. [`crate::overlap::triangle_aabb`]). The drivers are
//! written once over the kernel and the lane type; with `L = f32` they are the
//! scalar baseline, so "scalar vs x16" compares the same code at two widths.
//!
//! **Determinism.** Results never depend on thread count or chunking: bitmask
//! words are each written by exactly one task, and index/pair lists are
//! produced per fixed-size block (independent of the thread count) and
//! concatenated in block order, each block sorted.

use crate::lane::LaneMask;
use crate::pack::{broadcast, LanePod, Pack, Packable};
use crate::simd::{self, recast, Isa, WidthFn};
use bytemuck::Zeroable;
use rayon::prelude::*;

/// A pair predicate usable by the batched drivers.
pub trait PairKernel: Send + Sync {
    /// First shape type.
    type A: Packable;
    /// Second shape type.
    type B: Packable;
    /// Name used in benchmarks and reports (`triangle_aabb`, ...).
    const NAME: &'static str;
    /// The lane-generic predicate: lane `j` of the mask is the answer for lane
    /// `j` of `a` and of `b`.
    fn test<L: LanePod>(
        a: &<Self::A as Packable>::Lanes<L>,
        b: &<Self::B as Packable>::Lanes<L>,
    ) -> L::Mask;
    /// Whether [`Self::screen`] is a cheaper first stage worth compacting
    /// behind (see [`pairwise`]). When false, `screen` is never called.
    const SCREENED: bool = false;
    /// A first stage of [`Self::test`]: a lane it clears must be cleared by
    /// `test` (a lane it keeps may still miss). The pairwise drivers run
    /// [`Self::test_kept`] only on the kept lanes, gathered into full packs.
    #[inline(always)]
    fn screen<L: LanePod>(
        a: &<Self::A as Packable>::Lanes<L>,
        b: &<Self::B as Packable>::Lanes<L>,
    ) -> L::Mask {
        Self::test::<L>(a, b)
    }
    /// [`Self::test`] on lanes [`Self::screen`] kept: it must give `test`'s
    /// answer on those lanes (others are ignored), and may skip what the
    /// screen already decided.
    #[inline(always)]
    fn test_kept<L: LanePod>(
        a: &<Self::A as Packable>::Lanes<L>,
        b: &<Self::B as Packable>::Lanes<L>,
    ) -> L::Mask {
        Self::test::<L>(a, b)
    }
}

/// One bit per item: the answer of a predicate for item `i` is bit `i`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitMask {
    words: Vec<u64>,
    len: usize,
}

impl BitMask {
    /// An all-zero mask of `len` bits.
    pub fn zeros(len: usize) -> Self {
        BitMask { words: vec![0; len.div_ceil(64)], len }
    }
    /// Resizes to `len` bits, all zero, reusing the allocation.
    pub fn reset(&mut self, len: usize) {
        self.words.clear();
        self.words.resize(len.div_ceil(64), 0);
        self.len = len;
    }
    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the mask has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bit `i`.
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len);
        (self.words[i / 64] >> (i % 64)) & 1 == 1
    }
    /// The 64-bit words (bit `i` is bit `i % 64` of word `i / 64`; bits past
    /// `len` are zero).
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// Indices of the set bits, in increasing order.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            core::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }
}

/// Chunks of `L` handled per 64-bit output word.
#[inline(always)]
fn chunks_per_word<L: LanePod>() -> usize {
    64 / L::WIDTH
}

/// The bits of output word `wi` below `len`.
#[inline(always)]
fn tail_bits(wi: usize, len: usize) -> u64 {
    match len.saturating_sub(wi * 64) {
        0 => 0,
        keep if keep >= 64 => u64::MAX,
        keep => u64::MAX >> (64 - keep),
    }
}

/// The bitmask drivers' loop as a body dispatched per task ([`crate::simd`]):
/// bit `j` of chunk `c` is `K(a[c], b[c])` lane `j` (`a[0]` for every chunk
/// when `broadcast`), written to `words` from output word `first_word`.
struct FillTask<'a, K: PairKernel, L: LanePod> {
    words: &'a mut [u64],
    first_word: usize,
    len: usize,
    broadcast: bool,
    a: &'a [<K::A as Packable>::Lanes<L>],
    b: &'a [<K::B as Packable>::Lanes<L>],
}

impl<K: PairKernel, L: LanePod> FillTask<'_, K, L> {
    fn run(self, isa: Isa) {
        simd::dispatch_width::<L, _>(isa, self)
    }
}

impl<K: PairKernel, L: LanePod> WidthFn<L> for FillTask<'_, K, L> {
    type Out = ();
    #[inline(always)]
    fn call<M: LanePod>(self) {
        let a = recast::<K::A, L, M>(self.a);
        let b = recast::<K::B, L, M>(self.b);
        if K::SCREENED
            && !self.broadcast
            && M::WIDTH >= SCREEN_MIN_WIDTH
            // (offsets into the packs as `i32`: the hardware gathers' index)
            && i32::try_from(core::mem::size_of_val(a).max(core::mem::size_of_val(b)) / 4).is_ok()
        {
            screened_fill::<K, M>(self.words, self.first_word, self.len, a, b);
            return;
        }
        // The loop of `fill_words`, written out: a closure here would be a
        // separate function compiled without the path's features.
        let step = usize::from(!self.broadcast);
        let per = chunks_per_word::<M>();
        for (k, word) in self.words.iter_mut().enumerate() {
            let wi = self.first_word + k;
            let mut acc = 0u64;
            for c in wi * per..((wi + 1) * per).min(b.len()) {
                acc |= K::test::<M>(&a[c * step], &b[c]).bits() << ((c - wi * per) * M::WIDTH);
            }
            *word = acc & tail_bits(wi, self.len);
        }
    }
}

/// Narrowest lane type the screened pairwise path runs at; narrower packs
/// run the whole test on every pack (measured in `simd-notes.md`, "Compaction
/// behind a screen").
const SCREEN_MIN_WIDTH: usize = 4;

/// The pairwise loop for a kernel with a screen: each word's packs go through
/// [`PairKernel::screen`], the kept pairs' indices are queued, and every full
/// queue (and the last, partial one) is gathered into a staged pack for
/// [`PairKernel::test_kept`]. Every pair's bit is `test` of that pair, which
/// does not depend on its lane or neighbours (the crate's lane contract), so
/// the words equal the unscreened loop's.
#[inline(always)]
fn screened_fill<K: PairKernel, M: LanePod>(
    words: &mut [u64],
    first_word: usize,
    len: usize,
    a: &[<K::A as Packable>::Lanes<M>],
    b: &[<K::B as Packable>::Lanes<M>],
) {
    let per = chunks_per_word::<M>();
    let mut staged = Staged::<K, M>::new();
    for k in 0..words.len() {
        let wi = first_word + k;
        let mut kept = 0u64;
        for c in wi * per..((wi + 1) * per).min(b.len()) {
            kept |= K::screen::<M>(&a[c], &b[c]).bits() << ((c - wi * per) * M::WIDTH);
        }
        kept &= tail_bits(wi, len);
        words[k] = 0;
        while kept != 0 {
            let i = wi * 64 + kept.trailing_zeros() as usize;
            kept &= kept - 1;
            staged.push(i);
            if staged.n == M::WIDTH {
                staged.flush(a, b, words, first_word);
            }
        }
    }
    staged.flush(a, b, words, first_word);
}

/// Pairs kept by a screen, packed into the lanes of one chunk.
struct Staged<K: PairKernel, M: LanePod> {
    a: <K::A as Packable>::Lanes<M>,
    b: <K::B as Packable>::Lanes<M>,
    /// Pair index of each lane; past `n`, an earlier pair (or pair 0), whose
    /// lane is tested and ignored.
    index: [usize; 16],
    /// Lanes queued since the last flush.
    n: usize,
}

impl<K: PairKernel, M: LanePod> Staged<K, M> {
    #[inline(always)]
    fn new() -> Self {
        Staged { a: Zeroable::zeroed(), b: Zeroable::zeroed(), index: [0; 16], n: 0 }
    }

    /// Queues pair `i` for the next lane.
    #[inline(always)]
    fn push(&mut self, i: usize) {
        self.index[self.n] = i;
        self.n += 1;
    }

    /// Gathers the queued pairs into the staged chunks, tests them and sets
    /// their pairs' bits.
    #[inline(always)]
    fn flush(
        &mut self,
        a: &[<K::A as Packable>::Lanes<M>],
        b: &[<K::B as Packable>::Lanes<M>],
        words: &mut [u64],
        first_word: usize,
    ) {
        if self.n == 0 {
            return;
        }
        let w = M::WIDTH;
        let index = &self.index[..w];
        gather_lanes::<M>(
            bytemuck::cast_slice_mut(core::slice::from_mut(&mut self.a)),
            bytemuck::cast_slice(a),
            index,
        );
        gather_lanes::<M>(
            bytemuck::cast_slice_mut(core::slice::from_mut(&mut self.b)),
            bytemuck::cast_slice(b),
            index,
        );
        let hits = K::test_kept::<M>(&self.a, &self.b).bits();
        for j in 0..self.n {
            let i = self.index[j];
            words[i / 64 - first_word] |= ((hits >> j) & 1) << (i % 64);
        }
        self.n = 0;
    }
}

/// Field-major gather: lane `j` of the chunk `dst` gets item `index[j]` of the
/// chunks `src` (chunk `i / w`, lane `i % w`), for every field. The offsets
/// are computed once per pack as `u32` (the caller checks `src` fits `i32`) and the
/// fields are moved by [`LanePod::gather_fields`]: measured faster than a loop
/// over only the queued lanes or copies made as pairs are queued, and at 16
/// lanes on the AVX-512 path one hardware gather per field (`simd-notes.md`,
/// "Compaction behind a screen").
#[inline(always)]
fn gather_lanes<M: LanePod>(dst: &mut [f32], src: &[f32], index: &[usize]) {
    let w = M::WIDTH;
    let fields = dst.len() / w;
    let mut off = [0u32; 16];
    for j in 0..w {
        let i = index[j];
        off[j] = ((i / w * fields) * w + i % w) as u32;
    }
    M::gather_fields(dst, src, &off);
}

/// Output words each rayon task writes: 64 words = 4096 pairs. Measured with
/// `cargo run --release --example chunking` (2 threads, 4M streaming pairs):
/// throughput is flat from 16 to 4096 words per task (memory-bound), and 1–4
/// words lost up to 25 % on sphere–box in one of two runs; 64 sits on the plateau
/// while still giving ≥ 16 tasks for 64k-pair inputs (see simd-notes.md).
pub const WORDS_PER_TASK: usize = 64;

/// `out[i] = K(a, bs[i])` for every item of `bs`.
pub fn one_vs_many<K: PairKernel, L: LanePod>(a: &K::A, bs: &Pack<K::B, L>, out: &mut BitMask) {
    let a = [broadcast::<K::A, L>(a)];
    out.reset(bs.len());
    let (len, isa) = (bs.len(), simd::current());
    FillTask::<K, L> {
        words: &mut out.words,
        first_word: 0,
        len,
        broadcast: true,
        a: &a,
        b: bs.chunks(),
    }
    .run(isa);
}

/// [`one_vs_many`] over rayon.
pub fn par_one_vs_many<K: PairKernel, L: LanePod>(a: &K::A, bs: &Pack<K::B, L>, out: &mut BitMask) {
    let a = [broadcast::<K::A, L>(a)];
    let chunks = bs.chunks();
    let (len, isa) = (bs.len(), simd::current());
    out.reset(len);
    out.words.par_chunks_mut(WORDS_PER_TASK).enumerate().for_each(|(t, ws)| {
        let (first_word, a) = (t * WORDS_PER_TASK, &a[..]);
        FillTask::<K, L> { words: ws, first_word, len, broadcast: true, a, b: chunks }.run(isa)
    });
}

/// `out[i] = K(as[i], bs[i])`. Panics if the packs differ in length.
///
/// For a kernel with a screen ([`PairKernel::SCREENED`]) at 4 lanes and wider,
/// the full test runs only on the pairs the screen keeps, gathered into full
/// packs; the bits are the same.
pub fn pairwise<K: PairKernel, L: LanePod>(
    as_: &Pack<K::A, L>,
    bs: &Pack<K::B, L>,
    out: &mut BitMask,
) {
    assert_eq!(as_.len(), bs.len(), "pairwise needs packs of equal length");
    let (a, b) = (as_.chunks(), bs.chunks());
    out.reset(as_.len());
    let (len, isa) = (as_.len(), simd::current());
    FillTask::<K, L> { words: &mut out.words, first_word: 0, len, broadcast: false, a, b }.run(isa);
}

/// [`pairwise`] over rayon.
pub fn par_pairwise<K: PairKernel, L: LanePod>(
    as_: &Pack<K::A, L>,
    bs: &Pack<K::B, L>,
    out: &mut BitMask,
) {
    par_pairwise_chunked::<K, L>(as_, bs, out, WORDS_PER_TASK)
}

/// [`par_pairwise`] with an explicit task size (`words_per_task` output words
/// = 64 × that many pairs per rayon task); for measuring the chunk size.
pub fn par_pairwise_chunked<K: PairKernel, L: LanePod>(
    as_: &Pack<K::A, L>,
    bs: &Pack<K::B, L>,
    out: &mut BitMask,
    words_per_task: usize,
) {
    assert_eq!(as_.len(), bs.len(), "pairwise needs packs of equal length");
    let (a, b) = (as_.chunks(), bs.chunks());
    let (len, isa) = (as_.len(), simd::current());
    out.reset(len);
    out.words.par_chunks_mut(words_per_task.max(1)).enumerate().for_each(|(t, ws)| {
        let first_word = t * words_per_task.max(1);
        FillTask::<K, L> { words: ws, first_word, len, broadcast: false, a, b }.run(isa)
    });
}

/// Appends the indices `i` with `K(a, bs[i])`, in increasing order.
pub fn one_vs_many_hits<K: PairKernel, L: LanePod>(
    a: &K::A,
    bs: &Pack<K::B, L>,
    hits: &mut Vec<u32>,
) {
    let mut pairs = Vec::new();
    let a = [broadcast::<K::A, L>(a)];
    let task = ManyTask::<K, L> { start: 0, a: &a, b: bs.chunks(), len: bs.len(), out: &mut pairs };
    simd::dispatch_width::<L, _>(simd::current(), task);
    hits.extend(pairs.into_iter().map(|(_, i)| i));
}

/// Items of `as_` per many-vs-many block (the unit of parallel work and of
/// output ordering).
pub const MANY_BLOCK: usize = 32;
/// Chunks of `bs` per many-vs-many tile (kept in L1/L2 while a block of `as_`
/// runs over it).
pub const MANY_TILE_CHUNKS: usize = 256;

fn many_block<K: PairKernel, L: LanePod>(
    isa: Isa,
    block: usize,
    as_: &[K::A],
    bs: &Pack<K::B, L>,
    out: &mut Vec<(u32, u32)>,
) {
    let start = block * MANY_BLOCK;
    let end = (start + MANY_BLOCK).min(as_.len());
    let first = out.len();
    let lanes: Vec<_> = as_[start..end].iter().map(|a| broadcast::<K::A, L>(a)).collect();
    let task = ManyTask::<K, L> { start, a: &lanes, b: bs.chunks(), len: bs.len(), out };
    simd::dispatch_width::<L, _>(isa, task);
    out[first..].sort_unstable();
}

/// [`many_block`]'s loops as a dispatched body: every broadcast query of `a`
/// (items `start..`) against tiles of [`MANY_TILE_CHUNKS`] chunks of `b`.
struct ManyTask<'a, K: PairKernel, L: LanePod> {
    start: usize,
    a: &'a [<K::A as Packable>::Lanes<L>],
    b: &'a [<K::B as Packable>::Lanes<L>],
    len: usize,
    out: &'a mut Vec<(u32, u32)>,
}

impl<K: PairKernel, L: LanePod> WidthFn<L> for ManyTask<'_, K, L> {
    type Out = ();
    #[inline(always)]
    fn call<M: LanePod>(self) {
        let a = recast::<K::A, L, M>(self.a);
        let chunks = recast::<K::B, L, M>(self.b);
        for tile in (0..chunks.len()).step_by(MANY_TILE_CHUNKS) {
            let tile_end = (tile + MANY_TILE_CHUNKS).min(chunks.len());
            for (ai, a) in a.iter().enumerate() {
                for (c, chunk) in chunks[tile..tile_end].iter().enumerate() {
                    let mut m = K::test::<M>(a, chunk).bits();
                    while m != 0 {
                        let j = m.trailing_zeros() as usize;
                        m &= m - 1;
                        let bi = (tile + c) * M::WIDTH + j;
                        if bi < self.len {
                            self.out.push(((self.start + ai) as u32, bi as u32));
                        }
                    }
                }
            }
        }
    }
}

/// All pairs `(i, j)` with `K(as[i], bs[j])`, sorted by `(i, j)`, appended to
/// `out`. Runs in blocks of [`MANY_BLOCK`] items of `as_` against tiles of
/// [`MANY_TILE_CHUNKS`] chunks of `bs`.
pub fn many_vs_many<K: PairKernel, L: LanePod>(
    as_: &[K::A],
    bs: &Pack<K::B, L>,
    out: &mut Vec<(u32, u32)>,
) {
    let isa = simd::current();
    for block in 0..as_.len().div_ceil(MANY_BLOCK) {
        many_block::<K, L>(isa, block, as_, bs, out);
    }
}

/// [`many_vs_many`] over rayon (same output, any thread count).
pub fn par_many_vs_many<K: PairKernel, L: LanePod>(
    as_: &[K::A],
    bs: &Pack<K::B, L>,
    out: &mut Vec<(u32, u32)>,
) {
    let isa = simd::current();
    let blocks: Vec<Vec<(u32, u32)>> = (0..as_.len().div_ceil(MANY_BLOCK))
        .into_par_iter()
        .map(|block| {
            let mut v = Vec::new();
            many_block::<K, L>(isa, block, as_, bs, &mut v);
            v
        })
        .collect();
    for b in blocks {
        out.extend_from_slice(&b);
    }
}

/// The batched predicates, as [`PairKernel`]s and [`MapKernel`]s.
pub mod kernels {
    use super::{MapKernel, PairKernel};
    use crate::lane::Lane;
    use crate::math::V3;
    use crate::pack::{LanePod, Packable};
    use crate::shapes::{pod_generic, Aabb, Obb, Ray, Segment, Sphere, Triangle};
    use crate::{dynamic, overlap, ray};

    macro_rules! pair_kernel {
        ($(#[$doc:meta])* $name:ident, $a:ty, $b:ty, $label:literal, $f:path
         $(, screen: $screen:path, kept: $kept:path)?) => {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default)]
            pub struct $name;
            impl PairKernel for $name {
                type A = $a;
                type B = $b;
                const NAME: &'static str = $label;
                #[inline(always)]
                fn test<L: LanePod>(a: &<$a as Packable>::Lanes<L>, b: &<$b as Packable>::Lanes<L>) -> L::Mask {
                    $f(a, b)
                }
                $(
                const SCREENED: bool = true;
                #[inline(always)]
                fn screen<L: LanePod>(a: &<$a as Packable>::Lanes<L>, b: &<$b as Packable>::Lanes<L>) -> L::Mask {
                    $screen(a, b)
                }
                #[inline(always)]
                fn test_kept<L: LanePod>(a: &<$a as Packable>::Lanes<L>, b: &<$b as Packable>::Lanes<L>) -> L::Mask {
                    $kept(a, b)
                }
                )?
            }
        };
    }

    pair_kernel!(
        /// [`overlap::triangle_aabb`]; screened by its face and normal axes.
        TriangleAabb, Triangle, Aabb, "triangle_aabb", overlap::triangle_aabb,
        screen: overlap::triangle_aabb_screen::<L, false>, kept: overlap::triangle_aabb_kept::<L, false>);
    pair_kernel!(
        /// [`overlap::triangle_aabb_conservative`]; screened by its face and normal axes.
        TriangleAabbConservative, Triangle, Aabb, "triangle_aabb_conservative", overlap::triangle_aabb_conservative,
        screen: overlap::triangle_aabb_screen::<L, true>, kept: overlap::triangle_aabb_kept::<L, true>);
    pair_kernel!(
        /// [`overlap::sphere_aabb`].
        SphereAabb, Sphere, Aabb, "sphere_aabb", overlap::sphere_aabb);
    pair_kernel!(
        /// [`overlap::sphere_aabb_conservative`].
        SphereAabbConservative, Sphere, Aabb, "sphere_aabb_conservative", overlap::sphere_aabb_conservative);
    pair_kernel!(
        /// [`overlap::aabb_aabb`].
        AabbAabb, Aabb, Aabb, "aabb_aabb", overlap::aabb_aabb);
    pair_kernel!(
        /// [`overlap::aabb_aabb_conservative`] (the exact test: it rounds nothing).
        AabbAabbConservative, Aabb, Aabb, "aabb_aabb_conservative", overlap::aabb_aabb_conservative);
    pair_kernel!(
        /// [`overlap::sphere_triangle`].
        SphereTriangle, Sphere, Triangle, "sphere_triangle", overlap::sphere_triangle);
    pair_kernel!(
        /// [`overlap::sphere_triangle_conservative`].
        SphereTriangleConservative, Sphere, Triangle, "sphere_triangle_conservative", overlap::sphere_triangle_conservative);
    pair_kernel!(
        /// [`overlap::sphere_sphere`].
        SphereSphere, Sphere, Sphere, "sphere_sphere", overlap::sphere_sphere);
    pair_kernel!(
        /// [`overlap::sphere_sphere_conservative`].
        SphereSphereConservative, Sphere, Sphere, "sphere_sphere_conservative", overlap::sphere_sphere_conservative);
    pair_kernel!(
        /// [`overlap::obb_obb`].
        ObbObb, Obb, Obb, "obb_obb", overlap::obb_obb);
    pair_kernel!(
        /// [`overlap::obb_obb_conservative`].
        ObbObbConservative, Obb, Obb, "obb_obb_conservative", overlap::obb_obb_conservative);
    pair_kernel!(
        /// [`overlap::triangle_triangle`].
        TriangleTriangle, Triangle, Triangle, "triangle_triangle", overlap::triangle_triangle);
    pair_kernel!(
        /// [`overlap::triangle_triangle_conservative`].
        TriangleTriangleConservative, Triangle, Triangle, "triangle_triangle_conservative", overlap::triangle_triangle_conservative);

    #[inline(always)]
    fn ray_slab_hit<L: Lane>(r: &Ray<L>, b: &Aabb<L>) -> L::Mask {
        ray::ray_aabb(r, b).hit
    }
    pair_kernel!(
        /// Hit/miss of [`ray::ray_aabb`] (use [`RayAabb`] for the entry `t`).
        RayAabbTest, Ray, Aabb, "ray_aabb", ray_slab_hit);
    pair_kernel!(
        /// [`ray::ray_triangle_conservative`] (hit mask only).
        RayTriangleConservative, Ray, Triangle, "ray_triangle_conservative", ray::ray_triangle_conservative);
    pair_kernel!(
        /// [`ray::segment_aabb`].
        SegmentAabb, Segment, Aabb, "segment_aabb", ray::segment_aabb);

    /// A parameter along a ray (entry time), one `f32` per pair.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct HitT<L = f32> {
        /// Ray parameter of the hit (meaningful where the hit bit is set).
        pub t: L,
    }
    /// Ray parameter and barycentrics of a ray–triangle hit: the point is
    /// `(1 - u - v)·a + u·b + v·c`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct HitTuv<L = f32> {
        /// Ray parameter.
        pub t: L,
        /// Barycentric weight of vertex `b`.
        pub u: L,
        /// Barycentric weight of vertex `c`.
        pub v: L,
    }
    /// OBB–OBB contact record (see [`overlap::ObbContact`]).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct ObbContactRecord<L = f32> {
        /// Axis of least overlap, as `f32` (0–2 faces of A, 3–5 faces of B, 6+ edge pairs).
        pub axis: L,
        /// Unit contact normal from A to B.
        pub normal: V3<L>,
        /// Penetration depth along `normal`.
        pub depth: L,
    }
    /// First and last contact times of two moving boxes in `[0, 1]`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct ContactTimes<L = f32> {
        /// Time of first contact.
        pub t_first: L,
        /// Time of last contact.
        pub t_last: L,
    }
    /// A box moving with constant velocity over the unit time step.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct MovingAabb<L = f32> {
        /// The box at time 0.
        pub aabb: Aabb<L>,
        /// Displacement over the step.
        pub velocity: V3<L>,
    }
    /// A sphere moving with constant velocity over the unit time step.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct MovingSphere<L = f32> {
        /// The sphere at time 0.
        pub sphere: Sphere<L>,
        /// Displacement of the center over the step.
        pub velocity: V3<L>,
    }
    pod_generic!(HitT, HitTuv, ObbContactRecord, ContactTimes, MovingAabb, MovingSphere);
    impl Packable for MovingSphere {
        type Lanes<L: LanePod> = MovingSphere<L>;
        const PADDING: Self = MovingSphere {
            sphere: <Sphere as Packable>::PADDING,
            velocity: V3 { x: 0.0, y: 0.0, z: 0.0 },
        };
    }
    impl Packable for HitT {
        type Lanes<L: LanePod> = HitT<L>;
        const PADDING: Self = HitT { t: f32::NAN };
    }
    impl Packable for HitTuv {
        type Lanes<L: LanePod> = HitTuv<L>;
        const PADDING: Self = HitTuv { t: f32::NAN, u: f32::NAN, v: f32::NAN };
    }
    impl Packable for ObbContactRecord {
        type Lanes<L: LanePod> = ObbContactRecord<L>;
        const PADDING: Self = ObbContactRecord {
            axis: f32::NAN,
            normal: V3 { x: f32::NAN, y: f32::NAN, z: f32::NAN },
            depth: f32::NAN,
        };
    }
    impl Packable for ContactTimes {
        type Lanes<L: LanePod> = ContactTimes<L>;
        const PADDING: Self = ContactTimes { t_first: f32::NAN, t_last: f32::NAN };
    }
    impl Packable for MovingAabb {
        type Lanes<L: LanePod> = MovingAabb<L>;
        const PADDING: Self =
            MovingAabb { aabb: Aabb::EMPTY, velocity: V3 { x: 0.0, y: 0.0, z: 0.0 } };
    }

    macro_rules! map_kernel {
        ($(#[$doc:meta])* $name:ident, $a:ty, $b:ty, $out:ident, $label:literal, |$x:ident, $y:ident| $body:expr) => {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default)]
            pub struct $name;
            impl MapKernel for $name {
                type A = $a;
                type B = $b;
                type Out = $out;
                const NAME: &'static str = $label;
                #[inline(always)]
                fn eval<L: LanePod>($x: &<$a as Packable>::Lanes<L>, $y: &<$b as Packable>::Lanes<L>) -> (L::Mask, $out<L>) {
                    $body
                }
            }
        };
    }

    map_kernel!(
    /// [`ray::ray_aabb`]: hit and entry `t`.
    RayAabb, Ray, Aabb, HitT, "ray_aabb_t", |r, b| {
        let h = ray::ray_aabb(r, b);
        (h.hit, HitT { t: h.t })
    });
    map_kernel!(
    /// [`ray::ray_aabb_conservative`]: hit and entry `t`.
    RayAabbConservative, Ray, Aabb, HitT, "ray_aabb_conservative_t", |r, b| {
        let h = ray::ray_aabb_conservative(r, b);
        (h.hit, HitT { t: h.t })
    });
    map_kernel!(
    /// [`ray::ray_triangle`] (watertight): hit, `t` and barycentrics.
    RayTriangle, Ray, Triangle, HitTuv, "ray_triangle", |r, tri| {
        let h = ray::ray_triangle(r, tri);
        (h.hit, HitTuv { t: h.t, u: h.u, v: h.v })
    });
    map_kernel!(
    /// [`ray::ray_sphere`]: hit and first `t`.
    RaySphere, Ray, Sphere, HitT, "ray_sphere", |r, s| {
        let h = ray::ray_sphere(r, s);
        (h.hit, HitT { t: h.t })
    });
    map_kernel!(
    /// [`overlap::obb_obb_contact`]: axis of least overlap, normal and depth.
    ObbObbContact, Obb, Obb, ObbContactRecord, "obb_obb_contact", |a, b| {
        let c = overlap::obb_obb_contact(a, b);
        (c.hit, ObbContactRecord { axis: c.axis, normal: c.normal, depth: c.depth })
    });
    map_kernel!(
    /// [`dynamic::moving_aabb_aabb`]: first and last contact times.
    MovingAabbAabb, MovingAabb, MovingAabb, ContactTimes, "moving_aabb_aabb", |a, b| {
        let h = dynamic::moving_aabb_aabb(&a.aabb, &a.velocity, &b.aabb, &b.velocity);
        (h.hit, ContactTimes { t_first: h.t_first, t_last: h.t_last })
    });
    map_kernel!(
    /// [`dynamic::moving_sphere_aabb_lanes`]: earliest contact time of a moving sphere and a box.
    MovingSphereAabb, MovingSphere, Aabb, HitT, "moving_sphere_aabb", |s, b| {
        let h = dynamic::moving_sphere_aabb_lanes(&s.sphere, &s.velocity, b);
        (h.hit, HitT { t: h.t })
    });
    map_kernel!(
    /// [`dynamic::moving_aabb_aabb_conservative`]: widened first and last contact times.
    MovingAabbAabbConservative, MovingAabb, MovingAabb, ContactTimes, "moving_aabb_aabb_conservative", |a, b| {
        let h = dynamic::moving_aabb_aabb_conservative(&a.aabb, &a.velocity, &b.aabb, &b.velocity);
        (h.hit, ContactTimes { t_first: h.t_first, t_last: h.t_last })
    });
}

/// Frustum culling of a pack of boxes: `(outside, inside)` bitmasks; boxes in
/// neither are intersecting the frustum (see [`crate::overlap::Classification`]).
pub fn frustum_cull_aabbs<L: LanePod>(
    frustum: &crate::Frustum,
    boxes: &Pack<crate::Aabb, L>,
    outside: &mut BitMask,
    inside: &mut BitMask,
) {
    cull(boxes, outside, inside, |b| crate::overlap::frustum_aabb_masks::<L>(frustum, b));
}

/// Frustum culling of a pack of spheres: `(outside, inside)` bitmasks.
pub fn frustum_cull_spheres<L: LanePod>(
    frustum: &crate::Frustum,
    spheres: &Pack<crate::Sphere, L>,
    outside: &mut BitMask,
    inside: &mut BitMask,
) {
    cull(spheres, outside, inside, |s| crate::overlap::frustum_sphere_masks::<L>(frustum, s));
}

/// Writes the `(outside, inside)` lane masks of `classify` for every chunk.
fn cull<S: Packable, L: LanePod>(
    pack: &Pack<S, L>,
    outside: &mut BitMask,
    inside: &mut BitMask,
    classify: impl Fn(&S::Lanes<L>) -> (L::Mask, L::Mask),
) {
    outside.reset(pack.len());
    inside.reset(pack.len());
    for (c, chunk) in pack.chunks().iter().enumerate() {
        let (o, i) = classify(chunk);
        let (w, s) = ((c * L::WIDTH) / 64, (c * L::WIDTH) % 64);
        outside.words[w] |= o.bits() << s;
        inside.words[w] |= i.bits() << s;
    }
    mask_tail(outside);
    mask_tail(inside);
}

/// A pair kernel that also returns values per lane (a hit time, barycentrics,
/// a depth): `Out` is a plain `#[repr(C)]` record of `f32`s, and the kernel
/// returns its lane form `Out::Lanes<L>` next to the hit mask.
pub trait MapKernel: Send + Sync {
    /// First shape type.
    type A: Packable;
    /// Second shape type.
    type B: Packable;
    /// The per-pair result record.
    type Out: Packable + Default;
    /// Name used in benchmarks and reports.
    const NAME: &'static str;
    /// Lane `j` of the mask says whether lane `j` of the output is meaningful.
    fn eval<L: LanePod>(
        a: &<Self::A as Packable>::Lanes<L>,
        b: &<Self::B as Packable>::Lanes<L>,
    ) -> (L::Mask, <Self::Out as Packable>::Lanes<L>);
}

/// The map drivers' loop as a dispatched body: chunk `c` of `b` against
/// chunk `c` of `a` (`a[0]` when `broadcast`), records to `values` (one
/// chunk's lanes each) and hit bits to `words`, both local to the task.
struct MapTask<'a, K: MapKernel, L: LanePod> {
    words: &'a mut [u64],
    values: &'a mut [K::Out],
    first_chunk: usize,
    broadcast: bool,
    a: &'a [<K::A as Packable>::Lanes<L>],
    b: &'a [<K::B as Packable>::Lanes<L>],
}

impl<K: MapKernel, L: LanePod> WidthFn<L> for MapTask<'_, K, L> {
    type Out = ();
    #[inline(always)]
    fn call<M: LanePod>(self) {
        let a = recast::<K::A, L, M>(self.a);
        let b = recast::<K::B, L, M>(self.b);
        let step = usize::from(!self.broadcast);
        for (k, v) in self.values.chunks_mut(M::WIDTH).enumerate() {
            let c = self.first_chunk + k;
            let (m, out) = K::eval::<M>(&a[c * step], &b[c]);
            write_chunk::<K::Out, M>(&out, v);
            let local = k * M::WIDTH;
            self.words[local / 64] |= m.bits() << (local % 64);
        }
    }
}

/// `(mask, values)` for pairs `(as[i], bs[i])`: `values[i]` is the kernel's
/// record for pair `i` (meaningful where the mask bit is set). Reuses `values`.
pub fn pairwise_map<K: MapKernel, L: LanePod>(
    as_: &Pack<K::A, L>,
    bs: &Pack<K::B, L>,
    mask: &mut BitMask,
    values: &mut Vec<K::Out>,
) {
    assert_eq!(as_.len(), bs.len(), "pairwise needs packs of equal length");
    let n = as_.len();
    mask.reset(n);
    values.clear();
    values.resize(as_.chunks().len() * L::WIDTH, K::Out::default());
    let (a, b) = (as_.chunks(), bs.chunks());
    let task =
        MapTask::<K, L> { words: &mut mask.words, values, first_chunk: 0, broadcast: false, a, b };
    simd::dispatch_width::<L, _>(simd::current(), task);
    values.truncate(n);
    mask_tail(mask);
}

/// [`pairwise_map`] over rayon (identical output for any thread count).
pub fn par_pairwise_map<K: MapKernel, L: LanePod>(
    as_: &Pack<K::A, L>,
    bs: &Pack<K::B, L>,
    mask: &mut BitMask,
    values: &mut Vec<K::Out>,
) {
    assert_eq!(as_.len(), bs.len(), "pairwise needs packs of equal length");
    let n = as_.len();
    mask.reset(n);
    values.clear();
    values.resize(as_.chunks().len() * L::WIDTH, K::Out::default());
    let items_per_task = WORDS_PER_TASK * 64;
    let (a, b) = (as_.chunks(), bs.chunks());
    let isa = simd::current();
    mask.words
        .par_chunks_mut(WORDS_PER_TASK)
        .zip(values.par_chunks_mut(items_per_task))
        .enumerate()
        .for_each(|(t, (words, values))| {
            let first_chunk = t * items_per_task / L::WIDTH;
            let task = MapTask::<K, L> { words, values, first_chunk, broadcast: false, a, b };
            simd::dispatch_width::<L, _>(isa, task)
        });
    values.truncate(n);
    mask_tail(mask);
}

/// `(mask, values)` of one query against every item of `bs`.
pub fn one_vs_many_map<K: MapKernel, L: LanePod>(
    a: &K::A,
    bs: &Pack<K::B, L>,
    mask: &mut BitMask,
    values: &mut Vec<K::Out>,
) {
    let a = [broadcast::<K::A, L>(a)];
    let n = bs.len();
    mask.reset(n);
    values.clear();
    values.resize(bs.chunks().len() * L::WIDTH, K::Out::default());
    let task = MapTask::<K, L> {
        words: &mut mask.words,
        values,
        first_chunk: 0,
        broadcast: true,
        a: &a,
        b: bs.chunks(),
    };
    simd::dispatch_width::<L, _>(simd::current(), task);
    values.truncate(n);
    mask_tail(mask);
}

#[inline(always)]
fn write_chunk<O: Packable, L: LanePod>(lanes: &O::Lanes<L>, out: &mut [O]) {
    for (j, o) in out.iter_mut().enumerate() {
        *o = crate::pack::extract::<O, L>(lanes, j);
    }
}

fn mask_tail(mask: &mut BitMask) {
    let len = mask.len;
    if !len.is_multiple_of(64) {
        if let Some(last) = mask.words.last_mut() {
            *last &= u64::MAX >> (64 - len % 64);
        }
    }
}

/// All pairs `(i, j)` with a hit of `K(as[i], bs[j])` and their records,
/// sorted by `(i, j)`, over rayon in blocks of [`MANY_BLOCK`] (any thread count
/// gives the same output).
pub fn par_many_vs_many_map<K: MapKernel, L: LanePod>(
    as_: &[K::A],
    bs: &Pack<K::B, L>,
    out: &mut Vec<(u32, u32, K::Out)>,
) {
    let blocks: Vec<Vec<(u32, u32, K::Out)>> = (0..as_.len().div_ceil(MANY_BLOCK))
        .into_par_iter()
        .map(|block| {
            let mut v = Vec::new();
            let start = block * MANY_BLOCK;
            for (ai, a) in as_[start..(start + MANY_BLOCK).min(as_.len())].iter().enumerate() {
                let a = broadcast::<K::A, L>(a);
                for (c, chunk) in bs.chunks().iter().enumerate() {
                    let (m, vals) = K::eval::<L>(&a, chunk);
                    let mut m = m.bits();
                    while m != 0 {
                        let j = m.trailing_zeros() as usize;
                        m &= m - 1;
                        let bi = c * L::WIDTH + j;
                        if bi < bs.len() {
                            v.push((
                                (start + ai) as u32,
                                bi as u32,
                                crate::pack::extract::<K::Out, L>(&vals, j),
                            ));
                        }
                    }
                }
            }
            v
        })
        .collect();
    for b in blocks {
        out.extend_from_slice(&b);
    }
}

/// One ray against every box of a pack, with the per-ray slab data
/// ([`crate::ray::RayPrecomp`]) computed once: hit bits and entry `t` per box.
/// Bit-identical to [`crate::ray::ray_aabb`] on each pair.
pub fn ray_vs_boxes<L: LanePod>(
    ray: &crate::Ray,
    boxes: &Pack<crate::Aabb, L>,
    mask: &mut BitMask,
    t: &mut Vec<f32>,
) {
    let n = boxes.len();
    mask.reset(n);
    t.clear();
    t.resize(boxes.chunks().len() * L::WIDTH, f32::NAN);
    let task = RayBoxesTask::<L> { ray, boxes: boxes.chunks(), words: &mut mask.words, t: Some(t) };
    simd::dispatch_width::<L, _>(simd::current(), task);
    t.truncate(n);
    mask_tail(mask);
}

/// [`ray_vs_boxes`] returning only the hit bits (the BVH-traversal shape).
pub fn ray_vs_boxes_mask<L: LanePod>(
    ray: &crate::Ray,
    boxes: &Pack<crate::Aabb, L>,
    mask: &mut BitMask,
) {
    mask.reset(boxes.len());
    let task = RayBoxesTask::<L> { ray, boxes: boxes.chunks(), words: &mut mask.words, t: None };
    simd::dispatch_width::<L, _>(simd::current(), task);
    mask_tail(mask);
}

/// One ray against chunks of boxes as a dispatched body: hit bits to
/// `words`, entry `t` per box to `t` when given.
struct RayBoxesTask<'a, L: LanePod> {
    ray: &'a crate::Ray,
    boxes: &'a [crate::Aabb<L>],
    words: &'a mut [u64],
    t: Option<&'a mut Vec<f32>>,
}

impl<L: LanePod> WidthFn<L> for RayBoxesTask<'_, L> {
    type Out = ();
    #[inline(always)]
    fn call<M: LanePod>(mut self) {
        let boxes = recast::<crate::Aabb, L, M>(self.boxes);
        let pre = crate::ray::RayPrecomp::new(self.ray).splat::<M>();
        for (c, b) in boxes.iter().enumerate() {
            let h = crate::ray::ray_aabb_precomp(&pre, b);
            if let Some(t) = self.t.as_deref_mut() {
                h.t.store(&mut t[c * M::WIDTH..(c + 1) * M::WIDTH]);
            }
            self.words[(c * M::WIDTH) / 64] |= h.hit.bits() << ((c * M::WIDTH) % 64);
        }
    }
}
