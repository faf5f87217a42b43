//! BVH tests: every query equals brute force over all primitives with the
//! crate's scalar kernels (random, clustered, degenerate, huge and NaN
//! inputs); closest hits agree with the exact ray–triangle reference; rays
//! through shared edges and vertices never leak; refit equals rebuild; any
//! thread count gives the same tree and answers; the raycast CLI validates input.
use crate::common;

use common::exact::Q;
use common::reference::rays as reference;
use common::rng::{self, grid, grid_point, point, Rng};
use widephase::bvh::{Bvh, MeshBvh, RayHit};
use widephase::overlap::{aabb_aabb, sphere_aabb, sphere_triangle, triangle_aabb};
use widephase::ray::{ray_aabb, ray_triangle};
use widephase::{Aabb, Ray, Sphere, Triangle, Vec3};

// ------------------------------------------------------------ brute force

fn brute_aabb(boxes: &[Aabb], q: &Aabb) -> Vec<u32> {
    (0..boxes.len() as u32).filter(|&i| aabb_aabb(q, &boxes[i as usize])).collect()
}

fn brute_sphere(boxes: &[Aabb], s: &Sphere) -> Vec<u32> {
    (0..boxes.len() as u32).filter(|&i| sphere_aabb(s, &boxes[i as usize])).collect()
}

/// Smallest (t, id) over every box the scalar slab test hits.
fn brute_pick(boxes: &[Aabb], r: &Ray) -> Option<(u32, f32)> {
    let mut best: Option<(u32, f32)> = None;
    for (i, b) in boxes.iter().enumerate() {
        let h = ray_aabb(r, b);
        if h.hit && best.is_none_or(|(_, t)| h.t < t) {
            best = Some((i as u32, h.t));
        }
    }
    best
}

/// Smallest (t, id) over every triangle the scalar watertight test hits.
fn brute_closest(tris: &[Triangle], r: &Ray) -> Option<RayHit> {
    let mut best: Option<RayHit> = None;
    for (i, tri) in tris.iter().enumerate() {
        let h = ray_triangle(r, tri);
        if h.hit && best.is_none_or(|b| h.t < b.t) {
            best = Some(RayHit { id: i as u32, t: h.t, u: h.u, v: h.v });
        }
    }
    best
}

fn same_hit(a: Option<RayHit>, b: Option<RayHit>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.id == b.id
                && a.t.to_bits() == b.t.to_bits()
                && a.u.to_bits() == b.u.to_bits()
                && a.v.to_bits() == b.v.to_bits()
        }
        _ => false,
    }
}

// ------------------------------------------------------------ generators

/// Boxes of one of several flavours: random, on a coarse grid (touching and
/// identical boxes), zero-size, huge coordinates, and a few NaN/∞/inverted.
fn gen_box(r: &mut Rng, flavour: u32) -> Aabb {
    match flavour {
        0 => {
            let c = point(r, -10.0, 10.0);
            let h = point(r, 0.0, 1.0);
            Aabb::new(c - h, c + h)
        }
        1 => {
            let a = grid_point(r, 6, 0);
            let b = a + Vec3::new(grid(r, 2, 0).abs(), grid(r, 2, 0).abs(), grid(r, 2, 0).abs());
            Aabb::new(a, b)
        }
        2 => {
            let p = grid_point(r, 4, 1);
            Aabb::new(p, p)
        }
        3 => {
            let c = point(r, -1.0, 1.0) * 1.0e30;
            let h = point(r, 0.0, 1.0) * 1.0e29;
            Aabb::new(c - h, c + h)
        }
        _ => match r.u32(0..4) {
            0 => Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::splat(1.0)),
            1 => Aabb::new(Vec3::ZERO, Vec3::new(1.0, f32::INFINITY, 1.0)),
            2 => Aabb::new(Vec3::splat(1.0), Vec3::ZERO),
            _ => Aabb::new(Vec3::splat(f32::NEG_INFINITY), Vec3::splat(f32::INFINITY)),
        },
    }
}

fn gen_boxes(r: &mut Rng, n: usize, scale_huge: bool) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let f = match r.u32(0..100) {
                0..=49 => 0,
                50..=79 => 1,
                80..=89 => 2,
                90..=96 => {
                    if scale_huge {
                        3
                    } else {
                        0
                    }
                }
                _ => 4,
            };
            gen_box(r, f)
        })
        .collect()
}

fn gen_ray(r: &mut Rng, span: f32) -> Ray {
    match r.u32(0..20) {
        0 => Ray::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X),
        1 => Ray::new(point(r, -span, span), Vec3::ZERO),
        2 => {
            // axis-parallel on the grid: touching faces and edges exactly
            let d = [Vec3::X, -Vec3::Y, Vec3::Z][r.usize(0..3)];
            Ray::new(grid_point(r, 8, 0) - d * 20.0, d)
        }
        3 => {
            let o = point(r, -span, span);
            Ray::with_interval(o, point(r, -1.0, 1.0), r.f32() * 5.0, 5.0 + r.f32() * 10.0)
        }
        _ => {
            let o = point(r, -2.0 * span, 2.0 * span);
            let target = point(r, -span, span);
            Ray::new(o, target - o)
        }
    }
}

