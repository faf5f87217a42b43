//! Exact references for the ray family: rational arithmetic on the f32 inputs
//! (`Q`), independent of the crate's code. Ray intervals may be infinite:
//! bounds are `Option<Q>` with `None` = unbounded.

use crate::common::exact::{origin_in_hull, Q, QV3};
use widephase::{Aabb, Ray, Sphere, Triangle, Vec3};

/// `[lo, hi]` with `None` meaning -∞ / +∞.
#[derive(Clone, Debug)]
pub struct Interval {
    pub lo: Option<Q>,
    pub hi: Option<Q>,
}

impl Interval {
    pub fn of_ray(r: &Ray) -> Interval {
        let b = |x: f32| if x.is_finite() { Some(Q::f(x)) } else { None };
        Interval { lo: b(r.t_min), hi: b(r.t_max) }
    }
    pub fn clip(&mut self, lo: Q, hi: Q) {
        self.lo = Some(match self.lo.take() {
            Some(l) => l.max(lo),
            None => lo,
        });
        self.hi = Some(match self.hi.take() {
            Some(h) => h.min(hi),
            None => hi,
        });
    }
    pub fn nonempty(&self) -> bool {
        match (&self.lo, &self.hi) {
            (Some(l), Some(h)) => l <= h,
            _ => true,
        }
    }
}

/// Exact ray–AABB: the interval of `t` in `[t_min, t_max]` with the point in the
/// closed box (rational slab intervals), or `None` if empty. Requires finite
/// box and ray data, `t_min <= t_max`, non-inverted box (callers check the NaN
/// rule separately).
pub fn ray_aabb_interval(r: &Ray, b: &Aabb) -> Option<Interval> {
    let mut iv = Interval::of_ray(r);
    for i in 0..3 {
        let (o, d) = (Q::f(r.origin.get(i)), Q::f(r.dir.get(i)));
        let (mn, mx) = (Q::f(b.min.get(i)), Q::f(b.max.get(i)));
        if mn > mx {
            return None;
        }
        if d.is_zero() {
            if o < mn || o > mx {
                return None;
            }
            continue;
        }
        let t1 = &(&mn - &o) / &d;
        let t2 = &(&mx - &o) / &d;
        let (n, f) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
        iv.clip(n, f);
    }
    iv.nonempty().then_some(iv)
}

/// The exact slab quantities deciding ray–AABB: `T_e` = max of the entries
/// (slab entries and `t_min`) and `T_x` = min of the exits, each `None` when
/// unbounded, plus whether a zero-direction axis excluded the ray (exactly).
pub fn ray_aabb_decision(r: &Ray, b: &Aabb) -> (Option<Q>, Option<Q>, bool) {
    let mut iv = Interval::of_ray(r);
    let mut excluded = false;
    for i in 0..3 {
        let (o, d) = (Q::f(r.origin.get(i)), Q::f(r.dir.get(i)));
        let (mn, mx) = (Q::f(b.min.get(i)), Q::f(b.max.get(i)));
        if d.is_zero() {
            excluded |= o < mn || o > mx;
            continue;
        }
        let t1 = &(&mn - &o) / &d;
        let t2 = &(&mx - &o) / &d;
        let (n, f) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
        iv.clip(n, f);
    }
    (iv.lo, iv.hi, excluded)
}

/// The point `o + t·d` exactly.
pub fn ray_point(r: &Ray, t: &Q) -> QV3 {
    &QV3::f(r.origin) + &QV3::f(r.dir).scale(t)
}

/// Exact result of ray–triangle: whether the ray's closed interval meets the
/// closed triangle and the smallest such `t` (`None` = -∞).
#[derive(Clone, Debug)]
pub struct TriExact {
    pub hit: bool,
    pub t: Option<Q>,
    /// The line lies in the triangle's plane (or the triangle is degenerate and
    /// the line meets its line): the edge-on branch.
    pub coplanar: bool,
}

/// Signed volume `d·((p - o) × (q - o))`: the edge function of edge p→q.
fn edge_volume(o: &QV3, d: &QV3, p: &QV3, q: &QV3) -> Q {
    d.dot(&(p - o).cross(&(q - o)))
}

