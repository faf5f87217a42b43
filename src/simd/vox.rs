//! The voxelizer's lane operations beyond [`Lane`]: sixteen `f32` lanes with
//! rounding to integers, sixteen `i32` lanes, eight `f64` lanes
//! ([`F64Lanes`] plus rounding and masks as bits).
//!
//! Each operation is defined by what `wide` returns on the native AVX-512
//! build (the voxelizer's outputs before it was dispatched), stated per
//! operation as a scalar rule; the baseline path is `wide`'s own types, the
//! AVX2 and AVX-512 paths implement the same rules on `core::arch`
//! ([`super::x86`]), and `every_path_follows_the_voxel_rules` checks every
//! operation of every path against the scalar rule, bit for bit.

use crate::lane::{F64Lanes, Lane};
use core::ops::{Add, Mul, Sub};

/// Sixteen `f32` lanes with the voxelizer's extra operations.
pub(crate) trait VoxF32: Lane {
    /// The matching sixteen `i32` lanes.
    type Int: VoxI32;
    /// `floor` per lane (as `f32::floor`; a NaN stays NaN).
    fn floor(self) -> Self;
    /// `ceil` per lane (as `f32::ceil`).
    fn ceil(self) -> Self;
    /// `wide`'s `max`: `self` where `o` is NaN, else `vmaxps(self, o)` (so
    /// `o` where `self` is NaN, and `o` of two equal values).
    fn max_num(self, o: Self) -> Self;
    /// `wide`'s `min`: `self` where `o` is NaN, else `vminps(self, o)`.
    fn min_num(self, o: Self) -> Self;
    /// `wide`'s `round_int`: nearest, ties to even; NaN → 0; at or above
    /// 2³¹ → `i32::MAX`; below −2³¹ → `i32::MIN` (`x.round_ties_even() as
    /// i32` with NaN → 0).
    fn round_int(self) -> Self::Int;
    /// `wide`'s `fast_round_int` (`vcvtps2dq`): nearest, ties to even; NaN
    /// and values outside the `i32` range → `i32::MIN`.
    fn fast_round_int(self) -> Self::Int;
}

/// Sixteen `i32` lanes (wrapping arithmetic, as `wide`'s `i32x16`).
pub(crate) trait VoxI32:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    fn splat(x: i32) -> Self;
    // (the tests build lanes from arrays; the voxelizer does not)
    #[cfg_attr(not(test), allow(dead_code))]
    fn from_array(a: [i32; 16]) -> Self;
    /// Arithmetic shift right by 6 (as `x >> 6` on `i32`).
    fn shr6(self) -> Self;
    /// Bitwise and.
    fn and(self, o: Self) -> Self;
    fn to_array(self) -> [i32; 16];
    /// ORs the voxel runs `x0..=x1` of the lanes `lanes` into `words`, whose
    /// first and last words are `w0`, `w1`, with vector gathers and scatters
    /// where the path has them; `false` (nothing written) otherwise, or when
    /// a run spans more than two words or a word is outside `words`. The
    /// lanes of `lanes` write distinct words (`storage::Runs`).
    #[inline(always)]
    fn or_word_runs(
        _words: &mut [u64],
        _lanes: u32,
        _x0: Self,
        _x1: Self,
        _w0: Self,
        _w1: Self,
    ) -> bool {
        false
    }
}

/// Eight `f64` lanes with the voxelizer's extra operations.
pub(crate) trait VoxF64: F64Lanes<F32 = [f32; 8]> {
    fn from_array(a: [f64; 8]) -> Self;
    fn to_array(self) -> [f64; 8];
    /// `floor` per lane (as `f64::floor`).
    fn floor(self) -> Self;
    /// `wide`'s `min`: `self` where `o` is NaN, else `vminpd(self, o)`.
    fn min_num(self, o: Self) -> Self;
    /// `wide`'s `max`: `self` where `o` is NaN, else `vmaxpd(self, o)`.
    fn max_num(self, o: Self) -> Self;
    /// `self >= o` (false when either is NaN).
    fn ge(self, o: Self) -> Self::Mask;
    /// `self < o` (false when either is NaN).
    fn lt(self, o: Self) -> Self::Mask;
    /// Bit `l`: lane `l` of `m`.
    fn bits(m: Self::Mask) -> u32;
}

impl VoxF32 for wide::f32x16 {
    type Int = wide::i32x16;
    #[inline(always)]
    fn floor(self) -> Self {
        wide::f32x16::floor(self)
    }
    #[inline(always)]
    fn ceil(self) -> Self {
        wide::f32x16::ceil(self)
    }
    #[inline(always)]
    fn max_num(self, o: Self) -> Self {
        wide::f32x16::max(self, o)
    }
    #[inline(always)]
    fn min_num(self, o: Self) -> Self {
        wide::f32x16::min(self, o)
    }
    #[inline(always)]
    fn round_int(self) -> wide::i32x16 {
        wide::f32x16::round_int(self)
    }
    #[inline(always)]
    fn fast_round_int(self) -> wide::i32x16 {
        wide::f32x16::fast_round_int(self)
    }
}

