//! Closest-point family: case tables, exact-reference property tests and the
//! lane-width replay of the lane-generic kernels.
//!
//! Every f32 squared distance `s` is checked against the exact squared
//! distance `D` of the same inputs: `|s - D| <= bound`, with the bounds derived
//! in `simd-notes.md` (functions `*_bound` below; the comparison itself is
//! exact, the bound is evaluated in f64 with a 1 + 2^-40 margin). Predicates
//! may disagree with exact only when `|D - r²|` is inside the band.
use crate::common;

use common::cases::closest::*;
use common::exact::{hulls_intersect, Q, QV3};
use common::lanes;
use common::reference::closest as reference;
use common::rng::{self, Rng};
use common::Tally;
use wide::{f32x16, f32x4, f32x8};
use widephase::closest::*;
use widephase::{
    overlap, Aabb, Lane, LaneMask, Obb, Plane, Rect3, Segment, Sphere, Tetrahedron, Triangle, Vec3,
};

const U: f64 = 1.0 / 16_777_216.0; // 2^-24
/// Absolute term for underflow (a few subnormal roundings, 2^-149 each).
const TINY: f64 = 1e-40;

fn f64q(x: &Q) -> f64 {
    x.to_f64()
}

/// `|s - D| <= bound`, decided exactly for the difference and in f64 (with a
/// tiny margin) for the bound.
fn within(s: f32, exact: &Q, bound: f64) -> bool {
    if !s.is_finite() {
        return false;
    }
    let diff = (Q::f(s) - exact.clone()).abs();
    diff.to_f64() <= bound * (1.0 + 2f64.powi(-40)) + TINY
}

fn err_ulps(s: f32, exact: &Q, scale: f64) -> f64 {
    (Q::f(s) - exact.clone()).abs().to_f64() / (U * scale.max(f64::MIN_POSITIVE))
}

fn maxabs(pts: &[Vec3]) -> f64 {
    pts.iter().flat_map(|p| [p.x, p.y, p.z]).map(|x| (x as f64).abs()).fold(0.0, f64::max)
}

fn d64(a: Vec3, b: Vec3) -> f64 {
    let (x, y, z) =
        ((a.x as f64 - b.x as f64), (a.y as f64 - b.y as f64), (a.z as f64 - b.z as f64));
    (x * x + y * y + z * z).sqrt()
}

// ---------------------------------------------------------------- bounds

/// Point–triangle (notes: "point–triangle"). First-order term: the rounding
/// of the returned point (`ρ = 14uM`) and of the final `|q - p|²`. Conditioning
/// term: a Voronoi test or a face weight off by its rounding error moves the
/// point within the plane by at most `η = (260u·L³P² + 2^-144·L²P) / |n|²`
/// (`L` longest edge, `P` farthest vertex from `p`, `n = ab × ac`; the second
/// part is the underflow of the degree-2 dot products, absolute error
/// 2^-150 each), capped at `L` (the
/// point stays in the triangle up to `ρ`); it costs `η² + 2η√D`.
/// Returns `(bound, conditioning term)`.
fn tri_bound(p: Vec3, t: &Triangle, d: f64) -> (f64, f64) {
    let m = maxabs(&[p, t.a, t.b, t.c]);
    let sd = d.sqrt();
    let l = d64(t.a, t.b).max(d64(t.b, t.c)).max(d64(t.c, t.a));
    let pm = d64(p, t.a).max(d64(p, t.b)).max(d64(p, t.c));
    let n2 = QV3::f(t.b - t.a).cross(&QV3::f(t.c - t.a)).len2().to_f64();
    let eta = if n2 > 0.0 {
        ((260.0 * U * l * l * l * pm * pm + 2f64.powi(-144) * l * l * pm) / n2).min(l)
    } else {
        0.0 // exactly degenerate: the clamped-edge fallback is exact up to ρ
    };
    let cond = eta * eta + 2.0 * eta * sd;
    let rho = 14.0 * U * m;
    let x = rho + eta;
    (2.0 * x * sd + x * x + 6.0 * U * (sd + x) * (sd + x), cond)
}

// ---------------------------------------------------------------- generators

fn scale_exp(r: &mut Rng) -> i32 {
    // mostly unit scale; sometimes tiny or large (within COORD_LIMIT)
    match r.u32(0..8) {
        0 => r.i32(-40..=-10),
        1 => r.i32(10..=30),
        _ => 0,
    }
}

fn gen_point(r: &mut Rng, kind: u32) -> Vec3 {
    match kind {
        0 => rng::point(r, -2.0, 2.0),
        _ => rng::grid_point(r, 4, 1),
    }
}

fn gen_triangle(r: &mut Rng, kind: u32) -> Triangle {
    Triangle::new(gen_point(r, kind), gen_point(r, kind), gen_point(r, kind))
}

fn scale_tri(t: &Triangle, e: i32) -> Triangle {
    Triangle::new(rng::scale_pow2(t.a, e), rng::scale_pow2(t.b, e), rng::scale_pow2(t.c, e))
}

/// A point near the triangle: a random point of it (barycentric) pushed out a
/// little, so Voronoi boundaries and contact are common.
fn near_point(r: &mut Rng, t: &Triangle) -> Vec3 {
    let (mut u, mut v) = (r.f32(), r.f32());
    if u + v > 1.0 {
        u = 1.0 - u;
        v = 1.0 - v;
    }
    let q = t.a + (t.b - t.a) * u + (t.c - t.a) * v;
    let off = match r.u32(0..3) {
        0 => Vec3::ZERO,
        1 => rng::point(r, -1e-3, 1e-3),
        _ => rng::point(r, -0.5, 0.5),
    };
    q + off
}

// ---------------------------------------------------------------- point–triangle

fn check_point_triangle(p: Vec3, t: &Triangle, ex: &reference::QPoint, worst: &mut f64) -> bool {
    let got = closest_point_triangle(p, t);
    let s = (got.point - p).length_squared();
    let s2 = sq_dist_point_triangle(p, t);
    assert_eq!(s.to_bits(), s2.to_bits());
    let d = f64q(&ex.sq);
    let (b, cond) = tri_bound(p, t, d);
    let m = maxabs(&[p, t.a, t.b, t.c]);
    let scale = m * d.sqrt() + d;
    if scale > 0.0 && cond <= U * scale {
        *worst = worst.max(err_ulps(s, &ex.sq, scale));
    }
    // barycentrics are weights in [0, 1] and the region code is a region
    assert!(TriangleRegion::from_code(got.region).is_some(), "region {:?}", got.region);
    for w in [got.bary.x, got.bary.y, got.bary.z] {
        assert!((0.0..=1.0).contains(&w), "weight {w} for {p:?} {t:?}");
    }
    within(s, &ex.sq, b)
}

#[test]
fn point_triangle_table() {
    for c in point_triangle_cases() {
        let got = closest_point_triangle(c.p, &c.tri);
        match c.expect {
            Expect::Nan => {
                assert!(got.point.x.is_nan() && got.region.is_nan(), "{}", c.label);
                assert!(sq_dist_point_triangle(c.p, &c.tri).is_nan(), "{}", c.label);
            }
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::point_triangle(c.p, &c.tri);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.sq.to_f64(), x, "table row disagrees with exact: {}", c.label);
                }
                let mut w = 0.0;
                assert!(
                    check_point_triangle(c.p, &c.tri, &ex, &mut w),
                    "{}: got {:?}, exact {}",
                    c.label,
                    got,
                    ex.sq.to_f64()
                );
            }
        }
    }
}

/// The exact reference itself: zero distance ⇔ the point is in the hull of
/// the triangle, by the axis-free `hulls_intersect` (grid cases, where touching
/// is common).
#[test]
fn point_triangle_reference_agrees_with_hull_test() {
    let mut r = rng::rng(17);
    let mut zeros = 0;
    for i in 0..3000 {
        let t = gen_triangle(&mut r, 1);
        let p = if i % 2 == 0 { rng::grid_point(&mut r, 4, 1) } else { near_point(&mut r, &t) };
        let ex = reference::point_triangle(p, &t);
        let inside = hulls_intersect(&t.vertices(), &[p]);
        assert_eq!(ex.sq.is_zero(), inside, "p={p:?} t={t:?}");
        zeros += inside as usize;
        // the exact closest point is a point of the triangle at that distance
        let c = [QV3::f(t.a), QV3::f(t.b), QV3::f(t.c)];
        let shifted: Vec<QV3> = c.iter().map(|v| v - &ex.point).collect();
        assert!(common::exact::origin_in_hull(&shifted), "reference point not in the triangle");
    }
    assert!(zeros > 100, "too few touching cases: {zeros}");
}

// ---------------------------------------------------------------- sphere–triangle

fn sphere_triangle_band(s: &Sphere, t: &Triangle, d: f64) -> f64 {
    let r2 = s.radius as f64 * s.radius as f64;
    tri_bound(s.center, t, d.max(r2)).0 + 2.0 * U * r2
}

/// Checks one sphere–triangle answer against exact `D <= r²`; returns
/// (exact hit, disagreed, disagreement inside band).
fn judge_sphere_triangle(s: &Sphere, t: &Triangle, d: &Q) -> (bool, bool, bool) {
    let got = overlap::sphere_triangle(s, t);
    let d = d.clone();
    let r2 = Q::f(s.radius) * Q::f(s.radius);
    let exact = d <= r2;
    if got == exact {
        return (exact, false, true);
    }
    let gap = (d.clone() - r2).abs().to_f64();
    let band = sphere_triangle_band(s, t, d.to_f64());
    (exact, true, gap <= band)
}

#[test]
fn sphere_triangle_table() {
    for c in sphere_triangle_cases() {
        let got = overlap::sphere_triangle(&c.sphere, &c.tri);
        assert_eq!(got, overlap::triangle_sphere(&c.tri, &c.sphere), "{}", c.label);
        let Some(hit) = c.hit else { continue };
        let finite = c.sphere.is_valid() && c.tri.is_valid();
        if finite {
            // the table's expectation is the exact answer
            let d = reference::point_triangle(c.sphere.center, &c.tri).sq;
            assert_eq!(
                d <= Q::f(c.sphere.radius) * Q::f(c.sphere.radius),
                hit,
                "table row: {}",
                c.label
            );
            let (_, disagree, in_band) = judge_sphere_triangle(&c.sphere, &c.tri, &d);
            assert!(!disagree || in_band, "{}: out of band", c.label);
        } else {
            assert_eq!(got, hit, "{}", c.label);
        }
    }
}

