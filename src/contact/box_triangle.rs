//! Box–triangle ([`Obb`]–[`Triangle`]) contact manifolds: 13-axis SAT, then
//! face clipping (a face axis) or the closest points of two edges (an edge
//! axis). The triangle is **one-sided** like
//! [`sphere_triangle`](super::sphere_triangle) and
//! [`capsule_triangle`](super::capsule_triangle): its front is the side of
//! `N = (b - a) × (c - a)` (counter-clockwise seen from the front).
//!
//! Sources: the box–box pipeline of [`box_box`](fn@super::box_box) (ODE
//! `dBoxBox`, Box2D `b2CollidePolygons`: reference face, incident face
//! clipped to its side planes, Jolt's 4-point reduction), bepuphysics2
//! `BoxTriangleTester` (the triangle as a one-sided reference polygon; every
//! lane runs every step) and parry's `contact_manifolds` for cuboid–triangle
//! (the triangle as a flat convex polygon).
//!
//! # Axes and tie rule
//! 13 axes, as indices: `0` the triangle normal, `1..=3` the box axes
//! `A_0..A_2`, `4 + 3i + j` the cross product `A_i × e_j` of box axis `i`
//! and triangle edge `j` (`e_0 = b - a`, `e_1 = c - b`, `e_2 = a - c`). On
//! each axis the depth is the least translation of B along `±axis` that
//! separates the projections (the smaller of the two; `+` on ties), divided by
//! the axis length; on the triangle normal only `-N` is used (the box is in
//! front, see below). The chosen axis has the least depth, **favouring
//! faces**: a box axis must beat the triangle normal by more than
//! [`OBB_EDGE_AXIS_BIAS`]` · |depth| + 2·`[`FACE_AXIS_ABS_TOL`]` · max h`
//! (the lowest box axis on equal depths), and an edge axis the best face
//! axis by the same tolerance (as [`box_box`](fn@super::box_box), whose
//! absolute part keeps it from vanishing at exact touching), so a box
//! resting on a mesh keeps the triangle's exact normal instead of
//! flickering to a box axis or an edge axis rounded a few ulps differently. Cross products of (nearly) parallel
//! edges are skipped ([`is_noise_axis`]).
//!
//! # One-sided rule, degenerate triangles
//! No contact when the box centre is behind the triangle's plane
//! (`N·(centre - a) < 0`), the rule of the sphere and capsule testers (their
//! centre / closest axis point). A degenerate (zero-area) triangle has no
//! front and no normal axis: it is tested two-sided as the segment or point
//! it is (box axes and `A_i × edge` are the complete SAT axes for a segment).
//!
//! # Speculative margin
//! As in [`box_box`](fn@super::box_box): contact when the depth on the chosen
//! axis is `>= -margin` (the SAT gap is a lower bound of the distance, so no
//! pair within the margin is missed); clipped points deeper than `-margin`
//! are kept, and if clipping leaves none the incident shape's support point
//! is reported alone with the SAT depth. A speculative or touching manifold
//! whose deepest point is not a closest pair of the two shapes is then
//! replaced by the exact closest pair, or dropped beyond the margin
//! (`src/contact/closest_pair.rs`), so every point lies on both shapes and
//! the deepest depth is minus the distance.
//!
//! # Manifolds
//! - Triangle normal: reference = the triangle, incident = the box face most
//!   anti-parallel to `N`, clipped to the triangle's three edge side planes
//!   (candidates: incident vertices inside, incident-edge crossings, triangle
//!   vertices inside the incident face).
//! - Box axis: reference = that box face, incident = the triangle clipped to
//!   the face's side slabs (triangle vertices and edge crossings inside the
//!   slabs, box-face corners piercing the triangle).
//! - Edge axis: one point, the closest points of the box's support edge and
//!   the triangle's support edge (or its vertex, when the vertex opposite the
//!   edge is deeper).
//!
//! Then at most 4 points by [`box_box`](fn@super::box_box)'s reduction.
//!
//! # Feature ids
//! - Triangle reference: `32·inc_face + local`, `inc_face = 2·axis + [neg]`
//!   of the box, `local`: `0..4` box vertex `k` of the incident face, `4 + 3k
//!   + s` incident edge `k` crossing triangle side `s`, `16 + m` triangle
//!   vertex `m`, `20 + v` the fallback support vertex (`v` = sign bits) —
//!   ids `0..192`.
//! - Box reference: [`BOX_FACE_ID_BASE`]` + 32·face + local`, `local`: `0..3`
//!   triangle vertex, `3 + 4j + s` triangle edge `j` crossing face side `s`
//!   (`+u, -u, +v, -v`), `15 + m` face corner `m`, `19 + j` the fallback
//!   triangle vertex — ids `192..384`.
//! - Edge: [`EDGE_ID_BASE`]` + 6·box_edge + t`, `box_edge` as in box_box
//!   (`0..12`), `t` triangle edge `0..3` or vertex `3..6` — ids `512..584`.
//! - Closest pair (a replaced speculative manifold):
//!   [`BOX_TRIANGLE_CLOSEST_ID_BASE`]` + f` — ids `1024..1035`.

