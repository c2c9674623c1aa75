//! `HepError(ValueError)` and one subclass per core error kind, each carrying `.kind`,
//! `.line`, `.column` and `.excerpt`; a failure of the extension itself is a plain
//! `HepError` of kind `internal`.

use hep_core::{Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(hep, HepError, PyValueError, "Any error of the hep library; `.kind` names it.");
create_exception!(hep, JsonSyntaxError, HepError, "The line is not well-formed JSON.");
create_exception!(hep, InvalidUtf8Error, HepError, "The line is not valid UTF-8.");
create_exception!(hep, TrailingCharactersError, HepError, "More characters follow the JSON value.");
create_exception!(hep, NotAnObjectError, HepError, "The line is JSON but not an object.");
create_exception!(hep, MissingFieldError, HepError, "A required field is absent.");
create_exception!(hep, DuplicateFieldError, HepError, "A known field appears twice.");
create_exception!(hep, WrongTypeError, HepError, "A field has the wrong JSON type.");
create_exception!(hep, OutOfRangeError, HepError, "A number does not fit its field.");
create_exception!(hep, TooDeepError, HepError, "Nesting is deeper than allowed.");
create_exception!(hep, LineTooLongError, HepError, "The line is longer than the maximum.");
create_exception!(hep, TruncatedError, HepError, "The stream ended inside a line.");
create_exception!(hep, UnsupportedVersionError, HepError, "The header names another major protocol version.");
create_exception!(hep, ProtocolViolationError, HepError, "Strict mode stopped at a protocol violation.");
create_exception!(hep, UnencodableError, HepError, "A value cannot be encoded (a non-finite float).");
create_exception!(hep, HepIOError, HepError, "Reading or writing failed.");

/// The Python exception for a core error, with its attributes set.
pub(crate) fn to_py(py: Python<'_>, error: &Error) -> PyErr {
    let message = error.to_string();
    let err = match error.kind() {
        ErrorKind::Syntax => JsonSyntaxError::new_err(message),
        ErrorKind::InvalidUtf8 => InvalidUtf8Error::new_err(message),
        ErrorKind::TrailingCharacters => TrailingCharactersError::new_err(message),
        ErrorKind::NotAnObject => NotAnObjectError::new_err(message),
        ErrorKind::MissingField => MissingFieldError::new_err(message),
        ErrorKind::DuplicateField => DuplicateFieldError::new_err(message),
        ErrorKind::WrongType => WrongTypeError::new_err(message),
        ErrorKind::OutOfRange => OutOfRangeError::new_err(message),
        ErrorKind::TooDeep => TooDeepError::new_err(message),
        ErrorKind::LineTooLong => LineTooLongError::new_err(message),
        ErrorKind::Truncated => TruncatedError::new_err(message),
        ErrorKind::UnsupportedVersion => UnsupportedVersionError::new_err(message),
        ErrorKind::Violation => ProtocolViolationError::new_err(message),
        ErrorKind::Unencodable => UnencodableError::new_err(message),
        _ => HepIOError::new_err(message),
    };
    let value = err.value(py);
    let set = value
        .setattr("kind", error.kind().as_str())
        .and_then(|()| value.setattr("line", error.line()))
        .and_then(|()| value.setattr("column", error.column()))
        .and_then(|()| value.setattr("excerpt", error.excerpt()))
        .and_then(|()| value.setattr("detail", error.message()));
    match set {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The `HepError` of a failure of the extension itself (a panic): `.kind` is `"internal"`,
/// with no line, column or excerpt.
pub(crate) fn internal(message: &str) -> PyErr {
    Python::attach(|py| {
        let err = HepError::new_err(message.to_owned());
        let value = err.value(py);
        let set = value
            .setattr("kind", "internal")
            .and_then(|()| value.setattr("line", 0))
            .and_then(|()| value.setattr("column", 0))
            .and_then(|()| value.setattr("excerpt", ""))
            .and_then(|()| value.setattr("detail", message));
        match set {
            Ok(()) => err,
            Err(e) => e,
        }
    })
}

/// Maps a core result into a Python one.
pub(crate) fn check<T>(py: Python<'_>, result: hep_core::Result<T>) -> PyResult<T> {
    result.map_err(|e| to_py(py, &e))
}

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("HepError", py.get_type::<HepError>())?;
    m.add("JsonSyntaxError", py.get_type::<JsonSyntaxError>())?;
    m.add("InvalidUtf8Error", py.get_type::<InvalidUtf8Error>())?;
    m.add("TrailingCharactersError", py.get_type::<TrailingCharactersError>())?;
    m.add("NotAnObjectError", py.get_type::<NotAnObjectError>())?;
    m.add("MissingFieldError", py.get_type::<MissingFieldError>())?;
    m.add("DuplicateFieldError", py.get_type::<DuplicateFieldError>())?;
    m.add("WrongTypeError", py.get_type::<WrongTypeError>())?;
    m.add("OutOfRangeError", py.get_type::<OutOfRangeError>())?;
    m.add("TooDeepError", py.get_type::<TooDeepError>())?;
    m.add("LineTooLongError", py.get_type::<LineTooLongError>())?;
    m.add("TruncatedError", py.get_type::<TruncatedError>())?;
    m.add("UnsupportedVersionError", py.get_type::<UnsupportedVersionError>())?;
    m.add("ProtocolViolationError", py.get_type::<ProtocolViolationError>())?;
    m.add("UnencodableError", py.get_type::<UnencodableError>())?;
    m.add("HepIOError", py.get_type::<HepIOError>())?;
    Ok(())
}
