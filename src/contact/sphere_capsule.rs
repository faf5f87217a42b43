//! Sphere–capsule contact (one point): the sphere against the nearest point
//! of the capsule's axis (Ericson §5.1.2), then sphere–sphere.

use super::util::{capsule_ok, clamp01, fallback, manifold1, margin_ok, unit_or};
use super::Manifold;
use crate::lane::{Lane, LaneMask};
use crate::shapes::{Capsule, Sphere};

/// Contact of sphere `a` and capsule `b` with speculative `margin` (see the
/// [module conventions](super)). **Lane-generic.**
///
/// ```text
/// t = clamp((c - b.a)·(b.b - b.a) / |b.b - b.a|², 0, 1)   (0 for a zero-length axis)
/// p = b.a + t·(b.b - b.a);  then sphere–sphere of (c, r_a) and (p, r_b)
///   (p - c formed as (b.a - c) + t·(b.b - b.a): exact offsets far from the origin)
/// feature id: 0 interior of the axis, 1 end b.a, 2 end b.b
/// ```
///
/// A zero-length capsule is a sphere; a centre on the axis takes the fallback
/// normal `+Y`.
///
/// ```
/// use widephase::contact::sphere_capsule;
/// use widephase::{Capsule, Sphere, Vec3};
/// let cap = Capsule::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.5);
/// let m = sphere_capsule(&Sphere::new(Vec3::new(0.0, 1.0, 0.0), 1.0), &cap, 0.0);
/// assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, -Vec3::Y, 0.5));
/// ```
#[inline(always)]
pub fn sphere_capsule<L: Lane>(a: &Sphere<L>, b: &Capsule<L>, margin: L) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let valid = a.is_valid() & capsule_ok(b) & margin_ok(margin);
    let ab = b.b - b.a;
    // 0/0 for a zero-length axis is NaN, which clamp01 maps to 0
    let t = clamp01((a.center - b.a).dot(ab) / ab.dot(ab));
    // the axis point relative to the centre: from absolute points the normal
    // over a gap d leans by up to about ulp(x)/d far from the origin (the
    // offsets are exact there, Sterbenz; `util::from_first_vertex`)
    let p = (b.a - a.center) + ab * t;
    let (n, dist) = unit_or(p, fallback());
    let depth = a.radius + b.radius - dist;
    let hit = valid & depth.ge(-margin);
    if hit.none() {
        return Manifold::empty();
    }
    let id = L::select(t.eq(zero), one, L::select(t.eq(one), L::splat(2.0), zero));
    manifold1(hit, n, (p - n * b.radius) + a.center, depth, id)
}