/// One loop for both triangle queries (the exact reference is computed once):
/// `sq_dist_point_triangle` within its bound, and `sphere_triangle` against
/// exact `D <= r²` with a radius that is random or the exact distance nudged
/// by a few ulps (so contact is common).
#[test]
fn point_and_sphere_triangle_exact_property() {
    let mut r = rng::rng(0x5be7e);
    let n = rng::cases();
    let (mut pt, mut st) = (Tally::default(), Tally::default());
    let mut worst = 0.0f64;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let t = gen_triangle(&mut r, kind);
        let c = if i % 3 == 0 { gen_point(&mut r, kind) } else { near_point(&mut r, &t) };
        let e = scale_exp(&mut r);
        let (t, c) = (scale_tri(&t, e), rng::scale_pow2(c, e));
        let ex = reference::point_triangle(c, &t);
        pt.cases += 1;
        pt.exact_hits += ex.sq.is_zero() as usize;
        if !check_point_triangle(c, &t, &ex, &mut worst) {
            pt.default_out_of_band += 1;
            eprintln!("out of bound: p={c:?} t={t:?}");
        }
        // radius: random, or the exact distance rounded and nudged a few ulps
        let d = ex.sq.to_f64().sqrt() as f32;
        let radius = match r.u32(0..3) {
            0 => rng::uniform(&mut r, 0.0, 2.0) * 2f32.powi(e),
            _ => rng::nudge(d, r.i32(-3..=3)).max(0.0),
        };
        let s = Sphere::new(c, radius);
        let (exact, disagree, in_band) = judge_sphere_triangle(&s, &t, &ex.sq);
        st.cases += 1;
        st.exact_hits += exact as usize;
        if disagree {
            if in_band {
                st.default_in_band += 1;
            } else {
                st.default_out_of_band += 1;
                eprintln!("out of band: {s:?} {t:?}");
            }
        }
    }
    pt.report("sq_dist_point_triangle");
    eprintln!("point_triangle worst error (well-conditioned cases): {worst:.2} u·(M·√D + D)");
    st.report("sphere_triangle");
    assert_eq!(pt.default_out_of_band, 0);
    assert_eq!(st.default_out_of_band, 0);
    assert!(pt.exact_hits > n / 50, "too few touching point–triangle cases");
    let rate = st.exact_hits as f64 / n as f64;
    assert!((0.2..0.8).contains(&rate), "hit rate {rate}");
}

// ---------------------------------------------------------------- lane replay

fn replay_point_triangle<L: Lane>(ps: &[Vec3], tris: &[Triangle]) {
    let n = ps.len();
    for i in 0..n {
        let want = closest_point_triangle(ps[i], &tris[i]);
        for pos in 0..L::WIDTH {
            let idx = lanes::placement::<L>(n, i, pos);
            let p = lanes::gather_v3::<L, Vec3>(ps, &idx, |v| *v);
            let tri = Triangle::<L> {
                a: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.a),
                b: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.b),
                c: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.c),
            };
            let got = closest_point_triangle(p, &tri);
            let bits = |v: Vec3| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
            assert_eq!(bits(got.point.lane(pos)), bits(want.point), "point, case {i} lane {pos}");
            assert_eq!(bits(got.bary.lane(pos)), bits(want.bary), "bary, case {i} lane {pos}");
            assert_eq!(got.region.lane(pos).to_bits(), want.region.to_bits(), "region, case {i}");
            let sq = sq_dist_point_triangle(p, &tri);
            assert_eq!(sq.lane(pos).to_bits(), sq_dist_point_triangle(ps[i], &tris[i]).to_bits());
        }
    }
}

fn replay_sphere_triangle<L: Lane>(spheres: &[Sphere], tris: &[Triangle]) {
    let n = spheres.len();
    for i in 0..n {
        let want = overlap::sphere_triangle(&spheres[i], &tris[i]);
        for pos in 0..L::WIDTH {
            let idx = lanes::placement::<L>(n, i, pos);
            let s = Sphere::<L> {
                center: lanes::gather_v3::<L, Sphere>(spheres, &idx, |s| s.center),
                radius: lanes::gather_f::<L, Sphere>(spheres, &idx, |s| s.radius),
            };
            let tri = Triangle::<L> {
                a: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.a),
                b: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.b),
                c: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.c),
            };
            let m = overlap::sphere_triangle(&s, &tri);
            let bits = m.bits();
            assert_eq!((bits >> pos) & 1 == 1, want, "case {i} lane {pos}");
            // every other lane answers its own case
            for (j, &k) in idx.iter().enumerate() {
                assert_eq!((bits >> j) & 1 == 1, overlap::sphere_triangle(&spheres[k], &tris[k]));
            }
            assert_eq!(overlap::triangle_sphere(&tri, &s).bits(), bits);
        }
    }
}

fn lane_inputs() -> (Vec<Vec3>, Vec<Triangle>, Vec<Sphere>) {
    let mut ps = Vec::new();
    let mut tris = Vec::new();
    let mut spheres = Vec::new();
    for c in point_triangle_cases() {
        ps.push(c.p);
        tris.push(c.tri);
        spheres.push(Sphere::new(c.p, 1.0));
    }
    for c in sphere_triangle_cases() {
        ps.push(c.sphere.center);
        tris.push(c.tri);
        spheres.push(c.sphere);
    }
    let mut r = rng::rng(99);
    for i in 0..1500 {
        let t = gen_triangle(&mut r, (i % 2) as u32);
        let p = near_point(&mut r, &t);
        let rad = rng::uniform(&mut r, 0.0, 0.6);
        ps.push(p);
        tris.push(t);
        spheres.push(Sphere::new(p, rad));
    }
    (ps, tris, spheres)
}

#[test]
fn point_triangle_lanes_bit_identical() {
    let (ps, tris, _) = lane_inputs();
    replay_point_triangle::<f32x4>(&ps, &tris);
    replay_point_triangle::<f32x8>(&ps, &tris);
    replay_point_triangle::<f32x16>(&ps, &tris);
}

#[test]
fn sphere_triangle_lanes_bit_identical() {
    let (_, tris, spheres) = lane_inputs();
    replay_sphere_triangle::<f32x4>(&spheres, &tris);
    replay_sphere_triangle::<f32x8>(&spheres, &tris);
    replay_sphere_triangle::<f32x16>(&spheres, &tris);
}

// ---------------------------------------------------------------- point–AABB

fn gen_aabb(r: &mut Rng, kind: u32) -> Aabb {
    let (a, b) = (gen_point(r, kind), gen_point(r, kind));
    Aabb::new(a.min(b), a.max(b))
}

#[test]
fn point_aabb_table() {
    for c in point_aabb_cases() {
        let q = closest_point_aabb(c.p, &c.aabb);
        let s = sq_dist_point_aabb(c.p, &c.aabb);
        match c.expect {
            Expect::Nan => assert!(q.x.is_nan() && s.is_nan(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::point_aabb(c.p, &c.aabb);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.sq.to_f64(), x, "table row: {}", c.label);
                }
                assert_eq!(QV3::f(q), ex.point, "{}", c.label);
                assert!(within(s, &ex.sq, 6.0 * U * ex.sq.to_f64()), "{}", c.label);
            }
        }
    }
}

#[test]
fn point_aabb_exact_property() {
    let mut r = rng::rng(3);
    let mut tally = Tally::default();
    let mut worst = 0.0f64;
    for i in 0..rng::cases() {
        let kind = (i % 2) as u32;
        let e = scale_exp(&mut r);
        let b = gen_aabb(&mut r, kind);
        let b = Aabb::new(rng::scale_pow2(b.min, e), rng::scale_pow2(b.max, e));
        let p = rng::scale_pow2(gen_point(&mut r, kind), e);
        let ex = reference::point_aabb(p, &b);
        let q = closest_point_aabb(p, &b);
        let s = sq_dist_point_aabb(p, &b);
        tally.cases += 1;
        tally.exact_hits += ex.sq.is_zero() as usize;
        assert_eq!(QV3::f(q), ex.point, "the clamp is exact");
        let d = ex.sq.to_f64();
        if d > 0.0 {
            worst = worst.max(err_ulps(s, &ex.sq, d));
        }
        if !within(s, &ex.sq, 6.0 * U * d) {
            tally.default_out_of_band += 1;
        }
    }
    tally.report("sq_dist_point_aabb");
    eprintln!("sq_dist_point_aabb worst error: {worst:.2} u·D");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > tally.cases / 20);
}

// ---------------------------------------------------------------- point–OBB / rect

/// Notes "point–OBB": with `A_i = Σ_j |p_j - c_j||u_ij|` and the exact
/// excess `e_i`, `|s - D| <= 16u Σ (A_i + |e_i|)²`.
fn obb_sq_bound(p: Vec3, b: &Obb, excess: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for (u, ex) in b.axes.iter().zip(excess) {
        let a = (p.x as f64 - b.center.x as f64).abs() * (u.x as f64).abs()
            + (p.y as f64 - b.center.y as f64).abs() * (u.y as f64).abs()
            + (p.z as f64 - b.center.z as f64).abs() * (u.z as f64).abs();
        s += (a + ex.abs()).powi(2);
    }
    16.0 * U * s
}

fn obb_excess(p: Vec3, b: &Obb) -> [f64; 3] {
    let v = &QV3::f(p) - &QV3::f(b.center);
    core::array::from_fn(|i| {
        let d = v.dot(&QV3::f(b.axes[i]));
        let e = Q::f(b.half.get(i));
        if d > e {
            (d - e).to_f64()
        } else if d < -e.clone() {
            (d + e).to_f64()
        } else {
            0.0
        }
    })
}

fn random_axes(r: &mut Rng) -> [Vec3; 3] {
    if r.bool() {
        // a signed permutation: exactly orthonormal
        let mut ax = [Vec3::X, Vec3::Y, Vec3::Z];
        r.shuffle(&mut ax);
        ax.map(|a| if r.bool() { -a } else { a })
    } else {
        // a rotation from a random unit quaternion, rounded to f32
        rng::rotation(r)
    }
}

fn gen_obb(r: &mut Rng, kind: u32) -> Obb {
    let h = gen_point(r, kind).abs();
    Obb::new(gen_point(r, kind), random_axes(r), h)
}

