//! Contacts for spheres, capsules, boxes-vs-spheres and triangles, and the
//! narrow-phase pipeline (issue 6).
//!
//! - Analytic cases with known normal, depth and points.
//! - 10k+ seeded random pairs per pair type: hit rate in a representative
//!   range; scalar vs `f32x4`/`f32x8`/`f32x16` bit-identical with every pair in
//!   every lane position; contact points on both surfaces; depth equal to the
//!   penetration computed independently (f64 closest distances, or the
//!   crate's scalar `closest` functions); the margin rule.
//! - NaN / degenerate inputs never panic and follow the documented rule.
//! - Pipeline = scalar testers pair by pair (swapped pairs included), for 1 and
//!   2 threads and every lane width.

use crate::common::rng;

use wide::{f32x16, f32x4, f32x8};
use widephase::closest::{
    closest_points_segment_triangle, sq_dist_point_obb, sq_dist_point_triangle,
};
use widephase::contact::pipeline::{
    contacts_with, swap_roles, BoxBox, BoxTriangle, CapsuleBox, CapsuleCapsule, CapsuleTriangle,
    SphereBox, SphereCapsule, SphereSphere, SphereTriangle,
};
use widephase::contact::{self, contacts, Collider, ContactTester, Manifold};
use widephase::pack::{extract, transpose, LanePod, Packable};
use widephase::{Capsule, Obb, Segment, Sphere, Triangle, Vec3};

const PAIRS: usize = 12_000;

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

fn close3(a: Vec3, b: Vec3, tol: f32) -> bool {
    close(a.x, b.x, tol) && close(a.y, b.y, tol) && close(a.z, b.z, tol)
}

fn bits(m: &Manifold) -> Vec<u32> {
    bytemuck::cast_slice::<Manifold, f32>(core::slice::from_ref(m))
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

// ------------------------------------------------------------ f64 references --

type D3 = [f64; 3];
fn d3(p: Vec3) -> D3 {
    [p.x as f64, p.y as f64, p.z as f64]
}
fn sub(a: D3, b: D3) -> D3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: D3, b: D3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn len(a: D3) -> f64 {
    dot(a, a).sqrt()
}
fn lerp(a: D3, b: D3, t: f64) -> D3 {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}
/// Distance from `p` to the segment `[a, b]` in f64.
fn dist_point_seg(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    let p = d3(p);
    len(sub(p, closest_on_seg(p, a, b)))
}
/// The f64 closest point of the segment `[a, b]` to the f64 point `p`.
fn closest_on_seg(p: D3, a: Vec3, b: Vec3) -> D3 {
    let (a, b) = (d3(a), d3(b));
    let ab = sub(b, a);
    let e = dot(ab, ab);
    lerp(a, b, if e == 0.0 { 0.0 } else { (dot(sub(p, a), ab) / e).clamp(0.0, 1.0) })
}
/// Distance of two segments in f64: the distance function is convex in (s, t),
/// so nested ternary searches converge to the minimum.
fn dist_seg_seg(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> f64 {
    let (a0, a1) = (d3(a0), d3(a1));
    let f = |s: f64| {
        let p = lerp(a0, a1, s);
        dist_point_seg(Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32), b0, b1).min({
            // the f32 rounding of p above is too coarse; redo exactly
            len(sub(p, closest_on_seg(p, b0, b1)))
        })
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0))
}

// ----------------------------------------------------------------- generators --

struct Gen(fastrand::Rng);
impl Gen {
    fn f(&mut self, lo: f32, hi: f32) -> f32 {
        rng::uniform(&mut self.0, lo, hi)
    }
    fn p(&mut self, lo: f32, hi: f32) -> Vec3 {
        rng::point(&mut self.0, lo, hi)
    }
    fn sphere(&mut self, c: Vec3) -> Sphere {
        Sphere::new(c + self.p(-0.5, 0.5), self.f(0.2, 1.0))
    }
    fn capsule(&mut self, c: Vec3) -> Capsule {
        let h = self.p(-1.0, 1.0);
        let c = c + self.p(-0.5, 0.5);
        Capsule::new(c - h, c + h, self.f(0.2, 0.6))
    }
    /// A rotated box (rotation from a random unit quaternion, in f64).
    fn obb(&mut self, c: Vec3) -> Obb {
        let ax = rng::rotation(&mut self.0);
        Obb::new(c + self.p(-0.3, 0.3), ax, self.p(0.25, 1.0))
    }
    fn triangle(&mut self, c: Vec3) -> Triangle {
        Triangle::new(c + self.p(-1.5, 1.5), c + self.p(-1.5, 1.5), c + self.p(-1.5, 1.5))
    }
}

fn gen_pairs<A, B>(
    seed: u64,
    spread: f32,
    mut fa: impl FnMut(&mut Gen, Vec3) -> A,
    mut fb: impl FnMut(&mut Gen, Vec3) -> B,
) -> Vec<(A, B)> {
    let mut g = Gen(fastrand::Rng::with_seed(seed));
    (0..PAIRS)
        .map(|_| {
            let c = g.p(-50.0, 50.0);
            let a = fa(&mut g, c);
            let off = g.p(-spread, spread);
            (a, fb(&mut g, c + off))
        })
        .collect()
}

// ------------------------------------------------------------- width checks --

/// Every pair in every lane position of every width gives the scalar manifold
/// bit for bit.
fn check_widths<T: ContactTester>(pairs: &[(T::A, T::B)], margin: f32)
where
    T::A: Copy,
    T::B: Copy,
{
    let scalar: Vec<Manifold> = pairs
        .iter()
        .map(|(a, b)| {
            let (pa, pb) = (transpose::<T::A, f32>(&[*a]), transpose::<T::B, f32>(&[*b]));
            extract::<Manifold, f32>(&T::test::<f32>(&pa, &pb, margin), 0)
        })
        .collect();
    fn width<T: ContactTester, L: LanePod>(pairs: &[(T::A, T::B)], want: &[Manifold], margin: f32)
    where
        T::A: Copy,
        T::B: Copy,
    {
        let w = L::WIDTH;
        let n = pairs.len();
        for shift in 0..w {
            // pair i sits in lane (i + shift) % w: every pair visits every lane
            let order: Vec<usize> = (0..n + w).map(|k| (k + n - shift) % n).collect();
            for chunk in order.chunks_exact(w) {
                let sa: Vec<T::A> = chunk.iter().map(|&i| pairs[i].0).collect();
                let sb: Vec<T::B> = chunk.iter().map(|&i| pairs[i].1).collect();
                let m = T::test::<L>(
                    &transpose::<T::A, L>(&sa),
                    &transpose::<T::B, L>(&sb),
                    L::splat(margin),
                );
                for (j, &i) in chunk.iter().enumerate() {
                    let got = extract::<Manifold, L>(&m, j);
                    assert_eq!(
                        bits(&got),
                        bits(&want[i]),
                        "{} width {w} lane {j} pair {i}",
                        T::NAME
                    );
                }
            }
        }
    }
    width::<T, f32x4>(pairs, &scalar, margin);
    width::<T, f32x8>(pairs, &scalar, margin);
    width::<T, f32x16>(pairs, &scalar, margin);
}

/// Common manifold invariants: count in range, zero tail, unit normal, depths
/// within the margin, integer feature ids.
fn check_shape(m: &Manifold, margin: f32, what: &str) {
    let n = m.count as usize;
    assert!(m.count == n as f32 && n <= contact::MAX_CONTACTS, "{what}: count {}", m.count);
    if n == 0 {
        assert_eq!(bits(m), bits(&Manifold::EMPTY), "{what}: empty manifold not zeroed");
        return;
    }
    assert!(close(m.normal.length(), 1.0, 1e-5), "{what}: normal {:?}", m.normal);
    for (k, p) in m.points.iter().enumerate() {
        if k < n {
            assert!(p.depth >= -margin - 1e-4, "{what}: depth {} below -margin", p.depth);
            assert!(
                p.feature_id.fract() == 0.0 && p.feature_id >= 0.0,
                "{what}: id {}",
                p.feature_id
            );
        } else {
            assert_eq!(p.position, Vec3::ZERO, "{what}: tail point not zero");
            assert_eq!((p.depth, p.feature_id), (0.0, 0.0));
        }
    }
}

fn hit_rate(ms: &[Manifold]) -> f64 {
    ms.iter().filter(|m| m.count > 0.0).count() as f64 / ms.len() as f64
}

fn run_scalar<T: ContactTester>(pairs: &[(T::A, T::B)], margin: f32) -> Vec<Manifold>
where
    T::A: Copy,
    T::B: Copy,
{
    pairs
        .iter()
        .map(|(a, b)| {
            let (pa, pb) = (transpose::<T::A, f32>(&[*a]), transpose::<T::B, f32>(&[*b]));
            extract::<Manifold, f32>(&T::test::<f32>(&pa, &pb, margin), 0)
        })
        .collect()
}

/// Tolerance for geometric checks at coordinates up to ~55.
const TOL: f32 = 2e-4;
const MARGIN: f32 = 0.1;

fn assert_rate(name: &str, ms: &[Manifold]) {
    let r = hit_rate(ms);
    eprintln!("{name}: hit rate {:.1}% of {}", 100.0 * r, ms.len());
    assert!((0.2..=0.8).contains(&r), "{name}: hit rate {r} outside [0.2, 0.8]");
}

/// `count > 0` must agree with the exact rule `depth_ref >= -margin` outside a
/// small band around the threshold.
fn check_decision(name: &str, i: usize, got: bool, depth_ref: f64, margin: f32) {
    let s = depth_ref + margin as f64;
    if s.abs() > 1e-4 {
        assert_eq!(got, s >= 0.0, "{name} pair {i}: contact {got}, reference depth {depth_ref}");
    }
}

// ------------------------------------------------------------ random pairs --

#[test]
fn sphere_sphere_random() {
    let pairs = gen_pairs(1, 1.6, |g, c| g.sphere(c), |g, c| g.sphere(c));
    let ms = run_scalar::<SphereSphere>(&pairs, MARGIN);
    assert_rate("sphere_sphere", &ms);
    for (i, ((a, b), m)) in pairs.iter().zip(&ms).enumerate() {
        check_shape(m, MARGIN, "sphere_sphere");
        let depth_ref = (a.radius + b.radius) as f64 - len(sub(d3(b.center), d3(a.center)));
        check_decision("sphere_sphere", i, m.count > 0.0, depth_ref, MARGIN);
        if m.count > 0.0 {
            let p = m.points[0];
            assert!(close(p.depth, depth_ref as f32, TOL));
            assert!(close((p.position - b.center).length(), b.radius, TOL));
            let pa = p.position + m.normal * p.depth;
            assert!(close((pa - a.center).length(), a.radius, TOL));
        }
    }
    check_widths::<SphereSphere>(&pairs, MARGIN);
}

