//! Timing and result probe for the hull testers: best-of-`REPS` time per
//! pair of `hull_hull` (deep and resting tiers), `hull_box` and
//! `hull_triangle` on the bench workloads (margin 0.02; the resting tier
//! also at the criterion bench's margin, 0.05), one thread, one pair per call,
//! and a checksum of every manifold's normal and first depth. A change
//! meant to be exact (a faster loop, a new layout) must keep the checksums
//! of the binary before it; run the two binaries alternately to compare
//! times on a shared machine.
//!
//! `cargo run --release --example hull_probe [REPS]`

use widephase::contact::{hull_box, hull_hull, hull_triangle, Manifold, PlacedHull};
use widephase::math::Vec3;
use widephase::workload::{hull_box_pairs, hull_pairs, resting_hull_pairs, HullPairs};
use widephase::Triangle;

/// Best time per call of `test` over `items`, and the checksum.
fn time<T>(name: &str, reps: usize, items: &[T], test: impl Fn(&T) -> Manifold) {
    let mut best = f64::INFINITY;
    let (mut points, mut sum) = (0.0, 0u64);
    for _ in 0..reps {
        let t = std::time::Instant::now();
        (points, sum) = (0.0, 0);
        for item in items {
            let m = test(item);
            points += m.count;
            let bits = m.normal.x.to_bits() as u64 ^ (m.points[0].depth.to_bits() as u64) << 32;
            sum = sum.wrapping_mul(31).wrapping_add(bits);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let ns = best * 1e9 / items.len() as f64;
    println!("{name:<18} {ns:8.1} ns/pair  {points:6} points  checksum {sum:016x}");
}

fn placed((hulls, pairs): &HullPairs) -> Vec<(PlacedHull<'_>, PlacedHull<'_>)> {
    pairs
        .iter()
        .map(|&(i, p, j, q)| {
            (
                PlacedHull::new(&hulls[i], p.center, p.axes),
                PlacedHull::new(&hulls[j], q.center, q.axes),
            )
        })
        .collect()
}

fn main() {
    let reps = std::env::args().nth(1).map_or(20, |s| s.parse().expect("REPS is a count"));
    let margin = 0.02;
    let deep = hull_pairs(4096, 64, 32, 81);
    time("hull_hull deep", reps, &placed(&deep), |(a, b)| hull_hull(a, b, margin));
    let resting = resting_hull_pairs(4096, 64, 32, 82);
    time("hull_hull resting", reps, &placed(&resting), |(a, b)| hull_hull(a, b, margin));
    // the criterion bench's resting group: a wider margin, so more
    // speculative pairs take the exact closest pair
    let resting = resting_hull_pairs(4096, 64, 32, 85);
    time("resting, m 0.05", reps, &placed(&resting), |(a, b)| hull_hull(a, b, 0.05));
    let (hulls, poses, boxes) = hull_box_pairs(4096, 64, 32, 83);
    let pairs: Vec<_> = poses
        .iter()
        .zip(&boxes)
        .map(|(&(i, p), b)| (PlacedHull::new(&hulls[i], p.center, p.axes), *b))
        .collect();
    time("hull_box", reps, &pairs, |(a, b)| hull_box(a, b, margin));
    // a triangle through each box's centre, facing the hull
    let (hulls, poses, boxes) = hull_box_pairs(4096, 64, 32, 85);
    let pairs: Vec<_> = poses
        .iter()
        .zip(&boxes)
        .map(|(&(i, p), b)| {
            let n = (p.center - b.center).try_normalize().unwrap_or(Vec3::Z);
            let side = if n.x.abs() < 0.9 { Vec3::X } else { Vec3::Y };
            let u = n.cross(side).try_normalize().unwrap_or(Vec3::X);
            let (v, s) = (n.cross(u), b.half.length() * 1.5);
            let tri = Triangle {
                a: b.center + u * s,
                b: b.center + v * s - u * (0.5 * s),
                c: b.center - v * s - u * (0.5 * s),
            };
            (PlacedHull::new(&hulls[i], p.center, p.axes), tri)
        })
        .collect();
    time("hull_triangle", reps, &pairs, |(a, t)| hull_triangle(a, t, margin));
}
