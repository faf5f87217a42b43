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

use crate::lane::{Lane, LaneMask};
use crate::math::{Vec3, V3};

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
    pow2_normalizer_lanes::<f32>(m)
}

/// [`pow2_normalizer`] per lane. The [`Lane`] trait has no exponent access,
/// so the exponent is found by binary steps: scale down by `2^64, 2^32, …, 2^1`
/// while `x >= 2^s` (ends in `[1, 2)` for `m >= 1`), then up by the same steps
/// while `x·2^s < 2` (ends in `[1, 2)` for normal `m < 1`; a subnormal `m` takes
/// every step, `2^127` in all). Every product is by a power of two and exact.
#[inline(always)]
pub(crate) fn pow2_normalizer_lanes<L: Lane>(m: L) -> L {
    let one = L::splat(1.0);
    let two = L::splat(2.0);
    let usable = m.gt(L::splat(0.0)) & m.is_finite();
    let (mut x, mut k) = (m, one);
    for s in [64, 32, 16, 8, 4, 2, 1] {
        let (up, down) = (L::splat(2f32.powi(s)), L::splat(2f32.powi(-s)));
        let big = x.ge(up);
        x = L::select(big, x * down, x);
        k = L::select(big, k * down, k);
    }
    for s in [64, 32, 16, 8, 4, 2, 1] {
        let up = L::splat(2f32.powi(s));
        let small = (x * up).lt(two);
        x = L::select(small, x * up, x);
        k = L::select(small, k * up, k);
    }
    L::select(usable, k, one)
}

/// Largest absolute component over a set of vectors, and a radius.
pub(crate) fn max_magnitude(vs: &[Vec3], r: f32) -> f32 {
    let mut m = r.abs();
    for v in vs {
        m = m.max(v.abs().max_element());
    }
    m
}

/// A time interval `[lo, hi]` per lane, present where `hit` is set.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Interval<L: Lane> {
    pub(crate) hit: L::Mask,
    pub(crate) lo: L,
    pub(crate) hi: L,
}

/// A time per lane, present where `hit` is set.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Time<L: Lane> {
    pub(crate) hit: L::Mask,
    pub(crate) t: L,
}

/// Per lane `if m { a } else { b }` for masks.
#[inline(always)]
fn select_mask<M: LaneMask>(m: M, a: M, b: M) -> M {
    (m & a) | (!m & b)
}

/// Times `t` (over the whole real line) at which `p + t·d` is within `r` of
/// `center`, as a closed interval `(t_in, t_out)` (per lane).
///
/// Solves `|m + t·d|² = r²`, `m = p - center`: `a t² + 2 b t + c = 0` with
/// `a = d·d`, `b = m·d`, `c = m·m - r²` (seed 002, ray–sphere; here with a
/// non-normalised direction). Roots by the cancellation-free pair
/// `q = -b - sign(b)·√disc`, `t = q/a`, `t = c/q`. Every branch is computed and
/// selected, so each lane performs exactly the operations of its own branch.
#[inline(always)]
pub(crate) fn line_ball_interval<L: Lane>(p: V3<L>, d: V3<L>, center: V3<L>, r: L) -> Interval<L> {
    let zero = L::splat(0.0);
    let inf = L::splat(f32::INFINITY);
    let m = p - center;
    let c = m.dot(m) - r * r;
    let a = d.dot(d);
    // a == 0: not moving: inside for all t (c <= 0), or never.
    let still = a.eq(zero);
    let b = m.dot(d);
    let disc = b * b - a * c;
    let root = disc.sqrt();
    let q = L::select(b.ge(zero), -b - root, -b + root);
    // q == 0: b = 0 and disc = 0, a tangent at t = 0 (then c = 0).
    let q_zero = q.eq(zero);
    let t1 = q / a;
    let t2 = c / q;
    let lo = L::select(q_zero, zero, t1.min(t2));
    let hi = L::select(q_zero, zero, t1.max(t2));
    Interval {
        hit: select_mask(still, c.le(zero), !disc.lt(zero)),
        lo: L::select(still, -inf, lo),
        hi: L::select(still, inf, hi),
    }
}

