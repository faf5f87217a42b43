//! Convex hulls: construction (topology, validation) and contacts of a hull
//! against spheres, capsules, boxes, triangles and hulls.
//!
//! Analytic cases with known depths and normals; seeded random pairs (10k+
//! per type) checked against an f64 reference (brute-force SAT over every
//! face normal and edge–edge cross axis for penetration, brute-force closest
//! pairs for the distance): presence, every point within `1e-4·scale` of
//! B's surface and `point + depth·normal` within it of A's, the deepest
//! depth equal to the reference penetration (up to the face bias) or minus
//! the distance; a hull built from a box's corners against the box–box
//! tester; degenerate inputs; determinism across thread counts and pair
//! orders; feature-id stability.

use widephase::contact::box_box::box_box;
use widephase::contact::hull_contact::hull_partner;
use widephase::contact::pipeline::{contacts_with_hulls_at, swap_roles};
use widephase::contact::{contacts, contacts_with_hulls, Collider, HullCollider, NarrowPhase};
use widephase::contact::{
    hull_box, hull_capsule, hull_contacts, hull_hull, hull_sphere, hull_triangle, ConvexHull,
    HullError, HullPartner, Manifold, PlacedHull, HULL_MAX_VERTICES,
};
use widephase::overlap::OBB_EDGE_AXIS_BIAS;
use widephase::workload::{
    hull_box_pairs, hull_pairs, random_hull, resting_hull_pairs, HullPairs, HullPose, SplitMix,
};
use widephase::{Capsule, Obb, Sphere, Triangle, Vec3};

use crate::common::contact64;
use contact64::*;

// ------------------------------------------------------------ f64 polytopes

/// A convex polytope in world space (f64): vertices, faces (vertex indices,
/// counter-clockwise from outside) with planes, edges.
struct Poly {
    v: Vec<D3>,
    faces: Vec<Vec<usize>>,
    n: Vec<D3>,
    d: Vec<f64>,
    e: Vec<(usize, usize)>,
}

impl Poly {
    fn new(v: Vec<D3>, faces: Vec<Vec<usize>>, e: Vec<(usize, usize)>) -> Poly {
        let mut n = Vec::new();
        let mut d = Vec::new();
        for f in &faces {
            // Newell normal
            let mut s = [0.0; 3];
            for k in 0..f.len() {
                let (a, b) = (v[f[k]], v[f[(k + 1) % f.len()]]);
                s[0] += (a[1] - b[1]) * (a[2] + b[2]);
                s[1] += (a[2] - b[2]) * (a[0] + b[0]);
                s[2] += (a[0] - b[0]) * (a[1] + b[1]);
            }
            let l = norm(s);
            let u = [s[0] / l, s[1] / l, s[2] / l];
            n.push(u);
            d.push(f.iter().map(|&i| dot(u, v[i])).fold(f64::MIN, f64::max));
        }
        Poly { v, faces, n, d, e }
    }

    fn of_hull(h: &ConvexHull, c: Vec3, axes: [Vec3; 3]) -> Poly {
        let v = h
            .vertices()
            .iter()
            .map(|p| {
                let mut w = d3(c);
                w = add_s(w, d3(axes[0]), p.x as f64);
                w = add_s(w, d3(axes[1]), p.y as f64);
                add_s(w, d3(axes[2]), p.z as f64)
            })
            .collect();
        let faces = (0..h.face_count())
            .map(|f| h.face_vertices(f).iter().map(|&i| i as usize).collect())
            .collect();
        let e = h.edges().iter().map(|e| (e.a as usize, e.b as usize)).collect();
        Poly::new(v, faces, e)
    }

    fn of_placed(p: &PlacedHull) -> Poly {
        Poly::of_hull(p.hull, p.center, p.axes)
    }

    fn of_box(b: &Obb) -> Poly {
        let cube = ConvexHull::new(&cube_points(Vec3::splat(1.0))).unwrap();
        let v = cube
            .vertices()
            .iter()
            .map(|p| {
                let mut w = d3(b.center);
                w = add_s(w, d3(b.axes[0]), (p.x * b.half.x) as f64);
                w = add_s(w, d3(b.axes[1]), (p.y * b.half.y) as f64);
                add_s(w, d3(b.axes[2]), (p.z * b.half.z) as f64)
            })
            .collect();
        let faces =
            (0..6).map(|f| cube.face_vertices(f).iter().map(|&i| i as usize).collect()).collect();
        let e = cube.edges().iter().map(|e| (e.a as usize, e.b as usize)).collect();
        Poly::new(v, faces, e)
    }

    fn range(&self, l: D3) -> (f64, f64) {
        self.v.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &p| {
            let x = dot(p, l);
            (lo.min(x), hi.max(x))
        })
    }

    fn inside_face(&self, f: usize, p: D3) -> bool {
        let fv = &self.faces[f];
        (0..fv.len()).all(|k| {
            let (a, b) = (self.v[fv[k]], self.v[fv[(k + 1) % fv.len()]]);
            dot(cross(sub(b, a), self.n[f]), sub(p, a)) <= 0.0
        })
    }

    /// Signed distance of `p` (negative inside).
    fn sd(&self, p: D3) -> f64 {
        let h = (0..self.n.len()).map(|f| dot(self.n[f], p) - self.d[f]).fold(f64::MIN, f64::max);
        if h <= 0.0 {
            return h;
        }
        let mut best = f64::INFINITY;
        for f in 0..self.n.len() {
            let hf = dot(self.n[f], p) - self.d[f];
            if hf >= 0.0 && self.inside_face(f, add_s(p, self.n[f], -hf)) {
                best = best.min(hf);
            }
        }
        for &(a, b) in &self.e {
            best = best.min(seg_seg_dist(self.v[a], self.v[b], p, p));
        }
        best
    }
}

fn cube_points(h: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let s = |b: usize| if (i >> b) & 1 == 1 { 1.0 } else { -1.0 };
            Vec3::new(s(0) * h.x, s(1) * h.y, s(2) * h.z)
        })
        .collect()
}

/// Least overlap over every face normal and edge–edge cross axis (f64):
/// the penetration depth when positive, a separation when negative.
fn sat_overlap(a: &Poly, b: &Poly) -> f64 {
    let mut best = f64::INFINITY;
    let mut axis = |l: D3| {
        let len = norm(l);
        if len < 1e-9 {
            return;
        }
        let (la, ha) = a.range(l);
        let (lb, hb) = b.range(l);
        best = best.min((ha - lb).min(hb - la) / len);
    };
    for &n in a.n.iter().chain(&b.n) {
        axis(n);
    }
    for &(p, q) in &a.e {
        let ea = sub(a.v[q], a.v[p]);
        for &(r, s) in &b.e {
            axis(cross(ea, sub(b.v[s], b.v[r])));
        }
    }
    best
}

/// Distance of disjoint polytopes (f64): vertex against the other shape, or
/// edge against edge.
fn poly_distance(a: &Poly, b: &Poly) -> f64 {
    let mut d = f64::INFINITY;
    for &p in &a.v {
        d = d.min(b.sd(p));
    }
    for &p in &b.v {
        d = d.min(a.sd(p));
    }
    for &(p, q) in &a.e {
        for &(r, s) in &b.e {
            d = d.min(seg_seg_dist(a.v[p], a.v[q], b.v[r], b.v[s]));
        }
    }
    d
}

/// `+` penetration depth or `-` distance of two polytopes.
fn reference_depth(a: &Poly, b: &Poly) -> f64 {
    let o = sat_overlap(a, b);
    if o >= 0.0 {
        o
    } else {
        -poly_distance(a, b)
    }
}

fn place(h: &ConvexHull, p: HullPose) -> PlacedHull<'_> {
    PlacedHull::new(h, p.center, p.axes)
}

fn scale_of(a: &PlacedHull, extra: f32) -> f64 {
    (norm(d3(a.center)).max(1.0)).max((a.hull.bounding_radius() + extra) as f64)
}

#[derive(Default)]
struct Tally {
    pairs: usize,
    contacts: usize,
    points: usize,
}

/// The checks every polytope pair gets (see the file docs). `bsd` is B's
/// signed distance, `reference` the f64 depth of [`reference_depth`].
#[allow(clippy::too_many_arguments)]
fn check_polytope_pair(
    label: &str,
    m: &Manifold,
    pa: &Poly,
    bsd: &dyn Fn(D3) -> f64,
    reference: f64,
    margin: f64,
    scale: f64,
    t: &mut Tally,
) {
    check_polytope_pair_upto(label, m, pa, bsd, reference, reference, margin, scale, t)
}

