//! The voxel grid: plane base and index offset, voxel size, dimensions, and
//! the f32 boxes that enclose each voxel's exact box.
//!
//! Plane `n` of axis `a` is `b_a + (n − p)·h`, evaluated in **exact**
//! arithmetic on the f32 values `b` (the grid's `base`) and `h`, with `p` the
//! integer index `offset`; voxel `(i, j, k)` is the closed box between planes
//! `(i, j, k)` and `(i+1, j+1, k+1)`. A fitted grid has `b` = the mesh's min
//! corner and `p` = its padding, so padding only shifts indices: the planes
//! are those of the unpadded grid, whatever the padding (an f32 origin
//! `min − p·h` would have to be rounded, moving every plane by up to an ulp
//! with `p`). Without an offset (`p = 0`, [`Grid::new`]) `b` is the corner of
//! voxel 0. The planes are usually not f32 numbers, so every grid plane is stored as a
//! pair `(lo, hi)`: the largest f32 `≤` the exact value and the smallest f32 `≥`
//! it (directed rounding, computed exactly with an f64 two-sum, see
//! [`Grid::plane`]). The box handed to the triangle–box kernel for voxel `i` is
//! `[lo(i), hi(i+1)]`, which contains the exact box, so a triangle touching the
//! exact box touches the stored one, and the conservative kernel cannot miss it.
//! When a plane is an f32 number, `lo == hi` and nothing is widened (faces lying
//! exactly on grid planes stay exact). `tests/voxel.rs` proves the enclosure
//! with rational arithmetic.

use super::VoxelError;
use crate::math::Vec3;
use crate::shapes::Aabb;

/// Largest resolution (voxels along one axis) the voxelizer accepts.
pub const MAX_RES: u32 = 65_536;

/// A regular grid of `dims` voxels of edge `voxel`: plane `n` of axis `a` is
/// exactly `base[a] + (n − offset)·voxel` (module docs).
///
/// Build it with [`Grid::new`], [`Grid::with_offset`] or the fitting
/// functions, which keep `origin` consistent with `base` and `offset`; the
/// geometry ([`Grid::plane`], [`Grid::coord_f64`] and everything the
/// voxelizer computes) uses `base` and `offset` only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Minimum corner of voxel `(0, 0, 0)`, rounded down to f32: the lower
    /// bound `plane(a, 0).0` of the exact plane `base + (0 − offset)·h`, equal
    /// to it when `offset` is 0. What file headers and `--json` report.
    pub origin: Vec3,
    /// Edge length `h` of every voxel (positive, finite).
    pub voxel: f32,
    /// Number of voxels along x, y, z (each in `1..=MAX_RES`).
    pub dims: [u32; 3],
    /// The f32 point the planes are measured from: the minimum corner of
    /// voxel `(offset, offset, offset)` (the mesh's min corner for a fitted
    /// grid; `origin` when `offset` is 0).
    pub base: Vec3,
    /// Index of the voxel whose minimum corner is `base` on every axis: the
    /// padding of a fitted grid, 0 for [`Grid::new`] and [`Grid::covering`].
    pub offset: u32,
}

/// `o + n·h` rounded down and up to f32 (exactly: the pair brackets the real value).
///
/// `n·h` is exact in f64 (24-bit `h` times a 17-bit `n`); the two-sum gives
/// `o + n·h = s + e` exactly, and the rounding direction of `f = (s as f32)` is
/// read off by comparing `f - s` (exact: `f` and `s` are within a factor 2, or
/// both tiny) with `e`.
pub fn plane_bounds(o: f32, h: f32, n: i64) -> (f32, f32) {
    let a = o as f64;
    let b = n as f64 * h as f64;
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    let f = s as f32;
    let d = f as f64 - s;
    // f < exact  <=>  f - s < e
    let (lo, hi) = if d < e {
        (f, f.next_up())
    } else if d > e {
        (f.next_down(), f)
    } else {
        (f, f)
    };
    (lo, hi)
}

