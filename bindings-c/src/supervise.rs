//! [`HepSupervisor`]: hep-core's supervision policy (`hep_core::supervise::Supervisor`, a
//! state machine without I/O) behind an opaque handle. The caller's driver spawns the child
//! in its own process group, reads its pipes, keeps the clock and sends the signals; it
//! tells the supervisor what happened and when (milliseconds on any monotonic clock), and
//! polls what to do (`hep_supervisor_poll_action`), what the child said
//! (`hep_supervisor_poll_events`, `hep_supervisor_poll_stderr`), when to call
//! `hep_supervisor_tick` next (`hep_supervisor_deadline`) and the run's result.

use crate::boundary::{guard, guard_void};
use crate::buffers::{HepBytes, HepString, bytes, out, put};
use crate::errors::{Failure, HepError};
use crate::stream::result_json;
use crate::supervise_options::{HepSuperviseOptions, ms};
use hep_core::batch::result::encode_result;
use hep_core::supervise::{CancelReason, ExitStatus, Supervisor};

/// A run under supervision. Not thread-safe: use one handle from one thread at a time
/// (a driver with reader threads passes what they read to one thread, or locks).
/// Freed by `hep_supervisor_free`.
#[derive(Debug)]
pub struct HepSupervisor(pub(crate) Supervisor);

/// Why a run is cancelled (an `int32_t` argument of `hep_supervisor_cancel`).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HepCancelReason {
    /// The caller asked.
    User = 0,
    /// The timeout ran out.
    Timeout = 1,
    /// The idle timeout ran out.
    Idle = 2,
}

/// How the child ended (an `int32_t` argument of `hep_supervisor_exited`).
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HepExitKind {
    /// It exited with a code (`value`).
    Code = 0,
    /// A signal (number `value`) killed it.
    Signal = 1,
    /// It is gone, but how is unknown: the run is judged without an exit code.
    Unknown = 2,
}

/// The supervisor behind `sup`, checked not NULL.
///
/// # Safety
///
/// A non-NULL `sup` comes from `hep_supervisor_new`, is not freed, and is not used by
/// another thread during the call.
pub(crate) unsafe fn handle<'a>(sup: *mut HepSupervisor) -> Result<&'a mut Supervisor, Failure> {
    // SAFETY: forwarded from this function's contract.
    unsafe { sup.as_mut() }.map(|s| &mut s.0).ok_or_else(|| Failure::argument("supervisor is NULL"))
}

/// Runs `body` on the supervisor behind `sup` (see [`handle`]'s contract, which every
/// supervisor entry point states).
pub(crate) fn with(
    sup: *mut HepSupervisor,
    error_out: *mut *mut HepError,
    body: impl FnOnce(&mut Supervisor) -> Result<(), Failure>,
) -> bool {
    guard(error_out, || {
        // SAFETY: every supervisor entry point requires a live handle used by one thread.
        body(unsafe { handle(sup) }?)
    })
}

/// Makes a supervisor for a child started at `now_ms`, with `options` (NULL:
/// `hep_supervise_options_default()`), into `*supervisor_out`.
///
/// # Safety
///
/// `options` is NULL or points to readable options; `supervisor_out` and `error_out` are
/// NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_new(
    options: *const HepSuperviseOptions,
    now_ms: u64,
    supervisor_out: *mut *mut HepSupervisor,
    error_out: *mut *mut HepError,
) -> bool {
    guard(error_out, || {
        let place = out(supervisor_out, "supervisor_out")?;
        // SAFETY: a non-NULL `options` points to options the caller filled.
        let options = unsafe { options.as_ref() }.copied().map(Into::into).unwrap_or_default();
        let sup = Box::into_raw(Box::new(HepSupervisor(Supervisor::new(options, ms(now_ms)))));
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, sup) };
        Ok(())
    })
}

/// `len` bytes at `data` the child wrote on stdout at `now_ms`.
///
/// # Safety
///
/// `sup` is NULL or a live handle from `hep_supervisor_new`, not used by another thread
/// during the call; `data` is NULL or points to `len` readable bytes; `error_out` is NULL
/// or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_stdout(
    sup: *mut HepSupervisor,
    now_ms: u64,
    data: *const u8,
    len: usize,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        // SAFETY: `data` points to `len` bytes, as this function's contract says.
        let data = unsafe { bytes(data, len, "data") }?;
        s.stdout(ms(now_ms), data);
        Ok(())
    })
}

