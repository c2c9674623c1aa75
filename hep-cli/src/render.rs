//! The human view of a stream: each event as it arrives, then a summary. Every piece of
//! stream text is sanitised before it reaches the terminal.
//!
//! Live on a terminal, the running tools' heartbeats share one status line at the bottom,
//! rewritten in place (`\r`, erase the line) as they come; every other line is printed
//! above it. Elsewhere (a pipe, a file, `hep cat`) each heartbeat is a line of its own.

use crate::report;
use crate::style::Style;
use hep_core::run::ToolStatus;
use hep_core::sanitize::sanitize;
use hep_core::{Event, Frame, LivenessAction, RunResult, Severity, Usage};
use std::collections::HashMap;
use std::io::{self, Write};
use std::time::Instant;

/// Renders events to `out`.
pub(crate) struct Renderer<W: Write> {
    out: W,
    style: Style,
    /// Live (a process being watched): tool calls show wall-clock durations.
    live: bool,
    /// Assistant text was printed without a final newline.
    in_text: bool,
    turn: Option<u64>,
    started: HashMap<String, Instant>,
    totals: Usage,
    /// Heartbeats update a status line in place (live, on a terminal).
    status_line: bool,
    /// The latest heartbeat of each running tool, by call id, as the status line shows it.
    heartbeats: Vec<(String, String)>,
    /// The status line is on the screen, the cursor at its end.
    drawn: bool,
}

/// Back to the start of the line, and erase it.
const ERASE_LINE: &str = "\r\x1b[2K";
/// Autowrap off, then on again: a status line longer than the terminal is cut at its
/// edge instead of wrapping (which `ERASE_LINE` could not erase).
const NO_WRAP: (&str, &str) = ("\x1b[?7l", "\x1b[?7h");

fn secs(ms: u64) -> String {
    format!("{:.1}s", ms as f64 / 1000.0)
}

impl<W: Write> Renderer<W> {
    /// A renderer writing to `out`.
    pub(crate) fn new(out: W, style: Style, live: bool) -> Self {
        Self {
            out,
            style,
            live,
            in_text: false,
            turn: None,
            started: HashMap::new(),
            totals: Usage::default(),
            status_line: false,
            heartbeats: Vec::new(),
            drawn: false,
        }
    }

    /// Heartbeats update one status line in place (for a live view on a terminal).
    #[cfg(unix)]
    pub(crate) fn with_status_line(mut self, on: bool) -> Self {
        self.status_line = on && self.live;
        self
    }

    fn line(&mut self, text: &str) -> io::Result<()> {
        self.erase_status()?;
        if self.in_text {
            self.in_text = false;
            writeln!(self.out)?;
        }
        writeln!(self.out, "{text}")?;
        self.draw_status()?;
        self.out.flush()
    }

    /// Takes the status line off the screen (the cursor back at the start of its line).
    fn erase_status(&mut self) -> io::Result<()> {
        if self.drawn {
            self.drawn = false;
            write!(self.out, "{ERASE_LINE}")?;
        }
        Ok(())
    }

    /// Draws the status line, if there is one and the cursor is at the start of a line.
    fn draw_status(&mut self) -> io::Result<()> {
        if !self.status_line || self.in_text || self.heartbeats.is_empty() {
            return Ok(());
        }
        let text: Vec<&str> = self.heartbeats.iter().map(|(_, text)| text.as_str()).collect();
        write!(self.out, "{}{}{}", NO_WRAP.0, text.join("  "), NO_WRAP.1)?;
        self.drawn = true;
        Ok(())
    }

    /// Shows `text` as the heartbeat of call `id`: on the status line, or as a line.
    fn heartbeat(&mut self, id: &str, text: String) -> io::Result<()> {
        if !self.status_line {
            return self.line(&text);
        }
        match self.heartbeats.iter_mut().find(|(call, _)| call == id) {
            Some((_, shown)) => *shown = text,
            None => self.heartbeats.push((id.to_owned(), text)),
        }
        self.erase_status()?;
        self.draw_status()?;
        self.out.flush()
    }

    /// A line of the child's stderr, the moment it is complete (dimmed).
    #[cfg(unix)]
    pub(crate) fn stderr(&mut self, line: &str) -> io::Result<()> {
        let text = self.style.dim(&format!("  stderr: {}", sanitize(line)));
        self.line(&text)
    }

