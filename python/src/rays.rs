//! `RayScene`: closest-hit and any-hit ray casting against a triangle mesh
//! through the library's 8-wide BVH.

use crate::common::{mesh_ref, rows, run};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use widephase::bvh::{HitColumns, MeshBvh, Pinhole, RayColumns, RayRows, RaySource};
use widephase::Ray;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RayScene>()?;
    m.add_function(wrap_pyfunction!(pinhole_rays, m)?)?;
    Ok(())
}

/// Camera rays as a float32 `(height_px, width_px, 6)` array, with the
/// arguments and convention of Open3D's `create_rays_pinhole` (the library's
/// `Pinhole`, shared with `widephase raycast --camera`).
#[pyfunction]
fn pinhole_rays<'py>(
    py: Python<'py>,
    fov_deg: f64,
    center: [f64; 3],
    eye: [f64; 3],
    up: [f64; 3],
    width_px: usize,
    height_px: usize,
) -> PyResult<Bound<'py, PyArray3<f32>>> {
    let cam = Pinhole { fov_deg, center, eye, up, width: width_px, height: height_px };
    cam.validate().map_err(PyValueError::new_err)?;
    let flat: Vec<f32> = py.detach(|| {
        cam.rays()
            .iter()
            .flat_map(|r| [r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z])
            .collect()
    });
    flat.into_pyarray(py).reshape([height_px, width_px, 6])
}

/// A triangle mesh built once into a BVH, for casting many batches of rays.
#[pyclass(module = "widephase._native", frozen)]
pub struct RayScene {
    bvh: MeshBvh,
}

