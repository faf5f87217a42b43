//! Lane types on `core::arch` for the dispatched AVX2 and AVX-512 paths, and
//! the featured entry points that instantiate a body with them.
//!
//! Every operation is the IEEE one `wide` performs on a native build
//! (`vaddps`, `vminps` with its second-operand NaN rule, `vsqrtps`, ordered
//! compares, blends), so lane `i` of any result equals the `f32` scalar
//! result bit for bit (`tests/simd_paths.rs`).
//!
//! **Safety.** The types are crate-private and only created inside bodies run
//! by [`run_avx2`]/[`run_avx512`], which [`super::dispatch`] calls only for a
//! path the CPU was detected to run; their methods are `#[inline(always)]` so
//! they compile inside those featured functions.

// The crate denies `unsafe`; this module is one of its two exceptions (with
// `mem.rs`): intrinsics are `unsafe` to call, and the rule above is what makes
// each call sound.
#![allow(unsafe_code)]
// A `widephase_no_dispatch` build calls neither entry (`super::dispatch`).
#![cfg_attr(widephase_no_dispatch, allow(dead_code))]

use super::{Simd, SimdFn};
use crate::lane::{Lane, LaneMask};
use crate::pack::LanePod;
use core::arch::x86_64::*;
use core::fmt;
use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

pub(crate) mod indices;
pub(crate) mod transpose;
mod vox;

/// AVX2's lane types: 8 lanes in one `__m256`, 16 as two.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2;
impl Simd for Avx2 {
    type F8 = F32x8;
    type F16 = F32x16Pair;
    type D8 = vox::F64x4Pair;
}

/// AVX-512's lane types: 16 lanes in one `__m512`; 8 as AVX2 (VEX-encoded).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512;
impl Simd for Avx512 {
    type F8 = F32x8;
    type F16 = F32x16;
    type D8 = vox::F64x8;
}

/// `f.call::<Avx2>()` compiled with the `x86-64-v3` features.
///
/// # Safety
/// The CPU must support AVX2, FMA, BMI1/2, LZCNT, POPCNT, F16C and MOVBE.
#[target_feature(
    enable = "avx,avx2,fma,bmi1,bmi2,lzcnt,popcnt,f16c,movbe,sse3,ssse3,sse4.1,sse4.2"
)]
pub(crate) unsafe fn run_avx2<F: SimdFn>(f: F) -> F::Out {
    f.call::<Avx2>()
}

/// `f.call::<Avx512>()` compiled with the `x86-64-v4` features.
///
/// # Safety
/// The CPU must support the AVX2 set and AVX-512 F, BW, DQ and VL.
#[target_feature(
    enable = "avx,avx2,fma,bmi1,bmi2,lzcnt,popcnt,f16c,movbe,sse3,ssse3,sse4.1,sse4.2,avx512f,avx512bw,avx512dq,avx512vl"
)]
pub(crate) unsafe fn run_avx512<F: SimdFn>(f: F) -> F::Out {
    f.call::<Avx512>()
}

// ---------------------------------------------------------------- 8 lanes

/// Eight `f32` lanes in a `__m256`.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct F32x8(__m256);

/// Lane mask of [`F32x8`]: all-ones / all-zeros lanes.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct M8(__m256);

// SAFETY: `__m256` is 32 bytes of plain data, every bit pattern valid, no
// padding, alignment 32 (the same size and alignment as `wide::f32x8`, whose
// packs are reinterpreted as these).
unsafe impl bytemuck::Zeroable for F32x8 {}
unsafe impl bytemuck::Pod for F32x8 {}
// (no `gather_fields` override: an 8-lane `vgatherdps` per field was
// slower than the default moves, simd-notes.md "Compaction behind a screen")
impl LanePod for F32x8 {
    /// One masked load per shape and an 8×8 transpose per 8 fields.
    #[inline(always)]
    fn lanes_from_rows<T: bytemuck::Pod>(dst: &mut [f32], rows: &[&T]) {
        // SAFETY: module docs (AVX on both paths); the helper checks bounds.
        unsafe { transpose::lanes_from_rows_avx(dst, rows, 8) }
    }
}

impl F32x8 {
    #[inline(always)]
    fn to_array(self) -> [f32; 8] {
        // SAFETY: `__m256` and `[f32; 8]` have the same size; every bit pattern is valid.
        unsafe { core::mem::transmute(self.0) }
    }
}

