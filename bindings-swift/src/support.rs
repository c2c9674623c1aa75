//! What the Swift layer takes from the core besides frames: the supervision policy (grace
//! periods, exit codes, the stderr tail), terminal sanitising, the bounds, and the names of
//! the liveness actions.

use crate::errors::CoreError;
use crate::guard::guard;
use hep_core::supervise::{self, Tail};
use hep_core::{ArgsMode, LivenessAction};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

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

/// The protocol version this library speaks (`"v1"`).
#[uniffi::export]
pub fn core_protocol_version() -> String {
    hep_core::PROTOCOL_VERSION.to_owned()
}

/// The last bytes of a byte stream (a child's stderr), bounded: `hep_core::supervise::Tail`.
#[derive(Debug, uniffi::Object)]
pub struct CoreTail(Mutex<Tail>);

impl CoreTail {
    fn inner(&self) -> MutexGuard<'_, Tail> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl CoreTail {
    /// An empty tail keeping the core's `STDERR_TAIL_BYTES`, or `cap` bytes.
    #[uniffi::constructor(default(cap = None))]
    pub fn new(cap: Option<u64>) -> Arc<Self> {
        let cap = cap.map_or(supervise::STDERR_TAIL_BYTES, |c| usize::try_from(c).unwrap_or(usize::MAX));
        Arc::new(Self(Mutex::new(Tail::new(cap))))
    }

    /// Appends `chunk`, forgetting the oldest bytes beyond the cap.
    pub fn push(&self, chunk: &[u8]) {
        self.inner().push(chunk);
    }

    /// The kept bytes as text (invalid UTF-8 as U+FFFD).
    pub fn text(&self) -> String {
        self.inner().text()
    }

    /// Bytes forgotten so far.
    pub fn dropped(&self) -> u64 {
        self.inner().dropped()
    }
}

/// `text` with every terminal-driving character turned into a visible escape.
#[uniffi::export]
pub fn sanitize_for_terminal(text: String) -> String {
    match hep_core::display::sanitize(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(clean) => clean,
    }
}

/// `text` capped at `limit` UTF-16 units with the `…(+N chars)` suffix.
#[uniffi::export]
pub fn cap_text(text: String, limit: u64) -> String {
    hep_core::bounds::cap(&text, usize::try_from(limit).unwrap_or(usize::MAX))
}

/// The length of `text` in UTF-16 code units (the protocol's "characters").
#[uniffi::export]
pub fn count_utf16_units(text: String) -> u64 {
    hep_core::bounds::utf16_len(&text) as u64
}

/// The `args_summary` the writer gives `args` (the JSON text of an object) in `mode`.
#[uniffi::export]
pub fn render_tool_args(args: String, mode: ArgsMode) -> Result<String, CoreError> {
    guard(|| Ok(hep_core::bounds::render_args(&hep_core::parse_args(&args)?, mode)))
}

/// The action named `name` (`"heartbeat"`, `"cancel_retry"`, ...), if v1 defines it.
#[uniffi::export]
pub fn liveness_action_named(name: String) -> Option<LivenessAction> {
    LivenessAction::parse(&name)
}

/// The wire name of `action`.
#[uniffi::export]
pub fn liveness_action_name(action: LivenessAction) -> String {
    action.as_str().to_owned()
}

/// How `tool_start` arguments become `args_summary`.
#[uniffi::remote(Enum)]
pub enum ArgsMode {
    Summary,
    Full,
}

/// The `tool_liveness.action` values of HEP v1.
#[uniffi::remote(Enum)]
pub enum LivenessAction {
    Heartbeat,
    CancelRetry,
    BackgroundConvert,
    Escalate,
    Advisory,
}
