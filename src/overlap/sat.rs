//! Separating-axis building blocks shared by the SAT kernels
//! ([`triangle_triangle`](crate::overlap::triangle_triangle),
//! [`obb_obb`](crate::overlap::obb_obb)).
//!
//! Source: seed `000` (Ericson ch. 5) §5.2.1 (the separating-axis test) and
//! §5.2.1.1 (robustness of the test for near-parallel edges), seed `003`
//! (SAT slides). The error bounds used here are derived in `simd-notes.md`.
//!
//! Two ideas keep the tests honest:
//!
//! 1. **Any vector is a certificate.** A SAT kernel computes its axis `L` in
//!    floating point, so `L` is rounded — but `L` is still *some* vector, and if
//!    the two projection intervals on that exact float vector are disjoint, the
//!    shapes are disjoint. Rounding of the axis therefore never makes a
//!    separation claim false; only the rounding of the *projections* does, and
//!    that error is bounded by [`projection_tolerance`] (it scales with
//!    `Σ|L_i|·R_i`, so it is small exactly when the axis is small).
//! 2. **A noise axis proves nothing in the default variant.** The cross product
//!    of two (nearly) parallel edges is tiny, and its direction is rounding
//!    noise. The default (non-conservative) kernels compare projections with a
//!    zero tolerance, so they must not use such an axis at all: [`is_noise_axis`]
//!    recognises it by comparing each component with the rounding-error bound of
//!    a cross product, which scales with the *unrounded magnitudes*
//!    `|a_y b_z| + |a_z b_y|`, not with the tiny result (Ericson §5.2.1.1 uses an
//!    arbitrary epsilon there; this is the derived replacement).

use crate::{Lane, UNIT_ROUNDOFF, V3};

/// `u = 2^-24` as an `f64`-free constant for bound arithmetic.
const U: f32 = UNIT_ROUNDOFF;

/// Gap between the projection intervals `[a_min, a_max]` and `[b_min, b_max]`:
/// `max(b_min - a_max, a_min - b_max)`. Positive exactly when the intervals are
/// disjoint (up to the rounding of the two subtractions); zero when they touch.
///
/// With a NaN operand the `maxps` rule returns the second operand, so callers
/// mask invalid lanes (see the [contracts](crate#contracts)).
///
/// ```
/// use widephase::overlap::sat::interval_gap;
/// assert_eq!(interval_gap(0.0f32, 1.0, 1.0, 2.0), 0.0); // touching intervals
/// assert!(interval_gap(0.0f32, 1.0, 1.5, 2.0) > 0.0);
/// ```
#[inline(always)]
pub fn interval_gap<L: Lane>(a_min: L, a_max: L, b_min: L, b_max: L) -> L {
    (b_min - a_max).max(a_min - b_max)
}

/// Ericson's SIMD-friendly form for an interval `[min(p), max(p)]` against the
/// centred interval `[-r, r]`: `max(-p_max, p_min) > r`, i.e. in scalar terms
/// `p_min > r || p_max < -r`. Returns the separated lanes (touching is not
/// separated). Seed `000` §5.2.9 writes it as `max(-max(p0,p2), min(p0,p2)) > r`.
///
/// ```
/// use widephase::overlap::sat::centered_interval_separated;
/// assert!(!centered_interval_separated(1.0f32, 3.0, 1.0)); // touches at 1
/// assert!(centered_interval_separated(-3.0f32, -1.5, 1.0));
/// ```
#[inline(always)]
pub fn centered_interval_separated<L: Lane>(p_min: L, p_max: L, r: L) -> L::Mask {
    (-p_max).max(p_min).gt(r)
}

/// The cross product `a × b` together with its **unrounded magnitude**
/// `m_i = |a_j b_k| + |a_k b_j|` per component (the permanent of the 2×2
/// minor). `|fl(a×b)_i - (a×b)_i| <= 2u·m_i` (plus underflow), and `m` does not
/// shrink when `a` and `b` become parallel — that is what makes
/// [`is_noise_axis`] work.
///
/// ```
/// use widephase::{overlap::sat::cross_with_magnitude, Vec3};
/// let (c, m) = cross_with_magnitude(Vec3::X, Vec3::X);
/// assert_eq!(c, Vec3::ZERO);
/// assert_eq!(m, Vec3::ZERO);
/// let (c, m) = cross_with_magnitude(Vec3::new(1.0, 1.0, 0.0), Vec3::new(1.0, -1.0, 0.0));
/// assert_eq!((c.z, m.z), (-2.0, 2.0));
/// ```
#[inline(always)]
pub fn cross_with_magnitude<L: Lane>(a: V3<L>, b: V3<L>) -> (V3<L>, V3<L>) {
    let (aa, ba) = (a.abs(), b.abs());
    let m = V3 {
        x: aa.y * ba.z + aa.z * ba.y,
        y: aa.z * ba.x + aa.x * ba.z,
        z: aa.x * ba.y + aa.y * ba.x,
    };
    (a.cross(b), m)
}