impl fmt::Debug for F32x8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_array().fmt(f)
    }
}
impl fmt::Debug for M8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "M8({:08b})", self.bits())
    }
}

macro_rules! binop {
    ($t:ident, $tr:ident, $m:ident, $f:ident) => {
        impl $tr for $t {
            type Output = $t;
            #[inline(always)]
            fn $m(self, o: $t) -> $t {
                // SAFETY: see the module docs (only run on a CPU with the feature).
                $t(unsafe { $f(self.0, o.0) })
            }
        }
    };
}
binop!(F32x8, Add, add, _mm256_add_ps);
binop!(F32x8, Sub, sub, _mm256_sub_ps);
binop!(F32x8, Mul, mul, _mm256_mul_ps);
binop!(F32x8, Div, div, _mm256_div_ps);
binop!(M8, BitAnd, bitand, _mm256_and_ps);
binop!(M8, BitOr, bitor, _mm256_or_ps);

impl Neg for F32x8 {
    type Output = F32x8;
    #[inline(always)]
    fn neg(self) -> F32x8 {
        // SAFETY: module docs. Flips the sign bit only (as scalar negation).
        F32x8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
}
impl Not for M8 {
    type Output = M8;
    #[inline(always)]
    fn not(self) -> M8 {
        // SAFETY: module docs.
        M8(unsafe { _mm256_xor_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(-1))) })
    }
}

impl LaneMask for M8 {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        // SAFETY: module docs.
        M8(unsafe { _mm256_castsi256_ps(_mm256_set1_epi32(if b { -1 } else { 0 })) })
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        // SAFETY: module docs.
        unsafe { _mm256_movemask_ps(self.0) as u32 as u64 }
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.bits() != 0
    }
    #[inline(always)]
    fn all(self) -> bool {
        self.bits() == 0xff
    }
}

macro_rules! cmp8 {
    ($name:ident, $pred:ident) => {
        #[inline(always)]
        fn $name(self, o: Self) -> M8 {
            // SAFETY: module docs. Ordered, quiet: false when either is NaN.
            M8(unsafe { _mm256_cmp_ps::<$pred>(self.0, o.0) })
        }
    };
}

