//! A breach of the spec's consumer guarantees: its stable code, severity, line and round.

use serde::{Serialize, Serializer};
use std::fmt;

/// How serious a violation is. A stream *conforms* when it has no `Error` violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A breach of a consumer guarantee.
    Error,
    /// Unexpected but harmless (the stream still conforms).
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident;)*) => {
        /// What guarantee a [`Violation`] breaks. Names are stable (see [`ViolationCode::as_str`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ViolationCode {
            $($(#[$doc])* $variant,)*
        }

        impl ViolationCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ViolationCode] = &[$(Self::$variant,)*];

            /// The stable snake_case name of the code.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $name,)* }
            }

            /// The severity of every violation with this code.
            pub fn severity(self) -> Severity {
                match self { $(Self::$variant => Severity::$severity,)* }
            }
        }
    };
}

codes! {
    /// The stream ended without a single line.
    EmptyStream = "empty_stream", Error;
    /// The first line is not a `hep_header`.
    MissingHeader = "missing_header", Error;
    /// A second `hep_header`.
    DuplicateHeader = "duplicate_header", Error;
    /// The header names another major protocol version (the stream is refused).
    UnsupportedVersion = "unsupported_version", Error;
    /// A round frame (not a compaction frame) before `agent_start`.
    FrameBeforeAgentStart = "frame_before_agent_start", Error;
    /// A second `agent_start`.
    DuplicateAgentStart = "duplicate_agent_start", Error;
    /// `agent_start` carries another id than the round the pre-flight compaction opened.
    AgentStartIdMismatch = "agent_start_id_mismatch", Error;
    /// The first round's id is not 1.
    FirstTurnIdNotOne = "first_turn_id_not_one", Error;
    /// A new round's id is more than one above the previous round's.
    TurnIdSkipped = "turn_id_skipped", Error;
    /// A frame carries an id below the last round's.
    TurnIdRegressed = "turn_id_regressed", Error;
    /// A frame's id differs from the open round's id.
    TurnIdMismatch = "turn_id_mismatch", Error;
    /// A round was followed by the next one without a terminal frame.
    MissingTerminal = "missing_terminal", Error;
    /// A second terminal frame for a round.
    DuplicateTerminal = "duplicate_terminal", Error;
    /// A non-terminal frame for a round that already ended.
    FrameAfterTerminal = "frame_after_terminal", Error;
    /// A frame after a `cancelled` (other than a compaction), or of the ended round after a
    /// fatal `turn_error`.
    FrameAfterEnd = "frame_after_end", Error;
    /// A second `tool_start` with the same id in one round.
    DuplicateToolCall = "duplicate_tool_call", Error;
    /// `compaction_end` without an open `compaction_start`.
    UnmatchedCompactionEnd = "unmatched_compaction_end", Error;
    /// `compaction_end` with another id than its `compaction_start`.
    CompactionIdMismatch = "compaction_id_mismatch", Error;
    /// The stream ended inside a round (no terminal frame for it).
    UnterminatedTurn = "unterminated_turn", Error;
    /// The stream has no terminal frame at all (and is not a run that ended before its
    /// first round).
    NoTerminalFrame = "no_terminal_frame", Error;
    /// The exit code contradicts the last terminal frame (0 `turn_done`, 1 `turn_error`, 130 `cancelled`).
    ExitCodeMismatch = "exit_code_mismatch", Error;
    /// The exit code is none of 0, 1 and 130 (killed, crashed).
    UnexpectedExitCode = "unexpected_exit_code", Warning;
    /// `message_start.role` is not `"assistant"`.
    UnexpectedRole = "unexpected_role", Warning;
    /// A `tool_delta` with an empty `update`.
    EmptyToolDelta = "empty_tool_delta", Warning;
    /// `tool_delta` or `tool_liveness` for a call id with no `tool_start` in the round.
    UnknownToolCall = "unknown_tool_call", Warning;
    /// A `turn_done.tool_results` entry whose id had no `tool_start` in the round.
    UnknownToolResult = "unknown_tool_result", Warning;
    /// A `tool_liveness.action` v1 does not name.
    UnknownLivenessAction = "unknown_liveness_action", Warning;
    /// A round after a fatal `turn_error`: the reference compacts and continues a run whose
    /// request did not fit the context window.
    RoundAfterFatalError = "round_after_fatal_error", Warning;
    /// A `compaction_start` with no `compaction_end`, closed by the next frame or the end of
    /// the stream: the reference writes the end only when the compaction pass ran.
    UnpairedCompactionStart = "unpaired_compaction_start", Warning;
    /// A compaction after `cancelled`: the reference's post-run compaction.
    CompactionAfterCancel = "compaction_after_cancel", Warning;
    /// The stream ended before `agent_start`, with only the header and pre-flight
    /// compaction frames (cancelled, or failed, before the first round).
    EndedBeforeAgentStart = "ended_before_agent_start", Warning;
    /// Exit code 130 with no `cancelled` frame after the last round: the signal came while
    /// the reference was not streaming, when it aborts nothing.
    CancelledBetweenRounds = "cancelled_between_rounds", Warning;
    /// Exit code 130 while a round was open: the harness exited before the round settled.
    CancelledInOpenRound = "cancelled_in_open_round", Warning;
    /// Exit code 1 after the last round finished with `turn_done`: the harness failed after
    /// its last round (while persisting, say), without a `turn_error`.
    FailedAfterLastRound = "failed_after_last_round", Warning;
}

impl ViolationCode {
    /// True for codes that mean the stream stopped early (killed, crashed, cut off) rather
    /// than broke the protocol; they make a run `incomplete`, not a `protocol_error`.
    pub fn is_incompleteness(self) -> bool {
        matches!(self, Self::EmptyStream | Self::UnterminatedTurn | Self::NoTerminalFrame)
    }
}

impl Serialize for ViolationCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for ViolationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One breach of a consumer guarantee.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Which guarantee.
    pub code: ViolationCode,
    /// `code.severity()`, kept for convenience.
    pub severity: Severity,
    /// 1-based line of the offending frame (0 for end-of-stream checks with no line).
    pub line: u64,
    /// The round concerned, when there is one.
    pub turn_id: Option<u64>,
    /// A human-readable explanation.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(f, "{} {}: {}", self.severity.as_str(), self.code, self.message)
    }
}
