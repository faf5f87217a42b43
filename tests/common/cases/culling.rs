//! Case tables of the culling family: shapes against planes and half-spaces,
//! k-DOP pairs, and shapes against frusta. Every row is plain data — inputs, the
//! answer under exact arithmetic on the f32 inputs, and a label saying what it
//! attacks — replayed by the scalar functions and by every lane width/position.
//! `tests/culling.rs` also checks every expected answer against the exact
//! references, so a wrong row cannot hide.

use crate::common::rng::nudge;
use widephase::overlap::Classification;
use widephase::{Aabb, Cone, Frustum, Kdop, Obb, Plane, Sphere, Vec3};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}
fn p2(e: i32) -> f32 {
    2f32.powi(e)
}
fn plane(n: Vec3, d: f32) -> Plane {
    Plane::new(n, d)
}
fn bx(min: Vec3, max: Vec3) -> Aabb {
    Aabb::new(min, max)
}

/// Sphere against a plane surface and against its half-space `n·x <= d`.
#[derive(Clone, Debug)]
pub struct SpherePlaneCase {
    pub label: &'static str,
    pub sphere: Sphere,
    pub plane: Plane,
    pub surface: bool,
    pub halfspace: bool,
}

pub fn sphere_plane_cases() -> Vec<SpherePlaneCase> {
    let c = |label, center, radius, plane: Plane, surface, halfspace| SpherePlaneCase {
        label,
        sphere: Sphere::new(center, radius),
        plane,
        surface,
        halfspace,
    };
    let y0 = plane(Vec3::Y, 0.0);
    vec![
        c("touching from above", v(5.0, 1.0, 0.0), 1.0, y0, true, true),
        c("1 ulp beyond touching", v(5.0, nudge(1.0, 1), 0.0), 1.0, y0, false, false),
        c("1 ulp inside touching", v(5.0, nudge(1.0, -1), 0.0), 1.0, y0, true, true),
        c("touching from behind", v(0.0, -1.0, 0.0), 1.0, y0, true, true),
        c("1 ulp behind touching", v(0.0, nudge(-1.0, -1), 0.0), 1.0, y0, false, true),
        c("deep behind", v(0.0, -5.0, 0.0), 1.0, y0, false, true),
        c(
            "non-unit normal touching",
            v(0.0, 1.0, 0.0),
            1.0,
            plane(v(0.0, 2.0, 0.0), 0.0),
            true,
            true,
        ),
        c(
            "non-unit normal 1 ulp off",
            v(0.0, nudge(1.0, 1), 0.0),
            1.0,
            plane(v(0.0, 2.0, 0.0), 0.0),
            false,
            false,
        ),
        c(
            "non-unit offset plane touching",
            v(0.0, 3.0, 0.0),
            1.0,
            plane(v(0.0, 4.0, 0.0), 8.0),
            true,
            true,
        ),
        c("zero radius on plane", v(1.0, 2.0, 3.0), 0.0, plane(Vec3::X, 1.0), true, true),
        c(
            "zero radius 1 ulp in front",
            v(nudge(1.0, 1), 2.0, 3.0),
            0.0,
            plane(Vec3::X, 1.0),
            false,
            false,
        ),
        c(
            "zero radius at -0.0 on plane 0",
            v(-0.0, 2.0, 3.0),
            0.0,
            plane(Vec3::X, 0.0),
            true,
            true,
        ),
        c(
            "zero radius subnormal in front",
            v(f32::from_bits(1), 2.0, 3.0),
            0.0,
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c("radius -0.0 on plane", v(1.0, 0.0, 0.0), -0.0, plane(Vec3::X, 1.0), true, true),
        c("negative radius is empty", v(1.0, 0.0, 0.0), -1.0, plane(Vec3::X, 1.0), false, false),
        c(
            "-0.0 normal components",
            v(0.0, 1.0, 0.0),
            1.0,
            plane(v(-0.0, 1.0, -0.0), 0.0),
            true,
            true,
        ),
        c(
            "zero normal, d = 0: all space",
            v(7.0, 8.0, 9.0),
            1.0,
            plane(Vec3::ZERO, 0.0),
            true,
            true,
        ),
        c(
            "zero normal, d = 1: empty plane, full half-space",
            v(7.0, 8.0, 9.0),
            1.0,
            plane(Vec3::ZERO, 1.0),
            false,
            true,
        ),
        c(
            "zero normal, d = -1: empty",
            v(7.0, 8.0, 9.0),
            1.0,
            plane(Vec3::ZERO, -1.0),
            false,
            false,
        ),
        c(
            "diagonal normal, center on plane",
            v(1.0, 1.0, 1.0),
            0.5,
            plane(v(1.0, 1.0, 1.0), 3.0),
            true,
            true,
        ),
        c(
            "diagonal non-unit normal just missing",
            v(1.0, 1.0, 1.0),
            0.5,
            plane(v(1.0, 1.0, 1.0), 3.9),
            false,
            true,
        ),
        c("tiny touching", v(0.0, p2(-100), 0.0), p2(-100), y0, true, true),
        c("tiny 1 ulp off", v(0.0, nudge(p2(-100), 1), 0.0), p2(-100), y0, false, false),
        c("subnormal touching", v(0.0, p2(-140), 0.0), p2(-140), y0, true, true),
        c(
            "large touching",
            v(0.0, p2(39) + p2(20), 0.0),
            p2(20),
            plane(Vec3::Y, p2(39)),
            true,
            true,
        ),
        c(
            "large 1 ulp off",
            v(0.0, nudge(p2(39) + p2(20), 1), 0.0),
            p2(20),
            plane(Vec3::Y, p2(39)),
            false,
            false,
        ),
        c("huge (beyond COORD_LIMIT)", v(1e20, 1e20, 1e20), 1e20, plane(Vec3::X, 0.0), true, true),
        c(
            "huge normal overflows",
            v(1e20, 0.0, 0.0),
            1.0,
            plane(v(1e30, 1e30, 1e30), 0.0),
            false,
            false,
        ),
        c("NaN center", v(NAN, 0.0, 0.0), 1.0, y0, false, false),
        c("infinite center", v(0.0, -INF, 0.0), 1.0, y0, false, false),
        c("infinite radius", v(0.0, 0.0, 0.0), INF, y0, false, false),
        c("NaN radius", v(0.0, 0.0, 0.0), NAN, y0, false, false),
        c("NaN normal", v(0.0, 0.0, 0.0), 1.0, plane(v(0.0, NAN, 0.0), 0.0), false, false),
        c("infinite d", v(0.0, 0.0, 0.0), 1.0, plane(Vec3::Y, -INF), false, false),
    ]
}

/// AABB against a plane surface and its half-space.
#[derive(Clone, Debug)]
pub struct AabbPlaneCase {
    pub label: &'static str,
    pub aabb: Aabb,
    pub plane: Plane,
    pub surface: bool,
    pub halfspace: bool,
}

pub fn aabb_plane_cases() -> Vec<AabbPlaneCase> {
    let c = |label, aabb, plane, surface, halfspace| AabbPlaneCase {
        label,
        aabb,
        plane,
        surface,
        halfspace,
    };
    let cube = bx(Vec3::splat(-1.0), Vec3::splat(1.0));
    let unit = bx(Vec3::ZERO, Vec3::splat(1.0));
    let diag = v(1.0, 1.0, 1.0);
    vec![
        c("corner touches diagonal plane", cube, plane(diag, 3.0), true, true),
        c("corner 1 ulp short of diagonal plane", cube, plane(diag, nudge(3.0, 1)), false, true),
        c("corner 1 ulp across diagonal plane", cube, plane(diag, nudge(3.0, -1)), true, true),
        c("opposite corner touches from behind", cube, plane(-diag, 3.0), true, true),
        c("face lies in axis plane", unit, plane(Vec3::X, 1.0), true, true),
        c(
            "face touches from in front",
            bx(v(1.0, 0.0, 0.0), v(2.0, 1.0, 1.0)),
            plane(Vec3::X, 1.0),
            true,
            true,
        ),
        c(
            "1 ulp in front",
            bx(v(nudge(1.0, 1), 0.0, 0.0), v(2.0, 1.0, 1.0)),
            plane(Vec3::X, 1.0),
            false,
            false,
        ),
        c(
            "entirely behind",
            bx(Vec3::splat(-3.0), Vec3::splat(-2.0)),
            plane(Vec3::X, 0.0),
            false,
            true,
        ),
        c(
            "negative normal components, behind",
            bx(v(1.0, 1.0, 0.0), v(2.0, 2.0, 1.0)),
            plane(v(-1.0, -1.0, 0.0), 0.0),
            false,
            true,
        ),
        c(
            "negative normal components, edge touching",
            bx(v(1.0, 1.0, 0.0), v(2.0, 2.0, 1.0)),
            plane(v(-1.0, -1.0, 0.0), -4.0),
            true,
            true,
        ),
        c("-0.0 normal components", unit, plane(v(-0.0, -0.0, 1.0), 1.0), true, true),
        c(
            "flat box in plane",
            bx(v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)),
            plane(Vec3::Z, 0.0),
            true,
            true,
        ),
        c(
            "point box at -0.0 on plane",
            bx(v(0.0, 0.0, -0.0), v(0.0, 0.0, -0.0)),
            plane(Vec3::Z, 0.0),
            true,
            true,
        ),
        c(
            "point box subnormal in front",
            bx(v(0.0, 0.0, f32::from_bits(1)), v(0.0, 0.0, f32::from_bits(1))),
            plane(Vec3::Z, 0.0),
            false,
            false,
        ),
        c(
            "segment box crossing",
            bx(v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)),
            plane(v(1.0, 5.0, 0.0), 0.0),
            true,
            true,
        ),
        c("non-unit normal touching top face", unit, plane(v(0.0, 0.0, 4.0), 4.0), true, true),
        c("subnormal normal", cube, plane(v(f32::from_bits(1), 0.0, 0.0), 0.0), true, true),
        c("zero normal, d = 0", unit, plane(Vec3::ZERO, 0.0), true, true),
        c("zero normal, d = 2", unit, plane(Vec3::ZERO, 2.0), false, true),
        c("zero normal, d = -1", unit, plane(Vec3::ZERO, -1.0), false, false),
        c(
            "tiny touching",
            bx(Vec3::ZERO, Vec3::splat(p2(-120))),
            plane(Vec3::X, p2(-120)),
            true,
            true,
        ),
        c(
            "tiny 1 ulp short",
            bx(Vec3::ZERO, Vec3::splat(p2(-120))),
            plane(Vec3::X, nudge(p2(-120), 1)),
            false,
            true,
        ),
        c(
            "large touching",
            bx(Vec3::splat(p2(39)), Vec3::splat(p2(39) + p2(20))),
            plane(Vec3::X, p2(39)),
            true,
            true,
        ),
        c(
            "large, 1 ulp in front",
            bx(Vec3::splat(p2(39)), Vec3::splat(p2(39) + p2(20))),
            plane(Vec3::X, nudge(p2(39), -1)),
            false,
            false,
        ),
        c(
            "huge (beyond COORD_LIMIT)",
            bx(Vec3::splat(1e20), Vec3::splat(2e20)),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "inverted box is empty",
            bx(v(1.0, 0.0, 0.0), v(0.0, 1.0, 1.0)),
            plane(Vec3::Y, 0.5),
            false,
            false,
        ),
        c("Aabb::EMPTY", Aabb::EMPTY, plane(Vec3::Y, 0.5), false, false),
        c("NaN min", bx(v(NAN, 0.0, 0.0), Vec3::splat(1.0)), plane(Vec3::Y, 0.5), false, false),
        c("infinite max", bx(Vec3::ZERO, v(1.0, INF, 1.0)), plane(Vec3::Y, 0.5), false, false),
        c("NaN normal", unit, plane(v(NAN, 1.0, 0.0), 0.5), false, false),
        c("infinite d", unit, plane(Vec3::Y, INF), false, false),
    ]
}

