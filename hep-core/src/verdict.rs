//! The run's verdict, given the exit code, and everything known at the end of a stream.

use crate::error::{Error, ErrorKind};
use crate::frame::Terminal;
use crate::run::Run;
use crate::supervise::{EXIT_CANCELLED, EXIT_FAILED, EXIT_OK};
use crate::violation::{Severity, Violation};
use serde::Serialize;

/// How a run ended, all things considered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The last terminal frame is `turn_done` and everything agrees.
    Ok,
    /// The last terminal frame is `turn_error`.
    Failed,
    /// The last terminal frame is `cancelled`.
    Cancelled,
    /// The stream stopped early: killed, crashed or cut off.
    Incomplete,
    /// The stream broke the protocol (error violations or skipped lines).
    ProtocolError,
}

impl Verdict {
    /// `"ok"`, `"failed"`, `"cancelled"`, `"incomplete"` or `"protocol_error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Incomplete => "incomplete",
            Self::ProtocolError => "protocol_error",
        }
    }
}

/// Everything known at the end of a stream (serializes to the JSON that `hep watch --json` prints).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    /// The verdict.
    pub verdict: Verdict,
    /// Why: the findings that decided the verdict, most important first.
    pub reasons: Vec<String>,
    /// The exit code the verdict was given with.
    pub exit_code: Option<i32>,
    /// No error-severity violation, no skipped line, not halted.
    pub conforms: bool,
    /// The error that halted the stream (strict mode, or a refused protocol version).
    pub halted: Option<Error>,
    /// The reduced run.
    pub run: Run,
    /// Violations (the first [`Limits::max_reports`](crate::run::Limits::max_reports)).
    pub violations: Vec<Violation>,
    /// Total violations, including those not kept.
    pub violation_count: u64,
    /// Lines skipped, as errors (the first [`Limits::max_reports`](crate::run::Limits::max_reports)).
    pub skipped: Vec<Error>,
    /// Total skipped lines, including those not kept.
    pub skipped_count: u64,
    /// `tool_start` frames whose id the validator did not remember, because their round
    /// already held [`Limits::max_tracked_calls`](crate::run::Limits::max_tracked_calls)
    /// ids (in such a round, `unknown_tool_call` is not reported for ids it does not know).
    pub untracked_calls: u64,
    /// Lines read (complete or skipped), up to a halt.
    pub lines: u64,
    /// How the run was supervised, when a [`Supervisor`](crate::supervise::Supervisor)
    /// ran it (who cancelled, the signals, the stderr tail).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supervision: Option<crate::supervise::Supervision>,
}

/// Most findings quoted in [`RunResult::reasons`].
const MAX_REASONS: usize = 10;

/// What [`decide`] weighs.
pub(crate) struct Findings<'a> {
    pub(crate) halted: Option<&'a Error>,
    pub(crate) violations: &'a [Violation],
    pub(crate) skipped: &'a [Error],
    /// Error violations other than incompleteness, plus skipped lines other than a truncated tail.
    pub(crate) breaches: u64,
    /// Incompleteness violations plus a truncated last line. Like `breaches`, counted in
    /// full: the lists above keep only the first `max_reports`, and the verdict must not
    /// depend on that cap.
    pub(crate) cut_short: u64,
    pub(crate) exit_code: Option<i32>,
    /// The round left open at the end of the stream, if any.
    pub(crate) unfinished_round: Option<u64>,
}

