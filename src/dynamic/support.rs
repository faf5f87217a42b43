//! Private helpers for the moving-sphere queries.
//!
//! **Duplicated on purpose (to deduplicate at merge):** segment–capsule,
//! ray–sphere and ray–cylinder intersection belong to the `ray` family, and the
//! AABB corner / triangle edge functions to `closest`/`overlap`; those modules
//! were written in parallel, so the minimal versions the dynamic queries need
//! live here, private to `dynamic`.
//!
//! All helpers work on the motion `p + t·d`, `t ∈ [0, 1]`, of a point (the
//! sphere's center) and return time intervals or earliest times in `[0, 1]`.

use crate::math::Vec3;
use crate::shapes::Aabb;

/// `2^k` such that `m·2^k ∈ [1, 2)` (for normal `m`; `2^127` for subnormal
/// `m`), or `1` for `m` zero or not finite.
///
/// Why: the capsule quadratic has coefficients of degree 4 and a discriminant
/// of degree 8 in the coordinates, which underflow below about `2^-16` and
/// overflow above `2^16`. The moving-sphere queries therefore translate to a
/// local origin and multiply every length by this power of two: exact (no
/// rounding, except lengths below `2^-149·m` flushing, which is within the
/// band), and every time of contact is invariant under it.
pub(crate) fn pow2_normalizer(m: f32) -> f32 {
    let usable = m > 0.0 && m.is_finite(); // false for NaN
    if !usable {
        return 1.0;
    }
    let e = if m >= f32::MIN_POSITIVE { ((m.to_bits() >> 23) & 0xff) as i32 - 127 } else { -127 };
    // 2^-e with -e in [-127, 127]: normal for -e >= -126, else the subnormal 2^-127.
    let k = -e;
    if k >= -126 {
        f32::from_bits(((k + 127) as u32) << 23)
    } else {
        f32::from_bits(1 << (k + 149))
    }
}

/// Largest absolute component over a set of vectors, and a radius.
pub(crate) fn max_magnitude(vs: &[Vec3], r: f32) -> f32 {
    let mut m = r.abs();
    for v in vs {
        m = m.max(v.abs().max_element());
    }
    m
}

/// Times `t` (over the whole real line) at which `p + t·d` is within `r` of
/// `center`, as a closed interval `(t_in, t_out)`, or `None`.
///
/// Solves `|m + t·d|² = r²`, `m = p - center`: `a t² + 2 b t + c = 0` with
/// `a = d·d`, `b = m·d`, `c = m·m - r²` (seed 002, ray–sphere; here with a
/// non-normalised direction). Roots by the cancellation-free pair
/// `q = -b - sign(b)·√disc`, `t = q/a`, `t = c/q`.
pub(crate) fn line_ball_interval(p: Vec3, d: Vec3, center: Vec3, r: f32) -> Option<(f32, f32)> {
    let m = p - center;
    let c = m.dot(m) - r * r;
    let a = d.dot(d);
    if a == 0.0 {
        // Not moving: inside for all t, or never.
        return if c <= 0.0 { Some((f32::NEG_INFINITY, f32::INFINITY)) } else { None };
    }
    let b = m.dot(d);
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    let q = if b >= 0.0 { -b - disc.sqrt() } else { -b + disc.sqrt() };
    if q == 0.0 {
        // b = 0 and disc = 0: a tangent at t = 0 (then c = 0).
        return Some((0.0, 0.0));
    }
    let t1 = q / a;
    let t2 = c / q;
    Some((t1.min(t2), t1.max(t2)))
}

