use super::ranges::{fast_ranges, tri_ranges16};
use super::setup::{tri_f64, TileExact, TriSetup};
use super::tile::{Tile, TileSetup};
use super::*;
use crate::simd::Baseline;
use crate::Vec3;
use wide::f64x8;

/// The two non-dyadic grids of the tile tests: voxel size just above 0.1
/// near the origin, and 0.1 (not an f32) far from it.
fn tile_grids() -> [Grid; 2] {
    [
        Grid::new(Vec3::new(-1.1, -0.9, -1.05), 0.1 + 1e-7, [24, 20, 22]).unwrap(),
        Grid::new(Vec3::new(1000.25, -3.0e3, 7.0), 0.1, [40, 30, 36]).unwrap(),
    ]
}

/// A seeded xorshift64 stream of f32 in `[0, 1)` (24-bit fractions).
fn unit_f32(mut rng: u64) -> impl FnMut() -> f32 {
    move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 40) as f32 / (1u32 << 24) as f32
    }
}

/// Collects marked voxels.
struct SetSink(Vec<[u32; 3]>);
impl Sink for SetSink {
    fn or_row(&mut self, i0: u32, j: u32, k: u32, bits: u32) {
        for l in 0..32 {
            if bits >> l & 1 != 0 {
                self.0.push([i0 + l, j, k]);
            }
        }
    }
}

/// `Tile::run_rows` (per-row intervals) gives exactly `Tile::run`'s
/// voxels (per-16-voxel tiles), after the f64 re-test and the kernel, on
/// tile-sized triangles of non-dyadic grids: random, slivers, faces on a
/// grid plane and one ulp off it, axis-aligned, nearly axis-parallel.
#[test]
fn run_rows_matches_tile_run() {
    let grids = tile_grids();
    let mut rnd = unit_f32(0x2545_f491_4f6c_dd1d);
    let (mut rows_used, mut total, mut voxels) = (0, 0, 0);
    // triangles whose axes run_rows takes in fixed places, and the others
    // (a face on a y or z grid plane: axes with f32(s_x) = 0 in ROW_LIN)
    let (mut fixed, mut split) = (0, 0);
    for g in &grids {
        let t = Tables::new(g);
        let h = g.voxel;
        let o = g.origin;
        for it in 0..3000 {
            let c = o
                + Vec3::new(g.dims[0] as f32, g.dims[1] as f32, g.dims[2] as f32) * (0.5 * h)
                + Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (8.0 * h);
            let mut d = || Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (7.0 * h);
            let (mut a, mut b, mut e) = (c + d(), c + d(), c + d());
            match it % 6 {
                // a face on the f32 below a grid plane, or one ulp above
                1 | 2 => {
                    let ax = it / 6 % 3;
                    let n = ((c.get(ax) - o.get(ax)) / h) as i64;
                    let (lo, hi) = g.plane(ax, n);
                    let z = if it % 6 == 1 { lo } else { hi.next_up() };
                    for v in [&mut a, &mut b, &mut e] {
                        v.set(ax, z);
                    }
                }
                // a sliver
                3 => e = a + (b - a) * 0.5 + Vec3::splat(1e-6 * h),
                // nearly parallel to x (tiny x components of some axes)
                4 => {
                    b.y = a.y + 1e-5 * h;
                    e.z = a.z - 3e-6 * h;
                }
                // one vertex (the lowest or highest in x) on the f32
                // below an x grid plane or one ulp above it: the x face
                // axis alone decides the end voxels of rows
                5 => {
                    let n = ((a.x - o.x) / h) as i64;
                    let (lo, hi) = g.plane(0, n);
                    a.x = if it / 6 % 2 == 0 { lo } else { hi.next_up() };
                    if it / 12 % 2 == 0 {
                        b.x = b.x.max(a.x);
                        e.x = e.x.max(a.x);
                    } else {
                        b.x = b.x.min(a.x);
                        e.x = e.x.min(a.x);
                    }
                }
                _ => {}
            }
            let tri = Triangle::new(a, b, e);
            let Some(r) = tri_ranges(&tri, &t) else { continue };
            let [(i0, i1), (j0, j1), (z0, z1)] = r;
            let count = (i1 - i0 + 1) as u64 * (j1 - j0 + 1) as u64 * (z1 - z0 + 1) as u64;
            if count <= PRECULL_MIN || count > TILE_MAX {
                continue;
            }
            let (lo, hi) = ([i0, j0, z0], [i1, j1, z1]);
            let Some(setup) = TileSetup::one(&tri, g, lo, hi) else {
                continue;
            };
            let tile = Tile::from_setup(&setup, 0, lo, hi);
            total += 1;
            let mut exact = || TileExact::new(&tri, g, lo);
            let mut pack = VoxPack::<Baseline>::new(&t, false);
            pack.start(&tri);
            let mut a_set = SetSink(Vec::new());
            tile.run(lo, hi, z0, z1, &mut exact, &mut pack, &mut a_set);
            pack.flush(&mut a_set);
            let mut b_set = SetSink(Vec::new());
            pack.start(&tri);
            if tile.run_rows(lo, hi, z0, z1, &mut exact, &mut pack, &mut b_set) {
                rows_used += 1;
                if setup.fixed {
                    fixed += 1;
                } else {
                    split += 1;
                }
                pack.flush(&mut b_set);
                a_set.0.sort_unstable();
                a_set.0.dedup();
                b_set.0.sort_unstable();
                b_set.0.dedup();
                assert_eq!(a_set.0, b_set.0, "{tri:?} on {g:?}");
                voxels += a_set.0.len();
            }
        }
    }
    // most tile-sized triangles take the rows path
    assert!(total > 2000 && rows_used * 10 > total * 8, "{rows_used} of {total}");
    // both ways of taking the axes are checked
    assert!(fixed > 1000 && split > 200, "{fixed} fixed, {split} split");
    assert!(voxels > 20 * rows_used, "{voxels} voxels");
}

