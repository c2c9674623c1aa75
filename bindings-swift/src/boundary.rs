//! The FFI boundary: the guard the throwing exports run their body in. A panic of the binding
//! (a bug) becomes `CoreError::Internal`, which Swift catches like any error, instead of
//! uniffi's own `rustPanic` (an error type private to the generated file). Every binding
//! crate names this module `boundary` (docs/api.md).
//!
//! Every throwing export runs its body in [`guard`]; the Swift layer (`rethrowingHepError`)
//! rethrows `CoreError.Internal` as `HepError.internal(message:)`.
//!
//! uniffi itself catches a panic at every export, so none unwinds into Swift; but the
//! generated Swift calls an export that does not throw with `try!`, which turns a caught
//! panic into a `fatalError`: such exports must not panic at all. They are total, cannot
//! panic (hep-core denies `unwrap`, `expect`, `panic!` and indexing; each `Mutex` lock
//! recovers from poisoning; the arithmetic is checked below):
//!
//! - `supervision_policy`, `core_protocol_version`, `default_limits`: constants, widened
//!   with `try_from(..).unwrap_or(MAX)`.
//! - `exit_code_of_signal`: `hep_core::supervise::exit_code_for_signal` saturates.
//! - `sanitize_for_terminal`: a walk over the characters, writing escapes to a `String`.
//! - `cap_text`, `count_utf16_units`: the UTF-16 count is at most the byte count, the kept
//!   prefix at most the count (`total - kept` cannot wrap), the limit saturates to `usize`.
//! - the custom types `CoreToolLiveness` and `CoreLiveness`: field moves and total `match`es
//!   (`LivenessAction::from_wire`, `into_wire`).
//! - `FrameBatch.address`, `FrameBatch.length`: casts of a pointer and a length.
//! - `CoreWriter.init`, `turnId`, `turnStart`: `current_turn_id` saturates; opening a turn
//!   adds 1 to a `u64` id, which 2^64 turns would take to overflow.
//! - `supervise_defaults`: constants, widened as above.
//! - `supervise_drop_at_bytes`: the core's `drop_at_bytes` saturates (`saturating_mul`);
//!   the conversions widen as above.
//! - `CoreSupervisor` (every method): hep-core's `Supervisor`, whose arithmetic saturates
//!   (times with `saturating_add`, counts in `u64`); the conversions around it widen with
//!   `try_from(..).unwrap_or(MAX)`; `poll_events` counts bytes with `saturating_add`.
//! - `CoreStream.init`, `violations`, `skipped`, `halted`, `receivedBeforeHalt`: a
//!   constructor and clones of what the stream kept.
//!
//! `CoreStream.finish` and `CoreSupervisor.result` do not throw either, but run the core's
//! end-of-stream checks and build the run result: their freedom from panics rests on
//! hep-core's lints, not on a check of each sum.

use crate::errors::CoreError;
use hep_core::boundary::catch_panic;

/// Runs `body`; a panic inside it is returned as [`CoreError::Internal`] naming the panic.
pub(crate) fn guard<T>(body: impl FnOnce() -> Result<T, CoreError>) -> Result<T, CoreError> {
    catch_panic(body).unwrap_or_else(|message| Err(CoreError::Internal { message }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hep_core::{Error, ErrorKind};

    /// A panicking body comes out as `CoreError::Internal` with the panic's message; what
    /// a body returns passes through untouched.
    #[test]
    fn a_panic_becomes_an_internal_error() {
        let internal = |message: &str| Err(CoreError::Internal { message: message.to_owned() });
        assert_eq!(guard(|| -> Result<(), _> { panic!("boom") }), internal("hep internal error: boom"));
        assert_eq!(guard(|| -> Result<(), _> { panic!("{}", 42) }), internal("hep internal error: 42"));
        let silent = guard(|| -> Result<(), _> { std::panic::panic_any(7_u8) });
        assert_eq!(silent, internal("hep internal error: a panic without a message"));
        assert_eq!(guard(|| Ok(5)), Ok(5));
        let failed = CoreError::from(Error::new(ErrorKind::Syntax, "bad"));
        assert_eq!(guard(|| -> Result<(), _> { Err(failed.clone()) }), Err(failed));
    }
}
