//! View-frustum culling: frustum vs sphere and vs AABB, scalar and batched, and
//! frustum planes from a view-projection matrix.
//!
//! Sources: the frustum/sphere, frustum/box and plane-extraction slides of seed
//! `003_9226422f2bc80208.txt` (after Akenine-Möller et al., *Real-Time
//! Rendering*, and Gribb & Hartmann, "Fast Extraction of Viewing Frustum Planes
//! from the World-View-Projection Matrix", 2001); the per-plane tests are those
//! of Ericson §5.2.2–5.2.3 (seed `000`), see [`sphere_halfspace`](super::sphere_halfspace)
//! and [`aabb_halfspace`](super::aabb_halfspace).
//!
//! What each [`Classification`] means is documented on the enum.

use super::plane::{aabb_extreme_corners, plane_value};
use crate::lane::{Lane, LaneMask};
use crate::math::{Vec3, V3};
use crate::shapes::{Aabb, Frustum, Plane, Sphere};

/// Where a shape lies relative to a frustum, by the per-plane test: `Outside`
/// is never reported for a shape that meets the frustum (outside the ulp band),
/// but `Intersecting` may be reported for a shape just outside a frustum edge
/// or corner.
///
/// # What the classification means
///
/// A [`Frustum`] is the intersection of six closed half-spaces
/// `normal_i·x <= d_i` (normals point **out**). For a closed shape `S`:
///
/// - [`Classification::Outside`]: `S` lies entirely *strictly* outside at least
///   one plane (`normal_i·x > d_i` for every `x` in `S`). Such a shape certainly
///   does not meet the frustum: culling it is always safe.
/// - [`Classification::Inside`]: `S` lies inside every closed half-space, i.e. is
///   contained in the frustum (touching its boundary from inside counts).
/// - [`Classification::Intersecting`]: everything else. This includes shapes
///   that meet the frustum's boundary **and also shapes that are outside the
///   frustum but straddle two or more planes near an edge or corner** (the
///   classic false positive of the plane-by-plane test: a box or sphere beyond a
///   corner that no single plane separates). Reporting those as intersecting is
///   conservative for culling — an object is drawn, never wrongly culled — and is
///   what the per-plane test promises; it is *not* an exact intersection test.
///
/// Touching a plane from outside (the shape's nearest point exactly on the
/// plane) is not Outside: the shapes are closed. Answers are exact on the `f32`
/// inputs except inside the per-plane ulp band of `simd-notes.md`
/// ([contracts](crate#contracts)). A shape or frustum with a NaN or infinite
/// coordinate (or an empty shape: inverted box, negative radius) is reported
/// **Outside**: it has no intersection with anything, so culling it is the
/// contract's "no intersection" answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Classification {
    /// Entirely strictly outside at least one frustum plane: safe to cull.
    Outside,
    /// Contained in the closed frustum.
    Inside,
    /// Neither of the above: crosses a plane (possibly outside near a corner).
    Intersecting,
}

impl Classification {
    /// The classification of one lane given the `(outside, inside)` masks of the
    /// batched kernels ([`frustum_sphere_masks`], [`frustum_aabb_masks`]).
    ///
    /// ```
    /// use widephase::overlap::Classification;
    /// assert_eq!(Classification::from_masks(true, false), Classification::Outside);
    /// assert_eq!(Classification::from_masks(false, false), Classification::Intersecting);
    /// ```
    #[inline]
    pub fn from_masks(outside: bool, inside: bool) -> Classification {
        if outside {
            Classification::Outside
        } else if inside {
            Classification::Inside
        } else {
            Classification::Intersecting
        }
    }
}

/// Clip-space depth range of a projection matrix, which decides the near plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthRange {
    /// OpenGL: `-w <= z_clip <= w` (NDC depth `-1..1`).
    NegativeOneToOne,
    /// Direct3D, Vulkan, Metal, wgpu: `0 <= z_clip <= w` (NDC depth `0..1`).
    ZeroToOne,
}

