//! Small triangles: 16 (triangle, voxel) pairs per call of the conservative
//! triangle–AABB kernel (`VoxPack`, `Batch`), and the plain kernel path.

use super::thin::thin_filter;
use super::{tri_bounds, Tables};
use crate::math::V3;
use crate::overlap::triangle_aabb_conservative;
use crate::shapes::{Aabb, Triangle};

use crate::lane::LANE_INDEX;
use crate::simd::Simd;
use crate::voxel::storage::Sink;
use crate::Vec3;
use crate::{Lane, LaneMask};

/// Up to 16 candidate voxels of one triangle, tested in one call of the
/// 16-lane kernel with the triangle broadcast.
///
/// Lane `l` holds candidate voxel `vox[l]` with the box `[lo(v), hi(v + 1)]`
/// from the plane tables — exactly the box the plain row path builds, so each
/// voxel gets the kernel's answer for the same inputs. Packing single voxels
/// (not runs of a row) keeps the lanes full: bunny triangles at 512³ leave
/// only 2–3 candidates per column after the pre-cull, and a 16-voxel row pack
/// was mostly idle lanes. Unused lanes get NaN boxes: the kernel answers "no
/// contact" for them and counts them as decided for its early exits.
pub(crate) struct VoxPack<'a, P: Simd> {
    t: &'a Tables,
    pub(super) thin: bool,
    tri: Triangle,
    /// `tri` in every lane, built by the first flush after [`VoxPack::start`]
    /// (`tri16_ok`): most tile-path triangles never call the kernel
    tri16: Triangle<P::F16>,
    tri16_ok: bool,
    n: usize,
    vox: [[u32; 3]; 16],
    mn: [[f32; 16]; 3],
    mx: [[f32; 16]; 3],
}

impl<'a, P: Simd> VoxPack<'a, P> {
    /// An empty pack over the plane tables `t`.
    #[inline(always)]
    pub fn new(t: &'a Tables, thin: bool) -> Self {
        let z = V3::broadcast(Vec3::ZERO);
        VoxPack {
            t,
            thin,
            tri: Triangle::default(),
            tri16: Triangle { a: z, b: z, c: z },
            tri16_ok: false,
            n: 0,
            vox: [[0; 3]; 16],
            mn: [[f32::NAN; 16]; 3],
            mx: [[f32::NAN; 16]; 3],
        }
    }

    /// Starts a triangle. The pack must be empty (flushed).
    #[inline]
    pub(super) fn start(&mut self, tri: &Triangle) {
        debug_assert_eq!(self.n, 0);
        self.tri = *tri;
        self.tri16_ok = false;
    }

    /// Adds candidate voxel `v`.
    #[inline(always)]
    pub(super) fn push<S: Sink>(&mut self, v: [u32; 3], sink: &mut S) {
        let l = self.n;
        let t = self.t;
        for (a, &va) in v.iter().enumerate() {
            self.mn[a][l] = t.lo[a][va as usize];
            self.mx[a][l] = t.hi[a][va as usize + 1];
        }
        self.vox[l] = v;
        self.n += 1;
        if self.n == 16 {
            self.flush(sink);
        }
    }

    /// Marks voxel `v` without a kernel call (its answer is known: touching),
    /// through the thin filter in thin mode.
    #[inline(always)]
    pub(super) fn mark<S: Sink>(&mut self, v: [u32; 3], sink: &mut S) {
        if !self.thin || thin_filter(&self.tri, &self.t.grid, v[0], v[1], v[2], 1) != 0 {
            sink.or_row(v[0], v[1], v[2], 1);
        }
    }

    /// Marks the voxels `bits` of the row at `(i0, j, k)` without a kernel
    /// call (their answer is known: touching), through the thin filter in
    /// thin mode.
    #[inline(always)]
    pub(super) fn mark_row<S: Sink>(&mut self, i0: u32, j: u32, k: u32, bits: u32, sink: &mut S) {
        let bits =
            if self.thin { thin_filter(&self.tri, &self.t.grid, i0, j, k, bits) } else { bits };
        if bits != 0 {
            sink.or_row(i0, j, k, bits);
        }
    }