/// The rays of one call, borrowed as NumPy handed them over: `(N, 3)`
/// origins and directions, or one `(N, 6)` array of rows (Open3D's layout),
/// over `[t_min, t_max]`.
enum Rays<'a> {
    Columns(RayColumns<'a>),
    Rows(RayRows<'a>),
}

impl<'a> Rays<'a> {
    /// Checks the arrays (widths, equal row counts, `t_min` and `t_max` not
    /// NaN) and borrows them; without `directions`, `origins` holds the rows.
    fn borrow(
        origins: &'a PyReadonlyArray2<'_, f32>,
        directions: Option<&'a PyReadonlyArray2<'_, f32>>,
        t_min: f32,
        t_max: f32,
    ) -> PyResult<Self> {
        if t_min.is_nan() || t_max.is_nan() {
            return Err(PyValueError::new_err("t_min and t_max must not be NaN"));
        }
        let Some(directions) = directions else {
            let rows = bytemuck::cast_slice(rows(origins, 6, "rays")?);
            return Ok(Rays::Rows(RayRows { rows, t_min, t_max }));
        };
        let o = rows(origins, 3, "origins")?;
        let d = rows(directions, 3, "directions")?;
        if o.len() != d.len() {
            return Err(PyValueError::new_err(format!(
                "origins has {} rows but directions has {}",
                o.len() / 3,
                d.len() / 3
            )));
        }
        let (origins, directions) = (bytemuck::cast_slice(o), bytemuck::cast_slice(d));
        Ok(Rays::Columns(RayColumns { origins, directions, t_min, t_max }))
    }

    /// Closest hits into `out` on the caller's pool.
    fn closest_hits_into(&self, bvh: &MeshBvh, out: HitColumns<'_>) {
        match self {
            Rays::Columns(c) => bvh.closest_hits_into(c, out),
            Rays::Rows(r) => bvh.closest_hits_into(r, out),
        }
    }

    /// The rays as an array, built in parallel on the caller's pool (for the
    /// queries that trace in a sorted order). A ray with a non-finite origin
    /// or direction follows the library's NaN rule: it never hits.
    fn collect(&self) -> Vec<Ray> {
        fn all<R: RaySource>(r: &R) -> Vec<Ray> {
            (0..r.len()).into_par_iter().with_min_len(4096).map(|i| r.ray(i)).collect()
        }
        match self {
            Rays::Columns(c) => all(c),
            Rays::Rows(r) => all(r),
        }
    }

    fn len(&self) -> usize {
        match self {
            Rays::Columns(c) => c.len(),
            Rays::Rows(r) => r.len(),
        }
    }
}

#[pymethods]
impl RayScene {
    /// Builds the BVH over the mesh (validated like `voxelize`'s input).
    #[new]
    #[pyo3(signature = (vertices, faces, threads=None))]
    fn new(
        py: Python<'_>,
        vertices: PyReadonlyArray2<'_, f32>,
        faces: PyReadonlyArray2<'_, i32>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let mesh = mesh_ref(&vertices, &faces)?;
        Ok(RayScene { bvh: run(py, threads, || MeshBvh::from_mesh(mesh))? })
    }

    /// Number of triangles.
    #[getter]
    fn triangle_count(&self) -> usize {
        self.bvh.len()
    }

    /// Closest hits: `(t_hit float32 (N,), triangle_id int32 (N,),
    /// uv float32 (N, 2) or None)`, with `inf`, `-1` and `(0, 0)` for a
    /// miss; `uv` only when asked for. Without `directions`, `origins` is
    /// one `(N, 6)` array of rays, read in place.
    #[pyo3(signature = (origins, directions=None, t_min=0.0, t_max=f32::INFINITY, threads=None, uv=true))]
    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn cast<'py>(
        &self,
        py: Python<'py>,
        origins: PyReadonlyArray2<'_, f32>,
        directions: Option<PyReadonlyArray2<'_, f32>>,
        t_min: f32,
        t_max: f32,
        threads: Option<usize>,
        uv: bool,
    ) -> PyResult<(
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<i32>>,
        Option<Bound<'py, PyArray2<f32>>>,
    )> {
        let rays = Rays::borrow(&origins, directions.as_ref(), t_min, t_max)?;
        let n = rays.len();
        // NumPy's own (huge-page advised) buffers, written once in place
        let t = PyArray1::<f32>::zeros(py, n, false);
        let id = PyArray1::<i32>::zeros(py, n, false);
        let uv = uv.then(|| PyArray2::<f32>::zeros(py, [n, 2], false));
        {
            let (mut tw, mut iw) = (t.readwrite(), id.readwrite());
            let mut uw = uv.as_ref().map(|uv| uv.readwrite());
            let uv_out = match uw.as_mut() {
                Some(uw) => Some(bytemuck::cast_slice_mut(uw.as_slice_mut()?)),
                None => None,
            };
            let out = HitColumns { t: tw.as_slice_mut()?, id: iw.as_slice_mut()?, uv: uv_out };
            run(py, threads, || rays.closest_hits_into(&self.bvh, out))?;
        }
        Ok((t, id, uv))
    }

    /// Any hit within `[t_min, t_max]`: bool `(N,)` (shadow rays).
    #[pyo3(signature = (origins, directions=None, t_min=0.0, t_max=f32::INFINITY, threads=None))]
    fn occluded<'py>(
        &self,
        py: Python<'py>,
        origins: PyReadonlyArray2<'_, f32>,
        directions: Option<PyReadonlyArray2<'_, f32>>,
        t_min: f32,
        t_max: f32,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let rays = Rays::borrow(&origins, directions.as_ref(), t_min, t_max)?;
        let hit = run(py, threads, || self.bvh.any_hits(&rays.collect()))?;
        Ok(hit.into_pyarray(py))
    }

    /// Number of rays that hit (no per-ray output: the benchmark path).
    #[pyo3(signature = (origins, directions=None, t_min=0.0, t_max=f32::INFINITY, threads=None))]
    fn count_hits(
        &self,
        py: Python<'_>,
        origins: PyReadonlyArray2<'_, f32>,
        directions: Option<PyReadonlyArray2<'_, f32>>,
        t_min: f32,
        t_max: f32,
        threads: Option<usize>,
    ) -> PyResult<usize> {
        let rays = Rays::borrow(&origins, directions.as_ref(), t_min, t_max)?;
        run(py, threads, || self.bvh.count_hits(&rays.collect()))
    }
}