#[test]
fn sphere_capsule_random() {
    let pairs = gen_pairs(2, 1.8, |g, c| g.sphere(c), |g, c| g.capsule(c));
    let ms = run_scalar::<SphereCapsule>(&pairs, MARGIN);
    assert_rate("sphere_capsule", &ms);
    for (i, ((a, b), m)) in pairs.iter().zip(&ms).enumerate() {
        check_shape(m, MARGIN, "sphere_capsule");
        let depth_ref = (a.radius + b.radius) as f64 - dist_point_seg(a.center, b.a, b.b);
        check_decision("sphere_capsule", i, m.count > 0.0, depth_ref, MARGIN);
        if m.count > 0.0 {
            let p = m.points[0];
            assert!(close(p.depth, depth_ref as f32, TOL), "{i}: {} vs {depth_ref}", p.depth);
            assert!(close(dist_point_seg(p.position, b.a, b.b) as f32, b.radius, TOL));
            let pa = p.position + m.normal * p.depth;
            assert!(close((pa - a.center).length(), a.radius, TOL));
        }
    }
    check_widths::<SphereCapsule>(&pairs, MARGIN);
}

/// Signed distance from `p` to the box (negative inside), via the crate's
/// scalar `sq_dist_point_obb` outside and the slab depths inside.
fn signed_dist_box(p: Vec3, b: &Obb) -> f64 {
    let sq = sq_dist_point_obb(p, b) as f64;
    if sq > 0.0 {
        return sq.sqrt();
    }
    let d = sub(d3(p), d3(b.center));
    (0..3)
        .map(|i| dot(d, d3(b.axes[i])).abs() - b.half.get(i) as f64)
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn sphere_box_random() {
    let pairs = gen_pairs(3, 1.9, |g, c| g.sphere(c), |g, c| g.obb(c));
    let ms = run_scalar::<SphereBox>(&pairs, MARGIN);
    assert_rate("sphere_box", &ms);
    let mut inside = 0;
    for (i, ((a, b), m)) in pairs.iter().zip(&ms).enumerate() {
        check_shape(m, MARGIN, "sphere_box");
        let sd = signed_dist_box(a.center, b);
        inside += (sd < 0.0) as usize;
        let depth_ref = a.radius as f64 - sd;
        check_decision("sphere_box", i, m.count > 0.0, depth_ref, MARGIN);
        if m.count > 0.0 {
            let p = m.points[0];
            assert!(close(p.depth, depth_ref as f32, TOL), "{i}: {} vs {depth_ref}", p.depth);
            // on the box's boundary
            assert!(signed_dist_box(p.position, b).abs() < 1e-4, "{i}: point off the box");
            let pa = p.position + m.normal * p.depth;
            assert!(close((pa - a.center).length(), a.radius, TOL));
        }
    }
    assert!(inside > 100, "deep (centre inside) cases exercised: {inside}");
    check_widths::<SphereBox>(&pairs, MARGIN);
}

#[test]
fn sphere_triangle_random() {
    let pairs = gen_pairs(4, 0.6, |g, c| g.sphere(c), |g, c| g.triangle(c));
    let ms = run_scalar::<SphereTriangle>(&pairs, MARGIN);
    assert_rate("sphere_triangle", &ms);
    for (i, ((a, t), m)) in pairs.iter().zip(&ms).enumerate() {
        check_shape(m, MARGIN, "sphere_triangle");
        let n = t.normal();
        let h = dot(d3(n), sub(d3(a.center), d3(t.a))) / len(d3(n));
        let dist = (sq_dist_point_triangle(a.center, t) as f64).sqrt();
        let depth_ref = a.radius as f64 - dist;
        if h.abs() > 1e-4 {
            let want_front = h > 0.0;
            if !want_front {
                assert_eq!(m.count, 0.0, "{i}: contact from behind the face");
                continue;
            }
            check_decision("sphere_triangle", i, m.count > 0.0, depth_ref, MARGIN);
        }
        if m.count > 0.0 {
            let p = m.points[0];
            assert!(close(p.depth, depth_ref as f32, TOL), "{i}: {} vs {depth_ref}", p.depth);
            assert!(sq_dist_point_triangle(p.position, t) < 1e-7, "{i}: point off the triangle");
            let pa = p.position + m.normal * p.depth;
            assert!(close((pa - a.center).length(), a.radius, TOL));
        }
    }
    check_widths::<SphereTriangle>(&pairs, MARGIN);
}

/// The random capsule pairs: a fifth of them near-parallel, to exercise the
/// two-point manifold.
fn capsule_capsule_pairs() -> Vec<(Capsule, Capsule)> {
    let pairs = gen_pairs(5, 1.7, |g, c| g.capsule(c), |g, c| g.capsule(c));
    let mut g = Gen(fastrand::Rng::with_seed(55));
    pairs
        .into_iter()
        .enumerate()
        .map(|(i, (a, b))| {
            if i % 5 != 0 {
                return (a, b);
            }
            let d = (a.b - a.a) * g.f(0.3, 1.2) + g.p(-0.02, 0.02);
            let c = (b.a + b.b) * 0.5;
            (a, Capsule::new(c - d * 0.5, c + d * 0.5, b.radius))
        })
        .collect()
}

/// The random capsule–triangle pairs: a fifth of the capsules lying over the
/// face, nearly level (two points).
fn capsule_triangle_pairs() -> Vec<(Capsule, Triangle)> {
    let pairs = gen_pairs(6, 0.7, |g, c| g.capsule(c), |g, c| g.triangle(c));
    let mut g = Gen(fastrand::Rng::with_seed(66));
    pairs
        .into_iter()
        .enumerate()
        .map(|(i, (a, t))| {
            let Some(n) = t.normal().try_normalize() else { return (a, t) };
            if i % 5 != 0 {
                return (a, t);
            }
            let centroid = (t.a + t.b + t.c) * (1.0 / 3.0);
            let along = (t.b - t.a) * g.f(0.05, 0.3) + n * g.f(-0.02, 0.02);
            let up = n * (a.radius + g.f(-0.15, 0.15));
            (Capsule::new(centroid - along + up, centroid + along + up, a.radius), t)
        })
        .collect()
}

#[test]
fn capsule_capsule_random() {
    let pairs = capsule_capsule_pairs();
    let ms = run_scalar::<CapsuleCapsule>(&pairs, MARGIN);
    assert_rate("capsule_capsule", &ms);
    let mut twos = 0;
    for (i, ((a, b), m)) in pairs.iter().zip(&ms).enumerate() {
        check_shape(m, MARGIN, "capsule_capsule");
        let dist = dist_seg_seg(a.a, a.b, b.a, b.b);
        let depth_ref = (a.radius + b.radius) as f64 - dist;
        check_decision("capsule_capsule", i, m.count > 0.0, depth_ref, MARGIN);
        if m.count == 1.0 {
            let p = m.points[0];
            assert!(close(p.depth, depth_ref as f32, TOL), "{i}: {} vs {depth_ref}", p.depth);
            assert!(close(dist_point_seg(p.position, b.a, b.b) as f32, b.radius, TOL));
            let pa = p.position + m.normal * p.depth;
            assert!(close(dist_point_seg(pa, a.a, a.b) as f32, a.radius, TOL));
        } else if m.count == 2.0 {
            twos += 1;
            // near-parallel axes at angle θ: each point is b(u) - r_b·n, on
            // B's surface up to r_b·(1 - cos θ) inside it; position +
            // depth·n is A's axis point under that end pushed out by r_a
            // along n, off A's surface only by the end's lateral offset λ
            // from the closest-point direction (λ <= (|B| + r_a + r_b +
            // margin)·sin θ) and by the axis angle (capsule_capsule docs)
            let (ra, rb) = (a.radius as f64, b.radius as f64);
            let ua = (a.b - a.a).try_normalize().unwrap();
            let sin = ua.cross((b.b - b.a).try_normalize().unwrap()).length() as f64;
            let lam = ((b.b - b.a).length() as f64 + ra + rb + MARGIN as f64) * sin;
            let b_lo = rb * ((1.0 - sin * sin).sqrt() - 1.0);
            let a_lo = (ra * ra - (sin * ra.max(rb + MARGIN as f64)).powi(2)).sqrt() - ra;
            let a_hi = (ra * ra + lam * lam).sqrt() - ra;
            let tol = TOL as f64;
            for p in m.contacts() {
                let db = dist_point_seg(p.position, b.a, b.b) - rb;
                assert!(db <= tol && db >= b_lo - tol, "{i}: point off B by {db} (sin {sin})");
                let pa = p.position + m.normal * p.depth;
                let da = dist_point_seg(pa, a.a, a.b) - ra;
                assert!(da <= a_hi + tol && da >= a_lo - tol, "{i}: point+depth·n off A by {da}");
                assert!(p.depth <= depth_ref as f32 + TOL, "{i}: end deeper than the pair");
            }
        }
    }
    assert!(twos > 200, "two-point manifolds exercised: {twos}");
    check_widths::<CapsuleCapsule>(&pairs, MARGIN);
}

/// Angle between `n` and the f64 direction `w`.
fn angle_to(n: Vec3, w: D3) -> f64 {
    let n = d3(n);
    let c = [n[1] * w[2] - n[2] * w[1], n[2] * w[0] - n[0] * w[2], n[0] * w[1] - n[1] * w[0]];
    len(c).atan2(dot(n, w))
}

/// Far from the origin the one-point normals of capsule–capsule and
/// sphere–capsule lean from the f64 direction between the closest points
/// as little as at the origin. Formed from absolute points they leaned by
/// up to about `ulp(x)/d` (at 10⁴: capsule pairs resting within ±0.05 of
/// touching, 6 115 of 20 000 normals past 2⁻⁹ rad, up to 0.68; sphere–capsule
/// 1 359, up to 0.06).
#[test]
fn capsule_normals_far_from_the_origin_lean_as_little_as_at_it() {
    const MAX_LEAN: f64 = 1e-3;
    let mut g = Gen(rng::rng(71));
    for off in [0.0f32, 1e3, 1e4] {
        let o = v(off, 0.37 * off, -0.6 * off);
        let (mut worst_cc, mut worst_sc, mut n_cc, mut n_sc) = (0.0f64, 0.0f64, 0, 0);
        for i in 0..4000 {
            let (ra, rb) = (g.f(0.05, 0.4), g.f(0.05, 0.4));
            let (ua, ub) = (g.p(-1.0, 1.0), g.p(-1.0, 1.0));
            let n = g.p(-1.0, 1.0).try_normalize().unwrap_or(Vec3::Y);
            // cores about ra + rb ± 0.05 apart near o
            let ca = o + ua * g.f(-0.5, 0.5);
            let cb = ca + n * (ra + rb + g.f(-0.05, 0.05)) + ub * g.f(-0.5, 0.5);
            let (a, b) = (Capsule::new(ca - ua, ca + ua, ra), Capsule::new(cb - ub, cb + ub, rb));
            let m = contact::capsule_capsule(&a, &b, MARGIN);
            // the f64 closest points: the distance is convex in A's
            // parameter, so a ternary search finds it
            let pair = |s: f64| {
                let p = lerp(d3(a.a), d3(a.b), s);
                (p, closest_on_seg(p, b.a, b.b))
            };
            let f = |s: f64| {
                let (p, q) = pair(s);
                len(sub(q, p))
            };
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for _ in 0..200 {
                let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
                if f(m1) <= f(m2) {
                    hi = m2;
                } else {
                    lo = m1;
                }
            }
            let (p, q) = pair(0.5 * (lo + hi));
            let w = sub(q, p);
            if m.count == 1.0 && len(w) > 1e-3 {
                let lean = angle_to(m.normal, w);
                assert!(lean <= MAX_LEAN, "at {off}, pair {i}: {a:?} {b:?} normal leans {lean}");
                worst_cc = worst_cc.max(lean);
                n_cc += 1;
            }
            let sph = Sphere::new(ca, ra);
            let m = contact::sphere_capsule(&sph, &b, MARGIN);
            let w = sub(closest_on_seg(d3(sph.center), b.a, b.b), d3(sph.center));
            if m.count > 0.0 && len(w) > 1e-3 {
                let lean = angle_to(m.normal, w);
                assert!(lean <= MAX_LEAN, "at {off}, pair {i}: {sph:?} {b:?} normal leans {lean}");
                worst_sc = worst_sc.max(lean);
                n_sc += 1;
            }
        }
        println!(
            "at {off}: capsule_capsule {n_cc} one-point, max lean {worst_cc:.2e}; sphere_capsule {n_sc}, max {worst_sc:.2e}"
        );
        assert!(n_cc > 3000 && n_sc > 3000, "{n_cc} {n_sc}");
    }
}

/// `pa` (a point's `position + depth·n`) is on capsule `a`'s surface or
/// inside it by at most `r·(1 - cos φ)`, φ the axis's tilt from the face of
/// `t` (`sin φ = |N·u|`): the slack of the points taken below an axis point.
fn assert_on_capsule_within_tilt(a: &Capsule, t: &Triangle, pa: Vec3, label: &str) {
    let u = (a.b - a.a).try_normalize().unwrap();
    let sin = (t.normal().try_normalize().unwrap().dot(u) as f64).abs();
    let (r, tol) = (a.radius as f64, TOL as f64);
    let da = dist_point_seg(pa, a.a, a.b) - r;
    let lo = r * ((1.0 - sin * sin).sqrt() - 1.0);
    assert!(da <= tol && da >= lo - tol, "{label}: point+depth·n off A by {da} (sin {sin})");
}

#[test]
fn capsule_triangle_random() {
    let pairs = capsule_triangle_pairs();
    let ms = run_scalar::<CapsuleTriangle>(&pairs, MARGIN);
    assert_rate("capsule_triangle", &ms);
    let (mut twos, mut throughs) = (0, 0);
    for (i, ((a, t), m)) in pairs.iter().zip(&ms).enumerate() {
        check_shape(m, MARGIN, "capsule_triangle");
        let cp = closest_points_segment_triangle(&Segment::new(a.a, a.b), t);
        let dist = (cp.sq_dist as f64).sqrt();
        let nrm = d3(t.normal());
        let hp = dot(nrm, sub(d3(cp.point1), d3(t.a))) / len(nrm);
        let depth_ref = a.radius as f64 - dist;
        if dist > 1e-3 && hp.abs() > 1e-3 {
            if hp < 0.0 {
                assert_eq!(m.count, 0.0, "{i}: contact from behind the face");
                continue;
            }
            check_decision("capsule_triangle", i, m.count > 0.0, depth_ref, MARGIN);
        }
        if m.count == 1.0 && dist > 1e-3 {
            let p = m.points[0];

            assert!(close(p.depth, depth_ref as f32, TOL), "{i}: {} vs {depth_ref}", p.depth);
            assert!(sq_dist_point_triangle(p.position, t) < 1e-7, "{i}: point off the triangle");
            let pa = p.position + m.normal * p.depth;
            assert!(close(dist_point_seg(pa, a.a, a.b) as f32, a.radius, TOL));
        } else if m.count == 1.0 && dist == 0.0 && t.normal().try_normalize().is_some() {
            // the axis through the triangle: its deepest point over the
            // triangle, projected on it; on A up to r·(1 - cos φ) (φ the
            // axis's tilt from the face), like the two-point rule below
            throughs += 1;
            let p = m.points[0];
            assert!(sq_dist_point_triangle(p.position, t) < 1e-7, "{i}: point off the triangle");
            assert_on_capsule_within_tilt(a, t, p.position + m.normal * p.depth, &format!("{i}"));
        } else if m.count == 2.0 {
            twos += 1;
            assert!(m.points.iter().take(2).any(|p| close(p.depth, depth_ref as f32, TOL)));
            let (r, tol) = (a.radius as f64, TOL as f64);
            for (p, end) in m.contacts().iter().zip([a.a, a.b]) {
                assert!(
                    sq_dist_point_triangle(p.position, t) < 1e-7,
                    "{i}: point off the triangle"
                );
                // the end's point on A is end - r·N, the lowest point of that
                // end's cap sphere: on A's surface when the axis is level,
                // inside it by at most r·(1 - cos φ) (the cylinder covers it)
                let pa = p.position + m.normal * p.depth;
                let on_cap = ((pa - end).length() as f64 - r).abs();
                assert!(on_cap <= tol, "{i}: point+depth·n off its end's cap by {on_cap}");
                assert_on_capsule_within_tilt(a, t, pa, &format!("{i}"));
            }
        }
    }
    assert!(twos > 50, "two-point manifolds exercised: {twos}");
    assert!(throughs > 20, "axes through the triangle exercised: {throughs}");
    check_widths::<CapsuleTriangle>(&pairs, MARGIN);
}

/// A capsule whose axis goes through the triangle with its deeper end hanging
/// past an edge: the point is the axis's deepest point over the triangle
/// (where the edge's side plane cuts it), projected on the triangle, with its
/// own depth. (Reported before: the crossing point with the hanging end's
/// depth, `position + depth·n` 0.5 off the capsule.)
#[test]
fn capsule_through_a_triangle_is_clipped_to_the_triangle() {
    let v = Vec3::new;
    // front +Y; at z = 0 the triangle spans x in [-2, 2]
    let ground = Triangle::new(v(-4.0, 0.0, -4.0), v(0.0, 0.0, 4.0), v(4.0, 0.0, -4.0));
    let r = 0.3;
    let cap = Capsule::new(v(-1.5, 1.0, 0.0), v(4.5, -1.0, 0.0), r);
    let m = contact::capsule_triangle(&cap, &ground, 0.0);
    assert_eq!((m.count, m.normal), (1.0, -Vec3::Y), "{m:?}");
    let p = m.points[0];
    // clipped at x = 2 (edge b–c's side plane): t = 3.5/6, height 1 - 2t
    let h = 1.0 - 2.0 * (3.5f32 / 6.0);
    assert!(close3(p.position, v(2.0, 0.0, 0.0), 1e-5), "{m:?}");
    assert!(close(p.depth, r - h, 1e-5), "{m:?}");
    // inside A by at most r·(1 - cos φ), here 0.3·(1 - 3/√10)
    let da = dist_point_seg(p.position + m.normal * p.depth, cap.a, cap.b) - r as f64;
    let slack = r as f64 * (1.0 - 3.0 / 10f64.sqrt());
    assert!(da <= 1e-5 && da >= -slack - 1e-5, "off A by {da}");
    // the deeper end over the triangle: the point is below it, on A's cap
    let cap = Capsule::new(v(-1.5, 1.0, 0.0), v(1.5, -1.0, 0.0), r);
    let m = contact::capsule_triangle(&cap, &ground, 0.0);
    let p = m.points[0];
    assert!(close3(p.position, v(1.5, 0.0, 0.0), 1e-6) && close(p.depth, r + 1.0, 1e-6), "{m:?}");
    assert_eq!(p.feature_id, 6.0 + 8.0 * 2.0, "face × end 1");
    assert!(close3(p.position + m.normal * p.depth, cap.b - Vec3::Y * r, 1e-6));
}

// ------------------------------------------------------- feature-id stability --

/// `c` moved by `k` frames of a tiny motion: translation `step·dir` and a
/// rotation by `step` rad about `axis` through its midpoint, per frame (f64).
fn drifted(c: &Capsule, dir: Vec3, axis: Vec3, step: f64, k: usize) -> Capsule {
    let ang = step * k as f64;
    let ax = d3(axis);
    let ax = [ax[0] / len(ax), ax[1] / len(ax), ax[2] / len(ax)];
    let (sn, cs) = ang.sin_cos();
    let mid = lerp(d3(c.a), d3(c.b), 0.5);
    let shift = d3(dir);
    let turn = |p: Vec3| {
        let v = sub(d3(p), mid);
        let kv =
            [ax[1] * v[2] - ax[2] * v[1], ax[2] * v[0] - ax[0] * v[2], ax[0] * v[1] - ax[1] * v[0]];
        let kd = dot(ax, v);
        let r: [f64; 3] = core::array::from_fn(|i| {
            mid[i] + v[i] * cs + kv[i] * sn + ax[i] * kd * (1.0 - cs) + shift[i] * ang
        });
        v3d(r)
    };
    Capsule::new(turn(c.a), turn(c.b), c.radius)
}

fn v3d(p: D3) -> Vec3 {
    v(p[0] as f32, p[1] as f32, p[2] as f32)
}

/// Feature ids over a sequence of manifolds: whether every frame has the
/// first frame's id set, and the largest move of a point between two frames
/// that both hold its id.
fn id_history(ms: &[Manifold]) -> (bool, f32) {
    let ids = |m: &Manifold| {
        let mut v: Vec<u32> = m.contacts().iter().map(|p| p.feature_id as u32).collect();
        v.sort();
        v
    };
    let stable = ms.iter().all(|m| ids(m) == ids(&ms[0]));
    let mut jump = 0.0f32;
    for w in ms.windows(2) {
        for p in w[1].contacts() {
            for q in w[0].contacts().iter().filter(|q| q.feature_id == p.feature_id) {
                jump = jump.max((p.position - q.position).length());
            }
        }
    }
    (stable, jump)
}

const FRAMES: usize = 30;
/// Per-frame step: 1e-5 of translation and 1e-5 rad of rotation.
const STEP: f64 = 1e-5;

/// Random pairs with a contact at least 0.01 deep, B (`moved`) drifting by
/// tiny steps over `FRAMES` frames: the share keeping the same id set in
/// every frame, and the largest frame-to-frame move of a point keeping its
/// id among the stable two-point manifolds (whose ids name the two ends; a
/// single closest point may slide along near-parallel features).
fn random_id_stability<A: Copy, B: Copy>(
    pairs: &[(A, B)],
    test: impl Fn(&A, &B) -> Manifold,
    moved: impl Fn(&A, &B, Vec3, Vec3, usize) -> (A, B),
) -> (usize, usize, f32, usize) {
    let mut g = Gen(fastrand::Rng::with_seed(99));
    let (mut persisting, mut stable, mut jump, mut twos) = (0, 0, 0.0f32, 0);
    for (a, b) in pairs {
        let (dir, axis) = (g.p(-1.0, 1.0), g.p(-1.0, 1.0) + v(0.0, 0.0, 1e-3));
        let m0 = test(a, b);
        if m0.count == 0.0 || m0.contacts().iter().any(|p| p.depth < 0.01) {
            continue;
        }
        let ms: Vec<Manifold> = (0..=FRAMES)
            .map(|k| {
                let (x, y) = moved(a, b, dir, axis, k);
                test(&x, &y)
            })
            .collect();
        if ms.iter().any(|m| m.count == 0.0) {
            continue;
        }
        persisting += 1;
        let (same, j) = id_history(&ms);
        if same {
            stable += 1;
            if m0.count == 2.0 {
                // the two ids name the two ends: each keeps to its end
                twos += 1;
                jump = jump.max(j);
            }
        }
    }
    (persisting, stable, jump, twos)
}

/// Ids of persisting contacts do not change under tiny motion: capsule–
/// capsule and capsule–triangle random pairs (B or the capsule drifting by
/// 1e-5 per frame, 30 frames), at least 99 % of them with one id set in
/// every frame (only pairs within ~3e-4 of a topology change may switch)
/// and in two-point manifolds each id's point moving with the motion (an
/// end never takes the other end's id).
/// And exactly where the geometry guarantees it: a capsule rocking (tilt
/// ±1e-4, so the deeper end alternates) and sliding along another or on a
/// triangle keeps ids {1, 2} / {14, 22}, each id at its own end; a crossing
/// capsule keeps id 0 and a capsule standing on a triangle id 14.
#[test]
fn capsule_feature_ids_survive_tiny_motion() {
    let drift_b = |a: &Capsule, b: &Capsule, dir, axis, k| (*a, drifted(b, dir, axis, STEP, k));
    let (n, same, jump, twos) = random_id_stability(
        &capsule_capsule_pairs(),
        |a, b| contact::capsule_capsule(a, b, MARGIN),
        drift_b,
    );
    eprintln!("capsule_capsule ids: {same} of {n} stable ({twos} two-point), jump {jump}");
    assert!(n > 3000 && twos > 200 && same * 100 >= n * 99, "{same} of {n}, {twos} two-point");
    // (the normal of near-parallel axes, ∝ u_a × u_b, turns by ~step/sin θ:
    // the points, b(u_i) - r_b·n, move by up to ~1e-3 a frame)
    assert!(jump < 1e-2, "a point kept its id but moved {jump}");
    let drift_a = |a: &Capsule, t: &Triangle, dir, axis, k| (drifted(a, dir, axis, STEP, k), *t);
    let (n, same, jump, twos) = random_id_stability(
        &capsule_triangle_pairs(),
        |a, t| contact::capsule_triangle(a, t, MARGIN),
        drift_a,
    );
    eprintln!("capsule_triangle ids: {same} of {n} stable ({twos} two-point), jump {jump}");
    assert!(n > 1000 && twos > 100 && same * 100 >= n * 99, "{same} of {n}, {twos} two-point");
    assert!(jump < 1e-3, "a point kept its id but moved {jump}");

    // exact: rocking and sliding, the id of each end's point never changes
    let a = Capsule::new(v(-2.0, 0.0, 0.0), v(2.0, 0.0, 0.0), 0.5);
    let ground = Triangle::new(v(-8.0, 0.0, -8.0), v(0.0, 0.0, 8.0), v(8.0, 0.0, -8.0));
    for k in 0..100 {
        let (s, e) = (1e-3 * k as f32, if k % 2 == 0 { 1e-4 } else { -1e-4 });
        let rocking = Capsule::new(v(-1.0 + s, 0.9 + e, 0.0), v(1.0 + s, 0.9 - e, 0.0), 0.5);
        let m = contact::capsule_capsule(&a, &rocking, 0.0);
        assert_eq!(m.count, 2.0, "frame {k}");
        let ends = [rocking.a.x, rocking.b.x];
        for (p, (id, x)) in m.contacts().iter().zip([1.0, 2.0].into_iter().zip(ends)) {
            assert!(p.feature_id == id && (p.position.x - x).abs() < 1e-3, "frame {k}: {m:?}");
        }
        let crossing = Capsule::new(v(s, 0.9 + e, -2.0), v(s, 0.9 - e, 2.0), 0.5);
        let m = contact::capsule_capsule(&a, &crossing, 0.0);
        assert_eq!((m.count, m.points[0].feature_id), (1.0, 0.0), "frame {k}");
        let lying = Capsule::new(v(-1.0 + s, 0.4 + e, 0.2), v(1.0 + s, 0.4 - e, 0.2), 0.5);
        let m = contact::capsule_triangle(&lying, &ground, 0.0);
        assert_eq!(m.count, 2.0, "frame {k}");
        let ends = [lying.a.x, lying.b.x];
        for (p, (id, x)) in m.contacts().iter().zip([14.0, 22.0].into_iter().zip(ends)) {
            assert!(p.feature_id == id && (p.position.x - x).abs() < 1e-6, "frame {k}: {m:?}");
        }
        let standing = Capsule::new(v(s, 0.4 + e, 0.3), v(s + 0.1, 2.4, 0.3), 0.5);
        let m = contact::capsule_triangle(&standing, &ground, 0.0);
        assert_eq!((m.count, m.points[0].feature_id), (1.0, 14.0), "frame {k}");
    }
}

// ----------------------------------------------------------------- analytic --

#[test]
fn analytic_spheres() {
    let a = Sphere::new(Vec3::ZERO, 1.0);
    let m = contact::sphere_sphere(&a, &Sphere::new(v(0.0, 0.0, 1.5), 1.0), 0.0);
    assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::Z, 0.5));
    assert_eq!(m.points[0].position, v(0.0, 0.0, 0.5));
    // 3-4-5 offset: exact normal
    let m = contact::sphere_sphere(&a, &Sphere::new(v(3.0, 4.0, 0.0), 4.5), 0.0);
    assert_eq!((m.normal, m.points[0].depth), (v(0.6, 0.8, 0.0), 0.5));
    // touching counts, depth exactly 0
    let m = contact::sphere_sphere(&a, &Sphere::new(v(-2.0, 0.0, 0.0), 1.0), 0.0);
    assert_eq!((m.count, m.points[0].depth, m.normal), (1.0, 0.0, -Vec3::X));
    // coincident centres: documented fallback normal +Y, depth r_a + r_b
    let m = contact::sphere_sphere(&a, &Sphere::new(Vec3::ZERO, 0.5), 0.0);
    assert_eq!((m.normal, m.points[0].depth), (Vec3::Y, 1.5));
    assert_eq!(contact::FALLBACK_NORMAL, [0.0, 1.0, 0.0]);
    // margin: 0.25 apart
    let b = Sphere::new(v(2.25, 0.0, 0.0), 1.0);
    assert_eq!(contact::sphere_sphere(&a, &b, 0.2).count, 0.0);
    let m = contact::sphere_sphere(&a, &b, 0.25);
    assert_eq!((m.count, m.points[0].depth), (1.0, -0.25));
    // tiny coordinates: the scaled normalisation keeps a unit normal
    let t = Sphere::new(v(1e-30, 0.0, 0.0), 1e-30);
    let m = contact::sphere_sphere(&Sphere::new(Vec3::ZERO, 1e-30), &t, 0.0);
    assert_eq!((m.count, m.normal), (1.0, Vec3::X));
    // huge coordinates
    let h = 1e12;
    let m =
        contact::sphere_sphere(&Sphere::new(v(h, 0.0, 0.0), h), &Sphere::new(v(h, 0.0, h), h), 0.0);
    assert_eq!((m.count, m.normal), (1.0, Vec3::Z));
}