/// Triangles: random, on a coarse grid (shared edges, coplanar, touching),
/// zero-area (segments and points), huge coordinates, and a few non-finite.
fn gen_tris(r: &mut Rng, n: usize) -> Vec<Triangle> {
    (0..n)
        .map(|_| match r.u32(0..100) {
            0..=49 => {
                let c = point(r, -8.0, 8.0);
                Triangle::new(
                    c + point(r, -1.0, 1.0),
                    c + point(r, -1.0, 1.0),
                    c + point(r, -1.0, 1.0),
                )
            }
            50..=79 => Triangle::new(grid_point(r, 6, 0), grid_point(r, 6, 0), grid_point(r, 6, 0)),
            80..=87 => {
                let a = grid_point(r, 6, 0);
                let b = grid_point(r, 6, 0);
                // a segment (c on ab) or a point
                if r.bool() {
                    Triangle::new(a, b, (a + b) * 0.5)
                } else {
                    Triangle::new(a, a, a)
                }
            }
            88..=94 => {
                // huge, at the edge of the contract range (COORD_LIMIT = 2^40)
                let c = point(r, -1.0, 1.0) * 5.0e11;
                let e = 1.0e11;
                Triangle::new(c + point(r, -e, e), c + point(r, -e, e), c + point(r, -e, e))
            }
            _ => {
                let mut t =
                    Triangle::new(point(r, -2.0, 2.0), point(r, -2.0, 2.0), point(r, -2.0, 2.0));
                t.b.y = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][r.usize(0..3)];
                t
            }
        })
        .collect()
}

// ------------------------------------------------------------ box BVH

#[test]
fn box_queries_equal_brute_force() {
    let mut r = rng::rng(0xB0B);
    for (round, n) in [0usize, 1, 7, 9, 64, 1500, 3000].into_iter().enumerate() {
        let boxes = gen_boxes(&mut r, n, round % 2 == 0);
        let bvh = Bvh::new(&boxes);
        for _ in 0..200 {
            let q = {
                let f = r.u32(0..5);
                gen_box(&mut r, f)
            };
            assert_eq!(bvh.overlap_aabb(&q), brute_aabb(&boxes, &q), "aabb query {q:?}");
            let s =
                Sphere::new(point(&mut r, -10.0, 10.0), [0.0, 0.5, 3.0, f32::NAN][r.usize(0..4)]);
            assert_eq!(bvh.overlap_sphere(&s), brute_sphere(&boxes, &s), "sphere query {s:?}");
            let ray = gen_ray(&mut r, 10.0);
            assert_eq!(bvh.pick(&ray), brute_pick(&boxes, &ray), "pick {ray:?}");
        }
        let mut brute = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if aabb_aabb(&boxes[i], &boxes[j]) {
                    brute.push([i as u32, j as u32]);
                }
            }
        }
        assert_eq!(bvh.self_pairs(), brute, "self pairs, n = {n}");
    }
}

#[test]
fn identical_and_coincident_boxes() {
    // all boxes identical: every query returns all of them; the tree stays shallow
    let b = Aabb::new(Vec3::splat(1.0), Vec3::splat(2.0));
    let boxes = vec![b; 5000];
    let bvh = Bvh::new(&boxes);
    assert!(bvh.node_count() < 5000 / 4);
    assert_eq!(bvh.overlap_aabb(&Aabb::new(Vec3::splat(2.0), Vec3::splat(3.0))).len(), 5000);
    assert_eq!(bvh.pick(&Ray::new(Vec3::ZERO, Vec3::splat(1.0))), Some((0, 1.0)));
    assert_eq!(bvh.self_pairs().len(), 5000 * 4999 / 2);
    // exponentially spaced centroids: the binned SAH splits 1 | n-1 at every
    // level; the median fallback bounds the depth (no stack overflow) and
    // answers stay exact
    let boxes: Vec<Aabb> = (0..3000)
        .map(|i| {
            let x = 1.01f32.powi(i) - 1.0;
            Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x, 1.0, 1.0))
        })
        .collect();
    let bvh = Bvh::new(&boxes);
    let q = Aabb::new(Vec3::new(0.5, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0));
    assert_eq!(bvh.overlap_aabb(&q), brute_aabb(&boxes, &q));
}

#[test]
fn box_refit_equals_rebuild() {
    let mut r = rng::rng(0xEF17);
    let mut boxes = gen_boxes(&mut r, 2000, false);
    let mut bvh = Bvh::new(&boxes);
    for step in 0..4 {
        // move every box; some become NaN, and NaN ones come back
        for b in boxes.iter_mut() {
            if !b.is_valid() || r.u32(0..50) == 0 {
                *b = {
                    let f = r.u32(0..5);
                    gen_box(&mut r, f)
                };
            } else {
                let d = point(&mut r, -3.0, 3.0);
                *b = Aabb::new(b.min + d, b.max + d);
            }
        }
        bvh.refit(&boxes);
        let fresh = Bvh::new(&boxes);
        for _ in 0..150 {
            let q = {
                let f = r.u32(0..5);
                gen_box(&mut r, f)
            };
            let want = brute_aabb(&boxes, &q);
            assert_eq!(bvh.overlap_aabb(&q), want, "step {step}");
            assert_eq!(fresh.overlap_aabb(&q), want);
            let ray = gen_ray(&mut r, 12.0);
            assert_eq!(bvh.pick(&ray), brute_pick(&boxes, &ray), "step {step}");
            assert_eq!(fresh.pick(&ray), bvh.pick(&ray));
        }
        assert_eq!(bvh.self_pairs(), fresh.self_pairs(), "step {step}");
    }
}

// ------------------------------------------------------------ mesh BVH

