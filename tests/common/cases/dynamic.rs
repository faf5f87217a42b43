//! Case tables for the dynamic family: plain data, one table per query. Each
//! row states the answer under exact arithmetic on its f32 inputs; the tests
//! also re-derive every expectation with the exact reference.

use widephase::{Aabb, Plane, Sphere, Triangle, Vec3};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;
/// Beyond `COORD_LIMIT`: only "no panic" and the NaN rule are promised.
const HUGE: f32 = 1e20;
/// Tiny but normal coordinates: their squares stay normal (2^-100).
const TINY: f32 = 1.0 / 1_125_899_906_842_624.0; // 2^-50

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

fn bx(min: [f32; 3], max: [f32; 3]) -> Aabb {
    Aabb::new(Vec3::from_array(min), Vec3::from_array(max))
}

fn unit() -> Aabb {
    bx([0.0; 3], [1.0; 3])
}

fn nudge(x: f32, n: i32) -> f32 {
    crate::common::rng::nudge(x, n)
}

/// What a time-of-impact query must answer, under exact arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Toi {
    /// No contact in `[0, 1]`.
    Miss,
    /// First contact exactly at this (representable) time.
    At(f32),
    /// Contact; the first time is irrational (checked by bracketing).
    Hit,
    /// Non-finite or empty input: must answer no contact.
    Invalid,
    /// Beyond `COORD_LIMIT`: any answer, but no panic.
    Unchecked,
}

/// Moving AABB–AABB: exact `(t_first, t_last)` when representable.
#[derive(Clone, Copy, Debug)]
pub struct MovingAabbCase {
    pub label: &'static str,
    pub a: Aabb,
    pub va: Vec3,
    pub b: Aabb,
    pub vb: Vec3,
    /// `Some(Some((first, last)))` exact times; `Some(None)` exact miss;
    /// `None` unchecked (beyond `COORD_LIMIT`) or irrational-free but
    /// unrepresentable (the property tests cover those).
    pub expect: Option<Option<(f32, f32)>>,
}

