//! Interval halving for moving convex objects (Ericson §5.5.1–5.5.3).

use crate::math::Vec3;
use crate::shapes::Sphere;
use crate::UNIT_ROUNDOFF;

/// A moving object that can bound its motion: the sphere returned for
/// `[t0, t1]` must contain every point the object occupies at every time in
/// `[t0, t1]` (`0 <= t0 <= t1 <= 1`).
///
/// A bound that is NaN, infinite or has a negative radius is treated as "cannot
/// tell" for that interval and never reports contact (the NaN rule of the
/// [contracts](crate#contracts)).
pub trait MotionBound {
    /// A sphere containing the object over the whole interval `[t0, t1]`.
    fn motion_bound(&self, t0: f32, t1: f32) -> Sphere;
}

/// Stopping rules of [`interval_halving`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalvingParams {
    /// Stop subdividing an interval once it is at most this long (in units of
    /// `t`). Values below `2^-24` are raised to `2^-24`; NaN counts as `2^-24`.
    pub tolerance: f32,
    /// Maximum number of halvings (recursion depth), capped at 24 (an interval
    /// of length `2^-24` is the resolution of `t` near 1).
    pub max_depth: u32,
}

impl Default for HalvingParams {
    /// `tolerance = 2^-12`, `max_depth = 24`.
    fn default() -> Self {
        HalvingParams { tolerance: 1.0 / 4096.0, max_depth: 24 }
    }
}

/// Whether two spheres overlap, widened by the rounding of the test itself so a
/// touching pair is never missed: `|c_b - c_a|² <= (r_a + r_b)²` with both sides'
/// relative error (≤ 5u and 3u) added, plus an underflow term.
fn spheres_may_touch(a: &Sphere, b: &Sphere) -> bool {
    if !(a.is_valid() && b.is_valid()) {
        return false;
    }
    let s = b.center - a.center;
    let lhs = s.dot(s);
    let r = a.radius + b.radius;
    let rhs = r * r;
    lhs <= rhs + 16.0 * UNIT_ROUNDOFF * (lhs + rhs) + 8.0 * f32::MIN_POSITIVE
}

/// Interval halving: a conservative estimate of the earliest time in `[0, 1]`
/// at which two moving objects can touch, using only bounding spheres of their
/// motion over sub-intervals.
///
/// ```text
/// halve([t0, t1], depth):
///   if bound_a(t0, t1) and bound_b(t0, t1) do not overlap: no contact in [t0, t1]
///   if t1 - t0 <= tolerance or depth = max_depth: report t0
///   halve([t0, mid]); if nothing there, halve([mid, t1])
/// ```
/// Returns the start `t0` of the first (earliest) leaf interval whose bounds
/// overlap, or `None` when every interval was separated. **Conservative:** if
/// the objects touch at time `t*`, the result is `Some(t)` with `t <= t*` (the
/// leaf containing `t*` overlaps at every level, and leaves are visited in time
/// order), and the bounds overlap on the leaf `[t, t + w]`,
/// a power of two `w <= max(tolerance, 2^-max_depth)`; because bounding
/// spheres over-approximate, `Some` does not prove contact. Work is at most
/// `2^(max_depth+1)` bound evaluations in the worst case, typically
/// `O(max_depth)`; iterative, never panics.
///
/// Source: seed 000 §5.5.1 (heading only), seed 003 "动态相交测试"; Ericson
/// §5.5.1 `IntervalCollision`.
///
/// ```
/// use widephase::dynamic::{interval_halving, HalvingParams, MovingSphere};
/// use widephase::{Sphere, Vec3};
/// let a = MovingSphere { sphere: Sphere::new(Vec3::ZERO, 1.0), motion: Vec3::ZERO };
/// let b = MovingSphere {
///     sphere: Sphere::new(Vec3::new(6.0, 0.0, 0.0), 1.0),
///     motion: Vec3::new(-8.0, 0.0, 0.0),
/// };
/// // True contact at t = 0.5; the estimate is at most that, within the tolerance.
/// let t = interval_halving(&a, &b, HalvingParams::default()).unwrap();
/// assert!(t <= 0.5 && t >= 0.5 - 2.0 / 4096.0);
/// ```
pub fn interval_halving<A: MotionBound + ?Sized, B: MotionBound + ?Sized>(
    a: &A,
    b: &B,
    params: HalvingParams,
) -> Option<f32> {
    let min_tol = 1.0 / 16_777_216.0;
    let tol = if params.tolerance >= min_tol { params.tolerance } else { min_tol };
    let max_depth = params.max_depth.min(24);
    // Explicit stack of (t0, t1, depth); the later half is pushed first so the
    // earlier half is examined first. Depth ≤ 24 bounds the stack at 25 entries.
    let mut stack: Vec<(f32, f32, u32)> = vec![(0.0, 1.0, 0)];
    while let Some((t0, t1, depth)) = stack.pop() {
        if !spheres_may_touch(&a.motion_bound(t0, t1), &b.motion_bound(t0, t1)) {
            continue;
        }
        if t1 - t0 <= tol || depth >= max_depth {
            return Some(t0);
        }
        let mid = 0.5 * (t0 + t1);
        stack.push((mid, t1, depth + 1));
        stack.push((t0, mid, depth + 1));
    }
    None
}

/// A sphere translating by `motion` over `t ∈ [0, 1]` (center
/// `sphere.center + t·motion`): the simplest [`MotionBound`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovingSphere {
    /// The sphere at `t = 0`.
    pub sphere: Sphere,
    /// Displacement of the center over the unit time interval.
    pub motion: Vec3,
}

impl MotionBound for MovingSphere {
    /// The sphere around the center's mid-interval position whose radius is the
    /// sphere's plus half the distance travelled, widened by the rounding of the
    /// center (`≤ 2u` per coordinate, summed as `|·|₁ ≥ |·|₂`) and of the radius.
    fn motion_bound(&self, t0: f32, t1: f32) -> Sphere {
        let tm = 0.5 * (t0 + t1);
        let center = self.sphere.center + self.motion * tm;
        let half_travel = self.motion.length() * (0.5 * (t1 - t0));
        let c = self.sphere.center.abs();
        let m = self.motion.abs();
        let slack = 4.0 * UNIT_ROUNDOFF * (c.x + c.y + c.z + m.x + m.y + m.z);
        let radius = (self.sphere.radius + half_travel) * (1.0 + 8.0 * UNIT_ROUNDOFF) + slack;
        Sphere::new(center, radius)
    }
}
