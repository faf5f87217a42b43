//! Tiles of a grid against the whole-grid voxelizer: every tile holds exactly
//! the whole grid's voxels inside it, for tilings that do not divide the
//! grid, in surface and thin mode, on dense and sparse whole-grid storage.

use std::collections::HashSet;
use widephase::voxel::{
    builtin, voxelize, voxelize_tile, Grid, Mesh, Mode, Options, Storage, Tile, TileIndex,
};
use widephase::Vec3;

fn whole(m: &Mesh, g: &Grid, mode: Mode, storage: Storage) -> HashSet<[u32; 3]> {
    let opts = Options { mode, storage, ..Options::default() };
    voxelize(m.as_ref(), g, &opts).unwrap().set.indices().into_iter().collect()
}

fn check_tiling(m: &Mesh, g: &Grid, size: [u32; 3], mode: Mode) {
    let index = TileIndex::new(m.as_ref()).unwrap();
    let want = whole(m, g, mode, Storage::Dense);
    assert_eq!(want, whole(m, g, mode, Storage::Sparse));
    let mut union = HashSet::new();
    let tiles = Tile::tiling(g, size);
    for t in &tiles {
        let got = voxelize_tile(m.as_ref(), &index, g, t, mode).unwrap();
        assert_eq!(got.bits.dims, t.dims());
        let inside: HashSet<[u32; 3]> = want
            .iter()
            .copied()
            .filter(|v| (0..3).all(|a| v[a] >= t.lo[a] && v[a] < t.hi[a]))
            .collect();
        let idx = got.indices();
        assert!(idx.windows(2).all(|w| (w[0][2], w[0][1], w[0][0]) < (w[1][2], w[1][1], w[1][0])));
        let set: HashSet<[u32; 3]> = idx.into_iter().collect();
        assert_eq!(set, inside, "tile {t:?}, {mode:?}");
        assert_eq!(got.count(), set.len() as u64);
        union.extend(set);
    }
    assert_eq!(union, want, "union of {} tiles of {size:?}", tiles.len());
    // the tiles the index calls occupied include every tile with a voxel
    let occupied = index.occupied_tiles(g, size).unwrap();
    assert!(occupied
        .windows(2)
        .all(|w| (w[0].lo[2], w[0].lo[1], w[0].lo[0]) < (w[1].lo[2], w[1].lo[1], w[1].lo[0])));
    for t in &tiles {
        let has = want.iter().any(|v| (0..3).all(|a| v[a] >= t.lo[a] && v[a] < t.hi[a]));
        assert!(!has || occupied.contains(t), "tile {t:?} has voxels but is not listed occupied");
    }
}

#[test]
fn tilings_that_do_not_divide_the_grid_equal_the_whole_grid() {
    let torus = builtin::by_name("torus").unwrap();
    let knot = builtin::by_name("knot").unwrap();
    for (m, res, pad) in [(&torus, 61, 2), (&knot, 50, 0)] {
        let (lo, hi) = m.as_ref().bounds();
        let g = Grid::fit(lo, hi, res, pad).unwrap();
        for size in [[17, 23, 13], [64, 64, 64], [1, 40, 9], [8, 8, 8]] {
            for mode in [Mode::Surface, Mode::Thin] {
                check_tiling(m, &g, size, mode);
            }
        }
    }
    // tiles wider than a word whose x start is not a multiple of 8: the
    // window's x clipping shifts runs to every bit offset of the tile's
    // rows, some across two words
    let (lo, hi) = knot.as_ref().bounds();
    let g = Grid::fit(lo, hi, 170, 1).unwrap();
    for size in [[75, 41, 37], [131, 9, 64]] {
        for mode in [Mode::Surface, Mode::Thin] {
            check_tiling(&knot, &g, size, mode);
        }
    }
}

#[test]
fn tiles_far_from_the_origin_and_on_grid_planes() {
    // coordinates around 3·10⁴ (ulps of 2⁻⁹) and a cube whose faces lie on
    // grid planes: the index's margin and the exact planes both matter
    let far = builtin::cuboid(Vec3::splat(30000.25), Vec3::splat(30001.75));
    let g = Grid::new(Vec3::splat(30000.0), 0.125, [20, 20, 20]).unwrap();
    check_tiling(&far, &g, [5, 7, 3], Mode::Surface);
    let cube = builtin::cuboid(Vec3::splat(0.25), Vec3::splat(0.75));
    let g = Grid::new(Vec3::ZERO, 0.0625, [16, 16, 16]).unwrap();
    check_tiling(&cube, &g, [4, 4, 4], Mode::Surface);
    check_tiling(&cube, &g, [3, 5, 16], Mode::Thin);
}

