//! The batched drivers against the scalar functions: every table case at every
//! width, lane position and pack offset; lane shuffles; thread counts.

use crate::common;

use common::cases::boxes::{aabb_aabb_cases, sphere_aabb_cases, triangle_aabb_cases};
use common::rng;
use wide::{f32x16, f32x4, f32x8};
use widephase::batch::kernels::*;
use widephase::batch::*;
use widephase::overlap::{sphere_aabb, triangle_aabb, triangle_aabb_conservative};
use widephase::pack::{LanePod, Pack, Packable};
use widephase::simd::{with_isa, Isa};
use widephase::{Aabb, LaneMask, Sphere, Triangle, Vec3};

/// Scalar answers of kernel K for pairs (as[i], bs[i]).
fn scalar_pairs<K: PairKernel>(as_: &[K::A], bs: &[K::B]) -> Vec<bool>
where
    K::A: Packable<Lanes<f32> = K::A>,
    K::B: Packable<Lanes<f32> = K::B>,
{
    as_.iter().zip(bs).map(|(a, b)| K::test::<f32>(a, b)).collect()
}

/// Pairwise driver at width L, with the pairs placed at every offset
/// `0..WIDTH` behind filler pairs (so each case visits every lane position and
/// the tail handling sees every remainder).
fn check_pairwise_offsets<K: PairKernel, L: LanePod>(as_: &[K::A], bs: &[K::B], want: &[bool]) {
    for offset in 0..L::WIDTH {
        let mut pa: Vec<K::A> = Vec::new();
        let mut pb: Vec<K::B> = Vec::new();
        for k in 0..offset {
            pa.push(as_[k % as_.len()]);
            pb.push(bs[(k + 1) % bs.len()]);
        }
        pa.extend_from_slice(as_);
        pb.extend_from_slice(bs);
        let (a, b) = (Pack::<K::A, L>::new(&pa), Pack::<K::B, L>::new(&pb));
        let mut out = BitMask::default();
        pairwise::<K, L>(&a, &b, &mut out);
        let mut par = BitMask::default();
        par_pairwise::<K, L>(&a, &b, &mut par);
        assert_eq!(out, par, "{} width {} offset {offset}: parallel differs", K::NAME, L::WIDTH);
        for (i, &w) in want.iter().enumerate() {
            assert_eq!(
                out.get(offset + i),
                w,
                "{} width {} offset {offset} case {i}",
                K::NAME,
                L::WIDTH
            );
        }
        // nothing past the end
        assert_eq!(out.len(), pa.len());
    }
}

/// Every width, on every instruction-set path this CPU runs (`widephase::simd`).
fn all_widths<K: PairKernel>(as_: &[K::A], bs: &[K::B], want: &[bool]) {
    for isa in Isa::ALL {
        with_isa(isa, || {
            check_pairwise_offsets::<K, f32>(as_, bs, want);
            check_pairwise_offsets::<K, f32x4>(as_, bs, want);
            check_pairwise_offsets::<K, f32x8>(as_, bs, want);
            check_pairwise_offsets::<K, f32x16>(as_, bs, want);
        });
    }
}

#[test]
fn tables_replay_through_pairwise_drivers() {
    let tc = triangle_aabb_cases();
    let tris: Vec<Triangle> = tc.iter().map(|k| k.tri).collect();
    let boxes: Vec<Aabb> = tc.iter().map(|k| k.aabb).collect();
    let want: Vec<bool> = tc.iter().map(|k| triangle_aabb(&k.tri, &k.aabb)).collect();
    all_widths::<TriangleAabb>(&tris, &boxes, &want);
    let want_c: Vec<bool> =
        tc.iter().map(|k| triangle_aabb_conservative(&k.tri, &k.aabb)).collect();
    all_widths::<TriangleAabbConservative>(&tris, &boxes, &want_c);
    assert_eq!(want, scalar_pairs::<TriangleAabb>(&tris, &boxes));

    let sc = sphere_aabb_cases();
    let spheres: Vec<Sphere> = sc.iter().map(|k| k.sphere).collect();
    let sboxes: Vec<Aabb> = sc.iter().map(|k| k.aabb).collect();
    let want: Vec<bool> = sc.iter().map(|k| sphere_aabb(&k.sphere, &k.aabb)).collect();
    all_widths::<SphereAabb>(&spheres, &sboxes, &want);
}

