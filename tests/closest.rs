//! Closest-point family: case tables, exact-reference property tests and the
//! lane-width replay of the lane-generic kernels.
//!
//! Every f32 squared distance `s` is checked against the exact squared
//! distance `D` of the same inputs: `|s - D| <= bound`, with the bounds derived
//! in `notes/closest.md` (functions `*_bound` below; the comparison itself is
//! exact, the bound is evaluated in f64 with a 1 + 2^-40 margin). Predicates
//! may disagree with exact only when `|D - r²|` is inside the band.
mod common;

use common::cases::closest::*;
use common::exact::{hulls_intersect, Q, QV3};
use common::lanes;
use common::reference::closest as reference;
use common::rng::{self, Rng};
use common::Tally;
use widephase::closest::*;
use widephase::{overlap, Aabb, Lane, LaneMask, Obb, Plane, Rect3, Segment, Sphere, Tetrahedron, Triangle, Vec3, V3};
use wide::{f32x16, f32x4, f32x8};

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
    let (x, y, z) = ((a.x as f64 - b.x as f64), (a.y as f64 - b.y as f64), (a.z as f64 - b.z as f64));
    (x * x + y * y + z * z).sqrt()
}

// ---------------------------------------------------------------- bounds

/// Point–triangle (notes: "point–triangle"). First-order term: the rounding
/// of the returned point (`ρ = 14uM`) and of the final `|q - p|²`. Conditioning
/// term: a Voronoi test or a face weight off by its rounding error moves the
/// point within the plane by at most `η = (64u·L³P² + 2^-144·L) / |n|²`
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
        ((64.0 * U * l * l * l * pm * pm + 2f64.powi(-144) * l * l * pm) / n2).min(l)
    } else {
        0.0 // exactly degenerate: the clamped-edge fallback is exact up to ρ
    };
    let cond = eta * eta + 2.0 * eta * sd;
    let rho = 14.0 * U * m;
    (2.0 * rho * sd + rho * rho + 6.0 * U * (sd + rho) * (sd + rho) + cond, cond)
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

fn check_point_triangle(p: Vec3, t: &Triangle, worst: &mut f64) -> bool {
    let got = closest_point_triangle(p, t);
    let s = (got.point - p).length_squared();
    let s2 = sq_dist_point_triangle(p, t);
    assert_eq!(s.to_bits(), s2.to_bits());
    let ex = reference::point_triangle(p, t);
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
        assert!((-1e-6..=1.0 + 1e-6).contains(&w), "weight {w} for {p:?} {t:?}");
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
                assert!(check_point_triangle(c.p, &c.tri, &mut w), "{}: got {:?}, exact {}", c.label, got, ex.sq.to_f64());
            }
        }
    }
}

#[test]
fn point_triangle_exact_property() {
    let mut r = rng::rng(0xc105e57);
    let n = rng::cases();
    let (mut bad, mut worst) = (0, 0.0f64);
    let mut tally = Tally::default();
    for i in 0..n {
        let kind = (i % 2) as u32;
        let t = gen_triangle(&mut r, kind);
        let p = if i % 3 == 0 { gen_point(&mut r, kind) } else { near_point(&mut r, &t) };
        let e = scale_exp(&mut r);
        let (t, p) = (scale_tri(&t, e), rng::scale_pow2(p, e));
        tally.cases += 1;
        if !check_point_triangle(p, &t, &mut worst) {
            bad += 1;
            if bad < 5 {
                eprintln!("out of bound: p={p:?} t={t:?}");
            }
        }
    }
    tally.default_out_of_band = bad;
    tally.report("sq_dist_point_triangle");
    eprintln!("point_triangle worst error (well-conditioned cases): {worst:.2} u·(M·√D + D)");
    assert_eq!(bad, 0);
}
