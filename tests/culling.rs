//! The culling family: shapes vs plane/half-space, k-DOP overlap, frustum
//! classification and frustum extraction. Case tables replayed by the scalar
//! functions and every lane width/position, exact-reference property runs, and
//! analytic frustum-extraction checks.
use crate::common;

use common::cases::culling as cases;
use common::reference::culling as reference;
use common::rng::{self, grid, grid_point, nudge, point, uniform, Rng};
use common::{lanes, Tally};
use wide::{f32x16, f32x4, f32x8};
use widephase::overlap::{self, Classification, DepthRange};
use widephase::{Aabb, Cone, Frustum, Kdop, Lane, LaneMask, Obb, Plane, Sphere, Vec3, COORD_LIMIT};

// ------------------------------------------------------------ helpers ----

/// Whether any finite input is beyond `COORD_LIMIT` (only "no panic" and the
/// NaN rule are promised there).
fn beyond_limit(vals: &[f32]) -> bool {
    vals.iter().any(|v| v.is_finite() && v.abs() > COORD_LIMIT)
}
fn v3s(v: &[Vec3]) -> Vec<f32> {
    v.iter().flat_map(|p| p.to_array()).collect()
}
fn plane_vals(p: &Plane) -> Vec<f32> {
    let mut v = p.normal.to_array().to_vec();
    v.push(p.d);
    v
}
fn frustum_vals(f: &Frustum) -> Vec<f32> {
    f.planes.iter().flat_map(plane_vals).collect()
}

/// Records a default-variant comparison in a tally.
fn tally(t: &mut Tally, got: bool, exact: bool, in_band: bool, what: &dyn Fn() -> String) {
    t.cases += 1;
    t.exact_hits += exact as usize;
    if got != exact {
        if in_band {
            t.default_in_band += 1;
        } else {
            t.default_out_of_band += 1;
            if t.default_out_of_band <= 5 {
                eprintln!("OUT OF BAND: {}", what());
            }
        }
    }
}

fn check_tally(t: &Tally, name: &str, min_rate: f64, max_rate: f64) {
    t.report(name);
    assert_eq!(t.default_out_of_band, 0, "{name}: disagreements with exact outside the ulp band");
    let rate = t.exact_hits as f64 / t.cases as f64;
    assert!(
        rate >= min_rate && rate <= max_rate,
        "{name}: hit rate {rate} outside [{min_rate}, {max_rate}]: vacuous test"
    );
}

fn scale_plane(p: Plane, e: i32) -> Plane {
    Plane::new(p.normal, p.d * 2f32.powi(e))
}

/// A random exponent for replaying a case at another magnitude (within
/// `COORD_LIMIT` for coordinates below 16).
fn random_scale(r: &mut Rng) -> i32 {
    [0, 0, 0, -100, -40, -12, 12, 24, 35][r.usize(0..9)]
}

/// A random normal: uniform, small-integer grid (often axis-aligned or
/// diagonal, non-unit) or a unit axis.
fn random_normal(r: &mut Rng) -> Vec3 {
    loop {
        let n = match r.u32(0..4) {
            0 | 1 => point(r, -1.0, 1.0),
            2 => grid_point(r, 2, 0),
            _ => [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z][r.usize(0..6)],
        };
        if n != Vec3::ZERO || r.u32(0..50) == 0 {
            return n;
        }
    }
}

// ------------------------------------------------------ table replays ----

#[test]
fn sphere_plane_table() {
    for c in cases::sphere_plane_cases() {
        let got = (
            overlap::sphere_plane(&c.sphere, &c.plane),
            overlap::sphere_halfspace(&c.sphere, &c.plane),
        );
        let mut vals = v3s(&[c.sphere.center]);
        vals.push(c.sphere.radius);
        vals.extend(plane_vals(&c.plane));
        match reference::sphere_plane(&c.sphere, &c.plane) {
            None => {
                assert_eq!(
                    (c.surface, c.halfspace),
                    (false, false),
                    "{}: invalid input must expect false",
                    c.label
                );
                assert_eq!(got, (false, false), "{}: NaN rule", c.label);
            }
            Some(v) => {
                assert_eq!(
                    (v.surface, v.halfspace),
                    (c.surface, c.halfspace),
                    "{}: table disagrees with exact",
                    c.label
                );
                if !beyond_limit(&vals) {
                    assert!(got.0 == c.surface, "{}: surface {got:?}", c.label);
                    assert!(got.1 == c.halfspace, "{}: halfspace {got:?}", c.label);
                }
            }
        }
    }
}

#[test]
fn aabb_plane_table() {
    for c in cases::aabb_plane_cases() {
        let got =
            (overlap::aabb_plane(&c.aabb, &c.plane), overlap::aabb_halfspace(&c.aabb, &c.plane));
        let mut vals = v3s(&[c.aabb.min, c.aabb.max]);
        vals.extend(plane_vals(&c.plane));
        match reference::aabb_plane(&c.aabb, &c.plane) {
            None => {
                assert_eq!((c.surface, c.halfspace), (false, false), "{}", c.label);
                assert_eq!(got, (false, false), "{}: NaN/empty rule", c.label);
            }
            Some(v) => {
                assert_eq!(
                    (v.surface, v.halfspace),
                    (c.surface, c.halfspace),
                    "{}: table disagrees with exact",
                    c.label
                );
                if !beyond_limit(&vals) {
                    assert!(got.0 == c.surface, "{}: surface {got:?}", c.label);
                    assert!(got.1 == c.halfspace, "{}: halfspace {got:?}", c.label);
                }
            }
        }
    }
}

#[test]
fn obb_plane_table() {
    for c in cases::obb_plane_cases() {
        let got = (overlap::obb_plane(&c.obb, &c.plane), overlap::obb_halfspace(&c.obb, &c.plane));
        let mut vals = v3s(&[c.obb.center, c.obb.half]);
        vals.extend(plane_vals(&c.plane));
        match reference::obb_plane(&c.obb, &c.plane) {
            None => {
                assert_eq!((c.surface, c.halfspace), (false, false), "{}", c.label);
                assert_eq!(got, (false, false), "{}: NaN/empty rule", c.label);
            }
            Some(v) => {
                assert_eq!(
                    (v.surface, v.halfspace),
                    (c.surface, c.halfspace),
                    "{}: table disagrees with exact",
                    c.label
                );
                if !beyond_limit(&vals) {
                    assert!(got.0 == c.surface, "{}: surface {got:?}", c.label);
                    assert!(got.1 == c.halfspace, "{}: halfspace {got:?}", c.label);
                }
            }
        }
    }
}

