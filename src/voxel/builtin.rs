//! Procedural example meshes, so the CLI and docs need no file.

use super::mesh::Mesh;
use crate::math::Vec3;

/// A closed, watertight torus around the z axis: `major` segments around,
/// `minor` around the tube, radii `r_major > r_minor > 0`. Consistently wound
/// (outward normals), every edge shared by exactly two triangles.
pub fn torus(major: u32, minor: u32, r_major: f32, r_minor: f32) -> Mesh {
    tube(major, minor, r_minor, |t| {
        let (s, c) = (t as f64).sin_cos();
        [r_major as f64 * c, r_major as f64 * s, 0.0]
    })
}

/// A closed (2, 3) torus knot tube of radius `r` around the curve
/// `((2 + cos 3t) cos 2t, (2 + cos 3t) sin 2t, sin 3t)`; watertight.
pub fn torus_knot(segments: u32, sides: u32, r: f32) -> Mesh {
    tube(segments, sides, r, |t| {
        let t = t as f64;
        let q = 2.0 + (3.0 * t).cos();
        [q * (2.0 * t).cos(), q * (2.0 * t).sin(), (3.0 * t).sin()]
    })
}

/// A closed tube of radius `r` along the closed curve `f(t)`, `t ∈ [0, 2π)`,
/// with a rotation-minimising-ish frame from finite differences.
fn tube(n: u32, m: u32, r: f32, f: impl Fn(f32) -> [f64; 3]) -> Mesh {
    let (n, m) = (n.max(3), m.max(3));
    let mut vertices = Vec::with_capacity((n * m) as usize);
    let tau = std::f64::consts::TAU;
    for i in 0..n {
        let t = tau * i as f64 / n as f64;
        let p = f(t as f32);
        let dt = 1e-3;
        let p1 = f((t + dt) as f32);
        let p0 = f((t - dt) as f32);
        let tan = norm([p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]]);
        // normal: component of z (or x) orthogonal to the tangent
        let up = if tan[2].abs() < 0.9 { [0.0, 0.0, 1.0] } else { [1.0, 0.0, 0.0] };
        let b = norm(cross(tan, up));
        let nn = cross(b, tan);
        for j in 0..m {
            let a = tau * j as f64 / m as f64;
            let (s, c) = a.sin_cos();
            let q = [0, 1, 2].map(|k| p[k] + r as f64 * (c * b[k] + s * nn[k]));
            vertices.push(Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32));
        }
    }
    let mut indices = Vec::with_capacity((2 * n * m) as usize);
    for i in 0..n {
        for j in 0..m {
            let a = i * m + j;
            let b = ((i + 1) % n) * m + j;
            let c = ((i + 1) % n) * m + (j + 1) % m;
            let d = i * m + (j + 1) % m;
            indices.push([a, b, c]);
            indices.push([a, c, d]);
        }
    }
    Mesh { vertices, indices }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn norm(a: [f64; 3]) -> [f64; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// An axis-aligned closed box mesh (12 triangles) with corners `lo`, `hi`.
pub fn cuboid(lo: Vec3, hi: Vec3) -> Mesh {
    let v = |x: bool, y: bool, z: bool| {
        Vec3::new(
            if x { hi.x } else { lo.x },
            if y { hi.y } else { lo.y },
            if z { hi.z } else { lo.z },
        )
    };
    let vertices: Vec<Vec3> = (0..8).map(|i| v(i & 1 != 0, i & 2 != 0, i & 4 != 0)).collect();
    let quads =
        [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let mut indices = Vec::new();
    for q in quads {
        indices.push([q[0], q[1], q[2]]);
        indices.push([q[0], q[2], q[3]]);
    }
    Mesh { vertices, indices }
}

/// A builtin mesh by name: `torus`, `knot` (torus knot) or `cube`.
pub fn by_name(name: &str) -> Option<Mesh> {
    match name {
        "torus" => Some(torus(96, 48, 1.0, 0.35)),
        "knot" | "torus_knot" => Some(torus_knot(512, 32, 0.4)),
        "cube" => Some(cuboid(Vec3::splat(0.0), Vec3::splat(1.0))),
        _ => None,
    }
}