#[test]
fn mesh_rays_equal_brute_force() {
    let mut r = rng::rng(0x7A1);
    for n in [1usize, 5, 8, 9, 100, 2000] {
        let tris = gen_tris(&mut r, n);
        let bvh = MeshBvh::new(&tris);
        let mut stack = Vec::new();
        for _ in 0..400 {
            let ray = gen_ray(&mut r, 9.0);
            let want = brute_closest(&tris, &ray);
            let got = bvh.closest_hit(&ray);
            assert!(same_hit(got, want), "n {n} ray {ray:?}: bvh {got:?} brute {want:?}");
            assert!(same_hit(bvh.closest_hit_with(&ray, &mut stack), want));
            assert_eq!(bvh.any_hit(&ray), want.is_some(), "any-hit {ray:?}");
        }
        for _ in 0..100 {
            let q = {
                let f = r.u32(0..5);
                gen_box(&mut r, f)
            };
            let want: Vec<u32> =
                (0..n as u32).filter(|&i| triangle_aabb(&tris[i as usize], &q)).collect();
            assert_eq!(bvh.overlap_aabb(&q), want, "triangle-box query {q:?}");
            let s = Sphere::new(point(&mut r, -9.0, 9.0), [0.0, 0.7, 4.0, f32::NAN][r.usize(0..4)]);
            let want: Vec<u32> =
                (0..n as u32).filter(|&i| sphere_triangle(&s, &tris[i as usize])).collect();
            assert_eq!(bvh.overlap_sphere(&s), want, "triangle-sphere query {s:?}");
        }
    }
}

#[test]
fn mesh_closest_hit_agrees_with_exact_reference() {
    let mut r = rng::rng(0xE4AC7);
    let mut checked = 0;
    let mut in_band = 0;
    for _ in 0..12 {
        let tris = gen_tris(&mut r, 120);
        let bvh = MeshBvh::new(&tris);
        for _ in 0..40 {
            let ray = gen_ray(&mut r, 9.0);
            if !(ray.origin.is_finite() && ray.dir.is_finite()) || ray.dir == Vec3::ZERO {
                continue;
            }
            // the exact kit takes finite inputs; invalid triangles never hit
            let exact: Vec<_> = tris
                .iter()
                .map(|t| {
                    if t.is_valid() {
                        reference::ray_triangle_exact(&ray, t)
                    } else {
                        reference::TriExact { hit: false, t: None, coplanar: false }
                    }
                })
                .collect();
            // rays for which the scalar kernel disagrees with exact arithmetic on
            // some triangle are inside its ulp band: counted, not compared
            if tris.iter().zip(&exact).any(|(t, e)| ray_triangle(&ray, t).hit != e.hit) {
                in_band += 1;
                continue;
            }
            checked += 1;
            let got = bvh.closest_hit(&ray);
            let best =
                exact.iter().filter(|e| e.hit).map(|e| e.t.clone().expect("finite t_min")).min();
            match (got, best) {
                (None, None) => {}
                (Some(h), Some(et)) => {
                    let e = &exact[h.id as usize];
                    assert!(e.hit, "reported triangle {} is not hit exactly", h.id);
                    // t within a relative 1e-5 of the exact minimum (ulps of the
                    // geometry's scale), and the reported triangle is a nearest one
                    let scale = ray.origin.abs().max_element().max(1.0) as f64
                        / ray.dir.abs().max_element() as f64;
                    let et = et.to_f64();
                    assert!(
                        (h.t as f64 - et).abs() <= 1e-5 * scale.max(et.abs()) + 1e-30,
                        "t {} vs exact {et} ({ray:?})",
                        h.t
                    );
                    let mine = e.t.clone().unwrap().to_f64();
                    assert!((mine - et).abs() <= 1e-5 * scale.max(et.abs()) + 1e-30);
                }
                (g, b) => panic!(
                    "hit/miss differs: bvh {g:?}, exact {:?} ({ray:?})",
                    b.map(|q: Q| q.to_f64())
                ),
            }
        }
    }
    assert!(checked > 300, "only {checked} rays checked ({in_band} in band)");
    assert!(in_band * 10 < checked, "too many rays in band: {in_band} of {checked}");
}

/// A height field on a 2^-10 grid (as in tests/rays.rs): every target below
/// (vertex, edge midpoint, quad center) is an exact f32 point on shared geometry.
fn height_field(r: &mut Rng, k: usize) -> (Vec<Vec3>, Vec<Triangle>) {
    let j = |r: &mut Rng| r.i32(-100..=100) as f32 / 1024.0;
    let mut v = Vec::new();
    for y in 0..=k {
        for x in 0..=k {
            v.push(Vec3::new(x as f32 + j(r), y as f32 + j(r), j(r) * 4.0));
        }
    }
    let at = |x: usize, y: usize| v[y * (k + 1) + x];
    let mut tris = Vec::new();
    for y in 0..k {
        for x in 0..k {
            let (a, b, c, d) = (at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1));
            if (x + y) % 2 == 0 {
                tris.push(Triangle::new(a, b, c));
                tris.push(Triangle::new(a, c, d));
            } else {
                tris.push(Triangle::new(a, b, d));
                tris.push(Triangle::new(b, c, d));
            }
        }
    }
    (v, tris)
}

