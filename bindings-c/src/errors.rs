//! Errors across the ABI: a [`HepError`] with its [`HepErrorKind`], message, line, column and
//! excerpt, handed out through an `error_out` argument and freed by [`hep_error_free`].

use crate::boundary::guard_void;
use crate::buffers::HepString;
use hep_core::{Error, ErrorKind};
use std::ffi::c_char;

/// What went wrong: hep-core's error kinds (by their snake_case names in `hep_error_kind_name`),
/// plus the ABI's own `invalid_argument` and `internal`.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HepErrorKind {
    /// The line is not well-formed JSON (includes an empty line).
    Syntax = 1,
    /// The line is not valid UTF-8.
    InvalidUtf8 = 2,
    /// A complete JSON value is followed by more characters on the same line.
    TrailingCharacters = 3,
    /// The line is JSON, but not a JSON object.
    NotAnObject = 4,
    /// A field the frame type requires is absent.
    MissingField = 5,
    /// A field the frame type knows appears twice.
    DuplicateField = 6,
    /// A field has the wrong JSON type.
    WrongType = 7,
    /// A number does not fit.
    OutOfRange = 8,
    /// Arrays and objects are nested deeper than the decoder allows.
    TooDeep = 9,
    /// The line is longer than the configured maximum; it was skipped.
    LineTooLong = 10,
    /// The stream ended in the middle of a line.
    Truncated = 11,
    /// The header names a protocol version this library does not speak.
    UnsupportedVersion = 12,
    /// Strict mode stopped at an error-severity violation.
    Violation = 13,
    /// A value cannot be encoded (a non-finite float, a liveness action v1 does not define).
    Unencodable = 14,
    /// Reading or writing failed.
    Io = 15,
    /// An argument is unusable: a NULL pointer where a value is required, text that is not
    /// UTF-8, a code outside its enum.
    InvalidArgument = 100,
    /// A panic inside the library (a bug), caught at the boundary.
    Internal = 101,
}

impl HepErrorKind {
    /// The stable snake_case name (the core's for its kinds).
    fn name(self) -> &'static std::ffi::CStr {
        match self {
            Self::Syntax => c"syntax",
            Self::InvalidUtf8 => c"invalid_utf8",
            Self::TrailingCharacters => c"trailing_characters",
            Self::NotAnObject => c"not_an_object",
            Self::MissingField => c"missing_field",
            Self::DuplicateField => c"duplicate_field",
            Self::WrongType => c"wrong_type",
            Self::OutOfRange => c"out_of_range",
            Self::TooDeep => c"too_deep",
            Self::LineTooLong => c"line_too_long",
            Self::Truncated => c"truncated",
            Self::UnsupportedVersion => c"unsupported_version",
            Self::Violation => c"violation",
            Self::Unencodable => c"unencodable",
            Self::Io => c"io",
            Self::InvalidArgument => c"invalid_argument",
            Self::Internal => c"internal",
        }
    }

    /// The kind with code `code`, if there is one.
    fn from_code(code: i32) -> Option<Self> {
        const ALL: [HepErrorKind; 17] = [
            HepErrorKind::Syntax,
            HepErrorKind::InvalidUtf8,
            HepErrorKind::TrailingCharacters,
            HepErrorKind::NotAnObject,
            HepErrorKind::MissingField,
            HepErrorKind::DuplicateField,
            HepErrorKind::WrongType,
            HepErrorKind::OutOfRange,
            HepErrorKind::TooDeep,
            HepErrorKind::LineTooLong,
            HepErrorKind::Truncated,
            HepErrorKind::UnsupportedVersion,
            HepErrorKind::Violation,
            HepErrorKind::Unencodable,
            HepErrorKind::Io,
            HepErrorKind::InvalidArgument,
            HepErrorKind::Internal,
        ];
        ALL.into_iter().find(|kind| *kind as i32 == code)
    }
}

impl From<ErrorKind> for HepErrorKind {
    fn from(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::Syntax => Self::Syntax,
            ErrorKind::InvalidUtf8 => Self::InvalidUtf8,
            ErrorKind::TrailingCharacters => Self::TrailingCharacters,
            ErrorKind::NotAnObject => Self::NotAnObject,
            ErrorKind::MissingField => Self::MissingField,
            ErrorKind::DuplicateField => Self::DuplicateField,
            ErrorKind::WrongType => Self::WrongType,
            ErrorKind::OutOfRange => Self::OutOfRange,
            ErrorKind::TooDeep => Self::TooDeep,
            ErrorKind::LineTooLong => Self::LineTooLong,
            ErrorKind::Truncated => Self::Truncated,
            ErrorKind::UnsupportedVersion => Self::UnsupportedVersion,
            ErrorKind::Violation => Self::Violation,
            ErrorKind::Unencodable => Self::Unencodable,
            ErrorKind::Io => Self::Io,
            // `ErrorKind` is non-exhaustive: a kind added to the core without its code here
            // is reported as a bug (the test below fails first).
            _ => Self::Internal,
        }
    }
}

