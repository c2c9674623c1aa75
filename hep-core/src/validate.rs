//! The spec's consumer guarantees as a live checker.
//!
//! [`Validator::check`] looks at each frame as it arrives; [`Validator::finish`] adds what
//! only the end of the stream and the exit code can tell. Each breach is a [`Violation`]
//! with a stable snake_case [`ViolationCode`].

use crate::frame::{Frame, Terminal};
use std::collections::HashSet;
use std::fmt;

/// How serious a violation is. A stream *conforms* when it has no `Error` violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// Frames of a run without any `agent_start`.
    MissingAgentStart = "missing_agent_start", Error;
    /// A second `agent_start`.
    DuplicateAgentStart = "duplicate_agent_start", Error;
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
    /// A frame after a fatal `turn_error` or a `cancelled`.
    FrameAfterEnd = "frame_after_end", Error;
    /// `compaction_start` while a compaction is already open.
    NestedCompaction = "nested_compaction", Error;
    /// `compaction_end` without an open `compaction_start`.
    UnmatchedCompactionEnd = "unmatched_compaction_end", Error;
    /// `compaction_end` with another id than its `compaction_start`.
    CompactionIdMismatch = "compaction_id_mismatch", Error;
    /// The stream ended inside a compaction.
    UnclosedCompaction = "unclosed_compaction", Error;
    /// The stream ended inside a round (no terminal frame for it).
    UnterminatedTurn = "unterminated_turn", Error;
    /// The stream has no terminal frame at all.
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
    /// A `tool_liveness.action` v1 does not name.
    UnknownLivenessAction = "unknown_liveness_action", Warning;
}

impl ViolationCode {
    /// True for codes that mean the stream stopped early (killed, crashed, cut off) rather
    /// than broke the protocol; they make a run `incomplete`, not a `protocol_error`.
    pub fn is_incompleteness(self) -> bool {
        matches!(self, Self::EmptyStream | Self::UnterminatedTurn | Self::NoTerminalFrame | Self::UnclosedCompaction)
    }
}

impl fmt::Display for ViolationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One breach of a consumer guarantee.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Most tool-call ids remembered per round for the `unknown_tool_call` check.
const MAX_TRACKED_CALLS: usize = 4096;

/// Protocol major version accepted in `hep_header.hep`.
fn version_supported(hep: &str) -> bool {
    hep == crate::PROTOCOL_VERSION || hep.strip_prefix(crate::PROTOCOL_VERSION).is_some_and(|r| r.starts_with('.'))
}

/// The live checker's state.
#[derive(Debug, Clone, Default)]
pub struct Validator {
    lines: u64,
    frames: u64,
    header_seen: bool,
    agent_starts: u64,
    round_frames: u64,
    /// Highest round id allocated so far (0 before the first round).
    last_id: u64,
    /// The open round, and whether it holds anything besides compaction frames.
    open: Option<(u64, bool)>,
    compaction: Option<u64>,
    last_terminal: Option<(Terminal, u64)>,
    ended: Option<(Terminal, u64)>,
    after_end_reported: bool,
    calls: HashSet<String>,
}

impl Validator {
    /// A validator at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// The last terminal frame seen and its round id.
    pub fn last_terminal(&self) -> Option<(Terminal, u64)> {
        self.last_terminal
    }

    /// Records that `line` was skipped (it still counts as a line of the stream).
    pub fn skipped_line(&mut self, line: u64) {
        self.lines = self.lines.max(line);
    }

