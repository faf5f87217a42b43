//! The voxelizer's lane operations ([`super::super::vox`]) on the AVX2 and
//! AVX-512 paths: each is the instruction `wide` uses on an AVX-512 build
//! (`vroundps`/`vrndscaleps`, `vcvtps2dq` with `wide`'s NaN and overflow
//! fix-up, `vmaxps` with its NaN blend, `vpmulld`, `vpsrad`), so every lane
//! follows the scalar rule stated on the trait (`vox.rs` tests each path).
//!
//! Safety: as for the parent module (only created and used inside the
//! featured entries, on a CPU detected to run them).

use super::{F32x16, F32x16Pair, F32x8};
use crate::lane::F64Lanes;
use crate::simd::vox::{VoxF32, VoxF64, VoxI32};
use core::arch::x86_64::*;
use core::ops::{Add, BitAnd, Div, Mul, Neg, Sub};

// ------------------------------------------------------------ f32 rounding

/// `wide`'s `round_int` on eight lanes: `vcvtps2dq` of the lanes with NaN
/// zeroed, flipped to `i32::MAX` where the value is at least 2³¹.
#[inline(always)]
fn round_int8(x: __m256) -> __m256i {
    // SAFETY: module docs.
    unsafe {
        let non_nan = _mm256_and_ps(x, _mm256_cmp_ps::<_CMP_EQ_OQ>(x, x));
        let big = _mm256_cmp_ps::<_CMP_GE_OQ>(x, _mm256_set1_ps(2147483648.0));
        _mm256_xor_si256(_mm256_castps_si256(big), _mm256_cvtps_epi32(non_nan))
    }
}

/// `wide`'s `max` on eight lanes: `self` where `o` is NaN, else `vmaxps`.
#[inline(always)]
fn max_num8(a: __m256, o: __m256) -> __m256 {
    // SAFETY: module docs.
    unsafe { _mm256_blendv_ps(_mm256_max_ps(a, o), a, _mm256_cmp_ps::<_CMP_UNORD_Q>(o, o)) }
}

/// `wide`'s `min` on eight lanes.
#[inline(always)]
fn min_num8(a: __m256, o: __m256) -> __m256 {
    // SAFETY: module docs.
    unsafe { _mm256_blendv_ps(_mm256_min_ps(a, o), a, _mm256_cmp_ps::<_CMP_UNORD_Q>(o, o)) }
}

const FLOOR: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
const CEIL: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

impl VoxF32 for F32x16Pair {
    type Int = I32x8Pair;
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: module docs.
        unsafe {
            F32x16Pair([
                F32x8(_mm256_round_ps::<FLOOR>(self.0[0].0)),
                F32x8(_mm256_round_ps::<FLOOR>(self.0[1].0)),
            ])
        }
    }
    #[inline(always)]
    fn ceil(self) -> Self {
        // SAFETY: module docs.
        unsafe {
            F32x16Pair([
                F32x8(_mm256_round_ps::<CEIL>(self.0[0].0)),
                F32x8(_mm256_round_ps::<CEIL>(self.0[1].0)),
            ])
        }
    }
    #[inline(always)]
    fn max_num(self, o: Self) -> Self {
        F32x16Pair([F32x8(max_num8(self.0[0].0, o.0[0].0)), F32x8(max_num8(self.0[1].0, o.0[1].0))])
    }
    #[inline(always)]
    fn min_num(self, o: Self) -> Self {
        F32x16Pair([F32x8(min_num8(self.0[0].0, o.0[0].0)), F32x8(min_num8(self.0[1].0, o.0[1].0))])
    }
    #[inline(always)]
    fn round_int(self) -> I32x8Pair {
        I32x8Pair([round_int8(self.0[0].0), round_int8(self.0[1].0)])
    }
    #[inline(always)]
    fn fast_round_int(self) -> I32x8Pair {
        // SAFETY: module docs.
        unsafe { I32x8Pair([_mm256_cvtps_epi32(self.0[0].0), _mm256_cvtps_epi32(self.0[1].0)]) }
    }
}

