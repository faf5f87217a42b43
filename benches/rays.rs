//! Criterion benches for the ray family: ray–slab (hit, and hit + entry t),
//! watertight ray–triangle, ray–sphere; widths scalar/x4/x8/x16/par and the
//! never/rare/common tiers; parry3d's ray casts as the peer with
//! `--features peers`.

mod common;

use common::{map_widths, widths, Peer, N, TIERS};
use criterion::{criterion_group, criterion_main, Criterion};
use widephase::batch::kernels::*;
use widephase::workload::{by_rate, ray_box_pairs, ray_triangle_pairs, SplitMix};
use widephase::{Ray, Sphere};

#[cfg(feature = "peers")]
mod peer {
    use parry3d::bounding_volume::Aabb as PAabb;
    use parry3d::math::{Pose, Vector};
    use parry3d::query::{Ray as PRay, RayCast};
    use parry3d::shape::{Ball, Triangle as PTriangle};
    use widephase::{Aabb, Ray, Sphere, Triangle, Vec3};

    fn v(v: Vec3) -> Vector {
        Vector::new(v.x, v.y, v.z)
    }
    fn ray(r: &Ray) -> PRay {
        PRay::new(v(r.origin), v(r.dir))
    }
    /// `Aabb::cast_local_ray` (solid).
    pub fn ray_aabb(r: &[Ray], b: &[Aabb]) -> impl Fn() -> usize {
        let pr: Vec<PRay> = r.iter().map(ray).collect();
        let pb: Vec<PAabb> = b.iter().map(|b| PAabb::new(v(b.min), v(b.max))).collect();
        move || {
            pr.iter()
                .zip(&pb)
                .filter(|(r, b)| b.cast_local_ray(r, f32::MAX, true).is_some())
                .count()
        }
    }
    /// `Triangle::cast_local_ray`.
    pub fn ray_triangle(r: &[Ray], t: &[Triangle]) -> impl Fn() -> usize {
        let pr: Vec<PRay> = r.iter().map(ray).collect();
        let pt: Vec<PTriangle> = t.iter().map(|t| PTriangle::new(v(t.a), v(t.b), v(t.c))).collect();
        move || {
            pr.iter()
                .zip(&pt)
                .filter(|(r, t)| t.cast_local_ray(r, f32::MAX, true).is_some())
                .count()
        }
    }
    /// `Ball::cast_ray` at the sphere's pose.
    pub fn ray_sphere(r: &[Ray], s: &[Sphere]) -> impl Fn() -> usize {
        let pr: Vec<PRay> = r.iter().map(ray).collect();
        let ps: Vec<(Pose, Ball)> =
            s.iter().map(|s| (Pose::from_translation(v(s.center)), Ball::new(s.radius))).collect();
        move || {
            pr.iter()
                .zip(&ps)
                .filter(|(r, (p, b))| b.cast_ray(p, r, f32::MAX, true).is_some())
                .count()
        }
    }
}

fn ray_sphere_pairs(n: usize, rate: f32, seed: u64) -> (Vec<Ray>, Vec<Sphere>) {
    by_rate(
        n,
        rate,
        seed,
        |r: &mut SplitMix| {
            let c = r.p(0.0, 100.0);
            let from = c + r.p(-4.0, 4.0);
            (Ray::new(from, c + r.p(-1.5, 1.5) - from), Sphere::new(c, 0.5 + r.f() * 0.5))
        },
        |ray, s| widephase::ray::ray_sphere(ray, s).hit,
    )
}

fn bench_rays(c: &mut Criterion) {
    for (tier, rate) in TIERS {
        let (r, b) = ray_box_pairs(N, rate, 21);
        #[cfg(feature = "peers")]
        let p = peer::ray_aabb(&r, &b);
        #[cfg(feature = "peers")]
        let pf: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let pf: Peer = None;
        widths::<RayAabbTest>(c, tier, &r, &b, pf);
        map_widths::<RayAabb>(c, tier, &r, &b, None);

        let (r, t) = ray_triangle_pairs(N, rate, 22);
        #[cfg(feature = "peers")]
        let p = peer::ray_triangle(&r, &t);
        #[cfg(feature = "peers")]
        let pf: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let pf: Peer = None;
        map_widths::<RayTriangle>(c, tier, &r, &t, pf);

        let (r, s) = ray_sphere_pairs(N, rate, 23);
        #[cfg(feature = "peers")]
        let p = peer::ray_sphere(&r, &s);
        #[cfg(feature = "peers")]
        let pf: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let pf: Peer = None;
        map_widths::<RaySphere>(c, tier, &r, &s, pf);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = bench_rays
}
criterion_main!(benches);