/// [`check_polytope_pair`] with the penetration's upper bound `upper`
/// (instead of `reference` plus the face bias); `upper > reference` also
/// drops the lower bound (a one-sided triangle's front-face fallback).
#[allow(clippy::too_many_arguments)]
fn check_polytope_pair_upto(
    label: &str,
    m: &Manifold,
    pa: &Poly,
    bsd: &dyn Fn(D3) -> f64,
    reference: f64,
    upper: f64,
    margin: f64,
    scale: f64,
    t: &mut Tally,
) {
    let tol = 1e-4 * scale;
    t.pairs += 1;
    let count = m.contacts().len();
    if reference >= -margin + tol {
        assert!(count > 0, "{label}: missed contact, reference depth {reference}");
    }
    if count == 0 {
        return;
    }
    t.contacts += 1;
    assert!(
        reference >= -margin - tol,
        "{label}: contact beyond the margin, reference depth {reference}: {m:?}"
    );
    let n = d3(m.normal);
    assert!((norm(n) - 1.0).abs() < 1e-5, "{label}: normal not unit {m:?}");
    for p in m.contacts() {
        t.points += 1;
        let q = d3(p.position);
        assert!(bsd(q).abs() <= tol, "{label}: point off B by {}: {m:?}", bsd(q));
        let on_a = add_s(q, n, p.depth as f64);
        assert!(
            pa.sd(on_a).abs() <= tol,
            "{label}: point + depth·n off A by {}: {m:?}",
            pa.sd(on_a)
        );
        assert!(p.depth as f64 >= -margin - tol, "{label}: depth below -margin {m:?}");
    }
    let deepest = m.max_depth().unwrap() as f64;
    if reference >= 0.0 {
        // the chosen axis: at least the least overlap, at most the face bias above it
        assert!(
            deepest >= reference - tol || upper > reference,
            "{label}: depth {deepest} below the penetration {reference}"
        );
        let bias = OBB_EDGE_AXIS_BIAS as f64 * upper + 2.0 * tol;
        assert!(
            deepest <= upper + bias + 2.0 * tol,
            "{label}: depth {deepest} above the penetration {reference}: {m:?}"
        );
    } else {
        // speculative: minus the distance (never more negative)
        assert!(
            deepest >= reference - tol,
            "{label}: speculative depth {deepest} beyond -distance {reference}"
        );
        assert!(
            deepest <= reference + tol,
            "{label}: speculative depth {deepest} above -distance {reference}"
        );
    }
}

const MARGIN: f32 = 0.05;

// ------------------------------------------------------------ construction

#[test]
fn cube_topology_and_planes() {
    let mut pts = cube_points(Vec3::new(1.0, 2.0, 3.0));
    // interior, mid-face, mid-edge and duplicated points are not vertices
    pts.extend([
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(1.0, 2.0, 0.0),
        pts[3],
        Vec3::new(0.5, 2.0, -3.0),
    ]);
    let h = ConvexHull::new(&pts).unwrap();
    assert_eq!(h.vertex_count(), 8);
    assert_eq!(h.face_count(), 6);
    assert_eq!(h.edges().len(), 12);
    for f in 0..6 {
        assert_eq!(h.face_vertices(f).len(), 4, "coplanar triangles merged into quads");
        let n = h.face_normal(f);
        assert_eq!(n.abs().max_element(), 1.0, "axis-aligned normal {n:?}");
        for &v in h.face_vertices(f) {
            assert_eq!(h.vertices()[v as usize].dot(n), h.face_offset(f));
        }
        for v in h.vertices() {
            assert!(v.dot(n) <= h.face_offset(f));
        }
    }
    for e in h.edges() {
        assert_ne!(e.faces[0], e.faces[1]);
        // faces[0] walks a -> b, faces[1] walks b -> a
        let walks = |f: u8, a: u8, b: u8| {
            let fv = h.face_vertices(f as usize);
            (0..fv.len()).any(|k| fv[k] == a && fv[(k + 1) % fv.len()] == b)
        };
        assert!(walks(e.faces[0], e.a, e.b) && walks(e.faces[1], e.b, e.a));
    }
    for (k, d) in [(Vec3::new(1.0, 1.0, 1.0), 6.0), (Vec3::new(-1.0, 0.5, 0.0), 2.0)] {
        let (i, s) = h.support(k);
        assert_eq!(s, d);
        assert_eq!(h.vertices()[i].dot(k), d);
    }
}

#[test]
fn random_hulls_are_consistent() {
    let mut r = SplitMix(5);
    for case in 0..300 {
        let n = 4 + case % 60;
        let h = random_hull(&mut r, n);
        let (v, f, e) = (h.vertex_count(), h.face_count(), h.edges().len());
        assert!(v <= n && v <= HULL_MAX_VERTICES);
        assert_eq!(v + f, e + 2, "Euler");
        for g in 0..f {
            let n = h.face_normal(g);
            assert!((n.length() - 1.0).abs() < 1e-6);
            for p in h.vertices() {
                assert!(p.dot(n) <= h.face_offset(g) + 1e-5, "vertex above face plane");
            }
        }
        // every vertex is used by a face and is the support of some direction
        for (i, p) in h.vertices().iter().enumerate() {
            let dir = *p - h.centroid();
            let (j, s) = h.support(dir);
            assert!(s >= p.dot(dir) && (j == i || h.vertices()[j].dot(dir) == s));
        }
    }
}

#[test]
fn invalid_inputs_are_errors() {
    let cube = cube_points(Vec3::splat(1.0));
    assert_eq!(ConvexHull::new(&cube[..3]), Err(HullError::TooFewPoints { count: 3 }));
    let mut nan = cube.clone();
    nan[5].y = f32::NAN;
    assert_eq!(ConvexHull::new(&nan), Err(HullError::NonFinite { index: 5 }));
    let mut inf = cube.clone();
    inf[2].z = f32::INFINITY;
    assert_eq!(ConvexHull::new(&inf), Err(HullError::NonFinite { index: 2 }));
    assert_eq!(ConvexHull::new(&[Vec3::splat(2.0); 9]), Err(HullError::Coincident));
    let line: Vec<Vec3> = (0..10).map(|i| Vec3::new(i as f32, 2.0 * i as f32, 1.0)).collect();
    assert_eq!(ConvexHull::new(&line), Err(HullError::Collinear));
    let plane: Vec<Vec3> =
        (0..20).map(|i| Vec3::new((i % 5) as f32, (i / 5) as f32, 3.0)).collect();
    assert_eq!(ConvexHull::new(&plane), Err(HullError::Coplanar));
    // nearly flat: within the tolerance of a plane
    let mut flat = plane.clone();
    flat[7].z = 3.0 + 1e-7;
    assert_eq!(ConvexHull::new(&flat), Err(HullError::Coplanar));
    // too many vertices: 200 points on a sphere
    let mut r = SplitMix(9);
    let sphere: Vec<Vec3> = (0..200)
        .map(|_| loop {
            if let Some(d) = r.p(-1.0, 1.0).try_normalize() {
                break d;
            }
        })
        .collect();
    match ConvexHull::new(&sphere) {
        Err(HullError::TooManyVertices { count }) => assert!(count > HULL_MAX_VERTICES),
        other => panic!("expected TooManyVertices, got {other:?}"),
    }
    // error messages name the problem
    assert!(HullError::Coplanar.to_string().contains("coplanar"));
    // random garbage never panics
    let mut r = SplitMix(11);
    for _ in 0..2000 {
        let n = (r.next_u64() % 12) as usize;
        let pts: Vec<Vec3> = (0..n)
            .map(|_| {
                let k = r.next_u64() % 8;
                let p = r.p(-1.0, 1.0);
                match k {
                    0 => Vec3::new(p.x, p.y, 0.0),
                    1 => p * 1e-30,
                    2 => p * 1e30,
                    3 => Vec3::new(p.x, p.x, p.x),
                    _ => p,
                }
            })
            .collect();
        let _ = ConvexHull::new(&pts);
    }
}

// ------------------------------------------------------------ analytic cases

fn cube_hull(h: f32) -> ConvexHull {
    ConvexHull::new(&cube_points(Vec3::splat(h))).unwrap()
}

