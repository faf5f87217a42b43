//! Memory helpers shared by the modules that fill large fresh buffers.

/// Asks the kernel to back `words` with transparent huge pages (Linux; a
/// no-op elsewhere and below 4 MiB). Call it before the memory is first
/// written: pages already faulted in stay 4 KiB. Used by [`HugeBuf`] (the
/// voxel grids, their binning records, file buffers) from a 2 MiB boundary,
/// and on plain `Vec`s by the stitched mesh arrays, the voxel index lists
/// and the broad phase's pair arrays ([`resize_advised`]).
///
/// Why: `vec![0; n]` gets fresh zero pages from the kernel (no memset), and
/// the first write to each 4 KiB page faults. On the 2-core VM the voxel grids
/// were measured on, a fault cost 3–15 µs (more under load), so a 512³ grid
/// (16 MiB, 4096 pages; the bunny surface touches ~3000 of them) spent more
/// time in page faults than in voxelization. With `MADV_HUGEPAGE` each
/// 2 MiB-aligned part faults once (2 MiB zeroed by the kernel): 16 MiB
/// written page by page took 38–117 ms with 4 KiB pages and 2.2–5.2 ms
/// advised (C probe, 5 alternating runs each, load ≈ 8; simd-notes.md,
/// "Voxelizer"). Only the advice changes: contents and results are
/// the same whether or not the kernel follows it (THP `never`, non-Linux).
pub(crate) fn advise_huge_pages<T>(words: &[T]) {
    let bytes = std::mem::size_of_val(words);
    if bytes >= 4 << 20 {
        advise_bytes(words.as_ptr() as usize, bytes);
    }
}

