//! Criterion benches for the convex hull contact testers
//! ([`hull_contacts`]): groups `contact_hull_hull` (`workload::hull_pairs(4096,
//! 64, 32, 81)`: a pool of 64 hulls of 8–32 points on ellipsoids, pairs at
//! `0.3–1.1 ×` the sum of their bounding radii, about 43 % in contact at the
//! margin) and `contact_hull_box` (`workload::hull_box_pairs(4096, 64, 32,
//! 83)`), rows `t1` and `t2` (one and two rayon threads; every pair is one
//! scalar tester call).
//!
//! **Peers** (`--features peers`): `parry3d` is parry3d 0.31's
//! `contact_manifolds` (default dispatcher: `ConvexPolyhedron` pairs and
//! `ConvexPolyhedron`–`Cuboid` go to `contact_manifold_pfm_pfm`, GJK/EPA
//! then polygonal-feature clipping) on the same pairs, with prediction
//! distance = our margin, from a cleared manifold per pair (no warm start).
//! The hulls are converted once (`ConvexPolyhedron::from_convex_hull` of our
//! hull's vertices), outside the timing. The per-pair contact decisions are
//! compared first and the agreement printed.
//!
//! `contact_hull_hull_resting`: `workload::resting_hull_pairs(4096, 64, 32,
//! 85)`, the same kind of hulls resting on each other (gap along a random
//! direction in `[-0.02, 0.05]`), the shallow contacts of a pile.
//!
//! `cargo bench --bench contact_hull [--features peers]`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use widephase::contact::{hull_contacts, ConvexHull, HullPartner, Manifold, PlacedHull};
use widephase::workload::{hull_box_pairs, hull_pairs, resting_hull_pairs, HullPose};

const N: usize = 4096;
const MARGIN: f32 = 0.05;

fn place(h: &ConvexHull, p: HullPose) -> PlacedHull<'_> {
    PlacedHull::new(h, p.center, p.axes)
}

#[cfg(feature = "peers")]
mod parry_hull {
    use parry3d::math::{Matrix, Pose, Rotation, Vector};
    use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
    use parry3d::shape::{ConvexPolyhedron, Cuboid, Shape};
    use widephase::contact::{ConvexHull, HullPartner, PlacedHull};
    use widephase::Vec3;

    type Manifold = ContactManifold<(), ()>;

    fn v(v: Vec3) -> Vector {
        Vector::new(v.x, v.y, v.z)
    }
    fn pose(c: Vec3, axes: &[Vec3; 3]) -> Pose {
        let m = Matrix::from_cols(v(axes[0]), v(axes[1]), v(axes[2]));
        Pose::from_parts(v(c), Rotation::from_mat3(&m))
    }
    pub fn polyhedron(h: &ConvexHull) -> ConvexPolyhedron {
        let pts: Vec<Vector> = h.vertices().iter().map(|&p| v(p)).collect();
        ConvexPolyhedron::from_convex_hull(&pts).expect("parry builds the hull")
    }

    /// Prepared pairs: B's pose in A's frame, A, B.
    pub struct Pairs(Vec<(Pose, usize, Box<dyn Shape>)>, Vec<ConvexPolyhedron>);

    pub fn prepare(hulls: &[ConvexHull], a: &[PlacedHull], b: &[HullPartner]) -> Pairs {
        let polys: Vec<ConvexPolyhedron> = hulls.iter().map(polyhedron).collect();
        let index = |h: &ConvexHull| hulls.iter().position(|x| std::ptr::eq(x, h)).unwrap();
        let pairs = a
            .iter()
            .zip(b)
            .map(|(a, b)| {
                let pa = pose(a.center, &a.axes);
                let (pb, shape): (Pose, Box<dyn Shape>) = match b {
                    HullPartner::Hull(h) => {
                        (pose(h.center, &h.axes), Box::new(polys[index(h.hull)].clone()))
                    }
                    HullPartner::Box(o) => {
                        (pose(o.center, &o.axes), Box::new(Cuboid::new(v(o.half))))
                    }
                    _ => unreachable!("hull and box pairs only"),
                };
                (pa.inv_mul(&pb), index(a.hull), shape)
            })
            .collect();
        Pairs(pairs, polys)
    }