use super::box_box::FACE_AXIS_ABS_TOL;
use super::box_box::{
    clip_edge_rect, incident_face, manifold_of, ref_face, select_manifold, support_edge, Candidate,
    FaceEdge, FacePoint, PointOnB,
};
use super::closest_pair::keep_closest_pair;
pub use super::closest_pair::BOX_TRIANGLE_CLOSEST_ID_BASE;
use super::util::{at_origin, closest_segments, fallback, margin_ok, moved_by, unit_or};
use super::{ContactPoint, Manifold};
use crate::closest::closest_point_triangle;
use crate::lane::{Lane, LaneMask};
use crate::math::V3;
use crate::overlap::sat::{cross_with_magnitude, is_noise_axis, project3};
use crate::overlap::OBB_EDGE_AXIS_BIAS;
use crate::shapes::{Obb, Triangle};
use crate::simd::unroll::{from2, from3, from4};

/// Base of the box-reference face ids.
pub const BOX_FACE_ID_BASE: f32 = 192.0;
/// Base of the edge–edge ids.
pub const EDGE_ID_BASE: f32 = 512.0;

/// Smallest `|cos|` between a box reference face and the triangle for which
/// the face corners are projected onto the triangle (`2^-10`): steeper, the
/// piercing point is ill-conditioned and the clipped triangle edges already
/// bound the polygon.
const CORNER_MIN_COS: f32 = 1.0 / 1024.0;

/// Contact of box `a` and triangle `b` with speculative `margin` (see the
/// [module docs](self) and the [conventions](super)). **Lane-generic,
/// one-sided.** The box axes are assumed orthonormal ([`Obb::try_new`]).
/// Invalid lanes (non-finite values, negative half extents, negative or
/// non-finite margin) give `count == 0`.
///
/// ```
/// use widephase::contact::box_triangle;
/// use widephase::{Obb, Triangle, Vec3};
/// // a ground triangle facing +Y and a unit cube 0.1 deep in it
/// let ground = Triangle::new(Vec3::new(-8.0, 0.0, -8.0), Vec3::new(0.0, 0.0, 8.0), Vec3::new(8.0, 0.0, -8.0));
/// let cube = Obb::new(Vec3::new(0.0, 0.9, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// let m = box_triangle(&cube, &ground, 0.0);
/// assert_eq!((m.count, m.normal), (4.0, -Vec3::Y));
/// for p in m.contacts() {
///     assert!((p.depth - 0.1).abs() < 1e-6);
///     assert_eq!(p.position.y, 0.0); // on the triangle
/// }
/// // the same cube below the ground: behind the face, no contact
/// let under = Obb::new(Vec3::new(0.0, -0.9, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
/// assert_eq!(box_triangle(&under, &ground, 0.0).count, 0.0);
/// ```
#[inline(always)]
pub fn box_triangle<L: Lane>(a: &Obb<L>, b: &Triangle<L>, margin: L) -> Manifold<L> {
    let sat = box_triangle_sat(a, b, margin);
    if sat.hit.none() {
        return Manifold::empty();
    }
    box_triangle_finish(a, b, margin, &sat)
}

