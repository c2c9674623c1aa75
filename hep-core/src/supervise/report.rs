//! [`Supervision`]: how a supervised run went besides what its stream says, as the run's
//! result reports it, with the signals sent ([`SentSignal`]).

#[cfg(doc)]
use super::SuperviseOptions;
use super::{CancelReason, Signal};
#[cfg(doc)]
use crate::verdict::RunResult;
use serde::Serialize;

/// A signal the supervisor had sent, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SentSignal {
    /// Milliseconds after the supervisor started.
    pub at_ms: u64,
    /// The signal.
    pub signal: Signal,
}

/// How a supervised run went, besides what its stream says ([`RunResult::supervision`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Supervision {
    /// The timeout ran out and cancelled the run.
    pub timed_out: bool,
    /// Who cancelled the run, when it was cancelled.
    pub cancelled_by: Option<CancelReason>,
    /// The cancel's signals, in order.
    pub signals: Vec<SentSignal>,
    /// The end of the child's stderr (at most [`SuperviseOptions::stderr_tail_bytes`]).
    pub stderr_tail: String,
    /// Bytes of stderr before the tail, not kept.
    pub stderr_dropped: u64,
    /// Events (frames, reports) and stderr lines not handed to the consumer because it fell
    /// far behind (stdout read on through a cancel or the drain, or a stderr flood); the
    /// result still counts what the events said.
    pub notices_dropped: u64,
    /// Milliseconds from the start to the end of the run.
    pub duration_ms: u64,
}
