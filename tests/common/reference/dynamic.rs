//! Exact references for the dynamic family (rational arithmetic on the f32
//! inputs), written independently of `widephase::dynamic`:
//! - moving AABB–AABB and sphere–plane: exact rational contact times;
//! - moving spheres vs sphere / triangle / box: the exact minimum over a time
//!   range of `dist²(center(t), shape) - r²` (rational: the minimisers are
//!   rational), which decides contact; the first-contact time is then bracketed
//!   exactly (see `tests/dynamic.rs`).

use crate::common::exact::{origin_in_hull, Q, QV3};
use widephase::{Aabb, Plane, Sphere, Triangle, Vec3};

fn q(x: f32) -> Q {
    Q::f(x)
}

fn qv(v: Vec3) -> QV3 {
    QV3::f(v)
}

/// Exact `[first, last]` contact times of moving boxes in `[0, 1]`, with the
/// quantities the ulp band is stated in: `(E, X)` = `(max(0, enters),
/// min(1, exits))` (contact iff `E <= X`; `None` when some axis with zero
/// relative velocity is apart).
pub fn moving_aabb_aabb(a: &Aabb, va: Vec3, b: &Aabb, vb: Vec3) -> Option<(Q, Q)> {
    let mut e = Q::zero();
    let mut x = Q::one();
    for i in 0..3 {
        let lo = q(a.min.get(i)) - q(b.max.get(i));
        let hi = q(a.max.get(i)) - q(b.min.get(i));
        let v = q(vb.get(i)) - q(va.get(i));
        if v.is_zero() {
            if lo.is_pos() || hi.is_neg() {
                return None;
            }
            continue;
        }
        let (t0, t1) = if v.is_pos() { (&lo / &v, &hi / &v) } else { (&hi / &v, &lo / &v) };
        e = e.max(t0);
        x = x.min(t1);
    }
    Some((e, x))
}

/// Sphere–plane: `(margin, first_time)`. Contact iff `margin <= 0`, where
/// `margin = max(min(s0, s1) - r, -r - max(s0, s1))` over the exact signed
/// distances `s0 = n·c - D`, `s1 = s0 + n·d`; the first time is exact.
pub fn moving_sphere_plane(s: &Sphere, d: Vec3, p: &Plane) -> (Q, Option<Q>) {
    let n = qv(p.normal);
    let r = q(s.radius);
    let s0 = n.dot(&qv(s.center)) - q(p.d);
    let vd = n.dot(&qv(d));
    let s1 = &s0 + &vd;
    let lo = s0.clone().min(s1.clone());
    let hi = s0.clone().max(s1);
    let margin = (&lo - &r).max(-r.clone() - hi);
    if margin.is_pos() {
        return (margin, None);
    }
    if s0.abs() <= r {
        return (margin, Some(Q::zero()));
    }
    let target = if s0.is_pos() { r } else { -r };
    (margin, Some(&(&target - &s0) / &vd))
}

/// Sphere–plane band scale `Σ|n_i c_i| + |D| + Σ|n_i d_i| + r`.
pub fn sphere_plane_scale(s: &Sphere, d: Vec3, p: &Plane) -> Q {
    let mut acc = q(p.d).abs() + q(s.radius).abs();
    for i in 0..3 {
        acc = acc + (q(p.normal.get(i)) * q(s.center.get(i))).abs();
        acc = acc + (q(p.normal.get(i)) * q(d.get(i))).abs();
    }
    acc
}

/// Moving spheres: relative separation `s`, velocity `v`, radius sum `r`.
pub struct SpherePair {
    pub s: QV3,
    pub v: QV3,
    pub r: Q,
}

impl SpherePair {
    pub fn new(a: &Sphere, da: Vec3, b: &Sphere, db: Vec3) -> SpherePair {
        SpherePair {
            s: &qv(b.center) - &qv(a.center),
            v: &qv(db) - &qv(da),
            r: q(a.radius) + q(b.radius),
        }
    }
    /// `|s + t v|² - r²`.
    pub fn gap(&self, t: &Q) -> Q {
        let p = &self.s + &self.v.scale(t);
        p.len2() - &self.r * &self.r
    }
    /// Minimum of the gap over `[t0, t1]` (convex quadratic: at the clamped vertex).
    pub fn min_gap(&self, t0: &Q, t1: &Q) -> Q {
        let a = self.v.len2();
        let t = if a.is_zero() {
            t0.clone()
        } else {
            let vertex = -(self.v.dot(&self.s)) / a;
            vertex.max(t0.clone()).min(t1.clone())
        };
        self.gap(&t)
    }
    /// Band scale `(|s|₁ + |v|₁ + r)²`.
    pub fn scale2(&self) -> Q {
        let l = self.s.x.abs()
            + self.s.y.abs()
            + self.s.z.abs()
            + self.v.x.abs()
            + self.v.y.abs()
            + self.v.z.abs()
            + self.r.clone();
        &l * &l
    }
}