/// Triangles and boxes in [0, 4]^3; box i sits near triangle i half of the
/// time, so pairwise tests see hits and misses, and the all-pairs tests see
/// many hits.
fn random_scene(n: usize, seed: u64) -> (Vec<Triangle>, Vec<Aabb>) {
    let mut r = rng::rng(seed);
    let mut tris = Vec::with_capacity(n);
    let mut boxes = Vec::with_capacity(n);
    for _ in 0..n {
        let c = rng::point(&mut r, 0.0, 4.0);
        tris.push(Triangle::new(
            c + rng::point(&mut r, -0.5, 0.5),
            c + rng::point(&mut r, -0.5, 0.5),
            c + rng::point(&mut r, -0.5, 0.5),
        ));
        let o = if r.bool() {
            c + rng::point(&mut r, -0.5, 0.25)
        } else {
            rng::grid_point(&mut r, 8, 1) + Vec3::splat(4.0)
        };
        boxes.push(Aabb::new(o, o + Vec3::splat(0.25 * r.u32(1..4) as f32)));
    }
    (tris, boxes)
}

#[test]
fn lane_shuffle_gives_identical_results() {
    // bepu's PairDeterminismTests idea: the same pair in another lane or bundle
    // must give the same answer.
    let (tris, boxes) = random_scene(3001, 11);
    let want = scalar_pairs::<TriangleAabbConservative>(&tris, &boxes);
    assert!(want.iter().filter(|&&h| h).count() > 20, "scene must have hits");
    let mut r = rng::rng(12);
    for _ in 0..4 {
        let mut perm: Vec<usize> = (0..tris.len()).collect();
        r.shuffle(&mut perm);
        let pt: Vec<Triangle> = perm.iter().map(|&i| tris[i]).collect();
        let pb: Vec<Aabb> = perm.iter().map(|&i| boxes[i]).collect();
        let mut out = BitMask::default();
        pairwise::<TriangleAabbConservative, f32x16>(&Pack::new(&pt), &Pack::new(&pb), &mut out);
        for (k, &i) in perm.iter().enumerate() {
            assert_eq!(out.get(k), want[i]);
        }
        pairwise::<TriangleAabbConservative, f32x4>(&Pack::new(&pt), &Pack::new(&pb), &mut out);
        for (k, &i) in perm.iter().enumerate() {
            assert_eq!(out.get(k), want[i]);
        }
    }
}

#[test]
fn one_vs_many_and_many_vs_many_match_brute_force() {
    let (tris, boxes) = random_scene(700, 21);
    let tris = &tris[..150];
    let mut brute: Vec<(u32, u32)> = Vec::new();
    for (i, t) in tris.iter().enumerate() {
        for (j, b) in boxes.iter().enumerate() {
            if triangle_aabb(t, b) {
                brute.push((i as u32, j as u32));
            }
        }
    }
    assert!(brute.len() > 50);
    fn check<L: LanePod>(tris: &[Triangle], boxes: &[Aabb], brute: &[(u32, u32)]) {
        let pack = Pack::<Aabb, L>::new(boxes);
        let mut pairs = Vec::new();
        many_vs_many::<TriangleAabb, L>(tris, &pack, &mut pairs);
        assert_eq!(pairs, brute, "many_vs_many width {}", L::WIDTH);
        let mut ppairs = Vec::new();
        par_many_vs_many::<TriangleAabb, L>(tris, &pack, &mut ppairs);
        assert_eq!(ppairs, brute, "par_many_vs_many width {}", L::WIDTH);
        for (i, t) in tris.iter().enumerate() {
            let want: Vec<u32> = brute.iter().filter(|p| p.0 == i as u32).map(|p| p.1).collect();
            let mut hits = Vec::new();
            one_vs_many_hits::<TriangleAabb, L>(t, &pack, &mut hits);
            assert_eq!(hits, want);
            let mut m = BitMask::default();
            one_vs_many::<TriangleAabb, L>(t, &pack, &mut m);
            assert_eq!(m.iter_ones().map(|x| x as u32).collect::<Vec<_>>(), want);
            let mut pm = BitMask::default();
            par_one_vs_many::<TriangleAabb, L>(t, &pack, &mut pm);
            assert_eq!(pm, m);
        }
    }
    check::<f32>(tris, &boxes, &brute);
    check::<f32x4>(tris, &boxes, &brute);
    check::<f32x8>(tris, &boxes, &brute);
    check::<f32x16>(tris, &boxes, &brute);
}

