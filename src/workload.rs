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

/// `n` pairs drawn from `gen`, of which exactly `round(n·hit_rate)` satisfy
/// `hits` (rejection sampling; candidates are classified with `hits`, then
/// interleaved in a seeded order). Panics if `gen` cannot produce both kinds.
pub fn by_rate<A: Copy, B: Copy>(
    n: usize,
    hit_rate: f32,
    seed: u64,
    mut gen: impl FnMut(&mut SplitMix) -> (A, B),
    hits: impl Fn(&A, &B) -> bool,
) -> (Vec<A>, Vec<B>) {
    let mut r = SplitMix(seed);
    let want_hits = (n as f64 * hit_rate as f64).round() as usize;
    let (mut h, mut m) = (Vec::with_capacity(want_hits), Vec::with_capacity(n - want_hits));
    let mut tries = 0usize;
    while h.len() < want_hits || m.len() < n - want_hits {
        tries += 1;
        assert!(tries < 100 * n + 10_000, "generator cannot reach hit rate {hit_rate}");
        let (a, b) = gen(&mut r);
        if hits(&a, &b) {
            if h.len() < want_hits {
                h.push((a, b));
            }
        } else if m.len() < n - want_hits {
            m.push((a, b));
        }
    }
    // seeded interleaving: position of the hits is random but reproducible
    let mut out: Vec<(A, B)> = Vec::with_capacity(n);
    let (mut hi, mut mi) = (h.into_iter(), m.into_iter());
    let (mut left_h, mut left_m) = (want_hits, n - want_hits);
    while left_h + left_m > 0 {
        let take_hit = (r.next_u64() % (left_h + left_m) as u64) < left_h as u64;
        if take_hit {
            out.push(hi.next().unwrap());
            left_h -= 1;
        } else {
            out.push(mi.next().unwrap());
            left_m -= 1;
        }
    }
    out.into_iter().unzip()
}

/// Rays against boxes: rays start outside a unit-ish box and aim near it.
pub fn ray_box_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<crate::Ray>, Vec<Aabb>) {
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let o = r.p(0.0, 100.0);
            let b = Aabb::new(o, o + r.p(0.5, 1.5));
            let from = b.center() + r.p(-4.0, 4.0);
            let aim = b.center() + r.p(-1.5, 1.5);
            (crate::Ray::new(from, aim - from), b)
        },
        |ray, b| crate::ray::ray_aabb(ray, b).hit,
    )
}

/// Segment–box pairs: boxes of size 0.5–1.5, segments from within 4 of a
/// box's centre toward a point near it, of length 0.5–2 times that distance
/// (some stop short of the box, some pass through).
pub fn segment_box_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<crate::Segment>, Vec<Aabb>) {
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let o = r.p(0.0, 100.0);
            let b = Aabb::new(o, o + r.p(0.5, 1.5));
            let from = b.center() + r.p(-4.0, 4.0);
            let aim = b.center() + r.p(-1.5, 1.5);
            let len = 0.5 + 1.5 * r.f();
            (crate::Segment { a: from, b: from + (aim - from) * len }, b)
        },
        crate::ray::segment_aabb,
    )
}

/// Sphere pairs with radii 0.5–1.5 at centre distances 0–4.
pub fn sphere_sphere_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<Sphere>, Vec<Sphere>) {
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let c = r.p(0.0, 100.0);
            (Sphere::new(c, 0.5 + r.f()), Sphere::new(c + r.p(-2.5, 2.5), 0.5 + r.f()))
        },
        crate::overlap::sphere_sphere,
    )
}

fn random_rotation(r: &mut SplitMix) -> [Vec3; 3] {
    // Gram–Schmidt on random vectors (orthonormal to a few ulps).
    let a = (r.p(-1.0, 1.0) + Vec3::new(0.01, 0.0, 0.0)).try_normalize().unwrap_or(Vec3::X);
    let t = r.p(-1.0, 1.0);
    let b = (t - a * a.dot(t)).try_normalize().unwrap_or_else(|| {
        let alt = if a.x.abs() < 0.9 { Vec3::X } else { Vec3::Y };
        (alt - a * a.dot(alt)).try_normalize().unwrap()
    });
    [a, b, a.cross(b)]
}

