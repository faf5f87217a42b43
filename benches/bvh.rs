//! BVH benchmarks: build time and closest-hit ray casting (Mrays/s = criterion's
//! elements/s ÷ 1e6) against the bunny and the dragon from ../shared/meshes
//! (builtin torus when they are absent), on 1 and 2 threads, with the
//! `widephase raycast` ray set (origins on a sphere around the mesh, aimed at
//! uniform points of its bounding box). With `--features peers`, parry3d 0.31's
//! `TriMesh` (its binary BVH) casts the same rays in the same group. obvhs is not
//! included: it is not in the offline crate cache and the 2-core machine is
//! shared (see simd-notes.md).
//!
//! `cargo bench --bench bvh [--features peers]`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::path::Path;
use widephase::bvh::{random_rays, MeshBvh};
use widephase::voxel::{builtin, Mesh};
use widephase::{Ray, Triangle};

/// Rays per criterion iteration (the rate is per ray; 1M rays per iteration
/// would make each sample take seconds on this machine).
const RAYS: usize = 100_000;

#[cfg(feature = "peers")]
mod peer {
    use parry3d::math::Vector;
    use parry3d::query::{Ray as PRay, RayCast};
    use parry3d::shape::TriMesh;
    use widephase::voxel::Mesh;
    use widephase::Ray;

    pub struct Parry {
        mesh: TriMesh,
        rays: Vec<PRay>,
    }

    impl Parry {
        pub fn new(m: &Mesh, rays: &[Ray]) -> Self {
            let v = m.vertices.iter().map(|p| Vector::new(p.x, p.y, p.z)).collect();
            let mesh = TriMesh::new(v, m.indices.clone()).expect("valid mesh");
            let rays = rays
                .iter()
                .map(|r| {
                    PRay::new(
                        Vector::new(r.origin.x, r.origin.y, r.origin.z),
                        Vector::new(r.dir.x, r.dir.y, r.dir.z),
                    )
                })
                .collect();
            Parry { mesh, rays }
        }
        /// Closest hits (`cast_local_ray`, not solid) counted.
        pub fn count(&self) -> usize {
            self.rays
                .iter()
                .filter(|r| self.mesh.cast_local_ray(r, f32::MAX, false).is_some())
                .count()
        }
        /// The same on a rayon pool (one query per ray).
        pub fn par_count(&self) -> usize {
            use rayon::prelude::*;
            self.rays
                .par_iter()
                .with_min_len(1024)
                .filter(|r| self.mesh.cast_local_ray(r, f32::MAX, false).is_some())
                .count()
        }
    }
}

fn meshes() -> Vec<(String, Mesh)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes");
    let mut out = Vec::new();
    for name in ["bunny", "dragon"] {
        let p = dir.join(format!("{name}.obj"));
        if p.exists() {
            out.push((name.to_string(), Mesh::load(&p).expect("mesh loads")));
        } else {
            eprintln!("note: {} not found, skipped", p.display());
        }
    }
    if out.is_empty() {
        eprintln!("note: no shared meshes; benchmarking builtin:torus");
        out.push(("torus".to_string(), builtin::by_name("torus").unwrap()));
    }
    out
}

fn bench(c: &mut Criterion) {
    for (name, mesh) in meshes() {
        let m = mesh.as_ref();
        let tris: Vec<Triangle> = (0..m.triangle_count()).map(|i| m.triangle(i)).collect();
        let (lo, hi) = m.bounds();
        let rays: Vec<Ray> = random_rays(lo, hi, RAYS, 1);
        let pools: Vec<rayon::ThreadPool> = [1, 2]
            .iter()
            .map(|&t| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap())
            .collect();
        let bvh = MeshBvh::new(&tris);
        let want = bvh.count_hits(&rays);

        let mut g = c.benchmark_group(format!("bvh_build/{name}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(tris.len() as u64));
        for (t, pool) in [1, 2].iter().zip(&pools) {
            g.bench_function(format!("widephase/{t}t"), |b| {
                b.iter(|| pool.install(|| MeshBvh::new(black_box(&tris))))
            });
        }
        g.finish();

        let mut g = c.benchmark_group(format!("bvh_raycast/{name}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(RAYS as u64));
        for (t, pool) in [1, 2].iter().zip(&pools) {
            assert_eq!(pool.install(|| bvh.count_hits(&rays)), want);
            g.bench_function(format!("widephase/{t}t"), |b| {
                b.iter(|| pool.install(|| bvh.count_hits(black_box(&rays))))
            });
        }
        #[cfg(feature = "peers")]
        {
            let p = peer::Parry::new(&mesh, &rays);
            let got = p.count();
            if got != want {
                eprintln!("note: parry3d hits {got} of {RAYS} rays on {name}, widephase {want}");
            }
            g.bench_function("parry3d/1t", |b| b.iter(|| black_box(p.count())));
            let p2 = &pools[1];
            g.bench_function("parry3d/2t", |b| b.iter(|| p2.install(|| black_box(p.par_count()))));
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