#[test]
fn thread_count_does_not_change_results() {
    let (tris, boxes) = random_scene(50_000, 31);
    let (pt, pb) = (Pack::<Triangle, f32x16>::new(&tris), Pack::<Aabb, f32x16>::new(&boxes));
    let mut reference = BitMask::default();
    pairwise::<TriangleAabbConservative, f32x16>(&pt, &pb, &mut reference);
    let mut ref_pairs = Vec::new();
    many_vs_many::<TriangleAabb, f32x16>(&tris[..300], &pb, &mut ref_pairs);
    for threads in [1, 2, 3, 7] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut out = BitMask::default();
            par_pairwise::<TriangleAabbConservative, f32x16>(&pt, &pb, &mut out);
            assert_eq!(out, reference, "{threads} threads");
            let mut pairs = Vec::new();
            par_many_vs_many::<TriangleAabb, f32x16>(&tris[..300], &pb, &mut pairs);
            assert_eq!(pairs, ref_pairs, "{threads} threads");
        });
    }
}

#[test]
fn padding_lanes_never_hit() {
    // A pack whose padding sits next to shapes that cover all space.
    let big = Triangle::new(
        Vec3::new(-1e6, -1e6, 0.5),
        Vec3::new(1e6, -1e6, 0.5),
        Vec3::new(0.0, 1e6, 0.5),
    );
    let everything = Aabb::new(Vec3::splat(-1e6), Vec3::splat(1e6));
    for n in 1..17 {
        let boxes = vec![everything; n];
        let pack = Pack::<Aabb, f32x16>::new(&boxes);
        let mut m = BitMask::default();
        one_vs_many::<TriangleAabb, f32x16>(&big, &pack, &mut m);
        assert_eq!(m.count_ones(), n);
        // and the raw lane mask of the padded chunk has no bit past n
        let raw = <TriangleAabb as PairKernel>::test::<f32x16>(
            &widephase::pack::broadcast::<Triangle, f32x16>(&big),
            &pack.chunks()[0],
        );
        assert_eq!(widephase::LaneMask::bits(raw), (1u64 << n) - 1);
    }
}

// ------------------------------------------ the other families' kernels

/// Map-kernel drivers at width L, pairs at every offset behind fillers: hit
/// bits and the output records (compared as bytes, i.e. bit for bit) must equal
/// the scalar evaluation.
fn check_map_offsets<K: MapKernel, L: LanePod>(as_: &[K::A], bs: &[K::B]) {
    let scalar: Vec<(bool, K::Out)> = as_
        .iter()
        .zip(bs)
        .map(|(a, b)| {
            let pa = Pack::<K::A, f32>::new(std::slice::from_ref(a));
            let pb = Pack::<K::B, f32>::new(std::slice::from_ref(b));
            let (mut m, mut v) = (BitMask::default(), Vec::new());
            pairwise_map::<K, f32>(&pa, &pb, &mut m, &mut v);
            (m.get(0), v[0])
        })
        .collect();
    for offset in 0..L::WIDTH {
        let mut pa: Vec<K::A> = (0..offset).map(|k| as_[(k + 3) % as_.len()]).collect();
        let mut pb: Vec<K::B> = (0..offset).map(|k| bs[k % bs.len()]).collect();
        pa.extend_from_slice(as_);
        pb.extend_from_slice(bs);
        let (a, b) = (Pack::<K::A, L>::new(&pa), Pack::<K::B, L>::new(&pb));
        let (mut m, mut v) = (BitMask::default(), Vec::new());
        pairwise_map::<K, L>(&a, &b, &mut m, &mut v);
        let (mut pm, mut pv) = (BitMask::default(), Vec::new());
        par_pairwise_map::<K, L>(&a, &b, &mut pm, &mut pv);
        assert_eq!(m, pm, "{} width {}: parallel mask differs", K::NAME, L::WIDTH);
        for (i, (hit, out)) in scalar.iter().enumerate() {
            let j = offset + i;
            assert_eq!(
                m.get(j),
                *hit,
                "{} width {} offset {offset} case {i}: hit",
                K::NAME,
                L::WIDTH
            );
            if *hit {
                assert_eq!(
                    bytemuck::bytes_of(&v[j]),
                    bytemuck::bytes_of(out),
                    "{} width {} offset {offset} case {i}: values",
                    K::NAME,
                    L::WIDTH
                );
                assert_eq!(
                    bytemuck::bytes_of(&pv[j]),
                    bytemuck::bytes_of(out),
                    "{} width {} parallel values",
                    K::NAME,
                    L::WIDTH
                );
            }
        }
    }
}