    /// Tests the pending voxels and ORs the hits into `sink`.
    #[inline(always)]
    pub fn flush<S: Sink>(&mut self, sink: &mut S) {
        if self.n == 0 {
            return;
        }
        self.mn[0][self.n..].fill(f32::NAN);
        if !self.tri16_ok {
            let tri = &self.tri;
            self.tri16 = Triangle {
                a: V3::broadcast(tri.a),
                b: V3::broadcast(tri.b),
                c: V3::broadcast(tri.c),
            };
            self.tri16_ok = true;
        }
        let (mn, mx) = (&self.mn, &self.mx);
        let boxes = Aabb {
            min: V3::new(P::F16::load(&mn[0]), P::F16::load(&mn[1]), P::F16::load(&mn[2])),
            max: V3::new(P::F16::load(&mx[0]), P::F16::load(&mx[1]), P::F16::load(&mx[2])),
        };
        let mut bits = triangle_aabb_conservative::<P::F16>(&self.tri16, &boxes).bits() as u32;
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let [i, j, k] = self.vox[l];
            if !self.thin || thin_filter(&self.tri, &self.t.grid, i, j, k, 1) != 0 {
                sink.or_row(i, j, k, 1);
            }
        }
        self.n = 0;
    }
}

/// Every voxel of the bounding range `lo..=hi` is a candidate (no pre-cull).
#[inline(always)]
pub(super) fn whole_range<P: Simd, S: Sink>(
    lo: [u32; 3],
    hi: [u32; 3],
    pack: &mut VoxPack<'_, P>,
    sink: &mut S,
) {
    for k in lo[2]..=hi[2] {
        for j in lo[1]..=hi[1] {
            for i in lo[0]..=hi[0] {
                pack.push([i, j, k], sink);
            }
        }
    }
    pack.flush(sink);
}

/// Up to 16 candidate (triangle, voxel) pairs, tested in one call of the
/// 16-lane kernel. Pairs from consecutive triangles share a call, so tiny
/// triangles (a few candidates each) still fill the lanes.
///
/// A triangle is recorded once per batch as a segment (its first lane and
/// its coordinates; again after a flush that interrupts its voxels); per
/// pair only the voxel and its six box coordinates are stored. At a flush
/// the nine triangle coordinate vectors are built in registers: each segment
/// in order overwrites the lanes from its first lane on, so every used lane
/// ends up with its own triangle's coordinates.
pub(crate) struct Batch<'a, P: Simd> {
    t: &'a Tables,
    thin: bool,
    n: usize,
    cur: Triangle,
    vox: [[u32; 3]; 16],
    tris: [Triangle; 16],
    // segments: first lane and triangle (at most one per lane, plus the
    // continuation recorded after a flush)
    nseg: usize,
    seg_first: [f32; 17],
    seg_tri: [Triangle; 17],
    // lane-major box coordinates
    bc: [[f32; 16]; 6],
    path: core::marker::PhantomData<P>,
}

impl<'a, P: Simd> Batch<'a, P> {
    /// An empty batch over the plane tables `t`.
    #[inline(always)]
    pub fn new(t: &'a Tables, thin: bool) -> Self {
        Batch {
            t,
            thin,
            n: 0,
            cur: Triangle::default(),
            vox: [[0; 3]; 16],
            tris: [Triangle::default(); 16],
            nseg: 0,
            seg_first: [0.0; 17],
            seg_tri: [Triangle::default(); 17],
            bc: [[f32::NAN; 16]; 6],
            path: core::marker::PhantomData,
        }
    }

    /// Records the current triangle from lane `n` on.
    #[inline(always)]
    pub(super) fn segment(&mut self) {
        // (a segment that got no lane is dead: the next one overrides it)
        if self.nseg > 0 && self.seg_first[self.nseg - 1] == self.n as f32 {
            self.nseg -= 1;
        }
        self.seg_first[self.nseg] = self.n as f32;
        self.seg_tri[self.nseg] = self.cur;
        self.nseg += 1;
    }

    /// Makes `tri` the triangle of the following [`Batch::push`]es.
    #[inline]
    pub(super) fn start(&mut self, tri: &Triangle) {
        self.cur = *tri;
        self.segment();
    }

    /// Queues voxel `v` (stored box `lo..hi`) of the current triangle; with
    /// `keep` false the lane is written but not taken (no branch).
    #[inline(always)]
    pub(super) fn push<S: Sink>(
        &mut self,
        v: [u32; 3],
        lo: [f32; 3],
        hi: [f32; 3],
        keep: bool,
        sink: &mut S,
    ) {
        let l = self.n;
        self.vox[l] = v;
        if self.thin {
            // (read only by the thin filter)
            self.tris[l] = self.cur;
        }
        for a in 0..3 {
            self.bc[a][l] = lo[a];
            self.bc[3 + a][l] = hi[a];
        }
        self.n += keep as usize;
        if self.n == 16 {
            self.flush(sink);
            // (the current triangle may have voxels left; if not, the next
            // triangle's segment, also from lane 0, overrides this one)
            self.segment();
        }
    }

