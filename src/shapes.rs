//! The primitives: plain `#[repr(C)]` structs of `f32`, castable from vertex and
//! instance buffers with bytemuck, generic over [`Lane`] so the same type names a
//! scalar shape (`Aabb`, i.e. `Aabb<f32>`) or a structure-of-arrays pack of
//! shapes (`Aabb<f32x8>`).
//!
//! Plain constructors never fail and never check: kernels give every input a
//! defined answer (see the [contracts](crate#contracts)). Data from users can be
//! validated with the `try_new` constructors, which return a [`ShapeError`].
//!
//! ```
//! use widephase::{Triangle, Vec3};
//! // A vertex buffer of three triangles (27 floats) viewed as triangles, no copy.
//! let verts: Vec<f32> = (0..27).map(|i| i as f32).collect();
//! let tris: &[Triangle] = bytemuck::cast_slice(&verts);
//! assert_eq!(tris.len(), 3);
//! assert_eq!(tris[1].a, Vec3::new(9.0, 10.0, 11.0));
//! ```

use crate::lane::Lane;
use crate::math::{Vec3, V3};
use core::fmt;

/// Why a checked constructor rejected its input.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ShapeError {
    /// A coordinate or parameter was NaN or infinite.
    NonFinite {
        /// Which input (e.g. `"min"`, `"radius"`).
        what: &'static str,
    },
    /// An AABB with `min > max` on an axis.
    Inverted {
        /// The axis (0 = x, 1 = y, 2 = z; for k-DOPs the slab index).
        axis: usize,
    },
    /// A negative radius or half extent.
    Negative {
        /// Which input.
        what: &'static str,
    },
    /// OBB or rectangle axes that are not orthonormal within the tolerance.
    NotOrthonormal {
        /// Largest deviation found: `|a_i·a_j - δ_ij|`.
        deviation: f32,
    },
    /// A zero (or non-normalisable) direction where one is required.
    ZeroDirection {
        /// Which input.
        what: &'static str,
    },
    /// A ray interval with `t_min > t_max` or a NaN bound.
    EmptyInterval,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::NonFinite { what } => write!(f, "{what} is NaN or infinite"),
            ShapeError::Inverted { axis } => write!(f, "min > max on axis {axis}"),
            ShapeError::Negative { what } => write!(f, "{what} is negative"),
            ShapeError::NotOrthonormal { deviation } => {
                write!(f, "axes are not orthonormal (deviation {deviation:e})")
            }
            ShapeError::ZeroDirection { what } => write!(f, "{what} has zero length"),
            ShapeError::EmptyInterval => write!(f, "ray interval is empty or NaN (t_min > t_max)"),
        }
    }
}

impl std::error::Error for ShapeError {}

/// Tolerance of [`Obb::try_new`] and [`Rect3::try_new`] on `|a_i·a_j - δ_ij|`.
pub const ORTHONORMAL_TOLERANCE: f32 = 1e-5;

fn finite3(v: Vec3, what: &'static str) -> Result<(), ShapeError> {
    if v.x.is_finite() && v.y.is_finite() && v.z.is_finite() {
        Ok(())
    } else {
        Err(ShapeError::NonFinite { what })
    }
}

fn finite1(v: f32, what: &'static str) -> Result<(), ShapeError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(ShapeError::NonFinite { what })
    }
}

fn orthonormal(axes: &[Vec3]) -> Result<(), ShapeError> {
    let mut dev = 0.0f32;
    for (i, a) in axes.iter().enumerate() {
        finite3(*a, "axis")?;
        for (j, b) in axes.iter().enumerate() {
            let want = if i == j { 1.0 } else { 0.0 };
            dev = dev.max((a.dot(*b) - want).abs());
        }
    }
    if dev <= ORTHONORMAL_TOLERANCE {
        Ok(())
    } else {
        Err(ShapeError::NotOrthonormal { deviation: dev })
    }
}