#[test]
fn stacked_cubes_face_contact() {
    let c = cube_hull(0.5);
    let a = PlacedHull::new(&c, Vec3::ZERO, I3);
    let b = PlacedHull::new(&c, Vec3::new(0.1, 0.9, -0.05), I3);
    let m = hull_hull(&a, &b, 0.0);
    assert_eq!(m.count, 4.0);
    assert_eq!(m.normal, Vec3::Y);
    for p in m.contacts() {
        assert!((p.depth - 0.1).abs() < 1e-6);
        assert!((p.position.y - 0.4).abs() < 1e-6, "on B's bottom face");
    }
    // hull–box, same answer
    let ob = Obb::new(b.center, I3, Vec3::splat(0.5));
    let mb = hull_box(&a, &ob, 0.0);
    assert_eq!(mb.count, 4.0);
    assert_eq!(mb.normal, Vec3::Y);
    // separated by 0.03: speculative within margin 0.05, none at 0.02
    let b = PlacedHull::new(&c, Vec3::new(0.0, 1.03, 0.0), I3);
    let m = hull_hull(&a, &b, 0.05);
    assert_eq!(m.count, 4.0);
    assert!(m.contacts().iter().all(|p| (p.depth + 0.03).abs() < 1e-6));
    assert_eq!(hull_hull(&a, &b, 0.02).count, 0.0);
}