impl Lane for F32x8 {
    type Mask = M8;
    const WIDTH: usize = 8;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: module docs.
        F32x8(unsafe { _mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        let s = &s[..8];
        // SAFETY: module docs; `s` holds 8 floats (unaligned load).
        F32x8(unsafe { _mm256_loadu_ps(s.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        let out = &mut out[..8];
        // SAFETY: module docs; `out` holds 8 floats (unaligned store).
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn lane(self, i: usize) -> f32 {
        self.to_array()[i]
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: module docs. `vminps` returns the second operand on NaN.
        F32x8(unsafe { _mm256_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: module docs.
        F32x8(unsafe { _mm256_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: module docs. Clears the sign bit only.
        F32x8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: module docs. Correctly rounded.
        F32x8(unsafe { _mm256_sqrt_ps(self.0) })
    }
    cmp8!(gt, _CMP_GT_OQ);
    cmp8!(ge, _CMP_GE_OQ);
    cmp8!(lt, _CMP_LT_OQ);
    cmp8!(le, _CMP_LE_OQ);
    cmp8!(eq, _CMP_EQ_OQ);
    #[inline(always)]
    fn is_finite(self) -> M8 {
        self.abs().lt(F32x8::splat(f32::INFINITY))
    }
    #[inline(always)]
    fn select(m: M8, t: Self, f: Self) -> Self {
        // SAFETY: module docs. Masks are all-ones/all-zeros per lane.
        F32x8(unsafe { _mm256_blendv_ps(f.0, t.0, m.0) })
    }
    #[inline(always)]
    fn or_bits(self, o: Self) -> Self {
        // SAFETY: module docs. A bitwise OR.
        F32x8(unsafe { _mm256_or_ps(self.0, o.0) })
    }
}

// ------------------------------------------------- 16 lanes as two __m256

/// Sixteen `f32` lanes as two [`F32x8`] (AVX2 has no 16-lane registers).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct F32x16Pair([F32x8; 2]);

/// Lane mask of [`F32x16Pair`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct M8Pair([M8; 2]);

// SAFETY: two `F32x8` (Pod) back to back: 64 bytes, no padding, alignment 32
// (≤ `wide::f32x16`'s 64, so a pack of those is readable as these).
unsafe impl bytemuck::Zeroable for F32x16Pair {}
unsafe impl bytemuck::Pod for F32x16Pair {}
impl LanePod for F32x16Pair {
    /// As [`F32x8`]'s, once per half.
    #[inline(always)]
    fn lanes_from_rows<T: bytemuck::Pod>(dst: &mut [f32], rows: &[&T]) {
        // SAFETY: module docs (AVX on this path); the helper checks bounds.
        unsafe { transpose::lanes_from_rows_avx(dst, rows, 16) }
    }
}

macro_rules! pair_op {
    ($t:ident, $tr:ident, $m:ident) => {
        impl $tr for $t {
            type Output = $t;
            #[inline(always)]
            fn $m(self, o: $t) -> $t {
                $t([self.0[0].$m(o.0[0]), self.0[1].$m(o.0[1])])
            }
        }
    };
}
pair_op!(F32x16Pair, Add, add);
pair_op!(F32x16Pair, Sub, sub);
pair_op!(F32x16Pair, Mul, mul);
pair_op!(F32x16Pair, Div, div);
pair_op!(M8Pair, BitAnd, bitand);
pair_op!(M8Pair, BitOr, bitor);

impl Neg for F32x16Pair {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        F32x16Pair([-self.0[0], -self.0[1]])
    }
}
impl Not for M8Pair {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        M8Pair([!self.0[0], !self.0[1]])
    }
}

impl LaneMask for M8Pair {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        M8Pair([M8::splat(b); 2])
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        self.0[0].bits() | self.0[1].bits() << 8
    }
    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: module docs.
        unsafe { _mm256_movemask_ps(_mm256_or_ps(self.0[0].0, self.0[1].0)) != 0 }
    }
    #[inline(always)]
    fn all(self) -> bool {
        // SAFETY: module docs.
        unsafe { _mm256_movemask_ps(_mm256_and_ps(self.0[0].0, self.0[1].0)) == 0xff }
    }
}

macro_rules! pair_cmp {
    ($($name:ident),*) => {$(
        #[inline(always)]
        fn $name(self, o: Self) -> M8Pair {
            M8Pair([self.0[0].$name(o.0[0]), self.0[1].$name(o.0[1])])
        }
    )*};
}

impl Lane for F32x16Pair {
    type Mask = M8Pair;
    const WIDTH: usize = 16;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        F32x16Pair([F32x8::splat(x); 2])
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        let s = &s[..16];
        F32x16Pair([F32x8::load(&s[..8]), F32x8::load(&s[8..])])
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        let out = &mut out[..16];
        let (lo, hi) = out.split_at_mut(8);
        self.0[0].store(lo);
        self.0[1].store(hi);
    }
    #[inline(always)]
    fn lane(self, i: usize) -> f32 {
        self.0[i / 8].lane(i % 8)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        F32x16Pair([self.0[0].min(o.0[0]), self.0[1].min(o.0[1])])
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F32x16Pair([self.0[0].max(o.0[0]), self.0[1].max(o.0[1])])
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F32x16Pair([self.0[0].abs(), self.0[1].abs()])
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        F32x16Pair([self.0[0].sqrt(), self.0[1].sqrt()])
    }
    pair_cmp!(gt, ge, lt, le, eq);
    #[inline(always)]
    fn is_finite(self) -> M8Pair {
        M8Pair([self.0[0].is_finite(), self.0[1].is_finite()])
    }
    #[inline(always)]
    fn select(m: M8Pair, t: Self, f: Self) -> Self {
        F32x16Pair([F32x8::select(m.0[0], t.0[0], f.0[0]), F32x8::select(m.0[1], t.0[1], f.0[1])])
    }
    #[inline(always)]
    fn or_bits(self, o: Self) -> Self {
        F32x16Pair([self.0[0].or_bits(o.0[0]), self.0[1].or_bits(o.0[1])])
    }
}

// --------------------------------------------------------------- 16 lanes

/// Sixteen `f32` lanes in a `__m512`.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct F32x16(__m512);

/// Lane mask of [`F32x16`]: an AVX-512 `k` register, one bit per lane.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct K16(__mmask16);

// SAFETY: `__m512` is 64 bytes of plain data, every bit pattern valid, no
// padding, alignment 64 (as `wide::f32x16`).
unsafe impl bytemuck::Zeroable for F32x16 {}
unsafe impl bytemuck::Pod for F32x16 {}
impl LanePod for F32x16 {
    /// One `vgatherdps` of 16 lanes per field.
    #[inline(always)]
    fn gather_fields(dst: &mut [f32], src: &[f32], off: &[u32; 16]) {
        let fields = dst.len() / 16;
        if fields == 0 {
            return;
        }
        let max = off.iter().max().map_or(0, |&m| m as usize);
        let top = max + (fields - 1) * 16;
        // (the gather reads its indices as `i32`)
        assert!(
            max <= i32::MAX as usize && top < src.len(),
            "gather_fields: offset {top} past {} floats",
            src.len()
        );
        // SAFETY: module docs (AVX-512F on this path); every lane reads
        // `src[k·16 + off[j]] <= src[top]`, inside `src` (checked above), and
        // each store writes one whole 16-float field of `dst`.
        unsafe {
            let idx = _mm512_loadu_si512(off.as_ptr().cast());
            for (k, d) in dst.chunks_exact_mut(16).enumerate() {
                let v = _mm512_i32gather_ps::<4>(idx, src.as_ptr().add(k * 16));
                _mm512_storeu_ps(d.as_mut_ptr(), v);
            }
        }
    }

    /// One masked load per shape (only its own words are read), a 16×16
    /// transpose per 16 fields, one store per field.
    #[inline(always)]
    fn lanes_from_rows<T: bytemuck::Pod>(dst: &mut [f32], rows: &[&T]) {
        let words = core::mem::size_of::<T>() / 4;
        let fields = dst.len() / 16;
        assert!(rows.len() >= 16 && fields <= words, "lanes_from_rows: {fields} fields of a shape");
        for g in (0..fields).step_by(16) {
            let n = (fields - g).min(16);
            // (`n <= 16`: the low `n` bits)
            let mask = ((1u32 << n) - 1) as __mmask16;
            // SAFETY: module docs (AVX-512F on this path); each masked load
            // reads words `g..g + n` of one `T` (`g + n <= fields <= words`,
            // checked above) and suppresses the others, unaligned loads of
            // `f32` words (any `Pod` bits are valid words); each store
            // writes field `g + k < fields` of `dst`, inside it.
            unsafe {
                let mut r = [_mm512_setzero_ps(); 16];
                for (j, row) in rows[..16].iter().enumerate() {
                    let p = (*row as *const T).cast::<f32>().add(g);
                    r[j] = _mm512_maskz_loadu_ps(mask, p);
                }
                transpose::transpose16x16_f32(&mut r);
                for (k, v) in r[..n].iter().enumerate() {
                    _mm512_storeu_ps(dst.as_mut_ptr().add((g + k) * 16), *v);
                }
            }
        }
    }
}

impl F32x16 {
    #[inline(always)]
    fn to_array(self) -> [f32; 16] {
        // SAFETY: same size; every bit pattern is valid.
        unsafe { core::mem::transmute(self.0) }
    }
    #[inline(always)]
    fn sign_mask() -> __m512i {
        // SAFETY: module docs.
        unsafe { _mm512_set1_epi32(i32::MIN) }
    }
}

impl fmt::Debug for F32x16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_array().fmt(f)
    }
}
impl fmt::Debug for K16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "K16({:016b})", self.0)
    }
}

