//! Exact references for the convex family (sphere–sphere, triangle–triangle,
//! OBB–OBB), independent of the crate's code.
//!
//! Every finite f32 is `m·2^e`, so a set of f32 values sharing one power-of-two
//! frame is a set of integers: the references convert their inputs to
//! [`BigInt`]s in a common frame ([`Frame`]) and then only add, subtract,
//! multiply and compare — exact, and an order of magnitude faster than
//! rationals with their gcds, which matters at 100 000 cases per predicate.
//!
//! The triangle and OBB references are exact separating-axis tests over an
//! axis set that is complete for *any* pair of convex polytopes given by points
//! and edge directions (see [`sat_separated`]); they are cross-checked against
//! `exact::origin_in_hull`/`hulls_intersect`, which uses no axis list at all.

use super::super::exact::{Q, QV3};
use num_bigint::BigInt;
use num_traits::{Signed, Zero};
use std::cmp::Ordering;
use widephase::{Obb, Sphere, Triangle, Vec3};

/// `u = 2^-24`; the bands below are `K·u·M` with `K` a power of two, so the
/// comparison `|x| <= K·u·M` is `|x|·2^(24 - log2 K) <= M` in integers.
pub const BAND_SHIFT_32U: u32 = 19; // 32u = 2^-19

/// An exact integer 3-vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IV3 {
    pub x: BigInt,
    pub y: BigInt,
    pub z: BigInt,
}

impl IV3 {
    pub fn zero() -> IV3 {
        IV3 { x: BigInt::zero(), y: BigInt::zero(), z: BigInt::zero() }
    }
    pub fn sub(&self, o: &IV3) -> IV3 {
        IV3 { x: &self.x - &o.x, y: &self.y - &o.y, z: &self.z - &o.z }
    }
    pub fn add(&self, o: &IV3) -> IV3 {
        IV3 { x: &self.x + &o.x, y: &self.y + &o.y, z: &self.z + &o.z }
    }
    pub fn dot(&self, o: &IV3) -> BigInt {
        &self.x * &o.x + &self.y * &o.y + &self.z * &o.z
    }
    pub fn cross(&self, o: &IV3) -> IV3 {
        IV3 {
            x: &self.y * &o.z - &self.z * &o.y,
            y: &self.z * &o.x - &self.x * &o.z,
            z: &self.x * &o.y - &self.y * &o.x,
        }
    }
    pub fn scale(&self, s: &BigInt) -> IV3 {
        IV3 { x: &self.x * s, y: &self.y * s, z: &self.z * s }
    }
    pub fn abs(&self) -> IV3 {
        IV3 { x: self.x.abs(), y: self.y.abs(), z: self.z.abs() }
    }
    pub fn max(&self, o: &IV3) -> IV3 {
        IV3 {
            x: (&self.x).max(&o.x).clone(),
            y: (&self.y).max(&o.y).clone(),
            z: (&self.z).max(&o.z).clone(),
        }
    }
    pub fn is_zero(&self) -> bool {
        self.x.is_zero() && self.y.is_zero() && self.z.is_zero()
    }
    /// The unrounded magnitude of a cross product of two non-negative vectors:
    /// `m_i = a_j b_k + a_k b_j` (the permanent of the 2×2 minor).
    pub fn abs_cross(&self, o: &IV3) -> IV3 {
        IV3 {
            x: &self.y * &o.z + &self.z * &o.y,
            y: &self.z * &o.x + &self.x * &o.z,
            z: &self.x * &o.y + &self.y * &o.x,
        }
    }
}

/// A common power-of-two frame for a set of f32 values: value `v` is the
/// integer `v·2^-e` where `2^e` is the smallest ulp among them.
pub struct Frame {
    e: i32,
}

fn f32_parts(x: f32) -> (i64, i32) {
    let bits = x.to_bits();
    let sign = if bits >> 31 == 1 { -1i64 } else { 1 };
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = (bits & 0x7f_ffff) as i64;
    if exp == 0 {
        (sign * frac, -149)
    } else {
        (sign * (frac | 0x80_0000), exp - 150)
    }
}

