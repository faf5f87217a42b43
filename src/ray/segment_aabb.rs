//! Segment–AABB overlap by the separating-axis test (Ericson §5.3.3
//! `TestSegmentAABB`; seed `003` "线段/长方体重叠检测").

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
/// ```
/// use widephase::{ray::segment_aabb, Aabb, Segment, Vec3};
/// let bx = Aabb::new(Vec3::ZERO, Vec3::splat(1.0));
/// // touches the edge x = 1, y = 1 at its midpoint
/// let seg = Segment::new(Vec3::new(2.0, 0.0, 0.5), Vec3::new(0.0, 2.0, 0.5));
/// assert!(segment_aabb(&seg, &bx));
/// let seg = Segment::new(Vec3::new(2.0, 0.0, 0.5), Vec3::new(0.0, 2.000001, 0.5));
/// assert!(!segment_aabb(&seg, &bx));
/// ```
pub fn segment_aabb(seg: &Segment, b: &Aabb) -> bool {
    if !(seg.a.is_finite() && seg.b.is_finite() && b.is_valid()) {
        return false;
    }
    let c2 = b.min + b.max;
    let h2 = b.max - b.min;
    let w2 = seg.b - seg.a;
    let m2 = (seg.a + seg.b) - c2; // doubled midpoint, relative to the doubled center
    let aw = w2.abs();
    // Box face axes: |m_i| > h_i + |w_i| separates.
    for i in 0..3 {
        if m2.get(i).abs() > h2.get(i) + aw.get(i) {
            return false;
        }
    }
    // Cross axes w × e_i: |m·(w × e_i)| > h·|w × e_i| separates (all doubled twice).
    if (m2.y * w2.z - m2.z * w2.y).abs() > h2.y * aw.z + h2.z * aw.y {
        return false;
    }
    if (m2.z * w2.x - m2.x * w2.z).abs() > h2.x * aw.z + h2.z * aw.x {
        return false;
    }
    if (m2.x * w2.y - m2.y * w2.x).abs() > h2.x * aw.y + h2.y * aw.x {
        return false;
    }
    true
}

/// [`segment_aabb`] with the arguments swapped.
///
/// ```
/// use widephase::{ray::aabb_segment, Aabb, Segment, Vec3};
/// assert!(aabb_segment(&Aabb::new(Vec3::ZERO, Vec3::splat(1.0)), &Segment::new(Vec3::ZERO, Vec3::ZERO)));
/// ```
pub fn aabb_segment(b: &Aabb, seg: &Segment) -> bool {
    segment_aabb(seg, b)
}