/// [`box_triangle`] when at least `dense` lanes get a contact, else those
/// lanes (found by its SAT alone; every other lane's manifold is empty):
/// the pipeline's staged form (`ContactTester::test_or_lanes`).
#[inline(always)]
pub(crate) fn box_triangle_or_lanes<L: Lane>(
    a: &Obb<L>,
    b: &Triangle<L>,
    margin: L,
    dense: u32,
) -> Result<Manifold<L>, L::Mask> {
    let sat = box_triangle_sat(a, b, margin);
    if sat.hit.bits().count_ones() < dense {
        return Err(sat.hit);
    }
    Ok(box_triangle_finish(a, b, margin, &sat))
}

/// What [`box_triangle`]'s SAT decides per lane: whether the lane gets a
/// contact, the chosen axis (0 the triangle's normal, 1–3 a box axis, 4–12
/// an edge pair), its depth and unit normal, and the triangle's unit normal
/// and whether it has area.
struct BoxTriangleSat<L: Lane> {
    hit: L::Mask,
    axis: L,
    depth: L,
    normal: V3<L>,
    nf: V3<L>,
    proper: L::Mask,
}

/// The 13-axis SAT of [`box_triangle`] (the one-sided rule included).
#[inline(always)]
fn box_triangle_sat<L: Lane>(a: &Obb<L>, b: &Triangle<L>, margin: L) -> BoxTriangleSat<L> {
    let zero = L::splat(0.0);
    let inf = L::splat(f32::INFINITY);
    let bias = L::splat(OBB_EDGE_AXIS_BIAS);
    let valid = a.is_valid() & b.is_valid() & margin_ok(margin);
    let (nf, area2) = unit_or((b.b - b.a).cross(b.c - b.a), fallback());
    let proper = area2.gt(zero);
    let hc = nf.dot(a.center - b.a);
    // if (proper && N·(centre - a) < 0) return no contact;  (one-sided)
    let front = !proper | hc.ge(zero);
    let h = [a.half.x, a.half.y, a.half.z];
    // Nested fns, not closures: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    /// The box's projection radius on `l`.
    #[inline(always)]
    fn radius<L: Lane>(h: &[L; 3], a: &Obb<L>, l: V3<L>) -> L {
        h[0] * l.dot(a.axes[0]).abs()
            + h[1] * l.dot(a.axes[1]).abs()
            + h[2] * l.dot(a.axes[2]).abs()
    }
    // the triangle relative to the box centre (the box projects to [-r, r])
    let t = [b.a - a.center, b.b - a.center, b.c - a.center];
    let edges = [b.b - b.a, b.c - b.b, b.a - b.c];
    /// Depth along `l` (unnormalised) and the signed axis.
    #[inline(always)]
    fn on_axis<L: Lane>(h: &[L; 3], a: &Obb<L>, t: &[V3<L>; 3], l: V3<L>) -> (L, V3<L>) {
        let (tmin, tmax) = project3(l, t);
        let r = radius(h, a, l);
        let pos = r - tmin; // push B along +l
        let neg = tmax + r; // push B along -l
        let use_pos = pos.le(neg);
        (L::select(use_pos, pos, neg), V3::select(use_pos, l, -l))
    }

    // Triangle normal: only -N (B pushed behind its face).
    let tri_depth = L::select(proper, radius(&h, a, nf) - hc, inf);
    // Box axes.
    let (mut box_depth, mut box_axis, mut box_n) = (inf, zero, V3::splat(zero));
    for (k, l) in a.axes.iter().enumerate() {
        let (ov, sl) = on_axis(&h, a, &t, *l);
        let len = l.length();
        let d = ov / len;
        let take = d.lt(box_depth);
        box_depth = L::select(take, d, box_depth);
        box_axis = L::select(take, L::splat(1.0 + k as f32), box_axis);
        box_n = V3::select(take, sl / len, box_n);
    }
    // Face tolerance `bias·|depth| + FACE_AXIS_ABS_TOL·2·max h` (box_box's
    // for two boxes of this size: the relative part alone vanishes at exact
    // touching, where rounding then picks the axis).
    let abs_tol = L::splat(2.0 * FACE_AXIS_ABS_TOL) * a.half.max_element();
    // if (!proper || box < tri - tolerance) face = box axis else triangle normal
    let use_box = !proper | box_depth.lt(tri_depth - bias * tri_depth.abs() - abs_tol);
    let face_depth = L::select(use_box, box_depth, tri_depth);
    let face_axis = L::select(use_box, box_axis, zero);
    let face_n = V3::select(use_box, box_n, -nf);
    // Edge axes.
    let (mut edge_depth, mut edge_axis, mut edge_l, mut edge_len) =
        (inf, zero, V3::splat(zero), L::splat(1.0));
    for (i, u) in a.axes.iter().enumerate() {
        for (j, e) in edges.iter().enumerate() {
            let (l, m) = cross_with_magnitude(*u, *e);
            let real = !is_noise_axis(l, m);
            let (ov, sl) = on_axis(&h, a, &t, l);
            let len = l.length();
            let d = ov / len;
            let take = real & d.lt(edge_depth);
            edge_depth = L::select(take, d, edge_depth);
            edge_axis = L::select(take, L::splat((4 + 3 * i + j) as f32), edge_axis);
            edge_l = V3::select(take, sl, edge_l);
            edge_len = L::select(take, len, edge_len);
        }
    }
    // if (edge < face - tolerance) use the edge axis;
    let use_edge = edge_depth.lt(face_depth - bias * face_depth.abs() - abs_tol);
    let depth = L::select(use_edge, edge_depth, face_depth);
    let axis = L::select(use_edge, edge_axis, face_axis);
    let normal = V3::select(use_edge, edge_l / edge_len, face_n);

    let hit = valid & front & depth.ge(-margin);
    BoxTriangleSat { hit, axis, depth, normal, nf, proper }
}

