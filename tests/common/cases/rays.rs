//! Case tables of the ray family: plain data, one table per predicate. Each row
//! holds the inputs, the answer under exact arithmetic on the f32 inputs and a
//! label naming what it attacks. `exact_required = false` marks rows beyond
//! `COORD_LIMIT` (or the documented direction range) where only "no panic",
//! the NaN rule and lane identity are required. The tests also re-derive every
//! expected answer with the exact reference, so a wrong row cannot hide.

use crate::common::rng::nudge;
use widephase::{Aabb, Plane, Ray, Sphere, Triangle, Vec3};

const INF: f32 = f32::INFINITY;
const NAN: f32 = f32::NAN;

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}
fn ray(o: Vec3, d: Vec3) -> Ray {
    Ray::new(o, d)
}
fn ray_iv(o: Vec3, d: Vec3, t0: f32, t1: f32) -> Ray {
    Ray::with_interval(o, d, t0, t1)
}

#[derive(Clone, Debug)]
pub struct RayAabbCase {
    pub label: &'static str,
    pub ray: Ray,
    pub bx: Aabb,
    pub hit: bool,
    /// exact entry parameter when it is an f32 (checked bit for bit)
    pub t: Option<f32>,
    pub exact_required: bool,
}

pub fn ray_aabb_cases() -> Vec<RayAabbCase> {
    let b = Aabb::new(v(1.0, 0.0, 0.0), v(2.0, 1.0, 1.0));
    let c13 = Aabb::new(v(1.0, 1.0, 1.0), v(3.0, 3.0, 3.0));
    let mid = v(0.0, 0.5, 0.5);
    let k = |label, ray, bx, hit, t: Option<f32>| RayAabbCase {
        label,
        ray,
        bx,
        hit,
        t,
        exact_required: true,
    };
    let p100 = 2f32.powi(-100);
    let mut cases = vec![
        k("through the middle", ray(mid, Vec3::X), b, true, Some(1.0)),
        k(
            "grazes the edge y=1 (z dir 0)",
            ray(v(0.0, 0.0, 0.5), v(1.0, 1.0, 0.0)),
            b,
            true,
            Some(1.0),
        ),
        k("1e-7 above the grazed edge", ray(v(0.0, 1e-7, 0.5), v(1.0, 1.0, 0.0)), b, false, None),
        k(
            "1 ulp below the grazed edge",
            ray(v(0.0, nudge(0.0, -1), 0.5), v(1.0, 1.0, 0.0)),
            b,
            true,
            None,
        ),
        k(
            "touches only the corner (3,3,3)",
            ray(v(0.0, 4.0, 3.0), v(3.0, -1.0, 0.0)),
            c13,
            true,
            Some(1.0),
        ),
        k(
            "corner ray 1 ulp above the face (dir 0)",
            ray(v(0.0, 4.0, nudge(3.0, 1)), v(3.0, -1.0, 0.0)),
            c13,
            false,
            None,
        ),
        k(
            "corner ray 1 ulp past the corner in y",
            ray(v(0.0, nudge(4.0, 1), 3.0), v(3.0, -1.0, 0.0)),
            c13,
            false,
            None,
        ),
        k(
            "origin on slab plane x=min, dir x = 0",
            ray(v(1.0, 0.5, 0.5), Vec3::Y),
            b,
            true,
            Some(0.0),
        ),
        k(
            "origin 1 ulp outside slab, dir x = 0",
            ray(v(nudge(1.0, -1), 0.5, 0.5), Vec3::Y),
            b,
            false,
            None,
        ),
        k(
            "origin on slab plane x=max, dir x = 0",
            ray(v(2.0, -1.0, 0.5), Vec3::Y),
            b,
            true,
            Some(1.0),
        ),
        k("-0.0 direction components", ray(mid, v(1.0, -0.0, -0.0)), b, true, Some(1.0)),
        k(
            "-0.0 dir with origin on the y=max plane",
            ray(v(1.5, 1.0, -1.0), v(-0.0, -0.0, 1.0)),
            b,
            true,
            Some(1.0),
        ),
        k("origin on the min plane, entering", ray(v(1.0, 0.5, 0.5), Vec3::X), b, true, Some(0.0)),
        k("origin on the max plane, leaving", ray(v(2.0, 0.5, 0.5), Vec3::X), b, true, Some(0.0)),
        k(
            "origin on max plane, -0.0 origin coords",
            ray(v(2.0, -0.0, -0.0), Vec3::X),
            b,
            true,
            Some(0.0),
        ),
        k("pointing away", ray(v(3.0, 0.5, 0.5), Vec3::X), b, false, None),
        k(
            "pointing away, as a line",
            ray_iv(v(3.0, 0.5, 0.5), Vec3::X, -INF, INF),
            b,
            true,
            Some(-2.0),
        ),
        k("t_max exactly at the entry", ray_iv(mid, Vec3::X, 0.0, 1.0), b, true, Some(1.0)),
        k(
            "t_max 1 ulp before the entry",
            ray_iv(mid, Vec3::X, 0.0, nudge(1.0, -1)),
            b,
            false,
            None,
        ),
        k("t_min exactly at the exit", ray_iv(mid, Vec3::X, 2.0, INF), b, true, Some(2.0)),
        k("t_min 1 ulp past the exit", ray_iv(mid, Vec3::X, nudge(2.0, 1), INF), b, false, None),
        k("t_min = t_max at the entry", ray_iv(mid, Vec3::X, 1.0, 1.0), b, true, Some(1.0)),
        k("negative direction", ray(v(3.0, 0.5, 0.5), -Vec3::X), b, true, Some(1.0)),
        k("zero direction inside", ray(v(1.5, 0.5, 0.5), Vec3::ZERO), b, true, Some(0.0)),
        k("zero direction on a corner", ray(v(2.0, 1.0, 1.0), Vec3::ZERO), b, true, Some(0.0)),
        k(
            "zero direction 1 ulp outside",
            ray(v(2.0, nudge(1.0, 1), 1.0), Vec3::ZERO),
            b,
            false,
            None,
        ),
        k(
            "zero direction line: t = -f32::MAX",
            ray_iv(v(1.5, 0.5, 0.5), Vec3::ZERO, -INF, INF),
            b,
            true,
            Some(f32::MIN),
        ),
        k(
            "zero direction, t_min = 3",
            ray_iv(v(1.5, 0.5, 0.5), Vec3::ZERO, 3.0, 4.0),
            b,
            true,
            Some(3.0),
        ),
        k(
            "point box on the diagonal",
            ray(Vec3::ZERO, v(1.0, 1.0, 1.0)),
            Aabb::new(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0)),
            true,
            Some(1.0),
        ),
        k(
            "point box beside the diagonal",
            ray(Vec3::ZERO, v(1.0, 1.0, 1.0)),
            Aabb::new(v(1.0, 1.0, nudge(1.0, 1)), v(1.0, 1.0, nudge(1.0, 1))),
            false,
            None,
        ),
        k(
            "flat box (rectangle) crossed",
            ray(v(1.5, 0.5, -1.0), Vec3::Z),
            Aabb::new(v(1.0, 0.0, 0.5), v(2.0, 1.0, 0.5)),
            true,
            Some(1.5),
        ),
        k(
            "ray in the plane of a flat box",
            ray(v(0.0, 0.5, 0.5), Vec3::X),
            Aabb::new(v(1.0, 0.0, 0.5), v(2.0, 1.0, 0.5)),
            true,
            Some(1.0),
        ),
        k(
            "segment box (zero extent in y, z)",
            ray(v(1.5, -1.0, 0.0), Vec3::Y),
            Aabb::new(v(1.0, 0.0, 0.0), v(2.0, 0.0, 0.0)),
            true,
            Some(1.0),
        ),
        k("along a face plane", ray(v(0.0, 0.5, 1.0), Vec3::X), b, true, Some(1.0)),
        k("along an edge line", ray(v(0.0, 1.0, 1.0), Vec3::X), b, true, Some(1.0)),
        k(
            "inverted box",
            ray(mid, Vec3::X),
            Aabb::new(v(2.0, 0.0, 0.0), v(1.0, 1.0, 1.0)),
            false,
            None,
        ),
        k("Aabb::EMPTY", ray(mid, Vec3::X), Aabb::EMPTY, false, None),
        k(
            "tiny: box scaled by 2^-100",
            ray(Vec3::ZERO, v(1.0, 1.0, 1.0)),
            Aabb::new(Vec3::splat(p100), Vec3::splat(2.0 * p100)),
            true,
            Some(p100),
        ),
        k(
            "subnormal box",
            ray(Vec3::ZERO, v(1.0, 1.0, 1.0)),
            Aabb::new(Vec3::splat(f32::from_bits(1)), Vec3::splat(f32::from_bits(2))),
            true,
            Some(f32::from_bits(1)),
        ),
        k(
            "subnormal box missed by 1 subnormal",
            ray(v(0.0, f32::from_bits(3), 0.0), v(1.0, 0.0, 1.0)),
            Aabb::new(Vec3::splat(f32::from_bits(1)), Vec3::splat(f32::from_bits(2))),
            false,
            None,
        ),
        k(
            "large: 2^39..2^40",
            ray(Vec3::ZERO, v(1.0, 1.0, 1.0)),
            Aabb::new(Vec3::splat(2f32.powi(39)), Vec3::splat(2f32.powi(40))),
            true,
            Some(2f32.powi(39)),
        ),
        k(
            "direction 2^-40 (range limit)",
            ray(mid, v(2f32.powi(-40), 0.0, 0.0)),
            b,
            true,
            Some(2f32.powi(40)),
        ),
    ];
    let bad = |label, ray: Ray, bx| RayAabbCase {
        label,
        ray,
        bx,
        hit: false,
        t: None,
        exact_required: true,
    };
    cases.extend([
        bad("NaN origin", ray(v(NAN, 0.5, 0.5), Vec3::X), b),
        bad("NaN direction", ray(mid, v(1.0, NAN, 0.0)), b),
        bad("infinite direction", ray(mid, v(INF, 0.0, 0.0)), b),
        bad("infinite origin", ray(v(-INF, 0.5, 0.5), Vec3::X), b),
        bad("NaN t_max", ray_iv(mid, Vec3::X, 0.0, NAN), b),
        bad("NaN t_min", ray_iv(mid, Vec3::X, NAN, INF), b),
        bad("t_min > t_max", ray_iv(mid, Vec3::X, 2.0, 1.0), b),
        bad("t_min = t_max = +inf", ray_iv(mid, Vec3::X, INF, INF), b),
        bad("t_min = t_max = -inf", ray_iv(mid, Vec3::X, -INF, -INF), b),
        bad("box with +inf max", ray(mid, Vec3::X), Aabb::new(v(1.0, 0.0, 0.0), v(INF, 1.0, 1.0))),
        bad("box with NaN min", ray(mid, Vec3::X), Aabb::new(v(NAN, 0.0, 0.0), v(2.0, 1.0, 1.0))),
    ]);
    let big = 1e20f32;
    cases.extend([
        RayAabbCase {
            label: "huge 1e20 box",
            ray: ray(Vec3::ZERO, v(1.0, 1.0, 1.0)),
            bx: Aabb::new(Vec3::splat(big), Vec3::splat(2.0 * big)),
            hit: true,
            t: None,
            exact_required: false,
        },
        RayAabbCase {
            label: "huge 1e20 origin, f32::MAX box",
            ray: ray(Vec3::splat(-big), Vec3::X),
            bx: Aabb::new(Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX)),
            hit: true,
            t: None,
            exact_required: false,
        },
        RayAabbCase {
            label: "subnormal direction (1/d overflows)",
            ray: ray(mid, v(f32::from_bits(1), 0.0, 0.0)),
            bx: b,
            hit: true,
            t: None,
            exact_required: false,
        },
        RayAabbCase {
            label: "subnormal direction, origin on the plane",
            ray: ray(v(1.0, 0.5, 0.5), v(f32::from_bits(1), 0.0, 0.0)),
            bx: b,
            hit: true,
            t: Some(0.0),
            exact_required: false,
        },
    ]);
    cases
}

