//! `hep._hep.RunResult`: the core result, converted to Python only where it is read.

use crate::boundary::guard;
use crate::convert::to_py_data;
use crate::fields::Field;
use hep_core::RunResult;
use pyo3::prelude::*;

/// The end of a run: cheap fields as attributes, the bulky ones as plain data on demand.
#[pyclass(frozen, module = "hep._hep", name = "RunResult")]
pub(crate) struct PyRunResult(pub(crate) RunResult);

#[pymethods]
impl PyRunResult {
    #[getter]
    fn verdict(&self) -> &'static str {
        self.0.verdict.as_str()
    }
    #[getter]
    fn reasons(&self) -> Vec<String> {
        self.0.reasons.clone()
    }
    #[getter]
    fn exit_code(&self) -> Option<i32> {
        self.0.exit_code
    }
    #[getter]
    fn conforms(&self) -> bool {
        self.0.conforms
    }
    #[getter]
    fn answer(&self) -> Option<&str> {
        self.0.run.answer.as_deref()
    }
    #[getter]
    fn usage(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| self.0.run.usage.to_py(py))
    }
    #[getter]
    fn turns_dropped(&self) -> u64 {
        self.0.run.turns_dropped
    }
    #[getter]
    fn violation_count(&self) -> u64 {
        self.0.violation_count
    }
    #[getter]
    fn skipped_count(&self) -> u64 {
        self.0.skipped_count
    }
    #[getter]
    fn untracked_calls(&self) -> u64 {
        self.0.untracked_calls
    }
    #[getter]
    fn frames(&self) -> u64 {
        self.0.run.frames
    }
    #[getter]
    fn lines(&self) -> u64 {
        self.0.lines
    }
    #[getter]
    fn session(&self) -> Option<&str> {
        self.0.run.header.as_ref().map(|h| h.session.as_str())
    }
    #[getter]
    fn fah(&self) -> Option<&str> {
        self.0.run.header.as_ref().map(|h| h.fah.as_str())
    }
    #[getter]
    fn last_terminal(&self) -> Option<&'static str> {
        self.0.run.last_terminal.map(|(t, _)| t.as_str())
    }
    #[getter]
    fn compactions(&self) -> u64 {
        self.0.run.compactions
    }
    #[getter]
    fn tokens_freed(&self) -> u64 {
        self.0.run.tokens_freed
    }
    /// The kept turns, as plain data.
    fn turns(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| to_py_data(py, &self.0.run.turns))
    }
    /// The kept violations, as plain data.
    fn violations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| to_py_data(py, &self.0.violations))
    }
    /// The kept skipped lines, as plain data.
    fn skipped(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| to_py_data(py, &self.0.skipped))
    }
    /// The halting error, as plain data (or `None`).
    fn halted(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| to_py_data(py, &self.0.halted))
    }
    /// How a supervisor ran it (`hep.Supervisor`), as plain data; `None` for a stream read
    /// without one.
    fn supervision(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| to_py_data(py, &self.0.supervision))
    }
    /// The whole result as plain data, as `hep watch --json` prints it.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| to_py_data(py, &self.0))
    }
}