#[test]
fn crossed_edges_contact() {
    // two unit cubes rotated 45° about z and about x: edge against edge
    let c = cube_hull(0.5);
    let ra = rot_axes([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_4);
    let rb = rot_axes([1.0, 0.0, 0.0], std::f64::consts::FRAC_PI_4);
    let s = std::f32::consts::SQRT_2 * 0.5;
    let a = PlacedHull::new(&c, Vec3::ZERO, ra);
    let b = PlacedHull::new(&c, Vec3::new(0.0, 2.0 * s - 0.1, 0.0), rb);
    let m = hull_hull(&a, &b, 0.0);
    assert_eq!(m.count, 1.0);
    assert!((m.normal.y - 1.0).abs() < 1e-5, "{m:?}");
    assert!((m.points[0].depth - 0.1).abs() < 1e-5, "{m:?}");
    let p = m.points[0].position;
    assert!(p.x.abs() < 1e-5 && p.z.abs() < 1e-5 && (p.y - (s - 0.1)).abs() < 1e-5, "{m:?}");
}

#[test]
fn sphere_and_capsule_analytic() {
    let c = cube_hull(1.0);
    let a = PlacedHull::new(&c, Vec3::new(1.0, 0.0, 0.0), I3);
    // sphere over the top face, penetrating 0.2
    let m = hull_sphere(&a, &Sphere::new(Vec3::new(1.3, 1.3, 0.2), 0.5), 0.0);
    assert_eq!(m.count, 1.0);
    assert_eq!(m.normal, Vec3::Y);
    assert!((m.points[0].depth - 0.2).abs() < 1e-6);
    // sphere off a corner: distance sqrt(3)·0.1, margin catches it
    let m = hull_sphere(
        &a,
        &Sphere::new(
            Vec3::new(2.1 + 0.5 / 3f32.sqrt(), 1.1 + 0.5 / 3f32.sqrt(), 1.1 + 0.5 / 3f32.sqrt()),
            0.5,
        ),
        0.2,
    );
    assert_eq!(m.count, 1.0);
    assert!((m.points[0].depth + 0.1 * 3f32.sqrt()).abs() < 1e-5, "{m:?}");
    // sphere centre inside, nearest the +x face
    let m = hull_sphere(&a, &Sphere::new(Vec3::new(1.9, 0.0, 0.1), 0.25), 0.0);
    assert_eq!(m.normal, Vec3::X);
    assert!((m.points[0].depth - 0.35).abs() < 1e-6);
    // capsule lying on the top face: two points, depth 0.1
    let cap = Capsule::new(Vec3::new(0.5, 1.2, 0.0), Vec3::new(1.5, 1.2, 0.3), 0.3);
    let m = hull_capsule(&a, &cap, 0.0);
    assert_eq!(m.count, 2.0, "{m:?}");
    assert_eq!(m.normal, Vec3::Y);
    assert!(m.contacts().iter().all(|p| (p.depth - 0.1).abs() < 1e-6));
    // capsule standing on the top face: one point under its lower end
    let cap = Capsule::new(Vec3::new(1.2, 1.25, 0.1), Vec3::new(1.2, 3.0, 0.1), 0.3);
    let m = hull_capsule(&a, &cap, 0.0);
    assert_eq!(m.count, 1.0, "{m:?}");
    assert!((m.points[0].depth - 0.05).abs() < 1e-6);
    assert!((m.points[0].position - Vec3::new(1.2, 0.95, 0.1)).length() < 1e-6);
}

// ------------------------------------------------------------ random vs f64

const RANDOM_PAIRS: usize = 10_000;

#[test]
fn random_hull_hull_against_f64() {
    let (hulls, pairs) = hull_pairs(RANDOM_PAIRS, 64, 32, 21);
    let mut t = Tally::default();
    for (k, &(ia, pa, ib, pb)) in pairs.iter().enumerate() {
        let a = place(&hulls[ia], pa);
        let b = place(&hulls[ib], pb);
        let m = hull_hull(&a, &b, MARGIN);
        let (qa, qb) = (Poly::of_placed(&a), Poly::of_placed(&b));
        let reference = reference_depth(&qa, &qb);
        let scale = scale_of(&a, b.hull.bounding_radius());
        check_polytope_pair(
            &format!("hull-hull {k}"),
            &m,
            &qa,
            &|p| qb.sd(p),
            reference,
            MARGIN as f64,
            scale,
            &mut t,
        );
    }
    eprintln!("hull-hull: {} pairs, {} in contact, {} points", t.pairs, t.contacts, t.points);
    assert!(t.contacts > RANDOM_PAIRS / 3);
}

#[test]
fn random_hull_box_against_f64() {
    let (hulls, a_list, boxes) = hull_box_pairs(RANDOM_PAIRS, 64, 32, 23);
    let mut t = Tally::default();
    for (k, (&(ia, pa), b)) in a_list.iter().zip(&boxes).enumerate() {
        let a = place(&hulls[ia], pa);
        let m = hull_box(&a, b, MARGIN);
        let (qa, qb) = (Poly::of_placed(&a), Poly::of_box(b));
        let reference = reference_depth(&qa, &qb);
        let scale = scale_of(&a, b.half.length());
        check_polytope_pair(
            &format!("hull-box {k}"),
            &m,
            &qa,
            &|p| qb.sd(p),
            reference,
            MARGIN as f64,
            scale,
            &mut t,
        );
    }
    eprintln!("hull-box: {} pairs, {} in contact, {} points", t.pairs, t.contacts, t.points);
    assert!(t.contacts > RANDOM_PAIRS / 3);
}

/// Hull–box and hull–hull pairs far from the origin (10 to 10⁴) and small
/// or large (0.01 to 30 across), with flat hulls and boxes as thin as
/// 2·10⁻⁵ of their length, against the f64 reference: the same checks as
/// the random tests, the tolerance `1e-4·scale` with the scale including
/// the distance from the origin (`scale_of`: f32 positions there carry
/// that rounding).
#[test]
fn far_small_and_flat_pairs_against_f64() {
    let mut r = SplitMix(97);
    let (mut t_box, mut t_hull) = (Tally::default(), Tally::default());
    for k in 0..2_400 {
        let offset = [0.0f32, 10.0, 1e3, 1e4][k % 4];
        let size = [1.0f32, 0.01, 30.0][(k / 4) % 3];
        let squash =
            [Vec3::new(1.0, 1.0, 1.0), Vec3::new(1.0, 0.3, 0.05), Vec3::new(1.0, 0.02, 0.5)]
                [(k / 12) % 3];
        let points = |r: &mut SplitMix| -> Vec<Vec3> {
            let n = 4 + (r.next_u64() % 28) as usize;
            (0..n).map(|_| r.p(-1.0, 1.0).mul_elem(squash) * size).collect()
        };
        let (Ok(ha), Ok(hb)) = (ConvexHull::new(&points(&mut r)), ConvexHull::new(&points(&mut r)))
        else {
            continue;
        };
        let at = Vec3::new(offset, -0.7 * offset, 0.3 * offset) + r.p(-0.5, 0.5) * size;
        let a = PlacedHull::new(&ha, at, random_axes(&mut r));
        let bt = at + r.p(-1.0, 1.0) * (1.3 * size);
        let margin = MARGIN * size;
        let half =
            Vec3::new(r.f().max(0.005), [r.f().max(0.002), 0.002][k % 2], r.f() + 0.05) * size;
        let b = Obb::new(bt, random_axes(&mut r), half);
        let qa = Poly::of_placed(&a);
        let qb = Poly::of_box(&b);
        check_polytope_pair(
            &format!("far hull-box {k}"),
            &hull_box(&a, &b, margin),
            &qa,
            &|p| qb.sd(p),
            reference_depth(&qa, &qb),
            margin as f64,
            scale_of(&a, b.half.length()),
            &mut t_box,
        );
        let b = PlacedHull::new(&hb, bt, random_axes(&mut r));
        let qb = Poly::of_placed(&b);
        check_polytope_pair(
            &format!("far hull-hull {k}"),
            &hull_hull(&a, &b, margin),
            &qa,
            &|p| qb.sd(p),
            reference_depth(&qa, &qb),
            margin as f64,
            scale_of(&a, b.hull.bounding_radius()),
            &mut t_hull,
        );
    }
    for (name, t) in [("hull-box", &t_box), ("hull-hull", &t_hull)] {
        eprintln!("far {name}: {} pairs, {} in contact, {} points", t.pairs, t.contacts, t.points);
        assert!(t.contacts > t.pairs / 4, "far {name}: too few contacts to test anything");
    }
}

#[test]
fn random_hull_sphere_against_f64() {
    let (hulls, pairs) = hull_pairs(RANDOM_PAIRS, 64, 32, 25);
    let mut t = Tally::default();
    let mut r = SplitMix(26);
    for (k, &(ia, pa, _, pb)) in pairs.iter().enumerate() {
        let a = place(&hulls[ia], pa);
        let s = Sphere::new(pb.center, 0.05 + 0.6 * r.f());
        let m = hull_sphere(&a, &s, MARGIN);
        let qa = Poly::of_placed(&a);
        let c = d3(s.center);
        let reference = s.radius as f64 - qa.sd(c);
        let bsd = |p: D3| norm(sub(p, c)) - s.radius as f64;
        let scale = scale_of(&a, s.radius);
        check_polytope_pair(
            &format!("hull-sphere {k}"),
            &m,
            &qa,
            &bsd,
            reference,
            MARGIN as f64,
            scale,
            &mut t,
        );
        if let Some(d) = m.max_depth() {
            // exact: the depth is r - signed distance (no face bias)
            assert!(
                (d as f64 - reference).abs() <= 1e-4 * scale,
                "hull-sphere {k}: {d} vs {reference}"
            );
        }
    }
    eprintln!("hull-sphere: {} pairs, {} in contact, {} points", t.pairs, t.contacts, t.points);
    assert!(t.contacts > RANDOM_PAIRS / 5);
}

/// Distance from `p` to the segment `[a, b]` (f64).
fn seg_dist(a: D3, b: D3, p: D3) -> f64 {
    seg_seg_dist(a, b, p, p)
}

#[test]
fn random_hull_capsule_against_f64() {
    let (hulls, pairs) = hull_pairs(RANDOM_PAIRS, 64, 32, 27);
    let mut t = Tally::default();
    let mut r = SplitMix(28);
    for (k, &(ia, pa, _, pb)) in pairs.iter().enumerate() {
        let a = place(&hulls[ia], pa);
        let half = pb.axes[0] * (0.1 + 0.8 * r.f());
        let cap = Capsule::new(pb.center - half, pb.center + half, 0.05 + 0.4 * r.f());
        let m = hull_capsule(&a, &cap, MARGIN);
        let qa = Poly::of_placed(&a);
        let (s0, s1) = (d3(cap.a), d3(cap.b));
        // reference: the segment as a degenerate polytope
        let seg = Poly { v: vec![s0, s1], faces: vec![], n: vec![], d: vec![], e: vec![(0, 1)] };
        let o = sat_overlap(&qa, &seg);
        let core = if o >= 0.0 {
            o
        } else {
            let mut d = f64::INFINITY;
            d = d.min(qa.sd(s0)).min(qa.sd(s1));
            for &(i, j) in &qa.e {
                d = d.min(seg_seg_dist(qa.v[i], qa.v[j], s0, s1));
            }
            -d
        };
        let reference = cap.radius as f64 + core;
        let bsd = |p: D3| seg_dist(s0, s1, p) - cap.radius as f64;
        let scale = scale_of(&a, cap.radius + half.length());
        check_polytope_pair(
            &format!("hull-capsule {k}"),
            &m,
            &qa,
            &bsd,
            reference,
            MARGIN as f64,
            scale,
            &mut t,
        );
    }
    eprintln!("hull-capsule: {} pairs, {} in contact, {} points", t.pairs, t.contacts, t.points);
    assert!(t.contacts > RANDOM_PAIRS / 3);
}

/// A capsule pushed through a face with its deeper end hanging past one of
/// the face's side planes: the one-point manifold's axis point `x` is
/// interior to the axis, and `x - r·n` lies inside the capsule by up to
/// `r·(1 - cos φ)` (`φ` the axis' tilt from the face), the slack the module
/// docs state; `point + depth·n` is on the hull. Random hulls, capsules
/// placed across a random face's edge at tilts of 2°–20°.
#[test]
fn capsule_clipped_at_a_face_side_is_within_the_tilt() {
    let (hulls, pairs) = hull_pairs(4000, 64, 32, 29);
    let mut r = SplitMix(30);
    let (mut clipped, mut deep_in_b) = (0, 0);
    for (k, &(ia, pa, _, _)) in pairs.iter().enumerate() {
        // at the origin, so that 1e-4 of the scale is below the slack
        let a = PlacedHull::new(&hulls[ia], Vec3::ZERO, pa.axes);
        let qa = Poly::of_placed(&a);
        // a face, a point on one of its edges, the axis leaving the face
        // across that edge, tilted down into the hull
        let f = (r.next_u64() % qa.faces.len() as u64) as usize;
        let fv = &qa.faces[f];
        let j = (r.next_u64() % fv.len() as u64) as usize;
        let (p, q) = (qa.v[fv[j]], qa.v[fv[(j + 1) % fv.len()]]);
        let n = qa.n[f];
        let along = sub(q, p);
        let o = cross(along, n);
        let out = add_s([0.0; 3], o, 1.0 / norm(o));
        let mid = add_s(p, along, 0.2 + 0.6 * r.f() as f64);
        let tilt = (2.0 + 18.0 * r.f() as f64).to_radians();
        let dir = add_s(add_s([0.0; 3], out, tilt.cos()), n, -tilt.sin());
        let radius = 0.05 + 0.15 * r.f() as f64;
        let len = 0.3 + 0.4 * r.f() as f64;
        // the deeper end just below the face's plane and just past the edge
        let (below, past) = (0.005 + 0.045 * r.f() as f64, 0.002 + 0.018 * r.f() as f64);
        let s1 = add_s(add_s(mid, n, -below), dir, past);
        let s0 = add_s(s1, dir, -len);
        let v = |x: D3| Vec3::new(x[0] as f32, x[1] as f32, x[2] as f32);
        let cap = Capsule::new(v(s0), v(s1), radius as f32);
        let m = hull_capsule(&a, &cap, MARGIN);
        if m.count != 1.0 || m.points[0].feature_id as u32 >> 16 != 255 {
            continue;
        }
        let pt = m.points[0];
        if pt.feature_id as u32 & 3 != 2 || (pt.feature_id as u32 & 0xffff) / 4 >= 128 {
            continue; // not the clipped face point
        }
        clipped += 1;
        let (c0, c1) = (d3(cap.a), d3(cap.b));
        let rad = cap.radius as f64;
        let u = sub(c1, c0);
        let sin = (dot(d3(m.normal), u) / norm(u)).abs();
        let slack = rad * (1.0 - (1.0 - sin * sin).max(0.0).sqrt());
        let scale = scale_of(&a, cap.radius + len as f32);
        let tol = 1e-4 * scale;
        let on_b = seg_dist(c0, c1, d3(pt.position)) - rad;
        assert!(
            on_b <= tol && on_b >= -slack - tol,
            "{k}: point {on_b} from the capsule's surface (tilt slack {slack})"
        );
        let on_a = qa.sd(add_s(d3(pt.position), d3(m.normal), pt.depth as f64));
        assert!(on_a.abs() <= tol, "{k}: point + depth·n {on_a} from the hull");
        if slack > tol && on_b < -0.5 * slack {
            deep_in_b += 1;
        }
    }
    eprintln!(
        "clipped one-point capsules: {clipped}, inside B by over half the slack: {deep_in_b}"
    );
    assert!(clipped > 250 && deep_in_b > 80, "{clipped} clipped, {deep_in_b} using the slack");
}

// ------------------------------------------------------------ box agreement

#[test]
fn box_corner_hull_agrees_with_box_box() {
    let mut r = SplitMix(31);
    let (mut both, mut compared) = (0, 0);
    for k in 0..10_000 {
        let ha = r.p(0.2, 1.0);
        let hb = r.p(0.2, 1.0);
        let ca = r.p(-20.0, 20.0);
        let dir = r.p(-1.0, 1.0).try_normalize().unwrap_or(Vec3::Y);
        let cb = ca + dir * ((ha.length() + hb.length()) * (0.3 + 0.8 * r.f()));
        let (aa, ab) = (random_axes(&mut r), random_axes(&mut r));
        let hull = ConvexHull::new(&cube_points(ha)).unwrap();
        let a = PlacedHull::new(&hull, ca, aa);
        let b = Obb::new(cb, ab, hb);
        let mh = hull_box(&a, &b, MARGIN);
        let mb = box_box(&Obb::new(ca, aa, ha), &b, MARGIN);
        let scale = norm(d3(ca)).max(1.0);
        compared += 1;
        match (mh.max_depth(), mb.max_depth()) {
            (Some(x), Some(y)) => {
                both += 1;
                // same penetration / distance up to the shared face bias
                let tol = 1e-4 * scale as f32 + OBB_EDGE_AXIS_BIAS * y.abs();
                assert!((x - y).abs() <= tol, "case {k}: hull {mh:?}\nbox {mb:?}");
            }
            (None, None) => {}
            (x, y) => {
                // only at the margin's edge
                let d = x.or(y).unwrap();
                assert!(
                    (d + MARGIN).abs() <= 1e-4 * scale as f32,
                    "case {k}: hull {mh:?}\nbox {mb:?}"
                );
            }
        }
    }
    assert!(both > compared / 3);
}

/// Every hull tester works in A's frame: resting pairs (shallow and
/// speculative contacts) placed at `(o, −o, o)` for o = 100, 10³ and 10⁴
/// get the manifold of the same shapes moved back near the origin (exact by
/// Sterbenz), against each partner type. The box testers once let a
/// tolerance follow the world coordinates and failed this at 100
/// (simd-notes, "Speculative and touching manifolds").
#[test]
fn manifolds_far_from_the_origin_match_the_same_pair_near_it() {
    let (hulls, pairs) = resting_hull_pairs(1500, 32, 32, 7);
    let names = ["hull", "box", "triangle", "sphere", "capsule"];
    for off in [100.0f32, 1e3, 1e4] {
        let o = Vec3::new(off, -off, off);
        let back = |p: Vec3| p - o;
        let mut r = SplitMix(off as u64);
        let mut contacts = [0usize; 5];
        for (k, &(ia, pa, ib, pb)) in pairs.iter().enumerate() {
            // A within 0.05 of o, B at the pair's own offset from it
            let ca = o + r.p(-0.05, 0.05);
            let cb = ca + (pb.center - pa.center);
            let a = place(&hulls[ia], HullPose { center: ca, ..pa });
            let a0 = place(&hulls[ia], HullPose { center: back(ca), ..pa });
            let s = hulls[ib].bounding_radius();
            let [u, v, w] = pb.axes;
            // the triangle faces A's centre (one-sided)
            let t = [cb + u * s, cb + v * s, cb - (u + v) * s];
            let t = if (t[1] - t[0]).cross(t[2] - t[0]).dot(ca - cb) < 0.0 {
                [t[0], t[2], t[1]]
            } else {
                t
            };
            let far = [
                HullPartner::Hull(place(&hulls[ib], HullPose { center: cb, ..pb })),
                HullPartner::Box(Obb::new(cb, pb.axes, Vec3::new(0.3, 0.5, 0.7) * s)),
                HullPartner::Triangle(Triangle::new(t[0], t[1], t[2])),
                HullPartner::Sphere(Sphere::new(cb, 0.6 * s)),
                HullPartner::Capsule(Capsule::new(cb + w * (0.6 * s), cb - w * (0.6 * s), 0.4 * s)),
            ];
            // each far shape's exact translate
            let near = far.map(|b| match b {
                HullPartner::Hull(h) => {
                    HullPartner::Hull(PlacedHull { center: back(h.center), ..h })
                }
                HullPartner::Box(x) => HullPartner::Box(Obb { center: back(x.center), ..x }),
                HullPartner::Triangle(x) => {
                    HullPartner::Triangle(Triangle::new(back(x.a), back(x.b), back(x.c)))
                }
                HullPartner::Sphere(x) => {
                    HullPartner::Sphere(Sphere { center: back(x.center), ..x })
                }
                HullPartner::Capsule(x) => {
                    HullPartner::Capsule(Capsule { a: back(x.a), b: back(x.b), ..x })
                }
            });
            for (t, (bf, bn)) in far.iter().zip(&near).enumerate() {
                let label = format!("{} pair {k} at {off}", names[t]);
                let scale = (hulls[ia].bounding_radius() + s) as f64;
                let (mf, mn) = (hull_partner(&a, bf, 0.05), hull_partner(&a0, bn, 0.05));
                contacts[t] += same_contact_far_and_near(&label, &mf, &mn, scale) as usize;
            }
        }
        // enough contacts of every partner type to compare
        assert!(contacts.iter().all(|&c| c > 200), "contacts per partner at {off}: {contacts:?}");
    }
}

// ------------------------------------------------------------ degenerate poses

#[test]
fn invalid_poses_give_no_contact() {
    let c = cube_hull(0.5);
    let a = PlacedHull::new(&c, Vec3::ZERO, I3);
    let mut bad = a;
    bad.center.x = f32::NAN;
    assert_eq!(hull_hull(&bad, &a, 0.1).count, 0.0);
    assert_eq!(hull_hull(&a, &bad, 0.1).count, 0.0);
    assert_eq!(hull_hull(&a, &a, f32::NAN).count, 0.0);
    assert_eq!(hull_hull(&a, &a, -1.0).count, 0.0);
    assert_eq!(hull_sphere(&a, &Sphere::new(Vec3::ZERO, f32::INFINITY), 0.1).count, 0.0);
    assert_eq!(hull_sphere(&a, &Sphere::new(Vec3::ZERO, -1.0), 0.1).count, 0.0);
    assert_eq!(
        hull_capsule(&a, &Capsule::new(Vec3::ZERO, Vec3::splat(f32::NAN), 0.1), 0.1).count,
        0.0
    );
    assert_eq!(hull_box(&a, &Obb::new(Vec3::ZERO, I3, Vec3::splat(-1.0)), 0.1).count, 0.0);
    // coincident hulls and a sphere at the centre: a deterministic contact
    let m = hull_hull(&a, &a, 0.0);
    assert!(m.count > 0.0 && (m.max_depth().unwrap() - 1.0).abs() < 1e-6);
    let m = hull_sphere(&a, &Sphere::new(Vec3::ZERO, 0.1), 0.0);
    assert_eq!(m.count, 1.0);
    // a zero-length capsule is a sphere
    let m = hull_capsule(
        &a,
        &Capsule::new(Vec3::new(0.0, 0.6, 0.0), Vec3::new(0.0, 0.6, 0.0), 0.2),
        0.0,
    );
    assert_eq!(m.count, 1.0);
    assert!((m.points[0].depth - 0.1).abs() < 1e-6);
}

// ------------------------------------------------------------ batches

fn batch() -> HullPairs {
    hull_pairs(3000, 32, 32, 41)
}

fn bits(ms: &[Manifold]) -> Vec<u32> {
    ms.iter().flat_map(bytemuck_bits).collect()
}

fn bytemuck_bits(m: &Manifold) -> Vec<u32> {
    let mut v =
        vec![m.normal.x.to_bits(), m.normal.y.to_bits(), m.normal.z.to_bits(), m.count.to_bits()];
    for p in &m.points {
        v.extend(
            [p.position.x, p.position.y, p.position.z, p.depth, p.feature_id].map(f32::to_bits),
        );
    }
    v
}

#[test]
fn batched_is_deterministic_across_threads_and_orders() {
    let (hulls, pairs) = batch();
    let mut r = SplitMix(43);
    let a: Vec<PlacedHull> = pairs.iter().map(|&(ia, pa, _, _)| place(&hulls[ia], pa)).collect();
    let b: Vec<HullPartner> = pairs
        .iter()
        .map(|&(_, _, ib, pb)| match r.next_u64() % 5 {
            0 => HullPartner::Sphere(Sphere::new(pb.center, 0.3)),
            1 => HullPartner::Capsule(Capsule::new(
                pb.center - pb.axes[0] * 0.4,
                pb.center + pb.axes[0] * 0.4,
                0.2,
            )),
            2 => HullPartner::Box(Obb::new(pb.center, pb.axes, Vec3::new(0.3, 0.4, 0.5))),
            3 => HullPartner::Triangle(Triangle::new(
                pb.center - pb.axes[0] * 0.6,
                pb.center + pb.axes[1] * 0.6,
                pb.center + pb.axes[0] * 0.6 - pb.axes[2] * 0.3,
            )),
            _ => HullPartner::Hull(place(&hulls[ib], pb)),
        })
        .collect();
    let idx: Vec<(u32, u32)> = (0..a.len() as u32).map(|i| (i, i)).collect();
    let run = |threads: usize, idx: &[(u32, u32)]| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| hull_contacts(&a, &b, idx, MARGIN))
    };
    let one = run(1, &idx);
    assert_eq!(bits(&one), bits(&run(2, &idx)));
    assert_eq!(bits(&one), bits(&run(4, &idx)));
    let rev: Vec<(u32, u32)> = idx.iter().rev().copied().collect();
    let mut back = run(2, &rev);
    back.reverse();
    assert_eq!(bits(&one), bits(&back));
    // the batch is the single-pair testers
    for (k, m) in one.iter().enumerate() {
        let want = widephase::contact::hull_contact::hull_partner(&a[k], &b[k], MARGIN);
        assert_eq!(bytemuck_bits(m), bytemuck_bits(&want));
    }
    assert!(one.iter().filter(|m| m.count > 0.0).count() > 800);
    // out-of-range indices: empty
    let out = hull_contacts(&a, &b, &[(0, u32::MAX), (u32::MAX, 0)], MARGIN);
    assert!(out.iter().all(|m| *m == Manifold::EMPTY));
}