pub fn moving_aabb_cases() -> Vec<MovingAabbCase> {
    let z = Vec3::ZERO;
    let c = |label, a, va, b, vb, expect| MovingAabbCase { label, a, va, b, vb, expect };
    let b_right = bx([3.0, 0.0, 0.0], [4.0, 1.0, 1.0]);
    vec![
        c(
            "approach along x, face contact at 1/2",
            unit(),
            z,
            b_right,
            v(-4.0, 0.0, 0.0),
            Some(Some((0.5, 1.0))),
        ),
        c(
            "both move, relative velocity halves",
            unit(),
            v(2.0, 0.0, 0.0),
            b_right,
            v(-2.0, 0.0, 0.0),
            Some(Some((0.5, 1.0))),
        ),
        c(
            "face touches exactly at t = 1",
            unit(),
            z,
            b_right,
            v(-2.0, 0.0, 0.0),
            Some(Some((1.0, 1.0))),
        ),
        c(
            "1 ulp short of touching at t = 1",
            unit(),
            z,
            b_right,
            v(nudge(-2.0, 1), 0.0, 0.0),
            Some(None),
        ),
        c("1 ulp past touching at t = 1", unit(), z, b_right, v(nudge(-2.0, -1), 0.0, 0.0), None),
        c(
            "touching at start, moving apart",
            unit(),
            z,
            bx([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]),
            v(1.0, 0.0, 0.0),
            Some(Some((0.0, 0.0))),
        ),
        c(
            "overlapping at start, last time is real (seed erratum: 0)",
            unit(),
            z,
            bx([0.5, 0.0, 0.0], [1.5, 1.0, 1.0]),
            v(1.0, 0.0, 0.0),
            Some(Some((0.0, 0.5))),
        ),
        c(
            "overlap throughout, no motion",
            unit(),
            z,
            bx([0.5; 3], [2.0; 3]),
            z,
            Some(Some((0.0, 1.0))),
        ),
        c(
            "zero rel. velocity on x, apart on x (seed erratum: hit)",
            unit(),
            z,
            bx([2.0, -5.0, 0.0], [3.0, -4.0, 1.0]),
            v(0.0, 10.0, 0.0),
            Some(None),
        ),
        c(
            "zero rel. velocity on x, touching on x",
            unit(),
            z,
            bx([1.0, -5.0, 0.0], [2.0, -4.0, 1.0]),
            v(0.0, 8.0, 0.0),
            Some(Some((0.5, 0.75))),
        ),
        c(
            "equal nonzero velocities, apart",
            unit(),
            v(1.0, 2.0, 3.0),
            b_right,
            v(1.0, 2.0, 3.0),
            Some(None),
        ),
        c(
            "equal velocities, touching",
            unit(),
            v(1.0, 2.0, 3.0),
            bx([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]),
            v(1.0, 2.0, 3.0),
            Some(Some((0.0, 1.0))),
        ),
        c("moving apart", unit(), z, b_right, v(1.0, 0.0, 0.0), Some(None)),
        c(
            "x overlap window starts after y window ends",
            unit(),
            z,
            bx([3.0, 3.0, 0.0], [4.0, 4.0, 1.0]),
            v(-4.0, -16.0, 0.0),
            Some(None),
        ),
        c(
            "windows meet in one instant (edge contact)",
            unit(),
            z,
            bx([3.0, 3.0, 0.0], [4.0, 4.0, 1.0]),
            v(-4.0, -8.0, 0.0),
            Some(Some((0.5, 0.5))),
        ),
        c(
            "vertex contact along the diagonal",
            unit(),
            z,
            bx([2.0; 3], [3.0; 3]),
            v(-2.0, -2.0, -2.0),
            Some(Some((0.5, 1.0))),
        ),
        c(
            "point boxes meet",
            bx([0.0; 3], [0.0; 3]),
            z,
            bx([1.0; 3], [1.0; 3]),
            v(-1.0, -1.0, -1.0),
            Some(Some((1.0, 1.0))),
        ),
        c(
            "point box passes through a flat box",
            bx([0.0, 0.0, 0.0], [1.0, 1.0, 0.0]),
            z,
            bx([0.5, 0.5, 1.0], [0.5, 0.5, 1.0]),
            v(0.0, 0.0, -4.0),
            Some(Some((0.25, 0.25))),
        ),
        c(
            "-0.0 extents touching",
            bx([-0.0; 3], [0.0; 3]),
            z,
            bx([0.0; 3], [1.0; 3]),
            z,
            Some(Some((0.0, 1.0))),
        ),
        c("inverted a never hits", bx([1.0; 3], [0.0; 3]), z, unit(), z, Some(None)),
        c("empty b never hits", unit(), z, Aabb::EMPTY, z, Some(None)),
        c("NaN velocity", unit(), v(NAN, 0.0, 0.0), b_right, z, Some(None)),
        c("infinite velocity", unit(), z, b_right, v(-INF, 0.0, 0.0), Some(None)),
        c("NaN box coordinate", bx([NAN, 0.0, 0.0], [1.0; 3]), z, unit(), z, Some(None)),
        c("infinite box", bx([-INF; 3], [INF; 3]), z, unit(), z, Some(None)),
        c(
            "tiny boxes, face contact at 1/2",
            bx([0.0; 3], [TINY; 3]),
            z,
            bx([3.0 * TINY, 0.0, 0.0], [4.0 * TINY, TINY, TINY]),
            v(-4.0 * TINY, 0.0, 0.0),
            Some(Some((0.5, 1.0))),
        ),
        c(
            "subnormal velocity, far",
            unit(),
            z,
            b_right,
            v(-f32::from_bits(1), 0.0, 0.0),
            Some(None),
        ),
        c(
            "subnormal gap closed by subnormal velocity",
            bx([0.0; 3], [0.0; 3]),
            z,
            bx([f32::from_bits(2), 0.0, 0.0], [1.0, 0.0, 0.0]),
            v(-f32::from_bits(4), 0.0, 0.0),
            Some(Some((0.5, 1.0))),
        ),
        c(
            "large coordinates at 2^36",
            bx([0.0; 3], [68719476736.0; 3]),
            z,
            bx([3.0 * 68719476736.0, 0.0, 0.0], [4.0 * 68719476736.0, 1.0, 1.0]),
            v(-4.0 * 68719476736.0, 0.0, 0.0),
            Some(Some((0.5, 1.0))),
        ),
        c(
            "huge 1e20: no panic",
            bx([-HUGE; 3], [HUGE; 3]),
            z,
            bx([3.0 * HUGE; 3], [4.0 * HUGE; 3]),
            v(-HUGE, -HUGE, -HUGE),
            None,
        ),
        c(
            "huge velocity overflow: no panic",
            unit(),
            z,
            b_right,
            v(-f32::MAX, f32::MAX, 0.0),
            None,
        ),
    ]
}

/// Moving sphere vs plane.
#[derive(Clone, Copy, Debug)]
pub struct SpherePlaneCase {
    pub label: &'static str,
    pub s: Sphere,
    pub d: Vec3,
    pub plane: Plane,
    pub expect: Toi,
}

