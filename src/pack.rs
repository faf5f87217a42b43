//! Structure-of-arrays packs: shapes stored `L::WIDTH` at a time, one lane
//! vector per coordinate (`Aabb<f32x8>` holds eight boxes: `min.x` is the eight
//! `min.x`, ...). A pack is a `Vec` of such chunks (array-of-structures-of-arrays),
//! so a kernel streams through contiguous memory.
//!
//! **Tail lanes.** The last chunk is padded with [`Packable::PADDING`], a value
//! every kernel answers "no intersection" for by the crate's NaN/empty rule (an
//! inverted box, a NaN triangle, a negative-radius sphere, an empty ray
//! interval), so padding can never hit; drivers additionally stop at
//! [`Pack::len`] when writing results. `tests/batch.rs` checks both.
//!
//! Packs are built from ordinary `#[repr(C)]` slices (which themselves may be
//! bytemuck casts of a vertex buffer) by an in-register transpose, and can be
//! rebuilt in place every frame without reallocating ([`Pack::rebuild`]).

use crate::lane::Lane;
use crate::math::V3;
use crate::shapes::{Aabb, Capsule, Obb, Plane, Ray, Segment, Sphere, Triangle};
use bytemuck::{Pod, Zeroable};
use wide::{f32x16, f32x4, f32x8};

/// A scalar shape that can be stored in SoA packs.
pub trait Packable: Pod + Send + Sync + core::fmt::Debug {
    /// The same shape with every `f32` replaced by a lane of `L`: `Aabb<L>`
    /// for `Aabb`. Its layout is field-major (field `i` of lane `j` is float
    /// `i * WIDTH + j`), which [`transpose`] relies on.
    type Lanes<L: LanePod>: Pod + Send + Sync + core::fmt::Debug;
    /// A value no kernel reports a hit for (see the module docs).
    const PADDING: Self;
}

/// A [`Lane`] type whose shape instantiations are `Pod` (all lane types of the
/// crate: `f32`, `f32x4`, `f32x8`, `f32x16`).
pub trait LanePod: Lane + Pod {
    /// Field-major gather for the screened pairwise driver: lane `j` of each
    /// `WIDTH`-float field `k` of `dst` gets `src[k·WIDTH + off[j]]`.
    /// Panics when an offset reads past `src`. The AVX-512 path's 16-lane
    /// type overrides it with one hardware gather per field; the default
    /// moves one float at a time.
    #[doc(hidden)]
    #[inline(always)]
    fn gather_fields(dst: &mut [f32], src: &[f32], off: &[u32; 16]) {
        let w = Self::WIDTH;
        for (k, d) in dst.chunks_exact_mut(w).enumerate() {
            let src = &src[k * w..];
            for j in 0..w {
                d[j] = src[off[j] as usize];
            }
        }
    }

    /// Field-major lanes from whole shapes: lane `j` of field `k` of `dst`
    /// gets word `k` of `rows[j]`, for every lane `j < WIDTH` and every field
    /// `k < dst.len() / WIDTH` (`T`'s words). The contact pipeline packs its
    /// bundles with it, reading each pair's shapes in place. Panics when
    /// `rows` holds fewer than `WIDTH` shapes or `T` has fewer words than
    /// `dst` has fields. The AVX paths' lane types override it with one
    /// masked load per shape and transposes in registers (16×16 on AVX-512,
    /// 8×8 on AVX2); the default moves one float at a time.
    #[doc(hidden)]
    #[inline(always)]
    fn lanes_from_rows<T: Pod>(dst: &mut [f32], rows: &[&T]) {
        lanes_from_rows_by_moves::<Self, T>(dst, rows)
    }
}

/// [`LanePod::lanes_from_rows`] one float at a time.
#[inline(always)]
pub(crate) fn lanes_from_rows_by_moves<L: LanePod, T: Pod>(dst: &mut [f32], rows: &[&T]) {
    let w = L::WIDTH;
    for (j, row) in rows[..w].iter().enumerate() {
        let row: &[f32] = bytemuck::cast_slice(core::slice::from_ref(*row));
        for (k, d) in dst.chunks_exact_mut(w).enumerate() {
            d[j] = row[k];
        }
    }
}

impl LanePod for f32 {}
impl LanePod for f32x4 {}
impl LanePod for f32x8 {}
impl LanePod for f32x16 {}

macro_rules! packable {
    ($($t:ident => $pad:expr),* $(,)?) => {$(
        impl Packable for $t {
            type Lanes<L: LanePod> = $t<L>;
            const PADDING: Self = $pad;
        }
    )*};
}

const NAN3: V3 = V3 { x: f32::NAN, y: f32::NAN, z: f32::NAN };

packable!(
    Aabb => Aabb::EMPTY,
    Triangle => Triangle { a: NAN3, b: NAN3, c: NAN3 },
    Sphere => Sphere { center: NAN3, radius: -1.0 },
    Ray => Ray { origin: NAN3, dir: NAN3, t_min: f32::INFINITY, t_max: f32::NEG_INFINITY },
    Segment => Segment { a: NAN3, b: NAN3 },
    Obb => Obb { center: NAN3, axes: [NAN3; 3], half: NAN3 },
    Capsule => Capsule { a: NAN3, b: NAN3, radius: -1.0 },
    Plane => Plane { normal: NAN3, d: f32::NAN },
);