#[test]
fn point_obb_table() {
    for c in point_obb_cases() {
        let s = sq_dist_point_obb(c.p, &c.obb);
        let q = closest_point_obb(c.p, &c.obb);
        match c.expect {
            Expect::Nan => assert!(q.x.is_nan() && s.is_nan(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::point_obb_sq(c.p, &c.obb);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.to_f64(), x, "table row: {}", c.label);
                    // permutation axes: the point is exact too
                    assert_eq!(QV3::f(q), reference::point_obb_point(c.p, &c.obb), "{}", c.label);
                }
                let b = obb_sq_bound(c.p, &c.obb, obb_excess(c.p, &c.obb));
                assert!(within(s, &ex, b), "{}: {s} vs {}", c.label, ex.to_f64());
            }
        }
    }
}

#[test]
fn point_obb_exact_property() {
    let mut r = rng::rng(4);
    let mut tally = Tally::default();
    for i in 0..rng::cases() / 2 {
        let kind = (i % 2) as u32;
        let b = gen_obb(&mut r, kind);
        let p = gen_point(&mut r, kind);
        let ex = reference::point_obb_sq(p, &b);
        let s = sq_dist_point_obb(p, &b);
        tally.cases += 1;
        tally.exact_hits += ex.is_zero() as usize;
        if !within(s, &ex, obb_sq_bound(p, &b, obb_excess(p, &b))) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {p:?} {b:?}");
        }
    }
    tally.report("sq_dist_point_obb");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > tally.cases / 50);
}

/// Notes "point–rectangle": `16u·Σ (A_k + |e_k|)²` over the three directions
/// `u`, `v` and `n = u × v` (for `n`, `A` also carries the cross product's
/// rounding).
fn rect_sq_bound(p: Vec3, rc: &Rect3, ex: &[f64; 3]) -> f64 {
    let d = [
        p.x as f64 - rc.center.x as f64,
        p.y as f64 - rc.center.y as f64,
        p.z as f64 - rc.center.z as f64,
    ];
    let u = [rc.u.x as f64, rc.u.y as f64, rc.u.z as f64];
    let v = [rc.v.x as f64, rc.v.y as f64, rc.v.z as f64];
    let a_u: f64 = (0..3).map(|j| d[j].abs() * u[j].abs()).sum();
    let a_v: f64 = (0..3).map(|j| d[j].abs() * v[j].abs()).sum();
    let a_n: f64 = (0..3)
        .map(|j| {
            d[j].abs()
                * ((u[(j + 1) % 3] * v[(j + 2) % 3]).abs()
                    + (u[(j + 2) % 3] * v[(j + 1) % 3]).abs())
        })
        .sum();
    16.0 * U
        * ((a_u + ex[0].abs()).powi(2)
            + (a_v + ex[1].abs()).powi(2)
            + (2.0 * a_n + ex[2].abs()).powi(2))
}

fn rect_terms(p: Vec3, rc: &Rect3) -> [f64; 3] {
    let d = &QV3::f(p) - &QV3::f(rc.center);
    let ex = |x: Q, e: Q| {
        if x > e {
            (x - e).to_f64()
        } else if x < -e.clone() {
            (x + e).to_f64()
        } else {
            0.0
        }
    };
    let (u, v) = (QV3::f(rc.u), QV3::f(rc.v));
    [ex(d.dot(&u), Q::f(rc.half_u)), ex(d.dot(&v), Q::f(rc.half_v)), d.dot(&u.cross(&v)).to_f64()]
}

#[test]
fn point_rect_table() {
    for c in point_rect_cases() {
        let s = sq_dist_point_rect(c.p, &c.rect);
        let q = closest_point_rect(c.p, &c.rect);
        match c.expect {
            Expect::Nan => assert!(q.x.is_nan() && s.is_nan(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::point_rect_sq(c.p, &c.rect);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.to_f64(), x, "table row: {}", c.label);
                    assert_eq!(s as f64, x, "{}", c.label);
                    assert_eq!((q - c.p).length_squared() as f64, x, "{}", c.label);
                }
                assert!(
                    within(s, &ex, rect_sq_bound(c.p, &c.rect, &rect_terms(c.p, &c.rect))),
                    "{}",
                    c.label
                );
            }
        }
    }
}

#[test]
fn point_rect_exact_property() {
    let mut r = rng::rng(5);
    let mut tally = Tally::default();
    for i in 0..rng::cases() / 2 {
        let kind = (i % 2) as u32;
        let ax = random_axes(&mut r);
        let h = gen_point(&mut r, kind).abs();
        let rc =
            Rect3 { center: gen_point(&mut r, kind), u: ax[0], v: ax[1], half_u: h.x, half_v: h.y };
        let p = gen_point(&mut r, kind);
        let ex = reference::point_rect_sq(p, &rc);
        let s = sq_dist_point_rect(p, &rc);
        tally.cases += 1;
        tally.exact_hits += ex.is_zero() as usize;
        if !within(s, &ex, rect_sq_bound(p, &rc, &rect_terms(p, &rc))) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {p:?} {rc:?}");
        }
    }
    tally.report("sq_dist_point_rect");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > 0);
}

// ---------------------------------------------------------------- sphere–OBB

/// Notes "sphere–OBB": the returned point is within `ρ = 15u·R` of the
/// formula's exact point (`R = Σ_i (2A_i + half_i) + max|c|`), so
/// `| |q - c|² - D | <= 2ρ√D + ρ² + 6u(√D + ρ)²`; plus `2u·r²` for `r*r`.
fn sphere_obb_band(s: &Sphere, b: &Obb, d: f64) -> f64 {
    let p = s.center;
    let mut rr = maxabs(&[b.center]);
    for i in 0..3 {
        let u = b.axes[i];
        let a = (p.x as f64 - b.center.x as f64).abs() * (u.x as f64).abs()
            + (p.y as f64 - b.center.y as f64).abs() * (u.y as f64).abs()
            + (p.z as f64 - b.center.z as f64).abs() * (u.z as f64).abs();
        rr += 2.0 * a + b.half.get(i) as f64;
    }
    let r2 = s.radius as f64 * s.radius as f64;
    let sd = d.max(r2).sqrt();
    let rho = 15.0 * U * rr;
    2.0 * rho * sd + rho * rho + 6.0 * U * (sd + rho).powi(2) + 2.0 * U * r2
}

fn judge_sphere_obb(s: &Sphere, b: &Obb) -> (bool, bool, bool) {
    let got = overlap::sphere_obb(s, b);
    assert_eq!(got, overlap::sphere_obb_contact(s, b).is_some());
    let q = reference::point_obb_point(s.center, b);
    let d = (&q - &QV3::f(s.center)).len2();
    let r2 = Q::f(s.radius) * Q::f(s.radius);
    let exact = d <= r2;
    if got == exact {
        return (exact, false, true);
    }
    let gap = (d.clone() - r2).abs().to_f64();
    (exact, true, gap <= sphere_obb_band(s, b, d.to_f64()))
}

#[test]
fn sphere_obb_table() {
    for c in sphere_obb_cases() {
        let got = overlap::sphere_obb(&c.sphere, &c.obb);
        let Some(hit) = c.hit else { continue };
        let valid = c.sphere.is_valid() && c.obb.half.min_element() >= 0.0;
        if valid {
            let q = reference::point_obb_point(c.sphere.center, &c.obb);
            let d = (&q - &QV3::f(c.sphere.center)).len2();
            assert_eq!(
                d <= Q::f(c.sphere.radius) * Q::f(c.sphere.radius),
                hit,
                "table row: {}",
                c.label
            );
            let (_, dis, ok) = judge_sphere_obb(&c.sphere, &c.obb);
            assert!(!dis || ok, "{}", c.label);
        } else {
            assert_eq!(got, hit, "{}", c.label);
        }
    }
}

#[test]
fn sphere_obb_exact_property() {
    let mut r = rng::rng(6);
    let mut tally = Tally::default();
    let n = rng::cases() / 2;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let b = gen_obb(&mut r, kind);
        let c = gen_point(&mut r, kind);
        let q = reference::point_obb_point(c, &b);
        let d = (&q - &QV3::f(c)).len2().to_f64().sqrt() as f32;
        let radius = match r.u32(0..3) {
            0 => rng::uniform(&mut r, 0.0, 2.0),
            _ => rng::nudge(d, r.i32(-3..=3)).max(0.0),
        };
        let s = Sphere::new(c, radius);
        let (exact, dis, ok) = judge_sphere_obb(&s, &b);
        tally.cases += 1;
        tally.exact_hits += exact as usize;
        if dis {
            if ok {
                tally.default_in_band += 1;
            } else {
                tally.default_out_of_band += 1;
                eprintln!("out of band: {s:?} {b:?}");
            }
        }
    }
    tally.report("sphere_obb");
    assert_eq!(tally.default_out_of_band, 0);
    let rate = tally.exact_hits as f64 / n as f64;
    assert!((0.2..0.9).contains(&rate), "hit rate {rate}");
}

// ---------------------------------------------------------------- pairs

/// First-order part shared by the pair queries (notes "pairs"): each returned
/// point is within `9√3·u·M` of an exact point of its shape, so the difference
/// within `ρ = 18√3·u·M`... rounded up to `32uM`; then `2ρ√D + ρ² + 6u(√D+ρ)²`.
fn pair_first_order(m: f64, d: f64) -> f64 {
    let sd = d.sqrt();
    let rho = 32.0 * U * m;
    2.0 * rho * sd + rho * rho + 6.0 * U * (sd + rho).powi(2)
}

