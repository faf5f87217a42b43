//! Exact rational arithmetic on f32 inputs: the reference every predicate is
//! checked against. Every finite f32 is a dyadic rational, so `Q::from(f32)` is
//! exact, and `+ - * /` on `Q` are exact.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use std::cmp::Ordering;
use std::ops::{Add, Div, Mul, Neg, Sub};
use widephase::Vec3;

/// An exact rational number.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Q(pub BigRational);

impl Q {
    pub fn zero() -> Q {
        Q(BigRational::zero())
    }
    pub fn one() -> Q {
        Q(BigRational::one())
    }
    pub fn int(i: i64) -> Q {
        Q(BigRational::from_integer(BigInt::from(i)))
    }
    /// Exact value of a finite f32. Panics on NaN/inf (references are only
    /// called on finite inputs; the non-finite rule is tested separately).
    pub fn f(x: f32) -> Q {
        assert!(x.is_finite(), "exact reference called with non-finite {x}");
        if x == 0.0 {
            return Q::zero();
        }
        let bits = x.to_bits();
        let sign = if bits >> 31 == 1 { -1i64 } else { 1 };
        let exp = ((bits >> 23) & 0xff) as i32;
        let frac = (bits & 0x7f_ffff) as i64;
        let (mant, e) = if exp == 0 { (frac, -149) } else { (frac | 0x80_0000, exp - 150) };
        let m = BigInt::from(sign * mant);
        let r = if e >= 0 {
            BigRational::from_integer(m << e as usize)
        } else {
            BigRational::new(m, BigInt::one() << (-e) as usize)
        };
        Q(r)
    }
    pub fn sign(&self) -> Ordering {
        self.0.cmp(&BigRational::zero())
    }
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
    pub fn is_neg(&self) -> bool {
        self.0.is_negative()
    }
    pub fn is_pos(&self) -> bool {
        self.0.is_positive()
    }
    pub fn abs(&self) -> Q {
        Q(self.0.abs())
    }
    pub fn min(self, o: Q) -> Q {
        if self <= o {
            self
        } else {
            o
        }
    }
    pub fn max(self, o: Q) -> Q {
        if self >= o {
            self
        } else {
            o
        }
    }
    /// Nearest f64 (for diagnostics only).
    pub fn to_f64(&self) -> f64 {
        use num_traits::ToPrimitive;
        self.0.to_f64().unwrap_or(f64::NAN)
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident) => {
        impl $tr for Q {
            type Output = Q;
            fn $m(self, o: Q) -> Q {
                Q((self.0).$m(o.0))
            }
        }
        impl<'a> $tr<&'a Q> for &'a Q {
            type Output = Q;
            fn $m(self, o: &'a Q) -> Q {
                Q((&self.0).$m(&o.0))
            }
        }
    };
}
binop!(Add, add);
binop!(Sub, sub);
binop!(Mul, mul);
binop!(Div, div);

impl Neg for Q {
    type Output = Q;
    fn neg(self) -> Q {
        Q(-self.0)
    }
}

/// An exact 3-vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QV3 {
    pub x: Q,
    pub y: Q,
    pub z: Q,
}

impl QV3 {
    pub fn new(x: Q, y: Q, z: Q) -> QV3 {
        QV3 { x, y, z }
    }
    pub fn f(v: Vec3) -> QV3 {
        QV3 { x: Q::f(v.x), y: Q::f(v.y), z: Q::f(v.z) }
    }
    pub fn zero() -> QV3 {
        QV3 { x: Q::zero(), y: Q::zero(), z: Q::zero() }
    }
    pub fn get(&self, i: usize) -> &Q {
        match i {
            0 => &self.x,
            1 => &self.y,
            _ => &self.z,
        }
    }
    pub fn dot(&self, o: &QV3) -> Q {
        &(&(&self.x * &o.x) + &(&self.y * &o.y)) + &(&self.z * &o.z)
    }
    pub fn cross(&self, o: &QV3) -> QV3 {
        QV3 {
            x: &(&self.y * &o.z) - &(&self.z * &o.y),
            y: &(&self.z * &o.x) - &(&self.x * &o.z),
            z: &(&self.x * &o.y) - &(&self.y * &o.x),
        }
    }
    pub fn scale(&self, s: &Q) -> QV3 {
        QV3 { x: &self.x * s, y: &self.y * s, z: &self.z * s }
    }
    pub fn is_zero(&self) -> bool {
        self.x.is_zero() && self.y.is_zero() && self.z.is_zero()
    }
    pub fn len2(&self) -> Q {
        self.dot(self)
    }
}