/// An error handed to the caller: what, where (`line` and `column` are 1-based, 0 when
/// unknown) and an excerpt of the offending input (empty when none). Freed by
/// [`hep_error_free`], which frees its strings too.
#[repr(C)]
#[derive(Debug)]
pub struct HepError {
    /// What went wrong.
    pub kind: HepErrorKind,
    /// The 1-based line of the stream, 0 when not about a line.
    pub line: u64,
    /// The 1-based column (in bytes) within the line, 0 when unknown.
    pub column: u64,
    /// What went wrong, in words.
    pub message: HepString,
    /// A short excerpt of the offending input, empty when none.
    pub excerpt: HepString,
}

/// An error inside the library, before it is handed out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    kind: HepErrorKind,
    message: String,
    line: u64,
    column: u64,
    excerpt: String,
}

impl Failure {
    /// An `invalid_argument` error saying `message`.
    pub(crate) fn argument(message: impl Into<String>) -> Self {
        Self {
            kind: HepErrorKind::InvalidArgument,
            message: message.into(),
            line: 0,
            column: 0,
            excerpt: String::new(),
        }
    }

    /// An `internal` error (a caught panic) saying `message`.
    pub(crate) fn internal(message: String) -> Self {
        Self { kind: HepErrorKind::Internal, message, line: 0, column: 0, excerpt: String::new() }
    }
}

impl From<&Error> for Failure {
    fn from(e: &Error) -> Self {
        Self {
            kind: e.kind().into(),
            message: e.message().to_owned(),
            line: e.line(),
            column: e.column(),
            excerpt: e.excerpt().to_owned(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Self::from(&e)
    }
}

impl From<Failure> for HepError {
    fn from(f: Failure) -> Self {
        Self {
            kind: f.kind,
            line: f.line,
            column: f.column,
            message: HepString::from(f.message),
            excerpt: HepString::from(f.excerpt),
        }
    }
}

/// Frees `error` and its strings. NULL is accepted (nothing to free). `error` must come
/// from this library and not be used afterwards.
///
/// # Safety
///
/// `error` is NULL or an error from this library, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_error_free(error: *mut HepError) {
    guard_void(|| {
        if !error.is_null() {
            // SAFETY: a non-NULL `error` was made by `Box::into_raw` in `boundary::guard`
            // and is freed once, as this function's contract says.
            drop(unsafe { Box::from_raw(error) });
        }
    });
}

/// The snake_case name of the error kind with code `kind` (`"syntax"`, `"invalid_argument"`,
/// ...), or `"unknown"` for a code no kind has: a static NUL-terminated string, never freed.
#[unsafe(no_mangle)]
pub extern "C" fn hep_error_kind_name(kind: i32) -> *const c_char {
    HepErrorKind::from_code(kind).map_or(c"unknown", HepErrorKind::name).as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every core kind has its own code, named as the core names it.
    #[test]
    fn every_core_kind_maps_to_its_name() {
        for kind in ErrorKind::ALL {
            let code = HepErrorKind::from(kind);
            assert_ne!(code, HepErrorKind::Internal, "{kind}");
            assert_eq!(HepErrorKind::from_code(code as i32), Some(code));
            assert_eq!(code.name().to_str().ok(), Some(kind.as_str()));
        }
        assert_eq!(HepErrorKind::from_code(0), None);
        // SAFETY: the names are static C strings.
        let unknown = unsafe { std::ffi::CStr::from_ptr(hep_error_kind_name(-3)) };
        assert_eq!(unknown, c"unknown");
    }

    /// A core error keeps its kind, place and excerpt.
    #[test]
    fn a_core_error_keeps_where_it_happened() {
        let core = Error::new(ErrorKind::Syntax, "bad").at_line(3).at_column(7, "{x");
        let error = HepError::from(Failure::from(core));
        assert_eq!((error.kind, error.line, error.column), (HepErrorKind::Syntax, 3, 7));
        assert_eq!((error.message.as_str(), error.excerpt.as_str()), (Some("bad"), Some("{x")));
        // SAFETY: a boxed error, freed once.
        unsafe { hep_error_free(Box::into_raw(Box::new(error))) };
        // SAFETY: NULL is accepted.
        unsafe { hep_error_free(std::ptr::null_mut()) };
    }
}