#[test]
fn cone_plane_table() {
    for c in cases::cone_plane_cases() {
        let got =
            (overlap::cone_plane(&c.cone, &c.plane), overlap::cone_halfspace(&c.cone, &c.plane));
        let mut vals = v3s(&[c.cone.apex]);
        vals.extend([c.cone.height, c.cone.radius]);
        vals.extend(plane_vals(&c.plane));
        match reference::cone_plane(&c.cone, &c.plane) {
            None => {
                assert_eq!((c.surface, c.halfspace), (false, false), "{}", c.label);
                assert_eq!(got, (false, false), "{}: NaN/empty rule", c.label);
            }
            Some(v) => {
                assert_eq!(
                    (v.surface, v.halfspace),
                    (c.surface, c.halfspace),
                    "{}: table disagrees with exact",
                    c.label
                );
                if !beyond_limit(&vals) {
                    assert!(got.0 == c.surface, "{}: surface {got:?}", c.label);
                    assert!(got.1 == c.halfspace, "{}: halfspace {got:?}", c.label);
                }
            }
        }
    }
}

fn kdop_table<const N: usize>() {
    for c in cases::kdop_cases::<N>() {
        let got = overlap::kdop_kdop(&c.a, &c.b);
        let got_swapped = overlap::kdop_kdop(&c.b, &c.a);
        let slabs = overlap::kdop_kdop_slabs(&c.a, &c.b);
        assert_eq!(got, got_swapped, "N={N} {}: not symmetric", c.label);
        match reference::kdop_overlap(&c.a, &c.b) {
            None => assert!(!c.exact && !got && !slabs, "N={N} {}: NaN rule", c.label),
            Some(exact) => {
                assert_eq!(exact, c.exact, "N={N} {}: table disagrees with exact", c.label);
                // exact on the stored bounds: no band, at any magnitude
                assert_eq!(got, c.exact, "N={N} {}", c.label);
                assert_eq!(slabs, c.slabs, "N={N} {}: slab test", c.label);
            }
        }
    }
}

#[test]
fn kdop_tables() {
    kdop_table::<3>();
    kdop_table::<7>();
    kdop_table::<9>();
    kdop_table::<13>();
}

#[test]
fn frustum_sphere_table() {
    for c in cases::frustum_sphere_cases() {
        let got = overlap::frustum_sphere(&c.frustum, &c.sphere);
        let mut vals = frustum_vals(&c.frustum);
        vals.extend(v3s(&[c.sphere.center]));
        vals.push(c.sphere.radius);
        match reference::frustum_sphere(&c.frustum, &c.sphere) {
            None => {
                assert_eq!(c.expected, Classification::Outside, "{}", c.label);
                assert_eq!(got, Classification::Outside, "{}: NaN/empty rule", c.label);
            }
            Some(v) => {
                assert_eq!(v.class, c.expected, "{}: table disagrees with exact", c.label);
                if !beyond_limit(&vals) {
                    assert!(got == c.expected, "{}: got {got:?}", c.label);
                }
            }
        }
    }
}

#[test]
fn frustum_aabb_table() {
    for c in cases::frustum_aabb_cases() {
        let got = overlap::frustum_aabb(&c.frustum, &c.aabb);
        let mut vals = frustum_vals(&c.frustum);
        vals.extend(v3s(&[c.aabb.min, c.aabb.max]));
        match reference::frustum_aabb(&c.frustum, &c.aabb) {
            None => {
                assert_eq!(c.expected, Classification::Outside, "{}", c.label);
                assert_eq!(got, Classification::Outside, "{}: NaN/empty rule", c.label);
            }
            Some(v) => {
                assert_eq!(v.class, c.expected, "{}: table disagrees with exact", c.label);
                if !beyond_limit(&vals) {
                    assert!(got == c.expected, "{}: got {got:?}", c.label);
                }
            }
        }
    }
}

// ------------------------------------------------ lane-width replays ----

fn bit(m: impl LaneMask, pos: usize) -> bool {
    (m.bits() >> pos) & 1 == 1
}

fn replay_sphere_plane<L: Lane>() {
    let cs = cases::sphere_plane_cases();
    for (i, c) in cs.iter().enumerate() {
        for pos in 0..L::WIDTH {
            let idx = lanes::placement::<L>(cs.len(), i, pos);
            let s = Sphere::<L> {
                center: lanes::gather_v3(&cs, &idx, |c| c.sphere.center),
                radius: lanes::gather_f(&cs, &idx, |c| c.sphere.radius),
            };
            let p = Plane::<L> {
                normal: lanes::gather_v3(&cs, &idx, |c| c.plane.normal),
                d: lanes::gather_f(&cs, &idx, |c| c.plane.d),
            };
            let want = (
                overlap::sphere_plane(&c.sphere, &c.plane),
                overlap::sphere_halfspace(&c.sphere, &c.plane),
            );
            let got = (
                bit(overlap::sphere_plane::<L>(&s, &p), pos),
                bit(overlap::sphere_halfspace::<L>(&s, &p), pos),
            );
            assert_eq!(got, want, "width {} pos {pos}: {}", L::WIDTH, c.label);
        }
    }
}

fn replay_aabb_plane<L: Lane>() {
    let cs = cases::aabb_plane_cases();
    for (i, c) in cs.iter().enumerate() {
        for pos in 0..L::WIDTH {
            let idx = lanes::placement::<L>(cs.len(), i, pos);
            let b = Aabb::<L> {
                min: lanes::gather_v3(&cs, &idx, |c| c.aabb.min),
                max: lanes::gather_v3(&cs, &idx, |c| c.aabb.max),
            };
            let p = Plane::<L> {
                normal: lanes::gather_v3(&cs, &idx, |c| c.plane.normal),
                d: lanes::gather_f(&cs, &idx, |c| c.plane.d),
            };
            let want = (
                overlap::aabb_plane(&c.aabb, &c.plane),
                overlap::aabb_halfspace(&c.aabb, &c.plane),
            );
            let got = (
                bit(overlap::aabb_plane::<L>(&b, &p), pos),
                bit(overlap::aabb_halfspace::<L>(&b, &p), pos),
            );
            assert_eq!(got, want, "width {} pos {pos}: {}", L::WIDTH, c.label);
        }
    }
}