#[test]
fn feature_ids_stable_under_small_motion() {
    let (hulls, pairs) = hull_pairs(2000, 32, 32, 47);
    let (mut same, mut total) = (0, 0);
    for &(ia, pa, ib, pb) in &pairs {
        let a = place(&hulls[ia], pa);
        let b = place(&hulls[ib], pb);
        let m0 = hull_hull(&a, &b, MARGIN);
        if m0.count == 0.0 || m0.max_depth().unwrap() < 0.02 {
            continue;
        }
        let mut moved = b;
        moved.center += Vec3::new(1e-4, -1e-4, 5e-5);
        let m1 = hull_hull(&a, &moved, MARGIN);
        total += 1;
        let ids = |m: &Manifold| {
            let mut v: Vec<u32> = m.contacts().iter().map(|p| p.feature_id as u32).collect();
            v.sort_unstable();
            v
        };
        if ids(&m0) == ids(&m1) {
            same += 1;
        }
    }
    // a 1e-4 nudge changes the features of very few pairs
    assert!(total > 300 && same * 100 >= total * 98, "{same}/{total} kept their ids");
}

// ------------------------------------------------------------ hull–triangle

/// Distance from `p` to triangle `t` (f64, unsigned).
fn tri_dist(t: &Triangle, p: D3) -> f64 {
    let (a, b, c) = (d3(t.a), d3(t.b), d3(t.c));
    let edges =
        seg_seg_dist(a, b, p, p).min(seg_seg_dist(b, c, p, p)).min(seg_seg_dist(c, a, p, p));
    let n = cross(sub(b, a), sub(c, a));
    let nl = norm(n);
    if nl == 0.0 {
        return edges;
    }
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(p0, p1)| dot(cross(sub(p1, p0), sub(p, p0)), n) >= 0.0);
    if inside {
        (dot(sub(p, a), n) / nl).abs()
    } else {
        edges
    }
}