/// Implements bytemuck's `Zeroable` and `Pod` for a lane-generic shape at every
/// `Pod` lane type (`f32` for scalar shapes, wide's `f32x4`/`f32x8`/`f32x16` for
/// SoA chunks, which lets packs be filled by transposing through `&[f32]`).
///
/// SAFETY (the proof the crate's unsafe policy asks for): each listed type is
/// `#[repr(C)]` and every field is `L`, `V3<L>` (itself `#[repr(C)]` with three
/// `L`) or an array of those. All fields therefore have the size and alignment of
/// `L`, and Rust guarantees a type's size is a multiple of its alignment, so
/// `repr(C)` places them back to back with no padding. `L: Pod` makes every bit
/// pattern of each field valid, so every bit pattern of the struct is valid;
/// there are no pointers or interior mutability. These are exactly the
/// conditions of `bytemuck::Pod`; the derive cannot be used on generic structs.
macro_rules! pod_generic {
    ($($t:ident),* $(,)?) => {$(
        #[allow(unsafe_code)]
        // SAFETY: see the macro's documentation above.
        unsafe impl<L: bytemuck::Pod> bytemuck::Zeroable for $t<L> {}
        #[allow(unsafe_code)]
        // SAFETY: see the macro's documentation above.
        unsafe impl<L: bytemuck::Pod> bytemuck::Pod for $t<L> {}
    )*};
}

/// An axis-aligned box, the closed set `[min, max]`.
///
/// A box with `min > max` on some axis is empty: it intersects nothing
/// (see [contracts](crate#contracts)). Zero extent is allowed (a rectangle,
/// segment or point).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Aabb<L = f32> {
    /// Minimum corner.
    pub min: V3<L>,
    /// Maximum corner.
    pub max: V3<L>,
}

/// A sphere, the closed ball `|x - center| <= radius`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sphere<L = f32> {
    /// Center.
    pub center: V3<L>,
    /// Radius (a negative radius is an empty sphere).
    pub radius: L,
}

/// A triangle, the closed convex hull of `a`, `b`, `c`. A zero-area triangle is
/// the segment or point its vertices span.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Triangle<L = f32> {
    /// First vertex.
    pub a: V3<L>,
    /// Second vertex.
    pub b: V3<L>,
    /// Third vertex.
    pub c: V3<L>,
}

/// A ray: the points `origin + t·dir` for `t` in the closed interval
/// `[t_min, t_max]`. `dir` need not be unit length; `t` is in units of `dir`.
/// `t_max` may be `+∞` and `t_min` may be `-∞` (a line).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ray<L = f32> {
    /// Origin.
    pub origin: V3<L>,
    /// Direction (any length; zero makes the ray the point `origin`).
    pub dir: V3<L>,
    /// Start of the parameter interval.
    pub t_min: L,
    /// End of the parameter interval.
    pub t_max: L,
}

/// A segment, the closed set `a + t·(b - a)`, `t ∈ [0, 1]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Segment<L = f32> {
    /// Start point.
    pub a: V3<L>,
    /// End point.
    pub b: V3<L>,
}

/// A plane, the points `x` with `normal·x = d`.
///
/// Convention for half-spaces and frusta: the half-space of a plane is
/// `normal·x <= d` (the side *behind* the normal); `normal` need not be unit
/// length unless a function says so.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Plane<L = f32> {
    /// Normal.
    pub normal: V3<L>,
    /// Offset: `normal·x = d` on the plane.
    pub d: L,
}

/// An oriented box: `center + Σ s_i·axes[i]`, `|s_i| <= half[i]`.
/// `axes` must be orthonormal (checked by [`Obb::try_new`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Obb<L = f32> {
    /// Center.
    pub center: V3<L>,
    /// Orthonormal local axes.
    pub axes: [V3<L>; 3],
    /// Half extents along each axis.
    pub half: V3<L>,
}

/// A capsule: the points within `radius` of the segment `[a, b]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Capsule<L = f32> {
    /// Segment start.
    pub a: V3<L>,
    /// Segment end.
    pub b: V3<L>,
    /// Radius.
    pub radius: L,
}

/// A finite closed cylinder of `radius` around the segment `[a, b]`, with flat caps.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cylinder<L = f32> {
    /// Center of the first cap.
    pub a: V3<L>,
    /// Center of the second cap.
    pub b: V3<L>,
    /// Radius.
    pub radius: L,
}

/// A right circular cone: apex `apex`, unit `axis` pointing from the apex to the
/// base, `height` along the axis and base `radius`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cone<L = f32> {
    /// Apex.
    pub apex: V3<L>,
    /// Unit axis from apex towards the base.
    pub axis: V3<L>,
    /// Distance from apex to base along `axis`.
    pub height: L,
    /// Base radius.
    pub radius: L,
}

