//! Point in triangle, in 3D, for the closed triangle (Ericson §5.4.2; seed `000`
//! heading only), including zero-area triangles.

use crate::math::Vec3;
use crate::shapes::Triangle;

/// Relative tolerance of the f64 evaluation: `2⁻⁴⁰`. Each f64 product and
/// difference of f32 data errs by at most `2⁻⁵³` relative, so a quantity of the
/// form `x·y - z·w` (or a 3-term triple product) computed in f64 is within
/// `8·2⁻⁵³ ≤ 2⁻⁵⁰` of the magnitude product; `2⁻⁴⁰` covers it with room and
/// is still `2⁻¹⁶` times smaller than one f32 ulp (`2⁻²⁴`), so only
/// configurations deep inside the f32 ulp band of contact are affected.
const TOL: f64 = 1.0 / (1u64 << 40) as f64;

type D3 = [f64; 3];

fn d3(v: Vec3) -> D3 {
    [v.x as f64, v.y as f64, v.z as f64]
}
fn sub(a: D3, b: D3) -> D3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: D3, b: D3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: D3, b: D3) -> D3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn norm1(a: D3) -> f64 {
    a[0].abs() + a[1].abs() + a[2].abs()
}

/// Whether `q` lies on the closed segment `[s0, s1]` (a point if `s0 == s1`), in
/// f64 with the relative tolerance `TOL`.
pub(crate) fn point_on_segment_f64(q: D3, s0: D3, s1: D3) -> bool {
    let e = sub(s1, s0);
    let d = sub(q, s0);
    let (ne, nd) = (norm1(e), norm1(d));
    if ne == 0.0 {
        return nd == 0.0;
    }
    let c = cross(d, e);
    if norm1(c) > TOL * nd * ne {
        return false;
    }
    let t = dot(d, e);
    let ee = dot(e, e);
    t >= -TOL * nd * ne && t <= ee + TOL * (nd + ne) * ne
}

/// Whether the point `p` lies in the closed triangle `tri` (3D: on its plane and
/// inside or on its boundary). A zero-area triangle is the segment or point its
/// vertices span.
///
/// Evaluated in f64 with a relative tolerance of `2⁻⁴⁰` of the magnitudes (far
/// below one f32 ulp), so the answer is exact outside a band much narrower than
/// the [contracts](crate#contracts)' ulp band: a point exactly on the plane,
/// an edge or a vertex is inside. NaN or ±∞ coordinates give `false`.
///
/// Method: `n = (b-a)×(c-a)`; coplanarity `|n·(p-a)|` against the tolerance;
/// then the three edge functions in the projection that drops `n`'s dominant
/// axis must not have opposite signs to `n` there (Ericson §5.4.2, via the
/// projection of §5.3.5). Source: seed `000` §5.4.2 (heading only).
///
/// ```
/// use widephase::{ray::point_in_triangle, Triangle, Vec3};
/// let tri = Triangle::new(Vec3::new(0.0, 0.0, 1.0), Vec3::new(2.0, 0.0, 1.0), Vec3::new(0.0, 2.0, 1.0));
/// assert!(point_in_triangle(Vec3::new(1.0, 1.0, 1.0), &tri)); // on the hypotenuse
/// assert!(!point_in_triangle(Vec3::new(1.0, 1.0, 1.5), &tri)); // off the plane
/// // a zero-area triangle is its segment
/// let seg = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 2.0, 2.0), Vec3::new(1.0, 1.0, 1.0));
/// assert!(point_in_triangle(Vec3::new(0.5, 0.5, 0.5), &seg));
/// ```
pub fn point_in_triangle(p: Vec3, tri: &Triangle) -> bool {
    if !(p.is_finite() && tri.is_valid()) {
        return false;
    }
    let (a, b, c, q) = (d3(tri.a), d3(tri.b), d3(tri.c), d3(p));
    let (e1, e2, d) = (sub(b, a), sub(c, a), sub(q, a));
    let n = cross(e1, e2);
    let (n1, m1, m2) = (norm1(n), norm1(e1), norm1(e2));
    let area_tol = TOL * m1 * m2;
    if n1 <= area_tol || n1 == 0.0 {
        // Zero area (up to the tolerance): the union of the three edges is the
        // segment (or point) the triangle is.
        return point_on_segment_f64(q, a, b)
            || point_on_segment_f64(q, b, c)
            || point_on_segment_f64(q, c, a);
    }
    if dot(n, d).abs() > TOL * n1 * norm1(d) * 4.0 {
        return false;
    }
    let k = if n[0].abs() >= n[1].abs() && n[0].abs() >= n[2].abs() {
        0
    } else if n[1].abs() >= n[2].abs() {
        1
    } else {
        2
    };
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let sign = if n[k] > 0.0 { 1.0 } else { -1.0 };
    // 2D edge function of edge (s, e) at q, oriented so inside is >= 0.
    let edge = |s: D3, e: D3| -> bool {
        let f = (e[i] - s[i]) * (q[j] - s[j]) - (e[j] - s[j]) * (q[i] - s[i]);
        let mag = ((e[i] - s[i]).abs() + (e[j] - s[j]).abs())
            * ((q[i] - s[i]).abs() + (q[j] - s[j]).abs());
        sign * f >= -TOL * mag
    };
    edge(a, b) && edge(b, c) && edge(c, a)
}