#[derive(Clone, Debug)]
pub struct RayTriangleCase {
    pub label: &'static str,
    pub ray: Ray,
    pub tri: Triangle,
    pub hit: bool,
    pub t: Option<f32>,
    pub exact_required: bool,
}

pub fn ray_triangle_cases() -> Vec<RayTriangleCase> {
    let t = Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0));
    let k = |label, ray, tri, hit, t: Option<f32>| RayTriangleCase {
        label,
        ray,
        tri,
        hit,
        t,
        exact_required: true,
    };
    let down = -Vec3::Z;
    let seg = Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(1.0, 0.0, 0.0));
    let pt = Triangle::new(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0));
    let s60 = 2f32.powi(-60);
    let mut cases = vec![
        k("interior, from above", ray(v(0.5, 0.5, 1.0), down), t, true, Some(1.0)),
        k("interior, back face from below", ray(v(0.5, 0.5, -1.0), Vec3::Z), t, true, Some(1.0)),
        k("through vertex a", ray(v(0.0, 0.0, 1.0), down), t, true, Some(1.0)),
        k("through vertex b", ray(v(2.0, 0.0, 3.0), down), t, true, Some(3.0)),
        k(
            "through vertex c, oblique",
            ray(v(-1.0, 3.0, 1.0), v(1.0, -1.0, -1.0)),
            t,
            true,
            Some(1.0),
        ),
        k("hypotenuse midpoint", ray(v(1.0, 1.0, 5.0), v(0.0, 0.0, -2.0)), t, true, Some(2.5)),
        k("1 ulp outside the hypotenuse", ray(v(1.0, nudge(1.0, 1), 5.0), down), t, false, None),
        k(
            "1 ulp inside the hypotenuse",
            ray(v(1.0, nudge(1.0, -1), 5.0), down),
            t,
            true,
            Some(5.0),
        ),
        k("edge ab, oblique", ray(v(1.0, -1.0, 1.0), v(0.0, 1.0, -1.0)), t, true, Some(1.0)),
        k("-0.0 beside edge ab", ray(v(1.0, -0.0, 1.0), down), t, true, Some(1.0)),
        k(
            "1 subnormal outside edge ab",
            ray(v(1.0, -f32::from_bits(1), 1.0), down),
            t,
            false,
            None,
        ),
        k("parallel above the plane", ray(v(0.5, 0.5, 1.0), Vec3::X), t, false, None),
        k("edge-on: in the plane, crossing", ray(v(-1.0, 0.5, 0.0), Vec3::X), t, true, Some(1.0)),
        k("edge-on: in the plane, missing", ray(v(-1.0, 3.0, 0.0), Vec3::X), t, false, None),
        k("edge-on: along edge ab", ray(v(-1.0, 0.0, 0.0), Vec3::X), t, true, Some(1.0)),
        k("edge-on: starting inside", ray(v(0.5, 0.5, 0.0), Vec3::X), t, true, Some(0.0)),
        k(
            "edge-on: along the hypotenuse",
            ray(v(-1.0, 3.0, 0.0), v(1.0, -1.0, 0.0)),
            t,
            true,
            Some(1.0),
        ),
        k("t_max exactly at the hit", ray_iv(v(0.5, 0.5, 1.0), down, 0.0, 1.0), t, true, Some(1.0)),
        k(
            "t_max 1 ulp before the hit",
            ray_iv(v(0.5, 0.5, 1.0), down, 0.0, nudge(1.0, -1)),
            t,
            false,
            None,
        ),
        k(
            "t_min 1 ulp after the hit",
            ray_iv(v(0.5, 0.5, 1.0), down, nudge(1.0, 1), INF),
            t,
            false,
            None,
        ),
        k(
            "line: hit behind the origin",
            ray_iv(v(0.5, 0.5, -1.0), down, -INF, INF),
            t,
            true,
            Some(-1.0),
        ),
        k("degenerate: segment crossed", ray(v(0.5, 0.0, 1.0), down), seg, true, Some(1.0)),
        k(
            "degenerate: segment missed by 1 ulp",
            ray(v(0.5, f32::from_bits(1), 1.0), down),
            seg,
            false,
            None,
        ),
        k("degenerate: segment end point", ray(v(2.0, 0.0, 1.0), down), seg, true, Some(1.0)),
        k(
            "degenerate: segment collinear ray",
            ray(v(-1.0, 0.0, 0.0), Vec3::X),
            seg,
            true,
            Some(1.0),
        ),
        k("degenerate: point hit", ray(Vec3::ZERO, v(1.0, 1.0, 1.0)), pt, true, Some(1.0)),
        k("degenerate: point missed", ray(Vec3::ZERO, v(1.0, 1.0, nudge(1.0, 1))), pt, false, None),
        k("zero direction inside", ray(v(0.5, 0.5, 0.0), Vec3::ZERO), t, true, Some(0.0)),
        k("zero direction on vertex b", ray(v(2.0, 0.0, 0.0), Vec3::ZERO), t, true, Some(0.0)),
        k("zero direction 1e-6 off the plane", ray(v(0.5, 0.5, 1e-6), Vec3::ZERO), t, false, None),
        k(
            "negative dominant axis (kx/ky swap)",
            ray(v(0.5, 0.5, 1.0), v(0.125, 0.25, -1.0)),
            t,
            true,
            Some(1.0),
        ),
        k(
            "x-dominant direction",
            ray(v(3.0, 0.5, 0.5), v(-1.0, 0.25, 0.0)),
            Triangle::new(v(0.0, 0.0, 0.0), v(0.0, 2.0, 0.0), v(0.0, 0.0, 2.0)),
            true,
            Some(3.0),
        ),
        k(
            "y-dominant through the hypotenuse",
            ray(v(1.0, 5.0, 1.0), -Vec3::Y),
            Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 0.0, 2.0)),
            true,
            Some(5.0),
        ),
        k("tie |dx| = |dy| = |dz|", ray(v(-1.0, -1.0, 1.0), v(1.0, 1.0, -1.0)), t, true, Some(1.0)),
        k(
            "tiny: scaled by 2^-60",
            ray(v(0.5 * s60, 0.5 * s60, s60), down),
            Triangle::new(v(0.0, 0.0, 0.0), v(2.0 * s60, 0.0, 0.0), v(0.0, 2.0 * s60, 0.0)),
            true,
            Some(s60),
        ),
        k(
            "large: 2^38",
            ray(v(2f32.powi(37), 2f32.powi(37), 1.0), down),
            Triangle::new(v(0.0, 0.0, 0.0), v(2f32.powi(38), 0.0, 0.0), v(0.0, 2f32.powi(38), 0.0)),
            true,
            Some(1.0),
        ),
    ];
    let bad = |label, ray: Ray, tri| RayTriangleCase {
        label,
        ray,
        tri,
        hit: false,
        t: None,
        exact_required: true,
    };
    cases.extend([
        bad(
            "NaN vertex",
            ray(v(0.5, 0.5, 1.0), down),
            Triangle::new(v(NAN, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0)),
        ),
        bad(
            "infinite vertex",
            ray(v(0.5, 0.5, 1.0), down),
            Triangle::new(v(0.0, 0.0, 0.0), v(INF, 0.0, 0.0), v(0.0, 2.0, 0.0)),
        ),
        bad("NaN direction", ray(v(0.5, 0.5, 1.0), v(0.0, 0.0, NAN)), t),
        bad("infinite origin", ray(v(0.5, 0.5, INF), down), t),
        bad("t_min > t_max", ray_iv(v(0.5, 0.5, 1.0), down, 2.0, 0.0), t),
        bad("NaN t_min", ray_iv(v(0.5, 0.5, 1.0), down, NAN, 2.0), t),
    ]);
    cases.push(RayTriangleCase {
        label: "huge 1e20 triangle",
        ray: ray(v(0.5e20, 0.5e20, 1e20), down),
        tri: Triangle::new(v(0.0, 0.0, 0.0), v(2e20, 0.0, 0.0), v(0.0, 2e20, 0.0)),
        hit: true,
        t: None,
        exact_required: false,
    });
    cases
}

