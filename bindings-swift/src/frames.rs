//! The frame model, declared to uniffi as hep-core's own types (`#[uniffi::remote]` repeats
//! each definition field for field; the compiler checks that it matches the core).
//!
//! In Swift: `enum Frame` with a case per frame type carrying its struct, and `.unknown`.
//!
//! Two records differ from the core's: in `ToolLiveness` and `Liveness` the `action` is a
//! `LivenessAction` (v1's five, or `unknown` with its wire name) where the core keeps the
//! wire string. They cross as custom types (`CoreToolLiveness`, `CoreLiveness`) bridged by
//! records of this crate that Swift sees under the core's names.

use crate::support::LivenessAction;
use hep_core::run::{ToolCall, ToolStatus};
use hep_core::{
    AgentStart, CompactionEnd, Frame, HepHeader, MessageDelta, MessageStart, Terminal, ToolDelta, ToolResult,
    ToolStart, TurnDone, TurnError, TurnRef, UnknownFrame, Usage, Verdict,
};

/// hep-core's `tool_liveness` frame, which crosses as [`ToolLivenessRecord`].
pub type CoreToolLiveness = hep_core::ToolLiveness;
/// hep-core's liveness report of a tool call, which crosses as [`LivenessRecord`].
pub type CoreLiveness = hep_core::run::Liveness;

/// One HEP v1 frame (one line of the stream); unknown frame types are kept, never an error.
#[uniffi::remote(Enum)]
pub enum Frame {
    HepHeader(HepHeader),
    AgentStart(AgentStart),
    MessageStart(MessageStart),
    MessageDelta(MessageDelta),
    ToolStart(ToolStart),
    ToolDelta(ToolDelta),
    ToolLiveness(CoreToolLiveness),
    TurnDone(TurnDone),
    TurnError(TurnError),
    Cancelled(TurnRef),
    CompactionStart(TurnRef),
    CompactionEnd(CompactionEnd),
    Unknown(UnknownFrame),
}

#[uniffi::remote(Record)]
pub struct HepHeader {
    pub hep: String,
    pub fah: String,
    pub session: String,
}

#[uniffi::remote(Record)]
pub struct AgentStart {
    pub turn_id: u64,
}

#[uniffi::remote(Record)]
pub struct TurnRef {
    pub turn_id: u64,
}

#[uniffi::remote(Record)]
pub struct MessageStart {
    pub turn_id: u64,
    pub role: String,
}

#[uniffi::remote(Record)]
pub struct MessageDelta {
    pub turn_id: u64,
    pub delta: String,
}

#[uniffi::remote(Record)]
pub struct ToolStart {
    pub turn_id: u64,
    pub id: String,
    pub name: String,
    pub args_summary: String,
}

#[uniffi::remote(Record)]
pub struct ToolDelta {
    pub turn_id: u64,
    pub id: String,
    pub update: String,
}

/// `tool_liveness`: a heartbeat of a running call, or a stuck-call follow-up.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
#[uniffi(name = "ToolLiveness")]
pub struct ToolLivenessRecord {
    /// Round id.
    pub turn_id: u64,
    /// The tool call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// What the report is: a heartbeat or a stuck-call follow-up.
    pub action: LivenessAction,
    /// Milliseconds since the call started.
    pub elapsed_ms: u64,
    /// Bytes of output so far, when known.
    #[uniffi(default = None)]
    pub output_bytes: Option<u64>,
    /// A note.
    #[uniffi(default = None)]
    pub detail: Option<String>,
}

uniffi::custom_type!(CoreToolLiveness, ToolLivenessRecord, {
    remote,
    lower: |f| ToolLivenessRecord {
        turn_id: f.turn_id,
        id: f.id,
        name: f.name,
        action: LivenessAction::from_wire(f.action),
        elapsed_ms: f.elapsed_ms,
        output_bytes: f.output_bytes,
        detail: f.detail,
    },
    try_lift: |r| Ok(CoreToolLiveness {
        turn_id: r.turn_id,
        id: r.id,
        name: r.name,
        action: r.action.into_wire(),
        elapsed_ms: r.elapsed_ms,
        output_bytes: r.output_bytes,
        detail: r.detail,
    }),
});

#[uniffi::remote(Record)]
pub struct TurnDone {
    pub turn_id: u64,
    pub message: String,
    pub tool_results: Vec<ToolResult>,
    pub usage: Usage,
    pub stop_reason: String,
}

#[uniffi::remote(Record)]
pub struct ToolResult {
    pub id: String,
    pub name: String,
    pub ok: bool,
    pub text: String,
}

#[uniffi::remote(Record)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cost: f64,
}

#[uniffi::remote(Record)]
pub struct TurnError {
    pub turn_id: u64,
    pub error: String,
    pub fatal: bool,
}

#[uniffi::remote(Record)]
pub struct CompactionEnd {
    pub turn_id: u64,
    pub tokens_freed: u64,
}

#[uniffi::remote(Record)]
pub struct UnknownFrame {
    pub frame_type: String,
    #[uniffi(default = None)]
    pub turn_id: Option<u64>,
    pub raw: String,
}

#[uniffi::remote(Enum)]
pub enum Terminal {
    Done,
    Error,
    Cancelled,
}

#[uniffi::remote(Enum)]
pub enum Verdict {
    Ok,
    Failed,
    Cancelled,
    Incomplete,
    ProtocolError,
}

#[uniffi::remote(Enum)]
pub enum ToolStatus {
    Running,
    Ok,
    Failed,
}

/// A tool call's liveness report: its last heartbeat, or a stuck-call follow-up.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
#[uniffi(name = "Liveness")]
pub struct LivenessRecord {
    /// What the report is: a heartbeat or a stuck-call follow-up.
    pub action: LivenessAction,
    /// Milliseconds since the call started.
    pub elapsed_ms: u64,
    /// Bytes of output so far, when known.
    pub output_bytes: Option<u64>,
    /// A note.
    pub detail: Option<String>,
}

uniffi::custom_type!(CoreLiveness, LivenessRecord, {
    remote,
    lower: |l| LivenessRecord {
        action: LivenessAction::from_wire(l.action),
        elapsed_ms: l.elapsed_ms,
        output_bytes: l.output_bytes,
        detail: l.detail,
    },
    try_lift: |r| Ok(CoreLiveness {
        action: r.action.into_wire(),
        elapsed_ms: r.elapsed_ms,
        output_bytes: r.output_bytes,
        detail: r.detail,
    }),
});

#[uniffi::remote(Record)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub args_summary: String,
    pub status: ToolStatus,
    pub output: String,
    pub output_dropped: u64,
    pub result: Option<String>,
    pub last_liveness: Option<CoreLiveness>,
    pub followups: Vec<CoreLiveness>,
    pub followups_dropped: u64,
}