fn replay_frustum<L: Lane>() {
    // Lanes hold different spheres/boxes; the frustum is broadcast, so each
    // case's frustum is used with its neighbours' shapes as realistic garbage.
    let cs = cases::frustum_sphere_cases();
    for (i, c) in cs.iter().enumerate() {
        for pos in 0..L::WIDTH {
            let idx = lanes::placement::<L>(cs.len(), i, pos);
            let s = Sphere::<L> {
                center: lanes::gather_v3(&cs, &idx, |c| c.sphere.center),
                radius: lanes::gather_f(&cs, &idx, |c| c.sphere.radius),
            };
            let (out, inside) = overlap::frustum_sphere_masks::<L>(&c.frustum, &s);
            for (lane, &j) in idx.iter().enumerate() {
                let want = overlap::frustum_sphere_masks::<f32>(&c.frustum, &cs[j].sphere);
                assert_eq!(
                    (bit(out, lane), bit(inside, lane)),
                    want,
                    "width {} lane {lane}: {}",
                    L::WIDTH,
                    c.label
                );
            }
        }
    }
    let cs = cases::frustum_aabb_cases();
    for (i, c) in cs.iter().enumerate() {
        for pos in 0..L::WIDTH {
            let idx = lanes::placement::<L>(cs.len(), i, pos);
            let b = Aabb::<L> {
                min: lanes::gather_v3(&cs, &idx, |c| c.aabb.min),
                max: lanes::gather_v3(&cs, &idx, |c| c.aabb.max),
            };
            let (out, inside) = overlap::frustum_aabb_masks::<L>(&c.frustum, &b);
            for (lane, &j) in idx.iter().enumerate() {
                let want = overlap::frustum_aabb_masks::<f32>(&c.frustum, &cs[j].aabb);
                assert_eq!(
                    (bit(out, lane), bit(inside, lane)),
                    want,
                    "width {} lane {lane}: {}",
                    L::WIDTH,
                    c.label
                );
            }
        }
    }
}

#[test]
fn lane_widths_match_scalar_bit_for_bit() {
    replay_sphere_plane::<f32x4>();
    replay_sphere_plane::<f32x8>();
    replay_sphere_plane::<f32x16>();
    replay_aabb_plane::<f32x4>();
    replay_aabb_plane::<f32x8>();
    replay_aabb_plane::<f32x16>();
    replay_frustum::<f32x4>();
    replay_frustum::<f32x8>();
    replay_frustum::<f32x16>();
}

/// Random packs (not just the table): every lane of a 16-wide pack equals the
/// scalar answer for that lane, for all six lane-generic kernels.
#[test]
fn random_packs_match_scalar() {
    let mut r = rng::rng(0xC011_0001);
    let frusta = [cases::cube_frustum(1.0), cases::diamond_frustum(), cases::perspective_frustum()];
    for _ in 0..(rng::cases() / 50).max(200) {
        let spheres: Vec<Sphere> =
            (0..16).map(|_| Sphere::new(grid_point(&mut r, 8, 2), grid(&mut r, 4, 2))).collect();
        let boxes: Vec<Aabb> = (0..16)
            .map(|_| {
                let (a, b) = (grid_point(&mut r, 8, 2), grid_point(&mut r, 8, 2));
                if r.u32(0..10) == 0 {
                    Aabb::new(a, b)
                } else {
                    Aabb::new(a.min(b), a.max(b))
                }
            })
            .collect();
        let planes: Vec<Plane> =
            (0..16).map(|_| Plane::new(random_normal(&mut r), grid(&mut r, 8, 2))).collect();
        let s = Sphere::<f32x16> {
            center: lanes::v3(&spheres.iter().map(|s| s.center).collect::<Vec<_>>()),
            radius: f32x16::new(core::array::from_fn(|i| spheres[i].radius)),
        };
        let b = Aabb::<f32x16> {
            min: lanes::v3(&boxes.iter().map(|b| b.min).collect::<Vec<_>>()),
            max: lanes::v3(&boxes.iter().map(|b| b.max).collect::<Vec<_>>()),
        };
        let p = Plane::<f32x16> {
            normal: lanes::v3(&planes.iter().map(|p| p.normal).collect::<Vec<_>>()),
            d: f32x16::new(core::array::from_fn(|i| planes[i].d)),
        };
        let f = &frusta[r.usize(0..3)];
        let masks = [
            overlap::sphere_plane(&s, &p),
            overlap::sphere_halfspace(&s, &p),
            overlap::aabb_plane(&b, &p),
            overlap::aabb_halfspace(&b, &p),
        ];
        let (so, si) = overlap::frustum_sphere_masks(f, &s);
        let (bo, bi) = overlap::frustum_aabb_masks(f, &b);
        for l in 0..16 {
            let want = [
                overlap::sphere_plane(&spheres[l], &planes[l]),
                overlap::sphere_halfspace(&spheres[l], &planes[l]),
                overlap::aabb_plane(&boxes[l], &planes[l]),
                overlap::aabb_halfspace(&boxes[l], &planes[l]),
            ];
            for k in 0..4 {
                assert_eq!(bit(masks[k], l), want[k], "kernel {k} lane {l}");
            }
            assert_eq!(
                (bit(so, l), bit(si, l)),
                overlap::frustum_sphere_masks::<f32>(f, &spheres[l])
            );
            assert_eq!((bit(bo, l), bit(bi, l)), overlap::frustum_aabb_masks::<f32>(f, &boxes[l]));
        }
    }
}

// ---------------------------------------------------- property runs ----

/// Whether every value is a small multiple of `2^(e-2)` for one of the
/// generators' scales `2^e`: with small-integer normals, every product and sum
/// the kernels form is then exact in f32, so the kernel must agree with exact
/// arithmetic even at exact contact (the band cannot excuse it). This is what
/// catches a `<` written for a `<=`.
fn exact_in_f32(vals: &[f32]) -> bool {
    [0, -100, -40, -12, 12, 24, 35].iter().any(|&e| {
        vals.iter().all(|&x| {
            let y = x * 2f32.powi(-e);
            (y * 4.0).fract() == 0.0 && y.abs() <= 128.0
        })
    })
}

fn small_int(n: Vec3) -> bool {
    n.to_array().iter().all(|c| c.fract() == 0.0 && c.abs() <= 2.0)
}

/// A small-integer normal whose length is an integer (at most one non-zero
/// component), so `r·|n|` is exact too.
fn axis_int(n: Vec3) -> bool {
    small_int(n) && n.to_array().iter().filter(|c| **c != 0.0).count() <= 1
}

fn check_strict(strict: usize, total: usize, name: &str) {
    eprintln!("{name}: {strict} of {total} cases computed without rounding, all exact");
    assert!(strict * 100 > total, "{name}: too few rounding-free cases ({strict})");
}

fn gen_sphere_plane(r: &mut Rng) -> (Sphere, Plane) {
    let n = random_normal(r);
    let (center, radius, d) = match r.u32(0..3) {
        0 => (point(r, -4.0, 4.0), uniform(r, 0.0, 2.0), uniform(r, -6.0, 6.0)),
        1 => (grid_point(r, 8, 2), grid(r, 8, 2).abs(), grid(r, 24, 2)),
        _ => {
            // constructed touching (front or back side, or center on plane), then nudged
            let c = point(r, -4.0, 4.0);
            let rad = uniform(r, 0.0, 2.0);
            let reach = rad * n.length();
            let nc = n.dot(c);
            let d = match r.u32(0..3) {
                0 => nc - reach,
                1 => nc + reach,
                _ => nc,
            };
            (c, rad, nudge(d, r.i32(-3..=3)))
        }
    };
    let e = random_scale(r);
    let s = 2f32.powi(e);
    (Sphere::new(center * s, radius * s), scale_plane(Plane::new(n, d), e))
}