/// The manifolds of the lanes `sat.hit` (empty elsewhere): face clipping
/// on the triangle's or a box face, closest edge points on an edge axis,
/// then the closest-pair check of a speculative or touching manifold.
#[inline(always)]
fn box_triangle_finish<L: Lane>(
    a: &Obb<L>,
    b: &Triangle<L>,
    margin: L,
    sat: &BoxTriangleSat<L>,
) -> Manifold<L> {
    let (hit, axis, depth, normal) = (sat.hit, sat.axis, sat.depth, sat.normal);
    let (nf, proper) = (sat.nf, sat.proper);
    // clipped points and the closest pair formed with the box at the origin
    // (`util::at_origin`)
    let a0 = at_origin(a);
    let c = a.center;
    let b0 = Triangle { a: b.a - c, b: b.b - c, c: b.c - c };
    let zero = L::splat(0.0);
    let empty = Manifold::empty();
    let mut out = empty;
    let on_tri = axis.eq(zero);
    let on_box = axis.gt(zero) & axis.lt(L::splat(4.0));
    let on_edge = axis.ge(L::splat(4.0));
    if (hit & on_tri).any() {
        let m = triangle_face_manifold(&a0, &b0, nf, margin, hit & on_tri);
        out = select_manifold(on_tri, &m, &out);
    }
    if (hit & on_box).any() {
        let m = box_face_manifold(&a0, &b0, nf, proper, axis, normal, margin);
        out = select_manifold(on_box, &m, &out);
    }
    if (hit & on_edge).any() {
        let m = edge_manifold(&a0, &b0, axis, normal);
        out = select_manifold(on_edge, &m, &out);
    }
    let out = select_manifold(hit, &out, &empty);
    // a speculative or touching manifold must hold a closest pair (see
    // `src/contact/closest_pair.rs`); `depth` is the SAT depth along `normal`
    let out = keep_closest_pair(out, &a0, depth, margin, BOX_TRIANGLE_CLOSEST_ID_BASE, &b0, hit);
    moved_by(out, c)
}

/// Inward normals `N × e_j` of the triangle's edge side planes (unnormalised):
/// `x` is inside side `j` when `m_j·(x - v_j) >= 0`.
#[inline(always)]
fn side_normals<L: Lane>(b: &Triangle<L>, nf: V3<L>) -> [V3<L>; 3] {
    [nf.cross(b.b - b.a), nf.cross(b.c - b.b), nf.cross(b.a - b.c)]
}