/// Relative factor of [`is_noise_axis`]: a component below `16u` times its
/// unrounded magnitude may be pure rounding noise (the derived bound is `9u`
/// for the deepest axis, a cross product of a cross product; see
/// `simd-notes.md`).
pub const NOISE_AXIS_FACTOR: f32 = 16.0 * U;

/// Absolute floor of [`is_noise_axis`], covering products that underflowed.
pub const NOISE_AXIS_FLOOR: f32 = 1.0e-36;

/// Lanes whose axis `axis` (computed in floating point, with unrounded
/// component magnitudes `magnitude`, see [`cross_with_magnitude`]) might be the
/// zero vector in exact arithmetic: every `|axis_i| <= 16u·magnitude_i + 1e-36`.
/// Such an axis has a direction made of rounding noise (Ericson §5.2.1.1), and a
/// zero-tolerance comparison on it could report a false separation.
///
/// ```
/// use widephase::{overlap::sat::{cross_with_magnitude, is_noise_axis}, Vec3};
/// // Two edges that are parallel in exact arithmetic but whose rounded
/// // difference vectors are not: the cross product is pure noise.
/// let e = Vec3::new(0.1, 0.2, 0.3);
/// let (c, m) = cross_with_magnitude(e, e * 3.0);
/// assert!(is_noise_axis(c, m));
/// let (c, m) = cross_with_magnitude(e, Vec3::X);
/// assert!(!is_noise_axis(c, m));
/// ```
#[inline(always)]
pub fn is_noise_axis<L: Lane>(axis: V3<L>, magnitude: V3<L>) -> L::Mask {
    let k = L::splat(NOISE_AXIS_FACTOR);
    let floor = L::splat(NOISE_AXIS_FLOOR);
    let a = axis.abs();
    a.x.le(k * magnitude.x + floor)
        & a.y.le(k * magnitude.y + floor)
        & a.z.le(k * magnitude.z + floor)
}

/// Relative factor of [`projection_tolerance`] (`10u`; the derived bound is
/// `2·γ4·(1+u)/(1-3u) < 8.01u`, see `simd-notes.md`).
pub const PROJECTION_TOLERANCE_FACTOR: f32 = 10.0 * U;

/// Absolute term of [`projection_tolerance`]: covers products that
/// underflowed (each at most `2^-150`) in a dot product.
pub const PROJECTION_TOLERANCE_FLOOR: f32 = 1.0e-37;

/// Floor added to each `reach_i` in [`projection_tolerance`]: covers point
/// coordinates that underflowed while being scaled (absolute error `2^-150`
/// each, and `10u·2^-100 > 2^-150`).
pub const REACH_FLOOR: f32 = 7.888_609_e-31; // 2^-100

/// Bound on the rounding error of an [`interval_gap`] computed from the
/// projections `fl(axis·p)` of points whose coordinates are at most `reach`
/// in magnitude (component-wise), *including* the rounding of the points
/// themselves (one subtraction each):
/// `10u·Σ|axis_i|·(reach_i + 2^-100) + 1e-37`.
///
/// A gap larger than this certifies that the exact projections of the exact
/// points on the float vector `axis` are disjoint: the shapes are separated.
///
/// ```
/// use widephase::{overlap::sat::projection_tolerance, Vec3};
/// let t = projection_tolerance(Vec3::new(1.0, 0.0, 0.0), Vec3::splat(4.0));
/// assert!(t > 0.0 && t < 1e-5);
/// ```
#[inline(always)]
pub fn projection_tolerance<L: Lane>(axis: V3<L>, reach: V3<L>) -> L {
    let a = axis.abs();
    let r = reach + V3::splat(L::splat(REACH_FLOOR));
    L::splat(PROJECTION_TOLERANCE_FACTOR) * (a.x * r.x + a.y * r.y + a.z * r.z)
        + L::splat(PROJECTION_TOLERANCE_FLOOR)
}

/// Projects three points on `axis` and returns `(min, max)` of the projections.
#[inline(always)]
pub fn project3<L: Lane>(axis: V3<L>, p: &[V3<L>; 3]) -> (L, L) {
    let s0 = axis.dot(p[0]);
    let s1 = axis.dot(p[1]);
    let s2 = axis.dot(p[2]);
    (s0.min(s1).min(s2), s0.max(s1).max(s2))
}
