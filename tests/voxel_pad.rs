//! Padding only shifts indices: a fitted grid with `pad` empty voxels on
//! every side has the planes of the unpadded grid, so every mode marks the
//! unpadded grid's voxels shifted by `pad` on every axis, also for faces
//! lying exactly on grid planes (where a plane moved by one ulp changes which
//! voxels a face touches).

use widephase::voxel::{self, grid::plane_bounds, Grid, Mesh, Mode, Options};
use widephase::Vec3;

const MODES: [Mode; 3] = [Mode::Surface, Mode::Thin, Mode::Solid];
const PADS: [u32; 3] = [1, 3, 17];

/// The two triangles of the quad `p, p + u, p + u + v, p + v`.
fn quad(m: &mut Mesh, p: Vec3, u: Vec3, v: Vec3) {
    let b = m.vertices.len() as u32;
    m.vertices.extend([p, p + u, p + u + v, p + v]);
    m.indices.extend([[b, b + 1, b + 2], [b, b + 2, b + 3]]);
}

/// The closed box `[min, max]` (outward faces) plus, for each axis, the
/// interior quads at the coordinates `cuts[axis]` spanning the box's other
/// two axes: faces on grid planes when the cuts are plane values.
fn box_with_cuts(min: Vec3, max: Vec3, cuts: [&[f32]; 3]) -> Mesh {
    let mut m = Mesh { vertices: Vec::new(), indices: Vec::new() };
    for (a, cut) in cuts.iter().enumerate() {
        let (u, v) = ((a + 1) % 3, (a + 2) % 3);
        let e = |k: usize, x: f32| {
            let mut r = Vec3::ZERO;
            r.set(k, x);
            r
        };
        let du = e(u, max.get(u) - min.get(u));
        let dv = e(v, max.get(v) - min.get(v));
        // the box's two faces normal to `a` (the far one reversed: outward)
        let mut p = min;
        quad(&mut m, p, dv, du);
        p.set(a, max.get(a));
        quad(&mut m, p, du, dv);
        for &c in *cut {
            let mut p = min;
            p.set(a, c);
            quad(&mut m, p, du, dv);
        }
    }
    // (the far faces' corners `min + du + dv` can round above `max`: snap
    // them so the bounding box is exactly `[min, max]`)
    for q in &mut m.vertices {
        *q = q.min(max).max(min);
    }
    m
}

/// The marked voxels of `m` on `g`, sorted.
fn marked(m: &Mesh, g: &Grid, mode: Mode) -> Vec<[u32; 3]> {
    let opts = Options { mode, ..Options::default() };
    let mut v = voxel::voxelize(m.as_ref(), g, &opts).unwrap().set.indices();
    v.sort_unstable();
    v
}

