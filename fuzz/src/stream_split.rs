//! `stream_split`: arbitrary bytes through [`Stream`], fed whole and in arbitrary splits.
//!
//! The input's first [`HEADER`] bytes choose the options (strict or not, a tiny maximum line
//! length, tiny retention [`Limits`]), the exit code, the feeding call (`feed`,
//! `feed_into`, `feed_with`, or `feed_borrowed` with each event made owned) and the chunk
//! lengths; the rest is the stream. Checked:
//!
//! - nothing panics;
//! - chunking invariance: fed in the chunks (cycling through the lengths, empty chunks
//!   included), the events and the [`RunResult`] are exactly those of one `feed`; input fed
//!   after `end_input` is ignored; the borrowed path gives exactly the owned events;
//! - the caps bound what is kept, never what is decided: with default limits the events,
//!   verdict, `conforms`, counts and line count are the same;
//! - strict mode stops at its first error and changes nothing before it;
//! - bookkeeping: each line gives one `Frame` or `Skipped` event, numbered 1, 2, 3, ...;
//!   `Halted` is last; the counts match the events; every frame's `raw` decodes to it and
//!   fits the maximum line length; what the run keeps respects every limit.

// A broken invariant panics: that is what the fuzzer (and the regression test) detects.
#![allow(clippy::panic)]

use hep_core::run::Limits;
use hep_core::{Event, RunResult, Severity, Stream, StreamOptions, Verdict, decode};

/// Bytes at the start of the input that configure the case (missing ones read as zero).
pub const HEADER: usize = 24;

/// How the chunks are handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Feed,
    FeedInto,
    FeedWith,
    FeedBorrowed,
}

/// One fuzz case.
#[derive(Debug)]
struct Case<'a> {
    options: StreamOptions,
    exit_code: Option<i32>,
    api: Api,
    /// Chunk lengths, used in turn until the bytes are all fed (0 feeds an empty chunk).
    lens: Vec<usize>,
    bytes: &'a [u8],
}

/// Reads the header, a byte at a time (zero once it runs out).
struct Head<'a>(std::slice::Iter<'a, u8>);

impl Head<'_> {
    fn byte(&mut self) -> u8 {
        self.0.next().copied().unwrap_or(0)
    }

    fn small(&mut self, below: u8) -> usize {
        usize::from(self.byte() % below)
    }
}

impl<'a> Case<'a> {
    fn new(data: &'a [u8]) -> Self {
        let (head, bytes) = data.split_at(data.len().min(HEADER));
        let mut h = Head(head.iter());
        let flags = h.byte();
        let max_line = h.byte();
        let max_line_length = if flags & 1 != 0 { usize::from(max_line) } else { hep_core::lines::DEFAULT_MAX_LINE };
        let limits = if flags & 2 != 0 {
            Limits {
                max_turns: h.small(5),
                max_text_bytes: h.small(32),
                max_tool_output_bytes: h.small(32),
                max_tools_per_turn: h.small(4),
                max_followups: h.small(4),
                max_reports: h.small(4),
                max_retained_bytes: h.small(128),
                ..Limits::default()
            }
        } else {
            Limits::default()
        };
        let options = StreamOptions { max_line_length, strict: flags & 4 != 0, limits };
        let code = i32::from_le_bytes([h.byte(), h.byte(), h.byte(), h.byte()]);
        let exit_code = match (flags >> 3) & 7 {
            0 => None,
            1 | 2 => Some(0),
            3 => Some(1),
            4 => Some(130),
            5 => Some(code % 256),
            _ => Some(code),
        };
        let api = match flags >> 6 {
            0 => Api::Feed,
            1 => Api::FeedBorrowed,
            2 => Api::FeedInto,
            _ => Api::FeedWith,
        };
        let lens = h.0.map(|b| usize::from(*b)).collect();
        Self { options, exit_code, api, lens, bytes }
    }

    /// The chunks: the lengths in turn, the last chunk taking what is left.
    fn chunks(&self) -> Vec<&'a [u8]> {
        let mut chunks = Vec::new();
        let mut rest = self.bytes;
        if self.lens.iter().all(|len| *len == 0) {
            return vec![rest];
        }
        for len in self.lens.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (chunk, tail) = rest.split_at((*len).min(rest.len()));
            chunks.push(chunk);
            rest = tail;
        }
        chunks
    }
}

/// Events and result of feeding `chunks` through `api`, then ending the input.
fn run(options: StreamOptions, chunks: &[&[u8]], api: Api, exit_code: Option<i32>) -> (Vec<Event>, RunResult) {
    let mut stream = Stream::new(options);
    let mut events = Vec::new();
    for chunk in chunks {
        match api {
            Api::Feed => events.extend(stream.feed(chunk)),
            Api::FeedInto => stream.feed_into(chunk, &mut events),
            Api::FeedWith => stream.feed_with(chunk, |event| events.push(event)),
            Api::FeedBorrowed => stream.feed_borrowed(chunk, |event| events.push(event.into_owned())),
        }
    }
    events.extend(stream.end_input());
    assert!(stream.feed(b"\n{}\nx\n").is_empty(), "input after end_input produced events");
    assert!(stream.end_input().is_empty(), "a second end_input produced events");
    (events, stream.finish(exit_code))
}

