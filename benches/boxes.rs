//! Criterion benches for the box family: triangle–AABB, sphere–AABB,
//! AABB–AABB, pairwise over packs, parameterised by width (scalar, x4, x8,
//! x16, par) and hit-rate tier (never / rare ≈ 2 % / common ≈ 50 %), with
//! parry3d's scalar query as the peer in the same group.
//!
//! Inputs come from `widephase::workload` (seeded). Before timing, every
//! variant's hit count is asserted equal to the scalar one, so a broken kernel
//! cannot post a fast number.

mod common;

use common::{widths, Peer, N, TIERS};
use criterion::{criterion_group, criterion_main, Criterion};
use widephase::batch::kernels::*;
use widephase::workload::{box_box_pairs, sphere_box_pairs, tri_box_pairs};

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
        let peer_fn: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let peer_fn: Peer = None;
        widths::<TriangleAabb>(c, tier, &t, &b, peer_fn);
        widths::<TriangleAabbConservative>(c, tier, &t, &b, None);

        let (s, b) = sphere_box_pairs(N, rate, 12);
        #[cfg(feature = "peers")]
        let p = peer::sphere_aabb(&s, &b);
        #[cfg(feature = "peers")]
        let peer_fn: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let peer_fn: Peer = None;
        widths::<SphereAabb>(c, tier, &s, &b, peer_fn);

        let (a, b) = box_box_pairs(N, rate, 13);
        #[cfg(feature = "peers")]
        let p = peer::aabb_aabb(&a, &b);
        #[cfg(feature = "peers")]
        let peer_fn: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let peer_fn: Peer = None;
        widths::<AabbAabb>(c, tier, &a, &b, peer_fn);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = bench_boxes
}
criterion_main!(benches);