impl VoxF32 for F32x16 {
    type Int = I32x16;
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: module docs.
        F32x16(unsafe { _mm512_roundscale_ps::<FLOOR>(self.0) })
    }
    #[inline(always)]
    fn ceil(self) -> Self {
        // SAFETY: module docs.
        F32x16(unsafe { _mm512_roundscale_ps::<CEIL>(self.0) })
    }
    #[inline(always)]
    fn max_num(self, o: Self) -> Self {
        // SAFETY: module docs. `o`'s NaN lanes keep `self`.
        F32x16(unsafe {
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(o.0, o.0);
            _mm512_mask_blend_ps(nan, _mm512_max_ps(self.0, o.0), self.0)
        })
    }
    #[inline(always)]
    fn min_num(self, o: Self) -> Self {
        // SAFETY: module docs.
        F32x16(unsafe {
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(o.0, o.0);
            _mm512_mask_blend_ps(nan, _mm512_min_ps(self.0, o.0), self.0)
        })
    }
    #[inline(always)]
    fn round_int(self) -> I32x16 {
        // SAFETY: module docs. NaN lanes converted as 0, lanes ≥ 2³¹
        // (converted to i32::MIN) flipped to i32::MAX.
        I32x16(unsafe {
            let x = self.0;
            let non_nan = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, x), x);
            let big = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm512_set1_ps(2147483648.0));
            _mm512_xor_si512(_mm512_movm_epi32(big), _mm512_cvtps_epi32(non_nan))
        })
    }
    #[inline(always)]
    fn fast_round_int(self) -> I32x16 {
        // SAFETY: module docs.
        I32x16(unsafe { _mm512_cvtps_epi32(self.0) })
    }
}

// ------------------------------------------------------------ i32 lanes

/// Sixteen `i32` lanes as two `__m256i`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct I32x8Pair([__m256i; 2]);

/// Sixteen `i32` lanes in a `__m512i`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct I32x16(__m512i);

macro_rules! pair_int_op {
    ($tr:ident, $m:ident, $f:ident) => {
        impl $tr for I32x8Pair {
            type Output = Self;
            #[inline(always)]
            fn $m(self, o: Self) -> Self {
                // SAFETY: module docs.
                unsafe { I32x8Pair([$f(self.0[0], o.0[0]), $f(self.0[1], o.0[1])]) }
            }
        }
    };
}
pair_int_op!(Add, add, _mm256_add_epi32);
pair_int_op!(Sub, sub, _mm256_sub_epi32);
pair_int_op!(Mul, mul, _mm256_mullo_epi32);