impl<'a> Add<&'a QV3> for &'a QV3 {
    type Output = QV3;
    fn add(self, o: &'a QV3) -> QV3 {
        QV3 { x: &self.x + &o.x, y: &self.y + &o.y, z: &self.z + &o.z }
    }
}
impl<'a> Sub<&'a QV3> for &'a QV3 {
    type Output = QV3;
    fn sub(self, o: &'a QV3) -> QV3 {
        QV3 { x: &self.x - &o.x, y: &self.y - &o.y, z: &self.z - &o.z }
    }
}

/// Exact test: is the origin in the convex hull of `pts` (any dimension ≤ 3)?
/// Independent of any SAT axis list: 0 ∉ conv(P) iff some direction `d` has
/// `d·p > 0` for every p, and `d` can be taken as the closest point of conv(P) to
/// the origin, which lies in the relative interior of a simplex of ≤ 3 points of
/// P; its direction is therefore one of: a point p_i; the component of p_i
/// orthogonal to (p_j - p_i) on the line through p_i, p_j; or the normal of
/// the plane through p_i, p_j, p_k (either sign). Trying them all is exact.
/// Used as an independent reference (A ∩ B ≠ ∅ iff 0 ∈ conv{a_i - b_j}).
pub fn origin_in_hull(pts: &[QV3]) -> bool {
    let separates = |d: &QV3| -> bool {
        if d.is_zero() {
            return false;
        }
        pts.iter().all(|p| d.dot(p).is_pos())
    };
    let n = pts.len();
    for i in 0..n {
        if separates(&pts[i]) {
            return false;
        }
        for j in i + 1..n {
            // closest point of the line p_i + s (p_j - p_i) to the origin:
            // d = p_i*|e|^2 - e*(p_i·e)  (scaled by |e|^2 > 0)
            let e = &pts[j] - &pts[i];
            let e2 = e.len2();
            if !e2.is_zero() {
                let d = &pts[i].scale(&e2) - &e.scale(&pts[i].dot(&e));
                if separates(&d) {
                    return false;
                }
            }
            for k in j + 1..n {
                let nrm = (&pts[j] - &pts[i]).cross(&(&pts[k] - &pts[i]));
                if nrm.is_zero() {
                    continue;
                }
                let s = nrm.dot(&pts[i]);
                // the plane's closest point to the origin is s/|n|^2 * n; its
                // direction is sign(s)*n (s = 0: the origin is on the plane, and
                // the plane normal cannot strictly separate).
                let d = if s.is_neg() { nrm.scale(&Q::int(-1)) } else { nrm };
                if separates(&d) {
                    return false;
                }
            }
        }
    }
    true
}

/// Exact: do the convex hulls of `a` and `b` intersect (closed sets)?
pub fn hulls_intersect(a: &[Vec3], b: &[Vec3]) -> bool {
    let mut diffs = Vec::with_capacity(a.len() * b.len());
    for p in a {
        for q in b {
            diffs.push(&QV3::f(*p) - &QV3::f(*q));
        }
    }
    origin_in_hull(&diffs)
}

#[cfg(test)]
mod selftest {}

/// An exact dyadic rational `m · 2^e`: exact for every f32 and closed under
/// `+ - *` and halving, with no gcd work — several times faster than `Q` for
/// predicates that never divide by anything but powers of two.
#[derive(Clone, Debug)]
pub struct D {
    m: BigInt,
    e: i32,
}

