//! Instruction-count probe for kernel changes: `valgrind --tool=callgrind
//! target/release/examples/icount KERNEL WIDTH` runs one pairwise pass over a
//! fixed seeded workload `ICOUNT_REPS` times (difference two rep counts to get
//! the cost of one pass alone).
//! Instruction counts are repeatable on a busy machine, where timings are not.
//! `box_box_resting` / `box_box_random` run `box_box_packs` on the
//! `contact_boxes` bench's two tiers (4096 pairs; `RATE` is ignored);
//! `box_sat_resting` / `obb_sat_resting` the SAT alone (`box_box_sat`,
//! `obb_obb_contact`) at x16 on the resting tier.

use widephase::batch::kernels::*;
use widephase::batch::{pairwise, BitMask, PairKernel};
use widephase::contact::box_box::box_box_packs;
use widephase::contact::Manifold;
use widephase::pack::{LanePod, Pack};
use widephase::workload::{obb_pairs, resting_obb_pairs, sphere_box_pairs, tri_box_pairs};
use widephase::Lane;
use widephase::Obb;

fn pass<K: PairKernel, L: LanePod>(a: &[K::A], b: &[K::B]) -> usize {
    let (pa, pb) = (Pack::<K::A, L>::new(a), Pack::<K::B, L>::new(b));
    let mut m = BitMask::default();
    let reps: usize = std::env::var("ICOUNT_REPS").map_or(1, |r| r.parse().unwrap());
    for _ in 0..reps {
        pairwise::<K, L>(&pa, &pb, &mut m);
        std::hint::black_box(&m);
    }
    m.count_ones()
}

/// One `box_box_packs` pass (margin 0.02, as the `contact_boxes` bench) per rep.
fn box_pass<L: LanePod>(a: &[Obb], b: &[Obb]) -> usize {
    let (pa, pb) = (Pack::<Obb, L>::new(a), Pack::<Obb, L>::new(b));
    let mut out = vec![Manifold::<L>::empty(); pa.chunks().len()];
    let reps: usize = std::env::var("ICOUNT_REPS").map_or(1, |r| r.parse().unwrap());
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t0 = std::time::Instant::now();
        box_box_packs(pa.chunks(), pb.chunks(), L::splat(0.02), &mut out);
        std::hint::black_box(&out);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    if std::env::var("ICOUNT_TIME").is_ok() {
        // min over the reps: the figure least disturbed by a shared machine
        println!("min {:.1} ns/pair over {reps} passes", best * 1e9 / a.len() as f64);
    }
    if std::env::var("ICOUNT_HASH").is_ok() {
        // FNV-1a of the manifolds' bytes: proves a change leaves them alone
        let h = bytemuck::cast_slice::<Manifold<L>, u8>(&out)
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        println!("manifold hash {h:016x}");
    }
    out.iter().map(|m| (0..L::WIDTH).filter(|&i| m.count.lane(i) > 0.0).count()).sum()
}

/// The SAT alone: `box_box_sat` (`SAT=new`) or `obb_obb_contact`, x16.
fn sat_pass(a: &[Obb], b: &[Obb], new: bool) -> usize {
    use wide::f32x16;
    let (pa, pb) = (Pack::<Obb, f32x16>::new(a), Pack::<Obb, f32x16>::new(b));
    let reps: usize = std::env::var("ICOUNT_REPS").map_or(1, |r| r.parse().unwrap());
    let mut hits = 0;
    for _ in 0..reps {
        let mut d = f32x16::splat(0.0);
        for (x, y) in pa.chunks().iter().zip(pb.chunks()) {
            d += if new {
                widephase::contact::box_box::box_box_sat(x, y).depth
            } else {
                widephase::overlap::obb_obb_contact(x, y).depth
            };
        }
        hits = std::hint::black_box(d).lane(0) as usize;
    }
    hits
}

fn box_by_width(w: &str, a: &[Obb], b: &[Obb]) -> usize {
    match w {
        "1" => box_pass::<f32>(a, b),
        "4" => box_pass::<wide::f32x4>(a, b),
        "8" => box_pass::<wide::f32x8>(a, b),
        "16" => box_pass::<wide::f32x16>(a, b),
        _ => 0,
    }
}

fn by_width<K: PairKernel>(w: &str, a: &[K::A], b: &[K::B]) -> usize {
    match w {
        "1" => pass::<K, f32>(a, b),
        "4" => pass::<K, wide::f32x4>(a, b),
        "8" => pass::<K, wide::f32x8>(a, b),
        "16" => pass::<K, wide::f32x16>(a, b),
        _ => 0,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (kernel, width, tier) =
        (args[1].as_str(), args[2].as_str(), args.get(3).map_or("0.02", |s| s.as_str()));
    let rate: f32 = tier.parse().unwrap();
    let n = 1 << 16;
    let hits = match kernel {
        "triangle_aabb" => {
            let (t, b) = tri_box_pairs(n, rate, 1);
            by_width::<TriangleAabb>(width, &t, &b)
        }
        "triangle_aabb_conservative" => {
            let (t, b) = tri_box_pairs(n, rate, 1);
            by_width::<TriangleAabbConservative>(width, &t, &b)
        }
        "sphere_aabb" => {
            let (s, b) = sphere_box_pairs(n, rate, 2);
            by_width::<SphereAabb>(width, &s, &b)
        }
        // box–box manifolds on the `contact_boxes` bench's tiers (4096 pairs)
        "box_box_resting" => {
            let (a, b) = resting_obb_pairs(4096, 61);
            box_by_width(width, &a, &b)
        }
        "box_box_random" => {
            let (a, b) = obb_pairs(4096, 0.5, 62);
            box_by_width(width, &a, &b)
        }
        "box_sat_resting" | "obb_sat_resting" => {
            let (a, b) = resting_obb_pairs(4096, 61);
            sat_pass(&a, &b, kernel == "box_sat_resting")
        }
        _ => panic!("unknown kernel"),
    };
    println!("{kernel} width {width}: {hits} hits");
}
