//! Seeded workloads for benchmarks: pairs of shapes at a chosen hit rate.
//!
//! Used by `widephase bench` and the criterion benches, and public so benchmark
//! authors can reproduce the published figures with the same inputs.

use crate::shapes::{Aabb, Sphere, Triangle};
use crate::Vec3;

/// A tiny seeded generator (SplitMix64): reproducible inputs, no dependency.
pub struct SplitMix(pub u64);
impl SplitMix {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// A point uniform in [lo, hi)^3.
    pub fn p(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(lo + (hi - lo) * self.f(), lo + (hi - lo) * self.f(), lo + (hi - lo) * self.f())
    }
}

/// Triangle–box pairs, voxelizer-shaped: every box lies inside the triangle's
/// bounding box (so the cheap face-axis rejection never decides), and a fraction
/// `hit_rate` of them straddle the triangle.
pub fn tri_box_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<Triangle>, Vec<Aabb>) {
    let mut r = SplitMix(seed);
    let mut tris = Vec::with_capacity(n);
    let mut boxes = Vec::with_capacity(n);
    let h = 0.05;
    while tris.len() < n {
        let c = r.p(0.0, 100.0);
        let t = Triangle::new(c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0));
        let want_hit = r.f() < hit_rate;
        let (s, u) = (r.f(), r.f());
        let (s, u) = if s + u > 1.0 { (1.0 - s, 1.0 - u) } else { (s, u) };
        let p = if want_hit {
            // a point on the triangle: the box around it intersects
            t.a + (t.b - t.a) * s + (t.c - t.a) * u
        } else {
            // a point inside the triangle's bounding box
            let lo = t.a.min(t.b).min(t.c);
            let hi = t.a.max(t.b).max(t.c);
            lo + (hi - lo).mul_elem(r.p(0.0, 1.0))
        };
        let b = Aabb::new(p - Vec3::splat(h), p + Vec3::splat(h));
        if !want_hit && crate::overlap::triangle_aabb_conservative(&t, &b) {
            continue;
        }
        tris.push(t);
        boxes.push(b);
    }
    (tris, boxes)
}

/// Sphere–box pairs: the centre sits outside a box corner and the radius is
/// 1 % above or below the corner distance, so a fraction `hit_rate` touch.
pub fn sphere_box_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<Sphere>, Vec<Aabb>) {
    let mut r = SplitMix(seed);
    let mut s = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    for _ in 0..n {
        let o = r.p(0.0, 100.0);
        let bx = Aabb::new(o, o + r.p(0.5, 1.5));
        let hit = r.f() < hit_rate;
        // centre outside the box near a corner; radius decides the outcome
        let c = bx.max + r.p(0.2, 1.0);
        let d = (c - bx.max).length();
        s.push(Sphere::new(c, if hit { d * 1.01 } else { d * 0.99 }));
        b.push(bx);
    }
    (s, b)
}

/// Box–box pairs of unit boxes, a fraction `hit_rate` overlapping, the rest
/// shifted just clear along x.
pub fn box_box_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<Aabb>, Vec<Aabb>) {
    let mut r = SplitMix(seed);
    let mut a = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    for _ in 0..n {
        let o = r.p(0.0, 100.0);
        let ba = Aabb::new(o, o + Vec3::splat(1.0));
        let hit = r.f() < hit_rate;
        let shift =
            if hit { r.p(-0.9, 0.9) } else { Vec3::new(1.1 + r.f(), r.f() - 0.5, r.f() - 0.5) };
        a.push(ba);
        b.push(Aabb::new(ba.min + shift, ba.max + shift));
    }
    (a, b)
}