/// The smallest count `n ≥ max(1, ⌈(max - min)/h⌉)` of voxels from `origin`
/// whose far plane `origin + n·h` is `≥ max` exactly (its lower bound is).
fn covering_count(origin: f32, h: f32, min: f32, max: f32) -> Result<u32, VoxelError> {
    if !origin.is_finite() {
        return Err(VoxelError::Grid(format!("grid origin {origin} is not finite")));
    }
    if !(min.is_finite() && max.is_finite()) {
        return Err(VoxelError::Grid("mesh bounding box is not finite".into()));
    }
    let q = ((max as f64 - min as f64) / h as f64).ceil().max(1.0);
    if q > 2.0 * MAX_RES as f64 {
        return Err(VoxelError::Grid(format!(
            "{q} voxels along an axis exceed {MAX_RES}; use a larger voxel size"
        )));
    }
    let mut n = q as u32;
    // (at most a step or two: the quotient is within an ulp of the answer;
    // the quotient check above bounds `n`, and the step limit bounds the
    // loop whatever the rounding)
    for _ in 0..64 {
        if plane_bounds(origin, h, n as i64).0 >= max {
            return Ok(n);
        }
        n += 1;
    }
    if plane_bounds(origin, h, n as i64).0 < max {
        return Err(VoxelError::Grid(format!(
            "voxel size {h} from origin {origin} cannot cover {max}: use a larger voxel size"
        )));
    }
    Ok(n)
}

impl Grid {
    /// A grid with explicit origin, voxel size and dimensions.
    ///
    /// Errors when `voxel` is not positive and finite, the origin is not finite,
    /// or a dimension is 0 or above [`MAX_RES`].
    pub fn new(origin: Vec3, voxel: f32, dims: [u32; 3]) -> Result<Grid, VoxelError> {
        Grid::with_offset(origin, voxel, dims, 0)
    }

    /// The grid whose plane `n` is exactly `base + (n − offset)·voxel` on
    /// every axis: voxel `offset` starts at `base`, and voxel 0 at the
    /// `origin` this computes (rounded down; [`Grid::new`] is `offset` 0).
    /// A window or tiling of a padded grid keeps its `base` and `offset` (or
    /// copies the grid with other `dims`) to keep its planes.
    ///
    /// Errors as [`Grid::new`], and when `offset` is above [`MAX_RES`] or the
    /// corner of voxel 0 is not finite.
    ///
    /// ```
    /// use widephase::voxel::Grid;
    /// use widephase::Vec3;
    /// let g = Grid::with_offset(Vec3::splat(0.3), 0.1, [8, 8, 8], 2).unwrap();
    /// // plane 2 is exactly 0.3 (the f32 base), plane 0 encloses 0.3 − 2·0.1
    /// assert_eq!(g.plane(0, 2), (0.3, 0.3));
    /// assert_eq!(g.origin.x, g.plane(0, 0).0);
    /// ```
    pub fn with_offset(
        base: Vec3,
        voxel: f32,
        dims: [u32; 3],
        offset: u32,
    ) -> Result<Grid, VoxelError> {
        if !(voxel.is_finite() && voxel > 0.0) {
            return Err(VoxelError::Grid(format!(
                "voxel size {voxel} must be positive and finite"
            )));
        }
        if !(base.x.is_finite() && base.y.is_finite() && base.z.is_finite()) {
            return Err(VoxelError::Grid(format!(
                "origin ({}, {}, {}) is not finite",
                base.x, base.y, base.z
            )));
        }
        if offset > MAX_RES {
            return Err(VoxelError::Grid(format!(
                "index offset {offset} is out of range 0..={MAX_RES}"
            )));
        }
        for (a, &d) in dims.iter().enumerate() {
            if d == 0 || d > MAX_RES {
                return Err(VoxelError::Grid(format!(
                    "dimension {d} along {} is out of range 1..={MAX_RES}",
                    ["x", "y", "z"][a]
                )));
            }
        }
        let corner = |a: usize| plane_bounds(base.get(a), voxel, -(offset as i64)).0;
        let origin = Vec3::new(corner(0), corner(1), corner(2));
        if !(origin.x.is_finite() && origin.y.is_finite() && origin.z.is_finite()) {
            return Err(VoxelError::Grid(format!(
                "the corner of voxel 0, ({}, {}, {}) - {offset}·{voxel}, is not finite",
                base.x, base.y, base.z
            )));
        }
        Ok(Grid { origin, voxel, dims, base, offset })
    }

