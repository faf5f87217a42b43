//! Sphere–box contact (one point): the sphere centre against the box in the
//! box's frame (Ericson §5.1.4 for the outside case; face of least
//! penetration when the centre is inside, as bepu's `SphereBoxTester`).

use super::util::{fallback, manifold1, margin_ok, unit_or};
use super::Manifold;
use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::shapes::{Obb, Sphere};

/// Contact of sphere `a` and box `b` with speculative `margin` (see the
/// [module conventions](super)). **Lane-generic.** The box axes are assumed
/// orthonormal ([`Obb::try_new`]).
///
/// ```text
/// l_i = (c - b.center)·axis_i;  q_i = clamp(l_i, -h_i, h_i);  e_i = l_i - q_i
/// outside (some e_i != 0): n = -Σ e_i·axis_i / |…|, gap = |Σ e_i·axis_i|
/// inside: k = argmin_i (h_i - |l_i|) (ties: lowest i), σ = sign(l_k) (+ for 0),
///         n = -σ·axis_k, gap = -(h_k - |l_k|)
/// depth = r - gap;  contact iff depth >= -margin;  point = c + n·gap (on the box)
/// feature id = Σ_i 3^i·f_i with f_i = 0 (l_i within the slab), 1 (below), 2 (above);
///              inside: the id of face k
/// ```
///
/// ```
/// use widephase::contact::sphere_box;
/// use widephase::{Obb, Sphere, Vec3};
/// let b = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// // resting on the top face, 0.25 deep
/// let m = sphere_box(&Sphere::new(Vec3::new(0.0, 1.75, 0.0), 1.0), &b, 0.0);
/// assert_eq!((m.normal, m.points[0].depth, m.points[0].position), (-Vec3::Y, 0.25, Vec3::new(0.0, 1.0, 0.0)));
/// ```
#[inline(always)]
pub fn sphere_box<L: Lane>(a: &Sphere<L>, b: &Obb<L>, margin: L) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let two = L::splat(2.0);
    let valid = a.is_valid() & b.is_valid() & margin_ok(margin);
    let d = a.center - b.center;
    let l = [d.dot(b.axes[0]), d.dot(b.axes[1]), d.dot(b.axes[2])];
    let h = [b.half.x, b.half.y, b.half.z];
    let mut excess = V3::splat(zero);
    let mut id = zero;
    let mut weight = one;
    for i in 0..3 {
        let q = l[i].max(-h[i]).min(h[i]);
        excess += b.axes[i] * (l[i] - q);
        let f = L::select(l[i].lt(-h[i]), one, L::select(l[i].gt(h[i]), two, zero));
        id = id + f * weight;
        weight = weight * L::splat(3.0);
    }
    let (n_out, dist) = unit_or(-excess, fallback());

    // Inside: the face of least penetration.
    let pen = [h[0] - l[0].abs(), h[1] - l[1].abs(), h[2] - l[2].abs()];
    let pick1 = pen[1].lt(pen[0]);
    let pick2 = pen[2].lt(pen[0].min(pen[1]));
    let sign = |x: L| L::select(x.lt(zero), -one, one);
    let face_id = |x: L, w: f32| L::select(x.lt(zero), one, two) * L::splat(w);
    let mut axis = b.axes[0] * sign(l[0]);
    let mut p = pen[0];
    let mut fid = face_id(l[0], 1.0);
    axis = V3::select(pick1, b.axes[1] * sign(l[1]), axis);
    p = L::select(pick1, pen[1], p);
    fid = L::select(pick1, face_id(l[1], 3.0), fid);
    axis = V3::select(pick2, b.axes[2] * sign(l[2]), axis);
    p = L::select(pick2, pen[2], p);
    fid = L::select(pick2, face_id(l[2], 9.0), fid);

    let inside = dist.eq(zero);
    let n = V3::select(inside, -axis, n_out);
    let gap = L::select(inside, -p, dist);
    let depth = a.radius - gap;
    let hit = valid & depth.ge(-margin);
    if hit.none() {
        return Manifold::empty();
    }
    manifold1(hit, n, a.center + n * gap, depth, L::select(inside, fid, id))
}
