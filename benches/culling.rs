//! Criterion benches for culling: one frustum against packs of boxes and of
//! spheres (outside / inside masks), every width; the hit counts of every width
//! are asserted equal before timing.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use wide::{f32x16, f32x4, f32x8};
use widephase::batch::{frustum_cull_aabbs, frustum_cull_spheres, BitMask};
use widephase::overlap::DepthRange;
use widephase::pack::{LanePod, Pack};
use widephase::workload::SplitMix;
use widephase::{Aabb, Frustum, Sphere, Vec3};

const N: usize = 1 << 16;

/// A 90° perspective camera at the origin looking down -z, near 0.1, far 100
/// (column-major, OpenGL depth), as a frustum.
fn camera() -> Frustum {
    let (n, f) = (0.1f32, 100.0f32);
    let m = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, (f + n) / (n - f), -1.0],
        [0.0, 0.0, 2.0 * f * n / (n - f), 0.0],
    ];
    Frustum::from_view_projection(&m, DepthRange::NegativeOneToOne)
}

fn scene(seed: u64) -> (Vec<Aabb>, Vec<Sphere>) {
    let mut r = SplitMix(seed);
    let boxes = (0..N)
        .map(|_| {
            let c = r.p(-100.0, 100.0) - Vec3::new(0.0, 0.0, 50.0);
            Aabb::new(c, c + r.p(0.5, 3.0))
        })
        .collect();
    let spheres = (0..N)
        .map(|_| Sphere::new(r.p(-100.0, 100.0) - Vec3::new(0.0, 0.0, 50.0), 0.5 + 2.0 * r.f()))
        .collect();
    (boxes, spheres)
}

fn counts<L: LanePod>(f: &Frustum, b: &Pack<Aabb, L>, s: &Pack<Sphere, L>) -> [usize; 4] {
    let (mut o, mut i) = (BitMask::default(), BitMask::default());
    frustum_cull_aabbs::<L>(f, b, &mut o, &mut i);
    let (bo, bi) = (o.count_ones(), i.count_ones());
    frustum_cull_spheres::<L>(f, s, &mut o, &mut i);
    [bo, bi, o.count_ones(), i.count_ones()]
}

fn bench_culling(c: &mut Criterion) {
    let f = camera();
    let (boxes, spheres) = scene(41);
    let want = counts::<f32>(&f, &Pack::new(&boxes), &Pack::new(&spheres));
    assert!(want[0] > 0 && want[1] > 0, "the scene must have outside and inside boxes: {want:?}");
    let mut g = c.benchmark_group("frustum_aabb");
    g.throughput(Throughput::Elements(N as u64));
    macro_rules! width {
        ($g:ident, $name:literal, $l:ty, $shape:ident, $items:expr, $cull:ident) => {{
            let pack = Pack::<$shape, $l>::new($items);
            assert_eq!(counts::<$l>(&f, &Pack::new(&boxes), &Pack::new(&spheres)), want);
            let (mut o, mut i) = (BitMask::default(), BitMask::default());
            $g.bench_function($name, |b| {
                b.iter(|| $cull::<$l>(&f, black_box(&pack), &mut o, &mut i))
            });
        }};
    }
    width!(g, "scalar", f32, Aabb, &boxes, frustum_cull_aabbs);
    width!(g, "x4", f32x4, Aabb, &boxes, frustum_cull_aabbs);
    width!(g, "x8", f32x8, Aabb, &boxes, frustum_cull_aabbs);
    width!(g, "x16", f32x16, Aabb, &boxes, frustum_cull_aabbs);
    g.finish();
    let mut g = c.benchmark_group("frustum_sphere");
    g.throughput(Throughput::Elements(N as u64));
    width!(g, "scalar", f32, Sphere, &spheres, frustum_cull_spheres);
    width!(g, "x4", f32x4, Sphere, &spheres, frustum_cull_spheres);
    width!(g, "x8", f32x8, Sphere, &spheres, frustum_cull_spheres);
    width!(g, "x16", f32x16, Sphere, &spheres, frustum_cull_spheres);
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = bench_culling
}
criterion_main!(benches);