/// Pairs of randomly rotated boxes with half extents 0.25–1.
pub fn obb_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<crate::Obb>, Vec<crate::Obb>) {
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let c = r.p(0.0, 100.0);
            let a = crate::Obb::new(c, random_rotation(r), r.p(0.25, 1.0));
            let b = crate::Obb::new(c + r.p(-2.5, 2.5), random_rotation(r), r.p(0.25, 1.0));
            (a, b)
        },
        crate::overlap::obb_obb,
    )
}

/// Resting/penetrating boxes as in a pile: B sits on one of A's faces, tilted
/// by up to ~0.2 rad, penetrating up to 0.02 or hovering within the margin,
/// slid sideways by up to its size (some overhang the rim). Every pair is in
/// contact at margin 0.02 (the `contact_boxes` bench's resting tier).
pub fn resting_obb_pairs(n: usize, seed: u64) -> (Vec<crate::Obb>, Vec<crate::Obb>) {
    let mut r = SplitMix(seed);
    let rot = |r: &mut SplitMix, amount: f32| -> [Vec3; 3] {
        // small rotation: Gram–Schmidt on perturbed identity axes
        let x = (Vec3::X + r.p(-amount, amount)).try_normalize().unwrap();
        let t = Vec3::Y + r.p(-amount, amount);
        let y = (t - x * x.dot(t)).try_normalize().unwrap();
        [x, y, x.cross(y)]
    };
    (0..n)
        .map(|_| {
            let ha = r.p(0.5, 2.0);
            let hb = r.p(0.25, 1.0);
            let a = crate::Obb::new(r.p(-50.0, 50.0), rot(&mut r, 0.2), ha);
            let axes = rot(&mut r, 0.2);
            // B above A's +y face (in A's frame), then into world
            let lift = ha.y + hb.y - 0.02 + 0.035 * r.f();
            let slide = r.p(-1.0, 1.0);
            let c = a.center
                + a.axes[0] * (slide.x * ha.x)
                + a.axes[1] * lift
                + a.axes[2] * (slide.z * ha.z);
            let b_axes = [
                a.axes[0] * axes[0].x + a.axes[1] * axes[0].y + a.axes[2] * axes[0].z,
                a.axes[0] * axes[1].x + a.axes[1] * axes[1].y + a.axes[2] * axes[1].z,
                a.axes[0] * axes[2].x + a.axes[1] * axes[2].y + a.axes[2] * axes[2].z,
            ];
            (a, crate::Obb::new(c, b_axes, hb))
        })
        .unzip()
}

/// Pairs of random triangles of size ~1 at centre distances 0–2.
pub fn triangle_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<Triangle>, Vec<Triangle>) {
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let c = r.p(0.0, 100.0);
            let d = c + r.p(-1.0, 1.0);
            let t = |r: &mut SplitMix, c: Vec3| {
                Triangle::new(c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0))
            };
            (t(r, c), t(r, d))
        },
        crate::overlap::triangle_triangle,
    )
}

/// Rays against triangles of size ~1.
pub fn ray_triangle_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<crate::Ray>, Vec<Triangle>) {
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let c = r.p(0.0, 100.0);
            let t = Triangle::new(c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0));
            let from = c + r.p(-4.0, 4.0);
            (crate::Ray::new(from, c + r.p(-1.0, 1.0) - from), t)
        },
        |ray, t| crate::ray::ray_triangle(ray, t).hit,
    )
}

/// Sphere–triangle pairs: triangles of size ~2 near `c`, spheres of radius
/// 0.2–1 within a few units (the conservative sphere–triangle kernel's bench).
pub fn sphere_triangle_pairs(n: usize, hit_rate: f32, seed: u64) -> (Vec<Sphere>, Vec<Triangle>) {
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let c = r.p(0.0, 100.0);
            let t = Triangle::new(c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0), c + r.p(-1.0, 1.0));
            (Sphere::new(c + r.p(-3.0, 3.0), 0.2 + 0.8 * r.f()), t)
        },
        crate::overlap::sphere_triangle,
    )
}

