//! Process-supervision policy shared by every binding: the grace periods of a cancel, how
//! much stderr to keep, and what exit codes mean. Sans-IO: bindings do the signalling.
//!
//! # Why these grace periods
//!
//! On SIGINT or SIGTERM the reference harness (`_gracefulHeadlessExit` in `bin/fah.dart`)
//! aborts the run if it is streaming, waits up to [`REFERENCE_SETTLE`] (10 s) for the run to
//! settle (the partial transcript persisted, `cancelled` written), drains its stdout, then
//! exits 130; a second SIGTERM makes it exit 143 at once, losing what it had not written.
//! So a supervisor sends SIGINT first and waits [`INTERRUPT_GRACE`]: the settle bound plus
//! [`DRAIN_ALLOWANCE`] for the drain and the exit. Only then SIGTERM, and after
//! [`TERMINATE_GRACE`] SIGKILL, which no process can ignore.
//!
//! # The state machine
//!
//! [`Supervisor`] holds the whole policy of running a harness: reading its stdout into a
//! [`Stream`](crate::Stream), its stderr into lines and a [`Tail`], the cancel ladder, the
//! total and idle timeouts, the drain after the child exits, backpressure, and the verdict.
//! It does no I/O (the pattern of quinn-proto's `Connection`): a driver tells it what
//! happened and what time it is, carries out its [`Action`]s (signals to the child's
//! process group, pausing stdout, closing the pipes), hands its events (frames, reports)
//! and stderr lines to the user, and wakes it at [`Supervisor::deadline`].

use std::time::Duration;

mod action;
mod lines;
mod machine;
mod options;
mod report;
mod tail;

pub use action::{Action, SignalStep};
pub use lines::StderrLines;
pub use machine::Supervisor;
pub use options::{CancelReason, ExitStatus, Signal, SuperviseOptions};
pub use report::{SentSignal, Supervision};
pub use tail::Tail;

/// How long the reference waits for an interrupted run to settle before it exits 130.
pub const REFERENCE_SETTLE: Duration = Duration::from_secs(10);
/// Time allowed beyond [`REFERENCE_SETTLE`] for the harness to drain stdout and exit.
pub const DRAIN_ALLOWANCE: Duration = Duration::from_secs(2);
/// After SIGINT, how long a harness gets to settle, write what it has and exit before
/// SIGTERM: [`REFERENCE_SETTLE`] + [`DRAIN_ALLOWANCE`] (12 s).
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(REFERENCE_SETTLE.as_secs() + DRAIN_ALLOWANCE.as_secs());
/// After SIGTERM, how long before SIGKILL.
pub const TERMINATE_GRACE: Duration = Duration::from_secs(2);
/// Bytes of the child's stderr kept (the most recent ones).
pub const STDERR_TAIL_BYTES: usize = 64 << 10;
/// After the child exits, how long its pipes are still read (a process it left behind,
/// outside its group, may hold them open; the reading stops then).
pub const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);
/// Longest stderr line handed over live, in bytes; a longer line is cut there.
pub const MAX_STDERR_LINE: usize = 16 << 10;
/// Bytes of frames and stderr lines waiting for the consumer above which stdout is no
/// longer read (the child then blocks on a full pipe); reading resumes at half of it.
pub const PAUSE_AT_BYTES: usize = 1 << 20;
/// The least number of waiting bytes past which events and stderr lines are counted
/// instead of kept ([`SuperviseOptions::drop_at_bytes`]).
pub const MIN_DROP_AT_BYTES: usize = 1 << 20;

/// Exit code of a run whose last terminal frame is `turn_done`.
pub const EXIT_OK: i32 = 0;
/// Exit code of a run whose last terminal frame is `turn_error`.
pub const EXIT_FAILED: i32 = 1;
/// Exit code of a cancelled run (128 + SIGINT).
pub const EXIT_CANCELLED: i32 = 130;

/// The shell convention for a process killed by `signal`: 128 + the signal number
/// (saturating, so no argument can overflow).
pub fn exit_code_for_signal(signal: i32) -> i32 {
    128i32.saturating_add(signal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_outlasts_the_reference_settle_and_drain() {
        assert!(INTERRUPT_GRACE >= REFERENCE_SETTLE + DRAIN_ALLOWANCE);
        assert!(DRAIN_ALLOWANCE > Duration::ZERO);
    }

    #[test]
    fn signals_map_to_shell_exit_codes() {
        assert_eq!(exit_code_for_signal(2), EXIT_CANCELLED);
        assert_eq!(exit_code_for_signal(9), 137);
        assert_eq!(exit_code_for_signal(i32::MAX), i32::MAX);
    }
}
