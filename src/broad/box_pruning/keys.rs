//! The x order: sort keys of `min.x`, the valid boxes in structure-of-arrays
//! form sorted by them (with sentinel padding, so a scan of any width stops
//! without a bounds test), and the y/z statistics that size the grid.

use super::super::radix::sort_by_key_u32;
use crate::shapes::Aabb;

/// Lanes of padding after the sorted arrays: a sentinel with `min.x = +∞`, so a
/// forward scan of any width stops inside the arrays without a bounds test.
pub(crate) const PAD: usize = 16;

/// An order-preserving 32-bit key for a finite `f32` (`-0.0` and `+0.0` map to
/// the same key): sorting keys as integers sorts the floats.
#[inline(always)]
pub(crate) fn sort_key(x: f32) -> u32 {
    let b = (x + 0.0).to_bits(); // -0 + 0 = +0 in round-to-nearest
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// Valid boxes in structure-of-arrays form, sorted by `min.x`, each array
/// followed by [`PAD`] sentinel lanes. `id[k]` is the caller's index of entry `k`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sorted {
    pub min_x: Vec<f32>,
    pub max_x: Vec<f32>,
    pub min_y: Vec<f32>,
    pub max_y: Vec<f32>,
    pub min_z: Vec<f32>,
    pub max_z: Vec<f32>,
    pub id: Vec<u32>,
}

impl Sorted {
    /// Number of boxes (without the padding).
    #[inline]
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Empties the arrays, keeping their allocations.
    pub fn clear(&mut self) {
        self.min_x.clear();
        self.max_x.clear();
        self.min_y.clear();
        self.max_y.clear();
        self.min_z.clear();
        self.max_z.clear();
        self.id.clear();
    }

    /// Appends one box (no padding).
    #[inline(always)]
    pub fn push(&mut self, b: &Aabb, id: u32) {
        self.min_x.push(b.min.x);
        self.max_x.push(b.max.x);
        self.min_y.push(b.min.y);
        self.max_y.push(b.max.y);
        self.min_z.push(b.min.z);
        self.max_z.push(b.max.z);
        self.id.push(id);
    }

    /// Appends entry `k` of `other` (no padding).
    #[inline]
    pub fn push_from(&mut self, other: &Sorted, k: usize) {
        self.min_x.push(other.min_x[k]);
        self.max_x.push(other.max_x[k]);
        self.min_y.push(other.min_y[k]);
        self.max_y.push(other.max_y[k]);
        self.min_z.push(other.min_z[k]);
        self.max_z.push(other.max_z[k]);
        self.id.push(other.id[k]);
    }

    /// Appends the sentinel lanes: `min > max` on every axis and `min.x = +∞`,
    /// so a padded lane never passes the x test of any valid box.
    pub fn pad(&mut self) {
        for _ in 0..PAD {
            self.min_x.push(f32::INFINITY);
            self.max_x.push(f32::NEG_INFINITY);
            self.min_y.push(f32::INFINITY);
            self.max_y.push(f32::NEG_INFINITY);
            self.min_z.push(f32::INFINITY);
            self.max_z.push(f32::NEG_INFINITY);
        }
    }

    /// Rebuilds from `boxes`, keeping the valid ones ([`Aabb::is_valid`]: no
    /// NaN, finite extents, `min <= max`); `ids[k]` names `boxes[k]`. Equal
    /// `min.x` keep input order (the radix sort is stable).
    pub fn build(&mut self, boxes: &[Aabb], keys: &mut Vec<u64>, tmp: &mut Vec<u64>) {
        sorted_keys(boxes, |_| true, keys, tmp);
        self.fill(boxes, keys);
    }

    /// Rebuilds from sort keys made by [`sorted_keys`] over `boxes`, padded.
    pub fn fill(&mut self, boxes: &[Aabb], keys: &[u64]) {
        self.clear();
        self.reserve(keys.len() + PAD);
        for &k in keys {
            let i = k as u32;
            self.push(&boxes[i as usize], i);
        }
        self.pad();
    }

    fn reserve(&mut self, n: usize) {
        self.min_x.reserve(n);
        self.max_x.reserve(n);
        self.min_y.reserve(n);
        self.max_y.reserve(n);
        self.min_z.reserve(n);
        self.max_z.reserve(n);
        self.id.reserve(n);
    }

    /// First position whose `min.x` is `>= x` (`strict`: `> x`), searching the
    /// unpadded entries.
    #[inline]
    pub fn lower_bound(&self, x: f32, strict: bool) -> usize {
        let s = &self.min_x[..self.len()];
        if strict {
            s.partition_point(|&m| m <= x)
        } else {
            s.partition_point(|&m| m < x)
        }
    }
}

/// The y/z bounds and mean extent of a set of boxes, for choosing the grid.
#[derive(Clone, Copy, Debug)]
pub(crate) struct YzStats {
    pub(super) lo: [f32; 2],
    pub(super) hi: [f32; 2],
    /// Sums over the boxes of their y and of their z extents (two sums: one
    /// sum of both was a chain of two dependent f64 adds per box).
    pub(super) extent: [f64; 2],
    pub(super) n: usize,
}

impl Default for YzStats {
    fn default() -> Self {
        YzStats { lo: [f32::INFINITY; 2], hi: [f32::NEG_INFINITY; 2], extent: [0.0; 2], n: 0 }
    }
}

impl YzStats {
    #[inline(always)]
    fn add(&mut self, b: &Aabb) {
        self.lo[0] = self.lo[0].min(b.min.y);
        self.lo[1] = self.lo[1].min(b.min.z);
        self.hi[0] = self.hi[0].max(b.max.y);
        self.hi[1] = self.hi[1].max(b.max.z);
        self.extent[0] += (b.max.y - b.min.y) as f64;
        self.extent[1] += (b.max.z - b.min.z) as f64;
        self.n += 1;
    }
}

/// Sort keys `(sort_key(min.x) << 32) | index` of the valid boxes ([`Aabb::is_valid`])
/// whose index `keep` admits, radix-sorted (stable: equal `min.x` keep index
/// order), and their y/z statistics.
pub(crate) fn sorted_keys(
    boxes: &[Aabb],
    keep: impl Fn(usize) -> bool,
    keys: &mut Vec<u64>,
    tmp: &mut Vec<u64>,
) -> YzStats {
    keys.clear();
    keys.reserve(boxes.len());
    let mut st = YzStats::default();
    for (k, b) in boxes.iter().enumerate() {
        if b.is_valid() && keep(k) {
            keys.push(((sort_key(b.min.x) as u64) << 32) | k as u64);
            st.add(b);
        }
    }
    sort_by_key_u32(keys, tmp);
    st
}