/// Pairs of moving boxes (size 0.5–1.5, displacements up to 4 per step) for
/// the swept-box kernels.
pub fn moving_box_pairs(
    n: usize,
    hit_rate: f32,
    seed: u64,
) -> (Vec<crate::batch::kernels::MovingAabb>, Vec<crate::batch::kernels::MovingAabb>) {
    use crate::batch::kernels::MovingAabb;
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let one = |r: &mut SplitMix, c: Vec3| {
                let lo = c + r.p(-0.5, 0.5);
                let aabb = Aabb::new(lo, lo + r.p(0.5, 1.5));
                MovingAabb { aabb, velocity: r.p(-2.0, 2.0) }
            };
            let c = r.p(0.0, 100.0);
            let a = one(r, c);
            let off = r.p(-2.5, 2.5);
            let b = one(r, c + off);
            (a, b)
        },
        |a, b| crate::dynamic::moving_aabb_aabb(&a.aabb, &a.velocity, &b.aabb, &b.velocity).hit,
    )
}

/// Moving spheres (radius 0.2–1, displacement up to 4) against boxes (size
/// 0.5–1.5) for the swept sphere–box kernel.
pub fn moving_sphere_box_pairs(
    n: usize,
    hit_rate: f32,
    seed: u64,
) -> (Vec<crate::batch::kernels::MovingSphere>, Vec<Aabb>) {
    use crate::batch::kernels::MovingSphere;
    by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let c = r.p(0.0, 100.0);
            let lo = c + r.p(-0.5, 0.5);
            let b = Aabb::new(lo, lo + r.p(0.5, 1.5));
            let s = Sphere::new(c + r.p(-3.0, 3.0), 0.2 + 0.8 * r.f());
            (MovingSphere { sphere: s, velocity: r.p(-2.0, 2.0) }, b)
        },
        |m, b| crate::dynamic::moving_sphere_aabb(&m.sphere, m.velocity, b).is_some(),
    )
}

/// A random collider of `kind`, of size about 1, near `c` (contact benchmarks):
/// spheres of radius 0.2–1, capsules of half length up to 1 and radius
/// 0.2–0.6, rotated boxes of half extents 0.25–1, triangles of size ~2.
pub fn random_collider(
    r: &mut SplitMix,
    kind: crate::contact::ShapeKind,
    c: Vec3,
) -> crate::contact::Collider {
    use crate::contact::{Collider, ShapeKind};
    match kind {
        ShapeKind::Sphere => Collider::Sphere(Sphere::new(c + r.p(-0.5, 0.5), 0.2 + 0.8 * r.f())),
        ShapeKind::Capsule => {
            let h = r.p(-1.0, 1.0);
            Collider::Capsule(crate::Capsule::new(c - h, c + h, 0.2 + 0.4 * r.f()))
        }
        ShapeKind::Box => Collider::Box(crate::Obb::new(c, random_rotation(r), r.p(0.25, 1.0))),
        ShapeKind::Triangle => Collider::Triangle(Triangle::new(
            c + r.p(-1.5, 1.5),
            c + r.p(-1.5, 1.5),
            c + r.p(-1.5, 1.5),
        )),
        // hull 0 of the caller's table, taken to lie within ±1.05 of its
        // origin (every [`random_hull`] does)
        ShapeKind::Hull => Collider::Hull(crate::contact::HullCollider {
            hull: 0,
            center: c,
            axes: random_rotation(r),
            local_min: Vec3::splat(-1.05),
            local_max: Vec3::splat(1.05),
        }),
    }
}