/// [`advise_huge_pages`] on the bytes `at..at + bytes` of one live
/// allocation, rounded inward to whole 4 KiB pages.
fn advise_bytes(at: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        // the page-aligned interior of the range (madvise wants a
        // page-aligned start; the partial pages at both ends are left alone)
        let start = at.next_multiple_of(PAGE);
        let end = (at + bytes) / PAGE * PAGE;
        if end > start {
            // SAFETY: [start, end) lies inside a live allocation (the
            // callers' contract, rounded inward to whole pages);
            // MADV_HUGEPAGE is advice only: it does not change the contents
            // or the validity of any page. The return value is ignored
            // (EINVAL without THP support: the range simply keeps 4 KiB
            // pages).
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (at, bytes);
}

/// The size of a transparent huge page on x86-64 Linux: the alignment
/// [`HugeBuf`] gives its elements.
const HUGE_PAGE: usize = 2 << 20;

/// Below this many bytes a [`HugeBuf`] is a plain block: its page faults
/// cost less than the 2 MiB page the kernel would zero for it.
const HUGE_BUF_MIN: usize = 1 << 20;

/// `len` zeroed elements starting on a 2 MiB boundary of a fresh heap
/// block (from [`HUGE_BUF_MIN`] bytes up), advised onto huge pages
/// ([`advise_huge_pages`]) in whole 2 MiB pages before anything is written
/// to them.
///
/// Why: `advise_huge_pages` on a plain `Vec` can only give huge pages to
/// the 2 MiB-aligned part of the block; the rest, up to 2 MiB at each end,
/// and all of a block under 4 MiB, faults 4 KiB at a time. On the 2-core
/// AMD EPYC VM a 4 KiB fault cost 2.6 µs (16 MiB written page by page:
/// 10.5–12 ms; advised and aligned: 1.0–1.4 ms after a first run of 49 ms;
/// C probe, five runs each),
/// and the command line's read of the 2.4 MB bunny OBJ faulted ~600 of
/// them (simd-notes.md, "Mesh loading"). [`HugeBuf::zeroed`]'s block is
/// zeroed by `calloc`: a fresh mapping comes zeroed from the kernel,
/// untouched, so the advice precedes the first write; a reused block is
/// cleared by `calloc`'s memset (and is already resident).
/// [`HugeBuf::zeroed_in_parts`] leaves the zeroing to its parallel tasks.
/// Either block is over-allocated by less than 6 MiB
/// (rounding up to whole huge pages, and room to slide the start), which a
/// fresh mapping never makes resident.
pub(crate) struct HugeBuf<T> {
    /// The block. Its elements `start..start + len` are initialized: inside
    /// `vec.len()` ([`HugeBuf::zeroed`], a converted `Vec`), or written by
    /// [`HugeBuf::zeroed_in_parts`] beyond it, which leaves `vec.len()` at 0
    /// (its `T: Copy` has no drop to skip).
    vec: Vec<T>,
    start: usize,
    len: usize,
}

/// For `len` elements of `size` bytes: how many to allocate for a block
/// that can start on a 2 MiB boundary, or `None` for a plain block.
fn huge_block_len(len: usize, size: usize) -> Option<usize> {
    if len.saturating_mul(size) < HUGE_BUF_MIN || size > HUGE_PAGE {
        return None;
    }
    // whole huge pages, and room to slide the start onto a boundary
    let page = HUGE_PAGE.div_ceil(size);
    Some(len.next_multiple_of(page) + 2 * page)
}

/// The first element at or after the first 2 MiB boundary of the block at
/// `at` of `bytes` bytes (exactly on it when `size` divides 2 MiB), after
/// advising the block from that boundary on.
fn huge_start(at: usize, bytes: usize, size: usize) -> usize {
    let boundary = at.next_multiple_of(HUGE_PAGE);
    advise_bytes(boundary, at + bytes - boundary);
    (boundary - at).div_ceil(size)
}

impl<T: bytemuck::Zeroable> HugeBuf<T> {
    /// `len` zeroed elements (bytemuck's zero bit pattern).
    pub(crate) fn zeroed(len: usize) -> HugeBuf<T> {
        let size = std::mem::size_of::<T>().max(1);
        let Some(total) = huge_block_len(len, size) else {
            return HugeBuf { vec: bytemuck::zeroed_vec(len), start: 0, len };
        };
        let vec: Vec<T> = bytemuck::zeroed_vec(total);
        let start = huge_start(vec.as_ptr() as usize, std::mem::size_of_val(vec.as_slice()), size);
        HugeBuf { vec, start, len }
    }
}

impl<T: bytemuck::Zeroable + Copy + Send> HugeBuf<T> {
    /// `len` elements made by parallel tasks, one per part of `part`
    /// elements (the last may be shorter): the task of part `p` zeroes it,
    /// then runs `fill(p, part)`. The parts are handed out to the rayon
    /// threads in decreasing order of `work(p)` (longest processing time
    /// first).
    ///
    /// Why: `calloc` zeroes a reused heap block with one serial memset
    /// before any task starts (16 MiB for a 512³ grid, ~0.65 ms), and a
    /// part zeroed by its own task is in cache when `fill` writes it. The
    /// block is not zeroed up front (a fresh one stays untouched until its
    /// tasks run).
    pub(crate) fn zeroed_in_parts(
        len: usize,
        part: usize,
        work: impl Fn(usize) -> u64,
        fill: impl Fn(usize, &mut [T]) + Sync,
    ) -> HugeBuf<T> {
        use rayon::prelude::*;
        use std::mem::MaybeUninit;
        let size = std::mem::size_of::<T>().max(1);
        let total = huge_block_len(len, size);
        let mut vec: Vec<T> = Vec::with_capacity(total.unwrap_or(len));
        let start = match total {
            Some(total) => huge_start(vec.as_ptr() as usize, total * size, size),
            None => 0,
        };
        let mut parts: Vec<(usize, &mut [MaybeUninit<T>])> = vec.spare_capacity_mut()
            [start..start + len]
            .chunks_mut(part.max(1))
            .enumerate()
            .collect();
        parts.sort_by_key(|&(p, _)| std::cmp::Reverse(work(p)));
        parts.into_iter().par_bridge().for_each(|(p, w)| {
            w.fill(MaybeUninit::zeroed());
            // SAFETY: every element of `w` was just initialized (zeroed
            // bits are a valid `T`: `Zeroable`), and `MaybeUninit<T>` has
            // the layout of `T`.
            #[allow(unsafe_code)]
            let w = unsafe { &mut *(w as *mut [MaybeUninit<T>] as *mut [T]) };
            fill(p, w);
        });
        // the parts cover `start..start + len` and `for_each` ran on every
        // one (a panic in a task propagates before this line, and drops
        // `vec` with its length 0)
        HugeBuf { vec, start, len }
    }
}

/// No elements (a kept buffer's empty state).
impl<T> Default for HugeBuf<T> {
    fn default() -> HugeBuf<T> {
        HugeBuf { vec: Vec::new(), start: 0, len: 0 }
    }
}

/// A plain block as it is (no alignment, no advice): for a caller's
/// fallback path.
impl<T> From<Vec<T>> for HugeBuf<T> {
    fn from(vec: Vec<T>) -> HugeBuf<T> {
        HugeBuf { len: vec.len(), vec, start: 0 }
    }
}

impl<T> std::ops::Deref for HugeBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the allocation holds `start + len` elements, and
        // `start..start + len` are initialized (the struct's invariant);
        // `as_ptr` points at the allocation whatever `vec.len()` is.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts(self.vec.as_ptr().add(self.start), self.len)
        }
    }
}

