//! Case tables of the convex family: sphere–sphere, triangle–triangle,
//! OBB–OBB. Plain data: inputs, the answer under exact arithmetic (see
//! [`Expect`]), and a label saying what the row attacks. Rows whose label
//! contains `ulp` sit within a few ulps of contact: the default variants may
//! answer either way there (inside the band, checked exactly), the
//! conservative ones must still say "hit" when `expect == Hit`.

use crate::common::rng::nudge;
use widephase::{Obb, Sphere, Triangle, Vec3};

/// The answer a row expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Exact arithmetic says the shapes touch or overlap.
    Hit,
    /// Exact arithmetic says they are disjoint (or an input is invalid).
    Miss,
    /// The exact answer hinges on how irrational data (a rotation by 45°, a
    /// rounded 3-4-5 rotation) rounded to f32: the test asks the exact
    /// reference and requires the kernels to agree with it.
    Reference,
    /// Coordinates beyond `COORD_LIMIT`: only "no panic" (and, for non-finite
    /// inputs, `false`) is required.
    Beyond,
}

pub use Expect::{Beyond, Hit, Miss, Reference};

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

// ----------------------------------------------------------------- spheres --

#[derive(Clone, Copy, Debug)]
pub struct SphereCase {
    pub label: &'static str,
    pub a: Sphere,
    pub b: Sphere,
    pub expect: Expect,
}

pub fn sphere_sphere_cases() -> Vec<SphereCase> {
    let s = Sphere::new;
    let c = |label, a, b, expect: Expect| SphereCase { label, a, b, expect };
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    vec![
        c("touching on x", s(v(0.0, 0.0, 0.0), 1.0), s(v(3.0, 0.0, 0.0), 2.0), Hit),
        c(
            "touching on a diagonal (3-4-5)",
            s(v(0.0, 0.0, 0.0), 2.0),
            s(v(3.0, 4.0, 0.0), 3.0),
            Hit,
        ),
        c(
            "gap 1 ulp (radius down)",
            s(v(0.0, 0.0, 0.0), 1.0),
            s(v(3.0, 0.0, 0.0), nudge(2.0, -1)),
            Miss,
        ),
        c(
            "overlap 1 ulp (radius up)",
            s(v(0.0, 0.0, 0.0), 1.0),
            s(v(3.0, 0.0, 0.0), nudge(2.0, 1)),
            Hit,
        ),
        c("gap 1 ulp (center)", s(v(0.0, 0.0, 0.0), 1.0), s(v(nudge(3.0, 1), 0.0, 0.0), 2.0), Miss),
        c("contained", s(v(0.0, 0.0, 0.0), 10.0), s(v(1.0, 1.0, 1.0), 1.0), Hit),
        c("concentric points", s(v(1.0, 2.0, 3.0), 0.0), s(v(1.0, 2.0, 3.0), 0.0), Hit),
        c("distinct points", s(v(1.0, 2.0, 3.0), 0.0), s(v(1.0, 2.0, nudge(3.0, 1)), 0.0), Miss),
        c("point on surface", s(v(0.0, 0.0, 0.0), 5.0), s(v(3.0, 4.0, 0.0), 0.0), Hit),
        c("-0.0 centers and radius", s(v(-0.0, -0.0, -0.0), -0.0), s(v(0.0, 0.0, 0.0), 0.0), Hit),
        c("negative radius is empty", s(v(0.0, 0.0, 0.0), -1.0), s(v(0.0, 0.0, 0.0), 5.0), Miss),
        c(
            "tiny touching (2^-60)",
            s(v(0.0, 0.0, 0.0), 2f32.powi(-60)),
            s(v(3.0 * 2f32.powi(-60), 0.0, 0.0), 2.0 * 2f32.powi(-60)),
            Hit,
        ),
        c(
            "tiny gap (2^-60)",
            s(v(0.0, 0.0, 0.0), 2f32.powi(-60)),
            s(v(3.5 * 2f32.powi(-60), 0.0, 0.0), 2.0 * 2f32.powi(-60)),
            Miss,
        ),
        c(
            "subnormal apart: d² underflows (inside the ulp band)",
            s(v(0.0, 0.0, 0.0), 0.0),
            s(v(f32::from_bits(1), 0.0, 0.0), 0.0),
            Miss,
        ),
        c(
            "large touching (2^39)",
            s(v(-2f32.powi(39), 0.0, 0.0), 2f32.powi(39)),
            s(v(2f32.powi(39), 0.0, 0.0), 2f32.powi(39)),
            Hit,
        ),
        c(
            "large gap (2^39, 1 ulp)",
            s(v(-2f32.powi(39), 0.0, 0.0), 2f32.powi(39)),
            s(v(nudge(2f32.powi(39), 1), 0.0, 0.0), 2f32.powi(39)),
            Miss,
        ),
        c(
            "huge 1e20 beyond limit",
            s(v(1e20, 0.0, 0.0), 1e20),
            s(v(-1e20, 0.0, 0.0), 1e20),
            Beyond,
        ),
        c("huge 1e30 far apart", s(v(1e30, 1e30, 0.0), 1.0), s(v(-1e30, 0.0, 0.0), 1.0), Beyond),
        c("NaN center", s(v(nan, 0.0, 0.0), 1.0), s(v(0.0, 0.0, 0.0), 1.0), Miss),
        c("NaN radius", s(v(0.0, 0.0, 0.0), nan), s(v(0.0, 0.0, 0.0), 1.0), Miss),
        c("infinite radius", s(v(0.0, 0.0, 0.0), inf), s(v(5.0, 0.0, 0.0), 1.0), Miss),
        c("infinite center", s(v(inf, 0.0, 0.0), 1.0), s(v(inf, 0.0, 0.0), 1.0), Miss),
    ]
}

