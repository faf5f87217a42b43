//! Criterion benches for the contact testers and the narrow-phase pipeline
//! (issue 6).
//!
//! **Testers.** One group per implemented pair type (`contact_<a>_<b>`, all
//! nine: sphere–sphere, sphere–capsule, sphere–box, sphere–triangle,
//! capsule–capsule, capsule–box, capsule–triangle, box–box, box–triangle),
//! each with the same rows: `scalar`, `x4`, `x8`, `x16` on one thread
//! ([`test_packs`]) and `x16_t2` ([`par_test_packs`] on a two-thread rayon
//! pool), over 4096 pre-packed pairs in cache, manifolds written SoA. The
//! workload of every type is `workload::contact_pairs_at::<T>(4096, 0.5,
//! 0.05, seed)`: exactly half the pairs in contact at the margin 0.05,
//! triangles wound to face A. Every width must find those 2048 contacts.
//! `x16_t2` splits the same 4096 pairs into 4 rayon tasks
//! (`PAIRS_PER_TASK`), so for the cheap pairs the fork/join costs about as
//! much as the work; `widephase bench`'s `par` rows use 65 536 pairs.
//!
//! **Peers** (`--features peers`): a `parry3d` row in every group, parry3d
//! 0.31 with prediction distance = our margin; which parry function each pair
//! type calls is tabled in `common/parry_contact.rs` (`query::contact` for the
//! sphere pairs, the manifold generators for the rest). Before timing, the
//! per-pair contact decisions of parry and ours are compared; the agreement is
//! printed and must be at least [`MIN_AGREEMENT`], so the peer answers the
//! same question on the same pairs. Capsule–capsule also times
//! `parry3d_contact` (`query::contact`, GJK/EPA).
//!
//! **Pipeline.** `contact_pipeline`: [`contacts`] (bucketing by pair type,
//! transposition to SoA, the x16 testers, `swap_roles`, write-back in input
//! order) on `workload::contact_scene(4096, 0.05, 71)` — 4096 colliders of all
//! four kinds and their broad-phase pairs — at one (`x16_t1`) and two
//! (`x16_t2`) rayon threads, and `scalar_t1` ([`contacts_with`]`::<f32>`);
//! throughput is candidate pairs.
//!
//! `cargo bench --bench contact [--features peers]`;
//! `scripts/contact_table.sh` runs it and prints the Markdown table.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rayon::ThreadPool;
use std::hint::black_box;
use wide::{f32x16, f32x4, f32x8};
use widephase::contact::pipeline::{
    contacts_with, count_contacts, par_test_packs, test_packs, BoxBox, BoxTriangle, CapsuleBox,
    CapsuleCapsule, CapsuleTriangle, ContactTester, SphereBox, SphereCapsule, SphereSphere,
    SphereTriangle,
};
use widephase::contact::{contacts, Collider};
use widephase::pack::Pack;
use widephase::workload::{contact_pairs_at, contact_scene};

#[cfg(feature = "peers")]
#[path = "common/parry_contact.rs"]
mod parry_contact;

/// Pairs per iteration (in L2 with the manifolds).
const N: usize = 4096;
/// Speculative margin of every tester and parry's prediction distance.
const MARGIN: f32 = 0.05;
/// Fraction of the pairs in contact, every pair type.
const HIT_RATE: f32 = 0.5;
/// Least fraction of pairs on which a peer must agree with us (contact or
/// not). Measured agreement is printed; the disagreements are pairs within
/// rounding of the margin, and for box–box the diagonal pairs our SAT gap
/// (a lower bound on the distance) gives speculative contacts.
const MIN_AGREEMENT: f64 = 0.99;
/// Colliders of the pipeline scene.
const SCENE: usize = 4096;

/// A peer row: its bench name, the parry function, the timed closure
/// (returns its contact count) and its per-pair decisions.
struct PeerRow {
    name: &'static str,
    call: &'static str,
    run: Box<dyn Fn() -> usize>,
    hits: Vec<bool>,
}

#[cfg(feature = "peers")]
fn row(name: &'static str, p: impl parry_contact::PeerRun + 'static) -> PeerRow {
    PeerRow { name, call: p.call(), hits: p.hits(), run: Box::new(move || p.count()) }
}

/// `|a, b| -> Vec<PeerRow>`: the listed `parry_contact` peers with
/// `--features peers`, none without.
macro_rules! peers {
    ($($name:literal => $f:ident),*) => {
        |_a, _b| {
            #[cfg(feature = "peers")]
            let rows = vec![$(row($name, parry_contact::$f(_a, _b, MARGIN))),*];
            #[cfg(not(feature = "peers"))]
            let rows = Vec::new();
            rows
        }
    };
}

fn pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("rayon pool")
}