impl Frustum {
    /// The world-space frustum of a view-projection matrix `m` (Gribb–Hartmann;
    /// seed `003`, "平头锥体平面的获取").
    ///
    /// `m` is **column-major**, `m[column][row]` — the layout of glam's
    /// `Mat4::to_cols_array_2d` and of OpenGL uniforms — and maps a world point
    /// `s = (x, y, z, 1)` to clip coordinates `t = M s`, so `t_i = row_i·s` with
    /// `row_i = (m[0][i], m[1][i], m[2][i], m[3][i])`. A point is in the clip
    /// volume when `-t_w <= t_x <= t_w`, `-t_w <= t_y <= t_w`, `t_z <= t_w` and
    /// `-t_w <= t_z` ([`DepthRange::NegativeOneToOne`]) or `0 <= t_z`
    /// ([`DepthRange::ZeroToOne`]). Each inequality is a half-space
    /// `p·s <= 0` in world space; e.g. left, `-t_w <= t_x`, is
    /// `-(row_3 + row_0)·s <= 0`, i.e. normal `-(row_3 + row_0).xyz` and
    /// `d = (row_3 + row_0).w`, the normal pointing **out** as [`Frustum`]
    /// requires. Order: left, right, bottom, top, near, far.
    ///
    /// Planes are normalised (unit normals, `d` the signed distance of the
    /// origin behind the plane), computed in `f64` and rounded once. A row
    /// combination whose `xyz` part is zero — the far plane of an
    /// infinite-far-plane projection — is the constraint `0 <= w`: it is stored
    /// as normal `0` with `d = 1` (everything passes) when `w >= 0`, and `d = -1`
    /// (nothing passes) when `w < 0`. A matrix with any NaN or ±∞ entry gives
    /// six NaN planes (the [NaN rule](crate#contracts): such a frustum contains
    /// nothing, and every shape classifies Outside) — not only the planes whose
    /// rows hold the entry, since an infinite `w` entry would otherwise give a
    /// finite normal with `d = ±∞`, a plane every point passes.
    ///
    /// ```
    /// use widephase::overlap::DepthRange;
    /// use widephase::{Frustum, Vec3};
    /// // Orthographic box x,y in [-1, 1], looking down -z, near 1, far 3 (OpenGL).
    /// let (n, f) = (1.0f32, 3.0f32);
    /// let m = [
    ///     [1.0, 0.0, 0.0, 0.0],
    ///     [0.0, 1.0, 0.0, 0.0],
    ///     [0.0, 0.0, -2.0 / (f - n), 0.0],
    ///     [0.0, 0.0, -(f + n) / (f - n), 1.0],
    /// ];
    /// let fr = Frustum::from_view_projection(&m, DepthRange::NegativeOneToOne);
    /// assert_eq!(fr.planes[0].normal, Vec3::new(-1.0, 0.0, 0.0)); // left: x >= -1
    /// assert_eq!(fr.planes[0].d, 1.0);
    /// assert_eq!(fr.planes[4].normal, Vec3::new(0.0, 0.0, 1.0)); // near: z <= -1
    /// assert_eq!(fr.planes[4].d, -1.0);
    /// ```
    pub fn from_view_projection(m: &[[f32; 4]; 4], depth: DepthRange) -> Frustum {
        if !m.iter().flatten().all(|x| x.is_finite()) {
            return Frustum { planes: [Plane::new(Vec3::splat(f32::NAN), f32::NAN); 6] };
        }
        let row = |i: usize| -> [f64; 4] {
            [m[0][i] as f64, m[1][i] as f64, m[2][i] as f64, m[3][i] as f64]
        };
        let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
        let comb = |a: [f64; 4], sa: f64, b: [f64; 4], sb: f64| -> [f64; 4] {
            core::array::from_fn(|k| sa * a[k] + sb * b[k])
        };
        // Each `p` encodes the clip-space half-space p·(x, y, z, 1) <= 0.
        let near = match depth {
            DepthRange::NegativeOneToOne => comb(r3, -1.0, r2, -1.0), // -w <= z
            DepthRange::ZeroToOne => comb(r3, 0.0, r2, -1.0),         // 0 <= z
        };
        let ps = [
            comb(r3, -1.0, r0, -1.0), // left:   -w <= x
            comb(r3, -1.0, r0, 1.0),  // right:   x <= w
            comb(r3, -1.0, r1, -1.0), // bottom: -w <= y
            comb(r3, -1.0, r1, 1.0),  // top:     y <= w
            near,
            comb(r3, -1.0, r2, 1.0), // far:      z <= w
        ];
        let planes = ps.map(|p| {
            // p.xyz·x + p.w <= 0  <=>  n·x <= d with n = p.xyz, d = -p.w
            let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            if len > 0.0 && len.is_finite() {
                Plane::new(
                    Vec3::new((p[0] / len) as f32, (p[1] / len) as f32, (p[2] / len) as f32),
                    (-p[3] / len) as f32,
                )
            } else if len == 0.0 {
                // 0 <= -p.w: all of space or nothing
                Plane::new(Vec3::ZERO, if -p[3] >= 0.0 { 1.0 } else { -1.0 })
            } else {
                Plane::new(Vec3::splat(f32::NAN), f32::NAN)
            }
        });
        Frustum { planes }
    }