/// Every width, on every instruction-set path this CPU runs.
fn map_all_widths<K: MapKernel>(as_: &[K::A], bs: &[K::B]) {
    for isa in Isa::ALL {
        with_isa(isa, || {
            check_map_offsets::<K, f32x4>(as_, bs);
            check_map_offsets::<K, f32x8>(as_, bs);
            check_map_offsets::<K, f32x16>(as_, bs);
        });
    }
}

#[test]
fn ray_tables_replay_through_map_drivers() {
    use common::cases::rays::*;
    let c = ray_aabb_cases();
    let (rays, boxes): (Vec<_>, Vec<_>) = c.iter().map(|k| (k.ray, k.bx)).unzip();
    map_all_widths::<RayAabb>(&rays, &boxes);
    map_all_widths::<RayAabbConservative>(&rays, &boxes);
    let want: Vec<bool> =
        rays.iter().zip(&boxes).map(|(r, b)| widephase::ray::ray_aabb(r, b).hit).collect();
    all_widths::<RayAabbTest>(&rays, &boxes, &want);
    let c = ray_triangle_cases();
    let (rays, tris): (Vec<_>, Vec<_>) = c.iter().map(|k| (k.ray, k.tri)).unzip();
    map_all_widths::<RayTriangle>(&rays, &tris);
    let want: Vec<bool> = rays
        .iter()
        .zip(&tris)
        .map(|(r, t)| widephase::ray::ray_triangle_conservative(r, t))
        .collect();
    all_widths::<RayTriangleConservative>(&rays, &tris, &want);
    let c = ray_sphere_cases();
    let (rays, spheres): (Vec<_>, Vec<_>) = c.iter().map(|k| (k.ray, k.sphere)).unzip();
    map_all_widths::<RaySphere>(&rays, &spheres);
}

#[test]
fn convex_tables_replay_through_drivers() {
    use common::cases::convex::*;
    let c = triangle_triangle_cases();
    let (a, b): (Vec<_>, Vec<_>) = c.iter().map(|k| (k.a, k.b)).unzip();
    let want: Vec<bool> =
        a.iter().zip(&b).map(|(x, y)| widephase::overlap::triangle_triangle(x, y)).collect();
    all_widths::<TriangleTriangle>(&a, &b, &want);
    let want: Vec<bool> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| widephase::overlap::triangle_triangle_conservative(x, y))
        .collect();
    all_widths::<TriangleTriangleConservative>(&a, &b, &want);
    let c = obb_obb_cases();
    let (a, b): (Vec<_>, Vec<_>) = c.iter().map(|k| (k.a, k.b)).unzip();
    let want: Vec<bool> =
        a.iter().zip(&b).map(|(x, y)| widephase::overlap::obb_obb(x, y)).collect();
    all_widths::<ObbObb>(&a, &b, &want);
    map_all_widths::<ObbObbContact>(&a, &b);
    let want: Vec<bool> =
        a.iter().zip(&b).map(|(x, y)| widephase::overlap::obb_obb_conservative(x, y)).collect();
    all_widths::<ObbObbConservative>(&a, &b, &want);
    let c = sphere_sphere_cases();
    let (a, b): (Vec<_>, Vec<_>) = c.iter().map(|k| (k.a, k.b)).unzip();
    let want: Vec<bool> =
        a.iter().zip(&b).map(|(x, y)| widephase::overlap::sphere_sphere(x, y)).collect();
    all_widths::<SphereSphere>(&a, &b, &want);
    let want: Vec<bool> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| widephase::overlap::sphere_sphere_conservative(x, y))
        .collect();
    all_widths::<SphereSphereConservative>(&a, &b, &want);
}

