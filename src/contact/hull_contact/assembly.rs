//! Manifold assembly: candidate points, the reduction to 4, feature ids.

use super::PlacedHull;
use crate::contact::{ContactPoint, Manifold, MAX_CONTACTS};
use crate::math::Vec3;

/// A contact point in A's frame before the reduction.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cand {
    /// Point on B (A's frame).
    pub(super) pos: Vec3,
    pub(super) depth: f32,
    pub(super) id: u32,
}

/// Jolt's `PruneContactPoints` rule on at most `n` candidates: the deepest
/// (lowest index on ties), the farthest from it, then on each side of that
/// line the point spanning the largest triangle with it.
pub(super) fn reduce4(c: &[Cand], normal: Vec3) -> ([Cand; MAX_CONTACTS], usize) {
    let mut out = [Cand::default(); MAX_CONTACTS];
    if c.len() <= MAX_CONTACTS {
        out[..c.len()].copy_from_slice(c);
        return (out, c.len());
    }
    let mut i0 = 0;
    for (i, p) in c.iter().enumerate() {
        if p.depth > c[i0].depth {
            i0 = i;
        }
    }
    let p0 = c[i0].pos;
    let mut i1 = usize::MAX;
    let mut best = -1.0;
    for (i, p) in c.iter().enumerate() {
        let d = (p.pos - p0).length_squared();
        if i != i0 && d > best {
            best = d;
            i1 = i;
        }
    }
    let p1 = c[i1].pos;
    let (mut i2, mut i3) = (usize::MAX, usize::MAX);
    let (mut b2, mut b3) = (0.0f32, 0.0f32);
    for (i, p) in c.iter().enumerate() {
        if i == i0 || i == i1 {
            continue;
        }
        let area = (p1 - p0).cross(p.pos - p0).dot(normal);
        if area > b2 {
            b2 = area;
            i2 = i;
        } else if area < b3 {
            b3 = area;
            i3 = i;
        }
    }
    let mut n = 0;
    for i in [i0, i2, i1, i3] {
        if i != usize::MAX {
            out[n] = c[i];
            n += 1;
        }
    }
    (out, n)
}

/// The world manifold of candidates in A's frame with A-frame `normal`.
pub(super) fn finish(a: &PlacedHull, normal: Vec3, cands: &[Cand]) -> Manifold {
    let (pts, n) = reduce4(cands, normal);
    let mut m = Manifold::EMPTY;
    if n == 0 {
        return m;
    }
    // renormalised: two rotations (B's frame to A's, A's to the world) with
    // axes orthonormal only to f32 precision
    let w = a.dir_to_world(normal);
    m.normal = w / w.length();
    m.count = n as f32;
    for (o, c) in m.points.iter_mut().zip(&pts[..n]) {
        *o = ContactPoint { position: a.to_world(c.pos), depth: c.depth, feature_id: c.id as f32 };
    }
    m
}

#[inline]
pub(super) fn id(tag: u32, local: u32) -> u32 {
    tag * 65536 + local
}
