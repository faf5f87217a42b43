//! Every run-time instruction-set path (`widephase::simd::Isa::ALL`, forced
//! with `widephase::simd::with_isa`) gives the same bits as the build's own
//! lanes and the scalar kernels. A path the CPU does not run is clamped to the
//! widest it does (`with_isa` reports which ran), so on an AVX-512 machine all
//! three paths are covered.
//!
//! The batched drivers' tables run on every path in `tests/batch.rs`
//! (`all_widths`, `map_all_widths`); this file covers the other hot paths:
//! the mesh BVH's rays, the contact testers and box pruning.

use wide::{f32x16, f32x8};
use widephase::broad::workload::{sparse_boxes, terdiman_boxes};
use widephase::broad::{
    bipartite_pairs, bipartite_pairs_with, self_pairs, self_pairs_with, BoxPruner, BroadPhase,
};
use widephase::bvh::{random_rays, Bvh, MeshBvh};
use widephase::contact::pipeline::{
    test_packs, BoxBox, BoxTriangle, CapsuleBox, CapsuleCapsule, CapsuleTriangle, SphereBox,
    SphereCapsule, SphereSphere, SphereTriangle,
};
use widephase::contact::{ContactTester, Manifold};
use widephase::pack::{extract, LanePod, Pack};
use widephase::simd::{with_isa, Isa};
use widephase::voxel::builtin::torus_knot;
use widephase::workload::{contact_pairs_at, resting_obb_pairs, SplitMix};
use widephase::{Aabb, Ray, Triangle, Vec3};

/// The knot's triangles and a ray set with the awkward members: axis-parallel
/// (zero direction components, the general node test), through vertices, NaN.
fn knot_scene() -> (Vec<Triangle>, Vec<Ray>) {
    let mesh = torus_knot(96, 12, 1.0);
    let m = mesh.as_ref();
    let tris: Vec<Triangle> = (0..m.triangle_count()).map(|t| m.triangle(t)).collect();
    let (lo, hi) = m.bounds();
    let mut rays = random_rays(lo, hi, 20_000, 7);
    for (i, t) in tris.iter().enumerate().take(500) {
        let o = t.a + Vec3::new(0.0, 0.0, 10.0);
        let axis = Ray::new(Vec3::new(t.a.x, t.a.y, 10.0), Vec3::new(0.0, 0.0, -1.0));
        rays.push(axis);
        rays.push(Ray::new(o, t.a - o));
        if i % 100 == 0 {
            rays.push(Ray::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X));
        }
    }
    (tris, rays)
}

/// Camera rays (one origin, neighbouring directions) are traced in packets
/// of eight by the in-order batches: on every path they equal the
/// single-ray answers of the baseline path.
#[test]
fn camera_packets_are_identical_on_every_path() {
    let (tris, _) = knot_scene();
    let bvh = MeshBvh::new(&tris);
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for t in &tris {
        for p in [t.a, t.b, t.c] {
            (lo, hi) = (lo.min(p), hi.max(p));
        }
    }
    let cam = widephase::bvh::Pinhole::framing((lo, hi), 96, 64, 50.0, None, None, [0.0, 1.0, 0.0]);
    let rays = cam.rays();
    let (_, want) =
        with_isa(Isa::Baseline, || rays.iter().map(|r| bvh.closest_hit(r)).collect::<Vec<_>>());
    let hits = want.iter().filter(|h| h.is_some()).count();
    assert!(hits > 500 && hits < rays.len() - 500, "{hits} hits");
    let bits = |h: &Option<widephase::bvh::RayHit>| {
        h.map(|h| (h.id, h.t.to_bits(), h.u.to_bits(), h.v.to_bits()))
    };
    for isa in Isa::ALL {
        let (_, got) = with_isa(isa, || bvh.closest_hits(&rays));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(bits(g), bits(w), "{isa:?} camera ray {i}");
        }
        let (_, count) = with_isa(isa, || bvh.count_hits_in_order(&rays));
        assert_eq!(count, hits, "{isa:?} count_hits_in_order");
    }
}