/// Manifold for the triangle normal (reference = the triangle, `normal =
/// -nf`); only for proper triangles (other lanes give garbage the caller
/// discards). `need` are the lanes the caller keeps: the fallback point of a
/// lane whose clipping left nothing is computed only when one of them needs
/// it (lanes of other axes, run here because one lane of the pack is on the
/// triangle's normal, would ask for it in most packs).
#[inline(always)]
fn triangle_face_manifold<L: Lane>(
    a: &Obb<L>,
    b: &Triangle<L>,
    nf: V3<L>,
    margin: L,
    need: L::Mask,
) -> Manifold<L> {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let (inf, neg_inf) = (L::splat(f32::INFINITY), L::splat(f32::NEG_INFINITY));
    let neg_margin = -margin;
    let inc = incident_face(a, nf);
    let verts = [b.a, b.b, b.c];
    let sides = side_normals(b, nf);
    // Candidates live in the incident face's frame (centre, tangents `a1`,
    // `a2`): the face's vertices are exactly `(±h1, ±h2)` there, and the
    // reported point on the triangle is the face point moved by `depth` along
    // `nf`. (The triangle's own frame would put the origin at a vertex that
    // may be far from the contact and lose a few ulps of that distance.)
    // Written-out arrays, not closures: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    let vxy = [(inc.h1, inc.h2), (-inc.h1, inc.h2), (-inc.h1, -inc.h2), (inc.h1, -inc.h2)];
    let vd: [L; 4] = from4!(|k| -(nf.dot(inc.verts[k] - b.a)));

    // Candidates 0..8: per incident edge k, the part inside the three side
    // planes f_s(t) = m_s·(p(t) - v_s) >= 0: entry (vertex k or a crossing)
    // and exit crossing.
    let [e0, e1, e2, e3]: [[Candidate<L>; 2]; 4] = from4!(|k| {
        let (p0, p1) = (inc.verts[k], inc.verts[(k + 1) % 4]);
        let (mut t0, mut s0) = (zero, L::splat(-1.0));
        let (mut t1c, mut s1) = (one, L::splat(-1.0));
        for s in 0..3 {
            let f0 = sides[s].dot(p0 - verts[s]);
            let f1 = sides[s].dot(p1 - verts[s]);
            let df = f1 - f0;
            let tc = -f0 / df;
            let inside = f0.ge(zero);
            // df > 0: enters at tc; df < 0: exits at tc; df == 0: all or nothing
            let enter = L::select(df.gt(zero), tc, L::select(df.lt(zero) | inside, neg_inf, inf));
            let exit = L::select(df.lt(zero), tc, L::select(df.gt(zero) | inside, inf, neg_inf));
            // strict comparisons: a vertex on a side keeps its vertex id
            let take = enter.gt(t0);
            t0 = L::select(take, enter, t0);
            s0 = L::select(take, L::splat(s as f32), s0);
            let take = exit.lt(t1c);
            t1c = L::select(take, exit, t1c);
            s1 = L::select(take, L::splat(s as f32), s1);
        }
        let nonempty = t0.le(t1c);
        // plane coordinates and depth are affine along the edge
        let k1 = (k + 1) % 4;
        let (x0, y0, d0) = (vxy[k].0, vxy[k].1, vd[k]);
        let (dx, dy, dd) = (vxy[k1].0 - x0, vxy[k1].1 - y0, vd[k1] - d0);
        // the entry point, then the exit crossing
        from2!(|end| {
            let (t, side, extra) = if end == 0 {
                (t0, s0, <L::Mask as LaneMask>::splat(true))
            } else {
                (t1c, s1, t1c.lt(one))
            };
            let depth = d0 + dd * t;
            let crossing = L::splat(4.0 + 3.0 * k as f32) + side;
            Candidate {
                x: x0 + dx * t,
                y: y0 + dy * t,
                depth,
                local_id: L::select(side.lt(zero), L::splat(k as f32), crossing),
                valid: nonempty & extra & depth.ge(neg_margin),
            }
        })
    });
    // Candidates 8..11: triangle vertices inside the incident face (projected
    // along nf; |cos| >= 1/sqrt(3) for the most anti-parallel face).
    let inv_cos = one / nf.dot(inc.n);
    let tv: [Candidate<L>; 3] = from3!(|m| {
        let q = verts[m];
        let depth = (q - inc.c).dot(inc.n) * inv_cos;
        let on_incident = q - nf * depth;
        let w = on_incident - inc.c;
        let (x, y) = (w.dot(inc.a1), w.dot(inc.a2));
        let inside = x.abs().le(inc.h1) & y.abs().le(inc.h2);
        Candidate {
            x,
            y,
            depth,
            local_id: L::splat(16.0 + m as f32),
            valid: inside & depth.ge(neg_margin),
        }
    });
    let mut any = <L::Mask as LaneMask>::splat(false);
    for c in e0.iter().chain(&e1).chain(&e2).chain(&e3).chain(&tv) {
        any = any | c.valid;
    }
    // Candidate 11: the box's support vertex along -nf (SAT depth), reported
    // at the triangle's closest point when clipping left nothing (it is then
    // the lane's only candidate, so its frame coordinates do not matter and
    // its point is patched in below).
    let sv = inc.support;
    let fb = Candidate {
        x: zero,
        y: zero,
        depth: -(nf.dot(sv - b.a)),
        local_id: L::splat(20.0) + inc.support_id,
        valid: !any,
    };
    let cand = [e0[0], e0[1], e1[0], e1[1], e2[0], e2[1], e3[0], e3[1], tv[0], tv[1], tv[2], fb];
    // the point on B (the triangle): the incident face point moved by depth
    // along nf onto the triangle's plane
    let on_b = IncidentPoint { c: inc.c, a1: inc.a1, a2: inc.a2, nf };
    let mut m = manifold_of(&cand, -nf, inc.face * L::splat(32.0), &on_b);
    if need.and_not(any).any() {
        let q = closest_point_triangle(sv, b).point;
        m.points[0].position = V3::select(!any, q, m.points[0].position);
    }
    m
}