impl<T> std::ops::DerefMut for HugeBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, through the unique borrow of `self`.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts_mut(self.vec.as_mut_ptr().add(self.start), self.len)
        }
    }
}

/// A copy in a plain block.
impl<T: Copy> Clone for HugeBuf<T> {
    fn clone(&self) -> HugeBuf<T> {
        self.to_vec().into()
    }
}

/// `v.resize(n, value)`; when that needs a new allocation, its new tail is
/// advised ([`advise_huge_pages`]) before anything is written to it. For the broad phase's pair arrays (9 MiB
/// each at 100k Terdiman boxes), which a one-shot call allocates afresh:
/// when the allocator returns such blocks to the kernel between calls, every
/// call faulted them in again page by page (`simd-notes.md`, "Broad phase").
pub(crate) fn resize_advised<T: Clone>(v: &mut Vec<T>, n: usize, value: T) {
    if n > v.capacity() {
        // `reserve` reallocates (glibc moves a large block's pages with
        // `mremap`, no copy), leaving the new tail untouched until `resize`.
        v.reserve(n - v.len());
        advise_huge_pages(v.spare_capacity_mut());
    }
    v.resize(n, value);
}

/// Asks the CPU to bring the cache line of `x` in (a hint: no access, no
/// effect on results; nothing off x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache; `x` is a valid reference.
    #[allow(unsafe_code)]
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

#[cfg(test)]
mod tests {
    use super::{HugeBuf, HUGE_BUF_MIN, HUGE_PAGE};

    /// Every size class: below the threshold (a plain block), element sizes
    /// that divide 2 MiB (start on the boundary) and that do not (start
    /// within one element after it); zeroed contents and the length.
    #[test]
    fn huge_buffers_are_aligned_and_zeroed() {
        fn check<T: bytemuck::Zeroable + bytemuck::NoUninit + PartialEq>(len: usize, fill: T) {
            let size = std::mem::size_of::<T>();
            let mut z = HugeBuf::<T>::zeroed(len);
            assert_eq!(z.len(), len);
            assert!(bytemuck::cast_slice::<T, u8>(&z).iter().all(|&b| b == 0));
            if len * size >= HUGE_BUF_MIN {
                let off = z.as_ptr() as usize % HUGE_PAGE;
                assert!(off < size, "{size}-byte elements {off} bytes past a boundary");
            }
            z.fill(fill);
            assert!(z.iter().all(|&x| x == fill));
        }
        check::<u8>(0, 7);
        check::<u8>(1000, 7);
        check::<u8>(HUGE_BUF_MIN + 1, 7);
        check::<u8>(5 << 20, 7);
        check::<u64>(HUGE_BUF_MIN / 8 + 3, u64::MAX);
        check::<[u32; 12]>(69_451, [9; 12]);
        check::<[u32; 3]>(300_001, [1, 2, 3]);
        // a caller's fallback block, kept whole
        let plain: HugeBuf<u8> = vec![1, 2, 3].into();
        assert_eq!(&*plain, &[1, 2, 3]);
    }

    /// Parts built by tasks: every part zeroed before its fill sees it and
    /// filled exactly once, whatever the work order (on a pool of three
    /// threads, so parts run concurrently); aligned as `zeroed`; a block
    /// reused from the heap (filled with ones, then freed) still reads as
    /// zeros where no fill writes.
    #[test]
    fn parts_are_zeroed_then_filled_once() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for (len, part) in
            [(0, 5), (7, 3), (1000, 1000), (HUGE_BUF_MIN / 8 + 5, 4096), (300_000, 1)]
        {
            drop(vec![!0u64; len + 1]);
            let calls = std::sync::atomic::AtomicUsize::new(0);
            let buf = pool.install(|| {
                HugeBuf::<u64>::zeroed_in_parts(
                    len,
                    part,
                    |p| (p * 7919 % 13) as u64,
                    |p, w| {
                        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        assert!(w.iter().all(|&x| x == 0), "part {p} not zeroed");
                        assert!(w.len() == part || (p + 1) * part >= len);
                        // every other element: the part's number plus one
                        for x in w.iter_mut().step_by(2) {
                            *x = p as u64 + 1;
                        }
                    },
                )
            });
            assert_eq!(buf.len(), len);
            assert_eq!(calls.into_inner(), len.div_ceil(part));
            for (i, &x) in buf.iter().enumerate() {
                let expect = if (i % part) % 2 == 0 { (i / part) as u64 + 1 } else { 0 };
                assert_eq!(x, expect, "element {i} of {len} in parts of {part}");
            }
            if len * 8 >= HUGE_BUF_MIN {
                assert_eq!(buf.as_ptr() as usize % HUGE_PAGE, 0);
            }
            assert_eq!(&*buf.clone(), &*buf);
        }
    }
}