/// A rectangle in 3D: `center + s·u + t·v`, `|s| <= half_u`, `|t| <= half_v`,
/// with `u`, `v` orthonormal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect3<L = f32> {
    /// Center.
    pub center: V3<L>,
    /// First unit axis.
    pub u: V3<L>,
    /// Second unit axis, orthogonal to `u`.
    pub v: V3<L>,
    /// Half extent along `u`.
    pub half_u: L,
    /// Half extent along `v`.
    pub half_v: L,
}

/// A tetrahedron, the closed convex hull of its four vertices.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tetrahedron<L = f32> {
    /// The four vertices.
    pub v: [V3<L>; 4],
}

pub(crate) use pod_generic;

pod_generic!(
    V3,
    Aabb,
    Sphere,
    Triangle,
    Ray,
    Segment,
    Plane,
    Obb,
    Capsule,
    Cylinder,
    Cone,
    Rect3,
    Tetrahedron
);

/// A discrete-orientation polytope with `N` slab axes (k = 2N): the closed set of
/// points `x` with `min[i] <= axis_i·x <= max[i]` for the fixed, unnormalised
/// integer axes of [`Kdop::AXES`].
///
/// `N = 3` is an AABB, `7` the 14-DOP (+ the four cube diagonals), `9` the 18-DOP
/// (+ the six face diagonals), `13` the 26-DOP (all of them). Axes are integer
/// vectors so that projecting a point is exact up to one rounding per term.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kdop<const N: usize> {
    /// Lower bound of each slab.
    pub min: [f32; N],
    /// Upper bound of each slab.
    pub max: [f32; N],
}

#[allow(unsafe_code)]
// SAFETY: `Kdop<N>` is `#[repr(C)]` with two `[f32; N]` fields: no padding, every
// bit pattern valid, no pointers — the `Pod` conditions (see `pod_generic!`).
unsafe impl<const N: usize> bytemuck::Zeroable for Kdop<N> {}
#[allow(unsafe_code)]
// SAFETY: as above.
unsafe impl<const N: usize> bytemuck::Pod for Kdop<N> {}

/// 14-DOP.
pub type Dop14 = Kdop<7>;
/// 18-DOP.
pub type Dop18 = Kdop<9>;
/// 26-DOP.
pub type Dop26 = Kdop<13>;

const KDOP_AXES_ALL: [Vec3; 13] = [
    V3 { x: 1.0, y: 0.0, z: 0.0 },
    V3 { x: 0.0, y: 1.0, z: 0.0 },
    V3 { x: 0.0, y: 0.0, z: 1.0 },
    V3 { x: 1.0, y: 1.0, z: 1.0 },
    V3 { x: 1.0, y: -1.0, z: 1.0 },
    V3 { x: 1.0, y: 1.0, z: -1.0 },
    V3 { x: 1.0, y: -1.0, z: -1.0 },
    V3 { x: 1.0, y: 1.0, z: 0.0 },
    V3 { x: 1.0, y: 0.0, z: 1.0 },
    V3 { x: 0.0, y: 1.0, z: 1.0 },
    V3 { x: 1.0, y: -1.0, z: 0.0 },
    V3 { x: 1.0, y: 0.0, z: -1.0 },
    V3 { x: 0.0, y: 1.0, z: -1.0 },
];

impl<const N: usize> Kdop<N> {
    /// The slab axes: the coordinate axes, then (N ≥ 7) the cube diagonals, then
    /// (N ≥ 9) face diagonals. Supported `N`: 3, 7, 9, 13 (compile-time checked).
    pub const AXES: [Vec3; N] = {
        assert!(N == 3 || N == 7 || N == 9 || N == 13, "k-DOP needs N in 3, 7, 9 or 13");
        let mut out = [Vec3::ZERO; N];
        let mut i = 0;
        while i < N {
            // 18-DOP uses the coordinate axes + the six face diagonals (no cube diagonals).
            let src = if N == 9 && i >= 3 { i + 4 } else { i };
            out[i] = KDOP_AXES_ALL[src];
            i += 1;
        }
        out
    };

    /// The empty k-DOP (`min = +∞`, `max = -∞`), the identity for [`Kdop::grow`].
    pub const EMPTY: Self = Kdop { min: [f32::INFINITY; N], max: [f32::NEG_INFINITY; N] };

