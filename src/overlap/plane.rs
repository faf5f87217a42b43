//! Sphere, AABB, OBB and cone against a plane surface and against a half-space.
//!
//! Sources: Ericson, *Real-Time Collision Detection* §5.2.2 (sphere–plane),
//! §5.2.3 (box–plane), §5.2.4 (cone–plane) — seed `000_959b262e678b45a4.txt`;
//! the plane–AABB/OBB slides of seed `003_9226422f2bc80208.txt`. Every formula
//! was derived again (the seed's errata are listed in `simd-notes.md`).
//!
//! Conventions (see [`Plane`]): the plane is `normal·x = d`; its **half-space** is
//! `normal·x <= d`, the side *behind* the normal. `*_plane` answers whether the
//! closed shape meets the plane surface; `*_halfspace` whether it meets the closed
//! half-space (lies inside it or crosses the plane). Normals need **not** be unit
//! length in any function here: every test compares quantities that all scale by
//! `|normal|`. A zero normal makes the "plane" `0 = d`, which is all of space
//! when `d == 0` and empty otherwise, and the half-space `0 <= d`; the functions
//! answer exactly that.
//!
//! All answers follow the crate [contracts](crate#contracts); the ulp bands are
//! derived in `simd-notes.md`.

use crate::lane::Lane;
use crate::math::{Vec3, V3};
use crate::shapes::{Aabb, Cone, Obb, Plane, Sphere};

/// Lanes whose plane has a finite normal and offset.
#[inline(always)]
pub(crate) fn plane_is_valid<L: Lane>(plane: &Plane<L>) -> L::Mask {
    plane.normal.is_finite() & plane.d.is_finite()
}

/// Signed plane value `normal·p - d`, summed `x, y, z` then `- d` (the order the
/// error bounds in `simd-notes.md` assume).
#[inline(always)]
pub(crate) fn plane_value<L: Lane>(plane: &Plane<L>, p: V3<L>) -> L {
    plane.normal.dot(p) - plane.d
}

/// The corners of `b` that are extreme along `n`: `(most_negative, most_positive)`
/// (the n-vertex and p-vertex of culling literature). Chosen per component from
/// the sign of `n` alone, so the choice is exact: `n·p_vertex` is the exact
/// maximum of `n·x` over the box's corners before rounding, `n·n_vertex` the
/// minimum.
#[inline(always)]
pub(crate) fn aabb_extreme_corners<L: Lane>(b: &Aabb<L>, n: V3<L>) -> (V3<L>, V3<L>) {
    let zero = L::splat(0.0);
    // if n.x >= 0 { (min.x, max.x) } else { (max.x, min.x) }, per component
    let px = n.x.ge(zero);
    let py = n.y.ge(zero);
    let pz = n.z.ge(zero);
    let p_vertex = V3::new(
        L::select(px, b.max.x, b.min.x),
        L::select(py, b.max.y, b.min.y),
        L::select(pz, b.max.z, b.min.z),
    );
    let n_vertex = V3::new(
        L::select(px, b.min.x, b.max.x),
        L::select(py, b.min.y, b.max.y),
        L::select(pz, b.min.z, b.max.z),
    );
    (n_vertex, p_vertex)
}

/// Whether the closed ball `sphere` meets the plane surface `normal·x = d`
/// (LANE-GENERIC: the scalar API is `L = f32`, returning `bool`).
///
/// Test: `|normal·center - d| <= radius·|normal|` (Ericson §5.2.2, with the
/// radius scaled by `|normal|` so the normal need not be unit length). A sphere
/// of radius 0 is its center point. Invalid lanes (non-finite input, negative
/// radius) answer `false`; see the [contracts](crate#contracts). Ulp band:
/// `simd-notes.md`, "sphere–plane".
///
/// ```
/// use widephase::{overlap, Plane, Sphere, Vec3};
/// let floor = Plane::new(Vec3::new(0.0, 2.0, 0.0), 0.0); // y = 0, non-unit normal
/// let resting = Sphere::new(Vec3::new(5.0, 1.0, 0.0), 1.0); // touches y = 0
/// assert!(overlap::sphere_plane(&resting, &floor));
/// let above = Sphere::new(Vec3::new(5.0, 1.5, 0.0), 1.0);
/// assert!(!overlap::sphere_plane(&above, &floor));
/// ```
#[inline(always)]
pub fn sphere_plane<L: Lane>(sphere: &Sphere<L>, plane: &Plane<L>) -> L::Mask {
    let s = plane_value(plane, sphere.center);
    // reach = r·|n|: the sphere's projection half-width in units of the plane value
    let reach = sphere.radius * plane.normal.length();
    // return |s| <= reach
    s.abs().le(reach) & sphere.is_valid() & plane_is_valid(plane)
}