#[derive(Clone, Debug)]
pub struct RaySphereCase {
    pub label: &'static str,
    pub ray: Ray,
    pub sphere: Sphere,
    pub hit: bool,
    pub t: Option<f32>,
    pub exact_required: bool,
}

pub fn ray_sphere_cases() -> Vec<RaySphereCase> {
    let s = Sphere::new(v(0.0, 0.0, 5.0), 1.0);
    let k = |label, ray, sphere, hit, t: Option<f32>| RaySphereCase {
        label,
        ray,
        sphere,
        hit,
        t,
        exact_required: true,
    };
    let mut cases = vec![
        k(
            "tangent at (1,0,5), dir length 2",
            ray(v(1.0, 0.0, 0.0), v(0.0, 0.0, 2.0)),
            s,
            true,
            Some(2.5),
        ),
        k("1 ulp outside the tangent", ray(v(nudge(1.0, 1), 0.0, 0.0), Vec3::Z), s, false, None),
        k("1 ulp inside the tangent", ray(v(nudge(1.0, -1), 0.0, 0.0), Vec3::Z), s, true, None),
        k("through the center", ray(Vec3::ZERO, Vec3::Z), s, true, Some(4.0)),
        k("starting inside", ray(v(0.0, 0.0, 5.5), Vec3::Z), s, true, Some(0.0)),
        k("pointing away", ray(v(0.0, 0.0, 10.0), Vec3::Z), s, false, None),
        k(
            "pointing away, as a line",
            ray_iv(v(0.0, 0.0, 10.0), Vec3::Z, -INF, INF),
            s,
            true,
            Some(-6.0),
        ),
        k("on the surface, leaving", ray(v(0.0, 0.0, 6.0), Vec3::Z), s, true, Some(0.0)),
        k(
            "segment ending on the surface",
            ray_iv(Vec3::ZERO, Vec3::Z, 0.0, 4.0),
            s,
            true,
            Some(4.0),
        ),
        k(
            "segment ending 1 ulp short",
            ray_iv(Vec3::ZERO, Vec3::Z, 0.0, nudge(4.0, -1)),
            s,
            false,
            None,
        ),
        k("t_min past the exit", ray_iv(Vec3::ZERO, Vec3::Z, nudge(6.0, 1), INF), s, false, None),
        k("zero direction inside", ray(v(0.0, 0.5, 5.0), Vec3::ZERO), s, true, Some(0.0)),
        k("zero direction on the surface", ray(v(0.0, 0.0, 4.0), Vec3::ZERO), s, true, Some(0.0)),
        k("zero direction outside", ray(v(0.0, 0.0, nudge(4.0, -1)), Vec3::ZERO), s, false, None),
        k(
            "zero direction line: t = -f32::MAX",
            ray_iv(v(0.0, 0.0, 4.5), Vec3::ZERO, -INF, INF),
            s,
            true,
            Some(f32::MIN),
        ),
        k(
            "zero radius: the center point",
            ray(Vec3::ZERO, Vec3::Z),
            Sphere::new(v(0.0, 0.0, 5.0), 0.0),
            true,
            Some(5.0),
        ),
        k(
            "zero radius: missed by 2^-60",
            ray(v(2f32.powi(-60), 0.0, 0.0), Vec3::Z),
            Sphere::new(v(0.0, 0.0, 5.0), 0.0),
            false,
            None,
        ),
        k(
            "-0.0 radius",
            ray(Vec3::ZERO, Vec3::Z),
            Sphere::new(v(0.0, 0.0, 5.0), -0.0),
            true,
            Some(5.0),
        ),
        k(
            "tiny: scaled by 2^-60",
            ray(Vec3::ZERO, Vec3::Z),
            Sphere::new(v(0.0, 0.0, 5.0 * 2f32.powi(-60)), 2f32.powi(-60)),
            true,
            Some(4.0 * 2f32.powi(-60)),
        ),
        k(
            "large: 2^38 radius",
            ray(Vec3::ZERO, Vec3::Z),
            Sphere::new(v(0.0, 0.0, 2f32.powi(39)), 2f32.powi(38)),
            true,
            Some(2f32.powi(38)),
        ),
    ];
    let bad = |label, ray: Ray, sphere| RaySphereCase {
        label,
        ray,
        sphere,
        hit: false,
        t: None,
        exact_required: true,
    };
    cases.extend([
        bad("negative radius", ray(Vec3::ZERO, Vec3::Z), Sphere::new(v(0.0, 0.0, 5.0), -1.0)),
        bad("NaN radius", ray(Vec3::ZERO, Vec3::Z), Sphere::new(v(0.0, 0.0, 5.0), NAN)),
        bad("infinite radius", ray(Vec3::ZERO, Vec3::Z), Sphere::new(v(0.0, 0.0, 5.0), INF)),
        bad("NaN center", ray(Vec3::ZERO, Vec3::Z), Sphere::new(v(0.0, NAN, 5.0), 1.0)),
        bad("NaN direction", ray(Vec3::ZERO, v(NAN, 0.0, 1.0)), s),
        bad("t_min > t_max", ray_iv(Vec3::ZERO, Vec3::Z, 5.0, 4.0), s),
    ]);
    cases.push(RaySphereCase {
        label: "huge 1e20",
        ray: ray(Vec3::ZERO, Vec3::Z),
        sphere: Sphere::new(v(0.0, 0.0, 5e20), 1e20),
        hit: true,
        t: None,
        exact_required: false,
    });
    cases
}

