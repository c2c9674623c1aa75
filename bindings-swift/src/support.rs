//! What the Swift layer takes from the core besides frames: the supervision policy (grace
//! periods, exit codes), terminal sanitising, the bounds, and the liveness actions.

use crate::errors::CoreError;
use crate::guard::guard;
use hep_core::ArgsMode;
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

/// The protocol version this library speaks (`"v1"`).
#[uniffi::export]
pub fn core_protocol_version() -> String {
    hep_core::PROTOCOL_VERSION.to_owned()
}

/// `text` with every terminal-driving character turned into a visible escape.
#[uniffi::export]
pub fn sanitize_for_terminal(text: String) -> String {
    match hep_core::sanitize::sanitize(&text) {
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
    hep_core::LivenessAction::parse(&name).map(LivenessAction::from)
}

/// The wire name of `action` (an unknown action's own name).
#[uniffi::export]
pub fn liveness_action_name(action: LivenessAction) -> String {
    action.name().to_owned()
}

/// How `tool_start` arguments become `args_summary`.
#[uniffi::remote(Enum)]
pub enum ArgsMode {
    Summary,
    Full,
}

/// The `action` of a `tool_liveness` frame: one of HEP v1's, or an action a newer emitter
/// writes, kept with its wire name (a frame with one is still read, as an unknown frame
/// type is).
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum LivenessAction {
    /// Periodic heartbeat of a running call.
    Heartbeat,
    /// Stuck-call follow-up: the call is cancelled and retried.
    CancelRetry,
    /// Stuck-call follow-up: the call is moved to the background.
    BackgroundConvert,
    /// Stuck-call follow-up: escalated to the user.
    Escalate,
    /// Stuck-call follow-up: advisory note only.
    Advisory,
    /// An action HEP v1 does not define, by its wire name.
    Unknown(String),
}

impl LivenessAction {
    /// The action a frame's `action` names.
    pub fn from_wire(name: String) -> Self {
        hep_core::LivenessAction::parse(&name).map_or(Self::Unknown(name), Self::from)
    }

    /// The wire name.
    pub fn name(&self) -> &str {
        match self {
            Self::Unknown(name) => name,
            Self::Heartbeat => hep_core::LivenessAction::Heartbeat.as_str(),
            Self::CancelRetry => hep_core::LivenessAction::CancelRetry.as_str(),
            Self::BackgroundConvert => hep_core::LivenessAction::BackgroundConvert.as_str(),
            Self::Escalate => hep_core::LivenessAction::Escalate.as_str(),
            Self::Advisory => hep_core::LivenessAction::Advisory.as_str(),
        }
    }

    /// The wire name, owned (what a frame holds).
    pub fn into_wire(self) -> String {
        match self {
            Self::Unknown(name) => name,
            known => known.name().to_owned(),
        }
    }

    /// The core's action, for one v1 defines.
    pub fn known(&self) -> Option<hep_core::LivenessAction> {
        hep_core::LivenessAction::parse(self.name()).filter(|_| !matches!(self, Self::Unknown(_)))
    }
}

impl From<hep_core::LivenessAction> for LivenessAction {
    fn from(action: hep_core::LivenessAction) -> Self {
        match action {
            hep_core::LivenessAction::Heartbeat => Self::Heartbeat,
            hep_core::LivenessAction::CancelRetry => Self::CancelRetry,
            hep_core::LivenessAction::BackgroundConvert => Self::BackgroundConvert,
            hep_core::LivenessAction::Escalate => Self::Escalate,
            hep_core::LivenessAction::Advisory => Self::Advisory,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_v1_action_round_trips_and_others_keep_their_name() {
        for action in hep_core::LivenessAction::ALL {
            let ours = LivenessAction::from_wire(action.as_str().to_owned());
            assert_eq!(ours, LivenessAction::from(action));
            assert_eq!(ours.known(), Some(action));
            assert_eq!(ours.into_wire(), action.as_str());
        }
        let future = LivenessAction::from_wire("reroute".to_owned());
        assert_eq!(future, LivenessAction::Unknown("reroute".to_owned()));
        assert_eq!(future.known(), None);
        assert_eq!(LivenessAction::Unknown("heartbeat".to_owned()).known(), None);
        assert_eq!(future.into_wire(), "reroute");
    }
}
