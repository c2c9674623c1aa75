//! The spec's consumer guarantees as a live checker.
//!
//! [`Validator::check`] looks at each frame as it arrives; [`Validator::finish`] adds what
//! only the end of the stream and the exit code can tell. Each breach is a [`Violation`]
//! with a stable snake_case [`ViolationCode`].

use crate::error::clip;
use crate::frame::{Frame, Terminal};
use crate::run::Limits;
use crate::supervise::{EXIT_CANCELLED, EXIT_FAILED, EXIT_OK};
use crate::violation::{Violation, ViolationCode};
use std::collections::HashSet;

/// Protocol major version accepted in `hep_header.hep`.
fn version_supported(hep: &str) -> bool {
    hep == crate::PROTOCOL_VERSION || hep.strip_prefix(crate::PROTOCOL_VERSION).is_some_and(|r| r.starts_with('.'))
}

/// The live checker's state: a few counters, plus the tool-call ids of the open round (at
/// most `max_tracked_calls` of them).
#[derive(Debug, Clone)]
pub struct Validator {
    lines: u64,
    frames: u64,
    header_seen: bool,
    agent_starts: u64,
    /// Round frames other than compaction frames.
    content_frames: u64,
    before_start_reported: bool,
    /// Highest round id allocated so far (0 before the first round).
    last_id: u64,
    /// The open round, and whether it holds anything besides compaction frames.
    open: Option<(u64, bool)>,
    compaction: Option<u64>,
    last_terminal: Option<(Terminal, u64)>,
    ended: Option<(Terminal, u64)>,
    after_end_reported: bool,
    /// Tool-call ids started in the open round (the first `max_tracked_calls`).
    calls: HashSet<String>,
    max_tracked_calls: usize,
    /// `tool_start`s of the open round whose id was not remembered.
    round_untracked: u64,
    /// `tool_start`s of the whole stream whose id was not remembered.
    untracked_calls: u64,
}

impl Default for Validator {
    fn default() -> Self {
        Self::with_max_tracked_calls(Limits::default().max_tracked_calls)
    }
}

impl Validator {
    /// A validator at the start of a stream, remembering the default number of tool-call
    /// ids per round ([`Limits::max_tracked_calls`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// A validator remembering at most `max` tool-call ids per round. Past that, a
    /// `tool_delta` or `tool_liveness` whose id is not remembered is not reported as
    /// `unknown_tool_call` (it may belong to an untracked call), and each `tool_start` not
    /// remembered is counted ([`Validator::untracked_calls`]).
    pub fn with_max_tracked_calls(max: usize) -> Self {
        Self {
            lines: 0,
            frames: 0,
            header_seen: false,
            agent_starts: 0,
            content_frames: 0,
            before_start_reported: false,
            last_id: 0,
            open: None,
            compaction: None,
            last_terminal: None,
            ended: None,
            after_end_reported: false,
            calls: HashSet::new(),
            max_tracked_calls: max,
            round_untracked: 0,
            untracked_calls: 0,
        }
    }

    /// `tool_start` frames whose id was not remembered because the round already held
    /// `max_tracked_calls` ids (counted in full, over the whole stream).
    pub fn untracked_calls(&self) -> u64 {
        self.untracked_calls
    }

    /// The last terminal frame seen and its round id.
    pub fn last_terminal(&self) -> Option<(Terminal, u64)> {
        self.last_terminal
    }

    /// The open round, when it holds frames other than compaction frames (a round left
    /// open at the end of the stream).
    pub fn unfinished_round(&self) -> Option<u64> {
        self.open.and_then(|(id, content)| content.then_some(id))
    }

    /// True when the stream has its header and nothing after it but compaction frames
    /// (a run that ended before its first round).
    pub fn before_agent_start(&self) -> bool {
        self.header_seen && self.agent_starts == 0 && self.content_frames == 0
    }

    /// Records that `line` was skipped (it still counts as a line of the stream).
    pub fn skipped_line(&mut self, line: u64) {
        self.lines = self.lines.max(line);
    }