/// Exact ray–triangle by signed volumes: the line `o + t·d` passes through the
/// closed triangle iff the three edge volumes have no two of opposite strict
/// sign; if they are all zero the line is coplanar with the triangle (or the
/// triangle is degenerate) and the set of `t` is found by intersecting the
/// line with each edge (exactly). Then the `t` set is clipped to the interval.
pub fn ray_triangle_exact(r: &Ray, tri: &Triangle) -> TriExact {
    let (o, d) = (QV3::f(r.origin), QV3::f(r.dir));
    let (a, b, c) = (QV3::f(tri.a), QV3::f(tri.b), QV3::f(tri.c));
    let miss = |coplanar| TriExact { hit: false, t: None, coplanar };
    if d.is_zero() {
        // the ray is its origin point: in the closed triangle?
        let pts = [&a - &o, &b - &o, &c - &o];
        let inside = origin_in_hull(&pts);
        let t = if r.t_min.is_finite() { Some(Q::f(r.t_min)) } else { None };
        return TriExact { hit: inside, t, coplanar: false };
    }
    let ebc = edge_volume(&o, &d, &b, &c);
    let eca = edge_volume(&o, &d, &c, &a);
    let eab = edge_volume(&o, &d, &a, &b);
    let neg = ebc.is_neg() || eca.is_neg() || eab.is_neg();
    let pos = ebc.is_pos() || eca.is_pos() || eab.is_pos();
    if neg && pos {
        return miss(false);
    }
    let iv = Interval::of_ray(r);
    if neg || pos {
        let s = &(&ebc + &eca) + &eab;
        let dd = d.dot(&d);
        let num = &(&(&ebc * &(&a - &o).dot(&d)) + &(&eca * &(&b - &o).dot(&d)))
            + &(&eab * &(&c - &o).dot(&d));
        let t = &num / &(&s * &dd);
        let ok = iv.lo.as_ref().is_none_or(|l| &t >= l) && iv.hi.as_ref().is_none_or(|h| &t <= h);
        return if ok { TriExact { hit: true, t: Some(t), coplanar: false } } else { miss(false) };
    }
    // Coplanar: candidate t where the line meets each closed edge.
    let mut ts: Vec<Q> = Vec::new();
    let dd = d.dot(&d);
    for (p, q) in [(&a, &b), (&b, &c), (&c, &a)] {
        let e = q - p;
        let w = p - &o;
        let dxe = d.cross(&e);
        if dxe.is_zero() {
            // parallel (or a zero-length edge): on the line iff w × d = 0
            if w.cross(&d).is_zero() {
                ts.push(&w.dot(&d) / &dd);
                ts.push(&(q - &o).dot(&d) / &dd);
            }
            continue;
        }
        // o + t d = p + s e  =>  t (d × e) = w × e,  s (d × e) = w × d
        let wxe = w.cross(&e);
        let wxd = w.cross(&d);
        let k = (0..3).find(|&i| !dxe.get(i).is_zero()).unwrap();
        let t = wxe.get(k) / dxe.get(k);
        let s = wxd.get(k) / dxe.get(k);
        // the lines must actually meet (coplanar): check the full vector equation
        if dxe.scale(&t) != wxe || dxe.scale(&s) != wxd {
            continue;
        }
        if !s.is_neg() && s <= Q::one() {
            ts.push(t);
        }
    }
    if ts.is_empty() {
        return miss(true);
    }
    let lo = ts.iter().cloned().min().unwrap();
    let hi = ts.iter().cloned().max().unwrap();
    let mut iv = iv;
    iv.clip(lo, hi);
    if iv.nonempty() {
        TriExact { hit: true, t: iv.lo, coplanar: true }
    } else {
        miss(true)
    }
}

/// Exact squared distance from the sphere center to the closest point of the
/// ray's interval, and that closest parameter.
pub fn ray_sphere_closest(r: &Ray, s: &Sphere) -> (Q, Q) {
    let m = &QV3::f(r.origin) - &QV3::f(s.center);
    let d = QV3::f(r.dir);
    let a = d.dot(&d);
    let tc = if a.is_zero() { Q::zero() } else { -(m.dot(&d) / a) };
    let mut t = tc;
    if r.t_min.is_finite() {
        t = t.max(Q::f(r.t_min));
    }
    if r.t_max.is_finite() {
        t = t.min(Q::f(r.t_max));
    }
    let q = &m + &d.scale(&t);
    (q.len2(), t)
}

/// Exact ray–sphere: the closest point of the interval is in the closed ball.
pub fn ray_sphere_exact(r: &Ray, s: &Sphere) -> bool {
    if s.radius < 0.0 {
        return false;
    }
    let rr = Q::f(s.radius);
    ray_sphere_closest(r, s).0 <= &rr * &rr
}

/// Exact: does the finite segment `[p0, p1]` (rational end points) meet the
/// convex hull of `pts`? (Independent hull reference.)
pub fn segment_meets_hull(p0: &QV3, p1: &QV3, pts: &[Vec3]) -> bool {
    let mut diffs = Vec::new();
    for e in [p0, p1] {
        for p in pts {
            diffs.push(e - &QV3::f(*p));
        }
    }
    origin_in_hull(&diffs)
}

/// The 8 corners of a box.
pub fn corners(b: &Aabb) -> Vec<Vec3> {
    let mut v = Vec::new();
    for i in 0..8 {
        v.push(Vec3::new(
            if i & 1 == 0 { b.min.x } else { b.max.x },
            if i & 2 == 0 { b.min.y } else { b.max.y },
            if i & 4 == 0 { b.min.z } else { b.max.z },
        ));
    }
    v
}

/// Max-norm of an exact vector.
pub fn qmax_abs(v: &QV3) -> Q {
    v.x.abs().max(v.y.abs()).max(v.z.abs())
}
