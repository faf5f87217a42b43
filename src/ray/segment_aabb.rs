//! Segment–AABB overlap by the separating-axis test (Ericson §5.3.3
//! `TestSegmentAABB`; seed `003` "线段/长方体重叠检测").

use crate::lane::Lane;
use crate::shapes::{Aabb, Segment};

/// Whether the closed segment and the closed box intersect: separating-axis test
/// on the three box axes and the three cross products `w × e_i` of the segment
/// direction with them.
///
/// Everything is kept doubled (`c2 = min + max`, `h2 = max - min`,
/// `m2 = a + b`, `w2 = b - a`) so that no `0.5·` rounding enters, and the test
/// on an axis is a strict `>`: touching is intersecting. Ericson adds an
/// `EPSILON` to `|w_i|` to guard the cross axes of a near-axis-parallel segment;
/// it is not needed here: a cross axis degenerates to `0 > 0` (not separating)
/// when the segment is exactly parallel, and near-parallel roundings only
/// matter inside the ulp band. A zero-length segment is the point `a`; an
/// inverted box is empty; NaN/∞ give `false` (crate [contracts](crate#contracts),
/// band in `simd-notes.md`).
///
/// **LANE-GENERIC**: `L = f32` is the scalar test returning `bool`; `f32x4/8/16`
/// test packs of segment–box pairs with bit-identical answers (the six axes are
/// evaluated in the same order for every lane and combined with mask
/// operations, no early exit). Batch kernel: [`crate::batch::kernels::SegmentAabb`].
///
/// ```
/// use widephase::{ray::segment_aabb, Aabb, Segment, Vec3};
/// let bx = Aabb::new(Vec3::ZERO, Vec3::splat(1.0));
/// // touches the edge x = 1, y = 1 at its midpoint
/// let seg = Segment::new(Vec3::new(2.0, 0.0, 0.5), Vec3::new(0.0, 2.0, 0.5));
/// assert!(segment_aabb(&seg, &bx));
/// let seg = Segment::new(Vec3::new(2.0, 0.0, 0.5), Vec3::new(0.0, 2.000001, 0.5));
/// assert!(!segment_aabb(&seg, &bx));
/// ```
#[inline(always)]
pub fn segment_aabb<L: Lane>(seg: &Segment<L>, b: &Aabb<L>) -> L::Mask {
    let valid = seg.a.is_finite() & seg.b.is_finite() & b.is_valid();
    let c2 = b.min + b.max;
    let h2 = b.max - b.min;
    let w2 = seg.b - seg.a;
    let m2 = (seg.a + seg.b) - c2; // doubled midpoint, relative to the doubled center
    let aw = w2.abs();
    // Box face axes: |m_i| > h_i + |w_i| separates.
    let mut separated = m2.x.abs().gt(h2.x + aw.x);
    separated = separated | m2.y.abs().gt(h2.y + aw.y);
    separated = separated | m2.z.abs().gt(h2.z + aw.z);
    // Cross axes w × e_i: |m·(w × e_i)| > h·|w × e_i| separates (all doubled twice).
    separated = separated | (m2.y * w2.z - m2.z * w2.y).abs().gt(h2.y * aw.z + h2.z * aw.y);
    separated = separated | (m2.z * w2.x - m2.x * w2.z).abs().gt(h2.x * aw.z + h2.z * aw.x);
    separated = separated | (m2.x * w2.y - m2.y * w2.x).abs().gt(h2.x * aw.y + h2.y * aw.x);
    valid & !separated
}

/// [`segment_aabb`] with the arguments swapped.
///
/// ```
/// use widephase::{ray::aabb_segment, Aabb, Segment, Vec3};
/// assert!(aabb_segment(&Aabb::new(Vec3::ZERO, Vec3::splat(1.0)), &Segment::new(Vec3::ZERO, Vec3::ZERO)));
/// ```
#[inline(always)]
pub fn aabb_segment<L: Lane>(b: &Aabb<L>, seg: &Segment<L>) -> L::Mask {
    segment_aabb(seg, b)
}