/// Times at which `p + t·d` is within `r` of the *infinite line* through `a`
/// and `b` **and** its projection on the line falls within the segment `[a, b]`
/// (the side of a finite cylinder). `None` for a degenerate axis (`a == b`, or
/// a squared length that underflows): the capsule's end balls cover that case.
///
/// Ericson §5.3.7 (`IntersectSegmentCylinder`), re-derived: with `e = b - a`,
/// `m = p - a`, the distance² to the line scaled by `e·e` is
/// `|(e·e) m⊥|²/(e·e) = (e·e)(m·m) - (m·e)²` for the point and the quadratic
/// `A t² + 2 B t + C` along the motion, with
/// `A = (e·e)(d·d) - (d·e)²`, `B = (e·e)(m·d) - (m·e)(d·e)`,
/// `C = (e·e)(m·m - r²) - (m·e)²`.
fn line_cylinder_interval(p: Vec3, d: Vec3, a: Vec3, b: Vec3, r: f32) -> Option<(f32, f32)> {
    let e = b - a;
    let ee = e.dot(e);
    if ee == 0.0 || !ee.is_finite() {
        return None;
    }
    let m = p - a;
    let me = m.dot(e);
    let de = d.dot(e);
    // Slab 0 <= (m + t d)·e <= e·e: the interval of the axial coordinate.
    let (s_lo, s_hi) = if de == 0.0 {
        if me >= 0.0 && me <= ee {
            (f32::NEG_INFINITY, f32::INFINITY)
        } else {
            return None;
        }
    } else {
        let t0 = -me / de;
        let t1 = (ee - me) / de;
        (t0.min(t1), t0.max(t1))
    };
    let qa = ee * d.dot(d) - de * de;
    let qb = ee * m.dot(d) - me * de;
    let qc = ee * (m.dot(m) - r * r) - me * me;
    let (c_lo, c_hi) = if qa <= 0.0 {
        // Motion parallel to the axis (exactly 0 in reals; a negative value is
        // rounding): the distance to the line does not change.
        if qc <= 0.0 {
            (f32::NEG_INFINITY, f32::INFINITY)
        } else {
            return None;
        }
    } else {
        let disc = qb * qb - qa * qc;
        if disc < 0.0 {
            return None;
        }
        let q = if qb >= 0.0 { -qb - disc.sqrt() } else { -qb + disc.sqrt() };
        if q == 0.0 {
            (0.0, 0.0)
        } else {
            let t1 = q / qa;
            let t2 = qc / q;
            (t1.min(t2), t1.max(t2))
        }
    };
    let lo = s_lo.max(c_lo);
    let hi = s_hi.min(c_hi);
    if lo <= hi {
        Some((lo, hi))
    } else {
        None
    }
}

/// Earliest time in `[0, 1]` at which an interval `(lo, hi)` of contact times is
/// reached, or `None` when it misses `[0, 1]`.
fn first_in_unit(iv: Option<(f32, f32)>) -> Option<f32> {
    let (lo, hi) = iv?;
    let t = lo.max(0.0);
    if hi >= 0.0 && t <= 1.0 {
        Some(t)
    } else {
        None
    }
}

