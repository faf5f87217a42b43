//! Broad-phase probe: `broad_probe SET N WIDTH REPS [THREADS [reuse]]` runs
//! `self_pairs_with` (with `reuse`: one `BoxPruner` kept across calls) REPS times on `terdiman_boxes(N, 42)` or
//! `sparse_boxes(N, 7)` and prints the pair count, an FNV-1a hash of the
//! pair list (to prove answers unchanged across versions) and the minimum and
//! median wall time per call. Under `valgrind --tool=callgrind` use it to count
//! instructions (difference two REPS values to get one call).

use std::time::Instant;
use widephase::broad::{self_pairs_with, workload, BoxPruner};

fn fnv(pairs: &[(u32, u32)]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &(a, b) in pairs {
        for x in [a, b] {
            for byte in x.to_le_bytes() {
                h = (h ^ byte as u64).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    h
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let set = args[1].as_str();
    let n: usize = args[2].parse().expect("N");
    let width = args[3].as_str();
    let reps: usize = args[4].parse().expect("REPS");
    let threads: usize = args.get(5).map_or(1, |t| t.parse().expect("THREADS"));
    let boxes = match set {
        "terdiman" => workload::terdiman_boxes(n, 42),
        "sparse" => workload::sparse_boxes(n, 7),
        _ => panic!("SET is terdiman or sparse"),
    };
    // THREADS = 1: this thread is the pool's only worker (`use_current_thread`),
    // so `install` runs the call inline, as a single-threaded caller would. A
    // pool with a worker thread of its own woke it and blocked on a futex per
    // call (~8 % of a Terdiman 10k profile in kernel scheduling; median
    // 0.56 -> 0.47 ms without it; simd-notes.md, "Broad phase").
    let builder = rayon::ThreadPoolBuilder::new().num_threads(threads);
    let builder = if threads == 1 { builder.use_current_thread() } else { builder };
    let pool = builder.build().expect("pool");
    let chunk = (n / 16).clamp(256, 1 << 16);
    let reuse = args.get(6).is_some_and(|a| a == "reuse");
    let mut pruner = BoxPruner::new();
    // Returns the pair count and, with `hash`, the hash of the pair list of
    // exactly the timed variant (width, one-shot or kept pruner).
    let mut run = |hash: bool| {
        let h = |p: &[(u32, u32)]| (p.len(), if hash { fnv(p) } else { 0 });
        match (width, reuse) {
            ("1", false) => h(&self_pairs_with::<f32>(&boxes, chunk)),
            ("8", false) => h(&self_pairs_with::<wide::f32x8>(&boxes, chunk)),
            ("16", false) => h(&self_pairs_with::<wide::f32x16>(&boxes, chunk)),
            ("1", true) => h(pruner.self_pairs_with::<f32>(&boxes, chunk)),
            ("8", true) => h(pruner.self_pairs_with::<wide::f32x8>(&boxes, chunk)),
            ("16", true) => h(pruner.self_pairs_with::<wide::f32x16>(&boxes, chunk)),
            _ => panic!("WIDTH is 1, 8 or 16"),
        }
    };
    let mut times = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        std::hint::black_box(pool.install(|| run(false)));
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (count, hash) = pool.install(|| run(true));
    times.sort_by(f64::total_cmp);
    println!(
        "{set} {n} x{width} t{threads}{}: {} pairs, hash {:016x}, min {:.3} ms, median {:.3} ms",
        if reuse { " reuse" } else { "" },
        count,
        hash,
        times[0],
        times[times.len() / 2]
    );
}
