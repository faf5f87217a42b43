//! Voxelizer geometry at the edges: zero-area triangles in thin mode, and
//! the streaming solid pass against the grid-per-axis vote it replaced.

use widephase::voxel::{self, Grid, Mesh, Mode, Options, Storage};
use widephase::Vec3;

fn run(m: &Mesh, g: &Grid, mode: Mode, storage: Storage) -> Vec<[u32; 3]> {
    let o = Options { mode, storage, ..Options::default() };
    voxel::voxelize(m.as_ref(), g, &o).unwrap().set.indices()
}

/// A zero-area triangle (a segment, or a point) is kept by thin mode as the
/// voxels it touches, exactly as surface mode marks them; it used to vanish
/// (no axis segment crosses a triangle parallel to every axis).
#[test]
fn thin_mode_keeps_degenerate_triangles_as_segments_and_points() {
    let v = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
    let g = Grid::new(v(0.0, 0.0, 0.0), 0.25, [16, 16, 16]).unwrap();
    let cases = [
        ("segment", vec![v(0.3, 0.4, 0.5), v(3.1, 2.2, 1.7), v(3.1, 2.2, 1.7)]),
        // (dyadic coordinates: collinear in f32 too, not a sliver)
        ("collinear", vec![v(0.375, 0.5, 0.5), v(1.625, 1.25, 1.0), v(2.875, 2.0, 1.5)]),
        ("point", vec![v(1.3, 2.6, 0.9), v(1.3, 2.6, 0.9), v(1.3, 2.6, 0.9)]),
    ];
    for (name, verts) in cases {
        let m = Mesh { vertices: verts, indices: vec![[0, 1, 2]] };
        for storage in [Storage::Dense, Storage::Sparse] {
            let surface = run(&m, &g, Mode::Surface, storage);
            let thin = run(&m, &g, Mode::Thin, storage);
            assert!(!surface.is_empty(), "{name}");
            assert_eq!(thin, surface, "{name} {storage:?}");
        }
    }
    // next to a real triangle, thin mode still thins the real one
    let m = Mesh {
        vertices: vec![
            v(0.1, 0.1, 2.05),
            v(3.9, 0.2, 2.1),
            v(0.2, 3.9, 1.95),
            v(0.3, 0.4, 0.5),
            v(3.1, 2.2, 0.7),
        ],
        indices: vec![[0, 1, 2], [3, 4, 4]],
    };
    let real = Mesh { vertices: m.vertices.clone(), indices: vec![[0, 1, 2]] };
    let seg = Mesh { vertices: m.vertices.clone(), indices: vec![[3, 4, 4]] };
    let mut want = run(&real, &g, Mode::Thin, Storage::Dense);
    want.extend(run(&seg, &g, Mode::Surface, Storage::Dense));
    want.sort_unstable_by_key(|p| (p[2], p[1], p[0]));
    want.dedup();
    assert_eq!(run(&m, &g, Mode::Thin, Storage::Dense), want);
    assert!(
        run(&real, &g, Mode::Thin, Storage::Dense).len()
            < run(&real, &g, Mode::Surface, Storage::Dense).len()
    );
}