/// Conditioning of the segment–segment solve (notes "segment–segment"):
/// `s` is off by at most `δs = (28u·√a·e·R + 28u·a·e)/den + u` (clamped to 1), which
/// raises the distance by `δs²·den/e`; the re-projections add `(8u(R+√a+√e))²`.
fn seg_seg_cond(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> f64 {
    let (d1, d2) = (&QV3::f(q1) - &QV3::f(p1), &QV3::f(q2) - &QV3::f(p2));
    let a = d1.len2().to_f64();
    let e = d2.len2().to_f64();
    let den = d1.cross(&d2).len2().to_f64();
    let rr = d64(p1, p2) + a.sqrt() + e.sqrt();
    let second = (8.0 * U * rr).powi(2);
    if a == 0.0 || e == 0.0 || den == 0.0 {
        return second;
    }
    let ds = ((28.0 * U * a.sqrt() * e * rr + 28.0 * U * a * e) / den + U).min(1.0);
    let ds2 = ((28.0 * U * e.sqrt() * a * rr + 28.0 * U * a * e) / den + U).min(1.0);
    (ds * ds).max(ds2 * ds2) * den / a.min(e) + second
}

fn check_pair(label: &str, got: &ClosestPair, exact: &Q, m: f64, cond: f64) -> bool {
    assert_eq!(
        got.sq_dist.to_bits(),
        (got.point1 - got.point2).length_squared().to_bits(),
        "{label}"
    );
    let d = exact.to_f64();
    let sd = d.sqrt();
    within(got.sq_dist, exact, pair_first_order(m, d) + cond + 2.0 * cond.sqrt() * sd)
}

fn gen_segment(r: &mut Rng, kind: u32) -> Segment {
    let a = gen_point(r, kind);
    let b = match r.u32(0..8) {
        0 => a, // zero length
        _ => gen_point(r, kind),
    };
    Segment::new(a, b)
}

#[test]
fn segment_segment_table() {
    for c in segment_segment_cases() {
        let got = closest_points_segment_segment(&c.s1, &c.s2);
        match c.expect {
            Expect::Nan => assert!(
                got.sq_dist.is_nan() && got.s.is_nan() && got.point1.x.is_nan(),
                "{}",
                c.label
            ),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::segment_segment(&c.s1, &c.s2);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.sq.to_f64(), x, "table row: {}", c.label);
                }
                assert!(
                    (0.0..=1.0).contains(&got.s) && (0.0..=1.0).contains(&got.t),
                    "{}",
                    c.label
                );
                let m = maxabs(&[c.s1.a, c.s1.b, c.s2.a, c.s2.b]);
                let cond = seg_seg_cond(c.s1.a, c.s1.b, c.s2.a, c.s2.b);
                assert!(
                    check_pair(c.label, &got, &ex.sq, m, cond),
                    "{}: {got:?} exact {}",
                    c.label,
                    ex.sq.to_f64()
                );
            }
        }
    }
    // parallel: deterministic s = 0 start (the smallest s among the minimisers)
    let x = Segment::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0));
    let y = Segment::new(Vec3::new(0.0, 1.0, 0.0), Vec3::new(5.0, 1.0, 0.0));
    let r = closest_points_segment_segment(&x, &y);
    // s = 0 projects before y's start: t clamps to 0 and s re-projects y.a
    assert_eq!((r.s, r.t, r.sq_dist), (0.5, 0.0, 1.0));
}

#[test]
fn segment_segment_exact_property() {
    let mut r = rng::rng(7);
    let mut tally = Tally::default();
    let n = rng::cases() / 2;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let e = scale_exp(&mut r);
        let sc = |s: Segment| Segment::new(rng::scale_pow2(s.a, e), rng::scale_pow2(s.b, e));
        let s1 = sc(gen_segment(&mut r, kind));
        let mut s2 = sc(gen_segment(&mut r, kind));
        if i % 7 == 0 {
            // touching: s2 starts at the midpoint of s1 (exact on the grid)
            s2.a = s1.a + (s1.b - s1.a) * 0.5;
        } else if i % 5 == 0 {
            // parallel (exactly, on the grid) or nearly parallel
            let d = s1.b - s1.a;
            s2.b = s2.a + d * 0.5;
            if i % 10 == 0 {
                s2.b.x = rng::nudge(s2.b.x, 1);
            }
        }
        let got = closest_points_segment_segment(&s1, &s2);
        let ex = reference::segment_segment(&s1, &s2);
        tally.cases += 1;
        tally.exact_hits += ex.sq.is_zero() as usize;
        assert!((0.0..=1.0).contains(&got.s) && (0.0..=1.0).contains(&got.t));
        let m = maxabs(&[s1.a, s1.b, s2.a, s2.b]);
        if !check_pair("", &got, &ex.sq, m, seg_seg_cond(s1.a, s1.b, s2.a, s2.b)) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {s1:?} {s2:?} got {got:?} exact {}", ex.sq.to_f64());
        }
    }
    tally.report("closest_points_segment_segment");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > n / 100, "too few touching cases");
}

/// Line–line: as segment–segment without the clamps; and when `a·e - b²`
/// rounds to `<= 0` for lines that are not exactly parallel, the parallel
/// answer (`s = 0`) may be off by up to `|r|²` (notes "line–line").
fn line_line_cond(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> f64 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    // the kernel's own f32 evaluation of a·e - b² (scaled by 1/max)
    let (a, e, b, c, f) = (d1.dot(d1), d2.dot(d2), d1.dot(d2), d1.dot(r), d2.dot(r));
    let big = a.max(e).max(b.abs()).max(c.abs()).max(f.abs());
    let k = f32::from_bits((254 - ((big.to_bits() >> 23) & 0xff).clamp(1, 253)) << 23);
    let den_f32 = (a * k) * (e * k) - (b * k) * (b * k);
    let (qd1, qd2) = (&QV3::f(q1) - &QV3::f(p1), &QV3::f(q2) - &QV3::f(p2));
    let den = qd1.cross(&qd2).len2().to_f64();
    let rr = r.length() as f64;
    if den > 0.0 && (den_f32.is_nan() || den_f32 <= 0.0) {
        // the parallel answer projects p1 on L2: |r|² plus the rounding of
        // the projected point (32u·M, M the largest input coordinate)
        let m = maxabs(&[p1, q1, p2, q2]);
        return (rr + 32.0 * U * m).powi(2);
    }
    let (a, e) = (qd1.len2().to_f64(), qd2.len2().to_f64());
    if a == 0.0 || e == 0.0 || den == 0.0 {
        return (8.0 * U * rr).powi(2);
    }
    let rr = rr + a.sqrt() + e.sqrt();
    let ds = (28.0 * U * a.sqrt() * e * rr + 28.0 * U * a * e) / den + U;
    let dt = (28.0 * U * e.sqrt() * a * rr + 28.0 * U * a * e) / den + U;
    (ds * ds * a).max(dt * dt * e) * 4.0 + (8.0 * U * rr).powi(2)
}

#[test]
fn line_line_table_and_property() {
    for c in line_line_cases() {
        let got = closest_points_line_line(c.p1, c.q1, c.p2, c.q2);
        match c.expect {
            Expect::Nan => assert!(got.sq_dist.is_nan() && got.t.is_nan(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::line_line_sq(c.p1, c.q1, c.p2, c.q2);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.to_f64(), x, "table row: {}", c.label);
                }
                let m = maxabs(&[c.p1, c.q1, c.p2, c.q2, got.point1, got.point2]);
                assert!(
                    check_pair(c.label, &got, &ex, m, line_line_cond(c.p1, c.q1, c.p2, c.q2)),
                    "{}",
                    c.label
                );
            }
        }
    }
    let mut r = rng::rng(8);
    let mut tally = Tally::default();
    let n = rng::cases() / 2;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let (p1, q1, p2) =
            (gen_point(&mut r, kind), gen_point(&mut r, kind), gen_point(&mut r, kind));
        let q2 = if i % 4 == 0 { p2 + (q1 - p1) * 2.0 } else { gen_point(&mut r, kind) };
        let got = closest_points_line_line(p1, q1, p2, q2);
        let ex = reference::line_line_sq(p1, q1, p2, q2);
        tally.cases += 1;
        tally.exact_hits += ex.is_zero() as usize;
        let m = maxabs(&[p1, q1, p2, q2, got.point1, got.point2]);
        if !check_pair("", &got, &ex, m, line_line_cond(p1, q1, p2, q2)) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {p1:?} {q1:?} {p2:?} {q2:?} {got:?} exact {}", ex.to_f64());
        }
    }
    tally.report("closest_points_line_line");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > n / 100);
}

/// Segment–triangle: the worst of its candidates' conditioning (the three
/// segment–edge solves, the two endpoint queries) plus the plane crossing
/// (notes "segment–triangle"): the crossing parameter `ha/(ha - hb)` is off by
/// `δs <= 16u·|ab||ac|·(|a - t.a| + |b - t.a|)/|ha - hb| + 2u`, moving the point by
/// `δs·|b - a|`.
fn seg_tri_cond(s: &Segment, t: &Triangle, d: f64) -> f64 {
    let mut cond = 0.0f64;
    for (u, v) in [(t.a, t.b), (t.b, t.c), (t.c, t.a)] {
        cond = cond.max(seg_seg_cond(s.a, s.b, u, v));
    }
    for p in [s.a, s.b] {
        let dp = reference::point_triangle(p, t).sq.to_f64();
        cond = cond.max(tri_bound(p, t, dp.max(d)).1);
    }
    let n = QV3::f(t.b - t.a).cross(&QV3::f(t.c - t.a));
    let ha = n.dot(&(&QV3::f(s.a) - &QV3::f(t.a))).to_f64();
    let hb = n.dot(&(&QV3::f(s.b) - &QV3::f(t.a))).to_f64();
    if ha != hb {
        let nabs = d64(t.b, t.a) * d64(t.c, t.a);
        let ds = (16.0 * U * nabs * (d64(s.a, t.a) + d64(s.b, t.a)) / (ha - hb).abs() + 2.0 * U)
            .min(1.0);
        let mv = ds * d64(s.a, s.b);
        cond = cond.max(mv * mv + 2.0 * mv * d.sqrt());
    }
    cond
}

#[test]
fn segment_triangle_table() {
    for c in segment_triangle_cases() {
        let got = closest_points_segment_triangle(&c.seg, &c.tri);
        match c.expect {
            Expect::Nan => assert!(got.sq_dist.is_nan() && got.point2.x.is_nan(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::segment_triangle(&c.seg, &c.tri);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.to_f64(), x, "table row: {}", c.label);
                }
                let m = maxabs(&[c.seg.a, c.seg.b, c.tri.a, c.tri.b, c.tri.c]);
                let cond = seg_tri_cond(&c.seg, &c.tri, ex.to_f64());
                assert!(
                    check_pair(c.label, &got, &ex, m, cond),
                    "{}: {got:?} exact {}",
                    c.label,
                    ex.to_f64()
                );
            }
        }
    }
}