#[derive(Clone, Debug)]
pub struct PointPolygonCase {
    pub label: &'static str,
    pub p: [f32; 2],
    pub poly: Vec<[f32; 2]>,
    pub inside: bool,
}

pub fn point_polygon_cases() -> Vec<PointPolygonCase> {
    let sq = vec![[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
    let concave = vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 1.0], [0.0, 4.0]];
    let c = |label, p, poly: &Vec<[f32; 2]>, inside| PointPolygonCase {
        label,
        p,
        poly: poly.clone(),
        inside,
    };
    vec![
        c("center", [1.0, 1.0], &sq, true),
        c("on an edge", [2.0, 1.0], &sq, true),
        c("on a vertex", [2.0, 2.0], &sq, true),
        c("1 ulp outside an edge", [nudge(2.0, 1), 1.0], &sq, false),
        c("1 ulp inside an edge", [nudge(2.0, -1), 1.0], &sq, true),
        c("ray through a vertex (y = vertex y), outside", [-1.0, 2.0], &sq, false),
        c("ray through the bottom edge line, outside", [-1.0, 0.0], &sq, false),
        c("-0.0 on the bottom edge", [1.0, -0.0], &sq, true),
        c("concave notch: outside", [2.0, 3.0], &concave, false),
        c("concave notch vertex", [2.0, 1.0], &concave, true),
        c("concave: left lobe", [0.5, 3.0], &concave, true),
        c("concave: notch right of the left lobe", [1.0, 3.0], &concave, false),
        c("concave: ray through the reflex vertex", [1.0, 1.0], &concave, true),
        c("clockwise square", [1.0, 1.0], &sq.iter().rev().cloned().collect(), true),
        c("single vertex: equal", [1.0, 1.0], &vec![[1.0, 1.0]], true),
        c("single vertex: different", [1.0, 1.0], &vec![[1.0, nudge(1.0, 1)]], false),
        c("two vertices: on the segment", [1.0, 1.0], &vec![[0.0, 0.0], [2.0, 2.0]], true),
        c("empty polygon", [0.0, 0.0], &vec![], false),
        c("NaN point", [NAN, 1.0], &sq, false),
        c("infinite vertex", [1.0, 1.0], &vec![[0.0, 0.0], [INF, 0.0], [0.0, 2.0]], false),
        c(
            "tiny subnormal triangle",
            [f32::from_bits(1), f32::from_bits(1)],
            &vec![[0.0, 0.0], [f32::from_bits(4), 0.0], [0.0, f32::from_bits(4)]],
            true,
        ),
        c(
            "huge 1e20 square",
            [1e20, 1e20],
            &vec![[0.0, 0.0], [2e20, 0.0], [2e20, 2e20], [0.0, 2e20]],
            true,
        ),
    ]
}

