//! What the Python package takes from the core besides its types: bounds, the supervision
//! constants, terminal sanitising, the schema and the versions.

use crate::guard::guard;
use hep_core::supervise;
use pyo3::prelude::*;

/// `text` with terminal-driving characters turned into visible escapes.
#[pyfunction]
fn sanitize(text: &str) -> PyResult<String> {
    guard(|| Ok(hep_core::sanitize::sanitize(text).into_owned()))
}

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
        let mode = crate::args::args_mode(mode, "mode")?;
        Ok(hep_core::bounds::render_args(&crate::args::args_of(args)?, mode))
    })
}

/// The JSON Schema of the frames.
#[pyfunction]
fn json_schema() -> PyResult<String> {
    guard(|| Ok(hep_core::schema::json_schema()))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sanitize, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(cap, m)?)?;
    m.add_function(wrap_pyfunction!(utf16_len, m)?)?;
    m.add_function(wrap_pyfunction!(render_args, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PROTOCOL_VERSION", hep_core::PROTOCOL_VERSION)?;
    m.add("INTERRUPT_GRACE", supervise::INTERRUPT_GRACE.as_secs_f64())?;
    m.add("TERMINATE_GRACE", supervise::TERMINATE_GRACE.as_secs_f64())?;
    m.add("STDERR_TAIL_BYTES", supervise::STDERR_TAIL_BYTES)?;
    m.add("EXIT_OK", supervise::EXIT_OK)?;
    m.add("EXIT_FAILED", supervise::EXIT_FAILED)?;
    m.add("EXIT_CANCELLED", supervise::EXIT_CANCELLED)?;
    m.add("TOOL_RESULT_CAP", hep_core::bounds::TOOL_RESULT_CAP)?;
    Ok(())
}
