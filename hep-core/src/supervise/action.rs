//! [`Action`]: what the [`Supervisor`](super::Supervisor) tells its driver to do, and the
//! cancel ladder's [`SignalStep`].

use super::{CancelReason, Signal};
use serde::Serialize;
use std::time::Duration;

/// What the driver must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send `step.signal` to the child's process group (a step of a cancel).
    Signal(SignalStep),
    /// The child exited: send SIGKILL to its process group, so that nothing it left there
    /// outlives it.
    KillGroup,
    /// Stop reading stdout: the consumer is behind (the child will block on a full pipe).
    PauseStdout,
    /// Read stdout again.
    ResumeStdout,
    /// Stop reading and close both pipes: the drain after the child's exit is over (a
    /// process outside the group may hold them open).
    ClosePipes,
}

/// A step of the cancel ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SignalStep {
    /// The signal to send.
    pub signal: Signal,
    /// Why the run is being cancelled.
    pub reason: CancelReason,
    /// The step that follows if the child has not exited by then, and the wait before it
    /// (`None` after SIGKILL).
    pub next: Option<(Signal, Duration)>,
}
