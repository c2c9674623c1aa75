//! The boundary between JavaScript and the addon: every export runs its body in [`guard`],
//! where a panic (a bug) becomes an internal failure, and a failure is thrown to the caller
//! as the `HepError` that the factory of `lib/errors.js` builds from its record. Every
//! binding crate names this module `boundary` (docs/api.md).

use crate::errors::{Failure, Outcome};
use hep_core::boundary::catch_panic;
use napi::bindgen_prelude::{Env, Function, FunctionRef, Status, Unknown};
use napi_derive::napi;

/// Runs the body of an export: a panic becomes an internal failure, and a failure is thrown
/// to the caller as a `HepError` (code `HEP_INTERNAL` for an internal one). Every export
/// runs its body in it; their `catch_unwind` attribute covers what napi does around the body
/// (argument conversion), where a panic is thrown as a plain `Error`.
pub(crate) fn guard<T>(env: &Env, body: impl FnOnce() -> Outcome<T>) -> napi::Result<T> {
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
    guard(&env, || Ok(env.set_instance_data(Factory(factory.create_ref()?), (), |_| {})?))
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
    use hep_core::{Error, ErrorKind};

    /// What `guard` throws: a panicking body becomes an internal failure whose record is
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