impl Frame {
    pub fn of(values: &[f32]) -> Frame {
        let e = values.iter().filter(|v| **v != 0.0).map(|v| f32_parts(*v).1).min().unwrap_or(0);
        Frame { e }
    }
    pub fn int(&self, x: f32) -> BigInt {
        assert!(x.is_finite());
        if x == 0.0 {
            return BigInt::zero();
        }
        let (m, e) = f32_parts(x);
        BigInt::from(m) << (e - self.e) as usize
    }
    pub fn v(&self, p: Vec3) -> IV3 {
        IV3 { x: self.int(p.x), y: self.int(p.y), z: self.int(p.z) }
    }
    /// The value of one integer unit, `2^e`, as `f64`.
    pub fn unit(&self) -> f64 {
        2f64.powi(self.e)
    }
    /// The frame's unit `2^-e` as an integer can be huge; this is `1` in the
    /// frame, i.e. `2^(-e)` — used to balance degrees. Only valid for `e <= 0`.
    pub fn one(&self) -> BigInt {
        if self.e <= 0 {
            BigInt::from(1) << (-self.e) as usize
        } else {
            panic!("frame with positive exponent has no integer unit")
        }
    }
}

/// Both triangles' vertices in one frame, and all finite.
pub fn tri_finite(t: &Triangle) -> bool {
    t.vertices().iter().all(|p| p.is_finite())
}

// ---------------------------------------------------------------- spheres --

/// Exact: do the closed balls intersect? (`|c_b - c_a|^2 <= (r_a + r_b)^2`,
/// negative radius = empty, non-finite = no.)
pub fn sphere_sphere(a: &Sphere, b: &Sphere) -> bool {
    let ok = |s: &Sphere| s.center.is_finite() && s.radius.is_finite() && s.radius >= 0.0;
    if !ok(a) || !ok(b) {
        return false;
    }
    let (d2, r2) = sphere_terms(a, b);
    d2 <= r2
}

fn sphere_terms(a: &Sphere, b: &Sphere) -> (Q, Q) {
    let d = &QV3::f(b.center) - &QV3::f(a.center);
    let r = Q::f(a.radius) + Q::f(b.radius);
    (d.len2(), &r * &r)
}

/// Exact: is the pair inside the documented ulp band of sphere–sphere,
/// `|D² - R²| <= 6u·(D² + R²) + 2^-147`?
pub fn sphere_sphere_in_band(a: &Sphere, b: &Sphere) -> bool {
    let (d2, r2) = sphere_terms(a, b);
    let lhs = (&d2 - &r2).abs();
    let rhs = Q::int(6) * Q::f(widephase::UNIT_ROUNDOFF) * (&d2 + &r2)
        + Q::f(2.0f32.powi(-126)) * Q::f(2.0f32.powi(-21));
    lhs <= rhs
}

// ------------------------------------------------------- generic exact SAT --

/// One axis of an exact SAT: the axis and its unrounded magnitude.
pub struct Axis {
    pub l: IV3,
    pub mag: IV3,
}

/// The candidate axes complete for two convex polytopes whose edges are
/// parallel to the (non-zero) directions `dirs` (each with a magnitude vector
/// used only for the band), `d0` a vector from a point of B to a point of A.
///
/// Why complete: the Minkowski difference `M = A ⊕ (-B)` has edges parallel to
/// the edges of A and B. If `M` is 3-D its facets are spanned by two edge
/// directions (axes `e_i × e_j`); if 2-D, by the plane normal `N = e_i × e_j`
/// and the in-plane facet normals `N × e_k`; if 1-D (all edges parallel to
/// `e`), by `e` and the component of `d0` orthogonal to it, `e × (d0 × e)`;
/// if 0-D, by `d0`. `second_order` adds the 2-D/1-D/0-D families (needed only
/// when some shape is degenerate: for two full-dimensional-in-their-plane
/// triangles or two solid boxes the first family suffices, and for two
/// non-degenerate triangles the coplanar case is covered by `n × e`).
pub fn candidate_axes(dirs: &[(IV3, IV3)], d0: &(IV3, IV3), second_order: bool) -> Vec<Axis> {
    let mut out = Vec::new();
    let mut push = |l: IV3, mag: IV3| {
        if !l.is_zero() {
            out.push(Axis { l, mag });
        }
    };
    let n = dirs.len();
    let mut firsts = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let l = dirs[i].0.cross(&dirs[j].0);
            let m = dirs[i].1.abs_cross(&dirs[j].1);
            firsts.push((l.clone(), m.clone()));
            push(l, m);
        }
    }
    if second_order {
        for (nl, nm) in &firsts {
            for d in dirs {
                push(nl.cross(&d.0), nm.abs_cross(&d.1));
            }
        }
        for d in dirs {
            push(d.0.clone(), d.1.clone());
            let t = d0.0.cross(&d.0);
            let tm = d0.1.abs_cross(&d.1);
            push(d.0.cross(&t), d.1.abs_cross(&tm));
        }
        push(d0.0.clone(), d0.1.clone());
    }
    out
}

