//! Memory helpers shared by the modules that fill large fresh buffers.

/// Asks the kernel to back `words` with transparent huge pages (Linux; a
/// no-op elsewhere and below 4 MiB). Call it before the memory is first
/// written: pages already faulted in stay 4 KiB. Used by the voxel grids
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
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let bytes = std::mem::size_of_val(words);
        if bytes < 4 << 20 {
            return;
        }
        // the page-aligned interior of the buffer (madvise wants a
        // page-aligned start; the partial pages at both ends are left alone)
        let start = (words.as_ptr() as usize).next_multiple_of(PAGE);
        let end = (words.as_ptr() as usize + bytes) / PAGE * PAGE;
        if end > start {
            // SAFETY: [start, end) lies inside the live allocation of `words`
            // (rounded inward to whole pages); MADV_HUGEPAGE is advice only:
            // it does not change the contents or the validity of any page.
            // The return value is ignored (EINVAL without THP support: the
            // buffer simply keeps 4 KiB pages).
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = words;
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