/// `len` bytes at `data` the child wrote on stderr at `now_ms`.
///
/// # Safety
///
/// As `hep_supervisor_stdout`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_stderr(
    sup: *mut HepSupervisor,
    now_ms: u64,
    data: *const u8,
    len: usize,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        // SAFETY: `data` points to `len` bytes, as this function's contract says.
        let data = unsafe { bytes(data, len, "data") }?;
        s.stderr(ms(now_ms), data);
        Ok(())
    })
}

/// The child's stdout reached its end at `now_ms`.
///
/// # Safety
///
/// `sup` is NULL or a live handle from `hep_supervisor_new`, not used by another thread
/// during the call; `error_out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_stdout_closed(
    sup: *mut HepSupervisor,
    now_ms: u64,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        s.stdout_closed(ms(now_ms));
        Ok(())
    })
}

/// The child's stderr reached its end at `now_ms`.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_stderr_closed(
    sup: *mut HepSupervisor,
    now_ms: u64,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        s.stderr_closed(ms(now_ms));
        Ok(())
    })
}

/// The child exited at `now_ms`: `how` is a `HepExitKind` (code `value`, signal number
/// `value`, or unknown).
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_exited(
    sup: *mut HepSupervisor,
    now_ms: u64,
    how: i32,
    value: i32,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let status = match how {
            0 => ExitStatus::Code(value),
            1 => ExitStatus::Signal(value),
            2 => ExitStatus::Unknown,
            other => return Err(Failure::argument(format!("how {other} is no HepExitKind"))),
        };
        s.exited(ms(now_ms), status);
        Ok(())
    })
}

/// Asks at `now_ms` for the run to be cancelled for `reason` (a `HepCancelReason`);
/// `interrupt_grace_ms` (NULL: the options') replaces the interrupt grace when this request
/// starts the cancel. A second cancel takes the ladder's next step at once.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`; `interrupt_grace_ms` is NULL or points to a value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_cancel(
    sup: *mut HepSupervisor,
    now_ms: u64,
    reason: i32,
    interrupt_grace_ms: *const u64,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let reason = match reason {
            0 => CancelReason::User,
            1 => CancelReason::Timeout,
            2 => CancelReason::Idle,
            other => return Err(Failure::argument(format!("reason {other} is no HepCancelReason"))),
        };
        // SAFETY: a non-NULL `interrupt_grace_ms` points to a value the caller set.
        let grace = unsafe { interrupt_grace_ms.as_ref() }.map(|v| ms(*v));
        s.cancel_within(ms(now_ms), reason, grace);
        Ok(())
    })
}

/// Handles every deadline up to `now_ms`.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_tick(
    sup: *mut HepSupervisor,
    now_ms: u64,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        s.tick(ms(now_ms));
        Ok(())
    })
}

/// Whether someone takes the events as they come (the default, `attached`): detached,
/// stdout is never paused (detaching resumes it) and events wait up to the drop threshold.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_set_consumer(
    sup: *mut HepSupervisor,
    now_ms: u64,
    attached: bool,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        s.set_consumer(ms(now_ms), attached);
        Ok(())
    })
}

/// Writes to `*deadline_ms_out` when to call `hep_supervisor_tick` next, or -1 when
/// nothing waits for a time.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`; `deadline_ms_out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_deadline(
    sup: *mut HepSupervisor,
    deadline_ms_out: *mut i64,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let place = out(deadline_ms_out, "deadline_ms_out")?;
        let deadline = s.deadline().map_or(-1, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, deadline) };
        Ok(())
    })
}

/// Writes the next stderr line (without its line end) to `*line_out`, or a NULL string
/// when none waits. Free it with `hep_string_free`.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`; `line_out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_poll_stderr(
    sup: *mut HepSupervisor,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let place = out(line_out, "line_out")?;
        let line = s.poll_stderr().map_or(HepString::NONE, HepString::from);
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, line) };
        Ok(())
    })
}