/// The eight-lane setup of [`TileQueue`] gives every triangle the same
/// tile (bit for bit) and the same degenerate / fits decision as the
/// one-triangle setup, on random, sliver, degenerate (collinear, point),
/// axis-aligned and huge triangles of two non-dyadic grids.
#[test]
fn batched_setup_matches_scalar() {
    let grids = tile_grids();
    let mut rnd = unit_f32(0x9e37_79b9_7f4a_7c15);
    let (mut tiles, mut other) = (0, 0);
    for g in &grids {
        let h = g.voxel as f64;
        let o = [0, 1, 2].map(|a| g.origin.get(a) as f64);
        for it in 0..2000 {
            let mut tris = [Triangle::default(); 8];
            let mut ranges = [([0u32; 3], [0u32; 3]); 8];
            for (l, tri) in tris.iter_mut().enumerate() {
                let c = g.origin
                    + Vec3::new(g.dims[0] as f32, g.dims[1] as f32, g.dims[2] as f32)
                        * (0.5 * g.voxel)
                    + Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (8.0 * g.voxel);
                let mut d = || Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (7.0 * g.voxel);
                let (a, mut b, mut e) = (c + d(), c + d(), c + d());
                match (it + l) % 7 {
                    1 => e = a + (b - a) * 0.5,                               // collinear
                    2 => (b, e) = (a, a),                                     // a point
                    3 => e = a + (b - a) * 0.5 + Vec3::splat(1e-6 * g.voxel), // sliver
                    4 => (b.z, e.z) = (a.z, a.z),                             // z-parallel face
                    5 => (b, e) = (a + (b - a) * 1e30, a - (e - a) * 1e30),   // overflows f32
                    _ => {}
                }
                *tri = Triangle::new(a, b, e);
                let (lo, hi) = (
                    [0, 1, 2].map(|_| (rnd() * 8.0) as u32),
                    [0, 1, 2].map(|_| 8 + (rnd() * 9.0) as u32),
                );
                ranges[l] = (lo, hi);
            }
            let lanes = |f: &dyn Fn(usize) -> f64| f64x8::new(std::array::from_fn(f));
            let p = [0, 1, 2].map(|v| {
                [0, 1, 2].map(|k| lanes(&|l| [tris[l].a, tris[l].b, tris[l].c][v].get(k) as f64))
            });
            let bounds = tris.map(|tr| tri_bounds(&tr));
            let tb = [
                [0, 1, 2].map(|k| lanes(&|l| bounds[l].0.get(k) as f64)),
                [0, 1, 2].map(|k| lanes(&|l| bounds[l].1.get(k) as f64)),
            ];
            let lo = [0, 1, 2].map(|a| lanes(&|l| ranges[l].0[a] as f64));
            let d = [0, 1, 2].map(|a| lanes(&|l| (ranges[l].1[a] - ranges[l].0[a]) as f64));
            let s8 = TriSetup::new(p, h, o);
            let mut setup = TileSetup::new();
            setup.compute(&s8, &tb, g, lo, d);
            let used = (s8.ok(h) & setup.fits).to_bitmask();
            for (l, tri) in tris.iter().enumerate() {
                let (lo, hi) = ranges[l];
                let s1 = TriSetup::new(tri_f64(tri), h, o);
                let one = TileSetup::one(tri, g, lo, hi);
                assert_eq!(one.is_some(), used >> l & 1 != 0, "{tri:?}");
                assert_eq!(s1.ok(h), s8.ok(h).to_bitmask() >> l & 1 != 0, "{tri:?}");
                let Some(one) = one else {
                    other += 1;
                    continue;
                };
                // every value of the tile, bit for bit (f32)
                let (a, b) =
                    (Tile::from_setup(&one, 0, lo, hi), Tile::from_setup(&setup, l, lo, hi));
                for (va, vb) in [
                    (&one.b, &setup.b),
                    (&one.s[0], &setup.s[0]),
                    (&one.s[1], &setup.s[1]),
                    (&one.s[2], &setup.s[2]),
                    (&one.hin, &setup.hin),
                    (&one.hout, &setup.hout),
                ] {
                    for x in 0..13 {
                        assert_eq!(a.at(va, x).to_bits(), b.at(vb, x).to_bits(), "{tri:?}");
                    }
                }
                assert_eq!(a.lw, b.lw);
                tiles += 1;
            }
        }
    }
    assert!(tiles > 15000 && other > 3000, "{tiles} tiles, {other} other");
}