#[test]
fn segment_triangle_exact_property() {
    let mut r = rng::rng(9);
    let mut tally = Tally::default();
    let n = rng::cases() / 25;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let t = gen_triangle(&mut r, kind);
        let s = if i % 2 == 0 {
            gen_segment(&mut r, kind)
        } else {
            Segment::new(near_point(&mut r, &t), near_point(&mut r, &t))
        };
        let got = closest_points_segment_triangle(&s, &t);
        let ex = reference::segment_triangle(&s, &t);
        tally.cases += 1;
        tally.exact_hits += ex.is_zero() as usize;
        let m = maxabs(&[s.a, s.b, t.a, t.b, t.c]);
        if !check_pair("", &got, &ex, m, seg_tri_cond(&s, &t, ex.to_f64())) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {s:?} {t:?} {got:?} exact {}", ex.to_f64());
        }
    }
    tally.report("closest_points_segment_triangle");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > n / 20);
}

fn tri_tri_cond(t1: &Triangle, t2: &Triangle, d: f64) -> f64 {
    let mut cond = 0.0f64;
    for (a, b) in [(t1.a, t1.b), (t1.b, t1.c), (t1.c, t1.a)] {
        cond = cond.max(seg_tri_cond(&Segment::new(a, b), t2, d));
    }
    for (a, b) in [(t2.a, t2.b), (t2.b, t2.c), (t2.c, t2.a)] {
        cond = cond.max(seg_tri_cond(&Segment::new(a, b), t1, d));
    }
    cond
}

#[test]
fn triangle_triangle_table() {
    for c in triangle_triangle_cases() {
        let got = closest_points_triangle_triangle(&c.t1, &c.t2);
        let swapped = closest_points_triangle_triangle(&c.t2, &c.t1);
        match c.expect {
            Expect::Nan => assert!(got.sq_dist.is_nan() && swapped.sq_dist.is_nan(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::triangle_triangle(&c.t1, &c.t2);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.to_f64(), x, "table row: {}", c.label);
                }
                let m = maxabs(&[c.t1.a, c.t1.b, c.t1.c, c.t2.a, c.t2.b, c.t2.c]);
                let cond = tri_tri_cond(&c.t1, &c.t2, ex.to_f64());
                assert!(
                    check_pair(c.label, &got, &ex, m, cond),
                    "{}: {got:?} exact {}",
                    c.label,
                    ex.to_f64()
                );
                assert!(check_pair(c.label, &swapped, &ex, m, cond), "{} (swapped)", c.label);
            }
        }
    }
}

#[test]
fn triangle_triangle_exact_property() {
    let mut r = rng::rng(10);
    let mut tally = Tally::default();
    let n = rng::cases() / 50;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let t1 = gen_triangle(&mut r, kind);
        let t2 = if i % 2 == 0 {
            gen_triangle(&mut r, kind)
        } else {
            Triangle::new(near_point(&mut r, &t1), near_point(&mut r, &t1), near_point(&mut r, &t1))
        };
        let got = closest_points_triangle_triangle(&t1, &t2);
        let ex = reference::triangle_triangle(&t1, &t2);
        tally.cases += 1;
        tally.exact_hits += ex.is_zero() as usize;
        let m = maxabs(&[t1.a, t1.b, t1.c, t2.a, t2.b, t2.c]);
        if !check_pair("", &got, &ex, m, tri_tri_cond(&t1, &t2, ex.to_f64())) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {t1:?} {t2:?} {got:?} exact {}", ex.to_f64());
        }
    }
    tally.report("closest_points_triangle_triangle");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > n / 10);
}

// ---------------------------------------------------------------- tetrahedron

/// Point–tetrahedron (notes): the best face's point–triangle bound, plus the
/// inside/outside and flatness decisions, each wrong only within
/// `h = 16u·(|p - v_i| + |v_l - v_i|)·|v_j - v_i|·|v_k - v_i| / |n|` of a face
/// plane (distance to the boundary `<= h` then), costing `h² + 2h√D`.
fn tet_bound(p: Vec3, t: &Tetrahedron, d: f64) -> f64 {
    let v = t.v;
    let faces = [(0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2), (1, 3, 2, 0)];
    let mut b = 0.0f64;
    for (i, j, k, l) in faces {
        let tri = Triangle::new(v[i], v[j], v[k]);
        let dp = reference::point_triangle(p, &tri).sq.to_f64();
        b = b.max(tri_bound(p, &tri, dp.max(d)).0);
        let n = QV3::f(v[j] - v[i]).cross(&QV3::f(v[k] - v[i])).len2().to_f64().sqrt();
        if n > 0.0 {
            let h =
                16.0 * U * (d64(p, v[i]) + d64(v[l], v[i])) * d64(v[j], v[i]) * d64(v[k], v[i]) / n;
            let h = h.min(d64(p, v[i]) + d64(v[j], v[i]) + d64(v[k], v[i]));
            b = b.max(
                h * h + 2.0 * h * d.sqrt() + pair_first_order(maxabs(&[p, v[i], v[j], v[k]]), d),
            );
        }
    }
    b
}

#[test]
fn point_tetrahedron_table_and_property() {
    for c in point_tetrahedron_cases() {
        let q = closest_point_tetrahedron(c.p, &c.tet);
        let s = sq_dist_point_tetrahedron(c.p, &c.tet);
        match c.expect {
            Expect::Nan => assert!(q.x.is_nan() && s.is_nan(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::point_tetrahedron(c.p, &c.tet);
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.to_f64(), x, "table row: {}", c.label);
                }
                assert!(
                    within(s, &ex, tet_bound(c.p, &c.tet, ex.to_f64())),
                    "{}: {s} exact {}",
                    c.label,
                    ex.to_f64()
                );
            }
        }
    }
    let mut r = rng::rng(11);
    let mut tally = Tally::default();
    let n = rng::cases() / 25;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let tet = Tetrahedron { v: core::array::from_fn(|_| gen_point(&mut r, kind)) };
        let p = if i % 2 == 0 {
            gen_point(&mut r, kind)
        } else {
            let t = Triangle::new(tet.v[0], tet.v[1], tet.v[2]);
            near_point(&mut r, &t)
        };
        let s = sq_dist_point_tetrahedron(p, &tet);
        let ex = reference::point_tetrahedron(p, &tet);
        tally.cases += 1;
        tally.exact_hits += ex.is_zero() as usize;
        if !within(s, &ex, tet_bound(p, &tet, ex.to_f64())) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {p:?} {tet:?} {s} exact {}", ex.to_f64());
        }
    }
    tally.report("sq_dist_point_tetrahedron");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > n / 20);
}

// ---------------------------------------------------------------- polygon

fn polygon_band(s: &Sphere, poly: &[Vec3], d: f64) -> f64 {
    let r2 = s.radius as f64 * s.radius as f64;
    let mut b = 0.0f64;
    let v0 = poly[0];
    let tris: Vec<Triangle> = if poly.len() < 3 {
        vec![Triangle::new(v0, poly[poly.len() - 1], poly[poly.len() - 1])]
    } else {
        poly[1..].windows(2).map(|w| Triangle::new(v0, w[0], w[1])).collect()
    };
    for t in &tris {
        b = b.max(tri_bound(s.center, t, d.max(r2)).0);
    }
    b + 2.0 * U * r2
}

/// A random convex planar polygon, exactly: the convex hull (monotone chain,
/// integer arithmetic) of random grid points of a plane, embedded by a signed
/// permutation of the axes, so the vertices are exactly coplanar and convex.
/// Collinear or single-point hulls (degenerate polygons) occur too.
fn gen_polygon(r: &mut Rng, kind: u32) -> Vec<Vec3> {
    let k = r.usize(1..9);
    let mut pts: Vec<(i64, i64)> = (0..k).map(|_| (r.i64(-4..=4), r.i64(-4..=4))).collect();
    pts.sort();
    pts.dedup();
    let cross = |o: (i64, i64), a: (i64, i64), b: (i64, i64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(i64, i64)> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Vec<(i64, i64)> =
            if pass == 0 { pts.clone() } else { pts.iter().rev().cloned().collect() };
        for p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    if hull.is_empty() {
        hull.push(pts[0]);
    }
    let mut ax = [Vec3::X, Vec3::Y, Vec3::Z];
    r.shuffle(&mut ax);
    let _ = kind;
    let c = rng::grid_point(r, 4, 1);
    let sc = [0.25f32, 0.5, 1.0][r.usize(0..3)]; // powers of two: exact
    hull.iter().map(|&(x, y)| c + ax[0] * (x as f32 * sc) + ax[1] * (y as f32 * sc)).collect()
}

#[test]
fn sphere_polygon_table_and_property() {
    for c in sphere_polygon_cases() {
        let got = overlap::sphere_polygon(&c.sphere, &c.poly);
        let Some(hit) = c.hit else { continue };
        let valid =
            c.sphere.is_valid() && !c.poly.is_empty() && c.poly.iter().all(|v| v.is_finite());
        if valid {
            let d = reference::point_polygon(c.sphere.center, &c.poly);
            let r2 = Q::f(c.sphere.radius) * Q::f(c.sphere.radius);
            assert_eq!(d <= r2, hit, "table row: {}", c.label);
            if got != hit {
                let gap = (d.clone() - r2).abs().to_f64();
                assert!(gap <= polygon_band(&c.sphere, &c.poly, d.to_f64()), "{}", c.label);
            }
        } else {
            assert_eq!(got, hit, "{}", c.label);
        }
    }
    let mut r = rng::rng(12);
    let mut tally = Tally::default();
    let n = rng::cases() / 25;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let poly = gen_polygon(&mut r, kind);
        let c = gen_point(&mut r, kind);
        let d = reference::point_polygon(c, &poly);
        let radius = match r.u32(0..3) {
            0 => rng::uniform(&mut r, 0.0, 2.0),
            _ => rng::nudge(d.to_f64().sqrt() as f32, r.i32(-3..=3)).max(0.0),
        };
        let s = Sphere::new(c, radius);
        let got = overlap::sphere_polygon(&s, &poly);
        let r2 = Q::f(radius) * Q::f(radius);
        let exact = d <= r2;
        tally.cases += 1;
        tally.exact_hits += exact as usize;
        if got != exact {
            let gap = (d.clone() - r2).abs().to_f64();
            if gap <= polygon_band(&s, &poly, d.to_f64()) {
                tally.default_in_band += 1;
            } else {
                tally.default_out_of_band += 1;
                eprintln!("out of band: {s:?} {poly:?}");
            }
        }
        // the closest point agrees with the polygon distance as well
        let q = closest_point_polygon(c, &poly);
        assert!(within(
            (q - c).length_squared(),
            &d,
            polygon_band(&Sphere::new(c, 0.0), &poly, d.to_f64())
        ));
    }
    tally.report("sphere_polygon");
    assert_eq!(tally.default_out_of_band, 0);
    let rate = tally.exact_hits as f64 / n as f64;
    assert!((0.2..0.9).contains(&rate), "hit rate {rate}");
}

