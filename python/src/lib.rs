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
    Ok(())
}