/// One pair type: every width, two threads, and the peers, in one group.
fn pair_type<T: ContactTester>(
    c: &mut Criterion,
    t2: &ThreadPool,
    seed: u64,
    peers: impl FnOnce(&[T::A], &[T::B]) -> Vec<PeerRow>,
) {
    let (a, b) = contact_pairs_at::<T>(N, HIT_RATE, MARGIN, seed);
    let want = (N as f64 * HIT_RATE as f64).round() as usize;
    let mut g = c.benchmark_group(T::NAME);
    g.throughput(Throughput::Elements(N as u64));
    macro_rules! width {
        ($name:literal, $l:ty, $par:expr) => {{
            let (pa, pb) = (Pack::<T::A, $l>::new(&a), Pack::<T::B, $l>::new(&b));
            let mut out = Vec::new();
            test_packs::<T, $l>(&pa, &pb, MARGIN, &mut out);
            let hits = count_contacts::<$l>(&out, N);
            assert_eq!(hits, want, "{} {}: contacts", T::NAME, $name);
            g.bench_function($name, |bch| {
                bch.iter(|| {
                    if $par {
                        t2.install(|| {
                            par_test_packs::<T, $l>(black_box(&pa), &pb, MARGIN, &mut out)
                        })
                    } else {
                        test_packs::<T, $l>(black_box(&pa), &pb, MARGIN, &mut out)
                    }
                })
            });
        }};
    }
    width!("scalar", f32, false);
    width!("x4", f32x4, false);
    width!("x8", f32x8, false);
    width!("x16", f32x16, false);
    width!("x16_t2", f32x16, true);
    let ours: Vec<bool> = {
        // scalar packs hold one pair per chunk
        let (pa, pb) = (Pack::<T::A, f32>::new(&a), Pack::<T::B, f32>::new(&b));
        let mut out = Vec::new();
        test_packs::<T, f32>(&pa, &pb, MARGIN, &mut out);
        out.iter().map(|m| m.count > 0.0).collect()
    };
    for p in peers(&a, &b) {
        let agree = ours.iter().zip(&p.hits).filter(|(x, y)| x == y).count();
        let theirs = p.hits.iter().filter(|&&h| h).count();
        let rate = agree as f64 / N as f64;
        eprintln!(
            "{}/{}: parry3d {} agrees on {agree}/{N} pairs ({:.2} %): ours {want} in contact, parry {theirs}",
            T::NAME,
            p.name,
            p.call,
            100.0 * rate
        );
        assert!(rate >= MIN_AGREEMENT, "{}/{}: agreement {rate:.4}", T::NAME, p.name);
        assert_eq!((p.run)(), theirs, "{}/{}: peer not deterministic", T::NAME, p.name);
        g.bench_function(p.name, |bch| bch.iter(|| black_box((p.run)())));
    }
    g.finish();
}

/// The pipeline on a mixed scene at one and two threads.
fn pipeline(c: &mut Criterion, t1: &ThreadPool, t2: &ThreadPool) {
    let (colliders, pairs) = contact_scene(SCENE, MARGIN, 71);
    let m1 = t1.install(|| contacts(&colliders, &pairs, MARGIN));
    let m2 = t2.install(|| contacts(&colliders, &pairs, MARGIN));
    assert!(m1 == m2, "contacts differ between 1 and 2 threads");
    assert!(contacts_with::<f32>(&colliders, &pairs, MARGIN) == m1, "scalar and x16 differ");
    // the scene's pair-type mix, for the record
    let mut mix = std::collections::BTreeMap::new();
    let mut swapped = 0;
    for &(i, j) in &pairs {
        let (ka, kb) = (colliders[i as usize].kind(), colliders[j as usize].kind());
        swapped += (ka > kb) as usize;
        *mix.entry((ka.min(kb), ka.max(kb))).or_insert(0usize) += 1;
    }
    let hits = m1.iter().filter(|m| m.count > 0.0).count();
    let kinds = |k: fn(&Collider) -> bool| colliders.iter().filter(|c| k(c)).count();
    eprintln!(
        "contact_pipeline: {} colliders ({} spheres, {} capsules, {} boxes, {} triangles), {} pairs ({} swapped), {} in contact; mix {:?}",
        colliders.len(),
        kinds(|c| matches!(c, Collider::Sphere(_))),
        kinds(|c| matches!(c, Collider::Capsule(_))),
        kinds(|c| matches!(c, Collider::Box(_))),
        kinds(|c| matches!(c, Collider::Triangle(_))),
        pairs.len(),
        swapped,
        hits,
        mix
    );
    let mut g = c.benchmark_group("contact_pipeline");
    g.throughput(Throughput::Elements(pairs.len() as u64));
    g.bench_function("scalar_t1", |bch| {
        bch.iter(|| t1.install(|| contacts_with::<f32>(black_box(&colliders), &pairs, MARGIN)))
    });
    g.bench_function("x16_t1", |bch| {
        bch.iter(|| t1.install(|| contacts(black_box(&colliders), &pairs, MARGIN)))
    });
    g.bench_function("x16_t2", |bch| {
        bch.iter(|| t2.install(|| contacts(black_box(&colliders), &pairs, MARGIN)))
    });
    g.finish();
}

fn bench_contact(c: &mut Criterion) {
    let (t1, t2) = (pool(1), pool(2));
    pair_type::<SphereSphere>(c, &t2, 41, peers!("parry3d" => sphere_sphere));
    pair_type::<SphereCapsule>(c, &t2, 43, peers!("parry3d" => sphere_capsule));
    pair_type::<SphereBox>(c, &t2, 45, peers!("parry3d" => sphere_box));
    pair_type::<SphereTriangle>(c, &t2, 47, peers!("parry3d" => sphere_triangle));
    pair_type::<CapsuleCapsule>(
        c,
        &t2,
        49,
        peers!("parry3d" => capsule_capsule, "parry3d_contact" => capsule_capsule_contact),
    );
    pair_type::<CapsuleBox>(c, &t2, 53, peers!("parry3d" => capsule_box));
    pair_type::<CapsuleTriangle>(c, &t2, 51, peers!("parry3d" => capsule_triangle));
    pair_type::<BoxBox>(c, &t2, 55, peers!("parry3d" => box_box));
    pair_type::<BoxTriangle>(c, &t2, 57, peers!("parry3d" => box_triangle));
    pipeline(c, &t1, &t2);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_millis(800));
    targets = bench_contact
}
criterion_main!(benches);