/// Whether the closed ball `sphere` meets the closed half-space
/// `normal·x <= d` (inside it or crossing its plane). LANE-GENERIC.
///
/// Test: `normal·center - d <= radius·|normal|` (Ericson §5.2.2
/// `TestSphereHalfspace`). Non-unit normals allowed. Invalid lanes answer
/// `false` ([contracts](crate#contracts)); band: `simd-notes.md`.
///
/// ```
/// use widephase::{overlap, Plane, Sphere, Vec3};
/// let below_y0 = Plane::new(Vec3::Y, 0.0); // y <= 0
/// assert!(overlap::sphere_halfspace(&Sphere::new(Vec3::new(0.0, 1.0, 0.0), 1.0), &below_y0)); // touching
/// assert!(overlap::sphere_halfspace(&Sphere::new(Vec3::new(0.0, -9.0, 0.0), 1.0), &below_y0)); // inside
/// assert!(!overlap::sphere_halfspace(&Sphere::new(Vec3::new(0.0, 1.5, 0.0), 1.0), &below_y0));
/// ```
#[inline(always)]
pub fn sphere_halfspace<L: Lane>(sphere: &Sphere<L>, plane: &Plane<L>) -> L::Mask {
    let s = plane_value(plane, sphere.center);
    let reach = sphere.radius * plane.normal.length();
    // return s <= reach
    s.le(reach) & sphere.is_valid() & plane_is_valid(plane)
}

/// Whether the closed box `aabb` meets the plane surface `normal·x = d`.
/// LANE-GENERIC.
///
/// Test: the box's corners extreme along the normal (n-vertex `q`, p-vertex
/// `p`, chosen exactly from the normal's signs) lie on both closed sides:
/// `normal·q - d <= 0 <= normal·p - d`. This is the corner form of Ericson
/// §5.2.3 `TestAABBPlane` ("the farthest vertex and the diagonally opposite one
/// lie on opposite sides"); unlike the center/extent form it rounds no center or
/// extent, so its band is only that of two dot products. Non-unit normals
/// allowed; zero-extent boxes are their rectangle/segment/point. Invalid lanes
/// (non-finite, inverted box) answer `false` ([contracts](crate#contracts)).
///
/// ```
/// use widephase::{overlap, Aabb, Plane, Vec3};
/// let diagonal = Plane::new(Vec3::new(1.0, 1.0, 1.0), 3.0); // x + y + z = 3
/// let touching = Aabb::new(Vec3::new(-1.0, -1.0, -1.0), Vec3::new(1.0, 1.0, 1.0)); // corner (1,1,1)
/// assert!(overlap::aabb_plane(&touching, &diagonal));
/// let short = Aabb::new(Vec3::new(-1.0, -1.0, -1.0), Vec3::new(1.0, 1.0, 0.5));
/// assert!(!overlap::aabb_plane(&short, &diagonal));
/// ```
#[inline(always)]
pub fn aabb_plane<L: Lane>(aabb: &Aabb<L>, plane: &Plane<L>) -> L::Mask {
    let (n_vertex, p_vertex) = aabb_extreme_corners(aabb, plane.normal);
    let lowest = plane_value(plane, n_vertex);
    let highest = plane_value(plane, p_vertex);
    let zero = L::splat(0.0);
    // return lowest <= 0 && 0 <= highest
    lowest.le(zero) & highest.ge(zero) & aabb.is_valid() & plane_is_valid(plane)
}

