//! The typed frame model: one variant per HEP v1 frame type, plus [`Frame::Unknown`].
//!
//! Every type holding text is generic over its string type `S`: `String` by default (an
//! owned frame, what [`Frame`] names), or `Cow<'a, str>` for a frame borrowing from the
//! line it was read from ([`FrameRef`](crate::FrameRef), see the `borrowed` module).

use schemars::JsonSchema;
use serde::Serialize;

/// Largest integer accepted in an integer field: 2^53 - 1, exact in every binding's number type.
pub const MAX_INT: u64 = (1 << 53) - 1;

/// One HEP v1 frame (one line of the stream).
///
/// Frame types this version does not know decode to [`Frame::Unknown`], never to an error.
#[derive(Debug, Clone, PartialEq, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schemars(rename = "Frame")]
pub enum Frame<S = String> {
    /// First line: protocol version, emitter version, session id.
    HepHeader(HepHeader<S>),
    /// The run began (once per run).
    AgentStart(AgentStart),
    /// An assistant message starts.
    MessageStart(MessageStart<S>),
    /// A chunk of assistant text.
    MessageDelta(MessageDelta<S>),
    /// A tool call starts.
    ToolStart(ToolStart<S>),
    /// Partial tool output.
    ToolDelta(ToolDelta<S>),
    /// Heartbeat or stuck-call follow-up for a long-running tool call.
    ToolLiveness(ToolLiveness<S>),
    /// Terminal frame of a successful round.
    TurnDone(TurnDone<S>),
    /// Terminal frame of a failed round.
    TurnError(TurnError<S>),
    /// Terminal frame: the run was aborted.
    Cancelled(TurnRef),
    /// A context compaction begins.
    CompactionStart(TurnRef),
    /// The compaction ended.
    CompactionEnd(CompactionEnd),
    /// A frame type this version does not know; kept, never an error.
    #[serde(skip)]
    Unknown(UnknownFrame<S>),
}

/// `hep_header`: the first line of every stream.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema, Serialize)]
#[schemars(rename = "HepHeader")]
pub struct HepHeader<S = String> {
    /// Protocol version, `"v1"`.
    pub hep: S,
    /// Emitter version (no protocol meaning).
    pub fah: S,
    /// Session id.
    pub session: S,
}

/// `agent_start`: the run began.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
pub struct AgentStart {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
}

/// A frame that carries only its round id (`cancelled`, `compaction_start`).
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
pub struct TurnRef {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
}

/// `message_start`: an assistant message starts.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "MessageStart")]
pub struct MessageStart<S = String> {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// Always `"assistant"` in v1.
    pub role: S,
}

/// `message_delta`: a chunk of assistant text.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "MessageDelta")]
pub struct MessageDelta<S = String> {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// The text chunk.
    pub delta: S,
}

/// `tool_start`: a tool call starts.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "ToolStart")]
pub struct ToolStart<S = String> {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// Tool call id.
    pub id: S,
    /// Tool name.
    pub name: S,
    /// Summary-mode `key=value` list or, with `events=full`, the raw JSON arguments (bounded).
    pub args_summary: S,
}

/// `tool_delta`: partial tool output (never empty).
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "ToolDelta")]
pub struct ToolDelta<S = String> {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// Tool call id.
    pub id: S,
    /// The output chunk.
    pub update: S,
}

/// `tool_liveness`: heartbeat or stuck-call follow-up.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "ToolLiveness")]
pub struct ToolLiveness<S = String> {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// Tool call id.
    pub id: S,
    /// Tool name.
    pub name: S,
    /// `heartbeat`, `cancel_retry`, `background_convert`, `escalate` or `advisory` (see [`LivenessAction`]).
    pub action: S,
    /// Milliseconds since the call started.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub elapsed_ms: u64,
    /// Captured-output size in bytes; omitted when the tool reports no partial output.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub output_bytes: Option<u64>,
    /// Human-readable detail; omitted when empty (an empty one decodes as `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<S>,
}

impl<S: AsRef<str>> ToolLiveness<S> {
    /// The action as a known [`LivenessAction`], or `None` for an action this version does not know.
    pub fn action_kind(&self) -> Option<LivenessAction> {
        LivenessAction::parse(self.action.as_ref())
    }
}

/// The `tool_liveness.action` values of HEP v1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "snake_case")]
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
}

impl LivenessAction {
    /// Every action of v1, in the spec's order.
    pub const ALL: [LivenessAction; 5] =
        [Self::Heartbeat, Self::CancelRetry, Self::BackgroundConvert, Self::Escalate, Self::Advisory];

    /// The wire name of the action.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Heartbeat => "heartbeat",
            Self::CancelRetry => "cancel_retry",
            Self::BackgroundConvert => "background_convert",
            Self::Escalate => "escalate",
            Self::Advisory => "advisory",
        }
    }

    /// The action with wire name `name`, if v1 knows it.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "heartbeat" => Self::Heartbeat,
            "cancel_retry" => Self::CancelRetry,
            "background_convert" => Self::BackgroundConvert,
            "escalate" => Self::Escalate,
            "advisory" => Self::Advisory,
            _ => return None,
        })
    }
}