// ---------------------------------------------------------------- polyhedron

/// Point–polyhedron (notes): candidates are accepted with the feasibility
/// slack `σ_i = 64u(|n_i|·|x| + |d_i|)`, i.e. up to `σ_i/|n_i|` outside the
/// set; the candidate positions carry `ρ = 64u·M·κ` with `κ` the worst
/// `Π|n|/|det|` of the plane pairs/triples used.
fn polyhedron_bound(p: Vec3, planes: &[Plane], x: Vec3, d: f64) -> f64 {
    let m = maxabs(&[p, x])
        + planes
            .iter()
            .map(|pl| (pl.d as f64).abs() / pl.normal.length() as f64)
            .fold(0.0, f64::max);
    let mut kappa = 1.0f64;
    for i in 0..planes.len() {
        for j in i + 1..planes.len() {
            let (a, b) = (QV3::f(planes[i].normal), QV3::f(planes[j].normal));
            let det2 = a.cross(&b).len2().to_f64();
            if det2 > 0.0 {
                kappa = kappa.max(a.len2().to_f64() * b.len2().to_f64() / det2);
            }
            for pk in planes.iter().skip(j + 1) {
                let c = QV3::f(pk.normal);
                let det3 = a.dot(&b.cross(&c)).to_f64().abs();
                if det3 > 0.0 {
                    let prod = (a.len2().to_f64() * b.len2().to_f64() * c.len2().to_f64()).sqrt();
                    kappa = kappa.max(prod / det3);
                }
            }
        }
    }
    let sigma = 64.0 * U * 8.0 * (m + d.sqrt());
    let rho = 64.0 * U * m * kappa + sigma * kappa;
    let sd = d.sqrt();
    2.0 * rho * sd + rho * rho + 6.0 * U * (sd + rho).powi(2)
}

fn gen_planes(r: &mut Rng) -> Vec<Plane> {
    if r.bool() {
        let b = gen_aabb(r, 1);
        cube_planes(0.0, 1.0)
            .into_iter()
            .enumerate()
            .map(|(i, pl)| {
                Plane::new(pl.normal, if i % 2 == 0 { b.max.get(i / 2) } else { -b.min.get(i / 2) })
            })
            .collect()
    } else {
        // random small-integer normals through random grid offsets
        let k = r.usize(1..7);
        (0..k)
            .map(|_| {
                let n = rng::grid_point(r, 3, 0);
                Plane::new(n, rng::grid(r, 8, 2))
            })
            .collect()
    }
}

#[test]
fn point_polyhedron_table_and_property() {
    for c in point_polyhedron_cases() {
        let got = closest_point_convex_polyhedron(c.p, &c.planes);
        match c.expect {
            Expect::Nan => assert!(got.is_none(), "{}", c.label),
            Expect::NoPanic => {}
            Expect::SqDist(_) | Expect::Ref => {
                let ex = reference::point_polyhedron_sq(c.p, &c.planes).expect("non-empty");
                if let Expect::SqDist(x) = c.expect {
                    assert_eq!(ex.to_f64(), x, "table row: {}", c.label);
                }
                let q = got.expect(c.label);
                let s = (q - c.p).length_squared();
                assert!(
                    within(s, &ex, polyhedron_bound(c.p, &c.planes, q, ex.to_f64())),
                    "{}: {q:?}",
                    c.label
                );
            }
        }
    }
    let mut r = rng::rng(13);
    let mut tally = Tally::default();
    let n = rng::cases() / 50;
    let mut empties = 0;
    for i in 0..n {
        let planes = gen_planes(&mut r);
        let p = gen_point(&mut r, (i % 2) as u32) * 2.0;
        let got = closest_point_convex_polyhedron(p, &planes);
        let ex = reference::point_polyhedron_sq(p, &planes);
        tally.cases += 1;
        match (got, ex) {
            (None, None) => empties += 1,
            (Some(q), Some(ex)) => {
                tally.exact_hits += ex.is_zero() as usize;
                let s = (q - p).length_squared();
                if !within(s, &ex, polyhedron_bound(p, &planes, q, ex.to_f64())) {
                    tally.default_out_of_band += 1;
                    eprintln!("out of bound: {p:?} {planes:?} {q:?} exact {}", ex.to_f64());
                }
            }
            (g, e) => {
                tally.default_out_of_band += 1;
                eprintln!("emptiness disagrees: {p:?} {planes:?} got {g:?} exact {e:?}");
            }
        }
    }
    tally.report("closest_point_convex_polyhedron");
    eprintln!("polyhedron: {empties} empty sets of {n}");
    assert_eq!(tally.default_out_of_band, 0);
    assert!(tally.exact_hits > n / 20);
}

/// The segment–segment reference (exact minimisation) against the axis-free
/// hull test: distance 0 ⇔ the segments meet (grid cases: crossing, touching,
/// collinear overlap are common).
#[test]
fn segment_segment_reference_agrees_with_hull_test() {
    let mut r = rng::rng(23);
    let mut zeros = 0;
    for i in 0..3000 {
        let s1 = gen_segment(&mut r, 1);
        let mut s2 = gen_segment(&mut r, 1);
        if i % 3 == 0 {
            s2.a = s1.a + (s1.b - s1.a) * 0.5;
        }
        let ex = reference::segment_segment(&s1, &s2);
        let meet = hulls_intersect(&[s1.a, s1.b], &[s2.a, s2.b]);
        assert_eq!(ex.sq.is_zero(), meet, "{s1:?} {s2:?}");
        zeros += meet as usize;
    }
    assert!(zeros > 500, "too few touching cases: {zeros}");
}

// ---------------------------------------------------------------- hard inputs

/// Exact squared distance of `q` to the infinite line through `p` and `p + d`
/// (to `p` itself when `d = 0`).
fn sq_dist_to_line(q: Vec3, p: Vec3, d: Vec3) -> Q {
    let (qq, pq) = (QV3::f(q), QV3::f(p));
    let dq = &QV3::f(p + d) - &pq;
    let rel = &qq - &pq;
    if dq.is_zero() {
        return rel.len2();
    }
    rel.cross(&dq).len2() / dq.len2()
}

/// Exact squared distance of `q` to the closed segment.
fn sq_dist_to_segment(q: Vec3, s: &Segment) -> Q {
    reference::point_segment_q(&QV3::f(q), &QV3::f(s.a), &QV3::f(s.b)).sq
}

/// How far a returned point may lie off its shape: the rounding of its formula
/// (`a + s·d` and the like, `ρ = 32u·M`, notes "pairs").
fn on_shape_bound(m: f64) -> f64 {
    (32.0 * U * m).powi(2) + TINY
}

fn assert_on_shape(label: &str, sq_off: &Q, m: f64) {
    assert!(
        sq_off.to_f64() <= on_shape_bound(m),
        "{label}: returned point is {} off its shape (bound {})",
        sq_off.to_f64().sqrt(),
        on_shape_bound(m).sqrt()
    );
}

/// A tetrahedron whose fourth vertex lies on (`nudge = 0`) or within a few ulps
/// of the plane of the first three: an affine combination of them, nudged.
fn nearly_flat_tetrahedron(r: &mut Rng, kind: u32) -> Tetrahedron {
    let (a, b, c) = (gen_point(r, kind), gen_point(r, kind), gen_point(r, kind));
    let (u, v) = (r.f32() * 2.0 - 0.5, r.f32() * 2.0 - 0.5);
    let mut d = a + (b - a) * u + (c - a) * v;
    let n = r.i32(-3..=3);
    d.z = rng::nudge(d.z, n);
    Tetrahedron { v: [a, b, c, d] }
}

/// Two exactly parallel lines (the directions' difference vectors are exact
/// scalar multiples): small integer `d1`, a multiplier with a 20-bit
/// significand, base points on a quarter grid, so that `q2 - p2 = λ·d1`
/// exactly. With `nudge`, one coordinate of `q2` moves by that many ulps.
fn parallel_lines(r: &mut Rng, nudge: i32) -> (Vec3, Vec3, Vec3, Vec3) {
    let int = |r: &mut Rng| r.i32(-4..=4) as f32;
    let quarter = |r: &mut Rng| rng::grid_point(r, 16, 2);
    let mut d1 = Vec3::new(int(r), int(r), int(r));
    if d1 == Vec3::ZERO {
        d1 = Vec3::X;
    }
    // λ ∈ [-2, 2], a multiple of 2^-19: λ·d1 and p2 + λ·d1 are exact
    let lambda = r.i32(-(1 << 20)..=(1 << 20)) as f32 / (1 << 19) as f32;
    let (p1, p2) = (quarter(r), quarter(r));
    let mut q2 = p2 + d1 * lambda;
    q2.y = rng::nudge(q2.y, nudge);
    (p1, p1 + d1, p2, q2)
}

/// The two nearly flat tetrahedra of the issue: the seed's sign test read the
/// rounding noise of the opposite vertex's side and answered "inside" (the
/// query point itself) for points far outside.
#[test]
fn point_tetrahedron_nearly_flat_examples() {
    let v = Vec3::new;
    let cases = [
        (
            Tetrahedron {
                v: [
                    v(-11.61912, 5.9507995, -5.828109),
                    v(-11.2239685, 6.903178, -7.4267235),
                    v(-4.867281, 3.6355186, 4.7028217),
                    v(-5.6815205, 4.939694, 1.3460045),
                ],
            },
            v(-14.941378, 17.68377, 2.3350413),
            207.04,
        ),
        (
            Tetrahedron {
                v: [
                    v(-0.8333897, -0.07530272, 0.082325704),
                    v(-0.28959507, -0.3762199, 0.13875782),
                    v(0.2804222, -1.7971427, -0.20469454),
                    v(0.07782404, -1.8459278, -0.28431514),
                ],
            },
            v(-0.30854023, -0.44924223, -0.3370865),
            0.1604,
        ),
    ];
    for (tet, p, approx) in cases {
        let ex = reference::point_tetrahedron(p, &tet);
        assert!((ex.to_f64() - approx).abs() < 1e-3 * approx, "exact {}", ex.to_f64());
        let q = closest_point_tetrahedron(p, &tet);
        let s = sq_dist_point_tetrahedron(p, &tet);
        assert!(within(s, &ex, tet_bound(p, &tet, ex.to_f64())), "{s} exact {}", ex.to_f64());
        let m = maxabs(&[p, tet.v[0], tet.v[1], tet.v[2], tet.v[3]]);
        assert_on_shape("tetrahedron", &reference::point_tetrahedron(q, &tet), m);
    }
}

