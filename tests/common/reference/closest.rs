//! Exact references for the closest-point family: rational arithmetic on the
//! f32 inputs, written as exact minimisation (not Ericson's region logic), so
//! they are independent of the crate's kernels.

use crate::common::exact::{hulls_intersect, Q, QV3};
use widephase::{Aabb, Obb, Plane, Rect3, Segment, Tetrahedron, Triangle, Vec3};

/// An exact closest point and squared distance.
#[derive(Clone, Debug)]
pub struct QPoint {
    pub point: QV3,
    pub sq: Q,
}

/// An exact closest pair.
#[derive(Clone, Debug)]
pub struct QPair {
    pub p1: QV3,
    pub p2: QV3,
    pub sq: Q,
}

fn clamp01(x: Q) -> Q {
    x.max(Q::zero()).min(Q::one())
}

fn sub(a: &QV3, b: &QV3) -> QV3 {
    a - b
}

fn add(a: &QV3, b: &QV3) -> QV3 {
    a + b
}

pub fn point_aabb(p: Vec3, b: &Aabb) -> QPoint {
    let p = QV3::f(p);
    let (lo, hi) = (QV3::f(b.min), QV3::f(b.max));
    let c = |i: usize| p.get(i).clone().max(lo.get(i).clone()).min(hi.get(i).clone());
    let q = QV3::new(c(0), c(1), c(2));
    let sq = sub(&q, &p).len2();
    QPoint { point: q, sq }
}

/// Box coordinates `d_i = (p - c)·u_i` (exact), clamped: the OBB formula's exact
/// value, `Σ excess_i²` (equal to the geometric distance for orthonormal axes).
pub fn point_obb_sq(p: Vec3, b: &Obb) -> Q {
    let v = sub(&QV3::f(p), &QV3::f(b.center));
    let mut s = Q::zero();
    for i in 0..3 {
        let d = v.dot(&QV3::f(b.axes[i]));
        let e = Q::f(b.half.get(i));
        let ex = if d > e.clone() {
            d - e
        } else if d < -e.clone() {
            d + e
        } else {
            Q::zero()
        };
        s = s + ex.clone() * ex;
    }
    s
}

/// The OBB formula's closest point `c + Σ clamp(d_i)·u_i`, exactly.
pub fn point_obb_point(p: Vec3, b: &Obb) -> QV3 {
    let v = sub(&QV3::f(p), &QV3::f(b.center));
    let mut q = QV3::f(b.center);
    for i in 0..3 {
        let u = QV3::f(b.axes[i]);
        let e = Q::f(b.half.get(i));
        let d = v.dot(&u).max(-e.clone()).min(e);
        q = add(&q, &u.scale(&d));
    }
    q
}

/// `Σ excess² + (d·(u×v))²` exactly (the rectangle formula).
pub fn point_rect_sq(p: Vec3, r: &Rect3) -> Q {
    let d = sub(&QV3::f(p), &QV3::f(r.center));
    let (u, v) = (QV3::f(r.u), QV3::f(r.v));
    let ex = |x: Q, e: Q| {
        if x > e.clone() {
            x - e
        } else if x < -e.clone() {
            x + e
        } else {
            Q::zero()
        }
    };
    let eu = ex(d.dot(&u), Q::f(r.half_u));
    let ev = ex(d.dot(&v), Q::f(r.half_v));
    let h = d.dot(&u.cross(&v));
    eu.clone() * eu + ev.clone() * ev + h.clone() * h
}

/// Closest point of the segment `[a, b]` to `p`, exactly.
pub fn point_segment_q(p: &QV3, a: &QV3, b: &QV3) -> QPoint {
    let ab = sub(b, a);
    let e = ab.len2();
    let t = if e.is_zero() { Q::zero() } else { clamp01(sub(p, a).dot(&ab) / e) };
    let q = add(a, &ab.scale(&t));
    let sq = sub(&q, p).len2();
    QPoint { point: q, sq }
}

fn better(cur: Option<QPoint>, cand: QPoint) -> Option<QPoint> {
    match cur {
        Some(c) if c.sq <= cand.sq => Some(c),
        _ => Some(cand),
    }
}

/// Exact closest point of a triangle: the orthogonal projection on the plane
/// when its barycentrics are all non-negative (non-degenerate triangle), else
/// the nearest of the three edges.
pub fn point_triangle_q(p: &QV3, a: &QV3, b: &QV3, c: &QV3) -> QPoint {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let n = ab.cross(&ac);
    let nn = n.len2();
    if !nn.is_zero() {
        // barycentrics of the projection: signed areas / |n|^2
        let u = n.dot(&sub(b, p).cross(&sub(c, p)));
        let v = n.dot(&sub(c, p).cross(&sub(a, p)));
        let w = n.dot(&sub(a, p).cross(&sub(b, p)));
        if !u.is_neg() && !v.is_neg() && !w.is_neg() {
            let h = n.dot(&sub(p, a)) / nn.clone();
            let q = sub(p, &n.scale(&h));
            let sq = sub(&q, p).len2();
            return QPoint { point: q, sq };
        }
    }
    let mut best = None;
    for (x, y) in [(a, b), (b, c), (c, a)] {
        best = better(best, point_segment_q(p, x, y));
    }
    best.unwrap()
}