#[test]
fn analytic_sphere_box() {
    let b = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
    let s = |c: Vec3, r: f32| contact::sphere_box(&Sphere::new(c, r), &b, 0.0);
    // face
    let m = s(v(0.0, 1.75, 0.0), 1.0);
    assert_eq!((m.normal, m.points[0].depth, m.points[0].position), (-Vec3::Y, 0.25, Vec3::Y));
    assert_eq!(m.points[0].feature_id, 6.0); // y above: 2·3
                                             // edge (x and y above): distance sqrt(0.5)
    let m = s(v(1.5, 1.5, 0.0), 1.0);
    let r = 0.5f32.sqrt();
    assert!(close3(m.normal, v(-r, -r, 0.0), 1e-6));
    assert!(close(m.points[0].depth, 1.0 - r, 1e-6));
    assert_eq!((m.points[0].position, m.points[0].feature_id), (v(1.0, 1.0, 0.0), 8.0));
    // vertex
    let m = s(v(1.5, 1.5, -1.5), 1.0);
    assert!(close(m.points[0].depth, 1.0 - 0.75f32.sqrt(), 1e-6));
    assert_eq!(m.points[0].position, v(1.0, 1.0, -1.0));
    assert_eq!(m.points[0].feature_id, 2.0 + 6.0 + 9.0);
    // centre inside, nearest the +y face: pushed out through it
    let m = s(v(0.2, 0.9, 0.0), 0.5);
    assert_eq!(
        (m.normal, m.points[0].position, m.points[0].feature_id),
        (-Vec3::Y, v(0.2, 1.0, 0.0), 6.0)
    );
    assert!(close(m.points[0].depth, 0.6, 1e-6));
    // centre exactly at the centre: ties go to x, + side
    let m = s(Vec3::ZERO, 0.5);
    assert_eq!((m.normal, m.points[0].depth, m.points[0].position), (-Vec3::X, 1.5, Vec3::X));
    // rotated 45° about z: resting on the edge x = y rotated onto +y
    let r = 0.5f32.sqrt();
    let rb = Obb::new(Vec3::ZERO, [v(r, r, 0.0), v(-r, r, 0.0), Vec3::Z], Vec3::splat(1.0));
    let m = contact::sphere_box(&Sphere::new(v(0.0, 3.0, 0.0), 2.0), &rb, 0.0);
    assert!(
        close3(m.normal, -Vec3::Y, 1e-6) && close(m.points[0].depth, 2.0f32.sqrt() - 1.0, 1e-5)
    );
    // speculative: 0.1 above the face, margin 0.2
    let m = contact::sphere_box(&Sphere::new(v(0.0, 2.1, 0.0), 1.0), &b, 0.2);
    assert!(m.count == 1.0 && close(m.points[0].depth, -0.1, 1e-6));
    assert_eq!(contact::sphere_box(&Sphere::new(v(0.0, 2.1, 0.0), 1.0), &b, 0.05).count, 0.0);
}