#[test]
fn mesh_rays_are_identical_on_every_path() {
    let (tris, rays) = knot_scene();
    let bvh = MeshBvh::new(&tris);
    let (_, want) = with_isa(Isa::Baseline, || bvh.closest_hits(&rays));
    let (_, want_any) = with_isa(Isa::Baseline, || bvh.any_hits(&rays));
    assert!(want.iter().filter(|h| h.is_some()).count() > 1000, "the scene has hits");
    for isa in Isa::ALL {
        let (used, got) = with_isa(isa, || bvh.closest_hits(&rays));
        assert_eq!(used, isa.clamp_to_cpu());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let bits = |h: &Option<widephase::bvh::RayHit>| {
                h.map(|h| (h.id, h.t.to_bits(), h.u.to_bits(), h.v.to_bits()))
            };
            assert_eq!(bits(g), bits(w), "{isa:?} ray {i}");
        }
        let (_, any) = with_isa(isa, || bvh.any_hits(&rays));
        assert_eq!(any, want_any, "{isa:?} any-hit");
        let n = rays.len();
        let (mut t, mut id, mut uv) = (vec![0.0; n], vec![0; n], vec![[0.0; 2]; n]);
        let out = widephase::bvh::HitColumns { t: &mut t, id: &mut id, uv: Some(&mut uv) };
        with_isa(isa, || bvh.closest_hits_into(rays.as_slice(), out));
        for (i, w) in want.iter().enumerate() {
            let w = w.map_or((-1, f32::INFINITY.to_bits()), |h| (h.id as i32, h.t.to_bits()));
            assert_eq!((id[i], t[i].to_bits()), w, "{isa:?} closest_hits_into ray {i}");
        }
        // the single-ray entry points dispatch too
        let (_, one) =
            with_isa(isa, || rays.iter().map(|r| bvh.closest_hit(r)).collect::<Vec<_>>());
        assert_eq!(one, want, "{isa:?} closest_hit");
    }
}

#[test]
fn box_picking_is_identical_on_every_path() {
    let (tris, rays) = knot_scene();
    let boxes: Vec<Aabb> =
        tris.iter().map(|t| Aabb::new(t.a.min(t.b).min(t.c), t.a.max(t.b).max(t.c))).collect();
    let bvh = Bvh::new(&boxes);
    let (_, want) =
        with_isa(Isa::Baseline, || rays.iter().map(|r| bvh.pick(r)).collect::<Vec<_>>());
    for isa in Isa::ALL {
        let (_, got) = with_isa(isa, || rays.iter().map(|r| bvh.pick(r)).collect::<Vec<_>>());
        let bits = |v: &[Option<(u32, f32)>]| -> Vec<_> {
            v.iter().map(|p| p.map(|(i, t)| (i, t.to_bits()))).collect()
        };
        assert_eq!(bits(&got), bits(&want), "{isa:?}");
    }
}