pub fn sphere_plane_cases() -> Vec<SpherePlaneCase> {
    let c = |label, center: Vec3, r: f32, d: Vec3, n: Vec3, pd: f32, expect| SpherePlaneCase {
        label,
        s: Sphere::new(center, r),
        d,
        plane: Plane::new(n, pd),
        expect,
    };
    let y = Vec3::Y;
    vec![
        c(
            "falls onto ground at 1/2",
            v(0.0, 3.0, 0.0),
            1.0,
            v(0.0, -4.0, 0.0),
            y,
            0.0,
            Toi::At(0.5),
        ),
        c(
            "touches exactly at t = 1",
            v(0.0, 3.0, 0.0),
            1.0,
            v(0.0, -2.0, 0.0),
            y,
            0.0,
            Toi::At(1.0),
        ),
        c(
            "1 ulp short at t = 1",
            v(0.0, 3.0, 0.0),
            1.0,
            v(0.0, nudge(-2.0, 1), 0.0),
            y,
            0.0,
            Toi::Miss,
        ),
        c("from behind", v(0.0, -3.0, 0.0), 1.0, v(0.0, 4.0, 0.0), y, 0.0, Toi::At(0.5)),
        c("touching at start", v(0.0, 1.0, 0.0), 1.0, v(0.0, 5.0, 0.0), y, 0.0, Toi::At(0.0)),
        c("straddling at start", v(0.0, 0.0, 0.0), 1.0, v(0.0, 5.0, 0.0), y, 0.0, Toi::At(0.0)),
        c("parallel motion, apart", v(0.0, 3.0, 0.0), 1.0, v(5.0, 0.0, 5.0), y, 0.0, Toi::Miss),
        c(
            "parallel motion, touching",
            v(0.0, 1.0, 0.0),
            1.0,
            v(5.0, 0.0, 5.0),
            y,
            0.0,
            Toi::At(0.0),
        ),
        c("moving away", v(0.0, 3.0, 0.0), 1.0, v(0.0, 4.0, 0.0), y, 0.0, Toi::Miss),
        c(
            "tunnels through the plane within the step",
            v(0.0, 10.5, 0.0),
            0.5,
            v(0.0, -20.0, 0.0),
            y,
            0.0,
            Toi::At(0.5),
        ),
        c(
            "point sphere (r = 0) crosses at 1/4",
            v(0.0, 1.0, 0.0),
            0.0,
            v(0.0, -4.0, 0.0),
            y,
            0.0,
            Toi::At(0.25),
        ),
        c(
            "non-unit normal: slab |2y| <= 1",
            v(0.0, 3.0, 0.0),
            1.0,
            v(0.0, -4.0, 0.0),
            v(0.0, 2.0, 0.0),
            0.0,
            Toi::At(0.625),
        ),
        c(
            "zero normal, |d| <= r: everywhere",
            v(0.0, 3.0, 0.0),
            1.0,
            v(0.0, -4.0, 0.0),
            Vec3::ZERO,
            0.5,
            Toi::At(0.0),
        ),
        c(
            "zero normal, |d| > r: nowhere",
            v(0.0, 3.0, 0.0),
            1.0,
            v(0.0, -4.0, 0.0),
            Vec3::ZERO,
            2.0,
            Toi::Miss,
        ),
        c(
            "offset plane, -0.0 coordinates",
            v(-0.0, 5.0, -0.0),
            1.0,
            v(-0.0, -2.0, -0.0),
            y,
            2.0,
            Toi::At(1.0),
        ),
        c(
            "tiny scale",
            v(0.0, 3.0 * TINY, 0.0),
            TINY,
            v(0.0, -4.0 * TINY, 0.0),
            y,
            0.0,
            Toi::At(0.5),
        ),
        c(
            "large scale 2^36",
            v(0.0, 3.0 * 68719476736.0, 0.0),
            68719476736.0,
            v(0.0, -4.0 * 68719476736.0, 0.0),
            y,
            0.0,
            Toi::At(0.5),
        ),
        c(
            "oblique non-unit normal",
            v(2.0, 1.0, 1.0),
            1.0,
            v(-2.0, -2.0, -2.0),
            v(1.0, 1.0, 1.0),
            0.0,
            Toi::At(0.5),
        ),
        c(
            "negative radius is empty",
            v(0.0, 0.0, 0.0),
            -1.0,
            v(0.0, 1.0, 0.0),
            y,
            0.0,
            Toi::Invalid,
        ),
        c("NaN center", v(NAN, 0.0, 0.0), 1.0, v(0.0, 1.0, 0.0), y, 0.0, Toi::Invalid),
        c("infinite motion", v(0.0, 3.0, 0.0), 1.0, v(0.0, -INF, 0.0), y, 0.0, Toi::Invalid),
        c("NaN plane offset", v(0.0, 3.0, 0.0), 1.0, v(0.0, -4.0, 0.0), y, NAN, Toi::Invalid),
        c("infinite radius", v(0.0, 3.0, 0.0), INF, v(0.0, -4.0, 0.0), y, 0.0, Toi::Invalid),
        c(
            "huge 1e20: no panic",
            v(HUGE, HUGE, HUGE),
            HUGE,
            v(-HUGE, -HUGE, -HUGE),
            v(HUGE, 1.0, 1.0),
            HUGE,
            Toi::Unchecked,
        ),
    ]
}