#[test]
fn rays_through_shared_edges_and_vertices_never_leak() {
    let mut r = rng::rng(0x5EA1);
    let k = 24;
    let (verts, tris) = height_field(&mut r, k);
    let bvh = MeshBvh::new(&tris);
    let mut targets: Vec<Vec3> = Vec::new();
    for t in &tris {
        for (p, q) in [(t.a, t.b), (t.b, t.c), (t.c, t.a)] {
            targets.push((p + q) * 0.5); // exact: sums of 2^-10-grid values
        }
    }
    targets.extend(
        verts
            .iter()
            .filter(|p| p.x > 0.5 && p.y > 0.5 && p.x < k as f32 - 0.5 && p.y < k as f32 - 0.5),
    );
    let mut tested = 0;
    for target in targets {
        // keep interior targets (boundary edges have one triangle only)
        if target.x < 0.2
            || target.y < 0.2
            || target.x > k as f32 - 0.2
            || target.y > k as f32 - 0.2
        {
            continue;
        }
        for _ in 0..3 {
            // origins on a 2^-2 grid above the target, steeper than any facet
            // (slopes < 1), so the ray crosses the surface at the shared edge
            // or vertex instead of grazing a silhouette (where a touch is inside
            // the kernel's ulp band and may legitimately be missed)
            let o = target
                + Vec3::new(
                    grid(&mut r, 8, 2),
                    grid(&mut r, 8, 2),
                    10.0 + grid(&mut r, 8, 0).abs(),
                );
            let o = Vec3::new(
                (o.x * 4.0).round() / 4.0,
                (o.y * 4.0).round() / 4.0,
                (o.z * 4.0).round() / 4.0,
            );
            let ray = Ray::new(o, target - o);
            let h = bvh.closest_hit(&ray);
            assert!(h.is_some(), "ray through shared geometry at {target:?} leaked: {ray:?}");
            assert!(same_hit(h, brute_closest(&tris, &ray)));
            tested += 1;
        }
    }
    assert!(tested > 3000, "{tested}");
    // a closed box mesh: rays from outside entering through its vertices, edge
    // midpoints and face centers always hit
    let cube = widephase::voxel::builtin::cuboid(Vec3::splat(-1.0), Vec3::splat(1.0));
    let ctris: Vec<Triangle> =
        (0..cube.as_ref().triangle_count()).map(|i| cube.as_ref().triangle(i)).collect();
    let cbvh = MeshBvh::new(&ctris);
    for _ in 0..2000 {
        let target = Vec3::new(
            [-1.0, 0.0, 1.0][r.usize(0..3)],
            [-1.0, 0.0, 1.0][r.usize(0..3)],
            [-1.0, 0.0, 1.0][r.usize(0..3)],
        );
        if target == Vec3::ZERO {
            continue;
        }
        // from outside, heading into the solid through the vertex / edge / face
        // point (dir = (1-k)·target - off with |off_i| < k-1: inside the cone of
        // entering directions, so the ray crosses the surface there instead of
        // grazing it); all values are small dyadics, so dir is exact
        let k = r.i32(2..=6) as f32;
        let off = grid_point(&mut r, 4, 2) * ((k - 1.0) * 0.5);
        let o = target * k + off;
        let ray = Ray::new(o, target - o);
        let h = cbvh.closest_hit(&ray);
        assert!(h.is_some(), "leak through the cube at {target:?}: {ray:?}");
        assert!(same_hit(h, brute_closest(&ctris, &ray)));
    }
}

#[test]
fn mesh_refit_equals_rebuild() {
    let mut r = rng::rng(0x4EF1);
    let (_, mut tris) = height_field(&mut r, 20);
    tris.extend(gen_tris(&mut r, 400));
    let mut bvh = MeshBvh::new(&tris);
    for step in 0..3 {
        for t in tris.iter_mut() {
            let d = point(&mut r, -2.0, 2.0);
            *t = Triangle::new(t.a + d, t.b + d, t.c + d);
        }
        bvh.refit(&tris);
        let fresh = MeshBvh::new(&tris);
        for _ in 0..300 {
            let ray = gen_ray(&mut r, 12.0);
            let want = brute_closest(&tris, &ray);
            assert!(same_hit(bvh.closest_hit(&ray), want), "step {step}: {ray:?}");
            assert!(same_hit(fresh.closest_hit(&ray), want));
        }
    }
}

#[test]
fn any_thread_count_same_tree_and_answers() {
    let mut r = rng::rng(0x7777);
    let tris = gen_tris(&mut r, 20_000);
    let boxes = gen_boxes(&mut r, 20_000, true);
    let rays: Vec<Ray> = (0..3000).map(|_| gen_ray(&mut r, 9.0)).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let m = MeshBvh::new(&tris);
            let b = Bvh::new(&boxes);
            (m.bvh().fingerprint(), b.fingerprint(), m.closest_hits(&rays), b.self_pairs())
        })
    };
    let one = run(1);
    for t in [2, 3, 4] {
        let other = run(t);
        assert_eq!(one.0, other.0, "mesh tree differs at {t} threads");
        assert_eq!(one.1, other.1, "box tree differs at {t} threads");
        assert!(one.2.iter().zip(&other.2).all(|(a, b)| same_hit(*a, *b)));
        assert_eq!(one.3, other.3);
    }
    // and the mesh answers equal brute force on a sample
    let bvh = MeshBvh::new(&tris);
    for ray in rays.iter().take(100) {
        assert!(same_hit(bvh.closest_hit(ray), brute_closest(&tris, ray)));
    }
}

