//! Criterion benches for the broad phase: all-pairs box pruning on Terdiman's
//! distribution and on ~4 overlaps per box, 1 and 2 threads, lane widths, the
//! incremental broad phase against a rebuild, and parry3d's `Bvh` self-overlap
//! (binned build + tree-vs-itself traversal) with `--features peers`.
//!
//! Every timed closure's pair count is asserted before timing, so a broken
//! kernel cannot post a fast number.
//!
//! `BROAD_BENCH_SIZES=10k,100k` restricts the sizes (1M takes a while).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use wide::{f32x16, f32x8};
use widephase::broad::{self_pairs_with, workload, BoxPruner, BroadPhase, Handle};
use widephase::{Aabb, Vec3};

#[cfg(feature = "peers")]
mod peer {
    use parry3d::bounding_volume::Aabb as PAabb;
    use parry3d::math::Vector;
    use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};

    pub fn leaves(boxes: &[widephase::Aabb]) -> Vec<PAabb> {
        boxes
            .iter()
            .map(|b| {
                PAabb::new(
                    Vector::new(b.min.x, b.min.y, b.min.z),
                    Vector::new(b.max.x, b.max.y, b.max.z),
                )
            })
            .collect()
    }

    pub fn build(leaves: &[PAabb]) -> Bvh {
        Bvh::from_leaves(BvhBuildStrategy::Binned, leaves)
    }

    /// Leaf pairs of the tree against itself (rapier's broad phase query).
    pub fn self_pairs(bvh: &Bvh, ws: &mut BvhWorkspace) -> usize {
        let mut n = 0usize;
        bvh.traverse_bvtt_single_tree::<false>(ws, &mut |_, _| n += 1);
        n
    }

    pub fn one_shot(leaves: &[PAabb]) -> usize {
        self_pairs(&build(leaves), &mut BvhWorkspace::default())
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool")
}

/// The one-thread pool: the bench thread itself is its only worker
/// (`use_current_thread`), so `install` runs the closure inline, as a
/// single-threaded game loop calls the library. A pool with its own worker
/// thread made every timed call wake that worker and block the caller on a
/// futex (two context switches per call; ~8 % of the samples of a 10k
/// Terdiman profile were kernel scheduling, and the probe's median fell
/// 0.56 → 0.47 ms without it). A thread can be the worker of one such pool
/// only, for good (rayon leaks its registry), so this is built once, on the
/// thread criterion runs the benches on, and passed to every group. The
/// 2-thread pool keeps its own workers (`install` from this thread then
/// hands the call over, as a caller outside the pool would).
fn pool_here() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .expect("one-thread pool on the bench thread")
}

fn sizes() -> Vec<(String, usize)> {
    let all = [("10k", 10_000), ("100k", 100_000), ("1M", 1_000_000)];
    let only = std::env::var("BROAD_BENCH_SIZES").ok();
    all.iter()
        .filter(|(n, _)| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *n)))
        .map(|&(n, v)| (n.to_string(), v))
        .collect()
}

fn all_pairs(
    c: &mut Criterion,
    p1: &rayon::ThreadPool,
    dist: &str,
    label: &str,
    boxes: &[Aabb],
    expect: Option<usize>,
) {
    let p2 = pool(2);
    let want = p1.install(|| self_pairs_with::<f32x16>(boxes, 4096)).len();
    if let Some(e) = expect {
        assert_eq!(want, e, "{dist}/{label}: reference pair count");
    }
    eprintln!("{dist}/{label}: {} boxes, {want} pairs", boxes.len());
    let mut g = c.benchmark_group(format!("broad/{dist}/{label}"));
    g.throughput(Throughput::Elements(boxes.len() as u64));
    if boxes.len() >= 1_000_000 {
        g.sample_size(10);
    }
    let chunk = (boxes.len() / 16).clamp(256, 1 << 16);
    let run = |name: &str,
               g: &mut criterion::BenchmarkGroup<_>,
               p: &rayon::ThreadPool,
               f: &(dyn Fn() -> usize + Sync)| {
        assert_eq!(p.install(f), want, "{dist}/{label}/{name}");
        g.bench_function(name, |b| b.iter(|| p.install(|| black_box(f()))));
    };
    run("x16_t1", &mut g, p1, &|| self_pairs_with::<f32x16>(boxes, chunk).len());
    run("x8_t1", &mut g, p1, &|| self_pairs_with::<f32x8>(boxes, chunk).len());
    // A kept `BoxPruner`: repeated calls reuse every array (no allocation,
    // no first-touch page faults after the first call).
    for (name, w16) in [("x16_t1_reuse", true), ("x8_t1_reuse", false)] {
        let mut pr = BoxPruner::new();
        let mut f = || {
            if w16 {
                pr.self_pairs_with::<f32x16>(boxes, chunk).len()
            } else {
                pr.self_pairs_with::<f32x8>(boxes, chunk).len()
            }
        };
        assert_eq!(p1.install(&mut f), want, "{dist}/{label}/{name}");
        g.bench_function(name, |b| b.iter(|| p1.install(|| black_box(f()))));
    }
    if boxes.len() <= 100_000 {
        run("scalar_t1", &mut g, p1, &|| self_pairs_with::<f32>(boxes, chunk).len());
    }
    run("x16_t2", &mut g, &p2, &|| self_pairs_with::<f32x16>(boxes, chunk).len());
    #[cfg(feature = "peers")]
    {
        let leaves = peer::leaves(boxes);
        let got = peer::one_shot(&leaves);
        assert_eq!(got, want, "parry3d pair count");
        g.bench_function(BenchmarkId::new("parry3d_bvh", "build+traverse"), |b| {
            b.iter(|| black_box(peer::one_shot(&leaves)))
        });
        let bvh = peer::build(&leaves);
        let mut ws = parry3d::partitioning::BvhWorkspace::default();
        g.bench_function(BenchmarkId::new("parry3d_bvh", "traverse"), |b| {
            b.iter(|| black_box(peer::self_pairs(&bvh, &mut ws)))
        });
    }
    g.finish();
}

