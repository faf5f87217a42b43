//! Tests for `widephase::bounding`: every builder's volume contains every input
//! point under exact rational arithmetic; tightness; Welzl against brute force.

use crate::common;

use common::cases::dynamic::point_set_cases;
use common::exact::{Q, QV3};
use common::rng::{self, Rng};
use common::Tally;
use widephase::bounding::*;
use widephase::{Aabb, Dop14, Dop18, Dop26, Kdop, Obb, Sphere, Vec3};

fn q(x: f32) -> Q {
    Q::f(x)
}

fn aabb_contains(b: &Aabb, p: Vec3) -> bool {
    (0..3).all(|i| b.min.get(i) <= p.get(i) && p.get(i) <= b.max.get(i))
}

fn kdop_contains<const N: usize>(k: &Kdop<N>, p: Vec3) -> bool {
    let pq = QV3::f(p);
    (0..N).all(|i| {
        let proj = QV3::f(Kdop::<N>::AXES[i]).dot(&pq);
        // ±∞ bounds (overflowed) contain everything on their side.
        (k.min[i] == f32::NEG_INFINITY || q(k.min[i]) <= proj)
            && (k.max[i] == f32::INFINITY || proj <= q(k.max[i]))
    })
}

fn sphere_contains(s: &Sphere, p: Vec3) -> bool {
    if !s.radius.is_finite() {
        return s.radius == f32::INFINITY;
    }
    let d = &QV3::f(p) - &QV3::f(s.center);
    d.len2() <= q(s.radius) * q(s.radius)
}

/// Exact containment under both readings of an OBB: parametric (solve
/// `Σ s_i a_i = p - c` by Cramer's rule in rationals) and by projections.
fn obb_contains(o: &Obb, p: Vec3) -> bool {
    if !o.half.is_finite() {
        return true; // overflowed extents (beyond COORD_LIMIT) contain everything
    }
    let d = &QV3::f(p) - &QV3::f(o.center);
    let a: Vec<QV3> = o.axes.iter().map(|&x| QV3::f(x)).collect();
    let det = a[0].dot(&a[1].cross(&a[2]));
    if det.is_zero() {
        return false;
    }
    let rows = [a[1].cross(&a[2]), a[2].cross(&a[0]), a[0].cross(&a[1])];
    (0..3).all(|i| {
        let h = q(o.half.get(i));
        let param = rows[i].dot(&d) / det.clone();
        let proj = a[i].dot(&d);
        param.abs() <= h && proj.abs() <= h
    })
}

/// Builds every volume for `pts` and checks exact containment of each point.
fn check_all(pts: &[Vec3], label: &str, tally: &mut [Tally; 6]) {
    let b = aabb_from_points(pts).unwrap_or_else(|| panic!("{label}: aabb"));
    let k14: Dop14 = kdop_from_points(pts).unwrap();
    let k18: Dop18 = kdop_from_points(pts).unwrap();
    let k26: Dop26 = kdop_from_points(pts).unwrap();
    let ritter = ritter_sphere(pts).unwrap();
    let welzl = minimal_sphere(pts).unwrap();
    let obb = obb_from_points(pts).unwrap();
    for &p in pts {
        let oks = [
            aabb_contains(&b, p),
            kdop_contains(&k14, p) && kdop_contains(&k18, p) && kdop_contains(&k26, p),
            sphere_contains(&ritter, p),
            sphere_contains(&welzl, p),
            obb_contains(&obb, p),
            true,
        ];
        for (t, ok) in tally.iter_mut().zip(oks) {
            t.cases += 1;
            if !ok {
                t.default_out_of_band += 1;
            }
        }
        assert!(
            oks.iter().all(|&x| x),
            "{label}: point {p:?} not contained: {oks:?}\n{b:?}\n{ritter:?}\n{welzl:?}\n{obb:?}"
        );
    }
}

fn report(tally: &[Tally; 6]) {
    for (t, name) in tally.iter().zip([
        "bounding::aabb_from_points",
        "bounding::kdop_from_points(14/18/26)",
        "bounding::ritter_sphere",
        "bounding::minimal_sphere",
        "bounding::obb_from_points",
    ]) {
        t.report(&format!("{name} containment (cases = points)"));
    }
}

