//! Packet traversal for coherent rays (a camera's neighbouring pixels): the
//! rays of a packet walk the tree together, one node at a time, each with
//! its own node test, culling bound and leaf tests.
//!
//! Why it is faster: one ray's traversal is a chain of dependent steps (load
//! a node, test it, pick the child, load that child), so a single ray keeps
//! the core waiting on latency. The [`PACKET`] tests of one node are
//! independent of each other and overlap in the pipeline, and the node is
//! loaded once for all of them. This pays while the rays visit nearly the
//! same nodes, so only packets whose rays share their origin and the signs
//! of their directions are traced this way (Wald, Slusallek, Benthin and
//! Wagner, "Interactive Rendering with Coherent Ray Tracing", 2001; Embree's
//! packet kernels do the same with a shared stack).
//!
//! Why the answers are the single-ray answers, bit for bit: a ray's closest
//! hit is the smallest `(t, id)` over every triangle the watertight kernel
//! hits (see the module docs of [`crate::bvh`]), whatever the visiting
//! order; a child is culled for a ray only by that ray's own conservative
//! node test against its own best `t`, as in the single-ray traversal; a
//! leaf is tested for every ray whose test hit it. So every leaf holding a
//! ray's closest hit is tested for that ray, and extra leaf tests can only
//! find hits that are not better.

use super::{rank, slab_entry, Bvh, NodeRay, BRANCH, LEAF_BIT, W};
use crate::lane::LaneMask;
use crate::pack::LanePod;
use crate::shapes::{Aabb, Ray};
use crate::simd::recast_one;

/// Rays per packet: eight, so a node's hit masks by ray (a byte each) form
/// one 8×8 bit matrix ([`transpose8`]). Sixteen was slower (bunny, a
/// 1280×960 camera, one thread: 37 against 34 ms): the nodes the larger
/// packets visit together cost more than the per-node work they share.
pub(crate) const PACKET: usize = 8;
const _: () = assert!(PACKET == 8 && BRANCH == 8);

/// A packet's traversal stack: a pending child and the rays (bit per ray)
/// whose node test hit it.
pub(crate) type PacketStack = Vec<(u32, u32)>;

/// The leaf test of one ray of a packet (the packet version of
/// [`super::LeafVisitor`]).
pub(crate) trait PacketLeaves {
    /// Tests leaf `leaf` for ray `ray`, lowering `best_t` on a better hit.
    fn visit(&mut self, ray: usize, leaf: u32, best_t: &mut f32);
}

/// The node tests of a packet's rays: [`NodeRay`]'s test, with the
/// subtraction of the shared origin from a node's planes done once for the
/// packet (the same operands, so the same plane times bit for bit).
pub(super) struct PacketTests<M> {
    origin: [M; 3],
    /// The near and far plane of each axis ([`NodeRay`]); the rays share
    /// their direction signs, so they share these.
    near: [usize; 3],
    far: [usize; 3],
    /// Per axis, the rays' inverse direction components (ray `r` in lane
    /// `r`), splat per test: computed in lanes, so a packet's setup is three
    /// lane divisions rather than eight rays' splats.
    inv: [[f32; LANES_MAX]; 3],
    t_min: [f32; LANES_MAX],
}

/// Lanes of the widest lane type: the packet's per-ray rows are padded to it
/// so that any lane type loads and stores them whole (the node tests run at
/// eight lanes, but every width's entry is compiled).
const LANES_MAX: usize = 16;

impl<M: LanePod> PacketTests<M> {
    /// A node's six planes minus the origin (`min.x − o.x, …, max.z − o.z`).
    #[inline(always)]
    fn offsets(&self, b: &Aabb<M>) -> [M; 6] {
        let p: &[M; 6] = bytemuck::cast_ref(b);
        let o = &self.origin;
        [p[0] - o[0], p[1] - o[1], p[2] - o[2], p[3] - o[0], p[4] - o[1], p[5] - o[2]]
    }

    /// Ray `r`'s test of the node whose [`offsets`](Self::offsets) are `d`:
    /// the hit mask and the entries, as [`NodeRay`]'s test gives them.
    #[inline(always)]
    fn test(&self, d: &[M; 6], r: usize, best_t: f32) -> (u64, M) {
        let (nr, fr) = (self.near, self.far);
        let inv = [M::splat(self.inv[0][r]), M::splat(self.inv[1][r]), M::splat(self.inv[2][r])];
        let near = [d[nr[0]] * inv[0], d[nr[1]] * inv[1], d[nr[2]] * inv[2]];
        let far = [d[fr[0]] * inv[0], d[fr[1]] * inv[1], d[fr[2]] * inv[2]];
        slab_entry(near, far, M::splat(self.t_min[r]), best_t)
    }
}