/// Squared distance from `p` to the segment `[a, b]`: `|w|²` before `a`,
/// `|p - b|²` past `b`, else `|w|² - (w·e)²/(e·e)` (one division).
pub fn point_segment_dist2(p: &QV3, a: &QV3, b: &QV3) -> Q {
    let e = b - a;
    let w = p - a;
    let we = w.dot(&e);
    if !we.is_pos() {
        return w.len2();
    }
    let ee = e.len2();
    if we >= ee {
        return (p - b).len2();
    }
    w.len2() - &(&we * &we) / &ee
}

/// Squared distance between segments `[p1, q1]` and `[p2, q2]`: the minimum of
/// a convex quadratic over the unit square, at an interior critical point or on
/// an edge of the square (a point–segment distance).
pub fn segment_segment_dist2(p1: &QV3, q1: &QV3, p2: &QV3, q2: &QV3) -> Q {
    let mut best = point_segment_dist2(p1, p2, q2)
        .min(point_segment_dist2(q1, p2, q2))
        .min(point_segment_dist2(p2, p1, q1))
        .min(point_segment_dist2(q2, p1, q1));
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.len2();
    let e = d2.len2();
    let b = d1.dot(&d2);
    let c = d1.dot(&r);
    let f = d2.dot(&r);
    let denom = &(&a * &e) - &(&b * &b);
    if denom.is_pos() {
        let s = (&(&b * &f) - &(&c * &e)) / denom.clone();
        let t = (&(&a * &f) - &(&b * &c)) / denom;
        if !s.is_neg() && s <= Q::one() && !t.is_neg() && t <= Q::one() {
            let diff = &(&r + &d1.scale(&s)) - &d2.scale(&t);
            best = best.min(diff.len2());
        }
    }
    best
}

/// Squared distance from `p` to the closed triangle (degenerate ones are their
/// edges).
pub fn point_triangle_dist2(p: &QV3, t: &[QV3; 3]) -> Q {
    let mut best = point_segment_dist2(p, &t[0], &t[1])
        .min(point_segment_dist2(p, &t[1], &t[2]))
        .min(point_segment_dist2(p, &t[2], &t[0]));
    let n = (&t[1] - &t[0]).cross(&(&t[2] - &t[0]));
    let nn = n.len2();
    if nn.is_pos() {
        let inside = (0..3).all(|i| {
            let a = &t[i];
            let b = &t[(i + 1) % 3];
            !(b - a).cross(&(p - a)).dot(&n).is_neg()
        });
        if inside {
            let h = n.dot(&(p - &t[0]));
            best = best.min(&(&h * &h) / &nn);
        }
    }
    best
}

/// Whether the segment `[p0, p1]` crosses the plane of a non-degenerate
/// triangle transversally (endpoints strictly on opposite sides) at a point of
/// the closed triangle. Every other intersection (an endpoint on the plane, a
/// coplanar segment) is found by the distance terms of
/// [`segment_triangle_dist2`], so this is all it needs.
fn segment_crosses_triangle(p0: &QV3, p1: &QV3, t: &[QV3; 3]) -> bool {
    let n = (&t[1] - &t[0]).cross(&(&t[2] - &t[0]));
    if n.is_zero() {
        return false;
    }
    let o0 = n.dot(&(p0 - &t[0]));
    let o1 = n.dot(&(p1 - &t[0]));
    if !((o0.is_pos() && o1.is_neg()) || (o0.is_neg() && o1.is_pos())) {
        return false;
    }
    let s = &o0 / &(&o0 - &o1);
    let x = p0 + &(p1 - p0).scale(&s);
    (0..3).all(|i| {
        let a = &t[i];
        let b = &t[(i + 1) % 3];
        !(b - a).cross(&(&x - a)).dot(&n).is_neg()
    })
}

/// Squared distance between the segment `[p0, p1]` and the closed triangle:
/// 0 if they intersect, else the least of the endpoint–triangle and
/// edge–segment distances (Ericson §5.1.10). Cross-checked against
/// `exact::origin_in_hull` in `tests/dynamic.rs`.
pub fn segment_triangle_dist2(p0: &QV3, p1: &QV3, t: &[QV3; 3]) -> Q {
    if segment_crosses_triangle(p0, p1, t) {
        return Q::zero();
    }
    let mut best = point_triangle_dist2(p0, t).min(point_triangle_dist2(p1, t));
    for i in 0..3 {
        best = best.min(segment_segment_dist2(p0, p1, &t[i], &t[(i + 1) % 3]));
    }
    best
}

