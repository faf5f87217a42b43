//! Instruction-count probe for kernel changes: `valgrind --tool=callgrind
//! target/release/examples/icount KERNEL WIDTH` runs one pairwise pass over a
//! fixed seeded workload `ICOUNT_REPS` times (difference two rep counts to get
//! the cost of one pass alone).
//! Instruction counts are repeatable on a busy machine, where timings are not.

use widephase::batch::kernels::*;
use widephase::batch::{pairwise, BitMask, PairKernel};
use widephase::pack::{LanePod, Pack};
use widephase::workload::{sphere_box_pairs, tri_box_pairs};

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
        _ => panic!("unknown kernel"),
    };
    println!("{kernel} width {width}: {hits} hits");
}
