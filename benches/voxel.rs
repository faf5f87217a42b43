//! Voxelizer benchmarks: conservative surface of the builtin torus knot and,
//! when `../shared/meshes` is present, bunny 512³ and dragon_sub4 512³ (the
//! README targets), with every result's voxel count asserted (outside the
//! timed span) so a broken kernel cannot post a fast number.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use widephase::voxel::{builtin, voxelize, Grid, Mesh, Mode, Options};

fn mesh(name: &str) -> Option<Mesh> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes").join(name);
    if !p.exists() {
        eprintln!("skip {name}: {} not present", p.display());
        return None;
    }
    Some(Mesh::load(&p).expect("mesh loads"))
}

fn bench(c: &mut Criterion) {
    let mut cases: Vec<(String, Mesh, u32, Mode)> =
        vec![("knot".into(), builtin::torus_knot(512, 32, 0.4), 256, Mode::Surface)];
    if let Some(m) = mesh("bunny.obj") {
        cases.push(("bunny".into(), m.clone(), 512, Mode::Surface));
        cases.push(("bunny".into(), m, 256, Mode::Solid));
    }
    if let Some(m) = mesh("dragon_sub4.obj") {
        cases.push(("dragon_sub4".into(), m, 512, Mode::Surface));
    }
    let mut g = c.benchmark_group("voxelize");
    g.sample_size(10);
    for (name, m, res, mode) in &cases {
        let (lo, hi) = m.as_ref().bounds();
        let grid = Grid::fit(lo, hi, *res, 0).expect("grid");
        let opts = Options { mode: *mode, ..Options::default() };
        let expect = voxelize(m.as_ref(), &grid, &opts).expect("voxelize").set.count();
        assert!(expect > 0);
        // Only the `voxelize` call is timed: each result's voxel count is
        // checked, and the result dropped, outside the timed span.
        g.bench_function(format!("{name}/{res}/{mode:?}"), |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    let v = voxelize(m.as_ref(), &grid, &opts).expect("voxelize");
                    timed += t.elapsed();
                    assert_eq!(v.set.count(), expect);
                }
                timed
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
