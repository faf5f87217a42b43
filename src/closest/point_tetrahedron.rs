//! Point–tetrahedron closest point (Ericson §5.1.6; seed `000` §5.1.6).

use super::point_triangle::closest_point_triangle;
use super::{finite, NAN3};
use crate::math::Vec3;
use crate::shapes::{Tetrahedron, Triangle};

/// The point of the closed (solid) tetrahedron `tet` nearest to `p`; `p` itself
/// when `p` is inside or on the boundary.
///
/// Any vertex order is accepted (Ericson's second `PointOutsideOfPlane`, which
/// compares the side of `p` with the side of the opposite vertex, so the
/// winding need not be known):
///
/// ```text
/// for each face (i, j, k) with opposite vertex l:
///     sp = [p - v_i, v_j - v_i, v_k - v_i],  sl = [v_l - v_i, v_j - v_i, v_k - v_i]
///     outside |= sp and sl have strictly opposite signs
/// if the volume sl is 0 (flat tetrahedron): nearest of the four face triangles
/// else if !outside: p
/// else: nearest of the four face triangles' closest points
/// ```
///
/// The seed's version tests only faces `p` is outside of and, for a flat
/// tetrahedron (all `sl = 0`), returns `p` for every query: a flat tetrahedron
/// is the planar hull of its vertices, which equals the union of its four
/// face triangles, so the nearest face point is then the answer. Ties go to
/// the first face in the order `abc, acd, adb, bdc`. NaN for non-finite input.
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
    let [a, b, c, d] = tet.v;
    let faces = [(a, b, c, d), (a, c, d, b), (a, d, b, c), (b, d, c, a)];
    let mut outside = false;
    let mut flat = false;
    let mut best = p;
    let mut best_sq = f32::INFINITY;
    for (i, j, k, l) in faces {
        let n = (j - i).cross(k - i);
        let sp = (p - i).dot(n);
        let sl = (l - i).dot(n);
        flat |= sl == 0.0;
        outside |= (sp > 0.0 && sl < 0.0) || (sp < 0.0 && sl > 0.0);
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
