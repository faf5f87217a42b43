//! A dense voxel grid's set bits as `i, j, k` triples
//! ([`crate::voxel::DenseBits`]'s `indices_flat`) with AVX-512 VBMI2's
//! byte compress: the same values in the same order as the scalar writer.
//!
//! Why. The scalar writer branches on the data at every word: is it
//! empty, and how many bits are left. On bunny 512³ 255 784 of the grid's
//! 2 097 152 words are non-zero, in no regular pattern, with 3.5 voxels
//! each on average (42 867 hold more than four, the scalar writer's
//! unrolled part). Here a row's non-zero words are found with one
//! `vptestmq` per eight words and their positions compressed into a list
//! (no branch on the data), and each listed word becomes up to sixteen
//! triples without a loop: `vpcompressb` packs the positions of its set
//! bits (the bytes 0..63 under the word as a mask), `vpmovzxbd` widens the
//! first sixteen, and three `vpermt2d` interleave them with the row's `j`
//! and `k` into 48 values, stored whole (the values past the word's count
//! are overwritten by the next word's). Only a word of more than sixteen
//! voxels loops (5 126 on bunny 512³). Measured in `simd-notes.md`
//! ("Python package", arrays out).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use crate::voxel::storage::copy_out;

/// Rows whose words are listed at once: at most this many words per list.
const LIST_WORDS: usize = 1024;

/// Value `p` of a word's 48 (its triple `p / 3`), as `vpermt2d` indices:
/// `i[p / 3]` (lanes 0..16 of the first operand), `j` (16: the second
/// operand's lane 0) or `k` (17), for the three 16-value stores.
const PICK: [[i32; 16]; 3] = {
    let mut t = [[0; 16]; 3];
    let mut p = 0;
    while p < 48 {
        t[p / 16][p % 16] = match p % 3 {
            0 => (p / 3) as i32,
            1 => 16,
            _ => 17,
        };
        p += 1;
    }
    t
};

/// Whether this CPU has the byte compress (`avx512vbmi2`) next to the
/// AVX-512 path's F, BW, DQ and VL.
pub(crate) fn has_vbmi2() -> bool {
    std::arch::is_x86_feature_detected!("avx512vbmi2")
}

