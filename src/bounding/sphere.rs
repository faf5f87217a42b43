//! Bounding spheres of a point set: Ritter's approximation and Welzl's exact
//! minimal enclosing sphere.
// Welzl's loops index because each level recurses on the prefix `pts[..i]`.
#![allow(clippy::needless_range_loop)]

use super::{round_up, to64, usable};
use crate::math::Vec3;
use crate::shapes::Sphere;

type P = [f64; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: P, b: P) -> P {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: P, s: f64) -> P {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: P, b: P) -> P {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// A sphere in `f64` as `(center, radius²)`.
#[derive(Clone, Copy, Debug)]
struct Ball {
    c: P,
    r2: f64,
}

impl Ball {
    /// Membership with a relative tolerance of `2^-40` (the `f64` rounding of
    /// the constructions is far below it); the final fit makes containment exact.
    fn contains(&self, p: P) -> bool {
        let d = sub(p, self.c);
        dot(d, d) <= self.r2 * (1.0 + f64::powi(2.0, -40)) + f64::MIN_POSITIVE
    }
}

fn ball2(a: P, b: P) -> Ball {
    let c = scale(add(a, b), 0.5);
    let d = sub(a, c);
    Ball { c, r2: dot(d, d) }
}

/// The smallest ball with `a`, `b`, `c` on its boundary (their circumcircle);
/// for (nearly) collinear points, the ball on the farthest pair.
fn ball3(a: P, b: P, c: P) -> Ball {
    let u = sub(b, a);
    let v = sub(c, a);
    let w = cross(u, v);
    let ww = dot(w, w);
    let scale_ref = dot(u, u) * dot(v, v);
    if ww <= scale_ref * 1e-24 || ww == 0.0 {
        return farthest_pair_ball(&[a, b, c]);
    }
    // circumcenter = a + ((|u|² v - |v|² u) × w) / (2 |w|²)
    let t = sub(scale(v, dot(u, u)), scale(u, dot(v, v)));
    let off = scale(cross(t, w), 0.5 / ww);
    Ball { c: add(a, off), r2: dot(off, off) }
}

/// The ball with `a`, `b`, `c`, `d` on its boundary; for (nearly) coplanar
/// points, the smallest of the 3-point balls that contains all four.
fn ball4(a: P, b: P, c: P, d: P) -> Ball {
    let u = sub(b, a);
    let v = sub(c, a);
    let w = sub(d, a);
    let det = dot(u, cross(v, w));
    let norm = (dot(u, u) * dot(v, v) * dot(w, w)).sqrt();
    if det.abs() <= norm * 1e-12 || det == 0.0 {
        let pts = [a, b, c, d];
        let mut best: Option<Ball> = None;
        for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)] {
            let s = ball3(pts[i], pts[j], pts[k]);
            if pts.iter().all(|&p| s.contains(p)) && best.is_none_or(|b| s.r2 < b.r2) {
                best = Some(s);
            }
        }
        return best.unwrap_or_else(|| farthest_pair_ball(&pts));
    }
    // Solve 2 u·x = |u|², 2 v·x = |v|², 2 w·x = |w|² for x = center - a.
    let off = scale(
        add(
            add(scale(cross(v, w), dot(u, u)), scale(cross(w, u), dot(v, v))),
            scale(cross(u, v), dot(w, w)),
        ),
        0.5 / det,
    );
    Ball { c: add(a, off), r2: dot(off, off) }
}

fn farthest_pair_ball(pts: &[P]) -> Ball {
    let mut best = (0, 0, -1.0);
    for i in 0..pts.len() {
        for j in i + 1..pts.len() {
            let d = sub(pts[i], pts[j]);
            let l = dot(d, d);
            if l > best.2 {
                best = (i, j, l);
            }
        }
    }
    if best.2 < 0.0 {
        return Ball { c: pts[0], r2: 0.0 };
    }
    ball2(pts[best.0], pts[best.1])
}

/// The final fit: the `f32` center, and the radius rounded up from the largest
/// `f64` distance to it times `1 + 2^-40` (the `f64` distance has relative error
/// below `2^-50`: one subtraction, three products, two sums, one square root).
fn fit(points: &[Vec3], center: P) -> Sphere {
    let c32 = Vec3::new(center[0] as f32, center[1] as f32, center[2] as f32);
    let c = to64(c32);
    let mut r2 = 0.0f64;
    for &p in points {
        let d = sub(to64(p), c);
        r2 = r2.max(dot(d, d));
    }
    let r = r2.sqrt() * (1.0 + f64::powi(2.0, -40));
    Sphere::new(c32, round_up(r))
}