#[test]
fn sphere_plane_matches_exact() {
    let mut r = rng::rng(0xC011_0002);
    let (mut ts, mut th) = (Tally::default(), Tally::default());
    let mut n_strict = 0;
    for _ in 0..rng::cases() {
        let (s, p) = gen_sphere_plane(&mut r);
        let strict = axis_int(p.normal)
            && exact_in_f32(&[s.center.x, s.center.y, s.center.z, s.radius, p.d]);
        let (surface, halfspace) =
            reference::sphere_plane_fast(&s, &p).expect("generated inputs are valid");
        let got = (overlap::sphere_plane(&s, &p), overlap::sphere_halfspace(&s, &p));
        if strict {
            n_strict += 1;
            assert_eq!(got, (surface, halfspace), "no rounding happened, yet not exact");
        }
        // the band (rational) only where the crate disagrees
        let v = if got != (surface, halfspace) { reference::sphere_plane(&s, &p) } else { None };
        let band = |f: fn(&reference::Verdict) -> bool| v.as_ref().is_some_and(f);
        let what = || format!("{s:?} {p:?} {v:?}");
        tally(&mut ts, got.0, surface, band(|v| v.surface_in_band), &what);
        tally(&mut th, got.1, halfspace, band(|v| v.halfspace_in_band), &what);
    }
    check_tally(&ts, "sphere_plane", 0.1, 0.9);
    check_strict(n_strict, ts.cases, "sphere_plane");
    check_tally(&th, "sphere_halfspace", 0.1, 0.95);
}

fn gen_box(r: &mut Rng) -> Aabb {
    let (a, b) = if r.bool() {
        (point(r, -4.0, 4.0), point(r, -4.0, 4.0))
    } else {
        (grid_point(r, 8, 2), grid_point(r, 8, 2))
    };
    let mut bx = Aabb::new(a.min(b), a.max(b));
    if r.u32(0..8) == 0 {
        bx.max.set(r.usize(0..3), bx.min.get(r.usize(0..3))); // flat boxes
        bx = Aabb::new(bx.min.min(bx.max), bx.min.max(bx.max));
    }
    bx
}

fn gen_aabb_plane(r: &mut Rng) -> (Aabb, Plane) {
    let bx = gen_box(r);
    let n = random_normal(r);
    let d = match r.u32(0..3) {
        0 => uniform(r, -8.0, 8.0),
        1 => grid(r, 32, 2),
        _ => {
            let corners = reference::corners(&bx);
            let c = corners[r.usize(0..8)];
            nudge(n.dot(c), r.i32(-3..=3))
        }
    };
    let e = random_scale(r);
    let s = 2f32.powi(e);
    (Aabb::new(bx.min * s, bx.max * s), scale_plane(Plane::new(n, d), e))
}

#[test]
fn aabb_plane_matches_exact() {
    let mut r = rng::rng(0xC011_0003);
    let (mut ts, mut th) = (Tally::default(), Tally::default());
    let mut n_strict = 0;
    for _ in 0..rng::cases() {
        let (b, p) = gen_aabb_plane(&mut r);
        let mut vals = v3s(&[b.min, b.max]);
        vals.push(p.d);
        let strict = small_int(p.normal) && exact_in_f32(&vals);
        let (surface, halfspace) =
            reference::aabb_plane_fast(&b, &p).expect("generated inputs are valid");
        let got = (overlap::aabb_plane(&b, &p), overlap::aabb_halfspace(&b, &p));
        if strict {
            n_strict += 1;
            assert_eq!(got, (surface, halfspace), "no rounding happened, yet not exact");
        }
        // the band (rational) only where the crate disagrees
        let v = if got != (surface, halfspace) { reference::aabb_plane(&b, &p) } else { None };
        let band = |f: fn(&reference::Verdict) -> bool| v.as_ref().is_some_and(f);
        let what = || format!("{b:?} {p:?} {v:?}");
        tally(&mut ts, got.0, surface, band(|v| v.surface_in_band), &what);
        tally(&mut th, got.1, halfspace, band(|v| v.halfspace_in_band), &what);
    }
    check_tally(&ts, "aabb_plane", 0.1, 0.9);
    check_strict(n_strict, ts.cases, "aabb_plane");
    check_tally(&th, "aabb_halfspace", 0.1, 0.95);
}

/// Axes of a random rotation (from a normalised random quaternion, so only
/// approximately orthonormal: the reference treats the exact parallelepiped), or
/// a signed permutation of the coordinate axes.
fn random_axes(r: &mut Rng) -> [Vec3; 3] {
    if r.u32(0..3) == 0 {
        let perm = [[0, 1, 2], [1, 2, 0], [2, 0, 1]][r.usize(0..3)];
        let unit = [Vec3::X, Vec3::Y, Vec3::Z];
        return perm.map(|k| if r.bool() { unit[k] } else { -unit[k] });
    }
    let (w, x, y, z) = loop {
        let q = (
            uniform(r, -1.0, 1.0),
            uniform(r, -1.0, 1.0),
            uniform(r, -1.0, 1.0),
            uniform(r, -1.0, 1.0),
        );
        let l = (q.0 * q.0 + q.1 * q.1 + q.2 * q.2 + q.3 * q.3).sqrt();
        if l > 0.1 {
            break (q.0 / l, q.1 / l, q.2 / l, q.3 / l);
        }
    };
    [
        Vec3::new(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)),
        Vec3::new(2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)),
        Vec3::new(2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)),
    ]
}

fn gen_obb_plane(r: &mut Rng) -> (Obb, Plane) {
    let axes = random_axes(r);
    let (c, half) = if r.bool() {
        (
            point(r, -4.0, 4.0),
            Vec3::new(uniform(r, 0.0, 2.0), uniform(r, 0.0, 2.0), uniform(r, 0.0, 2.0)),
        )
    } else {
        (grid_point(r, 8, 2), grid_point(r, 8, 2).abs())
    };
    let n = random_normal(r);
    let d = match r.u32(0..3) {
        0 => uniform(r, -8.0, 8.0),
        1 => grid(r, 32, 2),
        _ => {
            let rad = half.x * axes[0].dot(n).abs()
                + half.y * axes[1].dot(n).abs()
                + half.z * axes[2].dot(n).abs();
            let s = n.dot(c);
            nudge(if r.bool() { s + rad } else { s - rad }, r.i32(-3..=3))
        }
    };
    let e = random_scale(r);
    let s = 2f32.powi(e);
    (Obb::new(c * s, axes, half * s), scale_plane(Plane::new(n, d), e))
}