/// Checks the rule for `m` on the grids `grid(pad)`: the marked voxels of
/// every mode inside the unpadded grid's window are those of pad 0 shifted by
/// `pad`; outside it (faces on the window's border planes touch the closed
/// voxels beyond it) they lie in the layer around the window and are the
/// same for every `pad ≥ 1`, shifted; and the grid has the same voxel size,
/// dims grown by `2·pad` and the same planes shifted by `pad`. `Err` names
/// the first difference.
fn check(m: &Mesh, grid: &dyn Fn(u32) -> Grid, modes: &[Mode]) -> Result<(), String> {
    let g0 = grid(0);
    let base: Vec<_> = modes.iter().map(|&mode| marked(m, &g0, mode)).collect();
    let mut border: Vec<Option<Vec<[u32; 3]>>> = vec![None; modes.len()];
    for pad in PADS {
        let g = grid(pad);
        // the voxels first (what a user sees), then the grid's geometry
        for (x, (mode, want)) in modes.iter().zip(&base).enumerate() {
            let got = marked(m, &g, *mode);
            let inside = |v: &[u32; 3]| (0..3).all(|a| v[a] >= pad && v[a] < pad + g0.dims[a]);
            let (got_in, got_out): (Vec<[u32; 3]>, Vec<[u32; 3]>) =
                got.iter().partition(|v| inside(v));
            let shifted: Vec<[u32; 3]> = want.iter().map(|v| v.map(|x| x + pad)).collect();
            if got_in != shifted {
                let extra = got_in.iter().filter(|v| !shifted.contains(v)).count();
                let missing = shifted.iter().filter(|v| !got_in.contains(v)).count();
                return Err(format!(
                    "pad {pad}, {mode:?}: {} voxels in the window, {} expected ({extra} extra, {missing} missing)",
                    got_in.len(),
                    shifted.len()
                ));
            }
            if let Some(v) =
                got_out.iter().find(|v| (0..3).any(|a| v[a] + 1 < pad || v[a] > pad + g0.dims[a]))
            {
                return Err(format!("pad {pad}, {mode:?}: voxel {v:?} is beyond the border layer"));
            }
            let out1: Vec<[u32; 3]> = got_out.iter().map(|v| v.map(|x| x + 1 - pad)).collect();
            match &border[x] {
                Some(b) if *b != out1 => {
                    return Err(format!(
                        "pad {pad}, {mode:?}: the border layer differs from pad 1's"
                    ))
                }
                Some(_) => {}
                None => border[x] = Some(out1),
            }
        }
        if g.voxel != g0.voxel || g.dims != g0.dims.map(|d| d + 2 * pad) {
            return Err(format!("pad {pad}: grid {g:?} is not {g0:?} padded"));
        }
        for a in 0..3 {
            for n in 0..=g0.dims[a] as i64 {
                if g.plane(a, n + pad as i64) != g0.plane(a, n) {
                    return Err(format!("pad {pad}: plane {n} of axis {a} moved"));
                }
            }
        }
    }
    Ok(())
}

/// The f32 values of the planes `min + k·h` that are f32 numbers (faces on
/// them lie exactly on the plane), else their lower bound.
fn cuts(min: f32, h: f32, ks: &[i64]) -> Vec<f32> {
    ks.iter().map(|&k| plane_bounds(min, h, k).0).collect()
}

/// A box at `min` of about `ext` per axis fitted at resolution `res`, with
/// interior faces on its grid planes 1, 2 and `res - 1`.
fn res_case(min: Vec3, ext: Vec3, res: u32) -> (Mesh, Box<dyn Fn(u32) -> Grid>) {
    let max = min + ext;
    let h = Grid::fit(min, max, res, 0).unwrap().voxel;
    let ks = [1, 2, res as i64 - 1];
    let c = [0, 1, 2].map(|a| {
        cuts(min.get(a), h, &ks).into_iter().filter(|&x| x > min.get(a) && x < max.get(a)).collect()
    });
    let c: [Vec<f32>; 3] = c;
    let m = box_with_cuts(min, max, [&c[0], &c[1], &c[2]]);
    let (lo, hi) = m.as_ref().bounds();
    (m, Box::new(move |pad| Grid::fit(lo, hi, res, pad).unwrap()))
}

/// A box from `min` to the plane `min + n·h` (its lower bound) of voxel size
/// `h`, with interior faces on planes 1 and `n - 1`, fitted by voxel size.
fn voxel_case(min: Vec3, h: f32, n: [i64; 3]) -> (Mesh, Box<dyn Fn(u32) -> Grid>) {
    let max = Vec3::new(
        plane_bounds(min.x, h, n[0]).0,
        plane_bounds(min.y, h, n[1]).0,
        plane_bounds(min.z, h, n[2]).0,
    );
    let c: [Vec<f32>; 3] = [0, 1, 2].map(|a| {
        cuts(min.get(a), h, &[1, n[a] - 1])
            .into_iter()
            .filter(|&x| x > min.get(a) && x < max.get(a))
            .collect()
    });
    let m = box_with_cuts(min, max, [&c[0], &c[1], &c[2]]);
    let (lo, hi) = m.as_ref().bounds();
    (m, Box::new(move |pad| Grid::fit_voxel(lo, hi, h, pad).unwrap()))
}