#[test]
fn moving_box_table_replays_through_map_drivers() {
    let c = common::cases::dynamic::moving_aabb_cases();
    let (a, b): (Vec<MovingAabb>, Vec<MovingAabb>) = c
        .iter()
        .map(|k| {
            (MovingAabb { aabb: k.a, velocity: k.va }, MovingAabb { aabb: k.b, velocity: k.vb })
        })
        .unzip();
    map_all_widths::<MovingAabbAabb>(&a, &b);
    map_all_widths::<MovingAabbAabbConservative>(&a, &b);
}

/// The moving sphere–box table through the map drivers at every width and
/// offset, against the scalar `moving_sphere_aabb` (hit and time bits).
#[test]
fn moving_sphere_box_table_replays_through_map_drivers() {
    let c = common::cases::dynamic::sphere_aabb_cases();
    let spheres: Vec<MovingSphere> =
        c.iter().map(|k| MovingSphere { sphere: k.s, velocity: k.d }).collect();
    let boxes: Vec<Aabb> = c.iter().map(|k| k.b).collect();
    for (m, b) in spheres.iter().zip(&boxes) {
        let (hit, out) = MovingSphereAabb::eval::<f32>(m, b);
        let want = widephase::dynamic::moving_sphere_aabb(&m.sphere, m.velocity, b);
        assert_eq!(if hit { Some(out.t) } else { None }, want);
    }
    map_all_widths::<MovingSphereAabb>(&spheres, &boxes);
}

#[test]
fn frustum_culling_drivers_match_scalar_classification() {
    use common::cases::culling::*;
    use widephase::overlap::{frustum_aabb, frustum_sphere, Classification};
    let c = frustum_aabb_cases();
    for k in &c {
        fn go<L: LanePod>(k: &FrustumAabbCase) {
            let want = frustum_aabb(&k.frustum, &k.aabb);
            let boxes = vec![k.aabb; L::WIDTH + 3];
            let (mut o, mut i) = (BitMask::default(), BitMask::default());
            frustum_cull_aabbs::<L>(&k.frustum, &Pack::new(&boxes), &mut o, &mut i);
            for j in 0..boxes.len() {
                let got = if o.get(j) {
                    Classification::Outside
                } else if i.get(j) {
                    Classification::Inside
                } else {
                    Classification::Intersecting
                };
                assert_eq!(got, want, "{} width {}", k.label, L::WIDTH);
            }
        }
        go::<f32x4>(k);
        go::<f32x8>(k);
        go::<f32x16>(k);
    }
    let c = frustum_sphere_cases();
    for k in &c {
        fn go<L: LanePod>(k: &FrustumSphereCase) {
            let want = frustum_sphere(&k.frustum, &k.sphere);
            let spheres = vec![k.sphere; L::WIDTH + 5];
            let (mut o, mut i) = (BitMask::default(), BitMask::default());
            frustum_cull_spheres::<L>(&k.frustum, &Pack::new(&spheres), &mut o, &mut i);
            for j in 0..spheres.len() {
                let got = if o.get(j) {
                    Classification::Outside
                } else if i.get(j) {
                    Classification::Inside
                } else {
                    Classification::Intersecting
                };
                assert_eq!(got, want, "{} width {}", k.label, L::WIDTH);
            }
        }
        go::<f32x4>(k);
        go::<f32x8>(k);
        go::<f32x16>(k);
    }
}

#[test]
fn sphere_triangle_table_replays_through_pairwise_drivers() {
    let c = common::cases::closest::sphere_triangle_cases();
    let (s, t): (Vec<_>, Vec<_>) = c.iter().map(|k| (k.sphere, k.tri)).unzip();
    let want: Vec<bool> =
        s.iter().zip(&t).map(|(a, b)| widephase::overlap::sphere_triangle(a, b)).collect();
    all_widths::<SphereTriangle>(&s, &t, &want);
    let want: Vec<bool> = s
        .iter()
        .zip(&t)
        .map(|(a, b)| widephase::overlap::sphere_triangle_conservative(a, b))
        .collect();
    all_widths::<SphereTriangleConservative>(&s, &t, &want);
}

