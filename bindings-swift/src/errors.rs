//! `HepError`: a case per core error kind, each with its line, column, message and excerpt;
//! `CoreError`, how the FFI throws it (or a failure of the binding itself); and `Violation`,
//! a breach of a consumer guarantee.

use hep_core::{Error, ErrorKind, Severity};
use std::fmt;

/// An error of the hep library. In Swift: `enum HepError: Error` (the conformance is
/// declared in Swift), caught by case: `catch HepError.wrongType(let line, let column, _, _)`.
///
/// `line` is 1-based (0 when not tied to a line); `column` is the 1-based byte offset
/// within the line (0 when unknown); `message` is the error as text, with its position;
/// `excerpt` is a short piece of the input (may be empty).
///
/// A plain uniffi enum rather than a uniffi error, so that its Swift cases are lowerCamelCase
/// like any Swift enum's (uniffi names error cases in UpperCamelCase) and lists of it
/// (skipped lines) need no conversion. The FFI throws it wrapped in [`CoreError`].
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
#[allow(missing_docs)] // the fields are described above; the cases mirror `hep_core::ErrorKind`
pub enum HepError {
    Syntax {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    InvalidUtf8 {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    TrailingCharacters {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    NotAnObject {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    MissingField {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    DuplicateField {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    WrongType {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    OutOfRange {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    TooDeep {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    LineTooLong {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    Truncated {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    UnsupportedVersion {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    Violation {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    Unencodable {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    Io {
        line: u64,
        column: u64,
        message: String,
        excerpt: String,
    },
    /// A bug of the binding (a panic inside a call): how the Swift layer
    /// (`rethrowingHepError`) rethrows [`CoreError::Internal`], so that a caller catches one
    /// error type. Its kind is `internal`; it has no line, column or excerpt.
    Internal {
        message: String,
    },
}

impl From<&Error> for HepError {
    fn from(e: &Error) -> Self {
        let (line, column, message, excerpt) = (e.line(), e.column(), e.to_string(), e.excerpt().to_owned());
        match e.kind() {
            ErrorKind::Syntax => Self::Syntax { line, column, message, excerpt },
            ErrorKind::InvalidUtf8 => Self::InvalidUtf8 { line, column, message, excerpt },
            ErrorKind::TrailingCharacters => Self::TrailingCharacters { line, column, message, excerpt },
            ErrorKind::NotAnObject => Self::NotAnObject { line, column, message, excerpt },
            ErrorKind::MissingField => Self::MissingField { line, column, message, excerpt },
            ErrorKind::DuplicateField => Self::DuplicateField { line, column, message, excerpt },
            ErrorKind::WrongType => Self::WrongType { line, column, message, excerpt },
            ErrorKind::OutOfRange => Self::OutOfRange { line, column, message, excerpt },
            ErrorKind::TooDeep => Self::TooDeep { line, column, message, excerpt },
            ErrorKind::LineTooLong => Self::LineTooLong { line, column, message, excerpt },
            ErrorKind::Truncated => Self::Truncated { line, column, message, excerpt },
            ErrorKind::UnsupportedVersion => Self::UnsupportedVersion { line, column, message, excerpt },
            ErrorKind::Violation => Self::Violation { line, column, message, excerpt },
            ErrorKind::Unencodable => Self::Unencodable { line, column, message, excerpt },
            _ => Self::Io { line, column, message, excerpt },
        }
    }
}

impl From<Error> for HepError {
    fn from(e: Error) -> Self {
        Self::from(&e)
    }
}

impl HepError {
    /// The message: the core error as text, with its position.
    fn message(&self) -> &str {
        match self {
            Self::Syntax { message, .. }
            | Self::InvalidUtf8 { message, .. }
            | Self::TrailingCharacters { message, .. }
            | Self::NotAnObject { message, .. }
            | Self::MissingField { message, .. }
            | Self::DuplicateField { message, .. }
            | Self::WrongType { message, .. }
            | Self::OutOfRange { message, .. }
            | Self::TooDeep { message, .. }
            | Self::LineTooLong { message, .. }
            | Self::Truncated { message, .. }
            | Self::UnsupportedVersion { message, .. }
            | Self::Violation { message, .. }
            | Self::Unencodable { message, .. }
            | Self::Io { message, .. }
            | Self::Internal { message } => message,
        }
    }
}

impl fmt::Display for HepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for HepError {}

/// What the FFI functions throw: a [`HepError`], which the Swift layer rethrows as is, or
/// (never expected) a failure of the binding itself, `CoreError.Internal(message:)`, which
/// the Swift layer rethrows as `HepError.internal(message:)`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
pub enum CoreError {
    /// The error.
    Failed {
        /// The error.
        error: HepError,
    },
    /// A bug of the binding: a panic inside the call (`crate::boundary`).
    Internal {
        /// `hep internal error: ` and the panic's message.
        message: String,
    },
}

impl From<Error> for CoreError {
    fn from(e: Error) -> Self {
        Self::Failed { error: HepError::from(&e) }
    }
}

impl From<HepError> for CoreError {
    fn from(error: HepError) -> Self {
        Self::Failed { error }
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Failed { error } => error.fmt(f),
            Self::Internal { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for CoreError {}

/// One breach of a consumer guarantee.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Violation {
    /// The stable snake_case code (`missing_header`, `turn_id_skipped`, ...).
    pub code: String,
    /// `error` breaks conformance; `warning` does not.
    pub severity: Severity,
    /// 1-based line of the offending frame (0 for end-of-stream checks).
    pub line: u64,
    /// The round concerned, when there is one.
    pub turn_id: Option<u64>,
    /// A human-readable explanation.
    pub message: String,
}

impl From<hep_core::Violation> for Violation {
    fn from(v: hep_core::Violation) -> Self {
        Self {
            code: v.code.as_str().to_owned(),
            severity: v.severity,
            line: v.line,
            turn_id: v.turn_id,
            message: v.message,
        }
    }
}

#[uniffi::remote(Enum)]
pub enum Severity {
    Error,
    Warning,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every core kind has its own case (none falls into the catch-all but `io`).
    #[test]
    fn every_kind_has_its_case() {
        for kind in ErrorKind::ALL {
            let mapped = HepError::from(Error::new(kind, "x"));
            let name = format!("{mapped:?}");
            let case = name.split([' ', '{']).next().unwrap_or_default();
            let snake: String = case
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let sep = (i > 0 && c.is_uppercase()).then_some('_');
                    sep.into_iter().chain(c.to_lowercase())
                })
                .collect();
            assert_eq!(snake, kind.as_str());
        }
    }
}