#[test]
fn bunny_rays_equal_brute_force() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/bunny.obj");
    if !path.exists() {
        // (to the stderr handle: eprintln! would be captured by the harness)
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: bunny_rays_equal_brute_force: {} not found",
            path.display()
        );
        return;
    }
    let mesh = widephase::voxel::Mesh::load(&path).unwrap();
    let m = mesh.as_ref();
    let tris: Vec<Triangle> = (0..m.triangle_count()).map(|i| m.triangle(i)).collect();
    let bvh = MeshBvh::new(&tris);
    let (lo, hi) = m.bounds();
    let mut r = rng::rng(0xB077);
    let c = (lo + hi) * 0.5;
    let mut hits = 0;
    for _ in 0..120 {
        let o = c + point(&mut r, -1.0, 1.0) * (hi - lo).length();
        let e = hi - lo;
        let target = lo + Vec3::new(e.x * r.f32(), e.y * r.f32(), e.z * r.f32());
        let ray = Ray::new(o, target - o);
        let want = brute_closest(&tris, &ray);
        assert!(same_hit(bvh.closest_hit(&ray), want), "{ray:?}");
        hits += want.is_some() as usize;
    }
    assert!(hits > 20, "{hits}");
}

// ------------------------------------------------------------ CLI

#[cfg(feature = "cli")]
fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_widephase")).args(args).output().unwrap()
}