/// Transposes `items` (exactly `L::WIDTH` shapes) into one lane chunk.
#[inline(always)]
pub fn transpose<S: Packable, L: LanePod>(items: &[S]) -> S::Lanes<L> {
    let w = L::WIDTH;
    debug_assert_eq!(items.len(), w);
    let n = core::mem::size_of::<S>() / 4;
    assert_eq!(core::mem::size_of::<S::Lanes<L>>(), n * w * 4, "field-major lane layout");
    let mut out = S::Lanes::<L>::zeroed();
    let dst: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(&mut out));
    for (j, it) in items.iter().enumerate() {
        let src: &[f32] = bytemuck::cast_slice(core::slice::from_ref(it));
        for (i, &x) in src.iter().enumerate() {
            dst[i * w + j] = x;
        }
    }
    out
}

/// Every lane set to `item` (for one-vs-many queries).
#[inline(always)]
pub fn broadcast<S: Packable, L: LanePod>(item: &S) -> S::Lanes<L> {
    let w = L::WIDTH;
    let mut out = S::Lanes::<L>::zeroed();
    let dst: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(&mut out));
    let src: &[f32] = bytemuck::cast_slice(core::slice::from_ref(item));
    for (i, &x) in src.iter().enumerate() {
        dst[i * w..(i + 1) * w].fill(x);
    }
    out
}

/// Lane `j` of a chunk, as a scalar shape.
#[inline(always)]
pub fn extract<S: Packable, L: LanePod>(chunk: &S::Lanes<L>, j: usize) -> S {
    let w = L::WIDTH;
    let mut out = S::zeroed();
    let dst: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(&mut out));
    let src: &[f32] = bytemuck::cast_slice(core::slice::from_ref(chunk));
    for (i, d) in dst.iter_mut().enumerate() {
        *d = src[i * w + j];
    }
    out
}

/// Writes `item` into lane `j` of `chunk` (the inverse of [`extract`]).
#[inline(always)]
pub fn set_lane<S: Packable, L: LanePod>(chunk: &mut S::Lanes<L>, j: usize, item: &S) {
    let w = L::WIDTH;
    let dst: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(chunk));
    let src: &[f32] = bytemuck::cast_slice(core::slice::from_ref(item));
    for (k, &x) in src.iter().enumerate() {
        dst[k * w + j] = x;
    }
}

/// Shapes of type `S` in SoA chunks of `L::WIDTH`.
#[derive(Clone, Debug)]
pub struct Pack<S: Packable, L: LanePod> {
    chunks: Vec<S::Lanes<L>>,
    len: usize,
}

impl<S: Packable, L: LanePod> Default for Pack<S, L> {
    fn default() -> Self {
        Pack { chunks: Vec::new(), len: 0 }
    }
}

impl<S: Packable, L: LanePod> Pack<S, L> {
    /// Packs `items`, padding the last chunk with [`Packable::PADDING`].
    pub fn new(items: &[S]) -> Self {
        let mut p = Pack::default();
        p.rebuild(items);
        p
    }

    /// Refills the pack from `items`, reusing its allocation (per-frame use).
    pub fn rebuild(&mut self, items: &[S]) {
        let w = L::WIDTH;
        self.chunks.clear();
        self.chunks.reserve(items.len().div_ceil(w));
        let mut it = items.chunks_exact(w);
        for c in &mut it {
            self.chunks.push(transpose::<S, L>(c));
        }
        let rest = it.remainder();
        if !rest.is_empty() {
            let mut tail = vec![S::PADDING; w];
            tail[..rest.len()].copy_from_slice(rest);
            self.chunks.push(transpose::<S, L>(&tail));
        }
        self.len = items.len();
    }

    /// Number of shapes (not counting padding).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the pack holds no shape.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The lane chunks (the last one padded).
    #[inline]
    pub fn chunks(&self) -> &[S::Lanes<L>] {
        &self.chunks
    }

    /// Shape `i`.
    pub fn get(&self, i: usize) -> S {
        assert!(i < self.len, "index {i} out of range for a pack of {}", self.len);
        extract::<S, L>(&self.chunks[i / L::WIDTH], i % L::WIDTH)
    }

    /// Replaces shape `i` in place (moving objects).
    pub fn set(&mut self, i: usize, item: &S) {
        assert!(i < self.len, "index {i} out of range for a pack of {}", self.len);
        set_lane::<S, L>(&mut self.chunks[i / L::WIDTH], i % L::WIDTH, item);
    }

    /// Bytes of shape data a kernel streams per shape (for roofline figures).
    pub const BYTES_PER_ITEM: usize = core::mem::size_of::<S>();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vec3;

    #[test]
    fn transpose_round_trips_and_pads() {
        let boxes: Vec<Aabb> = (0..11)
            .map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 0.5)))
            .collect();
        let p = Pack::<Aabb, f32x8>::new(&boxes);
        assert_eq!(p.len(), 11);
        assert_eq!(p.chunks().len(), 2);
        for (i, b) in boxes.iter().enumerate() {
            assert_eq!(p.get(i), *b);
        }
        assert_eq!(extract::<Aabb, f32x8>(&p.chunks()[1], 5), Aabb::EMPTY);
        assert_eq!(p.chunks()[0].min.x.to_array()[3], 3.0);
        let mut q = p.clone();
        q.set(9, &Aabb::new(Vec3::ZERO, Vec3::ZERO));
        assert_eq!(q.get(9), Aabb::new(Vec3::ZERO, Vec3::ZERO));
        assert_eq!(q.get(8), boxes[8]);
        let cap = q.chunks.capacity();
        q.rebuild(&boxes[..3]);
        assert_eq!((q.len(), q.chunks.capacity()), (3, cap), "rebuild reuses the allocation");
        let b = broadcast::<Triangle, f32x16>(&Triangle::new(Vec3::X, Vec3::Y, Vec3::Z));
        assert_eq!(b.c.z.to_array(), [1.0; 16]);
    }
}
