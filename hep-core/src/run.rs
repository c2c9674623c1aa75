//! The run reducer: folds frames into what a supervisor mirrors (turns, tool calls, usage,
//! compactions, the answer).
//!
//! Memory stays bounded for lifelong threads: see [`Limits`].

use crate::frame::*;
use serde::{Serialize, Serializer};
use std::collections::VecDeque;

/// Bounds on what the reducer retains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most recent turns kept (older ones are dropped and counted).
    pub max_turns: usize,
    /// Bytes of assembled assistant text kept per turn.
    pub max_text_bytes: usize,
    /// Bytes of partial output kept per tool call.
    pub max_tool_output_bytes: usize,
    /// Tool calls kept per turn.
    pub max_tools_per_turn: usize,
    /// Stuck-call follow-ups kept per tool call (later ones are counted in
    /// [`ToolCall::followups_dropped`]).
    pub max_followups: usize,
    /// Compactions kept per turn in [`Turn::compactions`] (later ones are counted in
    /// [`Turn::compactions_dropped`]; the run's totals count them all).
    pub max_compactions_per_turn: usize,
    /// Tool-call ids the validator remembers per round for its `unknown_tool_call` check;
    /// `tool_start`s past it are counted in
    /// [`RunResult::untracked_calls`](crate::verdict::RunResult::untracked_calls).
    pub max_tracked_calls: usize,
    /// Violations and skipped lines kept (each list; later ones are counted only).
    pub max_reports: usize,
    /// Text bytes kept over all turns (assistant text, messages, tool ids, names, arguments,
    /// output, results and liveness reports); past it the oldest turns are dropped. The
    /// current turn is always kept, and its own text is cut at this many bytes (counted in
    /// [`Turn::text_dropped`], [`ToolCall::output_dropped`], [`Turn::bytes_dropped`], and
    /// [`Turn::tools_dropped`] or [`ToolCall::followups_dropped`] for what is left out whole).
    pub max_retained_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_turns: 1000,
            max_text_bytes: 1 << 20,
            max_tool_output_bytes: 64 << 10,
            max_tools_per_turn: 1000,
            max_followups: 32,
            max_compactions_per_turn: 1000,
            max_tracked_calls: 4096,
            max_reports: 1000,
            max_retained_bytes: 64 << 20,
        }
    }
}

/// Status of one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Started, no result yet.
    Running,
    /// The round's `turn_done` reports success.
    Ok,
    /// The round's `turn_done` reports failure.
    Failed,
}

impl ToolStatus {
    /// `"running"`, `"ok"` or `"failed"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Ok => "ok",
            Self::Failed => "failed",
        }
    }
}

/// One `tool_liveness` report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Liveness {
    /// The action (`heartbeat` or a stuck-call follow-up).
    pub action: String,
    /// Milliseconds since the call started.
    pub elapsed_ms: u64,
    /// Captured-output size, when reported.
    pub output_bytes: Option<u64>,
    /// Human-readable detail, when given.
    pub detail: Option<String>,
}

/// A tool call as a supervisor mirrors it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCall {
    /// Tool call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// `tool_start.args_summary` (empty when the call was only seen in `tool_results`).
    pub args_summary: String,
    /// Running, ok or failed.
    pub status: ToolStatus,
    /// Partial output from `tool_delta` frames: the first [`Limits::max_tool_output_bytes`] bytes.
    pub output: String,
    /// Bytes of partial output beyond the kept ones.
    pub output_dropped: u64,
    /// The result text from `turn_done`.
    pub result: Option<String>,
    /// The latest liveness report of any kind.
    pub last_liveness: Option<Liveness>,
    /// Stuck-call follow-ups (every action but `heartbeat`), oldest first: the first
    /// [`Limits::max_followups`].
    pub followups: Vec<Liveness>,
    /// Follow-ups beyond the kept ones.
    pub followups_dropped: u64,
}

