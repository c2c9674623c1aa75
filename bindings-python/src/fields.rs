//! How each kind of frame field crosses the boundary, both ways.

use crate::untrack::untrack;
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

/// `ob` as a dict: itself when it is one, a copy when it is another mapping (it has `keys`).
pub(crate) fn as_dict<'py>(ob: &Bound<'py, PyAny>, refusal: &str) -> PyResult<Bound<'py, PyDict>> {
    if let Ok(dict) = ob.cast::<PyDict>() {
        return Ok(dict.clone());
    }
    if ob.hasattr("keys")? {
        return Ok(ob.py().get_type::<PyDict>().call1((ob,))?.cast_into::<PyDict>()?);
    }
    Err(PyTypeError::new_err(refusal.to_owned()))
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
        Ok(untrack(Bound::new(py, PyUsage(*self))?).into_any().unbind())
    }
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(usage) = ob.cast::<PyUsage>() {
            return Ok(usage.get().0);
        }
        usage_from(Some(&as_dict(ob, "usage must be a hep.Usage or a mapping")?))
    }
}

impl Field for ToolResult {
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(untrack(Bound::new(py, PyToolResult(self.clone()))?).into_any().unbind())
    }
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(result) = ob.cast::<PyToolResult>() {
            return Ok(result.get().0.clone());
        }
        let dict = as_dict(ob, "a tool result must be a hep.ToolResult or a mapping")?;
        let dict = Some(&dict);
        Ok(ToolResult {
            id: take(dict, "id")?,
            name: take(dict, "name")?,
            ok: take(dict, "ok")?,
            text: take(dict, "text")?,
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