/// The verdict and its reasons.
pub(crate) fn decide(run: &Run, f: &Findings<'_>) -> (Verdict, Vec<String>) {
    let mut reasons: Vec<String> = Vec::new();
    if let Some(err) = f.halted {
        reasons.push(format!("stopped: {err}"));
    }
    let broken = |v: &&Violation| v.severity == Severity::Error && !v.code.is_incompleteness();
    reasons.extend(f.violations.iter().filter(broken).map(ToString::to_string));
    reasons.extend(f.skipped.iter().filter(|e| e.kind() != ErrorKind::Truncated).map(|e| format!("skipped {e}")));
    if f.halted.is_some() || f.breaches > 0 {
        if reasons.is_empty() {
            reasons.push(format!(
                "{} (past the report limit, not kept)",
                counted(f.breaches, "protocol breach", "protocol breaches")
            ));
        }
        return (Verdict::ProtocolError, capped(reasons));
    }
    let cut = |v: &&Violation| v.code.is_incompleteness();
    reasons.extend(f.violations.iter().filter(cut).map(ToString::to_string));
    reasons.extend(f.skipped.iter().map(|e| format!("skipped {e}")));
    if f.exit_code == Some(EXIT_CANCELLED) && reasons.is_empty() && f.cut_short == 0 {
        // The reference exits 130 after any SIGINT or SIGTERM, whether or not it was
        // streaming (and so wrote `cancelled`): the run was cancelled, wherever the signal
        // found it (a round left open is a warning then, not a stream cut short).
        return (Verdict::Cancelled, vec![cancelled_because(run, f)]);
    }
    if let Some(code) = f.exit_code.filter(|c| ![EXIT_OK, EXIT_FAILED, EXIT_CANCELLED].contains(c)) {
        reasons.push(match code {
            129..=192 => format!("exit code {code}: killed by signal {}", code - 128),
            _ => format!("exit code {code}: the harness crashed or was killed"),
        });
    }
    if reasons.is_empty() && f.cut_short > 0 {
        let findings = counted(f.cut_short, "finding", "findings");
        reasons.push(format!("the stream stopped early: {findings} (past the report limit, not kept)"));
    }
    if !reasons.is_empty() {
        return (Verdict::Incomplete, capped(reasons));
    }
    match (run.last_terminal, f.exit_code) {
        (Some((Terminal::Done, id)), Some(EXIT_FAILED)) => (
            Verdict::Failed,
            vec![format!(
                "exit code 1 after turn {id} finished with turn_done: the harness failed after its last round"
            )],
        ),
        // With no terminal frame, only a run that ended before its first round (the header
        // and compaction frames) gets here: any other was cut short (`no_terminal_frame`).
        (None, Some(EXIT_FAILED)) => {
            (Verdict::Failed, vec!["exit code 1 before the first round: the harness failed before agent_start".into()])
        }
        (Some((Terminal::Done, id)), _) => (Verdict::Ok, vec![format!("turn {id} finished with turn_done")]),
        (Some((Terminal::Error, id)), _) => {
            let error = run.turns.iter().rev().find(|t| t.turn_id == id).and_then(|t| t.error.clone());
            (Verdict::Failed, vec![format!("turn {id} failed: {}", error.unwrap_or_default())])
        }
        (Some((Terminal::Cancelled, id)), _) => {
            (Verdict::Cancelled, vec![format!("the run was cancelled in turn {id}")])
        }
        (None, _) => (Verdict::Incomplete, vec!["the stream has no terminal frame".to_owned()]),
    }
}

/// Why a run that exited 130 was cancelled, by where the signal found it.
fn cancelled_because(run: &Run, f: &Findings<'_>) -> String {
    match (f.unfinished_round, run.last_terminal) {
        (Some(id), _) => format!("exit code 130: cancelled in turn {id}, before the round settled"),
        (None, Some((Terminal::Cancelled, id))) => format!("the run was cancelled in turn {id}"),
        (None, Some((Terminal::Done, id))) => {
            format!(
                "exit code 130: cancelled between rounds, after turn {id} finished with turn_done (its answer is kept)"
            )
        }
        (None, Some((Terminal::Error, id))) => {
            format!("exit code 130: cancelled between rounds, after turn {id} ended with turn_error")
        }
        (None, None) => "exit code 130: cancelled before the first round".to_owned(),
    }
}

/// `n` things: "1 finding", "3 findings".
fn counted(n: u64, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}

/// At most [`MAX_REASONS`] reasons, and a last one counting those left out.
fn capped(mut reasons: Vec<String>) -> Vec<String> {
    if reasons.len() > MAX_REASONS {
        let more = reasons.len() - MAX_REASONS;
        reasons.truncate(MAX_REASONS);
        reasons.push(format!("... and {more} more"));
    }
    reasons
}
