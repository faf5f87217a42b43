//! `contacts`: contact manifolds for a frame's pairs of spheres, capsules,
//! boxes and triangles given as row arrays (the library's `contacts()`
//! pipeline: bucketed by pair type, 16 pairs per SIMD pack, rayon).

use crate::common::{indices, rows, run};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use widephase::contact::{self, Collider, MAX_CONTACTS};
use widephase::{Capsule, Obb, Sphere, Triangle};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(contacts, m)?)?;
    m.add("MAX_CONTACTS", MAX_CONTACTS)?;
    Ok(())
}

/// The manifolds as arrays: normal `(P, 3)`, count `(P,)`, position
/// `(P, 4, 3)`, depth `(P, 4)`, feature id `(P, 4)`.
type ManifoldArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray3<f32>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<u32>>,
);

/// Manifolds for `pairs` (rows of two indices into the colliders listed in
/// the order spheres, capsules, boxes, triangles). Rows: spheres `cx cy cz
/// r`; capsules `ax ay az bx by bz r`; boxes `cx cy cz`, the three unit
/// axes (9 values, axis after axis), `hx hy hz`; triangles `ax … cz`.
#[pyfunction]
#[pyo3(signature = (spheres, capsules, boxes, triangles, pairs, margin=0.0, threads=None))]
#[allow(clippy::too_many_arguments)]
fn contacts<'py>(
    py: Python<'py>,
    spheres: PyReadonlyArray2<'_, f32>,
    capsules: PyReadonlyArray2<'_, f32>,
    boxes: PyReadonlyArray2<'_, f32>,
    triangles: PyReadonlyArray2<'_, f32>,
    pairs: PyReadonlyArray2<'_, i32>,
    margin: f32,
    threads: Option<usize>,
) -> PyResult<ManifoldArrays<'py>> {
    if !margin.is_finite() || margin < 0.0 {
        return Err(PyValueError::new_err(format!("margin={margin} must be finite and >= 0")));
    }
    let s: &[Sphere] = bytemuck::cast_slice(rows(&spheres, 4, "spheres")?);
    let c: &[Capsule] = bytemuck::cast_slice(rows(&capsules, 7, "capsules")?);
    let b: &[Obb] = bytemuck::cast_slice(rows(&boxes, 15, "boxes")?);
    let t: &[Triangle] = bytemuck::cast_slice(rows(&triangles, 9, "triangles")?);
    let colliders: Vec<Collider> = s
        .iter()
        .map(|&x| Collider::Sphere(x))
        .chain(c.iter().map(|&x| Collider::Capsule(x)))
        .chain(b.iter().map(|&x| Collider::Box(x)))
        .chain(t.iter().map(|&x| Collider::Triangle(x)))
        .collect();
    let p = indices(rows(&pairs, 2, "pairs")?, 2, "pairs")?;
    let n = colliders.len();
    if let Some(at) = p.iter().position(|&i| i as usize >= n) {
        return Err(PyValueError::new_err(format!(
            "pairs: row {} references collider {}, but there are only {n} colliders",
            at / 2,
            p[at]
        )));
    }
    let pairs: Vec<(u32, u32)> = p.chunks_exact(2).map(|r| (r[0], r[1])).collect();
    let out = run(py, threads, || contact::contacts(&colliders, &pairs, margin))?;
    let m = out.len();
    let mut normal = Vec::with_capacity(3 * m);
    let mut count = Vec::with_capacity(m);
    let mut position = Vec::with_capacity(3 * MAX_CONTACTS * m);
    let mut depth = Vec::with_capacity(MAX_CONTACTS * m);
    let mut feature = Vec::with_capacity(MAX_CONTACTS * m);
    for mf in &out {
        normal.extend_from_slice(&mf.normal.to_array());
        count.push(mf.count as i32);
        for p in &mf.points {
            position.extend_from_slice(&p.position.to_array());
            depth.push(p.depth);
            feature.push(p.feature_id as u32);
        }
    }
    Ok((
        normal.into_pyarray(py).reshape([m, 3])?,
        count.into_pyarray(py),
        position.into_pyarray(py).reshape([m, MAX_CONTACTS, 3])?,
        depth.into_pyarray(py).reshape([m, MAX_CONTACTS])?,
        feature.into_pyarray(py).reshape([m, MAX_CONTACTS])?,
    ))
}
