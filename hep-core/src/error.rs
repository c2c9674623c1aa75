//! The one error type of the crate: a [`ErrorKind`], where it happened and a short excerpt.

use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::fmt;

/// What went wrong. Stable snake_case names are available through [`ErrorKind::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The line is not well-formed JSON (includes an empty line).
    Syntax,
    /// The line is not valid UTF-8.
    InvalidUtf8,
    /// A complete JSON value is followed by more characters on the same line.
    TrailingCharacters,
    /// The line is JSON, but not a JSON object.
    NotAnObject,
    /// A field the frame type requires is absent.
    MissingField,
    /// A field the frame type knows appears twice.
    DuplicateField,
    /// A field has the wrong JSON type (a string where an integer belongs, `1.0` for an integer, ...).
    WrongType,
    /// A number does not fit: a negative or too large integer, or a float that overflows.
    OutOfRange,
    /// Arrays and objects are nested deeper than the decoder allows.
    TooDeep,
    /// The line is longer than the configured maximum; it was skipped.
    LineTooLong,
    /// The stream ended in the middle of a line.
    Truncated,
    /// The header names a protocol version this library does not speak.
    UnsupportedVersion,
    /// Strict mode stopped at an error-severity [`Violation`](crate::Violation).
    Violation,
    /// A value cannot be encoded (a non-finite float).
    Unencodable,
    /// Reading or writing the underlying stream failed.
    Io,
}

impl ErrorKind {
    /// The stable snake_case name of this kind, as used by the conformance vectors and bindings.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::InvalidUtf8 => "invalid_utf8",
            Self::TrailingCharacters => "trailing_characters",
            Self::NotAnObject => "not_an_object",
            Self::MissingField => "missing_field",
            Self::DuplicateField => "duplicate_field",
            Self::WrongType => "wrong_type",
            Self::OutOfRange => "out_of_range",
            Self::TooDeep => "too_deep",
            Self::LineTooLong => "line_too_long",
            Self::Truncated => "truncated",
            Self::UnsupportedVersion => "unsupported_version",
            Self::Violation => "violation",
            Self::Unencodable => "unencodable",
            Self::Io => "io",
        }
    }

    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 15] = [
        Self::Syntax,
        Self::InvalidUtf8,
        Self::TrailingCharacters,
        Self::NotAnObject,
        Self::MissingField,
        Self::DuplicateField,
        Self::WrongType,
        Self::OutOfRange,
        Self::TooDeep,
        Self::LineTooLong,
        Self::Truncated,
        Self::UnsupportedVersion,
        Self::Violation,
        Self::Unencodable,
        Self::Io,
    ];
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with its kind, position and a short excerpt of the offending input.
///
/// `line` is 1-based (0 when the error is not tied to a line), `column` is the 1-based
/// byte offset within the line (0 when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    line: u64,
    column: u64,
    message: String,
    excerpt: String,
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with a human-readable `message` and no position.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, line: 0, column: 0, message: message.into(), excerpt: String::new() }
    }

    /// The same error, placed at `line` (1-based).
    #[must_use]
    pub fn at_line(mut self, line: u64) -> Self {
        self.line = line;
        self
    }

    /// The same error, placed at `column` (1-based byte offset) with an `excerpt` of the input.
    #[must_use]
    pub fn at_column(mut self, column: u64, excerpt: impl Into<String>) -> Self {
        self.column = column;
        self.excerpt = excerpt.into();
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The 1-based line number, or 0 when the error is not tied to a line.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The 1-based byte column within the line, or 0 when unknown.
    pub fn column(&self) -> u64 {
        self.column
    }

    /// The human-readable description, without position.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// A short excerpt of the input around the error (may be empty).
    pub fn excerpt(&self) -> &str {
        &self.excerpt
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}", self.line)?;
            if self.column > 0 {
                write!(f, ", column {}", self.column)?;
            }
            f.write_str(": ")?;
        }
        write!(f, "{}: {}", self.kind, self.message)?;
        if !self.excerpt.is_empty() {
            write!(f, " (near `{}`)", self.excerpt)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Most characters of input text quoted in a message.
const MAX_QUOTED: usize = 64;

/// `text` as a message quotes it: whole when short, else its first [`MAX_QUOTED`]
/// characters and how many bytes were left out (so that a hostile line of megabytes makes a
/// message of a few dozen bytes, never one as long as itself).
pub(crate) fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTED) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => {
            let kept = text.get(..end).unwrap_or_default();
            std::borrow::Cow::Owned(format!("{kept}…(+{} bytes)", text.len() - end))
        }
    }
}

/// As `{"kind", "line", "column", "message", "excerpt"}`.
impl Serialize for Error {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut e = s.serialize_struct("Error", 5)?;
        e.serialize_field("kind", self.kind.as_str())?;
        e.serialize_field("line", &self.line)?;
        e.serialize_field("column", &self.column)?;
        e.serialize_field("message", &self.message)?;
        e.serialize_field("excerpt", &self.excerpt)?;
        e.end()
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Self::new(ErrorKind::Io, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_on_a_character() {
        assert_eq!(clip("v2"), "v2");
        let exact = "é".repeat(MAX_QUOTED);
        assert_eq!(clip(&exact), exact.as_str());
        let long = "é".repeat(MAX_QUOTED + 10);
        assert_eq!(clip(&long), format!("{}…(+20 bytes)", "é".repeat(MAX_QUOTED)));
        assert!(clip(&"9".repeat(1 << 20)).len() < 100);
    }
}
