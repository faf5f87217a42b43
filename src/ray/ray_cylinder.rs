//! Ray/segment–cylinder, finite with flat end caps (Ericson §5.3.7
//! `IntersectSegmentCylinder`; seed `000` §5.3.7 heading only).

use crate::closest::pow2_scale;
use crate::math::Vec3;
use crate::shapes::{Cylinder, Ray, Segment};

/// Intersects `[lo, hi]` with the interval of `t` where `alpha + t·beta` lies in
/// `[0, top]` (a slab along the axis); `None` if empty.
fn clip_slab(lo: f32, hi: f32, alpha: f32, beta: f32, top: f32) -> Option<(f32, f32)> {
    if beta == 0.0 {
        // if the ray is parallel to the caps: inside the slab for all t or none
        return (alpha >= 0.0 && alpha <= top).then_some((lo, hi));
    }
    let t0 = (0.0 - alpha) / beta;
    let t1 = (top - alpha) / beta;
    let (n, f) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
    let (lo, hi) = (lo.max(n), hi.min(f));
    (lo <= hi).then_some((lo, hi))
}

/// The ray and cylinder multiplied by the power of two `σ` that brings their
/// largest coordinate magnitude (`origin`, `dir`, `a`, `b`, `radius`) into
/// `[1, 2)`. The ray's points `origin + t·dir` are all scaled by `σ`, so every
/// parameter `t` is unchanged; scaling is exact (a subnormal result of scaling
/// a large input down loses at most `2^-150` absolute).
pub(crate) fn unit_scaled(ray: &Ray, a: Vec3, b: Vec3, radius: f32) -> (Ray, Vec3, Vec3, f32) {
    let big = [ray.origin, ray.dir, a, b]
        .iter()
        .fold(radius.abs(), |m, v| m.max(v.x.abs()).max(v.y.abs()).max(v.z.abs()));
    let s = pow2_scale(big);
    let ray = Ray::with_interval(ray.origin * s, ray.dir * s, ray.t_min, ray.t_max);
    (ray, a * s, b * s, radius * s)
}

/// The interval of `t ∈ [t_min, t_max]` on which the ray lies in the closed
/// finite cylinder, or `None`. Shared by the cylinder and capsule queries.
pub(crate) fn ray_cylinder_interval(ray: &Ray, cyl: &Cylinder) -> Option<(f32, f32)> {
    let ok = ray.origin.is_finite()
        && ray.dir.is_finite()
        && ray.t_min <= ray.t_max
        && ray.t_min < f32::INFINITY
        && ray.t_max > f32::NEG_INFINITY
        && cyl.a.is_finite()
        && cyl.b.is_finite()
        && cyl.radius.is_finite()
        && cyl.radius >= 0.0;
    if !ok {
        return None;
    }
    let (ray, a, b, radius) = unit_scaled(ray, cyl.a, cyl.b, cyl.radius);
    let d = b - a;
    let dd = d.dot(d);
    if dd == 0.0 {
        return None; // no axis, no orientation: not a cylinder (documented)
    }
    let m = ray.origin - a;
    let n = ray.dir;
    // Caps: 0 <= (m + t·n)·d <= d·d.
    let (lo, hi) = clip_slab(ray.t_min, ray.t_max, m.dot(d), n.dot(d), dd)?;
    // Side: |(m + t·n) × d|² <= r²·|d|², i.e. A t² + 2B t + C <= 0 with the
    // cross-product (Lagrange) form of Ericson's coefficients, which avoids the
    // cancellation of dd·nn - nd². A, B, C are degree 4 and the discriminant
    // degree 8 in the coordinates: they are formed from the degree-2 vectors
    // X = m × d, R = r·d (|R|² = r²|d|²) scaled by kx and Y = n × d scaled by
    // ky, two powers of two bringing each group's largest component into
    // [1, 2) (exact). The scaled coefficients are A·ky², B·kx·ky, C·kx², so
    // the roots in t are the scaled roots times ky/kx.
    let (x, y, r) = (m.cross(d), n.cross(d), d * radius);
    let kx = pow2_scale(x.abs().max(r.abs()).max_element());
    let ky = pow2_scale(y.abs().max_element());
    let (xs, ys, rs) = (x * kx, y * ky, r * kx);
    let r2 = rs.dot(rs);
    let a = ys.dot(ys);
    let bq = xs.dot(ys);
    if y == Vec3::ZERO {
        // if the ray is parallel to the axis (or a point): inside for all t or none
        return (xs.dot(xs) <= r2).then_some((lo, hi));
    }
    let to_t = |scaled: f32| scaled * ky / kx;
    // Decide on the point of [lo, hi] closest to the axis line, evaluated
    // directly: |(m + t*·n) × d|² <= r²·|d|². The side function is stationary at
    // the unclamped t*, so the rounding of t* only enters to second order; the
    // discriminant `b² - ac` would instead lose all accuracy for a ray passing
    // close to a thin cylinder (its error is then ~√u of the distance).
    let t_star = to_t(-bq / a).max(lo).min(hi);
    let q = (m + n * t_star).cross(d) * kx;
    if q.dot(q) > r2 {
        return None;
    }
    // Entry and exit of the side, kept on the two sides of t*.
    let c = xs.dot(xs) - r2;
    let sq = (bq * bq - a * c).max(0.0).sqrt();
    let (s0, s1) = (to_t((-bq - sq) / a), to_t((-bq + sq) / a));
    Some((lo.max(s0).min(t_star), hi.min(s1).max(t_star)))
}