/// The box and ball queries of the box tree and the mesh tree (node tests on
/// the path's lanes) equal brute force on every path, for query boxes and
/// balls that touch the knot's triangle boxes exactly (a corner of one as
/// their own corner, a ball's radius reaching a box face), and a NaN query.
#[test]
fn box_and_ball_queries_match_brute_force_on_every_path() {
    use widephase::overlap::{aabb_aabb, sphere_aabb, sphere_triangle, triangle_aabb};
    use widephase::Sphere;
    let (tris, _) = knot_scene();
    let boxes: Vec<Aabb> =
        tris.iter().map(|t| Aabb::new(t.a.min(t.b).min(t.c), t.a.max(t.b).max(t.c))).collect();
    let bvh = Bvh::new(&boxes);
    let mesh = MeshBvh::new(&tris);
    let mut r = SplitMix(17);
    let mut queries: Vec<Aabb> = (0..300)
        .map(|k| {
            let b = boxes[(r.next_u64() % boxes.len() as u64) as usize];
            let size = Vec3::splat(0.05 * (1 + k % 7) as f32);
            if k % 2 == 0 {
                Aabb::new(b.max, b.max + size)
            } else {
                Aabb::new(b.min - size, b.min)
            }
        })
        .collect();
    queries.push(Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(1.0)));
    let balls: Vec<Sphere> = queries
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let b = boxes[k * 7 % boxes.len()];
            Sphere::new(b.max + Vec3::new(0.0, 0.0, q.max.x - q.min.x), q.max.x - q.min.x)
        })
        .collect();
    let brute = |keep: &dyn Fn(usize) -> bool| {
        (0..tris.len() as u32).filter(|&i| keep(i as usize)).collect::<Vec<_>>()
    };
    let mut found = 0;
    for isa in Isa::ALL {
        with_isa(isa, || {
            for (q, s) in queries.iter().zip(&balls) {
                let want = brute(&|i| aabb_aabb(q, &boxes[i]));
                found += want.len();
                assert_eq!(bvh.overlap_aabb(q), want, "{isa:?} box {q:?}");
                assert_eq!(
                    bvh.overlap_sphere(s),
                    brute(&|i| sphere_aabb(s, &boxes[i])),
                    "{isa:?} ball {s:?}"
                );
                assert_eq!(
                    mesh.overlap_aabb(q),
                    brute(&|i| triangle_aabb(&tris[i], q)),
                    "{isa:?} mesh box {q:?}"
                );
                assert_eq!(
                    mesh.overlap_sphere(s),
                    brute(&|i| sphere_triangle(s, &tris[i])),
                    "{isa:?} mesh ball {s:?}"
                );
            }
        });
    }
    assert!(found > 3 * 300, "only {found} box hits");
}

#[test]
fn the_process_wide_path_is_one_the_cpu_runs() {
    let sel = widephase::simd::selection();
    assert!(sel.isa <= Isa::detected());
    assert!(sel.isa.is_supported());
    match std::env::var("WIDEPHASE_SIMD").ok().as_deref().and_then(Isa::parse) {
        Some(want) => assert_eq!(sel.isa, want.clamp_to_cpu()),
        None => assert_eq!(sel.isa, Isa::detected()),
    }
    assert!(widephase::simd::describe().starts_with(widephase::simd::current().name()));
}

// ------------------------------------------------------------ contact testers

/// Every float of a manifold, as bits (`-0.0` and NaN payloads count).
fn manifold_bits(m: &Manifold) -> Vec<u32> {
    let mut v = vec![m.normal.x, m.normal.y, m.normal.z, m.count];
    for p in &m.points {
        v.extend([p.position.x, p.position.y, p.position.z, p.depth, p.feature_id]);
    }
    v.into_iter().map(f32::to_bits).collect()
}

/// `test_packs::<T, L>` on the current thread's path, one manifold per pair.
fn run_tester<T: ContactTester, L: LanePod>(a: &[T::A], b: &[T::B], margin: f32) -> Vec<Manifold>
where
    T::A: Copy,
    T::B: Copy,
{
    let (pa, pb) = (Pack::<T::A, L>::new(a), Pack::<T::B, L>::new(b));
    let mut out = Vec::new();
    test_packs::<T, L>(&pa, &pb, margin, &mut out);
    (0..a.len()).map(|i| extract::<Manifold, L>(&out[i / L::WIDTH], i % L::WIDTH)).collect()
}

