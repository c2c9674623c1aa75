//! `hep._hep.Stream` (the core stream), `parse_line` and `encode`.

use crate::boundary::guard;
use crate::convert::to_py_data;
use crate::errors::{check, to_py};
use crate::frame_model::{frame_from_py, frame_to_py};
use crate::limits::PyLimits;
use crate::result::PyRunResult;
use hep_core::lines::DEFAULT_MAX_LINE;
use hep_core::run::Limits;
use hep_core::{Error, Event, Stream, StreamOptions, Violation};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// Calls `with` on the bytes of `data`: borrowed for `bytes` and `str` (as UTF-8), copied
/// for any other buffer (`bytearray`, `memoryview`, ...).
pub(crate) fn with_bytes<T>(data: &Bound<'_, PyAny>, with: impl FnOnce(&[u8]) -> T) -> PyResult<T> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(with(bytes.as_bytes()));
    }
    if let Ok(text) = data.cast::<PyString>() {
        return Ok(with(text.to_cow()?.as_bytes()));
    }
    let copy = data.py().get_type::<PyBytes>().call1((data,))?;
    let copy = copy.cast::<PyBytes>()?;
    Ok(with(copy.as_bytes()))
}

/// One line (without its newline) to its frame; raises a `HepError` subclass.
#[pyfunction]
pub(crate) fn parse_line(py: Python<'_>, line: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    guard(|| {
        let (decoded, raw) = with_bytes(line, |bytes| {
            let bytes = match bytes.strip_suffix(b"\n") {
                Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
                None => bytes,
            };
            (hep_core::decode(bytes), String::from_utf8_lossy(bytes).into_owned())
        })?;
        frame_to_py(py, check(py, decoded)?, Some(raw), None)
    })
}

/// The exact line the reference emitter writes for `frame` (no newline).
#[pyfunction]
pub(crate) fn encode(py: Python<'_>, frame: &Bound<'_, PyAny>) -> PyResult<String> {
    guard(|| check(py, hep_core::encode(&frame_from_py(frame)?)))
}

/// The core stream: bytes in, frames out; violations and skipped lines kept (by the core,
/// up to its report cap).
#[pyclass(module = "hep._hep", name = "Stream")]
pub(crate) struct PyStream {
    stream: Option<Stream>,
    /// Once finished: the result's violations and skipped lines.
    finished: (Vec<Violation>, Vec<Error>),
    halted: Option<Error>,
}

impl PyStream {
    /// Hands `bytes` (or the end of input) to the core, turning each frame into its Python
    /// object as it comes; a halt is raised with the frames so far.
    fn run(&mut self, py: Python<'_>, bytes: Option<&[u8]>) -> PyResult<Py<PyList>> {
        let stream = self.stream.as_mut().ok_or_else(|| PyRuntimeError::new_err("the stream is finished"))?;
        let mut frames = Vec::new();
        let (mut failure, mut halt) = (None, None);
        let mut on_event = |event| match event {
            Event::Frame(r) if failure.is_none() => match frame_to_py(py, r.frame, Some(r.raw), Some(r.line)) {
                Ok(frame) => frames.push(frame),
                Err(e) => failure = Some(e),
            },
            Event::Halted(e) => halt = Some(e),
            Event::Frame(_) | Event::Violation(_) | Event::Skipped(_) => {}
        };
        match bytes {
            Some(bytes) => stream.feed_with(bytes, &mut on_event),
            None => stream.end_input().into_iter().for_each(&mut on_event),
        }
        if let Some(e) = failure {
            return Err(e);
        }
        // One list made at the end takes each frame's reference (no append, no growth).
        let frames = PyList::new(py, frames)?;
        if let Some(e) = halt {
            let err = to_py(py, &e);
            err.value(py).setattr("frames", &frames)?;
            self.halted = Some(e);
            return Err(err);
        }
        Ok(frames.unbind())
    }
}

#[pymethods]
impl PyStream {
    #[new]
    #[pyo3(signature = (*, strict = false, max_line_bytes = DEFAULT_MAX_LINE, limits = None))]
    fn new(strict: bool, max_line_bytes: usize, limits: Option<Bound<'_, PyLimits>>) -> PyResult<Self> {
        guard(|| {
            let limits = limits.map_or_else(Limits::default, |l| l.get().0);
            let options = StreamOptions { strict, max_line_length: max_line_bytes, limits };
            Ok(Self { stream: Some(Stream::new(options)), finished: (Vec::new(), Vec::new()), halted: None })
        })
    }

    /// Feeds bytes (or text); returns the frames they complete.
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyList>> {
        guard(|| with_bytes(data, |bytes| self.run(py, Some(bytes)))?)
    }

    /// Marks the end of input; returns the frames that completes (none: a partial last
    /// line is reported as skipped).
    fn end_input(&mut self, py: Python<'_>) -> PyResult<Py<PyList>> {
        guard(|| self.run(py, None))
    }

    /// Ends the stream; returns the run result (see `hep.RunResult`).
    #[pyo3(signature = (exit_code = None))]
    fn finish(&mut self, exit_code: Option<i32>) -> PyResult<PyRunResult> {
        guard(|| {
            let stream = self.stream.take().ok_or_else(|| PyRuntimeError::new_err("the stream is finished"))?;
            let result = stream.finish(exit_code);
            self.finished = (result.violations.clone(), result.skipped.clone());
            Ok(PyRunResult(result))
        })
    }

    /// The violations found so far (the first 1000), as plain data.
    fn violations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| to_py_data(py, &self.stream.as_ref().map_or(self.finished.0.as_slice(), Stream::violations)))
    }

    /// The lines skipped so far (the first 1000), as `HepError` instances.
    fn skipped(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        guard(|| {
            let list = PyList::empty(py);
            for e in self.stream.as_ref().map_or(self.finished.1.as_slice(), Stream::skipped) {
                list.append(to_py(py, e).value(py))?;
            }
            Ok(list.unbind())
        })
    }

    /// The error that halted the stream, if any.
    fn halted(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard(|| Ok(self.halted.as_ref().map(|e| to_py(py, e).value(py).clone().into_any().unbind())))
    }
}