    /// The default grid for a mesh with bounding box `[min, max]`: `res` voxels
    /// along the largest extent plus `pad` empty voxels on every side, a cube of
    /// `(res + 2·pad)³` voxels, base `min` and offset `pad` (voxel 0 starts at
    /// `min - pad·h`, reported rounded down as `origin`).
    ///
    /// `h` is the smallest f32 `≥ extent / res` such that `min + res·h ≥ max`
    /// holds **exactly** on every axis (so the mesh never sticks out of the
    /// grid by a rounding error); a mesh of zero extent (a point) gets
    /// `h = max(|min|, 1)·2^-20`. Neither `h` nor the planes depend on `pad`:
    /// the grid with padding `pad` is the unpadded grid with every index
    /// shifted by `pad`.
    pub fn fit(min: Vec3, max: Vec3, res: u32, pad: u32) -> Result<Grid, VoxelError> {
        if res == 0 || res > MAX_RES {
            return Err(VoxelError::Grid(format!(
                "resolution {res} is out of range 1..={MAX_RES}"
            )));
        }
        let n = res as u64 + 2 * pad as u64;
        if n > MAX_RES as u64 {
            return Err(VoxelError::Grid(format!(
                "resolution {res} plus padding 2×{pad} exceeds {MAX_RES}"
            )));
        }
        let ext = (max - min).max_element();
        if !ext.is_finite() {
            return Err(VoxelError::Grid("mesh bounding box is not finite".into()));
        }
        let mut h = if ext > 0.0 {
            ext / res as f32
        } else {
            min.abs().max_element().max(1.0) * (1.0 / 1_048_576.0)
        };
        // h grows by ulps until the far plane `min + res·h` covers `max` on
        // every axis (exactly: `lo` of a plane is a lower bound of it);
        // padding plays no part (it only shifts indices)
        for _ in 0..64 {
            if (0..3).all(|a| plane_bounds(min.get(a), h, res as i64).0 >= max.get(a)) {
                break;
            }
            h = h.next_up();
        }
        Grid::with_offset(min, h, [n as u32; 3], pad)
    }

    /// The grid of voxel size `h` fitted to a mesh with bounding box
    /// `[min, max]`: base `min` and offset `pad` (as in [`Grid::fit`]: the
    /// unpadded grid's planes, indices shifted by `pad`), and per axis
    /// `max(1, ⌈extent / h⌉) + 2·pad` voxels — not a cube.
    ///
    /// As in [`Grid::fit`], the far plane of the last non-padding voxel covers
    /// `max` **exactly** on every axis (one more voxel is added where the
    /// rounded quotient falls short), so every triangle, including one on the
    /// bounding box's max face, lies in the grid. Errors when `h` is not
    /// positive and finite or an axis would need more than [`MAX_RES`] voxels.
    ///
    /// ```
    /// use widephase::voxel::Grid;
    /// use widephase::Vec3;
    /// let g = Grid::fit_voxel(Vec3::ZERO, Vec3::new(1.0, 0.5, 0.0), 0.25, 1).unwrap();
    /// assert_eq!(g.dims, [6, 4, 3]);
    /// assert_eq!(g.origin, Vec3::splat(-0.25));
    /// assert_eq!((g.base, g.offset), (Vec3::ZERO, 1));
    /// ```
    pub fn fit_voxel(min: Vec3, max: Vec3, h: f32, pad: u32) -> Result<Grid, VoxelError> {
        Self::check_voxel(h)?;
        if 2 * pad as u64 >= MAX_RES as u64 {
            return Err(VoxelError::Grid(format!("padding 2×{pad} exceeds {MAX_RES} voxels")));
        }
        let mut dims = [0u32; 3];
        for (a, d) in dims.iter_mut().enumerate() {
            let inner = covering_count(min.get(a), h, min.get(a), max.get(a))?;
            *d = Self::check_count(a, inner as u64 + 2 * pad as u64)?;
        }
        Grid::with_offset(min, h, dims, pad)
    }