/// Independent intersection test for the cross-check: `0 ∈ conv{p_i - v_j}`.
pub fn segment_triangle_intersect_hull(p0: &QV3, p1: &QV3, t: &[QV3; 3]) -> bool {
    let mut diffs = Vec::with_capacity(6);
    for p in [p0, p1] {
        for v in t.iter() {
            diffs.push(p - v);
        }
    }
    origin_in_hull(&diffs)
}

/// Squared distance from a point to a box (empty boxes are not passed here).
pub fn point_box_dist2(p: &QV3, lo: &QV3, hi: &QV3) -> Q {
    let mut acc = Q::zero();
    for i in 0..3 {
        let x = p.get(i);
        let ex = if x < lo.get(i) {
            lo.get(i) - x
        } else if x > hi.get(i) {
            x - hi.get(i)
        } else {
            Q::zero()
        };
        acc = acc + &ex * &ex;
    }
    acc
}

/// A sphere center moving as `c + t d` against a static shape.
pub struct MovingCenter {
    pub c: QV3,
    pub d: QV3,
    pub r: Q,
}

impl MovingCenter {
    pub fn new(s: &Sphere, d: Vec3) -> MovingCenter {
        MovingCenter { c: qv(s.center), d: qv(d), r: q(s.radius) }
    }
    pub fn at(&self, t: &Q) -> QV3 {
        &self.c + &self.d.scale(t)
    }
    pub fn r2(&self) -> Q {
        &self.r * &self.r
    }
    /// `dist²(center(t), tri) - r²`.
    pub fn tri_gap(&self, t: &Q, tri: &[QV3; 3]) -> Q {
        point_triangle_dist2(&self.at(t), tri) - self.r2()
    }
    /// Minimum over `[t0, t1]` of `dist²(center(t), tri) - r²`.
    pub fn tri_min_gap(&self, t0: &Q, t1: &Q, tri: &[QV3; 3]) -> Q {
        segment_triangle_dist2(&self.at(t0), &self.at(t1), tri) - self.r2()
    }
    /// `dist²(center(t), box) - r²`.
    pub fn box_gap(&self, t: &Q, lo: &QV3, hi: &QV3) -> Q {
        point_box_dist2(&self.at(t), lo, hi) - self.r2()
    }
    /// Minimum over `[t0, t1]` of `dist²(center(t), box) - r²`: `dist²` is a
    /// convex piecewise quadratic in `t` whose pieces start where a coordinate
    /// crosses a slab bound; on each piece the quadratic's minimiser is rational.
    pub fn box_min_gap(&self, t0: &Q, t1: &Q, lo: &QV3, hi: &QV3) -> Q {
        let mut cuts = vec![t0.clone(), t1.clone()];
        for i in 0..3 {
            let di = self.d.get(i);
            if di.is_zero() {
                continue;
            }
            for bound in [lo.get(i), hi.get(i)] {
                let t = &(bound - self.c.get(i)) / di;
                if &t > t0 && &t < t1 {
                    cuts.push(t);
                }
            }
        }
        cuts.sort();
        cuts.dedup();
        let mut best: Option<Q> = None;
        for w in cuts.windows(2) {
            let (ta, tb) = (&w[0], &w[1]);
            let mid = (ta + tb) / Q::int(2);
            let pm = self.at(&mid);
            // Active axes on this piece and the quadratic Σ (c_i - bound_i + t d_i)².
            let mut a2 = Q::zero();
            let mut b1 = Q::zero();
            for i in 0..3 {
                let x = pm.get(i);
                let bound = if x < lo.get(i) {
                    lo.get(i)
                } else if x > hi.get(i) {
                    hi.get(i)
                } else {
                    continue;
                };
                let off = self.c.get(i) - bound;
                a2 = a2 + self.d.get(i) * self.d.get(i);
                b1 = b1 + &off * self.d.get(i);
            }
            let t =
                if a2.is_zero() { ta.clone() } else { (-b1 / a2).max(ta.clone()).min(tb.clone()) };
            let g = self.box_gap(&t, lo, hi);
            best = Some(match best {
                None => g,
                Some(b) => b.min(g),
            });
        }
        match best {
            Some(b) => b,
            None => self.box_gap(t0, lo, hi),
        }
    }
}

/// Triangle vertices as exact vectors.
pub fn tri_q(t: &Triangle) -> [QV3; 3] {
    [qv(t.a), qv(t.b), qv(t.c)]
}
