//! The FFI boundary: every entry point runs its body in `guard` (or `guard_void` when it
//! cannot fail), which runs it under hep-core's [`catch_panic`]. A panic (a bug of the
//! library) becomes an error of kind `internal` naming the panic; no panic unwinds into the
//! caller. The crate is built with `panic = "unwind"` (Rust's default), so a panic can be
//! caught; every binding crate names this module `boundary` (docs/api.md).

use crate::errors::{Failure, HepError};
use hep_core::boundary::catch_panic;

/// Runs `body`; its error, or a caught panic as an `internal` error, is handed to the caller
/// through `error_out` (when not NULL). Returns whether `body` succeeded.
pub(crate) fn guard(error_out: *mut *mut HepError, body: impl FnOnce() -> Result<(), Failure>) -> bool {
    let failure = match catch_panic(body) {
        Ok(Ok(())) => return true,
        Ok(Err(failure)) => failure,
        Err(message) => Failure::internal(message),
    };
    if !error_out.is_null() {
        // A panic while boxing the error (out of memory aborts instead) cannot happen.
        let error = Box::into_raw(Box::new(HepError::from(failure)));
        // SAFETY: the caller passes `error_out` as a valid place for one pointer (checked
        // not NULL above), as each entry point's doc requires.
        unsafe { error_out.write(error) };
    }
    false
}

/// Runs `body`, which cannot fail; a caught panic is dropped (the entry point has no way to
/// report it, and must not unwind).
pub(crate) fn guard_void(body: impl FnOnce()) {
    let _ = catch_panic(body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::HepErrorKind;

    /// A panicking body comes out as an `internal` error with the panic's message; a body's
    /// own error passes through; success writes nothing.
    #[test]
    fn a_panic_becomes_an_internal_error() {
        let mut error: *mut HepError = std::ptr::null_mut();
        assert!(!guard(&mut error, || panic!("boom")));
        // SAFETY: `guard` wrote a boxed error there.
        let caught = unsafe { Box::from_raw(error) };
        assert_eq!(caught.kind, HepErrorKind::Internal);
        assert_eq!(caught.message.as_str(), Some("hep internal error: boom"));

        let mut error: *mut HepError = std::ptr::null_mut();
        assert!(!guard(&mut error, || Err(Failure::argument("data is NULL"))));
        // SAFETY: as above.
        let returned = unsafe { Box::from_raw(error) };
        assert_eq!(returned.kind, HepErrorKind::InvalidArgument);

        let mut error: *mut HepError = std::ptr::null_mut();
        assert!(guard(&mut error, || Ok(())));
        assert!(error.is_null());
        assert!(!guard(std::ptr::null_mut(), || panic!("no place for the error")));
        guard_void(|| panic!("swallowed"));
    }
}
