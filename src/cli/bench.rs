//! `widephase bench`: a throughput table a user can run in under a minute.
//!
//! For each batched kernel and variant (scalar, x4, x8, x16 on one thread; par =
//! x16 on every rayon thread) it streams `n` pairs from memory (far larger than
//! the last-level cache) and reports pairs per second next to the read-bandwidth
//! roofline of the same run: streaming read bandwidth measured just before, at
//! the same thread count, divided by the bytes the kernel must read per pair.
//! The hit count of every variant must equal the scalar one, so a broken kernel
//! cannot post a fast number.

use super::CliResult;
use std::hint::black_box;
use std::time::Instant;
use wide::{f32x16, f32x4, f32x8};
use widephase::batch::kernels::*;
use widephase::batch::{
    one_vs_many, pairwise, pairwise_map, par_pairwise, par_pairwise_map, ray_vs_boxes_mask,
    BitMask, MapKernel, PairKernel,
};
use widephase::contact::pipeline::{
    self as cp, count_contacts, par_test_packs, test_packs, ContactTester,
};
use widephase::pack::{LanePod, Pack};
use widephase::workload::*;

/// Options of `widephase bench`.
pub struct BenchOptions {
    /// Smaller inputs and fewer repetitions.
    pub quick: bool,
    /// One JSON object per line instead of a table.
    pub json: bool,
    /// Only kernels whose name contains this.
    pub filter: Option<String>,
}

struct Row {
    kernel: String,
    variant: &'static str,
    threads: usize,
    n: usize,
    items_per_s: f64,
    roofline_items_per_s: f64,
    hits: usize,
}