/// The f64 reference of a hull and a one-sided triangle: the least overlap
/// over the hull's face normals and every hull edge × triangle edge axis
/// (both directions), and the triangle normal only pushing B along `-N`
/// (the hull is in front); minus the distance when that is negative.
fn hull_triangle_reference(a: &Poly, t: &Triangle) -> f64 {
    let tv = [d3(t.a), d3(t.b), d3(t.c)];
    let trange = |l: D3| {
        tv.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &p| (lo.min(dot(p, l)), hi.max(dot(p, l))))
    };
    let nn = cross(sub(tv[1], tv[0]), sub(tv[2], tv[0]));
    let nl = norm(nn);
    let n = [nn[0] / nl, nn[1] / nl, nn[2] / nl];
    // B moved along -N by (max over the hull of -N·x) - (-N·a)
    let mut best = a.range([-n[0], -n[1], -n[2]]).1 + dot(n, tv[0]);
    let mut axis = |l: D3| {
        let len = norm(l);
        if len < 1e-9 {
            return;
        }
        let (la, ha) = a.range(l);
        let (lb, hb) = trange(l);
        best = best.min((ha - lb).min(hb - la) / len);
    };
    for &m in &a.n {
        axis(m);
    }
    for &(p, q) in &a.e {
        for k in 0..3 {
            axis(cross(sub(a.v[q], a.v[p]), sub(tv[(k + 1) % 3], tv[k])));
        }
    }
    if best >= 0.0 {
        return best;
    }
    let mut d = f64::INFINITY;
    for &p in &a.v {
        d = d.min(tri_dist(t, p));
    }
    for p in tv {
        d = d.min(a.sd(p));
    }
    for &(p, q) in &a.e {
        for k in 0..3 {
            d = d.min(seg_seg_dist(a.v[p], a.v[q], tv[k], tv[(k + 1) % 3]));
        }
    }
    -d
}