    /// Checks one frame at `line`, pushing any violations to `out`.
    pub fn check(&mut self, line: u64, frame: &Frame, out: &mut Vec<Violation>) {
        self.lines = self.lines.max(line);
        self.frames += 1;
        let mut v = Sink { out, line, turn_id: frame.turn_id() };
        if let Frame::HepHeader(h) = frame {
            if self.header_seen || self.frames > 1 {
                v.push(
                    ViolationCode::DuplicateHeader,
                    "hep_header after the first frame; only the first line may be the header".into(),
                );
            } else {
                self.header_seen = true;
                if line != 1 {
                    v.push(ViolationCode::MissingHeader, format!("hep_header is on line {line}, not on line 1"));
                }
                if !version_supported(&h.hep) {
                    v.push(
                        ViolationCode::UnsupportedVersion,
                        format!(
                            "the stream speaks HEP {:?}; this library speaks {} and refuses it",
                            h.hep,
                            crate::PROTOCOL_VERSION
                        ),
                    );
                }
            }
            return;
        }
        if self.frames == 1 {
            v.push(
                ViolationCode::MissingHeader,
                format!("the first frame is `{}`, not hep_header", frame.frame_type()),
            );
        }
        let (Some(id), false) = (frame.turn_id(), matches!(frame, Frame::Unknown(_))) else {
            return;
        };
        self.round_frames += 1;
        if let Some((terminal, end_id)) = self.ended {
            if !self.after_end_reported {
                self.after_end_reported = true;
                v.push(
                    ViolationCode::FrameAfterEnd,
                    format!("`{}` after the run ended with {} in turn {end_id}", frame.frame_type(), terminal.as_str()),
                );
            }
        }
        self.check_turn(id, frame, &mut v);
        self.check_frame(id, frame, &mut v);
    }

    fn check_turn(&mut self, id: u64, frame: &Frame, v: &mut Sink<'_>) {
        let compaction = matches!(frame, Frame::CompactionStart(_) | Frame::CompactionEnd(_));
        if matches!(frame, Frame::CompactionEnd(_)) && self.open.is_none() && id == self.last_id {
            return;
        }
        match self.open {
            Some((open, _)) if id == open => {}
            Some((open, content)) if id == open + 1 => {
                if content {
                    v.push(ViolationCode::MissingTerminal, format!("turn {open} ended without a terminal frame"));
                }
                self.open_round(id);
            }
            Some((open, _)) => {
                v.push(
                    ViolationCode::TurnIdMismatch,
                    format!("`{}` carries turn_id {id} inside turn {open}", frame.frame_type()),
                );
                return;
            }
            None if id == self.last_id + 1 => self.open_round(id),
            None if self.last_id == 0 => {
                v.push(ViolationCode::FirstTurnIdNotOne, format!("the first turn has turn_id {id}, not 1"));
                self.open_round(id);
            }
            None if id > self.last_id => {
                v.push(ViolationCode::TurnIdSkipped, format!("turn_id jumps from {} to {id}", self.last_id));
                self.open_round(id);
            }
            None if id == self.last_id && frame.terminal().is_some() => {
                v.push(
                    ViolationCode::DuplicateTerminal,
                    format!("turn {id} already ended; `{}` ends it again", frame.frame_type()),
                );
                self.note_terminal(id, frame);
                return;
            }
            None if id == self.last_id => {
                v.push(
                    ViolationCode::FrameAfterTerminal,
                    format!("`{}` for turn {id}, which already ended", frame.frame_type()),
                );
                return;
            }
            None => {
                v.push(
                    ViolationCode::TurnIdRegressed,
                    format!("`{}` carries turn_id {id}, below the last turn {}", frame.frame_type(), self.last_id),
                );
                return;
            }
        }
        if let (Some((open, content)), false) = (self.open.as_mut(), compaction) {
            debug_assert_eq!(*open, id);
            *content = true;
        }
        if frame.terminal().is_some() {
            self.open = None;
            self.note_terminal(id, frame);
        }
    }

    /// Records a terminal frame of round `id` as the stream's last one (and its end, if fatal).
    fn note_terminal(&mut self, id: u64, frame: &Frame) {
        let Some(terminal) = frame.terminal() else { return };
        self.last_terminal = Some((terminal, id));
        let fatal = match frame {
            Frame::TurnError(e) => e.fatal,
            _ => terminal == Terminal::Cancelled,
        };
        if fatal && self.ended.is_none() {
            self.ended = Some((terminal, id));
        }
    }

    fn open_round(&mut self, id: u64) {
        self.open = Some((id, false));
        self.last_id = id;
        self.calls.clear();
    }

