//! Parallel binned-SAH build of a binary tree, collapsed into 8-wide nodes.
//!
//! Determinism: the binary tree is a pure function of the input (binning,
//! the SAH sweep and the in-place partition are sequential per node; the two
//! halves are built by `rayon::join` into separate owned subtrees), and the
//! collapse and layout are one sequential preorder walk. So any thread count
//! gives the same tree, bit for bit.

use super::{soa_box, union_valid, Bvh, Leaf, Node, BRANCH, EMPTY, EMPTY_BOX, LEAF_BIT, MAX_LEAF};
use crate::shapes::Aabb;

/// Bins per axis (Wald 2007 uses 16–32; parry and Embree's default builders use 16–32 too).
const BINS: usize = 16;
/// Below this many primitives a subtree is built on the current thread.
const PAR_MIN: usize = 2048;
/// Past this depth of the binary tree, splits are object medians, which bounds
/// the depth (and the recursion) at `MEDIAN_DEPTH + log2 n` for any input.
const MEDIAN_DEPTH: u32 = 48;

/// Binary build tree.
enum BNode {
    Leaf { start: u32, count: u32, bounds: Aabb },
    Inner { bounds: Aabb, kids: Box<[BNode; 2]> },
}

impl BNode {
    fn bounds(&self) -> &Aabb {
        match self {
            BNode::Leaf { bounds, .. } | BNode::Inner { bounds, .. } => bounds,
        }
    }
}

/// Surface area / 2 of a valid box; 0 for the empty box.
fn half_area(b: &Aabb) -> f64 {
    if !b.is_valid() {
        return 0.0;
    }
    let e = [
        b.max.x as f64 - b.min.x as f64,
        b.max.y as f64 - b.min.y as f64,
        b.max.z as f64 - b.min.z as f64,
    ];
    e[0] * e[1] + e[1] * e[2] + e[2] * e[0]
}

struct Input<'a> {
    boxes: &'a [Aabb],
    /// Centroids in f64 (no overflow for huge coordinates); 0 for invalid boxes.
    cent: Vec<[f64; 3]>,
}

pub(super) fn build(boxes: &[Aabb]) -> Bvh {
    let n = boxes.len();
    let cent: Vec<[f64; 3]> = boxes
        .iter()
        .map(|b| {
            if b.is_valid() {
                let c = |lo: f32, hi: f32| 0.5 * (lo as f64 + hi as f64);
                [c(b.min.x, b.max.x), c(b.min.y, b.max.y), c(b.min.z, b.max.z)]
            } else {
                [0.0; 3]
            }
        })
        .collect();
    let input = Input { boxes, cent };
    let mut prims: Vec<u32> = (0..n as u32).collect();
    let mut bvh = Bvh {
        nodes: Vec::new(),
        leaves: Vec::new(),
        prims: Vec::new(),
        boxes: Vec::new(),
        depth: 0,
    };
    if n == 0 {
        return bvh;
    }
    let root = build_rec(&input, &mut prims, 0, 0);
    // The root is always a node (a lone leaf sits in its slot 0).
    bvh.nodes.push(empty_node());
    bvh.depth = fill_node(&mut bvh, 0, collapse(root));
    bvh.prims = prims;
    bvh
}

fn empty_node() -> Node {
    let mut l = [[0.0f32; BRANCH]; 6];
    for (k, row) in l.iter_mut().enumerate() {
        *row = [if k < 3 { f32::INFINITY } else { f32::NEG_INFINITY }; BRANCH];
    }
    Node { bounds: soa_box(&l), child: [EMPTY; BRANCH] }
}

/// The (at most 8) children of a wide node made from a binary inner node: open
/// the inner child of largest area until there are 8 (ties: the first).
fn collapse(node: BNode) -> Vec<BNode> {
    let mut kids: Vec<BNode> = match node {
        BNode::Inner { kids, .. } => {
            let [a, b] = *kids;
            vec![a, b]
        }
        leaf => vec![leaf],
    };
    while kids.len() < BRANCH {
        let mut pick: Option<(usize, f64)> = None;
        for (i, k) in kids.iter().enumerate() {
            if let BNode::Inner { bounds, .. } = k {
                let a = half_area(bounds);
                if pick.is_none_or(|(_, pa)| a > pa) {
                    pick = Some((i, a));
                }
            }
        }
        let Some((i, _)) = pick else { break };
        let BNode::Inner { kids: two, .. } = kids.remove(i) else { unreachable!() };
        let [a, b] = *two;
        kids.insert(i, b);
        kids.insert(i, a);
    }
    kids
}

