//! `hep._hep`: hep-core for Python. Conversions and error mapping only; the protocol lives
//! in hep-core, the I/O in the pure-Python package `hep`.

mod convert;
mod emitter;
mod errors;
mod fields;
mod frames;
mod result;
mod stream;
mod support;
mod values;

use pyo3::prelude::*;

#[pymodule]
fn _hep(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    frames::register(m)?;
    m.add_class::<values::PyUsage>()?;
    m.add_class::<values::PyToolResult>()?;
    m.add_class::<stream::PyStream>()?;
    m.add_class::<result::PyRunResult>()?;
    m.add_class::<emitter::PyEmitter>()?;
    m.add_function(wrap_pyfunction!(stream::parse_line, m)?)?;
    m.add_function(wrap_pyfunction!(stream::encode, m)?)?;
    support::register(m)
}
