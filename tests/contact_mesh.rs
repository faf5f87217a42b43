//! Shapes against static triangle meshes (`contact::mesh_contacts`, issue 6).
//!
//! The reference is brute force: the same shape against **every** triangle of
//! the mesh with the scalar testers (`sphere_triangle`, `capsule_triangle`,
//! `box_triangle` at `L = f32`), keeping the non-empty manifolds. The BVH
//! path must give exactly that, bit for bit, for
//! - a ground grid (flat half, bumpy half), an icosphere and a subdivided cube
//!   (closed, outward), and a grid with NaN and degenerate triangles;
//! - a few thousand seeded placements of spheres, capsules and boxes per mesh:
//!   near the surface (small shapes and shapes straddling many triangles),
//!   far away, exactly touching (depth 0 and depth `-margin` on the flat parts,
//!   at shared vertices), NaN / ∞ / negative-size shapes;
//! - every lane width (scalar, x4, x8, x16) and 1, 2, 3 rayon threads.
//!
//! The comparison would catch a query that loses a triangle: the placements
//! are checked to hold many contacts with triangles that only the margin
//! growth of the query box reaches (a query forgetting the margin drops
//! them), and the comparator is checked to fail when one contact is removed.

use crate::common::rng;

use wide::{f32x16, f32x4, f32x8};
use widephase::contact::mesh::{mesh_contacts_with, MeshContact, MeshManifolds};
use widephase::contact::{
    box_triangle, capsule_triangle, mesh_contacts, sphere_triangle, Collider, Manifold, StaticMesh,
};
use widephase::{Capsule, Obb, Sphere, Triangle, Vec3};

/// Speculative margin (dyadic, so `radius + MARGIN` is exact for the
/// touching cases).
const MARGIN: f32 = 0.125;
/// Random placements per shape kind per mesh.
const PLACEMENTS: usize = 700;

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

fn bits(m: &Manifold) -> Vec<u32> {
    bytemuck::cast_slice::<Manifold, f32>(core::slice::from_ref(m))
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// Same triangles, same manifolds bit for bit.
fn same(a: &[MeshContact], b: &[MeshContact]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.triangle == y.triangle && bits(&x.manifold) == bits(&y.manifold))
}

/// A mesh returning raw per-triangle manifolds (what brute force gives; the
/// ghost-contact filter is tested in `tests/contact_mesh_ghosts.rs`).
fn raw_mesh(tris: &[Triangle]) -> StaticMesh {
    StaticMesh::new(tris).with_raw_contacts(true)
}

// ---------------------------------------------------------------- meshes --

/// Flat (`y = 0`) for `x <= 0`, bumps for `x > 0` (continuous at `x = 0`).
fn height(x: f32, z: f32) -> f32 {
    if x <= 0.0 {
        0.0
    } else {
        0.3 * (1.3 * x).sin() * (1.1 * z).cos()
    }
}

/// `n`×`n` cells of side `cell` centred on the origin, two triangles per
/// cell, counter-clockwise seen from above (front = +y).
fn grid(n: usize, cell: f32) -> Vec<Triangle> {
    let half = n as f32 * cell * 0.5;
    let p = |i: usize, k: usize| {
        let (x, z) = (i as f32 * cell - half, k as f32 * cell - half);
        v(x, height(x, z), z)
    };
    let mut t = Vec::new();
    for i in 0..n {
        for k in 0..n {
            t.push(Triangle::new(p(i, k), p(i, k + 1), p(i + 1, k)));
            t.push(Triangle::new(p(i + 1, k), p(i, k + 1), p(i + 1, k + 1)));
        }
    }
    t
}