/// The precomputed one-ray path (with its fast path for rays without a zero
/// direction component) against `ray_aabb` on every (table ray, table box)
/// pair: hit bits and entry `t` bit for bit, at every width.
#[test]
fn ray_vs_boxes_matches_ray_aabb_on_the_table() {
    let c = common::cases::rays::ray_aabb_cases();
    let boxes: Vec<Aabb> = c.iter().map(|k| k.bx).collect();
    fn go<L: LanePod>(rays: &[widephase::Ray], boxes: &[Aabb]) {
        let pack = Pack::<Aabb, L>::new(boxes);
        let (mut m, mut t, mut mm) = (BitMask::default(), Vec::new(), BitMask::default());
        for ray in rays {
            ray_vs_boxes::<L>(ray, &pack, &mut m, &mut t);
            ray_vs_boxes_mask::<L>(ray, &pack, &mut mm);
            assert_eq!(m, mm, "mask-only path differs, width {}", L::WIDTH);
            for (j, b) in boxes.iter().enumerate() {
                let h = widephase::ray::ray_aabb(ray, b);
                assert_eq!(m.get(j), h.hit, "width {} ray {ray:?} box {j}", L::WIDTH);
                if h.hit {
                    assert_eq!(
                        t[j].to_bits(),
                        h.t.to_bits(),
                        "width {} ray {ray:?} box {j}",
                        L::WIDTH
                    );
                }
            }
        }
    }
    let rays: Vec<widephase::Ray> = c.iter().map(|k| k.ray).collect();
    assert!(
        rays.iter().any(|r| r.dir.x != 0.0 && r.dir.y != 0.0 && r.dir.z != 0.0),
        "fast path exercised"
    );
    assert!(
        rays.iter().any(|r| r.dir.x == 0.0 || r.dir.y == 0.0 || r.dir.z == 0.0),
        "zero-direction path exercised"
    );
    go::<f32>(&rays, &boxes);
    go::<f32x4>(&rays, &boxes);
    go::<f32x8>(&rays, &boxes);
    go::<f32x16>(&rays, &boxes);
}

#[test]
fn par_many_vs_many_map_matches_brute_force() {
    let c = common::cases::rays::ray_triangle_cases();
    let rays: Vec<widephase::Ray> = c.iter().map(|k| k.ray).collect();
    let tris: Vec<Triangle> = c.iter().map(|k| k.tri).collect();
    let mut want = Vec::new();
    for (i, r) in rays.iter().enumerate() {
        for (j, t) in tris.iter().enumerate() {
            let h = widephase::ray::ray_triangle(r, t);
            if h.hit {
                want.push((i as u32, j as u32, [h.t.to_bits(), h.u.to_bits(), h.v.to_bits()]));
            }
        }
    }
    assert!(want.len() > 10);
    fn go<L: LanePod>(rays: &[widephase::Ray], tris: &[Triangle], want: &[(u32, u32, [u32; 3])]) {
        let mut got = Vec::new();
        par_many_vs_many_map::<RayTriangle, L>(rays, &Pack::new(tris), &mut got);
        let got: Vec<_> = got
            .iter()
            .map(|(i, j, h)| (*i, *j, [h.t.to_bits(), h.u.to_bits(), h.v.to_bits()]))
            .collect();
        assert_eq!(got, want, "width {}", L::WIDTH);
    }
    go::<f32x4>(&rays, &tris, &want);
    go::<f32x16>(&rays, &tris, &want);
}

/// The AABB–AABB table through the default and the conservative pair kernels,
/// at every width and lane offset: both give the exact answer of every row
/// (the test rounds nothing), including the touching ones.
#[test]
fn aabb_aabb_kernels_replay_the_table() {
    let c = aabb_aabb_cases();
    let a: Vec<Aabb> = c.iter().map(|k| k.a).collect();
    let b: Vec<Aabb> = c.iter().map(|k| k.b).collect();
    let want: Vec<bool> = c.iter().map(|k| k.expect).collect();
    all_widths::<AabbAabb>(&a, &b, &want);
    all_widths::<AabbAabbConservative>(&a, &b, &want);
    assert!(c.iter().any(|k| k.expect) && c.iter().any(|k| !k.expect));
}