#[test]
fn analytic_capsules() {
    let a = Capsule::new(v(-2.0, 0.0, 0.0), v(2.0, 0.0, 0.0), 0.5);
    // crossing at right angles
    let m = contact::capsule_capsule(
        &a,
        &Capsule::new(v(0.5, 0.75, -2.0), v(0.5, 0.75, 2.0), 0.5),
        0.0,
    );
    assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::Y, 0.25));
    assert_eq!(m.points[0].position, v(0.5, 0.25, 0.0));
    // parallel and fully overlapping: two points at B's ends
    let m =
        contact::capsule_capsule(&a, &Capsule::new(v(-1.0, 0.0, 0.9), v(1.0, 0.0, 0.9), 0.5), 0.0);
    assert_eq!((m.count, m.normal), (2.0, Vec3::Z));
    assert!(close3(m.points[0].position, v(-1.0, 0.0, 0.4), 1e-6));
    assert!(close3(m.points[1].position, v(1.0, 0.0, 0.4), 1e-6));
    assert!(close(m.points[0].depth, 0.1, 1e-6) && close(m.points[1].depth, 0.1, 1e-6));
    assert_eq!((m.points[0].feature_id, m.points[1].feature_id), (1.0, 2.0));
    // parallel, end to end (no overlap in projection): one point
    let m =
        contact::capsule_capsule(&a, &Capsule::new(v(2.5, 0.0, 0.0), v(4.0, 0.0, 0.0), 0.5), 0.0);
    assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::X, 0.5));
    // axes intersecting: normal ⟂ both, oriented towards B's middle
    let b = Capsule::new(v(0.0, -1.0, -0.2), v(0.0, 1.0, 0.2), 0.5);
    let m = contact::capsule_capsule(&a, &b, 0.0);
    assert!(m.count == 1.0 && m.normal.z > 0.9 && close(m.points[0].depth, 1.0, 1e-6), "{m:?}");
    // collinear overlapping axes: perpendicular fallback, unit length
    let m =
        contact::capsule_capsule(&a, &Capsule::new(v(1.0, 0.0, 0.0), v(3.0, 0.0, 0.0), 0.5), 0.0);
    assert!(m.count >= 1.0 && close(m.normal.length(), 1.0, 1e-6) && m.normal.x == 0.0);
    // zero-length capsule behaves like a sphere
    let s = Sphere::new(v(0.3, 0.8, 0.1), 0.5);
    let pc = Capsule::new(s.center, s.center, s.radius);
    let m1 = contact::capsule_capsule(&pc, &a, 0.0);
    let m2 = contact::sphere_capsule(&s, &a, 0.0);
    assert_eq!(m1.count, 1.0);
    assert!(
        close3(m1.normal, m2.normal, 1e-6) && close(m1.points[0].depth, m2.points[0].depth, 1e-6)
    );
    assert!(close3(m1.points[0].position, m2.points[0].position, 1e-6));
    // sphere against the end cap
    let m = contact::sphere_capsule(&Sphere::new(v(3.0, 0.0, 0.0), 1.0), &a, 0.0);
    assert_eq!((m.normal, m.points[0].depth, m.points[0].feature_id), (-Vec3::X, 0.5, 2.0));
}

