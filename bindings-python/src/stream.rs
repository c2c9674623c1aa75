//! `hep._hep.Stream` (the core stream), `parse_line` and `encode`.

use crate::convert::to_py_data;
use crate::errors::{check, to_py};
use crate::frames::{frame_from_py, frame_to_py};
use hep_core::lines::DEFAULT_MAX_LINE;
use hep_core::{Error, Event, Stream, StreamOptions, Violation};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// Bytes from `bytes`, `bytearray`, `memoryview` or `str` (encoded as UTF-8).
fn bytes_of(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(text) = data.cast::<PyString>() {
        return Ok(text.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    data.extract::<Vec<u8>>()
}

/// One line (without its newline) to its frame; raises a `HepError` subclass.
#[pyfunction]
pub(crate) fn parse_line(py: Python<'_>, line: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let bytes = bytes_of(line)?;
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let frame = check(py, hep_core::decode(bytes))?;
    frame_to_py(py, frame, Some(String::from_utf8_lossy(bytes).into_owned()), None)
}

/// The exact line the reference emitter writes for `frame` (no newline).
#[pyfunction]
pub(crate) fn encode(py: Python<'_>, frame: &Bound<'_, PyAny>) -> PyResult<String> {
    check(py, hep_core::encode(&frame_from_py(frame)?))
}

/// The core stream: bytes in, frames out; violations and skipped lines kept.
#[pyclass(module = "hep._hep", name = "Stream")]
pub(crate) struct PyStream {
    stream: Option<Stream>,
    violations: Vec<Violation>,
    skipped: Vec<Error>,
    halted: Option<Error>,
}

impl PyStream {
    fn stream(&mut self) -> PyResult<&mut Stream> {
        self.stream.as_mut().ok_or_else(|| PyRuntimeError::new_err("the stream is finished"))
    }

    /// Turns events into frames, keeping the rest; a halt is raised with the frames so far.
    fn deliver(&mut self, py: Python<'_>, events: Vec<Event>) -> PyResult<Py<PyList>> {
        let frames = PyList::empty(py);
        for event in events {
            match event {
                Event::Frame(r) => frames.append(frame_to_py(py, r.frame, Some(r.raw), Some(r.line))?)?,
                Event::Violation(v) => self.violations.push(v),
                Event::Skipped(e) => self.skipped.push(e),
                Event::Halted(e) => {
                    let err = to_py(py, &e);
                    err.value(py).setattr("frames", &frames)?;
                    self.halted = Some(e);
                    return Err(err);
                }
            }
        }
        Ok(frames.unbind())
    }
}

#[pymethods]
impl PyStream {
    #[new]
    #[pyo3(signature = (*, strict = false, max_line_bytes = DEFAULT_MAX_LINE))]
    fn new(strict: bool, max_line_bytes: usize) -> Self {
        let options = StreamOptions { strict, max_line_length: max_line_bytes, ..StreamOptions::default() };
        Self { stream: Some(Stream::new(options)), violations: Vec::new(), skipped: Vec::new(), halted: None }
    }

    /// Feeds bytes (or text); returns the frames they complete.
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyList>> {
        let bytes = bytes_of(data)?;
        let events = self.stream()?.feed(&bytes);
        self.deliver(py, events)
    }

    /// Marks the end of input; returns the frames that completes (none: a partial last
    /// line is reported as skipped).
    fn end_input(&mut self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let events = self.stream()?.end_input();
        self.deliver(py, events)
    }

    /// Ends the stream; returns the run result as plain data (see `hep.RunResult`).
    #[pyo3(signature = (exit_code = None))]
    fn finish(&mut self, py: Python<'_>, exit_code: Option<i32>) -> PyResult<Py<PyAny>> {
        let stream = self.stream.take().ok_or_else(|| PyRuntimeError::new_err("the stream is finished"))?;
        let result = stream.finish(exit_code);
        self.violations.clone_from(&result.violations);
        self.skipped.clone_from(&result.skipped);
        to_py_data(py, &result)
    }

    /// The violations found so far, as plain data.
    fn violations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py_data(py, &self.violations)
    }

    /// The lines skipped so far, as `HepError` instances.
    fn skipped(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let list = PyList::empty(py);
        for e in &self.skipped {
            list.append(to_py(py, e).value(py))?;
        }
        Ok(list.unbind())
    }

    /// The error that halted the stream, if any.
    fn halted(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.halted.as_ref().map(|e| to_py(py, e).value(py).clone().into_any().unbind())
    }
}
