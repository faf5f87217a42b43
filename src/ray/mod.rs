//! Lines, rays and segments against the primitives, and the point-containment
//! and plane-intersection tests that go with them (Ericson, *Real-Time Collision
//! Detection*, §5.3–5.4; seeds `000` §5.3, `002`, `003`).
//!
//! Three kernels are **lane-generic** (one code path for the scalar `f32` API and
//! every SIMD width, bit-identical by construction):
//! [`ray_aabb`] (with [`ray_aabb_conservative`] and the precomputed
//! [`RayPrecomp`] path), [`ray_triangle`] (watertight, Woop–Benthin–Wald 2013)
//! and [`ray_sphere`]. The rest of the catalogue is scalar.
//!
//! Conventions shared by every function here (beyond the crate
//! [contracts](crate#contracts)):
//! - A [`Ray`] is `origin + t·dir`, `t ∈ [t_min, t_max]`, with `t` in
//!   units of `dir` (which need not be unit length). A segment `[a, b]` is the
//!   ray `a + t·(b - a)`, `t ∈ [0, 1]`.
//! - A hit reports the **smallest** `t` of the closed interval at which the ray
//!   meets the closed shape; a ray starting inside a solid shape reports `t_min`.
//! - A valid ray has finite origin and direction, `t_min <= t_max`,
//!   `t_min < +∞` and `t_max > -∞` (`t_min = -∞` / `t_max = +∞` make a line).
//!   An interval `[+∞, +∞]` contains no real `t` and is treated as empty.

mod plane_plane;
mod point_polygon;
mod point_polyhedron;
mod point_triangle;
mod ray_aabb;
mod ray_capsule;
mod ray_cylinder;
mod ray_obb;
mod ray_polygon;
mod ray_sphere;
mod ray_triangle;
mod segment_2d;
mod segment_aabb;
mod segment_plane;

pub use plane_plane::*;
pub use point_polygon::*;
pub use point_polyhedron::*;
pub use point_triangle::*;
pub use ray_aabb::*;
pub use ray_capsule::*;
pub use ray_cylinder::*;
pub use ray_obb::*;
pub use ray_polygon::*;
pub use ray_sphere::*;
pub use ray_triangle::*;
pub use segment_2d::*;
pub use segment_aabb::*;
pub use segment_plane::*;

use crate::lane::Lane;
use crate::shapes::Ray;

/// Lanes holding a valid ray: [`Ray::is_valid`](crate::Ray::is_valid) (finite
/// origin and direction, `t_min <= t_max`, no NaN) and additionally
/// `t_min < +∞`, `t_max > -∞`, so that the interval contains a real number.
#[inline(always)]
pub(crate) fn ray_valid<L: Lane>(ray: &Ray<L>) -> L::Mask {
    ray.is_valid()
        & ray.t_min.lt(L::splat(f32::INFINITY))
        & ray.t_max.gt(L::splat(f32::NEG_INFINITY))
}

/// The `t` reported for a hit at the start of the interval: `t_min` clamped to be
/// finite (a line, `t_min = -∞`, that meets a shape with a zero-length direction
/// reports `-f32::MAX`), per the degenerate-ray rule of the contracts.
#[inline(always)]
pub(crate) fn finite_t<L: Lane>(t: L) -> L {
    t.max(L::splat(f32::MIN)).min(L::splat(f32::MAX))
}

/// A lane mask from per-lane booleans (lane `i` = `b[i]`), built with a
/// comparison so it works for every width.
#[inline(always)]
pub(crate) fn mask_from_bools<L: Lane>(b: &[bool]) -> L::Mask {
    let mut buf = [0.0f32; 16];
    for (o, &x) in buf.iter_mut().zip(b) {
        *o = if x { 1.0 } else { 0.0 };
    }
    L::load(&buf[..L::WIDTH]).eq(L::splat(1.0))
}

/// Exact sign of a sum of f64 terms (Shewchuk's `grow_expansion` with the
/// error-free `TwoSum`): the terms are accumulated into a non-overlapping
/// expansion whose exact value is their sum, and its sign is the sign of its
/// largest non-zero component. Callers pass products of two `f32`, which are
/// exact in f64 (24 + 24 < 53 significant bits, and the exponent range of f64
/// covers every product of f32, subnormals included), so signs of 2D
/// orientations and plane tests are exact. Inputs must be finite.
pub(crate) fn exact_sign_sum(terms: &[f64]) -> core::cmp::Ordering {
    let mut e: Vec<f64> = Vec::with_capacity(terms.len() * 2);
    for &b in terms {
        let mut q = b;
        let mut out = Vec::with_capacity(e.len() + 1);
        for &x in &e {
            // TwoSum(q, x): s + err == q + x exactly.
            let s = q + x;
            let bv = s - q;
            let av = s - bv;
            let err = (q - av) + (x - bv);
            if err != 0.0 {
                out.push(err);
            }
            q = s;
        }
        out.push(q);
        e = out;
    }
    // Components are non-overlapping in increasing magnitude: the last non-zero
    // one carries the sign.
    match e.iter().rev().find(|&&x| x != 0.0) {
        Some(&x) if x > 0.0 => core::cmp::Ordering::Greater,
        Some(_) => core::cmp::Ordering::Less,
        None => core::cmp::Ordering::Equal,
    }
}

/// Exact sign of the 2D orientation `(b - a) × (p - a)` of f32 points
/// (positive: `p` left of `a→b`), expanded into six exact f64 products.
pub(crate) fn orient2d_exact(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> core::cmp::Ordering {
    let m = |x: f32, y: f32| x as f64 * y as f64;
    exact_sign_sum(&[
        m(b[0], p[1]),
        -m(b[0], a[1]),
        -m(a[0], p[1]),
        -m(b[1], p[0]),
        m(b[1], a[0]),
        m(a[1], p[0]),
    ])
}