/// An icosahedron subdivided `levels` times, radius `r`, centre `c`,
/// counter-clockwise seen from outside.
fn icosphere(c: Vec3, r: f32, levels: usize) -> Vec<Triangle> {
    let g = (1.0 + 5f64.sqrt()) / 2.0;
    let vs: Vec<[f64; 3]> = vec![
        [-1.0, g, 0.0],
        [1.0, g, 0.0],
        [-1.0, -g, 0.0],
        [1.0, -g, 0.0],
        [0.0, -1.0, g],
        [0.0, 1.0, g],
        [0.0, -1.0, -g],
        [0.0, 1.0, -g],
        [g, 0.0, -1.0],
        [g, 0.0, 1.0],
        [-g, 0.0, -1.0],
        [-g, 0.0, 1.0],
    ];
    let idx = [
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    let unit = |p: [f64; 3]| {
        let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        [p[0] / l, p[1] / l, p[2] / l]
    };
    let mut tris: Vec<[[f64; 3]; 3]> =
        idx.iter().map(|t| [unit(vs[t[0]]), unit(vs[t[1]]), unit(vs[t[2]])]).collect();
    for _ in 0..levels {
        let mid = |a: [f64; 3], b: [f64; 3]| unit([a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
        tris = tris
            .iter()
            .flat_map(|&[a, b, c]| {
                let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
                [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
            })
            .collect();
    }
    let p = |q: [f64; 3]| c + v(q[0] as f32, q[1] as f32, q[2] as f32) * r;
    tris.iter()
        .map(|&[a, b, cc]| {
            // counter-clockwise seen from outside: the normal points away from c
            let t = Triangle::new(p(a), p(b), p(cc));
            let out = (t.a + t.b + t.c) * (1.0 / 3.0) - c;
            if (t.b - t.a).cross(t.c - t.a).dot(out) > 0.0 {
                t
            } else {
                Triangle::new(t.a, t.c, t.b)
            }
        })
        .collect()
}

/// The cube `[-h, h]³` around `c`, each face split into `n`×`n` squares of
/// two triangles, counter-clockwise seen from outside.
fn cube(c: Vec3, h: f32, n: usize) -> Vec<Triangle> {
    let mut t = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            // face frame: normal e_axis·sign, tangents u, w with u × w = normal
            let nrm =
                Vec3::from_array(core::array::from_fn(|k| if k == axis { sign } else { 0.0 }));
            let u =
                Vec3::from_array(core::array::from_fn(
                    |k| if k == (axis + 1) % 3 { 1.0 } else { 0.0 },
                ));
            let w = nrm.cross(u);
            let p = |i: usize, k: usize| {
                let (a, b) =
                    (-h + 2.0 * h * i as f32 / n as f32, -h + 2.0 * h * k as f32 / n as f32);
                c + nrm * h + u * a + w * b
            };
            for i in 0..n {
                for k in 0..n {
                    t.push(Triangle::new(p(i, k), p(i + 1, k), p(i + 1, k + 1)));
                    t.push(Triangle::new(p(i, k), p(i + 1, k + 1), p(i, k + 1)));
                }
            }
        }
    }
    t
}

/// The grid with some triangles replaced by NaN, ∞ and degenerate ones
/// (a segment, a point, a sliver).
fn junk_grid() -> Vec<Triangle> {
    let mut t = grid(12, 0.75);
    let n = f32::NAN;
    t[5] = Triangle::new(v(n, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 0.0, 1.0));
    t[17] = Triangle::new(v(0.0, f32::INFINITY, 0.0), v(1.0, 0.0, 0.0), v(0.0, 0.0, 1.0));
    let a = t[40].a;
    t[40] = Triangle::new(a, a + v(1.0, 0.0, 0.0), a + v(2.0, 0.0, 0.0)); // segment
    let b = t[90].b;
    t[90] = Triangle::new(b, b, b); // point
    let c = t[131].a;
    t[131] = Triangle::new(c, c + v(1.0, 1e-7, 0.0), c + v(2.0, 0.0, 0.0)); // sliver
    t
}

// ------------------------------------------------------------- reference --

/// The shape against every triangle with the scalar testers.
fn brute(shape: &Collider, tris: &[Triangle], margin: f32) -> Vec<MeshContact> {
    tris.iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let m = match shape {
                Collider::Sphere(s) => sphere_triangle(s, t, margin),
                Collider::Capsule(c) => capsule_triangle(c, t, margin),
                Collider::Box(b) => box_triangle(b, t, margin),
                // (hulls need a table: `mesh_contacts` without one gives nothing)
                Collider::Triangle(_) | Collider::Hull(_) => Manifold::EMPTY,
            };
            (m.count > 0.0).then_some(MeshContact { triangle: i as u32, manifold: m })
        })
        .collect()
}