/// One round as a supervisor mirrors it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    /// Round id.
    pub turn_id: u64,
    /// Assistant text assembled from `message_delta` frames (first [`Limits::max_text_bytes`] bytes).
    pub text: String,
    /// Bytes of assistant text beyond the kept ones.
    pub text_dropped: u64,
    /// Tool calls in start order.
    pub tools: Vec<ToolCall>,
    /// Tool calls beyond [`Limits::max_tools_per_turn`].
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
    /// `tokens_freed` of each compaction that ended in this round: the first
    /// [`Limits::max_compactions_per_turn`].
    pub compactions: Vec<u64>,
    /// Compactions of this round beyond the kept ones.
    pub compactions_dropped: u64,
    /// Bytes of this round's other text (tool ids, names and arguments, results, liveness
    /// reports, message, stop reason, error) not kept because the round alone held
    /// [`Limits::max_retained_bytes`].
    pub bytes_dropped: u64,
    /// Text bytes this turn holds (counted against [`Limits::max_retained_bytes`]).
    #[serde(skip)]
    pub(crate) retained: usize,
}

impl Turn {
    fn new(turn_id: u64) -> Self {
        Self {
            turn_id,
            text: String::new(),
            text_dropped: 0,
            tools: Vec::new(),
            tools_dropped: 0,
            end: None,
            message: None,
            usage: None,
            stop_reason: None,
            error: None,
            compactions: Vec::new(),
            compactions_dropped: 0,
            bytes_dropped: 0,
            retained: 0,
        }
    }
}

/// What the run looks like so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Run {
    /// The stream's header.
    pub header: Option<HepHeader>,
    /// The most recent turns, oldest first.
    pub turns: VecDeque<Turn>,
    /// Turns dropped to respect [`Limits::max_turns`] and [`Limits::max_retained_bytes`].
    pub turns_dropped: u64,
    /// Usage summed over every `turn_done`.
    pub usage: Usage,
    /// Compactions ended so far.
    pub compactions: u64,
    /// Tokens freed by all compactions.
    pub tokens_freed: u64,
    /// The last terminal frame and its round id.
    #[serde(serialize_with = "terminal_ref")]
    pub last_terminal: Option<(Terminal, u64)>,
    /// The user-visible answer: the `message` of the last terminal frame, when it is a `turn_done`.
    pub answer: Option<String>,
    /// Frames applied.
    pub frames: u64,
    #[serde(skip)]
    pub(crate) limits: Limits,
    /// Text bytes held by the kept turns.
    #[serde(skip)]
    pub(crate) retained: usize,
}

impl Run {
    /// An empty run retaining at most what `limits` allows.
    pub fn new(limits: Limits) -> Self {
        Self { limits, ..Self::default() }
    }

    /// The turn with id `turn_id`, creating it when it is newer than every kept turn.
    #[inline(always)]
    fn turn(&mut self, turn_id: u64) -> Option<&mut Turn> {
        let newest = self.turns.back().map(|t| t.turn_id);
        if newest == Some(turn_id) {
            // The common case: another frame of the open round.
            return self.turns.back_mut();
        }
        if newest.is_none_or(|n| turn_id > n) {
            if self.turns.len() >= self.limits.max_turns.max(1) {
                self.drop_oldest();
            }
            self.turns.push_back(Turn::new(turn_id));
            return self.turns.back_mut();
        }
        self.turns.iter_mut().rev().find(|t| t.turn_id == turn_id)
    }

    fn drop_oldest(&mut self) {
        if let Some(turn) = self.turns.pop_front() {
            self.retained -= turn.retained;
            self.turns_dropped += 1;
        }
    }

