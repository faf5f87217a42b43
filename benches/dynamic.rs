//! Criterion benches for moving shapes: moving AABB–AABB first/last contact
//! times, every width and the never/rare/common tiers, parry3d's
//! `Aabb::intersects_moving_aabb` as the peer with `--features peers`.

mod common;

use common::{map_widths, Peer, N, TIERS};
use criterion::{criterion_group, criterion_main, Criterion};
use widephase::batch::kernels::{MovingAabb, MovingAabbAabb};
use widephase::workload::{by_rate, SplitMix};
use widephase::{Aabb, Vec3};

#[cfg(feature = "peers")]
mod peer {
    use parry3d::bounding_volume::Aabb as PAabb;
    use parry3d::math::Vector;
    use widephase::batch::kernels::MovingAabb;

    fn v(v: widephase::Vec3) -> Vector {
        Vector::new(v.x, v.y, v.z)
    }
    /// `Aabb::intersects_moving_aabb` with the relative velocity.
    pub fn moving(a: &[MovingAabb], b: &[MovingAabb]) -> impl Fn() -> usize {
        let p: Vec<(PAabb, PAabb, Vector)> = a
            .iter()
            .zip(b)
            .map(|(a, b)| {
                (
                    PAabb::new(v(a.aabb.min), v(a.aabb.max)),
                    PAabb::new(v(b.aabb.min), v(b.aabb.max)),
                    v(b.velocity - a.velocity),
                )
            })
            .collect();
        move || p.iter().filter(|(a, b, vel)| a.intersects_moving_aabb(b, *vel)).count()
    }
}

fn pairs(n: usize, rate: f32, seed: u64) -> (Vec<MovingAabb>, Vec<MovingAabb>) {
    by_rate(
        n,
        rate,
        seed,
        |r: &mut SplitMix| {
            let o = r.p(0.0, 100.0);
            let a = MovingAabb { aabb: Aabb::new(o, o + r.p(0.5, 1.5)), velocity: r.p(-1.0, 1.0) };
            let p = o + r.p(-4.0, 4.0);
            let b = MovingAabb {
                aabb: Aabb::new(p, p + r.p(0.5, 1.5)),
                velocity: r.p(-3.0, 3.0) + Vec3::ZERO,
            };
            (a, b)
        },
        |a, b| widephase::dynamic::moving_aabb_aabb(&a.aabb, &a.velocity, &b.aabb, &b.velocity).hit,
    )
}

fn bench_dynamic(c: &mut Criterion) {
    for (tier, rate) in TIERS {
        let (a, b) = pairs(N, rate, 51);
        #[cfg(feature = "peers")]
        let p = peer::moving(&a, &b);
        #[cfg(feature = "peers")]
        let pf: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let pf: Peer = None;
        map_widths::<MovingAabbAabb>(c, tier, &a, &b, pf);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = bench_dynamic
}
criterion_main!(benches);
