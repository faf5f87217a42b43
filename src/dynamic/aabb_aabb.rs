//! Moving AABB vs moving AABB: the time interval of overlap (LANE-GENERIC).

use crate::lane::Lane;
use crate::math::V3;
use crate::shapes::Aabb;

/// The result of [`moving_aabb_aabb`]: per lane, whether the moving boxes
/// touch during `t ∈ [0, 1]`, and the closed interval `[t_first, t_last]` of
/// times at which they do.
///
/// Lanes without contact (including lanes with invalid input) hold
/// `t_first = t_last = NaN`.
#[derive(Clone, Copy, Debug)]
pub struct MovingAabbHit<L: Lane> {
    /// Lanes where the boxes touch or overlap at some `t ∈ [0, 1]`.
    pub hit: L::Mask,
    /// Earliest time of contact in `[0, 1]` (`0` when they overlap at the start).
    pub t_first: L,
    /// Latest time of contact in `[0, 1]` (`1` when they still overlap at the end).
    pub t_last: L,
}

impl MovingAabbHit<f32> {
    /// The scalar result as `Some((t_first, t_last))`, or `None` without contact.
    pub fn times(&self) -> Option<(f32, f32)> {
        if self.hit {
            Some((self.t_first, self.t_last))
        } else {
            None
        }
    }
}

/// Moving AABB–AABB: box `a` translates by `va` and box `b` by `vb` over
/// `t ∈ [0, 1]` (at time `t` they are `a + t·va` and `b + t·vb`). Returns the
/// hit mask and the first and last times of contact of the closed boxes.
///
/// Written once over [`Lane`]: at `L = f32` this is the scalar query (`hit` is a
/// `bool`, see [`MovingAabbHit::times`]), at `f32x4/8/16` it tests a pack of box
/// pairs, bit-identically to the scalar function.
///
/// Contracts: [crate#contracts]. Empty (inverted) boxes, NaN/∞ coordinates or
/// velocities never hit. The time of contact is exact up to three roundings of
/// one quotient (`t` has relative error ≤ 3u), and a hit is decided exactly
/// except when the exact first and last times are within that relative band of
/// each other or of 1 (see `simd-notes.md`).
///
/// Source: seed 000 §5.5.8 (`IntersectMovingAABBAABB`, Ericson §5.5.8, after
/// Gomez 1999), re-derived; the printed code has two errata fixed here: an axis
/// with zero relative velocity on which the boxes are apart is not rejected, and
/// boxes overlapping at `t = 0` report `t_last = 0` instead of the real last
/// time.
///
/// ```
/// use widephase::{dynamic::moving_aabb_aabb, Aabb, Vec3};
/// let a = Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
/// let b = Aabb::new(Vec3::new(3.0, 0.0, 0.0), Vec3::new(4.0, 1.0, 1.0));
/// // b moves 4 units towards a: faces touch at t = 0.5 and b leaves a at t = 1.
/// let r = moving_aabb_aabb(&a, &Vec3::ZERO, &b, &Vec3::new(-4.0, 0.0, 0.0));
/// assert_eq!(r.times(), Some((0.5, 1.0)));
/// // Sliding past on y (zero relative velocity on x, apart on x): no contact.
/// let c = Aabb::new(Vec3::new(2.0, -5.0, 0.0), Vec3::new(3.0, -4.0, 1.0));
/// assert!(!moving_aabb_aabb(&a, &Vec3::ZERO, &c, &Vec3::new(0.0, 10.0, 0.0)).hit);
/// ```
#[inline(always)]
pub fn moving_aabb_aabb<L: Lane>(
    a: &Aabb<L>,
    va: &V3<L>,
    b: &Aabb<L>,
    vb: &V3<L>,
) -> MovingAabbHit<L> {
    sweep(a, va, b, vb, false)
}

/// Relative widening of [`moving_aabb_aabb_conservative`]'s per-axis times:
/// `2^-20 = 16u` (the derived need is `3.0001u` for the quotient plus the
/// widening's own two roundings; see `simd-notes.md`, "Moving AABB–AABB").
pub const MOVING_AABB_WIDEN_REL: f32 = 1.0 / 1_048_576.0;
/// Absolute widening: `2^-126`, covering quotients that underflow (`2^-150`).
pub const MOVING_AABB_WIDEN_ABS: f32 = f32::MIN_POSITIVE;