/// Entry parameter of the ray into the closed finite cylinder (side and both
/// end caps): the smallest `t ∈ [t_min, t_max]` on it (`t_min` if the ray
/// starts inside), or `None`.
///
/// The ray's interval is clipped against the cap slab `0 <= (x - a)·(b - a) <=
/// |b - a|²`; the side `|(x - a) × (b - a)|² <= r²|b - a|²` is decided at the
/// point of the clipped interval closest to the axis (no discriminant
/// cancellation), and the entry is the smaller root of the side's quadratic. A cylinder with `a == b` has no axis and is treated as
/// empty; radius 0 is the segment `[a, b]`; a negative radius is empty; NaN/∞
/// give `None` (crate [contracts](crate#contracts)). Numbers are f32
/// evaluations of these formulas (band below).
///
/// Source: Ericson §5.3.7 `IntersectSegmentCylinder` (seed `000` heading only);
/// this version clips intervals instead of branching on the segment's ends, so
/// it also serves rays and lines.
///
/// Range: the inputs are first multiplied by the power of two that brings
/// their largest coordinate magnitude into `[1, 2)` (`t` is unchanged), and
/// the degree-4 coefficients of the side's quadratic and its degree-8
/// discriminant are formed from degree-2 vectors scaled to `[1, 2)` by powers
/// of two (exact), so no intermediate overflows or underflows for any finite
/// input whose largest magnitude is a normal `f32` and whose ray direction,
/// axis and radius are within `2^±60` of it; only components below `2^-60` of
/// the largest one may round to subnormals (absolute error `2^-150` at unit
/// scale). Answers are therefore bit-identical under power-of-two scaling of
/// all inputs, tested for `2^-60 … 2^40`.
///
/// Band (hit/miss; derived in `simd-notes.md`, "Ray–cylinder band"; first
/// order in `u`, with the second-order terms of the rounded minimiser kept).
/// Write `d = b - a`, `m = o - a`, `n = dir` (exact), the side function
/// `f(t) = |(m + t·n) × d|² - r²|d|²` (the ray point is in the infinite
/// cylinder iff `f <= 0`) and `g(t) = (m + t·n)·d` (in the cap slab iff
/// `0 <= g <= |d|²`). Let `J±` be `[t_min, t_max]` clipped by the slab whose
/// two exact crossing times are moved out (`+`) or in (`-`) by their rounding
/// bound `Δ = (5.01u·Σ|m_i d_i| + 4.01u·|s|·Σ|n_i d_i|)/|n·d| + u|s|` (the far
/// cap adds `5.01u·|d|² + u·||d|² - m·d|` to the numerator), and `F± = min f` over
/// `J±`. Then **a hit implies `F⁺ <= E` and a miss implies `F⁻ > -E`**, with
/// `E = 16u·(P² + r²|d|²) + E₂`, `P² = Σ_i (W_j|d_k| + W_k|d_j|)²`,
/// `W = |m| + T·|n|` (componentwise, `T` the largest `|t|` of `J⁺`), and `E₂`
/// the effect of the rounded minimiser `2·(u·(4|Π_X| + 9|X|·|Π_Y|/|Y| +
/// 7|X|))²` (`X = m × d`, `Y = n × d`, `Π` their permanent magnitudes), or for a
/// ray whose `f32` cross product `n × d` is zero (decided at `t = 0`)
/// `6u·|X|·|Π_Y|·T + 9u²|Π_Y|²T²`. Since `J⁻ ⊆ J* ⊆ J⁺`, the answer is exact
/// whenever the exact minimum `F*` over the exact interval is outside
/// `[-E, E]` and the cap crossings are farther than `Δ` from the decisive
/// interval ends. Tested at the band's edge (`tests/rays.rs`,
/// `ray_cylinder_band_is_derived_and_holds`: every hit and miss satisfies the
/// implications; radii putting `F*` at `±(1 + 2^-4)·E` are answered exactly;
/// the largest side-decided disagreement used `7.7e-3` of `E`). The entry
/// parameter itself is only checked by the sampling test (the entry point within
/// `1e-4·(1 + |o - a| + |dir| + |b - a|)` of the shape); by the scaling property
/// all of this holds at every scale in that range.
///
/// ```
/// use widephase::{ray::ray_cylinder, Cylinder, Ray, Vec3};
/// let cyl = Cylinder::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), 1.0);
/// // through the side
/// assert_eq!(ray_cylinder(&Ray::new(Vec3::new(-3.0, 0.0, 1.0), Vec3::X), &cyl), Some(2.0));
/// // through the top cap
/// assert_eq!(ray_cylinder(&Ray::new(Vec3::new(0.5, 0.0, 5.0), -Vec3::Z), &cyl), Some(3.0));
/// // grazing the rim circle's tangent line at the top
/// assert_eq!(ray_cylinder(&Ray::new(Vec3::new(-3.0, 1.0, 2.0), Vec3::X), &cyl), Some(3.0));
/// ```
pub fn ray_cylinder(ray: &Ray, cyl: &Cylinder) -> Option<f32> {
    ray_cylinder_interval(ray, cyl).map(|(lo, _)| lo.max(f32::MIN))
}

/// Segment–cylinder: the smallest `t ∈ [0, 1]` with `a + t·(b - a)` in the
/// closed cylinder (see [`ray_cylinder`]), or `None`.
///
/// ```
/// use widephase::{ray::segment_cylinder, Cylinder, Segment, Vec3};
/// let cyl = Cylinder::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), 1.0);
/// let seg = Segment::new(Vec3::new(-3.0, 0.0, 1.0), Vec3::new(-1.0, 0.0, 1.0)); // ends on the side
/// assert_eq!(segment_cylinder(&seg, &cyl), Some(1.0));
/// ```
pub fn segment_cylinder(seg: &Segment, cyl: &Cylinder) -> Option<f32> {
    ray_cylinder(&Ray::with_interval(seg.a, seg.b - seg.a, 0.0, 1.0), cyl)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    #[test]
    fn parallel_to_axis_inside_and_outside() {
        let cyl = Cylinder::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), 1.0);
        assert_eq!(ray_cylinder(&Ray::new(Vec3::new(1.0, 0.0, -1.0), Vec3::Z), &cyl), Some(1.0));
        assert_eq!(ray_cylinder(&Ray::new(Vec3::new(1.0, 1.0, -1.0), Vec3::Z), &cyl), None);
    }
}
