//! Hull against sphere and capsule: closest points and the deepest face.

use super::assembly::{finish, id, Cand};
use super::clip::inside_polygon;
use super::sat::closest_params;
use super::{PlacedHull, CAPSULE_FACE_PARALLEL};
use crate::contact::box_box::FACE_AXIS_ABS_TOL;
use crate::contact::hull::ConvexHull;
use crate::contact::util::{capsule_ok, margin_ok};
use crate::contact::Manifold;
use crate::math::Vec3;
use crate::overlap::OBB_EDGE_AXIS_BIAS;
use crate::shapes::{Capsule, Sphere};

/// Closest point of the hull surface to `p` (A's frame) when `p` is
/// outside: `(point, feature)` with feature `f` (face) or `128 + e` (edge).
pub(super) fn closest_outside(ha: &ConvexHull, p: Vec3) -> (Vec3, u32) {
    let mut best = (f32::INFINITY, Vec3::ZERO, 0u32);
    let mut poly: Vec<Vec3> = Vec::with_capacity(64);
    for f in 0..ha.face_count() {
        let n = ha.face_normal(f);
        let h = n.dot(p) - ha.face_offset(f);
        if h >= 0.0 && h * h < best.0 {
            poly.clear();
            poly.extend(ha.face_vertices(f).iter().map(|&v| ha.vertices()[v as usize]));
            let foot = p - n * h;
            if inside_polygon(&poly, n, foot) {
                best = (h * h, foot, f as u32);
            }
        }
    }
    for (k, e) in ha.edges().iter().enumerate() {
        let (s, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
        let d = q - s;
        let l2 = d.length_squared();
        let t = if l2 > 0.0 { ((p - s).dot(d) / l2).clamp(0.0, 1.0) } else { 0.0 };
        let x = s + d * t;
        let d2 = (p - x).length_squared();
        if d2 < best.0 {
            best = (d2, x, 128 + k as u32);
        }
    }
    (best.1, best.2)
}

/// Largest face-plane distance of `p`: `(face, signed distance)`.
pub(super) fn deepest_face(ha: &ConvexHull, p: Vec3) -> (usize, f32) {
    let mut best = (0, f32::NEG_INFINITY);
    for f in 0..ha.face_count() {
        let h = ha.face_normal(f).dot(p) - ha.face_offset(f);
        if h > best.1 {
            best = (f, h);
        }
    }
    best
}

/// Contact manifold of hull `a` and sphere `b` (see the [module docs](super)).
pub fn hull_sphere(a: &PlacedHull, b: &Sphere, margin: f32) -> Manifold {
    let ok = a.valid()
        && b.center.is_finite()
        && b.radius.is_finite()
        && b.radius >= 0.0
        && margin_ok(margin);
    if !ok {
        return Manifold::EMPTY;
    }
    let ha = a.hull;
    let c = a.local_point(b.center);
    let r = b.radius;
    let (f, h) = deepest_face(ha, c);
    if h > r + margin {
        return Manifold::EMPTY;
    }
    let (n, dist, feature) = if h <= 0.0 {
        (ha.face_normal(f), h, f as u32)
    } else {
        let (q, feature) = closest_outside(ha, c);
        let (n, dist) = match (c - q).try_normalize() {
            Some(n) => (n, (c - q).length()),
            None => (ha.face_normal(f), 0.0),
        };
        (n, dist, feature)
    };
    let depth = r - dist;
    if !(depth >= -margin) {
        return Manifold::EMPTY;
    }
    finish(a, n, &[Cand { pos: c - n * r, depth, id: id(254, feature) }])
}

/// Contact manifold of hull `a` and capsule `b` (see the [module docs](super)).
pub fn hull_capsule(a: &PlacedHull, b: &Capsule, margin: f32) -> Manifold {
    let ok = a.valid() && capsule_ok(b) && margin_ok(margin);
    if !ok {
        return Manifold::EMPTY;
    }
    let ha = a.hull;
    let p0 = a.local_point(b.a);
    let p1 = a.local_point(b.b);
    let r = b.radius;
    let seg = p1 - p0;
    let u = seg.try_normalize();
    // SAT over face normals and segment × edge axes (Gauss arcs crossing the
    // segment's great circle): the separation of the axis, A's support
    // plane included.
    let mut best_f = (0usize, f32::NEG_INFINITY);
    for f in 0..ha.face_count() {
        let n = ha.face_normal(f);
        let sep = n.dot(p0).min(n.dot(p1)) - ha.face_offset(f);
        if sep > best_f.1 {
            best_f = (f, sep);
        }
    }
    if best_f.1 > r + margin {
        return Manifold::EMPTY;
    }
    let mut best_e = (usize::MAX, f32::NEG_INFINITY, Vec3::ZERO);
    if let Some(u) = u {
        for (k, e) in ha.edges().iter().enumerate() {
            let na = ha.face_normal(e.faces[0] as usize);
            let nb = ha.face_normal(e.faces[1] as usize);
            if na.dot(u) * nb.dot(u) > 0.0 {
                continue;
            }
            let va = ha.vertices()[e.a as usize];
            let ea = ha.vertices()[e.b as usize] - va;
            let l = ea.cross(u);
            let len = l.length();
            if !(len > 1e-5 * ea.length()) {
                continue;
            }
            let mut l = l / len;
            if l.dot(na + nb) < 0.0 {
                l = -l;
            }
            let sep = l.dot(p0 - va);
            if sep > best_e.1 {
                best_e = (k, sep, l);
            }
        }
    }
    let sat = best_f.1.max(best_e.1);
    if sat > r + margin {
        return Manifold::EMPTY;
    }
    let scale = ha.bounding_radius() + seg.length() + r;
    let allowance = OBB_EDGE_AXIS_BIAS * best_f.1.abs() + FACE_AXIS_ABS_TOL * scale;
    let edge_wins = best_e.0 != usize::MAX && best_e.1 > best_f.1 + allowance;
    let closest_core = |x: Vec3| -> (Vec3, u32) { closest_outside(ha, x) };
    if sat > 0.0 {
        // separated cores: exact closest pair of segment and hull
        let mut best = (f32::INFINITY, Vec3::ZERO, Vec3::ZERO, 0u32);
        for (end, &p) in [p0, p1].iter().enumerate() {
            if deepest_face(ha, p).1 > 0.0 {
                let (q, feat) = closest_core(p);
                let d2 = (p - q).length_squared();
                if d2 < best.0 {
                    best = (d2, q, p, 4 * feat + end as u32);
                }
            }
        }
        for (k, e) in ha.edges().iter().enumerate() {
            let (s, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
            let (ts, tt) = closest_params(s, q, p0, p1);
            let x = s + (q - s) * ts;
            let y = p0 + seg * tt;
            let d2 = (y - x).length_squared();
            if d2 < best.0 {
                let end = if tt == 0.0 {
                    0
                } else if tt == 1.0 {
                    1
                } else {
                    2
                };
                best = (d2, x, y, 4 * (128 + k as u32) + end);
            }
        }
        let dist = best.0.sqrt();
        if !(dist <= r + margin) {
            return Manifold::EMPTY;
        }
        let n = match (best.2 - best.1).try_normalize() {
            Some(n) => n,
            None => ha.face_normal(best_f.0),
        };
        // two points when the axis lies along the closest face
        if best.3 / 4 < 128 {
            let f = (best.3 / 4) as usize;
            if let Some(m) = capsule_face_pair(a, ha, f, p0, p1, r, margin, dist) {
                return m;
            }
        }
        return finish(a, n, &[Cand { pos: best.2 - n * r, depth: r - dist, id: id(255, best.3) }]);
    }
    // penetrating cores
    if edge_wins {
        let e = ha.edges()[best_e.0];
        let (s, q) = (ha.vertices()[e.a as usize], ha.vertices()[e.b as usize]);
        let (_, tt) = closest_params(s, q, p0, p1);
        let y = p0 + seg * tt;
        let l = best_e.2;
        let end = if tt == 0.0 {
            0
        } else if tt == 1.0 {
            1
        } else {
            2
        };
        return finish(
            a,
            l,
            &[Cand {
                pos: y - l * r,
                depth: r - best_e.1,
                id: id(255, 4 * (128 + best_e.0 as u32) + end),
            }],
        );
    }
    let f = best_f.0;
    if let Some(m) = capsule_face_pair(a, ha, f, p0, p1, r, margin, best_f.1) {
        return m;
    }
    // one point: the deeper end, clipped into the face
    let n = ha.face_normal(f);
    let (lo, hi) = clip_segment_to_face(ha, f, p0, p1);
    let (t, end) = if n.dot(seg) >= 0.0 { (lo, 0) } else { (hi, 1) };
    let t = t.clamp(0.0, 1.0);
    let p = p0 + seg * t;
    let end = if t == 0.0 || t == 1.0 { end } else { 2 };
    let depth = r - (n.dot(p) - ha.face_offset(f));
    finish(a, n, &[Cand { pos: p - n * r, depth, id: id(255, 4 * f as u32 + end) }])
}

/// Parameter interval of the segment `p0 p1` inside face `f`'s side planes
/// (empty: `lo > hi`).
pub(super) fn clip_segment_to_face(ha: &ConvexHull, f: usize, p0: Vec3, p1: Vec3) -> (f32, f32) {
    let n = ha.face_normal(f);
    let fv = ha.face_vertices(f);
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    let d = p1 - p0;
    for k in 0..fv.len() {
        let v0 = ha.vertices()[fv[k] as usize];
        let v1 = ha.vertices()[fv[(k + 1) % fv.len()] as usize];
        let side = (v1 - v0).cross(n);
        let a = side.dot(p0 - v0);
        let b = side.dot(d);
        if b == 0.0 {
            if a > 0.0 {
                return (1.0, 0.0);
            }
        } else {
            let t = -a / b;
            if b > 0.0 {
                hi = hi.min(t);
            } else {
                lo = lo.max(t);
            }
        }
    }
    (lo, hi)
}

/// The two-point manifold of a capsule whose axis is parallel to face `f`
/// (within [`CAPSULE_FACE_PARALLEL`]), or `None`.
#[allow(clippy::too_many_arguments)]
pub(super) fn capsule_face_pair(
    a: &PlacedHull,
    ha: &ConvexHull,
    f: usize,
    p0: Vec3,
    p1: Vec3,
    r: f32,
    margin: f32,
    core_gap: f32,
) -> Option<Manifold> {
    let n = ha.face_normal(f);
    let seg = p1 - p0;
    let u = seg.try_normalize()?;
    if n.dot(u).abs() > CAPSULE_FACE_PARALLEL {
        return None;
    }
    let (lo, hi) = clip_segment_to_face(ha, f, p0, p1);
    if !(lo < hi) {
        return None;
    }
    let mut cands = [Cand::default(); 2];
    let mut k = 0;
    for (t, end) in [(lo, 0u32), (hi, 1u32)] {
        let p = p0 + seg * t;
        let depth = r - (n.dot(p) - ha.face_offset(f));
        let end = if (end == 0 && t == 0.0) || (end == 1 && t == 1.0) { end } else { 2 };
        if depth >= -margin {
            cands[k] = Cand { pos: p - n * r, depth, id: id(255, 4 * f as u32 + end) };
            k += 1;
        }
    }
    // the deepest point must reach the closest pair's depth
    let deepest = cands[..k].iter().map(|c| c.depth).fold(f32::NEG_INFINITY, f32::max);
    if k == 0
        || deepest
            < r - core_gap.max(0.0) - 4.0 * f32::EPSILON * (r + seg.length() + ha.bounding_radius())
    {
        return None;
    }
    Some(finish(a, n, &cands[..k]))
}