/// A candidate in the incident box face's frame `(c, a1, a2)` moved by its
/// depth along `nf` onto the triangle's plane ([`triangle_face_manifold`]).
struct IncidentPoint<L: Lane> {
    c: V3<L>,
    a1: V3<L>,
    a2: V3<L>,
    nf: V3<L>,
}

impl<L: Lane> PointOnB<L> for IncidentPoint<L> {
    #[inline(always)]
    fn on_b(&self, c: &Candidate<L>) -> V3<L> {
        self.c + self.a1 * c.x + self.a2 * c.y + self.nf * c.depth
    }
}

/// Manifold for a box axis `axis ∈ 1..=3` (reference = that face of the box,
/// outward normal `normal`, incident = the triangle).
#[inline(always)]
fn box_face_manifold<L: Lane>(
    a: &Obb<L>,
    b: &Triangle<L>,
    nf: V3<L>,
    proper: L::Mask,
    axis: L,
    normal: V3<L>,
    margin: L,
) -> Manifold<L> {
    let zero = L::splat(0.0);
    let neg_margin = -margin;
    let n = normal;
    let f = ref_face(a, axis - L::splat(1.0), n);
    let verts = [b.a, b.b, b.c];
    // Written-out arrays, not closures: a closure is compiled without the
    // dispatched entry's target features unless LLVM happens to inline it
    // (`crate::simd`).
    let xy = from3!(|j| ((verts[j] - f.c).dot(f.u), (verts[j] - f.c).dot(f.v)));
    let below: [L; 3] = from3!(|j| -((verts[j] - f.c).dot(n)));
    // Candidates 0..6: the triangle's edges clipped to the face's side slabs.
    let [e0, e1, e2] = from3!(|j| {
        let j2 = (j + 1) % 3;
        let (p0, p1) = ([xy[j].0, xy[j].1, below[j]], [xy[j2].0, xy[j2].1, below[j2]]);
        clip_edge_rect(&f, &FaceEdge::between(p0, p1), j, 3.0, neg_margin)
    });
    // Candidates 6..10: face corners piercing the triangle (along n).
    let cos = n.dot(nf);
    let steep_ok = proper & cos.abs().ge(L::splat(CORNER_MIN_COS));
    let inv_cos = L::splat(1.0) / cos;
    let sides = side_normals(b, nf);
    // Corner m at signs (su, sv) = (+,+), (-,+), (-,-), (+,-).
    let corners: [Candidate<L>; 4] = from4!(|m| {
        let (su, sv) = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)][m];
        let (cx, cy) = (f.hu * L::splat(su), f.hv * L::splat(sv));
        let q = f.c + f.u * cx + f.v * cy;
        let depth = (q - b.a).dot(nf) * inv_cos;
        let on_incident = q - n * depth;
        let mut inside = steep_ok;
        for s in 0..3 {
            inside = inside & sides[s].dot(on_incident - verts[s]).ge(zero);
        }
        Candidate {
            x: cx,
            y: cy,
            depth,
            local_id: L::splat(15.0 + m as f32),
            valid: inside & depth.ge(neg_margin),
        }
    });
    let mut any = <L::Mask as LaneMask>::splat(false);
    for c in e0.iter().chain(&e1).chain(&e2).chain(&corners) {
        any = any | c.valid;
    }
    // Candidate 10: the triangle's deepest vertex along -n (lowest index on
    // ties), its depth the SAT depth, when clipping left nothing.
    let mut fb = Candidate {
        x: xy[0].0,
        y: xy[0].1,
        depth: below[0],
        local_id: L::splat(19.0),
        valid: !any,
    };
    for j in 1..3 {
        let d = below[j];
        let take = d.gt(fb.depth);
        fb.x = L::select(take, xy[j].0, fb.x);
        fb.y = L::select(take, xy[j].1, fb.y);
        fb.depth = L::select(take, d, fb.depth);
        fb.local_id = L::select(take, L::splat(19.0 + j as f32), fb.local_id);
    }
    let cand = [
        e0[0], e0[1], e1[0], e1[1], e2[0], e2[1], corners[0], corners[1], corners[2], corners[3],
        fb,
    ];
    let base = L::splat(BOX_FACE_ID_BASE) + f.face * L::splat(32.0);
    // the point on B (the triangle, incident here)
    let all = <L::Mask as LaneMask>::splat(true);
    manifold_of(&cand, n, base, &FacePoint { origin: f.c, u: f.u, v: f.v, n, below: all })
}

