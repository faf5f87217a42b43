//! Moving sphere vs AABB.

use super::aabb_aabb::moving_aabb_aabb;
use super::support::{
    earliest_lanes, pow2_normalizer_lanes, segment_capsule_first_time_lanes, Time,
};
use crate::lane::{Lane, LaneMask};
use crate::math::{Vec3, V3};
use crate::shapes::{Aabb, Sphere};

/// Moving sphere–AABB: the earliest `t ∈ [0, 1]` at which the sphere `s`,
/// whose center moves by `d`, touches the box `b` (`Some(0.0)` when it touches
/// or overlaps at the start), or `None`.
///
/// Pseudocode (seed 000 §5.5.7, Ericson's `IntersectMovingSphereAABB`):
/// ```text
/// e = b grown by r on every side            // a box around b ⊕ sphere
/// t, p = first point of segment c..c+d in e // none → no contact
/// u, v = axes where p is below b.min / above b.max
/// one axis   (face region):   contact at t
/// two axes   (edge region):   segment vs the capsule of that edge
/// three axes (vertex region): earliest of the capsules of its three edges
/// ```
/// The segment meets the rounded box `b ⊕ sphere` exactly where it meets `e`
/// except in `e`'s edge and corner blocks, where the rounding is the capsules.
/// The seed's `Corner()` helper has an erratum (all three coordinates test bit
/// 0); the corner used here selects bit `i` for axis `i`. Contracts:
/// [crate#contracts]. An inverted box never hits; a box of zero extent is its
/// rectangle, segment or point.
///
/// Band: the hit/miss answer can differ from exact arithmetic only when the
/// exact minimum over the sweep of `dist²(center, box) - r²` is within
/// `256u·S²` of 0, `S = max |input coordinate| + r` — a first-order estimate
/// with margin (`simd-notes.md`, "Moving sphere–triangle and sphere–AABB"),
/// not a rigorous bound, and the band the tests enforce. Measured: the largest
/// in-band disagreement is `1.14u·S²` (4.4e-3 of the band; 1 676 in-band
/// disagreements, none outside, in 100 000 exact-reference cases at scales
/// `2^-60 … 2^36`, `WIDEPHASE_CASES=400000 cargo test --release --test kernels
/// dynamic::sphere_aabb`); larger in-band errors (reported up to about 18 ulps of the
/// contact quantity) are possible and are not excluded by any derivation.
///
/// ```
/// use widephase::{dynamic::moving_sphere_aabb, Aabb, Sphere, Vec3};
/// let b = Aabb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 1.0));
/// let s = Sphere::new(Vec3::new(-3.0, 0.5, 0.5), 1.0);
/// // Face contact when the center reaches x = -1: t = 2/4.
/// assert_eq!(moving_sphere_aabb(&s, Vec3::new(4.0, 0.0, 0.0), &b), Some(0.5));
/// // Passing diagonally past an edge: the rounded edge is missed ...
/// let s = Sphere::new(Vec3::new(-1.0, 1.9, 0.5), 1.0);
/// assert_eq!(moving_sphere_aabb(&s, Vec3::new(0.1, 0.0, 0.0), &b), None);
/// // ... although the center enters the grown box [-1, 2]^3 at t = 0.
/// ```
pub fn moving_sphere_aabb(s: &Sphere, d: Vec3, b: &Aabb) -> Option<f32> {
    let h = moving_sphere_aabb_lanes::<f32>(s, &d, b);
    if h.hit {
        Some(h.t)
    } else {
        None
    }
}

/// The result of [`moving_sphere_aabb_lanes`]: per lane, whether the moving
/// sphere touches the box during `t ∈ [0, 1]`, and the earliest such time
/// (NaN in lanes without contact).
#[derive(Clone, Copy, Debug)]
pub struct MovingSphereHit<L: Lane> {
    /// Lanes where the sphere touches the box at some `t ∈ [0, 1]`.
    pub hit: L::Mask,
    /// Earliest time of contact.
    pub t: L,
}

