//! Exact references of the culling family, in rational arithmetic on the f32
//! inputs (`Q`), written independently of the crate's code: plane tests take the
//! exact minimum/maximum of `n·x - d` over every corner (or exact squares where
//! a square root appears), frustum classes are per-plane exact sign tests, and
//! k-DOP overlap is decided by exact vertex enumeration of the intersection.
//!
//! Each plane/frustum reference also reports whether the case is inside the ulp
//! band derived in `simd-notes.md`, the only place the crate may disagree.

use crate::common::exact::{Q, QV3};
use widephase::overlap::Classification;
use widephase::{Aabb, Cone, Frustum, Kdop, Obb, Plane, Sphere, Vec3};

/// `2^e` exactly.
pub fn pow2(e: i32) -> Q {
    let mut q = Q::one();
    let two = Q::int(2);
    for _ in 0..e.unsigned_abs() {
        q = if e > 0 { &q * &two } else { &q / &two };
    }
    q
}

/// `γ_k = k·u / (1 - k·u)` with `u = 2^-24`.
pub fn gamma(k: i64) -> Q {
    let ku = &Q::int(k) * &pow2(-24);
    &ku / &(&Q::one() - &ku)
}

/// `k·u`.
pub fn ku(k: i64) -> Q {
    &Q::int(k) * &pow2(-24)
}

fn finite3(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

fn plane_ok(p: &Plane) -> bool {
    finite3(p.normal) && p.d.is_finite()
}

/// `Σ |a_i·b_i|`.
fn abs_dot(a: &QV3, b: &QV3) -> Q {
    &(&(&a.x * &b.x).abs() + &(&a.y * &b.y).abs()) + &(&a.z * &b.z).abs()
}

fn sum_abs(a: &QV3) -> Q {
    &(&a.x.abs() + &a.y.abs()) + &a.z.abs()
}

/// `a <= sqrt(b2)` for `b2 >= 0`.
pub fn le_sqrt(a: &Q, b2: &Q) -> bool {
    !a.is_pos() || &(a * a) <= b2
}

/// `|a - sqrt(b2)| <= band` for `b2 >= 0`, `band >= 0`.
pub fn near_sqrt(a: &Q, b2: &Q, band: &Q) -> bool {
    let hi = a + band;
    let lo = a - band;
    // sqrt(b2) ∈ [lo, hi]
    !hi.is_neg() && &(&hi * &hi) >= b2 && (!lo.is_pos() || &(&lo * &lo) <= b2)
}

/// Absolute underflow allowance (see `simd-notes.md`): a few products may
/// each lose up to 2^-150.
pub fn eta() -> Q {
    pow2(-140)
}

/// The exact answers for one shape against a plane surface and its half-space,
/// and whether the case is inside the derived ulp band of each.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub surface: bool,
    pub halfspace: bool,
    pub surface_in_band: bool,
    pub halfspace_in_band: bool,
}

/// Band of `fl(n·p - d)` (sum of three products minus `d`, 4 roundings deep).
fn plane_value_band(n: &QV3, p: &QV3, d: &Q) -> Q {
    &(&gamma(4) * &(&abs_dot(n, p) + &d.abs())) + &eta()
}

/// Sphere vs plane: `|s| <= r|n|` and `s <= r|n|`, decided with squares.
pub fn sphere_plane(sphere: &Sphere, plane: &Plane) -> Option<Verdict> {
    if !(finite3(sphere.center)
        && sphere.radius.is_finite()
        && sphere.radius >= 0.0
        && plane_ok(plane))
    {
        return None;
    }
    let n = QV3::f(plane.normal);
    let c = QV3::f(sphere.center);
    let d = Q::f(plane.d);
    let r = Q::f(sphere.radius);
    let s = &n.dot(&c) - &d;
    let reach2 = &(&r * &r) * &n.len2();
    // band: value error + reach error γ4·r·|n| (bounded by r·Σ|n_i|) + underflow of |n|
    let reach_bound = &r * &sum_abs(&n);
    let band = &(&plane_value_band(&n, &c, &d) + &(&gamma(4) * &reach_bound)) + &(&r * &pow2(-73));
    Some(Verdict {
        surface: le_sqrt(&s.abs(), &reach2),
        halfspace: le_sqrt(&s, &reach2),
        surface_in_band: near_sqrt(&s.abs(), &reach2, &band),
        halfspace_in_band: near_sqrt(&s, &reach2, &band),
    })
}

