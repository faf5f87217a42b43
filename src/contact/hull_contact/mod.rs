//! Contact manifolds of a placed [`ConvexHull`] (A) against spheres,
//! capsules, boxes, one-sided triangles and other hulls (B), with the [module conventions](super):
//! normal from A to B, points on B, `depth >= -margin`, at most
//! [`MAX_CONTACTS`](super::MAX_CONTACTS) points, feature ids that depend only on features.
//!
//! Sources: Dirk Gregorius, "The Separating Axis Test between Convex
//! Polyhedra" (GDC 2013: face queries by support points, edge queries only
//! for edge pairs whose Gauss-map arcs cross, i.e. that build a face of the
//! Minkowski difference), Box2D `b2ClipPolygons` and Jolt
//! `ManifoldBetweenTwoFaces` (reference face, most anti-parallel incident
//! face, Sutherland–Hodgman clipping to the reference side planes), Jolt
//! `PruneContactPoints` (reduction to 4 points).
//!
//! # Hull–polytope (hull and box)
//! Everything runs in A's local frame (B's pose relative to A is formed
//! once, a face plane is moved into the other shape's frame instead of
//! moving every vertex). The box is a polytope with the unit cube's
//! topology and analytic support, and a triangle a flat polytope (front
//! and back face, each edge's Gauss arc split at its outward in-plane
//! normal, see [`hull_triangle`]), so hull–box, hull–triangle and
//! hull–hull share one code path (the private `Polytope` trait).
//! 1. *Face queries*: for each face of A the separation of B's support
//!    point along `-n`, and the same for B's faces; the largest is the best
//!    face axis. If it exceeds the margin the pair has no contact.
//! 2. *Edge queries*: edge pairs whose Gauss-map arcs cross (Gregorius's
//!    `IsMinkowskiFace`), axis `e_A × e_B` oriented away from A's centroid,
//!    separation `L·(p_B - p_A)`. Edges are first culled by bounding
//!    spheres: if an edge pair's axis wins with penetration `d`, its witness
//!    points are within `d` of each other (for a penetrating pair the
//!    origin's foot on the nearest face of the Minkowski difference lies in
//!    that face), so an edge of A farther than `reach = max(d_face,
//!    margin)` from B's bounding sphere, or entirely more than `reach`
//!    above B's best face plane, cannot give the answer, and likewise for
//!    B (for resting contacts the second test leaves a thin slab of edges);
//!    an edge pair whose bounding spheres are more than `reach` apart is
//!    skipped before the Gauss-map test. When the pair penetrates deeper
//!    than the margin, an edge whose two face planes both lie more than
//!    `reach` (plus a tolerance) above a point of the other shape (its
//!    centroid, or its vertex farthest towards this shape's centroid) is
//!    culled too: every axis of that edge separates the shapes by less than
//!    the best face axis (the cone test, `sat::near_edges`). Against a
//!    box the edge queries take their own path (`box_edges`): the box's
//!    edges along one axis tile a great circle of its Gauss map, so each
//!    edge of A is tested against the three axes by sign alone, in lanes,
//!    with no culls.
//! 3. *Axis choice* as [`box_box`](fn@super::box_box): an edge axis must
//!    beat the best face separation by [`OBB_EDGE_AXIS_BIAS`](crate::overlap::OBB_EDGE_AXIS_BIAS)`·|sep|` plus
//!    [`FACE_AXIS_ABS_TOL`](super::box_box::FACE_AXIS_ABS_TOL)` · (r_A + r_B)` (bounding radii), and a face of
//!    B must beat the best face of A by the same allowance, so resting
//!    contacts keep one reference face instead of flipping.
//! 4. *Face axis*: the incident face is, among the other shape's faces at
//!    its support vertex along the reference normal, the most anti-parallel
//!    one (so the deepest vertex is on it); its polygon is clipped to the
//!    reference face's side planes (Sutherland–Hodgman), points with
//!    `depth >= -margin` are kept and reduced to 4 (deepest, farthest from
//!    it, then the largest triangle on each side, Jolt's rule).
//!    *Edge axis*: one point, the closest points of the two edges.
//! 5. *Speculative manifolds* (the best separation is `> 0`): the SAT
//!    separation is a lower bound of the distance. If the deepest kept point
//!    is shallower than the SAT depth (clipping dropped the support vertex),
//!    the clip left nothing, or the edge–edge closest points are clamped to
//!    an edge end, the manifold is replaced by the exact closest pair of the
//!    two polytopes (vertex–face and edge–edge, brute force), or dropped
//!    when that is beyond the margin. So a speculative depth is never more
//!    negative than minus the distance.
//!
//! # Sphere and capsule
//! The closest points of the sphere centre (capsule segment) and the hull:
//! outside, by brute force over faces (projection inside the polygon) and
//! edges (segment closest points); inside, by the nearest face plane
//! (sphere) or a SAT over the face normals and the `segment × edge` axes
//! whose Gauss arcs the segment's great circle crosses (capsule). A capsule
//! whose axis is within [`CAPSULE_FACE_PARALLEL`] of a face's plane gets
//! the two ends of its axis clipped to that face (two points), as
//! [`capsule_box`](fn@super::capsule_box) does. A face axis otherwise gives
//! one point: the axis clipped to the face's side planes, its deeper clipped
//! point `x` at height `h` over the face, point `x - r·n`, depth `r - h`, so
//! `point + depth·n` is `x`'s foot on the face. When `x` is interior to the
//! axis (the deeper end hangs past a side plane), `x - r·n` lies inside the
//! capsule by up to `r·(1 - cos φ)` for an axis tilted by `φ` from the face,
//! the slack [`capsule_box`](fn@super::capsule_box) and
//! [`capsule_triangle`](fn@super::capsule_triangle) state for their points on
//! the capsule.
//!
//! # Feature ids
//! `tag · 65536 + local`, every value below `2^24`:
//! - face axis: `tag` = reference face (A's `f`, or `128 + g` for B's face
//!   `g`); `local` = incident vertex `v` (`< 64`), `64 + 64·e + s` for
//!   incident edge `e` crossing reference side `s`, `12288 + k` for
//!   reference corner `k`;
//! - edge axis: `tag = 252`, `local = 192·e_A + e_B`;
//! - exact closest pair (speculative replacement): `tag = 253`,
//!   `local = 64·f_A + v_B`, `8192 + 64·f_B + v_A`, `16384 + 192·e_A + e_B`;
//! - sphere: `tag = 254`, `local` = face `f`, `128 + e` (edge);
//! - capsule: `tag = 255`, `local = 4·feature + end` where `feature` is a
//!   face `f`, `128 + e` an edge, and `end` the capsule end (0, 1) or 2
//!   for an interior point of the axis.
//!
//! Box B uses the unit cube hull's face, vertex and edge indices.
//!
//! # Invalid input
//! NaN or infinite poses, shapes or margin give no contact (`count == 0`).