/// Segment–AABB through its pair kernel at every width and lane offset: the
/// table's answers (exact expectations) and random near-box segments, against
/// the scalar `segment_aabb`.
#[test]
fn segment_aabb_kernel_matches_scalar() {
    use common::cases::rays::segment_aabb_cases;
    use widephase::ray::segment_aabb;
    use widephase::Segment;
    let c = segment_aabb_cases();
    let mut segs: Vec<Segment> = c.iter().map(|k| k.seg).collect();
    let mut boxes: Vec<Aabb> = c.iter().map(|k| k.bx).collect();
    for k in &c {
        assert_eq!(segment_aabb(&k.seg, &k.bx), k.hit, "{}", k.label);
    }
    let mut r = rng::rng(0x5E6A);
    for _ in 0..3000 {
        let lo = rng::grid_point(&mut r, 4, 1);
        let hi = lo + Vec3::new(r.f32(), r.f32(), r.f32()) * 2.0;
        boxes.push(Aabb::new(lo, hi));
        let a = lo + rng::point(&mut r, -0.5, 2.0);
        segs.push(Segment::new(a, a + rng::point(&mut r, -1.0, 1.0)));
    }
    let want: Vec<bool> = segs.iter().zip(&boxes).map(|(s, b)| segment_aabb(s, b)).collect();
    let hits = want.iter().filter(|&&w| w).count();
    assert!(hits > 300 && want.len() - hits > 300, "{hits} hits of {}", want.len());
    all_widths::<SegmentAabb>(&segs, &boxes, &want);
}

/// The kernels added for the conservative variants and the moving sphere–box
/// query give the same masks (and times) on 1, 2, 3 and 7 threads as on one
/// unthreaded pass, at width 16, on the bench workloads at a 50 % hit rate.
#[test]
fn new_kernels_thread_count_does_not_change_results() {
    use widephase::workload::*;
    fn pairs_on_threads<K: PairKernel>(a: &[K::A], b: &[K::B]) {
        let (pa, pb) = (Pack::<K::A, f32x16>::new(a), Pack::<K::B, f32x16>::new(b));
        let mut reference = BitMask::default();
        pairwise::<K, f32x16>(&pa, &pb, &mut reference);
        assert!(reference.count_ones() > 0, "{}", K::NAME);
        for threads in [1, 2, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut out = BitMask::default();
            pool.install(|| par_pairwise::<K, f32x16>(&pa, &pb, &mut out));
            assert_eq!(out, reference, "{} on {threads} threads", K::NAME);
        }
    }
    fn map_on_threads<K: MapKernel>(a: &[K::A], b: &[K::B])
    where
        K::Out: PartialEq + std::fmt::Debug,
    {
        let (pa, pb) = (Pack::<K::A, f32x16>::new(a), Pack::<K::B, f32x16>::new(b));
        let (mut m, mut v) = (BitMask::default(), Vec::new());
        pairwise_map::<K, f32x16>(&pa, &pb, &mut m, &mut v);
        assert!(m.count_ones() > 0, "{}", K::NAME);
        for threads in [1, 2, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (mut pm, mut pv) = (BitMask::default(), Vec::new());
            pool.install(|| par_pairwise_map::<K, f32x16>(&pa, &pb, &mut pm, &mut pv));
            assert_eq!(pm, m, "{} on {threads} threads", K::NAME);
            for i in 0..a.len() {
                if m.get(i) {
                    assert_eq!(
                        format!("{:?}", pv[i]),
                        format!("{:?}", v[i]),
                        "{} pair {i} on {threads} threads",
                        K::NAME
                    );
                }
            }
        }
    }
    // every tier of `widephase bench` can be generated
    for rate in [0.0, 0.02, 0.5] {
        let _ = sphere_triangle_pairs(2000, rate, 9);
        let _ = moving_box_pairs(2000, rate, 9);
        let _ = moving_sphere_box_pairs(2000, rate, 9);
    }
    let n = 20_000;
    let (s, t) = sphere_triangle_pairs(n, 0.5, 1);
    pairs_on_threads::<SphereTriangleConservative>(&s, &t);
    let (a, b) = obb_pairs(n, 0.5, 2);
    pairs_on_threads::<ObbObbConservative>(&a, &b);
    let (r, t) = ray_triangle_pairs(n, 0.5, 3);
    pairs_on_threads::<RayTriangleConservative>(&r, &t);
    let (a, b) = moving_box_pairs(n, 0.5, 4);
    map_on_threads::<MovingAabbAabbConservative>(&a, &b);
    let (s, b) = moving_sphere_box_pairs(n, 0.5, 5);
    map_on_threads::<MovingSphereAabb>(&s, &b);
}