/// The voxels of `words` (rows of `wpr` words, the first at `(j, k) = jk`,
/// `ny` rows per z layer) written as `i, j, k` into `part`, in row order and
/// bit order within a row; returns how many values were written. It writes
/// what the scalar writer (`voxel::storage::write_indices`) writes.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI2 ([`has_vbmi2`] and the
/// AVX-512 path's detection). `part` must have room for every voxel of
/// `words` (the caller counted them); the function panics, as the scalar
/// writer does, when it has not.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt")]
pub(crate) unsafe fn write_indices_vbmi2(
    words: &[u64],
    wpr: usize,
    ny: usize,
    (mut j, mut k): (u32, u32),
    part: &mut [MaybeUninit<u32>],
) -> usize {
    debug_assert!(wpr > 0 && words.len().is_multiple_of(wpr));
    let rows_per_list = (LIST_WORDS / wpr).max(1);
    // (the block's last voxels, fewer than 64, and a whole word's 192
    // values past them)
    let mut stage = [0u32; 3 * 64 + 3 * 64];
    let mut list = [0u32; LIST_WORDS + 8];
    let mut row_jk = [0u64; LIST_WORDS];
    let (mut n, mut at) = (0usize, 0usize);
    let bytes_iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
        17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    );
    let iota8 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // SAFETY: 64-byte loads of the 16-element `i32` tables.
    let (pick0, pick1, pick2) = unsafe {
        (
            _mm512_loadu_si512(PICK[0].as_ptr().cast()),
            _mm512_loadu_si512(PICK[1].as_ptr().cast()),
            _mm512_loadu_si512(PICK[2].as_ptr().cast()),
        )
    };
    for chunk in words.chunks(rows_per_list * wpr) {
        // 1. the non-zero words of these rows, as `row << 10 | word`
        let rows = chunk.len() / wpr;
        let mut len = 0usize;
        for (r, row) in chunk.chunks_exact(wpr).enumerate() {
            row_jk[r] = (k as u64) << 32 | j as u64;
            for c in (0..wpr).step_by(8) {
                let m = (0xffu32 >> (8 - (wpr - c).min(8))) as __mmask8;
                // SAFETY: the masked lanes are words `c..c + 8` of the row
                // that exist (`m` stops at the row's end).
                let v = unsafe { _mm512_maskz_loadu_epi64(m, row.as_ptr().add(c).cast()) };
                let nz = _mm512_test_epi64_mask(v, v);
                let ids = _mm256_add_epi32(iota8, _mm256_set1_epi32((r << 10 | c) as i32));
                // SAFETY: `list` has `LIST_WORDS + 8` slots and holds at most
                // one entry per word of the chunk (`<= LIST_WORDS`, or one
                // row of `wpr <= 1024` words), so 8 more fit.
                unsafe {
                    _mm256_storeu_si256(
                        list.as_mut_ptr().add(len).cast(),
                        _mm256_maskz_compress_epi32(nz, ids),
                    )
                };
                len += nz.count_ones() as usize;
            }
            j += 1;
            if j as usize == ny {
                (j, k) = (0, k + 1);
            }
        }
        debug_assert!(rows <= LIST_WORDS && len <= chunk.len());
        // 2. each listed word's voxels, sixteen triples at a time
        for &e in &list[..len] {
            let (r, w) = ((e >> 10) as usize, (e & 1023) as usize);
            let word = chunk[r * wpr + w];
            let jk = _mm512_set1_epi64(row_jk[r] as i64);
            let pos = _mm512_maskz_compress_epi8(word, bytes_iota);
            let base = _mm512_set1_epi32((w * 64) as i32);
            let cnt = word.count_ones() as usize;
            // Straight into `part` while a whole word's 192 values fit
            // there (lanes past the count are overwritten by the next
            // word), then into the stage, copied out at the end.
            let direct = at + 3 * 64 <= part.len();
            let d: *mut u32 = if direct {
                part[at..].as_mut_ptr().cast()
            } else {
                // (a miscounted `part` must not overrun the stage)
                assert!(n <= 3 * 64, "indices: the block holds more voxels than counted");
                stage[n..].as_mut_ptr()
            };
            let mut q = 0;
            loop {
                let b = match q {
                    0 => _mm512_extracti32x4_epi32::<0>(pos),
                    1 => _mm512_extracti32x4_epi32::<1>(pos),
                    2 => _mm512_extracti32x4_epi32::<2>(pos),
                    _ => _mm512_extracti32x4_epi32::<3>(pos),
                };
                let i = _mm512_add_epi32(_mm512_cvtepu8_epi32(b), base);
                // SAFETY: `d` has room for 192 values: `direct` checked it
                // in `part`; in the stage, `n + 3·cnt <= 3·64` (once not
                // direct, the rest of the block has fewer than 64 voxels)
                // and the stage holds `3·64` values.
                unsafe {
                    let d = d.add(48 * q);
                    _mm512_storeu_si512(d.cast(), _mm512_permutex2var_epi32(i, pick0, jk));
                    _mm512_storeu_si512(d.add(16).cast(), _mm512_permutex2var_epi32(i, pick1, jk));
                    _mm512_storeu_si512(d.add(32).cast(), _mm512_permutex2var_epi32(i, pick2, jk));
                }
                q += 1;
                if 16 * q >= cnt {
                    break;
                }
            }
            if direct {
                at += 3 * cnt;
            } else {
                n += 3 * cnt;
            }
        }
    }
    copy_out(&mut part[at..at + n], &stage[..n]);
    at + n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voxel::storage::write_indices;

    /// Both writers over `words`, with room for exactly its voxels.
    fn both(words: &[u64], wpr: usize, ny: usize, jk: (u32, u32)) -> (Vec<u32>, Vec<u32>) {
        let n = 3 * words.iter().map(|w| w.count_ones() as usize).sum::<usize>();
        let run = |vbmi2: bool| {
            let mut out = vec![MaybeUninit::new(u32::MAX); n];
            let at = if vbmi2 {
                // SAFETY: the caller checked `has_vbmi2` (and AVX-512 F, BW,
                // VL come with it on every CPU that has it); `out` holds
                // every voxel.
                unsafe { write_indices_vbmi2(words, wpr, ny, jk, &mut out) }
            } else {
                write_indices(words, wpr, ny, jk, &mut out)
            };
            assert_eq!(at, n);
            // SAFETY: all `n` values were initialised (`u32::MAX` first).
            out.into_iter().map(|v| unsafe { v.assume_init() }).collect::<Vec<u32>>()
        };
        (run(false), run(true))
    }

    /// Random blocks at every density (empty, sparse, a few bits, half,
    /// full words of 64 voxels, words of exactly 16, 17, 32 and 48), row
    /// widths from 1 to 1024 words (masked tails of the eight-word test,
    /// lists of one row), `ny` wrapping into the next layer inside a block,
    /// and blocks whose voxels end within a word's 192 staged values of
    /// the end: the values equal the scalar writer's, in order.
    #[test]
    fn vbmi2_writer_equals_the_scalar_writer() {
        if !(crate::simd::Isa::Avx512.is_supported() && has_vbmi2()) {
            eprintln!("SKIPPED vbmi2_writer_equals_the_scalar_writer: no AVX-512 VBMI2 here");
            return;
        }
        let mut rng = fastrand::Rng::with_seed(0x1d1ce5);
        let mut cases = 0;
        for wpr in [1usize, 2, 3, 7, 8, 9, 16, 17, 100, 1023, 1024] {
            for density in 0..8 {
                let rows = rng.usize(1..=(4096 / wpr).clamp(2, 300));
                let words: Vec<u64> = (0..rows * wpr)
                    .map(|_| match density {
                        0 => 0,
                        1 => (rng.u32(..100) == 0) as u64 * rng.u64(..),
                        2 => rng.u64(..) & rng.u64(..) & rng.u64(..) & rng.u64(..),
                        3 => rng.u64(..),
                        4 => u64::MAX,
                        5 => {
                            [0xffff, 0x1ffff, u32::MAX as u64, 0xffff_ffff_ffff][rng.usize(..4)]
                                << rng.u32(..16)
                        }
                        6 => 1 << rng.u32(..64),
                        _ => (rng.bool() as u64) << 63 | rng.bool() as u64,
                    })
                    .collect();
                let ny = rng.usize(1..=rows.max(2));
                let jk = (rng.u32(..ny as u32), rng.u32(..1000));
                let (want, got) = both(&words, wpr, ny, jk);
                assert!(got == want, "wpr {wpr}, density {density}, rows {rows}, ny {ny}");
                cases += 1;
            }
        }
        assert_eq!(cases, 88);
    }

    /// A `part` shorter than the block's voxels stops the writer with a
    /// panic (as the scalar writer's slicing does), never a write past it:
    /// one voxel short at the end, and far short.
    #[test]
    fn a_miscounted_part_panics() {
        if !(crate::simd::Isa::Avx512.is_supported() && has_vbmi2()) {
            eprintln!("SKIPPED a_miscounted_part_panics: no AVX-512 VBMI2 here");
            return;
        }
        let words = [u64::MAX; 64];
        for short in [1, 200, 3 * 64 * 64 - 1] {
            let run = std::panic::catch_unwind(|| {
                let mut out = vec![MaybeUninit::new(0u32); 3 * 64 * 64 - short];
                // SAFETY: VBMI2 checked above; `out` is short, which the
                // writer must refuse.
                unsafe { write_indices_vbmi2(&words, 8, 8, (0, 0), &mut out) }
            });
            assert!(run.is_err(), "{short} values short: no panic");
        }
    }
}