/// One pair of kinds `(ka, kb)` as [`contact_pairs`] draws it: A near a
/// random centre in `[0, 100)^3`, B within `±spread` of that centre per axis.
fn contact_pair(
    r: &mut SplitMix,
    ka: crate::contact::ShapeKind,
    kb: crate::contact::ShapeKind,
    spread: f32,
) -> (crate::contact::Collider, crate::contact::Collider) {
    let c = r.p(0.0, 100.0);
    let a = random_collider(r, ka, c);
    let d = c + r.p(-spread, spread);
    (a, random_collider(r, kb, d))
}

/// `n` pairs for the contact tester `T`: A near a random centre, B within
/// `±spread` of it on each axis (spread 1 gives 20–50 % contacts for every
/// pair type; one-sided triangles hit about half as often).
pub fn contact_pairs<T: crate::contact::ContactTester>(
    n: usize,
    spread: f32,
    seed: u64,
) -> (Vec<T::A>, Vec<T::B>) {
    use crate::contact::pipeline::ColliderShape;
    let (ka, kb) = (<T::A as ColliderShape>::KIND, <T::B as ColliderShape>::KIND);
    let mut r = SplitMix(seed);
    (0..n)
        .map(|_| {
            let (a, b) = contact_pair(&mut r, ka, kb, spread);
            (*T::A::of(&a).expect("kind A"), *T::B::of(&b).expect("kind B"))
        })
        .unzip()
}

/// A point inside collider `c` that a one-sided triangle must see from its
/// front for the contact to count: the sphere's or box's centre, the
/// capsule's mid-point, the triangle's centroid.
fn reference_point(c: &crate::contact::Collider) -> Vec3 {
    use crate::contact::Collider;
    match c {
        Collider::Sphere(s) => s.center,
        Collider::Capsule(k) => (k.a + k.b) * 0.5,
        Collider::Box(b) => b.center,
        Collider::Triangle(t) => (t.a + t.b + t.c) * (1.0 / 3.0),
        Collider::Hull(h) => h.center,
    }
}

/// `n` pairs for the contact tester `T` drawn as [`contact_pairs`] (spread
/// 1), of which exactly `round(n·hit_rate)` are in contact at `margin` —
/// decided by `T`'s scalar tester — in a seeded order ([`by_rate`]).
///
/// A triangle B is wound to face A, as a mesh faces the bodies resting on
/// it: of its two windings, the one under which the one-sided tester reports
/// a contact if either does, else the one whose front sees A's centre. A
/// two-sided tester (parry3d, the benches' peer) then answers the same
/// question as the one-sided ones: the one-sided rule (centre, or the
/// capsule's closest axis point, behind the plane) decides only whether one
/// winding or the other has the contact.
pub fn contact_pairs_at<T: crate::contact::ContactTester>(
    n: usize,
    hit_rate: f32,
    margin: f32,
    seed: u64,
) -> (Vec<T::A>, Vec<T::B>) {
    use crate::contact::pipeline::ColliderShape;
    use crate::contact::{Collider, ShapeKind};
    use crate::pack::transpose;
    let (ka, kb) = (<T::A as ColliderShape>::KIND, <T::B as ColliderShape>::KIND);
    let touch = |a: &Collider, b: &Collider| {
        let a = transpose::<T::A, f32>(core::slice::from_ref(T::A::of(a).expect("kind A")));
        let b = transpose::<T::B, f32>(core::slice::from_ref(T::B::of(b).expect("kind B")));
        T::test::<f32>(&a, &b, margin).count > 0.0
    };
    let (a, b) = by_rate(
        n,
        hit_rate,
        seed,
        |r| {
            let (a, mut b) = contact_pair(r, ka, kb, 1.0);
            if let (ShapeKind::Triangle, Collider::Triangle(t)) = (kb, b) {
                let front = (t.b - t.a).cross(t.c - t.a).dot(reference_point(&a) - t.a) >= 0.0;
                let (facing, away) = (t, Triangle::new(t.a, t.c, t.b));
                let (facing, away) = if front { (facing, away) } else { (away, facing) };
                let (facing, away) = (Collider::Triangle(facing), Collider::Triangle(away));
                b = if !touch(&a, &facing) && touch(&a, &away) { away } else { facing };
            }
            (a, b)
        },
        |a, b| touch(a, b),
    );
    a.iter()
        .zip(&b)
        .map(|(a, b)| (*T::A::of(a).expect("kind A"), *T::B::of(b).expect("kind B")))
        .unzip()
}