#[derive(Clone, Debug)]
pub struct SegmentPlaneCase {
    pub label: &'static str,
    pub a: Vec3,
    pub b: Vec3,
    pub plane: Plane,
    pub hit: bool,
    pub t: Option<f32>,
}

pub fn segment_plane_cases() -> Vec<SegmentPlaneCase> {
    let g = Plane::new(Vec3::Z, 0.0);
    let c =
        |label, a, b, plane, hit, t: Option<f32>| SegmentPlaneCase { label, a, b, plane, hit, t };
    vec![
        c("crossing at the middle", v(1.0, 1.0, 2.0), v(1.0, 1.0, -2.0), g, true, Some(0.5)),
        c("ending on the plane", v(0.0, 0.0, 2.0), Vec3::ZERO, g, true, Some(1.0)),
        c("starting on the plane", Vec3::ZERO, v(0.0, 0.0, 2.0), g, true, Some(0.0)),
        c(
            "ending 1 subnormal above",
            v(0.0, 0.0, 2.0),
            v(0.0, 0.0, f32::from_bits(1)),
            g,
            false,
            None,
        ),
        c("lying in the plane", v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0), g, true, Some(0.0)),
        c("parallel above", v(-1.0, 0.0, 1.0), v(1.0, 0.0, 1.0), g, false, None),
        c("zero-length on the plane", v(3.0, 3.0, 0.0), v(3.0, 3.0, 0.0), g, true, Some(0.0)),
        c("zero-length off the plane", v(3.0, 3.0, 1.0), v(3.0, 3.0, 1.0), g, false, None),
        c("-0.0 end point", v(0.0, 0.0, 1.0), v(0.0, 0.0, -0.0), g, true, Some(1.0)),
        c(
            "oblique plane, grid touch",
            v(0.0, 0.0, 0.0),
            v(4.0, 0.0, 0.0),
            Plane::new(v(1.0, 1.0, 1.0), 4.0),
            true,
            Some(1.0),
        ),
        c(
            "zero normal",
            v(0.0, 0.0, 1.0),
            v(0.0, 0.0, -1.0),
            Plane::new(Vec3::ZERO, 0.0),
            false,
            None,
        ),
        c(
            "NaN plane d",
            v(0.0, 0.0, 1.0),
            v(0.0, 0.0, -1.0),
            Plane::new(Vec3::Z, NAN),
            false,
            None,
        ),
        c("infinite end point", v(0.0, 0.0, 1.0), v(0.0, 0.0, -INF), g, false, None),
    ]
}