#[test]
fn analytic_triangles() {
    // ground triangle facing +y
    let t = Triangle::new(Vec3::ZERO, v(0.0, 0.0, 4.0), v(4.0, 0.0, 0.0));
    let st = |c: Vec3| contact::sphere_triangle(&Sphere::new(c, 1.0), &t, 0.0);
    // face
    let m = st(v(1.0, 0.5, 1.0));
    assert_eq!(
        (m.normal, m.points[0].depth, m.points[0].position),
        (-Vec3::Y, 0.5, v(1.0, 0.0, 1.0))
    );
    assert_eq!(m.points[0].feature_id, 6.0);
    // edge ab (x = 0), from the side and above
    let m = st(v(-0.6, 0.8, 1.0));
    assert!(close3(m.normal, v(0.6, -0.8, 0.0), 1e-6) && close(m.points[0].depth, 0.0, 1e-6));
    assert_eq!((m.points[0].position, m.points[0].feature_id), (v(0.0, 0.0, 1.0), 3.0));
    // vertex a
    let m = st(v(-0.5, 0.5, -0.5));
    assert_eq!((m.points[0].position, m.points[0].feature_id), (Vec3::ZERO, 0.0));
    assert!(close(m.points[0].depth, 1.0 - 0.75f32.sqrt(), 1e-6));
    // behind the face: one-sided, no contact; on the plane: contact, depth r
    assert_eq!(st(v(1.0, -0.5, 1.0)).count, 0.0);
    let m = st(v(1.0, 0.0, 1.0));
    assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, -Vec3::Y, 1.0));
    // beside the triangle, in its plane: edge contact from the side
    let m = st(v(-0.5, 0.0, 1.0));
    assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::X, 0.5));
    // degenerate (segment) triangle: two-sided, never panics
    let seg = Triangle::new(Vec3::ZERO, v(2.0, 0.0, 0.0), v(1.0, 0.0, 0.0));
    let m = contact::sphere_triangle(&Sphere::new(v(1.0, -0.5, 0.0), 1.0), &seg, 0.0);
    assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::Y, 0.5));
    let m = contact::sphere_triangle(&Sphere::new(v(1.0, 0.0, 0.0), 1.0), &seg, 0.0);
    assert_eq!((m.count, m.normal), (1.0, Vec3::Y));

    // capsule lying on the face: two points, depth per end
    let g = Triangle::new(v(-4.0, 0.0, -4.0), v(0.0, 0.0, 4.0), v(4.0, 0.0, -4.0));
    let c = Capsule::new(v(-1.0, 0.4, 0.0), v(1.0, 0.3, 0.0), 0.5);
    let m = contact::capsule_triangle(&c, &g, 0.0);
    assert_eq!((m.count, m.normal), (2.0, -Vec3::Y));
    assert!(close(m.points[0].depth, 0.1, 1e-6) && close(m.points[1].depth, 0.2, 1e-6));
    assert_eq!((m.points[0].feature_id, m.points[1].feature_id), (14.0, 22.0));
    // standing on one end: one point at the lower end
    let c = Capsule::new(v(0.0, 0.4, 0.0), v(0.0, 2.4, 0.0), 0.5);
    let m = contact::capsule_triangle(&c, &g, 0.0);
    assert_eq!((m.count, m.normal, m.points[0].position), (1.0, -Vec3::Y, Vec3::ZERO));
    assert!(close(m.points[0].depth, 0.1, 1e-6));
    assert_eq!(m.points[0].feature_id, 6.0 + 8.0);
    // one end over the edge: the other end's single point... or two if both over the face
    let c = Capsule::new(v(0.0, 0.4, 0.0), v(0.0, 0.4, 6.0), 0.5);
    let m = contact::capsule_triangle(&c, &g, 0.0);
    assert_eq!(m.count, 1.0);
    assert!(close(m.points[0].depth, 0.1, 1e-6));
    // piercing the triangle: normal -N, depth from the deeper end
    let c = Capsule::new(v(0.0, -0.5, 0.0), v(0.0, 1.0, 0.0), 0.25);
    let m = contact::capsule_triangle(&c, &g, 0.0);
    assert_eq!((m.count, m.normal), (1.0, -Vec3::Y));
    assert!(close(m.points[0].depth, 0.75, 1e-6));
    // from behind: none
    let c = Capsule::new(v(-1.0, -0.4, 0.0), v(1.0, -0.4, 0.0), 0.5);
    assert_eq!(contact::capsule_triangle(&c, &g, 0.0).count, 0.0);
}

