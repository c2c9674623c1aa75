//! What a native call can fail with, and the record of a failure that `lib/errors.js`
//! turns into a `HepError`.

use hep_core::Error;
use serde::Serialize;

/// A failure of a native call.
#[derive(Debug)]
pub(crate) enum Failure {
    /// An error of the core: a rejected line, an unencodable value, a malformed frame object.
    Hep(Error),
    /// A bug of the binding (a panic, a napi call that failed); never expected.
    Internal(String),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Self::Hep(error)
    }
}

impl From<napi::Error> for Failure {
    fn from(error: napi::Error) -> Self {
        Self::Internal(format!("{}: {}", error.status, error.reason))
    }
}

/// The result of the body of an export.
pub(crate) type Outcome<T> = Result<T, Failure>;

/// An error as `lib/errors.js` reads it: the core's fields, and its full text (position,
/// kind, message and excerpt, as the core displays it).
#[derive(Serialize)]
pub(crate) struct Record<'a> {
    kind: &'a str,
    line: u64,
    column: u64,
    message: &'a str,
    excerpt: &'a str,
    text: String,
}

impl<'a> Record<'a> {
    /// The record of a core error.
    pub(crate) fn of(error: &'a Error) -> Self {
        Self {
            kind: error.kind().as_str(),
            line: error.line(),
            column: error.column(),
            message: error.message(),
            excerpt: error.excerpt(),
            text: error.to_string(),
        }
    }

    /// The record of a failure of the binding itself (kind `internal`).
    pub(crate) fn internal(message: &'a str) -> Self {
        Self { kind: "internal", line: 0, column: 0, message, excerpt: "", text: message.to_owned() }
    }
}

impl Failure {
    /// The failure as the JSON of its [`Record`].
    pub(crate) fn record(&self) -> String {
        let record = match self {
            Self::Hep(error) => Record::of(error),
            Self::Internal(message) => Record::internal(message),
        };
        serde_json::to_string(&record).unwrap_or_else(|_| INTERNAL.to_owned())
    }
}

/// The record of a failure whose record could not be written.
const INTERNAL: &str =
    r#"{"kind":"internal","line":0,"column":0,"message":"unknown","excerpt":"","text":"hep internal error"}"#;

#[cfg(test)]
mod tests {
    use super::*;
    use hep_core::ErrorKind;

    #[test]
    fn records_are_the_core_serialization() {
        let error = Error::new(ErrorKind::WrongType, "bad").at_line(3).at_column(7, "near");
        let record: serde_json::Value = serde_json::from_str(&Failure::from(error).record()).unwrap();
        let text = "line 3, column 7: wrong_type: bad (near `near`)";
        let want = serde_json::json!({"kind": "wrong_type", "line": 3, "column": 7, "message": "bad", "excerpt": "near", "text": text});
        assert_eq!(record, want);
        let internal: serde_json::Value =
            serde_json::from_str(&Failure::Internal("quote \" in it".into()).record()).unwrap();
        assert_eq!(internal["kind"], "internal");
        assert_eq!(internal["text"], "quote \" in it");
    }
}