    /// A note from the supervisor itself (not from the stream).
    #[cfg(unix)]
    pub(crate) fn note(&mut self, text: &str) -> io::Result<()> {
        let text = self.style.yellow(&format!("» {text}"));
        self.line(&text)
    }

    /// Shows one event.
    pub(crate) fn event(&mut self, event: &Event) -> io::Result<()> {
        let s = self.style;
        match event {
            Event::Frame(r) => self.frame(&r.frame),
            Event::Violation(v) => {
                let text = format!("! line {}: {} {}: {}", v.line, v.severity.as_str(), v.code, sanitize(&v.message));
                self.line(&if v.severity == Severity::Error { s.red(&text) } else { s.yellow(&text) })
            }
            Event::Skipped(e) => self.line(&s.red(&format!("! skipped {}", sanitize(&e.to_string())))),
            Event::Halted(e) => self.line(&s.red(&format!("! stopped: {}", sanitize(&e.to_string())))),
        }
    }

    fn frame(&mut self, frame: &Frame) -> io::Result<()> {
        let s = self.style;
        if let (Some(id), false) = (frame.turn_id(), matches!(frame, Frame::Unknown(_))) {
            if self.turn.is_none_or(|t| id > t) {
                self.turn = Some(id);
                self.line(&s.cyan(&format!("── turn {id} ──")))?;
            }
        }
        match frame {
            Frame::HepHeader(h) => self.line(&s.bold(&format!(
                "● HEP {} · fa {} · session {}",
                sanitize(&h.hep),
                sanitize(&h.fah),
                sanitize(&h.session)
            ))),
            Frame::AgentStart(_) | Frame::MessageStart(_) => Ok(()),
            Frame::MessageDelta(m) => {
                self.erase_status()?;
                write!(self.out, "{}", sanitize(&m.delta))?;
                self.in_text = !m.delta.ends_with('\n');
                self.draw_status()?;
                self.out.flush()
            }
            Frame::ToolStart(t) => {
                self.started.insert(t.id.clone(), Instant::now());
                self.line(&s.cyan(&format!("  ⚙ {}({})", sanitize(&t.name), sanitize(&t.args_summary))))
            }
            Frame::ToolDelta(t) => {
                for piece in t.update.lines() {
                    self.line(&s.dim(&format!("  │ {}", sanitize(piece))))?;
                }
                Ok(())
            }
            Frame::ToolLiveness(l) => {
                let mut text = format!("{} after {}", sanitize(&l.name), secs(l.elapsed_ms));
                if let Some(bytes) = l.output_bytes {
                    text.push_str(&format!(" · {bytes} B of output"));
                }
                if let Some(detail) = &l.detail {
                    text.push_str(&format!(" · {}", sanitize(detail)));
                }
                if l.action_kind() == Some(LivenessAction::Heartbeat) {
                    self.heartbeat(&l.id, s.dim(&format!("  ⏳ {text}")))
                } else {
                    self.line(&s.yellow(&format!("  ⚠ stuck: {} · {text}", sanitize(&l.action))))
                }
            }
            Frame::TurnDone(d) => {
                // The round is over: so are its tools.
                self.heartbeats.clear();
                for r in &d.tool_results {
                    let took = self
                        .started
                        .remove(&r.id)
                        .filter(|_| self.live)
                        .map(|t| format!(" · {:.1}s", t.elapsed().as_secs_f64()));
                    let took = took.unwrap_or_default();
                    let text = if r.ok {
                        s.green(&format!(
                            "  ✓ {} ok{took} · {} lines of result",
                            sanitize(&r.name),
                            r.text.lines().count()
                        ))
                    } else {
                        let first = r.text.lines().next().unwrap_or_default();
                        s.red(&format!("  ✗ {} failed{took} · {}", sanitize(&r.name), sanitize(first)))
                    };
                    self.line(&text)?;
                }
                self.totals.input += d.usage.input;
                self.totals.output += d.usage.output;
                self.totals.cost += d.usage.cost;
                let t = self.totals;
                self.line(&s.dim(&format!(
                    "  · turn {} done ({}) · {} in / {} out · ${:.4} │ total {} in / {} out · ${:.4}",
                    d.turn_id,
                    sanitize(&d.stop_reason),
                    d.usage.input,
                    d.usage.output,
                    d.usage.cost,
                    t.input,
                    t.output,
                    t.cost
                )))
            }
            Frame::TurnError(e) => {
                self.heartbeats.clear();
                let fatal = if e.fatal { "fatal" } else { "not fatal" };
                self.line(&s.red(&format!("  ✗ turn {} failed ({fatal}): {}", e.turn_id, sanitize(&e.error))))
            }
            Frame::Cancelled(c) => {
                self.heartbeats.clear();
                self.line(&s.yellow(&format!("  ⊘ turn {} cancelled", c.turn_id)))
            }
            Frame::CompactionStart(_) => self.line(&s.dim("  ⇣ compacting the context…")),
            Frame::CompactionEnd(c) => self.line(&s.dim(&format!("  ⇣ compaction freed {} tokens", c.tokens_freed))),
            Frame::Unknown(u) => self.line(
                &s.dim(&format!("  · {} (a frame type this version does not know; kept)", sanitize(&u.frame_type))),
            ),
        }
    }