// ------------------------------------------------------------ placements --

struct Gen(fastrand::Rng);
impl Gen {
    fn f(&mut self, lo: f32, hi: f32) -> f32 {
        rng::uniform(&mut self.0, lo, hi)
    }
    fn p(&mut self, lo: f32, hi: f32) -> Vec3 {
        rng::point(&mut self.0, lo, hi)
    }
    fn unit(&mut self) -> Vec3 {
        loop {
            if let Some(u) = self.p(-1.0, 1.0).try_normalize() {
                return u;
            }
        }
    }
    /// Orthonormal axes from a random unit quaternion (in f64).
    fn axes(&mut self) -> [Vec3; 3] {
        rng::rotation(&mut self.0)
    }
    /// A shape of `kind` (0 sphere, 1 capsule, 2 box) of size about `size`
    /// around `c`.
    fn shape(&mut self, kind: usize, c: Vec3, size: f32) -> Collider {
        match kind {
            0 => Collider::Sphere(Sphere::new(c, size)),
            1 => {
                let h = self.unit() * self.f(0.2, 1.5) * size;
                Collider::Capsule(Capsule::new(c - h, c + h, size * self.f(0.3, 0.8)))
            }
            _ => Collider::Box(Obb::new(c, self.axes(), self.p(0.3, 1.0) * size)),
        }
    }
}

/// Random placements of each kind around `tris` (whose AABB is `lo..hi`):
/// near a random triangle (offset along its normal, from inside the shape to
/// beyond the margin), small or large (straddling many triangles), and far.
fn random_placements(seed: u64, tris: &[Triangle], lo: Vec3, hi: Vec3) -> Vec<Collider> {
    let mut g = Gen(fastrand::Rng::with_seed(seed));
    let mut out = Vec::new();
    for kind in 0..3 {
        for i in 0..PLACEMENTS {
            let size = if i % 3 == 0 { g.f(0.6, 2.5) } else { g.f(0.05, 0.5) };
            let c = if i % 10 == 9 {
                // far away: nothing within reach
                hi + g.p(3.0, 6.0) * (size + 1.0)
            } else if i % 10 == 8 {
                // anywhere in the mesh's box
                let t = g.p(0.0, 1.0);
                lo + v((hi.x - lo.x) * t.x, (hi.y - lo.y) * t.y, (hi.z - lo.z) * t.z)
            } else {
                let t = tris[g.0.usize(..tris.len())];
                let (mut a, mut b) = (g.f(0.0, 1.0), g.f(0.0, 1.0));
                if a + b > 1.0 {
                    (a, b) = (1.0 - a, 1.0 - b);
                }
                let p = t.a + (t.b - t.a) * a + (t.c - t.a) * b;
                let n = (t.b - t.a).cross(t.c - t.a).try_normalize().unwrap_or(Vec3::Y);
                p + n * g.f(-0.5, 1.6) * size
            };
            out.push(g.shape(kind, c, size));
        }
    }
    out
}

/// Exactly touching placements on a flat face `y = y0` spanning `x, z` in
/// `[lo, hi]` with grid vertices at multiples of `step` (all dyadic): depth 0
/// and depth `-MARGIN` exactly, the next float beyond, over a vertex, over an
/// edge, inside a face.
fn touching(y0: f32, lo: f32, hi: f32, step: f32) -> Vec<Collider> {
    let mut out = Vec::new();
    let r = 0.25f32;
    let xs = [lo + step, lo + 1.5 * step, lo + 1.25 * step, (lo + hi) * 0.5];
    for &x in &xs {
        for &z in &xs {
            for y in [y0 + r, y0 + r + MARGIN, (y0 + r + MARGIN).next_up(), y0 + r * 0.5] {
                out.push(Collider::Sphere(Sphere::new(v(x, y, z), r)));
                out.push(Collider::Capsule(Capsule::new(v(x - 0.5, y, z), v(x + 0.5, y, z), r)));
                let axes = [Vec3::X, Vec3::Y, Vec3::Z];
                out.push(Collider::Box(Obb::new(v(x, y, z), axes, v(0.375, r, 0.5))));
            }
        }
    }
    out
}

