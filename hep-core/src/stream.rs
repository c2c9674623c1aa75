//! The one object the bindings wrap: framer + decoder + validator + run reducer.
//!
//! [`Stream::feed`] takes bytes as they arrive and returns what they complete;
//! [`Stream::finish`] takes the exit code and returns the [`RunResult`].
//! [`Stream::feed_borrowed`] reads the same way, handing over frames that borrow from the
//! fed bytes.

use crate::decode::{Text, utf8};
use crate::error::{Error, ErrorKind};
use crate::event::{Event, EventRef, Received};
use crate::lines::{DEFAULT_MAX_LINE, Line, LineSplitter};
use crate::run::{Limits, Run};
use crate::validate::Validator;
use crate::verdict::{Findings, RunResult, decide};
use crate::violation::{Severity, Violation, ViolationCode};
use std::borrow::Cow;

/// How a [`Stream`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions {
    /// Longest accepted line in bytes, excluding the line ending (default 16 MiB).
    pub max_line_length: usize,
    /// Stop at the first error-severity violation or skipped line (default: report and carry on).
    pub strict: bool,
    /// What the run reducer retains.
    pub limits: Limits,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self { max_line_length: DEFAULT_MAX_LINE, strict: false, limits: Limits::default() }
    }
}

/// A live HEP v1 stream reader.
#[derive(Debug, Clone)]
pub struct Stream {
    options: StreamOptions,
    lines: LineSplitter,
    validator: Validator,
    run: Run,
    halted: Option<Error>,
    input_done: bool,
    violations: Vec<Violation>,
    violation_count: u64,
    skipped: Vec<Error>,
    skipped_count: u64,
    breaches: u64,
    /// Incompleteness findings: error violations that mean the stream stopped early, plus a
    /// truncated last line (counted in full, whatever `max_reports` keeps).
    cut_short: u64,
    error_violations: u64,
    lines_read: u64,
    scratch: Vec<Violation>,
}

impl Default for Stream {
    fn default() -> Self {
        Self::new(StreamOptions::default())
    }
}

impl Stream {
    /// A stream reading with `options`.
    pub fn new(options: StreamOptions) -> Self {
        Self {
            options,
            lines: LineSplitter::new(options.max_line_length),
            validator: Validator::with_max_tracked_calls(options.limits.max_tracked_calls),
            run: Run::new(options.limits),
            halted: None,
            input_done: false,
            violations: Vec::new(),
            violation_count: 0,
            skipped: Vec::new(),
            skipped_count: 0,
            breaches: 0,
            cut_short: 0,
            error_violations: 0,
            lines_read: 0,
            scratch: Vec::new(),
        }
    }

    /// The run as reduced so far.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// The error that halted the stream, if it has halted.
    pub fn halted(&self) -> Option<&Error> {
        self.halted.as_ref()
    }

    /// The violations found so far: the first [`Limits::max_reports`] (what
    /// [`RunResult::violations`] will start with).
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The lines skipped so far, as errors: the first [`Limits::max_reports`].
    pub fn skipped(&self) -> &[Error] {
        &self.skipped
    }

