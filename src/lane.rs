//! The lane abstraction every kernel is written over.
//!
//! A kernel in widephase is written **once**, generic over [`Lane`], and
//! instantiated for `f32` (width 1: the scalar catalogue), `f32x4`, `f32x8` and
//! `f32x16`. Because every instantiation performs the same IEEE-754 operations in
//! the same order, results are bit-identical across widths and lane positions by
//! construction — the tests then check that this holds.
//!
//! Rules that keep the widths bit-identical (see `simd-notes.md`):
//! - Only correctly rounded operations: `+ - * /`, `sqrt`, comparisons, `abs`,
//!   negation, and the [`Lane::min`]/[`Lane::max`] defined below. No `mul_add`
//!   (fused only on FMA builds), no approximate reciprocals.
//! - `min`/`max` have the x86 `minps`/`maxps` semantics on every width,
//!   `a.min(b) = if a < b { a } else { b }`: with a NaN operand the *second*
//!   operand is returned. The scalar `f32` impl copies that rule, so NaN flows
//!   identically (kernels additionally mask invalid inputs, see the crate's
//!   [contracts](crate#contracts)).
//! - Masks are lane-wise: all-ones/all-zeros bit patterns for the wide types,
//!   `bool` for `f32`.
//!
//! The design follows memchr's private `Vector` trait and Box2D's `b2FloatW`.

use core::fmt::Debug;
use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};
use wide::{f32x16, f32x4, f32x8, f64x8};

/// A lane-wise boolean: one bit per lane.
pub trait LaneMask:
    Copy + Debug + Send + Sync + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self>
{
    /// The mask with every lane set to `b`.
    fn splat(b: bool) -> Self;
    /// Bit `i` of the result is lane `i` of the mask.
    fn bits(self) -> u64;
    /// Whether any lane is set.
    fn any(self) -> bool;
    /// Whether every lane is set.
    fn all(self) -> bool;
    /// Whether no lane is set.
    #[inline(always)]
    fn none(self) -> bool {
        !self.any()
    }
    /// `self & !other`.
    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        self & !other
    }
}

/// A pack of `WIDTH` `f32` lanes with the operations widephase kernels use.
pub trait Lane:
    Copy
    + Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The matching lane mask type.
    type Mask: LaneMask;
    /// Number of `f32` lanes.
    const WIDTH: usize;
    /// Every lane set to `x`.
    fn splat(x: f32) -> Self;
    /// Lanes from `s[0..WIDTH]`. Panics if `s` is shorter (callers pass exact chunks).
    fn load(s: &[f32]) -> Self;
    /// Writes the lanes to `out[0..WIDTH]`.
    fn store(self, out: &mut [f32]);
    /// Lane `i`.
    fn lane(self, i: usize) -> f32;
    /// `if self < o { self } else { o }` per lane (x86 `minps`; NaN picks `o`).
    fn min(self, o: Self) -> Self;
    /// `if self > o { self } else { o }` per lane (x86 `maxps`; NaN picks `o`).
    fn max(self, o: Self) -> Self;
    /// Absolute value (clears the sign bit).
    fn abs(self) -> Self;
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// `self > o` per lane (false if either is NaN).
    fn gt(self, o: Self) -> Self::Mask;
    /// `self >= o` per lane.
    fn ge(self, o: Self) -> Self::Mask;
    /// `self < o` per lane.
    fn lt(self, o: Self) -> Self::Mask;
    /// `self <= o` per lane.
    fn le(self, o: Self) -> Self::Mask;
    /// `self == o` per lane.
    fn eq(self, o: Self) -> Self::Mask;
    /// Lanes that are neither NaN nor infinite.
    fn is_finite(self) -> Self::Mask;
    /// Lanes that are not NaN.
    #[inline(always)]
    fn is_ordered(self) -> Self::Mask {
        self.eq(self)
    }
    /// Per lane: `if m { t } else { f }`.
    fn select(m: Self::Mask, t: Self, f: Self) -> Self;
    /// The bitwise OR of the two lanes' bit patterns (not a float
    /// operation: it finds lanes whose words are all zero bits).
    fn or_bits(self, o: Self) -> Self;
}

impl LaneMask for bool {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        b
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn any(self) -> bool {
        self
    }
    #[inline(always)]
    fn all(self) -> bool {
        self
    }
}