/// Nearly flat tetrahedra (fourth vertex within a few ulps of the plane of the
/// other three, or on it) against the exact reference; the returned point lies
/// in the solid.
#[test]
fn point_tetrahedron_nearly_flat_property() {
    let mut r = rng::rng(31);
    let mut tally = Tally::default();
    let n = rng::cases() / 25;
    for i in 0..n {
        let kind = (i % 2) as u32;
        let tet = nearly_flat_tetrahedron(&mut r, kind);
        let p = if i % 3 == 0 {
            near_point(&mut r, &Triangle::new(tet.v[0], tet.v[1], tet.v[2]))
        } else {
            rng::point(&mut r, -4.0, 4.0)
        };
        let q = closest_point_tetrahedron(p, &tet);
        let s = sq_dist_point_tetrahedron(p, &tet);
        let ex = reference::point_tetrahedron(p, &tet);
        tally.cases += 1;
        tally.exact_hits += ex.is_zero() as usize;
        let m = maxabs(&[p, tet.v[0], tet.v[1], tet.v[2], tet.v[3]]);
        assert_on_shape("tetrahedron", &reference::point_tetrahedron(q, &tet), m);
        if !within(s, &ex, tet_bound(p, &tet, ex.to_f64())) {
            tally.default_out_of_band += 1;
            eprintln!("out of bound: {p:?} {tet:?} {s} exact {}", ex.to_f64());
        }
    }
    tally.report("sq_dist_point_tetrahedron (nearly flat)");
    assert_eq!(tally.default_out_of_band, 0);
}

/// The exactly parallel lines (`d2 = 1.1713165·d1` exactly), for which
/// `a·e - b²` rounds to a positive number: the parallel branch (`s = 0`,
/// `t = f/e`) must be taken, as the docs promise.
#[test]
fn line_line_exactly_parallel_example() {
    let v = Vec3::new;
    let (p1, q1) = (v(1.0, 2.0, -3.0), v(-3.0, 1.0, 1.0));
    let (p2, q2) = (v(1.0, 0.0, -1.0), v(-3.685266, -1.1713165, 3.685266));
    let (d1, d2) = (QV3::f(q1 - p1), QV3::f(q2 - p2));
    assert!(d1.cross(&d2).is_zero(), "the example is exactly parallel");
    let got = closest_points_line_line(p1, q1, p2, q2);
    let (d2f, r) = (q2 - p2, p1 - p2);
    assert_eq!((got.s, got.t), (0.0, d2f.dot(r) / d2f.dot(d2f)));
    let ex = reference::line_line_sq(p1, q1, p2, q2);
    assert!((ex.to_f64() - 4.9697).abs() < 1e-3);
    let m = maxabs(&[p1, q1, p2, q2, got.point1, got.point2]);
    assert!(check_pair("issue example", &got, &ex, m, line_line_cond(p1, q1, p2, q2)));
}

/// Exactly and nearly parallel lines and segments with non-power-of-two
/// ratios, against the exact references; exactly parallel lines take the
/// parallel branch (`s = 0`), and every returned point lies on its line or
/// segment.
#[test]
fn parallel_lines_and_segments_property() {
    let mut r = rng::rng(32);
    let n = rng::cases() / 4;
    let (mut out, mut exact_parallel) = (0, 0);
    for i in 0..n {
        let nudge = [0, 0, 1, -1, 3][i % 5];
        let (p1, q1, p2, q2) = parallel_lines(&mut r, nudge);
        let m = maxabs(&[p1, q1, p2, q2]);
        let exactly = QV3::f(q1 - p1).cross(&QV3::f(q2 - p2)).is_zero();
        exact_parallel += exactly as usize;
        let got = closest_points_line_line(p1, q1, p2, q2);
        if exactly {
            assert_eq!(got.s, 0.0, "exactly parallel lines: {p1:?} {q1:?} {p2:?} {q2:?}");
        }
        let mm = maxabs(&[p1, q1, p2, q2, got.point1, got.point2]);
        assert_on_shape("line 1", &sq_dist_to_line(got.point1, p1, q1 - p1), mm);
        assert_on_shape("line 2", &sq_dist_to_line(got.point2, p2, q2 - p2), mm);
        let ex = reference::line_line_sq(p1, q1, p2, q2);
        if !check_pair("", &got, &ex, mm, line_line_cond(p1, q1, p2, q2)) {
            out += 1;
            eprintln!(
                "line-line out of bound: {p1:?} {q1:?} {p2:?} {q2:?} {got:?} exact {}",
                ex.to_f64()
            );
        }
        let (s1, s2) = (Segment::new(p1, q1), Segment::new(p2, q2));
        let got = closest_points_segment_segment(&s1, &s2);
        assert_on_shape("segment 1", &sq_dist_to_segment(got.point1, &s1), m);
        assert_on_shape("segment 2", &sq_dist_to_segment(got.point2, &s2), m);
        let ex = reference::segment_segment(&s1, &s2);
        if !check_pair("", &got, &ex.sq, m, seg_seg_cond(p1, q1, p2, q2)) {
            out += 1;
            eprintln!(
                "segment-segment out of bound: {s1:?} {s2:?} {got:?} exact {}",
                ex.sq.to_f64()
            );
        }
    }
    assert_eq!(out, 0);
    assert!(exact_parallel > n / 3, "too few exactly parallel cases: {exact_parallel}");
}

/// Binary exponents of the tiny-scale replays: coordinates near 2^-60 … 2^-120
/// (all normal `f32`, but squared lengths and degree-3 products underflow).
const TINY_EXPONENTS: [i32; 5] = [-60, -75, -90, -105, -120];

/// `M` for a replay at `2^e` mapped back to unit scale: the points may have been
/// rounded once as subnormals (`2^-150` per coordinate at the tiny scale, so
/// `2^(-150-e)` here), folded into `M` through `ρ = 32u·M`.
fn replay_m(m: f64, e: i32) -> f64 {
    m + 2f64.powi(-150 - e) * 4.0 / (32.0 * U)
}

fn unscale_pair(got: &ClosestPair, e: i32) -> ClosestPair {
    let (p1, p2) = (rng::scale_pow2(got.point1, -e), rng::scale_pow2(got.point2, -e));
    ClosestPair { s: got.s, t: got.t, point1: p1, point2: p2, sq_dist: (p1 - p2).length_squared() }
}

/// Segment–segment, segment–triangle, triangle–triangle, line–line and
/// point–tetrahedron on inputs scaled by `2^e`, `e = -60 … -120`: the answers,
/// scaled back by `2^-e` (exact), meet the unit-scale bounds against the exact
/// reference of the unit-scale inputs (the distances are scale-invariant), and
/// every point lies on its shape. Without the rescaling, squared lengths and
/// plane heights underflow and segments turn into points, crossings are missed
/// and solids become flat.
#[test]
fn tiny_scale_replays() {
    let mut r = rng::rng(33);
    let n = rng::cases() / 100;
    let mut out = 0usize;
    let mut report = |label: &str, ok: bool, what: String| {
        if !ok {
            out += 1;
            eprintln!("{label} out of bound: {what}");
        }
    };
    for i in 0..n {
        let kind = (i % 2) as u32;
        let e = TINY_EXPONENTS[i % TINY_EXPONENTS.len()];
        let sv = |v: Vec3| rng::scale_pow2(v, e);
        let ss = |s: &Segment| Segment::new(sv(s.a), sv(s.b));
        let st = |t: &Triangle| Triangle::new(sv(t.a), sv(t.b), sv(t.c));

        // segment–segment (touching every 7th case, parallel every 5th)
        let s1 = gen_segment(&mut r, kind);
        let mut s2 = gen_segment(&mut r, kind);
        if i % 7 == 0 {
            s2.a = s1.a + (s1.b - s1.a) * 0.5;
        } else if i % 5 == 0 {
            s2.b = s2.a + (s1.b - s1.a) * 0.5;
        }
        let got = unscale_pair(&closest_points_segment_segment(&ss(&s1), &ss(&s2)), e);
        let m = replay_m(maxabs(&[s1.a, s1.b, s2.a, s2.b]), e);
        assert_on_shape("segment 1", &sq_dist_to_segment(got.point1, &s1), m);
        assert_on_shape("segment 2", &sq_dist_to_segment(got.point2, &s2), m);
        let ex = reference::segment_segment(&s1, &s2).sq;
        let ok = check_pair("", &got, &ex, m, seg_seg_cond(s1.a, s1.b, s2.a, s2.b));
        report(
            "segment-segment",
            ok,
            format!("2^{e}: {s1:?} {s2:?} {got:?} exact {}", ex.to_f64()),
        );

        // line–line
        let (p1, q1, p2, q2) = (s1.a, s1.b, s2.a, s2.b);
        let got = unscale_pair(&closest_points_line_line(sv(p1), sv(q1), sv(p2), sv(q2)), e);
        let mm = replay_m(maxabs(&[p1, q1, p2, q2, got.point1, got.point2]), e);
        assert_on_shape("line 1", &sq_dist_to_line(got.point1, p1, q1 - p1), mm);
        assert_on_shape("line 2", &sq_dist_to_line(got.point2, p2, q2 - p2), mm);
        let ex = reference::line_line_sq(p1, q1, p2, q2);
        let ok = check_pair("", &got, &ex, mm, line_line_cond(p1, q1, p2, q2));
        report("line-line", ok, format!("2^{e}: {p1:?} {q1:?} {p2:?} {q2:?} {got:?}"));

        // segment–triangle (half the segments near the triangle, so crossings are common)
        let t = gen_triangle(&mut r, kind);
        let s = if i % 2 == 0 {
            gen_segment(&mut r, kind)
        } else {
            Segment::new(near_point(&mut r, &t), near_point(&mut r, &t))
        };
        let got = unscale_pair(&closest_points_segment_triangle(&ss(&s), &st(&t)), e);
        let m = replay_m(maxabs(&[s.a, s.b, t.a, t.b, t.c]), e);
        assert_on_shape("segment", &sq_dist_to_segment(got.point1, &s), m);
        assert_on_shape("triangle", &reference::point_triangle(got.point2, &t).sq, m);
        let ex = reference::segment_triangle(&s, &t);
        let ok = check_pair("", &got, &ex, m, seg_tri_cond(&s, &t, ex.to_f64()));
        report("segment-triangle", ok, format!("2^{e}: {s:?} {t:?} {got:?} exact {}", ex.to_f64()));

        // triangle–triangle
        if i % 4 == 0 {
            let t2 = if i % 8 == 0 {
                gen_triangle(&mut r, kind)
            } else {
                Triangle::new(
                    near_point(&mut r, &t),
                    near_point(&mut r, &t),
                    near_point(&mut r, &t),
                )
            };
            let got = unscale_pair(&closest_points_triangle_triangle(&st(&t), &st(&t2)), e);
            let m = replay_m(maxabs(&[t.a, t.b, t.c, t2.a, t2.b, t2.c]), e);
            assert_on_shape("triangle 1", &reference::point_triangle(got.point1, &t).sq, m);
            assert_on_shape("triangle 2", &reference::point_triangle(got.point2, &t2).sq, m);
            let ex = reference::triangle_triangle(&t, &t2);
            let ok = check_pair("", &got, &ex, m, tri_tri_cond(&t, &t2, ex.to_f64()));
            report("triangle-triangle", ok, format!("2^{e}: {t:?} {t2:?} {got:?}"));
        }

        // point–tetrahedron (solid and nearly flat)
        let tet = if i % 3 == 0 {
            nearly_flat_tetrahedron(&mut r, kind)
        } else {
            Tetrahedron { v: core::array::from_fn(|_| gen_point(&mut r, kind)) }
        };
        let p = if i % 2 == 0 { gen_point(&mut r, kind) } else { near_point(&mut r, &t) };
        let q = rng::scale_pow2(
            closest_point_tetrahedron(sv(p), &Tetrahedron { v: tet.v.map(sv) }),
            -e,
        );
        let m = replay_m(maxabs(&[p, tet.v[0], tet.v[1], tet.v[2], tet.v[3]]), e);
        assert_on_shape("tetrahedron", &reference::point_tetrahedron(q, &tet), m);
        let ex = reference::point_tetrahedron(p, &tet);
        let s = (q - p).length_squared();
        let ok = within(s, &ex, tet_bound(p, &tet, ex.to_f64()) + pair_first_order(m, ex.to_f64()));
        report("point-tetrahedron", ok, format!("2^{e}: {p:?} {tet:?} {s} exact {}", ex.to_f64()));
    }
    assert_eq!(out, 0, "{out} answers out of bound at tiny scales");
}