#[test]
fn invalid_and_degenerate_inputs() {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let s = Sphere::new(Vec3::ZERO, 1.0);
    let c = Capsule::new(Vec3::ZERO, Vec3::X, 0.5);
    let b = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
    let t = Triangle::new(Vec3::ZERO, Vec3::Z, Vec3::X);
    let bad = [v(nan, 0.0, 0.0), v(inf, 0.0, 0.0), v(0.0, -inf, 0.0)];
    for p in bad {
        let ss = Sphere::new(p, 1.0);
        let cc = Capsule::new(Vec3::ZERO, p, 0.5);
        let tt = Triangle::new(Vec3::ZERO, p, Vec3::X);
        let bb = Obb::new(p, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
        for m in [
            contact::sphere_sphere(&ss, &s, 0.0),
            contact::sphere_capsule(&s, &cc, 0.0),
            contact::sphere_box(&ss, &b, 0.0),
            contact::sphere_box(&s, &bb, 0.0),
            contact::sphere_triangle(&s, &tt, 0.0),
            contact::capsule_capsule(&cc, &c, 0.0),
            contact::capsule_triangle(&c, &tt, 0.0),
            contact::capsule_triangle(&cc, &t, 0.0),
        ] {
            assert_eq!(bits(&m), bits(&Manifold::EMPTY), "{p:?}");
        }
    }
    // negative radius = empty; NaN or negative margin = no contact
    assert_eq!(contact::sphere_sphere(&s, &Sphere::new(Vec3::ZERO, -1.0), 0.0).count, 0.0);
    assert_eq!(
        contact::sphere_capsule(&s, &Capsule::new(Vec3::ZERO, Vec3::X, -0.1), 0.0).count,
        0.0
    );
    assert_eq!(contact::sphere_sphere(&s, &s, nan).count, 0.0);
    assert_eq!(contact::sphere_sphere(&s, &s, -1.0).count, 0.0);
    assert_eq!(contact::capsule_capsule(&c, &c, inf).count, 0.0);
    // zero radii: points and segments touch
    let p = Sphere::new(Vec3::ZERO, 0.0);
    assert_eq!(contact::sphere_sphere(&p, &p, 0.0).count, 1.0);
    assert_eq!(contact::sphere_box(&Sphere::new(Vec3::X, 0.0), &b, 0.0).points[0].depth, 0.0);
    let z = Capsule::new(Vec3::ZERO, Vec3::ZERO, 0.0);
    assert_eq!(contact::capsule_capsule(&z, &z, 0.0).normal, Vec3::Y);
    // point triangle, zero box
    let pt = Triangle::new(Vec3::X, Vec3::X, Vec3::X);
    assert_eq!(contact::sphere_triangle(&s, &pt, 0.0).count, 1.0);
    assert_eq!(contact::capsule_triangle(&c, &pt, 0.0).count, 1.0);
    let zb = Obb::new(Vec3::X, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::ZERO);
    assert_eq!(contact::sphere_box(&s, &zb, 0.0).count, 1.0);
    // padding values never hit
    let m = contact::sphere_sphere(&Sphere::PADDING, &Sphere::PADDING, 1.0);
    assert_eq!(m.count, 0.0);
    let m = contact::capsule_triangle(&Capsule::PADDING, &Triangle::PADDING, 1.0);
    assert_eq!(m.count, 0.0);
}

/// The documented rule for invalid inputs (module docs of `contact`: NaN/∞
/// coordinates, negative radii or half extents, a NaN, infinite or negative
/// margin give `count == 0`, and an empty manifold is all zeros) for one
/// pair type, field by field: every `f32` field of A, of B and the margin
/// set to NaN, +∞, -∞ (and -1 where a negative value is invalid: `neg_a`,
/// `neg_b`, the margin), through the scalar tester and in every lane
/// position of x4, x8 and x16 whose other lanes hold valid pairs in contact.
/// The bad lane is `Manifold::EMPTY` bit for bit; the others keep their
/// scalar manifolds.
fn check_invalid_fields<T: ContactTester>(pairs: &[(T::A, T::B)], neg_a: &[usize], neg_b: &[usize])
where
    T::A: bytemuck::Pod,
    T::B: bytemuck::Pod,
{
    let hits: Vec<(T::A, T::B)> = pairs
        .iter()
        .copied()
        .filter(|(a, b)| scalar_one::<T>(a, b, MARGIN).count > 0.0)
        .take(24)
        .collect();
    assert_eq!(hits.len(), 24, "{}: valid pairs in contact", T::NAME);
    let n = [size_of::<T::A>() / 4, size_of::<T::B>() / 4, 1];
    let mut bad = Vec::new();
    for (side, &fields) in n.iter().enumerate() {
        for k in 0..fields {
            let neg = [neg_a.contains(&k), neg_b.contains(&k), true][side];
            for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.0] {
                if x == -1.0 && !neg {
                    continue;
                }
                bad.push(BadField { side, k, x });
            }
        }
    }
    let empty = bits(&Manifold::EMPTY);
    for &case in &bad {
        for &pair in &hits[..4] {
            let (a, b, m) = corrupted::<T>(pair, case);
            let got = bits(&scalar_one::<T>(&a, &b, m));
            assert_eq!(got, empty, "{} scalar, bad field {case:?}", T::NAME);
        }
    }
    invalid_lanes::<T, f32x4>(&hits, &bad);
    invalid_lanes::<T, f32x8>(&hits, &bad);
    invalid_lanes::<T, f32x16>(&hits, &bad);
}

/// The invalid value `x` in field `k` of A (`side` 0), of B (1) or in the
/// margin (2).
#[derive(Clone, Copy, Debug)]
struct BadField {
    side: usize,
    k: usize,
    x: f32,
}

/// The scalar tester of `T` on one pair.
fn scalar_one<T: ContactTester>(a: &T::A, b: &T::B, m: f32) -> Manifold
where
    T::A: Copy,
    T::B: Copy,
{
    let (pa, pb) = (transpose::<T::A, f32>(&[*a]), transpose::<T::B, f32>(&[*b]));
    extract::<Manifold, f32>(&T::test::<f32>(&pa, &pb, m), 0)
}

/// The pair and margin with `bad` written in.
fn corrupted<T: ContactTester>((mut a, mut b): (T::A, T::B), bad: BadField) -> (T::A, T::B, f32)
where
    T::A: bytemuck::Pod,
    T::B: bytemuck::Pod,
{
    let mut m = MARGIN;
    match bad.side {
        0 => bytemuck::cast_slice_mut::<T::A, f32>(core::slice::from_mut(&mut a))[bad.k] = bad.x,
        1 => bytemuck::cast_slice_mut::<T::B, f32>(core::slice::from_mut(&mut b))[bad.k] = bad.x,
        _ => m = bad.x,
    }
    (a, b, m)
}

/// [`check_invalid_fields`] at width `L`: each bad field in each lane
/// position, the other lanes holding other valid pairs.
fn invalid_lanes<T: ContactTester, L: LanePod>(hits: &[(T::A, T::B)], bad: &[BadField])
where
    T::A: bytemuck::Pod,
    T::B: bytemuck::Pod,
{
    let w = L::WIDTH;
    for &case in bad {
        for pos in 0..w {
            let idx: Vec<usize> = (0..w).map(|j| (3 * pos + j) % hits.len()).collect();
            let mut lanes: Vec<(T::A, T::B, f32)> =
                idx.iter().map(|&i| (hits[i].0, hits[i].1, MARGIN)).collect();
            lanes[pos] = corrupted::<T>(hits[idx[pos]], case);
            let sa: Vec<T::A> = lanes.iter().map(|l| l.0).collect();
            let sb: Vec<T::B> = lanes.iter().map(|l| l.1).collect();
            let sm: Vec<f32> = lanes.iter().map(|l| l.2).collect();
            let m =
                T::test::<L>(&transpose::<T::A, L>(&sa), &transpose::<T::B, L>(&sb), L::load(&sm));
            for (j, &i) in idx.iter().enumerate() {
                let got = bits(&extract::<Manifold, L>(&m, j));
                let want = if j == pos {
                    bits(&Manifold::EMPTY)
                } else {
                    bits(&scalar_one::<T>(&hits[i].0, &hits[i].1, MARGIN))
                };
                assert_eq!(
                    got,
                    want,
                    "{} width {w}, bad {case:?} in lane {pos}, lane {j}",
                    T::NAME
                );
            }
        }
    }
}

/// [`check_invalid_fields`] for every pair type (sphere radius field 3,
/// capsule radius 6, box half extents 12..15).
#[test]
fn invalid_fields_give_empty_manifolds_in_every_lane() {
    let (s, c, b, t) = (&[3][..], &[6][..], &[12, 13, 14][..], &[][..]);
    let sphere = |g: &mut Gen, p| g.sphere(p);
    let capsule = |g: &mut Gen, p| g.capsule(p);
    let obb = |g: &mut Gen, p| g.obb(p);
    let tri = |g: &mut Gen, p| g.triangle(p);
    check_invalid_fields::<SphereSphere>(&gen_pairs(31, 1.6, sphere, sphere), s, s);
    check_invalid_fields::<SphereCapsule>(&gen_pairs(32, 1.6, sphere, capsule), s, c);
    check_invalid_fields::<SphereBox>(&gen_pairs(33, 1.6, sphere, obb), s, b);
    check_invalid_fields::<SphereTriangle>(&gen_pairs(34, 0.5, sphere, tri), s, t);
    check_invalid_fields::<CapsuleCapsule>(&gen_pairs(35, 1.6, capsule, capsule), c, c);
    check_invalid_fields::<CapsuleBox>(&gen_pairs(36, 1.6, capsule, obb), c, b);
    check_invalid_fields::<CapsuleTriangle>(&gen_pairs(37, 0.5, capsule, tri), c, t);
    check_invalid_fields::<BoxBox>(&gen_pairs(38, 1.6, obb, obb), b, b);
    check_invalid_fields::<BoxTriangle>(&gen_pairs(39, 0.5, obb, tri), b, t);
}

/// Degenerate shapes against triangles: a zero-length capsule is the sphere
/// it is (one point: sphere_triangle's normal, depth and point, id + 8),
/// over the face, its edges and vertices, on and behind the plane; a
/// collinear (segment) triangle is a two-sided segment for spheres and
/// capsules (depth against an f64 distance, normal from A to the segment,
/// one point, fallback +Y when the axis crosses it).
#[test]
fn degenerate_capsules_and_triangles() {
    let t = Triangle::new(v(0.0, 0.0, 0.0), v(0.0, 0.0, 4.0), v(4.0, 0.0, 0.0));
    let mut regions = Vec::new();
    for x in [-0.5f32, 0.0, 1.0, 3.5, 4.5] {
        for y in [-0.3f32, 0.0, 0.25, 0.6] {
            for z in [-0.5f32, 0.0, 1.0, 4.5] {
                let c = v(x, y, z);
                let sph = contact::sphere_triangle(&Sphere::new(c, 0.5), &t, 0.1);
                let cap = contact::capsule_triangle(&Capsule::new(c, c, 0.5), &t, 0.1);
                let label = format!("centre {c:?}: {cap:?} vs {sph:?}");
                assert_eq!(cap.count, sph.count, "{label}");
                if sph.count == 0.0 {
                    assert_eq!(bits(&cap), bits(&Manifold::EMPTY), "{label}");
                    continue;
                }
                regions.push(sph.points[0].feature_id);
                let (p, q) = (cap.points[0], sph.points[0]);
                assert!(close3(cap.normal, sph.normal, 1e-6), "{label}");
                assert!(close(p.depth, q.depth, 1e-6), "{label}");
                assert!(close3(p.position, q.position, 1e-6), "{label}");
                assert_eq!(p.feature_id, q.feature_id + 8.0, "{label}");
            }
        }
    }
    // vertex (0..3), edge (3..6) and face (6) regions all compared
    for r in [0.0..3.0, 3.0..6.0, 6.0..7.0] {
        assert!(regions.iter().any(|x| r.contains(x)), "{regions:?}");
    }

    // the segment triangle (-2,0,0)–(2,0,0) with its third vertex between
    let seg = Triangle::new(v(-2.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.5, 0.0, 0.0));
    let (s0, s1) = (seg.a, seg.b);
    // capsules across it from above, below and beside, and past its end
    for (a, b, r) in [
        (v(0.3, 0.7, -1.0), v(0.3, 0.7, 1.0), 0.5),
        (v(0.3, -0.6, -1.0), v(0.3, -0.6, 1.0), 0.5),
        (v(-1.0, 0.3, 0.4), v(-1.0, 0.9, 0.4), 0.6),
        (v(2.4, 0.3, -1.0), v(2.4, 0.3, 1.0), 0.6),
        (v(1.0, 0.5, -2.0), v(-1.0, 0.2, 2.0), 0.4),
    ] {
        let cap = Capsule::new(a, b, r);
        let m = contact::capsule_triangle(&cap, &seg, 0.3);
        let dist = dist_seg_seg(a, b, s0, s1);
        let label = format!("{cap:?}: {m:?}, distance {dist}");
        assert_eq!(m.count, 1.0, "{label}");
        let p = m.points[0];
        assert!(close(p.depth, (r as f64 - dist) as f32, 1e-5), "{label}");
        // the point is on the segment, the normal from the axis towards it
        assert!(dist_point_seg(p.position, s0, s1) < 1e-6, "{label}");
        let on_axis = p.position + m.normal * (p.depth - r);
        assert!(dist_point_seg(on_axis, a, b) < 1e-5, "{label}");
    }
    // the axis crossing the segment: distance 0, the fallback normal +Y and
    // the depth along it (B moved up by r + the axis' reach above it, 1.5)
    let m = contact::capsule_triangle(
        &Capsule::new(v(0.3, -1.0, 0.0), v(0.3, 1.0, 0.0), 0.5),
        &seg,
        0.0,
    );
    assert_eq!((m.count, m.normal, m.points[0].depth), (1.0, Vec3::Y, 1.5));
    // lying along the segment (parallel, overlapping): still one point
    let m = contact::capsule_triangle(
        &Capsule::new(v(-1.0, 0.4, 0.0), v(1.0, 0.4, 0.0), 0.5),
        &seg,
        0.0,
    );
    assert_eq!((m.count, m.normal), (1.0, -Vec3::Y));
    assert!(close(m.points[0].depth, 0.1, 1e-6));
    // spheres: beside the middle (both sides) and past an end (vertex)
    for (c, r) in [(v(1.0, 0.6, 0.8), 1.1), (v(1.0, -0.6, 0.8), 1.1), (v(2.6, 0.0, 0.8), 1.05)] {
        let m = contact::sphere_triangle(&Sphere::new(c, r), &seg, 0.0);
        let dist = dist_point_seg(c, s0, s1);
        let label = format!("sphere at {c:?}: {m:?}");
        assert_eq!(m.count, 1.0, "{label}");
        let p = m.points[0];
        assert!(close(p.depth, (r as f64 - dist) as f32, 1e-6), "{label}");
        assert!(dist_point_seg(p.position, s0, s1) < 1e-6, "{label}");
        assert!(close3(m.normal, (p.position - c) * (1.0 / dist as f32), 1e-6), "{label}");
    }
}