/// Moving sphere vs moving sphere.
#[derive(Clone, Copy, Debug)]
pub struct SphereSphereCase {
    pub label: &'static str,
    pub a: Sphere,
    pub da: Vec3,
    pub b: Sphere,
    pub db: Vec3,
    pub expect: Toi,
}

pub fn sphere_sphere_cases() -> Vec<SphereSphereCase> {
    let c = |label, a: Sphere, da: Vec3, b: Sphere, db: Vec3, expect| SphereSphereCase {
        label,
        a,
        da,
        b,
        db,
        expect,
    };
    let s = Sphere::new;
    let z = Vec3::ZERO;
    let o = s(z, 1.0);
    vec![
        c(
            "head-on, both moving, touch at t = 1",
            o,
            v(4.0, 0.0, 0.0),
            s(v(10.0, 0.0, 0.0), 1.0),
            v(-4.0, 0.0, 0.0),
            Toi::At(1.0),
        ),
        c("head-on, touch at 1/2", o, z, s(v(6.0, 0.0, 0.0), 1.0), v(-8.0, 0.0, 0.0), Toi::At(0.5)),
        c(
            "1 ulp short at t = 1",
            o,
            z,
            s(v(6.0, 0.0, 0.0), 1.0),
            v(nudge(-4.0, 1), 0.0, 0.0),
            Toi::Miss,
        ),
        c(
            "chord pass, irrational root",
            o,
            z,
            s(v(-8.0, 0.5, 0.0), 0.0),
            v(16.0, 0.0, 0.0),
            Toi::Hit,
        ),
        c(
            "grazing tangent at 1/2 (discriminant exactly 0)",
            o,
            z,
            s(v(-4.0, 0.0, 3.0), 2.0),
            v(8.0, 0.0, 0.0),
            Toi::At(0.5),
        ),
        c(
            "passing tangentially at distance exactly r",
            o,
            z,
            s(v(-4.0, 2.0, 0.0), 1.0),
            v(8.0, 0.0, 0.0),
            Toi::At(0.5),
        ),
        c(
            "passing 1 ulp too far",
            o,
            z,
            s(v(-4.0, nudge(2.0, 1), 0.0), 1.0),
            v(8.0, 0.0, 0.0),
            Toi::Miss,
        ),
        c(
            "closest approach after t = 1, touches at 1",
            o,
            z,
            s(v(12.0, 0.0, 0.0), 2.0),
            v(-9.0, 0.0, 0.0),
            Toi::At(1.0),
        ),
        c(
            "closest approach after t = 1, misses",
            o,
            z,
            s(v(12.0, 0.0, 0.0), 2.0),
            v(nudge(-9.0, 1), 0.0, 0.0),
            Toi::Miss,
        ),
        c(
            "touching at start, moving apart",
            o,
            z,
            s(v(2.0, 0.0, 0.0), 1.0),
            v(1.0, 0.0, 0.0),
            Toi::At(0.0),
        ),
        c("concentric", o, z, s(z, 0.0), v(5.0, 5.0, 5.0), Toi::At(0.0)),
        c(
            "no relative motion, apart",
            o,
            v(1.0, 1.0, 1.0),
            s(v(5.0, 0.0, 0.0), 1.0),
            v(1.0, 1.0, 1.0),
            Toi::Miss,
        ),
        c("moving apart", o, z, s(v(5.0, 0.0, 0.0), 1.0), v(1.0, 0.0, 0.0), Toi::Miss),
        c(
            "point spheres meet",
            s(z, 0.0),
            z,
            s(v(1.0, 2.0, 2.0), 0.0),
            v(-2.0, -4.0, -4.0),
            Toi::At(0.5),
        ),
        c(
            "point spheres miss by one ulp",
            s(z, 0.0),
            z,
            s(v(1.0, 2.0, nudge(2.0, 1)), 0.0),
            v(-2.0, -4.0, -4.0),
            Toi::Miss,
        ),
        c(
            "-0.0 coordinates",
            s(v(-0.0, -0.0, -0.0), 1.0),
            z,
            s(v(0.0, 6.0, 0.0), 1.0),
            v(-0.0, -8.0, 0.0),
            Toi::At(0.5),
        ),
        c(
            "tiny scale 2^-50",
            s(z, TINY),
            z,
            s(v(6.0 * TINY, 0.0, 0.0), TINY),
            v(-8.0 * TINY, 0.0, 0.0),
            Toi::At(0.5),
        ),
        c(
            "large scale 2^36",
            s(z, 68719476736.0),
            z,
            s(v(6.0 * 68719476736.0, 0.0, 0.0), 68719476736.0),
            v(-8.0 * 68719476736.0, 0.0, 0.0),
            Toi::At(0.5),
        ),
        c("negative radius is empty", s(z, -1.0), z, s(z, 5.0), z, Toi::Invalid),
        c("NaN center", s(v(0.0, NAN, 0.0), 1.0), z, s(z, 1.0), z, Toi::Invalid),
        c("NaN motion", o, v(NAN, 0.0, 0.0), s(v(1.0, 0.0, 0.0), 1.0), z, Toi::Invalid),
        c("infinite radius", o, z, s(z, INF), z, Toi::Invalid),
        c(
            "huge 1e20: no panic",
            s(v(HUGE, 0.0, 0.0), HUGE),
            z,
            s(v(-HUGE, 0.0, 0.0), HUGE),
            v(HUGE, HUGE, 0.0),
            Toi::Unchecked,
        ),
    ]
}

