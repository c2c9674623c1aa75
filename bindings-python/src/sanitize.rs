//! Terminal sanitising, from the core: text made safe to print.

use crate::boundary::guard;
use pyo3::prelude::*;

/// `text` with terminal-driving characters turned into visible escapes.
#[pyfunction]
fn sanitize(text: &str) -> PyResult<String> {
    guard(|| Ok(hep_core::sanitize::sanitize(text).into_owned()))
}

/// Adds `sanitize` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sanitize, m)?)
}