/// Exact gap of the projections of two point sets on `l`:
/// `max(min_B - max_A, min_A - max_B)`; positive iff separated on `l`.
pub fn gap(l: &IV3, a: &[IV3], b: &[IV3]) -> BigInt {
    let pa: Vec<BigInt> = a.iter().map(|p| l.dot(p)).collect();
    let pb: Vec<BigInt> = b.iter().map(|p| l.dot(p)).collect();
    let (amin, amax) = (pa.iter().min().unwrap(), pa.iter().max().unwrap());
    let (bmin, bmax) = (pb.iter().min().unwrap(), pb.iter().max().unwrap());
    (bmin - amax).max(amin - bmax)
}

/// Exact SAT verdict: is some candidate axis separating?
pub fn sat_separated(axes: &[Axis], a: &[IV3], b: &[IV3]) -> bool {
    axes.iter().any(|ax| gap(&ax.l, a, b).sign() == num_bigint::Sign::Plus)
}

/// The band test shared by the SAT predicates: with `reach` the component-wise
/// max `|p|` over all points, each axis has magnitude `M = Σ mag_i·reach_i`,
/// and a disagreement with `exact_hit` is inside the band when
/// - exact separated: no axis separates by more than `2^-shift·M`;
/// - exact touching/overlapping: some axis has a gap `>= -2^-shift·M`.
pub fn sat_in_band(
    axes: &[Axis],
    a: &[IV3],
    b: &[IV3],
    reach: &IV3,
    exact_hit: bool,
    shift: u32,
) -> bool {
    let mut near_touch = false;
    for ax in axes {
        let g = gap(&ax.l, a, b);
        let m = ax.mag.dot(reach);
        let scaled = &g << shift as usize;
        if exact_hit {
            if -&scaled <= m {
                near_touch = true;
            }
        } else if scaled > m {
            return false; // separated beyond the band on this axis
        }
    }
    if exact_hit {
        near_touch
    } else {
        true
    }
}

// -------------------------------------------------------------- triangles --

/// A triangle pair in one integer frame, relative to `A.a`.
pub struct TriFrame {
    pub a: Vec<IV3>,
    pub b: Vec<IV3>,
    pub ea: Vec<IV3>,
    pub eb: Vec<IV3>,
    pub reach: IV3,
}

pub fn tri_frame(ta: &Triangle, tb: &Triangle) -> TriFrame {
    let vals: Vec<f32> =
        ta.vertices().iter().chain(tb.vertices().iter()).flat_map(|p| [p.x, p.y, p.z]).collect();
    let f = Frame::of(&vals);
    let o = f.v(ta.a);
    let a: Vec<IV3> = ta.vertices().iter().map(|p| f.v(*p).sub(&o)).collect();
    let b: Vec<IV3> = tb.vertices().iter().map(|p| f.v(*p).sub(&o)).collect();
    let edges = |p: &[IV3]| vec![p[1].sub(&p[0]), p[2].sub(&p[1]), p[0].sub(&p[2])];
    let mut reach = IV3::zero();
    for p in a.iter().chain(b.iter()) {
        reach = reach.max(&p.abs());
    }
    TriFrame { ea: edges(&a), eb: edges(&b), a, b, reach }
}