impl VoxI32 for I32x8Pair {
    #[inline(always)]
    fn splat(x: i32) -> Self {
        // SAFETY: module docs.
        unsafe { I32x8Pair([_mm256_set1_epi32(x); 2]) }
    }
    #[inline(always)]
    fn from_array(a: [i32; 16]) -> Self {
        // SAFETY: module docs; unaligned loads of the 64 bytes of `a`.
        unsafe {
            I32x8Pair([
                _mm256_loadu_si256(a.as_ptr().cast()),
                _mm256_loadu_si256(a[8..].as_ptr().cast()),
            ])
        }
    }
    #[inline(always)]
    fn shr6(self) -> Self {
        // SAFETY: module docs.
        unsafe { I32x8Pair([_mm256_srai_epi32::<6>(self.0[0]), _mm256_srai_epi32::<6>(self.0[1])]) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: module docs.
        unsafe {
            I32x8Pair([_mm256_and_si256(self.0[0], o.0[0]), _mm256_and_si256(self.0[1], o.0[1])])
        }
    }
    #[inline(always)]
    fn to_array(self) -> [i32; 16] {
        // SAFETY: same size; every bit pattern is valid.
        unsafe { core::mem::transmute(self.0) }
    }
}

macro_rules! int_op {
    ($tr:ident, $m:ident, $f:ident) => {
        impl $tr for I32x16 {
            type Output = Self;
            #[inline(always)]
            fn $m(self, o: Self) -> Self {
                // SAFETY: module docs.
                I32x16(unsafe { $f(self.0, o.0) })
            }
        }
    };
}
int_op!(Add, add, _mm512_add_epi32);
int_op!(Sub, sub, _mm512_sub_epi32);
int_op!(Mul, mul, _mm512_mullo_epi32);

impl VoxI32 for I32x16 {
    #[inline(always)]
    fn splat(x: i32) -> Self {
        // SAFETY: module docs.
        I32x16(unsafe { _mm512_set1_epi32(x) })
    }
    #[inline(always)]
    fn from_array(a: [i32; 16]) -> Self {
        // SAFETY: module docs; an unaligned load of the 64 bytes of `a`.
        I32x16(unsafe { _mm512_loadu_si512(a.as_ptr().cast()) })
    }
    #[inline(always)]
    fn shr6(self) -> Self {
        // SAFETY: module docs.
        I32x16(unsafe { _mm512_srai_epi32::<6>(self.0) })
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: module docs.
        I32x16(unsafe { _mm512_and_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn to_array(self) -> [i32; 16] {
        // SAFETY: same size; every bit pattern is valid.
        unsafe { core::mem::transmute(self.0) }
    }
    #[inline(always)]
    fn or_word_runs(words: &mut [u64], lanes: u32, x0: Self, x1: Self, w0: Self, w1: Self) -> bool {
        // SAFETY: module docs (the AVX-512 path runs only where detected).
        unsafe { super::or_word_runs_avx512(words, lanes, x0.0, x1.0, w0.0, w1.0) }
    }
}

// ------------------------------------------------------------ f64 lanes

/// Eight `f64` lanes as two `__m256d` (AVX2).
#[derive(Clone, Copy, Debug)]
pub(crate) struct F64x4Pair([__m256d; 2]);

/// Lane mask of [`F64x4Pair`]: all-ones / all-zeros lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct M64Pair([__m256d; 2]);

/// Eight `f64` lanes in a `__m512d` (AVX-512).
#[derive(Clone, Copy, Debug)]
pub(crate) struct F64x8(__m512d);

/// Lane mask of [`F64x8`]: a `k` register.
#[derive(Clone, Copy, Debug)]
pub(crate) struct K8(__mmask8);

impl BitAnd for M64Pair {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        // SAFETY: module docs.
        unsafe { M64Pair([_mm256_and_pd(self.0[0], o.0[0]), _mm256_and_pd(self.0[1], o.0[1])]) }
    }
}
impl BitAnd for K8 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        K8(self.0 & o.0)
    }
}

macro_rules! pd_pair_op {
    ($tr:ident, $m:ident, $f:ident) => {
        impl $tr for F64x4Pair {
            type Output = Self;
            #[inline(always)]
            fn $m(self, o: Self) -> Self {
                // SAFETY: module docs.
                unsafe { F64x4Pair([$f(self.0[0], o.0[0]), $f(self.0[1], o.0[1])]) }
            }
        }
    };
}
pd_pair_op!(Add, add, _mm256_add_pd);
pd_pair_op!(Sub, sub, _mm256_sub_pd);
pd_pair_op!(Mul, mul, _mm256_mul_pd);
pd_pair_op!(Div, div, _mm256_div_pd);

macro_rules! pd_op {
    ($tr:ident, $m:ident, $f:ident) => {
        impl $tr for F64x8 {
            type Output = Self;
            #[inline(always)]
            fn $m(self, o: Self) -> Self {
                // SAFETY: module docs.
                F64x8(unsafe { $f(self.0, o.0) })
            }
        }
    };
}
pd_op!(Add, add, _mm512_add_pd);
pd_op!(Sub, sub, _mm512_sub_pd);
pd_op!(Mul, mul, _mm512_mul_pd);
pd_op!(Div, div, _mm512_div_pd);

impl Neg for F64x4Pair {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        // SAFETY: module docs. Flips the sign bit only.
        unsafe {
            let s = _mm256_set1_pd(-0.0);
            F64x4Pair([_mm256_xor_pd(self.0[0], s), _mm256_xor_pd(self.0[1], s)])
        }
    }
}
impl Neg for F64x8 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        // SAFETY: module docs. Flips the sign bit only (AVX-512F integer xor).
        F64x8(unsafe {
            _mm512_castsi512_pd(_mm512_xor_si512(
                _mm512_castpd_si512(self.0),
                _mm512_set1_epi64(i64::MIN),
            ))
        })
    }
}

/// Applies an `__m256d` function to both halves.
macro_rules! halves {
    ($s:expr, |$x:ident| $body:expr) => {{
        let [a, b] = $s;
        [
            {
                let $x = a;
                $body
            },
            {
                let $x = b;
                $body
            },
        ]
    }};
    ($s:expr, $o:expr, |$x:ident, $y:ident| $body:expr) => {{
        let ([a, b], [c, d]) = ($s, $o);
        [
            {
                let ($x, $y) = (a, c);
                $body
            },
            {
                let ($x, $y) = (b, d);
                $body
            },
        ]
    }};
}

