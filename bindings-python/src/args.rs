//! Tool-call arguments: a Python mapping to the JSON object the core renders, as `json.dumps`
//! would see it (key order kept), without a round trip through JSON text.

use crate::errors::check;
use crate::fields::as_dict;
use hep_core::{ArgsMode, Error, ErrorKind, MAX_DEPTH, parse_args};
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

/// `args`, a mapping or the JSON text of an object, as a JSON object (see [`args_to_json`]).
pub(crate) fn args_of(args: &Bound<'_, PyAny>) -> PyResult<Map<String, Value>> {
    match args.cast::<PyString>() {
        Ok(text) => check(args.py(), parse_args(&text.to_cow()?)),
        Err(_) => args_to_json(args),
    }
}

/// `args` (a mapping with string keys) as a JSON object; nesting is capped at the core's
/// `MAX_DEPTH`, which also stops a container that holds itself.
pub(crate) fn args_to_json(args: &Bound<'_, PyAny>) -> PyResult<Map<String, Value>> {
    object(&as_dict(args, "tool arguments must be a mapping")?, 1)
}

fn object(dict: &Bound<'_, PyDict>, depth: usize) -> PyResult<Map<String, Value>> {
    let mut map = Map::with_capacity(dict.len());
    for (key, item) in dict.iter() {
        let key = key.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!("tool argument keys must be strings, not {}", type_name(&key)))
        })?;
        map.insert(key.to_cow()?.into_owned(), value(&item, depth)?);
    }
    Ok(map)
}

fn value(ob: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if ob.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = ob.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = ob.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if ob.cast::<PyInt>().is_ok() {
        return integer(ob);
    }
    if let Ok(f) = ob.cast::<PyFloat>() {
        let f = f.value();
        return Number::from_f64(f).map(Value::Number).ok_or_else(|| {
            let err = Error::new(ErrorKind::Unencodable, format!("tool arguments cannot hold the float {f}: not JSON"));
            crate::errors::to_py(ob.py(), &err)
        });
    }
    if depth >= MAX_DEPTH {
        let err = Error::new(ErrorKind::TooDeep, format!("tool arguments nest deeper than {MAX_DEPTH} levels"));
        return Err(crate::errors::to_py(ob.py(), &err));
    }
    if let Ok(dict) = ob.cast::<PyDict>() {
        return Ok(Value::Object(object(dict, depth + 1)?));
    }
    if ob.cast::<PyList>().is_ok() || ob.cast::<PyTuple>().is_ok() {
        let items = ob.try_iter()?.map(|item| value(&item?, depth + 1)).collect::<PyResult<_>>()?;
        return Ok(Value::Array(items));
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