impl TriFrame {
    /// Edge directions with their band magnitudes `|e| + 2·reach` (the kernel
    /// forms edges from coordinates rounded relative to `A.a`, each off by up
    /// to `u·reach`), and `d0 = A.a - B.a`.
    fn dirs(&self) -> (Vec<(IV3, IV3)>, (IV3, IV3)) {
        let r2 = self.reach.add(&self.reach);
        let dirs =
            self.ea.iter().chain(self.eb.iter()).map(|e| (e.clone(), e.abs().add(&r2))).collect();
        let d0 = self.a[0].sub(&self.b[0]);
        let d0m = d0.abs().add(&r2);
        (dirs, (d0, d0m))
    }
    pub fn degenerate(&self) -> bool {
        self.ea[0].cross(&self.a[2]).is_zero()
            || self.eb[0].cross(&self.b[2].sub(&self.b[0])).is_zero()
    }
    /// The complete axis list for this pair: for two non-degenerate triangles
    /// `nA`, `nB`, the nine `eA_i × eB_j` and the in-plane normals `n × e`
    /// (coplanar case); for a degenerate one, the full closure of
    /// [`candidate_axes`].
    pub fn axes(&self) -> Vec<Axis> {
        let (dirs, d0) = self.dirs();
        if self.degenerate() {
            return candidate_axes(&dirs, &d0, true);
        }
        let mut out = Vec::new();
        let na = (dirs[0].0.cross(&dirs[1].0), dirs[0].1.abs_cross(&dirs[1].1));
        let nb = (dirs[3].0.cross(&dirs[4].0), dirs[3].1.abs_cross(&dirs[4].1));
        for i in 0..3 {
            for j in 3..6 {
                out.push(Axis {
                    l: dirs[i].0.cross(&dirs[j].0),
                    mag: dirs[i].1.abs_cross(&dirs[j].1),
                });
            }
        }
        for n in [&na, &nb] {
            for d in &dirs {
                out.push(Axis { l: n.0.cross(&d.0), mag: n.1.abs_cross(&d.1) });
            }
        }
        out.push(Axis { l: na.0, mag: na.1 });
        out.push(Axis { l: nb.0, mag: nb.1 });
        out.retain(|a| !a.l.is_zero());
        out
    }
    /// All axes (both families), for the band check.
    pub fn all_axes(&self) -> Vec<Axis> {
        let (dirs, d0) = self.dirs();
        candidate_axes(&dirs, &d0, true)
    }
}

/// Exact: do the closed triangles intersect (degenerate ones as the segment or
/// point they are)? `false` on non-finite input.
pub fn triangle_triangle(ta: &Triangle, tb: &Triangle) -> bool {
    if !tri_finite(ta) || !tri_finite(tb) {
        return false;
    }
    let f = tri_frame(ta, tb);
    !sat_separated(&f.axes(), &f.a, &f.b)
}

/// Exact: is a disagreement with `exact_hit` inside the documented band of the
/// triangle–triangle predicates (32u of each axis' unrounded magnitude)?
pub fn triangle_triangle_in_band(ta: &Triangle, tb: &Triangle, exact_hit: bool) -> bool {
    let f = tri_frame(ta, tb);
    sat_in_band(&f.all_axes(), &f.a, &f.b, &f.reach, exact_hit, BAND_SHIFT_32U)
}

// ------------------------------------------------------------------- OBBs --

pub fn obb_finite_valid(o: &Obb) -> bool {
    o.center.is_finite()
        && o.axes.iter().all(|a| a.is_finite())
        && o.half.is_finite()
        && o.half.x >= 0.0
        && o.half.y >= 0.0
        && o.half.z >= 0.0
}

/// An OBB pair as exact integers: lengths (centers, half extents) in one frame
/// and axes in another; `one` balances degrees (an axis component times `one`
/// is in length·axis units).
pub struct ObbFrame {
    pub t: IV3,
    pub ha: [BigInt; 3],
    pub hb: [BigInt; 3],
    pub aa: [IV3; 3],
    pub ab: [IV3; 3],
    pub one: BigInt,
}

