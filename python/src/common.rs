//! What every binding shares: borrowing row arrays, the thread-count rule and
//! mapping the library's errors to Python exceptions.

use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use rayon::ThreadPool;
use std::cell::RefCell;
use std::sync::Arc;
use widephase::voxel::{MeshRef, VoxelError};

/// Most worker threads a call accepts (`threads=0` or `None`: the global
/// pool, one worker per core). A pool of more threads than this is almost
/// certainly a typo, and spawning it would take seconds.
pub const MAX_THREADS: usize = 1024;

/// The rows of a C-contiguous `(N, cols)` array as one flat slice (no copy).
pub fn rows<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray2<'_, T>,
    cols: usize,
    what: &str,
) -> PyResult<&'a [T]> {
    let shape = a.shape();
    if shape[1] != cols {
        return Err(PyValueError::new_err(format!(
            "{what}: expected an (N, {cols}) array, got shape ({}, {})",
            shape[0], shape[1]
        )));
    }
    // (`as_slice` also takes a Fortran-ordered array, whose bytes are
    // columns: its rows would be read scrambled)
    if !a.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "{what}: array is not C-contiguous and aligned"
        )));
    }
    a.as_slice().map_err(|_| {
        PyValueError::new_err(format!("{what}: array is not C-contiguous and aligned"))
    })
}

/// `a` as C-contiguous int32 `(N, cols)` rows, from any integer array (or
/// nested sequence) a user hands a method directly: the rule the Python
/// layer's `_rows` applies before the other calls (int32 borrowed as it is,
/// other integer dtypes converted once after a range check; an empty 1-D
/// array is zero rows). Anything else is an error naming it, not PyO3's
/// conversion message.
pub fn index_rows<'py>(
    a: &Bound<'py, PyAny>,
    cols: usize,
    what: &str,
) -> PyResult<PyReadonlyArray2<'py, i32>> {
    let np = a.py().import("numpy")?;
    let mut arr = np.call_method1("asarray", (a,))?;
    let shape_of = arr.getattr("shape")?;
    let shape: Vec<usize> = shape_of.extract()?;
    if shape.len() == 1 && shape[0] == 0 {
        arr = arr.call_method1("reshape", (0, cols))?;
    } else if shape.len() != 2 || shape[1] != cols {
        return Err(PyValueError::new_err(format!(
            "{what}: expected an (N, {cols}) array, got shape {shape_of}"
        )));
    }
    let dtype = arr.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected integer indices, got dtype {dtype}"
        )));
    }
    if arr.getattr("size")?.extract::<usize>()? > 0 {
        // (Python integers: any int64 or uint64 value compares exactly)
        let lo: i128 = arr.call_method0("min")?.extract()?;
        let hi: i128 = arr.call_method0("max")?.extract()?;
        for (bad, v) in [(lo < 0, lo), (hi > i32::MAX as i128, hi)] {
            if bad {
                let at: usize = np
                    .call_method1("argwhere", (arr.rich_compare(v, CompareOp::Eq)?,))?
                    .get_item((0, 0))?
                    .extract()?;
                return Err(PyValueError::new_err(if v < 0 {
                    format!("{what}: row {at} has a negative index {v}")
                } else {
                    format!("{what}: row {at} has index {v}, outside 0..=2147483647")
                }));
            }
        }
    }
    let arr = np.call_method1("ascontiguousarray", (arr, np.getattr("int32")?))?;
    Ok(arr.cast_into::<PyArray2<i32>>()?.readonly())
}

/// The mesh of `(N, 3)` vertex and face arrays, borrowed and validated
/// ([`MeshRef::from_slices`]: faces in range, referenced vertices finite).
pub fn mesh_ref<'a>(
    vertices: &'a PyReadonlyArray2<'_, f32>,
    faces: &'a PyReadonlyArray2<'_, i32>,
) -> PyResult<MeshRef<'a>> {
    let v = rows(vertices, 3, "vertices")?;
    let f = indices(rows(faces, 3, "faces")?, 3, "faces")?;
    MeshRef::from_slices(v, f).map_err(voxel_err)
}

/// `int32` indices as `u32` without copying; a negative entry is an error
/// naming its row (it would otherwise read as an index above 2³¹).
pub fn indices<'a>(a: &'a [i32], cols: usize, what: &str) -> PyResult<&'a [u32]> {
    if a.iter().fold(0i32, |m, &v| m.min(v)) < 0 {
        let at = a.iter().position(|&v| v < 0).unwrap_or(0);
        return Err(PyValueError::new_err(format!(
            "{what}: row {} has a negative index {}",
            at / cols,
            a[at]
        )));
    }
    Ok(bytemuck::cast_slice(a))
}

/// A library error as the Python exception of its kind, with the message
/// the command line prints.
pub fn voxel_err(e: VoxelError) -> PyErr {
    match e {
        VoxelError::Io(_) => PyOSError::new_err(e.to_string()),
        VoxelError::TooLarge(_) => PyMemoryError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

thread_local! {
    /// The thread pools of earlier calls from this thread, by size: building
    /// one spawns its threads (tens of microseconds each), so a loop calling
    /// with `threads=2` pays that once. Per calling thread, because a pool
    /// runs one `install` at a time: Python threads sharing one `threads=1`
    /// pool (a Dask worker with several threads, each voxelizing a tile) were
    /// serialized on it (two threads: 1.58 s for what one thread does in
    /// 1.62 s).
    static POOLS: RefCell<Vec<(usize, Arc<ThreadPool>)>> = const { RefCell::new(Vec::new()) };
}

/// The pool a call with `threads` runs on: `None` for the global pool
/// (`threads` None or 0), else a pool of exactly that many workers, kept for
/// the calling thread.
pub fn pool(threads: Option<usize>) -> PyResult<Option<Arc<ThreadPool>>> {
    let t = match threads {
        None | Some(0) => return Ok(None),
        Some(t) if t > MAX_THREADS => {
            return Err(PyValueError::new_err(format!(
                "threads={t} is out of range: must be 0 (all cores) to {MAX_THREADS}"
            )))
        }
        Some(t) => t,
    };
    if let Some(p) =
        POOLS.with_borrow(|pools| pools.iter().find(|(n, _)| *n == t).map(|(_, p)| p.clone()))
    {
        return Ok(Some(p));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(t)
        .build()
        .map_err(|e| PyOSError::new_err(format!("threads={t}: cannot start the pool: {e}")))?;
    let p = Arc::new(p);
    POOLS.with_borrow_mut(|pools| pools.push((t, p.clone())));
    Ok(Some(p))
}

/// Runs `f` with the interpreter released, on the pool `threads` selects.
pub fn run<R: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> PyResult<R> {
    let pool = pool(threads)?;
    Ok(py.detach(|| match pool {
        Some(p) => p.install(f),
        None => f(),
    }))
}