/// One simulated frame: `moving` boxes (every `stride`-th, rotating) jitter by
/// ±`step` on each axis; the sign alternates so the scene stays stationary.
struct Scene {
    boxes: Vec<Aabb>,
    handles: Vec<Handle>,
    bp: BroadPhase,
    frame: usize,
    moving: usize,
    step: f32,
}

impl Scene {
    fn new(boxes: Vec<Aabb>, fraction: f64, step: f32) -> Self {
        let mut bp = BroadPhase::new();
        let handles = boxes.iter().map(|&b| bp.insert(b)).collect();
        bp.pairs();
        let moving = ((boxes.len() as f64 * fraction) as usize).max(1);
        Scene { boxes, handles, bp, frame: 0, moving, step }
    }

    fn advance(&mut self) {
        let n = self.boxes.len();
        let stride = n / self.moving;
        let s = if self.frame.is_multiple_of(2) { self.step } else { -self.step };
        let d = Vec3::new(s, -s, s);
        let offset = (self.frame / 2) % stride.max(1);
        for k in 0..self.moving {
            let i = (offset + k * stride) % n;
            let b = &mut self.boxes[i];
            *b = Aabb::new(b.min + d, b.max + d);
        }
        self.frame += 1;
    }

    fn incremental_frame(&mut self) -> usize {
        self.advance();
        let n = self.boxes.len();
        let stride = n / self.moving;
        let offset = ((self.frame - 1) / 2) % stride.max(1);
        for k in 0..self.moving {
            let i = (offset + k * stride) % n;
            self.bp.update(self.handles[i], self.boxes[i]);
        }
        self.bp.pairs().len()
    }
}

fn incremental(
    c: &mut Criterion,
    p1: &rayon::ThreadPool,
    label: &str,
    boxes: Vec<Aabb>,
    step: f32,
) {
    let mut g = c.benchmark_group(format!("broad/incremental/{label}"));
    g.throughput(Throughput::Elements(boxes.len() as u64));
    for (name, fraction) in [("1pct", 0.01), ("10pct", 0.10)] {
        let mut scene = Scene::new(boxes.clone(), fraction, step);
        // Check: a few frames of the incremental path against a rebuild.
        for _ in 0..3 {
            let got = p1.install(|| scene.incremental_frame());
            let want = p1.install(|| self_pairs_with::<f32x16>(&scene.boxes, 4096));
            assert_eq!(scene.bp.pairs(), &want[..], "incremental {name}");
            assert_eq!(got, want.len());
        }
        g.bench_function(BenchmarkId::new("update_pairs_t1", name), |b| {
            b.iter(|| p1.install(|| black_box(scene.incremental_frame())))
        });
        let mut scene = Scene::new(boxes.clone(), fraction, step);
        g.bench_function(BenchmarkId::new("rebuild_t1", name), |b| {
            b.iter(|| {
                scene.advance();
                p1.install(|| black_box(self_pairs_with::<f32x16>(&scene.boxes, 4096).len()))
            })
        });
    }
    g.finish();
}

fn bench_broad(c: &mut Criterion) {
    let p1 = pool_here();
    for (label, n) in sizes() {
        let expect = match n {
            10_000 => Some(11_811),
            100_000 => Some(1_144_045),
            _ => None,
        };
        // At 1M Terdiman's fixed-size world holds 114M pairs (density grows with
        // n): not a broad-phase workload, so 1M runs the ~4 overlaps/box set only.
        if n <= 100_000 {
            all_pairs(c, &p1, "terdiman", &label, &workload::terdiman_boxes(n, 42), expect);
        }
        all_pairs(c, &p1, "sparse4", &label, &workload::sparse_boxes(n, 7), None);
    }
    for (label, n) in sizes() {
        if n == 100_000 {
            incremental(c, &p1, &label, workload::sparse_boxes(n, 7), 0.05);
        }
    }
}

criterion_group!(benches, bench_broad);
criterion_main!(benches);
