//! `widephase._native`: the compiled half of the `widephase` Python package.
//!
//! The functions here take arrays the Python half (`widephase/__init__.py`)
//! has already normalized — C-contiguous `float32` rows and `int32`
//! indices, converted once when the caller passed other dtypes — and borrow
//! them without copying (rust-numpy's `PyReadonlyArray`). Every computation
//! runs with the interpreter released (`Python::detach`) on rayon threads, in
//! the global pool or in a pool of `threads` workers. Errors are Python
//! exceptions carrying the library's own messages; no input reaches a panic
//! (the Python tests feed every malformed shape, dtype and value).

mod broad;
mod common;
mod contact;
mod rays;
mod voxel;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MAX_THREADS", common::MAX_THREADS)?;
    voxel::register(m)?;
    rays::register(m)?;
    broad::register(m)?;
    contact::register(m)?;
    m.add_function(wrap_pyfunction!(_pool_key, m)?)?;
    Ok(())
}

/// The identity of the pool a call with `threads` would run on from the
/// calling thread (0 for the global pool): the tests check that each Python
/// thread gets a pool of its own, so concurrent calls are not serialized.
#[pyfunction]
fn _pool_key(threads: Option<usize>) -> PyResult<usize> {
    Ok(common::pool(threads)?.map_or(0, |p| std::sync::Arc::as_ptr(&p) as usize))
}