/// Invalid shapes: no contacts, no panic.
fn invalid() -> Vec<Collider> {
    let (n, i) = (f32::NAN, f32::INFINITY);
    let ax = [Vec3::X, Vec3::Y, Vec3::Z];
    vec![
        Collider::Sphere(Sphere::new(v(n, 0.0, 0.0), 1.0)),
        Collider::Sphere(Sphere::new(Vec3::ZERO, n)),
        Collider::Sphere(Sphere::new(Vec3::ZERO, i)),
        Collider::Sphere(Sphere::new(Vec3::ZERO, -1.0)),
        Collider::Sphere(Sphere::new(v(0.0, -i, 0.0), 1.0)),
        Collider::Capsule(Capsule::new(Vec3::ZERO, v(n, 1.0, 0.0), 0.5)),
        Collider::Capsule(Capsule::new(Vec3::ZERO, v(4.0, 3.0, 2.0), -0.25)),
        Collider::Capsule(Capsule::new(Vec3::ZERO, v(1.0, 0.0, 0.0), n)),
        Collider::Box(Obb::new(Vec3::ZERO, [v(n, 0.0, 0.0), Vec3::Y, Vec3::Z], Vec3::splat(1.0))),
        Collider::Box(Obb::new(Vec3::ZERO, ax, v(1.0, -1.0, 1.0))),
        Collider::Box(Obb::new(v(0.0, 0.0, i), ax, Vec3::splat(1.0))),
        Collider::Box(Obb::new(Vec3::ZERO, ax, v(1.0, n, 1.0))),
    ]
}

fn bounds(tris: &[Triangle]) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for t in tris.iter().filter(|t| t.a.is_finite() && t.b.is_finite() && t.c.is_finite()) {
        lo = lo.min(t.a).min(t.b).min(t.c);
        hi = hi.max(t.a).max(t.b).max(t.c);
    }
    (lo, hi)
}

/// The test meshes with their placements.
fn scenes() -> Vec<(&'static str, Vec<Triangle>, Vec<Collider>)> {
    let mut out = Vec::new();
    let g = grid(16, 0.5);
    let (lo, hi) = bounds(&g);
    let mut p = random_placements(1, &g, lo, hi);
    p.extend(touching(0.0, -4.0, 0.0, 0.5));
    p.extend(invalid());
    out.push(("grid", g, p));

    let s = icosphere(v(10.0, 3.0, -5.0), 2.0, 2);
    let (lo, hi) = bounds(&s);
    let mut p = random_placements(2, &s, lo, hi);
    p.extend(invalid());
    out.push(("icosphere", s, p));

    // the top face y = 1.5 + 1.5 is flat with vertices every 0.75
    let c = cube(v(0.0, 1.5, 0.0), 1.5, 4);
    let (lo, hi) = bounds(&c);
    let mut p = random_placements(3, &c, lo, hi);
    p.extend(touching(3.0, -1.5, 1.5, 0.75));
    out.push(("cube", c, p));

    let j = junk_grid();
    let (lo, hi) = bounds(&j);
    let mut p = random_placements(4, &j, lo, hi);
    p.extend(invalid());
    out.push(("junk grid", j, p));
    out
}

// ------------------------------------------------------------------ tests --

/// The tested path against brute force, per pair; returns the number of
/// contacts compared.
fn check(name: &str, got: &MeshManifolds, shapes: &[Collider], tris: &[Triangle]) -> usize {
    assert_eq!(got.len(), shapes.len(), "{name}");
    let mut n = 0;
    for (i, s) in shapes.iter().enumerate() {
        let want = brute(s, tris, MARGIN);
        assert!(
            same(got.pair(i), &want),
            "{name}: shape {i} {s:?}\n got {:?}\nwant {want:?}",
            got.pair(i)
        );
        n += want.len();
    }
    n
}

