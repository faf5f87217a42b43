//! Seeded box distributions for broad-phase benchmarks and tests.

use crate::shapes::Aabb;
use crate::workload::SplitMix;
use crate::Vec3;

/// Terdiman's "Box pruning revisited" test set (`Shared/Main.cpp`,
/// `RunPerformanceTest`): centers on the integer grid `[-2048, 2047]³`, half
/// extents integers in `[0, 127]`, drawn with the MSVC C runtime's `rand()`
/// (`state = state·214013 + 2531011`, output bits 16..30) after `srand(seed)`.
/// The series uses `seed = 42`: 10,000 boxes give 11,811 pairs.
pub fn terdiman_boxes(n: usize, seed: u32) -> Vec<Aabb> {
    let mut state = seed;
    let mut rand = || {
        state = state.wrapping_mul(214_013).wrapping_add(2_531_011);
        (state >> 16) & 0x7fff
    };
    (0..n)
        .map(|_| {
            let x = (rand() & 4095) as f32 - 2048.0;
            let y = (rand() & 4095) as f32 - 2048.0;
            let z = (rand() & 4095) as f32 - 2048.0;
            let ex = (rand() & 127) as f32;
            let ey = (rand() & 127) as f32;
            let ez = (rand() & 127) as f32;
            Aabb::new(Vec3::new(x - ex, y - ey, z - ez), Vec3::new(x + ex, y + ey, z + ez))
        })
        .collect()
}

/// `n` cubes of equal size with uniform random centers in a cube, sized so that
/// each box overlaps about four others (about `2n` pairs; a little fewer from
/// the boundary): the distribution of the python-fcl anchor (100k boxes,
/// 194,823 pairs). Two cubes of side `s` with centers uniform in a cube of side
/// `L` overlap with probability `(2s/L)³`, so `s = L/2 · (4/n)^(1/3)`.
pub fn sparse_boxes(n: usize, seed: u64) -> Vec<Aabb> {
    let mut rng = SplitMix(seed);
    let world = 1000.0f32;
    let side = world / 2.0 * (4.0 / n.max(1) as f64).cbrt() as f32;
    (0..n)
        .map(|_| {
            let c = rng.p(0.0, world);
            let h = Vec3::new(side / 2.0, side / 2.0, side / 2.0);
            Aabb::new(c - h, c + h)
        })
        .collect()
}