/// Tester `T` on `(a, b)` at 8 and 16 lanes on every path equals the
/// scalar tester, pair by pair and bit by bit; returns the number of pairs in
/// contact (so a caller can check the set is not trivially empty).
fn check_tester_on_every_isa<T: ContactTester>(a: &[T::A], b: &[T::B], margin: f32) -> usize
where
    T::A: Copy,
    T::B: Copy,
{
    let scalar: Vec<Vec<u32>> = with_isa(Isa::Baseline, || run_tester::<T, f32>(a, b, margin))
        .1
        .iter()
        .map(manifold_bits)
        .collect();
    for isa in Isa::ALL {
        let (used, (w8, w16)) = with_isa(isa, || {
            (run_tester::<T, f32x8>(a, b, margin), run_tester::<T, f32x16>(a, b, margin))
        });
        for (width, got) in [(8, &w8), (16, &w16)] {
            for (i, m) in got.iter().enumerate() {
                assert_eq!(
                    manifold_bits(m),
                    scalar[i],
                    "{} pair {i}: path {} (asked {}) at {width} lanes differs from scalar",
                    T::NAME,
                    used.name(),
                    isa.name()
                );
            }
        }
    }
    scalar.iter().filter(|m| f32::from_bits(m[3]) > 0.0).count()
}

/// One random set per tester (half the pairs in contact at the margin).
fn check_random<T: ContactTester>(n: usize, seed: u64)
where
    T::A: Copy,
    T::B: Copy,
{
    let margin = 0.02;
    let (a, b) = contact_pairs_at::<T>(n, 0.5, margin, seed);
    let hits = check_tester_on_every_isa::<T>(&a, &b, margin);
    assert!(hits > n / 4, "{}: only {hits} of {n} pairs in contact", T::NAME);
}

#[test]
fn contact_testers_every_isa_matches_scalar() {
    // An odd count: the last pack is padded.
    let n = 2001;
    check_random::<SphereSphere>(n, 1);
    check_random::<SphereCapsule>(n, 2);
    check_random::<SphereBox>(n, 3);
    check_random::<SphereTriangle>(n, 4);
    check_random::<CapsuleCapsule>(n, 5);
    check_random::<CapsuleBox>(n, 6);
    check_random::<CapsuleTriangle>(n, 7);
    check_random::<BoxBox>(n, 8);
    check_random::<BoxTriangle>(n, 9);
}

#[test]
fn resting_boxes_every_isa_matches_scalar() {
    // Face–face manifolds of up to four points (the clipping and corner
    // candidates, the staged face path of the batched box–box tester).
    let (a, b) = resting_obb_pairs(3001, 10);
    let hits = check_tester_on_every_isa::<BoxBox>(&a, &b, 0.02);
    assert_eq!(hits, a.len(), "every resting pair is in contact");
}

// ------------------------------------------------------------ box pruning

/// Boxes on an integer lattice (touching faces, edges and corners pair) plus
/// a few invalid ones, shuffled into random positions of the input.
fn touching_boxes(n: usize, seed: u64) -> Vec<Aabb> {
    let mut r = SplitMix(seed);
    let mut v: Vec<Aabb> = (0..n)
        .map(|_| {
            let lo = r.p(0.0, 40.0);
            let lo = Vec3::new(lo.x.floor(), lo.y.floor(), lo.z.floor());
            let size = r.p(0.0, 3.0);
            Aabb::new(lo, lo + Vec3::new(size.x.floor(), size.y.floor(), size.z.floor()))
        })
        .collect();
    for k in (0..n).step_by(97) {
        v[k] = Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::splat(1.0));
    }
    v
}

/// Self and bipartite pairs, the kept-scratch pruner and the incremental
/// broad phase on the current thread's path, at 8 and 16 lanes.
fn broad_results(boxes: &[Aabb]) -> Vec<Vec<(u32, u32)>> {
    let (a, b) = boxes.split_at(boxes.len() / 3);
    let mut pruner = BoxPruner::new();
    let kept = pruner.self_pairs(boxes).to_vec();
    let mut bp = BroadPhase::new();
    let handles: Vec<_> = boxes.iter().map(|&x| bp.insert(x)).collect();
    let first = bp.pairs().to_vec();
    // Move a few boxes (the incremental path: fewer than n/16 dirty).
    for (k, &h) in handles.iter().enumerate().step_by(61) {
        let x = boxes[(k * 7) % boxes.len()];
        bp.update(h, Aabb::new(x.min + Vec3::splat(0.5), x.max + Vec3::splat(0.5)));
    }
    let moved = bp.pairs().to_vec();
    vec![
        self_pairs(boxes),
        self_pairs_with::<f32x8>(boxes, 300),
        self_pairs_with::<f32x16>(boxes, 300),
        bipartite_pairs(a, b),
        bipartite_pairs_with::<f32x8>(a, b, 200),
        kept,
        first,
        moved,
    ]
}