    fn check_frame(&mut self, id: u64, frame: &Frame, v: &mut Sink<'_>) {
        match frame {
            Frame::AgentStart(_) => {
                self.agent_starts += 1;
                if self.agent_starts == 2 {
                    v.push(ViolationCode::DuplicateAgentStart, "agent_start appears a second time".into());
                }
            }
            Frame::MessageStart(m) if m.role != "assistant" => {
                v.push(ViolationCode::UnexpectedRole, format!("message_start role is {:?}, not \"assistant\"", m.role));
            }
            Frame::ToolStart(t) if self.calls.len() < MAX_TRACKED_CALLS => {
                self.calls.insert(t.id.clone());
            }
            Frame::ToolDelta(t) => {
                if t.update.is_empty() {
                    v.push(
                        ViolationCode::EmptyToolDelta,
                        format!("tool_delta for call {:?} has an empty update", t.id),
                    );
                }
                self.check_call(&t.id, "tool_delta", v);
            }
            Frame::ToolLiveness(t) => {
                if t.action_kind().is_none() {
                    v.push(
                        ViolationCode::UnknownLivenessAction,
                        format!("tool_liveness action {:?} is not a v1 action", t.action),
                    );
                }
                self.check_call(&t.id, "tool_liveness", v);
            }
            Frame::CompactionStart(_) => {
                if let Some(open) = self.compaction {
                    v.push(
                        ViolationCode::NestedCompaction,
                        format!("compaction_start while the compaction of turn {open} is open"),
                    );
                }
                self.compaction = Some(id);
            }
            Frame::CompactionEnd(_) => match self.compaction.take() {
                None => {
                    v.push(ViolationCode::UnmatchedCompactionEnd, "compaction_end without a compaction_start".into())
                }
                Some(start) if start != id => v.push(
                    ViolationCode::CompactionIdMismatch,
                    format!("compaction_end has turn_id {id}, its compaction_start had {start}"),
                ),
                Some(_) => {}
            },
            _ => {}
        }
    }

    fn check_call(&self, id: &str, frame_type: &str, v: &mut Sink<'_>) {
        if self.calls.len() < MAX_TRACKED_CALLS && !self.calls.contains(id) {
            v.push(
                ViolationCode::UnknownToolCall,
                format!("{frame_type} for call {id:?}, which has no tool_start in this turn"),
            );
        }
    }

    /// End-of-stream checks, given the process's exit code when known.
    pub fn finish(&mut self, exit_code: Option<i32>, out: &mut Vec<Violation>) {
        let mut v = Sink { out, line: 0, turn_id: None };
        if self.lines == 0 {
            v.push(ViolationCode::EmptyStream, "the stream has no lines".into());
            return;
        }
        if self.round_frames > 0 && self.agent_starts == 0 {
            v.push(ViolationCode::MissingAgentStart, "the run has no agent_start".into());
        }
        if let Some(id) = self.compaction {
            v.turn_id = Some(id);
            v.push(ViolationCode::UnclosedCompaction, format!("the stream ended inside the compaction of turn {id}"));
        }
        if let Some((id, true)) = self.open {
            v.turn_id = Some(id);
            v.push(
                ViolationCode::UnterminatedTurn,
                format!("the stream ended inside turn {id}, before its terminal frame"),
            );
            return;
        }
        let Some((terminal, id)) = self.last_terminal else {
            v.push(ViolationCode::NoTerminalFrame, "the stream has no turn_done, turn_error or cancelled".into());
            return;
        };
        let Some(code) = exit_code else { return };
        v.turn_id = Some(id);
        let expected = match terminal {
            Terminal::Done => 0,
            Terminal::Error => 1,
            Terminal::Cancelled => 130,
        };
        if ![0, 1, 130].contains(&code) {
            v.push(ViolationCode::UnexpectedExitCode, format!("exit code {code} is none of 0, 1 and 130"));
        } else if code != expected {
            v.push(
                ViolationCode::ExitCodeMismatch,
                format!(
                    "exit code {code}, but the last terminal frame is {} (turn {id}), which means exit code {expected}",
                    terminal.as_str()
                ),
            );
        }
    }
}

/// Pushes violations placed at one line and round.
struct Sink<'a> {
    out: &'a mut Vec<Violation>,
    line: u64,
    turn_id: Option<u64>,
}

impl Sink<'_> {
    fn push(&mut self, code: ViolationCode, message: String) {
        self.out.push(Violation { code, severity: code.severity(), line: self.line, turn_id: self.turn_id, message });
    }
}
