//! `pairs` and `bipartite_pairs`: the broad phase (box pruning) on `(N, 6)`
//! box arrays.

use crate::common::{rows, run};
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use widephase::broad;
use widephase::Aabb;

/// Most boxes in one call, as `widephase pairs` accepts from a file.
const MAX_BOXES: usize = 100_000_000;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pairs, m)?)?;
    m.add_function(wrap_pyfunction!(bipartite_pairs, m)?)?;
    Ok(())
}

/// `(N, 6)` rows `min.x, min.y, min.z, max.x, max.y, max.z` as boxes, without
/// copying (`Aabb` is six `f32` in that order). A NaN row is an error naming
/// it, as the command line reports it; infinite or inverted boxes are
/// accepted and, by the library's rule, never pair.
fn boxes<'a>(a: &'a PyReadonlyArray2<'_, f32>, what: &str) -> PyResult<&'a [Aabb]> {
    let flat = rows(a, 6, what)?;
    if flat.len() / 6 > MAX_BOXES {
        return Err(PyValueError::new_err(format!(
            "{what}: {} rows is more than the limit of {MAX_BOXES}",
            flat.len() / 6
        )));
    }
    if flat.iter().any(|x| x.is_nan()) {
        let at = flat.iter().position(|x| x.is_nan()).unwrap_or(0) / 6;
        return Err(PyValueError::new_err(format!("{what}: row {at} contains NaN")));
    }
    Ok(bytemuck::cast_slice(flat))
}

fn pairs_array<'py>(py: Python<'py>, p: Vec<(u32, u32)>) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let n = p.len();
    let flat: Vec<u32> = p.into_iter().flat_map(|(a, b)| [a, b]).collect();
    flat.into_pyarray(py).reshape([n, 2])
}

/// Every overlapping pair `(i, j)`, `i < j`, sorted: uint32 `(P, 2)`.
#[pyfunction]
#[pyo3(signature = (boxes, threads=None))]
fn pairs<'py>(
    py: Python<'py>,
    boxes: PyReadonlyArray2<'_, f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let b = self::boxes(&boxes, "boxes")?;
    let p = run(py, threads, || broad::self_pairs(b))?;
    pairs_array(py, p)
}

/// Every overlapping pair `(index in a, index in b)`, sorted: uint32 `(P, 2)`.
#[pyfunction]
#[pyo3(signature = (a, b, threads=None))]
fn bipartite_pairs<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'_, f32>,
    b: PyReadonlyArray2<'_, f32>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let (a, b) = (boxes(&a, "a")?, boxes(&b, "b")?);
    let p = run(py, threads, || broad::bipartite_pairs(a, b))?;
    pairs_array(py, p)
}
