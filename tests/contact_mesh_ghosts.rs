//! Ghost contacts of internal mesh edges (`contact::internal_edges`).
//!
//! Shapes (spheres, capsules, boxes, convex hulls) sliding over flat ground
//! made of many small triangles, over the seam of two coplanar triangle
//! soups joined into one mesh, and over a slope far from the origin, must
//! get only the ground's face normal; with the raw flag the same runs show
//! leaning normals (so the tests see the filter). Convex features keep their true
//! normals: a box resting on a ridge, a sphere on a convex edge; in a
//! concave groove only the two face normals appear.

use crate::common::rng;

use widephase::contact::{
    mesh_contacts, mesh_contacts_with_hulls, Collider, ConvexHull, HullCollider, MeshManifolds,
    StaticMesh,
};
use widephase::{Capsule, Obb, Sphere, Triangle, Vec3};

/// Speculative margin of every run.
const MARGIN: f32 = 0.05;
/// Largest angle (radians, 0.2°) a filtered normal may lean from the true
/// one: the filter's cone tolerance is 2^-9 rad ≈ 0.11°, at most √2 times
/// that at a grid vertex.
const MAX_LEAN: f32 = 0.003_49;
/// Seeded start positions and velocities per shape kind.
const STARTS: usize = 1500;
/// Positions along each sliding path.
const STEPS: usize = 8;

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

/// Cells of side `cell` over `x0..x0 + nx·cell`, `z0..z0 + nz·cell`, at
/// height `y(x)`, counter-clockwise from above; `flip` swaps the diagonal;
/// `nudge_x0` moves the vertices on the line `x = x0` by a few ulps (a seam
/// computed by another exporter).
fn patch(
    x0: f32,
    z0: f32,
    (nx, nz): (usize, usize),
    cell: f32,
    flip: bool,
    nudge_x0: bool,
    y: impl Fn(f32) -> f32,
) -> Vec<Triangle> {
    let p = |i: usize, k: usize| {
        let (mut x, mut z) = (x0 + i as f32 * cell, z0 + k as f32 * cell);
        if nudge_x0 && i == 0 {
            x = rng::nudge(x, 2);
            z = rng::nudge(z, -1);
        }
        v(x, y(x), z)
    };
    let mut t = Vec::new();
    for i in 0..nx {
        for k in 0..nz {
            let (a, b, c, d) = (p(i, k), p(i, k + 1), p(i + 1, k + 1), p(i + 1, k));
            if flip {
                t.push(Triangle::new(a, b, d));
                t.push(Triangle::new(d, b, c));
            } else {
                t.push(Triangle::new(a, b, c));
                t.push(Triangle::new(a, c, d));
            }
        }
    }
    t
}

/// Flat ground `y = 0` over `[-4, 4]²` of 0.125 cells (8192 triangles).
fn flat() -> Vec<Triangle> {
    patch(-4.0, -4.0, (64, 64), 0.125, false, false, |_| 0.0)
}

/// Two coplanar soups, `x < 0.5` and `x > 0.5`, diagonals crossed, the right
/// one's seam vertices a few ulps off the left one's, as one mesh.
fn seam() -> Vec<Triangle> {
    let mut t = patch(-4.0, -4.0, (36, 64), 0.125, false, false, |_| 0.0);
    t.extend(patch(0.5, -4.0, (28, 64), 0.125, true, true, |_| 0.0));
    t
}

/// The hull table of the hull sliders: octagonal frusta (bottom radius `s`
/// at `y = -s/2`, top radius `0.6·s` at `y = s/2`) for eight sizes `s`.
fn slider_hulls() -> Vec<ConvexHull> {
    (0..8)
        .map(|k| {
            let s = 0.1 + 0.07 * k as f32;
            let mut pts = Vec::new();
            for i in 0..8 {
                let (sn, cs) = (i as f32 * std::f32::consts::FRAC_PI_4).sin_cos();
                pts.push(v(s * cs, -0.5 * s, s * sn));
                pts.push(v(0.6 * s * cs, 0.5 * s, 0.6 * s * sn));
            }
            ConvexHull::new(&pts).expect("a frustum is a valid hull")
        })
        .collect()
}