/// The smaller of two optional times.
pub(crate) fn earliest(x: Option<f32>, y: Option<f32>) -> Option<f32> {
    match (x, y) {
        (Some(a), Some(b)) => Some(if b < a { b } else { a }),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Segment–capsule: earliest `t ∈ [0, 1]` at which `p + t·d` is within `r` of
/// the segment `[a, b]` (0 when it starts inside), or `None`.
///
/// Callers pass coordinates normalised by [`pow2_normalizer`] (magnitudes near
/// 1): the cylinder discriminant is of degree 8.
///
/// The capsule is the union of the two end balls and the finite cylinder, so
/// its first contact time is the earliest of theirs (seed 000 §5.5.7 uses
/// `IntersectSegmentCapsule` without printing it).
pub(crate) fn segment_capsule_first_time(
    p: Vec3,
    d: Vec3,
    a: Vec3,
    b: Vec3,
    r: f32,
) -> Option<f32> {
    let ta = first_in_unit(line_ball_interval(p, d, a, r));
    let tb = first_in_unit(line_ball_interval(p, d, b, r));
    let tc = first_in_unit(line_cylinder_interval(p, d, a, b, r));
    earliest(earliest(ta, tb), tc)
}

/// Corner `n` (0..8) of the box: bit 0 selects `max.x` over `min.x`, bit 1
/// `max.y`, bit 2 `max.z`.
///
/// Seed 000's `Corner()` (§5.5.7) tests `n & 1` for all three coordinates, so
/// it only ever returns `min` or `max`: corner 2 = `(min.x, max.y, min.z)`
/// comes out as `min`. Fixed here (`n & 1`, `n & 2`, `n & 4`).
pub(crate) fn corner(b: &Aabb, n: u32) -> Vec3 {
    Vec3::new(
        if n & 1 != 0 { b.max.x } else { b.min.x },
        if n & 2 != 0 { b.max.y } else { b.min.y },
        if n & 4 != 0 { b.max.z } else { b.min.z },
    )
}

/// Whether the projection of `q` along the normal `n = (b-a)×(c-a)` lies in the
/// closed triangle `abc`: the three edge functions `((v_j - v_i)×(q - v_i))·n`
/// are all `>= 0` (adding a multiple of `n` to `q` does not change them, so no
/// projection is needed).
pub(crate) fn projects_inside_triangle(q: Vec3, a: Vec3, b: Vec3, c: Vec3, n: Vec3) -> bool {
    let e_ab = (b - a).cross(q - a).dot(n);
    let e_bc = (c - b).cross(q - b).dot(n);
    let e_ca = (a - c).cross(q - c).dot(n);
    e_ab >= 0.0 && e_bc >= 0.0 && e_ca >= 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizer_is_a_power_of_two() {
        for m in [1.0f32, 1.5, 3.0, 1e-30, 1e30, f32::MAX, f32::MIN_POSITIVE, 1e-45] {
            let k = pow2_normalizer(m);
            assert!(k.to_bits() & 0x7f_ffff == 0 || k < f32::MIN_POSITIVE);
            if m >= f32::MIN_POSITIVE {
                assert!((1.0..2.0).contains(&(m * k)), "{m} {k}");
            }
        }
        assert_eq!(pow2_normalizer(0.0), 1.0);
        assert_eq!(pow2_normalizer(f32::NAN), 1.0);
    }

    #[test]
    fn corner_bits_select_each_axis() {
        let b = Aabb::new(Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0));
        for n in 0..8u32 {
            let p = corner(&b, n);
            assert_eq!(p.x, if n & 1 != 0 { 4.0 } else { 1.0 });
            assert_eq!(p.y, if n & 2 != 0 { 5.0 } else { 2.0 });
            assert_eq!(p.z, if n & 4 != 0 { 6.0 } else { 3.0 });
        }
        // The seed's printed version would give (1, 2, 3) for n = 2.
        assert_eq!(corner(&b, 2), Vec3::new(1.0, 5.0, 3.0));
    }

    #[test]
    fn capsule_times() {
        // Moving along x towards a capsule around the y axis segment [0,2], r = 1.
        let t = segment_capsule_first_time(
            Vec3::new(-4.0, 1.0, 0.0),
            Vec3::new(8.0, 0.0, 0.0),
            Vec3::ZERO,
            Vec3::new(0.0, 2.0, 0.0),
            1.0,
        );
        assert_eq!(t, Some(0.375));
        // Hitting the end ball above the segment: |(-4 + 8t, 3, 0) - (0,2,0)| = 1 at t = 0.5.
        let t = segment_capsule_first_time(
            Vec3::new(-4.0, 3.0, 0.0),
            Vec3::new(8.0, 0.0, 0.0),
            Vec3::ZERO,
            Vec3::new(0.0, 2.0, 0.0),
            1.0,
        );
        assert_eq!(t, Some(0.5));
        // Degenerate capsule (a == b) is a ball.
        let t = segment_capsule_first_time(
            Vec3::new(-4.0, 0.0, 0.0),
            Vec3::new(8.0, 0.0, 0.0),
            Vec3::ZERO,
            Vec3::ZERO,
            2.0,
        );
        assert_eq!(t, Some(0.25));
    }
}