/// Whether the closed box `aabb` meets the closed half-space `normal·x <= d`.
/// LANE-GENERIC.
///
/// Test: the n-vertex `q` (corner most against the normal) satisfies
/// `normal·q - d <= 0`. Non-unit normals allowed; invalid lanes answer `false`
/// ([contracts](crate#contracts)).
///
/// ```
/// use widephase::{overlap, Aabb, Plane, Vec3};
/// let x_le_0 = Plane::new(Vec3::X, 0.0);
/// let touching = Aabb::new(Vec3::new(0.0, 5.0, 5.0), Vec3::new(1.0, 6.0, 6.0));
/// assert!(overlap::aabb_halfspace(&touching, &x_le_0));
/// let beyond = Aabb::new(Vec3::new(0.25, 5.0, 5.0), Vec3::new(1.0, 6.0, 6.0));
/// assert!(!overlap::aabb_halfspace(&beyond, &x_le_0));
/// ```
#[inline(always)]
pub fn aabb_halfspace<L: Lane>(aabb: &Aabb<L>, plane: &Plane<L>) -> L::Mask {
    let (n_vertex, _) = aabb_extreme_corners(aabb, plane.normal);
    let lowest = plane_value(plane, n_vertex);
    // return lowest <= 0
    lowest.le(L::splat(0.0)) & aabb.is_valid() & plane_is_valid(plane)
}

/// `(s, r)`: the plane value of the OBB center and the half-width of the OBB's
/// projection on the normal, `r = Σ half_i·|axis_i·normal|` (Ericson §5.2.3).
/// The formula is the exact support of the parallelepiped `center + Σ s_i
/// axis_i`, `|s_i| <= half_i`, whether or not the axes are orthonormal.
fn obb_projection(b: &Obb, plane: &Plane) -> (f32, f32) {
    let n = plane.normal;
    let r = b.half.x * b.axes[0].dot(n).abs()
        + b.half.y * b.axes[1].dot(n).abs()
        + b.half.z * b.axes[2].dot(n).abs();
    (plane.signed_distance(b.center), r)
}

/// Whether the closed oriented box `obb` meets the plane surface `normal·x = d`.
///
/// Test: `|normal·center - d| <= Σ half_i·|axis_i·normal|` (Ericson §5.2.3
/// `TestOBBPlane`, a separating-axis test on the plane normal alone). Non-unit
/// normals allowed. The box is the closed set `center + Σ s_i·axes[i]`,
/// `|s_i| <= half[i]`, and the test is exact for it even when the axes are not
/// exactly orthonormal. A negative half extent makes the box empty (`false`),
/// as do non-finite inputs ([contracts](crate#contracts)).
///
/// ```
/// use widephase::{overlap, Obb, Plane, Vec3};
/// let cube = Obb::new(Vec3::new(0.0, 0.0, 2.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// assert!(overlap::obb_plane(&cube, &Plane::new(Vec3::Z, 1.0))); // bottom face touches z = 1
/// assert!(!overlap::obb_plane(&cube, &Plane::new(Vec3::Z, 0.5)));
/// ```
pub fn obb_plane(obb: &Obb, plane: &Plane) -> bool {
    let (s, r) = obb_projection(obb, plane);
    s.abs() <= r && obb.is_valid() && plane_is_valid(plane)
}

/// Whether the closed oriented box `obb` meets the closed half-space
/// `normal·x <= d`.
///
/// Test: `normal·center - d <= Σ half_i·|axis_i·normal|` (Ericson §5.2.3: "the
/// OBB lies in the negative half-space if `s <= -r`", and touches it while
/// `s <= r`). Same set, normal and validity rules as [`obb_plane`].
///
/// ```
/// use widephase::{overlap, Obb, Plane, Vec3};
/// let cube = Obb::new(Vec3::new(0.0, 0.0, 2.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// assert!(overlap::obb_halfspace(&cube, &Plane::new(-Vec3::Z, -3.0))); // z >= 3: top face touches
/// assert!(!overlap::obb_halfspace(&cube, &Plane::new(Vec3::Z, 0.5))); // z <= 0.5
/// ```
pub fn obb_halfspace(obb: &Obb, plane: &Plane) -> bool {
    let (s, r) = obb_projection(obb, plane);
    s <= r && obb.is_valid() && plane_is_valid(plane)
}

/// Validity of a cone: finite fields, `height >= 0`, `radius >= 0`, non-zero axis.
fn cone_is_valid(c: &Cone) -> bool {
    c.apex.is_finite()
        && c.axis.is_finite()
        && c.height.is_finite()
        && c.radius.is_finite()
        && c.height >= 0.0
        && c.radius >= 0.0
        && c.axis != Vec3::ZERO
}

