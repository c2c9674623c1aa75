//! `RunResult`: everything known at the end of a stream, moved out of the core's result,
//! with the records of the reduced run (`Turn`, hep-core's `ToolCall`, `Liveness`,
//! `ToolStatus`, `Terminal`, `Verdict`, declared to uniffi as remote types).
//!
//! A liveness report differs from the core's as a `tool_liveness` frame does (see
//! `frames`): its `action` is a `LivenessAction`. It crosses as a custom type
//! (`CoreLiveness`) bridged by a record of this crate that Swift sees as `Liveness`.

use crate::errors::{HepError, Violation};
use crate::frames::LivenessAction;
use hep_core::run::{ToolCall, ToolStatus};
use hep_core::supervise::Supervision;
use hep_core::{HepHeader, Terminal, Usage, Verdict};

/// hep-core's liveness report of a tool call, which crosses as [`LivenessRecord`].
pub type CoreLiveness = hep_core::run::Liveness;

/// Which of the three terminal frames ended a round (`turn_done`, `turn_error`, `cancelled`).
#[uniffi::remote(Enum)]
pub enum Terminal {
    Done,
    Error,
    Cancelled,
}

/// How a run ended, as the core judges it.
#[uniffi::remote(Enum)]
pub enum Verdict {
    Ok,
    Failed,
    Cancelled,
    Incomplete,
    ProtocolError,
}

/// Where a tool call is: running, or ended with a result that succeeded or failed.
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

/// A tool call as the run keeps it: its start, output, result and liveness reports.
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

/// One round as a supervisor mirrors it (`hep_core::run::Turn`).
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Turn {
    /// Round id.
    pub turn_id: u64,
    /// Assistant text assembled from `message_delta` frames (the first bytes, up to the cap).
    pub text: String,
    /// Bytes of assistant text beyond the kept ones.
    pub text_dropped: u64,
    /// Tool calls in start order.
    pub tools: Vec<ToolCall>,
    /// Tool calls beyond the per-turn cap.
    pub tools_dropped: u64,
    /// How the round ended, if it has.
    pub end: Option<Terminal>,
    /// `turn_done.message`.
    pub message: Option<String>,
    /// `turn_done.usage`.
    pub usage: Option<Usage>,
    /// `turn_done.stop_reason`.
    pub stop_reason: Option<String>,
    /// `turn_error.error`.
    pub error: Option<String>,
    /// `tokens_freed` of each compaction that ended in this round (the first ones, up to
    /// the per-turn cap).
    pub compactions: Vec<u64>,
    /// Compactions of this round beyond the kept ones.
    pub compactions_dropped: u64,
    /// Bytes of this round's other text (tool ids, names and arguments, results, liveness
    /// reports, message, stop reason, error) not kept because the round alone held the
    /// reducer's byte budget.
    pub bytes_dropped: u64,
}

impl From<hep_core::run::Turn> for Turn {
    fn from(t: hep_core::run::Turn) -> Self {
        Self {
            turn_id: t.turn_id,
            text: t.text,
            text_dropped: t.text_dropped,
            tools: t.tools,
            tools_dropped: t.tools_dropped,
            end: t.end,
            message: t.message,
            usage: t.usage,
            stop_reason: t.stop_reason,
            error: t.error,
            compactions: t.compactions,
            compactions_dropped: t.compactions_dropped,
            bytes_dropped: t.bytes_dropped,
        }
    }
}

/// The end of a run: the verdict with its reasons, the reduced run and what was found.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct RunResult {
    /// `ok`, `failed`, `cancelled`, `incomplete` or `protocolError`.
    pub verdict: Verdict,
    /// The findings that decided the verdict, most important first.
    pub reasons: Vec<String>,
    /// The exit code the verdict was given with (`nil` when unknown).
    pub exit_code: Option<i32>,
    /// No error-severity violation, no skipped line, not halted.
    pub conforms: bool,
    /// The error that halted the stream (strict mode, or a refused protocol version).
    pub halted: Option<HepError>,
    /// The stream's header.
    pub header: Option<HepHeader>,
    /// The user-visible answer: the `message` of the last terminal frame, when a `turn_done`.
    pub answer: Option<String>,
    /// Usage summed over every `turn_done`.
    pub usage: Usage,
    /// The most recent turns, oldest first.
    pub turns: Vec<Turn>,
    /// Turns dropped to respect the reducer's limits.
    pub turns_dropped: u64,
    /// The last terminal frame, if any.
    pub last_terminal: Option<Terminal>,
    /// The round id of the last terminal frame.
    pub last_terminal_turn_id: Option<u64>,
    /// Compactions ended.
    pub compactions: u64,
    /// Tokens freed by all compactions.
    pub tokens_freed: u64,
    /// Frames read.
    pub frames: u64,
    /// Lines read (complete or skipped), up to a halt.
    pub lines: u64,
    /// Violations (the first ones, up to the report cap).
    pub violations: Vec<Violation>,
    /// Total violations, including those not kept.
    pub violation_count: u64,
    /// Lines skipped, as errors (the first ones, up to the report cap).
    pub skipped: Vec<HepError>,
    /// Total skipped lines, including those not kept.
    pub skipped_count: u64,
    /// `tool_start`s whose id was not remembered because their round already held
    /// `maxTrackedCalls` ids (in such a round, `unknown_tool_call` is not reported).
    pub untracked_calls: u64,
    /// The end of the child's stderr (its last `STDERR_TAIL_BYTES`, a character cut at the
    /// start shown as U+FFFD) when the run was a supervised process; `nil` for a stream.
    pub stderr_tail: Option<String>,
    /// How the supervision went (who cancelled, the signals sent, the stderr tail, how
    /// long it took) when the run was a supervised process; `nil` for a stream.
    pub supervision: Option<Supervision>,
}

impl From<hep_core::RunResult> for RunResult {
    fn from(r: hep_core::RunResult) -> Self {
        let run = r.run;
        Self {
            verdict: r.verdict,
            reasons: r.reasons,
            exit_code: r.exit_code,
            conforms: r.conforms,
            halted: r.halted.map(HepError::from),
            header: run.header,
            answer: run.answer,
            usage: run.usage,
            turns: run.turns.into_iter().map(Turn::from).collect(),
            turns_dropped: run.turns_dropped,
            last_terminal: run.last_terminal.map(|(t, _)| t),
            last_terminal_turn_id: run.last_terminal.map(|(_, id)| id),
            compactions: run.compactions,
            tokens_freed: run.tokens_freed,
            frames: run.frames,
            lines: r.lines,
            violations: r.violations.into_iter().map(Violation::from).collect(),
            violation_count: r.violation_count,
            skipped: r.skipped.into_iter().map(HepError::from).collect(),
            skipped_count: r.skipped_count,
            untracked_calls: r.untracked_calls,
            stderr_tail: r.supervision.as_ref().map(|s| s.stderr_tail.clone()),
            supervision: r.supervision,
        }
    }
}