impl Lane for f32 {
    type Mask = bool;
    const WIDTH: usize = 1;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        x
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        s[0]
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        out[0] = self;
    }
    #[inline(always)]
    fn lane(self, i: usize) -> f32 {
        debug_assert_eq!(i, 0);
        self
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        if self < o {
            self
        } else {
            o
        }
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        if self > o {
            self
        } else {
            o
        }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self > o
    }
    #[inline(always)]
    fn ge(self, o: Self) -> bool {
        self >= o
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self < o
    }
    #[inline(always)]
    fn le(self, o: Self) -> bool {
        self <= o
    }
    #[inline(always)]
    fn eq(self, o: Self) -> bool {
        self == o
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline(always)]
    fn select(m: bool, t: Self, f: Self) -> Self {
        if m {
            t
        } else {
            f
        }
    }
    #[inline(always)]
    fn or_bits(self, o: Self) -> Self {
        f32::from_bits(self.to_bits() | o.to_bits())
    }
}

/// Wide masks are the float vector itself with all-ones / all-zeros lanes
/// (wide's convention), so they compose with `select` without conversion.
macro_rules! wide_lane {
    ($t:ident, $n:literal) => {
        impl LaneMask for $t {
            #[inline(always)]
            fn splat(b: bool) -> Self {
                $t::splat(if b { f32::from_bits(u32::MAX) } else { 0.0 })
            }
            #[inline(always)]
            fn bits(self) -> u64 {
                self.to_bitmask() as u64
            }
            #[inline(always)]
            fn any(self) -> bool {
                $t::any(self)
            }
            #[inline(always)]
            fn all(self) -> bool {
                $t::all(self)
            }
        }

        impl Lane for $t {
            type Mask = $t;
            const WIDTH: usize = $n;
            #[inline(always)]
            fn splat(x: f32) -> Self {
                $t::splat(x)
            }
            #[inline(always)]
            fn load(s: &[f32]) -> Self {
                let a: [f32; $n] = s[..$n].try_into().expect("slice has WIDTH lanes");
                $t::new(a)
            }
            #[inline(always)]
            fn store(self, out: &mut [f32]) {
                out[..$n].copy_from_slice(&self.to_array());
            }
            #[inline(always)]
            fn lane(self, i: usize) -> f32 {
                self.as_array()[i]
            }
            #[inline(always)]
            fn min(self, o: Self) -> Self {
                self.fast_min(o)
            }
            #[inline(always)]
            fn max(self, o: Self) -> Self {
                self.fast_max(o)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $t::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            #[inline(always)]
            fn gt(self, o: Self) -> Self {
                self.simd_gt(o)
            }
            #[inline(always)]
            fn ge(self, o: Self) -> Self {
                self.simd_ge(o)
            }
            #[inline(always)]
            fn lt(self, o: Self) -> Self {
                self.simd_lt(o)
            }
            #[inline(always)]
            fn le(self, o: Self) -> Self {
                self.simd_le(o)
            }
            #[inline(always)]
            fn eq(self, o: Self) -> Self {
                self.simd_eq(o)
            }
            #[inline(always)]
            fn is_finite(self) -> Self {
                $t::is_finite(self)
            }
            #[inline(always)]
            fn select(m: Self, t: Self, f: Self) -> Self {
                m.select(t, f)
            }
            #[inline(always)]
            fn or_bits(self, o: Self) -> Self {
                self | o
            }
        }
    };
}

wide_lane!(f32x4, 4);
wide_lane!(f32x8, 8);
wide_lane!(f32x16, 16);

/// The SIMD backend `wide` was compiled with for this build.
pub fn compiled_simd_level() -> &'static str {
    if cfg!(target_feature = "avx512f") {
        "avx512f (f32x16 native, f32x8 avx2, f32x4 sse)"
    } else if cfg!(target_feature = "avx2") {
        "avx2 (f32x8 native, f32x16 as 2×f32x8, f32x4 sse)"
    } else if cfg!(target_feature = "avx") {
        "avx (f32x8 native float ops)"
    } else if cfg!(target_feature = "sse4.1") {
        "sse4.1 (f32x4 native; f32x8/f32x16 emulated by halves)"
    } else if cfg!(target_feature = "sse2") {
        "sse2 baseline (f32x4 native; f32x8/f32x16 emulated by halves)"
    } else {
        "portable scalar arrays"
    }
}

/// Whether `fma` was enabled at compile time (widephase never uses it; see the FMA
/// policy in `simd-notes.md`).
pub const COMPILED_WITH_FMA: bool = cfg!(target_feature = "fma");