// `!(x <= y)` is meant: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::hull::ConvexHull;
use super::Manifold;
use crate::math::Vec3;
use crate::shapes::{Capsule, Obb, Sphere, Triangle};
use rayon::prelude::*;

/// A capsule axis with `|axis · n| <= CAPSULE_FACE_PARALLEL` (unit
/// vectors) is parallel to a face of normal `n` and gets two points. At
/// this slope an end point moved by the radius along `-n` is within
/// `r·CAPSULE_FACE_PARALLEL²/2` of the capsule's surface.
pub const CAPSULE_FACE_PARALLEL: f32 = 1.0 / 128.0;

/// A [`ConvexHull`] placed in the world: `center + Σ local_i · axes[i]`
/// (`axes` orthonormal, like [`Obb`]).
#[derive(Clone, Copy, Debug)]
pub struct PlacedHull<'a> {
    /// The shape in its local frame.
    pub hull: &'a ConvexHull,
    /// World position of the local origin.
    pub center: Vec3,
    /// World directions of the local axes (orthonormal columns of the rotation).
    pub axes: [Vec3; 3],
}

impl<'a> PlacedHull<'a> {
    /// `hull` at `center`, rotated by the orthonormal `axes`.
    pub fn new(hull: &'a ConvexHull, center: Vec3, axes: [Vec3; 3]) -> Self {
        PlacedHull { hull, center, axes }
    }