#[test]
fn mesh_contacts_equal_brute_force_at_every_width() {
    for (name, tris, shapes) in scenes() {
        let mesh = raw_mesh(&tris);
        let pairs: Vec<(u32, u32)> = (0..shapes.len() as u32).map(|i| (i, 0)).collect();
        let meshes = [mesh];
        let runs = [
            ("x16", mesh_contacts(&shapes, &meshes, &pairs, MARGIN)),
            ("scalar", mesh_contacts_with::<f32>(&shapes, &meshes, &pairs, MARGIN)),
            ("x4", mesh_contacts_with::<f32x4>(&shapes, &meshes, &pairs, MARGIN)),
            ("x8", mesh_contacts_with::<f32x8>(&shapes, &meshes, &pairs, MARGIN)),
            ("x16", mesh_contacts_with::<f32x16>(&shapes, &meshes, &pairs, MARGIN)),
        ];
        let want = check(name, &runs[0].1, &shapes, &tris);
        for (w, got) in &runs[1..] {
            assert_eq!(got, &runs[0].1, "{name} {w}");
            for (a, b) in got.contacts().iter().zip(runs[0].1.contacts()) {
                assert_eq!(bits(&a.manifold), bits(&b.manifold), "{name} {w}");
            }
        }

        // coverage: per kind, shapes in contact, shapes on >= 4 triangles,
        // contacts reached only through the margin growth of the query
        let out = &runs[0].1;
        let mut line = format!("MESH {name}: {} triangles, {want} contacts", tris.len());
        for (kind, label) in [(0, "sphere"), (1, "capsule"), (2, "box")] {
            let of_kind = |s: &Collider| s.kind() as usize == kind;
            let (mut hit, mut many, mut margin_only, mut most) = (0, 0, 0, 0);
            for (s, got) in shapes.iter().zip(out.iter()).filter(|(s, _)| of_kind(s)) {
                hit += usize::from(!got.is_empty());
                many += usize::from(got.len() >= 4);
                most = most.max(got.len());
                // a query with the shape's own AABB (no margin) finds these?
                let tight = meshes[0].bvh().overlap_aabb(&s.aabb());
                margin_only +=
                    got.iter().filter(|c| tight.binary_search(&c.triangle).is_err()).count();
            }
            line += &format!(
                "; {label}: {hit} in contact, {many} on >= 4 triangles (max {most}), {margin_only} beyond the tight AABB"
            );
            if name != "junk grid" {
                assert!(hit > PLACEMENTS / 3, "{name} {label}: {hit} shapes in contact");
                assert!(many > PLACEMENTS / 20, "{name} {label}: {many} shapes on >= 4 triangles");
                assert!(margin_only > 10, "{name} {label}: {margin_only} margin-only contacts");
            }
        }
        println!("{line}; {} sub-pairs tested", out.tested());
    }
}

#[test]
fn the_comparison_catches_a_lost_triangle() {
    let tris = grid(16, 0.5);
    let mesh = raw_mesh(&tris);
    // a large sphere on the bumpy half straddles many triangles
    let s = Collider::Sphere(Sphere::new(v(2.0, 0.6, 0.5), 1.0));
    let got = mesh_contacts(&[s], core::slice::from_ref(&mesh), &[(0, 0)], MARGIN);
    let want = brute(&s, &tris, MARGIN);
    assert!(want.len() >= 8, "{}", want.len());
    assert!(same(got.pair(0), &want));
    for k in 0..want.len() {
        let mut lost = got.pair(0).to_vec();
        lost.remove(k);
        assert!(!same(&lost, &want), "dropping triangle {} must be seen", want[k].triangle);
    }
    // a query without the margin would lose contacts: the sphere 0.1 above a
    // flat face is a speculative contact outside its own AABB
    let up = Collider::Sphere(Sphere::new(v(-2.1, 0.35, -1.9), 0.25));
    assert!(mesh.bvh().overlap_aabb(&up.aabb()).is_empty());
    let got = mesh_contacts(&[up], &[mesh], &[(0, 0)], MARGIN);
    assert_eq!(got.pair(0).len(), brute(&up, &tris, MARGIN).len());
    assert!(!got.pair(0).is_empty());
}

