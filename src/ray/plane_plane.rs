//! Plane–plane and three-plane intersection (Ericson §5.4.4–5.4.5; seed `003`
//! "三平面相交").

use crate::math::Vec3;
use crate::shapes::Plane;

type D3 = [f64; 3];
fn d3(v: Vec3) -> D3 {
    [v.x as f64, v.y as f64, v.z as f64]
}
fn cross(a: D3, b: D3) -> D3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn dot(a: D3, b: D3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn scale(a: D3, s: f64) -> D3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn add(a: D3, b: D3) -> D3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn to_vec3(a: D3) -> Vec3 {
    Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32)
}
/// `a + b` as `(sum, error)` with `sum + error = a + b` exactly (Knuth's
/// TwoSum; no overflow in the uses below).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bv = s - a;
    let av = s - bv;
    (s, (a - av) + (b - bv))
}

/// `a·b` as `(product, error)` with `product + error = a·b` exactly (Dekker's
/// TwoProduct with Veltkamp's split, no FMA; exact while `|a|, |b| < 2^996`
/// and the error term does not underflow, which holds for the products of
/// three `f32` below: they lie in `[2^-447, 2^384]`).
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let split = |x: f64| {
        let c = 134_217_729.0 * x; // 2^27 + 1
        let hi = c - (c - x);
        (hi, x - hi)
    };
    let p = a * b;
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    (p, al * bl - (((p - ah * bh) - al * bh) - ah * bl))
}

/// `n1·(n2 × n3)` rounded once from its exact value: the six triple products
/// `±n1_i·n2_j·n3_k` are formed exactly (`n2_j·n3_k` is exact in `f64`, 48
/// significant bits; the product with `n1_i` is split by [`two_product`]) and
/// summed into a non-overlapping expansion (Shewchuk's Grow-Expansion, 1997),
/// whose components are added from the smallest up. The result is 0 exactly
/// when the determinant is 0, and otherwise has the determinant's sign and is
/// within a few ulps of it.
fn det3_accurate(n1: D3, n2: D3, n3: D3) -> f64 {
    let mut expansion: [f64; 12] = [0.0; 12];
    let mut len = 0;
    let mut grow = |b: f64| {
        let mut q = b;
        for e in expansion.iter_mut().take(len) {
            let (s, err) = two_sum(q, *e);
            *e = err;
            q = s;
        }
        expansion[len] = q;
        len += 1;
    };
    for (i, j, k) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
        for (hi, lo) in [two_product(n1[i], n2[j] * n3[k]), two_product(-n1[i], n2[k] * n3[j])] {
            grow(hi);
            grow(lo);
        }
    }
    expansion.iter().fold(0.0, |acc, x| acc + x)
}

fn finite(p: &Plane) -> bool {
    p.normal.is_finite() && p.d.is_finite()
}

/// The line where two planes meet: `Some((point, dir))` with `dir = n1 × n2`
/// (not normalised) and `point` on both planes (the point of the line closest
/// to the origin), or `None` for parallel (or coincident) planes.
///
/// `point = ((d1·n2 - d2·n1) × dir) / |dir|²` (Ericson §5.4.4; derive: the point
/// `x = a·n1 + b·n2` with `n1·x = d1`, `n2·x = d2`, rewritten with the vector
/// triple product). Computed in f64 and rounded: `dir` is then the correctly
/// rounded cross product (its f64 components are exact products' differences
/// rounded once), and `dir == 0` detects exactly parallel normals. NaN/∞ give
/// `None` (crate [contracts](crate#contracts)); a zero normal is not a plane
/// (`None`).
///
/// ```
/// use widephase::{ray::plane_plane, Plane, Vec3};
/// let (p, dir) = plane_plane(&Plane::new(Vec3::X, 1.0), &Plane::new(Vec3::Y, 2.0)).unwrap();
/// assert_eq!((p, dir), (Vec3::new(1.0, 2.0, 0.0), Vec3::Z));
/// assert!(plane_plane(&Plane::new(Vec3::X, 1.0), &Plane::new(Vec3::new(2.0, 0.0, 0.0), 5.0)).is_none());
/// ```
pub fn plane_plane(p1: &Plane, p2: &Plane) -> Option<(Vec3, Vec3)> {
    if !(finite(p1) && finite(p2)) {
        return None;
    }
    let (n1, n2) = (d3(p1.normal), d3(p2.normal));
    let dir = cross(n1, n2);
    let dd = dot(dir, dir);
    if dd == 0.0 {
        return None;
    }
    let k = add(scale(n2, p1.d as f64), scale(n1, -(p2.d as f64)));
    let point = scale(cross(k, dir), 1.0 / dd);
    let (pv, dv) = (to_vec3(point), to_vec3(dir));
    (pv.is_finite() && dv.is_finite() && dv != Vec3::ZERO).then_some((pv, dv))
}

/// The point common to three planes, or `None` when their normals are linearly
/// dependent (`n1·(n2 × n3) = 0`: no single common point).
///
/// `x = (d1·(n2 × n3) + n1 × (d3·n2 - d2·n3)) / (n1·(n2 × n3))` (Cramer's rule
/// rewritten with triple products; Ericson §5.4.5, seed `003`). Dependence is
/// decided exactly: the determinant `n1·(n2 × n3)` is summed from its six
/// exact triple products without rounding error before the test against 0
/// (a plain `f64` evaluation leaves rounding noise for, e.g., `n2 = 2·n1`),
/// and the same accurately rounded determinant is the divisor. The
/// numerator is computed in `f64` and the point rounded to `f32`; a point
/// that overflows `f32` gives `None`. NaN/∞ give `None` (crate
/// [contracts](crate#contracts)).
///
/// ```
/// use widephase::{ray::three_planes, Plane, Vec3};
/// let p = three_planes(&Plane::new(Vec3::X, 1.0), &Plane::new(Vec3::Y, 2.0), &Plane::new(Vec3::new(1.0, 1.0, 1.0), 6.0));
/// assert_eq!(p, Some(Vec3::new(1.0, 2.0, 3.0)));
/// assert!(three_planes(&Plane::new(Vec3::X, 1.0), &Plane::new(Vec3::Y, 2.0), &Plane::new(Vec3::new(1.0, 1.0, 0.0), 6.0)).is_none());
/// ```
pub fn three_planes(p1: &Plane, p2: &Plane, p3: &Plane) -> Option<Vec3> {
    if !(finite(p1) && finite(p2) && finite(p3)) {
        return None;
    }
    let (n1, n2, n3) = (d3(p1.normal), d3(p2.normal), d3(p3.normal));
    let u = cross(n2, n3);
    let den = det3_accurate(n1, n2, n3);
    if den == 0.0 {
        return None;
    }
    let v = add(scale(n2, p3.d as f64), scale(n3, -(p2.d as f64)));
    let x = scale(add(scale(u, p1.d as f64), cross(n1, v)), 1.0 / den);
    let xv = to_vec3(x);
    xv.is_finite().then_some(xv)
}