/// `turn_done`: terminal frame of a successful round.
#[derive(Debug, Clone, PartialEq, JsonSchema)]
#[schemars(rename = "TurnDone")]
pub struct TurnDone<S = String> {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// The round's assistant text (text blocks joined with `"\n"`).
    pub message: S,
    /// Results of the round's tool calls.
    pub tool_results: Vec<ToolResult<S>>,
    /// Token counts and cost of the round.
    pub usage: Usage,
    /// Provider stop reason (`"stop"`, `"toolUse"`, `"length"`, ...).
    pub stop_reason: S,
}

/// One entry of `turn_done.tool_results`.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "ToolResult")]
pub struct ToolResult<S = String> {
    /// Tool call id.
    pub id: S,
    /// Tool name.
    pub name: S,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Result text, capped at 2000 UTF-16 units plus the `…(+N chars)` suffix.
    pub text: S,
}

/// `turn_done.usage`.
#[derive(Debug, Clone, Copy, PartialEq, Default, JsonSchema, Serialize)]
pub struct Usage {
    /// Input tokens.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub input: u64,
    /// Output tokens.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub output: u64,
    /// Cost in dollars; always written as a float.
    pub cost: f64,
}

/// `turn_error`: terminal frame of a failed round.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "TurnError")]
pub struct TurnError<S = String> {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// The provider error.
    pub error: S,
    /// Whether the run ends with this error (`true` in v1 headless runs).
    pub fatal: bool,
}

/// `compaction_end`: the compaction ended.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
pub struct CompactionEnd {
    /// Round id.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub turn_id: u64,
    /// Tokens freed by the compaction.
    #[schemars(range(min = 0, max = 9_007_199_254_740_991u64))]
    pub tokens_freed: u64,
}

/// A frame of a type this version does not know.
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(rename = "UnknownFrame")]
pub struct UnknownFrame<S = String> {
    /// The frame's `type`.
    pub frame_type: S,
    /// The frame's `turn_id`, when it has a valid one.
    pub turn_id: Option<u64>,
    /// The frame's line, verbatim (encoding an unknown frame writes it back unchanged).
    pub raw: S,
}

/// Which of the three terminal frames ended a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Terminal {
    /// `turn_done`.
    #[serde(rename = "turn_done")]
    Done,
    /// `turn_error`.
    #[serde(rename = "turn_error")]
    Error,
    /// `cancelled`.
    #[serde(rename = "cancelled")]
    Cancelled,
}

impl Terminal {
    /// The frame type name of this terminal.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Done => "turn_done",
            Self::Error => "turn_error",
            Self::Cancelled => "cancelled",
        }
    }
}

impl<S: AsRef<str>> Frame<S> {
    /// The wire `type` of this frame.
    pub fn frame_type(&self) -> &str {
        match self {
            Self::HepHeader(_) => "hep_header",
            Self::AgentStart(_) => "agent_start",
            Self::MessageStart(_) => "message_start",
            Self::MessageDelta(_) => "message_delta",
            Self::ToolStart(_) => "tool_start",
            Self::ToolDelta(_) => "tool_delta",
            Self::ToolLiveness(_) => "tool_liveness",
            Self::TurnDone(_) => "turn_done",
            Self::TurnError(_) => "turn_error",
            Self::Cancelled(_) => "cancelled",
            Self::CompactionStart(_) => "compaction_start",
            Self::CompactionEnd(_) => "compaction_end",
            Self::Unknown(u) => u.frame_type.as_ref(),
        }
    }

    /// The frame's round id (`None` for the header, and for unknown frames without one).
    pub fn turn_id(&self) -> Option<u64> {
        Some(match self {
            Self::HepHeader(_) => return None,
            Self::AgentStart(f) => f.turn_id,
            Self::MessageStart(f) => f.turn_id,
            Self::MessageDelta(f) => f.turn_id,
            Self::ToolStart(f) => f.turn_id,
            Self::ToolDelta(f) => f.turn_id,
            Self::ToolLiveness(f) => f.turn_id,
            Self::TurnDone(f) => f.turn_id,
            Self::TurnError(f) => f.turn_id,
            Self::Cancelled(f) | Self::CompactionStart(f) => f.turn_id,
            Self::CompactionEnd(f) => f.turn_id,
            Self::Unknown(u) => return u.turn_id,
        })
    }

    /// Which terminal frame this is, if it is one.
    pub fn terminal(&self) -> Option<Terminal> {
        match self {
            Self::TurnDone(_) => Some(Terminal::Done),
            Self::TurnError(_) => Some(Terminal::Error),
            Self::Cancelled(_) => Some(Terminal::Cancelled),
            _ => None,
        }
    }
}

impl Frame {
    /// The wire names of every frame type v1 knows, in the spec's order.
    pub const KNOWN_TYPES: [&'static str; 12] = [
        "hep_header",
        "agent_start",
        "message_start",
        "message_delta",
        "tool_start",
        "tool_delta",
        "tool_liveness",
        "turn_done",
        "turn_error",
        "cancelled",
        "compaction_start",
        "compaction_end",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_liveness_action_round_trips_by_name() {
        for action in LivenessAction::ALL {
            assert_eq!(LivenessAction::parse(action.as_str()), Some(action));
        }
        let names: Vec<&str> = LivenessAction::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(names, ["heartbeat", "cancel_retry", "background_convert", "escalate", "advisory"]);
        assert_eq!(LivenessAction::parse("Heartbeat"), None);
    }
}
