//! Capsule–capsule contact: one point, or two for near-parallel axes
//! (the approach of bepuphysics2's `CapsulePairTester`: clip B's axis against
//! the extent of A's axis and keep both ends of the overlap).

use super::util::{capsule_ok, clamp01, closest_segments, fallback, manifold2, margin_ok, unit_or};
use super::{ContactPoint, Manifold};
use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::shapes::Capsule;
use crate::simd::unroll::from2;

/// `|u_a × u_b|` below which two axes count as parallel and give a two-point
/// manifold: sin 2.9° — a capsule resting along another keeps two points, so a
/// solver does not let it roll about a single point.
pub const CAPSULE_PARALLEL_SIN: f32 = 0.05;

/// Contact of capsules `a` and `b` with speculative `margin` (see the
/// [module conventions](super)). **Lane-generic.**
///
/// ```text
/// (s, t) = closest points of the axes (Ericson §5.1.9); p_a, p_b those points
///   (formed relative to a.a: exact offsets far from the origin)
/// n = (p_b - p_a) / |p_b - p_a|; if the axes touch: n = unit(d_a × d_b),
///     else unit(d_a × X), else unit(d_a × Y), else +Y — oriented so that
///     n·(mid_b - mid_a) >= 0
/// depth = r_a + r_b - |p_b - p_a|;  contact iff depth >= -margin
/// two points when |u_a × u_b| <= CAPSULE_PARALLEL_SIN, B's axis overlaps A's
///   in projection on a non-empty interval [u_lo, u_hi] of B's parameter, and
///   both ends are within the margin: point i = b(u_i) - n·r_b with depth
///   r_a + r_b - n·(b(u_i) - a(s_i)), s_i = B's end projected on A (clamped)
/// ```
///
/// The two points share the one normal (as in bepu), so for axes at angle θ
/// they lie on B's surface only up to `r_b·(1 - cos θ)` inside it, and
/// `position + depth·n` lies between `√(r_a² - (sin θ·max(r_a, r_b +
/// margin))²)` and `√(r_a² + λ²)` from A's axis, where `λ <= (|b.b - b.a| +
/// r_a + r_b + margin)·sin θ` is the end's offset across the normal
/// (`tests/contact_spheres.rs` checks both bounds).
///
/// Feature ids: 0 for the single closest-point contact; 1 and 2 for the low
/// and high ends of the overlap in the two-point case. Zero-length capsules are
/// spheres (never two points).
///
/// ```
/// use widephase::contact::capsule_capsule;
/// use widephase::{Capsule, Vec3};
/// let a = Capsule::new(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), 0.5);
/// // crossing at right angles, 0.25 deep: one point
/// let b = Capsule::new(Vec3::new(0.0, 0.75, -2.0), Vec3::new(0.0, 0.75, 2.0), 0.5);
/// let m = capsule_capsule(&a, &b, 0.0);
/// assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::Y, 0.25));
/// // lying along A, overlapping on x in [1, 2]: two points
/// let c = Capsule::new(Vec3::new(1.0, 0.75, 0.0), Vec3::new(3.0, 0.75, 0.0), 0.5);
/// let m = capsule_capsule(&a, &c, 0.0);
/// assert_eq!(m.count, 2.0);
/// assert_eq!((m.points[0].position.x, m.points[1].position.x), (1.0, 2.0));
/// ```
#[inline(always)]
pub fn capsule_capsule<L: Lane>(a: &Capsule<L>, b: &Capsule<L>, margin: L) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let valid = capsule_ok(a) & capsule_ok(b) & margin_ok(margin);
    let radii = a.radius + b.radius;
    // In the frame of `a.a`: from absolute points the normal over a gap d
    // leans by up to about ulp(x)/d far from the origin (0.68 rad at 10⁴
    // for d near 10⁻³); the offsets are exact there (Sterbenz,
    // `util::from_first_vertex`). Points are moved back at the end.
    let o = a.a;
    let (a1, b0, b1) = (a.b - o, b.a - o, b.b - o);
    let cp = closest_segments(V3::splat(zero), a1, b0, b1);
    let (nv, dist) = unit_or(cp.point2 - cp.point1, fallback());
    let depth = radii - dist;
    let hit = valid & depth.ge(-margin);
    if hit.none() {
        return Manifold::empty();
    }
    let da = a.b - a.a;
    let db = b.b - b.a;

    // Fallback normal for touching axes: perpendicular to both, then to A.
    let x = V3::new(one, zero, zero);
    let y = V3::new(zero, one, zero);
    let (n3, _) = unit_or(da.cross(y), fallback());
    let (n2, _) = unit_or(da.cross(x), n3);
    let (n1, _) = unit_or(da.cross(db), n2);
    let half = L::splat(0.5);
    let towards = ((b0 + b1) * half - a1 * half).dot(n1);
    let n_touch = V3::select(towards.lt(zero), -n1, n1);
    let n = V3::select(dist.eq(zero), n_touch, nv);

    // Near-parallel axes: clip B's axis to A's extent (parameters of A).
    let (ua, la) = unit_or(da, fallback());
    let (ub, lb) = unit_or(db, fallback());
    let sin = ua.cross(ub).length();
    let aa = da.dot(da);
    let s_b0 = b0.dot(da) / aa;
    let s_b1 = b1.dot(da) / aa;
    let ds = s_b1 - s_b0;
    // u where s(u) = s_b0 + u·ds crosses 0 and 1
    let u_s0 = -s_b0 / ds;
    let u_s1 = (one - s_b0) / ds;
    let u_lo = u_s0.min(u_s1).max(zero);
    let u_hi = u_s0.max(u_s1).min(one);
    // Written out, not a closure: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    let [(q0, d0), (q1, d1)] = from2!(|end| {
        let u = if end == 0 { u_lo } else { u_hi };
        let pb = b0 + db * u;
        let s = clamp01(s_b0 + ds * u);
        let pa = da * s;
        ((pb - n * b.radius) + o, radii - n.dot(pb - pa))
    });
    let two = sin.le(L::splat(CAPSULE_PARALLEL_SIN))
        & la.gt(zero)
        & lb.gt(zero)
        & u_hi.gt(u_lo)
        & d0.ge(-margin)
        & d1.ge(-margin);
    let single = ContactPoint { position: (cp.point2 - n * b.radius) + o, depth, feature_id: zero };
    let p0 = ContactPoint {
        position: V3::select(two, q0, single.position),
        depth: L::select(two, d0, depth),
        feature_id: L::select(two, one, zero),
    };
    let p1 = ContactPoint { position: q1, depth: d1, feature_id: L::splat(2.0) };
    manifold2(hit, two, n, p0, p1)
}