impl VoxI32 for wide::i32x16 {
    #[inline(always)]
    fn splat(x: i32) -> Self {
        wide::i32x16::splat(x)
    }
    #[inline(always)]
    fn from_array(a: [i32; 16]) -> Self {
        wide::i32x16::new(a)
    }
    #[inline(always)]
    fn shr6(self) -> Self {
        self >> 6u32
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn to_array(self) -> [i32; 16] {
        wide::i32x16::to_array(self)
    }
    /// The AVX-512 gathers when the build itself targets AVX-512 (`wide`'s
    /// types are then `__m512i` underneath).
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    #[inline(always)]
    #[allow(unsafe_code)]
    fn or_word_runs(words: &mut [u64], lanes: u32, x0: Self, x1: Self, w0: Self, w1: Self) -> bool {
        use core::arch::x86_64::{__m512i, _mm512_loadu_si512};
        let m = |v: Self| -> __m512i {
            let a = v.to_array();
            // SAFETY: an unaligned load of the 64 bytes of `a` (AVX-512F: cfg).
            unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
        };
        // SAFETY: this build targets AVX-512F (cfg), which the function needs.
        unsafe { super::x86::or_word_runs_avx512(words, lanes, m(x0), m(x1), m(w0), m(w1)) }
    }
}

impl VoxF64 for wide::f64x8 {
    #[inline(always)]
    fn from_array(a: [f64; 8]) -> Self {
        wide::f64x8::new(a)
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 8] {
        wide::f64x8::to_array(self)
    }
    #[inline(always)]
    fn floor(self) -> Self {
        wide::f64x8::floor(self)
    }
    #[inline(always)]
    fn min_num(self, o: Self) -> Self {
        wide::f64x8::min(self, o)
    }
    #[inline(always)]
    fn max_num(self, o: Self) -> Self {
        wide::f64x8::max(self, o)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> Self {
        wide::f64x8::simd_ge(self, o)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> Self {
        wide::f64x8::simd_lt(self, o)
    }
    #[inline(always)]
    fn bits(m: Self) -> u32 {
        m.to_bitmask()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{dispatch, Isa, Simd, SimdFn};
    use super::*;

    const F32S: [f32; 20] = [
        0.0,
        -0.0,
        1.5,
        -2.5,
        2.5,
        0.5,
        -0.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
        2147483648.0,
        -2147483648.0,
        2147483520.0,
        -2147483904.0,
        f32::MAX,
        -f32::MAX,
        8388607.5,
        -1e-30,
        3.0,
    ];

    const F64S: [f64; 16] = [
        0.0,
        -0.0,
        1.5,
        -2.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE / 4.0,
        4503599627370495.5,
        -1e300,
        1e-300,
        3.0,
        f64::MAX,
        3.4028235677973366e38, // rounds to f32::MAX... or beyond: overflow to ∞
        1.0000000596046448,    // a tie of f32 rounding
        -7.0,
    ];

    /// `b` NaN → `a`; else `vmaxps(a, b)`: `a` when `a > b`, else `b`.
    fn max_num32(a: f32, b: f32) -> f32 {
        if b.is_nan() || a > b {
            a
        } else {
            b
        }
    }
    fn min_num32(a: f32, b: f32) -> f32 {
        if b.is_nan() || a < b {
            a
        } else {
            b
        }
    }
    fn round_int32(x: f32) -> i32 {
        if x.is_nan() {
            0
        } else {
            x.round_ties_even() as i32
        }
    }
    fn fast_round_int32(x: f32) -> i32 {
        let r = x.round_ties_even();
        if x.is_nan() || !(-2147483648.0..2147483648.0).contains(&r) {
            i32::MIN
        } else {
            r as i32
        }
    }

    struct CheckVox;
    impl SimdFn for CheckVox {
        type Out = ();
        #[inline(always)]
        fn call<S: Simd>(self) {
            check32::<S::F16>();
            check64::<S::D8>();
        }
    }

    fn same32(got: f32, want: f32, what: &str, l: usize) {
        // (NaN payloads are not part of the rules: any NaN for a NaN)
        assert!(
            got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
            "{what} lane {l}: {got:?} want {want:?}"
        );
    }

    #[inline(always)]
    fn check32<F: VoxF32>() {
        let n = F32S.len();
        for shift in 0..n {
            let a: Vec<f32> = (0..16).map(|l| F32S[(l + shift) % n]).collect();
            let b: Vec<f32> = (0..16).map(|l| F32S[(7 * l + shift + 3) % n]).collect();
            let (va, vb) = (F::load(&a), F::load(&b));
            for l in 0..16 {
                same32(va.floor().lane(l), a[l].floor(), "floor", l);
                same32(va.ceil().lane(l), a[l].ceil(), "ceil", l);
                same32(va.max_num(vb).lane(l), max_num32(a[l], b[l]), "max_num", l);
                same32(va.min_num(vb).lane(l), min_num32(a[l], b[l]), "min_num", l);
            }
            let (r, fr) = (va.round_int().to_array(), va.fast_round_int().to_array());
            for l in 0..16 {
                assert_eq!(r[l], round_int32(a[l]), "round_int {:?}", a[l]);
                assert_eq!(fr[l], fast_round_int32(a[l]), "fast_round_int {:?}", a[l]);
            }
            // integers: wrapping arithmetic, arithmetic shift, and
            let ia: [i32; 16] = core::array::from_fn(|l| (a[l] as i32).wrapping_mul(37) ^ l as i32);
            let ib: [i32; 16] = core::array::from_fn(|l| b[l] as i32 | (l as i32) << 3);
            let (xa, xb) = (F::Int::from_array(ia), F::Int::from_array(ib));
            assert_eq!(xa.to_array(), ia);
            let sum = (xa + xb).to_array();
            let dif = (xa - xb).to_array();
            let mul = (xa * xb).to_array();
            let shr = xa.shr6().to_array();
            let and = xa.and(xb).to_array();
            for l in 0..16 {
                assert_eq!(sum[l], ia[l].wrapping_add(ib[l]));
                assert_eq!(dif[l], ia[l].wrapping_sub(ib[l]));
                assert_eq!(mul[l], ia[l].wrapping_mul(ib[l]));
                assert_eq!(shr[l], ia[l] >> 6);
                assert_eq!(and[l], ia[l] & ib[l]);
            }
            assert_eq!(F::Int::splat(-5).to_array(), [-5; 16]);
        }
    }

    #[inline(always)]
    fn check64<D: VoxF64>() {
        let n = F64S.len();
        for shift in 0..n {
            let a: [f64; 8] = core::array::from_fn(|l| F64S[(l + shift) % n]);
            let b: [f64; 8] = core::array::from_fn(|l| F64S[(5 * l + shift + 1) % n]);
            let (va, vb) = (D::from_array(a), D::from_array(b));
            let same = |v: D, f: &dyn Fn(f64, f64) -> f64, what: &str| {
                let v = v.to_array();
                for l in 0..8 {
                    let w = f(a[l], b[l]);
                    assert!(
                        v[l].to_bits() == w.to_bits() || v[l].is_nan() && w.is_nan(),
                        "{what} lane {l}: {} {} -> {} want {w}",
                        a[l],
                        b[l],
                        v[l]
                    );
                }
            };
            assert_eq!(va.to_array().map(f64::to_bits), a.map(f64::to_bits));
            same(va + vb, &|x, y| x + y, "add");
            same(va - vb, &|x, y| x - y, "sub");
            same(va * vb, &|x, y| x * y, "mul");
            same(va / vb, &|x, y| x / y, "div");
            same(-va, &|x, _| -x, "neg");
            same(F64Lanes::abs(va), &|x, _| x.abs(), "abs");
            same(va.floor(), &|x, _| x.floor(), "floor");
            let mx = |x: f64, y: f64| if y.is_nan() || x > y { x } else { y };
            let mn = |x: f64, y: f64| if y.is_nan() || x < y { x } else { y };
            same(va.max_num(vb), &mx, "max_num");
            same(va.min_num(vb), &mn, "min_num");
            // (`F64Lanes::max` is `wide`'s max on every path)
            same(F64Lanes::max(va, vb), &mx, "max");
            same(D::splat(a[3]), &|_, _| a[3], "splat");
            let m = F64Lanes::le(va, vb);
            same(D::select(m, va, vb), &|x, y| if x <= y { x } else { y }, "select");
            let want = |f: &dyn Fn(f64, f64) -> bool| {
                (0..8).fold(0u32, |acc, l| acc | (f(a[l], b[l]) as u32) << l)
            };
            assert_eq!(D::bits(F64Lanes::le(va, vb)), want(&|x, y| x <= y), "le");
            assert_eq!(D::bits(F64Lanes::gt(va, vb)), want(&|x, y| x > y), "gt");
            assert_eq!(D::bits(F64Lanes::ne(va, vb)), want(&|x, y| x != y), "ne");
            assert_eq!(D::bits(va.ge(vb)), want(&|x, y| x >= y), "ge");
            assert_eq!(D::bits(va.lt(vb)), want(&|x, y| x < y), "lt");
            assert_eq!(D::bits(F64Lanes::is_finite(va)), want(&|x, _| x.is_finite()), "finite");
            let (g, l) = (F64Lanes::gt(va, vb), va.lt(vb));
            assert_eq!(D::bits(g & l), D::bits(g) & D::bits(l), "and");
            for q in 0..8 {
                assert_eq!(D::mask_lane(&g, q), D::bits(g) >> q & 1 != 0, "mask_lane");
            }
            let f = va.to_f32();
            for (q, &aq) in a.iter().enumerate() {
                let w = aq as f32;
                let got = D::f32_lane(&f, q);
                assert!(
                    got.to_bits() == w.to_bits() || got.is_nan() && w.is_nan(),
                    "to_f32 {}",
                    aq
                );
            }
        }
    }

    #[test]
    fn every_path_follows_the_voxel_rules() {
        for isa in Isa::ALL {
            dispatch(isa.clamp_to_cpu(), CheckVox);
        }
    }
}