/// Hull–triangle pairs: a random triangle (sizes 0.3–6), a pool hull placed
/// over a random point of it at a height from slightly behind to above,
/// randomly rotated; a fifth lie nearly flat on a face (a random hull face
/// turned to `-N`, tilted by up to 0.02 rad) within ±0.05 of the plane.
fn hull_triangle_pairs(
    hulls: &[ConvexHull],
    n: usize,
    seed: u64,
) -> Vec<(usize, HullPose, Triangle)> {
    let mut r = SplitMix(seed);
    (0..n)
        .map(|_| {
            let ih = (r.next_u64() % hulls.len() as u64) as usize;
            let h = &hulls[ih];
            let c0 = r.p(-10.0, 10.0);
            let size = 0.3 + 5.7 * r.f();
            let t = Triangle::new(
                c0 + r.p(-1.0, 1.0) * size,
                c0 + r.p(-1.0, 1.0) * size,
                c0 + r.p(-1.0, 1.0) * size,
            );
            let nn = d3((t.b - t.a).cross(t.c - t.a));
            let nd = [nn[0] / norm(nn), nn[1] / norm(nn), nn[2] / norm(nn)];
            let nv = Vec3::new(nd[0] as f32, nd[1] as f32, nd[2] as f32);
            let (wa, wb) = (r.f(), r.f());
            let (wa, wb) = if wa + wb > 1.0 { (1.0 - wa, 1.0 - wb) } else { (wa, wb) };
            let on = t.a + (t.b - t.a) * wa + (t.c - t.a) * wb;
            let flat = r.f() < 0.2;
            let axes = if flat {
                // hull face f's normal onto -N, then a small tilt
                let f = (r.next_u64() % h.face_count() as u64) as usize;
                let nf = d3(h.face_normal(f));
                let down = [-nd[0], -nd[1], -nd[2]];
                let k = cross(nf, down);
                let base = if norm(k) > 1e-9 {
                    rot_axes(k, dot(nf, down).clamp(-1.0, 1.0).acos())
                } else if dot(nf, down) > 0.0 {
                    I3
                } else {
                    let side = if nf[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
                    rot_axes(cross(nf, side), std::f64::consts::PI)
                };
                let tilt =
                    rot_axes([r.f() as f64, r.f() as f64, r.f() as f64 + 0.1], r.f() as f64 * 0.02);
                let apply = |u: Vec3| tilt[0] * u.x + tilt[1] * u.y + tilt[2] * u.z;
                [apply(base[0]), apply(base[1]), apply(base[2])]
            } else {
                random_axes(&mut r)
            };
            // the hull's lowest point along N relative to its origin
            let lo = h
                .vertices()
                .iter()
                .map(|v| (axes[0] * v.x + axes[1] * v.y + axes[2] * v.z).dot(nv))
                .fold(f32::INFINITY, f32::min);
            let rad = h.bounding_radius();
            let height = if flat { r.p(-0.05, 0.05).x } else { rad * (-1.3 + 2.0 * r.f()) };
            let jitter = r.p(-0.5, 0.5) * rad;
            let jitter = jitter - nv * jitter.dot(nv);
            (ih, HullPose { center: on + nv * (height - lo) + jitter, axes }, t)
        })
        .collect()
}

#[test]
fn random_hull_triangle_against_f64() {
    let mut r = SplitMix(61);
    let hulls: Vec<ConvexHull> = (0..64).map(|k| random_hull(&mut r, 8 + (k * 7) % 25)).collect();
    let pairs = hull_triangle_pairs(&hulls, RANDOM_PAIRS, 67);
    let mut t = Tally::default();
    let (mut behind, mut speculative, mut flat_face, mut through) = (0, 0, 0, 0);
    for (k, &(ih, pose, tri)) in pairs.iter().enumerate() {
        let a = place(&hulls[ih], pose);
        let m = hull_triangle(&a, &tri, MARGIN);
        let qa = Poly::of_placed(&a);
        let scale =
            scale_of(&a, 0.0).max(norm(d3(tri.a))).max(norm(d3(tri.b))).max(norm(d3(tri.c)));
        let tol = 1e-4 * scale;
        let nn = cross(sub(d3(tri.b), d3(tri.a)), sub(d3(tri.c), d3(tri.a)));
        let hc = dot(nn, sub(d3(a.to_world(a.hull.centroid())), d3(tri.a))) / norm(nn);
        if hc < -tol {
            assert_eq!(m, Manifold::EMPTY, "hull-triangle {k}: contact behind the triangle");
            behind += 1;
            continue;
        }
        if hc <= tol {
            continue;
        }
        let reference = hull_triangle_reference(&qa, &tri);
        // a hull poking through deeper than it stands in front is pushed out
        // the front (see `hull_triangle`): its depth is at most the front's
        let n = [nn[0] / norm(nn), nn[1] / norm(nn), nn[2] / norm(nn)];
        let (lo, hi) = qa.range(n);
        let plane = dot(n, d3(tri.a));
        let upper = if hi - plane <= plane - lo + tol {
            through += 1;
            reference.max(plane - lo)
        } else {
            reference
        };
        check_polytope_pair_upto(
            &format!("hull-triangle {k}"),
            &m,
            &qa,
            &|p| tri_dist(&tri, p),
            reference,
            upper,
            MARGIN as f64,
            scale,
            &mut t,
        );
        if m.count > 0.0 {
            if m.max_depth().unwrap() < 0.0 {
                speculative += 1;
            }
            // the triangle's normal is kept on near ties
            let n = d3(m.normal);
            if (dot(n, nn) / norm(nn) + 1.0).abs() < 1e-6 {
                flat_face += 1;
            }
        }
    }
    eprintln!(
        "hull-triangle: {} pairs, {} in contact, {} points, {behind} behind, {through} poking through, {speculative} speculative, {flat_face} on the triangle normal",
        t.pairs, t.contacts, t.points
    );
    assert!(t.contacts > RANDOM_PAIRS / 3 && behind > 200 && speculative > 100 && flat_face > 1000);
}

/// A ground triangle in the plane `y = y0` facing +Y.
fn ground(y0: f32) -> Triangle {
    Triangle::new(Vec3::new(-20.0, y0, -20.0), Vec3::new(0.0, y0, 20.0), Vec3::new(20.0, y0, -20.0))
}

#[test]
fn hull_resting_on_triangle_face() {
    let c = cube_hull(0.5);
    // 0.1 deep: four points on the triangle, the triangle's normal
    let a = PlacedHull::new(&c, Vec3::new(0.3, 0.4, -0.2), I3);
    let m = hull_triangle(&a, &ground(0.0), 0.0);
    assert_eq!(m.count, 4.0, "{m:?}");
    assert_eq!(m.normal, -Vec3::Y);
    for p in m.contacts() {
        assert!((p.depth - 0.1).abs() < 1e-6, "{m:?}");
        assert!(p.position.y.abs() < 1e-6, "on the triangle: {m:?}");
    }
    // exact touching counts; tilted by 1e-3 rad the triangle keeps the reference
    let a = PlacedHull::new(&c, Vec3::new(0.0, 0.5, 0.0), I3);
    assert_eq!(hull_triangle(&a, &ground(0.0), 0.0).count, 4.0);
    let tilt = rot_axes([1.0, 0.0, 0.3], 1e-3);
    let a = PlacedHull::new(&c, Vec3::new(0.0, 0.45, 0.0), tilt);
    let m = hull_triangle(&a, &ground(0.0), 0.0);
    // (the triangle's normal formed in the hull's frame: rounding level off -Y)
    assert!((m.normal + Vec3::Y).length() < 1e-6, "{m:?}");
    assert!(m.count >= 2.0, "{m:?}");
    // speculative 0.03 within margin 0.05, none at 0.02
    let a = PlacedHull::new(&c, Vec3::new(0.0, 0.53, 0.0), I3);
    let m = hull_triangle(&a, &ground(0.0), 0.05);
    assert_eq!(m.count, 4.0);
    assert!(m.contacts().iter().all(|p| (p.depth + 0.03).abs() < 1e-6), "{m:?}");
    assert_eq!(hull_triangle(&a, &ground(0.0), 0.02).count, 0.0);
    // behind the triangle (centroid below the plane): nothing
    let a = PlacedHull::new(&c, Vec3::new(0.0, -0.4, 0.0), I3);
    assert_eq!(hull_triangle(&a, &ground(0.0), 0.05), Manifold::EMPTY);
    // overhanging the triangle's corner: clipped to the triangle
    let small = Triangle::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), Vec3::new(2.0, 0.0, 0.0));
    let a = PlacedHull::new(&c, Vec3::new(0.0, 0.4, 0.0), I3);
    let m = hull_triangle(&a, &small, 0.0);
    assert_eq!(m.normal, -Vec3::Y);
    assert!(m.count >= 3.0, "{m:?}");
    for p in m.contacts() {
        let q = p.position;
        assert!(q.x >= -1e-6 && q.z >= -1e-6 && q.x + q.z <= 2.0 + 1e-5 && q.x <= 0.5 + 1e-6);
        assert!(q.z <= 0.5 + 1e-6 && (p.depth - 0.1).abs() < 1e-6, "{m:?}");
    }
}

#[test]
fn hull_edge_across_triangle_edge() {
    // a cube turned 45° about z (bottom edge along z) across the top edge of
    // a vertical triangle (normal +z, top edge along x at y = 0): edge–edge
    let c = cube_hull(0.5);
    let s = std::f32::consts::SQRT_2 * 0.5;
    let tri = Triangle::new(
        Vec3::new(-2.0, 0.0, -0.01),
        Vec3::new(0.0, -3.0, -0.01),
        Vec3::new(2.0, 0.0, -0.01),
    );
    let a = PlacedHull::new(
        &c,
        Vec3::new(0.0, s - 0.1, 0.0),
        rot_axes([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_4),
    );
    let m = hull_triangle(&a, &tri, 0.0);
    assert_eq!(m.count, 1.0, "{m:?}");
    assert!((m.normal + Vec3::Y).length() < 1e-6, "{m:?}");
    assert!((m.points[0].depth - 0.1).abs() < 1e-5, "{m:?}");
    let p = m.points[0].position;
    assert!(p.x.abs() < 1e-5 && p.y.abs() < 1e-5 && (p.z + 0.01).abs() < 1e-5, "{m:?}");
    // the cube's corner down onto the triangle's face: one point, N's normal
    let corner = rot_axes([1.0, 0.0, -1.0], 0.955316618124509);
    let low = (0..8)
        .map(|i| {
            let s = |b: usize| if (i >> b) & 1 == 1 { 0.5 } else { -0.5 };
            (corner[0] * s(0) + corner[1] * s(1) + corner[2] * s(2)).y
        })
        .fold(f32::INFINITY, f32::min);
    let a = PlacedHull::new(&c, Vec3::new(0.1, -low - 0.05, 0.2), corner);
    let m = hull_triangle(&a, &ground(0.0), 0.0);
    assert_eq!(m.count, 1.0, "{m:?}");
    assert!((m.normal + Vec3::Y).length() < 1e-6, "{m:?}");
    assert!((m.points[0].depth - 0.05).abs() < 1e-5, "{m:?}");
}

#[test]
fn hull_triangle_degenerate_and_invalid() {
    let c = cube_hull(0.5);
    let a = PlacedHull::new(&c, Vec3::ZERO, I3);
    // a collinear triangle is the segment it is (two-sided), 0.1 inside the top
    let seg = Triangle::new(
        Vec3::new(-2.0, 0.4, 0.0),
        Vec3::new(2.0, 0.4, 0.0),
        Vec3::new(0.5, 0.4, 0.0),
    );
    let m = hull_triangle(&a, &seg, 0.0);
    assert!(m.count >= 1.0, "{m:?}");
    assert!((m.normal.y - 1.0).abs() < 1e-6, "{m:?}");
    assert!((m.max_depth().unwrap() - 0.1).abs() < 1e-6, "{m:?}");
    for p in m.contacts() {
        assert!((p.position.y - 0.4).abs() < 1e-6 && p.position.x.abs() <= 0.5 + 1e-6, "{m:?}");
    }
    // a point triangle 0.02 above the top face: speculative within 0.05
    let pt = Vec3::new(0.1, 0.52, 0.1);
    let m = hull_triangle(&a, &Triangle::new(pt, pt, pt), 0.05);
    assert_eq!(m.count, 1.0, "{m:?}");
    assert!((m.points[0].depth + 0.02).abs() < 1e-6 && m.normal == Vec3::Y, "{m:?}");
    assert_eq!(hull_triangle(&a, &Triangle::new(pt, pt, pt), 0.01).count, 0.0);
    // NaN, infinities, bad margins, bad poses: nothing, no panic
    let g = ground(-0.45);
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let t = Triangle::new(Vec3::new(bad, 0.0, 0.0), g.b, g.c);
        assert_eq!(hull_triangle(&a, &t, 0.0), Manifold::EMPTY);
        assert_eq!(hull_triangle(&a, &g, bad), Manifold::EMPTY);
        let moved = PlacedHull::new(&c, Vec3::new(0.0, bad, 0.0), I3);
        assert_eq!(hull_triangle(&moved, &g, 0.0), Manifold::EMPTY);
    }
    assert_eq!(hull_triangle(&a, &g, -0.1), Manifold::EMPTY);
    assert!(hull_triangle(&a, &g, 0.0).count > 0.0);
}

