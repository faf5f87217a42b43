//! Capsule–triangle contact, up to two points, **one-sided** like
//! [`sphere_triangle`](super::sphere_triangle) (front = the side of
//! `(b - a) × (c - a)`).

use super::util::{
    capsule_ok, closest_segments, fallback, from_first_vertex, manifold2, margin_ok, unit_or,
};
use super::{ContactPoint, Manifold};
use crate::closest::{closest_point_triangle, TriangleRegion};
use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::shapes::{Capsule, Triangle};

/// Closest points of a segment and a triangle, per lane: `s` on the segment,
/// `point1` on the segment, `point2` on the triangle, its squared distance and
/// the triangle feature (a [`TriangleRegion`] code) `point2` lies on.
struct SegTri<L: Lane> {
    s: L,
    point1: V3<L>,
    point2: V3<L>,
    sq: L,
    region: L,
}

/// Triangle feature of a point at parameter `t` of edge `(from, to)`.
#[inline(always)]
fn edge_feature<L: Lane>(
    t: L,
    from: TriangleRegion,
    to: TriangleRegion,
    edge: TriangleRegion,
) -> L {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    L::select(
        t.eq(zero),
        L::splat(from.code()),
        L::select(t.eq(one), L::splat(to.code()), L::splat(edge.code())),
    )
}

/// The lane-generic form of [`crate::closest::closest_points_segment_triangle`]
/// (Ericson §5.1.10): the least of the segment against the three edges, the
/// two end points against the triangle and, when the segment crosses the
/// plane, the crossing point against the triangle; ties keep the earlier
/// candidate in that order. `h0`, `h1` are the signed heights of the ends
/// (`N·(end - a)`); the two end-point queries are returned too.
#[inline(always)]
fn closest_seg_tri<L: Lane>(
    p0: V3<L>,
    p1: V3<L>,
    t: &Triangle<L>,
    h0: L,
    h1: L,
) -> (SegTri<L>, [crate::closest::TriangleClosest<L>; 2]) {
    use TriangleRegion as R;
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let e_ab = closest_segments(p0, p1, t.a, t.b);
    let mut best = SegTri {
        s: e_ab.s,
        point1: e_ab.point1,
        point2: e_ab.point2,
        sq: (e_ab.point2 - e_ab.point1).length_squared(),
        region: edge_feature(e_ab.t, R::A, R::B, R::AB),
    };
    // A nested fn, not a closure: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    #[inline(always)]
    fn consider<L: Lane>(best: &mut SegTri<L>, s: L, point1: V3<L>, point2: V3<L>, region: L) {
        let sq = (point2 - point1).length_squared();
        let better = sq.lt(best.sq);
        *best = SegTri {
            s: L::select(better, s, best.s),
            point1: V3::select(better, point1, best.point1),
            point2: V3::select(better, point2, best.point2),
            sq: L::select(better, sq, best.sq),
            region: L::select(better, region, best.region),
        };
    }
    let e_bc = closest_segments(p0, p1, t.b, t.c);
    consider(&mut best, e_bc.s, e_bc.point1, e_bc.point2, edge_feature(e_bc.t, R::B, R::C, R::BC));
    let e_ca = closest_segments(p0, p1, t.c, t.a);
    consider(&mut best, e_ca.s, e_ca.point1, e_ca.point2, edge_feature(e_ca.t, R::C, R::A, R::CA));
    let c0 = closest_point_triangle(p0, t);
    consider(&mut best, zero, p0, c0.point, c0.region);
    let c1 = closest_point_triangle(p1, t);
    consider(&mut best, one, p1, c1.point, c1.region);
    // if (h0 and h1 have opposite signs) the segment crosses the plane at s = h0/(h0-h1)
    let crosses = (h0.lt(zero) & h1.gt(zero)) | (h0.gt(zero) & h1.lt(zero));
    let s = L::select(crosses, h0 / (h0 - h1), zero);
    let x = p0 + (p1 - p0) * s;
    let cx = closest_point_triangle(x, t);
    let sq = (cx.point - x).length_squared();
    let take = crosses & sq.lt(best.sq);
    best = SegTri {
        s: L::select(take, s, best.s),
        point1: V3::select(take, x, best.point1),
        point2: V3::select(take, cx.point, best.point2),
        sq: L::select(take, sq, best.sq),
        region: L::select(take, cx.region, best.region),
    };
    (best, [c0, c1])
}

