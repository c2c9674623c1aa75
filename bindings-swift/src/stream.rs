//! `CoreStream`: the core stream behind Swift's `HepStream`.

use crate::batch::FrameBatch;
use crate::boundary::guard;
use crate::errors::{CoreError, HepError, Violation};
use crate::limits::CoreLimits;
use crate::result::RunResult;
use hep_core::{Event, EventRef, Stream, StreamOptions};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What the stream has seen besides frames.
#[derive(Debug, Default)]
struct Found {
    violations: Vec<Violation>,
    skipped: Vec<HepError>,
    halted: Option<HepError>,
    /// Frames the chunk that halted the stream completed before the halt.
    before_halt: Arc<FrameBatch>,
}

#[derive(Debug)]
enum State {
    Reading(Box<Stream>),
    Finished(Box<RunResult>),
}

#[derive(Debug)]
struct Inner {
    state: State,
    found: Found,
    /// Most violations and skipped lines kept (the core's report cap).
    max_reports: usize,
}

/// The core stream: bytes in, frames out; violations and skipped lines kept.
///
/// After `finish`, feeding does nothing and `finish` returns the same result again.
#[derive(Debug, uniffi::Object)]
pub struct CoreStream(Mutex<Inner>);

impl CoreStream {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands `bytes` (or, for `None`, the end of input) to the core and returns the frames
    /// completed, encoded as each is read. A halt is returned as the error, the frames
    /// before it kept for `received_before_halt`.
    fn run(&self, bytes: Option<&[u8]>) -> Result<Arc<FrameBatch>, CoreError> {
        let mut inner = self.inner();
        let Inner { state, found, max_reports } = &mut *inner;
        let State::Reading(stream) = state else { return Ok(Arc::default()) };
        let mut out = hep_core::batch::FrameBatch::for_input(bytes.map_or(0, <[u8]>::len));
        let mut halt = None;
        let mut on_event = |event: EventRef<'_>| match event {
            Event::Frame(r) => out.push_borrowed(&r),
            Event::Violation(v) => push_capped(&mut found.violations, Violation::from(v), *max_reports),
            Event::Skipped(e) => push_capped(&mut found.skipped, HepError::from(&e), *max_reports),
            Event::Halted(e) => halt = Some(HepError::from(&e)),
        };
        match bytes {
            Some(bytes) => stream.feed_borrowed(bytes, &mut on_event),
            None => stream.end_input().into_iter().for_each(|event| on_event(event.map_text(Cow::Owned))),
        }
        let out = Arc::new(FrameBatch::from(out));
        match halt {
            Some(err) => {
                found.before_halt = out;
                found.halted = Some(err.clone());
                Err(err.into())
            }
            None => Ok(out),
        }
    }
}

fn push_capped<T>(list: &mut Vec<T>, item: T, cap: usize) {
    if list.len() < cap {
        list.push(item);
    }
}

#[uniffi::export]
impl CoreStream {
    /// A stream; `strict` stops at the first error-severity violation or skipped line,
    /// `max_line_bytes` overrides the longest accepted line (default 16 MiB), `limits` what
    /// the stream keeps (default: the core's).
    #[uniffi::constructor(default(strict = false, max_line_bytes = None, limits = None))]
    pub fn new(strict: bool, max_line_bytes: Option<u64>, limits: Option<CoreLimits>) -> Arc<Self> {
        let mut options = StreamOptions { strict, ..StreamOptions::default() };
        if let Some(max) = max_line_bytes {
            options.max_line_length = usize::try_from(max).unwrap_or(usize::MAX);
        }
        if let Some(limits) = limits {
            options.limits = limits.into();
        }
        let max_reports = options.limits.max_reports;
        let state = State::Reading(Box::new(Stream::new(options)));
        Arc::new(Self(Mutex::new(Inner { state, found: Found::default(), max_reports })))
    }

    /// Feeds bytes; returns the frames they complete, with their line numbers and lines.
    /// Throws the error that halts the stream.
    pub fn feed(&self, data: &[u8]) -> Result<Arc<FrameBatch>, CoreError> {
        guard(|| self.run(Some(data)))
    }

    /// Marks the end of input; a partial last line is reported as skipped (`truncated`).
    /// Returns the frames it completes (none in HEP v1's framing).
    pub fn end_input(&self) -> Result<Arc<FrameBatch>, CoreError> {
        guard(|| self.run(None))
    }

    /// Ends the stream and returns the run's result for the harness's exit code.
    pub fn finish(&self, exit_code: Option<i32>) -> RunResult {
        let mut inner = self.inner();
        let result = match std::mem::replace(&mut inner.state, State::Reading(Box::default())) {
            State::Reading(stream) => RunResult::from(stream.finish(exit_code)),
            State::Finished(result) => *result,
        };
        inner.found.violations.clone_from(&result.violations);
        inner.found.skipped.clone_from(&result.skipped);
        inner.state = State::Finished(Box::new(result.clone()));
        result
    }

    /// The violations found so far (up to the report cap).
    pub fn violations(&self) -> Vec<Violation> {
        self.inner().found.violations.clone()
    }

    /// The lines skipped so far, as errors (up to the report cap).
    pub fn skipped(&self) -> Vec<HepError> {
        self.inner().found.skipped.clone()
    }

    /// The error that halted the stream, if it has halted.
    pub fn halted(&self) -> Option<HepError> {
        self.inner().found.halted.clone()
    }

    /// The frames completed, before the halt, by the chunk that halted the stream, with
    /// their lines.
    pub fn received_before_halt(&self) -> Arc<FrameBatch> {
        self.inner().found.before_halt.clone()
    }
}