binop!(F32x16, Add, add, _mm512_add_ps);
binop!(F32x16, Sub, sub, _mm512_sub_ps);
binop!(F32x16, Mul, mul, _mm512_mul_ps);
binop!(F32x16, Div, div, _mm512_div_ps);

impl Neg for F32x16 {
    type Output = F32x16;
    #[inline(always)]
    fn neg(self) -> F32x16 {
        // SAFETY: module docs. Flips the sign bit only.
        F32x16(unsafe {
            _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(self.0), F32x16::sign_mask()))
        })
    }
}

impl BitAnd for K16 {
    type Output = K16;
    #[inline(always)]
    fn bitand(self, o: K16) -> K16 {
        K16(self.0 & o.0)
    }
}
impl BitOr for K16 {
    type Output = K16;
    #[inline(always)]
    fn bitor(self, o: K16) -> K16 {
        K16(self.0 | o.0)
    }
}
impl Not for K16 {
    type Output = K16;
    #[inline(always)]
    fn not(self) -> K16 {
        K16(!self.0)
    }
}

impl LaneMask for K16 {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        K16(if b { 0xffff } else { 0 })
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        self.0 as u64
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.0 != 0
    }
    #[inline(always)]
    fn all(self) -> bool {
        self.0 == 0xffff
    }
}

