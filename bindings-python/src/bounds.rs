//! The protocol's bounds, from the core: UTF-16 caps and the two `args_summary` renderings.

use crate::args::{args_mode, args_of};
use crate::boundary::guard;
use pyo3::prelude::*;

/// `text` capped at `limit` UTF-16 units with the `…(+N chars)` suffix.
#[pyfunction]
fn cap(text: &str, limit: usize) -> PyResult<String> {
    guard(|| Ok(hep_core::bounds::cap(text, limit)))
}

/// Length of `text` in UTF-16 code units (the protocol's "characters").
#[pyfunction]
fn utf16_len(text: &str) -> PyResult<usize> {
    guard(|| Ok(hep_core::bounds::utf16_len(text)))
}

/// `args_summary` for `args` (a mapping, or the JSON text of an object), in mode `summary`
/// or `full`.
#[pyfunction]
fn render_args(args: &Bound<'_, PyAny>, mode: &str) -> PyResult<String> {
    guard(|| {
        let mode = args_mode(mode, "mode")?;
        Ok(hep_core::bounds::render_args(&args_of(args)?, mode))
    })
}

/// Adds the bounds functions and `TOOL_RESULT_CAP` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cap, m)?)?;
    m.add_function(wrap_pyfunction!(utf16_len, m)?)?;
    m.add_function(wrap_pyfunction!(render_args, m)?)?;
    m.add("TOOL_RESULT_CAP", hep_core::bounds::TOOL_RESULT_CAP)
}