/// OBB against a plane surface and its half-space.
#[derive(Clone, Debug)]
pub struct ObbPlaneCase {
    pub label: &'static str,
    pub obb: Obb,
    pub plane: Plane,
    pub surface: bool,
    pub halfspace: bool,
}

pub fn obb_plane_cases() -> Vec<ObbPlaneCase> {
    let c = |label, obb, plane, surface, halfspace| ObbPlaneCase {
        label,
        obb,
        plane,
        surface,
        halfspace,
    };
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let rot45 = [v(s, s, 0.0), v(-s, s, 0.0), Vec3::Z];
    let ident = [Vec3::X, Vec3::Y, Vec3::Z];
    let r45 = Obb::new(Vec3::ZERO, rot45, Vec3::splat(1.0));
    let cube2 = Obb::new(v(0.0, 0.0, 2.0), ident, Vec3::splat(1.0));
    let skew = Obb::new(Vec3::ZERO, [Vec3::X, v(1.0, 1.0, 0.0), Vec3::Z], Vec3::splat(1.0));
    vec![
        c("rotated 45°: edge touches", r45, plane(Vec3::X, 2.0 * s), true, true),
        c("rotated 45°: 1 ulp short", r45, plane(Vec3::X, nudge(2.0 * s, 1)), false, true),
        c("rotated 45°: 1 ulp across", r45, plane(Vec3::X, nudge(2.0 * s, -1)), true, true),
        c("face touches from in front", cube2, plane(Vec3::Z, 1.0), true, true),
        c(
            "2 ulps (of 1) in front: s = 1 + 2^-23 exactly",
            cube2,
            plane(Vec3::Z, nudge(1.0, -2)),
            false,
            false,
        ),
        c("top face touches half-space z >= 3", cube2, plane(-Vec3::Z, -3.0), true, true),
        c(
            "flat OBB in plane",
            Obb::new(Vec3::ZERO, ident, v(1.0, 1.0, 0.0)),
            plane(Vec3::Z, 0.0),
            true,
            true,
        ),
        c(
            "point OBB in plane",
            Obb::new(v(1.0, 2.0, 3.0), rot45, Vec3::ZERO),
            plane(Vec3::Y, 2.0),
            true,
            true,
        ),
        c("non-orthonormal axes: parallelepiped support", skew, plane(Vec3::X, 2.0), true, true),
        c("non-orthonormal axes: 1 ulp short", skew, plane(Vec3::X, nudge(2.0, 1)), false, true),
        c("non-unit normal", cube2, plane(v(0.0, 0.0, 3.0), 3.0), true, true),
        c("entirely behind", cube2, plane(Vec3::Z, 10.0), false, true),
        c(
            "tiny touching",
            Obb::new(v(0.0, 0.0, p2(-100)), ident, Vec3::splat(p2(-101))),
            plane(Vec3::Z, p2(-101)),
            true,
            true,
        ),
        c(
            "large touching",
            Obb::new(v(0.0, 0.0, p2(39)), ident, Vec3::splat(p2(20))),
            plane(Vec3::Z, p2(39) + p2(20)),
            true,
            true,
        ),
        c(
            "huge (beyond COORD_LIMIT)",
            Obb::new(v(1e20, 0.0, 0.0), ident, Vec3::splat(1.0)),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "negative half extent is empty",
            Obb::new(Vec3::ZERO, ident, v(1.0, -1.0, 1.0)),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "-0.0 half extent",
            Obb::new(Vec3::ZERO, ident, v(1.0, -0.0, 1.0)),
            plane(Vec3::X, 0.0),
            true,
            true,
        ),
        c("zero normal, d = 1", cube2, plane(Vec3::ZERO, 1.0), false, true),
        c(
            "NaN axis",
            Obb::new(Vec3::ZERO, [Vec3::X, v(0.0, NAN, 0.0), Vec3::Z], Vec3::splat(1.0)),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "infinite center",
            Obb::new(v(INF, 0.0, 0.0), ident, Vec3::splat(1.0)),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c("NaN d", cube2, plane(Vec3::Z, NAN), false, false),
    ]
}

/// Cone against a plane surface and its half-space.
#[derive(Clone, Debug)]
pub struct ConePlaneCase {
    pub label: &'static str,
    pub cone: Cone,
    pub plane: Plane,
    pub surface: bool,
    pub halfspace: bool,
}

pub fn cone_plane_cases() -> Vec<ConePlaneCase> {
    let c = |label, cone, plane, surface, halfspace| ConePlaneCase {
        label,
        cone,
        plane,
        surface,
        halfspace,
    };
    // apex at the origin pointing down -y, height 2, base radius 1
    let down = Cone::new(Vec3::ZERO, -Vec3::Y, 2.0, 1.0);
    // non-unit axis (3,4,0), |axis| = 5: base center (3,4,0), base radius 5
    let tilted = Cone::new(Vec3::ZERO, v(3.0, 4.0, 0.0), 1.0, 5.0);
    vec![
        c(
            "base touches plane (axis ∥ normal: seed's m = 0)",
            down,
            plane(Vec3::Y, -2.0),
            true,
            true,
        ),
        c("base 1 ulp above plane", down, plane(Vec3::Y, nudge(-2.0, -1)), false, false),
        c("base 1 ulp below plane", down, plane(Vec3::Y, nudge(-2.0, 1)), true, true),
        c("rim touches side plane", down, plane(Vec3::X, 1.0), true, true),
        c("rim 1 ulp short of side plane", down, plane(Vec3::X, nudge(1.0, 1)), false, true),
        c("rim touches half-space x >= -1", down, plane(-Vec3::X, 1.0), true, true),
        c("rim misses half-space x >= 1.5", down, plane(-Vec3::X, -1.5), false, false),
        c("apex touches half-space y >= 0", down, plane(-Vec3::Y, 0.0), true, true),
        c(
            "apex misses half-space y >= 2^-149",
            down,
            plane(-Vec3::Y, -f32::from_bits(1)),
            false,
            false,
        ),
        c("entirely behind", down, plane(Vec3::Y, 5.0), false, true),
        c("entirely in front", down, plane(Vec3::Y, -5.0), false, false),
        c("non-unit axis: rim touches x = 7", tilted, plane(Vec3::X, 7.0), true, true),
        c(
            "non-unit axis: 1 ulp short of x = 7",
            tilted,
            plane(Vec3::X, nudge(7.0, 1)),
            false,
            true,
        ),
        c("non-unit axis: rim touches x = -1", tilted, plane(-Vec3::X, 1.0), true, true),
        c("non-unit normal", down, plane(v(0.0, 0.0, 3.0), 3.0), true, true),
        c(
            "zero height is the base disc",
            Cone::new(Vec3::ZERO, Vec3::Z, 0.0, 1.0),
            plane(Vec3::X, 1.0),
            true,
            true,
        ),
        c(
            "zero radius is a segment",
            Cone::new(Vec3::ZERO, Vec3::X, 2.0, 0.0),
            plane(Vec3::X, 2.0),
            true,
            true,
        ),
        c(
            "zero radius, 1 ulp short",
            Cone::new(Vec3::ZERO, Vec3::X, 2.0, 0.0),
            plane(Vec3::X, nudge(2.0, 1)),
            false,
            true,
        ),
        c(
            "tiny cone touching",
            Cone::new(Vec3::ZERO, -Vec3::Y, p2(-100), p2(-101)),
            plane(Vec3::X, p2(-101)),
            true,
            true,
        ),
        c(
            "large cone touching",
            Cone::new(v(p2(39), 0.0, 0.0), -Vec3::Y, p2(30), p2(30)),
            plane(Vec3::Y, -p2(30)),
            true,
            true,
        ),
        c(
            "huge (beyond COORD_LIMIT)",
            Cone::new(v(1e20, 0.0, 0.0), Vec3::X, 1.0, 1.0),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "zero axis is invalid",
            Cone::new(Vec3::ZERO, Vec3::ZERO, 2.0, 1.0),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "negative height is empty",
            Cone::new(Vec3::ZERO, Vec3::X, -2.0, 1.0),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "negative radius is empty",
            Cone::new(Vec3::ZERO, Vec3::X, 2.0, -1.0),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "NaN apex",
            Cone::new(v(NAN, 0.0, 0.0), Vec3::X, 2.0, 1.0),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "infinite axis",
            Cone::new(Vec3::ZERO, v(INF, 0.0, 0.0), 2.0, 1.0),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c(
            "infinite height",
            Cone::new(Vec3::ZERO, Vec3::X, INF, 1.0),
            plane(Vec3::X, 0.0),
            false,
            false,
        ),
        c("NaN normal", down, plane(v(NAN, 0.0, 0.0), 0.0), false, false),
    ]
}

/// A pair of k-DOPs: `exact` is the true overlap of the closed sets, `slabs` the
/// answer of the classic per-slab test.
#[derive(Clone, Debug)]
pub struct KdopCase<const N: usize> {
    pub label: &'static str,
    pub a: Kdop<N>,
    pub b: Kdop<N>,
    pub exact: bool,
    pub slabs: bool,
}

/// The tight k-DOP of a point set (projections are exact for the small dyadic
/// coordinates used in the tables).
pub fn tight<const N: usize>(pts: &[Vec3]) -> Kdop<N> {
    let mut k = Kdop::<N>::EMPTY;
    for &p in pts {
        k.grow(p);
    }
    k
}

pub fn cube_points(lo: Vec3, hi: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            v(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect()
}

pub fn kdop_cases<const N: usize>() -> Vec<KdopCase<N>> {
    let c = |label, a, b, exact, slabs| KdopCase::<N> { label, a, b, exact, slabs };
    let unit: Kdop<N> = tight(&cube_points(Vec3::ZERO, Vec3::splat(1.0)));
    let shifted = |d: Vec3| tight::<N>(&cube_points(d, d + Vec3::splat(1.0)));
    let point = |p: Vec3| tight::<N>(&[p]);
    let mut apart_1ulp = shifted(Vec3::X);
    apart_1ulp.min[0] = nudge(1.0, 1);
    let mut nan = unit;
    nan.max[N - 1] = NAN;
    let mut inverted = unit;
    inverted.min[N - 1] = inverted.max[N - 1] + 1.0;
    let mut rows = vec![
        c("cubes sharing a face", unit, shifted(Vec3::X), true, true),
        c("cubes 1 ulp apart (x slab)", unit, apart_1ulp, false, false),
        c("cubes sharing an edge", unit, shifted(v(1.0, 1.0, 0.0)), true, true),
        c("cubes sharing a corner", unit, shifted(v(1.0, 1.0, 1.0)), true, true),
        c("identical", unit, unit, true, true),
        c("nested", unit, tight(&cube_points(Vec3::splat(0.25), Vec3::splat(0.5))), true, true),
        c("equal points", point(v(0.5, 0.25, 0.125)), point(v(0.5, 0.25, 0.125)), true, true),
        c(
            "points 1 ulp apart",
            point(v(0.5, 0.25, 0.125)),
            point(v(0.5, nudge(0.25, 1), 0.125)),
            false,
            false,
        ),
        c("point on the other's face", point(v(1.0, 0.5, 0.5)), unit, true, true),
        c("point at -0.0 on a corner", point(v(-0.0, 0.0, -0.0)), unit, true, true),
        c(
            "tiny cubes sharing a face",
            tight(&cube_points(Vec3::ZERO, Vec3::splat(p2(-100)))),
            tight(&cube_points(v(p2(-100), 0.0, 0.0), v(p2(-99), p2(-100), p2(-100)))),
            true,
            true,
        ),
        c(
            "large cubes apart",
            tight(&cube_points(Vec3::ZERO, Vec3::splat(p2(38)))),
            tight(&cube_points(v(p2(38) + p2(16), 0.0, 0.0), Vec3::splat(p2(39)))),
            false,
            false,
        ),
        c(
            "huge (beyond COORD_LIMIT)",
            tight(&cube_points(Vec3::splat(1e20), Vec3::splat(2e20))),
            unit,
            false,
            false,
        ),
        c("NaN bound", nan, unit, false, false),
        c("Kdop::EMPTY", Kdop::<N>::EMPTY, unit, false, false),
        c("inverted slab is empty", inverted, unit, false, false),
    ];
    if N > 3 {
        // bounds that no point satisfies: x, y, z in [0, 1] but (1,1,1)·x >= 5 (N = 7, 13)
        // or (1,1,0)·x >= 5 (N = 9): the first DOP is empty, yet every slab overlaps.
        let mut empty = unit;
        empty.min[3] = 5.0;
        empty.max[3] = 6.0;
        let big = tight::<N>(&cube_points(Vec3::splat(-10.0), Vec3::splat(10.0)));
        rows.push(c("inconsistent bounds: empty DOP, all slabs overlap", empty, big, false, true));
        // Segments (0,0,0)-(1,1,0) and (1,0,h)-(0,1,h) cross in projection; the DOP of
        // the second is raised by h on z. With h = 0 they touch at (0.5, 0.5, 0).
        let seg_a = tight::<N>(&[v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)]);
        let seg_b = tight::<N>(&[v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)]);
        rows.push(c("crossing diagonal segments touch", seg_a, seg_b, true, true));
    }
    if N == 7 {
        // Tight 14-DOPs of two skew segments: every slab pair overlaps, yet the sets
        // are disjoint (separated along an edge-edge cross product, not a slab axis).
        let a = tight::<N>(&[v(2.0, -2.0, 2.0), v(-1.0, 1.0, -1.0)]);
        let b = tight::<N>(&[v(0.0, -2.0, 2.0), v(0.0, 2.0, 2.0)]);
        rows.push(c(
            "tight DOPs of skew segments: slabs overlap, sets disjoint",
            a,
            b,
            false,
            true,
        ));
    }
    rows
}

/// A sphere against a frustum.
#[derive(Clone, Debug)]
pub struct FrustumSphereCase {
    pub label: &'static str,
    pub frustum: Frustum,
    pub sphere: Sphere,
    pub expected: Classification,
}

/// A box against a frustum.
#[derive(Clone, Debug)]
pub struct FrustumAabbCase {
    pub label: &'static str,
    pub frustum: Frustum,
    pub aabb: Aabb,
    pub expected: Classification,
}

/// The cube `[-h, h]^3` as a frustum (unit normals pointing out).
pub fn cube_frustum(h: f32) -> Frustum {
    Frustum {
        planes: [
            plane(-Vec3::X, h),
            plane(Vec3::X, h),
            plane(-Vec3::Y, h),
            plane(Vec3::Y, h),
            plane(-Vec3::Z, h),
            plane(Vec3::Z, h),
        ],
    }
}

/// `|x| + |y| <= 1`, `|z| <= 1`: side planes at 45° with non-unit normals.
pub fn diamond_frustum() -> Frustum {
    Frustum {
        planes: [
            plane(v(1.0, 1.0, 0.0), 1.0),
            plane(v(-1.0, 1.0, 0.0), 1.0),
            plane(v(1.0, -1.0, 0.0), 1.0),
            plane(v(-1.0, -1.0, 0.0), 1.0),
            plane(-Vec3::Z, 1.0),
            plane(Vec3::Z, 1.0),
        ],
    }
}

/// OpenGL-style symmetric perspective frustum looking down -z, 90° vertical
/// field of view, aspect 1, near 1, far 100, built by hand (not from a matrix):
/// `|x| <= -z`, `|y| <= -z`, `-100 <= z <= -1`.
pub fn perspective_frustum() -> Frustum {
    Frustum {
        planes: [
            plane(v(-1.0, 0.0, 1.0), 0.0),
            plane(v(1.0, 0.0, 1.0), 0.0),
            plane(v(0.0, -1.0, 1.0), 0.0),
            plane(v(0.0, 1.0, 1.0), 0.0),
            plane(Vec3::Z, -1.0),
            plane(-Vec3::Z, 100.0),
        ],
    }
}

pub fn frustum_sphere_cases() -> Vec<FrustumSphereCase> {
    use Classification::*;
    let c = |label, frustum, center, radius, expected| FrustumSphereCase {
        label,
        frustum,
        sphere: Sphere::new(center, radius),
        expected,
    };
    let cube = cube_frustum(1.0);
    let corner = 1.6875; // (c,c,c) is 0.6875·√3 ≈ 1.19 > 1 from the corner (1,1,1)
    let mut nan_frustum = cube;
    nan_frustum.planes[3].d = NAN;
    let mut empty_frustum = cube;
    empty_frustum.planes[2] = plane(Vec3::ZERO, -1.0);
    let mut no_far = cube;
    no_far.planes[5] = plane(Vec3::ZERO, 1.0);
    vec![
        c("centered, touches all six faces", cube, Vec3::ZERO, 1.0, Inside),
        c("centered, 1 ulp too big", cube, Vec3::ZERO, nudge(1.0, 1), Intersecting),
        c("touching a face from inside", cube, v(0.5, 0.0, 0.0), 0.5, Inside),
        c("touching a face from outside", cube, v(2.0, 0.0, 0.0), 1.0, Intersecting),
        c("1 ulp beyond a face", cube, v(nudge(2.0, 1), 0.0, 0.0), 1.0, Outside),
        c(
            "beyond a corner, straddling three planes (documented false positive)",
            cube,
            Vec3::splat(corner),
            1.0,
            Intersecting,
        ),
        c("beyond a corner, outside one plane", cube, v(2.5, 1.5, 1.5), 1.0, Outside),
        c("zero radius on a vertex", cube, Vec3::splat(1.0), 0.0, Inside),
        c("zero radius 1 ulp out", cube, v(nudge(1.0, 1), 0.0, 0.0), 0.0, Outside),
        c("zero radius at -0.0", cube, v(-0.0, -0.0, -0.0), 0.0, Inside),
        c("diamond: non-unit normals, inside", diamond_frustum(), Vec3::ZERO, 0.7, Inside),
        c(
            "diamond: touching the vertex (1,0,0) from outside",
            diamond_frustum(),
            v(1.5, 0.0, 0.0),
            0.5,
            Intersecting,
        ),
        c(
            "diamond: beyond the vertex (1,0,0), straddling two planes (documented false positive)",
            diamond_frustum(),
            v(1.625, 0.0, 0.0),
            0.5,
            Intersecting,
        ),
        c("diamond: outside one side", diamond_frustum(), v(2.0, 2.0, 0.0), 0.5, Outside),
        c("perspective: well inside", perspective_frustum(), v(0.0, 0.0, -5.0), 1.0, Inside),
        c("perspective: behind the camera", perspective_frustum(), v(0.0, 0.0, 5.0), 1.0, Outside),
        c(
            "perspective: crossing the near plane",
            perspective_frustum(),
            v(0.0, 0.0, -1.0),
            0.5,
            Intersecting,
        ),
        c(
            "perspective: touching the near plane from inside",
            perspective_frustum(),
            v(0.0, 0.0, -2.0),
            1.0,
            Inside,
        ),
        c("perspective: beyond far", perspective_frustum(), v(0.0, 0.0, -102.0), 1.0, Outside),
        c("tiny frustum, tiny sphere inside", cube_frustum(p2(-100)), Vec3::ZERO, p2(-100), Inside),
        c(
            "tiny frustum, 1 ulp beyond",
            cube_frustum(p2(-100)),
            v(nudge(p2(-99), 1), 0.0, 0.0),
            p2(-100),
            Outside,
        ),
        c(
            "large frustum, touching from outside",
            cube_frustum(p2(39)),
            v(p2(39) + p2(20), 0.0, 0.0),
            p2(20),
            Intersecting,
        ),
        c("huge (beyond COORD_LIMIT)", cube, Vec3::splat(1e20), 1.0, Outside),
        c("frustum with a zero-normal empty plane", empty_frustum, Vec3::ZERO, 0.5, Outside),
        c("frustum with a zero-normal full plane", no_far, Vec3::ZERO, 0.5, Inside),
        c("NaN center", cube, v(0.0, NAN, 0.0), 0.5, Outside),
        c("infinite center", cube, v(0.0, 0.0, -INF), 0.5, Outside),
        c("negative radius is empty", cube, Vec3::ZERO, -0.5, Outside),
        c("radius -0.0", cube, Vec3::ZERO, -0.0, Inside),
        c("infinite radius", cube, Vec3::ZERO, INF, Outside),
        c("NaN frustum plane", nan_frustum, Vec3::ZERO, 0.5, Outside),
    ]
}

pub fn frustum_aabb_cases() -> Vec<FrustumAabbCase> {
    use Classification::*;
    let c = |label, frustum, aabb, expected| FrustumAabbCase { label, frustum, aabb, expected };
    let cube = cube_frustum(1.0);
    let mut nan_frustum = cube;
    nan_frustum.planes[0].normal.y = NAN;
    let mut empty_frustum = cube;
    empty_frustum.planes[2] = plane(Vec3::ZERO, -1.0);
    vec![
        c("fills the frustum exactly", cube, bx(Vec3::splat(-1.0), Vec3::splat(1.0)), Inside),
        c("1 ulp larger", cube, bx(Vec3::splat(-1.0), v(nudge(1.0, 1), 1.0, 1.0)), Intersecting),
        c(
            "touching a face from outside",
            cube,
            bx(v(1.0, 0.0, 0.0), v(2.0, 1.0, 1.0)),
            Intersecting,
        ),
        c("1 ulp beyond a face", cube, bx(v(nudge(1.0, 1), 0.0, 0.0), v(2.0, 1.0, 1.0)), Outside),
        c("point box on a vertex", cube, bx(Vec3::splat(1.0), Vec3::splat(1.0)), Inside),
        c("point box at -0.0", cube, bx(Vec3::splat(-0.0), Vec3::splat(-0.0)), Inside),
        c("flat box crossing a face", cube, bx(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0)), Intersecting),
        c(
            "diamond: beyond the vertex (1,0,0), straddling two planes (documented false positive)",
            diamond_frustum(),
            bx(v(1.125, -0.25, -0.5), v(1.5, 0.25, 0.5)),
            Intersecting,
        ),
        c(
            "diamond: edge touches a side from outside",
            diamond_frustum(),
            bx(v(0.5, 0.5, 0.0), v(1.0, 1.0, 0.0)),
            Intersecting,
        ),
        c(
            "diamond: 4 ulps (of 0.5) off a side",
            diamond_frustum(),
            bx(v(0.5, nudge(0.5, 4), 0.0), v(1.0, 1.0, 0.0)),
            Outside,
        ),
        c(
            "diamond: inside, touching a side",
            diamond_frustum(),
            bx(v(0.0, 0.0, -1.0), v(0.5, 0.5, 1.0)),
            Inside,
        ),
        c(
            "perspective: box in view",
            perspective_frustum(),
            bx(v(-1.0, -1.0, -6.0), v(1.0, 1.0, -4.0)),
            Inside,
        ),
        c(
            "perspective: box behind the camera",
            perspective_frustum(),
            bx(v(-1.0, -1.0, 4.0), v(1.0, 1.0, 6.0)),
            Outside,
        ),
        c(
            "perspective: box containing the apex",
            perspective_frustum(),
            bx(Vec3::splat(-2.0), Vec3::splat(2.0)),
            Intersecting,
        ),
        c(
            "tiny frustum, tiny box inside",
            cube_frustum(p2(-100)),
            bx(Vec3::splat(-p2(-101)), Vec3::splat(p2(-100))),
            Inside,
        ),
        c(
            "tiny frustum, 1 ulp beyond",
            cube_frustum(p2(-100)),
            bx(v(nudge(p2(-100), 1), 0.0, 0.0), Vec3::splat(p2(-99))),
            Outside,
        ),
        c(
            "large frustum, touching from outside",
            cube_frustum(p2(39)),
            bx(v(p2(39), 0.0, 0.0), v(p2(39) + p2(20), 1.0, 1.0)),
            Intersecting,
        ),
        c(
            "huge box around the frustum (beyond COORD_LIMIT)",
            cube,
            bx(Vec3::splat(-1e20), Vec3::splat(1e20)),
            Intersecting,
        ),
        c(
            "frustum with a zero-normal empty plane",
            empty_frustum,
            bx(Vec3::ZERO, Vec3::splat(0.5)),
            Outside,
        ),
        c("inverted box is empty", cube, bx(v(0.5, 0.0, 0.0), v(0.0, 0.5, 0.5)), Outside),
        c("Aabb::EMPTY", cube, Aabb::EMPTY, Outside),
        c("NaN max", cube, bx(Vec3::ZERO, v(0.5, 0.5, NAN)), Outside),
        c("infinite min", cube, bx(v(-INF, 0.0, 0.0), Vec3::splat(0.5)), Outside),
        c("NaN frustum normal", nan_frustum, bx(Vec3::ZERO, Vec3::splat(0.5)), Outside),
    ]
}