pub fn obb_frame(a: &Obb, b: &Obb) -> ObbFrame {
    let lens: Vec<f32> =
        [a.center, b.center, a.half, b.half].iter().flat_map(|p| [p.x, p.y, p.z]).collect();
    let dirs: Vec<f32> =
        a.axes.iter().chain(b.axes.iter()).flat_map(|p| [p.x, p.y, p.z]).chain([1.0]).collect();
    let fl = Frame::of(&lens);
    let fd = Frame::of(&dirs);
    let h = |v: Vec3| [fl.int(v.x), fl.int(v.y), fl.int(v.z)];
    ObbFrame {
        t: fl.v(b.center).sub(&fl.v(a.center)),
        ha: h(a.half),
        hb: h(b.half),
        aa: [fd.v(a.axes[0]), fd.v(a.axes[1]), fd.v(a.axes[2])],
        ab: [fd.v(b.axes[0]), fd.v(b.axes[1]), fd.v(b.axes[2])],
        one: fd.one(),
    }
}

/// One axis of the OBB reference: exact overlap `r_A + r_B - |t·L|` (in units
/// length·dir³) and band magnitude.
pub struct ObbAxis {
    pub index: usize,
    pub l: IV3,
    pub overlap: BigInt,
    pub mag: BigInt,
    pub tl: BigInt,
}

impl ObbFrame {
    fn radius(&self, h: &[BigInt; 3], ax: &[IV3; 3], l: &IV3) -> (BigInt, BigInt) {
        let mut r = BigInt::zero();
        let mut m = BigInt::zero();
        let labs = l.abs();
        for i in 0..3 {
            r += &h[i] * ax[i].dot(l).abs();
            m += &h[i] * ax[i].abs().dot(&labs);
        }
        (r, m)
    }
    /// The 15 axes of the kernel in its index order (face normals as cross
    /// products of the given axes, then `A_i × B_j`), with their unrounded
    /// magnitudes; zero axes are kept (overlap >= 0 on them).
    pub fn axes15(&self) -> Vec<ObbAxis> {
        let mut out = Vec::new();
        for k in 0..15 {
            let (x, y) = match k {
                0..=2 => (&self.aa[(k + 1) % 3], &self.aa[(k + 2) % 3]),
                3..=5 => (&self.ab[(k - 2) % 3], &self.ab[(k - 1) % 3]),
                _ => (&self.aa[(k - 6) / 3], &self.ab[(k - 6) % 3]),
            };
            let l = x.cross(y);
            let lm = x.abs().abs_cross(&y.abs());
            out.push(self.axis(k, l, lm));
        }
        out
    }
    fn axis(&self, index: usize, l: IV3, lm: IV3) -> ObbAxis {
        let (ra, ma) = self.radius(&self.ha, &self.aa, &l);
        let (rb, mb) = self.radius(&self.hb, &self.ab, &l);
        let tl = self.t.dot(&l) * &self.one;
        let tm = self.t.abs().dot(&lm) * &self.one;
        let _ = &lm;
        ObbAxis { index, overlap: ra + rb - tl.abs(), mag: ma + mb + tm, l, tl }
    }
    /// Second-order axes (needed only when a box is flat: `h = 0` on some axis).
    pub fn second_order(&self) -> Vec<ObbAxis> {
        let mut dirs: Vec<&IV3> = Vec::new();
        for i in 0..3 {
            if !self.ha[i].is_zero() {
                dirs.push(&self.aa[i]);
            }
            if !self.hb[i].is_zero() {
                dirs.push(&self.ab[i]);
            }
        }
        let mut out = Vec::new();
        let n = dirs.len();
        for i in 0..n {
            for j in i + 1..n {
                let nrm = dirs[i].cross(dirs[j]);
                let nm = dirs[i].abs().abs_cross(&dirs[j].abs());
                for d in &dirs {
                    let l = nrm.cross(d);
                    let lm = nm.abs_cross(&d.abs());
                    if !l.is_zero() {
                        out.push(self.axis(99, l, lm));
                    }
                }
            }
        }
        // 1-D / 0-D families: every box edge direction, e × (t × e), and t itself
        // (t has length units: lift the axes to the same degree by `one`).
        for d in &dirs {
            let dd = d.scale(&self.one);
            out.push(self.axis(99, dd.scale(&self.one), d.abs().scale(&self.one).scale(&self.one)));
            let txe = self.t.cross(d);
            let l = d.cross(&txe);
            if !l.is_zero() {
                let lm = d.abs().abs_cross(&self.t.abs().abs_cross(&d.abs()));
                out.push(self.axis(99, l, lm));
            }
        }
        if !self.t.is_zero() {
            // 0-D: both boxes are points; the axis is t itself (length units).
            let tm = self.t.abs();
            out.push(self.axis(99, self.t.clone(), tm));
        }
        let _ = n;
        out
    }
    pub fn flat(&self) -> bool {
        self.ha.iter().chain(self.hb.iter()).any(|h| h.is_zero())
    }
}