/// Manifold for an edge axis `axis = 4 + 3i + j`: one point at the closest
/// points of the box's support edge along `A_i` and the triangle's support
/// feature along `-normal` (edge `j`, or the opposite vertex when it is
/// strictly deeper).
#[inline(always)]
fn edge_manifold<L: Lane>(a: &Obb<L>, b: &Triangle<L>, axis: L, normal: V3<L>) -> Manifold<L> {
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let k = axis - L::splat(4.0);
    let i =
        L::select(k.lt(L::splat(3.0)), zero, L::select(k.lt(L::splat(6.0)), one, L::splat(2.0)));
    let j = k - i * L::splat(3.0);
    let (pa, da, ha, ida) = support_edge(a, normal, i);
    let (j0, j1) = (j.eq(zero), j.eq(one));
    let pick = |x: [V3<L>; 3]| V3::select(j0, x[0], V3::select(j1, x[1], x[2]));
    let v0 = pick([b.a, b.b, b.c]);
    let v1 = pick([b.b, b.c, b.a]);
    let vo = pick([b.c, b.a, b.b]);
    // the opposite vertex strictly deeper along -normal: a vertex contact
    let vertex = normal.dot(vo).lt(normal.dot(v0).min(normal.dot(v1)));
    let (q0, q1) = (V3::select(vertex, vo, v0), V3::select(vertex, vo, v1));
    let cp = closest_segments(pa - da * ha, pa + da * ha, q0, q1);
    let opposite = L::select(j0, L::splat(2.0), L::select(j1, zero, one));
    let tri_feature = L::select(vertex, L::splat(3.0) + opposite, j);
    let mut m = Manifold::empty();
    m.normal = normal;
    m.count = one;
    m.points[0] = ContactPoint {
        position: cp.point2,
        depth: (cp.point1 - cp.point2).dot(normal),
        feature_id: L::splat(EDGE_ID_BASE) + ida * L::splat(6.0) + tri_feature,
    };
    m
}
