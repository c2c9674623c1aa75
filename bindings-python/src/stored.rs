//! How a frame keeps its fields: each one made into its Python object once, when the frame is
//! made, so that reading a field is a plain struct-member read (no call, no conversion).
//!
//! A field is kept as its object (`Py<PyAny>`), which Python reads as a read-only member; a
//! list field (marked `: list` in `frame_model.rs`) is kept as a tuple and read as a new
//! list each time, so that a caller changing the list it got cannot change the frame.

use crate::fields::Field;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// A list field: its items as a tuple; each read makes a new list of them.
pub(crate) struct StoredList(Py<PyTuple>);

impl<'py> IntoPyObject<'py> for &StoredList {
    type Target = PyList;
    type Output = Bound<'py, PyList>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        Ok(self.0.bind(py).to_list())
    }
}

/// A field's value as the object the frame keeps.
pub(crate) fn store_value<T: Field>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    value.to_py(py)
}

/// A list field's items as the tuple the frame keeps.
pub(crate) fn store_list<T: Field>(py: Python<'_>, items: &[T]) -> PyResult<StoredList> {
    let objects = items.iter().map(|item| item.to_py(py)).collect::<PyResult<Vec<_>>>()?;
    Ok(StoredList(PyTuple::new(py, objects)?.unbind()))
}

/// A kept field back as its core value.
pub(crate) fn load_value<T: Field>(py: Python<'_>, stored: &Py<PyAny>) -> PyResult<T> {
    T::from_py(stored.bind(py))
}

/// A kept list field back as its core values.
pub(crate) fn load_list<T: Field>(py: Python<'_>, stored: &StoredList) -> PyResult<Vec<T>> {
    stored.0.bind(py).iter().map(|item| T::from_py(&item)).collect()
}

/// The type a field is kept as: `stored!()` for a value, `stored!(list)` for a list.
macro_rules! stored {
    () => { ::pyo3::Py<::pyo3::PyAny> };
    (list) => { $crate::stored::StoredList };
}

/// The function that makes a core field into what the frame keeps (see [`stored!`]).
macro_rules! store {
    () => {
        $crate::stored::store_value
    };
    (list) => {
        $crate::stored::store_list
    };
}

/// The function that turns what the frame keeps back into the core field (see [`stored!`]).
macro_rules! load {
    () => {
        $crate::stored::load_value
    };
    (list) => {
        $crate::stored::load_list
    };
}

pub(crate) use {load, store, stored};
