//! Point–triangle closest point by Voronoi regions (Ericson §5.1.5,
//! `ClosestPtPointTriangle`, final form; seed `000` §5.1.5). **Lane-generic.**

use crate::lane::Lane;
use crate::math::V3;
use crate::shapes::Triangle;

/// The Voronoi feature region of a triangle in which a query point projects,
/// as reported in [`TriangleClosest::region`] (as its [`code`](Self::code)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TriangleRegion {
    /// Vertex `a` (barycentrics `(1, 0, 0)`).
    A = 0,
    /// Vertex `b` (`(0, 1, 0)`).
    B = 1,
    /// Vertex `c` (`(0, 0, 1)`).
    C = 2,
    /// Edge `ab` (`(1 - v, v, 0)`).
    AB = 3,
    /// Edge `bc` (`(0, 1 - w, w)`).
    BC = 4,
    /// Edge `ca` (`(1 - w, 0, w)`).
    CA = 5,
    /// The interior of the face.
    Face = 6,
}

impl TriangleRegion {
    /// The region's code as stored in a lane (`0.0 ..= 6.0`).
    pub const fn code(self) -> f32 {
        self as u8 as f32
    }
    /// The region with lane code `c`; `None` for NaN (invalid input) or any
    /// other value.
    ///
    /// ```
    /// use widephase::closest::TriangleRegion;
    /// assert_eq!(TriangleRegion::from_code(TriangleRegion::BC.code()), Some(TriangleRegion::BC));
    /// assert_eq!(TriangleRegion::from_code(f32::NAN), None);
    /// ```
    pub fn from_code(c: f32) -> Option<TriangleRegion> {
        use TriangleRegion::*;
        [A, B, C, AB, BC, CA, Face].into_iter().find(|r| r.code() == c)
    }
}

/// The result of [`closest_point_triangle`], one value per lane.
#[derive(Clone, Copy, Debug)]
pub struct TriangleClosest<L: Lane> {
    /// The point of the triangle nearest to the query point.
    pub point: V3<L>,
    /// Barycentric weights `(u, v, w)` of `point` on `(a, b, c)`:
    /// `point ≈ u·a + v·b + w·c`, each in `[0, 1]` (exactly: in the face region
    /// `u = max(1 - v - w, 0)`), summing to 1 up to rounding.
    pub bary: V3<L>,
    /// The [`TriangleRegion`] code of the feature `point` lies on.
    pub region: L,
}