/// Times at which `p + t·d` is within `r` of the *infinite line* through `a`
/// and `b` **and** its projection on the line falls within the segment `[a, b]`
/// (the side of a finite cylinder), per lane. No interval for a degenerate axis
/// (`a == b`, or a squared length that underflows): the capsule's end balls
/// cover that case.
///
/// Ericson §5.3.7 (`IntersectSegmentCylinder`), re-derived: with `e = b - a`,
/// `m = p - a`, the distance² to the line scaled by `e·e` is
/// `|(e·e) m⊥|²/(e·e) = (e·e)(m·m) - (m·e)²` for the point and the quadratic
/// `A t² + 2 B t + C` along the motion, with
/// `A = (e·e)(d·d) - (d·e)²`, `B = (e·e)(m·d) - (m·e)(d·e)`,
/// `C = (e·e)(m·m - r²) - (m·e)²`.
#[inline(always)]
fn line_cylinder_interval<L: Lane>(p: V3<L>, d: V3<L>, a: V3<L>, b: V3<L>, r: L) -> Interval<L> {
    let zero = L::splat(0.0);
    let inf = L::splat(f32::INFINITY);
    let e = b - a;
    let ee = e.dot(e);
    let axis_ok = !ee.eq(zero) & ee.is_finite();
    let m = p - a;
    let me = m.dot(e);
    let de = d.dot(e);
    // Slab 0 <= (m + t d)·e <= e·e: the interval of the axial coordinate;
    // de == 0: always inside the slab or never.
    let flat = de.eq(zero);
    let t0 = -me / de;
    let t1 = (ee - me) / de;
    let s_lo = L::select(flat, -inf, t0.min(t1));
    let s_hi = L::select(flat, inf, t0.max(t1));
    let slab_ok = !flat | (me.ge(zero) & me.le(ee));
    let qa = ee * d.dot(d) - de * de;
    let qb = ee * m.dot(d) - me * de;
    let qc = ee * (m.dot(m) - r * r) - me * me;
    // qa <= 0: motion parallel to the axis (exactly 0 in reals; a negative
    // value is rounding): the distance to the line does not change.
    let parallel = qa.le(zero);
    let disc = qb * qb - qa * qc;
    let root = disc.sqrt();
    let q = L::select(qb.ge(zero), -qb - root, -qb + root);
    let q_zero = q.eq(zero);
    let r1 = q / qa;
    let r2 = qc / q;
    let c_lo = L::select(parallel, -inf, L::select(q_zero, zero, r1.min(r2)));
    let c_hi = L::select(parallel, inf, L::select(q_zero, zero, r1.max(r2)));
    let side_ok = select_mask(parallel, qc.le(zero), !disc.lt(zero));
    let lo = s_lo.max(c_lo);
    let hi = s_hi.min(c_hi);
    Interval { hit: axis_ok & slab_ok & side_ok & lo.le(hi), lo, hi }
}

/// Earliest time in `[0, 1]` at which an interval of contact times is reached,
/// absent when it misses `[0, 1]`.
#[inline(always)]
fn first_in_unit<L: Lane>(iv: Interval<L>) -> Time<L> {
    // t = max(lo, 0) (maxps: a NaN lo gives 0, as f32::max did)
    let t = iv.lo.max(L::splat(0.0));
    Time { hit: iv.hit & iv.hi.ge(L::splat(0.0)) & t.le(L::splat(1.0)), t }
}

/// The earlier of two times per lane (the first on ties).
#[inline(always)]
pub(crate) fn earliest_lanes<L: Lane>(x: Time<L>, y: Time<L>) -> Time<L> {
    let both = L::select(y.t.lt(x.t), y.t, x.t);
    let t = L::select(x.hit & y.hit, both, L::select(x.hit, x.t, y.t));
    Time { hit: x.hit | y.hit, t }
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
pub(crate) fn segment_capsule_first_time(
    p: Vec3,
    d: Vec3,
    a: Vec3,
    b: Vec3,
    r: f32,
) -> Option<f32> {
    let t = segment_capsule_first_time_lanes::<f32>(p, d, a, b, r);
    if t.hit {
        Some(t.t)
    } else {
        None
    }
}

/// [`segment_capsule_first_time`] per lane.
///
/// The capsule is the union of the two end balls and the finite cylinder, so
/// its first contact time is the earliest of theirs (seed 000 §5.5.7 uses
/// `IntersectSegmentCapsule` without printing it).
#[inline(always)]
pub(crate) fn segment_capsule_first_time_lanes<L: Lane>(
    p: V3<L>,
    d: V3<L>,
    a: V3<L>,
    b: V3<L>,
    r: L,
) -> Time<L> {
    let ta = first_in_unit(line_ball_interval(p, d, a, r));
    let tb = first_in_unit(line_ball_interval(p, d, b, r));
    let tc = first_in_unit(line_cylinder_interval(p, d, a, b, r));
    earliest_lanes(earliest_lanes(ta, tb), tc)
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
        assert_eq!(pow2_normalizer(f32::INFINITY), 1.0);
        // The lane version against the exponent read from the bits, for every
        // exponent and a few mantissas (subnormals give 2^127).
        for bits in (1u32..0x7f80_0000).step_by(0x0003_3331) {
            let m = f32::from_bits(bits);
            let e = if m >= f32::MIN_POSITIVE { ((bits >> 23) & 0xff) as i32 - 127 } else { -127 };
            let want = if -e >= -126 {
                f32::from_bits(((-e + 127) as u32) << 23)
            } else {
                f32::from_bits(1 << (-e + 149))
            };
            assert_eq!(pow2_normalizer(m).to_bits(), want.to_bits(), "{m:e}");
        }
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
