//! `hep._hep`: hep-core for Python. Conversions and error mapping only; the protocol lives
//! in hep-core, the I/O in the pure-Python package `hep`.

mod args;
mod boundary;
mod bounds;
mod convert;
mod errors;
mod fields;
mod frame_model;
mod frames;
mod limits;
mod records;
mod result;
mod sanitize;
mod schema;
mod stream;
mod supervise;
mod tool_heads;
mod untrack;
mod writer;

use pyo3::prelude::*;

/// The extension's Rust allocations (frames' strings, encoded lines) come from mimalloc:
/// glibc's allocator spends a quarter of a stream's time on the many small, short-lived
/// strings a chunk's frames hold.
///
/// The crate's own unit tests keep the system allocator, so that valgrind (`make memcheck`)
/// sees their heap blocks: it cannot see inside mimalloc's pages.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _hep(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PROTOCOL_VERSION", hep_core::PROTOCOL_VERSION)?;
    errors::register(m)?;
    frame_model::register_records(m)?;
    frame_model::register_frames(m)?;
    m.add_class::<limits::PyLimits>()?;
    m.add_class::<stream::PyStream>()?;
    m.add_class::<result::PyRunResult>()?;
    m.add_class::<writer::PyWriter>()?;
    m.add_function(wrap_pyfunction!(stream::parse_line, m)?)?;
    m.add_function(wrap_pyfunction!(stream::encode, m)?)?;
    bounds::register(m)?;
    sanitize::register(m)?;
    schema::register(m)?;
    supervise::register(m)
}