/// Moving sphere vs static triangle.
#[derive(Clone, Copy, Debug)]
pub struct SphereTriangleCase {
    pub label: &'static str,
    pub s: Sphere,
    pub d: Vec3,
    pub tri: Triangle,
    pub expect: Toi,
}

pub fn sphere_triangle_cases() -> Vec<SphereTriangleCase> {
    let t0 = Triangle::new(Vec3::ZERO, v(4.0, 0.0, 0.0), v(0.0, 4.0, 0.0));
    let c = |label, center: Vec3, r: f32, d: Vec3, tri: Triangle, expect| SphereTriangleCase {
        label,
        s: Sphere::new(center, r),
        d,
        tri,
        expect,
    };
    let seg = Triangle::new(Vec3::ZERO, v(2.0, 0.0, 0.0), v(4.0, 0.0, 0.0));
    let pt = Triangle::new(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0));
    let sliver = Triangle::new(Vec3::ZERO, v(4.0, 0.0, 0.0), v(2.0, 1.0 / 1048576.0, 0.0));
    vec![
        c(
            "face contact from above at 1/2",
            v(1.0, 1.0, 5.0),
            1.0,
            v(0.0, 0.0, -8.0),
            t0,
            Toi::At(0.5),
        ),
        c("face contact from below", v(1.0, 1.0, -5.0), 1.0, v(0.0, 0.0, 8.0), t0, Toi::At(0.5)),
        c(
            "face contact exactly at t = 1",
            v(1.0, 1.0, 5.0),
            1.0,
            v(0.0, 0.0, -4.0),
            t0,
            Toi::At(1.0),
        ),
        c(
            "face 1 ulp short at t = 1",
            v(1.0, 1.0, 5.0),
            1.0,
            v(0.0, 0.0, nudge(-4.0, 1)),
            t0,
            Toi::Miss,
        ),
        c(
            "grazes edge ca (x = 0) at 1/2",
            v(-1.0, 1.0, 5.0),
            1.0,
            v(0.0, 0.0, -10.0),
            t0,
            Toi::At(0.5),
        ),
        c(
            "misses edge ca by 1 ulp",
            v(nudge(-1.0, -1), 1.0, 5.0),
            1.0,
            v(0.0, 0.0, -10.0),
            t0,
            Toi::Miss,
        ),
        c(
            "hits vertex a's ball, 3-4-5",
            v(-3.0, -4.0, 8.0),
            5.0,
            v(0.0, 0.0, -16.0),
            t0,
            Toi::At(0.5),
        ),
        c("hits hypotenuse edge side-on", v(5.0, 5.0, 0.0), 1.0, v(-4.0, -4.0, 0.0), t0, Toi::Hit),
        c(
            "slides in the plane, touching the face",
            v(1.0, 1.0, 1.0),
            1.0,
            v(20.0, 0.0, 0.0),
            t0,
            Toi::At(0.0),
        ),
        c(
            "moves parallel above, 1 ulp too high",
            v(1.0, 1.0, nudge(1.0, 1)),
            1.0,
            v(1.0, 1.0, 0.0),
            t0,
            Toi::Miss,
        ),
        c("starts inside the prism", v(1.0, 1.0, 0.5), 1.0, v(0.0, 0.0, 9.0), t0, Toi::At(0.0)),
        c(
            "center passes through the triangle (r = 0)",
            v(1.0, 1.0, 2.0),
            0.0,
            v(0.0, 0.0, -4.0),
            t0,
            Toi::At(0.5),
        ),
        c(
            "r = 0 passes through edge ab exactly",
            v(2.0, 0.0, 2.0),
            0.0,
            v(0.0, 0.0, -4.0),
            t0,
            Toi::At(0.5),
        ),
        c(
            "r = 0 misses edge ab by 1 ulp",
            v(2.0, nudge(0.0, -1), 2.0),
            0.0,
            v(0.0, 0.0, -4.0),
            t0,
            Toi::Miss,
        ),
        c("moving away", v(1.0, 1.0, 5.0), 1.0, v(0.0, 0.0, 8.0), t0, Toi::Miss),
        c("no motion, apart", v(1.0, 1.0, 5.0), 1.0, Vec3::ZERO, t0, Toi::Miss),
        c(
            "degenerate collinear triangle is its segment",
            v(3.0, 3.0, 0.0),
            1.0,
            v(0.0, -4.0, 0.0),
            seg,
            Toi::At(0.5),
        ),
        c("degenerate point triangle", v(1.0, 1.0, 5.0), 1.0, v(0.0, 0.0, -6.0), pt, Toi::At(0.5)),
        c("-0.0 coordinates", v(-0.0, 1.0, 5.0), 1.0, v(-0.0, -0.0, -8.0), t0, Toi::At(0.5)),
        c(
            "tiny scale 2^-24",
            v(1.0 / 16777216.0, 1.0 / 16777216.0, 5.0 / 16777216.0),
            1.0 / 16777216.0,
            v(0.0, 0.0, -8.0 / 16777216.0),
            Triangle::new(Vec3::ZERO, v(4.0 / 16777216.0, 0.0, 0.0), v(0.0, 4.0 / 16777216.0, 0.0)),
            Toi::At(0.5),
        ),
        c(
            "large scale 2^30",
            v(1073741824.0, 1073741824.0, 5.0 * 1073741824.0),
            1073741824.0,
            v(0.0, 0.0, -8.0 * 1073741824.0),
            Triangle::new(
                Vec3::ZERO,
                v(4.0 * 1073741824.0, 0.0, 0.0),
                v(0.0, 4.0 * 1073741824.0, 0.0),
            ),
            Toi::At(0.5),
        ),
        c(
            "sliver triangle (apex 2^-20 off the base), falls onto its apex side",
            v(2.0, 0.5, 5.0),
            1.0,
            v(0.0, 0.0, -10.0),
            sliver,
            Toi::Hit,
        ),
        c(
            "sliver triangle, passes beside it",
            v(2.0, 1.5, 5.0),
            1.0,
            v(0.0, 0.0, -10.0),
            sliver,
            Toi::Miss,
        ),
        c(
            "sliver triangle, r = 0 through its interior",
            v(2.0, 1.0 / 4194304.0, 1.0),
            0.0,
            v(0.0, 0.0, -2.0),
            sliver,
            Toi::At(0.5),
        ),
        c("negative radius", v(1.0, 1.0, 0.0), -1.0, Vec3::ZERO, t0, Toi::Invalid),
        c(
            "NaN vertex",
            v(1.0, 1.0, 5.0),
            1.0,
            v(0.0, 0.0, -8.0),
            Triangle::new(v(NAN, 0.0, 0.0), v(4.0, 0.0, 0.0), v(0.0, 4.0, 0.0)),
            Toi::Invalid,
        ),
        c("infinite motion", v(1.0, 1.0, 5.0), 1.0, v(0.0, 0.0, -INF), t0, Toi::Invalid),
        c(
            "huge 1e20: no panic",
            v(HUGE, HUGE, HUGE),
            1.0,
            v(-HUGE, -HUGE, -HUGE),
            Triangle::new(v(-HUGE, 0.0, 0.0), v(HUGE, 0.0, 0.0), v(0.0, HUGE, 0.0)),
            Toi::Unchecked,
        ),
    ]
}

