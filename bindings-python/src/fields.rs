//! How a field of a frame or record crosses the boundary, both ways: the [`Field`] trait for
//! the plain types, options and lists (the records implement it in `records.rs`), keyword
//! arguments read as fields, and the `repr` of a list of fields.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A field type: to Python, from Python, and what a missing keyword means.
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

/// A list field: a new Python list on each conversion; any iterable from Python.
impl<T: Field> Field for Vec<T> {
    fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let list = PyList::empty(py);
        for item in self {
            list.append(item.to_py(py)?)?;
        }
        Ok(list.into_any().unbind())
    }
    fn from_py(ob: &Bound<'_, PyAny>) -> PyResult<Self> {
        ob.try_iter()?.map(|item| T::from_py(&item?)).collect()
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

/// Refuses keyword arguments that are not among `fields` of the class `class`.
pub(crate) fn refuse_unknown(kwargs: Option<&Bound<'_, PyDict>>, class: &str, fields: &[&str]) -> PyResult<()> {
    for key in kwargs.into_iter().flat_map(|k| k.keys()) {
        let key: String = key.extract()?;
        if !fields.contains(&key.as_str()) {
            return Err(PyTypeError::new_err(format!("{class}() got an unexpected keyword argument '{key}'")));
        }
    }
    Ok(())
}

/// `Name(field=repr, ...)`, with Python's `repr` of each value.
pub(crate) fn repr_of(py: Python<'_>, name: &str, fields: &[(&str, Py<PyAny>)]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for (field, value) in fields {
        parts.push(format!("{field}={}", value.bind(py).repr()?));
    }
    Ok(format!("{name}({})", parts.join(", ")))
}
