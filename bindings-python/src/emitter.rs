//! `hep._hep.Emitter`: the core's sans-IO writer state machine; each call returns the line
//! it produced, or `None`.

use crate::errors::check;
use crate::fields::Field;
use hep_core::writer::{Emitter, ToolOutcome};
use hep_core::{ArgsMode, LivenessAction, ToolResult, Usage, parse_args};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The emitter state machine.
#[pyclass(module = "hep._hep", name = "Emitter")]
pub(crate) struct PyEmitter(Emitter);

type Line = PyResult<Option<String>>;

#[pymethods]
impl PyEmitter {
    #[new]
    #[pyo3(signature = (tool_args = "summary"))]
    fn new(tool_args: &str) -> PyResult<Self> {
        let mode = match tool_args {
            "summary" => ArgsMode::Summary,
            "full" => ArgsMode::Full,
            other => {
                return Err(PyValueError::new_err(format!("tool_args must be 'summary' or 'full', not {other:?}")));
            }
        };
        Ok(Self(Emitter::new(mode)))
    }

    /// The open turn's id, else the last allocated one (0 before any).
    #[getter]
    fn turn_id(&self) -> u64 {
        self.0.current_turn_id()
    }

    fn header(&mut self, py: Python<'_>, fah: &str, session: &str) -> Line {
        check(py, self.0.header(fah, session))
    }

    fn agent_start(&mut self, py: Python<'_>) -> Line {
        check(py, self.0.agent_start())
    }

    fn turn_start(&mut self) {
        self.0.turn_start();
    }

    #[pyo3(signature = (role = "assistant"))]
    fn message_start(&mut self, py: Python<'_>, role: &str) -> Line {
        check(py, self.0.message_start(role))
    }

    fn message_delta(&mut self, py: Python<'_>, delta: &str) -> Line {
        check(py, self.0.message_delta(delta))
    }

    /// `args_json` is the JSON text of the argument object (its key order is kept).
    fn tool_start(&mut self, py: Python<'_>, id: &str, name: &str, args_json: &str) -> Line {
        let args = check(py, parse_args(args_json))?;
        check(py, self.0.tool_start(id, name, &args))
    }

    fn tool_delta(&mut self, py: Python<'_>, id: &str, update: &str) -> Line {
        check(py, self.0.tool_delta(id, update))
    }

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
    ) -> Line {
        let action = LivenessAction::parse(action).ok_or_else(|| {
            PyValueError::new_err(format!(
                "action must be heartbeat, cancel_retry, background_convert, escalate or advisory, not {action:?}"
            ))
        })?;
        check(py, self.0.liveness(id, name, action, elapsed_ms, output_bytes, detail))
    }

    /// `tool_results`: `hep.ToolResult`s or dicts; `usage`: a `hep.Usage` or a dict.
    fn turn_done(
        &mut self,
        py: Python<'_>,
        message: &str,
        tool_results: &Bound<'_, PyAny>,
        usage: &Bound<'_, PyAny>,
        stop_reason: &str,
    ) -> Line {
        let results = Vec::<ToolResult>::from_py(tool_results)?;
        let outcomes: Vec<ToolOutcome<'_>> =
            results.iter().map(|r| ToolOutcome { id: &r.id, name: &r.name, ok: r.ok, text: &r.text }).collect();
        check(py, self.0.turn_done(message, &outcomes, Usage::from_py(usage)?, stop_reason))
    }

    #[pyo3(signature = (error, fatal = true))]
    fn turn_error(&mut self, py: Python<'_>, error: &str, fatal: bool) -> Line {
        check(py, self.0.turn_error(error, fatal))
    }

    fn cancelled(&mut self, py: Python<'_>) -> Line {
        check(py, self.0.cancelled())
    }

    fn compaction_start(&mut self, py: Python<'_>) -> Line {
        check(py, self.0.compaction_start())
    }

    fn compaction_end(&mut self, py: Python<'_>, tokens_freed: u64) -> Line {
        check(py, self.0.compaction_end(tokens_freed))
    }
}
