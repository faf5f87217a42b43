//! Measures the rayon task size of the parallel pairwise driver: streaming
//! triangle–box and sphere–box pairs at several output words per task.
//! `cargo run --release --example chunking` (figures in simd-notes.md).

use std::time::Instant;
use wide::f32x16;
use widephase::batch::kernels::{SphereAabb, TriangleAabb};
use widephase::batch::{par_pairwise_chunked, BitMask, PairKernel};
use widephase::pack::Pack;
use widephase::workload::{sphere_box_pairs, tri_box_pairs};

fn measure<K: PairKernel>(a: &[K::A], b: &[K::B]) {
    let (pa, pb) = (Pack::<K::A, f32x16>::new(a), Pack::<K::B, f32x16>::new(b));
    let mut out = BitMask::default();
    for words in [1usize, 4, 16, 64, 256, 1024, 4096] {
        let mut best = f64::INFINITY;
        for _ in 0..7 {
            let t = Instant::now();
            par_pairwise_chunked::<K, f32x16>(&pa, &pb, &mut out, words);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{:<16} words/task {:>5} ({:>7} pairs): {:>7.1} Mpairs/s",
            K::NAME,
            words,
            words * 64,
            a.len() as f64 / best / 1e6
        );
    }
}

fn main() {
    let n = 1 << 22;
    let (t, b) = tri_box_pairs(n, 0.02, 1);
    measure::<TriangleAabb>(&t, &b);
    let (s, b) = sphere_box_pairs(n, 0.02, 2);
    measure::<SphereAabb>(&s, &b);
}
