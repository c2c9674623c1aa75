//! `hep.Writer`: the core's emitter state machine, each line it produces written to a text or
//! binary file (and flushed) or handed to a callable, in one call per line.

use crate::args::{args_mode, args_to_core};
use crate::boundary::guard;
use crate::errors::check;
use crate::fields::Field;
use crate::tool_heads::{Head, heads_of};
use hep_core::writer::{Emitter, ToolHead};
use hep_core::{LivenessAction, Result as CoreResult, Usage};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use pyo3::{PyTraverseError, PyVisit};

/// Where each line goes.
enum Sink {
    /// A text file: `write(str)`, then `flush()`.
    Text { write: Py<PyAny>, flush: Py<PyAny> },
    /// A binary file: `write(bytes)` (UTF-8), then `flush()`.
    Binary { write: Py<PyAny>, flush: Py<PyAny> },
    /// A callable given each line as `str`.
    Call(Py<PyAny>),
}

impl Sink {
    fn of(out: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = out.py();
        let text_file = py.import("io")?.getattr("TextIOBase")?;
        if out.hasattr("write")? {
            let (write, flush) = (out.getattr("write")?.unbind(), out.getattr("flush")?.unbind());
            return Ok(if out.is_instance(&text_file)? {
                Self::Text { write, flush }
            } else {
                Self::Binary { write, flush }
            });
        }
        if out.is_callable() {
            return Ok(Self::Call(out.clone().unbind()));
        }
        Err(PyTypeError::new_err("out must be a text or binary file, or a callable taking each line"))
    }

    /// Writes `line` and its `\n` in one call (flushing a file), and returns `line`. A line
    /// that is not ASCII is decoded from UTF-8 once, the sink getting that `str` plus `"\n"`;
    /// an ASCII line (which CPython makes by a plain copy) is made twice, which is cheaper
    /// than a concatenation.
    fn put(&self, py: Python<'_>, mut line: String) -> PyResult<Py<PyString>> {
        let returned = PyString::new(py, &line);
        let ascii = line.is_ascii();
        line.push('\n');
        let with_newline = || -> PyResult<Bound<'_, PyAny>> {
            if ascii {
                return Ok(PyString::new(py, &line).into_any());
            }
            returned.add(intern!(py, "\n"))
        };
        match self {
            Self::Call(call) => {
                call.call1(py, (with_newline()?,))?;
            }
            Self::Text { write, flush } => {
                write.call1(py, (with_newline()?,))?;
                flush.call0(py)?;
            }
            Self::Binary { write, flush } => {
                write.call1(py, (PyBytes::new(py, line.as_bytes()),))?;
                flush.call0(py)?;
            }
        }
        Ok(returned.unbind())
    }

    fn objects(&self) -> Vec<&Py<PyAny>> {
        match self {
            Self::Call(call) => vec![call],
            Self::Text { write, flush } | Self::Binary { write, flush } => vec![write, flush],
        }
    }
}

/// Writes byte-exact HEP lines to `out`: a text or binary file (each line flushed), or a
/// callable given each line, each with its `\n`. Every method returns the line it wrote,
/// without the `\n` (docs/api.md), or `None` when the protocol says the call writes nothing.
#[pyclass(module = "hep", name = "Writer")]
pub(crate) struct PyWriter {
    emitter: Emitter,
    sink: Option<Sink>,
}

/// What each method returns: the line written, or `None`.
type Written = PyResult<Option<Py<PyString>>>;

/// Writes the line an emitter call produced (if any), with its `\n`, to `sink`; returns it
/// without.
fn put(py: Python<'_>, sink: &Option<Sink>, line: CoreResult<Option<String>>) -> Written {
    let Some(line) = check(py, line)? else { return Ok(None) };
    let sink = sink.as_ref().ok_or_else(|| PyValueError::new_err("the writer's output was cleared"))?;
    sink.put(py, line).map(Some)
}

#[pymethods]
impl PyWriter {
    /// `tool_args`: `"summary"` (arguments rendered to `args_summary`) or `"full"`.
    #[new]
    #[pyo3(signature = (out, fah_version, tool_args = "summary"))]
    fn new(out: &Bound<'_, PyAny>, fah_version: String, tool_args: &str) -> PyResult<Self> {
        guard(|| {
            let mode = args_mode(tool_args, "tool_args")?;
            Ok(Self { emitter: Emitter::new(fah_version, mode), sink: Some(Sink::of(out)?) })
        })
    }

    /// The open turn's id, else the last allocated one (0 before any).
    #[getter]
    fn turn_id(&self) -> PyResult<u64> {
        guard(|| Ok(self.emitter.current_turn_id()))
    }

