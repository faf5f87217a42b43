//! The voxelizer gives the same voxels, bit for bit, on every run-time
//! instruction-set path (`widephase::simd::Isa::ALL`, forced with
//! `widephase::simd::with_isa`; a path the CPU does not run is clamped to the
//! widest it does, and the test prints which ran): surface, thin and solid
//! modes, the pre-culled and the plain path, dense and sparse storage, on
//! adversarial meshes (faces on grid planes and one ulp beside them, slivers,
//! points and segments, tiny and huge coordinates, triangles of every size
//! class the voxelizer treats differently), the built-in meshes and
//! `../shared/meshes/bunny.obj` when present.

use std::io::Write;
use std::path::PathBuf;
use widephase::simd::{with_isa, Isa};
use widephase::voxel::{builtin, voxelize, Grid, Mesh, Mode, Options, Storage, VoxelSet};
use widephase::Vec3;

/// Prints to the real stderr (the harness captures `eprintln!`).
fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn add(m: &mut Mesh, a: Vec3, b: Vec3, c: Vec3) {
    let n = m.vertices.len() as u32;
    m.vertices.extend([a, b, c]);
    m.indices.push([n, n + 1, n + 2]);
}

/// Every combination of mode, pre-cull and storage on every path, compared
/// with the baseline path. Returns the number of marked voxels seen (so a
/// caller can check the mesh is not trivially empty).
fn same_on_every_path(name: &str, m: &Mesh, g: &Grid) -> usize {
    let mut marked = 0;
    let cases = [
        (Mode::Surface, false, Storage::Dense),
        (Mode::Surface, false, Storage::Sparse),
        (Mode::Surface, true, Storage::Dense),
        (Mode::Thin, false, Storage::Dense),
        (Mode::Thin, false, Storage::Sparse),
        (Mode::Solid, false, Storage::Dense),
    ];
    for (mode, no_precull, storage) in cases {
        let opts = Options { mode, storage, no_precull, ..Options::default() };
        let run = |isa: Isa| with_isa(isa, || voxelize(m.as_ref(), g, &opts).unwrap().set);
        let (_, want): (Isa, VoxelSet) = run(Isa::Baseline);
        marked += want.count() as usize;
        // the flat index list (dispatched count and write passes) and the
        // count on every path equal the sorted voxel walk
        let walk: Vec<u32> = want.indices().into_iter().flatten().collect();
        for isa in Isa::ALL {
            let (used, flat) = with_isa(isa, || want.indices_flat());
            assert!(flat == walk, "{name}: {mode:?} {storage:?}: indices_flat on {used:?} differs");
            let (used, count) = with_isa(isa, || want.count());
            assert_eq!(
                count as usize,
                walk.len() / 3,
                "{name}: {mode:?} {storage:?}: count on {used:?}"
            );
        }
        for isa in [Isa::Avx2, Isa::Avx512] {
            let (used, got) = run(isa);
            assert!(
                got == want,
                "{name}: {mode:?} (no_precull {no_precull}, {storage:?}) on {used:?} differs from \
                 the baseline path: {} voxels, baseline {}",
                got.count(),
                want.count()
            );
        }
    }
    let paths: Vec<&str> = Isa::ALL.iter().map(|i| i.clamp_to_cpu().name()).collect();
    note(&format!("VOXEL_PATHS {name}: identical on {paths:?}, {marked} voxels over all cases"));
    marked
}

/// Random triangles of every size class (one voxel, ≤ 27-voxel batches,
/// tile-sized, larger than a tile, the whole grid) and the awkward ones, on a
/// non-dyadic grid `g`.
fn adversarial(g: &Grid, seed: u64) -> Mesh {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut m = Mesh::default();
    let (o, h) = (g.origin, g.voxel);
    let ext = Vec3::new(g.dims[0] as f32, g.dims[1] as f32, g.dims[2] as f32) * h;
    for it in 0..1500 {
        let mut p = || o + Vec3::new(rng.f32() * ext.x, rng.f32() * ext.y, rng.f32() * ext.z);
        let (a, b0, c0) = (p(), p(), p());
        // size classes: 0.3, 1.5, 5, 12 voxels and the whole grid
        let size = [0.3, 1.5, 5.0, 12.0, 1e3][it % 5] * h / ext.x.max(ext.y).max(ext.z);
        let (b, c) = (a + (b0 - a) * size, a + (c0 - a) * size);
        let axis = rng.usize(0..3);
        let n = rng.i64(0..g.dims[axis] as i64 + 1);
        let (lo, hi) = g.plane(axis, n);
        let on = |v: Vec3, x: f32| {
            let mut v = v;
            v.set(axis, x);
            v
        };
        match rng.u32(0..10) {
            // a face on the f32 below a grid plane, on the one above, one ulp beside
            0 => add(&mut m, on(a, lo), on(b, lo), on(c, lo)),
            1 => add(&mut m, on(a, hi), on(b, hi), on(c, hi)),
            2 => add(&mut m, on(a, lo.next_down()), on(b, lo.next_down()), on(c, lo.next_down())),
            3 => add(&mut m, on(a, hi.next_up()), on(b, hi.next_up()), on(c, hi.next_up())),
            // one vertex on a plane
            4 => add(&mut m, on(a, lo), b, c),
            // a sliver, a segment, a point
            5 => add(&mut m, a, b, a + (b - a) * 0.5 + Vec3::splat(1e-6 * h)),
            6 => add(&mut m, a, b, b),
            7 => add(&mut m, a, a, a),
            // axis-parallel edges
            8 => add(&mut m, a, Vec3::new(b.x, a.y, a.z), Vec3::new(a.x, c.y, a.z)),
            _ => add(&mut m, a, b, c),
        }
    }
    m
}