// --------------------------------------------------------------- triangles --

#[derive(Clone, Copy, Debug)]
pub struct TriTriCase {
    pub label: &'static str,
    pub a: Triangle,
    pub b: Triangle,
    pub expect: Expect,
}

pub fn triangle_triangle_cases() -> Vec<TriTriCase> {
    let t = |a, b, c| Triangle::new(a, b, c);
    let c = |label, a, b, expect: Expect| TriTriCase { label, a, b, expect };
    let base = t(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0));
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let up = nudge(0.0, 1); // smallest subnormal
    vec![
        c(
            "piercing (crossing planes)",
            base,
            t(v(0.5, 0.5, -1.0), v(0.5, 0.5, 1.0), v(1.5, 0.2, 0.0)),
            Hit,
        ),
        c(
            "stacked parallel planes",
            base,
            t(v(0.0, 0.0, 1.0), v(2.0, 0.0, 1.0), v(0.0, 2.0, 1.0)),
            Miss,
        ),
        c("identical", base, base, Hit),
        c(
            "shared edge, other plane",
            base,
            t(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(1.0, -1.0, 1.0)),
            Hit,
        ),
        c(
            "shared edge, coplanar",
            base,
            t(v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0), v(2.0, 2.0, 0.0)),
            Hit,
        ),
        c(
            "shared vertex, coplanar",
            base,
            t(v(2.0, 0.0, 0.0), v(3.0, 0.0, 0.0), v(3.0, 1.0, 0.0)),
            Hit,
        ),
        c(
            "shared vertex, other plane",
            base,
            t(v(2.0, 0.0, 0.0), v(3.0, 0.0, 1.0), v(3.0, 1.0, 1.0)),
            Hit,
        ),
        c(
            "vertex on face interior",
            base,
            t(v(0.5, 0.5, 0.0), v(0.5, 0.5, 2.0), v(1.0, 0.0, 2.0)),
            Hit,
        ),
        c(
            "vertex 1 ulp above face",
            base,
            t(v(0.5, 0.5, up), v(0.5, 0.5, 2.0), v(1.0, 0.0, 2.0)),
            Miss,
        ),
        c(
            "vertex 1 ulp below face",
            base,
            t(v(0.5, 0.5, -up), v(0.5, 0.5, 2.0), v(1.0, 0.0, 2.0)),
            Hit,
        ),
        c(
            "edge touches edge (crossing edges)",
            base,
            t(v(1.0, 1.0, 0.0), v(2.0, 2.0, 1.0), v(2.0, 2.0, -1.0)),
            Hit,
        ),
        c(
            "edge-edge gap ulp",
            base,
            t(v(nudge(1.0, 1), 1.0, 0.0), v(2.0, 2.0, 1.0), v(2.0, 2.0, -1.0)),
            Miss,
        ),
        c(
            "parallel edges touching, planes crossing",
            base,
            t(v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.5, -1.0, -1.0)),
            Hit,
        ),
        c(
            "parallel edges 1 ulp apart ulp",
            base,
            t(v(0.0, -up, 0.0), v(1.0, -up, 0.0), v(0.5, -1.0, -1.0)),
            Miss,
        ),
        c(
            "edge of B in A's plane, crossing A (two vertices on plane)",
            base,
            t(v(-1.0, 1.0, 0.0), v(1.0, -1.0, 0.0), v(0.0, 0.0, 3.0)),
            Hit,
        ),
        c(
            "edge of B in A's plane, outside A",
            base,
            t(v(3.0, 1.0, 0.0), v(1.0, 3.0, 0.0), v(2.0, 2.0, 3.0)),
            Miss,
        ),
        c(
            "edge of B in A's plane touching A's vertex",
            base,
            t(v(2.0, 0.0, 0.0), v(3.0, -1.0, 0.0), v(2.5, 0.0, 3.0)),
            Hit,
        ),
        c(
            "one vertex on plane, others on both sides, outside A",
            base,
            t(v(3.0, 3.0, 0.0), v(2.5, 2.5, 1.0), v(3.5, 2.0, -1.0)),
            Miss,
        ),
        c(
            "coplanar overlapping",
            base,
            t(v(1.0, 1.0, 0.0), v(-1.0, 1.0, 0.0), v(1.0, -1.0, 0.0)),
            Hit,
        ),
        c(
            "coplanar disjoint across hypotenuse",
            base,
            t(v(1.5, 1.5, 0.0), v(3.0, 1.5, 0.0), v(1.5, 3.0, 0.0)),
            Miss,
        ),
        c(
            "coplanar vertex on edge",
            base,
            t(v(1.0, 1.0, 0.0), v(3.0, 1.0, 0.0), v(1.0, 3.0, 0.0)),
            Hit,
        ),
        c(
            "coplanar one contains other",
            base,
            t(v(0.25, 0.25, 0.0), v(0.5, 0.25, 0.0), v(0.25, 0.5, 0.0)),
            Hit,
        ),
        c(
            "coplanar star of David",
            t(v(0.0, 0.0, 0.0), v(4.0, 0.0, 0.0), v(2.0, 4.0, 0.0)),
            t(v(0.0, 3.0, 0.0), v(4.0, 3.0, 0.0), v(2.0, -1.0, 0.0)),
            Hit,
        ),
        c(
            "coplanar in yz plane",
            t(v(5.0, 0.0, 0.0), v(5.0, 2.0, 0.0), v(5.0, 0.0, 2.0)),
            t(v(5.0, 1.0, 1.0), v(5.0, 3.0, 1.0), v(5.0, 1.0, 3.0)),
            Hit,
        ),
        c(
            "segment (collinear tri) pierces",
            base,
            t(v(0.5, 0.5, -1.0), v(0.5, 0.5, 0.0), v(0.5, 0.5, 1.0)),
            Hit,
        ),
        c("segment beside", base, t(v(1.5, 1.5, -1.0), v(1.5, 1.5, 0.0), v(1.5, 1.5, 1.0)), Miss),
        c(
            "segment in plane crossing edge",
            base,
            t(v(1.0, 1.0, 0.0), v(3.0, 3.0, 0.0), v(2.0, 2.0, 0.0)),
            Hit,
        ),
        c(
            "segment in plane beyond hypotenuse",
            base,
            t(v(1.5, 1.5, 0.0), v(3.0, 3.0, 0.0), v(2.0, 2.0, 0.0)),
            Miss,
        ),
        c(
            "segment in plane parallel to hypotenuse",
            base,
            t(v(2.0, 0.5, 0.0), v(0.5, 2.0, 0.0), v(1.0, 1.5, 0.0)),
            Miss,
        ),
        c(
            "point triangle inside",
            base,
            t(v(0.5, 0.5, 0.0), v(0.5, 0.5, 0.0), v(0.5, 0.5, 0.0)),
            Hit,
        ),
        c(
            "point triangle on edge",
            base,
            t(v(1.0, 1.0, 0.0), v(1.0, 1.0, 0.0), v(1.0, 1.0, 0.0)),
            Hit,
        ),
        c(
            "point triangle at vertex",
            base,
            t(v(2.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(2.0, 0.0, 0.0)),
            Hit,
        ),
        c(
            "point triangle above",
            base,
            t(v(0.5, 0.5, 0.5), v(0.5, 0.5, 0.5), v(0.5, 0.5, 0.5)),
            Miss,
        ),
        c(
            "point vs point equal",
            t(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0)),
            t(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0)),
            Hit,
        ),
        c(
            "point vs point 1 ulp",
            t(v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0), v(1.0, 1.0, 1.0)),
            t(v(1.0, nudge(1.0, 1), 1.0), v(1.0, nudge(1.0, 1), 1.0), v(1.0, nudge(1.0, 1), 1.0)),
            Miss,
        ),
        c(
            "collinear segments overlapping",
            t(v(0.0, 0.0, 0.0), v(2.0, 2.0, 2.0), v(1.0, 1.0, 1.0)),
            t(v(1.0, 1.0, 1.0), v(3.0, 3.0, 3.0), v(2.0, 2.0, 2.0)),
            Hit,
        ),
        c(
            "collinear segments touching at end",
            t(v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0), v(0.5, 0.5, 0.5)),
            t(v(1.0, 1.0, 1.0), v(3.0, 3.0, 3.0), v(2.0, 2.0, 2.0)),
            Hit,
        ),
        c(
            "collinear segments disjoint",
            t(v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0), v(0.5, 0.5, 0.5)),
            t(v(1.5, 1.5, 1.5), v(3.0, 3.0, 3.0), v(2.0, 2.0, 2.0)),
            Miss,
        ),
        c(
            "parallel segments offset",
            t(v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(1.0, 0.0, 0.0)),
            t(v(0.0, 1.0, 0.0), v(2.0, 1.0, 0.0), v(1.0, 1.0, 0.0)),
            Miss,
        ),
        c(
            "skew segments crossing",
            t(v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 0.0, 0.0)),
            t(v(0.0, -1.0, 0.0), v(0.0, 1.0, 0.0), v(0.0, 0.5, 0.0)),
            Hit,
        ),
        c(
            "skew segments passing",
            t(v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 0.0, 0.0)),
            t(v(0.0, -1.0, 0.25), v(0.0, 1.0, 0.25), v(0.0, 0.5, 0.25)),
            Miss,
        ),
        c(
            "coplanar segments T-touching",
            t(v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 0.0, 0.0)),
            t(v(0.0, 0.0, 0.0), v(0.0, 1.0, 0.0), v(0.0, 0.5, 0.0)),
            Hit,
        ),
        c(
            "coplanar segments near miss (needs (eA×eB)×e)",
            t(v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 0.0, 0.0)),
            t(v(0.0, 0.25, 0.0), v(1.0, 1.0, 0.0), v(0.5, 0.625, 0.0)),
            Miss,
        ),
        c(
            "sliver triangle touching",
            base,
            t(v(1.0, 1.0, 0.0), v(3.0, 3.0, 0.0), v(3.0, nudge(3.0, 1), 0.0)),
            Hit,
        ),
        c(
            "nearly parallel planes, offset",
            base,
            t(v(0.0, 0.0, 1e-3), v(2.0, 0.0, 1e-3), v(0.0, 2.0, 1.5e-3)),
            Miss,
        ),
        c(
            "-0.0 coordinates",
            t(v(-0.0, -0.0, -0.0), v(2.0, -0.0, 0.0), v(0.0, 2.0, -0.0)),
            t(v(0.0, 0.0, 0.0), v(1.0, 0.0, -1.0), v(0.0, 1.0, 1.0)),
            Hit,
        ),
        c(
            "tiny scale touching (2^-100)",
            t(v(0.0, 0.0, 0.0), v(2e-30, 0.0, 0.0), v(0.0, 2e-30, 0.0)),
            t(v(1e-30, 1e-30, 0.0), v(3e-30, 3e-30, 1e-30), v(3e-30, 3e-30, -1e-30)),
            Hit,
        ),
        c(
            "tiny scale apart",
            t(v(0.0, 0.0, 0.0), v(2e-30, 0.0, 0.0), v(0.0, 2e-30, 0.0)),
            t(v(1.5e-30, 1.5e-30, 0.0), v(3e-30, 3e-30, 1e-30), v(3e-30, 3e-30, -1e-30)),
            Miss,
        ),
        c(
            "subnormal triangle at origin",
            t(v(0.0, 0.0, 0.0), v(up, 0.0, 0.0), v(0.0, up, 0.0)),
            t(v(0.0, 0.0, -1.0), v(0.0, 0.0, 1.0), v(1.0, 1.0, 0.0)),
            Hit,
        ),
        c(
            "large scale (2^38) shared edge",
            t(v(0.0, 0.0, 0.0), v(2f32.powi(38), 0.0, 0.0), v(0.0, 2f32.powi(38), 0.0)),
            t(v(0.0, 0.0, 0.0), v(2f32.powi(38), 0.0, 0.0), v(0.0, 0.0, 2f32.powi(38))),
            Hit,
        ),
        c(
            "large scale (2^38) apart",
            t(v(0.0, 0.0, 0.0), v(2f32.powi(38), 0.0, 0.0), v(0.0, 2f32.powi(38), 0.0)),
            t(v(0.0, 0.0, 1.0), v(2f32.powi(38), 0.0, 1.0), v(0.0, 0.0, 2f32.powi(38))),
            Miss,
        ),
        c(
            "far translation (2^30) coplanar touching",
            t(
                v(2f32.powi(30), 0.0, 0.0),
                v(2f32.powi(30) + 256.0, 0.0, 0.0),
                v(2f32.powi(30), 256.0, 0.0),
            ),
            t(
                v(2f32.powi(30) + 256.0, 0.0, 0.0),
                v(2f32.powi(30) + 512.0, 0.0, 0.0),
                v(2f32.powi(30) + 512.0, 256.0, 0.0),
            ),
            Hit,
        ),
        c(
            "huge 1e20 beyond limit",
            t(v(1e20, 0.0, 0.0), v(-1e20, 1e20, 0.0), v(0.0, -1e20, 1e20)),
            base,
            Beyond,
        ),
        c(
            "huge 1e30 beyond limit",
            t(v(1e30, 1e30, 1e30), v(-1e30, 1e30, 0.0), v(0.0, 0.0, 1e30)),
            t(v(1e30, 0.0, 0.0), v(0.0, 1e30, 0.0), v(0.0, 0.0, -1e30)),
            Beyond,
        ),
        c("NaN vertex", t(v(nan, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 2.0, 0.0)), base, Miss),
        c("NaN in b", base, t(v(0.5, 0.5, -1.0), v(0.5, nan, 1.0), v(1.5, 0.2, 0.0)), Miss),
        c("infinite vertex", base, t(v(0.5, 0.5, -inf), v(0.5, 0.5, 1.0), v(1.5, 0.2, 0.0)), Miss),
        c("all infinite", t(v(inf, inf, inf), v(-inf, inf, 0.0), v(0.0, 0.0, inf)), base, Miss),
    ]
}