    /// Feeds `bytes`, returning the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        let mut out = Vec::new();
        self.feed_into(bytes, &mut out);
        out
    }

    /// Feeds `bytes`, appending the events they complete to `out`.
    pub fn feed_into(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.feed_with(bytes, |event| out.push(event));
    }

    /// Feeds `bytes`, handing each event they complete to `on_event` as soon as it exists
    /// (the fastest way to read: nothing is batched).
    pub fn feed_with(&mut self, bytes: &[u8], mut on_event: impl FnMut(Event)) {
        if self.halted.is_some() || self.input_done {
            return;
        }
        let mut lines = std::mem::take(&mut self.lines);
        lines.push(bytes, |line| self.line(line, &mut on_event));
        self.lines = lines;
    }

    /// Feeds `bytes` like [`Stream::feed_with`] (the same events, violations and result),
    /// but hands each frame over borrowed: its line and every text field that needed no
    /// unescaping are slices of `bytes` (or, for a line continued from an earlier feed, of
    /// the stream's line buffer), valid for the callback's duration. Nothing is copied
    /// unless kept: [`Event::into_owned`] makes an event outlive the callback.
    ///
    /// The fastest way to read fields; see the crate documentation on when to use it.
    pub fn feed_borrowed(&mut self, bytes: &[u8], mut on_event: impl FnMut(EventRef<'_>)) {
        if self.halted.is_some() || self.input_done {
            return;
        }
        let mut lines = std::mem::take(&mut self.lines);
        lines.push(bytes, |line| self.line::<Cow<'_, str>>(line, &mut on_event));
        self.lines = lines;
    }

    /// Marks the end of input, returning the events it completes (a truncated last line).
    pub fn end_input(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        if self.halted.is_none() && !self.input_done {
            let mut lines = std::mem::take(&mut self.lines);
            lines.finish(|line| self.line::<String>(line, &mut |event| out.push(event)));
            self.lines = lines;
        }
        self.input_done = true;
        out
    }

    /// Ends the stream and returns the run's result, given the harness's exit code
    /// (`None` when unknown, e.g. reading a saved file). Ends input if not done yet;
    /// what the truncated last line, if any, produced is in the result.
    pub fn finish(mut self, exit_code: Option<i32>) -> RunResult {
        self.end_input();
        if self.halted.is_none() {
            let mut found = Vec::new();
            self.validator.finish(exit_code, &mut found);
            for v in found {
                self.record_violation(v);
            }
        }
        let findings = Findings {
            halted: self.halted.as_ref(),
            violations: &self.violations,
            skipped: &self.skipped,
            breaches: self.breaches,
            cut_short: self.cut_short,
            exit_code,
            unfinished_round: self.validator.unfinished_round(),
        };
        let (verdict, reasons) = decide(&self.run, &findings);
        RunResult {
            verdict,
            reasons,
            exit_code,
            conforms: self.halted.is_none() && self.skipped_count == 0 && self.error_violations == 0,
            halted: self.halted,
            run: self.run,
            violations: self.violations,
            violation_count: self.violation_count,
            skipped: self.skipped,
            skipped_count: self.skipped_count,
            untracked_calls: self.validator.untracked_calls(),
            lines: self.lines_read,
            supervision: None,
        }
    }

    /// Reads one line: decodes it (text fields as `S`), checks and folds the frame, and hands
    /// over its events.
    fn line<'l, S: Text<'l>>(&mut self, line: Line<'l>, out: &mut impl FnMut(Event<S>)) {
        if self.halted.is_some() {
            return;
        }
        self.lines_read += 1;
        let (number, bytes, text) = match line {
            Line::Complete { number, bytes, text } => (number, bytes, text),
            Line::Skipped(err) => return self.skip(err, out),
        };
        let decoded = text.map_or_else(|| utf8(bytes), Ok).and_then(|text| S::decode(text).map(|frame| (text, frame)));
        let (text, frame) = match decoded {
            Ok(decoded) => decoded,
            Err(err) => return self.skip(err.at_line(number), out),
        };
        self.validator.check(number, &frame, &mut self.scratch);
        self.run.apply(&frame);
        out(Event::Frame(Received { line: number, raw: S::from_cow(Cow::Borrowed(text)), frame }));
        if !self.scratch.is_empty() {
            self.report(number, out);
        }
    }

    /// Hands over the violations the frame at line `number` caused, halting on the first
    /// one that stops the stream.
    fn report<S>(&mut self, number: u64, out: &mut impl FnMut(Event<S>)) {
        let mut found = std::mem::take(&mut self.scratch);
        for v in found.drain(..) {
            let halt = match v.code {
                ViolationCode::UnsupportedVersion => Some(ErrorKind::UnsupportedVersion),
                _ if self.options.strict && v.severity == Severity::Error => Some(ErrorKind::Violation),
                _ => None,
            };
            let error = halt.map(|kind| {
                let message =
                    if kind == ErrorKind::Violation { format!("{}: {}", v.code, v.message) } else { v.message.clone() };
                Error::new(kind, message).at_line(number)
            });
            self.record_violation(v.clone());
            out(Event::Violation(v));
            if let Some(error) = error {
                self.halt(error, out);
                break;
            }
        }
        self.scratch = found;
    }

    fn skip<S>(&mut self, err: Error, out: &mut impl FnMut(Event<S>)) {
        self.validator.skipped_line(err.line());
        self.skipped_count += 1;
        if err.kind() == ErrorKind::Truncated {
            self.cut_short += 1;
        } else {
            self.breaches += 1;
        }
        if self.skipped.len() < self.options.limits.max_reports {
            self.skipped.push(err.clone());
        }
        out(Event::Skipped(err.clone()));
        if self.options.strict {
            self.halt(err, out);
        }
    }

    fn halt<S>(&mut self, err: Error, out: &mut impl FnMut(Event<S>)) {
        self.halted = Some(err.clone());
        out(Event::Halted(err));
    }

    fn record_violation(&mut self, v: Violation) {
        self.violation_count += 1;
        if v.severity == Severity::Error {
            self.error_violations += 1;
            if v.code.is_incompleteness() {
                self.cut_short += 1;
            } else {
                self.breaches += 1;
            }
        }
        if self.violations.len() < self.options.limits.max_reports {
            self.violations.push(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::Frame;
    use crate::verdict::Verdict;

    const DONE: &str = concat!(
        r#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#,
        "\n",
        r#"{"type":"agent_start","turn_id":1}"#,
        "\n",
        r#"{"type":"turn_done","turn_id":1,"message":"ok","tool_results":[],"usage":{"input":1,"output":1,"cost":0.5},"stop_reason":"stop"}"#,
        "\n",
    );

    fn result(options: StreamOptions, input: &str) -> RunResult {
        let mut stream = Stream::new(options);
        stream.feed(input.as_bytes());
        stream.finish(Some(0))
    }

    #[test]
    fn the_report_cap_does_not_change_the_verdict() {
        // Found by the stream_split fuzz target: with `max_reports` 0 the end of the stream
        // inside a round was not kept, and the verdict, read off the kept list, was `ok`.
        let input = format!("{DONE}{}\n", r#"{"type":"message_delta","turn_id":2,"delta":"x"}"#);
        let capped =
            StreamOptions { limits: Limits { max_reports: 0, ..Limits::default() }, ..StreamOptions::default() };
        let r = result(capped, &input);
        assert_eq!((r.verdict, r.violations.len(), r.violation_count), (Verdict::Incomplete, 0, 1));
        assert!(!r.reasons.is_empty());
        assert_eq!(result(StreamOptions::default(), &input).verdict, Verdict::Incomplete);

        // With the default cap: 1000 warnings fill the list, then the stream stops mid-turn.
        let warning = r#"{"type":"message_start","turn_id":2,"role":"user"}"#;
        let input = format!("{DONE}{}", format!("{warning}\n").repeat(1000));
        let r = result(StreamOptions::default(), &input);
        assert_eq!((r.violations.len(), r.violation_count), (1000, 1001));
        assert_eq!(r.verdict, Verdict::Incomplete, "{:?}", r.reasons);

        // A truncated last line, and a breach, past a cap of 0.
        let r = result(capped, &format!("{DONE}{{\"type\""));
        assert_eq!((r.verdict, r.skipped.len(), r.skipped_count), (Verdict::Incomplete, 0, 1));
        let r = result(capped, &format!("{DONE}not json\n"));
        assert_eq!(r.verdict, Verdict::ProtocolError);
        assert!(!r.reasons.is_empty());
    }

    #[test]
    fn borrowed_frames_borrow_what_needs_no_unescaping() {
        let plain = r#"{"type":"message_delta","turn_id":1,"delta":"plain"}"#;
        let escaped = r#"{"type":"message_delta","turn_id":1,"delta":"a\nb"}"#;
        let unknown = r#"{"type":"plan_update","turn_id":1}"#;
        let input = format!("{plain}\n{escaped}\n{unknown}\n");
        // Whole, then with each line cut in two (read from the stream's line buffer).
        for cut in [input.len(), 20, plain.len() + 20] {
            let (head, tail) = input.as_bytes().split_at(cut);
            let mut stream = Stream::default();
            let mut seen = Vec::new();
            for chunk in [head, tail] {
                stream.feed_borrowed(chunk, |event| {
                    let Event::Frame(r) = event else { return };
                    let raw_borrowed = matches!(r.raw, Cow::Borrowed(_));
                    let text = match &r.frame {
                        Frame::MessageDelta(d) => (d.delta.to_string(), matches!(d.delta, Cow::Borrowed(_))),
                        Frame::Unknown(u) => (u.frame_type.to_string(), matches!(u.raw, Cow::Borrowed(_))),
                        other => (other.frame_type().to_owned(), false),
                    };
                    seen.push((raw_borrowed, text));
                });
            }
            let expected = [
                (true, ("plain".to_owned(), true)),
                (true, ("a\nb".to_owned(), false)),
                (true, ("plan_update".to_owned(), true)),
            ];
            assert_eq!(seen, expected, "cut at {cut}");
        }
    }
}