/// The f64 arithmetic of the per-triangle setup, over one triangle (`f64`)
/// or eight at once (`f64x8`, one triangle per lane; the voxelizer's
/// `TileQueue`). Every
/// operation is the IEEE one in each lane — `+ − ×`, negation and `abs` (sign
/// bit), `max` of non-NaN values, comparisons, select; no FMA, nothing
/// reassociated — and the setup code is written once over this trait, so a
/// lane's values equal the one-triangle values bit for bit
/// (`batched_setup_matches_scalar`).
pub(crate) trait F64Lanes:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// Per-lane booleans.
    type Mask: Copy + std::ops::BitAnd<Output = Self::Mask>;
    fn splat(x: f64) -> Self;
    fn abs(self) -> Self;
    /// The larger of two values, neither of them NaN.
    fn max(self, o: Self) -> Self;
    fn le(self, o: Self) -> Self::Mask;
    fn gt(self, o: Self) -> Self::Mask;
    /// `self != o` (true when either is NaN, as `!=`).
    fn ne(self, o: Self) -> Self::Mask;
    fn is_finite(self) -> Self::Mask;
    /// `t` where `m`, else `f`.
    fn select(m: Self::Mask, t: Self, f: Self) -> Self;
    /// Lane `l` of `m`.
    fn mask_lane(m: &Self::Mask, l: usize) -> bool;
    /// The lanes rounded to the nearest f32 (as `as f32`).
    type F32: Copy;
    fn to_f32(self) -> Self::F32;
    /// Lane `l` of `v`.
    fn f32_lane(v: &Self::F32, l: usize) -> f32;
}

impl F64Lanes for f64 {
    type Mask = bool;
    #[inline(always)]
    fn splat(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        f64::max(self, o)
    }
    #[inline(always)]
    fn le(self, o: Self) -> bool {
        self <= o
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self > o
    }
    #[inline(always)]
    fn ne(self, o: Self) -> bool {
        self != o
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline(always)]
    fn select(m: bool, t: Self, f: Self) -> Self {
        if m {
            t
        } else {
            f
        }
    }
    #[inline(always)]
    fn mask_lane(m: &bool, _l: usize) -> bool {
        *m
    }
    type F32 = f32;
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn f32_lane(v: &f32, _l: usize) -> f32 {
        *v
    }
}

impl F64Lanes for f64x8 {
    type Mask = f64x8;
    #[inline(always)]
    fn splat(x: f64) -> Self {
        f64x8::splat(x)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64x8::abs(self)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        f64x8::max(self, o)
    }
    #[inline(always)]
    fn le(self, o: Self) -> Self {
        self.simd_le(o)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> Self {
        self.simd_gt(o)
    }
    #[inline(always)]
    fn ne(self, o: Self) -> Self {
        self.simd_ne(o)
    }
    #[inline(always)]
    fn is_finite(self) -> Self {
        f64x8::is_finite(self)
    }
    #[inline(always)]
    fn select(m: Self, t: Self, f: Self) -> Self {
        m.select(t, f)
    }
    #[inline(always)]
    fn mask_lane(m: &Self, l: usize) -> bool {
        m.to_bitmask() >> l & 1 != 0
    }
    type F32 = [f32; 8];
    #[inline(always)]
    fn to_f32(self) -> [f32; 8] {
        self.to_array().map(|v| v as f32)
    }
    #[inline(always)]
    fn f32_lane(v: &[f32; 8], l: usize) -> f32 {
        v[l]
    }
}

/// Lane `i` holds `i` (with a block's offset added, each lane's index).
pub(crate) const LANE_INDEX: [f32; 16] =
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0];

#[cfg(test)]
mod tests {
    use super::*;

    fn check_minmax<L: Lane>() {
        let a = [1.0, f32::NAN, -0.0, 0.0, 3.0, f32::INFINITY, -5.0, f32::NAN];
        let b = [2.0, 1.0, 0.0, -0.0, f32::NAN, 1.0, -6.0, f32::NAN];
        for i in 0..a.len() {
            let la = L::splat(a[i]);
            let lb = L::splat(b[i]);
            let want_min = if a[i] < b[i] { a[i] } else { b[i] };
            let want_max = if a[i] > b[i] { a[i] } else { b[i] };
            for l in 0..L::WIDTH {
                assert_eq!(la.min(lb).lane(l).to_bits(), want_min.to_bits(), "min case {i}");
                assert_eq!(la.max(lb).lane(l).to_bits(), want_max.to_bits(), "max case {i}");
            }
        }
    }

    #[test]
    fn min_max_follow_minps_rule_on_every_width() {
        check_minmax::<f32>();
        check_minmax::<f32x4>();
        check_minmax::<f32x8>();
        check_minmax::<f32x16>();
    }

    #[test]
    fn mask_bits_follow_lane_order() {
        let v = f32x8::new([0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
        let m = Lane::gt(v, Lane::splat(0.5));
        assert_eq!(LaneMask::bits(m), 0b1001_1010);
        let v16 = f32x16::new(core::array::from_fn(|i| i as f32));
        assert_eq!(LaneMask::bits(Lane::ge(v16, Lane::splat(15.0))), 1 << 15);
    }
}