// -------------------------------------------------------------------- OBBs --

#[derive(Clone, Copy, Debug)]
pub struct ObbCase {
    pub label: &'static str,
    pub a: Obb,
    pub b: Obb,
    pub expect: Expect,
    /// Expected contact `(axis index, depth)` when it is exact and unambiguous.
    pub contact: Option<(usize, f32)>,
}

const I3: [Vec3; 3] = [Vec3::X, Vec3::Y, Vec3::Z];

/// Rotation about z by the exact Pythagorean angle (3/5, 4/5) — rounded in f32,
/// so these axes are orthonormal only to ~1 ulp, like any real rotation.
fn rot_z_345() -> [Vec3; 3] {
    [v(0.6, 0.8, 0.0), v(-0.8, 0.6, 0.0), Vec3::Z]
}

/// 45° about z, exactly representable up to rounding of 1/√2.
fn rot_z_45() -> [Vec3; 3] {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    [v(s, s, 0.0), v(-s, s, 0.0), Vec3::Z]
}

/// An edge-on box: 45° about z then 45° about x (its edge points at -z/+z).
fn rot_zx_45() -> [Vec3; 3] {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    [v(s, 0.5, 0.5), v(-s, 0.5, 0.5), v(0.0, -s, s)]
}

pub fn obb_obb_cases() -> Vec<ObbCase> {
    let o = |c, axes, h| Obb::new(c, axes, h);
    let k = |label, a, b, expect: Expect, contact| ObbCase { label, a, b, expect, contact };
    let unit = o(Vec3::ZERO, I3, Vec3::splat(1.0));
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    vec![
        k(
            "face touching on +x",
            unit,
            o(v(3.0, 0.5, 0.0), I3, v(2.0, 1.0, 1.0)),
            Hit,
            Some((0, 0.0)),
        ),
        k(
            "face gap 1 ulp on +x ulp",
            unit,
            o(v(nudge(3.0, 1), 0.5, 0.0), I3, v(2.0, 1.0, 1.0)),
            Miss,
            None,
        ),
        k(
            "face overlap 0.5 on +x",
            unit,
            o(v(1.5, 0.0, 0.0), I3, Vec3::splat(1.0)),
            Hit,
            Some((0, 0.5)),
        ),
        k(
            "overlap on -y (normal A to B)",
            unit,
            o(v(0.0, -1.75, 0.0), I3, Vec3::splat(1.0)),
            Hit,
            Some((1, 0.25)),
        ),
        k(
            "overlap on z (equal x,y: face tie -> lowest index)",
            unit,
            o(v(1.5, 1.5, 1.5), I3, Vec3::splat(1.0)),
            Hit,
            Some((0, 0.5)),
        ),
        k("identical", unit, unit, Hit, Some((0, 2.0))),
        k("contained", o(Vec3::ZERO, I3, Vec3::splat(10.0)), unit, Hit, None),
        k(
            "edge touching (rotated 45 about z; rounding decides: ulp)",
            unit,
            o(v(1.0 + std::f32::consts::SQRT_2, 0.0, 0.0), rot_z_45(), Vec3::splat(1.0)),
            Reference,
            None,
        ),
        k(
            "corner-to-face touching, rounded 3-4-5 (ulp)",
            unit,
            o(v(1.0 + 1.4, 0.2, 0.0), rot_z_345(), Vec3::splat(1.0)),
            Reference,
            None,
        ),
        k(
            "edge-edge cross, separated by edge axis",
            o(Vec3::ZERO, rot_z_45(), v(1.0, 1.0, 1.0)),
            o(v(0.0, 0.0, 2.0 * std::f32::consts::SQRT_2 + 0.1), rot_zx_45(), v(1.0, 1.0, 1.0)),
            Reference,
            None,
        ),
        k(
            "parallel boxes, parallel edges everywhere",
            unit,
            o(v(2.0, 2.0, 0.0), I3, Vec3::splat(1.0)),
            Hit,
            None,
        ),
        k(
            "parallel boxes, gap on diagonal",
            unit,
            o(v(2.0, 2.5, 0.0), I3, Vec3::splat(1.0)),
            Miss,
            None,
        ),
        k(
            "flat box (rectangle) touching face",
            unit,
            o(v(1.0, 0.0, 0.0), I3, v(0.0, 0.5, 0.5)),
            Hit,
            Some((0, 0.0)),
        ),
        k("flat box just past face", unit, o(v(1.25, 0.0, 0.0), I3, v(0.0, 0.5, 0.5)), Miss, None),
        k("segment box through", unit, o(v(0.0, 0.0, 0.0), I3, v(0.0, 0.0, 5.0)), Hit, None),
        k("point box on corner", unit, o(v(1.0, 1.0, 1.0), I3, Vec3::ZERO), Hit, None),
        k("point box off corner", unit, o(v(1.0, 1.0, nudge(1.0, 1)), I3, Vec3::ZERO), Miss, None),
        k(
            "two points equal",
            o(v(1.0, 2.0, 3.0), I3, Vec3::ZERO),
            o(v(1.0, 2.0, 3.0), I3, Vec3::ZERO),
            Hit,
            None,
        ),
        k(
            "coplanar rectangles apart diagonally",
            o(Vec3::ZERO, I3, v(1.0, 1.0, 0.0)),
            o(v(2.5, 2.5, 0.0), rot_z_45(), v(1.0, 1.0, 0.0)),
            Reference,
            None,
        ),
        k(
            "-0.0 everywhere",
            o(v(-0.0, -0.0, -0.0), I3, v(1.0, -0.0, 1.0)),
            o(v(0.0, 0.0, 0.0), I3, v(1.0, 1.0, 0.0)),
            Hit,
            None,
        ),
        k(
            "tiny boxes touching (2^-60)",
            o(Vec3::ZERO, I3, Vec3::splat(2f32.powi(-60))),
            o(v(2f32.powi(-59), 0.0, 0.0), I3, Vec3::splat(2f32.powi(-60))),
            Hit,
            None,
        ),
        k(
            "tiny boxes apart",
            o(Vec3::ZERO, I3, Vec3::splat(2f32.powi(-60))),
            o(v(3.0 * 2f32.powi(-60), 0.0, 0.0), I3, Vec3::splat(2f32.powi(-60))),
            Miss,
            None,
        ),
        k(
            "large boxes touching (2^39)",
            o(Vec3::ZERO, I3, Vec3::splat(2f32.powi(39))),
            o(v(2f32.powi(40), 0.0, 0.0), I3, Vec3::splat(2f32.powi(39))),
            Hit,
            None,
        ),
        k(
            "large rotated apart",
            o(Vec3::ZERO, rot_z_345(), Vec3::splat(2f32.powi(38))),
            o(v(2f32.powi(40), 0.0, 0.0), rot_z_45(), Vec3::splat(2f32.powi(38))),
            Reference,
            None,
        ),
        k(
            "huge 1e20 beyond limit",
            o(v(1e20, 0.0, 0.0), I3, Vec3::splat(1e20)),
            unit,
            Beyond,
            None,
        ),
        k("NaN center", o(v(nan, 0.0, 0.0), I3, Vec3::splat(1.0)), unit, Miss, None),
        k(
            "NaN axis",
            o(Vec3::ZERO, [v(nan, 0.0, 0.0), Vec3::Y, Vec3::Z], Vec3::splat(1.0)),
            unit,
            Miss,
            None,
        ),
        k("infinite half extent", o(Vec3::ZERO, I3, v(inf, 1.0, 1.0)), unit, Miss, None),
        k("negative half extent (empty)", o(Vec3::ZERO, I3, v(-1.0, 1.0, 1.0)), unit, Miss, None),
    ]
}
