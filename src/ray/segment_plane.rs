//! Segment–plane (Ericson §5.3.1 `IntersectSegmentPlane`; seed `000` §5.3.1).

use crate::math::Vec3;
use crate::shapes::{Plane, Segment};

/// Where the closed segment `[a, b]` meets the plane `normal·x = d`:
/// `Some((t, a + t·(b - a)))` with `t ∈ [0, 1]`, else `None`.
///
/// Decided on the signs of `sa = normal·a - d` and `sb = normal·b - d` (the
/// segment touches the plane iff they are not both strictly positive or both
/// strictly negative), then `t = sa / (sa - sb)`; a segment lying in the plane
/// (`sa = sb = 0`) reports `t = 0`, a zero-length segment is the point `a`.
/// Ericson's form `t = (d - n·a) / (n·(b - a))` is the same up to rounding but
/// can leave `[0, 1]` by an ulp when an endpoint touches the plane; this form
/// cannot (`|sa| <= |sa - sb|` whenever the signs differ). A zero normal is not
/// a plane: `None`. NaN/∞ give `None` (crate [contracts](crate#contracts); the
/// ulp band is that of the two signed distances, `simd-notes.md`).
///
/// ```
/// use widephase::{ray::segment_plane, Plane, Segment, Vec3};
/// let ground = Plane::new(Vec3::Z, 0.0);
/// let seg = Segment::new(Vec3::new(1.0, 1.0, 2.0), Vec3::new(1.0, 1.0, -2.0));
/// assert_eq!(segment_plane(&seg, &ground), Some((0.5, Vec3::new(1.0, 1.0, 0.0))));
/// // ending exactly on the plane touches it
/// let seg = Segment::new(Vec3::new(0.0, 0.0, 2.0), Vec3::ZERO);
/// assert_eq!(segment_plane(&seg, &ground), Some((1.0, Vec3::ZERO)));
/// ```
pub fn segment_plane(seg: &Segment, plane: &Plane) -> Option<(f32, Vec3)> {
    let finite =
        seg.a.is_finite() && seg.b.is_finite() && plane.normal.is_finite() && plane.d.is_finite();
    if !finite || plane.normal == Vec3::ZERO {
        return None;
    }
    let sa = plane.normal.dot(seg.a) - plane.d;
    let sb = plane.normal.dot(seg.b) - plane.d;
    if (sa > 0.0 && sb > 0.0) || (sa < 0.0 && sb < 0.0) || !(sa.is_finite() && sb.is_finite()) {
        return None;
    }
    // Exact end points (and +0.0, never -0.0, when starting on the plane).
    let t = if sa == 0.0 {
        0.0
    } else if sb == 0.0 {
        1.0
    } else {
        sa / (sa - sb)
    };
    let ab = seg.b - seg.a;
    // t = 1 gives b exactly (a + (b - a) is not always b in floating point).
    let p = if t == 1.0 { seg.b } else { seg.a + ab * t };
    Some((t, p))
}

/// [`segment_plane`] with the arguments swapped.
///
/// ```
/// use widephase::{ray::plane_segment, Plane, Segment, Vec3};
/// let seg = Segment::new(Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.0, 0.0, 3.0));
/// assert!(plane_segment(&Plane::new(Vec3::Z, 0.0), &seg).is_none());
/// ```
pub fn plane_segment(plane: &Plane, seg: &Segment) -> Option<(f32, Vec3)> {
    segment_plane(seg, plane)
}
