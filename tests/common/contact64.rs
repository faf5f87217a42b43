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

/// Box axes (the columns of the rotation matrix) of the quaternion
/// `(x, y, z, w)`, normalised in f64 and rounded once.
pub fn quat_axes(q: [f64; 4]) -> [Vec3; 3] {
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    let [x, y, z, w] = q.map(|c| c / n);
    let col = |c: D3| Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32);
    [
        col([1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)]),
        col([2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)]),
        col([2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)]),
    ]
}

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

/// Distance between the segments `[p1, q1]` and `[p2, q2]` (f64, Ericson
/// §5.1.9 with its parallel case).
pub fn seg_seg_dist(p1: D3, q1: D3, p2: D3, q2: D3) -> f64 {
    let (d1, d2, r) = (sub(q1, p1), sub(q2, p2), sub(p1, p2));
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    let (s, t) = if a == 0.0 && e == 0.0 {
        (0.0, 0.0)
    } else if a == 0.0 {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = dot(d1, r);
        if e == 0.0 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let s = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    norm(sub(add_s(p1, d1, s), add_s(p2, d2, t)))
}

/// The 8 vertices of a box (f64).
pub fn box_vertices(o: &Obb) -> Vec<D3> {
    (0..8)
        .map(|v| {
            let mut p = d3(o.center);
            for i in 0..3 {
                let s = if v >> i & 1 == 1 { 1.0 } else { -1.0 };
                p = add_s(p, d3(o.axes[i]), s * o.half.get(i) as f64);
            }
            p
        })
        .collect()
}

/// The 12 edges of a box (f64): vertex pairs differing in one sign.
pub fn box_edges(o: &Obb) -> Vec<(D3, D3)> {
    let v = box_vertices(o);
    let mut e = Vec::with_capacity(12);
    for i in 0..8 {
        for bit in [1, 2, 4] {
            if i & bit == 0 {
                e.push((v[i], v[i | bit]));
            }
        }
    }
    e
}

/// Distance between two boxes known to be disjoint (f64): the closest pair
/// of two convex polytopes is a vertex against the other shape or two edges
/// (a face–face or edge–face pair also has a vertex at that distance).
pub fn box_box_distance(a: &Obb, b: &Obb) -> f64 {
    let mut d = f64::INFINITY;
    for p in box_vertices(a) {
        d = d.min(box_sd(b, p));
    }
    for p in box_vertices(b) {
        d = d.min(box_sd(a, p));
    }
    let eb = box_edges(b);
    for (p, q) in box_edges(a) {
        for &(r, s) in &eb {
            d = d.min(seg_seg_dist(p, q, r, s));
        }
    }
    d
}

/// Asserts that a pair's manifold far from the origin (`far`) matches the
/// one of the same shapes moved near it (`near`): contact in both or neither,
/// normals within 2⁻⁹ rad, deepest depths within `10⁻⁵·scale`. Returns
/// whether the pair has a contact.
pub fn same_contact_far_and_near(label: &str, far: &Manifold, near: &Manifold, scale: f64) -> bool {
    assert_eq!(far.count > 0.0, near.count > 0.0, "{label}");
    if near.count == 0.0 {
        return false;
    }
    let lean = far.normal.cross(near.normal).length().atan2(far.normal.dot(near.normal));
    assert!(lean <= 1.0 / 512.0, "{label}: normals {lean} rad apart");
    let (df, dn) = (far.max_depth().unwrap(), near.max_depth().unwrap());
    assert!((df - dn).abs() as f64 <= 1e-5 * scale, "{label}: depths {df} and {dn}");
    true
}
