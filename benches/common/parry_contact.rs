//! parry3d 0.31 peers for the contact benches (`--features peers`), one per
//! pair type, in one place so `contact.rs` and `contact_boxes.rs` time the
//! same calls. Each takes the bench's pairs and margin (= parry's prediction
//! distance, so both report pairs at most `margin` apart) and converts them
//! once, outside the timing.
//!
//! Which parry function each pair type calls, and why:
//!
//! | pair | parry3d call | reaches |
//! |---|---|---|
//! | sphere–sphere | `query::contact` | `contact_ball_ball` (analytic) |
//! | sphere–capsule | `query::contact` | `contact_ball_convex_polyhedron` (point projection on the capsule) |
//! | sphere–box | `query::contact` | `contact_ball_convex_polyhedron` (point projection on the cuboid) |
//! | sphere–triangle | `query::contact` | `contact_ball_convex_polyhedron` (point projection on the triangle) |
//! | capsule–capsule | `contact_manifolds` | `contact_manifold_capsule_capsule` (analytic, ≤ 2 points) |
//! | capsule–box | `contact_manifolds` | `contact_manifold_pfm_pfm` (GJK/EPA + polygonal-feature clipping; parry's cuboid–capsule generator is commented out of its dispatcher) |
//! | capsule–triangle | `contact_manifolds` | `contact_manifold_pfm_pfm` |
//! | box–box | `details::contact_manifold_cuboid_cuboid` | what `contact_manifolds` dispatches to for two cuboids |
//! | box–triangle | `details::contact_manifold_cuboid_triangle` | what `contact_manifolds` dispatches to for cuboid–triangle |
//!
//! The sphere rows get one point from us and from parry, so the single-contact
//! query is the like-for-like one; the rows where our testers build manifolds
//! (up to 2 or 4 points) use parry's manifold generators. Capsule–capsule
//! also keeps `query::contact` as `capsule_capsule_contact` (it goes through
//! GJK/EPA, 3.2 µs per pair: `simd-notes.md`, "Contacts: spheres, capsules").
//!
//! Manifolds are cleared before each pair and their cached normal zeroed, so
//! parry neither reuses the previous pair's points nor warm-starts its GJK
//! from the previous pair's normal (`contact_manifold_pfm_pfm` starts from
//! `manifold.local_n1`): every call is a first-frame query, as ours is.
//!
//! parry's triangles are two-sided, ours one-sided; the bench workloads wind
//! each triangle to face A (`workload::contact_pairs_at`), so the two answer
//! the same question (see the agreement check in `contact.rs`).

#![allow(dead_code)]

use parry3d::math::{Matrix, Pose, Rotation, Vector};
use parry3d::query::{
    contact,
    details::{contact_manifold_cuboid_cuboid, contact_manifold_cuboid_triangle},
    ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use parry3d::shape::{Ball, Capsule as PCapsule, Cuboid, Shape, Triangle as PTriangle};
use widephase::{Capsule, Obb, Sphere, Triangle, Vec3};

type Manifold = ContactManifold<(), ()>;

/// A peer over prepared pairs `P`: `test` says whether one pair is in
/// contact, with a scratch manifold it may use.
pub struct Peer<P, F> {
    /// The parry function called (for the report).
    pub call: &'static str,
    pairs: Vec<P>,
    test: F,
}

/// What the benches need from a peer, whatever its pair type.
pub trait PeerRun {
    /// The parry function called.
    fn call(&self) -> &'static str;
    /// Pairs in contact (the timed loop).
    fn count(&self) -> usize;
    /// Per pair: in contact? (for the agreement check, untimed).
    fn hits(&self) -> Vec<bool>;
}

impl<P, F: Fn(&P, &mut Vec<Manifold>) -> bool> PeerRun for Peer<P, F> {
    fn call(&self) -> &'static str {
        self.call
    }
    fn count(&self) -> usize {
        let mut scratch = Vec::new();
        self.pairs.iter().filter(|p| (self.test)(p, &mut scratch)).count()
    }
    fn hits(&self) -> Vec<bool> {
        let mut scratch = Vec::new();
        self.pairs.iter().map(|p| (self.test)(p, &mut scratch)).collect()
    }
}

fn peer<P, F: Fn(&P, &mut Vec<Manifold>) -> bool>(
    call: &'static str,
    pairs: Vec<P>,
    test: F,
) -> Peer<P, F> {
    Peer { call, pairs, test }
}

fn v(v: Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}
/// The box's pose (centre, rotation from its axes) and its cuboid.
fn cuboid(o: &Obb) -> (Pose, Cuboid) {
    let m = Matrix::from_cols(v(o.axes[0]), v(o.axes[1]), v(o.axes[2]));
    (Pose::from_parts(v(o.center), Rotation::from_mat3(&m)), Cuboid::new(v(o.half)))
}
fn ball(s: &Sphere) -> (Pose, Ball) {
    (Pose::from_translation(v(s.center)), Ball::new(s.radius))
}
fn capsule(c: &Capsule, origin: Vec3) -> PCapsule {
    PCapsule::new(v(c.a - origin), v(c.b - origin), c.radius)
}
fn triangle(t: &Triangle, origin: Vec3) -> PTriangle {
    PTriangle::new(v(t.a - origin), v(t.b - origin), v(t.c - origin))
}