    /// Folds one frame, owned ([`Frame`]) or borrowed ([`FrameRef`](crate::FrameRef)),
    /// into the run.
    pub fn apply<S: AsRef<str>>(&mut self, frame: &Frame<S>) {
        self.frames += 1;
        let limits = self.limits;
        if let Frame::HepHeader(h) = frame {
            self.header.get_or_insert_with(|| HepHeader {
                hep: h.hep.as_ref().to_owned(),
                fah: h.fah.as_ref().to_owned(),
                session: h.session.as_ref().to_owned(),
            });
            return;
        }
        if let Some(terminal) = frame.terminal() {
            let id = frame.turn_id().unwrap_or_default();
            self.last_terminal = Some((terminal, id));
            self.answer = match frame {
                Frame::TurnDone(d) => Some(d.message.as_ref().to_owned()),
                _ => None,
            };
        }
        match frame {
            Frame::TurnDone(d) => {
                self.usage.input = self.usage.input.saturating_add(d.usage.input);
                self.usage.output = self.usage.output.saturating_add(d.usage.output);
                self.usage.cost += d.usage.cost;
            }
            Frame::CompactionEnd(c) => {
                self.compactions += 1;
                self.tokens_freed = self.tokens_freed.saturating_add(c.tokens_freed);
            }
            _ => {}
        }
        let (Some(id), false) = (frame.turn_id(), matches!(frame, Frame::Unknown(_))) else {
            return;
        };
        let Some(turn) = self.turn(id) else { return };
        let before = turn.retained;
        fold(turn, frame, limits);
        let after = turn.retained;
        self.retained = self.retained - before + after;
        while self.retained > limits.max_retained_bytes && self.turns.len() > 1 {
            self.drop_oldest();
        }
    }
}

/// Folds `frame` into its `turn`, keeping the turn's text within
/// [`Limits::max_retained_bytes`].
fn fold<S: AsRef<str>>(turn: &mut Turn, frame: &Frame<S>, limits: Limits) {
    let mut budget = Budget { max: limits.max_retained_bytes, used: turn.retained, dropped: 0 };
    match frame {
        Frame::MessageDelta(m) => {
            let max = limits.max_text_bytes.min(turn.text.len() + budget.room());
            budget.used += push_bounded(&mut turn.text, &mut turn.text_dropped, m.delta.as_ref(), max);
        }
        Frame::ToolStart(t) => match call(turn, t.id.as_ref(), t.name.as_ref(), &mut budget, limits) {
            Some(call) => budget.replace(&mut call.args_summary, t.args_summary.as_ref()),
            None => turn.tools_dropped += 1,
        },
        Frame::ToolDelta(t) => {
            let room = budget.room();
            if let Some(call) = turn.tools.iter_mut().rev().find(|c| c.id == t.id.as_ref()) {
                let max = limits.max_tool_output_bytes.min(call.output.len() + room);
                budget.used += push_bounded(&mut call.output, &mut call.output_dropped, t.update.as_ref(), max);
            }
        }
        Frame::ToolLiveness(l) => {
            if let Some(call) = call(turn, l.id.as_ref(), l.name.as_ref(), &mut budget, limits) {
                liveness(call, l, &mut budget, limits);
            }
        }
        Frame::TurnDone(d) => {
            for r in &d.tool_results {
                if let Some(call) = call(turn, r.id.as_ref(), r.name.as_ref(), &mut budget, limits) {
                    call.status = if r.ok { ToolStatus::Ok } else { ToolStatus::Failed };
                    budget.replace_option(&mut call.result, r.text.as_ref());
                }
            }
            turn.end = Some(Terminal::Done);
            budget.replace_option(&mut turn.message, d.message.as_ref());
            turn.usage = Some(d.usage);
            budget.replace_option(&mut turn.stop_reason, d.stop_reason.as_ref());
        }
        Frame::TurnError(e) => {
            turn.end = Some(Terminal::Error);
            budget.replace_option(&mut turn.error, e.error.as_ref());
        }
        Frame::Cancelled(_) => turn.end = Some(Terminal::Cancelled),
        Frame::CompactionEnd(c) => {
            push_capped(&mut turn.compactions, &mut turn.compactions_dropped, limits.max_compactions_per_turn, || {
                c.tokens_freed
            });
        }
        _ => {}
    }
    turn.retained = budget.used;
    turn.bytes_dropped += budget.dropped;
}