/// The eight corners of a box.
pub fn corners(b: &Aabb) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { b.min.x } else { b.max.x },
                if i & 2 == 0 { b.min.y } else { b.max.y },
                if i & 4 == 0 { b.min.z } else { b.max.z },
            )
        })
        .collect()
}

fn aabb_ok(b: &Aabb) -> bool {
    finite3(b.min)
        && finite3(b.max)
        && b.min.x <= b.max.x
        && b.min.y <= b.max.y
        && b.min.z <= b.max.z
}

/// `(min, band at min, max, band at max)` of `n·x - d` over the box's corners,
/// exact; the band of each is that of evaluating `n·corner - d` in f32.
fn aabb_plane_range(b: &Aabb, plane: &Plane) -> (Q, Q, Q, Q) {
    let n = QV3::f(plane.normal);
    let d = Q::f(plane.d);
    let mut lo: Option<(Q, Q)> = None;
    let mut hi: Option<(Q, Q)> = None;
    for p in corners(b) {
        let q = QV3::f(p);
        let val = &n.dot(&q) - &d;
        let band = plane_value_band(&n, &q, &d);
        // keep the largest band among corners attaining the extreme value
        match &lo {
            Some((v, bd)) if *v < val || (*v == val && *bd >= band) => {}
            _ => lo = Some((val.clone(), band.clone())),
        }
        match &hi {
            Some((v, bd)) if *v > val || (*v == val && *bd >= band) => {}
            _ => hi = Some((val, band)),
        }
    }
    let (lo, lo_band) = lo.unwrap();
    let (hi, hi_band) = hi.unwrap();
    (lo, lo_band, hi, hi_band)
}

/// AABB vs plane: exact min/max of `n·x - d` over all eight corners.
pub fn aabb_plane(b: &Aabb, plane: &Plane) -> Option<Verdict> {
    if !(aabb_ok(b) && plane_ok(plane)) {
        return None;
    }
    let (lo, lo_band, hi, hi_band) = aabb_plane_range(b, plane);
    let lo_near = lo.abs() <= lo_band;
    let hi_near = hi.abs() <= hi_band;
    Some(Verdict {
        surface: !lo.is_pos() && !hi.is_neg(),
        halfspace: !lo.is_pos(),
        surface_in_band: lo_near || hi_near,
        halfspace_in_band: lo_near,
    })
}

/// OBB vs plane: exact `s = n·c - d` and exact support `r = Σ e_i |u_i·n|` of the
/// parallelepiped.
pub fn obb_plane(o: &Obb, plane: &Plane) -> Option<Verdict> {
    let ok = finite3(o.center)
        && o.axes.iter().all(|&a| finite3(a))
        && finite3(o.half)
        && o.half.x >= 0.0
        && o.half.y >= 0.0
        && o.half.z >= 0.0
        && plane_ok(plane);
    if !ok {
        return None;
    }
    let n = QV3::f(plane.normal);
    let c = QV3::f(o.center);
    let d = Q::f(plane.d);
    let e = QV3::f(o.half);
    let mut r = Q::zero();
    let mut r_mag = Q::zero();
    for i in 0..3 {
        let u = QV3::f(o.axes[i]);
        r = &r + &(e.get(i) * &u.dot(&n).abs());
        r_mag = &r_mag + &(e.get(i) * &abs_dot(&u, &n));
    }
    let s = &n.dot(&c) - &d;
    let band = &(&plane_value_band(&n, &c, &d) + &(&gamma(6) * &r_mag)) + &eta();
    Some(Verdict {
        surface: s.abs() <= r,
        halfspace: s <= r,
        surface_in_band: (&s.abs() - &r).abs() <= band,
        halfspace_in_band: (&s - &r).abs() <= band,
    })
}

