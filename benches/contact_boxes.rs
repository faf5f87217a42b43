//! Box contact manifolds (issue 6): ns per pair at each lane width on one
//! thread, with parry3d's `contact_manifold_cuboid_cuboid` (its box–box
//! manifold generator, the one `DefaultQueryDispatcher::contact_manifolds`
//! dispatches to for two cuboids) as the peer in the same group
//! (`--features peers`; the call is shared with `contact.rs` in
//! `common/parry_contact.rs`). The `contact` bench has box–box too, with
//! every other pair type, on its 50 %-hit workload.
//!
//! The `scalar`/`x4`/`x8`/`x16` rows run [`box_box_packs`], the batch entry
//! point the pipeline and `widephase bench --filter contact` use (SAT per
//! pack, contacting lanes compacted before the clipping); `x16_per_pack` runs
//! [`box_box`] pack by pack (same manifolds, asserted), `x16_sat_only` its
//! SAT ([`box_box_sat`]) and `x16_sat_obb_obb` the world-space
//! `obb_obb_contact` it replaced.
//!
//! `cargo bench --bench contact_boxes [--features peers]`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use wide::{f32x16, f32x4, f32x8};
use widephase::contact::box_box::{box_box, box_box_packs, box_box_sat};
use widephase::contact::Manifold;
use widephase::overlap::obb_obb_contact;
use widephase::pack::{LanePod, Pack};
use widephase::workload::{obb_pairs, resting_obb_pairs};
use widephase::Obb;

/// Pairs per iteration (fits in L2 with the output).
const N: usize = 4096;
/// Speculative margin used by every row.
const MARGIN: f32 = 0.02;

fn run_per_pack<L: LanePod>(a: &Pack<Obb, L>, b: &Pack<Obb, L>, out: &mut [Manifold<L>]) {
    let m = L::splat(MARGIN);
    for ((x, y), o) in a.chunks().iter().zip(b.chunks()).zip(out.iter_mut()) {
        *o = box_box(x, y, m);
    }
}

fn run<L: LanePod>(a: &Pack<Obb, L>, b: &Pack<Obb, L>, out: &mut [Manifold<L>]) {
    box_box_packs(a.chunks(), b.chunks(), L::splat(MARGIN), out);
}

fn contacts<L: LanePod>(out: &[Manifold<L>]) -> usize {
    out.iter().map(|m| (0..L::WIDTH).filter(|&i| m.count.lane(i) > 0.0).count()).sum()
}

#[cfg(feature = "peers")]
#[path = "common/parry_contact.rs"]
mod parry_contact;

fn group(c: &mut Criterion, name: &str, a: &[Obb], b: &[Obb]) {
    let mut g = c.benchmark_group(format!("contact_box_box/{name}"));
    g.throughput(Throughput::Elements(a.len() as u64));
    let p1 = (Pack::<Obb, f32>::new(a), Pack::<Obb, f32>::new(b));
    let p4 = (Pack::<Obb, f32x4>::new(a), Pack::<Obb, f32x4>::new(b));
    let p8 = (Pack::<Obb, f32x8>::new(a), Pack::<Obb, f32x8>::new(b));
    let p16 = (Pack::<Obb, f32x16>::new(a), Pack::<Obb, f32x16>::new(b));
    let mut o1 = vec![Manifold::<f32>::empty(); p1.0.chunks().len()];
    let mut o4 = vec![Manifold::<f32x4>::empty(); p4.0.chunks().len()];
    let mut o8 = vec![Manifold::<f32x8>::empty(); p8.0.chunks().len()];
    let mut o16 = vec![Manifold::<f32x16>::empty(); p16.0.chunks().len()];
    run(&p1.0, &p1.1, &mut o1);
    run(&p16.0, &p16.1, &mut o16);
    let want = contacts(&o1);
    assert_eq!(contacts(&o16), want);
    // the batch path gives the per-pack tester's manifolds bit for bit
    let mut per_pack = o16.clone();
    run_per_pack(&p16.0, &p16.1, &mut per_pack);
    assert!(o16.iter().zip(&per_pack).all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y)));
    eprintln!("contact_box_box/{name}: {want} of {} pairs in contact", a.len());
    g.bench_function("scalar", |bch| bch.iter(|| run(&p1.0, &p1.1, black_box(&mut o1))));
    g.bench_function("x4", |bch| bch.iter(|| run(&p4.0, &p4.1, black_box(&mut o4))));
    g.bench_function("x8", |bch| bch.iter(|| run(&p8.0, &p8.1, black_box(&mut o8))));
    g.bench_function("x16", |bch| bch.iter(|| run(&p16.0, &p16.1, black_box(&mut o16))));
    g.bench_function("x16_per_pack", |bch| {
        bch.iter(|| run_per_pack(&p16.0, &p16.1, black_box(&mut o16)))
    });
    // the SAT alone (axis, normal, depth), to show the clipping's share:
    // box_box's rotation-matrix SAT, and the world-space `obb_obb_contact`
    // it replaced (same axes and tie rule)
    g.bench_function("x16_sat_only", |bch| {
        bch.iter(|| {
            let mut n = f32x16::splat(0.0);
            for (x, y) in p16.0.chunks().iter().zip(p16.1.chunks()) {
                n += box_box_sat(x, y).depth;
            }
            black_box(n)
        })
    });
    g.bench_function("x16_sat_obb_obb", |bch| {
        bch.iter(|| {
            let mut n = f32x16::splat(0.0);
            for (x, y) in p16.0.chunks().iter().zip(p16.1.chunks()) {
                n += obb_obb_contact(x, y).depth;
            }
            black_box(n)
        })
    });
    #[cfg(feature = "peers")]
    {
        use parry_contact::PeerRun;
        let p = parry_contact::box_box(a, b, MARGIN);
        eprintln!("parry3d: {} of {} pairs in contact", p.count(), a.len());
        g.bench_function("parry3d", |bch| bch.iter(|| black_box(p.count())));
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let (a, b) = resting_obb_pairs(N, 61);
    group(c, "resting", &a, &b);
    let (a, b) = obb_pairs(N, 0.5, 62);
    group(c, "random", &a, &b);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