impl F64Lanes for F64x4Pair {
    type Mask = M64Pair;
    #[inline(always)]
    fn splat(x: f64) -> Self {
        // SAFETY: module docs.
        F64x4Pair([unsafe { _mm256_set1_pd(x) }; 2])
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: module docs. Clears the sign bit only.
        F64x4Pair(halves!(self.0, |x| unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), x) }))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        self.max_num(o)
    }
    #[inline(always)]
    fn le(self, o: Self) -> M64Pair {
        // SAFETY: module docs.
        M64Pair(halves!(self.0, o.0, |x, y| unsafe { _mm256_cmp_pd::<_CMP_LE_OQ>(x, y) }))
    }
    #[inline(always)]
    fn gt(self, o: Self) -> M64Pair {
        // SAFETY: module docs.
        M64Pair(halves!(self.0, o.0, |x, y| unsafe { _mm256_cmp_pd::<_CMP_GT_OQ>(x, y) }))
    }
    #[inline(always)]
    fn ne(self, o: Self) -> M64Pair {
        // SAFETY: module docs. Unordered: true when either is NaN.
        M64Pair(halves!(self.0, o.0, |x, y| unsafe { _mm256_cmp_pd::<_CMP_NEQ_UQ>(x, y) }))
    }
    #[inline(always)]
    fn is_finite(self) -> M64Pair {
        let inf = Self::splat(f64::INFINITY);
        // SAFETY: module docs. |x| < ∞, false for NaN.
        M64Pair(halves!(F64Lanes::abs(self).0, inf.0, |x, y| unsafe {
            _mm256_cmp_pd::<_CMP_LT_OQ>(x, y)
        }))
    }
    #[inline(always)]
    fn select(m: M64Pair, t: Self, f: Self) -> Self {
        // SAFETY: module docs.
        unsafe {
            F64x4Pair([
                _mm256_blendv_pd(f.0[0], t.0[0], m.0[0]),
                _mm256_blendv_pd(f.0[1], t.0[1], m.0[1]),
            ])
        }
    }
    #[inline(always)]
    fn mask_lane(m: &M64Pair, l: usize) -> bool {
        Self::bits(*m) >> l & 1 != 0
    }
    type F32 = [f32; 8];
    #[inline(always)]
    fn to_f32(self) -> [f32; 8] {
        // SAFETY: module docs. `vcvtpd2ps` rounds to nearest (as `as f32`).
        unsafe {
            let (a, b) = (_mm256_cvtpd_ps(self.0[0]), _mm256_cvtpd_ps(self.0[1]));
            core::mem::transmute(_mm256_set_m128(b, a))
        }
    }
    #[inline(always)]
    fn f32_lane(v: &[f32; 8], l: usize) -> f32 {
        v[l]
    }
}

impl VoxF64 for F64x4Pair {
    #[inline(always)]
    fn from_array(a: [f64; 8]) -> Self {
        // SAFETY: module docs; unaligned loads of `a`.
        unsafe { F64x4Pair([_mm256_loadu_pd(a.as_ptr()), _mm256_loadu_pd(a[4..].as_ptr())]) }
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 8] {
        // SAFETY: same size; every bit pattern is valid.
        unsafe { core::mem::transmute(self.0) }
    }
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: module docs.
        F64x4Pair(halves!(self.0, |x| unsafe { _mm256_round_pd::<FLOOR>(x) }))
    }
    #[inline(always)]
    fn min_num(self, o: Self) -> Self {
        // SAFETY: module docs. `o`'s NaN lanes keep `self`.
        F64x4Pair(halves!(self.0, o.0, |x, y| unsafe {
            _mm256_blendv_pd(_mm256_min_pd(x, y), x, _mm256_cmp_pd::<_CMP_UNORD_Q>(y, y))
        }))
    }
    #[inline(always)]
    fn max_num(self, o: Self) -> Self {
        // SAFETY: module docs.
        F64x4Pair(halves!(self.0, o.0, |x, y| unsafe {
            _mm256_blendv_pd(_mm256_max_pd(x, y), x, _mm256_cmp_pd::<_CMP_UNORD_Q>(y, y))
        }))
    }
    #[inline(always)]
    fn ge(self, o: Self) -> M64Pair {
        // SAFETY: module docs.
        M64Pair(halves!(self.0, o.0, |x, y| unsafe { _mm256_cmp_pd::<_CMP_GE_OQ>(x, y) }))
    }
    #[inline(always)]
    fn lt(self, o: Self) -> M64Pair {
        // SAFETY: module docs.
        M64Pair(halves!(self.0, o.0, |x, y| unsafe { _mm256_cmp_pd::<_CMP_LT_OQ>(x, y) }))
    }
    #[inline(always)]
    fn bits(m: M64Pair) -> u32 {
        // SAFETY: module docs.
        unsafe { (_mm256_movemask_pd(m.0[0]) | _mm256_movemask_pd(m.0[1]) << 4) as u32 }
    }
}