/// Seeded sliding paths: a shape of `kind` (0 sphere, 1 capsule, 2 box, 3
/// hull of [`slider_hulls`])
/// starting at a random place, resting between `MARGIN` above and 0.04 deep
/// in the ground `y = 0`, moving with a random horizontal velocity.
fn sliders(kind: usize, seed: u64) -> Vec<Collider> {
    let mut r = rng::rng(seed);
    let mut out = Vec::new();
    let hulls = slider_hulls();
    for _ in 0..STARTS {
        let start = v(rng::uniform(&mut r, -2.5, 2.5), 0.0, rng::uniform(&mut r, -2.5, 2.5));
        let vel = v(rng::uniform(&mut r, -1.0, 1.0), 0.0, rng::uniform(&mut r, -1.0, 1.0));
        let gap = rng::uniform(&mut r, -0.04, MARGIN);
        let size = rng::uniform(&mut r, 0.1, 0.6);
        let yaw = rng::uniform(&mut r, 0.0, 6.3);
        let (s, c) = yaw.sin_cos();
        for step in 0..STEPS {
            let p = start + vel * (step as f32 * 0.13);
            out.push(match kind {
                0 => Collider::Sphere(Sphere::new(p + Vec3::Y * (size + gap), size)),
                1 => {
                    let h = v(c, 0.0, s) * size;
                    let q = p + Vec3::Y * (0.5 * size + gap);
                    Collider::Capsule(Capsule::new(q - h, q + h, 0.5 * size))
                }
                2 => {
                    let axes = [v(c, 0.0, s), Vec3::Y, v(-s, 0.0, c)];
                    let half = v(size, 0.5 * size, 0.7 * size);
                    Collider::Box(Obb::new(p + Vec3::Y * (half.y + gap), axes, half))
                }
                _ => {
                    let axes = [v(c, 0.0, s), Vec3::Y, v(-s, 0.0, c)];
                    let k = ((size - 0.1) / 0.0625) as u32 % 8;
                    let hs = 0.1 + 0.07 * k as f32;
                    let centre = p + Vec3::Y * (0.5 * hs + gap);
                    Collider::Hull(HullCollider::new(&hulls, k, centre, axes))
                }
            });
        }
    }
    out
}

fn run(shapes: &[Collider], tris: &[Triangle], raw: bool) -> MeshManifolds {
    let mesh = StaticMesh::new(tris).with_raw_contacts(raw);
    let pairs: Vec<(u32, u32)> = (0..shapes.len() as u32).map(|i| (i, 0)).collect();
    mesh_contacts_with_hulls(shapes, &slider_hulls(), &[mesh], &pairs, MARGIN)
}

/// Angle between two unit vectors (in f64, accurate near 0).
fn angle(a: Vec3, b: Vec3) -> f32 {
    let (a, b) = ([a.x as f64, a.y as f64, a.z as f64], [b.x as f64, b.y as f64, b.z as f64]);
    let c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let s = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
    s.atan2(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) as f32
}

/// (manifolds leaning more than `bound` from `-up`, largest lean, shapes in
/// contact).
fn leans(out: &MeshManifolds, up: Vec3, bound: f32) -> (usize, f32, usize) {
    let (mut bad, mut worst, mut touching) = (0, 0.0f32, 0);
    for hits in out.iter() {
        touching += usize::from(!hits.is_empty());
        for h in hits {
            let a = angle(h.manifold.normal, -up);
            worst = worst.max(a);
            bad += usize::from(a > bound);
        }
    }
    (bad, worst, touching)
}

fn sliding(name: &str, tris: &[Triangle]) {
    sliding_in(name, tris, &Frame::WORLD);
}

/// A rigid frame: origin and orthonormal axes (`y` the ground's up).
struct Frame {
    origin: Vec3,
    axes: [Vec3; 3],
}

impl Frame {
    const WORLD: Frame = Frame { origin: Vec3::ZERO, axes: [Vec3::X, Vec3::Y, Vec3::Z] };

    fn dir(&self, d: Vec3) -> Vec3 {
        self.axes[0] * d.x + self.axes[1] * d.y + self.axes[2] * d.z
    }
    fn point(&self, p: Vec3) -> Vec3 {
        self.origin + self.dir(p)
    }
    fn triangle(&self, t: &Triangle) -> Triangle {
        Triangle::new(self.point(t.a), self.point(t.b), self.point(t.c))
    }
    fn collider(&self, c: &Collider) -> Collider {
        match *c {
            Collider::Sphere(s) => Collider::Sphere(Sphere::new(self.point(s.center), s.radius)),
            Collider::Capsule(k) => {
                Collider::Capsule(Capsule::new(self.point(k.a), self.point(k.b), k.radius))
            }
            Collider::Box(b) => {
                let axes = b.axes.map(|a| self.dir(a));
                Collider::Box(Obb::new(self.point(b.center), axes, b.half))
            }
            Collider::Hull(mut h) => {
                h.center = self.point(h.center);
                h.axes = h.axes.map(|a| self.dir(a));
                Collider::Hull(h)
            }
            Collider::Triangle(t) => Collider::Triangle(self.triangle(&t)),
        }
    }
}

