//! Point–tetrahedron closest point (Ericson §5.1.6; seed `000` §5.1.6).

use super::point_triangle::closest_point_triangle;
use super::{finite, max_abs, tiny_input_scale, NAN3};
use crate::math::Vec3;
use crate::shapes::{Tetrahedron, Triangle};

/// The point of the closed (solid) tetrahedron `tet` nearest to `p`; `p` itself
/// when `p` is inside or on the boundary.
///
/// Any vertex order is accepted (Ericson's second `PointOutsideOfPlane`, which
/// compares the side of `p` with the side of the opposite vertex, so the
/// winding need not be known). The side of the opposite vertex is the sign of
/// the tetrahedron's signed volume, decided once and only when it is certain
/// (Shewchuk's `orient3d` filter; Ericson §5.1.6 on near-degenerate Voronoi
/// regions, Jolt's `ClosestPoint` fallback to the lower simplices):
///
/// ```text
/// k = 2^j bringing max|coordinate| into [1, 2) when it is below 1 (exact), else 1
/// V    = (d - a)·((b - a) × (c - a))           (= 6·signed volume; all four faces
///                                                 in the order below see l on side V)
/// perm = |d - a|·(|b - a| ×₊ |c - a|)          (the same sum with every term made positive)
/// if |V| <= 8u·perm + 2^-140 (the volume may be 0: flat or nearly flat tetrahedron):
///     nearest of the four face triangles' closest points
/// else for each face (i, j, k) with opposite vertex l:
///     sp = (p - v_i)·((v_j - v_i) × (v_k - v_i))
///     outside |= sp != 0 and sign(sp) == -sign(V)
///     if !outside: p  else: nearest of the four face triangles' closest points
/// ```
///
/// `8u·perm` bounds the rounding error of `V` (Shewchuk's
/// `o3derrboundA = (7 + 56u)u` with `u = 2^-24`), `2^-140` the products that
/// underflow; below that bound the sign of `V` is rounding noise, and reading
/// it (as the seed's version does through the per-face `sl`) can make a far
/// point "inside". A tetrahedron whose `|V|` is within the bound has every
/// point within `h_i = bound/|n_i|` of each face plane `i` (height = volume /
/// area), so the nearest face point is then within that height of the exact
/// answer (and is exact for a flat tetrahedron, whose planar hull is the union
/// of its four face triangles). Ties go to the first face in the order
/// `abc, acd, adb, bdc`. NaN for non-finite input.
///
/// ```
/// use widephase::closest::closest_point_tetrahedron;
/// use widephase::{Tetrahedron, Vec3};
/// let tet = Tetrahedron { v: [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z] };
/// assert_eq!(closest_point_tetrahedron(Vec3::new(0.1, 0.1, 0.1), &tet), Vec3::new(0.1, 0.1, 0.1));
/// assert_eq!(closest_point_tetrahedron(Vec3::new(0.25, 0.25, -3.0), &tet), Vec3::new(0.25, 0.25, 0.0));
/// ```
pub fn closest_point_tetrahedron(p: Vec3, tet: &Tetrahedron) -> Vec3 {
    if !(finite(p) && tet.v.iter().all(|v| finite(*v))) {
        return NAN3;
    }
    let k = tiny_input_scale(max_abs(&[p, tet.v[0], tet.v[1], tet.v[2], tet.v[3]]));
    if k == 1.0 {
        return closest_point_tetrahedron_scaled(p, tet.v);
    }
    let q = closest_point_tetrahedron_scaled(p * k, tet.v.map(|v| v * k));
    q / k
}

/// The body of [`closest_point_tetrahedron`] on inputs already scaled.
fn closest_point_tetrahedron_scaled(p: Vec3, v: [Vec3; 4]) -> Vec3 {
    let [a, b, c, d] = v;
    let (ab, ac, ad) = (b - a, c - a, d - a);
    let volume = ad.dot(ab.cross(ac));
    let perm = ad.abs().dot(cross_abs(ab.abs(), ac.abs()));
    // f32::from_bits(512) = 2^-140, the floor for products that underflow
    let noise = 8.0 * crate::UNIT_ROUNDOFF * perm + f32::from_bits(512);
    // NaN (an overflowed volume, inputs beyond the coordinate range) is "may be 0"
    let flat = volume.abs() <= noise || volume.is_nan();
    let faces = [(a, b, c), (a, c, d), (a, d, b), (b, d, c)];
    let mut outside = false;
    let mut best = p;
    let mut best_sq = f32::INFINITY;
    for (i, j, k) in faces {
        let sp = (p - i).dot((j - i).cross(k - i));
        outside |= (sp > 0.0 && volume < 0.0) || (sp < 0.0 && volume > 0.0);
        let q = closest_point_triangle(p, &Triangle::new(i, j, k)).point;
        let sq = (q - p).length_squared();
        if sq < best_sq {
            best_sq = sq;
            best = q;
        }
    }
    if outside || flat {
        best
    } else {
        p
    }
}

/// `|x| ×₊ |y|`: the cross product with both products of each component
/// added (the inputs are non-negative), for the error permanent.
fn cross_abs(x: Vec3, y: Vec3) -> Vec3 {
    Vec3::new(x.y * y.z + x.z * y.y, x.z * y.x + x.x * y.z, x.x * y.y + x.y * y.x)
}

/// Squared distance from `p` to the solid tetrahedron `tet`: `|q - p|²` for the
/// point `q` of [`closest_point_tetrahedron`] (0 inside). NaN for invalid input.
///
/// ```
/// use widephase::closest::sq_dist_point_tetrahedron;
/// use widephase::{Tetrahedron, Vec3};
/// let tet = Tetrahedron { v: [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z] };
/// assert_eq!(sq_dist_point_tetrahedron(Vec3::new(-2.0, 0.0, 0.0), &tet), 4.0);
/// assert_eq!(sq_dist_point_tetrahedron(Vec3::new(0.0, 0.0, 1.0), &tet), 0.0); // vertex
/// ```
pub fn sq_dist_point_tetrahedron(p: Vec3, tet: &Tetrahedron) -> f32 {
    (closest_point_tetrahedron(p, tet) - p).length_squared()
}
