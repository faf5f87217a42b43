//! BVH benchmarks: build time and closest-hit ray casting (Mrays/s = criterion's
//! elements/s ÷ 1e6) against the bunny and the dragon from ../shared/meshes
//! (builtin torus when they are absent), on 1 and 2 threads, with the
//! `widephase raycast` ray set (origins on a sphere around the mesh, aimed at
//! uniform points of its bounding box). With `--features peers`, two Rust peers
//! cast the same rays in the same group: parry3d 0.31's `TriMesh` (its binary
//! BVH, one `cast_local_ray` per ray) and obvhs 0.4's compressed 8-wide BVH
//! (`build_cwbvh_from_tris` with its `medium_build` preset, Ylitie et al. 2017,
//! Möller–Trumbore leaves). Their hit counts are printed when they differ from
//! widephase's (neither peer is watertight).
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

    /// obvhs's compressed wide BVH over the same triangles, with its triangles
    /// laid out in the tree's primitive order (as its `obj_cwbvh` example does).
    pub struct Obvhs {
        bvh: obvhs::cwbvh::CwBvh,
        tris: Vec<obvhs::triangle::Triangle>,
        rays: Vec<obvhs::ray::Ray>,
    }

    impl Obvhs {
        pub fn new(tris: &[widephase::Triangle], rays: &[Ray]) -> Self {
            use glam::Vec3A;
            let v = |p: widephase::Vec3| Vec3A::new(p.x, p.y, p.z);
            let all: Vec<obvhs::triangle::Triangle> = tris
                .iter()
                .map(|t| obvhs::triangle::Triangle { v0: v(t.a), v1: v(t.b), v2: v(t.c) })
                .collect();
            let bvh = obvhs::cwbvh::builder::build_cwbvh_from_tris(
                &all,
                obvhs::BvhBuildParams::medium_build(),
                &mut std::time::Duration::default(),
            );
            let tris = bvh.primitive_indices.iter().map(|&i| all[i as usize]).collect();
            // t in [0, 1]: `dir = target - origin`, as in widephase's ray set
            let rays = rays
                .iter()
                .map(|r| obvhs::ray::Ray::new(v(r.origin), v(r.dir), 0.0, f32::MAX))
                .collect();
            Obvhs { bvh, tris, rays }
        }
        fn hit(&self, r: &obvhs::ray::Ray) -> bool {
            let mut hit = obvhs::ray::RayHit::none();
            self.bvh.ray_traverse(*r, &mut hit, |ray, id| self.tris[id].intersect(ray))
        }
        /// Closest hits counted.
        pub fn count(&self) -> usize {
            self.rays.iter().filter(|r| self.hit(r)).count()
        }
        /// The same on a rayon pool.
        pub fn par_count(&self) -> usize {
            use rayon::prelude::*;
            self.rays.par_iter().with_min_len(1024).filter(|r| self.hit(r)).count()
        }
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
            let o = peer::Obvhs::new(&tris, &rays);
            let got = o.count();
            if got != want {
                eprintln!("note: obvhs hits {got} of {RAYS} rays on {name}, widephase {want}");
            }
            g.bench_function("obvhs/1t", |b| b.iter(|| black_box(o.count())));
            g.bench_function("obvhs/2t", |b| b.iter(|| p2.install(|| black_box(o.par_count()))));
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