/// Records a `tool_liveness` report on its call: always as the latest report, and as a
/// follow-up (every action but `heartbeat`) while the call has room for one.
fn liveness<S: AsRef<str>>(call: &mut ToolCall, l: &ToolLiveness<S>, budget: &mut Budget, limits: Limits) {
    if let Some(old) = call.last_liveness.take() {
        budget.free(old.action.len() + old.detail.as_ref().map_or(0, String::len));
    }
    let report = Liveness {
        action: budget.keep(l.action.as_ref()),
        elapsed_ms: l.elapsed_ms,
        output_bytes: l.output_bytes,
        detail: l.detail.as_ref().map(|d| budget.keep(d.as_ref())),
    };
    let size = report.action.len() + report.detail.as_ref().map_or(0, String::len);
    if l.action_kind() != Some(LivenessAction::Heartbeat) {
        let room = size <= budget.room();
        let max = if room { limits.max_followups } else { 0 };
        if push_capped(&mut call.followups, &mut call.followups_dropped, max, || report.clone()) {
            budget.used += size;
        }
    }
    call.last_liveness = Some(report);
}

/// The text bytes one turn holds, against [`Limits::max_retained_bytes`]: text that does
/// not fit is cut (on a character boundary) and counted.
struct Budget {
    max: usize,
    used: usize,
    dropped: u64,
}

impl Budget {
    /// Bytes the turn may still take.
    fn room(&self) -> usize {
        self.max.saturating_sub(self.used)
    }

    /// The longest prefix of `text` that fits, now counted as held.
    fn keep(&mut self, text: &str) -> String {
        let kept = prefix_within(text, self.room());
        self.used += kept.len();
        self.dropped += (text.len() - kept.len()) as u64;
        kept.to_owned()
    }

    /// Counts `bytes` the turn no longer holds.
    fn free(&mut self, bytes: usize) {
        self.used = self.used.saturating_sub(bytes);
    }

    /// Replaces `field` with what fits of `text`.
    fn replace(&mut self, field: &mut String, text: &str) {
        self.free(field.len());
        *field = self.keep(text);
    }

    /// Replaces `field` with what fits of `text`.
    fn replace_option(&mut self, field: &mut Option<String>, text: &str) {
        self.free(field.as_ref().map_or(0, String::len));
        *field = Some(self.keep(text));
    }
}

/// Writes `(terminal, turn_id)` as `{"type": "turn_done", "turn_id": 3}`.
fn terminal_ref<S: Serializer>(value: &Option<(Terminal, u64)>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Ref {
        r#type: Terminal,
        turn_id: u64,
    }
    value.map(|(r#type, turn_id)| Ref { r#type, turn_id }).serialize(s)
}

/// The call `id` of `turn`, added when unseen if the turn has room for one more call (its
/// id and name within the budget, and fewer than [`Limits::max_tools_per_turn`] calls).
fn call<'t>(turn: &'t mut Turn, id: &str, name: &str, budget: &mut Budget, limits: Limits) -> Option<&'t mut ToolCall> {
    if let Some(i) = turn.tools.iter().rposition(|c| c.id == id) {
        return turn.tools.get_mut(i);
    }
    if turn.tools.len() >= limits.max_tools_per_turn || id.len() + name.len() > budget.room() {
        return None;
    }
    budget.used += id.len() + name.len();
    turn.tools.push(ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        args_summary: String::new(),
        status: ToolStatus::Running,
        output: String::new(),
        output_dropped: 0,
        result: None,
        last_liveness: None,
        followups: Vec::new(),
        followups_dropped: 0,
    });
    turn.tools.last_mut()
}

/// Pushes `make()` onto `list` while it holds fewer than `max` items, else counts it in
/// `dropped`; returns whether it was kept.
fn push_capped<T>(list: &mut Vec<T>, dropped: &mut u64, max: usize, make: impl FnOnce() -> T) -> bool {
    if list.len() < max {
        list.push(make());
        return true;
    }
    *dropped += 1;
    false
}

/// Appends `text` to `buf` up to `max` bytes (cut on a character boundary), counting the
/// rest in `dropped`; returns the bytes appended.
#[inline]
fn push_bounded(buf: &mut String, dropped: &mut u64, text: &str, max: usize) -> usize {
    let room = max.saturating_sub(buf.len());
    if text.len() <= room && *dropped == 0 {
        buf.push_str(text);
        return text.len();
    }
    let kept = if *dropped > 0 { "" } else { prefix_within(text, room) };
    buf.push_str(kept);
    *dropped += (text.len() - kept.len()) as u64;
    kept.len()
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn prefix_within(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests;