    /// Checked constructor: finite bounds with `min <= max` on every slab.
    pub fn try_new(min: [f32; N], max: [f32; N]) -> Result<Self, ShapeError> {
        for i in 0..N {
            finite1(min[i], "min")?;
            finite1(max[i], "max")?;
            if min[i] > max[i] {
                return Err(ShapeError::Inverted { axis: i });
            }
        }
        Ok(Kdop { min, max })
    }

    /// Grows the k-DOP to contain `p` (projections rounded outward are not
    /// needed for correctness of containment tests on the same axes, but note
    /// that `axis·p` is rounded: see `bounding` for the conservative builder).
    pub fn grow(&mut self, p: Vec3) {
        for i in 0..N {
            let d = Self::AXES[i].dot(p);
            self.min[i] = self.min[i].min(d);
            self.max[i] = self.max[i].max(d);
        }
    }
}

/// A view frustum: six planes with normals pointing **out** of the frustum; a
/// point is inside when `normal·x <= d` for every plane (the half-space
/// convention of [`Plane`]). Order: left, right, bottom, top, near, far.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Frustum {
    /// The six bounding planes.
    pub planes: [Plane; 6],
}

#[allow(unsafe_code)]
// SAFETY: `Frustum` is `#[repr(C)]` over `[Plane<f32>; 6]`, itself Pod (see `pod_generic!`).
unsafe impl bytemuck::Zeroable for Frustum {}
#[allow(unsafe_code)]
// SAFETY: as above.
unsafe impl bytemuck::Pod for Frustum {}

impl<L: Lane> Aabb<L> {
    /// Lanes holding a non-empty box with finite coordinates.
    ///
    /// Tested as `0 <= max - min < +∞` on each axis: NaN fails every comparison,
    /// an infinite coordinate makes the extent infinite or NaN, and an inverted
    /// box has a negative extent — 9 lane operations instead of 6 `is_finite`
    /// bit tests. A box of finite coordinates whose extent overflows (only
    /// possible beyond `f32::MAX / 2`, far outside
    /// [`COORD_LIMIT`](crate::COORD_LIMIT)) also counts as invalid.
    #[inline(always)]
    pub fn is_valid(&self) -> L::Mask {
        let zero = L::splat(0.0);
        let inf = L::splat(f32::INFINITY);
        let e = self.max - self.min;
        e.x.ge(zero) & e.y.ge(zero) & e.z.ge(zero) & e.x.lt(inf) & e.y.lt(inf) & e.z.lt(inf)
    }
}

impl<L: Lane> Triangle<L> {
    /// Lanes whose nine coordinates are finite.
    ///
    /// Tested as `Σ (x − x) == 0` over the nine coordinates: `x − x` is
    /// `+0` for a finite `x` and NaN for an infinite or NaN one, and a sum
    /// with a NaN term is NaN whatever its order (no overflow: the finite
    /// terms are zeros). Eighteen lane operations and one comparison
    /// instead of nine `is_finite` tests (two to four operations each) and
    /// eight ANDs: the scalar triangle kernels got 10–35 % faster, the
    /// lane widths did not change (simd-notes.md, "Validity mask").
    #[inline(always)]
    pub fn is_valid(&self) -> L::Mask {
        #[inline(always)]
        #[allow(clippy::eq_op)] // `x − x` is the finiteness test, not a zero
        fn zeros<L: Lane>(v: V3<L>) -> L {
            (v.x - v.x) + (v.y - v.y) + (v.z - v.z)
        }
        (zeros(self.a) + zeros(self.b) + zeros(self.c)).eq(L::splat(0.0))
    }
}

impl<L: Lane> Sphere<L> {
    /// Lanes with a finite center and a finite radius `>= 0`.
    #[inline(always)]
    pub fn is_valid(&self) -> L::Mask {
        self.center.is_finite() & self.radius.is_finite() & self.radius.ge(L::splat(0.0))
    }
}

impl<L: Lane> Obb<L> {
    /// Lanes with finite center, axes and half extents, and half extents `>= 0`.
    /// (Orthonormality is not checked here: kernels are exact for the
    /// parallelepiped the stored axes span; see [`Obb::try_new`].)
    #[inline(always)]
    pub fn is_valid(&self) -> L::Mask {
        let z = L::splat(0.0);
        self.center.is_finite()
            & self.axes[0].is_finite()
            & self.axes[1].is_finite()
            & self.axes[2].is_finite()
            & self.half.is_finite()
            & self.half.x.ge(z)
            & self.half.y.ge(z)
            & self.half.z.ge(z)
    }
}