    /// A world point from a local one.
    #[inline]
    pub fn to_world(&self, p: Vec3) -> Vec3 {
        self.center + self.axes[0] * p.x + self.axes[1] * p.y + self.axes[2] * p.z
    }

    #[inline]
    fn dir_to_world(&self, d: Vec3) -> Vec3 {
        self.axes[0] * d.x + self.axes[1] * d.y + self.axes[2] * d.z
    }

    #[inline]
    fn local_point(&self, p: Vec3) -> Vec3 {
        let t = p - self.center;
        Vec3::new(t.dot(self.axes[0]), t.dot(self.axes[1]), t.dot(self.axes[2]))
    }

    fn valid(&self) -> bool {
        self.center.is_finite() && self.axes.iter().all(|a| a.is_finite())
    }
}

/// The B side of a hull pair in [`hull_contacts`].
#[derive(Clone, Copy, Debug)]
pub enum HullPartner<'a> {
    /// A sphere.
    Sphere(Sphere),
    /// A capsule.
    Capsule(Capsule),
    /// An oriented box.
    Box(Obb),
    /// Another hull.
    Hull(PlacedHull<'a>),
    /// A one-sided triangle.
    Triangle(Triangle),
}

/// Manifolds of the pairs `(hulls[i], others[j])` for `(i, j)` in `pairs`,
/// in pair order, A = the hull (see the [module docs](self)). Runs on the
/// rayon pool; each manifold depends only on its pair, so the result is
/// the same for any thread count and pair order. Indices out of range give
/// an empty manifold.
pub fn hull_contacts(
    hulls: &[PlacedHull],
    others: &[HullPartner],
    pairs: &[(u32, u32)],
    margin: f32,
) -> Vec<Manifold> {
    pairs
        .par_iter()
        .with_min_len(64)
        .map(|&(i, j)| match (hulls.get(i as usize), others.get(j as usize)) {
            (Some(a), Some(b)) => hull_partner(a, b, margin),
            _ => Manifold::EMPTY,
        })
        .collect()
}

/// One pair of [`hull_contacts`].
pub fn hull_partner(a: &PlacedHull, b: &HullPartner, margin: f32) -> Manifold {
    match b {
        HullPartner::Sphere(s) => hull_sphere(a, s, margin),
        HullPartner::Capsule(c) => hull_capsule(a, c, margin),
        HullPartner::Box(o) => hull_box(a, o, margin),
        HullPartner::Hull(h) => hull_hull(a, h, margin),
        HullPartner::Triangle(t) => hull_triangle(a, t, margin),
    }
}

mod assembly;
mod box_edges;
mod clip;
mod polytope;
mod round;
mod sat;

use crate::simd::{self, Simd, SimdFn};
use polytope::{BoxPolytope, Polytope, Relative, TrianglePolytope};
pub use round::{hull_capsule, hull_sphere};
use sat::hull_polytope;

/// [`hull_polytope`] on the dispatched path ([`crate::simd`]): its support
/// and edge-pair loops run on the path's eight-lane type with the path's
/// instructions (a plain x86-64 build otherwise emulates `f32x8` by halves).
fn polytope_pair<B: Polytope>(a: &PlacedHull, b: &B, rel: Relative, margin: f32) -> Manifold {
    struct Pair<'r, 'h, B> {
        a: &'r PlacedHull<'h>,
        b: &'r B,
        rel: Relative,
        margin: f32,
    }
    impl<B: Polytope> SimdFn for Pair<'_, '_, B> {
        type Out = Manifold;
        #[inline(always)]
        fn call<S: Simd>(self) -> Manifold {
            hull_polytope::<S::F8, B>(self.a, self.b, self.rel, self.margin)
        }
    }
    simd::dispatch(simd::current(), Pair { a, b, rel, margin })
}