/// Ritter's bounding sphere: start from the farthest pair among the extreme
/// points along x, y and z, then grow the sphere just enough to take in each
/// point outside it (center moved towards the point by `(d - r)/2`, radius
/// `(d + r)/2`). In `f64` within about 5–20% of the minimal sphere; `O(n)`.
///
/// Computed in `f64`, then fitted: the center is rounded to `f32` and the radius
/// is the largest distance from that center, inflated and rounded up, so every
/// point is contained exactly. The rounding of the center moves it by up to
/// `(√3/2)·ulp(c)` (`ulp(c)` the `f32` spacing at the center's largest
/// coordinate), which the fitted radius absorbs: the radius is at most the
/// `f64` one times `1 + 2^-38` plus `√3·ulp(c)`, so a ball whose radius is
/// tiny against its center's magnitude (radius `1e-3` at center `1e6`, where
/// `ulp(c) = 0.0625`) is as large as that rounding, not 5–20% above the
/// minimum. `None` for an empty slice or a NaN/∞ coordinate
/// (see the [module docs](crate::bounding)).
///
/// Source: seed 003 ("Ritter的近似最优包围盒方法"); Ritter, "An efficient bounding
/// sphere", *Graphics Gems* (1990); Ericson §4.3.2.
///
/// ```
/// use widephase::{bounding::ritter_sphere, Vec3};
/// let pts = [Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.5, 0.0)];
/// let s = ritter_sphere(&pts).unwrap();
/// assert_eq!(s.center, Vec3::ZERO);
/// assert!(s.radius >= 1.0 && s.radius < 1.0 + 1e-6); // touches ±x
/// ```
pub fn ritter_sphere(points: &[Vec3]) -> Option<Sphere> {
    if !usable(points) {
        return None;
    }
    let pts: Vec<P> = points.iter().map(|&p| to64(p)).collect();
    let mut ext = [0usize; 6];
    for (i, p) in pts.iter().enumerate() {
        for axis in 0..3 {
            if p[axis] < pts[ext[2 * axis]][axis] {
                ext[2 * axis] = i;
            }
            if p[axis] > pts[ext[2 * axis + 1]][axis] {
                ext[2 * axis + 1] = i;
            }
        }
    }
    let mut best = ball2(pts[ext[0]], pts[ext[1]]);
    for axis in 1..3 {
        let b = ball2(pts[ext[2 * axis]], pts[ext[2 * axis + 1]]);
        if b.r2 > best.r2 {
            best = b;
        }
    }
    let (mut c, mut r) = (best.c, best.r2.sqrt());
    for &p in &pts {
        let d = sub(p, c);
        let dist = dot(d, d).sqrt();
        if dist > r {
            let new_r = 0.5 * (r + dist);
            c = add(c, scale(d, (new_r - r) / dist));
            r = new_r;
        }
    }
    Some(fit(points, c))
}

/// Welzl's minimal enclosing sphere (the smallest ball containing every
/// point), by the iterative form of Welzl's algorithm: points in a
/// deterministic pseudo-random order (a fixed-seed SplitMix64 shuffle, so the
/// result is reproducible), and nested loops that each fix one more boundary
/// point (at most 4). Expected `O(n)`.
///
/// ```text
/// ball = {p0}
/// for i: if p_i outside: ball = mes(points[..i], boundary = {p_i})
/// mes(P, R): ball = smallest ball with R on its boundary (|R| <= 4)
///            for p in P: if p outside: ball = mes(P before p, R ∪ {p})
/// ```
/// Computed in `f64` with a `2^-40` relative membership tolerance; (nearly)
/// collinear or coplanar boundary sets fall back to the lower-dimensional
/// ball. Then fitted like [`ritter_sphere`], so every point is contained
/// exactly; the radius is at most the true minimum `r*` times `1 + 2^-38` plus
/// `√3·ulp(c)`, the rounding of the center to `f32` (`ulp(c)` the `f32`
/// spacing at its largest coordinate): within `1e-6` relative of `r*` when
/// `r*` is not tiny against the center's magnitude (tested against a
/// brute-force search), and for a tiny `r*` dominated by that rounding term.
/// Never above Ritter's radius: when the rounding of the two centers makes
/// the fitted Welzl sphere the larger one, Ritter's fitted sphere is returned.
/// `None` for an empty slice or a NaN/∞ coordinate.
///
/// Source: seed 003 ("Welzl的方法"); Welzl, "Smallest enclosing disks (balls
/// and ellipsoids)" (1991); Ericson §4.3.4.
///
/// ```
/// use widephase::{bounding::minimal_sphere, Vec3};
/// // An equilateral triangle's minimal sphere is its circumcircle.
/// let pts = [Vec3::new(2.0, 0.0, 0.0), Vec3::new(-1.0, 1.7320508, 0.0), Vec3::new(-1.0, -1.7320508, 0.0)];
/// let s = minimal_sphere(&pts).unwrap();
/// assert!((s.radius - 2.0).abs() < 1e-5 && s.center.length() < 1e-5);
/// ```
pub fn minimal_sphere(points: &[Vec3]) -> Option<Sphere> {
    if !usable(points) {
        return None;
    }
    let mut pts: Vec<P> = points.iter().map(|&p| to64(p)).collect();
    shuffle(&mut pts);
    let mut ball = Ball { c: pts[0], r2: 0.0 };
    for i in 1..pts.len() {
        if !ball.contains(pts[i]) {
            ball = with1(&pts[..i], pts[i]);
        }
    }
    let welzl = fit(points, ball.c);
    // Both fits contain every point exactly; the f32 rounding of the centers
    // (which can dominate a tiny radius) may favour either one.
    match ritter_sphere(points) {
        Some(ritter) if ritter.radius < welzl.radius => Some(ritter),
        _ => Some(welzl),
    }
}

fn with1(pts: &[P], q: P) -> Ball {
    let mut ball = Ball { c: q, r2: 0.0 };
    for j in 0..pts.len() {
        if !ball.contains(pts[j]) {
            ball = with2(&pts[..j], q, pts[j]);
        }
    }
    ball
}

fn with2(pts: &[P], q1: P, q2: P) -> Ball {
    let mut ball = ball2(q1, q2);
    for k in 0..pts.len() {
        if !ball.contains(pts[k]) {
            ball = with3(&pts[..k], q1, q2, pts[k]);
        }
    }
    ball
}

fn with3(pts: &[P], q1: P, q2: P, q3: P) -> Ball {
    let mut ball = ball3(q1, q2, q3);
    for l in 0..pts.len() {
        if !ball.contains(pts[l]) {
            ball = ball4(q1, q2, q3, pts[l]);
        }
    }
    ball
}

/// Fisher–Yates with SplitMix64 from a fixed seed (deterministic results).
fn shuffle(pts: &mut [P]) {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..pts.len()).rev() {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let j = (z % (i as u64 + 1)) as usize;
        pts.swap(i, j);
    }
}