impl<L: Lane> Rect3<L> {
    /// Lanes with finite center, axes and half extents, and half extents `>= 0`.
    #[inline(always)]
    pub fn is_valid(&self) -> L::Mask {
        let z = L::splat(0.0);
        self.center.is_finite()
            & self.u.is_finite()
            & self.v.is_finite()
            & self.half_u.is_finite()
            & self.half_v.is_finite()
            & self.half_u.ge(z)
            & self.half_v.ge(z)
    }
}

impl<L: Lane> Ray<L> {
    /// Lanes with finite origin and direction and a non-empty, NaN-free
    /// `[t_min, t_max]` (infinite bounds allowed).
    #[inline(always)]
    pub fn is_valid(&self) -> L::Mask {
        self.origin.is_finite() & self.dir.is_finite() & self.t_min.le(self.t_max)
    }
}

impl Aabb {
    /// The box `[min, max]`, unchecked.
    #[inline]
    pub const fn new(min: Vec3, max: Vec3) -> Self {
        Aabb { min, max }
    }
    /// Checked constructor: finite corners with `min <= max` on every axis.
    pub fn try_new(min: Vec3, max: Vec3) -> Result<Self, ShapeError> {
        finite3(min, "min")?;
        finite3(max, "max")?;
        for axis in 0..3 {
            if min.get(axis) > max.get(axis) {
                return Err(ShapeError::Inverted { axis });
            }
        }
        Ok(Aabb { min, max })
    }
    /// The empty box (`min = +∞`, `max = -∞`); it intersects nothing and is the
    /// identity of [`Aabb::union`]. Also the padding value of SIMD packs.
    pub const EMPTY: Aabb = Aabb {
        min: V3 { x: f32::INFINITY, y: f32::INFINITY, z: f32::INFINITY },
        max: V3 { x: f32::NEG_INFINITY, y: f32::NEG_INFINITY, z: f32::NEG_INFINITY },
    };
    /// The smallest box containing both.
    #[inline]
    pub fn union(self, o: Aabb) -> Aabb {
        Aabb { min: self.min.min(o.min), max: self.max.max(o.max) }
    }
    /// Center `(min + max) / 2` (rounded).
    #[inline]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
    /// Half extents `(max - min) / 2` (rounded).
    #[inline]
    pub fn half_extents(&self) -> Vec3 {
        (self.max - self.min) * 0.5
    }
}

impl Sphere {
    /// The ball of `radius` around `center`, unchecked.
    #[inline]
    pub const fn new(center: Vec3, radius: f32) -> Self {
        Sphere { center, radius }
    }
    /// Checked constructor: finite center, finite radius `>= 0`.
    pub fn try_new(center: Vec3, radius: f32) -> Result<Self, ShapeError> {
        finite3(center, "center")?;
        finite1(radius, "radius")?;
        if radius < 0.0 {
            return Err(ShapeError::Negative { what: "radius" });
        }
        Ok(Sphere { center, radius })
    }
}

impl Triangle {
    /// The triangle `abc`, unchecked.
    #[inline]
    pub const fn new(a: Vec3, b: Vec3, c: Vec3) -> Self {
        Triangle { a, b, c }
    }
    /// Checked constructor: finite vertices (degenerate triangles are allowed).
    pub fn try_new(a: Vec3, b: Vec3, c: Vec3) -> Result<Self, ShapeError> {
        finite3(a, "vertex a")?;
        finite3(b, "vertex b")?;
        finite3(c, "vertex c")?;
        Ok(Triangle { a, b, c })
    }
    /// The vertices as an array.
    #[inline]
    pub const fn vertices(&self) -> [Vec3; 3] {
        [self.a, self.b, self.c]
    }
    /// `(b - a) × (c - a)`: normal with twice the area as length (unnormalised).
    #[inline]
    pub fn normal(&self) -> Vec3 {
        (self.b - self.a).cross(self.c - self.a)
    }
}