#[test]
fn adversarial_meshes_are_identical_on_every_path() {
    let grids = [
        // non-dyadic voxel near the origin
        Grid::new(Vec3::new(-1.1, -0.9, -1.05), 0.1 + 1e-7, [48, 40, 44]).unwrap(),
        // far from the origin, voxel 0.1 (not an f32)
        Grid::new(Vec3::new(1000.25, -3.0e3, 7.0), 0.1, [60, 50, 40]).unwrap(),
        // very far: coordinates where an f32 ulp is a large part of a voxel
        Grid::new(Vec3::new(3.0e5, -2.0e5, 1.0e5), 0.03, [40, 30, 50]).unwrap(),
        // tiny coordinates (voxel 7e-33: subnormal intermediates in f32)
        Grid::new(Vec3::new(3.0e-30, -1.0e-29, 0.0), 7.0e-33, [50, 40, 30]).unwrap(),
        // a dyadic grid: faces exactly on planes
        Grid::new(Vec3::new(-2.0, -2.0, -2.0), 0.125, [32, 32, 32]).unwrap(),
    ];
    for (i, g) in grids.iter().enumerate() {
        let marked =
            same_on_every_path(&format!("adversarial grid {i}"), &adversarial(g, i as u64), g);
        assert!(marked > 1000, "grid {i}: only {marked} voxels");
    }
}

#[test]
fn huge_and_out_of_grid_triangles_are_identical_on_every_path() {
    let g = Grid::new(Vec3::new(-1.0, -1.0, -1.0), 0.05, [40, 40, 40]).unwrap();
    let mut m = Mesh::default();
    // spanning far beyond the grid (f32 products near overflow), crossing it
    for s in [1e3f32, 1e12, 1e18, 3e37] {
        add(&mut m, Vec3::new(-s, -0.3, -s), Vec3::new(s, 0.2, -s), Vec3::new(0.0, 0.1, s));
        add(&mut m, Vec3::new(0.31, -s, -s), Vec3::new(0.3, s, 0.0), Vec3::new(0.3, 0.0, s));
    }
    // entirely outside, touching the border planes, straddling a corner
    add(&mut m, Vec3::new(5.0, 5.0, 5.0), Vec3::new(6.0, 5.0, 5.0), Vec3::new(5.0, 6.0, 5.0));
    add(&mut m, Vec3::new(1.0, -1.0, -1.0), Vec3::new(1.0, 1.0, -1.0), Vec3::new(1.0, 0.0, 1.0));
    add(
        &mut m,
        Vec3::new(-1.2, -0.9, -1.0),
        Vec3::new(-0.9, -1.2, -1.0),
        Vec3::new(-1.1, -1.1, -0.9),
    );
    let marked = same_on_every_path("huge and outside", &m, &g);
    assert!(marked > 1000, "only {marked} voxels");
}

#[test]
fn builtin_meshes_are_identical_on_every_path() {
    let meshes = [
        ("torus", builtin::torus(64, 24, 1.0, 0.35)),
        ("torus_knot", builtin::torus_knot(200, 16, 1.0)),
        ("cuboid", builtin::cuboid(Vec3::new(-0.5, -0.25, -0.75), Vec3::new(0.5, 0.25, 0.75))),
    ];
    for (name, m) in &meshes {
        let (lo, hi) = m.as_ref().bounds();
        for res in [24, 97, 256] {
            let g = Grid::fit(lo, hi, res, 1).unwrap();
            same_on_every_path(&format!("{name} {res}"), m, &g);
        }
    }
}

#[test]
fn shared_bunny_is_identical_on_every_path() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/bunny.obj");
    if !p.exists() {
        note(&format!(
            "SKIPPED: bunny.obj: {} not present (shared meshes are optional)",
            p.display()
        ));
        return;
    }
    let m = Mesh::load(&p).unwrap();
    let (lo, hi) = m.as_ref().bounds();
    for res in [128, 512] {
        let g = Grid::fit(lo, hi, res, 1).unwrap();
        same_on_every_path(&format!("bunny {res}"), &m, &g);
    }
}
