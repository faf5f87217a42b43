//! k-DOP of a point set.

use super::{round_down, round_up, to64, usable};
use crate::math::Vec3;
use crate::shapes::Kdop;

/// The tightest k-DOP (on the axes of [`Kdop::AXES`]) containing every point,
/// with each slab bound rounded outward so containment is exact:
/// `min[i] <= AXES[i]·p <= max[i]` holds for the exact real projection of every
/// point (unlike [`Kdop::grow`], which rounds `AXES[i]·p` to nearest).
///
/// The projection `±x ± y ± z` (axes have entries 0, ±1) is summed in `f64`
/// with error at most `2^-52·(|x|+|y|+|z|)`; the bound is widened by `2^-50`
/// times that sum (which also covers the `f64` rounding of the widening) and
/// rounded outward to `f32`; when TwoSum shows both `f64` additions exact,
/// only the final outward rounding remains (so bounds are exact whenever the
/// projection is representable). Axes with a single non-zero entry are exact.
///
/// Returns `None` for an empty slice or any NaN/∞ coordinate (see the
/// [module docs](crate::bounding)). Source: seed 003 (k-DOP construction);
/// Ericson §4.6.
///
/// ```
/// use widephase::{bounding::kdop_from_points, Dop14, Vec3};
/// let pts = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 2.0, 3.0)];
/// let k: Dop14 = kdop_from_points(&pts).unwrap();
/// assert_eq!((k.min[3], k.max[3]), (0.0, 6.0)); // x + y + z
/// assert_eq!((k.min[4], k.max[4]), (0.0, 2.0)); // x - y + z
/// ```
pub fn kdop_from_points<const N: usize>(points: &[Vec3]) -> Option<Kdop<N>> {
    if !usable(points) {
        return None;
    }
    let mut out = Kdop::<N>::EMPTY;
    for &p in points {
        let c = to64(p);
        for (i, axis) in Kdop::<N>::AXES.iter().enumerate() {
            let a = axis.to_array();
            let nonzero = a.iter().filter(|&&x| x != 0.0).count();
            let (lo, hi) = if nonzero == 1 {
                // A coordinate axis: the projection is the coordinate itself.
                let k = a.iter().position(|&x| x != 0.0).unwrap_or(0);
                let v = a[k] * p.to_array()[k]; // exact: a[k] = ±1
                (v, v)
            } else {
                // Products by 0/±1 are exact; two f64 sums, whose exactness
                // TwoSum detects (then the bound is just rounded outward).
                let (d1, e1) = two_sum((a[0] as f64) * c[0], (a[1] as f64) * c[1]);
                let (d, e2) = two_sum(d1, (a[2] as f64) * c[2]);
                if e1 == 0.0 && e2 == 0.0 {
                    (round_down(d), round_up(d))
                } else {
                    let s = c[0].abs() + c[1].abs() + c[2].abs();
                    let err = s * f64::powi(2.0, -50);
                    (round_down(d - err), round_up(d + err))
                }
            };
            out.min[i] = out.min[i].min(lo);
            out.max[i] = out.max[i].max(hi);
        }
    }
    Some(out)
}

/// Knuth's TwoSum: `s = fl(a + b)` and the exact error `e = (a + b) - s`.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}
