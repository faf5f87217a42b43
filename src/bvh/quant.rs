//! Quantized wide nodes: each child box stored as 8-bit offsets on a
//! per-node, per-axis grid of power-of-two step (the child boxes of
//! CWBVH, Ylitie et al. 2017, and of Embree's quantized BVH8 nodes), 128
//! bytes a node against 256.
//!
//! Unlike CWBVH, the grid is chosen so that every decoded plane
//! `base + q·step` is an `f32` computed exactly (see [`quantize_axis`]), and
//! each child's planes are rounded outward. A decoded child box is therefore
//! an ordinary `f32` box containing the child's true box, and the node tests
//! of [`super::NodeRay`] and [`super::GeneralNodeRay`] run on it unchanged,
//! with their conservativeness proofs: a segment touching the true box
//! touches the decoded one, whose entry `t` is no later.

use super::{Bvh, NodeTest, RayNodes, BRANCH, EMPTY};
use crate::math::V3;
use crate::pack::LanePod;
use crate::shapes::Aabb;

/// One quantized wide node: per axis `k`, child `i` spans
/// `[base[k] + lo[k][i]·step[k], base[k] + hi[k][i]·step[k]]`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct QNode {
    base: [f32; 3],
    step: [f32; 3],
    lo: [[u8; BRANCH]; 3],
    hi: [[u8; BRANCH]; 3],
    child: [u32; BRANCH],
    /// Bit per non-empty slot (empty slots decode to some box: masked).
    slots: u64,
}

/// The grid of one axis over `[lo, hi]`: `(base, step)` with `step = 2^e`,
/// `base` a multiple of `step`, `base <= lo`, `base + 255·step >= hi`, and
/// every `base + q·step` (`q` in `0..=255`) exactly an `f32` with magnitude
/// below `2^(24+e)`, so `fl(base + fl(q·step))` is exact. `None` when no
/// finite grid exists (non-finite or near-`f32::MAX` bounds).
fn quantize_axis(lo: f32, hi: f32) -> Option<(f32, f32)> {
    if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
        return None;
    }
    let (lo, hi) = (lo as f64, hi as f64);
    let span = (hi - lo) / 255.0;
    let mag = lo.abs().max(hi.abs());
    let mut e = -149i32;
    if span > 0.0 {
        e = e.max(span.log2().floor() as i32 - 1);
    }
    if mag > 0.0 {
        e = e.max(mag.log2().floor() as i32 - 24);
    }
    while e <= 127 {
        let step = 2f64.powi(e);
        let base = (lo / step).floor() * step;
        let top = base + 255.0 * step;
        let limit = 2f64.powi(24 + e);
        if top >= hi && base.abs() < limit && top.abs() < limit && top <= f32::MAX as f64 {
            let (b, s) = (base as f32, step as f32);
            if b as f64 == base && s as f64 == step {
                return Some((b, s));
            }
        }
        e += 1;
    }
    None
}

/// The plane `base + q·step` as the lane decode computes it.
#[inline(always)]
fn plane(base: f32, step: f32, q: u8) -> f32 {
    base + q as f32 * step
}

