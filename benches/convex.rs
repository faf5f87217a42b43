//! Criterion benches for the convex family: sphere–sphere, OBB–OBB (test and
//! contact), triangle–triangle (default and conservative); widths
//! scalar/x4/x8/x16/par and the never/rare/common tiers; parry3d's
//! `intersection_test` as the peer with `--features peers`.

mod common;

use common::{map_widths, widths, Peer, N, TIERS};
use criterion::{criterion_group, criterion_main, Criterion};
use widephase::batch::kernels::*;
use widephase::workload::{obb_pairs, sphere_sphere_pairs, triangle_pairs};

#[cfg(feature = "peers")]
mod peer {
    use parry3d::math::{Pose, Rot3, Vector};
    use parry3d::shape::{Ball, Cuboid, Shape, Triangle as PTriangle};
    use widephase::{Obb, Sphere, Triangle, Vec3};

    fn v(v: Vec3) -> Vector {
        Vector::new(v.x, v.y, v.z)
    }
    fn test(p1: &Pose, s1: &dyn Shape, p2: &Pose, s2: &dyn Shape) -> bool {
        parry3d::query::intersection_test(p1, s1, p2, s2).map(|i| i.intersecting).unwrap_or(false)
    }
    /// `intersection_test` on two balls.
    pub fn sphere_sphere(a: &[Sphere], b: &[Sphere]) -> impl Fn() -> usize {
        let f = |s: &Sphere| (Pose::from_translation(v(s.center)), Ball::new(s.radius));
        let (pa, pb): (Vec<_>, Vec<_>) = (a.iter().map(f).collect(), b.iter().map(f).collect());
        move || pa.iter().zip(&pb).filter(|((p1, s1), (p2, s2))| test(p1, s1, p2, s2)).count()
    }
    /// `intersection_test` on two cuboids (parry's SAT).
    pub fn obb_obb(a: &[Obb], b: &[Obb]) -> impl Fn() -> usize {
        let f = |o: &Obb| {
            let m = parry3d::math::Mat3::from_cols(v(o.axes[0]), v(o.axes[1]), v(o.axes[2]));
            (Pose::from_parts(v(o.center), Rot3::from_mat3(&m)), Cuboid::new(v(o.half)))
        };
        let (pa, pb): (Vec<_>, Vec<_>) = (a.iter().map(f).collect(), b.iter().map(f).collect());
        move || pa.iter().zip(&pb).filter(|((p1, s1), (p2, s2))| test(p1, s1, p2, s2)).count()
    }
    /// `intersection_test` on two triangles (parry dispatches to GJK).
    pub fn triangle_triangle(a: &[Triangle], b: &[Triangle]) -> impl Fn() -> usize {
        let f = |t: &Triangle| PTriangle::new(v(t.a), v(t.b), v(t.c));
        let (pa, pb): (Vec<_>, Vec<_>) = (a.iter().map(f).collect(), b.iter().map(f).collect());
        move || {
            pa.iter()
                .zip(&pb)
                .filter(|(a, b)| test(&Pose::IDENTITY, *a, &Pose::IDENTITY, *b))
                .count()
        }
    }
}

fn bench_convex(c: &mut Criterion) {
    for (tier, rate) in TIERS {
        let (a, b) = sphere_sphere_pairs(N, rate, 31);
        #[cfg(feature = "peers")]
        let p = peer::sphere_sphere(&a, &b);
        #[cfg(feature = "peers")]
        let pf: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let pf: Peer = None;
        widths::<SphereSphere>(c, tier, &a, &b, pf);

        let (a, b) = obb_pairs(N / 4, rate, 32);
        #[cfg(feature = "peers")]
        let p = peer::obb_obb(&a, &b);
        #[cfg(feature = "peers")]
        let pf: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let pf: Peer = None;
        widths::<ObbObb>(c, tier, &a, &b, pf);
        map_widths::<ObbObbContact>(c, tier, &a, &b, None);

        let (a, b) = triangle_pairs(N / 4, rate, 33);
        #[cfg(feature = "peers")]
        let p = peer::triangle_triangle(&a, &b);
        #[cfg(feature = "peers")]
        let pf: Peer = Some(("parry3d", &p));
        #[cfg(not(feature = "peers"))]
        let pf: Peer = None;
        widths::<TriangleTriangle>(c, tier, &a, &b, pf);
        widths::<TriangleTriangleConservative>(c, tier, &a, &b, None);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = bench_convex
}
criterion_main!(benches);