/// [`sliding`] with the ground and the sliders placed by `frame`. A
/// filtered normal is the normal of a ground triangle within the filter's
/// tolerance, so the bound on its lean from the frame's up is `MAX_LEAN` plus
/// the largest lean of the placed triangles' own normals (rounding their
/// vertices to the ulps far from the origin tilts them; 0 at the origin).
fn sliding_in(name: &str, tris: &[Triangle], frame: &Frame) {
    let tris: Vec<Triangle> = tris.iter().map(|t| frame.triangle(t)).collect();
    let up = frame.axes[1];
    let face_lean =
        tris.iter().map(|t| angle(t.normal().try_normalize().unwrap(), up)).fold(0.0f32, f32::max);
    let bound = MAX_LEAN + face_lean;
    let labels = ["sphere", "capsule", "box", "hull"];
    for (kind, label) in labels.iter().enumerate() {
        let shapes: Vec<Collider> =
            sliders(kind, 20 + kind as u64).iter().map(|c| frame.collider(c)).collect();
        let fixed = run(&shapes, &tris, false);
        let raw = run(&shapes, &tris, true);
        let (bad, worst, touching) = leans(&fixed, up, bound);
        let (raw_bad, raw_worst, raw_touching) = leans(&raw, up, bound);
        println!(
            "GHOSTS {name} {}: {} positions, {touching} touching, faces lean up to {face_lean:.2e} rad, filtered: {bad} leaning (max {worst:.2e} rad), {} dropped; raw: {raw_bad} leaning (max {raw_worst:.3} rad)",
            label,
            shapes.len(),
            fixed.ghosts_dropped()
        );
        // no shape loses its contact with the ground
        assert_eq!(touching, raw_touching, "{name} {}", label);
        assert!(touching > shapes.len() / 2, "{name} {}: {touching}", label);
        assert_eq!(bad, 0, "{name} {}: {bad} leaning normals, max {worst}", label);
        // the raw output has the ghosts this test is about
        assert!(raw_bad > 100, "{name} {}: raw output has {raw_bad} leaning", label);
        // what is kept is the raw output minus the ghosts, unchanged
        for (f, r) in fixed.iter().zip(raw.iter()) {
            assert!(f.iter().all(|c| r.contains(c)));
        }
    }
}

#[test]
fn shapes_sliding_on_flat_tessellated_ground_get_only_the_face_normal() {
    sliding("flat", &flat());
}

/// Far from the origin, on a slope: the ground's vertices are rounded to
/// the ulps of coordinates near 1000 (6·10^-5, half a thousandth of a cell),
/// so the triangles' closest points must not be decided by distances
/// formed from rounded points (a sphere over a face 2.8·10^-4 inside a
/// diagonal was given that edge, whose normal leans past `FACE_ANGLE`;
/// with every manifold of a shape a ghost, the filter returned them all,
/// leaning up to 0.9 rad).
#[test]
fn shapes_sliding_on_a_slope_far_from_the_origin_get_only_the_face_normal() {
    let slope = Vec3::new(1.0, 0.3, 0.0).try_normalize().unwrap();
    let up = Vec3::new(-0.3, 1.0, 0.0).try_normalize().unwrap();
    for origin in [
        Vec3::new(100.0, 37.0, -60.0),
        Vec3::new(1000.0, 370.0, -600.0),
        Vec3::new(1e4, 3700.0, -6000.0),
    ] {
        let frame = Frame { origin, axes: [slope, up, Vec3::Z] };
        sliding_in(&format!("slope at {origin:?}"), &flat(), &frame);
    }
}

#[test]
fn shapes_sliding_across_the_seam_of_two_welded_soups_get_only_the_face_normal() {
    let tris = seam();
    // the paths cross the seam at x = 0.5
    sliding("seam", &tris);
    // the seam's edges are internal: welded across the ulp offsets
    let mesh = StaticMesh::new(&tris);
    let left = 36 * 64 * 2;
    let seam_tri = (0..left).rev().find(|&t| tris[t].c.x == 0.5 || tris[t].b.x == 0.5).unwrap();
    let e = mesh.internal_edges();
    assert!((0..3).all(|k| !e.edge_active(seam_tri, k)), "seam triangle {seam_tri}");
}

/// A roof: slopes `y = 1 - |x|·tan 20°` over `[-2, 2] × [-2, 2]`, ridge at
/// `x = 0`, 0.125 cells.
fn ridge(sign: f32) -> Vec<Triangle> {
    let t = 20f32.to_radians().tan();
    let y = move |x: f32| 1.0 - sign * x.abs() * t;
    let mut tris = patch(-2.0, -2.0, (16, 32), 0.125, false, false, y);
    tris.extend(patch(0.0, -2.0, (16, 32), 0.125, true, false, y));
    tris
}