#[test]
fn point_set_table() {
    let mut tally: [Tally; 6] = Default::default();
    for c in point_set_cases() {
        if !c.expect_some {
            assert_eq!(aabb_from_points(&c.points), None, "{}", c.label);
            assert_eq!(kdop_from_points::<7>(&c.points), None, "{}", c.label);
            assert_eq!(ritter_sphere(&c.points), None, "{}", c.label);
            assert_eq!(minimal_sphere(&c.points), None, "{}", c.label);
            assert_eq!(obb_from_points(&c.points), None, "{}", c.label);
            continue;
        }
        check_all(&c.points, c.label, &mut tally);
        if c.in_range {
            let b = aabb_from_points(&c.points).unwrap();
            // Tight: the AABB is exactly the coordinate extremes.
            for i in 0..3 {
                assert!(c.points.iter().any(|p| p.get(i) == b.min.get(i)), "{}", c.label);
                assert!(c.points.iter().any(|p| p.get(i) == b.max.get(i)), "{}", c.label);
            }
            let w = minimal_sphere(&c.points).unwrap();
            let r = ritter_sphere(&c.points).unwrap();
            assert!(
                w.radius <= r.radius * (1.0 + 1e-6),
                "{}: welzl {} > ritter {}",
                c.label,
                w.radius,
                r.radius
            );
            let obb = obb_from_points(&c.points).unwrap();
            assert!(Obb::try_new(obb.center, obb.axes, obb.half).is_ok(), "{}: {obb:?}", c.label);
        }
    }
    // Specific shapes.
    let one = aabb_from_points(&[Vec3::new(1.0, 2.0, 3.0)]).unwrap();
    assert_eq!(one.min, one.max);
    let square = &point_set_cases()[5].points;
    let w = minimal_sphere(square).unwrap();
    assert!((w.radius - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6, "{w:?}");
    let collinear = &point_set_cases()[4].points;
    let o = obb_from_points(collinear).unwrap();
    let mut h = o.half.to_array();
    h.sort_by(f32::total_cmp);
    assert!(h[0] < 1e-5 && h[1] < 1e-5 && (h[2] - 2.5 * 3f32.sqrt()).abs() < 1e-4, "{o:?}");
}

fn gen_cloud(r: &mut Rng) -> Vec<Vec3> {
    let n = r.usize(1..40);
    let kind = r.u32(0..5);
    let e = [-40, -10, 0, 0, 10, 30][r.usize(0..6)];
    let offset = if r.u32(0..4) == 0 { rng::point(r, -1.0, 1.0) * 1_048_576.0 } else { Vec3::ZERO };
    let dir = rng::point(r, -1.0, 1.0);
    (0..n)
        .map(|_| {
            let p = match kind {
                0 => rng::point(r, -4.0, 4.0),
                1 => rng::grid_point(r, 4, 1),
                2 => dir * rng::uniform(r, -3.0, 3.0), // collinear (up to rounding)
                3 => Vec3::new(rng::uniform(r, -3.0, 3.0), rng::uniform(r, -3.0, 3.0), 0.5), // coplanar
                _ => rng::point(r, -1.0, 1.0).mul_elem(Vec3::new(8.0, 1.0, 0.125)), // elongated
            };
            rng::scale_pow2(p, e) + offset
        })
        .collect()
}

#[test]
fn every_point_is_contained_exactly() {
    let mut r = rng::rng(0xB0B0);
    let mut tally: [Tally; 6] = Default::default();
    for i in 0..rng::cases() / 250 {
        let pts = gen_cloud(&mut r);
        check_all(&pts, &format!("cloud {i}"), &mut tally);
    }
    report(&tally);
}

/// Brute-force minimal sphere (test-side, f64): the minimal ball is the
/// smallest ball through 2, 3 or 4 of the points that contains all of them.
fn brute_force_radius(pts: &[Vec3]) -> f64 {
    let p: Vec<[f64; 3]> = pts.iter().map(|v| [v.x as f64, v.y as f64, v.z as f64]).collect();
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    };
    let mut cands: Vec<[f64; 3]> = vec![p[0]];
    let n = p.len();
    for i in 0..n {
        for j in i + 1..n {
            cands.push([
                (p[i][0] + p[j][0]) / 2.0,
                (p[i][1] + p[j][1]) / 2.0,
                (p[i][2] + p[j][2]) / 2.0,
            ]);
            for k in j + 1..n {
                // Circumcenter: solve in the plane via the normal equations.
                let (u, v) = (sub(p[j], p[i]), sub(p[k], p[i]));
                let (uu, uv, vv) = (dot(u, u), dot(u, v), dot(v, v));
                let det = uu * vv - uv * uv;
                if det.abs() > 1e-12 * uu * vv {
                    let a = (vv * uu - uv * vv) / (2.0 * det);
                    let b = (uu * vv - uv * uu) / (2.0 * det);
                    cands.push([
                        p[i][0] + a * u[0] + b * v[0],
                        p[i][1] + a * u[1] + b * v[1],
                        p[i][2] + a * u[2] + b * v[2],
                    ]);
                }
                for l in k + 1..n {
                    let w = sub(p[l], p[i]);
                    let det3 = dot(u, cross(v, w));
                    if det3.abs() > 1e-9 * (uu * vv * dot(w, w)).sqrt() {
                        let (a, b, c) = (cross(v, w), cross(w, u), cross(u, v));
                        let (su, sv, sw) = (uu / 2.0, vv / 2.0, dot(w, w) / 2.0);
                        let x: Vec<f64> =
                            (0..3).map(|t| (su * a[t] + sv * b[t] + sw * c[t]) / det3).collect();
                        cands.push([p[i][0] + x[0], p[i][1] + x[1], p[i][2] + x[2]]);
                    }
                }
            }
        }
    }
    cands
        .iter()
        .map(|c| p.iter().map(|q| dot(sub(*q, *c), sub(*q, *c))).fold(0.0, f64::max).sqrt())
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn welzl_is_minimal_on_small_sets() {
    let mut r = rng::rng(0xB0B1);
    let mut worse_than_ritter = 0;
    for i in 0..2000 {
        let n = r.usize(1..8);
        let pts: Vec<Vec3> = (0..n)
            .map(|_| {
                if i % 2 == 0 {
                    rng::point(&mut r, -4.0, 4.0)
                } else {
                    rng::grid_point(&mut r, 3, 0)
                }
            })
            .collect();
        let w = minimal_sphere(&pts).unwrap();
        let rt = ritter_sphere(&pts).unwrap();
        let bf = brute_force_radius(&pts);
        // The brute-force minimum over candidate centers is an upper bound of the
        // true minimum and equals it (the optimum is one of the candidates).
        assert!(
            (w.radius as f64) <= bf * (1.0 + 1e-6) + 1e-6,
            "{pts:?}: welzl {} vs brute {bf}",
            w.radius
        );
        assert!(
            (w.radius as f64) >= bf * (1.0 - 1e-6) - 1e-6,
            "{pts:?}: welzl {} below brute {bf}",
            w.radius
        );
        if w.radius > rt.radius * (1.0 + 1e-6) {
            worse_than_ritter += 1;
        }
    }
    assert_eq!(worse_than_ritter, 0);
}

#[test]
fn builders_are_deterministic() {
    let mut r = rng::rng(0xB0B2);
    for _ in 0..200 {
        let pts = gen_cloud(&mut r);
        assert_eq!(minimal_sphere(&pts), minimal_sphere(&pts));
        assert_eq!(obb_from_points(&pts), obb_from_points(&pts));
    }
}

#[test]
fn kdop_bounds_are_tight_when_representable() {
    // Grid points: every projection ±x ± y ± z is exactly representable, so
    // the outward rounding must not move any bound.
    let mut r = rng::rng(0xB0B3);
    for _ in 0..500 {
        let pts: Vec<Vec3> = (0..r.usize(1..20)).map(|_| rng::grid_point(&mut r, 64, 3)).collect();
        let k: Dop26 = kdop_from_points(&pts).unwrap();
        for (i, axis) in Dop26::AXES.iter().enumerate() {
            let proj: Vec<f32> = pts.iter().map(|p| axis.dot(*p)).collect();
            let lo = proj.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = proj.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!((k.min[i], k.max[i]), (lo, hi), "axis {i}");
        }
    }
}

/// `f32` spacing at the largest coordinate of `c`.
fn ulp_at(c: Vec3) -> f64 {
    let m = c.x.abs().max(c.y.abs()).max(c.z.abs());
    (m.next_up() - m) as f64
}

/// Tiny clouds far from the origin: the `f32` rounding of the center then
/// dominates the radius. The documented bound `r*·(1 + 2^-38) + √3·ulp(c)`
/// holds, and Welzl's radius is never above Ritter's (the fitted Welzl
/// sphere can be the larger one when the centers round differently).
#[test]
fn tiny_radius_far_from_origin() {
    let mut r = rng::rng(0xB0B3);
    for i in 0..2000 {
        let n = r.usize(2..8);
        let far = 10f32.powi(r.i32(3..=9)) * if i % 2 == 0 { 1.0 } else { -1.0 };
        let spread = far * 10f32.powi(-r.i32(5..=8));
        let base = Vec3::new(far, far * 0.7, -far * 0.3);
        let pts: Vec<Vec3> = (0..n).map(|_| base + rng::point(&mut r, -spread, spread)).collect();
        let w = minimal_sphere(&pts).unwrap();
        let rt = ritter_sphere(&pts).unwrap();
        let bf = brute_force_radius(&pts);
        let bound = bf * (1.0 + 2f64.powi(-38)) + 3f64.sqrt() * ulp_at(w.center);
        assert!((w.radius as f64) <= bound, "{pts:?}: welzl {} > bound {bound}", w.radius);
        assert!(w.radius <= rt.radius, "{pts:?}: welzl {} > ritter {}", w.radius, rt.radius);
        for p in &pts {
            let (q, c) = (QV3::f(*p), QV3::f(w.center));
            let r = Q::f(w.radius);
            assert!((&q - &c).len2() <= r.clone() * r, "{p:?} outside {w:?}");
        }
    }
}
