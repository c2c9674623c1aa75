//! The JSON Schema of the frames, from the core (the same as `hep schema`).

use crate::boundary::guard;
use pyo3::prelude::*;

/// The JSON Schema of the frames.
#[pyfunction]
fn json_schema() -> PyResult<String> {
    guard(|| Ok(hep_core::schema::json_schema()))
}

/// Adds `json_schema` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(json_schema, m)?)
}