macro_rules! cmp16 {
    ($name:ident, $pred:ident) => {
        #[inline(always)]
        fn $name(self, o: Self) -> K16 {
            // SAFETY: module docs. Ordered, quiet: false when either is NaN.
            K16(unsafe { _mm512_cmp_ps_mask::<$pred>(self.0, o.0) })
        }
    };
}

impl Lane for F32x16 {
    type Mask = K16;
    const WIDTH: usize = 16;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: module docs.
        F32x16(unsafe { _mm512_set1_ps(x) })
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        let s = &s[..16];
        // SAFETY: module docs; `s` holds 16 floats (unaligned load).
        F32x16(unsafe { _mm512_loadu_ps(s.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        let out = &mut out[..16];
        // SAFETY: module docs; `out` holds 16 floats (unaligned store).
        unsafe { _mm512_storeu_ps(out.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn lane(self, i: usize) -> f32 {
        self.to_array()[i]
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: module docs. `vminps` returns the second operand on NaN.
        F32x16(unsafe { _mm512_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: module docs.
        F32x16(unsafe { _mm512_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: module docs. Clears the sign bit only (AVX-512F integer and).
        F32x16(unsafe {
            _mm512_castsi512_ps(_mm512_andnot_si512(
                F32x16::sign_mask(),
                _mm512_castps_si512(self.0),
            ))
        })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: module docs. Correctly rounded.
        F32x16(unsafe { _mm512_sqrt_ps(self.0) })
    }
    cmp16!(gt, _CMP_GT_OQ);
    cmp16!(ge, _CMP_GE_OQ);
    cmp16!(lt, _CMP_LT_OQ);
    cmp16!(le, _CMP_LE_OQ);
    cmp16!(eq, _CMP_EQ_OQ);
    #[inline(always)]
    fn is_finite(self) -> K16 {
        self.abs().lt(F32x16::splat(f32::INFINITY))
    }
    #[inline(always)]
    fn select(m: K16, t: Self, f: Self) -> Self {
        // SAFETY: module docs. Lanes of `t` where the mask bit is set.
        F32x16(unsafe { _mm512_mask_blend_ps(m.0, f.0, t.0) })
    }
    #[inline(always)]
    fn or_bits(self, o: Self) -> Self {
        // SAFETY: module docs. A bitwise OR (AVX-512F integer or).
        F32x16(unsafe {
            _mm512_castsi512_ps(_mm512_or_si512(
                _mm512_castps_si512(self.0),
                _mm512_castps_si512(o.0),
            ))
        })
    }
}

/// The voxel runs of `lanes` ORed into `words` with AVX-512 gathers and
/// scatters (`VoxI32::or_word_runs`): the first word of every run in one
/// masked gather–OR–scatter per 8 lanes, the second word of the runs that
/// cross a word boundary in another. The lanes write distinct words (they
/// hold distinct rows), so a scatter loses nothing. A run over more than two
/// words, or a lane whose words are not inside `words`, leaves the call to the
/// caller's scalar loop (`false`, nothing written).
///
/// # Safety
/// The CPU must support AVX-512F.
#[inline(always)]
pub(crate) unsafe fn or_word_runs_avx512(
    words: &mut [u64],
    lanes: u32,
    x0: __m512i,
    x1: __m512i,
    w0: __m512i,
    w1: __m512i,
) -> bool {
    let k = lanes as __mmask16;
    // SAFETY: AVX-512F by the caller's contract. The gathers and scatters
    // touch `words[w]` only for lanes of `k` whose `w0, w1` passed the check
    // that `0 ≤ w0 ≤ w1 < words.len()` (unsigned compares), so every access
    // is in bounds.
    unsafe {
        let len = _mm512_set1_epi32(words.len().min(i32::MAX as usize) as i32);
        let inside = _mm512_mask_cmplt_epu32_mask(k, w1, len)
            & _mm512_mask_cmple_epu32_mask(k, w0, w1)
            & _mm512_mask_cmple_epu32_mask(k, _mm512_sub_epi32(w1, w0), _mm512_set1_epi32(1));
        if inside != k {
            return false;
        }
        let single = _mm512_mask_cmpeq_epi32_mask(k, w0, w1);
        let six = _mm512_set1_epi32(63);
        let b0 = _mm512_and_si512(x0, six);
        let b1 = _mm512_sub_epi32(six, _mm512_and_si512(x1, six));
        let ones = _mm512_set1_epi64(-1);
        let base = words.as_mut_ptr() as *mut i64;
        macro_rules! half {
            ($h:literal) => {{
                let kh = (k >> (8 * $h)) as __mmask8;
                if kh != 0 {
                    let sh = (single >> (8 * $h)) as __mmask8;
                    let (i0, i1) =
                        (_mm512_extracti64x4_epi64::<$h>(w0), _mm512_extracti64x4_epi64::<$h>(w1));
                    // bits b0.. of the first word, ..=b1 of the last
                    let m0 = _mm512_sllv_epi64(
                        ones,
                        _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<$h>(b0)),
                    );
                    let m1 = _mm512_srlv_epi64(
                        ones,
                        _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<$h>(b1)),
                    );
                    let first = _mm512_mask_and_epi64(m0, sh, m0, m1);
                    let old = _mm512_mask_i32gather_epi64::<8>(ones, kh, i0, base);
                    _mm512_mask_i32scatter_epi64::<8>(base, kh, i0, _mm512_or_si512(old, first));
                    let k2 = kh & !sh;
                    if k2 != 0 {
                        let old = _mm512_mask_i32gather_epi64::<8>(ones, k2, i1, base);
                        _mm512_mask_i32scatter_epi64::<8>(base, k2, i1, _mm512_or_si512(old, m1));
                    }
                }
            }};
        }
        half!(0);
        half!(1);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::{dispatch, Isa, Simd, SimdFn};
    use crate::lane::{Lane, LaneMask};

    /// Every `Lane` operation of a path's 8- and 16-lane types against the
    /// `f32` scalar rule, bit for bit, on values with NaN, ±∞, ±0 and
    /// subnormals in every lane position.
    struct CheckOps;
    impl SimdFn for CheckOps {
        type Out = ();
        #[inline(always)]
        fn call<S: Simd>(self) {
            check::<S::F8>();
            check::<S::F16>();
        }
    }

    const SPECIAL: [f32; 12] = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
        f32::MAX,
        -f32::MAX,
        1e-30,
        3.0,
    ];

    #[inline(always)]
    fn check<L: Lane>() {
        let n = SPECIAL.len();
        for shift in 0..n {
            let a: Vec<f32> = (0..L::WIDTH).map(|l| SPECIAL[(l + shift) % n]).collect();
            let b: Vec<f32> = (0..L::WIDTH).map(|l| SPECIAL[(3 * l + shift + 1) % n]).collect();
            let (va, vb) = (L::load(&a), L::load(&b));
            let mut out = vec![0.0; L::WIDTH];
            let same = |v: L, f: &dyn Fn(f32, f32) -> f32, what: &str| {
                for l in 0..L::WIDTH {
                    assert_eq!(v.lane(l).to_bits(), f(a[l], b[l]).to_bits(), "{what} lane {l}");
                }
            };
            same(va + vb, &|x, y| x + y, "add");
            same(va - vb, &|x, y| x - y, "sub");
            same(va * vb, &|x, y| x * y, "mul");
            same(va / vb, &|x, y| x / y, "div");
            same(-va, &|x, _| -x, "neg");
            same(va.abs(), &|x, _| x.abs(), "abs");
            same(va.sqrt(), &|x, _| x.sqrt(), "sqrt");
            same(va.min(vb), &|x, y| Lane::min(x, y), "min");
            same(va.max(vb), &|x, y| Lane::max(x, y), "max");
            let m = va.lt(vb);
            same(L::select(m, va, vb), &|x, y| if x < y { x } else { y }, "select");
            let bits = |m: L::Mask| m.bits();
            let want = |f: &dyn Fn(f32, f32) -> bool| {
                (0..L::WIDTH).fold(0u64, |acc, l| acc | (f(a[l], b[l]) as u64) << l)
            };
            assert_eq!(bits(va.gt(vb)), want(&|x, y| x > y), "gt");
            assert_eq!(bits(va.ge(vb)), want(&|x, y| x >= y), "ge");
            assert_eq!(bits(va.lt(vb)), want(&|x, y| x < y), "lt");
            assert_eq!(bits(va.le(vb)), want(&|x, y| x <= y), "le");
            assert_eq!(bits(va.eq(vb)), want(&|x, y| x == y), "eq");
            assert_eq!(bits(va.is_finite()), want(&|x, _| x.is_finite()), "is_finite");
            let (g, l) = (va.gt(vb), va.lt(vb));
            assert_eq!(bits(g & l), bits(g) & bits(l));
            assert_eq!(bits(g | l), bits(g) | bits(l));
            assert_eq!(bits(!g), !bits(g) & (u64::MAX >> (64 - L::WIDTH)));
            assert_eq!(g.any(), bits(g) != 0);
            assert!(L::Mask::splat(true).all());
            va.store(&mut out);
            assert_eq!(
                out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                a.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn every_path_follows_the_scalar_rules() {
        for isa in Isa::ALL {
            dispatch(isa.clamp_to_cpu(), CheckOps);
        }
    }

    /// The 16-lane type's hardware gather moves what the default moves (NaN
    /// bit patterns included), and refuses an offset past the source.
    struct CheckGather;
    impl SimdFn for CheckGather {
        type Out = ();
        #[inline(always)]
        fn call<S: Simd>(self) {
            use crate::pack::LanePod;
            let src: Vec<f32> = (0..16 * 40u32)
                .map(|i| f32::from_bits(0x7fc0_0000 ^ i.wrapping_mul(2_654_435_761)))
                .collect();
            let mut rng = fastrand::Rng::with_seed(16);
            for fields in [1usize, 9, 15] {
                for _ in 0..200 {
                    let mut off = [0u32; 16];
                    let chunks = (src.len() / 16 - fields) / fields;
                    for o in &mut off {
                        *o = (rng.usize(..chunks) * fields * 16 + rng.usize(..16)) as u32;
                    }
                    let (mut got, mut want) = (vec![0f32; 16 * fields], vec![0f32; 16 * fields]);
                    S::F16::gather_fields(&mut got, &src, &off);
                    for (k, d) in want.chunks_exact_mut(16).enumerate() {
                        for j in 0..16 {
                            d[j] = src[k * 16 + off[j] as usize];
                        }
                    }
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "{fields} fields, offsets {off:?}");
                }
            }
            let mut off = [0u32; 16];
            off[7] = (src.len() - 16 * 2 + 1) as u32;
            let past = std::panic::catch_unwind(move || {
                let mut dst = vec![0f32; 16 * 3];
                S::F16::gather_fields(&mut dst, &src, &off);
            });
            assert!(past.is_err(), "an offset past the source was read");
        }
    }

    /// `lanes_from_rows` of a path's 8- and 16-lane types moves what the
    /// default moves do: shapes of 4 to 33 words (one and three transposes),
    /// every field or fewer, NaN payloads.
    struct CheckRows;
    impl SimdFn for CheckRows {
        type Out = ();
        #[inline(always)]
        fn call<S: Simd>(self) {
            rows_case::<S::F8, 4>();
            rows_case::<S::F16, 4>();
            rows_case::<S::F16, 7>();
            rows_case::<S::F16, 15>();
            rows_case::<S::F16, 16>();
            rows_case::<S::F8, 24>();
            rows_case::<S::F16, 24>();
            rows_case::<S::F16, 33>();
        }
    }

    #[inline(always)]
    fn rows_case<L: crate::pack::LanePod, const N: usize>() {
        use crate::pack::lanes_from_rows_by_moves;
        let mut rng = fastrand::Rng::with_seed(N as u64);
        let w = L::WIDTH;
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for _ in 0..50 {
            let shapes: Vec<[f32; N]> = (0..w)
                .map(|_| core::array::from_fn(|_| f32::from_bits(0x7fc0_0000 ^ rng.u32(..))))
                .collect();
            let rows: Vec<&[f32; N]> = shapes.iter().collect();
            for fields in [N, N - 1] {
                let (mut got, mut want) = (vec![0f32; fields * w], vec![0f32; fields * w]);
                L::lanes_from_rows(&mut got, &rows);
                lanes_from_rows_by_moves::<L, [f32; N]>(&mut want, &rows);
                assert_eq!(bits(&got), bits(&want), "{w} lanes, {fields} of {N} words");
            }
        }
    }

    #[test]
    fn lanes_from_rows_equals_the_default_moves() {
        for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
            dispatch(isa, CheckRows);
        }
    }

    #[test]
    fn gather_fields_equals_the_default_moves() {
        for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
            dispatch(isa, CheckGather);
        }
    }
}