    /// The grid of voxel size `h` starting at `origin` with just enough voxels
    /// per axis for its far planes to cover `max` exactly (at least one voxel
    /// per axis; parts of a mesh below `origin` are outside the grid).
    pub fn covering(origin: Vec3, h: f32, max: Vec3) -> Result<Grid, VoxelError> {
        Self::check_voxel(h)?;
        let mut dims = [0u32; 3];
        for (a, d) in dims.iter_mut().enumerate() {
            let lo = origin.get(a).min(max.get(a));
            *d = Self::check_count(a, covering_count(origin.get(a), h, lo, max.get(a))? as u64)?;
        }
        Grid::new(origin, h, dims)
    }

    fn check_voxel(h: f32) -> Result<(), VoxelError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(VoxelError::Grid(format!("voxel size {h} must be positive and finite")));
        }
        Ok(())
    }

    fn check_count(axis: usize, n: u64) -> Result<u32, VoxelError> {
        if n > MAX_RES as u64 {
            return Err(VoxelError::Grid(format!(
                "{n} voxels along {} exceed {MAX_RES}; use a larger voxel size",
                ["x", "y", "z"][axis]
            )));
        }
        Ok(n as u32)
    }

    /// Total number of voxels.
    pub fn len(&self) -> u64 {
        self.dims.iter().map(|&d| d as u64).product()
    }

    /// Always false: a grid has at least one voxel.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Bounds `(lo, hi)` of the grid plane `base[axis] + (n − offset)·h`: the
    /// largest f32 `≤` and the smallest f32 `≥` the exact value.
    pub fn plane(&self, axis: usize, n: i64) -> (f32, f32) {
        plane_bounds(self.base.get(axis), self.voxel, n - self.offset as i64)
    }

    /// `base[axis] + (t − offset)·h` in f64, for `t` an integer (plane `t`)
    /// or an integer plus one half (the centre of voxel `t − 1/2`), `|t| <
    /// 2²⁰`: every f64 coordinate the voxelizer derives from an index.
    ///
    /// `t − offset` and its product with `h` are exact (multiples of 1/2
    /// below 2²¹ times a 24-bit `h`), so the one rounding is that of the sum,
    /// and the value depends on `t − offset` only: the padded grid's `t` and
    /// the unpadded grid's `t − pad` give the same f64, bit for bit (with
    /// `offset` 0 this is `base + t·h`).
    #[inline(always)]
    pub fn coord_f64(&self, axis: usize, t: f64) -> f64 {
        self.base.get(axis) as f64 + (t - self.offset as f64) * self.voxel as f64
    }

    /// The centre of voxel `i` along `axis` in f64: [`Grid::coord_f64`] of
    /// `i + 1/2`.
    #[inline(always)]
    pub fn centre_f64(&self, axis: usize, i: i64) -> f64 {
        self.coord_f64(axis, i as f64 + 0.5)
    }

    /// The f32 box that contains voxel `(i, j, k)`'s exact box (equal to it when
    /// its planes are f32 numbers).
    pub fn voxel_box(&self, v: [u32; 3]) -> Aabb {
        let mut mn = Vec3::ZERO;
        let mut mx = Vec3::ZERO;
        for (a, &va) in v.iter().enumerate() {
            mn.set(a, self.plane(a, va as i64).0);
            mx.set(a, self.plane(a, va as i64 + 1).1);
        }
        Aabb::new(mn, mx)
    }

    /// The plane tables of one axis: `lo[n]` for `n = 0..=dims`, and `hi[n]`,
    /// each followed by 16 NaN entries so a 16-lane load past the end yields
    /// NaN boxes, which every kernel answers "no contact" for.
    pub fn plane_table(&self, axis: usize) -> (Vec<f32>, Vec<f32>) {
        let d = self.dims[axis] as usize;
        let mut lo = Vec::with_capacity(d + 17);
        let mut hi = Vec::with_capacity(d + 17);
        for n in 0..=d {
            let (l, h) = self.plane(axis, n as i64);
            lo.push(l);
            hi.push(h);
        }
        lo.resize(d + 17, f32::NAN);
        hi.resize(d + 17, f32::NAN);
        (lo, hi)
    }

    /// Center of voxel `(i, j, k)` in f64: [`Grid::centre_f64`] per axis,
    /// `base + (i − offset + 1/2)·h` rounded once.
    pub fn center_f64(&self, v: [u32; 3]) -> [f64; 3] {
        [0, 1, 2].map(|a| self.centre_f64(a, v[a] as i64))
    }
}