#[cfg(feature = "cli")]
#[test]
fn raycast_cli_validates_input_and_reports() {
    let out = cli(&["raycast", "/nonexistent/mesh.obj", "--rays", "10"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/mesh.obj"), "{err}");
    let out = cli(&["raycast", "builtin:torus", "--rays", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rays"));
    let out = cli(&["raycast", "builtin:nosuch", "--rays", "10"]);
    assert!(!out.status.success());
    let dir = std::env::temp_dir().join(format!("widephase-bvh-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("garbage.obj");
    std::fs::write(&bad, "v 0 0 0\nf 1 2 3\n").unwrap();
    let out = cli(&["raycast", bad.to_str().unwrap(), "--rays", "10"]);
    assert!(!out.status.success(), "a face with out-of-range indices must fail");
    // JSON with the documented fields; the dumps have the right sizes
    let rays_npy = dir.join("rays.npy");
    let hits_npy = dir.join("hits.npy");
    let out = cli(&[
        "raycast",
        "builtin:torus",
        "--rays",
        "5000",
        "--seed",
        "3",
        "--threads",
        "2",
        "--json",
        "--dump-rays",
        rays_npy.to_str().unwrap(),
        "--dump-hits",
        hits_npy.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8_lossy(&out.stdout);
    for key in ["\"n\":", "\"rays\":5000", "\"hits\":", "\"ms\":", "\"build_ms\":", "\"threads\":2"]
    {
        assert!(s.contains(key), "{key} missing in {s}");
    }
    let hits: usize =
        s.split("\"hits\":").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    assert!(hits > 500 && hits < 5000, "{hits}");
    let rb = std::fs::read(&rays_npy).unwrap();
    let hb = std::fs::read(&hits_npy).unwrap();
    assert_eq!(rb.len() % 64, (5000 * 24) % 64);
    assert!(rb.len() >= 5000 * 24 && rb.len() < 5000 * 24 + 256);
    let finite = hb[hb.len() - 5000 * 4..]
        .chunks(4)
        .filter(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).is_finite())
        .count();
    assert_eq!(finite, hits);
    // unwritable dump path: error, no output file
    let out =
        cli(&["raycast", "builtin:torus", "--rays", "10", "--dump-rays", "/nonexistent-dir/r.npy"]);
    assert!(!out.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------ traversal

/// Rays whose direction has tiny, subnormal or zero components (the node test's
/// general path, `1/d` infinite or huge) and mixed signs (the reduced path's
/// near/far plane choice per axis), against brute force on a grid mesh with
/// shared edges.
#[test]
fn traversal_paths_equal_brute_force() {
    let mut r = rng::rng(0x7EA5);
    let tris = gen_tris(&mut r, 3000);
    let bvh = MeshBvh::new(&tris);
    let tiny = [0.0, -0.0, 1e-45, -1e-45, 1e-39, -3e-39, 1e-30, -1e-20];
    for i in 0..3000 {
        let o = point(&mut r, -12.0, 12.0);
        let target = point(&mut r, -9.0, 9.0);
        let mut d = (target - o).to_array();
        // replace up to two components by a tiny value
        for _ in 0..(i % 3) {
            d[r.usize(0..3)] = tiny[r.usize(0..tiny.len())];
        }
        let ray = Ray::new(o, Vec3::new(d[0], d[1], d[2]));
        let want = brute_closest(&tris, &ray);
        let got = bvh.closest_hit(&ray);
        assert!(same_hit(got, want), "ray {ray:?}: bvh {got:?} brute {want:?}");
        assert_eq!(bvh.any_hit(&ray), want.is_some(), "any-hit {ray:?}");
    }
}

/// Node fill, leaf size and the traversal counters: plausible bounds, and the
/// counters do not depend on the thread count.
#[test]
fn fill_and_traversal_stats() {
    let mut r = rng::rng(0xF111);
    let tris = gen_tris(&mut r, 20_000);
    let rays: Vec<Ray> = (0..4000).map(|_| gen_ray(&mut r, 9.0)).collect();
    let bvh = MeshBvh::new(&tris);
    let b = bvh.bvh();
    let fill = b.mean_fill();
    assert!((2.0..=8.0).contains(&fill), "fill {fill}");
    let leaf = b.mean_leaf_size();
    assert!((1.0..=widephase::bvh::MAX_LEAF as f64).contains(&leaf), "leaf size {leaf}");
    // every leaf sits in one slot: used slots = leaves + non-root nodes
    let used = (fill * b.node_count() as f64).round() as usize;
    assert_eq!(used, b.leaf_count() + b.node_count() - 1);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| bvh.trace_stats(&rays))
    };
    let one = run(1);
    assert_eq!(one.rays, rays.len() as u64);
    assert!(one.nodes > 0 && one.leaves > 0);
    assert!(one.boxes <= 8 * one.nodes && one.boxes >= one.nodes);
    assert!(one.prims <= widephase::bvh::MAX_LEAF as u64 * one.leaves);
    for t in [2, 3] {
        assert_eq!(run(t), one, "stats differ at {t} threads");
    }
    assert_eq!(MeshBvh::new(&[]).bvh().mean_fill(), 0.0);
}

/// Rays with direction components down to the node test's documented limit
/// `|d_i| >= 2^-40` (`1/COORD_LIMIT`; or exactly zero), so slab times reach
/// `~2^45` and the widening works at large `t`, and a deep tree (each
/// binned-SAH split peels one box off: the traversal stack sized from the
/// tree depth), both against brute force.
#[test]
fn tiny_directions_and_deep_trees_equal_brute_force() {
    let mut r = rng::rng(0x0F10);
    let tris = gen_tris(&mut r, 2000);
    let bvh = MeshBvh::new(&tris);
    let lim = 2f32.powi(-40);
    let scales = [lim, 3.0 * lim, -lim, 1e-6, -17.0 * lim];
    let mut hits = 0;
    for i in 0..2000 {
        let o = point(&mut r, -12.0, 12.0);
        let target = point(&mut r, -9.0, 9.0);
        let s = scales[i % scales.len()];
        let mut d = ((target - o) * s).to_array();
        if i % 4 == 1 {
            d[r.usize(0..3)] = [0.0, lim, -lim][r.usize(0..3)];
        }
        // keep every non-zero component at or above the limit
        for x in d.iter_mut() {
            if *x != 0.0 && x.abs() < lim {
                *x = lim.copysign(*x);
            }
        }
        let ray = Ray::new(o, Vec3::new(d[0], d[1], d[2]));
        let want = brute_closest(&tris, &ray);
        assert!(same_hit(bvh.closest_hit(&ray), want), "ray {ray:?}: brute {want:?}");
        assert_eq!(bvh.any_hit(&ray), want.is_some(), "any-hit {ray:?}");
        hits += want.is_some() as usize;
    }
    assert!(hits > 200, "only {hits} of 2000 rays hit");
    // exponentially spaced slabs x = 1.01^i - 1: a deep, unbalanced tree
    let boxes: Vec<Aabb> = (0..3000)
        .map(|i| {
            let x = 1.01f32.powi(i) - 1.0;
            Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 0.001, 1.0, 1.0))
        })
        .collect();
    let bvh = Bvh::new(&boxes);
    let mut picked = 0;
    for _ in 0..2000 {
        let o = point(&mut r, -5.0, 5.0) * 2000.0;
        let target = Vec3::new(r.f32() * 9000.0, r.f32(), r.f32());
        let ray = Ray::new(o, target - o);
        let want = brute_pick(&boxes, &ray);
        assert_eq!(bvh.pick(&ray), want, "pick {ray:?}");
        picked += want.is_some() as usize;
    }
    assert!(picked > 50, "only {picked} of 2000 picks hit");
}

/// Many children hit at once with exactly equal entry `t`: overlapping boxes
/// that share the plane `x = 0` (and `x = 10`), crossed by rays through that
/// plane with small non-zero `y`, `z` direction components (the reduced node
/// test), so most nodes have three or more hit children whose entries tie and
/// are ordered by slot. A child lost or duplicated by the ordering would show
/// as a pick different from brute force (ties: smallest id).
#[test]
fn tied_entries_equal_brute_force() {
    let mut r = rng::rng(0x71ED);
    let boxes: Vec<Aabb> = (0..600)
        .map(|i| {
            let lo = Vec3::new(0.0, rng::uniform(&mut r, 0.0, 5.0), rng::uniform(&mut r, 0.0, 5.0));
            let hi = Vec3::new(
                if i % 3 == 0 { 10.0 } else { rng::uniform(&mut r, 0.5, 10.0) },
                rng::uniform(&mut r, 5.0, 10.0),
                rng::uniform(&mut r, 5.0, 10.0),
            );
            let b = Aabb::new(lo, hi);
            // a few exact duplicates and mirrored copies sharing x = 10
            match i % 7 {
                0 => Aabb::new(Vec3::new(0.0, 2.0, 2.0), Vec3::new(10.0, 8.0, 8.0)),
                1 => Aabb::new(Vec3::new(10.0 - hi.x, lo.y, lo.z), Vec3::new(10.0, hi.y, hi.z)),
                _ => b,
            }
        })
        .collect();
    let bvh = Bvh::new(&boxes);
    let mut found = 0;
    for i in 0..2000 {
        let y = rng::uniform(&mut r, 0.0, 10.0);
        let z = rng::uniform(&mut r, 0.0, 10.0);
        let small = |r: &mut Rng| {
            let s = rng::uniform(r, 1e-4, 1e-2);
            if r.bool() {
                s
            } else {
                -s
            }
        };
        let (ox, dx) = if i % 2 == 0 { (-3.0, 1.0) } else { (13.0, -1.0) };
        let ray = Ray::new(Vec3::new(ox, y, z), Vec3::new(dx, small(&mut r), small(&mut r)));
        let want = brute_pick(&boxes, &ray);
        found += want.is_some() as usize;
        assert_eq!(bvh.pick(&ray), want, "pick {ray:?}");
    }
    assert!(found > 1500, "only {found} rays hit");
}

/// The batch queries trace large batches in a coherent order (sorted by where
/// the rays cross the root box) and write each result back at its ray's
/// index: the answers must equal the one-ray query in input order, for any
/// thread count and batch length (tail groups of fewer than 8 rays, one
/// chunk or several, rays that miss the root box, NaN and zero-direction
/// rays, finite intervals).
#[test]
fn batch_queries_in_coherent_order_equal_single_queries() {
    let mut r = rng::rng(0xC0DE);
    let tris = gen_tris(&mut r, 4000);
    let bvh = MeshBvh::new(&tris);
    // > 2 · 2^15 rays, so 1 and 2 threads both sort (one chunk per thread)
    let rays: Vec<Ray> = (0..70_003).map(|_| gen_ray(&mut r, 12.0)).collect();
    let want: Vec<Option<RayHit>> = rays.iter().map(|ray| bvh.closest_hit(ray)).collect();
    let hits = want.iter().filter(|h| h.is_some()).count();
    assert!(hits > 1000 && hits < rays.len() - 1000, "{hits}");
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for n in [rays.len(), 65_536 + 5, 40_000, 1000] {
            let got = pool.install(|| bvh.closest_hits(&rays[..n]));
            assert_eq!(got.len(), n);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(same_hit(*g, *w), "ray {i} of {n}, {threads} threads");
            }
            let count = pool.install(|| bvh.count_hits(&rays[..n]));
            assert_eq!(count, want[..n].iter().filter(|h| h.is_some()).count());
            // any_hits is traced in the sorted order: an answer written at
            // its sorted position instead of its ray's index fails here
            let any = pool.install(|| bvh.any_hits(&rays[..n]));
            for (i, (a, ray)) in any.iter().zip(&rays).enumerate() {
                assert_eq!(*a, bvh.any_hit(ray), "any-hit ray {i} of {n}, {threads} threads");
            }
        }
    }
}

/// `closest_hits_into` writes `closest_hits` as columns (inf, -1, [0, 0] for
/// a miss), bit for bit, from a ray slice, `RayColumns` and `RayRows`, on
/// any thread count, with or without the uv column; it refuses columns of
/// the wrong length.
#[test]
fn closest_hits_into_columns_equal_closest_hits() {
    use widephase::bvh::{HitColumns, RayColumns, RayRows};
    let mut r = rng::rng(0xC01);
    let tris = gen_tris(&mut r, 3000);
    let bvh = MeshBvh::new(&tris);
    let rays: Vec<Ray> = (0..5000).map(|_| gen_ray(&mut r, 12.0)).collect();
    let want = bvh.closest_hits(&rays);
    assert!(want.iter().filter(|h| h.is_some()).count() > 500);
    let origins: Vec<[f32; 3]> = rays.iter().map(|r| r.origin.to_array()).collect();
    let directions: Vec<[f32; 3]> = rays.iter().map(|r| r.dir.to_array()).collect();
    let rows: Vec<[f32; 6]> = rays
        .iter()
        .map(|r| {
            let (o, d) = (r.origin, r.dir);
            [o.x, o.y, o.z, d.x, d.y, d.z]
        })
        .collect();
    let n = rays.len();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        // (a common interval per ray: the slice run uses the same one)
        for (t_min, t_max) in [(0.0, f32::INFINITY), (0.5, 9.0)] {
            let same: Vec<Ray> = rays.iter().map(|r| Ray { t_min, t_max, ..*r }).collect();
            let want = bvh.closest_hits(&same);
            let cols = RayColumns { origins: &origins, directions: &directions, t_min, t_max };
            let rows = RayRows { rows: &rows, t_min, t_max };
            for (source, with_uv) in
                [("slice", true), ("columns", true), ("rows", true), ("rows", false)]
            {
                let (mut t, mut id, mut uv) = (vec![7.0; n], vec![7; n], vec![[7.0; 2]; n]);
                let uv_out = with_uv.then_some(uv.as_mut_slice());
                let out = HitColumns { t: &mut t, id: &mut id, uv: uv_out };
                pool.install(|| match source {
                    "slice" => bvh.closest_hits_into(same.as_slice(), out),
                    "columns" => bvh.closest_hits_into(&cols, out),
                    _ => bvh.closest_hits_into(&rows, out),
                });
                for i in 0..n {
                    let got = (t[i].to_bits(), id[i], uv[i].map(f32::to_bits));
                    let exp = match want[i] {
                        Some(h) => (h.t.to_bits(), h.id as i32, [h.u.to_bits(), h.v.to_bits()]),
                        None => (f32::INFINITY.to_bits(), -1, [0; 2]),
                    };
                    // (without a uv column the 7s stay: it is not written)
                    let exp = if with_uv { exp } else { (exp.0, exp.1, [7.0f32.to_bits(); 2]) };
                    assert_eq!(got, exp, "ray {i}, {threads} threads, {source}, uv {with_uv}");
                }
            }
        }
    }
    let (mut t, mut id, mut uv) = (vec![0.0; n], vec![0; n - 1], vec![[0.0; 2]; n]);
    let short = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bvh.closest_hits_into(
            rays.as_slice(),
            HitColumns { t: &mut t, id: &mut id, uv: Some(&mut uv) },
        )
    }));
    assert!(short.is_err(), "a short id column is refused");
    let (mut t, mut id, mut uv) = (vec![0.0; n], vec![0; n], vec![[0.0; 2]; n + 1]);
    let long = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bvh.closest_hits_into(
            rays.as_slice(),
            HitColumns { t: &mut t, id: &mut id, uv: Some(&mut uv) },
        )
    }));
    assert!(long.is_err(), "a long uv column is refused");
}