#[test]
fn obb_plane_matches_exact() {
    let mut r = rng::rng(0xC011_0004);
    let (mut ts, mut th) = (Tally::default(), Tally::default());
    let mut n_strict = 0;
    for _ in 0..rng::cases() {
        let (o, p) = gen_obb_plane(&mut r);
        let mut vals = v3s(&[o.center, o.half]);
        vals.push(p.d);
        let strict =
            o.axes.iter().all(|&a| small_int(a) && a.abs().to_array().iter().sum::<f32>() == 1.0)
                && small_int(p.normal)
                && exact_in_f32(&vals);
        let (surface, halfspace) =
            reference::obb_plane_fast(&o, &p).expect("generated inputs are valid");
        let got = (overlap::obb_plane(&o, &p), overlap::obb_halfspace(&o, &p));
        if strict {
            n_strict += 1;
            assert_eq!(got, (surface, halfspace), "no rounding happened, yet not exact");
        }
        // the band (rational) only where the crate disagrees
        let v = if got != (surface, halfspace) { reference::obb_plane(&o, &p) } else { None };
        let band = |f: fn(&reference::Verdict) -> bool| v.as_ref().is_some_and(f);
        let what = || format!("{o:?} {p:?} {v:?}");
        tally(&mut ts, got.0, surface, band(|v| v.surface_in_band), &what);
        tally(&mut th, got.1, halfspace, band(|v| v.halfspace_in_band), &what);
    }
    check_tally(&ts, "obb_plane", 0.1, 0.9);
    check_strict(n_strict, ts.cases, "obb_plane");
    check_tally(&th, "obb_halfspace", 0.1, 0.95);
}

fn gen_cone_plane(r: &mut Rng) -> (Cone, Plane) {
    let axis = match r.u32(0..3) {
        0 => random_axes(r)[0],
        1 => loop {
            let a = grid_point(r, 2, 0);
            if a != Vec3::ZERO {
                break a;
            }
        },
        _ => point(r, -1.0, 1.0),
    };
    let axis = if axis == Vec3::ZERO { Vec3::X } else { axis };
    let (apex, h, rad) = if r.bool() {
        (point(r, -4.0, 4.0), uniform(r, 0.0, 3.0), uniform(r, 0.0, 2.0))
    } else {
        (grid_point(r, 8, 2), grid(r, 8, 2).abs(), grid(r, 8, 2).abs())
    };
    let n = random_normal(r);
    let d = match r.u32(0..3) {
        0 => uniform(r, -8.0, 8.0),
        1 => grid(r, 32, 2),
        _ => {
            // touching at the apex or at a base rim extreme (computed in f64), nudged
            let a = n.dot(apex) as f64;
            let b = a + h as f64 * n.dot(axis) as f64;
            let nn = n.cross(axis);
            let rho = rad as f64 * ((nn.dot(nn) as f64).sqrt() / (axis.dot(axis) as f64).sqrt());
            let t = [a, b - rho, b + rho][r.usize(0..3)];
            nudge(t as f32, r.i32(-3..=3))
        }
    };
    let e = random_scale(r);
    let s = 2f32.powi(e);
    (Cone::new(apex * s, axis, h * s, rad * s), scale_plane(Plane::new(n, d), e))
}

#[test]
fn cone_plane_matches_exact() {
    let mut r = rng::rng(0xC011_0005);
    let (mut ts, mut th) = (Tally::default(), Tally::default());
    let mut n_strict = 0;
    for _ in 0..rng::cases() {
        let (c, p) = gen_cone_plane(&mut r);
        let strict = false; // square roots round: no rounding-free cases
        let (surface, halfspace) =
            reference::cone_plane_fast(&c, &p).expect("generated inputs are valid");
        let got = (overlap::cone_plane(&c, &p), overlap::cone_halfspace(&c, &p));
        if strict {
            n_strict += 1;
            assert_eq!(got, (surface, halfspace), "no rounding happened, yet not exact");
        }
        // the band (rational) only where the crate disagrees
        let v = if got != (surface, halfspace) { reference::cone_plane(&c, &p) } else { None };
        let band = |f: fn(&reference::Verdict) -> bool| v.as_ref().is_some_and(f);
        let what = || format!("{c:?} {p:?} {v:?}");
        tally(&mut ts, got.0, surface, band(|v| v.surface_in_band), &what);
        tally(&mut th, got.1, halfspace, band(|v| v.halfspace_in_band), &what);
    }
    check_tally(&ts, "cone_plane", 0.1, 0.9);
    assert_eq!(n_strict, 0);
    check_tally(&th, "cone_halfspace", 0.1, 0.95);
}

/// A random frustum: one of the hand-built ones, or extracted from a random
/// perspective/orthographic matrix (either depth convention) times a rotation.
fn random_frustum(r: &mut Rng) -> Frustum {
    match r.u32(0..5) {
        0 => cases::cube_frustum([0.5, 1.0, 2.0][r.usize(0..3)]),
        1 => cases::diamond_frustum(),
        2 => cases::perspective_frustum(),
        _ => {
            let depth = if r.bool() { DepthRange::NegativeOneToOne } else { DepthRange::ZeroToOne };
            let proj = if r.bool() {
                perspective(
                    uniform(r, 0.5, 2.0) as f64,
                    uniform(r, 0.5, 2.0) as f64,
                    uniform(r, 0.2, 1.0) as f64,
                    uniform(r, 4.0, 10.0) as f64,
                    depth,
                )
            } else {
                orthographic(
                    uniform(r, 1.0, 4.0) as f64,
                    uniform(r, 1.0, 4.0) as f64,
                    uniform(r, 0.0, 1.0) as f64,
                    uniform(r, 3.0, 8.0) as f64,
                    depth,
                )
            };
            let ax = random_axes(r);
            let view = view_matrix(ax, point(r, -1.0, 1.0));
            Frustum::from_view_projection(&to_f32(&mul(&proj, &view)), depth)
        }
    }
}

fn gen_frustum_sphere(r: &mut Rng) -> (Frustum, Sphere) {
    let f = random_frustum(r);
    let s = match r.u32(0..4) {
        0 => Sphere::new(point(r, -6.0, 6.0), uniform(r, 0.0, 2.0)),
        3 => {
            // small sphere around a point inside (Inside must be common)
            let mut c = point(r, -3.0, 3.0);
            for _ in 0..30 {
                if f.contains_point(c) {
                    break;
                }
                c = point(r, -3.0, 3.0);
            }
            Sphere::new(c, uniform(r, 0.0, 0.3))
        }
        1 => Sphere::new(grid_point(r, 16, 2), grid(r, 8, 2).abs()),
        _ => {
            // touching one plane (inside or outside), nudged
            let p = f.planes[r.usize(0..6)];
            let c = point(r, -4.0, 4.0);
            let len = p.normal.length();
            let rad = uniform(r, 0.0, 2.0);
            let dist = (p.normal.dot(c) - p.d) / len;
            let target = if r.bool() { rad } else { -rad };
            let c = c + p.normal * ((target - dist) / len);
            Sphere::new(c, nudge(rad, r.i32(-3..=3)).max(0.0))
        }
    };
    (f, s)
}