/// For an axis `p0 → p1` through the triangle: the parameter and height
/// (`N·(x - t.a)`, linear in the parameter) of the deepest point of the axis
/// clipped to the triangle's prism (the three side half-spaces `(N × (v -
/// u))·(x - u) >= 0` of its edges `u → v`), and the lanes where that clip is
/// not empty. The deepest point is an end of the clipped interval. Why the
/// clip: the deeper end of the whole axis may hang outside the triangle,
/// where nothing of the triangle is under it (the point reported at the
/// crossing with that end's depth was off the capsule; simd-notes,
/// "Capsule–triangle with the axis through the triangle").
#[inline(always)]
fn deepest_in_prism<L: Lane>(
    p0: V3<L>,
    p1: V3<L>,
    t: &Triangle<L>,
    nf: V3<L>,
    (h0, h1): (L, L),
) -> (L, L, L::Mask) {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let (mut lo, mut hi) = (zero, one);
    let mut empty = L::Mask::splat(false);
    for (u, v) in [(t.a, t.b), (t.b, t.c), (t.c, t.a)] {
        let m = nf.cross(v - u);
        let (s0, s1) = (m.dot(p0 - u), m.dot(p1 - u));
        // s(x) = s0 + (s1 - s0)·param: inside where >= 0
        let cut = s0 / (s0 - s1);
        lo = L::select(s0.lt(zero) & s1.ge(zero), lo.max(cut), lo);
        hi = L::select(s1.lt(zero) & s0.ge(zero), hi.min(cut), hi);
        empty = empty | (s0.lt(zero) & s1.lt(zero));
    }
    // (the ends' own heights where the clip keeps them: exact)
    let h_lo = L::select(lo.eq(zero), h0, h0 + (h1 - h0) * lo);
    let h_hi = L::select(hi.eq(one), h1, h0 + (h1 - h0) * hi);
    let low_first = h_lo.le(h_hi);
    let param = L::select(low_first, lo, hi);
    let height = L::select(low_first, h_lo, h_hi);
    (param, height, !empty & lo.le(hi))
}