/// `query::contact` on two world poses.
fn single<S1: Shape, S2: Shape>((p1, s1, p2, s2): &(Pose, S1, Pose, S2), margin: f32) -> bool {
    std::hint::black_box(contact(p1, s1, p2, s2, margin)).ok().flatten().is_some()
}

/// `contact_manifolds` (the default dispatcher), `shape2` at `pos12` in
/// `shape1`'s frame, from a cleared manifold.
fn manifolds<S1: Shape, S2: Shape>(
    (pos12, s1, s2): &(Pose, S1, S2),
    margin: f32,
    out: &mut Vec<Manifold>,
) -> bool {
    if let Some(m) = out.first_mut() {
        m.clear();
        m.local_n1 = Vector::ZERO;
        m.local_n2 = Vector::ZERO;
    }
    DefaultQueryDispatcher
        .contact_manifolds(pos12, s1, s2, margin, out, &mut None)
        .expect("parry supports the pair");
    out.iter().any(|m| !m.points.is_empty())
}

/// One scratch manifold for the `details::` generators.
fn first(out: &mut Vec<Manifold>) -> &mut Manifold {
    if out.is_empty() {
        out.push(Manifold::new());
    }
    let m = &mut out[0];
    m.clear();
    m.local_n1 = Vector::ZERO;
    m.local_n2 = Vector::ZERO;
    m
}

pub fn sphere_sphere(a: &[Sphere], b: &[Sphere], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| (ball(a).0, ball(a).1, ball(b).0, ball(b).1));
    peer("query::contact", pairs.collect(), move |p, _| single(p, margin))
}

pub fn sphere_capsule(a: &[Sphere], b: &[Capsule], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| {
        let (p, s) = ball(a);
        // the capsule in world coordinates, around the sphere's centre
        (p, s, Pose::from_translation(v(a.center)), capsule(b, a.center))
    });
    peer("query::contact", pairs.collect(), move |p, _| single(p, margin))
}

pub fn sphere_box(a: &[Sphere], b: &[Obb], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| {
        let ((p1, s), (p2, c)) = (ball(a), cuboid(b));
        (p1, s, p2, c)
    });
    peer("query::contact", pairs.collect(), move |p, _| single(p, margin))
}

pub fn sphere_triangle(a: &[Sphere], b: &[Triangle], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| {
        let (p, s) = ball(a);
        (p, s, Pose::from_translation(v(a.center)), triangle(b, a.center))
    });
    peer("query::contact", pairs.collect(), move |p, _| single(p, margin))
}

pub fn capsule_capsule(a: &[Capsule], b: &[Capsule], margin: f32) -> impl PeerRun {
    // both in coordinates around A's first end point (pos12 = identity)
    let pairs = a.iter().zip(b).map(|(a, b)| (Pose::IDENTITY, capsule(a, a.a), capsule(b, a.a)));
    peer("contact_manifolds", pairs.collect(), move |p, out| manifolds(p, margin, out))
}

/// Capsule–capsule through `query::contact` (GJK/EPA in parry 0.31).
pub fn capsule_capsule_contact(a: &[Capsule], b: &[Capsule], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| {
        let (c1, c2) = (capsule(a, a.a), capsule(b, a.a));
        (Pose::IDENTITY, c1, Pose::IDENTITY, c2)
    });
    peer("query::contact", pairs.collect(), move |p, _| single(p, margin))
}

pub fn capsule_box(a: &[Capsule], b: &[Obb], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| {
        // the capsule in the box's frame: pos12 = the box's pose in it = identity
        let (p, c) = cuboid(b);
        let (pa, pb) = (p.inverse_transform_point(v(a.a)), p.inverse_transform_point(v(a.b)));
        (Pose::IDENTITY, PCapsule::new(pa, pb, a.radius), c)
    });
    peer("contact_manifolds", pairs.collect(), move |p, out| manifolds(p, margin, out))
}

pub fn capsule_triangle(a: &[Capsule], b: &[Triangle], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| (Pose::IDENTITY, capsule(a, a.a), triangle(b, a.a)));
    peer("contact_manifolds", pairs.collect(), move |p, out| manifolds(p, margin, out))
}

pub fn box_box(a: &[Obb], b: &[Obb], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, b)| {
        let ((p1, c1), (p2, c2)) = (cuboid(a), cuboid(b));
        (p1.inv_mul(&p2), c1, c2)
    });
    peer("details::contact_manifold_cuboid_cuboid", pairs.collect(), move |(p, c1, c2), out| {
        let m = first(out);
        contact_manifold_cuboid_cuboid(p, c1, c2, margin, m);
        !m.points.is_empty()
    })
}

pub fn box_triangle(a: &[Obb], b: &[Triangle], margin: f32) -> impl PeerRun {
    let pairs = a.iter().zip(b).map(|(a, t)| {
        let (p1, c) = cuboid(a);
        (p1.inverse(), p1, c, triangle(t, Vec3::ZERO))
    });
    peer(
        "details::contact_manifold_cuboid_triangle",
        pairs.collect(),
        move |(pos12, pos21, c, t), out| {
            let m = first(out);
            contact_manifold_cuboid_triangle(pos12, pos21, c, t, None, None, margin, m, false);
            !m.points.is_empty()
        },
    )
}