/// [`moving_sphere_aabb`] written once over [`Lane`]: `L = f32` is the scalar
/// query (which [`moving_sphere_aabb`] wraps), `f32x4/8/16` test packs of
/// (sphere, displacement, box) triples with bit-identical results.
///
/// Every lane computes the face/inside answer and the three capsule times of
/// the edges through the region's corner, and selects by its region: the same
/// operations, in the same order, as its own branch of the scalar pseudocode
/// (the edge along axis `j` is taken from the corner with coordinate `max_j` to
/// `min_j`, except in the vertex region below `min_j`, where it starts at
/// `min_j`, as the scalar `corner(v) → corner(v ^ bit)` did). Contracts and
/// band: [`moving_sphere_aabb`].
///
/// ```
/// use widephase::{dynamic::moving_sphere_aabb_lanes, Aabb, Sphere, Vec3};
/// let b = Aabb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 1.0));
/// let s = Sphere::new(Vec3::new(-3.0, 0.5, 0.5), 1.0);
/// let h = moving_sphere_aabb_lanes::<f32>(&s, &Vec3::new(4.0, 0.0, 0.0), &b);
/// assert!(h.hit && h.t == 0.5);
/// ```
#[inline(always)]
pub fn moving_sphere_aabb_lanes<L: Lane>(
    s: &Sphere<L>,
    d: &V3<L>,
    b: &Aabb<L>,
) -> MovingSphereHit<L> {
    let zero = L::splat(0.0);
    let valid = s.is_valid() & b.is_valid() & d.is_finite();
    // Local frame: origin at b.min, lengths scaled by a power of two so the
    // capsule quadratics (degree 8) neither underflow nor overflow.
    let ext = b.max - b.min;
    let c = s.center - b.min;
    let m = s
        .radius
        .abs()
        .max(ext.abs().max_element())
        .max(c.abs().max_element())
        .max(d.abs().max_element());
    let k = pow2_normalizer_lanes(m);
    let (ext, c, d, r) = (ext * k, c * k, *d * k, s.radius * k);
    let o = V3::splat(zero);
    let e = Aabb { min: o - V3::splat(r), max: ext + V3::splat(r) };
    // The center as a moving point-box against e: the slab test, with zero
    // direction components handled exactly.
    let entry = moving_aabb_aabb::<L>(&e, &o, &Aabb { min: c, max: c }, &d);
    let t = entry.t_first;
    let p = c + d * t;
    // Per axis: p below b.min (= 0) or above b.max (never both).
    let below = [p.x.lt(zero), p.y.lt(zero), p.z.lt(zero)];
    let above = [p.x.gt(ext.x), p.y.gt(ext.y), p.z.gt(ext.z)];
    let out = [below[0] | above[0], below[1] | above[1], below[2] | above[2]];
    let vertex = out[0] & out[1] & out[2];
    // Exactly two axes outside: the edge region along the third (free) axis.
    let free = [!out[0] & out[1] & out[2], out[0] & !out[1] & out[2], out[0] & out[1] & !out[2]];
    let edge = free[0] | free[1] | free[2];
    let hit = valid & entry.hit;
    let nan = L::splat(f32::NAN);
    // Face region (one axis outside) or inside b (none): t is the contact time.
    // When no lane needs a capsule, the answer below without the capsules
    // (the scalar query's face/inside branch; every lane's values unchanged).
    if !(hit & (vertex | edge)).any() {
        return MovingSphereHit { hit, t: L::select(hit, t, nan) };
    }
    // The capsule of the edge along axis j through the region's corner.
    // (a function, not a closure, in a dispatched kernel: see `crate::simd`)
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn capsule<L: Lane>(
        j: usize,
        (above, below, vertex): (&[L::Mask; 3], &[L::Mask; 3], L::Mask),
        ext: V3<L>,
        c: V3<L>,
        d: V3<L>,
        r: L,
    ) -> Time<L> {
        let zero = L::splat(0.0);
        let mut from = V3::splat(zero);
        let mut to = V3::splat(zero);
        for (i, &above_i) in above.iter().enumerate() {
            let hi = ext.get(i);
            if i == j {
                let start_low = vertex & below[j];
                from.set(i, L::select(start_low, zero, hi));
                to.set(i, L::select(start_low, hi, zero));
            } else {
                let x = L::select(above_i, hi, zero);
                from.set(i, x);
                to.set(i, x);
            }
        }
        segment_capsule_first_time_lanes(c, d, from, to, r)
    }
    let region = (&above, &below, vertex);
    let (c0, c1, c2) = (
        capsule(0, region, ext, c, d, r),
        capsule(1, region, ext, c, d, r),
        capsule(2, region, ext, c, d, r),
    );
    // Vertex region: the earliest of the three; edge region: its free axis.
    let corner = earliest_lanes(earliest_lanes(c0, c1), c2);
    let edge_t = L::select(free[0], c0.t, L::select(free[1], c1.t, c2.t));
    let edge_hit = (free[0] & c0.hit) | (free[1] & c1.hit) | (free[2] & c2.hit);
    let hit_t = L::select(vertex, corner.t, L::select(edge, edge_t, t));
    let region_hit = (vertex & corner.hit) | (edge & edge_hit) | !(vertex | edge);
    let hit = hit & region_hit;
    MovingSphereHit { hit, t: L::select(hit, hit_t, nan) }
}