impl F64Lanes for F64x8 {
    type Mask = K8;
    #[inline(always)]
    fn splat(x: f64) -> Self {
        // SAFETY: module docs.
        F64x8(unsafe { _mm512_set1_pd(x) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: module docs. Clears the sign bit only.
        F64x8(unsafe {
            _mm512_castsi512_pd(_mm512_andnot_si512(
                _mm512_set1_epi64(i64::MIN),
                _mm512_castpd_si512(self.0),
            ))
        })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        self.max_num(o)
    }
    #[inline(always)]
    fn le(self, o: Self) -> K8 {
        // SAFETY: module docs.
        K8(unsafe { _mm512_cmp_pd_mask::<_CMP_LE_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn gt(self, o: Self) -> K8 {
        // SAFETY: module docs.
        K8(unsafe { _mm512_cmp_pd_mask::<_CMP_GT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn ne(self, o: Self) -> K8 {
        // SAFETY: module docs. Unordered: true when either is NaN.
        K8(unsafe { _mm512_cmp_pd_mask::<_CMP_NEQ_UQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn is_finite(self) -> K8 {
        F64Lanes::abs(self).lt(Self::splat(f64::INFINITY))
    }
    #[inline(always)]
    fn select(m: K8, t: Self, f: Self) -> Self {
        // SAFETY: module docs.
        F64x8(unsafe { _mm512_mask_blend_pd(m.0, f.0, t.0) })
    }
    #[inline(always)]
    fn mask_lane(m: &K8, l: usize) -> bool {
        m.0 >> l & 1 != 0
    }
    type F32 = [f32; 8];
    #[inline(always)]
    fn to_f32(self) -> [f32; 8] {
        // SAFETY: module docs. `vcvtpd2ps` rounds to nearest (as `as f32`).
        unsafe { core::mem::transmute(_mm512_cvtpd_ps(self.0)) }
    }
    #[inline(always)]
    fn f32_lane(v: &[f32; 8], l: usize) -> f32 {
        v[l]
    }
}

impl VoxF64 for F64x8 {
    #[inline(always)]
    fn from_array(a: [f64; 8]) -> Self {
        // SAFETY: module docs; an unaligned load of `a`.
        F64x8(unsafe { _mm512_loadu_pd(a.as_ptr()) })
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 8] {
        // SAFETY: same size; every bit pattern is valid.
        unsafe { core::mem::transmute(self.0) }
    }
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: module docs.
        F64x8(unsafe { _mm512_roundscale_pd::<FLOOR>(self.0) })
    }
    #[inline(always)]
    fn min_num(self, o: Self) -> Self {
        // SAFETY: module docs. `o`'s NaN lanes keep `self`.
        F64x8(unsafe {
            let nan = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(o.0, o.0);
            _mm512_mask_blend_pd(nan, _mm512_min_pd(self.0, o.0), self.0)
        })
    }
    #[inline(always)]
    fn max_num(self, o: Self) -> Self {
        // SAFETY: module docs.
        F64x8(unsafe {
            let nan = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(o.0, o.0);
            _mm512_mask_blend_pd(nan, _mm512_max_pd(self.0, o.0), self.0)
        })
    }
    #[inline(always)]
    fn ge(self, o: Self) -> K8 {
        // SAFETY: module docs.
        K8(unsafe { _mm512_cmp_pd_mask::<_CMP_GE_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn lt(self, o: Self) -> K8 {
        // SAFETY: module docs.
        K8(unsafe { _mm512_cmp_pd_mask::<_CMP_LT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn bits(m: K8) -> u32 {
        m.0 as u32
    }
}