// ----------------------------------------------------------------- pipeline --

fn scalar_manifold(a: &Collider, b: &Collider, margin: f32) -> Manifold {
    use Collider as C;
    let direct = |a: &Collider, b: &Collider| -> Option<Manifold> {
        Some(match (a, b) {
            (C::Sphere(x), C::Sphere(y)) => contact::sphere_sphere(x, y, margin),
            (C::Sphere(x), C::Capsule(y)) => contact::sphere_capsule(x, y, margin),
            (C::Sphere(x), C::Box(y)) => contact::sphere_box(x, y, margin),
            (C::Sphere(x), C::Triangle(y)) => contact::sphere_triangle(x, y, margin),
            (C::Capsule(x), C::Capsule(y)) => contact::capsule_capsule(x, y, margin),
            (C::Capsule(x), C::Box(y)) => contact::capsule_box(x, y, margin),
            (C::Capsule(x), C::Triangle(y)) => contact::capsule_triangle(x, y, margin),
            (C::Box(x), C::Box(y)) => contact::box_box(x, y, margin),
            (C::Box(x), C::Triangle(y)) => contact::box_triangle(x, y, margin),
            _ => return None,
        })
    };
    if let Some(m) = direct(a, b) {
        m
    } else if let Some(m) = direct(b, a) {
        swap_roles(&m)
    } else {
        Manifold::EMPTY
    }
}

fn random_scene(seed: u64, n: usize) -> (Vec<Collider>, Vec<(u32, u32)>) {
    let mut g = Gen(fastrand::Rng::with_seed(seed));
    let colliders: Vec<Collider> = (0..n)
        .map(|_| {
            let c = g.p(0.0, 3.5);
            match g.0.u32(0..4) {
                0 => Collider::Sphere(g.sphere(c)),
                1 => Collider::Capsule(g.capsule(c)),
                2 => Collider::Box(g.obb(c)),
                _ => Collider::Triangle(g.triangle(c)),
            }
        })
        .collect();
    let pairs = (0..20 * n)
        .map(|_| (g.0.u32(0..n as u32), g.0.u32(0..n as u32)))
        .filter(|(a, b)| a != b)
        .collect();
    (colliders, pairs)
}

#[test]
fn pipeline_matches_scalar_testers() {
    let (colliders, pairs) = random_scene(7, 600);
    let want: Vec<Manifold> = pairs
        .iter()
        .map(|&(a, b)| scalar_manifold(&colliders[a as usize], &colliders[b as usize], MARGIN))
        .collect();
    let hits = want.iter().filter(|m| m.count > 0.0).count();
    assert!(hits > 500, "scene has contacts: {hits}");
    let swapped_hits = pairs
        .iter()
        .zip(&want)
        .filter(|(&(a, b), m)| {
            m.count > 0.0 && colliders[a as usize].kind() > colliders[b as usize].kind()
        })
        .count();
    assert!(swapped_hits > 100, "swapped pairs with contacts: {swapped_hits}");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let runs = pool.install(|| {
            [
                contacts(&colliders, &pairs, MARGIN),
                contacts_with::<f32>(&colliders, &pairs, MARGIN),
                contacts_with::<f32x4>(&colliders, &pairs, MARGIN),
                contacts_with::<f32x8>(&colliders, &pairs, MARGIN),
            ]
        });
        for got in runs {
            assert_eq!(got.len(), pairs.len());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(bits(g), bits(w), "pair {i} {:?}, {threads} threads", pairs[i]);
            }
        }
    }
    // swapping the pair swaps the roles exactly
    let rev: Vec<(u32, u32)> = pairs.iter().map(|&(a, b)| (b, a)).collect();
    let back = contacts(&colliders, &rev, MARGIN);
    for (i, (r, w)) in back.iter().zip(&want).enumerate() {
        let (ka, kb) =
            (colliders[pairs[i].0 as usize].kind(), colliders[pairs[i].1 as usize].kind());
        if ka != kb {
            // one of the two orders went through swap_roles: its inverse up
            // to the rounding of moving the points there and back
            let s = swap_roles(w);
            assert_eq!(
                (bits(&s)[..4].to_vec(), s.points.map(|p| (p.depth, p.feature_id))),
                (bits(r)[..4].to_vec(), r.points.map(|p| (p.depth, p.feature_id))),
                "pair {i}"
            );
            for (p, q) in s.points.iter().zip(&r.points) {
                assert!(close3(p.position, q.position, 1e-5), "pair {i}");
            }
        } else if ka == widephase::contact::ShapeKind::Sphere {
            assert_eq!(r.count, w.count, "pair {i}");
            if w.count > 0.0 {
                assert!(close3(r.normal, -w.normal, 1e-6), "pair {i}");
            }
        }
    }
}

/// A scene holding `per_type` pairs of every pair type (the 9 testers and
/// triangle–triangle), each pair its own two colliders placed near each
/// other (spreads tuned for hit rates of 25–50 %), a third of them given in
/// the non-canonical order, the types interleaved at random.
fn all_types_scene(seed: u64, per_type: usize) -> (Vec<Collider>, Vec<(u32, u32)>) {
    let mut g = Gen(fastrand::Rng::with_seed(seed));
    let make = |g: &mut Gen, kind: usize, c: Vec3| match kind {
        0 => Collider::Sphere(g.sphere(c)),
        1 => Collider::Capsule(g.capsule(c)),
        2 => Collider::Box(g.obb(c)),
        _ => Collider::Triangle(g.triangle(c)),
    };
    let mut jobs = Vec::new();
    for ka in 0..4 {
        for kb in ka..4 {
            jobs.extend(std::iter::repeat_n((ka, kb), per_type));
        }
    }
    g.0.shuffle(&mut jobs);
    let mut colliders = Vec::with_capacity(2 * jobs.len());
    let mut pairs = Vec::with_capacity(jobs.len());
    for (ka, kb) in jobs {
        let spread = match (ka, kb) {
            (0, 0) => 1.35,
            (0, 1) => 1.45,
            (0, 2) | (1, 1) => 1.6,
            (1, 2) => 1.7,
            (2, 2) => 1.8,
            (0, 3) => 0.3,
            (1, 3) => 0.45,
            (2, 3) => 0.6,
            _ => 1.0, // triangle–triangle (no tester)
        };
        let c = g.p(-50.0, 50.0);
        let a = make(&mut g, ka, c);
        let off = g.p(-spread, spread);
        let b = make(&mut g, kb, c + off);
        let i = colliders.len() as u32;
        colliders.extend([a, b]);
        pairs.push(if g.0.u32(0..3) == 0 { (i + 1, i) } else { (i, i + 1) });
    }
    (colliders, pairs)
}

/// Index of the canonical pair type of a pair (`ka <= kb`, row-major over
/// the 10 kind pairs).
fn pair_type(colliders: &[Collider], (a, b): (u32, u32)) -> usize {
    let (ka, kb) = (colliders[a as usize].kind() as usize, colliders[b as usize].kind() as usize);
    let (lo, hi) = (ka.min(kb), ka.max(kb));
    [0, 4, 7, 9][lo] + hi - lo
}

/// Thread-count determinism where it can fail: 5 200 pairs of each of the
/// 10 kind pairs, shuffled (all 9 testers, box–box through its batched
/// `box_box_packs`, which moves lanes between bundles), in at least 12
/// ranges of `MAX_PAIRS_PER_RANGE` pairs that 2 or 3 threads run
/// concurrently, each bucketing its own pairs and ending on partial bundles
/// of several types. The manifolds at 1, 2 and 3 threads, at x16 and x8,
/// equal the scalar testers' bit for bit.
#[test]
fn pipeline_is_thread_count_independent_across_many_ranges() {
    use widephase::contact::pipeline::MAX_PAIRS_PER_RANGE;
    let per_type = 5_200;
    let (colliders, pairs) = all_types_scene(21, per_type);
    let want: Vec<Manifold> = pairs
        .iter()
        .map(|&(a, b)| scalar_manifold(&colliders[a as usize], &colliders[b as usize], MARGIN))
        .collect();
    let (mut count, mut hits) = ([0usize; 10], [0usize; 10]);
    for (&p, m) in pairs.iter().zip(&want) {
        count[pair_type(&colliders, p)] += 1;
        hits[pair_type(&colliders, p)] += (m.count > 0.0) as usize;
    }
    let rates: Vec<f64> = (0..10).map(|t| hits[t] as f64 / count[t] as f64).collect();
    eprintln!("pipeline scene: {count:?} pairs per type, hit rates {rates:.3?}");
    assert!(pairs.len() >= 12 * MAX_PAIRS_PER_RANGE, "{} pairs", pairs.len());
    for t in 0..10 {
        let rate = hits[t] as f64 / count[t] as f64;
        // triangle–triangle (type 9) has no tester
        if t < 9 {
            assert!((0.2..=0.7).contains(&rate), "type {t}: hit rate {rate}");
        } else {
            assert_eq!(hits[t], 0);
        }
    }
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let runs = pool.install(|| {
            [
                contacts(&colliders, &pairs, MARGIN),
                contacts_with::<f32x8>(&colliders, &pairs, MARGIN),
            ]
        });
        for (r, got) in runs.iter().enumerate() {
            assert_eq!(got.len(), pairs.len());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(bits(g), bits(w), "pair {i} {:?}, {threads} threads, run {r}", pairs[i]);
            }
        }
    }
}