// ------------------------------------------------------------ pipeline

/// A mixed scene of hull colliders (a table of 16 hulls) and every other
/// kind, with its candidate pairs in both orders.
fn hull_scene() -> (Vec<ConvexHull>, Vec<Collider>, Vec<(u32, u32)>) {
    let (hulls, pairs) = hull_pairs(1500, 16, 32, 91);
    let mut r = SplitMix(93);
    let mut bodies = Vec::new();
    let mut idx = Vec::new();
    for &(ia, pa, ib, pb) in &pairs {
        let a = Collider::Hull(HullCollider::new(&hulls, ia as u32, pa.center, pa.axes));
        let b = match r.next_u64() % 6 {
            0 => Collider::Sphere(Sphere::new(pb.center, 0.3)),
            1 => Collider::Capsule(Capsule::new(
                pb.center - pb.axes[0] * 0.4,
                pb.center + pb.axes[0] * 0.4,
                0.2,
            )),
            2 => Collider::Box(Obb::new(pb.center, pb.axes, Vec3::new(0.3, 0.4, 0.5))),
            3 => Collider::Triangle(Triangle::new(
                pb.center - pb.axes[0] * 0.6,
                pb.center + pb.axes[1] * 0.6,
                pb.center + pb.axes[0] * 0.6 - pb.axes[2] * 0.3,
            )),
            _ => Collider::Hull(HullCollider::new(&hulls, ib as u32, pb.center, pb.axes)),
        };
        let k = bodies.len() as u32;
        bodies.push(a);
        bodies.push(b);
        // the hull first or second
        idx.push(if r.next_u64().is_multiple_of(2) { (k, k + 1) } else { (k + 1, k) });
    }
    (hulls, bodies, idx)
}

#[test]
fn hulls_in_the_pipeline_are_deterministic_and_equal_the_testers() {
    let (hulls, bodies, idx) = hull_scene();
    let run = |threads: usize, idx: &[(u32, u32)]| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| contacts_with_hulls(&bodies, &hulls, idx, MARGIN))
    };
    let one = run(1, &idx);
    assert_eq!(bits(&one), bits(&run(2, &idx)));
    assert_eq!(bits(&one), bits(&run(4, &idx)));
    let rev: Vec<(u32, u32)> = idx.iter().rev().copied().collect();
    let mut back = run(2, &rev);
    back.reverse();
    assert_eq!(bits(&one), bits(&back));
    // narrower lanes for the other pairs of a mixed call: same bits
    let x4 = contacts_with_hulls_at::<wide::f32x4>(&bodies, &hulls, &idx, MARGIN);
    assert_eq!(bits(&one), bits(&x4));
    // each pair is the hull tester (the hull as A; swapped back otherwise)
    let partner = |c: &Collider| match *c {
        Collider::Sphere(s) => HullPartner::Sphere(s),
        Collider::Capsule(c) => HullPartner::Capsule(c),
        Collider::Box(o) => HullPartner::Box(o),
        Collider::Triangle(t) => HullPartner::Triangle(t),
        Collider::Hull(h) => HullPartner::Hull(h.placed(&hulls).unwrap()),
    };
    let mut hits = 0;
    for (m, &(i, j)) in one.iter().zip(&idx) {
        let (a, b) = (&bodies[i as usize], &bodies[j as usize]);
        let want = match a {
            Collider::Hull(h) => hull_partner(&h.placed(&hulls).unwrap(), &partner(b), MARGIN),
            _ => {
                let Collider::Hull(h) = b else { unreachable!() };
                swap_roles(&hull_partner(&h.placed(&hulls).unwrap(), &partner(a), MARGIN))
            }
        };
        assert_eq!(bytemuck_bits(m), bytemuck_bits(&want));
        hits += usize::from(m.count > 0.0);
    }
    assert!(hits > 400, "{hits} in contact");
    // without the table (plain `contacts`), or past it: no hull contacts
    assert!(contacts(&bodies, &idx, MARGIN).iter().all(|m| *m == Manifold::EMPTY));
    assert!(contacts_with_hulls(&bodies, &hulls[..0], &idx, MARGIN)
        .iter()
        .all(|m| *m == Manifold::EMPTY));
    // the broad-phase box holds the hull
    for b in &bodies {
        if let Collider::Hull(h) = b {
            let bx = b.aabb();
            let p = h.placed(&hulls).unwrap();
            for &v in p.hull.vertices() {
                let w = p.to_world(v);
                let inside = w.x >= bx.min.x && w.y >= bx.min.y && w.z >= bx.min.z;
                assert!(inside && w.x <= bx.max.x && w.y <= bx.max.y && w.z <= bx.max.z);
            }
        }
    }
}

#[test]
fn narrow_phase_reuses_hull_manifolds_within_the_bound() {
    let (hulls, bodies, idx) = hull_scene();
    let mut pairs: Vec<(u32, u32)> = idx.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    pairs.sort_unstable();
    let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(1e-3);
    np.update_with_hulls(&bodies, &hulls, &pairs);
    assert_eq!(bits(np.manifolds()), bits(&contacts_with_hulls(&bodies, &hulls, &pairs, MARGIN)));
    // a small translation of every hull: reused when in contact (bound 1e-3)
    let t = Vec3::new(2e-4, 0.0, 0.0);
    let moved: Vec<Collider> = bodies
        .iter()
        .map(|c| if matches!(c, Collider::Hull(_)) { c.translated(t) } else { *c })
        .collect();
    let before = np.manifolds().to_vec();
    np.update_with_hulls(&moved, &hulls, &pairs);
    let fresh = contacts_with_hulls(&moved, &hulls, &pairs, MARGIN);
    let (mut reused, mut recomputed) = (0, 0);
    for k in 0..pairs.len() {
        if np.reused(k) {
            reused += 1;
            assert_eq!(bytemuck_bits(&np.manifolds()[k]), bytemuck_bits(&before[k]));
        } else {
            recomputed += 1;
            assert_eq!(bytemuck_bits(&np.manifolds()[k]), bytemuck_bits(&fresh[k]));
        }
    }
    assert!(reused > 400 && recomputed > 400, "{reused} reused, {recomputed} recomputed");
    // past the bound (a hull–hull pair moves 2·|Δ|, others |Δ|): recomputed
    let far: Vec<Collider> = bodies
        .iter()
        .map(|c| if matches!(c, Collider::Hull(_)) { c.translated(t * 10.0) } else { *c })
        .collect();
    np.update_with_hulls(&far, &hulls, &pairs);
    assert!((0..pairs.len()).all(|k| !np.reused(k)));
    assert_eq!(bits(np.manifolds()), bits(&contacts_with_hulls(&far, &hulls, &pairs, MARGIN)));
}