impl D {
    pub fn zero() -> D {
        D { m: BigInt::zero(), e: 0 }
    }
    pub fn int(i: i64) -> D {
        D { m: BigInt::from(i), e: 0 }
    }
    /// Exact value of a finite f32 (panics on NaN/inf).
    pub fn f(x: f32) -> D {
        assert!(x.is_finite(), "exact reference called with non-finite {x}");
        let bits = x.to_bits();
        let sign = if bits >> 31 == 1 { -1i64 } else { 1 };
        let exp = ((bits >> 23) & 0xff) as i32;
        let frac = (bits & 0x7f_ffff) as i64;
        let (mant, e) = if exp == 0 { (frac, -149) } else { (frac | 0x80_0000, exp - 150) };
        D { m: BigInt::from(sign * mant), e }
    }
    /// `self / 2^k`.
    pub fn shr(&self, k: i32) -> D {
        D { m: self.m.clone(), e: self.e - k }
    }
    fn align(a: &D, b: &D) -> (BigInt, BigInt, i32) {
        use std::cmp::Ordering::*;
        match a.e.cmp(&b.e) {
            Equal => (a.m.clone(), b.m.clone(), a.e),
            Less => (a.m.clone(), &b.m << (b.e - a.e) as usize, a.e),
            Greater => (&a.m << (a.e - b.e) as usize, b.m.clone(), b.e),
        }
    }
    pub fn sign(&self) -> Ordering {
        match self.m.sign() {
            num_bigint::Sign::Minus => Ordering::Less,
            num_bigint::Sign::NoSign => Ordering::Equal,
            num_bigint::Sign::Plus => Ordering::Greater,
        }
    }
    pub fn is_pos(&self) -> bool {
        self.m.is_positive()
    }
    pub fn is_neg(&self) -> bool {
        self.m.is_negative()
    }
    pub fn is_zero(&self) -> bool {
        self.m.is_zero()
    }
    pub fn abs(&self) -> D {
        D { m: self.m.abs(), e: self.e }
    }
    pub fn min(self, o: D) -> D {
        if self <= o {
            self
        } else {
            o
        }
    }
    pub fn max(self, o: D) -> D {
        if self >= o {
            self
        } else {
            o
        }
    }
    pub fn to_q(&self) -> Q {
        let m = BigRational::from_integer(self.m.clone());
        if self.e >= 0 {
            Q(m * BigRational::from_integer(BigInt::one() << self.e as usize))
        } else {
            Q(m / BigRational::from_integer(BigInt::one() << (-self.e) as usize))
        }
    }
}

impl PartialEq for D {
    fn eq(&self, o: &D) -> bool {
        let (a, b, _) = D::align(self, o);
        a == b
    }
}
impl Eq for D {}
impl PartialOrd for D {
    fn partial_cmp(&self, o: &D) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for D {
    fn cmp(&self, o: &D) -> Ordering {
        let (a, b, _) = D::align(self, o);
        a.cmp(&b)
    }
}

impl<'a> Add<&'a D> for &'a D {
    type Output = D;
    fn add(self, o: &'a D) -> D {
        let (a, b, e) = D::align(self, o);
        D { m: a + b, e }
    }
}
impl<'a> Sub<&'a D> for &'a D {
    type Output = D;
    fn sub(self, o: &'a D) -> D {
        let (a, b, e) = D::align(self, o);
        D { m: a - b, e }
    }
}
impl<'a> Mul<&'a D> for &'a D {
    type Output = D;
    fn mul(self, o: &'a D) -> D {
        D { m: &self.m * &o.m, e: self.e + o.e }
    }
}
impl Neg for D {
    type Output = D;
    fn neg(self) -> D {
        D { m: -self.m, e: self.e }
    }
}

/// An exact dyadic 3-vector.
#[derive(Clone, Debug)]
pub struct DV3 {
    pub x: D,
    pub y: D,
    pub z: D,
}

impl DV3 {
    pub fn f(v: Vec3) -> DV3 {
        DV3 { x: D::f(v.x), y: D::f(v.y), z: D::f(v.z) }
    }
    pub fn new(x: D, y: D, z: D) -> DV3 {
        DV3 { x, y, z }
    }
    pub fn get(&self, i: usize) -> &D {
        match i {
            0 => &self.x,
            1 => &self.y,
            _ => &self.z,
        }
    }
    pub fn dot(&self, o: &DV3) -> D {
        &(&(&self.x * &o.x) + &(&self.y * &o.y)) + &(&self.z * &o.z)
    }
    pub fn cross(&self, o: &DV3) -> DV3 {
        DV3 {
            x: &(&self.y * &o.z) - &(&self.z * &o.y),
            y: &(&self.z * &o.x) - &(&self.x * &o.z),
            z: &(&self.x * &o.y) - &(&self.y * &o.x),
        }
    }
}
impl DV3 {
    /// Exact halving of each component.
    pub fn half(&self) -> DV3 {
        DV3 { x: self.x.shr(1), y: self.y.shr(1), z: self.z.shr(1) }
    }
}
impl<'a> Sub<&'a DV3> for &'a DV3 {
    type Output = DV3;
    fn sub(self, o: &'a DV3) -> DV3 {
        DV3 { x: &self.x - &o.x, y: &self.y - &o.y, z: &self.z - &o.z }
    }
}
impl<'a> Add<&'a DV3> for &'a DV3 {
    type Output = DV3;
    fn add(self, o: &'a DV3) -> DV3 {
        DV3 { x: &self.x + &o.x, y: &self.y + &o.y, z: &self.z + &o.z }
    }
}