    /// Tests the pending pairs and ORs the hits into `sink`.
    #[inline(always)]
    pub fn flush<S: Sink>(&mut self, sink: &mut S) {
        if self.n == 0 {
            self.nseg = 0;
            return;
        }
        // Unused lanes get NaN boxes: the kernel answers "no contact" for them.
        for q in 0..6 {
            self.bc[q][self.n..].fill(f32::NAN);
        }
        type V<P> = <P as Simd>::F16;
        let lane = V::<P>::load(&LANE_INDEX);
        let mut c = [V::<P>::splat(0.0); 9];
        for (&first, t) in self.seg_first[..self.nseg].iter().zip(&self.seg_tri) {
            let m = lane.ge(V::<P>::splat(first));
            let x = [t.a.x, t.a.y, t.a.z, t.b.x, t.b.y, t.b.z, t.c.x, t.c.y, t.c.z];
            for (cq, &xq) in c.iter_mut().zip(&x) {
                // (a full-lane mask: the select is `wide`'s bitselect)
                *cq = V::<P>::select(m, V::<P>::splat(xq), *cq);
            }
        }
        self.nseg = 0;
        let tri = Triangle::<V<P>> {
            a: V3::new(c[0], c[1], c[2]),
            b: V3::new(c[3], c[4], c[5]),
            c: V3::new(c[6], c[7], c[8]),
        };
        let bc = &self.bc;
        let boxes = Aabb {
            min: V3::new(V::<P>::load(&bc[0]), V::<P>::load(&bc[1]), V::<P>::load(&bc[2])),
            max: V3::new(V::<P>::load(&bc[3]), V::<P>::load(&bc[4]), V::<P>::load(&bc[5])),
        };
        let mut bits = triangle_aabb_conservative::<V<P>>(&tri, &boxes).bits() as u32;
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let [i, j, k] = self.vox[l];
            if !self.thin || thin_filter(&self.tris[l], &self.t.grid, i, j, k, 1) != 0 {
                sink.or_row(i, j, k, 1);
            }
        }
        self.n = 0;
    }
}

/// The plain row loop (no pre-cull): every voxel of the triangle's bounding
/// range, 16 consecutive voxels of a row per kernel call. Kept as the
/// reference path the pre-culled one is tested against.
#[inline(always)]
pub(crate) fn triangle_rows_plain<P: Simd, S: Sink>(
    tri: &Triangle,
    t: &Tables,
    k_lo: u32,
    k_hi: u32,
    thin: bool,
    sink: &mut S,
) {
    let (tmin, tmax) = tri_bounds(tri);
    let Some((i0, i1)) = t.range(0, tmin.x, tmax.x) else { return };
    let Some((j0, j1)) = t.range(1, tmin.y, tmax.y) else { return };
    let Some((ka, kb)) = t.range(2, tmin.z, tmax.z) else { return };
    let (ka, kb) = (ka.max(k_lo), kb.min(k_hi));
    type V<P> = <P as Simd>::F16;
    let tri16 = Triangle::<V<P>> {
        a: V3::broadcast(tri.a),
        b: V3::broadcast(tri.b),
        c: V3::broadcast(tri.c),
    };
    let (lox, hix) = (&t.lo[0], &t.hi[0]);
    for k in ka..=kb {
        let zl = V::<P>::splat(t.lo[2][k as usize]);
        let zh = V::<P>::splat(t.hi[2][k as usize + 1]);
        for j in j0..=j1 {
            let yl = V::<P>::splat(t.lo[1][j as usize]);
            let yh = V::<P>::splat(t.hi[1][j as usize + 1]);
            let mut i = i0;
            while i <= i1 {
                let iu = i as usize;
                let boxes = Aabb {
                    min: V3::new(V::<P>::load(&lox[iu..]), yl, zl),
                    max: V3::new(V::<P>::load(&hix[iu + 1..]), yh, zh),
                };
                let n = i1 - i + 1;
                let valid = if n >= 16 { 0xffff } else { (1u32 << n) - 1 };
                let mut bits =
                    triangle_aabb_conservative::<V<P>>(&tri16, &boxes).bits() as u32 & valid;
                if thin && bits != 0 {
                    bits = thin_filter(tri, &t.grid, i, j, k, bits);
                }
                if bits != 0 {
                    sink.or_row(i, j, k, bits);
                }
                i += 16;
            }
        }
    }
}