impl Ray {
    /// A ray over `[0, +∞)`, unchecked.
    #[inline]
    pub const fn new(origin: Vec3, dir: Vec3) -> Self {
        Ray { origin, dir, t_min: 0.0, t_max: f32::INFINITY }
    }
    /// A ray over `[t_min, t_max]`, unchecked.
    #[inline]
    pub const fn with_interval(origin: Vec3, dir: Vec3, t_min: f32, t_max: f32) -> Self {
        Ray { origin, dir, t_min, t_max }
    }
    /// Checked constructor: finite origin and direction, `t_min <= t_max`, no NaN.
    pub fn try_new(origin: Vec3, dir: Vec3, t_min: f32, t_max: f32) -> Result<Self, ShapeError> {
        finite3(origin, "origin")?;
        finite3(dir, "direction")?;
        // NaN bounds compare unordered and are rejected too.
        if t_min.partial_cmp(&t_max).is_none_or(|o| o == core::cmp::Ordering::Greater) {
            return Err(ShapeError::EmptyInterval);
        }
        Ok(Ray { origin, dir, t_min, t_max })
    }
    /// `origin + t·dir`.
    #[inline]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

impl Segment {
    /// The segment `[a, b]`.
    #[inline]
    pub const fn new(a: Vec3, b: Vec3) -> Self {
        Segment { a, b }
    }
}

impl Plane {
    /// The plane `normal·x = d`, unchecked.
    #[inline]
    pub const fn new(normal: Vec3, d: f32) -> Self {
        Plane { normal, d }
    }
    /// The plane through `p` with `normal`.
    #[inline]
    pub fn from_point_normal(p: Vec3, normal: Vec3) -> Self {
        Plane { normal, d: normal.dot(p) }
    }
    /// The plane through `a`, `b`, `c` with unit normal `(b-a)×(c-a)` normalised
    /// (counter-clockwise seen from the front); `None` if they are collinear.
    pub fn try_from_points(a: Vec3, b: Vec3, c: Vec3) -> Option<Self> {
        let n = (b - a).cross(c - a).try_normalize()?;
        Some(Plane { normal: n, d: n.dot(a) })
    }
    /// `normal·p - d`: positive in front, negative behind (a true distance when
    /// `normal` is unit length).
    #[inline]
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.d
    }
}

impl Obb {
    /// An OBB, unchecked.
    #[inline]
    pub const fn new(center: Vec3, axes: [Vec3; 3], half: Vec3) -> Self {
        Obb { center, axes, half }
    }
    /// Checked constructor: finite values, orthonormal axes (within
    /// [`ORTHONORMAL_TOLERANCE`]), non-negative half extents.
    pub fn try_new(center: Vec3, axes: [Vec3; 3], half: Vec3) -> Result<Self, ShapeError> {
        finite3(center, "center")?;
        finite3(half, "half extents")?;
        orthonormal(&axes)?;
        if half.x < 0.0 || half.y < 0.0 || half.z < 0.0 {
            return Err(ShapeError::Negative { what: "half extent" });
        }
        Ok(Obb { center, axes, half })
    }
    /// The OBB equal to an AABB.
    pub fn from_aabb(b: &Aabb) -> Self {
        Obb { center: b.center(), axes: [Vec3::X, Vec3::Y, Vec3::Z], half: b.half_extents() }
    }
}

impl Capsule {
    /// A capsule, unchecked.
    #[inline]
    pub const fn new(a: Vec3, b: Vec3, radius: f32) -> Self {
        Capsule { a, b, radius }
    }
    /// Checked constructor: finite values, radius `>= 0`.
    pub fn try_new(a: Vec3, b: Vec3, radius: f32) -> Result<Self, ShapeError> {
        finite3(a, "a")?;
        finite3(b, "b")?;
        finite1(radius, "radius")?;
        if radius < 0.0 {
            return Err(ShapeError::Negative { what: "radius" });
        }
        Ok(Capsule { a, b, radius })
    }
}

impl Cylinder {
    /// A cylinder, unchecked.
    #[inline]
    pub const fn new(a: Vec3, b: Vec3, radius: f32) -> Self {
        Cylinder { a, b, radius }
    }
}

impl Cone {
    /// A cone, unchecked (`axis` should be unit length).
    #[inline]
    pub const fn new(apex: Vec3, axis: Vec3, height: f32, radius: f32) -> Self {
        Cone { apex, axis, height, radius }
    }
}

