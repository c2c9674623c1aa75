//! `hep.Limits`: the core's retention caps ([`Limits`]), given to a stream as `limits=`.

use crate::boundary::guard;
use crate::fields::{refuse_unknown, repr_of};
use hep_core::run::Limits;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyTuple};

/// The fields, in the core's order, each with its getter and setter on [`Limits`].
type Access = (&'static str, fn(&Limits) -> usize, fn(&mut Limits, usize));

const FIELDS: [Access; 9] = [
    ("max_turns", |l| l.max_turns, |l, v| l.max_turns = v),
    ("max_text_bytes", |l| l.max_text_bytes, |l, v| l.max_text_bytes = v),
    ("max_tool_output_bytes", |l| l.max_tool_output_bytes, |l, v| l.max_tool_output_bytes = v),
    ("max_tools_per_turn", |l| l.max_tools_per_turn, |l, v| l.max_tools_per_turn = v),
    ("max_followups", |l| l.max_followups, |l, v| l.max_followups = v),
    ("max_reports", |l| l.max_reports, |l, v| l.max_reports = v),
    ("max_retained_bytes", |l| l.max_retained_bytes, |l, v| l.max_retained_bytes = v),
    ("max_tracked_calls", |l| l.max_tracked_calls, |l, v| l.max_tracked_calls = v),
    ("max_compactions_per_turn", |l| l.max_compactions_per_turn, |l, v| l.max_compactions_per_turn = v),
];

/// What a stream keeps at most (each cap's overflow is counted in the result); every field
/// defaults to the core's value.
#[pyclass(frozen, module = "hep", name = "Limits")]
pub(crate) struct PyLimits(pub(crate) Limits);

/// `value` as the count `Limits(name=...)` takes: an `int` (not a `bool`), `>= 0`.
fn count(name: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        let kind = value.get_type().name()?;
        return Err(PyTypeError::new_err(format!("Limits(): {name} must be an int, not {kind}")));
    }
    let n: i128 = value.extract()?;
    if n < 0 {
        return Err(PyValueError::new_err(format!("Limits(): {name} must be >= 0, not {n}")));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

#[pymethods]
impl PyLimits {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        guard(|| {
            let names: Vec<&str> = FIELDS.iter().map(|(name, ..)| *name).collect();
            refuse_unknown(kwargs, "Limits", &names)?;
            let mut limits = Limits::default();
            for (name, _, set) in FIELDS {
                if let Some(value) = kwargs.map(|k| k.get_item(name)).transpose()?.flatten() {
                    set(&mut limits, count(name, &value)?);
                }
            }
            Ok(Self(limits))
        })
    }
    #[classattr]
    fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(py, FIELDS.map(|(name, ..)| name))?.unbind())
    }
    #[getter]
    fn max_turns(&self) -> usize {
        self.0.max_turns
    }
    #[getter]
    fn max_text_bytes(&self) -> usize {
        self.0.max_text_bytes
    }
    #[getter]
    fn max_tool_output_bytes(&self) -> usize {
        self.0.max_tool_output_bytes
    }
    #[getter]
    fn max_tools_per_turn(&self) -> usize {
        self.0.max_tools_per_turn
    }
    #[getter]
    fn max_followups(&self) -> usize {
        self.0.max_followups
    }
    #[getter]
    fn max_reports(&self) -> usize {
        self.0.max_reports
    }
    #[getter]
    fn max_retained_bytes(&self) -> usize {
        self.0.max_retained_bytes
    }
    #[getter]
    fn max_tracked_calls(&self) -> usize {
        self.0.max_tracked_calls
    }
    #[getter]
    fn max_compactions_per_turn(&self) -> usize {
        self.0.max_compactions_per_turn
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> PyResult<u64> {
        guard(|| {
            use std::hash::{DefaultHasher, Hash, Hasher};
            let mut hasher = DefaultHasher::new();
            FIELDS.map(|(_, get, _)| get(&self.0)).hash(&mut hasher);
            Ok(hasher.finish())
        })
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard(|| {
            let mut fields = Vec::with_capacity(FIELDS.len());
            for (name, get, _) in FIELDS {
                fields.push((name, get(&self.0).into_pyobject(py)?.into_any().unbind()));
            }
            repr_of(py, "Limits", &fields)
        })
    }
}