#[test]
fn a_box_resting_on_a_ridge_and_a_sphere_on_a_convex_edge_keep_their_true_normals() {
    let tris = ridge(1.0);
    let mesh = StaticMesh::new(&tris);
    let e = mesh.internal_edges();
    let ridge_edges = (0..tris.len())
        .flat_map(|t| (0..3).map(move |k| (t, k)))
        .filter(|&(t, k)| {
            let p = [tris[t].a, tris[t].b, tris[t].c];
            p[k].x == 0.0 && p[(k + 1) % 3].x == 0.0
        })
        .collect::<Vec<_>>();
    assert_eq!(ridge_edges.len(), 64);
    assert!(ridge_edges.iter().all(|&(t, k)| e.edge_active(t, k)), "ridge edges are convex");
    let meshes = [mesh];
    let raw = [StaticMesh::new(&tris).with_raw_contacts(true)];
    let mut r = rng::rng(7);
    let (mut boxes, mut spheres, mut raw_off) = (0, 0, 0);
    for _ in 0..400 {
        // a box resting on the ridge line, yawed up to ±0.3 rad about y
        let yaw = rng::uniform(&mut r, -0.3, 0.3);
        let (s, c) = yaw.sin_cos();
        let half = v(0.4, 0.2, 0.3);
        let z = rng::uniform(&mut r, -1.0, 1.0);
        let b = Collider::Box(Obb::new(
            v(rng::uniform(&mut r, -0.1, 0.1), 1.0 + half.y, z),
            [v(c, 0.0, s), Vec3::Y, v(-s, 0.0, c)],
            half,
        ));
        // a sphere over the ridge edge, in its normal wedge (±20°)
        let phi = rng::uniform(&mut r, -0.33, 0.33);
        let rad = rng::uniform(&mut r, 0.05, 0.4);
        let true_n = v(phi.sin(), phi.cos(), 0.0);
        let sp = Collider::Sphere(Sphere::new(v(0.0, 1.0, z) + true_n * (rad * 0.98), rad));
        // (a margin: the box's bottom is within rounding of the ridge)
        let out = mesh_contacts(&[b, sp], &meshes, &[(0, 0), (1, 0)], 1e-3);
        assert!(!out.pair(0).is_empty() && !out.pair(1).is_empty(), "{b:?} {sp:?}");
        for h in out.pair(0) {
            assert!(angle(h.manifold.normal, -Vec3::Y) <= MAX_LEAN, "box: {h:?}");
            boxes += 1;
        }
        for h in out.pair(1) {
            assert!(angle(h.manifold.normal, -true_n) <= MAX_LEAN, "sphere phi {phi}: {h:?}");
            spheres += 1;
        }
        // the raw output leans: ghosts of the ridge's vertices and slopes
        let r = mesh_contacts(&[b, sp], &raw, &[(0, 0), (1, 0)], 1e-3);
        raw_off +=
            r.pair(0).iter().filter(|h| angle(h.manifold.normal, -Vec3::Y) > MAX_LEAN).count();
        raw_off +=
            r.pair(1).iter().filter(|h| angle(h.manifold.normal, -true_n) > MAX_LEAN).count();
    }
    println!("RIDGE: {boxes} box manifolds, {spheres} sphere manifolds, all true normals; raw: {raw_off} off");
    assert!(raw_off > 100, "{raw_off}");
}

#[test]
fn a_sphere_sliding_in_a_concave_groove_gets_only_the_two_face_normals() {
    let tris = ridge(-1.0);
    let t = 20f32.to_radians();
    let faces = [v(t.sin(), t.cos(), 0.0), v(-t.sin(), t.cos(), 0.0)];
    let mut r = rng::rng(9);
    let mut shapes = Vec::new();
    for _ in 0..2000 {
        let rad = rng::uniform(&mut r, 0.1, 0.5);
        // resting in the groove (touching both faces) give or take 0.02
        let lift = rad / t.cos() + rng::uniform(&mut r, -0.03, 0.02);
        let x = rng::uniform(&mut r, -0.3, 0.3);
        shapes.push(Collider::Sphere(Sphere::new(
            v(x, 1.0 + lift, rng::uniform(&mut r, -1.5, 1.5)),
            rad,
        )));
    }
    let fixed = run(&shapes, &tris, false);
    let raw = run(&shapes, &tris, true);
    let is_face = |n: Vec3| faces.iter().any(|&f| angle(n, -f) <= MAX_LEAN);
    let bad = fixed.contacts().iter().filter(|c| !is_face(c.manifold.normal)).count();
    let raw_bad = raw.contacts().iter().filter(|c| !is_face(c.manifold.normal)).count();
    println!("GROOVE: {} filtered manifolds, {bad} off a face; raw: {raw_bad} off a face", {
        fixed.contacts().len()
    });
    assert_eq!(bad, 0);
    assert!(raw_bad > 100, "{raw_bad}");
    for (f, r) in fixed.iter().zip(raw.iter()) {
        assert_eq!(f.is_empty(), r.is_empty());
    }
}