impl Rect3 {
    /// Checked constructor: finite, `u`, `v` orthonormal, half extents `>= 0`.
    pub fn try_new(
        center: Vec3,
        u: Vec3,
        v: Vec3,
        half_u: f32,
        half_v: f32,
    ) -> Result<Self, ShapeError> {
        finite3(center, "center")?;
        finite1(half_u, "half_u")?;
        finite1(half_v, "half_v")?;
        orthonormal(&[u, v])?;
        if half_u < 0.0 || half_v < 0.0 {
            return Err(ShapeError::Negative { what: "half extent" });
        }
        Ok(Rect3 { center, u, v, half_u, half_v })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::LaneMask;

    /// `Triangle::is_valid` at one width: finite extremes (±`f32::MAX`, whose
    /// sums overflow, subnormals, `−0`) are valid in every lane, and an
    /// infinite or NaN value in any one of the nine coordinates of any lane
    /// clears exactly that lane's bit.
    fn validity_at_width<L: Lane>() {
        let w = L::WIDTH;
        let extremes = [f32::MAX, -f32::MAX, 1e-45, -0.0, 3.5, -1e30, f32::MIN_POSITIVE, 0.0, 1.0];
        // coordinate `k` of lane `l` at `k·w + l`
        let base: Vec<f32> = (0..9 * w).map(|i| extremes[(i + i / 9) % 9]).collect();
        let triangle = |v: &[f32]| {
            let at = |k: usize| L::load(&v[k * w..]);
            Triangle {
                a: V3::new(at(0), at(1), at(2)),
                b: V3::new(at(3), at(4), at(5)),
                c: V3::new(at(6), at(7), at(8)),
            }
        };
        let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        assert_eq!(triangle(&base).is_valid().bits(), all, "finite extremes, width {w}");
        for k in 0..9 {
            for l in 0..w {
                for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
                    let mut v = base.clone();
                    v[k * w + l] = bad;
                    assert_eq!(
                        triangle(&v).is_valid().bits(),
                        all & !(1 << l),
                        "{bad} in coordinate {k} of lane {l}, width {w}"
                    );
                }
            }
        }
    }

    #[test]
    fn triangle_validity_clears_exactly_the_lane_of_a_non_finite_coordinate() {
        validity_at_width::<f32>();
        validity_at_width::<wide::f32x4>();
        validity_at_width::<wide::f32x8>();
        validity_at_width::<wide::f32x16>();
    }

    #[test]
    fn checked_constructors_reject_bad_input() {
        assert_eq!(
            Aabb::try_new(Vec3::new(0.0, 2.0, 0.0), Vec3::new(1.0, 1.0, 1.0)),
            Err(ShapeError::Inverted { axis: 1 })
        );
        assert!(matches!(
            Aabb::try_new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO),
            Err(ShapeError::NonFinite { what: "min" })
        ));
        assert!(Aabb::try_new(Vec3::ZERO, Vec3::ZERO).is_ok(), "zero extent is a valid box");
        let skew = [Vec3::X, Vec3::new(0.1, 1.0, 0.0), Vec3::Z];
        assert!(matches!(
            Obb::try_new(Vec3::ZERO, skew, Vec3::splat(1.0)),
            Err(ShapeError::NotOrthonormal { .. })
        ));
        assert!(Obb::try_new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0)).is_ok());
        assert_eq!(Sphere::try_new(Vec3::ZERO, -1.0), Err(ShapeError::Negative { what: "radius" }));
        assert_eq!(Ray::try_new(Vec3::ZERO, Vec3::X, 2.0, 1.0), Err(ShapeError::EmptyInterval));
        assert_eq!(
            Ray::try_new(Vec3::ZERO, Vec3::X, 0.0, f32::NAN),
            Err(ShapeError::EmptyInterval)
        );
        assert!(Ray::try_new(Vec3::ZERO, Vec3::X, 0.0, f32::INFINITY).is_ok());
    }

    #[test]
    fn kdop_axes() {
        assert_eq!(Dop14::AXES[3], Vec3::new(1.0, 1.0, 1.0));
        assert_eq!(Dop18::AXES[3], Vec3::new(1.0, 1.0, 0.0));
        assert_eq!(Dop26::AXES[12], Vec3::new(0.0, 1.0, -1.0));
    }

    #[test]
    fn pod_casts_without_copy() {
        let buf = [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0];
        let boxes: &[Aabb] = bytemuck::cast_slice(&buf);
        assert_eq!(boxes[0].max, Vec3::new(3.0, 4.0, 5.0));
        assert_eq!(core::mem::size_of::<Obb>(), 15 * 4);
        assert_eq!(core::mem::size_of::<Ray>(), 8 * 4);
        assert_eq!(core::mem::size_of::<Frustum>(), 24 * 4);
    }
}
