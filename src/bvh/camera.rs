//! Pinhole camera rays in Open3D's convention
//! (`RaycastingScene.create_rays_pinhole(fov_deg, center, eye, up, width_px,
//! height_px)`), shared by `widephase raycast --camera` and the Python
//! package's `pinhole_rays`.
//!
//! Open3D's construction (`cpp/open3d/t/geometry/RaycastingScene.cpp`),
//! followed operation by operation in `f64`. The origins come out identical
//! and the directions identical or within 5e-7 per component: on eight random cameras
//! against Open3D 0.20's wheel, 0 to 6 % of the direction components differed,
//! by at most 4.8e-7 (its compiled Eigen evaluates some sums in another order;
//! `tests/bvh.rs` pins a camera whose rays agree to the bit):
//! - `fov_deg` is the **horizontal** field of view: focal length
//!   `f = 0.5·W / tan(0.5·(π/180)·fov)`, principal point `(W/2, H/2)`;
//! - the rotation's rows are `right = up' × fwd` (normalized), `down' = fwd ×
//!   right`, `fwd = (center − eye)/|center − eye|`, where `up' = up/|up|`; the
//!   image's column axis is `right` and its row axis is `fwd × right` (so
//!   with `up = +y` the first image row looks toward `−y`, as in Open3D);
//! - the direction of pixel `(x, y)` is `M·(x + ½, y + ½, 1)` in `f32`, with
//!   `M = Rᵀ·K⁻¹` rounded to `f32` once (`K⁻¹` from the cofactors and
//!   `1/det`, as Eigen's 3×3 inverse); directions are **not** normalized:
//!   their component along the viewing direction is 1, so a hit's `t` is its
//!   depth along the optical axis (a z-buffer value), not its distance;
//! - the origin is the eye, recomputed as `−Rᵀ·(−R·eye)` (Open3D's
//!   round trip through the extrinsic matrix).

use crate::math::Vec3;
use crate::shapes::Ray;

/// A pinhole camera (Open3D's `create_rays_pinhole` arguments).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pinhole {
    /// Horizontal field of view in degrees, in `(0, 180)`.
    pub fov_deg: f64,
    /// The point looked at.
    pub center: [f64; 3],
    /// The camera position.
    pub eye: [f64; 3],
    /// The up vector (need not be unit or orthogonal to the view direction).
    pub up: [f64; 3],
    /// Image width in pixels.
    pub width: usize,
    /// Image height in pixels.
    pub height: usize,
}

/// Most pixels of one camera image (the CLI's ray limit).
pub const MAX_PIXELS: usize = 100_000_000;

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn div(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] / s, a[1] / s, a[2] / s]
}

impl Pinhole {
    /// Checks the arguments: a size of at least 1×1 and at most
    /// [`MAX_PIXELS`], a field of view in `(0, 180)`, finite vectors, an eye
    /// distinct from the center, and an up vector not parallel to the
    /// viewing direction. The error names the problem.
    pub fn validate(&self) -> Result<(), String> {
        let (w, h) = (self.width, self.height);
        if w == 0 || h == 0 {
            return Err(format!("image size {w}x{h}: both must be at least 1"));
        }
        if w.checked_mul(h).is_none_or(|n| n > MAX_PIXELS) {
            return Err(format!("image size {w}x{h}: more than {MAX_PIXELS} pixels"));
        }
        if !(self.fov_deg > 0.0 && self.fov_deg < 180.0) {
            return Err(format!("field of view {} degrees: must be in (0, 180)", self.fov_deg));
        }
        for (name, v) in [("eye", self.eye), ("center", self.center), ("up", self.up)] {
            if !v.iter().all(|x| x.is_finite()) {
                return Err(format!("{name} {v:?} is not finite"));
            }
        }
        let (r, _) = self.rotation();
        if !(r[0].iter().chain(&r[1]).chain(&r[2]).all(|x| x.is_finite())) {
            return Err("the eye must differ from the center, and up must be non-zero and not \
                        parallel to the viewing direction"
                .into());
        }
        Ok(())
    }