/// Lane-shuffle determinism through the pipeline: the pair list permuted
/// (every pair in another bundle, lane and task; box–box lanes staged with
/// other partners) and half the pairs given the other way round. Each pair's
/// manifold equals the scalar tester's for the order given, and the
/// unpermuted run's bit for bit — through `swap_roles` for a flipped pair of
/// two kinds (one of the two runs used it; pairs of one kind are the tester
/// called the other way round, checked against the scalar tester only).
#[test]
fn pipeline_manifolds_do_not_depend_on_pair_order_lane_or_role() {
    let (colliders, pairs) = all_types_scene(22, 2_500);
    let base = contacts(&colliders, &pairs, MARGIN);
    let mut rng = fastrand::Rng::with_seed(23);
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    rng.shuffle(&mut order);
    let flipped: Vec<bool> = order.iter().map(|_| rng.bool()).collect();
    let permuted: Vec<(u32, u32)> = order
        .iter()
        .zip(&flipped)
        .map(|(&i, &f)| if f { (pairs[i].1, pairs[i].0) } else { pairs[i] })
        .collect();
    let (mut same, mut via_swap, mut one_kind) = (0, 0, 0);
    for run in [
        contacts(&colliders, &permuted, MARGIN),
        contacts_with::<f32x4>(&colliders, &permuted, MARGIN),
    ] {
        for (k, ((&i, &f), got)) in order.iter().zip(&flipped).zip(&run).enumerate() {
            let (p0, p1) = permuted[k];
            let (c0, c1) = (&colliders[p0 as usize], &colliders[p1 as usize]);
            let label = format!("pair {i} at {k}, flipped {f}");
            assert_eq!(bits(got), bits(&scalar_manifold(c0, c1, MARGIN)), "{label}");
            if !f {
                assert_eq!(bits(got), bits(&base[i]), "{label}");
                same += 1;
            } else if c0.kind() != c1.kind() {
                // the canonical order of the two is the one tested directly
                if c0.kind() > c1.kind() {
                    assert_eq!(bits(got), bits(&swap_roles(&base[i])), "{label}");
                } else {
                    assert_eq!(bits(&swap_roles(got)), bits(&base[i]), "{label}");
                }
                via_swap += (got.count > 0.0) as usize;
            } else {
                one_kind += (got.count > 0.0) as usize;
            }
        }
    }
    assert!(same > 20_000 && via_swap > 5_000 && one_kind > 1_000, "{same} {via_swap} {one_kind}");
}

/// Invalid colliders through `contacts()`: a NaN, an infinite and a
/// negative-size variant of every kind, each paired (both ways round) with a
/// valid collider of every kind, interleaved with valid pairs in the same
/// bundles: invalid pairs get `Manifold::EMPTY`, valid ones the scalar
/// testers' manifolds; a NaN or negative margin empties every manifold.
#[test]
fn pipeline_invalid_colliders_give_empty_manifolds() {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let i3 = [Vec3::X, Vec3::Y, Vec3::Z];
    let valid = [
        Collider::Sphere(Sphere::new(v(0.0, 0.5, 0.0), 0.8)),
        Collider::Capsule(Capsule::new(v(-0.5, 0.6, 0.1), v(0.5, 0.7, -0.1), 0.5)),
        Collider::Box(Obb::new(v(0.1, 0.6, 0.0), i3, Vec3::splat(0.6))),
        Collider::Triangle(Triangle::new(v(-3.0, 0.0, -3.0), v(0.0, 0.0, 3.0), v(3.0, 0.0, -3.0))),
    ];
    let invalid = [
        Collider::Sphere(Sphere::new(v(nan, 0.5, 0.0), 0.8)),
        Collider::Sphere(Sphere::new(v(0.0, 0.5, 0.0), inf)),
        Collider::Sphere(Sphere::new(v(0.0, 0.5, 0.0), -0.8)),
        Collider::Capsule(Capsule::new(v(-0.5, 0.6, 0.1), v(0.5, nan, -0.1), 0.5)),
        Collider::Capsule(Capsule::new(v(-inf, 0.6, 0.1), v(0.5, 0.7, -0.1), 0.5)),
        Collider::Capsule(Capsule::new(v(-0.5, 0.6, 0.1), v(0.5, 0.7, -0.1), -0.5)),
        Collider::Box(Obb::new(
            v(0.1, 0.6, 0.0),
            [Vec3::X, v(0.0, nan, 0.0), Vec3::Z],
            Vec3::splat(0.6),
        )),
        Collider::Box(Obb::new(v(0.1, 0.6, inf), i3, Vec3::splat(0.6))),
        Collider::Box(Obb::new(v(0.1, 0.6, 0.0), i3, v(0.6, -0.6, 0.6))),
        Collider::Triangle(Triangle::new(v(-3.0, 0.0, -3.0), v(0.0, nan, 3.0), v(3.0, 0.0, -3.0))),
        Collider::Triangle(Triangle::new(v(-3.0, 0.0, -3.0), v(0.0, 0.0, 3.0), v(inf, 0.0, -3.0))),
    ];
    let colliders: Vec<Collider> = valid.iter().chain(&invalid).copied().collect();
    let nv = valid.len() as u32;
    let mut pairs = Vec::new();
    for round in 0..3 {
        for i in 0..invalid.len() as u32 {
            for j in 0..nv {
                pairs.push((nv + i, j));
                pairs.push((j, nv + i));
                pairs.push(((j + round) % nv, (j + 1 + round) % nv));
            }
        }
    }
    for margin in [0.1, 0.0] {
        let got = contacts(&colliders, &pairs, margin);
        let mut hits = 0;
        for (&(a, b), m) in pairs.iter().zip(&got) {
            let want = if a >= nv || b >= nv {
                Manifold::EMPTY
            } else {
                scalar_manifold(&colliders[a as usize], &colliders[b as usize], margin)
            };
            hits += (want.count > 0.0) as usize;
            assert_eq!(bits(m), bits(&want), "pair ({a}, {b}) margin {margin}");
        }
        assert!(hits >= 3 * 11 * 3, "valid pairs in contact: {hits}");
    }
    for margin in [f32::NAN, -0.1, f32::INFINITY] {
        let got = contacts(&colliders, &pairs, margin);
        assert!(got.iter().all(|m| bits(m) == bits(&Manifold::EMPTY)), "margin {margin}");
    }
}

#[test]
fn swap_roles_moves_points_onto_the_other_shape() {
    let a = Sphere::new(Vec3::ZERO, 1.0);
    let b = Sphere::new(v(0.0, 1.5, 0.0), 1.0);
    let ab = contact::sphere_sphere(&a, &b, 0.0);
    let ba = swap_roles(&ab);
    assert_eq!(bits(&ba), bits(&contact::sphere_sphere(&b, &a, 0.0)));
    assert_eq!(bits(&swap_roles(&Manifold::EMPTY)), bits(&Manifold::EMPTY));
    // box–box goes through the box_box tester like any pair type: B sits
    // 0.5 deep on A's top face, overhanging its +x side (4 points clipped to
    // x <= 1, on B's bottom face y = 0.5)
    let ob = Obb::new(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
    let oc = Obb::new(v(0.5, 1.5, 0.0), [Vec3::X, Vec3::Y, Vec3::Z], Vec3::splat(1.0));
    let (bx, cx) = (Collider::Box(ob), Collider::Box(oc));
    let m = contacts(&[bx, cx], &[(0, 1), (1, 0)], 0.0);
    assert_eq!(bits(&m[0]), bits(&contact::box_box(&ob, &oc, 0.0)));
    // equal kinds keep the given order: (B, A) is box_box(B, A) itself
    assert_eq!(bits(&m[1]), bits(&contact::box_box(&oc, &ob, 0.0)));
    assert_eq!((m[0].count, m[0].normal), (4.0, Vec3::Y));
    let mut xz: Vec<(f32, f32)> =
        m[0].contacts().iter().map(|p| (p.position.x, p.position.z)).collect();
    xz.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(xz, [(-0.5, -1.0), (-0.5, 1.0), (1.0, -1.0), (1.0, 1.0)]);
    assert!(m[0].contacts().iter().all(|p| (p.depth, p.position.y) == (0.5, 0.5)));
    assert_eq!((m[1].count, m[1].normal), (4.0, -Vec3::Y));
    // capsule–box either way round: the pipeline swaps roles for box–capsule
    let cap = Collider::Capsule(Capsule::new(v(-0.5, 1.25, 0.0), v(0.5, 1.25, 0.0), 0.5));
    let m = contacts(&[bx, cap], &[(1, 0), (0, 1)], 0.0);
    assert_eq!((m[0].count, m[0].normal), (2.0, -Vec3::Y));
    assert_eq!(bits(&m[1]), bits(&swap_roles(&m[0])));
    assert_eq!(m[1].normal, Vec3::Y);
}

#[test]
fn collider_aabbs_bound_the_shapes() {
    let (colliders, _) = random_scene(9, 200);
    let mut g = Gen(fastrand::Rng::with_seed(10));
    for c in &colliders {
        let bb = c.aabb();
        // points on the shape's surface lie in the box: sample support points
        for _ in 0..20 {
            let d = g.p(-1.0, 1.0);
            let p = match c {
                Collider::Sphere(s) => s.center + d.try_normalize().unwrap_or(Vec3::X) * s.radius,
                Collider::Capsule(k) => {
                    let e = if d.dot(k.b - k.a) > 0.0 { k.b } else { k.a };
                    e + d.try_normalize().unwrap_or(Vec3::X) * k.radius
                }
                Collider::Box(o) => {
                    let mut p = o.center;
                    for i in 0..3 {
                        let s = if d.dot(o.axes[i]) > 0.0 { 1.0 } else { -1.0 };
                        p += o.axes[i] * (s * o.half.get(i));
                    }
                    p
                }
                Collider::Triangle(t) => t.a,
                // (the hull's box is checked in tests/contact_hull.rs)
                Collider::Hull(_) => unreachable!("random_scene has no hulls"),
            };
            let e = 1e-4;
            assert!(p.x >= bb.min.x - e && p.y >= bb.min.y - e && p.z >= bb.min.z - e, "{c:?}");
            assert!(p.x <= bb.max.x + e && p.y <= bb.max.y + e && p.z <= bb.max.z + e, "{c:?}");
        }
    }
}