/// The pinhole rays follow Open3D's `create_rays_pinhole` (values from
/// Open3D 0.20): horizontal field of view, unnormalized directions with unit
/// component along the view axis, first row toward `-up`, first column
/// toward `-right`. The first camera agrees to the bit; the second (an
/// oblique up vector) within 5e-7 per component.
#[test]
fn pinhole_rays_follow_open3d() {
    use widephase::bvh::Pinhole;
    let cam = Pinhole {
        fov_deg: 60.0,
        center: [0.5, 0.5, 0.5],
        eye: [0.5, 0.5, 4.0],
        up: [0.0, 1.0, 0.0],
        width: 32,
        height: 24,
    };
    let rays = cam.rays();
    assert_eq!(rays.len(), 32 * 24);
    for (y, x, d) in [
        (0, 0, [0x3f0f2ed0u32, 0xbed47703, 0xbf800000]),
        (5, 7, [0x3e9d0a0e, 0xbe702d7e, 0xbf800000]),
        (23, 31, [0xbf0f2ed0, 0x3ed47703, 0xbf800000]),
        (12, 16, [0xbc93cd40, 0x3c93cd40, 0xbf800000]),
    ] {
        let r = rays[y * 32 + x];
        assert_eq!(r.origin.to_array(), [0.5, 0.5, 4.0]);
        assert_eq!(r.dir.to_array().map(f32::to_bits), d, "pixel ({x}, {y})");
        assert_eq!((r.t_min, r.t_max), (0.0, f32::INFINITY));
    }
    let cam = Pinhole {
        fov_deg: 35.5,
        center: [0.1, -0.2, 0.3],
        eye: [-2.0, 0.5, -1.5],
        up: [0.3, 1.0, 0.2],
        width: 64,
        height: 48,
    };
    let rays = cam.rays();
    for (y, x, d) in [
        (0, 0, [0.48353731632232666, -0.46052348613739014, 0.8418187499046326]),
        (47, 63, [0.9885619282722473, -0.030176319181919098, 0.41998064517974854]),
        (20, 40, [0.783237874507904, -0.2826421856880188, 0.5613441467285156]),
    ] {
        let r = rays[y * 64 + x];
        assert_eq!(r.origin.to_array(), [-2.0, 0.5, -1.5]);
        for (k, (got, want)) in r.dir.to_array().into_iter().zip(d).enumerate() {
            let got = got as f64;
            assert!((got - want).abs() <= 5e-7, "pixel ({x}, {y}) axis {k}: {got} vs {want}");
        }
    }
    // refused arguments, each named
    let bad = |f: &dyn Fn(&mut Pinhole)| {
        let mut c = cam;
        f(&mut c);
        c.validate().unwrap_err()
    };
    assert!(bad(&|c| c.width = 0).contains("at least 1"));
    assert!(bad(&|c| c.fov_deg = 180.0).contains("must be in (0, 180)"));
    assert!(bad(&|c| c.fov_deg = f64::NAN).contains("must be in (0, 180)"));
    assert!(bad(&|c| c.eye = c.center).contains("the eye must differ"));
    assert!(bad(&|c| c.up = [0.0; 3]).contains("up must be non-zero"));
    assert!(bad(&|c| c.up = [2.1, -0.7, 1.8]).contains("not parallel"));
    assert!(bad(&|c| c.center[1] = f64::INFINITY).contains("center"));
}

