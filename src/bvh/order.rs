//! A coherent tracing order for the batch ray queries
//! ([`MeshBvh::closest_hits`](super::MeshBvh::closest_hits),
//! [`MeshBvh::count_hits`](super::MeshBvh::count_hits)).
//!
//! Random rays visit the tree's nodes and leaf packs in no particular order,
//! so most of those loads come from L3 (the bunny's 1 MB of nodes and 3.7 MB
//! of packs, the dragon's 3× that, exceed L2). Rays whose lines cross the
//! root box near the same entry and exit points visit mostly the same nodes
//! and leaves, so tracing them one after the other finds those in L1/L2. The
//! batch queries therefore trace each chunk of rays sorted by a key of those
//! two points: a 6-D Morton code of the entry and exit points, `KEY_BITS`
//! bits per coordinate of the root box, ordered by one counting sort (stable,
//! so equal keys keep input order). This is ray reordering for memory
//! coherence (Pharr, Kolb, Gershbein, Hanrahan, "Rendering complex scenes with
//! memory-coherent ray tracing", SIGGRAPH 1997; Garanzha and Loop, "Fast ray
//! sorting and breadth-first packet traversal for GPU ray tracing", 2010, who
//! sort by a hash of quantized origin and direction), here keyed by the two
//! points where the ray's line crosses the root box, which fixes the line
//! within the box up to the quantization.
//!
//! **Answers are unchanged**: a ray's closest hit is a function of the ray
//! and the triangles alone (the smallest `(t, id)`; see the
//! [module docs](super)), the traversal of one ray does not depend on any
//! other ray, and every result is written back at the ray's input index. The
//! key only decides the order; any key (even a wrong one, e.g. for NaN rays,
//! which get the last cell) gives the same results.

use super::W;
use crate::lane::Lane;
use crate::shapes::{Aabb, Ray};

/// Bits per coordinate of the key: 6 coordinates (entry and exit point), so
/// `2^(6·KEY_BITS)` cells. With 1M rays, 2 bits (4096 cells, one counting
/// pass over a 16 KB table) traced as fast as 3–5 bits, and 3 bits was no
/// faster end to end (simd-notes.md, "BVH and ray casting").
const KEY_BITS: u32 = 2;
/// Number of key cells.
const CELLS: usize = 1 << (6 * KEY_BITS);
/// Below this many rays per chunk, tracing in input order is kept (the
/// sort's fixed costs, and few rays per cell).
pub(super) const MIN_SORTED: usize = 1 << 15;

/// The root box the keys are quantized in.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeyFrame {
    lo: [f32; 3],
    hi: [f32; 3],
    /// `2^KEY_BITS / extent` per axis (0 for a flat axis).
    scale: [f32; 3],
}

impl KeyFrame {
    pub(super) fn new(root: &Aabb) -> Self {
        let (lo, hi) = (root.min.to_array(), root.max.to_array());
        let scale = core::array::from_fn(|k| {
            let e = hi[k] - lo[k];
            let s = (1u32 << KEY_BITS) as f32 / e;
            if s.is_finite() {
                s
            } else {
                0.0
            }
        });
        KeyFrame { lo, hi, scale }
    }

    /// Appends the key of every ray to `keys`: the Morton code of its line's
    /// entry and exit points in the root box (clipped to `[t_min, t_max]`),
    /// `CELLS - 1` when it misses the box (or is NaN). Eight rays at a time
    /// in `f32x8` lanes. The key only orders the rays, so no case needs care
    /// beyond being deterministic: NaN coordinates give some key.
    fn keys(&self, rays: &[Ray], keys: &mut Vec<u16>) {
        let mut groups = rays.chunks_exact(8);
        for group in &mut groups {
            let key = self.keys8(group.try_into().expect("8 rays"));
            keys.extend(key.iter().map(|&k| k as u16));
        }
        // A short last group is padded with copies of its first ray.
        let rest = groups.remainder();
        if let Some(&first) = rest.first() {
            let mut group = [first; 8];
            group[..rest.len()].copy_from_slice(rest);
            let key = self.keys8(&group);
            keys.extend(key[..rest.len()].iter().map(|&k| k as u16));
        }
    }

    /// The keys of eight rays (see [`keys`](Self::keys)).
    #[inline(always)]
    fn keys8(&self, group: &[Ray; 8]) -> [i32; 8] {
        let (zero, one) = (W::splat(0.0), W::splat(1.0));
        // Transpose to lanes.
        let field = |f: fn(&Ray) -> f32| W::new(core::array::from_fn(|i| f(&group[i])));
        let o = [field(|r| r.origin.x), field(|r| r.origin.y), field(|r| r.origin.z)];
        let d = [field(|r| r.dir.x), field(|r| r.dir.y), field(|r| r.dir.z)];
        let (mut t0, mut t1) = (field(|r| r.t_min), field(|r| r.t_max));
        for k in 0..3 {
            let inv = one / d[k];
            let a = (W::splat(self.lo[k]) - o[k]) * inv;
            let b = (W::splat(self.hi[k]) - o[k]) * inv;
            t0 = Lane::max(t0, Lane::min(a, b));
            t1 = Lane::min(t1, Lane::max(a, b));
        }
        // Quantize each coordinate x to KEY_BITS bits, most significant
        // first (`x >= 2^b`, then subtract: exact), and add bit b of
        // coordinate c at 2^(6·b + c). Out-of-range x saturates, NaN
        // gives 0.
        let mut key = zero;
        for (j, t) in [t0, t1].into_iter().enumerate() {
            for k in 0..3 {
                let mut x = (o[k] + d[k] * t - W::splat(self.lo[k])) * W::splat(self.scale[k]);
                for b in (0..KEY_BITS).rev() {
                    let step = W::splat((1u32 << b) as f32);
                    let bit = x.ge(step);
                    x = W::select(bit, x - step, x);
                    let weight = W::splat((1u32 << (6 * b + 3 * j as u32 + k as u32)) as f32);
                    key += W::select(bit, weight, zero);
                }
            }
        }
        let key = W::select(t0.le(t1), key, W::splat((CELLS - 1) as f32));
        // Whole numbers below 2^12: the conversion is exact.
        key.fast_trunc_int().to_array()
    }
}

/// The sort's buffers for one chunk of rays (reused across chunks).
#[derive(Default)]
pub(super) struct SortScratch {
    keys: Vec<u16>,
    count: Vec<u32>,
    order: Vec<u32>,
}

impl SortScratch {
    /// The indices of `rays` in key order (counting sort; equal keys keep
    /// input order). Only indices are sorted (4 bytes per ray, not the 32 of
    /// a ray): fresh memory costs a page fault per 4 KB, and a sorted copy
    /// of the rays took ~7 800 more faults per 1M rays (simd-notes.md,
    /// "BVH and ray casting").
    pub(super) fn order(&mut self, frame: &KeyFrame, rays: &[Ray]) -> &[u32] {
        self.keys.clear();
        frame.keys(rays, &mut self.keys);
        self.count.clear();
        self.count.resize(CELLS, 0);
        for &k in &self.keys {
            self.count[k as usize] += 1;
        }
        let mut start = 0;
        for c in self.count.iter_mut() {
            let n = *c;
            *c = start;
            start += n;
        }
        self.order.clear();
        self.order.resize(rays.len(), 0);
        for (i, &k) in self.keys.iter().enumerate() {
            let at = &mut self.count[k as usize];
            self.order[*at as usize] = i as u32;
            *at += 1;
        }
        &self.order
    }
}