/// Lays out node `at` with the given children (preorder: child nodes get
/// indices after `at`, in slot order); returns the number of node levels in
/// this subtree (1 when every child is a leaf).
fn fill_node(bvh: &mut Bvh, at: usize, kids: Vec<BNode>) -> u32 {
    let mut lanes = [[0.0f32; BRANCH]; 6];
    for (k, row) in lanes.iter_mut().enumerate() {
        *row = [if k < 3 { f32::INFINITY } else { f32::NEG_INFINITY }; BRANCH];
    }
    let mut child = [EMPTY; BRANCH];
    for (s, kid) in kids.iter().enumerate() {
        let b = kid.bounds();
        for (k, v) in [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z].into_iter().enumerate()
        {
            lanes[k][s] = v;
        }
        if let BNode::Leaf { start, count, .. } = kid {
            bvh.leaves.push(Leaf { start: *start, count: *count });
            child[s] = LEAF_BIT | (bvh.leaves.len() - 1) as u32;
        }
    }
    bvh.nodes[at] = Node { bounds: soa_box(&lanes), child };
    let mut below = 0;
    for (s, kid) in kids.into_iter().enumerate() {
        if let BNode::Inner { .. } = kid {
            let idx = bvh.nodes.len();
            bvh.nodes.push(empty_node());
            bvh.nodes[at].child[s] = idx as u32;
            below = below.max(fill_node(bvh, idx, collapse(kid)));
        }
    }
    below + 1
}

fn build_rec(inp: &Input, ids: &mut [u32], start: u32, depth: u32) -> BNode {
    let bounds = ids.iter().fold(EMPTY_BOX, |acc, &p| union_valid(acc, &inp.boxes[p as usize]));
    let n = ids.len();
    if n <= MAX_LEAF {
        return BNode::Leaf { start, count: n as u32, bounds };
    }
    let mid = if depth < MEDIAN_DEPTH { sah_split(inp, ids) } else { None };
    let mid = mid.unwrap_or_else(|| median_split(inp, ids));
    let (l, r) = ids.split_at_mut(mid);
    let (a, b) = if n >= PAR_MIN {
        rayon::join(
            || build_rec(inp, l, start, depth + 1),
            || build_rec(inp, r, start + mid as u32, depth + 1),
        )
    } else {
        (build_rec(inp, l, start, depth + 1), build_rec(inp, r, start + mid as u32, depth + 1))
    };
    BNode::Inner { bounds, kids: Box::new([a, b]) }
}

/// Binned SAH: the best plane over 3 axes × (BINS - 1) bin boundaries; the ids
/// are partitioned in place and the split index returned. `None` when the
/// centroids have no extent or no plane separates them.
fn sah_split(inp: &Input, ids: &mut [u32]) -> Option<usize> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for &p in ids.iter() {
        let c = inp.cent[p as usize];
        for k in 0..3 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        }
    }
    let mut best: Option<(f64, usize, usize)> = None; // (cost, axis, boundary)
    let bin_of = |c: f64, k: usize| -> usize {
        let e = hi[k] - lo[k];
        (((c - lo[k]) / e * BINS as f64) as usize).min(BINS - 1)
    };
    for k in 0..3 {
        if hi[k] <= lo[k] {
            continue;
        }
        let mut cnt = [0usize; BINS];
        let mut bb = [EMPTY_BOX; BINS];
        for &p in ids.iter() {
            let b = bin_of(inp.cent[p as usize][k], k);
            cnt[b] += 1;
            bb[b] = union_valid(bb[b], &inp.boxes[p as usize]);
        }
        // Right-to-left prefix areas, then a left-to-right sweep.
        let mut right_area = [0.0f64; BINS];
        let mut acc = EMPTY_BOX;
        for i in (1..BINS).rev() {
            acc = union_valid(acc, &bb[i]);
            right_area[i] = half_area(&acc);
        }
        let mut left = EMPTY_BOX;
        let mut nl = 0usize;
        for i in 1..BINS {
            left = union_valid(left, &bb[i - 1]);
            nl += cnt[i - 1];
            let nr = ids.len() - nl;
            if nl == 0 || nr == 0 {
                continue;
            }
            let cost = half_area(&left) * nl as f64 + right_area[i] * nr as f64;
            if best.is_none_or(|(bc, _, _)| cost < bc) {
                best = Some((cost, k, i));
            }
        }
    }
    let (_, k, boundary) = best?;
    // In-place partition (deterministic two-pointer sweep).
    let (mut i, mut j) = (0usize, ids.len());
    while i < j {
        if bin_of(inp.cent[ids[i] as usize][k], k) < boundary {
            i += 1;
        } else {
            j -= 1;
            ids.swap(i, j);
        }
    }
    Some(i)
}

/// Object median along the axis of largest centroid extent (ties by id).
fn median_split(inp: &Input, ids: &mut [u32]) -> usize {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for &p in ids.iter() {
        let c = inp.cent[p as usize];
        for k in 0..3 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        }
    }
    let k = (0..3).fold(0, |b, k| if hi[k] - lo[k] > hi[b] - lo[b] { k } else { b });
    let mid = ids.len() / 2;
    ids.select_nth_unstable_by(mid, |&a, &b| {
        inp.cent[a as usize][k].total_cmp(&inp.cent[b as usize][k]).then(a.cmp(&b))
    });
    mid
}