    /// The closing summary: verdict, answer, turns, tools, usage, exit code, violations.
    pub(crate) fn summary(&mut self, result: &RunResult, stderr_tail: Option<&str>) -> io::Result<()> {
        let s = self.style;
        self.heartbeats.clear();
        self.line(&s.bold("── summary ──"))?;
        let verdict = result.verdict.as_str();
        let painted = match result.verdict {
            hep_core::Verdict::Ok => s.green(verdict),
            hep_core::Verdict::Failed | hep_core::Verdict::ProtocolError => s.red(verdict),
            _ => s.yellow(verdict),
        };
        self.line(&format!("verdict     {painted} — {}", sanitize(&result.reasons.join("; "))))?;
        let answer = result.run.answer.as_deref().map_or_else(|| "(none)".into(), sanitize);
        self.line(&format!("answer      {answer}"))?;
        let tools: Vec<_> = result.run.turns.iter().flat_map(|t| &t.tools).collect();
        let ok = tools.iter().filter(|t| t.status == ToolStatus::Ok).count();
        let failed = tools.iter().filter(|t| t.status == ToolStatus::Failed).count();
        let turns = result.run.turns.len() as u64 + result.run.turns_dropped;
        self.line(&format!("turns       {turns} · tools {} ({ok} ok, {failed} failed)", tools.len()))?;
        let u = result.run.usage;
        self.line(&format!("usage       {} in / {} out · ${:.6}", u.input, u.output, u.cost))?;
        let code = result.exit_code.map_or_else(|| "unknown".into(), |c| c.to_string());
        self.line(&format!("exit code   {code}"))?;
        match (result.violation_count, result.skipped_count) {
            (0, 0) => self.line("violations  none")?,
            (violations, skipped) => {
                let mut counts = Vec::new();
                if violations > 0 {
                    counts.push(format!("{violations} ({})", report::severities(result)));
                }
                if skipped > 0 {
                    counts.push(report::count(skipped, "skipped line"));
                }
                self.line(&format!("violations  {}", counts.join(", ")))?;
                for v in &result.violations {
                    let text =
                        format!("  {}: {} {}: {}", report::place(v), v.severity.as_str(), v.code, sanitize(&v.message));
                    self.line(&if v.severity == Severity::Error { s.red(&text) } else { s.yellow(&text) })?;
                }
                for e in &result.skipped {
                    self.line(&s.red(&format!("  skipped {}", sanitize(&e.to_string()))))?;
                }
            }
        }
        let past_caps = [
            (result.run.turns_dropped, "older turns not kept"),
            (result.untracked_calls, "tool call ids not remembered (unknown_tool_call unchecked)"),
        ];
        let past_caps: Vec<String> =
            past_caps.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
        if !past_caps.is_empty() {
            self.line(&format!("limits      {}", past_caps.join(" · ")))?;
        }
        if let Some(tail) = stderr_tail.filter(|t| !t.trim().is_empty()) {
            self.line("stderr (tail)")?;
            for piece in tail.lines().rev().take(10).collect::<Vec<_>>().into_iter().rev() {
                self.line(&s.dim(&format!("  {}", sanitize(piece))))?;
            }
        }
        Ok(())
    }
}