/// The same queries with scalar lanes: the reference.
fn broad_scalar(boxes: &[Aabb]) -> Vec<Vec<(u32, u32)>> {
    let r = with_isa(Isa::Baseline, || broad_results(boxes)).1;
    let (a, b) = boxes.split_at(boxes.len() / 3);
    let self_ref = self_pairs_with::<f32>(boxes, 300);
    let bip_ref = bipartite_pairs_with::<f32>(a, b, 200);
    assert!(!self_ref.is_empty() && !bip_ref.is_empty(), "the sets overlap somewhere");
    for (k, res) in r.iter().enumerate() {
        let want = match k {
            // all live boxes of the incremental broad phase are `boxes`, in order
            0..=2 | 5 | 6 => &self_ref,
            3 | 4 => &bip_ref,
            _ => continue,
        };
        assert_eq!(res, want, "query {k} on the baseline path differs from scalar lanes");
    }
    r
}

#[test]
fn box_pruning_every_isa_matches_scalar() {
    let sets = [
        ("terdiman 3k", terdiman_boxes(3000, 1)),
        ("terdiman 30k", terdiman_boxes(30_000, 2)),
        ("sparse 20k", sparse_boxes(20_000, 3)),
        ("touching 4k", touching_boxes(4000, 4)),
    ];
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for (name, boxes) in &sets {
            pool.install(|| {
                let want = broad_scalar(boxes);
                for isa in Isa::ALL {
                    let (used, got) = with_isa(isa, || broad_results(boxes));
                    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            g == w,
                            "{name}, {threads} threads, query {k}: path {} (asked {}) differs \
                             ({} vs {} pairs)",
                            used.name(),
                            isa.name(),
                            g.len(),
                            w.len()
                        );
                    }
                }
            });
        }
    }
}

// ------------------------------------------------------------ convex hulls

/// The hull testers (support and edge-pair loops on the path's eight-lane
/// type) give the same manifolds on every path: hull–hull, hull–box and
/// hull–triangle with the triangle facing the hull and facing away.
#[test]
fn hull_testers_are_identical_on_every_path() {
    use widephase::contact::hull_contact::hull_partner;
    use widephase::contact::{HullPartner, PlacedHull};
    use widephase::workload::{hull_box_pairs, hull_pairs};
    let margin = 0.05;
    let (hulls, pairs) = hull_pairs(3000, 48, 40, 91);
    let place = |h, p: widephase::workload::HullPose| PlacedHull::new(h, p.center, p.axes);
    let mut cases: Vec<(PlacedHull, HullPartner)> = pairs
        .iter()
        .map(|&(i, p, j, q)| (place(&hulls[i], p), HullPartner::Hull(place(&hulls[j], q))))
        .collect();
    let (bhulls, a, boxes) = hull_box_pairs(3000, 48, 40, 93);
    for (k, (&(i, p), b)) in a.iter().zip(&boxes).enumerate() {
        cases.push((place(&bhulls[i], p), HullPartner::Box(*b)));
        // a big triangle through the box's centre, across the line to the hull
        let n = (p.center - b.center).try_normalize().unwrap_or(Vec3::Y);
        let u = (b.axes[0] - n * n.dot(b.axes[0])).try_normalize().unwrap_or(b.axes[1]);
        let (w, s) = (n.cross(u), 1.5 * b.half.length());
        let (p0, p1, p2) =
            (b.center + u * s, b.center + (w - u * 0.5) * s, b.center - (w + u * 0.5) * s);
        let t = if k % 2 == 0 { Triangle::new(p0, p1, p2) } else { Triangle::new(p0, p2, p1) };
        cases.push((place(&bhulls[i], p), HullPartner::Triangle(t)));
    }
    let run = || cases.iter().map(|(a, b)| manifold_bits(&hull_partner(a, b, margin))).collect();
    let want: Vec<Vec<u32>> = with_isa(Isa::Baseline, run).1;
    let hits = want.iter().filter(|m| f32::from_bits(m[3]) > 0.0).count();
    assert!(hits > cases.len() / 4, "only {hits} of {} hull pairs in contact", cases.len());
    for isa in Isa::ALL {
        let (used, got) = with_isa(isa, run);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "hull case {k}: path {} differs from the baseline path", used.name());
        }
    }
}