    /// Whether the point `p` is in the closed frustum (`normal_i·p <= d_i` for
    /// all six planes; `false` for a non-finite point or any non-finite plane
    /// coordinate, the [NaN rule](crate#contracts)).
    ///
    /// ```
    /// use widephase::{Frustum, Plane, Vec3};
    /// let unit_cube = Frustum { planes: [
    ///     Plane::new(-Vec3::X, 0.0), Plane::new(Vec3::X, 1.0),
    ///     Plane::new(-Vec3::Y, 0.0), Plane::new(Vec3::Y, 1.0),
    ///     Plane::new(-Vec3::Z, 0.0), Plane::new(Vec3::Z, 1.0),
    /// ] };
    /// assert!(unit_cube.contains_point(Vec3::new(1.0, 0.5, 0.0))); // on the boundary
    /// assert!(!unit_cube.contains_point(Vec3::new(1.5, 0.5, 0.0)));
    /// ```
    pub fn contains_point(&self, p: Vec3) -> bool {
        p.is_finite()
            && frustum_is_valid(self)
            && self.planes.iter().all(|pl| pl.normal.dot(p) - pl.d <= 0.0)
    }
}

/// Whether all six planes are finite (a bool broadcast to every lane).
fn frustum_is_valid(f: &Frustum) -> bool {
    f.planes.iter().all(|p| p.normal.is_finite() && p.d.is_finite())
}

/// Batched frustum–sphere classification: `(outside, inside)` masks for a pack of
/// spheres against one frustum (its planes broadcast to every lane).
/// LANE-GENERIC; at `L = f32` it returns `(bool, bool)`.
///
/// Per plane `i` with value `s_i = normal_i·center - d_i` and reach
/// `ρ_i = radius·|normal_i|` (normals need not be unit): the sphere is
/// strictly outside plane `i` iff `s_i > ρ_i`, and inside its closed half-space
/// iff `s_i <= -ρ_i`. `outside` = some plane has the sphere outside (or the
/// lane/frustum is invalid); `inside` = every plane has it inside (and valid).
/// The two masks are never both set. Meaning and the corner false positive: see
/// the [`Classification`]; seed `003`, "平头锥体/球体相交测试具体实现".
///
/// ```
/// use widephase::overlap::frustum_sphere_masks;
/// use widephase::{Frustum, Plane, Sphere, Vec3};
/// let cube = Frustum { planes: [
///     Plane::new(-Vec3::X, 1.0), Plane::new(Vec3::X, 1.0),
///     Plane::new(-Vec3::Y, 1.0), Plane::new(Vec3::Y, 1.0),
///     Plane::new(-Vec3::Z, 1.0), Plane::new(Vec3::Z, 1.0),
/// ] };
/// // touching the right face from outside: not Outside
/// let (out, inside) = frustum_sphere_masks(&cube, &Sphere::new(Vec3::new(2.0, 0.0, 0.0), 1.0));
/// assert!(!out && !inside);
/// ```
#[inline(always)]
pub fn frustum_sphere_masks<L: Lane>(frustum: &Frustum, sphere: &Sphere<L>) -> (L::Mask, L::Mask) {
    let mut outside = L::Mask::splat(false);
    let mut inside = L::Mask::splat(true);
    for p in &frustum.planes {
        // per-query work, once per plane: |n|, broadcast
        let plane = Plane::<L> { normal: V3::broadcast(p.normal), d: L::splat(p.d) };
        let reach = sphere.radius * L::splat(p.normal.length());
        let s = plane_value(&plane, sphere.center);
        // outside |= s > reach; inside &= s <= -reach
        outside = outside | s.gt(reach);
        inside = inside & s.le(-reach);
    }
    let valid = sphere.is_valid() & L::Mask::splat(frustum_is_valid(frustum));
    (outside | !valid, inside.and_not(outside) & valid)
}

