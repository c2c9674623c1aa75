//! Tool-call arguments: a Python mapping to the core's [`Args`], as `json.dumps` would see it
//! (key order kept), without a round trip through JSON text. A value holding a non-finite
//! float is one JSON cannot write: the core renders it as the reference does.

use crate::errors::check;
use crate::fields::as_dict;
use hep_core::{Args, ArgsMode, Error, ErrorKind, MAX_DEPTH, parse_args};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// `"summary"` or `"full"` as the core's mode; `what` names the parameter in the error.
pub(crate) fn args_mode(mode: &str, what: &str) -> PyResult<ArgsMode> {
    match mode {
        "summary" => Ok(ArgsMode::Summary),
        "full" => Ok(ArgsMode::Full),
        other => Err(PyValueError::new_err(format!("{what} must be 'summary' or 'full', not {other:?}"))),
    }
}

/// `args`, a mapping or the JSON text of an object, as the core's arguments (see [`args_to_core`]).
pub(crate) fn args_of(args: &Bound<'_, PyAny>) -> PyResult<Args> {
    match args.cast::<PyString>() {
        Ok(text) => check(args.py(), parse_args(&text.to_cow()?)),
        Err(_) => args_to_core(args),
    }
}

/// `args` (a mapping with string keys) as the core's arguments; a value holding a float
/// JSON cannot write (`nan`, `inf`) is kept as unserializable. Nesting is capped at the
/// core's `MAX_DEPTH`, which also stops a container that holds itself.
pub(crate) fn args_to_core(args: &Bound<'_, PyAny>) -> PyResult<Args> {
    let mut out = Args::new();
    for (key, item) in entries(&as_dict(args, "tool arguments must be a mapping")?)? {
        match value(&item, 1)? {
            Some(value) => out.insert(key, value),
            None => out.insert_unserializable(key),
        }
    }
    Ok(out)
}

/// The items of `dict`, with their keys as strings.
fn entries<'py>(dict: &Bound<'py, PyDict>) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    dict.iter()
        .map(|(key, item)| {
            let key = key.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("tool argument keys must be strings, not {}", type_name(&key)))
            })?;
            Ok((key.to_cow()?.into_owned(), item))
        })
        .collect()
}

/// `ob` as JSON; `None` when it holds a float JSON cannot write.
fn value(ob: &Bound<'_, PyAny>, depth: usize) -> PyResult<Option<Value>> {
    if ob.is_none() {
        return Ok(Some(Value::Null));
    }
    if let Ok(s) = ob.cast::<PyString>() {
        return Ok(Some(Value::String(s.to_cow()?.into_owned())));
    }
    if let Ok(b) = ob.cast::<PyBool>() {
        return Ok(Some(Value::Bool(b.is_true())));
    }
    if ob.cast::<PyInt>().is_ok() {
        return integer(ob).map(Some);
    }
    if let Ok(f) = ob.cast::<PyFloat>() {
        return Ok(Number::from_f64(f.value()).map(Value::Number));
    }
    if depth >= MAX_DEPTH {
        let err = Error::new(ErrorKind::TooDeep, format!("tool arguments nest deeper than {MAX_DEPTH} levels"));
        return Err(crate::errors::to_py(ob.py(), &err));
    }
    if let Ok(dict) = ob.cast::<PyDict>() {
        let mut map = Map::with_capacity(dict.len());
        for (key, item) in entries(dict)? {
            let Some(item) = value(&item, depth + 1)? else { return Ok(None) };
            map.insert(key, item);
        }
        return Ok(Some(Value::Object(map)));
    }
    if ob.cast::<PyList>().is_ok() || ob.cast::<PyTuple>().is_ok() {
        let items = ob.try_iter()?.map(|item| value(&item?, depth + 1)).collect::<PyResult<Option<_>>>()?;
        return Ok(items.map(Value::Array));
    }
    Err(PyTypeError::new_err(format!("tool arguments cannot hold a {}: not JSON serializable", type_name(ob))))
}

fn integer(ob: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(i) = ob.extract::<i64>() {
        return Ok(Value::Number(i.into()));
    }
    if let Ok(u) = ob.extract::<u64>() {
        return Ok(Value::Number(u.into()));
    }
    let err = Error::new(ErrorKind::OutOfRange, format!("the tool argument {ob} does not fit a 64-bit integer"));
    Err(crate::errors::to_py(ob.py(), &err))
}

fn type_name(ob: &Bound<'_, PyAny>) -> String {
    ob.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "value".to_owned())
}