/// Moving sphere vs static AABB.
#[derive(Clone, Copy, Debug)]
pub struct SphereAabbCase {
    pub label: &'static str,
    pub s: Sphere,
    pub d: Vec3,
    pub b: Aabb,
    pub expect: Toi,
}

pub fn sphere_aabb_cases() -> Vec<SphereAabbCase> {
    let c = |label, center: Vec3, r: f32, d: Vec3, b: Aabb, expect| SphereAabbCase {
        label,
        s: Sphere::new(center, r),
        d,
        b,
        expect,
    };
    // A non-cubic box: the seed's Corner() returns min or max only, so edges and
    // vertices other than those two are wrong with it.
    let nb = bx([0.0, 0.0, 0.0], [2.0, 4.0, 8.0]);
    vec![
        c("face contact at 1/2", v(-3.0, 0.5, 0.5), 1.0, v(4.0, 0.0, 0.0), unit(), Toi::At(0.5)),
        c("face contact at t = 1", v(-3.0, 0.5, 0.5), 1.0, v(2.0, 0.0, 0.0), unit(), Toi::At(1.0)),
        c(
            "face 1 ulp short",
            v(-3.0, 0.5, 0.5),
            1.0,
            v(nudge(2.0, -1), 0.0, 0.0),
            unit(),
            Toi::Miss,
        ),
        c("passes the rounded edge", v(-1.0, 1.9, 0.5), 1.0, v(0.1, 0.0, 0.0), unit(), Toi::Miss),
        c(
            "edge region: hits the x-edge capsule, 3-4-5",
            v(1.0, 12.0, -3.0),
            5.0,
            v(0.0, -16.0, 0.0),
            nb,
            Toi::At(0.25),
        ),
        c(
            "edge (max.x, max.y) z-edge of the non-cubic box (Corner erratum)",
            v(6.0, 8.0, 4.0),
            5.0,
            v(-4.0, 0.0, 0.0),
            nb,
            Toi::At(0.25),
        ),
        c(
            "edge (min.x, max.y): misses by 1 ulp",
            v(-3.0, nudge(8.0, 1), 4.0),
            5.0,
            v(0.0, 0.0, 0.5),
            nb,
            Toi::Miss,
        ),
        c(
            "vertex (max.x, min.y, max.z) ball, 3-4-5 (Corner erratum)",
            v(5.0, -4.0, 20.0),
            5.0,
            v(0.0, 0.0, -16.0),
            nb,
            Toi::At(0.75),
        ),
        c(
            "vertex (min.x, max.y, min.z) ball (Corner erratum)",
            v(-3.0, 8.0, -8.0),
            5.0,
            v(0.0, 0.0, 8.0),
            nb,
            Toi::At(1.0),
        ),
        c(
            "vertex region entry, misses all three capsules",
            v(3.0, 5.0, 9.0),
            1.0,
            v(0.25, -0.25, 0.25),
            nb,
            Toi::Miss,
        ),
        c("starts overlapping", v(0.5, 0.5, 0.5), 0.25, v(9.0, 9.0, 9.0), unit(), Toi::At(0.0)),
        c(
            "starts touching a vertex",
            v(2.0, 0.0, 0.0),
            1.0,
            v(9.0, 0.0, 0.0),
            unit(),
            Toi::At(0.0),
        ),
        c(
            "starts in edge block of grown box, outside capsule, moving in",
            v(1.9, 1.9, 0.5),
            1.0,
            v(-2.0, -2.0, 0.0),
            unit(),
            Toi::Hit,
        ),
        c("no motion, apart", v(3.0, 0.5, 0.5), 1.0, Vec3::ZERO, unit(), Toi::Miss),
        c("no motion, touching face", v(2.0, 0.5, 0.5), 1.0, Vec3::ZERO, unit(), Toi::At(0.0)),
        c(
            "r = 0, point moves through box corner",
            v(-1.0, -1.0, -1.0),
            0.0,
            v(2.0, 2.0, 2.0),
            unit(),
            Toi::At(0.5),
        ),
        c(
            "flat box (zero z extent)",
            v(0.5, 0.5, 3.0),
            1.0,
            v(0.0, 0.0, -4.0),
            bx([0.0; 3], [1.0, 1.0, 0.0]),
            Toi::At(0.5),
        ),
        c(
            "point box",
            v(0.0, 0.0, 4.0),
            1.0,
            v(0.0, 0.0, -6.0),
            bx([0.0; 3], [0.0; 3]),
            Toi::At(0.5),
        ),
        c(
            "-0.0 bounds",
            v(-3.0, -0.0, -0.0),
            1.0,
            v(4.0, 0.0, 0.0),
            bx([-0.0; 3], [0.0; 3]),
            Toi::At(0.5),
        ),
        c(
            "tiny scale 2^-24",
            v(-3.0 / 16777216.0, 0.5 / 16777216.0, 0.5 / 16777216.0),
            1.0 / 16777216.0,
            v(4.0 / 16777216.0, 0.0, 0.0),
            bx([0.0; 3], [1.0 / 16777216.0; 3]),
            Toi::At(0.5),
        ),
        c(
            "large scale 2^36",
            v(-3.0 * 68719476736.0, 0.0, 0.0),
            68719476736.0,
            v(4.0 * 68719476736.0, 0.0, 0.0),
            bx([0.0; 3], [68719476736.0; 3]),
            Toi::At(0.5),
        ),
        c("inverted box", v(0.5, 0.5, 0.5), 1.0, Vec3::ZERO, bx([1.0; 3], [0.0; 3]), Toi::Invalid),
        c("NaN radius", v(0.5, 0.5, 0.5), NAN, Vec3::ZERO, unit(), Toi::Invalid),
        c("infinite box", v(0.5, 0.5, 0.5), 1.0, Vec3::ZERO, bx([-INF; 3], [INF; 3]), Toi::Invalid),
        c(
            "huge 1e20: no panic",
            v(-HUGE, 0.0, 0.0),
            HUGE,
            v(HUGE, HUGE, 0.0),
            bx([0.0; 3], [HUGE; 3]),
            Toi::Unchecked,
        ),
    ]
}

