//! Shared criterion helpers: every width of a pair or map kernel in one group,
//! hit counts asserted equal across widths (and with the peer) before timing.
#![allow(dead_code)]

use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use wide::{f32x16, f32x4, f32x8};
use widephase::batch::{
    pairwise, pairwise_map, par_pairwise, par_pairwise_map, BitMask, MapKernel, PairKernel,
};
use widephase::pack::{LanePod, Pack};

/// Pairs per benchmark iteration.
pub const N: usize = 1 << 16;
/// Hit-rate tiers (memchr's never / rare / common).
pub const TIERS: [(&str, f32); 3] = [("never", 0.0), ("rare", 0.02), ("common", 0.5)];

fn hits<K: PairKernel, L: LanePod>(a: &Pack<K::A, L>, b: &Pack<K::B, L>) -> usize {
    let mut m = BitMask::default();
    pairwise::<K, L>(a, b, &mut m);
    m.count_ones()
}

/// A peer implementation: a name and a closure returning its hit count.
pub type Peer<'a> = Option<(&'a str, &'a dyn Fn() -> usize)>;

/// scalar, x4, x8, x16 and par for a pair kernel, plus an optional peer.
pub fn widths<K: PairKernel>(c: &mut Criterion, tier: &str, as_: &[K::A], bs: &[K::B], peer: Peer) {
    let mut g = c.benchmark_group(format!("{}/{}", K::NAME, tier));
    g.throughput(Throughput::Elements(as_.len() as u64));
    let p1 = (Pack::<K::A, f32>::new(as_), Pack::<K::B, f32>::new(bs));
    let p4 = (Pack::<K::A, f32x4>::new(as_), Pack::<K::B, f32x4>::new(bs));
    let p8 = (Pack::<K::A, f32x8>::new(as_), Pack::<K::B, f32x8>::new(bs));
    let p16 = (Pack::<K::A, f32x16>::new(as_), Pack::<K::B, f32x16>::new(bs));
    let want = hits::<K, f32>(&p1.0, &p1.1);
    assert_eq!(hits::<K, f32x4>(&p4.0, &p4.1), want);
    assert_eq!(hits::<K, f32x8>(&p8.0, &p8.1), want);
    assert_eq!(hits::<K, f32x16>(&p16.0, &p16.1), want);
    let mut out = BitMask::zeros(as_.len());
    g.bench_function("scalar", |b| {
        b.iter(|| pairwise::<K, f32>(&p1.0, &p1.1, black_box(&mut out)))
    });
    g.bench_function("x4", |b| b.iter(|| pairwise::<K, f32x4>(&p4.0, &p4.1, black_box(&mut out))));
    g.bench_function("x8", |b| b.iter(|| pairwise::<K, f32x8>(&p8.0, &p8.1, black_box(&mut out))));
    g.bench_function("x16", |b| {
        b.iter(|| pairwise::<K, f32x16>(&p16.0, &p16.1, black_box(&mut out)))
    });
    g.bench_function("par", |b| {
        b.iter(|| par_pairwise::<K, f32x16>(&p16.0, &p16.1, black_box(&mut out)))
    });
    if let Some((name, f)) = peer {
        // widephase's answers are checked against exact arithmetic in the test
        // suite; a peer with tolerances (GJK) may differ on near-contact pairs.
        // Report it, and refuse to time a peer that disagrees on more than 1 %.
        let got = f();
        if got != want {
            eprintln!(
                "note: {name} reports {got} hits on {}/{tier}, widephase (exact-checked) {want}",
                K::NAME
            );
        }
        assert!(got.abs_diff(want) <= want / 100 + 2, "{name}: {got} hits vs widephase {want}");
        g.bench_function(BenchmarkId::new("peer", name), |b| b.iter(|| black_box(f())));
    }
    g.finish();
}

/// scalar, x4, x8, x16 and par for a map kernel (hits and records), plus a peer.
pub fn map_widths<K: MapKernel>(
    c: &mut Criterion,
    tier: &str,
    as_: &[K::A],
    bs: &[K::B],
    peer: Peer,
) {
    let mut g = c.benchmark_group(format!("{}/{}", K::NAME, tier));
    g.throughput(Throughput::Elements(as_.len() as u64));
    let mut m = BitMask::default();
    let mut v = Vec::new();
    macro_rules! width {
        ($name:literal, $l:ty, $par:expr) => {{
            let (pa, pb) = (Pack::<K::A, $l>::new(as_), Pack::<K::B, $l>::new(bs));
            pairwise_map::<K, $l>(&pa, &pb, &mut m, &mut v);
            let hits = m.count_ones();
            g.bench_function($name, |b| {
                b.iter(|| {
                    if $par {
                        par_pairwise_map::<K, $l>(&pa, &pb, black_box(&mut m), &mut v)
                    } else {
                        pairwise_map::<K, $l>(&pa, &pb, black_box(&mut m), &mut v)
                    }
                })
            });
            hits
        }};
    }
    let want = width!("scalar", f32, false);
    assert_eq!(width!("x4", f32x4, false), want);
    assert_eq!(width!("x8", f32x8, false), want);
    assert_eq!(width!("x16", f32x16, false), want);
    assert_eq!(width!("par", f32x16, true), want);
    if let Some((name, f)) = peer {
        let got = f();
        // Peers that are not watertight or exact may differ on a few grazing
        // pairs; report rather than hide it.
        assert!(got.abs_diff(want) <= want / 100 + 2, "{name}: {got} hits vs widephase {want}");
        g.bench_function(BenchmarkId::new("peer", name), |b| b.iter(|| black_box(f())));
    }
    g.finish();
}
