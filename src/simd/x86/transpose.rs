//! Transposes: 16×16 (AVX-512) and 8×8 (AVX) `f32` matrices (the contact
//! pipeline's bundles, packed from whole shapes), and 64×64 bit matrices
//! with GFNI (the binvox writer's column blocks, `voxel::formats`).
//!
//! **16×16 and 8×8 words.** The classic four-stage network:
//! `vunpck{l,h}ps` pairs words of row pairs, `vunpck{l,h}pd` pairs of words
//! of row quadruples, and two rounds of `vshuff32x4` move 128-bit blocks
//! across rows (Intel's optimization manual, "matrix transposition"; 64
//! shuffles for 256 words, against 256 scalar moves); at 8×8, `vshufps` and
//! one `vperm2f128` round. Pure data movement: every bit arrives unchanged.
//!
//! **64×64 bits.** The matrix is 8×8 blocks of 8×8 bits. Each block is
//! transposed in one `vgf2p8affineqb` (an affine map over GF(2) whose
//! matrix operand is the block: applied to the unit bytes `1 << i`, it
//! returns the block's columns), and the blocks are moved to their
//! transposed places by byte permutes (`vpermb`) within registers and one
//! 8×8 transpose of 64-bit lanes across the eight registers (the
//! `vpunpck*qdq` / `vshufi64x2` network). 64 instructions, against the
//! scalar block swap's six rounds of 32 swaps of about six operations each
//! (Warren, *Hacker's Delight*, §7-3). The instruction's row order is Intel's definition (output bit `i`
//! reads the matrix's byte `7 - i`); its use as an 8×8 bit transpose is
//! described in Harold Aptroot's *Bits, Math and Performance(?)*
//! (bitmath.blogspot.com, 2023).

use core::arch::x86_64::*;

