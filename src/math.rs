//! 3-vectors over any [`Lane`] width. [`Vec3`] is the scalar (`f32`) case.
//!
//! Every operation is written once for `V3<L>`, so a scalar query and a batched
//! kernel share the exact same operation order (dot products sum `x`, then `y`,
//! then `z`; cross products are `a.y*b.z - a.z*b.y` etc.). Do not "optimise" the
//! order in one place only: bit-identical results across widths depend on it.

use crate::lane::Lane;
use core::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// A 3-vector (or point) whose components are lanes of type `L`.
///
/// `V3<f32>` ([`Vec3`]) is a plain `#[repr(C)]` struct of three `f32`, castable
/// from a vertex buffer with bytemuck; `V3<f32x8>` holds eight vectors in
/// structure-of-arrays form.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3<L = f32> {
    /// x component.
    pub x: L,
    /// y component.
    pub y: L,
    /// z component.
    pub z: L,
}

/// A scalar 3-vector or point.
pub type Vec3 = V3<f32>;

impl<L: Lane> V3<L> {
    /// A vector from its components.
    #[inline(always)]
    pub const fn new(x: L, y: L, z: L) -> Self {
        V3 { x, y, z }
    }
    /// `(s, s, s)`.
    #[inline(always)]
    pub fn splat(s: L) -> Self {
        V3 { x: s, y: s, z: s }
    }
    /// Every lane set to the scalar vector `v`.
    #[inline(always)]
    pub fn broadcast(v: Vec3) -> Self {
        V3 { x: L::splat(v.x), y: L::splat(v.y), z: L::splat(v.z) }
    }
    /// Lane `i` as a scalar vector.
    #[inline(always)]
    pub fn lane(&self, i: usize) -> Vec3 {
        V3 { x: self.x.lane(i), y: self.y.lane(i), z: self.z.lane(i) }
    }
    /// Component `i` (0 = x, 1 = y, 2 = z).
    #[inline(always)]
    pub fn get(&self, i: usize) -> L {
        match i {
            0 => self.x,
            1 => self.y,
            _ => self.z,
        }
    }
    /// Sets component `i` (0 = x, 1 = y, 2 = z).
    #[inline(always)]
    pub fn set(&mut self, i: usize, v: L) {
        match i {
            0 => self.x = v,
            1 => self.y = v,
            _ => self.z = v,
        }
    }
    /// `x*o.x + y*o.y + z*o.z`, summed left to right.
    #[inline(always)]
    pub fn dot(self, o: Self) -> L {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// The cross product `self × o`.
    #[inline(always)]
    pub fn cross(self, o: Self) -> Self {
        V3 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }
    /// Squared Euclidean length.
    #[inline(always)]
    pub fn length_squared(self) -> L {
        self.dot(self)
    }
    /// Euclidean length.
    #[inline(always)]
    pub fn length(self) -> L {
        self.dot(self).sqrt()
    }
    /// Component-wise absolute value.
    #[inline(always)]
    pub fn abs(self) -> Self {
        V3 { x: self.x.abs(), y: self.y.abs(), z: self.z.abs() }
    }
    /// Component-wise minimum (`minps` rule, see [`Lane::min`]).
    #[inline(always)]
    pub fn min(self, o: Self) -> Self {
        V3 { x: self.x.min(o.x), y: self.y.min(o.y), z: self.z.min(o.z) }
    }
    /// Component-wise maximum (`maxps` rule, see [`Lane::max`]).
    #[inline(always)]
    pub fn max(self, o: Self) -> Self {
        V3 { x: self.x.max(o.x), y: self.y.max(o.y), z: self.z.max(o.z) }
    }
    /// Largest component.
    #[inline(always)]
    pub fn max_element(self) -> L {
        self.x.max(self.y).max(self.z)
    }
    /// Smallest component.
    #[inline(always)]
    pub fn min_element(self) -> L {
        self.x.min(self.y).min(self.z)
    }
    /// Component-wise product.
    #[inline(always)]
    pub fn mul_elem(self, o: Self) -> Self {
        V3 { x: self.x * o.x, y: self.y * o.y, z: self.z * o.z }
    }
    /// Lanes whose three components are all finite.
    #[inline(always)]
    pub fn is_finite(self) -> L::Mask {
        self.x.is_finite() & self.y.is_finite() & self.z.is_finite()
    }
    /// Per lane: `if m { t } else { f }`.
    #[inline(always)]
    pub fn select(m: L::Mask, t: Self, f: Self) -> Self {
        V3 { x: L::select(m, t.x, f.x), y: L::select(m, t.y, f.y), z: L::select(m, t.z, f.z) }
    }
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = V3 { x: 0.0, y: 0.0, z: 0.0 };
    /// The unit x axis.
    pub const X: Vec3 = V3 { x: 1.0, y: 0.0, z: 0.0 };
    /// The unit y axis.
    pub const Y: Vec3 = V3 { x: 0.0, y: 1.0, z: 0.0 };
    /// The unit z axis.
    pub const Z: Vec3 = V3 { x: 0.0, y: 0.0, z: 1.0 };

    /// The components as an array.
    #[inline]
    pub const fn to_array(self) -> [f32; 3] {
        [self.x, self.y, self.z]
    }
    /// A vector from an array.
    #[inline]
    pub const fn from_array(a: [f32; 3]) -> Vec3 {
        V3 { x: a[0], y: a[1], z: a[2] }
    }
    /// The unit vector in the direction of `self`, or `None` when its length is
    /// zero, subnormal-small or not finite (glam's `try_normalize`).
    #[inline]
    pub fn try_normalize(self) -> Option<Vec3> {
        let len = self.length();
        if len.is_finite() && len > f32::MIN_POSITIVE {
            Some(self / len)
        } else {
            None
        }
    }
}

impl From<[f32; 3]> for Vec3 {
    fn from(a: [f32; 3]) -> Self {
        Vec3::from_array(a)
    }
}

impl From<Vec3> for [f32; 3] {
    fn from(v: Vec3) -> Self {
        v.to_array()
    }
}

impl<L: Lane> Add for V3<L> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        V3 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}
impl<L: Lane> Sub for V3<L> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        V3 { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }
}
impl<L: Lane> AddAssign for V3<L> {
    #[inline(always)]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}
impl<L: Lane> SubAssign for V3<L> {
    #[inline(always)]
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}
impl<L: Lane> Neg for V3<L> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        V3 { x: -self.x, y: -self.y, z: -self.z }
    }
}
/// Scaling by a lane value: `v * s`.
impl<L: Lane> Mul<L> for V3<L> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, s: L) -> Self {
        V3 { x: self.x * s, y: self.y * s, z: self.z * s }
    }
}
/// Division by a lane value: `v / s` (three correctly rounded divisions, not a
/// reciprocal multiply, so results are exact-rounded per component).
impl<L: Lane> Div<L> for V3<L> {
    type Output = Self;
    #[inline(always)]
    fn div(self, s: L) -> Self {
        V3 { x: self.x / s, y: self.y / s, z: self.z / s }
    }
}