/// Contact of capsule `a` and triangle `b` with speculative `margin` (see the
/// [module conventions](super)). **Lane-generic, one-sided.**
///
/// ```text
/// N = unit((b.b - b.a) × (b.c - b.a));  h_i = N·(end_i - b.a) for the axis ends
/// two points ("lying on the face"): a non-zero-length axis whose ends both
///   project into the face region, h_0, h_1 >= 0 and r - h_i >= -margin:
///   n = -N, point i = end_i - N·h_i, depth_i = r - h_i, feature ids 14 and
///   22 (face × end 0, face × end 1); the matching point on A, end_i - r·N,
///   is on end i's cap, inside A by at most r·(1 - cos φ) for an axis tilted
///   by φ from the face
/// otherwise one point from the closest points p (axis) and q (triangle),
///   formed relative to b.a (exact offsets far from the origin):
///   face region or touching: n = -N, depth = r - N·(p - b.a), point = q
///     (axis through the triangle: the axis clipped to the triangle's prism,
///     x its deepest point, at height h_x: point = x - N·h_x, depth = r - h_x,
///     point + depth·n is inside A by at most r·(1 - cos φ), as for two
///     points, and on A's cap when x is an end of the axis)
///   edge / vertex region:    n = (q - p)/|q - p|, depth = r - |q - p|, point = q
///   feature id = region(q) + 8·(0 axis interior, 1 end 0, 2 end 1) of p
///     (an axis through the triangle: the face's region, the feature of x)
/// one-sided: no contact when the closest axis point is behind the plane
///   (h(p) < 0), or, for an axis through the triangle, both ends are behind
/// ```
///
/// A degenerate triangle has no front and is tested two-sided (one point,
/// fallback normal `+Y` when the axis touches it); a zero-length capsule is a
/// sphere (one point: `sphere_triangle`'s normal, depth and point, feature id
/// `region + 8`).
///
/// ```
/// use widephase::contact::capsule_triangle;
/// use widephase::{Capsule, Triangle, Vec3};
/// let ground = Triangle::new(Vec3::new(-4.0, 0.0, -4.0), Vec3::new(0.0, 0.0, 4.0), Vec3::new(4.0, 0.0, -4.0));
/// // lying flat, 0.1 deep: two points
/// let cap = Capsule::new(Vec3::new(-1.0, 0.4, 0.0), Vec3::new(1.0, 0.4, 0.0), 0.5);
/// let m = capsule_triangle(&cap, &ground, 0.0);
/// assert_eq!((m.count, m.normal), (2.0, -Vec3::Y));
/// assert_eq!(m.points[1].position, Vec3::new(1.0, 0.0, 0.0));
/// ```
#[inline(always)]
pub fn capsule_triangle<L: Lane>(a: &Capsule<L>, b: &Triangle<L>, margin: L) -> Manifold<L> {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let r = a.radius;
    let valid = capsule_ok(a) & b.is_valid() & margin_ok(margin);
    let (nf, area2) = unit_or((b.b - b.a).cross(b.c - b.a), fallback());
    let proper = area2.gt(zero);
    let h0 = nf.dot(a.a - b.a);
    let h1 = nf.dot(a.b - b.a);
    // (closest points and the edge normal in the frame of `b.a`: exact
    // offsets far from the origin, see `from_first_vertex`)
    let (cp, ends) = closest_seg_tri(a.a - b.a, a.b - b.a, &from_first_vertex(b), h0, h1);
    let (nv, dist) = unit_or(cp.point2 - cp.point1, fallback());
    let touching = dist.eq(zero);
    let face_code = L::splat(TriangleRegion::Face.code());
    let use_face = proper & (cp.region.eq(face_code) | touching);
    let hp = nf.dot(cp.point1);
    let gap = L::select(touching, h0.min(h1), L::select(use_face, hp, dist));
    let n = V3::select(use_face, -nf, nv);
    let depth = r - gap;
    let front = !proper | L::select(touching, h0.max(h1), hp).ge(zero);
    let hit = valid & front & depth.ge(-margin);
    if hit.none() {
        return Manifold::empty();
    }
    // an axis through the triangle: the deepest point of the axis clipped to
    // the prism (a lane whose clip rounds to empty keeps the crossing point
    // and the deeper end's depth)
    let (mut point, mut depth, mut param, mut region) = (cp.point2 + b.a, depth, cp.s, cp.region);
    // (a zero-length capsule is a sphere: `sphere_triangle`'s point and id)
    let zero_length = a.a.x.eq(a.b.x) & a.a.y.eq(a.b.y) & a.a.z.eq(a.b.z);
    let through = proper & touching & hit & !zero_length;
    if through.any() {
        let (s, h, clipped) = deepest_in_prism(a.a, a.b, b, nf, (h0, h1));
        let x = V3::select(s.eq(one), a.b, a.a + (a.b - a.a) * s);
        let take = through & clipped;
        point = V3::select(take, x - nf * h, point);
        depth = L::select(take, r - h, depth);
        param = L::select(take, s, param);
        region = L::select(take, face_code, region);
    }
    let seg_feature = L::select(param.eq(zero), one, L::select(param.eq(one), L::splat(2.0), zero));
    let id = region + L::splat(8.0) * seg_feature;

    // Lying on the face: both ends over the face, in front, within the margin
    // (a zero-length capsule is a sphere: one point, not two at one place).
    let (d0, d1) = (r - h0, r - h1);
    let two = proper
        & !zero_length
        & ends[0].region.eq(face_code)
        & ends[1].region.eq(face_code)
        & h0.ge(zero)
        & h1.ge(zero)
        & d0.ge(-margin)
        & d1.ge(-margin);
    let n = V3::select(two, -nf, n);
    let p0 = ContactPoint {
        position: V3::select(two, a.a - nf * h0, point),
        depth: L::select(two, d0, depth),
        feature_id: L::select(two, L::splat(14.0), id),
    };
    let p1 = ContactPoint { position: a.b - nf * h1, depth: d1, feature_id: L::splat(22.0) };
    manifold2(hit, two, n, p0, p1)
}
