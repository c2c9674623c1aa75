//! The frame model, declared to uniffi as hep-core's own types (`#[uniffi::remote]` repeats
//! each definition field for field; the compiler checks that it matches the core).
//!
//! In Swift: `enum Frame` with a case per frame type carrying its struct, and `.unknown`.

use hep_core::run::{Liveness, ToolCall, ToolStatus};
use hep_core::{
    AgentStart, CompactionEnd, Frame, HepHeader, MessageDelta, MessageStart, Terminal, ToolDelta, ToolLiveness,
    ToolResult, ToolStart, TurnDone, TurnError, TurnRef, UnknownFrame, Usage, Verdict,
};

/// One HEP v1 frame (one line of the stream); unknown frame types are kept, never an error.
#[uniffi::remote(Enum)]
pub enum Frame {
    HepHeader(HepHeader),
    AgentStart(AgentStart),
    MessageStart(MessageStart),
    MessageDelta(MessageDelta),
    ToolStart(ToolStart),
    ToolDelta(ToolDelta),
    ToolLiveness(ToolLiveness),
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

#[uniffi::remote(Record)]
pub struct ToolLiveness {
    pub turn_id: u64,
    pub id: String,
    pub name: String,
    pub action: String,
    pub elapsed_ms: u64,
    #[uniffi(default = None)]
    pub output_bytes: Option<u64>,
    #[uniffi(default = None)]
    pub detail: Option<String>,
}

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

#[uniffi::remote(Record)]
pub struct Liveness {
    pub action: String,
    pub elapsed_ms: u64,
    pub output_bytes: Option<u64>,
    pub detail: Option<String>,
}

#[uniffi::remote(Record)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub args_summary: String,
    pub status: ToolStatus,
    pub output: String,
    pub output_dropped: u64,
    pub result: Option<String>,
    pub last_liveness: Option<Liveness>,
    pub followups: Vec<Liveness>,
    pub followups_dropped: u64,
}
