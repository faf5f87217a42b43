//! Point–convex polyhedron closest point, the polyhedron given by its planes
//! (Ericson §5.1.7; seed `000` §5.1.7).

use super::finite;
use crate::math::Vec3;
use crate::shapes::Plane;

/// Relative slack, in units of `u = 2^-24`, of the feasibility test of a
/// candidate point (see `simd-notes.md`, "point–polyhedron").
const FEASIBLE_SLACK_ULPS: f32 = 64.0;

/// The point of the convex polyhedron `{x : n_i·x <= d_i for every plane}`
/// (the half-space convention of [`Plane`]) nearest to `p`.
///
/// * **`p` inside or on the boundary** (`n_i·p <= d_i` for every plane, as
///   evaluated in `f32`): returns `Some(p)` — the query point itself, distance 0.
/// * **Outside**: the closest point `x*` lies in the relative interior of a
///   face (facet, edge or vertex) whose affine hull is cut out by one, two or
///   three of the planes, and `x*` is the projection of `p` on that
///   intersection. Every projection of `p` on one plane, on the line of two
///   planes and on the point of three planes is computed; those that satisfy
///   all the inequalities (with a slack of
///   `64u·(|n_i|₁·(|p|∞ + |x|∞ + |p - x|₁) + |d_i|)` for rounding) are points of
///   the polyhedron, and the nearest of them is `x*`. `O(m⁴)` for `m` planes:
///   meant for the small polyhedra of collision shapes (m ≲ 20).
/// * **`None`** when no candidate is feasible — the polyhedron is empty (up to
///   the slack) — or for non-finite input. Planes with a zero normal are
///   ignored when `d >= 0` (they hold everywhere); `d < 0` makes the set empty.
///   An empty slice is all of space: `Some(p)`.
///
/// Ties go to the earliest candidate (planes in slice order, singles before
/// pairs before triples).
///
/// ```
/// use widephase::closest::closest_point_convex_polyhedron;
/// use widephase::{Plane, Vec3};
/// // the unit cube as six half-spaces
/// let cube = [
///     Plane::new(Vec3::X, 1.0), Plane::new(-Vec3::X, 0.0),
///     Plane::new(Vec3::Y, 1.0), Plane::new(-Vec3::Y, 0.0),
///     Plane::new(Vec3::Z, 1.0), Plane::new(-Vec3::Z, 0.0),
/// ];
/// assert_eq!(closest_point_convex_polyhedron(Vec3::new(3.0, 0.5, 2.0), &cube), Some(Vec3::new(1.0, 0.5, 1.0)));
/// let inside = Vec3::new(0.5, 0.5, 0.5);
/// assert_eq!(closest_point_convex_polyhedron(inside, &cube), Some(inside));
/// ```
pub fn closest_point_convex_polyhedron(p: Vec3, planes: &[Plane]) -> Option<Vec3> {
    if !finite(p) || !planes.iter().all(|pl| finite(pl.normal) && pl.d.is_finite()) {
        return None;
    }
    if planes.iter().all(|pl| pl.normal.dot(p) <= pl.d) {
        return Some(p);
    }
    let feasible = |x: Vec3| {
        // x was computed from p by subtracting multiples of normals: its
        // rounding error scales with |p|, |x| and |p - x|, not with |x| alone
        let scale =
            p.abs().max_element() + x.abs().max_element() + (p - x).abs().dot(Vec3::splat(1.0));
        planes.iter().all(|pl| {
            let n1 = pl.normal.abs().dot(Vec3::splat(1.0));
            let slack = FEASIBLE_SLACK_ULPS * crate::UNIT_ROUNDOFF * (n1 * scale + pl.d.abs())
                + f32::MIN_POSITIVE;
            pl.normal.dot(x) - pl.d <= slack
        })
    };
    let mut best: Option<(f32, Vec3)> = None;
    let mut consider = |x: Vec3| {
        if !finite(x) || !feasible(x) {
            return;
        }
        let sq = (x - p).length_squared();
        if best.is_none_or(|(b, _)| sq < b) {
            best = Some((sq, x));
        }
    };
    let m = planes.len();
    let usable: Vec<usize> = (0..m).filter(|&i| planes[i].normal.length_squared() > 0.0).collect();
    for &i in &usable {
        consider(project_plane(p, &planes[i]));
    }
    for (k, &i) in usable.iter().enumerate() {
        for &j in &usable[k + 1..] {
            if let Some(x) = project_two_planes(p, &planes[i], &planes[j]) {
                consider(x);
            }
        }
    }
    for (k, &i) in usable.iter().enumerate() {
        for (l, &j) in usable.iter().enumerate().skip(k + 1) {
            for &h in &usable[l + 1..] {
                if let Some(x) = three_plane_point(&planes[i], &planes[j], &planes[h]) {
                    consider(x);
                }
            }
        }
    }
    best.map(|(_, x)| x)
}

/// `p - n·(n·p - d)/|n|²`: the foot of `p` on the plane.
fn project_plane(p: Vec3, pl: &Plane) -> Vec3 {
    let n = pl.normal;
    p - n * ((n.dot(p) - pl.d) / n.dot(n))
}

/// The foot of `p` on the line where two planes meet: `x = p - λ1·n1 - λ2·n2`
/// with the Gram system `[n1·n1 n1·n2; n1·n2 n2·n2] λ = [n1·p - d1; n2·p - d2]`
/// (Cramer). `None` for (nearly) parallel planes (determinant `<= 0`).
fn project_two_planes(p: Vec3, a: &Plane, b: &Plane) -> Option<Vec3> {
    let (n1, n2) = (a.normal, b.normal);
    let g11 = n1.dot(n1);
    let g12 = n1.dot(n2);
    let g22 = n2.dot(n2);
    let r1 = n1.dot(p) - a.d;
    let r2 = n2.dot(p) - b.d;
    let det = g11 * g22 - g12 * g12;
    if det.is_nan() || det <= 0.0 {
        return None;
    }
    let l1 = (r1 * g22 - r2 * g12) / det;
    let l2 = (g11 * r2 - g12 * r1) / det;
    Some(p - n1 * l1 - n2 * l2)
}

/// The point common to three planes: `(d1 (n2×n3) + d2 (n3×n1) + d3 (n1×n2)) /
/// (n1·(n2×n3))`. `None` when the determinant is 0.
fn three_plane_point(a: &Plane, b: &Plane, c: &Plane) -> Option<Vec3> {
    let u = b.normal.cross(c.normal);
    let det = a.normal.dot(u);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let x = u * a.d + c.normal.cross(a.normal) * b.d + a.normal.cross(b.normal) * c.d;
    Some(x / det)
}
