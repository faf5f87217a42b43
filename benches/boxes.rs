//! Criterion benches for the box family: triangle–AABB, sphere–AABB,
//! AABB–AABB, pairwise over packs, parameterised by width (scalar, x4, x8,
//! x16, par) and hit-rate tier (never / rare ≈ 2 % / common ≈ 50 %), with
//! parry3d's scalar query as the peer in the same group.
//!
//! Inputs come from `widephase::workload` (seeded). Before timing, every
//! variant's hit count is asserted equal to the scalar one, so a broken kernel
//! cannot post a fast number.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use wide::{f32x16, f32x4, f32x8};
use widephase::batch::kernels::*;
use widephase::batch::{pairwise, par_pairwise, BitMask, PairKernel};
use widephase::pack::{LanePod, Pack};
use widephase::workload::{box_box_pairs, sphere_box_pairs, tri_box_pairs};

const N: usize = 1 << 16;
const TIERS: [(&str, f32); 3] = [("never", 0.0), ("rare", 0.02), ("common", 0.5)];

fn hits<K: PairKernel, L: LanePod>(a: &Pack<K::A, L>, b: &Pack<K::B, L>) -> usize {
    let mut m = BitMask::default();
    pairwise::<K, L>(a, b, &mut m);
    m.count_ones()
}

fn widths<K: PairKernel>(
    c: &mut Criterion,
    tier: &str,
    as_: &[K::A],
    bs: &[K::B],
    peer: Option<(&str, &dyn Fn() -> usize)>,
) {
    let mut g = c.benchmark_group(format!("{}/{}", K::NAME, tier));
    g.throughput(Throughput::Elements(as_.len() as u64));
    let p1 = (Pack::<K::A, f32>::new(as_), Pack::<K::B, f32>::new(bs));
    let p4 = (Pack::<K::A, f32x4>::new(as_), Pack::<K::B, f32x4>::new(bs));
    let p8 = (Pack::<K::A, f32x8>::new(as_), Pack::<K::B, f32x8>::new(bs));
    let p16 = (Pack::<K::A, f32x16>::new(as_), Pack::<K::B, f32x16>::new(bs));
    let want = hits::<K, f32>(&p1.0, &p1.1);
    assert_eq!(hits::<K, f32x4>(&p4.0, &p4.1), want);
    assert_eq!(hits::<K, f32x8>(&p8.0, &p8.1), want);
    assert_eq!(hits::<K, f32x16>(&p16.0, &p16.1), want);
    let mut out = BitMask::zeros(as_.len());
    g.bench_function("scalar", |b| {
        b.iter(|| pairwise::<K, f32>(&p1.0, &p1.1, black_box(&mut out)))
    });
    g.bench_function("x4", |b| b.iter(|| pairwise::<K, f32x4>(&p4.0, &p4.1, black_box(&mut out))));
    g.bench_function("x8", |b| b.iter(|| pairwise::<K, f32x8>(&p8.0, &p8.1, black_box(&mut out))));
    g.bench_function("x16", |b| {
        b.iter(|| pairwise::<K, f32x16>(&p16.0, &p16.1, black_box(&mut out)))
    });
    g.bench_function("par", |b| {
        b.iter(|| par_pairwise::<K, f32x16>(&p16.0, &p16.1, black_box(&mut out)))
    });
    if let Some((name, f)) = peer {
        let peer_hits = f();
        // The generator keeps pairs ≥ 1 % away from contact, so an exact peer
        // must agree exactly.
        assert_eq!(peer_hits, want, "{name} disagrees with widephase on {}", K::NAME);
        g.bench_function(BenchmarkId::new("peer", name), |b| b.iter(|| black_box(f())));
    }
    g.finish();
}

/// parry3d's equivalent scalar queries (with `--features peers`).
#[cfg(feature = "peers")]
mod peer {
    use parry3d::bounding_volume::{Aabb as PAabb, BoundingVolume};
    use parry3d::math::{Pose, Vector};
    use parry3d::shape::{Ball, Cuboid, Triangle as PTriangle};
    use widephase::{Aabb, Sphere, Triangle, Vec3};

    fn v(v: Vec3) -> Vector {
        Vector::new(v.x, v.y, v.z)
    }
    fn aabb(b: &Aabb) -> PAabb {
        PAabb::new(v(b.min), v(b.max))
    }
    /// `intersection_test_aabb_triangle` (parry's SAT for triangle vs box).
    pub fn triangle_aabb(t: &[Triangle], b: &[Aabb]) -> impl Fn() -> usize {
        let pt: Vec<PTriangle> = t.iter().map(|t| PTriangle::new(v(t.a), v(t.b), v(t.c))).collect();
        let pb: Vec<PAabb> = b.iter().map(aabb).collect();
        move || {
            pt.iter()
                .zip(&pb)
                .filter(|(t, b)| parry3d::query::details::intersection_test_aabb_triangle(b, t))
                .count()
        }
    }
    /// `query::intersection_test` on a ball and a cuboid.
    pub fn sphere_aabb(s: &[Sphere], b: &[Aabb]) -> impl Fn() -> usize {
        let ps: Vec<(Pose, Ball)> =
            s.iter().map(|s| (Pose::from_translation(v(s.center)), Ball::new(s.radius))).collect();
        let pc: Vec<(Pose, Cuboid)> = b
            .iter()
            .map(|b| (Pose::from_translation(v(b.center())), Cuboid::new(v(b.half_extents()))))
            .collect();
        move || {
            ps.iter()
                .zip(&pc)
                .filter(|((p1, s), (p2, c))| {
                    parry3d::query::intersection_test(p1, s, p2, c)
                        .map(|i| i.intersecting)
                        .unwrap_or(false)
                })
                .count()
        }
    }
    /// `Aabb::intersects`.
    pub fn aabb_aabb(a: &[Aabb], b: &[Aabb]) -> impl Fn() -> usize {
        let pa: Vec<PAabb> = a.iter().map(aabb).collect();
        let pb: Vec<PAabb> = b.iter().map(aabb).collect();
        move || pa.iter().zip(&pb).filter(|(a, b)| a.intersects(b)).count()
    }
}

fn bench_boxes(c: &mut Criterion) {
    for (tier, rate) in TIERS {
        let (t, b) = tri_box_pairs(N, rate, 11);
        #[cfg(feature = "peers")]
        let p = peer::triangle_aabb(&t, &b);
        #[cfg(feature = "peers")]
        let peer_fn: Option<(&str, &dyn Fn() -> usize)> = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let peer_fn = None;
        widths::<TriangleAabb>(c, tier, &t, &b, peer_fn);
        widths::<TriangleAabbConservative>(c, tier, &t, &b, None);

        let (s, b) = sphere_box_pairs(N, rate, 12);
        #[cfg(feature = "peers")]
        let p = peer::sphere_aabb(&s, &b);
        #[cfg(feature = "peers")]
        let peer_fn: Option<(&str, &dyn Fn() -> usize)> = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let peer_fn = None;
        widths::<SphereAabb>(c, tier, &s, &b, peer_fn);

        let (a, b) = box_box_pairs(N, rate, 13);
        #[cfg(feature = "peers")]
        let p = peer::aabb_aabb(&a, &b);
        #[cfg(feature = "peers")]
        let peer_fn: Option<(&str, &dyn Fn() -> usize)> = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let peer_fn = None;
        widths::<AabbAabb>(c, tier, &a, &b, peer_fn);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = bench_boxes
}
criterion_main!(benches);