#[test]
fn a_box_beyond_the_margin_of_a_tilted_triangle_gets_no_contact() {
    // box_triangle favours the triangle normal over a box axis up to the face
    // bias: for a triangle 1.003·margin beyond the face x = +1 of a unit box,
    // tilted so that its plane is 0.999·margin away, the SAT reports a
    // speculative contact on the triangle normal. Its deepest point is not a
    // closest pair (the triangle's plane is nearer than the triangle), so the
    // tester replaces it by the exact distance, beyond the margin: no contact,
    // from the tester and through the mesh (which queries the box's AABB
    // grown by more than the margin, and finds the triangle outside it).
    let b = Collider::Box(Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0)));
    let (sin, cos) = (0.01f32, (1.0f32 - 0.0001).sqrt());
    let d = 0.999 * MARGIN + cos + sin; // plane cos·x + sin·y = d
    let x = |y: f32| (d - sin * y) / cos;
    let (p, q, r) = (v(x(-0.5), -0.5, -0.5), v(x(0.95), 0.95, 0.0), v(x(-0.5), -0.5, 0.5));
    // front (counter-clockwise) towards the box at -x
    let t =
        if (q - p).cross(r - p).x < 0.0 { Triangle::new(p, q, r) } else { Triangle::new(p, r, q) };
    let gap_x = t.a.x.min(t.b.x).min(t.c.x) - 1.0;
    assert!(gap_x > MARGIN, "{gap_x}");
    assert!(brute(&b, &[t], MARGIN).is_empty(), "the tester rejects it");
    // a little nearer, within the margin: a contact, found through the mesh
    let near = Triangle::new(t.a - Vec3::X * 0.01, t.b - Vec3::X * 0.01, t.c - Vec3::X * 0.01);
    for tri in [t, near] {
        let want = brute(&b, &[tri], MARGIN);
        let mesh = raw_mesh(&[tri]);
        let got = mesh_contacts(&[b], &[mesh], &[(0, 0)], MARGIN);
        assert!(same(got.pair(0), &want));
    }
    assert_eq!(brute(&b, &[near], MARGIN).len(), 1, "the nearer triangle touches the margin");
}

#[test]
fn output_is_the_same_for_one_two_and_three_threads() {
    // every scene in one call: pairs against four meshes, shuffled, with
    // repeats, so the tasks cut the sub-pairs at different places
    let sc = scenes();
    let meshes: Vec<StaticMesh> = sc.iter().map(|(_, t, _)| raw_mesh(t)).collect();
    let mut shapes = Vec::new();
    let mut pairs = Vec::new();
    for (m, (_, _, p)) in sc.iter().enumerate() {
        for s in p {
            pairs.push((shapes.len() as u32, m as u32));
            shapes.push(*s);
        }
    }
    let mut rng = fastrand::Rng::with_seed(5);
    rng.shuffle(&mut pairs);
    let extra: Vec<(u32, u32)> = pairs.iter().step_by(7).copied().collect();
    pairs.extend(extra);
    let runs: Vec<MeshManifolds> = [1, 2, 3]
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
            pool.install(|| mesh_contacts(&shapes, &meshes, &pairs, MARGIN))
        })
        .collect();
    let flat = |r: &MeshManifolds| -> Vec<(u32, Vec<u32>)> {
        r.contacts().iter().map(|c| (c.triangle, bits(&c.manifold))).collect()
    };
    let lens = |r: &MeshManifolds| -> Vec<usize> { r.iter().map(|p| p.len()).collect() };
    for r in &runs[1..] {
        assert_eq!(lens(r), lens(&runs[0]));
        assert_eq!(flat(r), flat(&runs[0]));
    }
    assert!(runs[0].contacts().len() > 5000, "{}", runs[0].contacts().len());
    // and it is still brute force, pair by pair, against the right mesh
    for (i, &(s, m)) in pairs.iter().enumerate() {
        let want = brute(&shapes[s as usize], &sc[m as usize].1, MARGIN);
        assert!(same(runs[2].pair(i), &want), "pair {i}");
    }
}