#[test]
fn frustum_sphere_matches_exact() {
    let mut r = rng::rng(0xC011_0006);
    let mut t = Tally::default();
    let mut counts = [0usize; 3];
    let mut n_strict = 0;
    for _ in 0..rng::cases() {
        let (f, s) = gen_frustum_sphere(&mut r);
        let mut vals: Vec<f32> = f.planes.iter().map(|p| p.d).collect();
        vals.extend([s.center.x, s.center.y, s.center.z, s.radius]);
        let strict = f.planes.iter().all(|p| axis_int(p.normal)) && exact_in_f32(&vals);
        let class = reference::frustum_sphere_fast(&f, &s).expect("valid");
        let got = overlap::frustum_sphere(&f, &s);
        counts[class as usize] += 1;
        if strict {
            n_strict += 1;
            assert_eq!(got, class, "no rounding happened, yet not exact: {f:?} {s:?}");
        }
        let in_band = got != class && reference::frustum_sphere(&f, &s).unwrap().in_band;
        // tally "not culled" (the culling decision) against exact, then the full class
        let what = || format!("{f:?} {s:?} exact {class:?} got {got:?}");
        tally(
            &mut t,
            got != Classification::Outside,
            class != Classification::Outside,
            in_band,
            &what,
        );
        assert!(got == class || in_band, "class disagrees out of band: {}", what());
    }
    eprintln!("frustum_sphere classes (Outside, Inside, Intersecting) = {counts:?}");
    check_tally(&t, "frustum_sphere", 0.1, 0.9);
    check_strict(n_strict, t.cases, "frustum_sphere");
    assert!(counts.iter().all(|&c| c * 20 > t.cases), "each class must be common: {counts:?}");
}

fn gen_frustum_aabb(r: &mut Rng) -> (Frustum, Aabb) {
    let f = random_frustum(r);
    let b = match r.u32(0..4) {
        3 => {
            let mut c = point(r, -3.0, 3.0);
            for _ in 0..30 {
                if f.contains_point(c) {
                    break;
                }
                c = point(r, -3.0, 3.0);
            }
            let h = point(r, 0.0, 0.3);
            Aabb::new(c - h, c + h)
        }
        0 | 1 => {
            let mut b = gen_box(r);
            b.min = b.min * 2.0;
            b.max = b.max * 2.0;
            if r.bool() {
                // smaller boxes
                let c = b.center();
                b = Aabb::new(c - b.half_extents() * 0.25, c + b.half_extents() * 0.25);
            }
            b
        }
        _ => {
            // a box whose n-vertex (or p-vertex) for one plane touches it, nudged
            let p = f.planes[r.usize(0..6)];
            let c = point(r, -3.0, 3.0);
            let h = Vec3::new(uniform(r, 0.0, 1.0), uniform(r, 0.0, 1.0), uniform(r, 0.0, 1.0));
            let mut b = Aabb::new(c - h, c + h);
            let n = p.normal;
            let (q, pv) = {
                let pick = |k: usize, pos: bool| {
                    if (n.get(k) >= 0.0) == pos {
                        b.max.get(k)
                    } else {
                        b.min.get(k)
                    }
                };
                (
                    Vec3::new(pick(0, false), pick(1, false), pick(2, false)),
                    Vec3::new(pick(0, true), pick(1, true), pick(2, true)),
                )
            };
            let v = if r.bool() { q } else { pv };
            let shift = (p.d - n.dot(v)) / n.length_squared().max(1e-6);
            b = Aabb::new(b.min + n * shift, b.max + n * shift);
            let k = r.usize(0..3);
            b.min.set(k, nudge(b.min.get(k), r.i32(-2..=2)));
            b.max.set(k, nudge(b.max.get(k), r.i32(0..=3)));
            b
        }
    };
    (f, b)
}

#[test]
fn frustum_aabb_matches_exact() {
    let mut r = rng::rng(0xC011_0007);
    let mut t = Tally::default();
    let mut counts = [0usize; 3];
    let mut n_strict = 0;
    for _ in 0..rng::cases() {
        let (f, b) = gen_frustum_aabb(&mut r);
        let Some(class) = reference::frustum_aabb_fast(&f, &b) else { continue };
        let mut vals: Vec<f32> = f.planes.iter().map(|p| p.d).collect();
        vals.extend(v3s(&[b.min, b.max]));
        let strict = f.planes.iter().all(|p| small_int(p.normal)) && exact_in_f32(&vals);
        let got = overlap::frustum_aabb(&f, &b);
        counts[class as usize] += 1;
        if strict {
            n_strict += 1;
            assert_eq!(got, class, "no rounding happened, yet not exact: {f:?} {b:?}");
        }
        let in_band = got != class && reference::frustum_aabb(&f, &b).unwrap().in_band;
        let what = || format!("{f:?} {b:?} exact {class:?} got {got:?}");
        tally(
            &mut t,
            got != Classification::Outside,
            class != Classification::Outside,
            in_band,
            &what,
        );
        assert!(got == class || in_band, "class disagrees out of band: {}", what());
    }
    eprintln!("frustum_aabb classes (Outside, Inside, Intersecting) = {counts:?}");
    check_tally(&t, "frustum_aabb", 0.1, 0.9);
    check_strict(n_strict, t.cases, "frustum_aabb");
    assert!(counts.iter().all(|&c| c * 20 > t.cases), "each class must be common: {counts:?}");
}

// ------------------------------------------------------------ k-DOPs ----

fn gen_kdop<const N: usize>(r: &mut Rng, around: Vec3) -> Kdop<N> {
    let npts = r.usize(1..5);
    let grid_mode = r.bool();
    let pts: Vec<Vec3> = (0..npts)
        .map(|_| around + if grid_mode { grid_point(r, 4, 2) } else { point(r, -1.0, 1.0) })
        .collect();
    let mut k = cases::tight::<N>(&pts);
    // loosen or tighten a few bounds (non-tight and possibly empty DOPs)
    for _ in 0..r.usize(0..3) {
        let i = r.usize(0..N);
        match r.u32(0..3) {
            0 => k.min[i] = nudge(k.min[i], r.i32(-2..=2)),
            1 => k.max[i] = nudge(k.max[i], r.i32(-2..=2)),
            _ => {
                let w = k.max[i] - k.min[i];
                k.max[i] -= w * 0.5;
            }
        }
    }
    k
}

