//! Case tables of the closest-point family: what breaks closest-point code —
//! touching at vertices, edges and faces, ±1 ulp around contact, obtuse
//! triangles (Ericson's Figure 5.6 trap), parallel and collinear segments,
//! degenerate shapes, -0.0, tiny and huge coordinates, NaN and infinities.
//!
//! `expect` is the answer under exact arithmetic on the f32 inputs:
//! [`Expect::SqDist`] a hand-derived exact squared distance (the tests also
//! confirm it with the exact reference), [`Expect::Ref`] "whatever the exact
//! reference says" (for nudged inputs whose exact value is not a round
//! number), [`Expect::Nan`] for invalid input, [`Expect::NoPanic`] beyond
//! `COORD_LIMIT` (only "no panic" and the NaN rule are promised there).

use crate::common::rng::nudge;
use widephase::{Aabb, Obb, Plane, Rect3, Segment, Sphere, Tetrahedron, Triangle, Vec3};

/// Expected result of a distance query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    /// Exact squared distance.
    SqDist(f64),
    /// The exact reference decides.
    Ref,
    /// Invalid input: NaN / None.
    Nan,
    /// Beyond `COORD_LIMIT`: no panic, nothing else promised.
    NoPanic,
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

fn s2(v: Vec3, e: i32) -> Vec3 {
    crate::common::rng::scale_pow2(v, e)
}

/// The right triangle (0,0,0), (2,0,0), (0,2,0) used by many rows.
pub fn right_tri() -> Triangle {
    Triangle::new(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0))
}

#[derive(Clone, Copy, Debug)]
pub struct PointTriangleCase {
    pub label: &'static str,
    pub p: Vec3,
    pub tri: Triangle,
    pub expect: Expect,
}