/// Barycentric weights stay in `[0, 1]` for points over the face close to edge
/// `bc`, where `u = 1 - v - w` is the difference of nearly equal numbers and
/// rounded below 0 (by up to an ulp, `-5.2e-8` seen) before it was clamped.
#[test]
fn point_triangle_weights_in_unit_interval_near_edges() {
    let mut r = rng::rng(34);
    let mut near_zero = 0;
    for i in 0..rng::cases() {
        let t = gen_triangle(&mut r, 0);
        let (b, c) = [(t.b, t.c), (t.c, t.a), (t.a, t.b)][i % 3];
        let n = (t.b - t.a).cross(t.c - t.a);
        let lam = r.f32();
        let inward = (t.a + t.b + t.c) * (1.0 / 3.0) - b;
        let p = b + (c - b) * lam + inward * (r.f32() * 1e-6) + n * rng::uniform(&mut r, -1.0, 1.0);
        let got = closest_point_triangle(p, &t);
        for w in [got.bary.x, got.bary.y, got.bary.z] {
            assert!((0.0..=1.0).contains(&w), "weight {w} for {p:?} {t:?}");
            near_zero += (w < 1e-6) as usize;
        }
    }
    assert!(near_zero > 1000);
}

// ------------------------------------------------ conservative sphere–triangle

/// A sphere touching a triangle exactly in real arithmetic, at a vertex, an edge
/// point or a face point `x`: the centre is `x + k·ν` with `ν` an integer
/// vector of integer length `n` (a Pythagorean quadruple, random signs and
/// order) and `r = k·n`, and the triangle lies in `{y: (y - x)·ν <= 0}` (for the
/// face, in the plane `ν⊥` around `x`). Coordinates are dyadic and exact; the
/// kernels' products round.
fn touching_sphere_triangle(r: &mut Rng) -> (Sphere, Triangle) {
    const QUADS: [[i32; 4]; 8] = [
        [1, 2, 2, 3],
        [2, 3, 6, 7],
        [1, 4, 8, 9],
        [4, 4, 7, 9],
        [2, 6, 9, 11],
        [6, 6, 7, 11],
        [3, 4, 12, 13],
        [8, 9, 12, 17],
    ];
    let q = QUADS[r.usize(0..QUADS.len())];
    let mut c = [q[0], q[1], q[2]];
    for i in (1..3).rev() {
        c.swap(i, r.usize(0..=i));
    }
    let nu = Vec3::new(
        c[0] as f32 * if r.bool() { 1.0 } else { -1.0 },
        c[1] as f32 * if r.bool() { 1.0 } else { -1.0 },
        c[2] as f32 * if r.bool() { 1.0 } else { -1.0 },
    );
    // two integer vectors spanning ν⊥
    let helper = if nu.x.abs() < nu.y.abs() { Vec3::X } else { Vec3::Y };
    let e1 = nu.cross(helper);
    let e2 = nu.cross(e1);
    let x = rng::grid_point(r, 4096, 8);
    let k = r.i32(1..=256) as f32 / 64.0;
    let s = |r: &mut Rng| r.i32(1..=32) as f32 / 16.0;
    let below = |r: &mut Rng| e1 * rng::grid(r, 16, 4) + e2 * rng::grid(r, 16, 4) - nu * s(r);
    let tri = match r.u32(0..3) {
        0 => Triangle::new(x, x + below(r), x + below(r)),
        1 => {
            let (a, b) = (s(r), s(r));
            Triangle::new(x - e1 * a, x + e1 * b, x + below(r))
        }
        _ => {
            let (a, b, c2, d) = (s(r), s(r), s(r), s(r));
            Triangle::new(x - e1 * a - e2 * b, x + e1 * c2, x + e2 * d)
        }
    };
    (Sphere::new(x + nu * k, k * q[3] as f32), tri)
}

/// `sphere_triangle_conservative` never misses: constructed exact contacts (the
/// plain `sphere_triangle` misses some, checked) and the random near-contact
/// cases of `point_and_sphere_triangle_exact_property` (radius the exact
/// distance nudged by ±3 ulps), against the exact rational distance; false
/// positives within twice `sphere_triangle`'s band; every width and lane
/// position.
#[test]
fn sphere_triangle_conservative_never_misses() {
    let mut r = rng::rng(0xC057);
    let n = rng::cases() / 2;
    let (mut touching, mut plain_missed, mut widened) = (0usize, 0usize, 0usize);
    let mut worst = 0.0f64;
    let (mut spheres, mut tris) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (s, t) = if i % 2 == 0 {
            touching_sphere_triangle(&mut r)
        } else {
            let kind = (i % 4 / 2) as u32;
            let t = gen_triangle(&mut r, kind);
            let c = if i % 3 == 0 { gen_point(&mut r, kind) } else { near_point(&mut r, &t) };
            let e = scale_exp(&mut r);
            let (t, c) = (scale_tri(&t, e), rng::scale_pow2(c, e));
            let d = reference::point_triangle(c, &t).sq.to_f64().sqrt() as f32;
            (Sphere::new(c, rng::nudge(d, r.i32(-3..=3)).max(0.0)), t)
        };
        let d = reference::point_triangle(s.center, &t).sq;
        let r2 = Q::f(s.radius) * Q::f(s.radius);
        if i % 2 == 0 {
            assert!(d == r2, "construction: {s:?} {t:?}");
        }
        let got = overlap::sphere_triangle_conservative(&s, &t);
        if d <= r2 {
            touching += 1;
            assert!(got, "conservative missed: {s:?} {t:?}");
            plain_missed += !overlap::sphere_triangle(&s, &t) as usize;
        } else if got {
            widened += 1;
            let gap = (d.clone() - r2).to_f64();
            let band = sphere_triangle_band(&s, &t, d.to_f64());
            worst = worst.max(gap / band);
            assert!(gap <= 2.0 * band, "false positive outside twice the band: {s:?} {t:?}");
        }
        if spheres.len() < 3000 {
            spheres.push(s);
            tris.push(t);
        }
    }
    eprintln!(
        "sphere_triangle_conservative: {touching} touching, plain missed {plain_missed}, {widened} widened, largest false-positive gap {worst:.3e} of the band"
    );
    assert!(plain_missed > 50, "the constructed contacts must defeat the plain test");
    fn go<L: Lane>(spheres: &[Sphere], tris: &[Triangle]) {
        let n = spheres.len();
        for i in 0..n {
            let want = overlap::sphere_triangle_conservative(&spheres[i], &tris[i]);
            for pos in 0..L::WIDTH {
                let idx = lanes::placement::<L>(n, i, pos);
                let s = Sphere::<L> {
                    center: lanes::gather_v3::<L, Sphere>(spheres, &idx, |s| s.center),
                    radius: lanes::gather_f::<L, Sphere>(spheres, &idx, |s| s.radius),
                };
                let t = Triangle::<L> {
                    a: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.a),
                    b: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.b),
                    c: lanes::gather_v3::<L, Triangle>(tris, &idx, |t| t.c),
                };
                let got = overlap::sphere_triangle_conservative(&s, &t);
                assert_eq!((got.bits() >> pos) & 1 == 1, want, "case {i} lane {pos}");
            }
        }
    }
    go::<f32x4>(&spheres, &tris);
    go::<f32x8>(&spheres, &tris);
    go::<f32x16>(&spheres, &tris);
}