#[derive(Clone, Debug)]
pub struct SegmentAabbCase {
    pub label: &'static str,
    pub seg: widephase::Segment,
    pub bx: Aabb,
    pub hit: bool,
}

pub fn segment_aabb_cases() -> Vec<SegmentAabbCase> {
    use widephase::Segment;
    let u = Aabb::new(Vec3::ZERO, Vec3::splat(1.0));
    let c = |label, a, b, bx, hit| SegmentAabbCase { label, seg: Segment::new(a, b), bx, hit };
    vec![
        c("through the middle", v(-1.0, 0.5, 0.5), v(2.0, 0.5, 0.5), u, true),
        c("touches the edge x=1,y=1 at its middle", v(2.0, 0.0, 0.5), v(0.0, 2.0, 0.5), u, true),
        c("misses that edge by 1 ulp", v(2.0, 0.0, 0.5), v(0.0, nudge(2.0, 1), 0.5), u, false),
        c("touches a corner", v(2.0, 2.0, 2.0), v(1.0, 1.0, 1.0), u, true),
        c("ends 1 ulp before a corner", v(2.0, 2.0, 2.0), v(nudge(1.0, 1), 1.0, 1.0), u, false),
        c("lies on a face", v(0.25, 0.25, 1.0), v(0.75, 0.5, 1.0), u, true),
        c(
            "parallel to a face, 1 ulp above",
            v(0.25, 0.25, nudge(1.0, 1)),
            v(0.75, 0.5, nudge(1.0, 1)),
            u,
            false,
        ),
        c("along an edge line, overlapping", v(-1.0, 1.0, 1.0), v(0.5, 1.0, 1.0), u, true),
        c("along an edge line, stopping short", v(-1.0, 1.0, 1.0), v(-0.5, 1.0, 1.0), u, false),
        c("skew, cross axis separates", v(-1.0, 0.0, 2.5), v(2.0, 3.0, 0.0), u, false),
        c("zero length inside", v(0.5, 0.5, 0.5), v(0.5, 0.5, 0.5), u, true),
        c("zero length on a corner", v(1.0, 0.0, 1.0), v(1.0, 0.0, 1.0), u, true),
        c("zero length outside", v(1.0, 0.0, nudge(1.0, 1)), v(1.0, 0.0, nudge(1.0, 1)), u, false),
        c("-0.0 end on the min face", v(0.5, 0.5, -0.0), v(0.5, 0.5, -1.0), u, true),
        c(
            "point box on the segment",
            v(0.0, 0.0, 0.0),
            v(2.0, 2.0, 2.0),
            Aabb::new(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0)),
            true,
        ),
        c(
            "flat box crossed",
            v(0.5, 0.5, -1.0),
            v(0.5, 0.5, 1.0),
            Aabb::new(v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)),
            true,
        ),
        c(
            "inverted box",
            v(-1.0, 0.5, 0.5),
            v(2.0, 0.5, 0.5),
            Aabb::new(v(1.0, 0.0, 0.0), v(0.0, 1.0, 1.0)),
            false,
        ),
        c("NaN end point", v(NAN, 0.5, 0.5), v(2.0, 0.5, 0.5), u, false),
        c("infinite end point", v(-INF, 0.5, 0.5), v(2.0, 0.5, 0.5), u, false),
        c(
            "tiny: 2^-100 box touched at a corner",
            v(0.0, 0.0, 0.0),
            Vec3::splat(2f32.powi(-100)),
            Aabb::new(Vec3::splat(2f32.powi(-100)), Vec3::splat(2f32.powi(-99))),
            true,
        ),
        c(
            "large: 2^39 edge touch",
            v(2f32.powi(40), 0.0, 0.5),
            v(0.0, 2f32.powi(40), 0.5),
            Aabb::new(Vec3::ZERO, v(2f32.powi(39), 2f32.powi(39), 1.0)),
            true,
        ),
    ]
}

#[derive(Clone, Debug)]
pub struct PointTriangleCase {
    pub label: &'static str,
    pub p: Vec3,
    pub tri: Triangle,
    pub inside: bool,
}