/// Camera rays traced as a batch give the single-ray answers bit for bit
/// (ties included: the cube's diagonals are shared edges), and both hit
/// counts agree.
#[test]
fn camera_batches_match_single_rays() {
    use widephase::bvh::{MeshBvh, Pinhole};
    for name in ["cube", "knot"] {
        let mesh = widephase::voxel::builtin::by_name(name).unwrap();
        let bvh = MeshBvh::from_mesh(mesh.as_ref());
        let (lo, hi) = mesh.as_ref().bounds();
        let cam = Pinhole::framing((lo, hi), 160, 120, 50.0, None, None, [0.0, 1.0, 0.0]);
        let rays = cam.rays();
        let a = bvh.closest_hits(&rays);
        let b: Vec<_> = rays.iter().map(|r| bvh.closest_hit(r)).collect();
        assert!(a.iter().filter(|h| h.is_some()).count() > 1000, "{name}");
        let bits = |h: &Option<widephase::bvh::RayHit>| {
            h.map(|h| (h.id, h.t.to_bits(), h.u.to_bits(), h.v.to_bits()))
        };
        assert!(a.iter().zip(&b).all(|(x, y)| bits(x) == bits(y)), "{name}");
        let hits = a.iter().filter(|h| h.is_some()).count();
        assert_eq!(bvh.count_hits_in_order(&rays), hits, "{name}");
        assert_eq!(bvh.count_hits(&rays), hits, "{name}");
    }
}