/// The quantized copy of `bvh`'s nodes, or `None` when some node's bounds
/// have no finite grid.
pub(crate) fn quantize(bvh: &Bvh) -> Option<Vec<QNode>> {
    bvh.nodes
        .iter()
        .map(|n| {
            let planes: &[[f32; BRANCH]; 6] = bytemuck::cast_ref(&n.bounds);
            let used: Vec<usize> = (0..BRANCH).filter(|&i| n.child[i] != EMPTY).collect();
            let mut q = QNode {
                base: [0.0; 3],
                step: [1.0; 3],
                lo: [[0; BRANCH]; 3],
                hi: [[0; BRANCH]; 3],
                child: n.child,
                slots: used.iter().map(|&i| 1u64 << i).sum(),
            };
            for k in 0..3 {
                // Children holding only invalid primitives keep the empty box
                // (+∞..−∞): leave them out of the grid and out of the mask.
                let live: Vec<usize> =
                    used.iter().copied().filter(|&i| planes[k][i] <= planes[k + 3][i]).collect();
                if live.is_empty() {
                    continue;
                }
                let lo = live.iter().map(|&i| planes[k][i]).fold(f32::INFINITY, f32::min);
                let hi = live.iter().map(|&i| planes[k + 3][i]).fold(f32::NEG_INFINITY, f32::max);
                let (base, step) = quantize_axis(lo, hi)?;
                q.base[k] = base;
                q.step[k] = step;
                for &i in &live {
                    let (a, b) = (planes[k][i], planes[k + 3][i]);
                    let mut ql =
                        (((a as f64 - base as f64) / step as f64).floor()).clamp(0.0, 255.0) as u8;
                    while plane(base, step, ql) > a {
                        ql -= 1;
                    }
                    let mut qh =
                        (((b as f64 - base as f64) / step as f64).ceil()).clamp(0.0, 255.0) as u8;
                    while plane(base, step, qh) < b {
                        qh += 1;
                    }
                    q.lo[k][i] = ql;
                    q.hi[k][i] = qh;
                }
            }
            for &i in &used {
                if (0..3).any(|k| planes[k][i] > planes[k + 3][i]) {
                    q.slots &= !(1u64 << i);
                }
            }
            Some(q)
        })
        .collect()
}

impl RayNodes for [QNode] {
    #[inline(always)]
    fn test<M: LanePod>(
        &self,
        i: u32,
        pre: &impl NodeTest<M>,
        best_t: f32,
    ) -> (u64, M, &[u32; BRANCH]) {
        let n = &self[i as usize];
        // (a function, not a closure: see `crate::simd`)
        #[inline(always)]
        fn axis<M: LanePod>(n: &QNode, k: usize, q: &[u8; BRANCH]) -> M {
            M::splat(n.base[k]) + M::from_u8_lanes(q) * M::splat(n.step[k])
        }
        if ray_space() {
            if let Some((m, t)) = pre.test_q(n, best_t) {
                return (m & n.slots, t, &n.child);
            }
        }
        let b = Aabb {
            min: V3::new(axis(n, 0, &n.lo[0]), axis(n, 1, &n.lo[1]), axis(n, 2, &n.lo[2])),
            max: V3::new(axis(n, 0, &n.hi[0]), axis(n, 1, &n.hi[1]), axis(n, 2, &n.hi[2])),
        };
        let (m, t) = pre.test(&b, best_t);
        (m & n.slots, t, &n.child)
    }

    #[inline(always)]
    fn prefetch(&self, i: u32) {
        let n = &self[i as usize];
        crate::mem::prefetch(&n.base);
        crate::mem::prefetch(&n.child);
    }
}

fn ray_space() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("WP_QRAY").is_ok_and(|v| v == "1"))
}

/// Timing bound only (not conservative): CWBVH's ray-space decode.
#[inline(always)]
pub(super) fn ray_space_test<M: LanePod>(
    r: &super::NodeRay<M>,
    n: &QNode,
    best_t: f32,
) -> (u64, M) {
    #[inline(always)]
    fn t_of<M: LanePod>(r: &super::NodeRay<M>, n: &QNode, k: usize, q: &[u8; BRANCH]) -> M {
        let s = M::splat(n.step[k]) * r.inv[k];
        let a = (M::splat(n.base[k]) - r.origin[k]) * r.inv[k];
        M::from_u8_lanes(q) * s + a
    }
    #[inline(always)]
    fn side<'a>(n: &'a QNode, k: usize, plane: usize) -> &'a [u8; BRANCH] {
        if plane < 3 {
            &n.lo[k]
        } else {
            &n.hi[k]
        }
    }
    let near = [
        t_of(r, n, 0, side(n, 0, r.near[0])),
        t_of(r, n, 1, side(n, 1, r.near[1])),
        t_of(r, n, 2, side(n, 2, r.near[2])),
    ];
    let far = [
        t_of(r, n, 0, side(n, 0, r.far[0])),
        t_of(r, n, 1, side(n, 1, r.far[1])),
        t_of(r, n, 2, side(n, 2, r.far[2])),
    ];
    super::slab_entry(near, far, r.t_min, best_t)
}