/// Batched frustum–AABB classification: `(outside, inside)` masks for a pack of
/// boxes against one frustum (planes broadcast). LANE-GENERIC; at `L = f32` it
/// returns `(bool, bool)`.
///
/// The n-vertex/p-vertex test (seed `003`, "平头锥体/长方体相交测试": only two
/// corners per plane): for plane `i` the n-vertex `q_i` is the corner most
/// against `normal_i`, the p-vertex `p_i` the corner most along it (both chosen
/// exactly from the normal's signs). The box is strictly outside plane `i` iff
/// `normal_i·q_i - d_i > 0`, and inside its closed half-space iff
/// `normal_i·p_i - d_i <= 0`. `outside` = some plane has the box outside (or
/// the lane/frustum is invalid); `inside` = all planes have it inside (and
/// valid). Meaning and the corner false positive: see the [`Classification`].
///
/// ```
/// use widephase::overlap::frustum_aabb_masks;
/// use widephase::{Aabb, Frustum, Plane, Vec3};
/// let cube = Frustum { planes: [
///     Plane::new(-Vec3::X, 1.0), Plane::new(Vec3::X, 1.0),
///     Plane::new(-Vec3::Y, 1.0), Plane::new(Vec3::Y, 1.0),
///     Plane::new(-Vec3::Z, 1.0), Plane::new(Vec3::Z, 1.0),
/// ] };
/// let touching_inside = Aabb::new(Vec3::splat(0.0), Vec3::splat(1.0));
/// assert_eq!(frustum_aabb_masks(&cube, &touching_inside), (false, true));
/// ```
#[inline(always)]
pub fn frustum_aabb_masks<L: Lane>(frustum: &Frustum, aabb: &Aabb<L>) -> (L::Mask, L::Mask) {
    let mut outside = L::Mask::splat(false);
    let mut inside = L::Mask::splat(true);
    let zero = L::splat(0.0);
    for p in &frustum.planes {
        let plane = Plane::<L> { normal: V3::broadcast(p.normal), d: L::splat(p.d) };
        let (n_vertex, p_vertex) = aabb_extreme_corners(aabb, plane.normal);
        // outside |= n·q - d > 0; inside &= n·p - d <= 0
        outside = outside | plane_value(&plane, n_vertex).gt(zero);
        inside = inside & plane_value(&plane, p_vertex).le(zero);
    }
    let valid = aabb.is_valid() & L::Mask::splat(frustum_is_valid(frustum));
    (outside | !valid, inside.and_not(outside) & valid)
}

/// Classifies a sphere against a frustum (scalar form of
/// [`frustum_sphere_masks`]; meaning of each answer: [`Classification`]).
///
/// ```
/// use widephase::overlap::{frustum_sphere, Classification};
/// use widephase::{Frustum, Plane, Sphere, Vec3};
/// let cube = Frustum { planes: [
///     Plane::new(-Vec3::X, 1.0), Plane::new(Vec3::X, 1.0),
///     Plane::new(-Vec3::Y, 1.0), Plane::new(Vec3::Y, 1.0),
///     Plane::new(-Vec3::Z, 1.0), Plane::new(Vec3::Z, 1.0),
/// ] };
/// assert_eq!(frustum_sphere(&cube, &Sphere::new(Vec3::ZERO, 1.0)), Classification::Inside); // touches all faces
/// assert_eq!(frustum_sphere(&cube, &Sphere::new(Vec3::new(2.5, 0.0, 0.0), 1.0)), Classification::Outside);
/// // beyond the corner (1,1,1) but straddling three planes: the documented false positive
/// let c = 1.0 + 1.2 / 3f32.sqrt();
/// assert_eq!(frustum_sphere(&cube, &Sphere::new(Vec3::splat(c), 1.0)), Classification::Intersecting);
/// ```
pub fn frustum_sphere(frustum: &Frustum, sphere: &Sphere) -> Classification {
    let (outside, inside) = frustum_sphere_masks::<f32>(frustum, sphere);
    Classification::from_masks(outside, inside)
}

/// Classifies an AABB against a frustum (scalar form of [`frustum_aabb_masks`];
/// meaning of each answer: [`Classification`]).
///
/// ```
/// use widephase::overlap::{frustum_aabb, Classification};
/// use widephase::{Aabb, Frustum, Plane, Vec3};
/// let cube = Frustum { planes: [
///     Plane::new(-Vec3::X, 1.0), Plane::new(Vec3::X, 1.0),
///     Plane::new(-Vec3::Y, 1.0), Plane::new(Vec3::Y, 1.0),
///     Plane::new(-Vec3::Z, 1.0), Plane::new(Vec3::Z, 1.0),
/// ] };
/// let touching_outside = Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
/// assert_eq!(frustum_aabb(&cube, &touching_outside), Classification::Intersecting);
/// let apart = Aabb::new(Vec3::new(1.5, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
/// assert_eq!(frustum_aabb(&cube, &apart), Classification::Outside);
/// ```
pub fn frustum_aabb(frustum: &Frustum, aabb: &Aabb) -> Classification {
    let (outside, inside) = frustum_aabb_masks::<f32>(frustum, aabb);
    Classification::from_masks(outside, inside)
}
