//! The core's supervision policy as constants (the grace periods, the stderr tail, the drop
//! threshold, the exit codes), for `HepProcess`, `Supervisor` and `ExitCode` in Swift.

use hep_core::supervise;

/// The cancel and exit-code policy of `hep_core::supervise`, in one record.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct SupervisionPolicy {
    /// After SIGINT, how long a harness gets to settle, write `cancelled` and exit before
    /// SIGTERM: the reference's 10 s settle plus 2 s to drain its stdout and exit (12 s).
    pub interrupt_grace_ms: u64,
    /// After SIGTERM, how long before SIGKILL (2 s).
    pub terminate_grace_ms: u64,
    /// Bytes of the child's stderr kept (the most recent ones).
    pub stderr_tail_bytes: u64,
    /// The least number of waiting bytes past which events and stderr lines are counted
    /// instead of kept (1 MiB).
    pub min_drop_at_bytes: u64,
    /// Exit code of a run whose last terminal frame is `turn_done`.
    pub exit_ok: i32,
    /// Exit code of a run whose last terminal frame is `turn_error`.
    pub exit_failed: i32,
    /// Exit code of a cancelled run (128 + SIGINT).
    pub exit_cancelled: i32,
}

/// The core's supervision policy.
#[uniffi::export]
pub fn supervision_policy() -> SupervisionPolicy {
    let millis = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    SupervisionPolicy {
        interrupt_grace_ms: millis(supervise::INTERRUPT_GRACE),
        terminate_grace_ms: millis(supervise::TERMINATE_GRACE),
        stderr_tail_bytes: supervise::STDERR_TAIL_BYTES as u64,
        min_drop_at_bytes: supervise::MIN_DROP_AT_BYTES as u64,
        exit_ok: supervise::EXIT_OK,
        exit_failed: supervise::EXIT_FAILED,
        exit_cancelled: supervise::EXIT_CANCELLED,
    }
}

/// The exit code of a process killed by `signal` (128 + the signal number).
#[uniffi::export]
pub fn exit_code_of_signal(signal: i32) -> i32 {
    supervise::exit_code_for_signal(signal)
}
