//! AABB–AABB overlap (Ericson §4.2.1): three interval tests on the inputs.

use crate::lane::Lane;
use crate::shapes::Aabb;

/// Do the closed boxes `a` and `b` touch or overlap?
///
/// Pure comparisons of input coordinates, so the answer is **exact**: boxes
/// sharing only a face, edge or corner overlap. Inverted (empty) boxes and
/// non-finite coordinates give `false` (see [contracts](crate#contracts)).
///
/// ```
/// use widephase::{overlap::aabb_aabb, Aabb, Vec3};
/// let a = Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
/// let corner = Aabb::new(Vec3::new(1.0, 1.0, 1.0), Vec3::new(2.0, 2.0, 2.0));
/// assert!(aabb_aabb(&a, &corner));
/// let beyond = Aabb::new(Vec3::new(1.0 + f32::EPSILON, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
/// assert!(!aabb_aabb(&a, &beyond));
/// ```
#[inline(always)]
pub fn aabb_aabb<L: Lane>(a: &Aabb<L>, b: &Aabb<L>) -> L::Mask {
    // if (a.max.x < b.min.x || a.min.x > b.max.x) return false; ... per axis,
    // written as the positive form so NaN compares false.
    a.is_valid()
        & b.is_valid()
        & a.min.x.le(b.max.x)
        & b.min.x.le(a.max.x)
        & a.min.y.le(b.max.y)
        & b.min.y.le(a.max.y)
        & a.min.z.le(b.max.z)
        & b.min.z.le(a.max.z)
}

/// The conservative AABB–AABB test. [`aabb_aabb`] involves no rounding, so it is
/// already exact and therefore conservative; this is the same function, offered
/// so every box predicate has the `_conservative` name the voxelizer uses.
#[inline(always)]
pub fn aabb_aabb_conservative<L: Lane>(a: &Aabb<L>, b: &Aabb<L>) -> L::Mask {
    aabb_aabb(a, b)
}