fn kdop_property<const N: usize>(seed: u64, count: usize) {
    let mut r = rng::rng(seed);
    let mut t = Tally::default();
    let mut slab_false_pos = 0;
    for _ in 0..count {
        let a = gen_kdop::<N>(&mut r, Vec3::ZERO);
        let off = if r.bool() { grid_point(&mut r, 3, 2) } else { point(&mut r, -0.8, 0.8) };
        let b = gen_kdop::<N>(&mut r, off);
        let e = random_scale(&mut r);
        let s = 2f32.powi(e);
        let scale = |k: Kdop<N>| Kdop::<N> { min: k.min.map(|x| x * s), max: k.max.map(|x| x * s) };
        let (a, b) = (scale(a), scale(b));
        let exact = reference::kdop_overlap(&a, &b).expect("finite");
        let got = overlap::kdop_kdop(&a, &b);
        let slabs = overlap::kdop_kdop_slabs(&a, &b);
        tally(&mut t, got, exact, false, &|| format!("{a:?} {b:?} exact {exact}"));
        assert!(slabs || !exact, "slab test missed an overlap: {a:?} {b:?}");
        slab_false_pos += (slabs && !exact) as usize;
    }
    eprintln!("kdop N={N}: slab-test false positives {slab_false_pos} of {count}");
    check_tally(&t, &format!("kdop_kdop<{N}>"), 0.1, 0.9);
    if N > 3 {
        assert!(slab_false_pos > 0, "the generator must produce slab false positives for N={N}");
    } else {
        assert_eq!(slab_false_pos, 0, "the slab test is exact for AABBs");
    }
}

#[test]
fn kdop_matches_exact() {
    let n = rng::cases() / 4;
    kdop_property::<3>(0xC011_0008, n);
    kdop_property::<7>(0xC011_0009, n);
    kdop_property::<9>(0xC011_000A, n);
    kdop_property::<13>(0xC011_000B, n);
}

/// Cross-check of the k-DOP reference (vertex enumeration of the intersection)
/// against `exact::origin_in_hull` on the two DOPs' own vertex sets, which uses
/// no slab axis at all.
#[test]
fn kdop_reference_agrees_with_hull_test() {
    let mut r = rng::rng(0xC011_000C);
    let mut hits = 0;
    let count = if cfg!(debug_assertions) { 10 } else { 40 };
    for _ in 0..count {
        let pa: Vec<Vec3> = (0..r.usize(1..4)).map(|_| grid_point(&mut r, 1, 1)).collect();
        let pb: Vec<Vec3> = (0..r.usize(1..4)).map(|_| grid_point(&mut r, 1, 1)).collect();
        let a = cases::tight::<7>(&pa);
        let b = cases::tight::<7>(&pb);
        let va = reference::kdop_vertices(&a);
        let vb = reference::kdop_vertices(&b);
        let diffs: Vec<_> = va.iter().flat_map(|p| vb.iter().map(move |q| p - q)).collect();
        let hull = common::exact::origin_in_hull(&diffs);
        let exact = reference::kdop_overlap(&a, &b).unwrap();
        assert_eq!(hull, exact, "{a:?} {b:?}");
        assert_eq!(overlap::kdop_kdop(&a, &b), exact);
        hits += exact as usize;
    }
    assert!(hits > count / 10 && hits < count * 9 / 10, "hits {hits} of {count}");
}

// ------------------------------------------------ frustum extraction ----

type M4 = [[f64; 4]; 4]; // column-major: m[col][row]

fn mul(a: &M4, b: &M4) -> M4 {
    let mut out = [[0.0; 4]; 4];
    for c in 0..4 {
        for row in 0..4 {
            out[c][row] = (0..4).map(|k| a[k][row] * b[c][k]).sum();
        }
    }
    out
}

fn to_f32(m: &M4) -> [[f32; 4]; 4] {
    m.map(|c| c.map(|x| x as f32))
}

/// OpenGL/glam `perspective_rh` (depth -1..1) or `perspective_rh` for 0..1:
/// looks down -z; `tan_half_fovy`, aspect = width/height.
fn perspective(tan_half_fovy: f64, aspect: f64, near: f64, far: f64, depth: DepthRange) -> M4 {
    let f = 1.0 / tan_half_fovy;
    let (a, b) = match depth {
        DepthRange::NegativeOneToOne => {
            ((far + near) / (near - far), 2.0 * far * near / (near - far))
        }
        DepthRange::ZeroToOne => (far / (near - far), far * near / (near - far)),
    };
    [[f / aspect, 0.0, 0.0, 0.0], [0.0, f, 0.0, 0.0], [0.0, 0.0, a, -1.0], [0.0, 0.0, b, 0.0]]
}

/// Orthographic box `|x| <= hw`, `|y| <= hh`, `-far <= z <= -near`.
fn orthographic(hw: f64, hh: f64, near: f64, far: f64, depth: DepthRange) -> M4 {
    let (a, b) = match depth {
        DepthRange::NegativeOneToOne => (-2.0 / (far - near), -(far + near) / (far - near)),
        DepthRange::ZeroToOne => (-1.0 / (far - near), -near / (far - near)),
    };
    [[1.0 / hw, 0.0, 0.0, 0.0], [0.0, 1.0 / hh, 0.0, 0.0], [0.0, 0.0, a, 0.0], [0.0, 0.0, b, 1.0]]
}

/// World-to-view: rotation with rows `ax` then translation by `-eye`.
#[allow(clippy::needless_range_loop)]
fn view_matrix(ax: [Vec3; 3], eye: Vec3) -> M4 {
    let mut m = [[0.0; 4]; 4];
    for row in 0..3 {
        for c in 0..3 {
            m[c][row] = ax[row].get(c) as f64;
        }
        m[3][row] = -(0..3).map(|c| ax[row].get(c) as f64 * eye.get(c) as f64).sum::<f64>();
    }
    m[3][3] = 1.0;
    m
}

/// Clip-volume membership of a world point with a margin: `Some(inside)` when
/// every inequality holds (or one fails) by more than `margin·w`-ish; `None`
/// when too close to call with a rounded f32 matrix.
fn clip_inside(m: &M4, p: Vec3, depth: DepthRange) -> Option<bool> {
    let s = [p.x as f64, p.y as f64, p.z as f64, 1.0];
    let t: Vec<f64> = (0..4).map(|row| (0..4).map(|c| m[c][row] * s[c]).sum()).collect();
    let (x, y, z, w) = (t[0], t[1], t[2], t[3]);
    let zlo = match depth {
        DepthRange::NegativeOneToOne => -w,
        DepthRange::ZeroToOne => 0.0,
    };
    // margins of the six inequalities (positive = satisfied)
    let margins = [x + w, w - x, y + w, w - y, z - zlo, w - z];
    let scale = 1e-3 * (1.0 + x.abs() + y.abs() + z.abs() + w.abs());
    if margins.iter().any(|&g| g < -scale) {
        Some(false)
    } else if margins.iter().all(|&g| g > scale) {
        Some(true)
    } else {
        None
    }
}