/// The contact pipeline's bucket tasks (packing, tester and slot writes run
/// in one dispatched entry) and `NarrowPhase`'s dispatched frame steps (pair
/// check, body stamps, alignment, reuse decisions, storing) give the same
/// manifolds, reuse decisions, changes, gone points and counters on every
/// path: frames at rest, with every seventh body moved within and beyond the
/// reuse bound, and with the pair list shrunk and grown again.
#[test]
fn pipeline_and_narrow_phase_are_identical_on_every_path() {
    use widephase::contact::{contacts, Collider, NarrowPhase};
    const MARGIN: f32 = 0.05;
    let (rest, mut pairs) = widephase::workload::contact_scene(1500, MARGIN, 29);
    pairs.sort_unstable();
    let moved = |d: f32| -> Vec<Collider> {
        let step = |(i, c): (usize, &Collider)| {
            if i % 7 == 0 {
                c.translated(Vec3::new(d, 0.0, -0.5 * d))
            } else {
                *c
            }
        };
        rest.iter().enumerate().map(step).collect()
    };
    let (near, far) = (moved(3e-4), moved(0.2));
    let fewer: Vec<(u32, u32)> = pairs.iter().copied().filter(|p| (p.0 + p.1) % 3 != 0).collect();
    type Frame<'a> = (&'a [Collider], &'a [(u32, u32)]);
    let frames: [Frame; 6] = [
        (&rest, &pairs),
        (&near, &pairs),
        (&rest, &pairs),
        (&far, &fewer),
        (&far, &pairs),
        (&near, &pairs),
    ];
    let run = |isa: Isa| {
        with_isa(isa, || {
            let mut seen = vec![format!("{:?}", contacts(&far, &pairs, MARGIN))];
            let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(1e-3);
            // the same frames through `update_moved`, given every seventh
            // body (those the frames move)
            let mut listed = NarrowPhase::new(MARGIN).with_reuse_distance(1e-3);
            let sevenths: Vec<u32> = (0..rest.len() as u32).filter(|i| i % 7 == 0).collect();
            for (colliders, list) in frames {
                np.update(colliders, list);
                listed.update_moved(colliders, &sevenths, list);
                let same = (0..list.len()).all(|k| {
                    manifold_bits(&np.manifolds()[k]) == manifold_bits(&listed.manifolds()[k])
                        && (np.reused(k), np.changes(k)) == (listed.reused(k), listed.changes(k))
                });
                assert!(same && np.stats() == listed.stats(), "{isa:?}: update_moved differs");
                let bits: Vec<Vec<u32>> = np.manifolds().iter().map(manifold_bits).collect();
                let per_pair: Vec<_> = (0..list.len())
                    .map(|k| (np.reused(k), np.previous(k), *np.changes(k)))
                    .collect();
                seen.push(format!("{bits:?} {per_pair:?} {:?} {:?}", np.gone(), np.stats()));
            }
            (np.stats(), seen)
        })
        .1
    };
    let (stats, base) = run(Isa::Baseline);
    assert!(stats.reused > 0 && stats.recomputed > 0 && stats.kept > 0, "{stats:?}");
    for isa in [Isa::Avx2, Isa::Avx512] {
        let (_, got) = run(isa);
        for (f, (g, b)) in got.iter().zip(&base).enumerate() {
            assert!(g == b, "{isa:?}: frame {f} differs from the baseline path");
        }
    }
}