/// The screened pairwise path (`PairKernel::screen`, then `test_kept` on the kept
/// pairs packed into full lanes): the triangle–box kernels' screen keeps every
/// lane the test keeps at every width, and the drivers equal the scalar test on
/// workloads where it keeps none, some (spread over words and chunk edges, the
/// last staged pack partial) and all of the pairs, with NaN and inverted pairs
/// mixed in, on 1 and 3 threads and on every instruction-set path.
#[test]
fn screened_pairwise_equals_the_scalar_test() {
    use widephase::workload::tri_box_pairs;
    fn screen_keeps_every_hit<K: PairKernel<A = Triangle, B = Aabb>, L: LanePod>(
        tris: &[Triangle],
        boxes: &[Aabb],
    ) -> usize {
        let (pt, pb) = (Pack::<Triangle, L>::new(tris), Pack::<Aabb, L>::new(boxes));
        let mut cleared = 0;
        for (a, b) in pt.chunks().iter().zip(pb.chunks()) {
            let (s, t) = (K::screen::<L>(a, b).bits(), K::test::<L>(a, b).bits());
            assert_eq!(t & !s, 0, "{} width {}: the screen cleared a hit", K::NAME, L::WIDTH);
            cleared += (!s & ((1u64 << (L::WIDTH - 1) << 1).wrapping_sub(1))).count_ones() as usize;
        }
        cleared
    }
    fn check<K: PairKernel<A = Triangle, B = Aabb>>(tris: &[Triangle], boxes: &[Aabb])
    where
        Triangle: Packable<Lanes<f32> = Triangle>,
    {
        let want = scalar_pairs::<K>(tris, boxes);
        for isa in Isa::ALL {
            with_isa(isa, || {
                fn at<K: PairKernel<A = Triangle, B = Aabb>, L: LanePod>(
                    tris: &[Triangle],
                    boxes: &[Aabb],
                    want: &[bool],
                ) {
                    let (pt, pb) = (Pack::<Triangle, L>::new(tris), Pack::<Aabb, L>::new(boxes));
                    let mut out = BitMask::default();
                    pairwise::<K, L>(&pt, &pb, &mut out);
                    let got: Vec<bool> = (0..tris.len()).map(|i| out.get(i)).collect();
                    assert_eq!(got, want, "{} width {}", K::NAME, L::WIDTH);
                    for threads in [1, 3] {
                        let pool =
                            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                        let mut par = BitMask::default();
                        pool.install(|| par_pairwise::<K, L>(&pt, &pb, &mut par));
                        assert_eq!(par, out, "{} width {} {threads} threads", K::NAME, L::WIDTH);
                    }
                }
                at::<K, f32x4>(tris, boxes, &want);
                at::<K, f32x8>(tris, boxes, &want);
                at::<K, f32x16>(tris, boxes, &want);
            });
        }
    }
    for (n, rate, seed) in [(9_001, 0.02, 1), (5_003, 0.5, 2), (1_037, 1.0, 3), (777, 0.0, 4)] {
        let (mut tris, mut boxes) = tri_box_pairs(n, rate, seed);
        // every 97th pair invalid: a NaN vertex or an inverted box
        for i in (0..n).step_by(97) {
            if i % 2 == 0 {
                tris[i].b.y = f32::NAN;
            } else {
                boxes[i] = Aabb::new(boxes[i].max, boxes[i].min);
            }
        }
        let hits = scalar_pairs::<TriangleAabb>(&tris, &boxes).iter().filter(|&&h| h).count();
        assert!(rate == 0.0 || hits > 0, "seed {seed}: the workload must have hits");
        let cleared = screen_keeps_every_hit::<TriangleAabb, f32x4>(&tris, &boxes)
            + screen_keeps_every_hit::<TriangleAabb, f32x8>(&tris, &boxes)
            + screen_keeps_every_hit::<TriangleAabb, f32x16>(&tris, &boxes)
            + screen_keeps_every_hit::<TriangleAabbConservative, f32x16>(&tris, &boxes);
        assert!(rate == 1.0 || cleared > 0, "seed {seed}: the screen must clear some pairs");
        check::<TriangleAabb>(&tris, &boxes);
        check::<TriangleAabbConservative>(&tris, &boxes);
    }
}