/// The node tests of a packet, or `None` when the packet is not traced as
/// one: some ray is invalid or has a zero or tiny direction component (those
/// take [`super::GeneralNodeRay`] one by one), or the rays do not share their
/// origin and near planes, i.e. their direction signs (not coherent).
#[inline(always)]
pub(super) fn packet_tests<M: LanePod>(rays: &[Ray; PACKET]) -> Option<PacketTests<M>> {
    // Every ray valid (`ray_valid`): ray 0 checked whole, the others share
    // its origin bit for bit; their directions are finite and nonzero when
    // their inverses are (checked below), and their intervals are checked
    // in lanes (`0 <= t_min <= t_max`, `t_min < ∞`).
    let o = rays[0].origin.to_array().map(f32::to_bits);
    if !crate::ray::ray_valid(&rays[0])
        || !rays.iter().all(|r| r.origin.to_array().map(f32::to_bits) == o)
    {
        return None;
    }
    let first = NodeRay::<M>::new(&rays[0])?;
    // The rays' directions and intervals in lanes (ray `j` in lane `j`), the
    // inverses divided in lanes (the same correctly rounded `1/x` as
    // `NodeRay::new`'s). Every ray must take the reduced test as ray 0
    // does (`NodeRay::new`'s conditions: nonzero components with finite
    // inverses, `t_min >= 0`) with ray 0's near planes, i.e. the same sign
    // of each inverse; a NaN fails every comparison.
    let mut d = [[1f32; LANES_MAX]; 3];
    let (mut t_min, mut t_max) = ([0f32; LANES_MAX], [0f32; LANES_MAX]);
    for (j, r) in rays.iter().enumerate() {
        [d[0][j], d[1][j], d[2][j]] = r.dir.to_array();
        (t_min[j], t_max[j]) = (r.t_min, r.t_max);
    }
    let mut inv = [[0f32; LANES_MAX]; 3];
    let mut c = 0;
    while c < PACKET {
        let rays_here = (1u64 << (PACKET - c).min(M::WIDTH)) - 1;
        for k in 0..3 {
            let x = M::splat(1.0) / M::load(&d[k][c..]);
            let on_near = if first.near[k] == k {
                x.gt(M::splat(0.0)) & x.lt(M::splat(f32::INFINITY))
            } else {
                x.lt(M::splat(0.0)) & x.gt(M::splat(f32::NEG_INFINITY))
            };
            if on_near.bits() & rays_here != rays_here {
                return None;
            }
            x.store(&mut inv[k][c..]);
        }
        let (lo, hi) = (M::load(&t_min[c..]), M::load(&t_max[c..]));
        let interval = lo.ge(M::splat(0.0)) & lo.le(hi) & lo.lt(M::splat(f32::INFINITY));
        if interval.bits() & rays_here != rays_here {
            return None;
        }
        c += M::WIDTH;
    }
    Some(PacketTests { origin: first.origin, near: first.near, far: first.far, inv, t_min })
}