    /// `hep_header` (written once; later calls write nothing).
    fn header(&mut self, py: Python<'_>, session: &str) -> Written {
        guard(|| put(py, &self.sink, self.emitter.header(session)))
    }

    /// `agent_start` (only the first call writes); opens a turn.
    fn agent_start(&mut self, py: Python<'_>) -> Written {
        guard(|| put(py, &self.sink, self.emitter.agent_start()))
    }

    /// Opens a turn if none is open; writes nothing.
    fn turn_start(&mut self) -> PyResult<()> {
        guard(|| {
            self.emitter.turn_start();
            Ok(())
        })
    }

    /// `message_start`, written only for assistant messages (another role writes nothing and
    /// opens no turn).
    #[pyo3(signature = (role = "assistant"))]
    fn message_start(&mut self, py: Python<'_>, role: &str) -> Written {
        guard(|| put(py, &self.sink, self.emitter.message_start(role)))
    }

    /// `message_delta` with a chunk of assistant text.
    fn message_delta(&mut self, py: Python<'_>, text: &str) -> Written {
        guard(|| put(py, &self.sink, self.emitter.message_delta(text)))
    }

    /// `tool_start`; `args` (a mapping) keeps its key order in the summary; a value holding a
    /// float JSON cannot write is rendered `[unserializable]`.
    fn tool_start(&mut self, py: Python<'_>, id: &str, name: &str, args: &Bound<'_, PyAny>) -> Written {
        guard(|| {
            let args = args_to_core(args)?;
            put(py, &self.sink, self.emitter.tool_start(id, name, &args))
        })
    }

    /// `tool_delta`; an empty update writes nothing and opens no turn.
    fn tool_delta(&mut self, py: Python<'_>, id: &str, update: &str) -> Written {
        guard(|| put(py, &self.sink, self.emitter.tool_delta(id, update)))
    }

    /// `tool_liveness`: a heartbeat or a stuck-call follow-up.
    #[pyo3(signature = (id, name, action, elapsed_ms, output_bytes = None, detail = None))]
    #[allow(clippy::too_many_arguments)] // the frame's own fields, as Python passes them
    fn tool_liveness(
        &mut self,
        py: Python<'_>,
        id: &str,
        name: &str,
        action: &str,
        elapsed_ms: u64,
        output_bytes: Option<u64>,
        detail: Option<&str>,
    ) -> Written {
        guard(|| {
            let action = LivenessAction::parse(action).ok_or_else(|| {
                let known: Vec<&str> = LivenessAction::ALL.iter().map(|a| a.as_str()).collect();
                PyValueError::new_err(format!("action must be one of {}, not {action:?}", known.join(", ")))
            })?;
            put(py, &self.sink, self.emitter.liveness(id, name, action, elapsed_ms, output_bytes, detail))
        })
    }

    /// `turn_done` (tool result texts capped at 2000 UTF-16 units); closes the turn.
    /// `tool_results`: `hep.ToolResult`s or mappings; `usage`: a `hep.Usage` or a mapping.
    fn turn_done(
        &mut self,
        py: Python<'_>,
        message: &str,
        tool_results: &Bound<'_, PyAny>,
        usage: &Bound<'_, PyAny>,
        stop_reason: &str,
    ) -> Written {
        guard(|| {
            let results = heads_of(tool_results)?;
            let heads: Vec<ToolHead<'_>> = results.iter().map(Head::as_core).collect();
            let line = self.emitter.turn_done_heads(message, &heads, Usage::from_py(usage)?, stop_reason);
            put(py, &self.sink, line)
        })
    }

    /// `turn_error`; closes the turn.
    #[pyo3(signature = (error, fatal = true))]
    fn turn_error(&mut self, py: Python<'_>, error: &str, fatal: bool) -> Written {
        guard(|| put(py, &self.sink, self.emitter.turn_error(error, fatal)))
    }

    /// `cancelled`; closes the turn.
    fn cancelled(&mut self, py: Python<'_>) -> Written {
        guard(|| put(py, &self.sink, self.emitter.cancelled()))
    }

    /// `compaction_start`.
    fn compaction_start(&mut self, py: Python<'_>) -> Written {
        guard(|| put(py, &self.sink, self.emitter.compaction_start()))
    }

    /// `compaction_end`.
    fn compaction_end(&mut self, py: Python<'_>, tokens_freed: u64) -> Written {
        guard(|| put(py, &self.sink, self.emitter.compaction_end(tokens_freed)))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for object in self.sink.iter().flat_map(Sink::objects) {
            visit.call(object)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.sink = None;
    }
}