/// Writes the run's result to `*result_out` once the run is over (the child exited and
/// both pipes closed, or the drain ended): the JSON text of hep-core's `RunResult`, with
/// its `supervision` (who cancelled, the signals, the stderr tail). Before that, a NULL
/// string. Free it with `hep_string_free`.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`; `result_out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_result(
    sup: *mut HepSupervisor,
    result_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let place = out(result_out, "result_out")?;
        let json = s.result().map(result_json).transpose()?;
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, json.unwrap_or(HepString::NONE)) };
        Ok(())
    })
}

/// `hep_supervisor_result` in the layout of hep-core's `batch::result` (see `docs/c.md`)
/// instead of JSON: NULL `data` before the run is over. Free it with `hep_bytes_free`.
///
/// # Safety
///
/// As `hep_supervisor_stdout_closed`; `result_out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_result_binary(
    sup: *mut HepSupervisor,
    result_out: *mut HepBytes,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let place = out(result_out, "result_out")?;
        let bytes = s.result().map_or(HepBytes::NONE, |r| HepBytes::from(encode_result(r)));
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, bytes) };
        Ok(())
    })
}

/// Frees `sup`. NULL is accepted.
///
/// # Safety
///
/// `sup` is NULL or a handle from `hep_supervisor_new`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_free(sup: *mut HepSupervisor) {
    guard_void(|| {
        if !sup.is_null() {
            // SAFETY: a non-NULL `sup` was made by `Box::into_raw` in `hep_supervisor_new`
            // and is freed once, as this function's contract says.
            drop(unsafe { Box::from_raw(sup) });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffers::hep_bytes_free;
    use crate::errors::HepErrorKind;
    use std::ptr::{null, null_mut};

    #[test]
    fn a_run_ends_with_its_result_and_bad_codes_are_errors() {
        let mut sup = null_mut();
        let mut error = null_mut();
        let mut result = HepString::NONE;
        let mut deadline = 0;
        // SAFETY: valid arguments and a live supervisor throughout; errors boxed by the
        // library and freed once.
        unsafe {
            assert!(hep_supervisor_new(null(), 0, &mut sup, null_mut()));
            assert!(hep_supervisor_deadline(sup, &mut deadline, null_mut()));
            assert_eq!(deadline, -1);
            assert!(!hep_supervisor_exited(sup, 5, 9, 0, &mut error));
            assert_eq!(Box::from_raw(error).kind, HepErrorKind::InvalidArgument);
            assert!(!hep_supervisor_cancel(sup, 5, 3, null(), &mut error));
            assert_eq!(Box::from_raw(error).kind, HepErrorKind::InvalidArgument);
            assert!(hep_supervisor_result(sup, &mut result, null_mut()));
            assert!(result.ptr.is_null());
            let mut binary = HepBytes::NONE;
            assert!(hep_supervisor_result_binary(sup, &mut binary, null_mut()));
            assert!(binary.data.is_null());
            assert!(hep_supervisor_exited(sup, 5, HepExitKind::Code as i32, 0, null_mut()));
            assert!(hep_supervisor_stdout_closed(sup, 6, null_mut()));
            assert!(hep_supervisor_stderr_closed(sup, 6, null_mut()));
            assert!(hep_supervisor_result(sup, &mut result, null_mut()));
            assert!(result.as_str().is_some_and(|json| json.starts_with("{\"verdict\":\"incomplete\"")));
            assert!(hep_supervisor_result_binary(sup, &mut binary, null_mut()));
            assert!(binary.bytes().starts_with(b"\x0a\0\0\0incomplete"));
            assert!(!hep_supervisor_result_binary(sup, null_mut(), &mut error));
            assert_eq!(Box::from_raw(error).message.as_str(), Some("result_out is NULL"));
            hep_bytes_free(binary);
            assert!(!hep_supervisor_tick(null_mut(), 1, &mut error));
            assert_eq!(Box::from_raw(error).message.as_str(), Some("supervisor is NULL"));
            hep_supervisor_free(sup);
            hep_supervisor_free(null_mut());
        }
    }
}