/// Cone vs plane: the plane value over the cone ranges over
/// `[min(a, b - ρ), max(a, b + ρ)]` with `a` the apex value, `b` the base-center
/// value and `ρ = r·|n × axis| / |axis|` (compared through squares).
pub fn cone_plane(cone: &Cone, plane: &Plane) -> Option<Verdict> {
    let ok = finite3(cone.apex)
        && finite3(cone.axis)
        && cone.height.is_finite()
        && cone.radius.is_finite()
        && cone.height >= 0.0
        && cone.radius >= 0.0
        && cone.axis != Vec3::ZERO
        && plane_ok(plane);
    if !ok {
        return None;
    }
    let n = QV3::f(plane.normal);
    let t = QV3::f(cone.apex);
    let ax = QV3::f(cone.axis);
    let d = Q::f(plane.d);
    let h = Q::f(cone.height);
    let r = Q::f(cone.radius);
    let a = &n.dot(&t) - &d;
    let b = &a + &(&h * &n.dot(&ax));
    let rho2 = &(&(&r * &r) * &n.cross(&ax).len2()) / &ax.len2();
    let neg_b = Q::zero() - b.clone();
    // min <= 0  <=>  a <= 0 or b - ρ <= 0;   max >= 0  <=>  a >= 0 or -b <= ρ
    let low_ok = !a.is_pos() || le_sqrt(&b, &rho2);
    let high_ok = !a.is_neg() || le_sqrt(&neg_b, &rho2);
    let band_a = plane_value_band(&n, &t, &d);
    let mag = &(&(&abs_dot(&n, &t) + &d.abs()) + &(&h * &abs_dot(&n, &ax))) + &(&r * &sum_abs(&n));
    let band_b = &(&ku(16) * &mag) + &eta();
    let a_near = a.abs() <= band_a;
    let b_minus_near = near_sqrt(&b, &rho2, &band_b); // b - ρ near 0
    let b_plus_near = near_sqrt(&neg_b, &rho2, &band_b); // b + ρ near 0
    Some(Verdict {
        surface: low_ok && high_ok,
        halfspace: low_ok,
        surface_in_band: a_near || b_minus_near || b_plus_near,
        halfspace_in_band: a_near || b_minus_near,
    })
}

/// An exact frustum classification and whether some per-plane comparison is
/// inside its ulp band.
#[derive(Clone, Debug, PartialEq)]
pub struct FrustumVerdict {
    pub class: Classification,
    pub in_band: bool,
}

fn frustum_ok(f: &Frustum) -> bool {
    f.planes.iter().all(plane_ok)
}

fn class_of(outside: bool, inside: bool) -> Classification {
    if outside {
        Classification::Outside
    } else if inside {
        Classification::Inside
    } else {
        Classification::Intersecting
    }
}

/// Frustum vs sphere, per plane exactly: outside iff `s > r|n|`, inside iff
/// `s <= -r|n|`.
pub fn frustum_sphere(f: &Frustum, sphere: &Sphere) -> Option<FrustumVerdict> {
    if !(frustum_ok(f)
        && finite3(sphere.center)
        && sphere.radius.is_finite()
        && sphere.radius >= 0.0)
    {
        return None;
    }
    let (mut outside, mut inside, mut in_band) = (false, true, false);
    for p in &f.planes {
        let v = sphere_plane(sphere, p).unwrap();
        let n = QV3::f(p.normal);
        let s = &n.dot(&QV3::f(sphere.center)) - &Q::f(p.d);
        let r = Q::f(sphere.radius);
        let reach2 = &(&r * &r) * &n.len2();
        // strictly outside: s > ρ, i.e. not (s <= ρ); inside: -s >= ρ
        outside |= !v.halfspace;
        let neg_s = Q::zero() - s;
        inside &= !neg_s.is_neg() && (&neg_s * &neg_s) >= reach2;
        in_band |= v.surface_in_band || v.halfspace_in_band;
    }
    Some(FrustumVerdict { class: class_of(outside, inside), in_band })
}

/// Frustum vs AABB, per plane exactly over all eight corners: outside iff
/// `min > 0`, inside iff `max <= 0`.
pub fn frustum_aabb(f: &Frustum, b: &Aabb) -> Option<FrustumVerdict> {
    if !(frustum_ok(f) && aabb_ok(b)) {
        return None;
    }
    let (mut outside, mut inside, mut in_band) = (false, true, false);
    for p in &f.planes {
        let (lo, lo_band, hi, hi_band) = aabb_plane_range(b, p);
        outside |= lo.is_pos();
        inside &= !hi.is_pos();
        in_band |= lo.abs() <= lo_band || hi.abs() <= hi_band;
    }
    Some(FrustumVerdict { class: class_of(outside, inside), in_band })
}

