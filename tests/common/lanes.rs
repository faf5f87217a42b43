//! Helpers to replay scalar cases through lane-generic kernels at every width
//! and lane position.
//!
//! Pattern (per predicate):
//! ```ignore
//! fn check<L: Lane>(cases: &[Case]) {
//!     for (i, case) in cases.iter().enumerate() {
//!         for pos in 0..L::WIDTH {
//!             let idx = common::lanes::placement::<L>(cases.len(), i, pos);
//!             let tri = Triangle::<L> { a: lanes::v3::<L>(&idx.map(|j| cases[j].tri.a)), .. };
//!             let got = kernel::<L>(&tri, &bx);
//!             assert_eq!((got.bits() >> pos) & 1 == 1, scalar_answer(case));
//!         }
//!     }
//! }
//! ```

use widephase::{Lane, Vec3, V3};

/// Lane `j` holds case `idx[j]`: case `i` at position `pos`, the other lanes
/// filled with other rows of the table (so neighbours are realistic garbage).
pub fn placement<L: Lane>(n: usize, i: usize, pos: usize) -> Vec<usize> {
    (0..L::WIDTH).map(|j| if j == pos { i } else { (i + 7 * j + 1) % n }).collect()
}

/// Packs one f32 per lane.
pub fn f<L: Lane>(vals: &[f32]) -> L {
    L::load(vals)
}

/// Packs one `Vec3` per lane (structure of arrays).
pub fn v3<L: Lane>(pts: &[Vec3]) -> V3<L> {
    let xs: Vec<f32> = pts.iter().map(|p| p.x).collect();
    let ys: Vec<f32> = pts.iter().map(|p| p.y).collect();
    let zs: Vec<f32> = pts.iter().map(|p| p.z).collect();
    V3 { x: L::load(&xs), y: L::load(&ys), z: L::load(&zs) }
}

/// Gathers `field(case)` for each index and packs it.
pub fn gather_v3<L: Lane, C>(cases: &[C], idx: &[usize], field: impl Fn(&C) -> Vec3) -> V3<L> {
    let pts: Vec<Vec3> = idx.iter().map(|&j| field(&cases[j])).collect();
    v3::<L>(&pts)
}

/// Gathers a scalar field per lane.
pub fn gather_f<L: Lane, C>(cases: &[C], idx: &[usize], field: impl Fn(&C) -> f32) -> L {
    let v: Vec<f32> = idx.iter().map(|&j| field(&cases[j])).collect();
    L::load(&v)
}