    /// Open3D's world-to-camera rotation (rows `right`, `down'`, `fwd`) and
    /// translation `−R·eye`.
    fn rotation(&self) -> ([[f64; 3]; 3], [f64; 3]) {
        let up = div(self.up, norm(self.up));
        let fwd = [
            self.center[0] - self.eye[0],
            self.center[1] - self.eye[1],
            self.center[2] - self.eye[2],
        ];
        let fwd = div(fwd, norm(fwd));
        let right = cross(up, fwd);
        let right = div(right, norm(right));
        let down = cross(fwd, right);
        let r = [right, down, fwd];
        let e = self.eye;
        let t = [
            -(r[0][0] * e[0] + r[0][1] * e[1] + r[0][2] * e[2]),
            -(r[1][0] * e[0] + r[1][1] * e[1] + r[1][2] * e[2]),
            -(r[2][0] * e[0] + r[2][1] * e[1] + r[2][2] * e[2]),
        ];
        (r, t)
    }

    /// The rays, row by row (`height` rows of `width`), as Open3D lays out
    /// its `(H, W, 6)` tensor; `t_min = 0`, `t_max = ∞`. Panics on arguments
    /// [`validate`](Self::validate) refuses.
    pub fn rays(&self) -> Vec<Ray> {
        if let Err(e) = self.validate() {
            panic!("Pinhole::rays: {e}");
        }
        let (w, h) = (self.width as f64, self.height as f64);
        let f = 0.5 * w / (0.5 * (core::f64::consts::PI / 180.0) * self.fov_deg).tan();
        let (cx, cy) = (0.5 * w, 0.5 * h);
        // K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]; Eigen's 3×3 inverse: the
        // cofactors times 1/det, det = Σ cofactor·column 0.
        // (the other two products of column 0 are ±0 and change nothing)
        let det = f * f;
        let inv_det = 1.0 / det;
        let kinv = [
            [f * inv_det, (0.0 * 1.0 - 0.0 * cy) * inv_det, (0.0 * cy - cx * f) * inv_det],
            [(cy * 0.0 - 0.0 * 1.0) * inv_det, f * inv_det, (cx * 0.0 - f * cy) * inv_det],
            [(0.0 * 0.0 - f * 0.0) * inv_det, (0.0 * 0.0 - 0.0 * f) * inv_det, (f * f) * inv_det],
        ];
        let (r, t) = self.rotation();
        // Rᵀ·K⁻¹ in f64, rounded to f32 once.
        let mut m = [[0f32; 3]; 3];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = (r[0][i] * kinv[0][j] + r[1][i] * kinv[1][j] + r[2][i] * kinv[2][j]) as f32;
            }
        }
        // C = −Rᵀ·t
        let c: [f32; 3] =
            [0, 1, 2].map(|i| (-(r[0][i] * t[0] + r[1][i] * t[1] + r[2][i] * t[2])) as f32);
        let origin = Vec3::new(c[0], c[1], c[2]);
        let mut out = Vec::with_capacity(self.width * self.height);
        for y in 0..self.height {
            let py = y as f32 + 0.5;
            for x in 0..self.width {
                let px = x as f32 + 0.5;
                let d = [0, 1, 2].map(|i| m[i][0] * px + m[i][1] * py + m[i][2]);
                out.push(Ray::new(origin, Vec3::new(d[0], d[1], d[2])));
            }
        }
        out
    }

    /// A camera that frames the box `(lo, hi)`: it looks at the box centre
    /// from `eye` (or, when `None`, from the `+z` side at the distance where
    /// the box's bounding sphere fits both fields of view), with `up`.
    pub fn framing(
        (lo, hi): (Vec3, Vec3),
        width: usize,
        height: usize,
        fov_deg: f64,
        eye: Option<[f64; 3]>,
        center: Option<[f64; 3]>,
        up: [f64; 3],
    ) -> Pinhole {
        let mid = [
            0.5 * (lo.x as f64 + hi.x as f64),
            0.5 * (lo.y as f64 + hi.y as f64),
            0.5 * (lo.z as f64 + hi.z as f64),
        ];
        let center = center.unwrap_or(mid);
        let eye = eye.unwrap_or_else(|| {
            let radius =
                0.5 * norm([(hi.x - lo.x) as f64, (hi.y - lo.y) as f64, (hi.z - lo.z) as f64]);
            let half_h = (0.5 * fov_deg).to_radians();
            // vertical half-angle from the horizontal one and the aspect ratio
            let half_v = (half_h.tan() * height as f64 / width.max(1) as f64).atan();
            // (a point-sized box is viewed from distance 1)
            let dist = if radius > 0.0 { radius / half_h.min(half_v).sin() } else { 1.0 };
            [center[0], center[1], center[2] + dist]
        });
        Pinhole { fov_deg, center, eye, up, width, height }
    }
}