/// Transposes the 8×8 words `r` in place: word `j` of row `k` goes to word
/// `k` of row `j` (the AVX form of the network in the module docs: words of
/// row pairs, word pairs of row quadruples, 128-bit halves across rows).
///
/// # Safety
/// The CPU must support AVX.
#[inline(always)]
pub(crate) unsafe fn transpose8x8_f32(r: &mut [__m256; 8]) {
    let mut t = [_mm256_setzero_ps(); 8];
    for i in 0..4 {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    let mut s = [_mm256_setzero_ps(); 8];
    for h in 0..2 {
        let (a, b, c, d) = (t[4 * h], t[4 * h + 1], t[4 * h + 2], t[4 * h + 3]);
        s[4 * h] = _mm256_shuffle_ps::<0x44>(a, c);
        s[4 * h + 1] = _mm256_shuffle_ps::<0xee>(a, c);
        s[4 * h + 2] = _mm256_shuffle_ps::<0x44>(b, d);
        s[4 * h + 3] = _mm256_shuffle_ps::<0xee>(b, d);
    }
    for i in 0..4 {
        r[i] = _mm256_permute2f128_ps::<0x20>(s[i], s[i + 4]);
        r[i + 4] = _mm256_permute2f128_ps::<0x31>(s[i], s[i + 4]);
    }
}

/// `LanePod::lanes_from_rows` on AVX for 8 or 16 lanes (`w`): per 8 rows
/// and 8 fields, one masked load per shape (only its own words are read)
/// and an 8×8 transpose; rows `8h..8h + 8` fill words `8h..8h + 8` of each
/// `w`-word field (the layout of one `__m256` and of the two-`__m256`
/// 16-lane type).
///
/// # Safety
/// The CPU must support AVX. (Bounds are checked here.)
#[inline(always)]
pub(crate) unsafe fn lanes_from_rows_avx<T: bytemuck::Pod>(dst: &mut [f32], rows: &[&T], w: usize) {
    let words = core::mem::size_of::<T>() / 4;
    let fields = dst.len() / w;
    assert!(
        (w == 8 || w == 16) && rows.len() >= w && fields <= words,
        "lanes_from_rows: {fields} fields of a shape at {w} lanes"
    );
    for h in 0..w / 8 {
        for g in (0..fields).step_by(8) {
            let n = (fields - g).min(8);
            // lane i loads when i < n (the mask's sign bits)
            let mask = _mm256_cmpgt_epi32(
                _mm256_set1_epi32(n as i32),
                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
            );
            let mut r = [_mm256_setzero_ps(); 8];
            for (j, row) in rows[8 * h..8 * h + 8].iter().enumerate() {
                // words `g..g + n` of one `T` (`g + n <= fields <= words`)
                r[j] = _mm256_maskload_ps((*row as *const T).cast::<f32>().add(g), mask);
            }
            transpose8x8_f32(&mut r);
            for (k, v) in r[..n].iter().enumerate() {
                // field `g + k < fields`: words `8h..8h + 8` of it, in `dst`
                _mm256_storeu_ps(dst.as_mut_ptr().add((g + k) * w + 8 * h), *v);
            }
        }
    }
}

/// Transposes the 16×16 words `r` in place: word `j` of row `k` goes to
/// word `k` of row `j` (module docs).
///
/// # Safety
/// The CPU must support AVX-512F.
#[inline(always)]
pub(crate) unsafe fn transpose16x16_f32(r: &mut [__m512; 16]) {
    // stage 1: words of row pairs (2i, 2i+1)
    let mut t = [_mm512_setzero_ps(); 16];
    for i in 0..8 {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    // stage 2: word pairs of rows 4q..4q+4
    for q in 0..4 {
        // (as 64-bit lanes; no closure for the casts: a closure would not
        // inherit the caller's target features)
        let a = _mm512_castps_pd(t[4 * q]);
        let b = _mm512_castps_pd(t[4 * q + 1]);
        let c = _mm512_castps_pd(t[4 * q + 2]);
        let d = _mm512_castps_pd(t[4 * q + 3]);
        r[4 * q] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        r[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        r[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        r[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    // stage 3: 128-bit blocks between rows i and i + 4 of each half
    for h in 0..2 {
        for i in 0..4 {
            let (a, b) = (r[8 * h + i], r[8 * h + i + 4]);
            t[8 * h + i] = _mm512_shuffle_f32x4::<0x88>(a, b);
            t[8 * h + i + 4] = _mm512_shuffle_f32x4::<0xdd>(a, b);
        }
    }
    // stage 4: 128-bit blocks between rows i and i + 8
    for i in 0..8 {
        r[i] = _mm512_shuffle_f32x4::<0x88>(t[i], t[i + 8]);
        r[i + 8] = _mm512_shuffle_f32x4::<0xdd>(t[i], t[i + 8]);
    }
}

/// Whether this CPU has GFNI and the byte permutes (`avx512vbmi`) next to
/// the AVX-512 path's F and BW.
pub(crate) fn has_gfni() -> bool {
    std::arch::is_x86_feature_detected!("gfni")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

/// Byte permute of step 1: byte `r` of row `8R + r`'s byte `B` goes to
/// byte `7 - r` of lane `B` (rows reversed: the affine map reads its matrix
/// operand's rows from byte 7 down).
const GATHER_BLOCKS: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut at = 0;
    while at < 64 {
        let (b, r) = (at / 8, 7 - at % 8);
        idx[at] = (r * 8 + b) as u8;
        at += 1;
    }
    idx
};

/// Byte permute of step 3: an 8×8 transpose of bytes within each register
/// (byte `i` of lane `R` to byte `R` of lane `i`).
const TRANSPOSE_BYTES: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut at = 0;
    while at < 64 {
        let (i, r) = (at / 8, at % 8);
        idx[at] = (r * 8 + i) as u8;
        at += 1;
    }
    idx
};

/// Transposes a 64×64 bit matrix in place: afterwards bit `c` of `a[r]` is
/// what bit `r` of `a[c]` was, as `voxel::formats::transpose64` does.
///
/// # Safety
/// The CPU must support AVX-512 F and BW, VBMI and GFNI ([`has_gfni`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(crate) unsafe fn transpose64_gfni(a: &mut [u64; 64]) {
    let gather = _mm512_loadu_si512(GATHER_BLOCKS.as_ptr().cast());
    let bytes = _mm512_loadu_si512(TRANSPOSE_BYTES.as_ptr().cast());
    // bytes 1 << i: the affine map's input, so each output byte is one
    // column of the block
    let units = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    // g[R] lane B byte i, bit k = bit 8B + i of row 8R + k
    let mut g = [_mm512_setzero_si512(); 8];
    for (r, g) in g.iter_mut().enumerate() {
        let rows = _mm512_loadu_si512(a.as_ptr().add(8 * r).cast());
        let blocks = _mm512_permutexvar_epi8(gather, rows);
        *g = _mm512_gf2p8affine_epi64_epi8::<0>(units, blocks);
    }
    // 64-bit lanes transposed across the registers: h[B] lane R = g[R] lane B
    let mut lo = [_mm512_setzero_si512(); 8];
    for p in 0..4 {
        lo[2 * p] = _mm512_unpacklo_epi64(g[2 * p], g[2 * p + 1]);
        lo[2 * p + 1] = _mm512_unpackhi_epi64(g[2 * p], g[2 * p + 1]);
    }
    let pairs = [
        _mm512_shuffle_i64x2::<0x88>(lo[0], lo[2]),
        _mm512_shuffle_i64x2::<0xdd>(lo[0], lo[2]),
        _mm512_shuffle_i64x2::<0x88>(lo[1], lo[3]),
        _mm512_shuffle_i64x2::<0xdd>(lo[1], lo[3]),
        _mm512_shuffle_i64x2::<0x88>(lo[4], lo[6]),
        _mm512_shuffle_i64x2::<0xdd>(lo[4], lo[6]),
        _mm512_shuffle_i64x2::<0x88>(lo[5], lo[7]),
        _mm512_shuffle_i64x2::<0xdd>(lo[5], lo[7]),
    ];
    let h = [
        _mm512_shuffle_i64x2::<0x88>(pairs[0], pairs[4]),
        _mm512_shuffle_i64x2::<0x88>(pairs[2], pairs[6]),
        _mm512_shuffle_i64x2::<0x88>(pairs[1], pairs[5]),
        _mm512_shuffle_i64x2::<0x88>(pairs[3], pairs[7]),
        _mm512_shuffle_i64x2::<0xdd>(pairs[0], pairs[4]),
        _mm512_shuffle_i64x2::<0xdd>(pairs[2], pairs[6]),
        _mm512_shuffle_i64x2::<0xdd>(pairs[1], pairs[5]),
        _mm512_shuffle_i64x2::<0xdd>(pairs[3], pairs[7]),
    ];
    // row 8B + i, byte R = h[B] lane R byte i
    for (b, h) in h.iter().enumerate() {
        let rows = _mm512_permutexvar_epi8(bytes, *h);
        _mm512_storeu_si512(a.as_mut_ptr().add(8 * b).cast(), rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfni_transpose_equals_the_definition() {
        if !has_gfni() {
            eprintln!("skipped: this CPU has no GFNI with AVX-512 VBMI");
            return;
        }
        let mut rng = fastrand::Rng::with_seed(11);
        // random words, single bits at every position, and full rows
        let mut cases: Vec<[u64; 64]> =
            (0..32).map(|_| std::array::from_fn(|_| rng.u64(..))).collect();
        for r in 0..64 {
            for c in 0..64 {
                let mut a = [0u64; 64];
                a[r] = 1 << c;
                cases.push(a);
            }
            let mut a = [0u64; 64];
            a[r] = !0;
            cases.push(a);
        }
        for a in cases {
            let mut t = a;
            unsafe { transpose64_gfni(&mut t) };
            for (r, row) in t.iter().enumerate() {
                for (c, col) in a.iter().enumerate() {
                    assert_eq!(row >> c & 1, col >> r & 1, "bit ({r}, {c})");
                }
            }
        }
    }
}