/// The point of the closed triangle `tri` nearest to `p`, with its barycentric
/// coordinates and Voronoi region. NaN in every field of lanes whose inputs are
/// not all finite ([contracts](crate#contracts)).
///
/// Ericson's region tests use six dot products `d1..d6` of the edges `ab`, `ac`
/// with `p - a`, `p - b`, `p - c`; the signed areas `va, vb, vc` come from
/// Lagrange's identity (`vc = d1·d4 - d3·d2 = n·((a-p)×(b-p))` with
/// `n = ab × ac`, and `va + vb + vc = |n|²`), here formed from the dots
/// scaled by `1/max|d_i|` so that no degree-4 product overflows or
/// underflows within the crate's coordinate range. Pseudocode, first match
/// wins:
///
/// ```text
/// if d1 <= 0 && d2 <= 0                        -> A
/// if d3 >= 0 && d4 <= d3                       -> B
/// if vc <= 0 && d1 >= 0 && d3 <= 0  (|ab|>0)   -> AB at v = d1/(d1-d3)
/// if d6 >= 0 && d5 <= d6                       -> C
/// if vb <= 0 && d2 >= 0 && d6 <= 0  (|ac|>0)   -> CA at w = d2/(d2-d6)
/// if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 (|bc|>0) -> BC at w = (d4-d3)/((d4-d3)+(d5-d6))
/// if va, vb, vc >= 0 && va+vb+vc > 0           -> Face: a + ab·v + ac·w, v = vb/Σ, w = vc/Σ
///    (and no farther than the nearest clamped edge point)
/// else                                          -> nearest of the three clamped edge points
/// ```
///
/// Branch-free: every candidate is computed and the first match is chosen by
/// selects applied from the lowest priority up. Two guards fix Ericson's code
/// for degenerate triangles (an erratum of the printed version, see
/// `simd-notes.md`): an edge region needs a non-zero edge (`d1 - d3 > 0`),
/// otherwise `a == b` gives `v = 0/0`; and when rounding leaves the signs
/// inconsistent (no region matches and the face weights are not all
/// non-negative — only possible for near-degenerate triangles or within
/// rounding of a region boundary) the nearest of the three clamped edge
/// projections is returned, which is the exact answer for a zero-area triangle.
/// For the same reason the face point is only taken when it is not farther than
/// that edge point (true in exact arithmetic; in `f32` it rejects the noisy
/// weights of a sliver).
///
/// ```
/// use widephase::closest::{closest_point_triangle, TriangleRegion};
/// use widephase::{Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// let r = closest_point_triangle(Vec3::new(1.0, -3.0, 0.0), &tri);
/// assert_eq!(r.point, Vec3::new(1.0, 0.0, 0.0));
/// assert_eq!(TriangleRegion::from_code(r.region), Some(TriangleRegion::AB));
/// // above the face
/// let r = closest_point_triangle(Vec3::new(0.5, 0.5, 4.0), &tri);
/// assert_eq!((r.point, TriangleRegion::from_code(r.region)), (Vec3::new(0.5, 0.5, 0.0), Some(TriangleRegion::Face)));
/// ```
#[inline(always)]
pub fn closest_point_triangle<L: Lane>(p: V3<L>, tri: &Triangle<L>) -> TriangleClosest<L> {
    let (a, b, c) = (tri.a, tri.b, tri.c);
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let valid = tri.is_valid() & p.is_finite();

    let ab = b - a;
    let ac = c - a;
    let bc = c - b;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    // The signed areas are degree-4 in the coordinates: they would overflow
    // for coordinates near 2^31 and underflow near 2^-32. Only their signs and
    // ratios are used, so they are formed from the dots scaled by
    // 1/max|d_i| (floored at 2^-100 so that the scale stays finite); this
    // costs one rounding per dot and keeps every product in [-1, 1].
    let tiny = L::splat(7.888_609e-31); // 2^-100
    let dmax = d1.abs().max(d2.abs()).max(d3.abs()).max(d4.abs()).max(d5.abs()).max(d6.abs());
    let k = one / dmax.max(tiny);
    let (e1, e2, e3, e4, e5, e6) = (d1 * k, d2 * k, d3 * k, d4 * k, d5 * k, d6 * k);
    let vc = e1 * e4 - e3 * e2;
    let vb = e5 * e2 - e1 * e6;
    let va = e3 * e6 - e5 * e4;

    // Edge parameters, clamped to [0, 1]; 0/0 (zero-length edge) gives NaN,
    // which max(·, 0) maps to 0 (`maxps` rule).
    let len_ab = d1 - d3; // = |ab|² up to rounding
    let len_ac = d2 - d6; // = |ac|²
    let bc1 = d4 - d3; // (p - b)·bc
    let bc2 = d5 - d6; // (c - p)·bc
    let len_bc = bc1 + bc2; // = |bc|²
    let t_ab = (d1 / len_ab).max(zero).min(one);
    let t_ac = (d2 / len_ac).max(zero).min(one);
    let t_bc = (bc1 / len_bc).max(zero).min(one);
    let q_ab = a + ab * t_ab;
    let q_ac = a + ac * t_ac;
    let q_bc = b + bc * t_bc;

    let in_a = d1.le(zero) & d2.le(zero);
    let in_b = d3.ge(zero) & d4.le(d3);
    let in_c = d6.ge(zero) & d5.le(d6);
    let in_ab = vc.le(zero) & d1.ge(zero) & d3.le(zero) & len_ab.gt(zero);
    let in_ca = vb.le(zero) & d2.ge(zero) & d6.le(zero) & len_ac.gt(zero);
    let in_bc = va.le(zero) & bc1.ge(zero) & bc2.ge(zero) & len_bc.gt(zero);
    let denom = va + vb + vc;

    // Fallback (inconsistent signs): nearest clamped edge point, ties to the
    // earlier of AB, CA, BC. The squared distances are formed from the
    // offsets relative to the vertices (`q_ab - p = ab·t_ab - ap`), not from
    // the rounded points: far from the origin a point's rounding (an ulp of
    // its coordinates) would swamp the difference between the face's and
    // an edge's distance that the face test below compares.
    let s_ab = (ab * t_ab - ap).length_squared();
    let s_ac = (ac * t_ac - ap).length_squared();
    let s_bc = (bc * t_bc - bp).length_squared();
    let ca_better = s_ac.lt(s_ab);
    let mut point = V3::select(ca_better, q_ac, q_ab);
    let mut bary =
        V3::select(ca_better, V3::new(one - t_ac, zero, t_ac), V3::new(one - t_ab, t_ab, zero));
    let mut region = L::select(
        ca_better,
        L::splat(TriangleRegion::CA.code()),
        L::splat(TriangleRegion::AB.code()),
    );
    let bc_better = s_bc.lt(s_ab.min(s_ac));
    point = V3::select(bc_better, q_bc, point);
    bary = V3::select(bc_better, V3::new(zero, one - t_bc, t_bc), bary);
    region = L::select(bc_better, L::splat(TriangleRegion::BC.code()), region);

    // Face: barycentrics from the signed areas.
    let v = vb / denom;
    let w = vc / denom;
    let q_face = a + ab * v + ac * w;
    // In exact arithmetic the foot on the plane is at least as close as any
    // edge point; requiring it in f32 too stops a sliver triangle, whose
    // weights are rounding noise, from returning a far point of the face.
    let s_face = (ab * v + ac * w - ap).length_squared();
    let in_face = va.ge(zero)
        & vb.ge(zero)
        & vc.ge(zero)
        & denom.gt(zero)
        & s_face.le(s_ab.min(s_ac).min(s_bc));
    point = V3::select(in_face, q_face, point);
    // v, w ∈ [0, 1]: vb, vc >= 0 and the rounded sum denom >= each of them
    // (rounding is monotonic). 1 - v - w can round below 0 by an ulp; the
    // weights are promised in [0, 1], so that one is clamped.
    bary = V3::select(in_face, V3::new((one - v - w).max(zero), v, w), bary);
    region = L::select(in_face, L::splat(TriangleRegion::Face.code()), region);

    // Regions in reverse priority, so that the first match in Ericson's order wins.
    let cases = [
        (in_bc, q_bc, V3::new(zero, one - t_bc, t_bc), TriangleRegion::BC),
        (in_ca, q_ac, V3::new(one - t_ac, zero, t_ac), TriangleRegion::CA),
        (in_c, c, V3::new(zero, zero, one), TriangleRegion::C),
        (in_ab, q_ab, V3::new(one - t_ab, t_ab, zero), TriangleRegion::AB),
        (in_b, b, V3::new(zero, one, zero), TriangleRegion::B),
        (in_a, a, V3::new(one, zero, zero), TriangleRegion::A),
    ];
    for (m, q, w3, r) in cases {
        point = V3::select(m, q, point);
        bary = V3::select(m, w3, bary);
        region = L::select(m, L::splat(r.code()), region);
    }

    let nan = L::splat(f32::NAN);
    let nan3 = V3::splat(nan);
    TriangleClosest {
        point: V3::select(valid, point, nan3),
        bary: V3::select(valid, bary, nan3),
        region: L::select(valid, region, nan),
    }
}

/// Squared distance from `p` to the closed triangle `tri`: `|q - p|²` for the
/// point `q` of [`closest_point_triangle`] (NaN for invalid lanes). Error bound:
/// `simd-notes.md`, "point–triangle".
///
/// ```
/// use widephase::closest::sq_dist_point_triangle;
/// use widephase::{Triangle, Vec3};
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// assert_eq!(sq_dist_point_triangle(Vec3::new(1.0, 1.0, 0.0), &tri), 0.0); // on the hypotenuse
/// assert_eq!(sq_dist_point_triangle(Vec3::new(-3.0, -4.0, 0.0), &tri), 25.0);
/// ```
#[inline(always)]
pub fn sq_dist_point_triangle<L: Lane>(p: V3<L>, tri: &Triangle<L>) -> L {
    (closest_point_triangle(p, tri).point - p).length_squared()
}