/// Equal, with NaN equal to itself (a sum of huge costs can reach NaN).
fn assert_same<T: PartialEq + std::fmt::Debug>(a: &T, b: &T, what: &str) {
    if a != b {
        assert_eq!(format!("{a:#?}"), format!("{b:#?}"), "{what}");
    }
}

/// Checks every invariant in the module docs on `data`, panicking on the first that breaks.
pub fn check(data: &[u8]) {
    let case = Case::new(data);
    let whole = run(case.options, &[case.bytes], Api::Feed, case.exit_code);
    bookkeeping(&case, &whole);

    let chunked = run(case.options, &case.chunks(), case.api, case.exit_code);
    assert_same(&chunked.0, &whole.0, "events depend on chunking");
    assert_same(&chunked.1, &whole.1, "the result depends on chunking");

    if case.options.limits != Limits::default() {
        let options = StreamOptions { limits: Limits::default(), ..case.options };
        let roomy = run(options, &[case.bytes], Api::Feed, case.exit_code);
        assert_same(&roomy.0, &whole.0, "events depend on the retention limits");
        let decided = |r: &RunResult| (r.verdict, r.conforms, r.violation_count, r.skipped_count, r.lines);
        assert_eq!(decided(&roomy.1), decided(&whole.1), "the verdict depends on the retention limits");
    }

    let toggled = StreamOptions { strict: !case.options.strict, ..case.options };
    let other = run(toggled, &[case.bytes], Api::Feed, case.exit_code);
    let (strict, lenient) = if case.options.strict { (&whole, &other) } else { (&other, &whole) };
    strict_is_a_prefix(&strict.0, &lenient.0);
}

/// Strict mode gives the lenient events up to its first error, then `Halted`.
fn strict_is_a_prefix(strict: &[Event], lenient: &[Event]) {
    match strict.split_last() {
        Some((Event::Halted(_), before)) => {
            assert_same(&lenient.get(..before.len()), &Some(before), "strict mode changed events before halting");
            let last = before.last();
            let stops = matches!(last, Some(Event::Skipped(_)))
                || matches!(last, Some(Event::Violation(v)) if v.severity == Severity::Error);
            assert!(stops, "strict mode halted after {last:?}");
        }
        _ => assert_same(&strict, &lenient, "strict mode changed the events without halting"),
    }
}

/// The bookkeeping of one run against its own events.
fn bookkeeping(case: &Case<'_>, (events, result): &(Vec<Event>, RunResult)) {
    let options = case.options;
    let limits = options.limits;
    let mut line = 0;
    let (mut violations, mut skipped, mut halted) = (0u64, 0u64, 0);
    for (i, event) in events.iter().enumerate() {
        assert_eq!(halted, 0, "event {i} after Halted: {event:?}");
        match event {
            Event::Frame(received) => {
                line += 1;
                assert_eq!(received.line, line, "frame numbered out of order");
                assert!(received.raw.len() <= options.max_line_length, "a frame longer than the maximum");
                assert!(!received.raw.contains('\n'), "a frame spans lines");
                assert_same(&decode(received.raw.as_bytes()).ok(), &Some(received.frame.clone()), "raw ≠ frame");
            }
            Event::Skipped(err) => {
                line += 1;
                skipped += 1;
                assert_eq!(err.line(), line, "skipped line numbered out of order: {err}");
            }
            Event::Violation(v) => {
                violations += 1;
                assert!(v.line <= line, "violation placed on a later line: {v}");
            }
            Event::Halted(_) => halted += 1,
        }
    }
    assert_eq!(result.lines, line, "line count");
    assert_eq!(result.skipped_count, skipped, "skipped count");
    assert!(result.violation_count >= violations, "violation count");
    assert_eq!(result.halted.is_some(), halted == 1, "halted");
    assert!(result.violations.len() <= limits.max_reports, "violations kept past max_reports");
    assert!(result.skipped.len() <= limits.max_reports, "skipped lines kept past max_reports");
    assert!(result.violations.len() as u64 <= result.violation_count);
    if result.conforms {
        assert!(result.halted.is_none() && skipped == 0, "conforms with skipped lines or a halt");
        assert!(result.violations.iter().all(|v| v.severity != Severity::Error), "conforms with errors");
    }
    if halted == 1 {
        assert_eq!(result.verdict, Verdict::ProtocolError, "halted, yet {:?}", result.verdict);
    }
    let run = &result.run;
    assert!(run.turns.len() <= limits.max_turns.max(1), "turns kept past max_turns");
    for turn in &run.turns {
        assert!(turn.text.len() <= limits.max_text_bytes, "turn text past max_text_bytes");
        assert!(turn.tools.len() <= limits.max_tools_per_turn, "tools past max_tools_per_turn");
        for tool in &turn.tools {
            assert!(tool.output.len() <= limits.max_tool_output_bytes, "tool output past its cap");
            assert!(tool.followups.len() <= limits.max_followups, "followups past max_followups");
        }
    }
}