/// Transposes an 8×8 bit matrix held in a `u64` (byte `r`, bit `c` ↦ byte
/// `c`, bit `r`): the rays' child masks (a byte per ray) become the
/// children's ray masks (a byte per child). Hacker's Delight, 2nd ed., §7-3.
#[inline(always)]
pub(crate) fn transpose8(x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    let x = x ^ t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    let x = x ^ t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

impl Bvh {
    /// Traces the packet whose node tests are `tests` (rays `active`, a bit
    /// per ray; `best_t[r]` starts at ray `r`'s `t_max`): every leaf some
    /// active ray's node tests reach is visited for those rays, nearest
    /// first by the entry distances of ray 0 (an order only: any order gives
    /// the same answers).
    #[inline(always)]
    pub(super) fn ray_visit_packet<M: LanePod>(
        &self,
        tests: &PacketTests<M>,
        active: u32,
        best_t: &mut [f32; PACKET],
        stack: &mut PacketStack,
        leaves: &mut impl PacketLeaves,
    ) {
        if self.nodes.is_empty() || active == 0 {
            return;
        }
        let need = self.stack_need();
        if stack.len() < need {
            stack.resize(need, (0, 0));
        }
        let stack = &mut stack[..];
        let mut sp = 0usize;
        let (mut cur, mut rays) = (0u32, active);
        loop {
            if cur & LEAF_BIT != 0 {
                let mut m = rays;
                while m != 0 {
                    let r = m.trailing_zeros() as usize;
                    m &= m - 1;
                    leaves.visit(r, cur & !LEAF_BIT, &mut best_t[r]);
                }
            } else {
                let node = &self.nodes[cur as usize];
                let d = tests.offsets(recast_one::<Aabb, W, M>(&node.bounds));
                // Every ray tested, the inactive ones masked off after: the
                // tests are independent (no branch between them).
                let (m0, tv) = tests.test(&d, 0, best_t[0]);
                // byte r: the children ray r hit
                let mut by_ray = m0 & (rays as u64 & 1).wrapping_neg();
                for (r, &bt) in best_t.iter().enumerate().skip(1) {
                    let (m, _) = tests.test(&d, r, bt);
                    by_ray |= (m & (rays as u64 >> r & 1).wrapping_neg()) << (8 * r);
                }
                if by_ray != 0 {
                    // byte i: the rays that hit child i
                    let by_child = transpose8(by_ray);
                    // the children some ray hit: the OR of the rays' bytes
                    let m = by_ray | by_ray >> 32;
                    let m = m | m >> 16;
                    let m = (m | m >> 8) & 0xff;
                    // Each hit child's rank in ray 0's `(entry t, slot)`
                    // order (as the single-ray traversal ranks them), written
                    // farthest first; the nearest lands on top and is taken.
                    let mut ts = [0f32; BRANCH];
                    tv.store(&mut ts);
                    let n = m.count_ones() as usize;
                    let mut mm = m;
                    while mm != 0 {
                        let i = mm.trailing_zeros() as usize;
                        mm &= mm - 1;
                        let child_rays = (by_child >> (8 * i) & 0xff) as u32;
                        stack[sp + n - 1 - rank(tv, ts[i], i, m)] = (node.child[i], child_rays);
                    }
                    sp += n - 1;
                    (cur, rays) = stack[sp];
                    continue;
                }
            }
            if sp == 0 {
                return;
            }
            sp -= 1;
            (cur, rays) = stack[sp];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{transpose8, PacketStack, PACKET};
    use crate::bvh::{MeshBvh, RayHit, W};
    use crate::math::Vec3;
    use crate::shapes::{Ray, Triangle};
    use crate::workload::SplitMix;

    fn bits(h: Option<RayHit>) -> Option<(u32, u32, u32, u32)> {
        h.map(|h| (h.id, h.t.to_bits(), h.u.to_bits(), h.v.to_bits()))
    }

    /// A height field on the integer grid (shared edges and vertices at
    /// exactly representable points) plus random triangles through it.
    fn scene(r: &mut SplitMix) -> Vec<Triangle> {
        let mut tris = Vec::new();
        let h = |i: i32, j: i32| ((i * 7 + j * 3) % 5) as f32 * 0.25;
        for i in -8..8 {
            for j in -8..8 {
                let p = |a: i32, b: i32| Vec3::new(a as f32, h(a, b), b as f32);
                tris.push(Triangle::new(p(i, j), p(i + 1, j), p(i + 1, j + 1)));
                tris.push(Triangle::new(p(i, j), p(i + 1, j + 1), p(i, j + 1)));
            }
        }
        for _ in 0..300 {
            let c = r.p(-8.0, 8.0);
            tris.push(Triangle::new(c, c + r.p(-1.5, 1.5), c + r.p(-1.5, 1.5)));
        }
        tris
    }

    /// Packets from one origin (spread from a tight bundle to the whole
    /// octant, some aimed exactly at grid vertices and edge midpoints, with
    /// random `[t_min, t_max]`) traced as packets equal the single-ray
    /// closest hits bit for bit; packets that are not coherent are refused.
    #[test]
    fn packets_equal_single_rays() {
        let mut r = SplitMix(0x9ac4e7);
        let bvh = MeshBvh::new(&scene(&mut r));
        let mut stack = PacketStack::new();
        let (mut traced, mut hits) = (0, 0);
        for k in 0..3000 {
            let origin = r.p(-10.0, 10.0) + Vec3::new(0.0, 12.0, 0.0);
            let spread = [1e-4, 1e-2, 0.3, 4.0][k % 4];
            let target = r.p(-8.0, 8.0);
            let base = Vec3::new(target.x, 0.5, target.z) - origin;
            let rays: [Ray; PACKET] = core::array::from_fn(|j| {
                let dir = if k % 5 == 0 && j % 2 == 0 {
                    // exactly at a grid vertex or an edge midpoint
                    let (a, b) = ((target.x as i32) as f32, (target.z as i32) as f32);
                    let x = a + if j % 4 == 0 { 0.0 } else { 0.5 };
                    Vec3::new(x, ((a as i32 * 7 + b as i32 * 3).rem_euclid(5)) as f32 * 0.25, b)
                        - origin
                } else {
                    base + r.p(-spread, spread)
                };
                let mut ray = Ray::new(origin, dir);
                if j % 3 == 1 {
                    ray.t_min = 0.5 * r.f();
                }
                if j % 4 == 3 {
                    ray.t_max = 0.5 + 1.2 * r.f();
                }
                ray
            });
            let want: Vec<_> = rays.iter().map(|ray| bits(bvh.closest_hit(ray))).collect();
            let same_octant = rays.iter().all(|ray| {
                let s = |v: Vec3| v.to_array().map(f32::is_sign_negative);
                s(ray.dir) == s(rays[0].dir)
            });
            match bvh.closest_hits_packet::<W>(&rays, &mut stack) {
                Some(got) => {
                    traced += 1;
                    hits += want.iter().filter(|h| h.is_some()).count();
                    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(bits(*g), *w, "packet {k}, ray {j}");
                    }
                }
                None => assert!(!same_octant, "packet {k} refused"),
            }
        }
        assert!(traced > 2000 && hits > 8000, "{traced} packets, {hits} hits");
    }

    /// Packets that are not traced as one: an invalid ray (NaN, an empty
    /// interval), a zero direction component (either sign), one whose
    /// inverse overflows, a negative `t_min` (the reduced node test needs
    /// `t_min >= 0`), another origin, another octant; in any lane.
    #[test]
    fn incoherent_or_special_packets_are_refused() {
        let bvh = MeshBvh::new(&scene(&mut SplitMix(7)));
        let mut stack = PacketStack::new();
        let o = Vec3::new(0.5, 10.0, 0.25);
        let good: [Ray; PACKET] =
            core::array::from_fn(|j| Ray::new(o, Vec3::new(0.1 * j as f32 + 0.05, -1.0, 0.2)));
        assert!(bvh.closest_hits_packet::<W>(&good, &mut stack).is_some());
        let mut nan = good;
        nan[5].dir.x = f32::NAN;
        let mut zero = good;
        zero[2].dir.z = 0.0;
        let mut moved = good;
        moved[7].origin.y = 10.5;
        let mut flipped = good;
        flipped[3].dir.x = -0.05;
        let mut empty = good;
        (empty[1].t_min, empty[1].t_max) = (1.0, 0.5);
        let mut cases = vec![
            ("NaN", nan),
            ("zero", zero),
            ("origin", moved),
            ("octant", flipped),
            ("empty", empty),
        ];
        for j in 0..PACKET {
            let mut minus_zero = good;
            minus_zero[j].dir.x = -0.0;
            let mut tiny = good;
            tiny[j].dir.z = 1e-39;
            let mut behind = good;
            behind[j].t_min = -0.25;
            let mut negative = good;
            negative[j].dir.y = 1.0;
            let mut infinite = good;
            infinite[j].dir.x = f32::INFINITY;
            let mut reversed = good;
            (reversed[j].t_min, reversed[j].t_max) = (1.0, 0.5);
            let mut nan_end = good;
            nan_end[j].t_max = f32::NAN;
            let mut at_infinity = good;
            (at_infinity[j].t_min, at_infinity[j].t_max) = (f32::INFINITY, f32::INFINITY);
            let mut elsewhere = good;
            elsewhere[j].origin.z = 0.75;
            cases.extend([
                ("-0", minus_zero),
                ("tiny", tiny),
                ("t_min", behind),
                ("sign", negative),
                ("inf", infinite),
                ("reversed", reversed),
                ("NaN t_max", nan_end),
                ("t at infinity", at_infinity),
                ("origin", elsewhere),
            ]);
        }
        for (what, rays) in cases {
            assert!(bvh.closest_hits_packet::<W>(&rays, &mut stack).is_none(), "{what}");
        }
    }

    #[test]
    fn transpose8_moves_bit_rc_to_cr() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let t = transpose8(s);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!(s >> (8 * r + c) & 1, t >> (8 * c + r) & 1, "{s:016x} ({r}, {c})");
                }
            }
        }
    }
}