pub fn point_triangle(p: Vec3, t: &Triangle) -> QPoint {
    point_triangle_q(&QV3::f(p), &QV3::f(t.a), &QV3::f(t.b), &QV3::f(t.c))
}

/// Exact squared distance between two segments by minimising the convex
/// quadratic over `[0,1]²`: the interior critical point when it exists, else
/// the best of the four boundary edges (each a point–segment problem).
pub fn segment_segment_q(p1: &QV3, q1: &QV3, p2: &QV3, q2: &QV3) -> QPair {
    let d1 = sub(q1, p1);
    let d2 = sub(q2, p2);
    let r = sub(p1, p2);
    let a = d1.len2();
    let e = d2.len2();
    let b = d1.dot(&d2);
    let c = d1.dot(&r);
    let f = d2.dot(&r);
    let den = a.clone() * e.clone() - b.clone() * b.clone();
    let mut best: Option<QPair> = None;
    let mut take = |x: QV3, y: QV3| {
        let sq = sub(&x, &y).len2();
        if best.as_ref().is_none_or(|bp| sq < bp.sq) {
            best = Some(QPair { p1: x, p2: y, sq });
        }
    };
    if den.is_pos() {
        let s = (b.clone() * f.clone() - c.clone() * e.clone()) / den.clone();
        let t = (a.clone() * f.clone() - b.clone() * c.clone()) / den;
        if s >= Q::zero() && s <= Q::one() && t >= Q::zero() && t <= Q::one() {
            take(add(p1, &d1.scale(&s)), add(p2, &d2.scale(&t)));
        }
    }
    for end in [p1, q1] {
        let r = point_segment_q(end, p2, q2);
        take(end.clone(), r.point);
    }
    for end in [p2, q2] {
        let r = point_segment_q(end, p1, q1);
        take(r.point, end.clone());
    }
    best.unwrap()
}

pub fn segment_segment(s1: &Segment, s2: &Segment) -> QPair {
    segment_segment_q(&QV3::f(s1.a), &QV3::f(s1.b), &QV3::f(s2.a), &QV3::f(s2.b))
}