/// Best-of-`reps` wall time of `f`, in seconds.
fn best_time(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// Streaming read bandwidth in bytes/s over buffers much larger than the LLC,
/// with one thread and with every rayon thread.
fn read_bandwidth(bytes: usize, reps: usize) -> (f64, f64) {
    use rayon::prelude::*;
    let n = bytes / 16;
    // Two streams read in lock-step, like every pairwise kernel (shape A, shape
    // B): on this hardware two streams are served faster than one, and a
    // one-stream probe would understate the roofline.
    let a: Vec<u64> = (0..n as u64).collect();
    let b: Vec<u64> = (0..n as u64).rev().collect();
    // XOR into independent accumulators: no floating-point latency chain,
    // vectorised by the compiler, so the loop is limited by memory alone.
    let xor = |(x, y): (&[u64], &[u64])| {
        let mut acc = [0u64; 8];
        for (cx, cy) in x.chunks_exact(4).zip(y.chunks_exact(4)) {
            for k in 0..4 {
                acc[k] ^= cx[k];
                acc[4 + k] ^= cy[k];
            }
        }
        acc.iter().fold(0, |p, q| p ^ q)
    };
    let t1 = best_time(reps, || {
        black_box(xor((black_box(&a), black_box(&b))));
    });
    let tp = best_time(reps, || {
        black_box(
            a.par_chunks(1 << 17).zip(b.par_chunks(1 << 17)).map(xor).reduce(|| 0, |p, q| p ^ q),
        );
    });
    (bytes as f64 / t1, bytes as f64 / tp)
}

fn run_pairwise<K: PairKernel, L: LanePod>(
    as_: &[K::A],
    bs: &[K::B],
    reps: usize,
    par: bool,
) -> (f64, usize) {
    let (pa, pb) = (Pack::<K::A, L>::new(as_), Pack::<K::B, L>::new(bs));
    let mut out = BitMask::zeros(as_.len());
    let t = best_time(reps, || {
        if par {
            par_pairwise::<K, L>(&pa, &pb, &mut out)
        } else {
            pairwise::<K, L>(&pa, &pb, &mut out)
        }
        black_box(&out);
    });
    (t, out.count_ones())
}

/// Timings of one kernel's variants: `(variant, threads, (seconds, hits))`.
type Variants = [(&'static str, usize, (f64, usize)); 5];

/// Checks every variant found the scalar hit count and appends the rows, each
/// with the roofline of its thread count.
fn push_streaming_rows(
    rows: &mut Vec<Row>,
    name: &str,
    n: usize,
    bytes: f64,
    variants: Variants,
    bw1: f64,
    bwp: f64,
) -> Result<(), String> {
    let hits0 = variants[0].2 .1;
    for (variant, th, (t, hits)) in variants {
        if hits != hits0 {
            return Err(format!(
                "{name}: variant {variant} found {hits} hits, scalar {hits0}: kernel mismatch"
            ));
        }
        let bw = if th == 1 { bw1 } else { bwp };
        rows.push(Row {
            kernel: name.to_string(),
            variant,
            threads: th,
            n,
            items_per_s: n as f64 / t,
            roofline_items_per_s: bw / bytes,
            hits,
        });
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn bench_kernel<K: PairKernel>(
    rows: &mut Vec<Row>,
    as_: &[K::A],
    bs: &[K::B],
    reps: usize,
    bw1: f64,
    bwp: f64,
    tier: &str,
) -> Result<(), String> {
    let n = as_.len();
    let bytes = (core::mem::size_of::<K::A>() + core::mem::size_of::<K::B>()) as f64 + 1.0 / 8.0;
    let name = format!("{}/{}", K::NAME, tier);
    let threads = rayon::current_num_threads();
    let variants: Variants = [
        ("scalar", 1, run_pairwise::<K, f32>(as_, bs, reps, false)),
        ("x4", 1, run_pairwise::<K, f32x4>(as_, bs, reps, false)),
        ("x8", 1, run_pairwise::<K, f32x8>(as_, bs, reps, false)),
        ("x16", 1, run_pairwise::<K, f32x16>(as_, bs, reps, false)),
        ("par", threads, run_pairwise::<K, f32x16>(as_, bs, reps, true)),
    ];
    push_streaming_rows(rows, &name, n, bytes, variants, bw1, bwp)
}

fn run_pairwise_map<K: MapKernel, L: LanePod>(
    as_: &[K::A],
    bs: &[K::B],
    reps: usize,
    par: bool,
) -> (f64, usize) {
    let (pa, pb) = (Pack::<K::A, L>::new(as_), Pack::<K::B, L>::new(bs));
    let mut out = BitMask::zeros(as_.len());
    let mut vals = Vec::new();
    let t = best_time(reps, || {
        if par {
            par_pairwise_map::<K, L>(&pa, &pb, &mut out, &mut vals)
        } else {
            pairwise_map::<K, L>(&pa, &pb, &mut out, &mut vals)
        }
        black_box((&out, &vals));
    });
    (t, out.count_ones())
}

/// Like [`bench_kernel`] for kernels that also write a record per pair (the
/// record's bytes count as written, not read: the roofline stays read-only).
#[allow(clippy::too_many_arguments)]
fn bench_map_kernel<K: MapKernel>(
    rows: &mut Vec<Row>,
    as_: &[K::A],
    bs: &[K::B],
    reps: usize,
    bw1: f64,
    bwp: f64,
    tier: &str,
) -> Result<(), String> {
    let n = as_.len();
    let bytes = (core::mem::size_of::<K::A>() + core::mem::size_of::<K::B>()) as f64;
    let name = format!("{}/{}", K::NAME, tier);
    let threads = rayon::current_num_threads();
    let variants: Variants = [
        ("scalar", 1, run_pairwise_map::<K, f32>(as_, bs, reps, false)),
        ("x4", 1, run_pairwise_map::<K, f32x4>(as_, bs, reps, false)),
        ("x8", 1, run_pairwise_map::<K, f32x8>(as_, bs, reps, false)),
        ("x16", 1, run_pairwise_map::<K, f32x16>(as_, bs, reps, false)),
        ("par", threads, run_pairwise_map::<K, f32x16>(as_, bs, reps, true)),
    ];
    push_streaming_rows(rows, &name, n, bytes, variants, bw1, bwp)
}

/// One ray against an in-cache pack of boxes, through the precomputed-ray driver.
fn bench_ray_one_vs_many(
    rows: &mut Vec<Row>,
    ray: &widephase::Ray,
    bs: &[widephase::Aabb],
    reps: usize,
) {
    fn go<L: LanePod>(ray: &widephase::Ray, bs: &[widephase::Aabb], reps: usize) -> (f64, usize) {
        let pack = Pack::<widephase::Aabb, L>::new(bs);
        let mut out = BitMask::zeros(bs.len());
        let inner = 64;
        let t = best_time(reps, || {
            for _ in 0..inner {
                ray_vs_boxes_mask::<L>(black_box(ray), &pack, &mut out);
                black_box(&out);
            }
        });
        (t / inner as f64, out.count_ones())
    }
    for (variant, (t, hits)) in [
        ("scalar", go::<f32>(ray, bs, reps)),
        ("x4", go::<f32x4>(ray, bs, reps)),
        ("x8", go::<f32x8>(ray, bs, reps)),
        ("x16", go::<f32x16>(ray, bs, reps)),
    ] {
        rows.push(Row {
            kernel: "ray_aabb/one_vs_many".into(),
            variant,
            threads: 1,
            n: bs.len(),
            items_per_s: bs.len() as f64 / t,
            roofline_items_per_s: f64::NAN,
            hits,
        });
    }
}

/// Pairwise over a small in-cache set, repeated: the compute-bound speedup of
/// each width over the scalar function (no memory traffic to hide behind).
fn bench_kernel_hot<K: PairKernel>(
    rows: &mut Vec<Row>,
    as_: &[K::A],
    bs: &[K::B],
    reps: usize,
    tier: &str,
) -> Result<(), String> {
    fn go<K: PairKernel, L: LanePod>(as_: &[K::A], bs: &[K::B], reps: usize) -> (f64, usize) {
        let (pa, pb) = (Pack::<K::A, L>::new(as_), Pack::<K::B, L>::new(bs));
        let mut out = BitMask::zeros(as_.len());
        let inner = 32;
        let t = best_time(reps, || {
            for _ in 0..inner {
                pairwise::<K, L>(black_box(&pa), &pb, &mut out);
                black_box(&out);
            }
        });
        (t / inner as f64, out.count_ones())
    }
    let name = format!("{}/{}-in-cache", K::NAME, tier);
    let res = [
        ("scalar", go::<K, f32>(as_, bs, reps)),
        ("x4", go::<K, f32x4>(as_, bs, reps)),
        ("x8", go::<K, f32x8>(as_, bs, reps)),
        ("x16", go::<K, f32x16>(as_, bs, reps)),
    ];
    for (variant, (t, hits)) in res {
        if hits != res[0].1 .1 {
            return Err(format!("{name}: {variant} found {hits} hits, scalar {}", res[0].1 .1));
        }
        rows.push(Row {
            kernel: name.clone(),
            variant,
            threads: 1,
            n: as_.len(),
            items_per_s: as_.len() as f64 / t,
            roofline_items_per_s: f64::NAN,
            hits,
        });
    }
    Ok(())
}

/// One query against a pack that stays in cache.
fn bench_one_vs_many<K: PairKernel>(rows: &mut Vec<Row>, a: &K::A, bs: &[K::B], reps: usize) {
    let name = format!("{}/one_vs_many", K::NAME);
    fn go<K: PairKernel, L: LanePod>(a: &K::A, bs: &[K::B], reps: usize) -> (f64, usize) {
        let pack = Pack::<K::B, L>::new(bs);
        let mut out = BitMask::zeros(bs.len());
        let inner = 64;
        let t = best_time(reps, || {
            for _ in 0..inner {
                one_vs_many::<K, L>(black_box(a), &pack, &mut out);
                black_box(&out);
            }
        });
        (t / inner as f64, out.count_ones())
    }
    for (variant, (t, hits)) in [
        ("scalar", go::<K, f32>(a, bs, reps)),
        ("x4", go::<K, f32x4>(a, bs, reps)),
        ("x8", go::<K, f32x8>(a, bs, reps)),
        ("x16", go::<K, f32x16>(a, bs, reps)),
    ] {
        rows.push(Row {
            kernel: name.clone(),
            variant,
            threads: 1,
            n: bs.len(),
            items_per_s: bs.len() as f64 / t,
            roofline_items_per_s: f64::NAN,
            hits,
        });
    }
}

/// A contact tester at each width on one thread over an in-cache set (4096
/// pairs, repeated; the manifolds stay SoA), and `par` (x16, every rayon
/// thread) over 2^16 pairs. Every width must find the scalar contact count.
fn bench_contact<T: ContactTester>(
    rows: &mut Vec<Row>,
    reps: usize,
    seed: u64,
) -> Result<(), String> {
    const MARGIN: f32 = 0.05;
    fn go<T: ContactTester, L: LanePod>(
        as_: &[T::A],
        bs: &[T::B],
        reps: usize,
        par: bool,
    ) -> (f64, usize) {
        let (pa, pb) = (Pack::<T::A, L>::new(as_), Pack::<T::B, L>::new(bs));
        let mut out = Vec::new();
        let inner = if par { 4 } else { 32 };
        let t = best_time(reps, || {
            for _ in 0..inner {
                if par {
                    par_test_packs::<T, L>(black_box(&pa), &pb, MARGIN, &mut out);
                } else {
                    test_packs::<T, L>(black_box(&pa), &pb, MARGIN, &mut out);
                }
                black_box(&out);
            }
        });
        (t / inner as f64, count_contacts(&out, as_.len()))
    }
    let (a, b) = widephase::workload::contact_pairs::<T>(4096, 1.0, seed);
    let (pa, pb) = widephase::workload::contact_pairs::<T>(1 << 16, 1.0, seed + 1);
    let threads = rayon::current_num_threads();
    let res = [
        ("scalar", 1, a.len(), go::<T, f32>(&a, &b, reps, false)),
        ("x4", 1, a.len(), go::<T, f32x4>(&a, &b, reps, false)),
        ("x8", 1, a.len(), go::<T, f32x8>(&a, &b, reps, false)),
        ("x16", 1, a.len(), go::<T, f32x16>(&a, &b, reps, false)),
        ("par", threads, pa.len(), go::<T, f32x16>(&pa, &pb, reps, true)),
    ];
    let scalar_par = go::<T, f32>(&pa, &pb, 1, false).1;
    for (variant, th, n, (t, hits)) in res {
        let want = if variant == "par" { scalar_par } else { res[0].3 .1 };
        if hits != want {
            return Err(format!("{}: {variant} found {hits} contacts, scalar {want}", T::NAME));
        }
        rows.push(Row {
            kernel: T::NAME.to_string(),
            variant,
            threads: th,
            n,
            items_per_s: n as f64 / t,
            roofline_items_per_s: f64::NAN,
            hits,
        });
    }
    Ok(())
}

/// The whole narrow phase, [`cp::contacts`] (bucketing by pair type, SoA
/// bundles, testers, swapped pairs, write-back in input order), on
/// `workload::contact_scene(4096, 0.05, 71)`: 4096 colliders of all kinds
/// and their 7631 broad-phase pairs. Rows `contact_pipeline`: `scalar`
/// ([`cp::contacts_with`]`::<f32>`) and `x16` on one thread, `par` (x16) on
/// every rayon thread; items are candidate pairs. Every variant must give the
/// same manifolds.
fn bench_contact_pipeline(rows: &mut Vec<Row>, reps: usize) -> Result<(), String> {
    const MARGIN: f32 = 0.05;
    let (colliders, pairs) = widephase::workload::contact_scene(4096, MARGIN, 71);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    let go = |scalar: bool| -> (f64, Vec<widephase::contact::Manifold>) {
        let run = || {
            if scalar {
                cp::contacts_with::<f32>(black_box(&colliders), &pairs, MARGIN)
            } else {
                cp::contacts(black_box(&colliders), &pairs, MARGIN)
            }
        };
        let mut out = run();
        // (timed batches of ~25 ms, best of at least 9: batches of 8 calls,
        // 3 ms, caught the second thread still waking up and read 2
        // threads as 1, and best of 3 batches still did in some runs)
        let inner = 64;
        let t = best_time(reps.max(9), || {
            for _ in 0..inner {
                out = run();
            }
        });
        (t / inner as f64, out)
    };
    let res = [
        ("scalar", 1, one.install(|| go(true))),
        ("x16", 1, one.install(|| go(false))),
        ("par", rayon::current_num_threads(), go(false)),
    ];
    for (variant, threads, (t, out)) in &res {
        if *out != res[0].2 .1 {
            return Err(format!("contact_pipeline: {variant} manifolds differ from scalar"));
        }
        rows.push(Row {
            kernel: "contact_pipeline".into(),
            variant,
            threads: *threads,
            n: pairs.len(),
            items_per_s: pairs.len() as f64 / t,
            roofline_items_per_s: f64::NAN,
            hits: out.iter().filter(|m| m.count > 0.0).count(),
        });
    }
    Ok(())
}

/// A resting-pile frame through [`NarrowPhase`](widephase::contact::NarrowPhase)
/// on the `contact_pipeline` scene: the frames alternate between the scene
/// and the scene with every tenth collider moved by `1e-4` (within the reuse
/// bound `1e-3`), so each frame reuses the manifolds of the pairs in contact,
/// of the empty pairs the separation check cleared and of the pairs of
/// unmoved colliders, and recomputes the moved ones' other empty pairs. Rows `contact_persistent`: `x16` on one thread, `par`
/// on every rayon thread; items are candidate pairs. Row
/// `contact_persistent_rest` (`x16`, one thread): every frame the scene
/// itself, nothing moved (a pile at rest: every pair reused). Row
/// `contact_persistent_moved` (`x16`, one thread): the frames of
/// `contact_persistent` through `update_moved`, given the moved tenth of
/// the bodies as a physics engine knows its awake ones (no comparison of
/// the others). Each run's last frame must equal `contacts()` on every
/// recomputed pair.
fn bench_contact_persistent(rows: &mut Vec<Row>, reps: usize) -> Result<(), String> {
    use widephase::contact::{Collider, NarrowPhase};
    const MARGIN: f32 = 0.05;
    let (rest, mut pairs) = widephase::workload::contact_scene(4096, MARGIN, 71);
    pairs.sort_unstable();
    let nudge = |c: &Collider| c.translated(widephase::Vec3::new(1e-4, 0.0, 0.0));
    let moved: Vec<Collider> =
        rest.iter().enumerate().map(|(i, c)| if i % 10 == 0 { nudge(c) } else { *c }).collect();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    let tenth: Vec<u32> = (0..rest.len() as u32).filter(|i| i % 10 == 0).collect();
    let go_listed = |nudged: &[Collider], listed: Option<&[u32]>| {
        let update = |np: &mut NarrowPhase, colliders: &[Collider]| match listed {
            Some(moved) => np.update_moved(colliders, moved, &pairs),
            None => np.update(colliders, &pairs),
        };
        let mut np = NarrowPhase::new(MARGIN).with_reuse_distance(1e-3);
        np.update(&rest, &pairs);
        // (as `contact_pipeline`: batches of 64 frames, best of at least 9)
        let inner = 64;
        let t = best_time(reps.max(9), || {
            for f in 0..inner {
                update(&mut np, black_box(if f % 2 == 0 { nudged } else { &rest }));
            }
        });
        let want = cp::contacts(&rest, &pairs, MARGIN);
        for (k, w) in want.iter().enumerate() {
            if !np.reused(k) && np.manifolds()[k] != *w {
                return Err(format!("contact_persistent: recomputed pair {k} differs"));
            }
        }
        Ok((t / inner as f64, np))
    };
    let go = |nudged: &[Collider]| go_listed(nudged, None);
    let res = [
        ("contact_persistent", "x16", 1, one.install(|| go(&moved))?),
        ("contact_persistent", "par", rayon::current_num_threads(), go(&moved)?),
        ("contact_persistent_rest", "x16", 1, one.install(|| go(&rest))?),
        ("contact_persistent_moved", "x16", 1, one.install(|| go_listed(&moved, Some(&tenth)))?),
    ];
    for (kernel, variant, threads, (t, np)) in &res {
        rows.push(Row {
            kernel: kernel.to_string(),
            variant,
            threads: *threads,
            n: pairs.len(),
            items_per_s: pairs.len() as f64 / t,
            roofline_items_per_s: f64::NAN,
            hits: np.manifolds().iter().filter(|m| m.count > 0.0).count(),
        });
    }
    Ok(())
}

/// Convex hull contacts ([`widephase::contact::hull_contacts`]): rows
/// `contact_hull_hull` (`workload::hull_pairs(4096, 64, 32, 81)`: hulls of
/// 8–32 points) and `contact_hull_box` (`workload::hull_box_pairs(4096, 64,
/// 32, 83)`) and `contact_hull_triangle` (the hulls of
/// `workload::hull_box_pairs(4096, 64, 32, 85)` against a triangle in each
/// box's place: through the box centre, facing the hull, corners `1.5·|half|`
/// from the centre), `scalar` on one thread and `par` on every rayon thread (the
/// testers are scalar per pair; the batch is split over threads). Both
/// variants must give the same manifolds.
fn bench_contact_hull(rows: &mut Vec<Row>, reps: usize) -> Result<(), String> {
    use widephase::contact::{hull_contacts, HullPartner, PlacedHull};
    const MARGIN: f32 = 0.05;
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    let (hulls, pairs) = widephase::workload::hull_pairs(4096, 64, 32, 81);
    let place =
        |i: usize, p: widephase::workload::HullPose| PlacedHull::new(&hulls[i], p.center, p.axes);
    let hh_a: Vec<PlacedHull> = pairs.iter().map(|&(i, p, _, _)| place(i, p)).collect();
    let hh_b: Vec<HullPartner> =
        pairs.iter().map(|&(_, _, j, q)| HullPartner::Hull(place(j, q))).collect();
    let (bhulls, ba, boxes) = widephase::workload::hull_box_pairs(4096, 64, 32, 83);
    let hb_a: Vec<PlacedHull> =
        ba.iter().map(|&(i, p)| PlacedHull::new(&bhulls[i], p.center, p.axes)).collect();
    let hb_b: Vec<HullPartner> = boxes.iter().map(|&b| HullPartner::Box(b)).collect();
    let (thulls, ta, tboxes) = widephase::workload::hull_box_pairs(4096, 64, 32, 85);
    let ht_a: Vec<PlacedHull> =
        ta.iter().map(|&(i, p)| PlacedHull::new(&thulls[i], p.center, p.axes)).collect();
    let ht_b: Vec<HullPartner> = ta
        .iter()
        .zip(&tboxes)
        .map(|(&(_, p), b)| {
            let n = (p.center - b.center).try_normalize().unwrap_or(widephase::Vec3::Y);
            let s = 1.5 * b.half.length();
            let u = (b.axes[0] - n * n.dot(b.axes[0])).try_normalize().unwrap_or(b.axes[1]);
            let w = n.cross(u);
            let (p0, p1, p2) =
                (b.center + u * s, b.center + (w - u * 0.5) * s, b.center - (w + u * 0.5) * s);
            // counter-clockwise about n: the front faces the hull
            HullPartner::Triangle(if (p1 - p0).cross(p2 - p0).dot(n) >= 0.0 {
                widephase::Triangle::new(p0, p1, p2)
            } else {
                widephase::Triangle::new(p0, p2, p1)
            })
        })
        .collect();
    let idx: Vec<(u32, u32)> = (0..4096u32).map(|i| (i, i)).collect();
    for (name, a, b) in [
        ("contact_hull_hull", &hh_a, &hh_b),
        ("contact_hull_box", &hb_a, &hb_b),
        ("contact_hull_triangle", &ht_a, &ht_b),
    ] {
        let go = || -> (f64, Vec<widephase::contact::Manifold>) {
            let mut out = hull_contacts(black_box(a), b, &idx, MARGIN);
            let inner = 4;
            let t = best_time(reps, || {
                for _ in 0..inner {
                    out = hull_contacts(black_box(a), b, &idx, MARGIN);
                }
            });
            (t / inner as f64, out)
        };
        let res = [("scalar", 1, one.install(go)), ("par", rayon::current_num_threads(), go())];
        for (variant, threads, (t, out)) in &res {
            if *out != res[0].2 .1 {
                return Err(format!("{name}: {variant} manifolds differ from one thread"));
            }
            rows.push(Row {
                kernel: name.into(),
                variant,
                threads: *threads,
                n: idx.len(),
                items_per_s: idx.len() as f64 / t,
                roofline_items_per_s: f64::NAN,
                hits: out.iter().filter(|m| m.count > 0.0).count(),
            });
        }
    }
    Ok(())
}

/// The kernel groups `--filter` selects from (by substring).
pub const KERNEL_GROUPS: [&str; 12] = [
    "triangle_aabb",
    "sphere_aabb",
    "aabb_aabb",
    "ray_aabb",
    "ray_triangle",
    "sphere_sphere",
    "obb_obb",
    "triangle_triangle",
    "sphere_triangle",
    "moving",
    "one_vs_many",
    "contact",
];

/// Runs the benchmark and prints the table (or JSON lines).
pub fn run(opt: BenchOptions) -> CliResult {
    if let Some(f) = opt.filter.as_deref() {
        if !KERNEL_GROUPS.iter().any(|g| g.contains(f)) {
            return Err(format!(
                "--filter {f:?} matches no kernel; the kernels are {}",
                KERNEL_GROUPS.join(", ")
            )
            .into());
        }
    }
    // Streaming runs read at least 256 MiB (quick) / 512 MiB of shape data per
    // pass — 7-14× the 36 MiB L3 of the reference machine — so they measure
    // memory, not cache. Compute-bound kernels get 2^18 pairs.
    let (stream_bytes, reps) = if opt.quick { (256usize << 20, 3) } else { (512usize << 20, 7) };
    let stream_n = |bytes_per_pair: usize| (stream_bytes / bytes_per_pair).next_power_of_two();
    let compute_n = 1usize << 18;
    let (bw1, bwp) = read_bandwidth(if opt.quick { 256 << 20 } else { 512 << 20 }, reps);
    let keep = |name: &str| opt.filter.as_deref().is_none_or(|f| name.contains(f));
    let mut rows = Vec::new();
    let tiers: &[(&str, f32)] = if opt.quick {
        &[("rare", 0.02)]
    } else {
        &[("never", 0.0), ("rare", 0.02), ("common", 0.5)]
    };
    for &(tier, rate) in tiers {
        if keep("triangle_aabb") {
            let (t, b) = tri_box_pairs(stream_n(60), rate, 1);
            bench_kernel::<TriangleAabb>(&mut rows, &t, &b, reps, bw1, bwp, tier)?;
            bench_kernel::<TriangleAabbConservative>(&mut rows, &t, &b, reps, bw1, bwp, tier)?;
        }
        if keep("sphere_aabb") {
            let (s, b) = sphere_box_pairs(stream_n(40), rate, 2);
            bench_kernel::<SphereAabb>(&mut rows, &s, &b, reps, bw1, bwp, tier)?;
        }
        if keep("aabb_aabb") {
            let (a, b) = box_box_pairs(stream_n(48), rate, 3);
            bench_kernel::<AabbAabb>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
            bench_kernel::<AabbAabbConservative>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
        }
        if keep("ray_aabb") {
            let (r, b) = ray_box_pairs(stream_n(56), rate, 4);
            bench_kernel::<RayAabbTest>(&mut rows, &r, &b, reps, bw1, bwp, tier)?;
            bench_map_kernel::<RayAabb>(&mut rows, &r, &b, reps, bw1, bwp, tier)?;
            let (s, b) = segment_box_pairs(stream_n(48), rate, 12);
            bench_kernel::<SegmentAabb>(&mut rows, &s, &b, reps, bw1, bwp, tier)?;
        }
        if keep("ray_triangle") {
            let (r, t) = ray_triangle_pairs(compute_n, rate, 5);
            bench_map_kernel::<RayTriangle>(&mut rows, &r, &t, reps, bw1, bwp, tier)?;
            bench_kernel::<RayTriangleConservative>(&mut rows, &r, &t, reps, bw1, bwp, tier)?;
        }
        if keep("sphere_triangle") {
            let (s, t) = widephase::workload::sphere_triangle_pairs(compute_n, rate, 13);
            bench_kernel::<SphereTriangle>(&mut rows, &s, &t, reps, bw1, bwp, tier)?;
            bench_kernel::<SphereTriangleConservative>(&mut rows, &s, &t, reps, bw1, bwp, tier)?;
        }
        if keep("moving") {
            let (a, b) = widephase::workload::moving_box_pairs(stream_n(56), rate, 14);
            bench_map_kernel::<MovingAabbAabb>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
            bench_map_kernel::<MovingAabbAabbConservative>(
                &mut rows, &a, &b, reps, bw1, bwp, tier,
            )?;
            let (s, b) = widephase::workload::moving_sphere_box_pairs(compute_n, rate, 15);
            bench_map_kernel::<MovingSphereAabb>(&mut rows, &s, &b, reps, bw1, bwp, tier)?;
        }
        if keep("sphere_sphere") {
            let (a, b) = sphere_sphere_pairs(stream_n(32), rate, 6);
            bench_kernel::<SphereSphere>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
            bench_kernel::<SphereSphereConservative>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
        }
        if keep("obb_obb") {
            let (a, b) = obb_pairs(compute_n, rate, 7);
            bench_kernel::<ObbObb>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
            bench_map_kernel::<ObbObbContact>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
            bench_kernel::<ObbObbConservative>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
        }
        if keep("triangle_triangle") {
            let (a, b) = triangle_pairs(compute_n, rate, 8);
            bench_kernel::<TriangleTriangle>(&mut rows, &a, &b, reps, bw1, bwp, tier)?;
        }
    }
    // in-cache pairwise (compute-bound speedups), rare tier: 8192 pairs
    for &(tier, rate) in tiers {
        if tier != "rare" {
            continue;
        }
        if keep("triangle_aabb") {
            let (t, b) = tri_box_pairs(8192, rate, 9);
            bench_kernel_hot::<TriangleAabb>(&mut rows, &t, &b, reps * 3, tier)?;
            bench_kernel_hot::<TriangleAabbConservative>(&mut rows, &t, &b, reps * 3, tier)?;
        }
        if keep("sphere_aabb") {
            let (s, b) = sphere_box_pairs(8192, rate, 10);
            bench_kernel_hot::<SphereAabb>(&mut rows, &s, &b, reps * 3, tier)?;
        }
        if keep("ray_aabb") {
            let (r, b) = ray_box_pairs(8192, rate, 11);
            bench_kernel_hot::<RayAabbTest>(&mut rows, &r, &b, reps * 3, tier)?;
        }
    }
    // one-vs-many, in cache: 4096 boxes (96 KiB)
    if keep("one_vs_many") || opt.filter.is_none() {
        let (s, b) = sphere_box_pairs(4096, 0.02, 4);
        bench_one_vs_many::<SphereAabb>(&mut rows, &s[0], &b, reps * 3);
        let (t, b) = tri_box_pairs(4096, 0.02, 5);
        bench_one_vs_many::<TriangleAabb>(&mut rows, &t[0], &b, reps * 3);
        let (r, b) = ray_box_pairs(4096, 0.02, 6);
        bench_ray_one_vs_many(&mut rows, &r[0], &b, reps * 3);
    }

    // Contact manifolds, one line per pair type (`contact_<a>_<b>` rows), then
    // the whole pipeline on a mixed scene (`contact_pipeline`).
    if keep("contact") {
        bench_contact::<cp::SphereSphere>(&mut rows, reps, 41)?;
        bench_contact::<cp::SphereCapsule>(&mut rows, reps, 43)?;
        bench_contact::<cp::SphereBox>(&mut rows, reps, 45)?;
        bench_contact::<cp::SphereTriangle>(&mut rows, reps, 47)?;
        bench_contact::<cp::CapsuleCapsule>(&mut rows, reps, 49)?;
        bench_contact::<cp::CapsuleTriangle>(&mut rows, reps, 51)?;
        bench_contact::<cp::BoxBox>(&mut rows, reps, 55)?;
        bench_contact::<cp::CapsuleBox>(&mut rows, reps, 53)?;
        bench_contact::<cp::BoxTriangle>(&mut rows, reps, 57)?;
        bench_contact_pipeline(&mut rows, reps)?;
        bench_contact_persistent(&mut rows, reps)?;
        bench_contact_hull(&mut rows, reps)?;
    }

    if opt.json {
        for r in &rows {
            println!(
                "{{\"kernel\":\"{}\",\"variant\":\"{}\",\"threads\":{},\"n\":{},\"items_per_s\":{:.0},\"ns_per_pair\":{:.3},\"roofline_items_per_s\":{},\"hits\":{}}}",
                r.kernel,
                r.variant,
                r.threads,
                r.n,
                r.items_per_s,
                1e9 / r.items_per_s,
                if r.roofline_items_per_s.is_finite() { format!("{:.0}", r.roofline_items_per_s) } else { "null".into() },
                r.hits
            );
        }
    } else {
        println!(
            "read bandwidth: {:.1} GB/s (1 thread), {:.1} GB/s ({} threads); streaming runs read ≥ {} MiB per pass; best of {}",
            bw1 / 1e9,
            bwp / 1e9,
            rayon::current_num_threads(),
            stream_bytes >> 20,
            reps
        );
        println!(
            "{:<38} {:>7} {:>3} {:>12} {:>9} {:>9} {:>9}",
            "kernel/tier", "variant", "thr", "Mitems/s", "roofline", "%roof", "vs scalar"
        );
        let mut scalar = f64::NAN;
        for r in &rows {
            if r.variant == "scalar" {
                scalar = r.items_per_s;
            }
            let (roof, pct) = if r.roofline_items_per_s.is_finite() {
                (
                    format!("{:.1}", r.roofline_items_per_s / 1e6),
                    format!("{:.0}%", 100.0 * r.items_per_s / r.roofline_items_per_s),
                )
            } else {
                ("in-cache".to_string(), "-".to_string())
            };
            println!(
                "{:<38} {:>7} {:>3} {:>12.1} {:>9} {:>9} {:>8.1}x",
                r.kernel,
                r.variant,
                r.threads,
                r.items_per_s / 1e6,
                roof,
                pct,
                r.items_per_s / scalar
            );
        }
    }
    Ok(())
}
