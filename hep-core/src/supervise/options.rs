//! What a [`Supervisor`](super::Supervisor) is configured with and told about: options,
//! cancel reasons, signals and how the child ended.

use super::{
    DRAIN_AFTER_EXIT, INTERRUPT_GRACE, MAX_STDERR_LINE, MIN_DROP_AT_BYTES, PAUSE_AT_BYTES, STDERR_TAIL_BYTES,
    TERMINATE_GRACE, exit_code_for_signal,
};
use crate::stream::StreamOptions;
use serde::Serialize;
use std::time::Duration;

/// How a run is supervised. `Default` gives the core's policy; every field can be changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuperviseOptions {
    /// How stdout is read (strict or lenient, line length, retention limits).
    pub stream: StreamOptions,
    /// The longest the run may take; past it, the run is cancelled ([`CancelReason::Timeout`]).
    pub timeout: Option<Duration>,
    /// The longest the child may go without writing a frame; past it, the run is cancelled
    /// ([`CancelReason::Idle`]). Any frame counts, a tool call's `tool_liveness` heartbeats
    /// included; stderr output does not.
    pub idle_timeout: Option<Duration>,
    /// After SIGINT, the wait before SIGTERM ([`INTERRUPT_GRACE`]).
    pub interrupt_grace: Duration,
    /// After SIGTERM, the wait before SIGKILL ([`TERMINATE_GRACE`]).
    pub terminate_grace: Duration,
    /// After the child exits, how long its pipes are still read ([`DRAIN_AFTER_EXIT`]).
    pub drain: Duration,
    /// Bytes of stderr kept for the result ([`STDERR_TAIL_BYTES`]).
    pub stderr_tail_bytes: usize,
    /// Longest stderr line handed over live ([`MAX_STDERR_LINE`]).
    pub max_stderr_line: usize,
    /// Bytes waiting for the consumer above which stdout is paused ([`PAUSE_AT_BYTES`]).
    pub pause_at_bytes: usize,
}

impl SuperviseOptions {
    /// Bytes of waiting events (or, in their own queue, stderr lines) past which further
    /// ones are counted instead of kept: 16 × [`SuperviseOptions::pause_at_bytes`], and at
    /// least [`MIN_DROP_AT_BYTES`].
    pub fn drop_at_bytes(&self) -> usize {
        self.pause_at_bytes.saturating_mul(16).max(MIN_DROP_AT_BYTES)
    }
}

impl Default for SuperviseOptions {
    fn default() -> Self {
        Self {
            stream: StreamOptions::default(),
            timeout: None,
            idle_timeout: None,
            interrupt_grace: INTERRUPT_GRACE,
            terminate_grace: TERMINATE_GRACE,
            drain: DRAIN_AFTER_EXIT,
            stderr_tail_bytes: STDERR_TAIL_BYTES,
            max_stderr_line: MAX_STDERR_LINE,
            pause_at_bytes: PAUSE_AT_BYTES,
        }
    }
}

/// Why a run was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    /// The caller asked (Ctrl-C, `cancel()`, a cancelled task).
    User,
    /// [`SuperviseOptions::timeout`] ran out.
    Timeout,
    /// [`SuperviseOptions::idle_timeout`] ran out.
    Idle,
}

impl CancelReason {
    /// `"user"`, `"timeout"` or `"idle"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Timeout => "timeout",
            Self::Idle => "idle",
        }
    }

    /// Parses [`CancelReason::as_str`]'s names.
    pub fn parse(name: &str) -> Option<Self> {
        [Self::User, Self::Timeout, Self::Idle].into_iter().find(|r| r.as_str() == name)
    }
}

/// A signal the driver sends to the child's process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Signal {
    /// SIGINT: the harness's own graceful cancel.
    #[serde(rename = "SIGINT")]
    Interrupt,
    /// SIGTERM: the last polite word.
    #[serde(rename = "SIGTERM")]
    Terminate,
    /// SIGKILL: cannot be ignored.
    #[serde(rename = "SIGKILL")]
    Kill,
}

impl Signal {
    /// `"SIGINT"`, `"SIGTERM"` or `"SIGKILL"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
            Self::Kill => "SIGKILL",
        }
    }

    /// The POSIX signal number (2, 15, 9).
    pub fn number(self) -> i32 {
        match self {
            Self::Interrupt => 2,
            Self::Terminate => 15,
            Self::Kill => 9,
        }
    }

    /// Parses [`Signal::name`]'s names.
    pub fn parse(name: &str) -> Option<Self> {
        [Self::Interrupt, Self::Terminate, Self::Kill].into_iter().find(|s| s.name() == name)
    }
}

/// How the child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// A signal with this number killed it.
    Signal(i32),
    /// It is gone, but how it ended is unknown (something else reaped it): the run is
    /// judged without an exit code.
    Unknown,
}

impl ExitStatus {
    /// The exit code a shell reports: the code, or 128 + the signal number (`None` when
    /// unknown).
    pub fn code(self) -> Option<i32> {
        match self {
            Self::Code(code) => Some(code),
            Self::Signal(signal) => Some(exit_code_for_signal(signal)),
            Self::Unknown => None,
        }
    }
}