/// A random coordinate: ordinary, near 1e6, or tiny.
fn coord(rng: &mut fastrand::Rng) -> f32 {
    match rng.u32(0..3) {
        0 => (rng.f32() - 0.5) * 10.0,
        1 => 1.0e6 + rng.f32() * 1000.0,
        _ => (rng.f32() - 0.5) * 1.0e-30,
    }
}

/// Randomized search (the fixed cases below came from it): boxes with faces
/// on grid planes, both fitting functions, every mode.
#[test]
fn randomized_faces_on_grid_planes_shift_with_pad() {
    let mut rng = fastrand::Rng::with_seed(0x5eed_f9ad);
    let mut failures = Vec::new();
    for it in 0..120 {
        let min = Vec3::new(coord(&mut rng), coord(&mut rng), coord(&mut rng));
        let scale = min.abs().max_element().max(1.0e-30);
        let (m, grid) = if it % 2 == 0 {
            let ext = Vec3::new(rng.f32() + 0.1, rng.f32() + 0.1, rng.f32() + 0.1)
                * (scale * 0.01).max(1.0e-29);
            res_case(min, ext, rng.u32(3..24))
        } else {
            let h = [0.1, 0.3, 0.7 * scale * 1e-3, scale * (rng.f32() + 0.01) * 1e-3]
                [rng.usize(0..4)]
            .max(scale * 1e-5);
            let n = [0, 1, 2].map(|_| rng.i64(2..14));
            voxel_case(min, h, n)
        };
        if let Err(e) = check(&m, &*grid, &MODES) {
            failures.push(format!("case {it} (min {min:?}): {e}"));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Fixed cases of the search: non-dyadic voxel sizes (0.1, 0.3 and fitted
/// ones), ordinary, 1e6-offset and tiny (1e-31) coordinates; faces on the
/// box's planes and on interior grid planes. Each failed before the planes
/// were measured from the unpadded base (the padded origin `min − pad·h` was
/// rounded to f32, moving every plane by up to an ulp).
#[test]
fn faces_on_grid_planes_shift_with_pad() {
    let cases: [(Vec3, f32, [i64; 3]); 5] = [
        (Vec3::new(-1.4120859, -4.8040524, 0.4202187), 0.1, [5, 7, 3]),
        (Vec3::new(-4.070216, 3.138677, 4.9484677), 0.1, [6, 3, 4]),
        (Vec3::new(-0.21171689, 7.9503597e-32, -3.4875956), 0.3, [4, 9, 3]),
        (Vec3::new(1.0e6 + 0.75, -2.3188777, 1.0e6 + 93.3), 10.0, [4, 6, 5]),
        (Vec3::new(0.3, 0.6, -0.9), 0.3, [3, 3, 3]),
    ];
    let mut failures = Vec::new();
    for (min, h, n) in cases {
        let (m, grid) = voxel_case(min, h, n);
        if let Err(e) = check(&m, &*grid, &MODES) {
            failures.push(format!("fit_voxel min {min:?} h {h}: {e}"));
        }
    }
    let res_cases: [(Vec3, Vec3, u32); 4] = [
        (Vec3::new(0.025914907, 2.4037285, -1.2700588e-31), Vec3::new(0.7, 0.3, 0.45), 17),
        (Vec3::new(-2.7428608, -2.5232506, 1.0e6 + 578.94), Vec3::new(4.1, 2.7, 3.3), 11),
        (Vec3::new(2.5e-31, 8.9e-32, -3.8e-31), Vec3::new(3.1e-31, 1.7e-31, 2.2e-31), 9),
        (Vec3::new(1.0e6 + 10.7, 2.8e-31, 4.6e-31), Vec3::new(1.0e4, 0.6e4, 0.8e4), 7),
    ];
    for (min, ext, res) in res_cases {
        let (m, grid) = res_case(min, ext, res);
        if let Err(e) = check(&m, &*grid, &MODES) {
            failures.push(format!("fit min {min:?} res {res}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
