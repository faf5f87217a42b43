//! OBB of a point set from its covariance (PCA).

use super::{round_up, to64, usable};
use crate::math::Vec3;
use crate::shapes::Obb;

type M3 = [[f64; 3]; 3];

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations:
/// returns the eigenvalues and the eigenvectors as the columns of an orthogonal
/// matrix. Each rotation zeroes one off-diagonal entry `a_pq` with
/// `θ = (a_qq - a_pp)/(2 a_pq)`, `t = sign(θ)/(|θ| + √(θ² + 1))` (the smaller
/// rotation, Numerical Recipes §11.1 / Ericson §4.4.4); sweeps stop when the
/// off-diagonal mass is negligible or after 32 sweeps. Rank-deficient matrices
/// (collinear, coplanar, duplicate points) are fine: the basis stays orthogonal.
#[allow(clippy::needless_range_loop)] // rows p and q are updated together
fn jacobi(mut a: M3) -> ([f64; 3], M3) {
    let mut v: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..32 {
        let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        let diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if off <= diag * 1e-32 || off == 0.0 {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J with J the rotation in the (p, q) plane.
            for row in a.iter_mut() {
                let akp = row[p];
                let akq = row[q];
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let apk = a[p][k];
                let aqk = a[q][k];
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for row in v.iter_mut() {
                let vp = row[p];
                let vq = row[q];
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    ([a[0][0], a[1][1], a[2][2]], v)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// An OBB containing every point, oriented along the principal axes of the
/// points' covariance matrix (PCA): axes are the eigenvectors (by Jacobi
/// rotations) in decreasing order of variance, made right-handed; the center and
/// half extents come from the points' projections on them.
///
/// Containment is exact for the returned `f32` values under both readings of
/// an [`Obb`]: the parametric one (`p = center + Σ s_i·axes[i]` with
/// `|s_i| <= half[i]`, solving with the rounded, very nearly orthonormal axes)
/// and the projection one (`|(p - center)·axes[i]| <= half[i]`): each half
/// extent is the larger of the two maxima, computed in `f64` from the rounded
/// center and axes, inflated by `2^-40` relative plus `2^-45·max|p - center|₁`
/// absolute (the `f64` error of a projection), and rounded up. Axes deviate
/// from orthonormal by about `2^-24` (well within
/// [`ORTHONORMAL_TOLERANCE`](crate::shapes::ORTHONORMAL_TOLERANCE)).
///
/// Degenerate inputs are boxes of zero extent on the missing directions: one
/// point or duplicates give a point box, collinear points a segment box,
/// coplanar points a flat box. `None` for an empty slice or a NaN/∞
/// coordinate (see the [module docs](crate::bounding)).
///
/// Source: seed 003 ("方向计算方法: 计算凸包的协方差矩阵, 求其特征向量"; here
/// the covariance of the points themselves, not of the hull); Gottschalk et
/// al., "OBBTree" (1996); Ericson §4.4.3–4.4.4.
///
/// ```
/// use widephase::{bounding::obb_from_points, Vec3};
/// // Points along the diagonal x = y: the main axis is (1, 1, 0)/√2.
/// let pts: Vec<Vec3> = (0..5).map(|i| Vec3::new(i as f32, i as f32, 0.0)).collect();
/// let obb = obb_from_points(&pts).unwrap();
/// assert!((obb.axes[0].x.abs() - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
/// assert!((obb.half.x - 2.0 * std::f32::consts::SQRT_2).abs() < 1e-5);
/// assert!(obb.half.y < 1e-6 && obb.half.z < 1e-6); // a segment box
/// ```
pub fn obb_from_points(points: &[Vec3]) -> Option<Obb> {
    if !usable(points) {
        return None;
    }
    let pts: Vec<[f64; 3]> = points.iter().map(|&p| to64(p)).collect();
    let n = pts.len() as f64;
    let mut mean = [0.0f64; 3];
    for p in &pts {
        for k in 0..3 {
            mean[k] += p[k];
        }
    }
    for m in mean.iter_mut() {
        *m /= n;
    }
    let mut cov: M3 = [[0.0; 3]; 3];
    for p in &pts {
        let d = [p[0] - mean[0], p[1] - mean[1], p[2] - mean[2]];
        for i in 0..3 {
            for j in 0..3 {
                cov[i][j] += d[i] * d[j];
            }
        }
    }
    let (vals, vecs) = jacobi(cov);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| vals[j].total_cmp(&vals[i]));
    let col = |k: usize| [vecs[0][k], vecs[1][k], vecs[2][k]];
    let a0 = col(order[0]);
    let a1 = col(order[1]);
    let a2 = cross(a0, a1); // right-handed, and orthonormal like a0, a1
    let axes64 = [a0, a1, a2];

    // Center from the extents along the f64 axes.
    let mut center = mean;
    for ax in &axes64 {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in &pts {
            let s = dot(*ax, [p[0] - mean[0], p[1] - mean[1], p[2] - mean[2]]);
            lo = lo.min(s);
            hi = hi.max(s);
        }
        let mid = 0.5 * (lo + hi);
        for k in 0..3 {
            center[k] += mid * ax[k];
        }
    }

    // Round to f32, then measure the half extents with the rounded values.
    let to32 = |v: [f64; 3]| Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32);
    let c32 = to32(center);
    let axes32 = [to32(a0), to32(a1), to32(a2)];
    let c = to64(c32);
    let a: [[f64; 3]; 3] = [to64(axes32[0]), to64(axes32[1]), to64(axes32[2])];
    // Parametric coordinates: solve Σ s_i a_i = p - c by Cramer's rule; the
    // rounded axes are orthonormal to ~2^-24, so det ≈ 1.
    let det = dot(a[0], cross(a[1], a[2]));
    let rows = [cross(a[1], a[2]), cross(a[2], a[0]), cross(a[0], a[1])];
    let mut half = [0.0f64; 3];
    let mut dmax = 0.0f64;
    for p in &pts {
        let d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
        dmax = dmax.max(d[0].abs() + d[1].abs() + d[2].abs());
        for i in 0..3 {
            let param = dot(rows[i], d) / det;
            let proj = dot(a[i], d);
            half[i] = half[i].max(param.abs()).max(proj.abs());
        }
    }
    // The f64 errors of `param` and `proj` are absolute, about 2^-50·|d|₁
    // (|a_i| ≈ 1, |det| ≈ 1): widen by 2^-45·max|d|₁ and 2^-40 relative.
    let grow = 1.0 + f64::powi(2.0, -40);
    let abs = dmax * f64::powi(2.0, -45);
    let h = |x: f64| round_up(x * grow + abs);
    let h = Vec3::new(h(half[0]), h(half[1]), h(half[2]));
    Some(Obb::new(c32, axes32, h))
}