/// A point set for the bounding-volume builders.
#[derive(Clone, Debug)]
pub struct PointSetCase {
    pub label: &'static str,
    pub points: Vec<Vec3>,
    /// Whether the builders must return a volume (`false`: empty or non-finite
    /// input, which is rejected).
    pub expect_some: bool,
    /// Coordinates within `COORD_LIMIT` (tightness is checked only then).
    pub in_range: bool,
}

pub fn point_set_cases() -> Vec<PointSetCase> {
    let c = |label, points: Vec<Vec3>, expect_some, in_range| PointSetCase {
        label,
        points,
        expect_some,
        in_range,
    };
    let cube: Vec<Vec3> =
        (0..8).map(|i| v((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32)).collect();
    let far = 1_048_576.0f32; // 2^20
    vec![
        c("empty", vec![], false, true),
        c("single point", vec![v(1.0, 2.0, 3.0)], true, true),
        c("duplicates", vec![v(1.0, 2.0, 3.0); 5], true, true),
        c("two points", vec![v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)], true, true),
        c(
            "collinear on a diagonal",
            (0..6).map(|i| v(i as f32, i as f32, i as f32)).collect(),
            true,
            true,
        ),
        c(
            "coplanar square",
            vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0), v(1.0, 1.0, 0.0)],
            true,
            true,
        ),
        c("unit cube corners", cube.clone(), true, true),
        c(
            "regular tetrahedron-ish",
            vec![v(1.0, 1.0, 1.0), v(1.0, -1.0, -1.0), v(-1.0, 1.0, -1.0), v(-1.0, -1.0, 1.0)],
            true,
            true,
        ),
        c(
            "cube corners plus center (repeated)",
            cube.iter().copied().chain([v(0.5, 0.5, 0.5); 3]).collect(),
            true,
            true,
        ),
        c("-0.0 and +0.0", vec![v(-0.0, 0.0, -0.0), v(0.0, -0.0, 0.0)], true, true),
        c(
            "tiny coordinates",
            vec![v(1e-30, 0.0, 0.0), v(0.0, 3e-30, -2e-30), v(f32::from_bits(1), 0.0, 0.0)],
            true,
            true,
        ),
        c(
            "small cluster far from the origin",
            (0..9)
                .map(|i| {
                    v(
                        far + i as f32 * 0.125,
                        far - (i % 3) as f32 * 0.25,
                        -far + (i % 2) as f32 * 0.0625,
                    )
                })
                .collect(),
            true,
            true,
        ),
        c(
            "large coordinates at 2^39",
            vec![v(5.0e11, -5.0e11, 1.0), v(-5.0e11, 5.0e11, 3.0), v(0.0, 0.0, 5.0e11)],
            true,
            true,
        ),
        c(
            "huge 1e20 (beyond COORD_LIMIT)",
            vec![v(1e20, -1e20, 0.0), v(-1e20, 1e20, 1e20)],
            true,
            false,
        ),
        c("f32::MAX extremes", vec![v(f32::MAX, 0.0, 0.0), v(-f32::MAX, 0.0, 0.0)], true, false),
        c("NaN point is rejected", vec![v(0.0, 0.0, 0.0), v(f32::NAN, 1.0, 1.0)], false, true),
        c(
            "infinite point is rejected",
            vec![v(0.0, 0.0, 0.0), v(1.0, f32::INFINITY, 1.0)],
            false,
            true,
        ),
    ]
}