pub fn point_triangle_cases() -> Vec<PointTriangleCase> {
    let t = Triangle::new(v(0.0, 0.0, 1.0), v(2.0, 0.0, 1.0), v(0.0, 2.0, 1.0));
    let tilted = Triangle::new(v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0), v(0.0, 0.0, 1.0));
    let seg = Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 2.0, 2.0), v(1.0, 1.0, 1.0));
    let pt = Triangle::new(v(1.0, 2.0, 3.0), v(1.0, 2.0, 3.0), v(1.0, 2.0, 3.0));
    let c = |label, p, tri, inside| PointTriangleCase { label, p, tri, inside };
    vec![
        c("interior", v(0.5, 0.5, 1.0), t, true),
        c("on the hypotenuse", v(1.0, 1.0, 1.0), t, true),
        c("at a vertex", v(2.0, 0.0, 1.0), t, true),
        c("1 ulp off the plane", v(0.5, 0.5, nudge(1.0, 1)), t, false),
        c("1e-6 outside the hypotenuse, in plane", v(1.0, 1.000001, 1.0), t, false),
        c("-0.0 on edge ab", v(1.0, -0.0, 1.0), t, true),
        c("tilted: centroid-like grid point", v(0.25, 0.25, 0.5), tilted, true),
        c("tilted: on edge", v(0.5, 0.5, 0.0), tilted, true),
        c("tilted: 1e-6 above the plane", v(0.25, 0.25, 0.500001), tilted, false),
        c("segment triangle: on it", v(0.5, 0.5, 0.5), seg, true),
        c("segment triangle: at an end", v(2.0, 2.0, 2.0), seg, true),
        c("segment triangle: beyond the end", v(2.5, 2.5, 2.5), seg, false),
        c("segment triangle: beside it", v(0.5, 0.5, 0.501), seg, false),
        c("point triangle: the point", v(1.0, 2.0, 3.0), pt, true),
        c("point triangle: elsewhere", v(1.0, 2.0, 3.001), pt, false),
        c("NaN point", v(NAN, 0.0, 1.0), t, false),
        c(
            "infinite vertex",
            v(0.5, 0.5, 1.0),
            Triangle::new(v(0.0, 0.0, 1.0), v(INF, 0.0, 1.0), v(0.0, 2.0, 1.0)),
            false,
        ),
        c(
            "tiny: 2^-100 triangle, on its edge",
            v(2f32.powi(-100), 2f32.powi(-100), 0.0),
            Triangle::new(Vec3::ZERO, v(2f32.powi(-99), 0.0, 0.0), v(0.0, 2f32.powi(-99), 0.0)),
            true,
        ),
    ]
}

#[derive(Clone, Debug)]
pub struct Segment2dCase {
    pub label: &'static str,
    pub a0: [f32; 2],
    pub a1: [f32; 2],
    pub b0: [f32; 2],
    pub b1: [f32; 2],
    /// 0 = none, 1 = one point, 2 = overlap
    pub kind: u8,
}