    /// Checks one frame at `line`, pushing any violations to `out`. The frame may be owned
    /// ([`Frame`]) or borrowed ([`FrameRef`](crate::FrameRef)): the checks are the same.
    pub fn check<S: AsRef<str>>(&mut self, line: u64, frame: &Frame<S>, out: &mut Vec<Violation>) {
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
                if !version_supported(h.hep.as_ref()) {
                    v.push(
                        ViolationCode::UnsupportedVersion,
                        format!(
                            "the stream speaks HEP {:?}; this library speaks {} and refuses it",
                            clip(h.hep.as_ref()),
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
                format!("the first frame is `{}`, not hep_header", clip(frame.frame_type())),
            );
        }
        let (Some(id), false) = (frame.turn_id(), matches!(frame, Frame::Unknown(_))) else {
            return;
        };
        let compaction = matches!(frame, Frame::CompactionStart(_) | Frame::CompactionEnd(_));
        if !compaction {
            self.content_frames += 1;
        }
        self.check_order(id, frame, compaction, &mut v);
        self.check_turn(id, frame, &mut v);
        self.check_frame(id, frame, &mut v);
    }

    /// What the frame's place in the run allows: an unpaired compaction closed, round
    /// frames after `agent_start`, and what may follow the end of the run.
    fn check_order<S: AsRef<str>>(&mut self, id: u64, frame: &Frame<S>, compaction: bool, v: &mut Sink<'_>) {
        if let (Some(start), false) = (self.compaction, matches!(frame, Frame::CompactionEnd(_))) {
            self.compaction = None;
            v.push_for(
                Some(start),
                ViolationCode::UnpairedCompactionStart,
                format!("the compaction_start of turn {start} has no compaction_end before `{}`", frame.frame_type()),
            );
        }
        if self.agent_starts == 0 && !compaction {
            if let Frame::AgentStart(_) = frame {
                if let Some((open, false)) = self.open.filter(|&(open, _)| open != id) {
                    v.push(
                        ViolationCode::AgentStartIdMismatch,
                        format!("agent_start carries turn_id {id}, but the pre-flight compaction opened turn {open}"),
                    );
                }
            } else if !self.before_start_reported {
                self.before_start_reported = true;
                v.push(
                    ViolationCode::FrameBeforeAgentStart,
                    format!("`{}` comes before agent_start", frame.frame_type()),
                );
            }
        }
        let Some((terminal, end_id)) = self.ended else { return };
        match (terminal, frame) {
            (Terminal::Cancelled, Frame::CompactionStart(_)) => v.push(
                ViolationCode::CompactionAfterCancel,
                format!("compaction_start after the run was cancelled in turn {end_id}"),
            ),
            (_, _) if compaction => {}
            (Terminal::Error, _) if id > end_id => {
                (self.ended, self.after_end_reported) = (None, false);
                v.push(
                    ViolationCode::RoundAfterFatalError,
                    format!("turn {id} follows the fatal turn_error of turn {end_id}"),
                );
            }
            _ if !self.after_end_reported => {
                self.after_end_reported = true;
                v.push(
                    ViolationCode::FrameAfterEnd,
                    format!("`{}` after the run ended with {} in turn {end_id}", frame.frame_type(), terminal.as_str()),
                );
            }
            _ => {}
        }
    }

    fn check_turn<S: AsRef<str>>(&mut self, id: u64, frame: &Frame<S>, v: &mut Sink<'_>) {
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
    fn note_terminal<S: AsRef<str>>(&mut self, id: u64, frame: &Frame<S>) {
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
        self.round_untracked = 0;
    }

    fn check_frame<S: AsRef<str>>(&mut self, id: u64, frame: &Frame<S>, v: &mut Sink<'_>) {
        match frame {
            Frame::AgentStart(_) => {
                self.agent_starts += 1;
                if self.agent_starts == 2 {
                    v.push(ViolationCode::DuplicateAgentStart, "agent_start appears a second time".into());
                }
            }
            Frame::MessageStart(m) if m.role.as_ref() != "assistant" => {
                v.push(
                    ViolationCode::UnexpectedRole,
                    format!("message_start role is {:?}, not \"assistant\"", clip(m.role.as_ref())),
                );
            }
            Frame::ToolStart(t) if self.calls.contains(t.id.as_ref()) => v.push(
                ViolationCode::DuplicateToolCall,
                format!("tool_start for call {:?} a second time in turn {id}", clip(t.id.as_ref())),
            ),
            Frame::ToolStart(t) => {
                if self.calls.len() < self.max_tracked_calls {
                    self.calls.insert(t.id.as_ref().to_owned());
                } else {
                    self.round_untracked += 1;
                    self.untracked_calls += 1;
                }
            }
            Frame::TurnDone(done) if self.round_untracked == 0 => {
                for result in done.tool_results.iter().filter(|r| !self.calls.contains(r.id.as_ref())) {
                    v.push(
                        ViolationCode::UnknownToolResult,
                        format!(
                            "tool result for call {:?}, which has no tool_start in turn {id}",
                            clip(result.id.as_ref())
                        ),
                    );
                }
            }
            Frame::ToolDelta(t) => {
                if t.update.as_ref().is_empty() {
                    v.push(
                        ViolationCode::EmptyToolDelta,
                        format!("tool_delta for call {:?} has an empty update", clip(t.id.as_ref())),
                    );
                }
                self.check_call(t.id.as_ref(), "tool_delta", v);
            }
            Frame::ToolLiveness(t) => {
                if t.action_kind().is_none() {
                    v.push(
                        ViolationCode::UnknownLivenessAction,
                        format!("tool_liveness action {:?} is not a v1 action", clip(t.action.as_ref())),
                    );
                }
                self.check_call(t.id.as_ref(), "tool_liveness", v);
            }
            Frame::CompactionStart(_) => self.compaction = Some(id),
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
        if self.round_untracked == 0 && !self.calls.contains(id) {
            v.push(
                ViolationCode::UnknownToolCall,
                format!("{frame_type} for call {:?}, which has no tool_start in this turn", clip(id)),
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
        let cancelled = exit_code == Some(EXIT_CANCELLED);
        if let Some(id) = self.compaction {
            v.push_for(
                Some(id),
                ViolationCode::UnpairedCompactionStart,
                format!("the stream ended inside the compaction of turn {id}, with no compaction_end"),
            );
        }
        if let Some(id) = self.unfinished_round() {
            v.turn_id = Some(id);
            if cancelled {
                v.push(
                    ViolationCode::CancelledInOpenRound,
                    format!("exit code 130 while turn {id} was open: the harness exited before the round settled"),
                );
            } else {
                v.push(
                    ViolationCode::UnterminatedTurn,
                    format!("the stream ended inside turn {id}, before its terminal frame"),
                );
            }
            return;
        }
        let Some((terminal, id)) = self.last_terminal else {
            self.finish_before_first_round(exit_code, &mut v);
            return;
        };
        let Some(code) = exit_code else { return };
        v.turn_id = Some(id);
        let ended = terminal.as_str();
        match (code, terminal) {
            (EXIT_OK, Terminal::Done) | (EXIT_FAILED, Terminal::Error) | (EXIT_CANCELLED, Terminal::Cancelled) => {}
            (EXIT_CANCELLED, _) => v.push(
                ViolationCode::CancelledBetweenRounds,
                format!("exit code 130 with no cancelled frame: the signal came after turn {id} ended with {ended}"),
            ),
            (EXIT_FAILED, Terminal::Done) => v.push(
                ViolationCode::FailedAfterLastRound,
                format!("exit code 1 after turn {id} finished with turn_done, with no turn_error"),
            ),
            (EXIT_OK | EXIT_FAILED, _) => {
                let expected = match terminal {
                    Terminal::Done => EXIT_OK,
                    Terminal::Error => EXIT_FAILED,
                    Terminal::Cancelled => EXIT_CANCELLED,
                };
                v.push(
                    ViolationCode::ExitCodeMismatch,
                    format!(
                        "exit code {code}, but the last terminal frame is {ended} (turn {id}), which means exit code {expected}"
                    ),
                );
            }
            _ => v.push(ViolationCode::UnexpectedExitCode, format!("exit code {code} is none of 0, 1 and 130")),
        }
    }

    /// End-of-stream checks of a stream with no terminal frame and no round left open.
    fn finish_before_first_round(&self, exit_code: Option<i32>, v: &mut Sink<'_>) {
        if !self.before_agent_start() {
            v.push(ViolationCode::NoTerminalFrame, "the stream has no turn_done, turn_error or cancelled".into());
            return;
        }
        let after = if self.round_frames_seen() { "the header and pre-flight compaction frames" } else { "the header" };
        v.push(ViolationCode::EndedBeforeAgentStart, format!("the stream ended before agent_start, after {after}"));
        match exit_code {
            None | Some(EXIT_FAILED | EXIT_CANCELLED) => {}
            Some(EXIT_OK) => v.push(
                ViolationCode::ExitCodeMismatch,
                "exit code 0, but the stream has no terminal frame, which exit code 0 needs".into(),
            ),
            Some(code) => {
                v.push(ViolationCode::UnexpectedExitCode, format!("exit code {code} is none of 0, 1 and 130"))
            }
        }
    }

    /// True when any frame with a round id was seen.
    fn round_frames_seen(&self) -> bool {
        self.last_id > 0
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
        self.push_for(self.turn_id, code, message);
    }

    /// Pushes a violation about round `turn_id` rather than the frame's.
    fn push_for(&mut self, turn_id: Option<u64>, code: ViolationCode, message: String) {
        self.out.push(Violation { code, severity: code.severity(), line: self.line, turn_id, message });
    }
}

#[cfg(test)]
mod tests;
