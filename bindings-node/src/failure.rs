//! What a native call can fail with, and how a failure reaches JavaScript: as the `HepError`
//! that the factory of `lib/errors.js` builds from the failure's record.

use hep_core::Error;
use hep_core::boundary::catch_panic;
use napi::bindgen_prelude::{Env, Function, FunctionRef, Status, Unknown};
use napi_derive::napi;
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

/// Runs the body of an export: a panic becomes an internal failure, and a failure is thrown
/// to the caller as a `HepError` (code `HEP_INTERNAL` for an internal one). Every export
/// runs its body in it; their `catch_unwind` attribute covers what napi does around the body
/// (argument conversion), where a panic is thrown as a plain `Error`.
pub(crate) fn boundary<T>(env: &Env, body: impl FnOnce() -> Outcome<T>) -> napi::Result<T> {
    caught(body).map_err(|failure| throw(env, &failure))
}

/// The outcome of `body`, a panic inside it turned into an internal failure.
fn caught<T>(body: impl FnOnce() -> Outcome<T>) -> Outcome<T> {
    catch_panic(body).unwrap_or_else(|message| Err(Failure::Internal(message)))
}

/// The `HepError` factory of `lib/errors.js`: a record (JSON text) in, an error out.
struct Factory(FunctionRef<String, Unknown<'static>>);

/// Registers the factory that turns failure records into `HepError`s (once, at load).
#[napi(catch_unwind)]
pub fn register_error_factory(env: Env, factory: Function<'_, String, Unknown<'static>>) -> napi::Result<()> {
    boundary(&env, || Ok(env.set_instance_data(Factory(factory.create_ref()?), (), |_| {})?))
}

/// Throws `failure` as a `HepError`; the returned error tells napi that an exception is
/// pending (or, should the factory be missing, is thrown as a plain `Error`).
///
/// A JavaScript exception that a failed napi call of the body left pending (the `TypeError`
/// of a conversion) makes the first call of the factory fail, and that failure clears it:
/// the second call then makes the `HepError`.
fn throw(env: &Env, failure: &Failure) -> napi::Error {
    let record = failure.record();
    let raise = || {
        env.get_instance_data::<Factory>()
            .and_then(|factory| {
                let factory = factory.ok_or_else(|| napi::Error::from_reason("the error factory is not registered"))?;
                factory.0.borrow_back(env)?.call(record.clone())
            })
            .and_then(|error| env.throw(error))
    };
    match raise().or_else(|_| raise()) {
        Ok(()) => napi::Error::from_status(Status::PendingException),
        Err(e) => napi::Error::from_reason(format!("{record} ({e})")),
    }
}

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

    /// What `boundary` throws: a panicking body becomes an internal failure whose record is
    /// kind `internal` (`HEP_INTERNAL` in JavaScript) with the panic's message; other
    /// outcomes pass through.
    #[test]
    fn panics_become_internal_failures() {
        for (outcome, text) in [
            (caught(|| -> Outcome<()> { panic!("boom") }), "hep internal error: boom"),
            (caught(|| -> Outcome<()> { panic!("{}", 42) }), "hep internal error: 42"),
            (
                caught(|| -> Outcome<()> { std::panic::panic_any(7_u8) }),
                "hep internal error: a panic without a message",
            ),
        ] {
            let Err(failure @ Failure::Internal(_)) = outcome else { panic!("not an internal failure: {outcome:?}") };
            let record: serde_json::Value = serde_json::from_str(&failure.record()).unwrap();
            assert_eq!(record["kind"], "internal");
            assert_eq!(record["text"], text);
        }
        assert_eq!(caught(|| Ok(5)).unwrap(), 5);
        let kept = caught(|| -> Outcome<()> { Err(Error::new(ErrorKind::Syntax, "bad").into()) });
        assert!(matches!(kept, Err(Failure::Hep(e)) if e.kind() == ErrorKind::Syntax));
    }
}