// ---------------------------------------------------------------- k-DOP ----

/// The small exact number types the vertex enumeration runs on.
trait Exact:
    Clone
    + Ord
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
    fn int(i: i64) -> Self;
}
impl Exact for i128 {
    fn int(i: i64) -> Self {
        i as i128
    }
}
impl Exact for Q {
    fn int(i: i64) -> Self {
        Q::int(i)
    }
}

fn icross(a: [i64; 3], b: [i64; 3]) -> [i64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn idot(a: [i64; 3], b: [i64; 3]) -> i64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Whether `{x : lo_i <= a_i·x <= hi_i}` is non-empty, by vertex enumeration:
/// the set is bounded (the coordinate axes are among the `a_i`), so it is
/// non-empty iff one of its vertices — three independent tight constraints —
/// satisfies every constraint. With `x = Σ b_k (r_{k+1} × r_{k+2}) / D`
/// (Cramer, `D > 0`), the test `lo_m <= a_m·x <= hi_m` becomes the integer test
/// `D·lo_m <= Σ b_k a_m·(r_{k+1}×r_{k+2}) <= D·hi_m`. Returns a witness
/// `(rows, bounds)` when feasible.
fn slabs_feasible<T: Exact>(axes: &[[i64; 3]], lo: &[T], hi: &[T]) -> bool {
    let n = axes.len();
    if (0..n).any(|i| lo[i] > hi[i]) {
        return false;
    }
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let rows = [axes[i], axes[j], axes[k]];
                let idx = [i, j, k];
                let mut det = idot(rows[0], icross(rows[1], rows[2]));
                if det == 0 {
                    continue;
                }
                let mut cols =
                    [icross(rows[1], rows[2]), icross(rows[2], rows[0]), icross(rows[0], rows[1])];
                if det < 0 {
                    det = -det;
                    for c in cols.iter_mut() {
                        *c = [-c[0], -c[1], -c[2]];
                    }
                }
                let coef: Vec<[i64; 3]> = axes
                    .iter()
                    .map(|&a| [idot(a, cols[0]), idot(a, cols[1]), idot(a, cols[2])])
                    .collect();
                let dt = T::int(det);
                for choice in 0..8 {
                    let b: Vec<T> = (0..3)
                        .map(|k2| {
                            if choice >> k2 & 1 == 0 {
                                lo[idx[k2]].clone()
                            } else {
                                hi[idx[k2]].clone()
                            }
                        })
                        .collect();
                    let feasible = (0..n).all(|m| {
                        let y = T::int(coef[m][0]) * b[0].clone()
                            + T::int(coef[m][1]) * b[1].clone()
                            + T::int(coef[m][2]) * b[2].clone();
                        dt.clone() * lo[m].clone() <= y && y <= dt.clone() * hi[m].clone()
                    });
                    if feasible {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// `x = m·2^e` exactly.
fn decompose(x: f32) -> (i64, i32) {
    let bits = x.to_bits();
    let sign = if bits >> 31 == 1 { -1 } else { 1 };
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = (bits & 0x7f_ffff) as i64;
    if exp == 0 {
        (sign * frac, -149)
    } else {
        (sign * (frac | 0x80_0000), exp - 150)
    }
}

fn axes_int<const N: usize>() -> Vec<[i64; 3]> {
    Kdop::<N>::AXES.iter().map(|a| [a.x as i64, a.y as i64, a.z as i64]).collect()
}

/// Exact overlap of two k-DOPs (closed sets). `None` for non-finite bounds.
pub fn kdop_overlap<const N: usize>(a: &Kdop<N>, b: &Kdop<N>) -> Option<bool> {
    let all = a.min.iter().chain(&a.max).chain(&b.min).chain(&b.max);
    if !all.clone().all(|x| x.is_finite()) {
        return None;
    }
    let lo: Vec<f32> =
        (0..N).map(|i| if a.min[i] > b.min[i] { a.min[i] } else { b.min[i] }).collect();
    let hi: Vec<f32> =
        (0..N).map(|i| if a.max[i] < b.max[i] { a.max[i] } else { b.max[i] }).collect();
    let axes = axes_int::<N>();
    // integers at a common power-of-two scale when the exponent spread allows
    let parts: Vec<(i64, i32)> = lo.iter().chain(&hi).map(|&x| decompose(x)).collect();
    let emin = parts.iter().filter(|p| p.0 != 0).map(|p| p.1).min().unwrap_or(0);
    let emax = parts.iter().filter(|p| p.0 != 0).map(|p| p.1).max().unwrap_or(0);
    if emax - emin <= 70 {
        let to_int = |p: &(i64, i32)| (p.0 as i128) << (p.1 - emin).max(0);
        let ilo: Vec<i128> = parts[..N].iter().map(to_int).collect();
        let ihi: Vec<i128> = parts[N..].iter().map(to_int).collect();
        Some(slabs_feasible(&axes, &ilo, &ihi))
    } else {
        let qlo: Vec<Q> = lo.iter().map(|&x| Q::f(x)).collect();
        let qhi: Vec<Q> = hi.iter().map(|&x| Q::f(x)).collect();
        Some(slabs_feasible(&axes, &qlo, &qhi))
    }
}

/// The vertices of a (finite, non-empty) k-DOP, exactly: every point where three
/// independent slab planes meet and all constraints hold (duplicates removed).
pub fn kdop_vertices<const N: usize>(k: &Kdop<N>) -> Vec<QV3> {
    let axes = axes_int::<N>();
    let lo: Vec<Q> = k.min.iter().map(|&x| Q::f(x)).collect();
    let hi: Vec<Q> = k.max.iter().map(|&x| Q::f(x)).collect();
    let qa: Vec<QV3> =
        axes.iter().map(|a| QV3::new(Q::int(a[0]), Q::int(a[1]), Q::int(a[2]))).collect();
    let mut out: Vec<QV3> = Vec::new();
    for i in 0..N {
        for j in i + 1..N {
            for l in j + 1..N {
                let rows = [&qa[i], &qa[j], &qa[l]];
                let det = rows[0].dot(&rows[1].cross(rows[2]));
                if det.is_zero() {
                    continue;
                }
                let cols = [rows[1].cross(rows[2]), rows[2].cross(rows[0]), rows[0].cross(rows[1])];
                for choice in 0..8 {
                    let pick = |k2: usize, idx: usize| {
                        if choice >> k2 & 1 == 0 {
                            lo[idx].clone()
                        } else {
                            hi[idx].clone()
                        }
                    };
                    let b = [pick(0, i), pick(1, j), pick(2, l)];
                    let sum =
                        &(&cols[0].scale(&b[0]) + &cols[1].scale(&b[1])) + &cols[2].scale(&b[2]);
                    let x = sum.scale(&(&Q::one() / &det));
                    let ok = (0..N).all(|m| {
                        let y = qa[m].dot(&x);
                        lo[m] <= y && y <= hi[m]
                    });
                    if ok && !out.contains(&x) {
                        out.push(x);
                    }
                }
            }
        }
    }
    out
}

// ------------------------------------------------- filtered fast paths ----
//
// The property runs evaluate 100k cases per predicate; rational arithmetic on
// every case would take minutes. Each `*_fast` reference first evaluates the
// same exact formula in f64 (products of f32 are exact in f64; the remaining
// sums/square roots err by far less than the generous 1e-12 relative allowance
// used here) and answers only when every comparison is decided with that
// margin; otherwise it falls back to the rational reference. So the answers are
// still exact. The band is computed (in `Q`) only where the crate disagrees.

const FILTER: f64 = 1e-12;

/// Exact sign (-1, 0, 1) of `Σ terms` for a few finite f64 terms (each term an
/// exact product of two f32): filtered, then Shewchuk's expansion sum.
pub fn exact_sign(terms: &[f64]) -> i32 {
    let approx: f64 = terms.iter().sum();
    let mag: f64 = terms.iter().map(|t| t.abs()).sum();
    if approx.abs() > 1e-15 * mag {
        return if approx > 0.0 { 1 } else { -1 };
    }
    let mut e: Vec<f64> = Vec::with_capacity(terms.len());
    for &t in terms {
        let mut q = t;
        let mut out = Vec::with_capacity(e.len() + 1);
        for &c in &e {
            let s = q + c;
            let bb = s - q;
            let err = (q - (s - bb)) + (c - bb);
            if err != 0.0 {
                out.push(err);
            }
            q = s;
        }
        if q != 0.0 {
            out.push(q);
        }
        e = out;
    }
    match e.last() {
        Some(&t) if t > 0.0 => 1,
        Some(&t) if t < 0.0 => -1,
        _ => 0,
    }
}

/// Exact sign of `n·x - d` (products of f32 are exact in f64).
pub fn plane_value_sign(p: &Plane, x: Vec3) -> i32 {
    let n = p.normal;
    exact_sign(&[
        n.x as f64 * x.x as f64,
        n.y as f64 * x.y as f64,
        n.z as f64 * x.z as f64,
        -(p.d as f64),
    ])
}

/// `a <= b` when decided with margin `err`, else `None`.
fn le_f(a: f64, b: f64, err: f64) -> Option<bool> {
    if a + err < b {
        Some(true)
    } else if a - err > b {
        Some(false)
    } else {
        None
    }
}

fn dot64(a: Vec3, b: Vec3) -> (f64, f64) {
    let t = [a.x as f64 * b.x as f64, a.y as f64 * b.y as f64, a.z as f64 * b.z as f64];
    (t[0] + t[1] + t[2], t[0].abs() + t[1].abs() + t[2].abs())
}

fn len64(a: Vec3) -> f64 {
    dot64(a, a).0.sqrt()
}

/// Exact `(surface, halfspace)` of sphere vs plane, filtered.
pub fn sphere_plane_fast(sphere: &Sphere, plane: &Plane) -> Option<(bool, bool)> {
    if !(finite3(sphere.center)
        && sphere.radius.is_finite()
        && sphere.radius >= 0.0
        && plane_ok(plane))
    {
        return None;
    }
    let (nc, mag) = dot64(plane.normal, sphere.center);
    let s = nc - plane.d as f64;
    let reach = sphere.radius as f64 * len64(plane.normal);
    let err = FILTER * (mag + (plane.d as f64).abs() + reach) + 1e-300;
    match (le_f(s.abs(), reach, err), le_f(s, reach, err)) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => sphere_plane(sphere, plane).map(|v| (v.surface, v.halfspace)),
    }
}

/// Exact `(surface, halfspace)` of AABB vs plane: exact sign of the plane value
/// at every corner (the box meets the half-space iff some corner is in it, and
/// the plane iff corners of both closed sides exist).
pub fn aabb_plane_fast(b: &Aabb, plane: &Plane) -> Option<(bool, bool)> {
    if !(aabb_ok(b) && plane_ok(plane)) {
        return None;
    }
    let signs: Vec<i32> = corners(b).into_iter().map(|c| plane_value_sign(plane, c)).collect();
    let some_le = signs.iter().any(|&g| g <= 0);
    let some_ge = signs.iter().any(|&g| g >= 0);
    Some((some_le && some_ge, some_le))
}

/// Exact `(surface, halfspace)` of OBB vs plane, filtered.
pub fn obb_plane_fast(o: &Obb, plane: &Plane) -> Option<(bool, bool)> {
    let ok = finite3(o.center)
        && o.axes.iter().all(|&a| finite3(a))
        && finite3(o.half)
        && o.half.x >= 0.0
        && o.half.y >= 0.0
        && o.half.z >= 0.0
        && plane_ok(plane);
    if !ok {
        return None;
    }
    let (nc, mag) = dot64(plane.normal, o.center);
    let s = nc - plane.d as f64;
    let mut r = 0.0;
    let mut rmag = 0.0;
    for i in 0..3 {
        let (u, m) = dot64(o.axes[i], plane.normal);
        r += o.half.get(i) as f64 * u.abs();
        rmag += o.half.get(i) as f64 * m;
    }
    let err = FILTER * (mag + (plane.d as f64).abs() + rmag) + 1e-300;
    match (le_f(s.abs(), r, err), le_f(s, r, err)) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => obb_plane(o, plane).map(|v| (v.surface, v.halfspace)),
    }
}

/// Exact `(surface, halfspace)` of cone vs plane, filtered.
pub fn cone_plane_fast(cone: &Cone, plane: &Plane) -> Option<(bool, bool)> {
    let ok = finite3(cone.apex)
        && finite3(cone.axis)
        && cone.height.is_finite()
        && cone.radius.is_finite()
        && cone.height >= 0.0
        && cone.radius >= 0.0
        && cone.axis != Vec3::ZERO
        && plane_ok(plane);
    if !ok {
        return None;
    }
    let n = plane.normal;
    let ax = cone.axis;
    let (na, amag) = dot64(n, cone.apex);
    let a = na - plane.d as f64;
    let (nax, axmag) = dot64(n, ax);
    let b = a + cone.height as f64 * nax;
    let cr = [
        n.y as f64 * ax.z as f64 - n.z as f64 * ax.y as f64,
        n.z as f64 * ax.x as f64 - n.x as f64 * ax.z as f64,
        n.x as f64 * ax.y as f64 - n.y as f64 * ax.x as f64,
    ];
    let rho =
        cone.radius as f64 * ((cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]).sqrt() / len64(ax));
    let mag = amag
        + (plane.d as f64).abs()
        + cone.height as f64 * axmag
        + cone.radius as f64 * len64(n) * 2.0;
    // the cross product's components carry absolute error ~u·|n||axis|: covered by
    // the generous relative allowance only when that is small against rho, so add it
    let err = FILTER * mag + 1e-300;
    let d =
        (le_f(a, 0.0, err), le_f(b - rho, 0.0, err), le_f(0.0, a, err), le_f(0.0, b + rho, err));
    match d {
        (Some(a_le), Some(bm_le), Some(a_ge), Some(bp_ge)) => {
            let low = a_le || bm_le;
            Some((low && (a_ge || bp_ge), low))
        }
        _ => cone_plane(cone, plane).map(|v| (v.surface, v.halfspace)),
    }
}

/// Exact frustum–sphere class, filtered.
pub fn frustum_sphere_fast(f: &Frustum, sphere: &Sphere) -> Option<Classification> {
    if !(frustum_ok(f)
        && finite3(sphere.center)
        && sphere.radius.is_finite()
        && sphere.radius >= 0.0)
    {
        return None;
    }
    let (mut outside, mut inside) = (false, true);
    for p in &f.planes {
        let (nc, mag) = dot64(p.normal, sphere.center);
        let s = nc - p.d as f64;
        let reach = sphere.radius as f64 * len64(p.normal);
        let err = FILTER * (mag + (p.d as f64).abs() + reach) + 1e-300;
        match (le_f(s, reach, err), le_f(s, -reach, err)) {
            (Some(not_out), Some(ins)) => {
                outside |= !not_out;
                inside &= ins;
            }
            _ => {
                // this plane only, exactly
                let n = QV3::f(p.normal);
                let s = &n.dot(&QV3::f(sphere.center)) - &Q::f(p.d);
                let r = Q::f(sphere.radius);
                let reach2 = &(&r * &r) * &n.len2();
                outside |= !le_sqrt(&s, &reach2);
                let neg_s = Q::zero() - s;
                inside &= !neg_s.is_neg() && neg_s.clone() * neg_s >= reach2;
            }
        }
    }
    Some(class_of(outside, inside))
}

/// Exact frustum–AABB class: per plane, outside iff every corner's exact plane
/// value is `> 0`, inside iff every corner's is `<= 0`.
pub fn frustum_aabb_fast(f: &Frustum, b: &Aabb) -> Option<Classification> {
    if !(frustum_ok(f) && aabb_ok(b)) {
        return None;
    }
    let (mut outside, mut inside) = (false, true);
    let cs = corners(b);
    for p in &f.planes {
        let signs: Vec<i32> = cs.iter().map(|&c| plane_value_sign(p, c)).collect();
        outside |= signs.iter().all(|&g| g > 0);
        inside &= signs.iter().all(|&g| g <= 0);
    }
    Some(class_of(outside, inside))
}