/// A mixed scene for the narrow-phase pipeline ([`contacts`]): `n` colliders,
/// each of a kind drawn uniformly (seeded), centres uniform in a cube of side
/// `2.1·n^(1/3)`, and the candidate pairs
/// `(i, j)`, `i < j`, of their AABBs grown by `margin / 2` (the crate's box
/// pruning, [`self_pairs`]) — without triangle–triangle pairs, which a
/// physics engine does not test (static against static; [`contacts`] gives
/// them empty manifolds). About half the pairs of mixed kinds are given in
/// non-canonical order, so the pipeline swaps them. The bench scene
/// (`n = 4096`, `margin = 0.05`, seed 71) has 7631 pairs, 2355 in contact.
///
/// [`contacts`]: crate::contact::contacts
/// [`self_pairs`]: crate::broad::self_pairs
pub fn contact_scene(
    n: usize,
    margin: f32,
    seed: u64,
) -> (Vec<crate::contact::Collider>, Vec<(u32, u32)>) {
    use crate::contact::{Collider, ShapeKind};
    const KINDS: [ShapeKind; 4] =
        [ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Box, ShapeKind::Triangle];
    let mut r = SplitMix(seed);
    // colliders of size ~1 (AABB side ~2.5) at this density: 7631 pairs for
    // n = 4096, seed 71 (all four kinds at the default margin 0.05), about a
    // third of them in contact
    let side = 2.1 * (n as f32).cbrt();
    let colliders: Vec<Collider> = (0..n)
        .map(|_| {
            let kind = KINDS[(r.next_u64() % 4) as usize];
            let c = r.p(0.0, side);
            random_collider(&mut r, kind, c)
        })
        .collect();
    let boxes: Vec<Aabb> = colliders.iter().map(|c| c.speculative_aabb(margin)).collect();
    let mut pairs = crate::broad::self_pairs(&boxes);
    pairs.retain(|&(i, j)| {
        !matches!(
            (colliders[i as usize], colliders[j as usize]),
            (Collider::Triangle(_), Collider::Triangle(_))
        )
    });
    (colliders, pairs)
}

/// Hulls and pairs `(hull A, pose A, hull B, pose B)` of [`hull_pairs`].
pub type HullPairs = (Vec<crate::contact::ConvexHull>, Vec<(usize, HullPose, usize, HullPose)>);

/// A placement of a [`ConvexHull`](crate::contact::ConvexHull) in the hull
/// workloads: world centre and rotation axes (see
/// [`PlacedHull`](crate::contact::PlacedHull)).
#[derive(Clone, Copy, Debug)]
pub struct HullPose {
    /// World position of the hull's local origin.
    pub center: Vec3,
    /// Orthonormal rotation columns.
    pub axes: [Vec3; 3],
}

/// A hull of `points` random points on an ellipsoid with semi-axes
/// 0.3–1 (jittered radially by up to 5 %), so the hull has close to
/// `points` vertices (at most `points`).
pub fn random_hull(r: &mut SplitMix, points: usize) -> crate::contact::ConvexHull {
    let semi = r.p(0.3, 1.0);
    loop {
        let pts: Vec<Vec3> = (0..points)
            .map(|_| {
                let d = loop {
                    let v = r.p(-1.0, 1.0);
                    let l = v.length();
                    if l > 0.1 && l <= 1.0 {
                        break v / l;
                    }
                };
                d.mul_elem(semi) * (0.95 + 0.05 * r.f())
            })
            .collect();
        if let Ok(h) = crate::contact::ConvexHull::new(&pts) {
            return h;
        }
    }
}

