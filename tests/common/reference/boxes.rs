//! Exact references for the box family: triangle–AABB, sphere–AABB, AABB–AABB.
//!
//! Each returns the exact answer and, per separating-axis margin, whether the
//! configuration lies inside the documented ulp band (the error bound of
//! `simd-notes.md`, evaluated exactly on exact magnitudes).

use crate::common::exact::{D, DV3, Q, QV3};
use widephase::overlap::{
    SPHERE_AABB_ABS, SPHERE_AABB_K, TRI_AABB_ABS, TRI_AABB_EDGE_K, TRI_AABB_NORMAL_K,
};
use widephase::{Aabb, Sphere, Triangle};

/// Exact verdict plus band information.
#[derive(Debug, Clone, Copy)]
pub struct Verdict {
    /// exact arithmetic says the closed shapes touch or overlap
    pub intersects: bool,
    /// some axis has |margin| <= bound (a disagreement of the default variant
    /// is allowed only then, and only on such axes)
    pub default_may_differ: bool,
}

fn all_finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Exact triangle–AABB by the 13-axis SAT on exact quantities (exact edge
/// vectors, exact center and half extents), in dyadic arithmetic. Returns
/// `None` for inputs outside the predicate's domain (non-finite, inverted box):
/// those answer `false` by the NaN rule, tested separately.
///
/// The band (`default_may_differ`) costs as much again; it is computed only when
/// `with_band` is set (callers ask for it when a kernel disagrees).
pub fn triangle_aabb_with(t: &Triangle, b: &Aabb, with_band: bool) -> Option<Verdict> {
    let coords: Vec<f32> =
        [t.a, t.b, t.c, b.min, b.max].iter().flat_map(|v| v.to_array()).collect();
    if !all_finite(&coords) || b.min.x > b.max.x || b.min.y > b.max.y || b.min.z > b.max.z {
        return None;
    }
    let tv = [DV3::f(t.a), DV3::f(t.b), DV3::f(t.c)];
    let mn = DV3::f(b.min);
    let mx = DV3::f(b.max);
    let c = (&mn + &mx).half();
    let h = (&mx - &mn).half();
    let v: Vec<DV3> = tv.iter().map(|p| p - &c).collect();
    let f = [&tv[1] - &tv[0], &tv[2] - &tv[1], &tv[0] - &tv[2]];

    let abs = D::f(TRI_AABB_ABS);
    let ke = D::f(TRI_AABB_EDGE_K);
    let kn = D::f(TRI_AABB_NORMAL_K);
    let minpos = D::f(f32::MIN_POSITIVE);
    // Wm_k = max_j |V_j.k| + |C_k|
    let wm: Vec<D> = if with_band {
        (0..3)
            .map(|k| {
                let m = v.iter().map(|p| p.get(k).abs()).max().unwrap();
                &m + &c.get(k).abs()
            })
            .collect()
    } else {
        Vec::new()
    };

    // margins: (exact margin S = clearance - radius, bound). Separated iff S > 0.
    let mut margins: Vec<(D, D)> = Vec::with_capacity(13);
    // face axes: exact comparisons in the kernel too, bound 0
    for k in 0..3 {
        let lo = tv.iter().map(|p| p.get(k).clone()).min().unwrap();
        let hi = tv.iter().map(|p| p.get(k).clone()).max().unwrap();
        let s1 = &lo - mx.get(k); // > 0: triangle above the box
        let s2 = mn.get(k) - &hi; // > 0: below
        margins.push((s1.max(s2), D::zero()));
    }
    // edge axes a = u_k × f_i
    for e in &f {
        let axes = [
            DV3::new(D::zero(), -e.z.clone(), e.y.clone()),
            DV3::new(e.z.clone(), D::zero(), -e.x.clone()),
            DV3::new(-e.y.clone(), e.x.clone(), D::zero()),
        ];
        for (k, a) in axes.iter().enumerate() {
            let ps: Vec<D> = v.iter().map(|p| a.dot(p)).collect();
            let lo = ps.iter().min().unwrap().clone();
            let hi = ps.iter().max().unwrap().clone();
            let clear = (-hi).max(lo);
            let r = &(&(&h.x * &a.x.abs()) + &(&h.y * &a.y.abs())) + &(&h.z * &a.z.abs());
            let bound = if with_band {
                // K (|a_i|(Wm_j + H_j) + |a_j|(Wm_i + H_i)) + ABS(|a_i| + |a_j|) + ABS
                let (i, j) = [(1, 2), (0, 2), (0, 1)][k];
                let term = &(&a.get(i).abs() * &(&wm[i] + h.get(i)))
                    + &(&a.get(j).abs() * &(&wm[j] + h.get(j)));
                &(&(&ke * &term) + &(&abs * &(&a.get(i).abs() + &a.get(j).abs()))) + &abs
            } else {
                D::zero()
            };
            margins.push((&clear - &r, bound));
        }
    }
    // normal axis
    let n = f[0].cross(&f[1]);
    let s = n.dot(&v[0]).abs();
    let r = &(&(&h.x * &n.x.abs()) + &(&h.y * &n.y.abs())) + &(&h.z * &n.z.abs());
    let bound = if with_band {
        let (f0, f1) = (&f[0], &f[1]);
        let nabs = [
            &(&f0.y * &f1.z).abs() + &(&f0.z * &f1.y).abs(),
            &(&f0.z * &f1.x).abs() + &(&f0.x * &f1.z).abs(),
            &(&f0.x * &f1.y).abs() + &(&f0.y * &f1.x).abs(),
        ];
        let mut acc = D::zero();
        for (k, nk) in nabs.iter().enumerate() {
            let w = &(&(&v[0].get(k).abs() + &c.get(k).abs()) + h.get(k)) + &minpos;
            acc = &acc + &(nk * &w);
        }
        &(&kn * &acc) + &abs
    } else {
        D::zero()
    };
    margins.push((&s - &r, bound));

    let intersects = margins.iter().all(|(m, _)| !m.is_pos());
    let in_band = |(m, b): &(D, D)| &m.abs() <= b;
    let default_may_differ = with_band
        && if intersects {
            // a false "separated" needs an axis whose margin is within its bound
            margins.iter().any(in_band)
        } else {
            // a false "overlap" needs every separating axis within its bound
            margins.iter().filter(|(m, _)| m.is_pos()).all(in_band)
        };
    Some(Verdict { intersects, default_may_differ })
}

/// [`triangle_aabb_with`] including the band.
pub fn triangle_aabb(t: &Triangle, b: &Aabb) -> Option<Verdict> {
    triangle_aabb_with(t, b, true)
}

/// Exact sphere–AABB: squared distance from the center to the box vs r².
pub fn sphere_aabb(s: &Sphere, b: &Aabb) -> Option<Verdict> {
    let coords = [
        s.center.x, s.center.y, s.center.z, s.radius, b.min.x, b.min.y, b.min.z, b.max.x, b.max.y,
        b.max.z,
    ];
    if !all_finite(&coords)
        || s.radius < 0.0
        || b.min.x > b.max.x
        || b.min.y > b.max.y
        || b.min.z > b.max.z
    {
        return None;
    }
    let c = QV3::f(s.center);
    let mn = QV3::f(b.min);
    let mx = QV3::f(b.max);
    let mut d2 = Q::zero();
    for k in 0..3 {
        let d = (mn.get(k) - c.get(k)).max(c.get(k) - mx.get(k)).max(Q::zero());
        d2 = &d2 + &(&d * &d);
    }
    let r = Q::f(s.radius);
    let r2 = &r * &r;
    let margin = &d2 - &r2;
    let bound = &(&Q::f(SPHERE_AABB_K) * &(&d2 + &r2)) + &Q::f(SPHERE_AABB_ABS);
    Some(Verdict { intersects: !margin.is_pos(), default_may_differ: margin.abs() <= bound })
}

/// Exact AABB–AABB (no band: the predicate involves no rounding).
pub fn aabb_aabb(a: &Aabb, b: &Aabb) -> Option<bool> {
    let ok = |x: &Aabb| x.min.x <= x.max.x && x.min.y <= x.max.y && x.min.z <= x.max.z;
    let coords: Vec<f32> = [a.min, a.max, b.min, b.max].iter().flat_map(|v| v.to_array()).collect();
    if !all_finite(&coords) || !ok(a) || !ok(b) {
        return None;
    }
    let (a0, a1, b0, b1) = (QV3::f(a.min), QV3::f(a.max), QV3::f(b.min), QV3::f(b.max));
    Some((0..3).all(|k| a0.get(k) <= b1.get(k) && b0.get(k) <= a1.get(k)))
}