pub fn segment_2d_cases() -> Vec<Segment2dCase> {
    let c = |label, a0, a1, b0, b1, kind| Segment2dCase { label, a0, a1, b0, b1, kind };
    vec![
        c("proper crossing", [0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0], 1),
        c("T-junction", [0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [1.0, 5.0], 1),
        c(
            "T-junction missed by 1 ulp",
            [0.0, 0.0],
            [2.0, 0.0],
            [1.0, f32::from_bits(1)],
            [1.0, 5.0],
            0,
        ),
        c("shared end point", [0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [2.0, 0.0], 1),
        c("collinear overlap", [0.0, 0.0], [4.0, 0.0], [2.0, 0.0], [6.0, 0.0], 2),
        c("collinear touching at an end", [0.0, 0.0], [2.0, 2.0], [2.0, 2.0], [3.0, 3.0], 1),
        c("collinear disjoint", [0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], 0),
        c("collinear, b inside a, reversed", [0.0, 0.0], [4.0, 4.0], [3.0, 3.0], [1.0, 1.0], 2),
        c("parallel, distinct", [0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [2.0, 1.0], 0),
        c(
            "near-parallel, crossing far away",
            [0.0, 0.0],
            [1.0, 0.0],
            [0.0, 1.0],
            [1.0, nudge(1.0, -1)],
            0,
        ),
        c("zero-length a on b", [1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [2.0, 2.0], 1),
        c(
            "zero-length a off b",
            [1.0, nudge(1.0, 1)],
            [1.0, nudge(1.0, 1)],
            [0.0, 0.0],
            [2.0, 2.0],
            0,
        ),
        c("both zero-length, equal", [3.0, 3.0], [3.0, 3.0], [3.0, 3.0], [3.0, 3.0], 1),
        c("-0.0 coordinates touching", [-0.0, -0.0], [1.0, 1.0], [0.0, 0.0], [1.0, -1.0], 1),
        c("NaN", [NAN, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0], 0),
        c(
            "subnormal crossing",
            [0.0, 0.0],
            [f32::from_bits(4), f32::from_bits(4)],
            [0.0, f32::from_bits(4)],
            [f32::from_bits(4), 0.0],
            1,
        ),
    ]
}

#[derive(Clone, Debug)]
pub struct RayCylinderCase {
    pub label: &'static str,
    pub ray: Ray,
    pub a: Vec3,
    pub b: Vec3,
    pub radius: f32,
    /// expected entry (exact and representable) for the cylinder and the capsule
    pub cylinder: Option<f32>,
    pub capsule: Option<f32>,
}

pub fn ray_cylinder_cases() -> Vec<RayCylinderCase> {
    let (a, b) = (Vec3::ZERO, v(0.0, 0.0, 2.0));
    let c = |label, ray, radius, cylinder, capsule| RayCylinderCase {
        label,
        ray,
        a,
        b,
        radius,
        cylinder,
        capsule,
    };
    let mut cases = vec![
        c("through the side", ray(v(-3.0, 0.0, 1.0), Vec3::X), 1.0, Some(2.0), Some(2.0)),
        c("down the axis", ray(v(0.0, 0.0, 5.0), -Vec3::Z), 1.0, Some(3.0), Some(2.0)),
        c(
            "down the side line x = 1 (rim; tangent to the top ball)",
            ray(v(1.0, 0.0, 5.0), -Vec3::Z),
            1.0,
            Some(3.0),
            Some(3.0),
        ),
        c("tangent to the rim circle", ray(v(-3.0, 1.0, 2.0), Vec3::X), 1.0, Some(3.0), Some(3.0)),
        c(
            "2^-10 above the rim (1 ulp would be in the capsule's band)",
            ray(v(-3.0, 1.0, 2.0 + 2f32.powi(-10)), Vec3::X),
            1.0,
            None,
            None,
        ),
        c("tangent to the side", ray(v(-3.0, 1.0, 1.0), Vec3::X), 1.0, Some(3.0), Some(3.0)),
        c(
            "1 ulp outside the side tangent",
            ray(v(-3.0, nudge(1.0, 1), 1.0), Vec3::X),
            1.0,
            None,
            None,
        ),
        c("top pole of the capsule", ray(v(-3.0, 0.0, 3.0), Vec3::X), 1.0, None, Some(3.0)),
        c("1 ulp above the pole", ray(v(-3.0, 0.0, nudge(3.0, 1)), Vec3::X), 1.0, None, None),
        c(
            "parallel to the axis on the side",
            ray(v(1.0, 0.0, -1.0), Vec3::Z),
            1.0,
            Some(1.0),
            Some(1.0),
        ),
        c("parallel to the axis outside", ray(v(1.0, 1.0, -1.0), Vec3::Z), 1.0, None, None),
        c("starting inside", ray(v(0.0, 0.0, 1.0), Vec3::X), 1.0, Some(0.0), Some(0.0)),
        c(
            "segment ending on the side",
            ray_iv(v(-3.0, 0.0, 1.0), v(2.0, 0.0, 0.0), 0.0, 1.0),
            1.0,
            Some(1.0),
            Some(1.0),
        ),
        c(
            "segment ending 1 ulp short",
            ray_iv(v(-3.0, 0.0, 1.0), v(2.0, 0.0, 0.0), 0.0, nudge(1.0, -1)),
            1.0,
            None,
            None,
        ),
        c(
            "zero radius: through the axis",
            ray(v(-1.0, 0.0, 1.0), Vec3::X),
            0.0,
            Some(1.0),
            Some(1.0),
        ),
        c(
            "zero radius: missed by 2^-60",
            ray(v(-1.0, 2f32.powi(-60), 1.0), Vec3::X),
            0.0,
            None,
            None,
        ),
        c("zero direction inside", ray(v(0.5, 0.0, 1.0), Vec3::ZERO), 1.0, Some(0.0), Some(0.0)),
        c("negative radius", ray(v(-3.0, 0.0, 1.0), Vec3::X), -1.0, None, None),
        c("NaN radius", ray(v(-3.0, 0.0, 1.0), Vec3::X), NAN, None, None),
        c("NaN origin", ray(v(NAN, 0.0, 1.0), Vec3::X), 1.0, None, None),
    ];
    cases.push(RayCylinderCase {
        label: "a == b: no cylinder, the capsule is a ball",
        ray: ray(v(-3.0, 0.0, 0.0), Vec3::X),
        a,
        b: a,
        radius: 1.0,
        cylinder: None,
        capsule: Some(2.0),
    });
    cases
}

#[derive(Clone, Debug)]
pub struct PointPolyhedronCase {
    pub label: &'static str,
    pub p: Vec3,
    pub planes: Vec<Plane>,
    pub inside: bool,
}

pub fn point_polyhedron_cases() -> Vec<PointPolyhedronCase> {
    let cube = vec![
        Plane::new(Vec3::X, 1.0),
        Plane::new(-Vec3::X, 0.0),
        Plane::new(Vec3::Y, 1.0),
        Plane::new(-Vec3::Y, 0.0),
        Plane::new(Vec3::Z, 1.0),
        Plane::new(-Vec3::Z, 0.0),
    ];
    let oct = vec![
        Plane::new(v(1.0, 1.0, 1.0), 1.0),
        Plane::new(v(-1.0, 1.0, 1.0), 1.0),
        Plane::new(v(1.0, -1.0, 1.0), 1.0),
        Plane::new(v(1.0, 1.0, -1.0), 1.0),
        Plane::new(v(-1.0, -1.0, 1.0), 1.0),
        Plane::new(v(-1.0, 1.0, -1.0), 1.0),
        Plane::new(v(1.0, -1.0, -1.0), 1.0),
        Plane::new(v(-1.0, -1.0, -1.0), 1.0),
    ];
    let c = |label, p, planes: &Vec<Plane>, inside| PointPolyhedronCase {
        label,
        p,
        planes: planes.clone(),
        inside,
    };
    vec![
        c("cube center", v(0.5, 0.5, 0.5), &cube, true),
        c("cube corner", v(1.0, 1.0, 1.0), &cube, true),
        c("cube face, -0.0", v(-0.0, 0.5, 0.5), &cube, true),
        c("1 subnormal outside a face", v(-f32::from_bits(1), 0.5, 0.5), &cube, false),
        c("1 ulp outside a face", v(nudge(1.0, 1), 0.5, 0.5), &cube, false),
        c("octahedron: 0.1f + 0.2f + 0.7f < 1 exactly", v(0.1, 0.2, 0.7), &oct, Q_EXACT_OCT),
        c("octahedron vertex", v(1.0, 0.0, 0.0), &oct, true),
        c("octahedron edge midpoint", v(0.5, 0.5, 0.0), &oct, true),
        c("no planes: all of space", v(3.0, 4.0, 5.0), &vec![], true),
        c(
            "zero normal, d >= 0: all of space",
            v(3.0, 4.0, 5.0),
            &vec![Plane::new(Vec3::ZERO, 0.0)],
            true,
        ),
        c(
            "zero normal, d < 0: empty",
            v(3.0, 4.0, 5.0),
            &vec![Plane::new(Vec3::ZERO, -1.0)],
            false,
        ),
        c("NaN point", v(NAN, 0.5, 0.5), &cube, false),
        c("infinite d", v(0.5, 0.5, 0.5), &vec![Plane::new(Vec3::X, INF)], false),
        c(
            "huge 1e20 plane, exact products",
            v(1e20, 0.0, 0.0),
            &vec![Plane::new(Vec3::X, 1e20)],
            true,
        ),
    ]
}

/// 0.1f + 0.2f + 0.7f as exact rationals of the f32 values:
/// 0.100000001490116... + 0.200000002980232... + 0.699999988079071...
/// = 0.99999999254942 < 1: inside, by 7.5e-9 (a rounded f32 sum gives 1.0000001).
const Q_EXACT_OCT: bool = true;
