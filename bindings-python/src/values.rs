//! `Usage` and `ToolResult`, the two records inside `turn_done`.

use crate::fields::{Field, take};
use crate::guard::guard;
use hep_core::{ToolResult, Usage};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// `turn_done.usage`: token counts and cost.
#[pyclass(frozen, module = "hep", name = "Usage")]
pub(crate) struct PyUsage(pub(crate) Usage);

#[pymethods]
impl PyUsage {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        guard(|| {
            crate::frames::refuse_unknown(kwargs, "Usage", &["input", "output", "cost"])?;
            usage_from(kwargs).map(Self)
        })
    }
    #[classattr]
    fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(py, ["input", "output", "cost"])?.unbind())
    }
    #[getter]
    fn input(&self) -> u64 {
        self.0.input
    }
    #[getter]
    fn output(&self) -> u64 {
        self.0.output
    }
    #[getter]
    fn cost(&self) -> f64 {
        self.0.cost
    }
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            let dict = PyDict::new(py);
            dict.set_item("input", self.0.input)?;
            dict.set_item("output", self.0.output)?;
            dict.set_item("cost", self.0.cost)?;
            Ok(dict)
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard(|| {
            let fields = [
                ("input", self.0.input.to_py(py)?),
                ("output", self.0.output.to_py(py)?),
                ("cost", self.0.cost.to_py(py)?),
            ];
            repr_of(py, "Usage", &fields)
        })
    }
}

/// One entry of `turn_done.tool_results`.
#[pyclass(frozen, module = "hep", name = "ToolResult")]
pub(crate) struct PyToolResult(pub(crate) ToolResult);

#[pymethods]
impl PyToolResult {
    #[new]
    #[pyo3(signature = (*, id, name, ok, text))]
    fn new(id: String, name: String, ok: bool, text: String) -> PyResult<Self> {
        guard(|| Ok(Self(ToolResult { id, name, ok, text })))
    }
    #[classattr]
    fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(py, ["id", "name", "ok", "text"])?.unbind())
    }
    #[getter]
    fn id(&self) -> &str {
        &self.0.id
    }
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }
    #[getter]
    fn ok(&self) -> bool {
        self.0.ok
    }
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            let dict = PyDict::new(py);
            dict.set_item("id", &self.0.id)?;
            dict.set_item("name", &self.0.name)?;
            dict.set_item("ok", self.0.ok)?;
            dict.set_item("text", &self.0.text)?;
            Ok(dict)
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard(|| {
            let r = &self.0;
            let fields = [
                ("id", r.id.to_py(py)?),
                ("name", r.name.to_py(py)?),
                ("ok", r.ok.to_py(py)?),
                ("text", r.text.to_py(py)?),
            ];
            repr_of(py, "ToolResult", &fields)
        })
    }
}

/// `Name(field=repr, ...)`, with Python's `repr` of each value.
pub(crate) fn repr_of(py: Python<'_>, name: &str, fields: &[(&str, Py<PyAny>)]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for (field, value) in fields {
        parts.push(format!("{field}={}", value.bind(py).repr()?));
    }
    Ok(format!("{name}({})", parts.join(", ")))
}

/// A `Usage` from keyword arguments or a dict.
pub(crate) fn usage_from(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Usage> {
    Ok(Usage { input: take(kwargs, "input")?, output: take(kwargs, "output")?, cost: take(kwargs, "cost")? })
}