/// Hull pairs for the hull benches and tests: a pool of `pool` random hulls
/// ([`random_hull`] with 8 to `max_points` points), and `n` pairs of pool
/// indices with poses, B's centre at `0.3–1.1 ×` the sum of the bounding
/// radii from A's in a random direction (about two thirds of the pairs
/// touch).
pub fn hull_pairs(n: usize, pool: usize, max_points: usize, seed: u64) -> HullPairs {
    let mut r = SplitMix(seed);
    let hulls: Vec<_> = (0..pool)
        .map(|_| {
            let k = 8 + (r.next_u64() % (max_points.max(8) - 7) as u64) as usize;
            random_hull(&mut r, k)
        })
        .collect();
    let pairs = (0..n)
        .map(|_| {
            let ia = (r.next_u64() % pool as u64) as usize;
            let ib = (r.next_u64() % pool as u64) as usize;
            let reach = hulls[ia].bounding_radius() + hulls[ib].bounding_radius();
            let (pa, pb) = near_poses(&mut r, reach);
            (ia, pa, ib, pb)
        })
        .collect();
    (hulls, pairs)
}

/// Two poses whose centres are `0.3–1.1 × reach` apart.
fn near_poses(r: &mut SplitMix, reach: f32) -> (HullPose, HullPose) {
    let ca = r.p(-50.0, 50.0);
    let dir = loop {
        let v = r.p(-1.0, 1.0);
        if let Some(d) = v.try_normalize() {
            break d;
        }
    };
    let cb = ca + dir * (reach * (0.3 + 0.8 * r.f()));
    (
        HullPose { center: ca, axes: random_rotation(r) },
        HullPose { center: cb, axes: random_rotation(r) },
    )
}

/// Hull–box pairs: as [`hull_pairs`] with B a box of half extents 0.2–0.8.
pub fn hull_box_pairs(
    n: usize,
    pool: usize,
    max_points: usize,
    seed: u64,
) -> (Vec<crate::contact::ConvexHull>, Vec<(usize, HullPose)>, Vec<crate::Obb>) {
    let mut r = SplitMix(seed);
    let hulls: Vec<_> = (0..pool)
        .map(|_| {
            let k = 8 + (r.next_u64() % (max_points.max(8) - 7) as u64) as usize;
            random_hull(&mut r, k)
        })
        .collect();
    let mut a = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    for _ in 0..n {
        let ia = (r.next_u64() % pool as u64) as usize;
        let half = r.p(0.2, 0.8);
        let reach = hulls[ia].bounding_radius() + half.length();
        let (pa, pb) = near_poses(&mut r, reach);
        a.push((ia, pa));
        b.push(crate::Obb::new(pb.center, pb.axes, half));
    }
    (hulls, a, b)
}

/// Resting hull pairs, as in a pile: like [`hull_pairs`], but B is placed
/// along a random direction `u` from A at a gap along `u` drawn from
/// `[-0.02, 0.05]` (penetrating up to 0.02 or hovering within the 0.05
/// margin), so the contacts are shallow.
pub fn resting_hull_pairs(n: usize, pool: usize, max_points: usize, seed: u64) -> HullPairs {
    let (hulls, mut pairs) = hull_pairs(n, pool, max_points, seed);
    let mut r = SplitMix(seed ^ 0x5eed);
    for (ia, pa, ib, pb) in pairs.iter_mut() {
        let u = loop {
            if let Some(d) = r.p(-1.0, 1.0).try_normalize() {
                break d;
            }
        };
        let local =
            |axes: &[Vec3; 3], d: Vec3| Vec3::new(d.dot(axes[0]), d.dot(axes[1]), d.dot(axes[2]));
        // extents from each hull's local origin along u (A) and -u (B)
        let ha = hulls[*ia].support(local(&pa.axes, u)).1;
        let hb = hulls[*ib].support(local(&pb.axes, -u)).1;
        let gap = -0.02 + 0.07 * r.f();
        pb.center = pa.center + u * (ha + hb + gap);
    }
    (hulls, pairs)
}