#[test]
fn triangles_empty_meshes_and_invalid_margins_give_nothing() {
    let tris = grid(8, 0.5);
    let meshes = [raw_mesh(&tris), raw_mesh(&[])];
    assert!(meshes[1].is_empty() && !meshes[1].aabb().is_valid());
    let s = Collider::Sphere(Sphere::new(v(0.0, 0.2, 0.0), 0.5));
    let t = Collider::Triangle(tris[3]);
    let shapes = [s, t];
    let out = mesh_contacts(&shapes, &meshes, &[(0, 0), (1, 0), (0, 1)], MARGIN);
    assert_eq!(out.len(), 3);
    assert!(!out.pair(0).is_empty());
    assert!(out.pair(1).is_empty(), "triangle against mesh: no tester");
    assert!(out.pair(2).is_empty(), "empty mesh");
    for m in [f32::NAN, -0.5, f32::INFINITY, f32::NEG_INFINITY] {
        let out = mesh_contacts(&shapes, &meshes, &[(0, 0), (1, 0)], m);
        assert!(out.contacts().is_empty() && out.tested() == 0, "margin {m}");
        assert!(brute(&s, &tris, m).is_empty(), "the testers agree: margin {m}");
    }
    // margin 0: still brute force
    let out = mesh_contacts(&shapes, &meshes, &[(0, 0)], 0.0);
    assert!(same(out.pair(0), &brute(&s, &tris, 0.0)));
    // no pairs
    let out = mesh_contacts(&shapes, &meshes, &[], MARGIN);
    assert!(out.is_empty() && out.contacts().is_empty());
}

#[test]
fn normals_point_from_the_shape_into_the_mesh() {
    // a box resting on the flat half of the grid: 4 points per triangle
    // under it, normal -Y, depth 0, points on the ground
    let tris = grid(16, 0.5);
    let mesh = raw_mesh(&tris);
    let b = Collider::Box(Obb::new(
        v(-2.0, 0.25, -2.0),
        [Vec3::X, Vec3::Y, Vec3::Z],
        v(0.5, 0.25, 0.5),
    ));
    let out = mesh_contacts(&[b], &[mesh], &[(0, 0)], 0.0);
    assert!(out.pair(0).len() >= 8, "{}", out.pair(0).len());
    for c in out.pair(0) {
        assert_eq!(c.manifold.normal, -Vec3::Y);
        for p in c.manifold.contacts() {
            assert_eq!((p.depth, p.position.y), (0.0, 0.0));
        }
    }
    // ids ascending, unique
    assert!(out.pair(0).windows(2).all(|w| w[0].triangle < w[1].triangle));
}

#[test]
#[should_panic(expected = "indexes past")]
fn a_pair_past_the_meshes_panics() {
    let mesh = raw_mesh(&grid(2, 1.0));
    let s = Collider::Sphere(Sphere::new(Vec3::ZERO, 1.0));
    mesh_contacts(&[s], &[mesh], &[(0, 1)], MARGIN);
}

#[test]
fn the_ghost_filter_keeps_a_subset_and_never_empties_a_pair() {
    // every scene (incl. NaN, ∞ and degenerate triangles, closed meshes):
    // the filtered output is the raw output minus some manifolds, and a
    // shape touching the mesh keeps at least one contact
    let mut dropped = 0;
    for (name, tris, shapes) in scenes() {
        let pairs: Vec<(u32, u32)> = (0..shapes.len() as u32).map(|i| (i, 0)).collect();
        let raw = mesh_contacts(&shapes, &[raw_mesh(&tris)], &pairs, MARGIN);
        let fixed = mesh_contacts(&shapes, &[StaticMesh::new(&tris)], &pairs, MARGIN);
        assert_eq!(raw.ghosts_dropped(), 0);
        for (i, (f, r)) in fixed.iter().zip(raw.iter()).enumerate() {
            assert_eq!(f.is_empty(), r.is_empty(), "{name} shape {i}");
            assert!(f.iter().all(|c| r.contains(c)), "{name} shape {i}");
        }
        assert_eq!(raw.contacts().len() - fixed.contacts().len(), fixed.ghosts_dropped());
        dropped += fixed.ghosts_dropped();
    }
    assert!(dropped > 1000, "{dropped}");
}