#[test]
fn frustum_from_matrix_matches_clip_volume() {
    let mut r = rng::rng(0xC011_000D);
    let mut decided = [0usize; 2];
    for round in 0..400 {
        let depth =
            if round % 2 == 0 { DepthRange::NegativeOneToOne } else { DepthRange::ZeroToOne };
        let proj = if round % 4 < 2 {
            perspective(
                uniform(&mut r, 0.3, 2.0) as f64,
                uniform(&mut r, 0.5, 2.0) as f64,
                uniform(&mut r, 0.1, 1.0) as f64,
                uniform(&mut r, 5.0, 50.0) as f64,
                depth,
            )
        } else {
            orthographic(
                uniform(&mut r, 1.0, 5.0) as f64,
                uniform(&mut r, 1.0, 5.0) as f64,
                uniform(&mut r, -1.0, 1.0) as f64,
                uniform(&mut r, 3.0, 20.0) as f64,
                depth,
            )
        };
        let view = view_matrix(random_axes(&mut r), point(&mut r, -3.0, 3.0));
        // the f32 matrix a user would pass; the clip test uses that same matrix
        let m32 = to_f32(&mul(&proj, &view));
        let m: M4 = m32.map(|c| c.map(|x| x as f64));
        let f = Frustum::from_view_projection(&m32, depth);
        for p in &f.planes {
            assert!((p.normal.length() - 1.0).abs() < 1e-6, "planes are normalised: {p:?}");
        }
        for _ in 0..200 {
            let p = point(&mut r, -30.0, 30.0) * if r.bool() { 0.1 } else { 1.0 };
            if let Some(inside) = clip_inside(&m, p, depth) {
                assert_eq!(f.contains_point(p), inside, "{p:?} round {round}");
                decided[inside as usize] += 1;
            }
        }
    }
    assert!(decided[0] > 1000 && decided[1] > 1000, "both sides exercised: {decided:?}");
}

#[test]
fn frustum_from_matrix_known_planes() {
    // 90° vertical fov, aspect 1, near 1, far 100, identity view: the planes are
    // exactly those of `cases::perspective_frustum`, normalised.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    for depth in [DepthRange::NegativeOneToOne, DepthRange::ZeroToOne] {
        let f = Frustum::from_view_projection(
            &to_f32(&perspective(1.0, 1.0, 1.0, 100.0, depth)),
            depth,
        );
        let want = [
            (Vec3::new(-h, 0.0, h), 0.0),
            (Vec3::new(h, 0.0, h), 0.0),
            (Vec3::new(0.0, -h, h), 0.0),
            (Vec3::new(0.0, h, h), 0.0),
            (Vec3::new(0.0, 0.0, 1.0), -1.0),
            (Vec3::new(0.0, 0.0, -1.0), 100.0),
        ];
        for (i, (n, d)) in want.iter().enumerate() {
            let p = f.planes[i];
            let err = (p.normal - *n).length() + (p.d - d).abs() / 100.0;
            assert!(err < 1e-5, "{depth:?} plane {i}: {p:?} want {n:?} {d}");
        }
    }
    // infinite far plane (glam perspective_infinite_rh, depth 0..1): far plane passes everything
    let inf: M4 =
        [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, -1.0, -1.0], [0.0, 0.0, -1.0, 0.0]];
    let f = Frustum::from_view_projection(&to_f32(&inf), DepthRange::ZeroToOne);
    assert_eq!(f.planes[5], Plane::new(Vec3::ZERO, 1.0));
    assert!(f.contains_point(Vec3::new(0.0, 0.0, -1e9)));
    assert!(!f.contains_point(Vec3::new(0.0, 0.0, -0.5)));
    // non-finite matrices give NaN planes: everything is Outside
    let mut bad = to_f32(&inf);
    bad[1][1] = f32::NAN;
    let f = Frustum::from_view_projection(&bad, DepthRange::ZeroToOne);
    assert_eq!(
        overlap::frustum_sphere(&f, &Sphere::new(Vec3::new(0.0, 0.0, -5.0), 1.0)),
        Classification::Outside
    );
    // an infinite entry in the w column (m[3][3] = +∞) used to give finite
    // normals with d = ±∞, planes every point passes: contains_point was true
    // for every point. The NaN rule: such a frustum contains nothing.
    for (col, row) in [(3, 3), (3, 0), (0, 3), (2, 2)] {
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            let mut bad = to_f32(&inf);
            bad[col][row] = x;
            let f = Frustum::from_view_projection(&bad, DepthRange::NegativeOneToOne);
            assert!(
                f.planes.iter().all(|p| p.d.is_nan() && p.normal.x.is_nan()),
                "m[{col}][{row}] = {x}"
            );
            for p in [Vec3::ZERO, Vec3::new(0.0, 0.0, -5.0), Vec3::new(1e9, -1e9, 3.0)] {
                assert!(!f.contains_point(p), "m[{col}][{row}] = {x}: contains {p:?}");
            }
            let s = Sphere::new(Vec3::new(0.0, 0.0, -5.0), 1.0);
            assert_eq!(overlap::frustum_sphere(&f, &s), Classification::Outside);
        }
    }
    // a hand-built frustum with an infinite d contains nothing either
    let mut open = Frustum::from_view_projection(&to_f32(&inf), DepthRange::ZeroToOne);
    open.planes[0].d = f32::INFINITY;
    assert!(!open.contains_point(Vec3::new(0.0, 0.0, -1e9)));
}

/// Inside and Outside are never both reported, and every invalid lane is
/// Outside, on random garbage including NaN and infinities.
#[test]
fn frustum_masks_are_consistent_on_garbage() {
    let mut r = rng::rng(0xC011_000E);
    let specials = [
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        -0.0,
        0.0,
        1e20,
        -1e20,
        f32::from_bits(1),
        f32::MAX,
    ];
    let val = |r: &mut Rng| {
        if r.u32(0..4) == 0 {
            specials[r.usize(0..specials.len())]
        } else {
            uniform(r, -3.0, 3.0)
        }
    };
    for _ in 0..2_000 {
        let mut f = random_frustum(&mut r);
        if r.u32(0..10) == 0 {
            f.planes[r.usize(0..6)].d = val(&mut r);
        }
        let s = Sphere::new(Vec3::new(val(&mut r), val(&mut r), val(&mut r)), val(&mut r));
        let b = Aabb::new(
            Vec3::new(val(&mut r), val(&mut r), val(&mut r)),
            Vec3::new(val(&mut r), val(&mut r), val(&mut r)),
        );
        let (so, si) = overlap::frustum_sphere_masks::<f32>(&f, &s);
        let (bo, bi) = overlap::frustum_aabb_masks::<f32>(&f, &b);
        assert!(!(so && si), "sphere both Outside and Inside");
        assert!(!(bo && bi), "box both Outside and Inside");
        if reference::frustum_sphere_fast(&f, &s).is_none() {
            assert!(so, "invalid sphere/frustum must be Outside: {s:?}");
        }
        if reference::frustum_aabb_fast(&f, &b).is_none() {
            assert!(bo, "invalid box/frustum must be Outside: {b:?}");
        }
    }
}
