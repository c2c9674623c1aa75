//! The baseline a user would otherwise write: a serde-derived, internally tagged enum
//! mirroring the HEP v1 frame types, fields in the spec's order.

use serde::{Deserialize, Serialize};

/// One HEP v1 frame, the serde way. Unknown frame types map to [`SerdeFrame::Unknown`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum SerdeFrame {
    /// `hep_header`.
    HepHeader {
        /// Protocol version.
        hep: String,
        /// Emitter version.
        fah: String,
        /// Session id.
        session: String,
    },
    /// `agent_start`.
    AgentStart {
        /// Round id.
        turn_id: u64,
    },
    /// `message_start`.
    MessageStart {
        /// Round id.
        turn_id: u64,
        /// Always `"assistant"`.
        role: String,
    },
    /// `message_delta`.
    MessageDelta {
        /// Round id.
        turn_id: u64,
        /// Text chunk.
        delta: String,
    },
    /// `tool_start`.
    ToolStart {
        /// Round id.
        turn_id: u64,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Rendered arguments.
        args_summary: String,
    },
    /// `tool_delta`.
    ToolDelta {
        /// Round id.
        turn_id: u64,
        /// Call id.
        id: String,
        /// Output chunk.
        update: String,
    },
    /// `tool_liveness`.
    ToolLiveness {
        /// Round id.
        turn_id: u64,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Heartbeat or follow-up.
        action: String,
        /// Milliseconds since the call started.
        elapsed_ms: u64,
        /// Captured-output size.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_bytes: Option<u64>,
        /// Human-readable detail.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// `turn_done`.
    TurnDone {
        /// Round id.
        turn_id: u64,
        /// The round's assistant text.
        message: String,
        /// Results of the round's tool calls.
        tool_results: Vec<SerdeToolResult>,
        /// Tokens and cost.
        usage: SerdeUsage,
        /// Provider stop reason.
        stop_reason: String,
    },
    /// `turn_error`.
    TurnError {
        /// Round id.
        turn_id: u64,
        /// Provider error.
        error: String,
        /// Whether the run ends.
        fatal: bool,
    },
    /// `cancelled`.
    Cancelled {
        /// Round id.
        turn_id: u64,
    },
    /// `compaction_start`.
    CompactionStart {
        /// Round id.
        turn_id: u64,
    },
    /// `compaction_end`.
    CompactionEnd {
        /// Round id.
        turn_id: u64,
        /// Tokens freed.
        tokens_freed: u64,
    },
    /// Any other `type` (v1 is additive: never an error).
    #[serde(other)]
    Unknown,
}

/// One `turn_done.tool_results` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SerdeToolResult {
    /// Call id.
    pub(crate) id: String,
    /// Tool name.
    pub(crate) name: String,
    /// Success.
    pub(crate) ok: bool,
    /// Bounded result text.
    pub(crate) text: String,
}

/// `turn_done.usage`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct SerdeUsage {
    /// Input tokens.
    pub(crate) input: u64,
    /// Output tokens.
    pub(crate) output: u64,
    /// Cost in dollars.
    pub(crate) cost: f64,
}