/// Exact closest points of two lines through (p1,q1), (p2,q2): the squared
/// distance (unique even when the points are not).
pub fn line_line_sq(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> Q {
    let (p1, q1, p2, q2) = (QV3::f(p1), QV3::f(q1), QV3::f(p2), QV3::f(q2));
    let d1 = sub(&q1, &p1);
    let d2 = sub(&q2, &p2);
    let r = sub(&p1, &p2);
    let a = d1.len2();
    let e = d2.len2();
    if a.is_zero() && e.is_zero() {
        return r.len2();
    }
    if a.is_zero() || e.is_zero() {
        // point to line: |r|^2 - (r·d)^2/|d|^2
        let (d, l) = if a.is_zero() { (d2, e) } else { (d1, a) };
        let rd = r.dot(&d);
        return r.len2() - rd.clone() * rd / l;
    }
    let n = d1.cross(&d2);
    let nn = n.len2();
    if nn.is_zero() {
        let rd = r.dot(&d2);
        return r.len2() - rd.clone() * rd / e;
    }
    let h = r.dot(&n);
    h.clone() * h / nn
}

/// Exact segment–triangle distance: 0 if the (closed) sets meet, else the best
/// of the segment against each edge and each endpoint against the triangle.
pub fn segment_triangle(s: &Segment, t: &Triangle) -> Q {
    if hulls_intersect(&[s.a, s.b], &[t.a, t.b, t.c]) {
        return Q::zero();
    }
    let (sa, sb) = (QV3::f(s.a), QV3::f(s.b));
    let (a, b, c) = (QV3::f(t.a), QV3::f(t.b), QV3::f(t.c));
    let mut best = point_triangle_q(&sa, &a, &b, &c).sq;
    best = best.min(point_triangle_q(&sb, &a, &b, &c).sq);
    for (x, y) in [(&a, &b), (&b, &c), (&c, &a)] {
        best = best.min(segment_segment_q(&sa, &sb, x, y).sq);
    }
    best
}

/// Exact triangle–triangle distance: 0 if they meet, else the best of the nine
/// edge pairs and six vertex–face pairs.
pub fn triangle_triangle(t1: &Triangle, t2: &Triangle) -> Q {
    if hulls_intersect(&t1.vertices(), &t2.vertices()) {
        return Q::zero();
    }
    let v1: Vec<QV3> = t1.vertices().iter().map(|v| QV3::f(*v)).collect();
    let v2: Vec<QV3> = t2.vertices().iter().map(|v| QV3::f(*v)).collect();
    let mut best: Option<Q> = None;
    let mut take = |q: Q| {
        best = Some(match best.take() {
            Some(b) => b.min(q),
            None => q,
        })
    };
    for i in 0..3 {
        for j in 0..3 {
            take(segment_segment_q(&v1[i], &v1[(i + 1) % 3], &v2[j], &v2[(j + 1) % 3]).sq);
        }
        take(point_triangle_q(&v1[i], &v2[0], &v2[1], &v2[2]).sq);
        take(point_triangle_q(&v2[i], &v1[0], &v1[1], &v1[2]).sq);
    }
    best.unwrap()
}

/// Exact distance to a solid tetrahedron: 0 inside (hull test), else the best
/// face.
pub fn point_tetrahedron(p: Vec3, t: &Tetrahedron) -> Q {
    if hulls_intersect(&t.v, &[p]) {
        return Q::zero();
    }
    let v: Vec<QV3> = t.v.iter().map(|x| QV3::f(*x)).collect();
    let pq = QV3::f(p);
    let faces = [(0, 1, 2), (0, 2, 3), (0, 3, 1), (1, 3, 2)];
    faces
        .iter()
        .map(|&(i, j, k)| point_triangle_q(&pq, &v[i], &v[j], &v[k]).sq)
        .reduce(|x, y| x.min(y))
        .unwrap()
}

/// Exact distance to a convex polygon (convex planar): 0 if in the hull, else
/// the best of its edges (independent of the fan decomposition).
pub fn point_polygon(p: Vec3, poly: &[Vec3]) -> Q {
    if hulls_intersect(poly, &[p]) {
        return Q::zero();
    }
    let pq = QV3::f(p);
    let v: Vec<QV3> = poly.iter().map(|x| QV3::f(*x)).collect();
    let n = v.len();
    // the projection on the plane, if inside the polygon, else the boundary
    let mut best: Option<Q> = None;
    if n >= 3 {
        // find a non-degenerate normal
        let mut nrm = None;
        'outer: for i in 1..n {
            for j in i + 1..n {
                let c = sub(&v[i], &v[0]).cross(&sub(&v[j], &v[0]));
                if !c.is_zero() {
                    nrm = Some(c);
                    break 'outer;
                }
            }
        }
        if let Some(nv) = nrm {
            let h = nv.dot(&sub(&pq, &v[0]));
            let nn = nv.len2();
            let foot = sub(&pq, &nv.scale(&(h.clone() / nn.clone())));
            // foot in hull? compare by exact hull test on translated points
            let pts: Vec<QV3> = v.iter().map(|x| sub(x, &foot)).collect();
            if crate::common::exact::origin_in_hull(&pts) {
                best = Some(h.clone() * h / nn);
            }
        }
    }
    for i in 0..n {
        let d = point_segment_q(&pq, &v[i], &v[(i + 1) % n]).sq;
        best = Some(match best {
            Some(b) => b.min(d),
            None => d,
        });
    }
    best.unwrap()
}

/// Exact closest point of `{x : n_i·x <= d_i}` to `p` by enumerating the
/// projections on every set of 1–3 planes (exact feasibility): `None` if the
/// set is empty. Returns the squared distance.
pub fn point_polyhedron_sq(p: Vec3, planes: &[Plane]) -> Option<Q> {
    let pq = QV3::f(p);
    let pl: Vec<(QV3, Q)> = planes.iter().map(|x| (QV3::f(x.normal), Q::f(x.d))).collect();
    let feasible = |x: &QV3| pl.iter().all(|(n, d)| n.dot(x) <= *d);
    if feasible(&pq) {
        return Some(Q::zero());
    }
    let mut best: Option<Q> = None;
    let mut take = |x: QV3| {
        if feasible(&x) {
            let s = sub(&x, &pq).len2();
            best = Some(match best.take() {
                Some(b) => b.min(s),
                None => s,
            });
        }
    };
    let m = pl.len();
    for i in 0..m {
        let (n, d) = &pl[i];
        let nn = n.len2();
        if nn.is_zero() {
            continue;
        }
        let h = (n.dot(&pq) - d.clone()) / nn;
        take(sub(&pq, &n.scale(&h)));
        for j in i + 1..m {
            let (n2, d2) = &pl[j];
            let g11 = n.len2();
            let g12 = n.dot(n2);
            let g22 = n2.len2();
            let det = g11.clone() * g22.clone() - g12.clone() * g12.clone();
            if det.is_zero() {
                continue;
            }
            let r1 = n.dot(&pq) - d.clone();
            let r2 = n2.dot(&pq) - d2.clone();
            let l1 = (r1.clone() * g22 - r2.clone() * g12.clone()) / det.clone();
            let l2 = (g11 * r2 - g12 * r1) / det;
            take(sub(&sub(&pq, &n.scale(&l1)), &n2.scale(&l2)));
            for (n3, d3) in pl.iter().skip(j + 1) {
                let u = n2.cross(n3);
                let det3 = n.dot(&u);
                if det3.is_zero() {
                    continue;
                }
                let x = add(&add(&u.scale(d), &n3.cross(n).scale(d2)), &n.cross(n2).scale(d3));
                take(x.scale(&(Q::one() / det3)));
            }
        }
    }
    best
}