pub fn point_triangle_cases() -> Vec<PointTriangleCase> {
    use Expect::*;
    let t = right_tri();
    let c = |label, p, tri, expect| PointTriangleCase { label, p, tri, expect };
    let obtuse = Triangle::new(v(0.0, 0.0, 0.0), v(8.0, 0.0, 0.0), v(-4.0, 1.0, 0.0));
    let a_eq_b = Triangle::new(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(3.0, 1.0, 1.0));
    let point_tri = Triangle::new(v(1.0, 2.0, 3.0), v(1.0, 2.0, 3.0), v(1.0, 2.0, 3.0));
    let collinear = Triangle::new(v(0.0, 0.0, 0.0), v(4.0, 0.0, 0.0), v(1.0, 0.0, 0.0));
    let sliver = Triangle::new(v(0.0, 0.0, 0.0), v(4.0, 0.0, 0.0), v(2.0, f32::EPSILON, 0.0));
    let tiny = Triangle::new(s2(t.a, -70), s2(t.b, -70), s2(t.c, -70));
    let big = Triangle::new(s2(t.a, 36), s2(t.b, 36), s2(t.c, 36));
    let huge = Triangle::new(v(1e20, 0.0, 0.0), v(1e20, 1e20, 0.0), v(0.0, 0.0, 1e20));
    vec![
        c("vertex a itself", v(0.0, 0.0, 0.0), t, SqDist(0.0)),
        c("vertex b itself", v(2.0, 0.0, 0.0), t, SqDist(0.0)),
        c("vertex c itself", v(0.0, 2.0, 0.0), t, SqDist(0.0)),
        c("region A", v(-1.0, -1.0, 0.0), t, SqDist(2.0)),
        c("region A above", v(-1.0, -2.0, 2.0), t, SqDist(9.0)),
        c("region B", v(3.0, -1.0, 0.0), t, SqDist(2.0)),
        c("region C", v(-1.0, 4.0, 1.0), t, SqDist(6.0)),
        c("region AB", v(1.0, -3.0, 0.0), t, SqDist(9.0)),
        c("region AB above", v(1.0, -3.0, 4.0), t, SqDist(25.0)),
        c("region CA", v(-3.0, 1.0, 0.0), t, SqDist(9.0)),
        c("region BC (hypotenuse)", v(2.0, 2.0, 0.0), t, SqDist(2.0)),
        c("on hypotenuse midpoint", v(1.0, 1.0, 0.0), t, SqDist(0.0)),
        c("on edge AB", v(0.5, 0.0, 0.0), t, SqDist(0.0)),
        c("on edge AB with -0.0", v(0.5, -0.0, -0.0), t, SqDist(0.0)),
        c("inside the face", v(0.5, 0.5, 0.0), t, SqDist(0.0)),
        c("above the face", v(0.5, 0.5, 4.0), t, SqDist(16.0)),
        c("below the face", v(0.25, 1.0, -3.0), t, SqDist(9.0)),
        c("1 ulp outside edge AB", v(0.5, nudge(0.0, -1), 0.0), t, Ref),
        c("1 ulp inside edge AB", v(0.5, nudge(0.0, 1), 0.0), t, SqDist(0.0)),
        c("1 ulp past vertex b", v(nudge(2.0, 1), 0.0, 0.0), t, Ref),
        c("1 ulp outside hypotenuse", v(1.0, nudge(1.0, 1), 0.0), t, Ref),
        c("AB/A region boundary", v(0.0, -1.0, 0.0), t, SqDist(1.0)),
        c("BC/B region boundary", v(3.0, 1.0, 0.0), t, SqDist(2.0)),
        c("obtuse: outside AB but in CA region (Fig 5.6)", v(-3.0, -1.0, 0.0), obtuse, Ref),
        c("obtuse: under the obtuse vertex", v(0.0, -5.0, 0.0), obtuse, SqDist(25.0)),
        c("degenerate a == b, point off", v(2.0, 3.0, 1.0), a_eq_b, SqDist(4.0)),
        c("degenerate a == b, beyond c", v(5.0, 1.0, 1.0), a_eq_b, SqDist(4.0)),
        c("degenerate a == b, before a", v(0.0, 1.0, 1.0), a_eq_b, SqDist(1.0)),
        c("degenerate a == b == c", v(1.0, 2.0, 5.0), point_tri, SqDist(4.0)),
        c("collinear, c between a and b", v(3.0, 2.0, 0.0), collinear, SqDist(4.0)),
        c("collinear, beyond b", v(6.0, 0.0, 0.0), collinear, SqDist(4.0)),
        c("collinear, on the segment", v(2.0, 0.0, 0.0), collinear, SqDist(0.0)),
        c("sliver, point above", v(2.0, 0.0, 1.0), sliver, SqDist(1.0)),
        c("sliver, point beside", v(2.0, -1.0, 0.0), sliver, SqDist(1.0)),
        c("tiny scale 2^-70 region BC", s2(v(2.0, 2.0, 0.0), -70), tiny, Ref),
        c("tiny scale 2^-70 above", s2(v(0.5, 0.5, 4.0), -70), tiny, Ref),
        c(
            "large scale 2^36 region AB",
            s2(v(1.0, -3.0, 0.0), 36),
            big,
            SqDist(9.0 * 2f64.powi(72)),
        ),
        c("large scale 2^36 face", s2(v(0.5, 0.5, 4.0), 36), big, SqDist(16.0 * 2f64.powi(72))),
        c("huge 1e20 triangle", v(0.0, 1e20, 0.0), huge, NoPanic),
        c("huge 1e20 point", v(1e20, -1e20, 3.0), t, NoPanic),
        c("NaN point", v(NAN, 0.0, 0.0), t, Nan),
        c("NaN vertex", v(0.0, 0.0, 0.0), Triangle::new(v(0.0, NAN, 0.0), t.b, t.c), Nan),
        c("inf point", v(INF, 0.0, 0.0), t, Nan),
        c("-inf vertex", v(0.0, 0.0, 0.0), Triangle::new(t.a, t.b, v(0.0, 0.0, -INF)), Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct SphereTriangleCase {
    pub label: &'static str,
    pub sphere: Sphere,
    pub tri: Triangle,
    /// Exact answer; `None` beyond `COORD_LIMIT` (no panic; NaN rule only).
    pub hit: Option<bool>,
}

pub fn sphere_triangle_cases() -> Vec<SphereTriangleCase> {
    let t = right_tri();
    let sp = |c: Vec3, r: f32| Sphere::new(c, r);
    let c = |label, sphere, tri, hit| SphereTriangleCase { label, sphere, tri, hit };
    let a_eq_b = Triangle::new(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(3.0, 1.0, 1.0));
    let big = Triangle::new(s2(t.a, 36), s2(t.b, 36), s2(t.c, 36));
    let tiny = Triangle::new(s2(t.a, -60), s2(t.b, -60), s2(t.c, -60));
    vec![
        c("touching the face", sp(v(0.5, 0.5, 1.0), 1.0), t, Some(true)),
        c("1 ulp short of the face", sp(v(0.5, 0.5, 1.0), nudge(1.0, -1)), t, Some(false)),
        c("1 ulp into the face", sp(v(0.5, 0.5, 1.0), nudge(1.0, 1)), t, Some(true)),
        c("touching edge AB from below", sp(v(1.0, -3.0, 0.0), 3.0), t, Some(true)),
        c("1 ulp short of edge AB", sp(v(1.0, -3.0, 0.0), nudge(3.0, -1)), t, Some(false)),
        c("touching vertex c", sp(v(0.0, 5.0, 0.0), 3.0), t, Some(true)),
        c("1 ulp short of vertex c", sp(v(0.0, 5.0, 0.0), nudge(3.0, -1)), t, Some(false)),
        c(
            "touching hypotenuse (r = sqrt 2 rounded up)",
            sp(v(2.0, 2.0, 0.0), nudge(std::f32::consts::SQRT_2, 1)),
            t,
            Some(true),
        ),
        c(
            "short of hypotenuse (r = sqrt 2 rounded down)",
            sp(v(2.0, 2.0, 0.0), std::f32::consts::SQRT_2),
            t,
            Some(false),
        ),
        c("center on the face, r = 0", sp(v(0.5, 0.5, 0.0), 0.0), t, Some(true)),
        c("center on the face, r = -0.0", sp(v(0.5, 0.5, 0.0), -0.0), t, Some(true)),
        c("center off, r = 0", sp(v(0.5, 0.5, 0.5), 0.0), t, Some(false)),
        c("negative radius is empty", sp(v(0.5, 0.5, 0.0), -1.0), t, Some(false)),
        c("triangle inside a big sphere", sp(v(0.5, 0.5, 0.0), 100.0), t, Some(true)),
        c("degenerate a == b touching", sp(v(2.0, 3.0, 1.0), 2.0), a_eq_b, Some(true)),
        c("degenerate a == b short", sp(v(2.0, 3.0, 1.0), nudge(2.0, -1)), a_eq_b, Some(false)),
        c("large 2^36 touching", sp(s2(v(0.5, 0.5, 1.0), 36), 2f32.powi(36)), big, Some(true)),
        c(
            "large 2^36 short",
            sp(s2(v(0.5, 0.5, 1.0), 36), nudge(2f32.powi(36), -1)),
            big,
            Some(false),
        ),
        c("tiny 2^-60 touching", sp(s2(v(0.5, 0.5, 1.0), -60), 2f32.powi(-60)), tiny, Some(true)),
        c(
            "tiny 2^-60 clearly apart",
            sp(s2(v(0.5, 0.5, 3.0), -60), 2f32.powi(-60)),
            tiny,
            Some(false),
        ),
        c("huge 1e20 center", sp(v(1e20, 0.0, 0.0), 1.0), t, None),
        c("huge 1e20 radius", sp(v(0.0, 0.0, 5.0), 1e20), t, None),
        c("NaN center", sp(v(NAN, 0.0, 0.0), 1.0), t, Some(false)),
        c("NaN radius", sp(v(0.5, 0.5, 0.0), NAN), t, Some(false)),
        c("inf radius", sp(v(0.5, 0.5, 0.0), INF), t, Some(false)),
        c(
            "inf vertex",
            sp(v(0.5, 0.5, 0.0), 1.0),
            Triangle::new(t.a, v(INF, 0.0, 0.0), t.c),
            Some(false),
        ),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct PointAabbCase {
    pub label: &'static str,
    pub p: Vec3,
    pub aabb: Aabb,
    pub expect: Expect,
}

pub fn point_aabb_cases() -> Vec<PointAabbCase> {
    use Expect::*;
    let b = Aabb::new(v(0.0, 0.0, 0.0), v(1.0, 2.0, 3.0));
    let c = |label, p, aabb, expect| PointAabbCase { label, p, aabb, expect };
    vec![
        c("inside", v(0.5, 0.5, 0.5), b, SqDist(0.0)),
        c("on a face", v(1.0, 0.5, 0.5), b, SqDist(0.0)),
        c("on a corner", v(1.0, 2.0, 3.0), b, SqDist(0.0)),
        c("-0.0 on the min face", v(-0.0, 1.0, 1.0), b, SqDist(0.0)),
        c("face region", v(4.0, 1.0, 1.0), b, SqDist(9.0)),
        c("edge region", v(-1.0, 3.0, 1.0), b, SqDist(2.0)),
        c("corner region", v(2.0, 3.0, 4.0), b, SqDist(3.0)),
        c("1 ulp outside", v(nudge(1.0, 1), 1.0, 1.0), b, Ref),
        c(
            "zero-extent box (a point)",
            v(1.0, 1.0, 1.0),
            Aabb::new(v(0.0, 0.0, 0.0), v(0.0, 0.0, 0.0)),
            SqDist(3.0),
        ),
        c(
            "flat box (a rectangle)",
            v(0.5, 0.5, 2.0),
            Aabb::new(v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)),
            SqDist(4.0),
        ),
        c(
            "tiny",
            v(3.0 * 2f32.powi(-75), 0.0, 0.0),
            Aabb::new(Vec3::ZERO, s2(v(1.0, 1.0, 1.0), -75)),
            Ref,
        ),
        c(
            "large",
            s2(v(3.0, 0.5, 0.5), 38),
            Aabb::new(Vec3::ZERO, s2(v(1.0, 1.0, 1.0), 38)),
            SqDist(4.0 * 2f64.powi(76)),
        ),
        c("huge", v(1e20, 0.0, 0.0), b, NoPanic),
        c(
            "inverted box is empty",
            v(0.0, 0.0, 0.0),
            Aabb::new(v(1.0, 0.0, 0.0), v(0.0, 1.0, 1.0)),
            Nan,
        ),
        c("EMPTY box", v(0.0, 0.0, 0.0), Aabb::EMPTY, Nan),
        c("NaN point", v(0.0, NAN, 0.0), b, Nan),
        c("inf corner", v(0.0, 0.0, 0.0), Aabb::new(v(0.0, 0.0, 0.0), v(INF, 1.0, 1.0)), Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct PointObbCase {
    pub label: &'static str,
    pub p: Vec3,
    pub obb: Obb,
    pub expect: Expect,
}

/// Axes that are exactly orthonormal in f32: a signed permutation.
pub fn perm_axes() -> [Vec3; 3] {
    [v(0.0, 1.0, 0.0), v(0.0, 0.0, -1.0), v(-1.0, 0.0, 0.0)]
}

pub fn point_obb_cases() -> Vec<PointObbCase> {
    use Expect::*;
    let ax = perm_axes();
    let b = Obb::new(v(1.0, 1.0, 1.0), ax, v(1.0, 2.0, 3.0));
    // local x = world y, local y = -world z, local z = -world x
    let c = |label, p, obb, expect| PointObbCase { label, p, obb, expect };
    let rot = {
        // 45° about z, rounded: only orthonormal to f32 precision
        let h = std::f32::consts::FRAC_1_SQRT_2;
        Obb::new(Vec3::ZERO, [v(h, h, 0.0), v(-h, h, 0.0), v(0.0, 0.0, 1.0)], v(1.0, 1.0, 1.0))
    };
    vec![
        c("center", v(1.0, 1.0, 1.0), b, SqDist(0.0)),
        c("on the local +x face", v(1.0, 2.0, 1.0), b, SqDist(0.0)),
        c("outside local x by 2", v(1.0, 4.0, 1.0), b, SqDist(4.0)),
        c("outside local y (world -z) by 1", v(1.0, 1.0, -2.0), b, SqDist(1.0)),
        c("corner region", v(-3.0, 3.0, 4.0), b, SqDist(1.0 + 1.0 + 1.0)),
        c("on a corner", v(-2.0, 2.0, 3.0), b, SqDist(0.0)),
        c("1 ulp outside a face", v(1.0, nudge(2.0, 1), 1.0), b, Ref),
        c(
            "zero half extents (a point)",
            v(3.0, 1.0, 1.0),
            Obb::new(v(1.0, 1.0, 1.0), ax, Vec3::ZERO),
            SqDist(4.0),
        ),
        c("rotated 45°, face region", v(3.0, 3.0, 0.0), rot, Ref),
        c("rotated 45°, corner region", v(0.0, 3.0, 2.0), rot, Ref),
        c(
            "large",
            s2(v(1.0, 4.0, 1.0), 36),
            Obb::new(s2(b.center, 36), ax, s2(b.half, 36)),
            SqDist(4.0 * 2f64.powi(72)),
        ),
        c("huge", v(1e20, 1.0, 1.0), b, NoPanic),
        c(
            "negative half extent is empty",
            v(1.0, 1.0, 1.0),
            Obb::new(v(1.0, 1.0, 1.0), ax, v(1.0, -1.0, 1.0)),
            Nan,
        ),
        c(
            "NaN axis",
            v(1.0, 1.0, 1.0),
            Obb::new(v(1.0, 1.0, 1.0), [v(NAN, 0.0, 0.0), ax[1], ax[2]], b.half),
            Nan,
        ),
        c("inf point", v(1.0, -INF, 1.0), b, Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct PointRectCase {
    pub label: &'static str,
    pub p: Vec3,
    pub rect: Rect3,
    pub expect: Expect,
}

pub fn point_rect_cases() -> Vec<PointRectCase> {
    use Expect::*;
    let r = Rect3 {
        center: v(1.0, 1.0, 1.0),
        u: v(0.0, 0.0, 1.0),
        v: v(-1.0, 0.0, 0.0),
        half_u: 2.0,
        half_v: 1.0,
    };
    // normal u × v = (0, -1, 0)
    let c = |label, p, rect, expect| PointRectCase { label, p, rect, expect };
    vec![
        c("on the center", v(1.0, 1.0, 1.0), r, SqDist(0.0)),
        c("above the center (normal)", v(1.0, 4.0, 1.0), r, SqDist(9.0)),
        c("on an edge", v(1.0, 1.0, 3.0), r, SqDist(0.0)),
        c("on a corner", v(0.0, 1.0, 3.0), r, SqDist(0.0)),
        c("edge region", v(1.0, 1.0, 5.0), r, SqDist(4.0)),
        c("corner region, off plane", v(-1.0, 3.0, 4.0), r, SqDist(1.0 + 4.0 + 1.0)),
        c("1 ulp outside an edge", v(1.0, 1.0, nudge(3.0, 1)), r, Ref),
        c(
            "zero extents (a point)",
            v(1.0, 2.0, 1.0),
            Rect3 { half_u: 0.0, half_v: 0.0, ..r },
            SqDist(1.0),
        ),
        c("zero width (a segment)", v(2.0, 1.0, 1.0), Rect3 { half_v: 0.0, ..r }, SqDist(1.0)),
        c(
            "tiny",
            s2(v(1.0, 4.0, 1.0), -60),
            Rect3 {
                center: s2(r.center, -60),
                half_u: 2f32.powi(-59),
                half_v: 2f32.powi(-60),
                ..r
            },
            Ref,
        ),
        c("huge", v(1e20, 0.0, 0.0), r, NoPanic),
        c("negative half extent is empty", v(1.0, 1.0, 1.0), Rect3 { half_u: -1.0, ..r }, Nan),
        c("NaN u", v(1.0, 1.0, 1.0), Rect3 { u: v(NAN, 0.0, 0.0), ..r }, Nan),
        c("inf point", v(INF, 1.0, 1.0), r, Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct PointTetrahedronCase {
    pub label: &'static str,
    pub p: Vec3,
    pub tet: Tetrahedron,
    pub expect: Expect,
}

pub fn point_tetrahedron_cases() -> Vec<PointTetrahedronCase> {
    use Expect::*;
    let t =
        Tetrahedron { v: [v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0), v(0.0, 0.0, 2.0)] };
    let flipped = Tetrahedron { v: [t.v[1], t.v[0], t.v[2], t.v[3]] };
    let flat =
        Tetrahedron { v: [v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0), v(2.0, 2.0, 0.0)] };
    let line =
        Tetrahedron { v: [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(3.0, 0.0, 0.0), v(2.0, 0.0, 0.0)] };
    let c = |label, p, tet, expect| PointTetrahedronCase { label, p, tet, expect };
    vec![
        c("inside", v(0.25, 0.25, 0.25), t, SqDist(0.0)),
        c("inside, other winding", v(0.25, 0.25, 0.25), flipped, SqDist(0.0)),
        c("on the slanted face", v(1.0, 0.5, 0.5), t, SqDist(0.0)),
        c("on a vertex", v(0.0, 0.0, 2.0), t, SqDist(0.0)),
        c("below face abc", v(0.5, 0.5, -3.0), t, SqDist(9.0)),
        c("below face abc, other winding", v(0.5, 0.5, -3.0), flipped, SqDist(9.0)),
        c("beyond the slanted face", v(2.0, 2.0, 2.0), t, Ref),
        c("vertex region", v(-1.0, -1.0, -1.0), t, SqDist(3.0)),
        c("edge region", v(1.0, -1.0, -1.0), t, SqDist(2.0)),
        c("1 ulp outside face abc", v(0.5, 0.5, nudge(0.0, -1)), t, Ref),
        c("flat: point above the square", v(1.0, 1.0, 3.0), flat, SqDist(9.0)),
        c("flat: point in the square", v(1.5, 1.5, 0.0), flat, SqDist(0.0)),
        c("flat: point beside", v(3.0, 1.0, 0.0), flat, SqDist(1.0)),
        c("collinear vertices", v(1.5, 2.0, 0.0), line, SqDist(4.0)),
        c("huge", v(1e20, 0.0, 0.0), t, NoPanic),
        c(
            "NaN vertex",
            v(0.0, 0.0, 0.0),
            Tetrahedron { v: [t.v[0], t.v[1], t.v[2], v(0.0, NAN, 0.0)] },
            Nan,
        ),
        c("inf point", v(0.0, INF, 0.0), t, Nan),
    ]
}

#[derive(Clone, Debug)]
pub struct PointPolyhedronCase {
    pub label: &'static str,
    pub p: Vec3,
    pub planes: Vec<Plane>,
    pub expect: Expect,
}

pub fn cube_planes(lo: f32, hi: f32) -> Vec<Plane> {
    vec![
        Plane::new(v(1.0, 0.0, 0.0), hi),
        Plane::new(v(-1.0, 0.0, 0.0), -lo),
        Plane::new(v(0.0, 1.0, 0.0), hi),
        Plane::new(v(0.0, -1.0, 0.0), -lo),
        Plane::new(v(0.0, 0.0, 1.0), hi),
        Plane::new(v(0.0, 0.0, -1.0), -lo),
    ]
}

pub fn point_polyhedron_cases() -> Vec<PointPolyhedronCase> {
    use Expect::*;
    let cube = cube_planes(0.0, 1.0);
    // tetrahedron x, y, z >= 0, x + y + z <= 1, normals unnormalised
    let tet = vec![
        Plane::new(v(-1.0, 0.0, 0.0), 0.0),
        Plane::new(v(0.0, -1.0, 0.0), 0.0),
        Plane::new(v(0.0, 0.0, -1.0), 0.0),
        Plane::new(v(1.0, 1.0, 1.0), 1.0),
    ];
    let slab = vec![Plane::new(v(0.0, 0.0, 1.0), 1.0), Plane::new(v(0.0, 0.0, -1.0), 1.0)];
    let empty = vec![Plane::new(v(1.0, 0.0, 0.0), -1.0), Plane::new(v(-1.0, 0.0, 0.0), -1.0)];
    let c = |label, p, planes: &Vec<Plane>, expect| PointPolyhedronCase {
        label,
        p,
        planes: planes.clone(),
        expect,
    };
    vec![
        c("inside the cube", v(0.5, 0.5, 0.5), &cube, SqDist(0.0)),
        c("on a cube face", v(1.0, 0.5, 0.5), &cube, SqDist(0.0)),
        c("face region", v(3.0, 0.5, 0.5), &cube, SqDist(4.0)),
        c("edge region", v(3.0, 3.0, 0.5), &cube, SqDist(8.0)),
        c("vertex region", v(-1.0, -1.0, -1.0), &cube, SqDist(3.0)),
        c("1 ulp outside a face", v(nudge(1.0, 1), 0.5, 0.5), &cube, Ref),
        c("tetrahedron, beyond the slanted face", v(1.0, 1.0, 1.0), &tet, Ref),
        c("tetrahedron, vertex region", v(-1.0, -2.0, -2.0), &tet, SqDist(9.0)),
        c("unbounded slab", v(7.0, -3.0, 4.0), &slab, SqDist(9.0)),
        c(
            "zero-normal plane with d >= 0 holds everywhere",
            v(2.0, 0.5, 0.5),
            &vec![cube[0], Plane::new(Vec3::ZERO, 0.0)],
            SqDist(1.0),
        ),
        c("no planes: all of space", v(2.0, 3.0, 4.0), &vec![], SqDist(0.0)),
        c("empty intersection", v(0.0, 0.0, 0.0), &empty, Nan),
        c("NaN plane", v(0.0, 0.0, 0.0), &vec![Plane::new(v(NAN, 0.0, 0.0), 1.0)], Nan),
        c("inf point", v(INF, 0.0, 0.0), &cube, Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct SegmentSegmentCase {
    pub label: &'static str,
    pub s1: Segment,
    pub s2: Segment,
    pub expect: Expect,
}

pub fn segment_segment_cases() -> Vec<SegmentSegmentCase> {
    use Expect::*;
    let sg = |a: Vec3, b: Vec3| Segment::new(a, b);
    let x = sg(v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0));
    let c = |label, s1, s2, expect| SegmentSegmentCase { label, s1, s2, expect };
    vec![
        c("crossing", x, sg(v(0.0, -1.0, 0.0), v(0.0, 1.0, 0.0)), SqDist(0.0)),
        c("skew, interior", x, sg(v(0.0, -1.0, 2.0), v(0.0, 1.0, 2.0)), SqDist(4.0)),
        c("T: endpoint on the other", x, sg(v(0.5, 0.0, 0.0), v(0.5, 3.0, 0.0)), SqDist(0.0)),
        c("endpoints touching", x, sg(v(1.0, 0.0, 0.0), v(3.0, 4.0, 0.0)), SqDist(0.0)),
        c("clamp one (Fig 5.9b)", x, sg(v(3.0, -1.0, 1.0), v(3.0, 1.0, 1.0)), SqDist(5.0)),
        c("clamp both (Fig 5.9c)", x, sg(v(2.0, 1.0, 0.0), v(4.0, 3.0, 0.0)), SqDist(2.0)),
        c("parallel, overlapping", x, sg(v(0.0, 1.0, 0.0), v(5.0, 1.0, 0.0)), SqDist(1.0)),
        c("parallel, opposite direction", x, sg(v(5.0, 1.0, 0.0), v(0.0, 1.0, 0.0)), SqDist(1.0)),
        c("parallel, disjoint", x, sg(v(3.0, 1.0, 0.0), v(5.0, 1.0, 0.0)), SqDist(5.0)),
        c("collinear, disjoint", x, sg(v(3.0, 0.0, 0.0), v(5.0, 0.0, 0.0)), SqDist(4.0)),
        c("collinear, touching", x, sg(v(1.0, 0.0, 0.0), v(5.0, 0.0, 0.0)), SqDist(0.0)),
        c("collinear, overlapping", x, sg(v(-5.0, 0.0, 0.0), v(0.0, 0.0, 0.0)), SqDist(0.0)),
        c("identical", x, x, SqDist(0.0)),
        c("nearly parallel (1 ulp)", x, sg(v(0.0, 1.0, 0.0), v(5.0, nudge(1.0, 1), 0.0)), Ref),
        c("first is a point", sg(v(0.0, 2.0, 0.0), v(0.0, 2.0, 0.0)), x, SqDist(4.0)),
        c("second is a point", x, sg(v(3.0, 0.0, 0.0), v(3.0, 0.0, 0.0)), SqDist(4.0)),
        c(
            "both points",
            sg(Vec3::ZERO, Vec3::ZERO),
            sg(v(1.0, 2.0, 2.0), v(1.0, 2.0, 2.0)),
            SqDist(9.0),
        ),
        c("point on the segment", sg(v(0.5, 0.0, 0.0), v(0.5, 0.0, 0.0)), x, SqDist(0.0)),
        c(
            "tiny length 2^-100 vs unit",
            sg(Vec3::ZERO, v(2f32.powi(-100), 0.0, 0.0)),
            sg(v(0.0, 1.0, 0.0), v(1.0, 1.0, 0.0)),
            Ref,
        ),
        c(
            "-0.0 endpoints",
            sg(v(-0.0, -0.0, 0.0), v(0.0, 1.0, 0.0)),
            sg(v(0.0, -0.0, -0.0), v(1.0, 0.0, 0.0)),
            SqDist(0.0),
        ),
        c(
            "large 2^38",
            sg(s2(x.a, 38), s2(x.b, 38)),
            sg(s2(v(0.0, -1.0, 2.0), 38), s2(v(0.0, 1.0, 2.0), 38)),
            SqDist(4.0 * 2f64.powi(76)),
        ),
        c("huge", x, sg(v(1e20, 0.0, 0.0), v(0.0, 1e20, 0.0)), NoPanic),
        c("NaN", x, sg(v(NAN, 0.0, 0.0), v(0.0, 0.0, 0.0)), Nan),
        c("inf", sg(v(0.0, 0.0, INF), Vec3::ZERO), x, Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct LineLineCase {
    pub label: &'static str,
    pub p1: Vec3,
    pub q1: Vec3,
    pub p2: Vec3,
    pub q2: Vec3,
    pub expect: Expect,
}

pub fn line_line_cases() -> Vec<LineLineCase> {
    use Expect::*;
    let c = |label, p1, q1, p2, q2, expect| LineLineCase { label, p1, q1, p2, q2, expect };
    let (o, x) = (Vec3::ZERO, v(1.0, 0.0, 0.0));
    vec![
        c("skew", o, x, v(3.0, 0.0, 2.0), v(3.0, 1.0, 2.0), SqDist(4.0)),
        c("intersecting", o, x, v(3.0, -1.0, 0.0), v(3.0, 1.0, 0.0), SqDist(0.0)),
        c("parallel", o, x, v(5.0, 1.0, 0.0), v(7.0, 1.0, 0.0), SqDist(1.0)),
        c("antiparallel", o, x, v(7.0, 0.0, 2.0), v(5.0, 0.0, 2.0), SqDist(4.0)),
        c("same line", o, x, v(2.0, 0.0, 0.0), v(9.0, 0.0, 0.0), SqDist(0.0)),
        c("nearly parallel (1 ulp)", o, x, v(0.0, 1.0, 0.0), v(5.0, nudge(1.0, 1), 0.0), Ref),
        c(
            "skew far from the defining points",
            o,
            x,
            v(1000.0, 5.0, 1.0),
            v(1000.0, 6.0, 1.0),
            SqDist(1.0),
        ),
        c("first line is a point", v(0.0, 3.0, 0.0), v(0.0, 3.0, 0.0), o, x, SqDist(9.0)),
        c("both are points", o, o, v(0.0, 3.0, 4.0), v(0.0, 3.0, 4.0), SqDist(25.0)),
        c("huge", o, x, v(1e20, 1.0, 0.0), v(0.0, 1e20, 0.0), NoPanic),
        c("NaN", o, x, v(NAN, 1.0, 0.0), v(0.0, 1.0, 0.0), Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct SegmentTriangleCase {
    pub label: &'static str,
    pub seg: Segment,
    pub tri: Triangle,
    pub expect: Expect,
}

pub fn segment_triangle_cases() -> Vec<SegmentTriangleCase> {
    use Expect::*;
    let t = right_tri();
    let sg = |a: Vec3, b: Vec3| Segment::new(a, b);
    let c = |label, seg, tri, expect| SegmentTriangleCase { label, seg, tri, expect };
    vec![
        c("piercing the face", sg(v(0.5, 0.5, -1.0), v(0.5, 0.5, 1.0)), t, SqDist(0.0)),
        c("piercing through an edge", sg(v(1.0, 0.0, -1.0), v(1.0, 0.0, 1.0)), t, SqDist(0.0)),
        c("piercing through a vertex", sg(v(0.0, 2.0, -1.0), v(0.0, 2.0, 1.0)), t, SqDist(0.0)),
        c("endpoint on the face", sg(v(0.5, 0.5, 0.0), v(0.5, 0.5, 3.0)), t, SqDist(0.0)),
        c("crossing the plane outside", sg(v(3.0, 3.0, -1.0), v(3.0, 3.0, 1.0)), t, SqDist(8.0)),
        c("above, parallel to the face", sg(v(0.2, 0.2, 2.0), v(0.5, 0.5, 2.0)), t, SqDist(4.0)),
        c("coplanar, inside", sg(v(0.2, 0.2, 0.0), v(0.5, 0.5, 0.0)), t, SqDist(0.0)),
        c("coplanar, crossing an edge", sg(v(0.5, -1.0, 0.0), v(0.5, 1.0, 0.0)), t, SqDist(0.0)),
        c("coplanar, outside", sg(v(3.0, 0.0, 0.0), v(0.0, 3.0, 0.0)), t, Ref),
        c("skew over an edge", sg(v(1.0, -1.0, 1.0), v(1.0, 1.0, -1.0)), t, Ref),
        c("edge–edge skew", sg(v(-1.0, -1.0, 1.0), v(1.0, -1.0, 1.0)), t, SqDist(2.0)),
        c("1 ulp above the face", sg(v(0.5, 0.5, nudge(0.0, 1)), v(0.5, 0.5, 3.0)), t, Ref),
        c("point segment", sg(v(0.5, 0.5, 2.0), v(0.5, 0.5, 2.0)), t, SqDist(4.0)),
        c(
            "degenerate triangle",
            sg(v(0.0, 1.0, -1.0), v(0.0, 1.0, 1.0)),
            Triangle::new(v(-1.0, 1.0, 0.0), v(1.0, 1.0, 0.0), v(1.0, 1.0, 0.0)),
            SqDist(0.0),
        ),
        c("huge", sg(v(1e20, 0.0, 0.0), v(0.0, 0.0, 1e20)), t, NoPanic),
        c("NaN", sg(v(NAN, 0.0, 0.0), v(0.0, 0.0, 1.0)), t, Nan),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct TriangleTriangleCase {
    pub label: &'static str,
    pub t1: Triangle,
    pub t2: Triangle,
    pub expect: Expect,
}

pub fn triangle_triangle_cases() -> Vec<TriangleTriangleCase> {
    use Expect::*;
    let t = right_tri();
    let tr = |a: Vec3, b: Vec3, c: Vec3| Triangle::new(a, b, c);
    let c = |label, t1, t2, expect| TriangleTriangleCase { label, t1, t2, expect };
    vec![
        c(
            "vertex above the face",
            t,
            tr(v(0.5, 0.5, 1.0), v(0.5, 0.5, 5.0), v(3.0, 3.0, 5.0)),
            SqDist(1.0),
        ),
        c(
            "crossing through the interiors",
            t,
            tr(v(0.5, 0.5, -1.0), v(0.5, 0.5, 1.0), v(5.0, 5.0, 0.0)),
            SqDist(0.0),
        ),
        c(
            "piercing: edge through the face",
            t,
            tr(v(0.5, 0.5, -1.0), v(0.5, 0.5, 1.0), v(0.5, 3.0, 0.0)),
            SqDist(0.0),
        ),
        c(
            "shared vertex",
            t,
            tr(v(2.0, 0.0, 0.0), v(3.0, 0.0, 1.0), v(3.0, 1.0, 0.0)),
            SqDist(0.0),
        ),
        c("shared edge", t, tr(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(1.0, 0.0, 3.0)), SqDist(0.0)),
        c(
            "coplanar, disjoint",
            t,
            tr(v(3.0, 3.0, 0.0), v(5.0, 3.0, 0.0), v(3.0, 5.0, 0.0)),
            SqDist(8.0),
        ),
        c(
            "coplanar, overlapping",
            t,
            tr(v(0.5, 0.5, 0.0), v(5.0, 0.5, 0.0), v(0.5, 5.0, 0.0)),
            SqDist(0.0),
        ),
        c(
            "parallel planes",
            t,
            tr(v(0.0, 0.0, 3.0), v(1.0, 0.0, 3.0), v(0.0, 1.0, 3.0)),
            SqDist(9.0),
        ),
        c(
            "edge–edge skew",
            t,
            tr(v(1.0, -1.0, 1.0), v(1.0, -3.0, 1.0), v(1.0, -1.0, 5.0)),
            SqDist(2.0),
        ),
        c(
            "1 ulp apart",
            t,
            tr(v(0.5, 0.5, nudge(0.0, 1)), v(0.5, 0.5, 5.0), v(3.0, 3.0, 5.0)),
            Ref,
        ),
        c(
            "degenerate (segment) vs triangle",
            t,
            tr(v(0.5, 0.5, 1.0), v(0.5, 0.5, -1.0), v(0.5, 0.5, -1.0)),
            SqDist(0.0),
        ),
        c(
            "both points",
            tr(Vec3::ZERO, Vec3::ZERO, Vec3::ZERO),
            tr(v(0.0, 3.0, 4.0), v(0.0, 3.0, 4.0), v(0.0, 3.0, 4.0)),
            SqDist(25.0),
        ),
        c("huge", t, tr(v(1e20, 0.0, 0.0), v(0.0, 1e20, 0.0), v(0.0, 0.0, 1e20)), NoPanic),
        c("NaN", t, tr(v(NAN, 0.0, 0.0), Vec3::ZERO, Vec3::ZERO), Nan),
    ]
}

#[derive(Clone, Debug)]
pub struct SpherePolygonCase {
    pub label: &'static str,
    pub sphere: Sphere,
    pub poly: Vec<Vec3>,
    /// Exact answer; `None` beyond `COORD_LIMIT`.
    pub hit: Option<bool>,
}

pub fn sphere_polygon_cases() -> Vec<SpherePolygonCase> {
    let sq = vec![v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(2.0, 2.0, 0.0), v(0.0, 2.0, 0.0)];
    let hex: Vec<Vec3> = vec![
        v(2.0, 0.0, 1.0),
        v(1.0, 2.0, 1.0),
        v(-1.0, 2.0, 1.0),
        v(-2.0, 0.0, 1.0),
        v(-1.0, -2.0, 1.0),
        v(1.0, -2.0, 1.0),
    ];
    let sp = |c: Vec3, r: f32| Sphere::new(c, r);
    let c = |label, sphere, poly: &Vec<Vec3>, hit| SpherePolygonCase {
        label,
        sphere,
        poly: poly.clone(),
        hit,
    };
    vec![
        c("touching the face", sp(v(1.0, 1.0, 1.0), 1.0), &sq, Some(true)),
        c("1 ulp short of the face", sp(v(1.0, 1.0, 1.0), nudge(1.0, -1)), &sq, Some(false)),
        c("touching an edge", sp(v(3.0, 1.0, 0.0), 1.0), &sq, Some(true)),
        c("1 ulp short of an edge", sp(v(3.0, 1.0, 0.0), nudge(1.0, -1)), &sq, Some(false)),
        c("touching a corner", sp(v(3.0, 2.0, 0.0), 1.0), &sq, Some(true)),
        c(
            "1 ulp short of a corner",
            sp(v(3.0, 3.0, 0.0), nudge(2f32.sqrt(), -1)),
            &sq,
            Some(false),
        ),
        c("hexagon, above its center", sp(v(0.0, 0.0, 3.0), 2.0), &hex, Some(true)),
        c(
            "hexagon, beside a slanted edge (D = 4/5)",
            sp(v(2.0, 2.0, 1.0), 0.75),
            &hex,
            Some(false),
        ),
        c("hexagon, crossing a slanted edge", sp(v(2.0, 2.0, 1.0), 1.0), &hex, Some(true)),
        c("center in the polygon, r = 0", sp(v(0.5, 0.5, 0.0), 0.0), &sq, Some(true)),
        c(
            "degenerate: collinear polygon",
            sp(v(1.0, 1.0, 0.0), 1.0),
            &vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(2.0, 0.0, 0.0)],
            Some(true),
        ),
        c(
            "degenerate: single vertex",
            sp(v(1.0, 1.0, 1.0), 1.0),
            &vec![v(1.0, 1.0, 0.0)],
            Some(true),
        ),
        c(
            "degenerate: two vertices",
            sp(v(1.0, 1.0, 1.0), 1.0),
            &vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)],
            Some(false),
        ),
        c("empty polygon", sp(v(0.0, 0.0, 0.0), 10.0), &vec![], Some(false)),
        c("negative radius", sp(v(1.0, 1.0, 0.0), -1.0), &sq, Some(false)),
        c("huge", sp(v(1e20, 0.0, 0.0), 1.0), &sq, None),
        c(
            "NaN vertex",
            sp(v(1.0, 1.0, 0.0), 1.0),
            &vec![v(0.0, 0.0, 0.0), v(NAN, 0.0, 0.0), v(0.0, 1.0, 0.0)],
            Some(false),
        ),
        c("inf radius", sp(v(1.0, 1.0, 0.0), INF), &sq, Some(false)),
    ]
}

#[derive(Clone, Copy, Debug)]
pub struct SphereObbCase {
    pub label: &'static str,
    pub sphere: Sphere,
    pub obb: Obb,
    /// Exact answer; `None` beyond `COORD_LIMIT`.
    pub hit: Option<bool>,
}

pub fn sphere_obb_cases() -> Vec<SphereObbCase> {
    let b = Obb::new(v(1.0, 1.0, 1.0), perm_axes(), v(1.0, 2.0, 3.0));
    let sp = |c: Vec3, r: f32| Sphere::new(c, r);
    let c = |label, sphere, obb, hit| SphereObbCase { label, sphere, obb, hit };
    vec![
        c("touching a face", sp(v(1.0, 4.0, 1.0), 2.0), b, Some(true)),
        c("1 ulp short of a face", sp(v(1.0, 4.0, 1.0), nudge(2.0, -1)), b, Some(false)),
        c("touching an edge (3-4-5)", sp(v(1.0, 5.0, -5.0), 5.0), b, Some(true)),
        c("1 ulp short of an edge", sp(v(1.0, 5.0, -5.0), nudge(5.0, -1)), b, Some(false)),
        c("center inside", sp(v(1.0, 1.0, 1.0), 0.0), b, Some(true)),
        c(
            "point box",
            sp(v(3.0, 1.0, 1.0), 2.0),
            Obb::new(v(1.0, 1.0, 1.0), perm_axes(), Vec3::ZERO),
            Some(true),
        ),
        c("negative radius", sp(v(1.0, 1.0, 1.0), -1.0), b, Some(false)),
        c(
            "negative half extent",
            sp(v(1.0, 1.0, 1.0), 1.0),
            Obb::new(v(1.0, 1.0, 1.0), perm_axes(), v(-1.0, 1.0, 1.0)),
            Some(false),
        ),
        c("huge", sp(v(1e20, 0.0, 0.0), 1.0), b, None),
        c("NaN center", sp(v(NAN, 0.0, 0.0), 1.0), b, Some(false)),
        c("inf radius", sp(v(1.0, 1.0, 1.0), INF), b, Some(false)),
    ]
}