/// `(apex value, base-center value, base rim reach)` of a cone against a
/// plane: `normal·apex - d`, `normal·base - d` with `base = apex + height·axis`,
/// and `radius·|normal × axis| / |axis|`, the half-width of the base disc's
/// projection on the normal (the disc lies in the plane orthogonal to `axis`;
/// its support in direction `n` is `radius·|n_⊥|` with `n_⊥` the part of `n`
/// orthogonal to the axis, `|n_⊥| = |n × axis| / |axis|`).
fn cone_projection(c: &Cone, plane: &Plane) -> (f32, f32, f32) {
    let n = plane.normal;
    let at_apex = plane.signed_distance(c.apex);
    // base value = apex value + height·(n·axis): no rounded base point needed
    let at_base = at_apex + c.height * n.dot(c.axis);
    let rim = c.radius * (n.cross(c.axis).length() / c.axis.length());
    (at_apex, at_base, rim)
}

/// Whether the closed solid cone meets the plane surface `normal·x = d`.
///
/// The cone is the convex hull of its apex and its base disc (center
/// `apex + height·axis`, `radius`, in the plane orthogonal to `axis`). Over a
/// convex set the plane value `normal·x - d` takes every value between its
/// minimum and maximum, which are attained at the apex or on the base rim
/// (Ericson §5.2.4, with the seed's unnormalised `m` corrected, see
/// `simd-notes.md`):
/// `min = min(a, b - ρ)`, `max = max(a, b + ρ)` with `a` the apex value, `b` the
/// base-center value and `ρ = radius·|normal × axis|/|axis|`. The cone meets the
/// plane iff `min <= 0 <= max`.
///
/// `axis` need not be unit length (only its direction is used; the base is at
/// `apex + height·axis`, so with a non-unit axis the cone's length is
/// `height·|axis|`); normals need not be unit length. Height 0 is the base disc,
/// radius 0 the segment apex–base. Negative height or radius, a zero axis and
/// non-finite inputs answer `false` ([contracts](crate#contracts)).
///
/// ```
/// use widephase::{overlap, Cone, Plane, Vec3};
/// // apex at the origin pointing down -y, height 2, base radius 1
/// let cone = Cone::new(Vec3::ZERO, -Vec3::Y, 2.0, 1.0);
/// assert!(overlap::cone_plane(&cone, &Plane::new(Vec3::Y, -2.0))); // base touches y = -2
/// assert!(overlap::cone_plane(&cone, &Plane::new(Vec3::X, 1.0))); // rim touches x = 1
/// assert!(!overlap::cone_plane(&cone, &Plane::new(Vec3::X, 1.5)));
/// ```
pub fn cone_plane(cone: &Cone, plane: &Plane) -> bool {
    let (a, b, rim) = cone_projection(cone, plane);
    let lowest = a.min(b - rim);
    let highest = a.max(b + rim);
    lowest <= 0.0 && 0.0 <= highest && cone_is_valid(cone) && plane_is_valid(plane)
}

/// Whether the closed solid cone meets the closed half-space `normal·x <= d`.
///
/// Test: `min(a, b - ρ) <= 0` in the notation of [`cone_plane`] — Ericson
/// §5.2.4 checks the apex and the base point farthest along `-normal`,
/// `Q = base + radius·m` with `m` the **unit** vector of `(n × v) × v`. Same
/// conventions and validity rules as [`cone_plane`].
///
/// ```
/// use widephase::{overlap, Cone, Plane, Vec3};
/// let cone = Cone::new(Vec3::ZERO, -Vec3::Y, 2.0, 1.0);
/// assert!(overlap::cone_halfspace(&cone, &Plane::new(-Vec3::X, 1.0))); // x >= -1: rim touches
/// assert!(!overlap::cone_halfspace(&cone, &Plane::new(-Vec3::X, -1.5))); // x >= 1.5
/// ```
pub fn cone_halfspace(cone: &Cone, plane: &Plane) -> bool {
    let (a, b, rim) = cone_projection(cone, plane);
    a.min(b - rim) <= 0.0 && cone_is_valid(cone) && plane_is_valid(plane)
}
