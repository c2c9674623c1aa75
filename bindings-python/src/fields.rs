//! How each kind of frame field crosses the boundary, both ways.

use crate::values::{PyToolResult, PyUsage, usage_from};
use hep_core::{ToolResult, Usage};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A frame field type: to Python, from Python, and what a missing keyword means.
pub(crate) trait Field: Sized {
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>>;
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self>;
    fn missing(name: &str) -> PyResult<Self> {
        Err(PyTypeError::new_err(format!("missing required keyword argument: '{name}'")))
    }
}

macro_rules! plain_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                Ok(self.into_pyobject(py)?.to_owned().into_any().unbind())
            }
            fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
                ob.extract()
            }
        }
    )*};
}

plain_field!(u64, String, bool, f64);

impl<T: Field> Field for Option<T> {
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Some(v) => v.to_py(py),
            None => Ok(py.None()),
        }
    }
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
        if ob.is_none() { Ok(None) } else { T::from_py(ob).map(Some) }
    }
    fn missing(_: &str) -> PyResult<Self> {
        Ok(None)
    }
}

/// A keyword of `kwargs` (or of a dict) as field `name`.
pub(crate) fn take<T: Field>(kwargs: Option<&Bound<'_, PyDict>>, name: &str) -> PyResult<T> {
    match kwargs.map(|k| k.get_item(name)).transpose()?.flatten() {
        Some(value) => T::from_py(&value),
        None => T::missing(name),
    }
}

impl Field for Usage {
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, PyUsage(*self))?.into_any())
    }
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(usage) = ob.cast::<PyUsage>() {
            return Ok(usage.get().0);
        }
        let dict = ob.cast::<PyDict>().map_err(|_| PyTypeError::new_err("usage must be a hep.Usage or a dict"))?;
        usage_from(Some(dict))
    }
}

impl Field for ToolResult {
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, PyToolResult(self.clone()))?.into_any())
    }
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(result) = ob.cast::<PyToolResult>() {
            return Ok(result.get().0.clone());
        }
        let dict = ob
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("a tool result must be a hep.ToolResult or a dict"))?;
        Ok(ToolResult {
            id: take(Some(dict), "id")?,
            name: take(Some(dict), "name")?,
            ok: take(Some(dict), "ok")?,
            text: take(Some(dict), "text")?,
        })
    }
}

impl Field for Vec<ToolResult> {
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list = PyList::empty(py);
        for r in self {
            list.append(r.to_py(py)?)?;
        }
        Ok(list.into_any().unbind())
    }
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
        ob.try_iter()?.map(|item| ToolResult::from_py(&item?)).collect()
    }
}