/// Contact manifold of hulls `a` and `b` (see the [module docs](self)).
pub fn hull_hull(a: &PlacedHull, b: &PlacedHull, margin: f32) -> Manifold {
    if !(a.valid() && b.valid() && margin.is_finite() && margin >= 0.0) {
        return Manifold::EMPTY;
    }
    let rel = Relative::new(a, b.center, &b.axes);
    polytope_pair(a, b.hull, rel, margin)
}

/// Contact manifold of hull `a` and box `b` (the box as a polytope with the
/// unit cube's topology; see the [module docs](self)).
pub fn hull_box(a: &PlacedHull, b: &Obb, margin: f32) -> Manifold {
    let ok = a.valid()
        && b.center.is_finite()
        && b.axes.iter().all(|x| x.is_finite())
        && b.half.is_finite()
        && b.half.min_element() >= 0.0
        && margin.is_finite()
        && margin >= 0.0;
    if !ok {
        return Manifold::EMPTY;
    }
    let rel = Relative::new(a, b.center, &b.axes);
    polytope_pair(a, &BoxPolytope::new(b.half), rel, margin)
}

/// Contact manifold of hull `a` and the one-sided triangle `b` (front: the
/// side of `(b - a) × (c - a)`), with the hull–polytope SAT of the
/// [module docs](self): the triangle is a flat polytope
/// (`TrianglePolytope`) whose front face is its only face axis and the
/// preferred reference on near ties (a hull a face's bias above the
/// triangle keeps the triangle's normal, as
/// [`box_triangle`](fn@super::box_triangle)); the same margin, reach and
/// speculative closest-pair rules as [`hull_box`].
///
/// The rules of [`box_triangle`](fn@super::box_triangle): no contact when
/// the hull's centroid is behind the triangle's plane; a degenerate
/// (zero-area) triangle is tested two-sided as the segment (or point) it is,
/// through [`hull_capsule`] with radius 0 on its longest edge (capsule
/// feature ids, tag 255).
pub fn hull_triangle(a: &PlacedHull, b: &Triangle, margin: f32) -> Manifold {
    let ok = a.valid()
        && b.a.is_finite()
        && b.b.is_finite()
        && b.c.is_finite()
        && margin.is_finite()
        && margin >= 0.0;
    if !ok {
        return Manifold::EMPTY;
    }
    // the triangle in A's frame, once: B's transform is then the identity
    let v = [a.local_point(b.a), a.local_point(b.b), a.local_point(b.c)];
    let Some(tri) = TrianglePolytope::new(v) else {
        let (p, q) =
            [(b.a, b.b), (b.b, b.c), (b.c, b.a)].into_iter().fold((b.a, b.a), |best, e| {
                if (e.1 - e.0).length_squared() > (best.1 - best.0).length_squared() {
                    e
                } else {
                    best
                }
            });
        return hull_capsule(a, &Capsule { a: p, b: q, radius: 0.0 }, margin);
    };
    // one-sided: the hull's centroid must not be behind the plane
    if tri.n.dot(a.hull.centroid() - v[0]) < 0.0 {
        return Manifold::EMPTY;
    }
    polytope_pair(a, &tri, Relative::IDENTITY, margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{hull_box_pairs, hull_pairs};
    use wide::{f32x16, f32x4, f32x8};

    fn bits(m: &Manifold) -> Vec<u32> {
        let mut v = vec![m.normal.x, m.normal.y, m.normal.z, m.count];
        for p in &m.points {
            v.extend([p.position.x, p.position.y, p.position.z, p.depth, p.feature_id]);
        }
        v.into_iter().map(f32::to_bits).collect()
    }

    /// Lane `i` of `support_lanes` and `plane_lanes` equals the scalar
    /// `support` value of its direction (a zero maximum up to its sign) and
    /// the face's plane bit for bit, at every width, for hulls, boxes and
    /// triangles (the face queries' decisions rest on it).
    #[test]
    fn lane_queries_equal_the_scalar_ones() {
        use crate::math::V3;
        use crate::workload::{random_hull, SplitMix};
        use crate::Lane;
        fn check<B: Polytope, L: Lane>(b: &B, dirs: &[Vec3]) {
            for chunk in dirs.chunks(L::WIDTH) {
                let mut rows = [[0.0f32; 16]; 3];
                for (i, d) in chunk.iter().enumerate() {
                    (rows[0][i], rows[1][i], rows[2][i]) = (d.x, d.y, d.z);
                }
                let dir = V3::new(L::load(&rows[0]), L::load(&rows[1]), L::load(&rows[2]));
                let s = b.support_lanes::<L>(dir);
                for (i, d) in chunk.iter().enumerate() {
                    assert_eq!(s.lane(i), b.support(*d).1, "{d:?}");
                }
            }
            for f0 in (0..b.face_count()).step_by(L::WIDTH) {
                let (n, offset) = b.plane_lanes::<L>(f0);
                for i in 0..L::WIDTH.min(b.face_count() - f0) {
                    let want = b.normal(f0 + i);
                    assert_eq!([n.x.lane(i), n.y.lane(i), n.z.lane(i)], [want.x, want.y, want.z]);
                    assert_eq!(offset.lane(i).to_bits(), b.offset(f0 + i).to_bits());
                }
            }
        }
        fn all<B: Polytope>(b: &B, dirs: &[Vec3]) {
            check::<B, f32>(b, dirs);
            check::<B, f32x4>(b, dirs);
            check::<B, f32x8>(b, dirs);
            check::<B, f32x16>(b, dirs);
        }
        let mut r = SplitMix(11);
        // random directions, and axis and diagonal ones (support ties)
        let mut dirs: Vec<Vec3> = (0..61).map(|_| r.p(-1.0, 1.0)).collect();
        dirs.extend([Vec3::X, -Vec3::Y, Vec3::Z, Vec3::new(1.0, 1.0, 0.0), Vec3::ZERO]);
        for k in [4, 9, 17, 40] {
            all(&random_hull(&mut r, k), &dirs);
        }
        all(&BoxPolytope::new(Vec3::new(0.3, 1.0, 2.5)), &dirs);
        let tri = TrianglePolytope::new([r.p(-1.0, 1.0), r.p(-1.0, 1.0), r.p(-1.0, 1.0)]);
        all(&tri.expect("a random triangle has an area"), &dirs);
    }

    /// The speculative exact closest pair at every lane width (scalar `f32`,
    /// 4, 8 and 16 lanes) gives the same manifolds, bit for bit: its lane
    /// scans only preselect what the in-order scalar re-test decides.
    #[test]
    fn closest_pair_is_identical_at_every_width() {
        use crate::workload::resting_hull_pairs;
        use sat::{closest_pair_lanes, Posed};
        let (hulls, pairs) = resting_hull_pairs(1500, 32, 40, 9);
        let mut found = 0;
        for (k, &(i, p, j, q)) in pairs.iter().enumerate() {
            let a = PlacedHull::new(&hulls[i], p.center, p.axes);
            let pb = Posed { poly: &hulls[j], rel: Relative::new(&a, q.center, &q.axes) };
            let m = 0.05;
            let want = bits(&closest_pair_lanes::<f32, _>(&a, a.hull, &pb, m));
            assert_eq!(bits(&closest_pair_lanes::<f32x4, _>(&a, a.hull, &pb, m)), want, "{k} x4");
            assert_eq!(bits(&closest_pair_lanes::<f32x8, _>(&a, a.hull, &pb, m)), want, "{k} x8");
            assert_eq!(bits(&closest_pair_lanes::<f32x16, _>(&a, a.hull, &pb, m)), want, "{k} x16");
            found += (want[3] != 0) as usize;
        }
        assert!(found > 300, "only {found} closest pairs within the margin");
    }

    /// The cone test of the edge queries culls edges without changing any
    /// answer: hull–hull and hull–triangle manifolds (deep and resting
    /// pairs, margins 0, 0.02 and 0.05, at 8 and 16 lanes) equal those
    /// computed without it, bit for bit, and it culls edges. (Hull–box
    /// edge queries have their own path, `box_edges`, with no culls.)
    #[test]
    fn cone_cull_keeps_every_answer() {
        use crate::workload::resting_hull_pairs;
        use sat::cone_test_hooks::{CULLED, OFF};
        fn both<B: Polytope>(a: &PlacedHull, b: &B, rel: Relative, what: &str) {
            for m in [0.0, 0.02, 0.05] {
                OFF.with(|c| c.set(true));
                let want = bits(&hull_polytope::<f32x8, B>(a, b, rel, m));
                OFF.with(|c| c.set(false));
                assert_eq!(bits(&hull_polytope::<f32x8, B>(a, b, rel, m)), want, "{what} x8 m {m}");
                assert_eq!(
                    bits(&hull_polytope::<f32x16, B>(a, b, rel, m)),
                    want,
                    "{what} x16 m {m}"
                );
            }
        }
        let deep = hull_pairs(1500, 32, 40, 21);
        let resting = resting_hull_pairs(1500, 32, 40, 22);
        for (hulls, pairs) in [&deep, &resting] {
            for (k, &(i, p, j, q)) in pairs.iter().enumerate() {
                let a = PlacedHull::new(&hulls[i], p.center, p.axes);
                both(&a, &hulls[j], Relative::new(&a, q.center, &q.axes), &format!("hull {k}"));
            }
        }
        let (bh, a_list, boxes) = hull_box_pairs(1500, 32, 40, 23);
        for (k, (&(i, p), b)) in a_list.iter().zip(&boxes).enumerate() {
            let a = PlacedHull::new(&bh[i], p.center, p.axes);
            let rel = Relative::new(&a, b.center, &b.axes);
            // a triangle through the box's centre, in A's frame
            let c = rel.t;
            let tri = [
                c + rel.cols[0] * b.half.x,
                c + rel.cols[1] * b.half.y,
                c - rel.cols[2] * b.half.z,
            ];
            for t in [tri, [tri[0], tri[2], tri[1]]] {
                if let Some(t) = TrianglePolytope::new(t) {
                    both(&a, &t, Relative::IDENTITY, &format!("triangle {k}"));
                }
            }
        }
        let culled = CULLED.with(|c| c.get());
        assert!(culled > 10_000, "the cone test culled only {culled} edges");
    }

    /// The hull SAT at every lane width (scalar `f32`, 4, 8 and 16 lanes)
    /// gives the same manifolds, bit for bit, for hull–hull and hull–box.
    #[test]
    fn hull_polytope_is_identical_at_every_width() {
        fn all<B: Polytope>(a: &PlacedHull, b: &B, rel: Relative, k: usize) {
            let m = 0.05;
            let want = bits(&hull_polytope::<f32, B>(a, b, rel, m));
            assert_eq!(bits(&hull_polytope::<f32x4, B>(a, b, rel, m)), want, "pair {k} x4");
            assert_eq!(bits(&hull_polytope::<f32x8, B>(a, b, rel, m)), want, "pair {k} x8");
            assert_eq!(bits(&hull_polytope::<f32x16, B>(a, b, rel, m)), want, "pair {k} x16");
        }
        let (hulls, pairs) = hull_pairs(1500, 32, 40, 5);
        let mut hits = 0;
        for (k, &(i, p, j, q)) in pairs.iter().enumerate() {
            let a = PlacedHull::new(&hulls[i], p.center, p.axes);
            let rel = Relative::new(&a, q.center, &q.axes);
            all(&a, &hulls[j], rel, k);
            hits += (hull_polytope::<f32, _>(&a, &hulls[j], rel, 0.05).count > 0.0) as usize;
        }
        let (bh, a_list, boxes) = hull_box_pairs(1500, 32, 40, 7);
        for (k, (&(i, p), b)) in a_list.iter().zip(&boxes).enumerate() {
            let a = PlacedHull::new(&bh[i], p.center, p.axes);
            all(&a, &BoxPolytope::new(b.half), Relative::new(&a, b.center, &b.axes), k);
        }
        assert!(hits > 300, "only {hits} hull pairs in contact");
    }
}