/// Conservative [`moving_aabb_aabb`]: never answers "no contact" when the
/// exact boxes touch at some `t ∈ [0, 1]`, and `[t_first, t_last]` contains the
/// exact interval of contact.
///
/// Each finite per-axis entry time `q = fl(lo/v)` moves down and each exit time
/// up by `16u·|q| + 2^-126` (`MOVING_AABB_WIDEN_REL`, `MOVING_AABB_WIDEN_ABS`):
/// `q` is within `γ3·|q*| + 2^-150` of the exact quotient (one rounding each of
/// `lo`, `v` and the division), so the widened entry is `<=` the exact one and
/// the widened exit `>=` it, even after the widening's own two roundings (the
/// derivation of the conservative ray–box slab test, `simd-notes.md`). Static
/// axes (`v == 0`) and the clamps to `[0, 1]` are exact; infinite times
/// (overflowed quotients, `|q*| > f32::MAX`) are not widened. False positives
/// only when the exact `T_first - T_last <= 40u·(|T_first| + |T_last|) + 2^-120`.
///
/// **LANE-GENERIC**, bit-identical at every width. Invalid lanes: as
/// [`moving_aabb_aabb`].
///
/// ```
/// use widephase::{dynamic::moving_aabb_aabb_conservative, Aabb, Vec3};
/// let a = Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
/// let b = Aabb::new(Vec3::new(3.0, 0.0, 0.0), Vec3::new(4.0, 1.0, 1.0));
/// let r = moving_aabb_aabb_conservative(&a, &Vec3::ZERO, &b, &Vec3::new(-4.0, 0.0, 0.0));
/// let (t0, t1) = r.times().unwrap();
/// assert!(t0 <= 0.5 && t0 > 0.49 && t1 == 1.0);
/// ```
#[inline(always)]
pub fn moving_aabb_aabb_conservative<L: Lane>(
    a: &Aabb<L>,
    va: &V3<L>,
    b: &Aabb<L>,
    vb: &V3<L>,
) -> MovingAabbHit<L> {
    sweep(a, va, b, vb, true)
}

/// Moves a finite time `q` by `16u·|q| + 2^-126` down (`up = false`) or up.
#[inline(always)]
fn widen<L: Lane>(q: L, up: bool) -> L {
    let w = L::splat(MOVING_AABB_WIDEN_REL) * q.abs() + L::splat(MOVING_AABB_WIDEN_ABS);
    let moved = if up { q + w } else { q - w };
    L::select(q.is_finite(), moved, q)
}

/// The body of [`moving_aabb_aabb`] and its conservative variant.
#[inline(always)]
fn sweep<L: Lane>(
    a: &Aabb<L>,
    va: &V3<L>,
    b: &Aabb<L>,
    vb: &V3<L>,
    conservative: bool,
) -> MovingAabbHit<L> {
    // Pseudocode (per axis i, exact form; v = vb - va is b's velocity relative
    // to a):
    //   the projections overlap at time t  ⇔  lo ≤ t·v ≤ hi,
    //   lo = a.min - b.max,  hi = a.max - b.min;
    //   v > 0: t ∈ [lo/v, hi/v];  v < 0: t ∈ [hi/v, lo/v];
    //   v = 0: every t if lo ≤ 0 ≤ hi, no t otherwise.
    // The boxes touch at t iff every axis does: intersect the three intervals
    // and [0, 1].
    let zero = L::splat(0.0);
    let inf = L::splat(f32::INFINITY);
    let v = *vb - *va;
    let mut t_first = zero;
    let mut t_last = L::splat(1.0);
    for i in 0..3 {
        let lo = a.min.get(i) - b.max.get(i);
        let hi = a.max.get(i) - b.min.get(i);
        let vi = v.get(i);
        // fl(x - y) == 0 iff x == y (gradual underflow), so `vi == 0`, and the
        // signs of lo and hi, are exactly those of the real differences.
        let moving = !vi.eq(zero);
        let pos = vi.gt(zero);
        let q_lo = lo / vi; // ±∞ or NaN when vi == 0: selected away below
        let q_hi = hi / vi;
        // if v > 0 { enter = lo/v; exit = hi/v } else { enter = hi/v; exit = lo/v }
        let mut enter_moving = L::select(pos, q_lo, q_hi);
        let mut exit_moving = L::select(pos, q_hi, q_lo);
        if conservative {
            enter_moving = widen(enter_moving, false);
            exit_moving = widen(exit_moving, true);
        }
        // v == 0: the axis never changes: always (lo ≤ 0 ≤ hi) or never.
        let static_ok = lo.le(zero) & hi.ge(zero);
        let enter_static = L::select(static_ok, -inf, inf);
        let exit_static = L::select(static_ok, inf, -inf);
        let enter = L::select(moving, enter_moving, enter_static);
        let exit = L::select(moving, exit_moving, exit_static);
        // t_first = max(t_first, enter) (t_first is never NaN: enter is first
        // operand, and maxps returns the second on NaN).
        t_first = enter.max(t_first);
        t_last = exit.min(t_last);
    }
    let valid = a.is_valid() & b.is_valid() & va.is_finite() & vb.is_finite();
    let hit = t_first.le(t_last) & valid;
    // -0.0 (from 0/-v) becomes +0.0, so swapping the boxes is bit-identical.
    let t_last = t_last + zero;
    let nan = L::splat(f32::NAN);
    MovingAabbHit {
        hit,
        t_first: L::select(hit, t_first, nan),
        t_last: L::select(hit, t_last, nan),
    }
}
