//! The boundary between Python and the extension: every entry point runs its body in
//! [`guard`], where a panic of the extension (a bug) becomes a `HepError` whose `.kind` is
//! `"internal"`, never a `pyo3_runtime.PanicException` (a `BaseException` that
//! `except Exception` and `except HepError` would let through).
//!
//! The rule: every function, constructor and method, and every getter that converts a value
//! or calls the core, runs its body in [`guard`]. What does not is code that cannot panic:
//! getters that return a stored field as it is (a number, a flag, a borrowed string, a
//! clone, or an enum's name, a total `match`), `__eq__` (a derived comparison), the
//! `__match_args__` class attributes, and the garbage collector's `__traverse__` and
//! `__clear__` (which only visit or drop references).

use crate::errors::internal;
use hep_core::boundary::catch_panic;
use pyo3::prelude::*;

/// Runs `body`; a panic inside it is raised as an internal `HepError` naming the panic.
pub(crate) fn guard<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_panic(body).unwrap_or_else(|message| Err(internal(&message)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::HepError;
    use pyo3::exceptions::PyValueError;

    /// A panicking body comes out as a `HepError` (so a `ValueError` too) of kind
    /// `internal`, its message the panic's; a body that returns passes through untouched.
    #[test]
    fn a_panic_becomes_an_internal_hep_error() {
        Python::initialize();
        Python::attach(|py| {
            let err = guard(|| -> PyResult<()> { panic!("boom {}", 7) }).unwrap_err();
            assert!(err.is_instance_of::<HepError>(py));
            assert!(err.is_instance_of::<PyValueError>(py));
            let value = err.value(py);
            let attr = |name: &str| value.getattr(name).unwrap().str().unwrap().to_string();
            assert_eq!(value.str().unwrap().to_string(), "hep internal error: boom 7");
            assert_eq!(attr("kind"), "internal");
            assert_eq!(attr("detail"), "hep internal error: boom 7");
            assert_eq!((attr("line"), attr("column"), attr("excerpt")), ("0".into(), "0".into(), String::new()));
            assert_eq!(guard(|| Ok(5)).unwrap(), 5);
            let passed = guard(|| -> PyResult<()> { Err(PyValueError::new_err("kept")) }).unwrap_err();
            assert_eq!(passed.value(py).str().unwrap().to_string(), "kept");
        });
    }
}