/// The value of one integer unit of the length frame of [`obb_frame`], as
/// `f64` (to convert exact depths back to world units in diagnostics).
pub fn obb_frame_length_unit(a: &Obb, b: &Obb) -> f64 {
    let lens: Vec<f32> =
        [a.center, b.center, a.half, b.half].iter().flat_map(|p| [p.x, p.y, p.z]).collect();
    Frame::of(&lens).unit()
}

/// Exact: do the closed OBBs (the parallelepipeds spanned by their axes as
/// given) intersect? `false` on invalid input.
pub fn obb_obb(a: &Obb, b: &Obb) -> bool {
    if !obb_finite_valid(a) || !obb_finite_valid(b) {
        return false;
    }
    let f = obb_frame(a, b);
    if f.axes15().iter().any(|ax| ax.overlap.is_negative()) {
        return false;
    }
    if f.flat() && f.second_order().iter().any(|ax| ax.overlap.is_negative()) {
        return false;
    }
    true
}

/// Exact: is a disagreement with `exact_hit` inside the OBB band (32u of each
/// axis' unrounded magnitude, over the 15 axes and, for flat boxes, the
/// second-order ones)?
pub fn obb_obb_in_band(a: &Obb, b: &Obb, exact_hit: bool) -> bool {
    let f = obb_frame(a, b);
    let mut axes = f.axes15();
    if f.flat() {
        axes.extend(f.second_order());
    }
    let mut near = false;
    for ax in &axes {
        if ax.l.is_zero() {
            continue;
        }
        let s = &ax.overlap << BAND_SHIFT_32U as usize;
        if exact_hit {
            if s <= ax.mag {
                near = true;
            }
        } else if -s > ax.mag {
            return false;
        }
    }
    !exact_hit || near
}

/// The 8 corners of an OBB, exactly.
pub fn obb_corners(o: &Obb) -> Vec<QV3> {
    let c = QV3::f(o.center);
    let h = [Q::f(o.half.x), Q::f(o.half.y), Q::f(o.half.z)];
    let ax: Vec<QV3> = o.axes.iter().map(|a| QV3::f(*a)).collect();
    let mut out = Vec::new();
    for s in 0..8 {
        let mut p = c.clone();
        for i in 0..3 {
            let v = ax[i].scale(&h[i]);
            p = if (s >> i) & 1 == 1 { &p + &v } else { &p - &v };
        }
        out.push(p);
    }
    out
}

/// Exact, independent of any axis list: `0 ∈ conv{a_i - b_j}` on the corners.
pub fn obb_obb_hull(a: &Obb, b: &Obb) -> bool {
    let ca = obb_corners(a);
    let cb = obb_corners(b);
    let mut d = Vec::new();
    for p in &ca {
        for q in &cb {
            d.push(p - q);
        }
    }
    super::super::exact::origin_in_hull(&d)
}

/// Sign helper for diagnostics.
pub fn cmp_zero(x: &BigInt) -> Ordering {
    x.cmp(&BigInt::zero())
}
