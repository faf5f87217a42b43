//! f64 geometry shared by the box contact tests (`tests/contact_boxes.rs`,
//! `tests/contact_box_triangle.rs`): vector helpers, exact-ish rotations,
//! the box signed distance, and the bit pattern of a manifold.
#![allow(dead_code)]

use widephase::contact::Manifold;
use widephase::pack::{extract, LanePod};
use widephase::workload::SplitMix;
use widephase::{Obb, Vec3};

pub type D3 = [f64; 3];

pub fn d3(v: Vec3) -> D3 {
    [v.x as f64, v.y as f64, v.z as f64]
}
pub fn dot(a: D3, b: D3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn sub(a: D3, b: D3) -> D3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn add_s(a: D3, b: D3, s: f64) -> D3 {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}
pub fn cross(a: D3, b: D3) -> D3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
pub fn norm(a: D3) -> f64 {
    dot(a, a).sqrt()
}

/// Rotation matrix columns for a rotation of `angle` about unit `axis` (f64,
/// then rounded: the axes are orthonormal to f32 precision).
pub fn rot_axes(axis: D3, angle: f64) -> [Vec3; 3] {
    let l = norm(axis);
    let k = [axis[0] / l, axis[1] / l, axis[2] / l];
    let (s, c) = angle.sin_cos();
    let rot = |v: D3| -> Vec3 {
        let kv = cross(k, v);
        let kd = dot(k, v);
        let r = [
            v[0] * c + kv[0] * s + k[0] * kd * (1.0 - c),
            v[1] * c + kv[1] * s + k[1] * kd * (1.0 - c),
            v[2] * c + kv[2] * s + k[2] * kd * (1.0 - c),
        ];
        Vec3::new(r[0] as f32, r[1] as f32, r[2] as f32)
    };
    [rot([1.0, 0.0, 0.0]), rot([0.0, 1.0, 0.0]), rot([0.0, 0.0, 1.0])]
}

pub const I3: [Vec3; 3] = [Vec3::X, Vec3::Y, Vec3::Z];

pub fn obb(c: [f32; 3], axes: [Vec3; 3], h: [f32; 3]) -> Obb {
    Obb::new(Vec3::from_array(c), axes, Vec3::from_array(h))
}

pub fn random_axes(r: &mut SplitMix) -> [Vec3; 3] {
    let axis = [r.f() as f64 - 0.5, r.f() as f64 - 0.5, r.f() as f64 - 0.5 + 1e-3];
    rot_axes(axis, r.f() as f64 * std::f64::consts::TAU)
}

/// Signed distance from `p` to the box (f64): negative inside.
pub fn box_sd(b: &Obb, p: D3) -> f64 {
    let rel = sub(p, d3(b.center));
    let h = d3(b.half);
    let mut out = [0.0f64; 3];
    let mut inside = f64::NEG_INFINITY;
    for i in 0..3 {
        let l = dot(rel, d3(b.axes[i])).abs() - h[i];
        out[i] = l.max(0.0);
        inside = inside.max(l);
    }
    if inside > 0.0 {
        norm(out)
    } else {
        inside
    }
}

/// A manifold as raw bits (normal, count, every point: its 24 `f32` fields in
/// declaration order), to compare widths bit for bit.
pub fn bits(m: &Manifold) -> [u32; 24] {
    bytemuck::cast(*m)
}

/// Every case through width `L` in every lane position (other lanes hold
/// other cases), compared bit for bit with the scalar manifold.
pub fn widths_match<L: LanePod, S: Copy>(
    cases: &[S],
    step: usize,
    scalar: impl Fn(&S) -> Manifold,
    wide: impl Fn(&[S]) -> Manifold<L>,
) {
    let n = cases.len();
    let expect: Vec<[u32; 24]> = cases.iter().map(|c| bits(&scalar(c))).collect();
    for i in (0..n).step_by(step) {
        for pos in 0..L::WIDTH {
            let idx: Vec<usize> =
                (0..L::WIDTH).map(|j| if j == pos { i } else { (i + 7 * j + 1) % n }).collect();
            let lanes: Vec<S> = idx.iter().map(|&j| cases[j]).collect();
            let m = wide(&lanes);
            for (j, &c) in idx.iter().enumerate() {
                assert_eq!(
                    bits(&extract::<Manifold, L>(&m, j)),
                    expect[c],
                    "width {} lane {j} case {c}",
                    L::WIDTH
                );
            }
        }
    }
}