/// Grids for the range tests: non-dyadic voxels, far from the origin, at
/// `MAX_RES`, and a voxel of 7·10⁻³³.
fn range_test_grids() -> [Grid; 5] {
    [
        Grid::new(Vec3::new(-0.37, 0.11, -1.3), 0.013, [97, 64, 130]).unwrap(),
        Grid::new(Vec3::new(1000.25, -3.0e3, 7.0), 0.1, [512, 300, 8]).unwrap(),
        Grid::new(Vec3::new(0.0, 0.0, 0.0), 1.0 / 3.0, [24, 20, 22]).unwrap(),
        Grid::new(Vec3::new(-5.0e4, 2.5e4, 1.0e-3), 1.7, [crate::voxel::MAX_RES, 4000, 9]).unwrap(),
        Grid::new(Vec3::new(3.0e-30, -1.0e-29, 0.0), 7.0e-33, [1000, 77, 300]).unwrap(),
    ]
}

/// A coordinate on axis `a` of `g`: a grid plane's f32 bounds, one ulp
/// beside them, within 10⁻⁷..10⁻² voxel of a plane (where the fast
/// paths' margins decide), or anywhere in and around the grid.
fn range_test_coord(g: &Grid, a: usize, rng: &mut fastrand::Rng) -> f32 {
    let d = g.dims[a] as f64;
    let n = ((rng.f64() * (d + 4.0)) as i64 - 2).max(0);
    let (l, h) = g.plane(a, n);
    let o = g.origin.get(a) as f64;
    match rng.u32(0..24) {
        0 => l,
        1 => h,
        2 => l.next_down(),
        3 => h.next_up(),
        4..=11 => {
            let e = 10f64.powf(-7.0 + 5.0 * rng.f64()) * (rng.f64() - 0.5).signum();
            (o + (n as f64 + e) * g.voxel as f64) as f32
        }
        _ => (o + (rng.f64() * (d + 6.0) - 3.0) * g.voxel as f64) as f32,
    }
}

/// The exact answer: [`Tables::range`]'s table walks on each axis.
fn range_walks(t: &Tables, lo: Vec3, hi: Vec3) -> Option<Ranges> {
    Some([t.range(0, lo.x, hi.x)?, t.range(1, lo.y, hi.y)?, t.range(2, lo.z, hi.z)?])
}

/// The one-pass f64 ranges ([`fast_ranges`]) equal the exact table walks
/// wherever they answer, and answer often.
#[test]
fn fast_ranges_match_walks() {
    let mut rng = fastrand::Rng::with_seed(15);
    let (mut fast, mut total) = (0, 0);
    for g in &range_test_grids() {
        let t = Tables::new(g);
        for _ in 0..20_000 {
            let p = [0, 1].map(|_| [0, 1, 2].map(|a| range_test_coord(g, a, &mut rng)));
            let lo = Vec3::new(p[0][0].min(p[1][0]), p[0][1].min(p[1][1]), p[0][2].min(p[1][2]));
            let hi = Vec3::new(p[0][0].max(p[1][0]), p[0][1].max(p[1][1]), p[0][2].max(p[1][2]));
            total += 1;
            if let Some(r) = fast_ranges::<f64x8>(&t, lo, hi) {
                fast += 1;
                assert_eq!(r, range_walks(&t, lo, hi), "{lo:?} {hi:?} on {g:?}");
            }
        }
    }
    // the fast path must actually be exercised (most bounds on or next to
    // a plane fall back)
    assert!(fast * 20 > total, "{fast} of {total}");
}

/// [`tri_ranges16`] gives every lane the table walks' answer, and its
/// f32 proof (`fast_ranges16`) covers many lanes.
#[test]
fn ranges16_match_walks() {
    let mut rng = fastrand::Rng::with_seed(16);
    let (mut fast, mut total) = (0u32, 0u32);
    for g in &range_test_grids() {
        let t = Tables::new(g);
        for _ in 0..2_000 {
            let tris: [Triangle; 16] = std::array::from_fn(|_| {
                let mut v = || {
                    let [x, y, z] = [0, 1, 2].map(|a| range_test_coord(g, a, &mut rng));
                    Vec3::new(x, y, z)
                };
                Triangle::new(v(), v(), v())
            });
            let r16 = tri_ranges16::<Baseline>(&tris, &t);
            fast += r16.fast.count_ones();
            for (l, tri) in tris.iter().enumerate() {
                total += 1;
                let (lo, hi) = tri_bounds(tri);
                let walk = range_walks(&t, lo, hi);
                assert_eq!(r16.get(l, tri, &t), walk, "lane {l}: {tri:?} on {g:?}");
            }
        }
    }
    assert!(fast * 20 > total, "{fast} of {total}");
}