    impl Pairs {
        pub fn hits(&self, margin: f32) -> Vec<bool> {
            let mut out: Vec<Manifold> = Vec::new();
            self.0.iter().map(|p| self.one(p, margin, &mut out)).collect()
        }
        pub fn count(&self, margin: f32) -> usize {
            let mut out: Vec<Manifold> = Vec::new();
            self.0.iter().filter(|p| self.one(p, margin, &mut out)).count()
        }
        fn one(
            &self,
            (pos12, ia, b): &(Pose, usize, Box<dyn Shape>),
            margin: f32,
            out: &mut Vec<Manifold>,
        ) -> bool {
            if let Some(m) = out.first_mut() {
                m.clear();
                m.local_n1 = Vector::ZERO;
                m.local_n2 = Vector::ZERO;
            }
            DefaultQueryDispatcher
                .contact_manifolds(pos12, &self.1[*ia], &**b, margin, out, &mut None)
                .expect("parry supports the pair");
            out.iter().any(|m| !m.points.is_empty())
        }
    }
}

fn group(c: &mut Criterion, name: &str, hulls: &[ConvexHull], a: &[PlacedHull], b: &[HullPartner]) {
    let idx: Vec<(u32, u32)> = (0..a.len() as u32).map(|i| (i, i)).collect();
    let t1 = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let t2 = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let m1: Vec<Manifold> = t1.install(|| hull_contacts(a, b, &idx, MARGIN));
    assert!(m1 == t2.install(|| hull_contacts(a, b, &idx, MARGIN)), "{name}: threads differ");
    let ours: Vec<bool> = m1.iter().map(|m| m.count > 0.0).collect();
    let hits = ours.iter().filter(|&&h| h).count();
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(a.len() as u64));
    g.bench_function("t1", |bch| {
        bch.iter(|| t1.install(|| hull_contacts(black_box(a), b, &idx, MARGIN)))
    });
    g.bench_function("t2", |bch| {
        bch.iter(|| t2.install(|| hull_contacts(black_box(a), b, &idx, MARGIN)))
    });
    #[cfg(feature = "peers")]
    {
        let p = parry_hull::prepare(hulls, a, b);
        let theirs = p.hits(MARGIN);
        let agree = ours.iter().zip(&theirs).filter(|(x, y)| x == y).count();
        eprintln!(
            "{name}: parry3d contact_manifolds agrees on {agree}/{} pairs: ours {hits} in contact, parry {}",
            a.len(),
            theirs.iter().filter(|&&h| h).count()
        );
        g.bench_function("parry3d", |bch| bch.iter(|| black_box(p.count(MARGIN))));
    }
    #[cfg(not(feature = "peers"))]
    let _ = (hulls, hits);
    g.finish();
}

fn benches(c: &mut Criterion) {
    let (hulls, pairs) = hull_pairs(N, 64, 32, 81);
    let a: Vec<PlacedHull> = pairs.iter().map(|&(i, p, _, _)| place(&hulls[i], p)).collect();
    let b: Vec<HullPartner> =
        pairs.iter().map(|&(_, _, j, q)| HullPartner::Hull(place(&hulls[j], q))).collect();
    group(c, "contact_hull_hull", &hulls, &a, &b);
    let (hulls, pairs) = resting_hull_pairs(N, 64, 32, 85);
    let a: Vec<PlacedHull> = pairs.iter().map(|&(i, p, _, _)| place(&hulls[i], p)).collect();
    let b: Vec<HullPartner> =
        pairs.iter().map(|&(_, _, j, q)| HullPartner::Hull(place(&hulls[j], q))).collect();
    group(c, "contact_hull_hull_resting", &hulls, &a, &b);
    let (bh, ba, boxes) = hull_box_pairs(N, 64, 32, 83);
    let a: Vec<PlacedHull> = ba.iter().map(|&(i, p)| place(&bh[i], p)).collect();
    let b: Vec<HullPartner> = boxes.iter().map(|&o| HullPartner::Box(o)).collect();
    group(c, "contact_hull_box", &bh, &a, &b);
}

criterion_group!(hull, benches);
criterion_main!(hull);