#[test]
fn large_oblique_triangles_cut_by_tiles() {
    // a tetrahedron and a sliver whose triangles span most of the grid: each
    // triangle takes the large-range (column) path in every tile it crosses,
    // and the tiles keep only their own part of its voxels
    let v = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
    let m = Mesh {
        vertices: vec![
            v(0.1, 0.2, 0.05),
            v(0.93, 0.11, 0.31),
            v(0.47, 0.97, 0.22),
            v(0.52, 0.43, 0.96),
            v(0.02, 0.98, 0.9),
            v(0.99, 0.01, 0.13),
        ],
        indices: vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2], [4, 5, 3]],
    };
    let (lo, hi) = m.as_ref().bounds();
    let g = Grid::fit(lo, hi, 90, 1).unwrap();
    for size in [[13, 29, 7], [64, 1, 64], [92, 92, 1], [5, 90, 33]] {
        for mode in [Mode::Surface, Mode::Thin] {
            check_tiling(&m, &g, size, mode);
        }
    }
}

#[test]
fn shared_bunny_tiles_equal_the_whole_grid() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/bunny.obj");
    if !path.exists() {
        println!("SKIPPED: {} not found (shared meshes are beside the repository on developer machines and CI)", path.display());
        return;
    }
    let m = Mesh::load(&path).unwrap();
    let (lo, hi) = m.as_ref().bounds();
    let g = Grid::fit(lo, hi, 200, 1).unwrap();
    check_tiling(&m, &g, [77, 64, 45], Mode::Surface);
}

#[test]
fn tile_errors() {
    let m = builtin::by_name("torus").unwrap();
    let (lo, hi) = m.as_ref().bounds();
    let g = Grid::fit(lo, hi, 32, 0).unwrap();
    let index = TileIndex::new(m.as_ref()).unwrap();
    let t = Tile { lo: [0, 0, 0], hi: [8, 8, 8] };
    let err = voxelize_tile(m.as_ref(), &index, &g, &t, Mode::Solid).unwrap_err();
    assert!(err.to_string().contains("solid mode is not available tile by tile"), "{err}");
    for bad in [Tile { lo: [0, 0, 0], hi: [0, 8, 8] }, Tile { lo: [0, 0, 30], hi: [8, 8, 33] }] {
        let err = voxelize_tile(m.as_ref(), &index, &g, &bad, Mode::Surface).unwrap_err();
        assert!(err.to_string().contains("outside the grid"), "{err}");
    }
    // a tile above the dense limit is refused by name, before any work
    let cube = builtin::by_name("cube").unwrap();
    let huge = Grid::new(Vec3::ZERO, 1.0 / 4096.0, [4096; 3]).unwrap();
    let cube_index = TileIndex::new(cube.as_ref()).unwrap();
    let whole = Tile { lo: [0; 3], hi: [4096; 3] };
    let err = voxelize_tile(cube.as_ref(), &cube_index, &huge, &whole, Mode::Surface).unwrap_err();
    assert!(
        err.to_string().contains("tile of [4096, 4096, 4096] voxels is above the dense limit"),
        "{err}"
    );
    let other = builtin::by_name("cube").unwrap();
    let err = voxelize_tile(other.as_ref(), &index, &g, &t, Mode::Surface).unwrap_err();
    assert!(err.to_string().contains("tile index was built for"), "{err}");
    let mut nan = m.clone();
    nan.vertices[0].x = f32::NAN;
    assert!(TileIndex::new(nan.as_ref()).is_err());
}

#[test]
fn occupied_tiles_are_refused_above_the_listing_cap() {
    // one-voxel tiles of a 65536³ torus: the triangles' tile ranges count
    // trillions of tiles, refused before any is listed
    let m = builtin::torus(48, 24, 1.0, 0.35);
    let (lo, hi) = m.as_ref().bounds();
    let g = Grid::fit(lo, hi, 65536, 0).unwrap();
    let index = TileIndex::new(m.as_ref()).unwrap();
    let e = index.occupied_tiles(&g, [1, 1, 1]).unwrap_err().to_string();
    assert!(e.contains("use larger tiles") && e.contains("16777216"), "{e}");
    assert!(!index.occupied_tiles(&g, [4096, 4096, 4096]).unwrap().is_empty());
}
