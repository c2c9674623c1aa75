//! `NativeStream`: the core's [`Stream`], fed chunk by chunk; each call returns one batch.

use crate::batch::Batch;
use crate::boundary::guard;
use crate::errors::{Failure, Outcome, Record};
use crate::text::js_string;
use hep_core::run::Limits;
use hep_core::{Error, HepHeader, RunResult, Stream, StreamOptions, Terminal, Usage, Verdict, Violation};
use napi::JsString;
use napi::bindgen_prelude::{Array, Env};
use napi_derive::napi;
use serde::Serialize;

/// The core stream (framer, decoder, validator, run reducer) and the batch it fills; once
/// finished, the run result.
#[napi]
pub struct NativeStream {
    stream: Option<Stream>,
    batch: Batch,
    result: Option<RunResult>,
}

/// The core's [`Limits`], each optional (absent: the core's default); JavaScript's
/// `limits` option, checked by lib/stream.js.
#[napi(object)]
pub struct StreamLimits {
    /// [`Limits::max_turns`].
    pub max_turns: Option<f64>,
    /// [`Limits::max_text_bytes`].
    pub max_text_bytes: Option<f64>,
    /// [`Limits::max_tool_output_bytes`].
    pub max_tool_output_bytes: Option<f64>,
    /// [`Limits::max_tools_per_turn`].
    pub max_tools_per_turn: Option<f64>,
    /// [`Limits::max_followups`].
    pub max_followups: Option<f64>,
    /// [`Limits::max_reports`].
    pub max_reports: Option<f64>,
    /// [`Limits::max_retained_bytes`].
    pub max_retained_bytes: Option<f64>,
    /// [`Limits::max_tracked_calls`].
    pub max_tracked_calls: Option<f64>,
    /// [`Limits::max_compactions_per_turn`].
    pub max_compactions_per_turn: Option<f64>,
}

impl From<StreamLimits> for Limits {
    /// Each given limit (a non-negative integer; `as` saturates), the core's default for the
    /// others.
    fn from(l: StreamLimits) -> Self {
        let d = Limits::default();
        let or = |given: Option<f64>, default: usize| given.map_or(default, |n| n as usize);
        Limits {
            max_turns: or(l.max_turns, d.max_turns),
            max_text_bytes: or(l.max_text_bytes, d.max_text_bytes),
            max_tool_output_bytes: or(l.max_tool_output_bytes, d.max_tool_output_bytes),
            max_tools_per_turn: or(l.max_tools_per_turn, d.max_tools_per_turn),
            max_followups: or(l.max_followups, d.max_followups),
            max_reports: or(l.max_reports, d.max_reports),
            max_retained_bytes: or(l.max_retained_bytes, d.max_retained_bytes),
            max_tracked_calls: or(l.max_tracked_calls, d.max_tracked_calls),
            max_compactions_per_turn: or(l.max_compactions_per_turn, d.max_compactions_per_turn),
        }
    }
}

/// The run result but its turns (the bulk of it, converted only when read), serialized as
/// the core serializes them, the run's fields alongside the result's.
#[derive(Serialize)]
pub(crate) struct Summary<'a> {
    verdict: Verdict,
    reasons: &'a [String],
    exit_code: Option<i32>,
    conforms: bool,
    halted: Option<&'a Error>,
    violations: &'a [Violation],
    violation_count: u64,
    skipped: &'a [Error],
    skipped_count: u64,
    untracked_calls: u64,
    lines: u64,
    answer: Option<&'a str>,
    usage: Usage,
    header: Option<&'a HepHeader>,
    last_terminal: Option<Terminal>,
    turns_dropped: u64,
    frames: u64,
    compactions: u64,
    tokens_freed: u64,
}

impl<'a> Summary<'a> {
    pub(crate) fn of(r: &'a RunResult) -> Self {
        Self {
            verdict: r.verdict,
            reasons: &r.reasons,
            exit_code: r.exit_code,
            conforms: r.conforms,
            halted: r.halted.as_ref(),
            violations: &r.violations,
            violation_count: r.violation_count,
            skipped: &r.skipped,
            skipped_count: r.skipped_count,
            untracked_calls: r.untracked_calls,
            lines: r.lines,
            answer: r.run.answer.as_deref(),
            usage: r.run.usage,
            header: r.run.header.as_ref(),
            last_terminal: r.run.last_terminal.map(|(terminal, _)| terminal),
            turns_dropped: r.run.turns_dropped,
            frames: r.run.frames,
            compactions: r.run.compactions,
            tokens_freed: r.run.tokens_freed,
        }
    }
}

/// Violations as the core serializes them, skipped lines as [`Record`]s.
#[derive(Serialize)]
pub(crate) struct Reports<'a> {
    violations: &'a [Violation],
    skipped: Vec<Record<'a>>,
}

impl<'a> Reports<'a> {
    pub(crate) fn of(violations: &'a [Violation], skipped: &'a [Error]) -> Self {
        Self { violations, skipped: skipped.iter().map(Record::of).collect() }
    }
}

/// `value` as JSON, for JavaScript.
pub(crate) fn json<'env>(env: &'env Env, value: &impl Serialize) -> Outcome<JsString<'env>> {
    let text = serde_json::to_string(value).map_err(|e| Failure::Internal(e.to_string()))?;
    Ok(js_string(env, &text)?)
}

/// Using the stream after `finish` (lib/stream.js refuses that before it gets here).
fn finished() -> Failure {
    Failure::Internal("the stream is finished".to_owned())
}

impl NativeStream {
    /// Feeds `bytes` and returns the batch of what they complete.
    fn feed_bytes<'env>(&mut self, env: &'env Env, bytes: &[u8]) -> napi::Result<Array<'env>> {
        guard(env, || {
            let Self { stream, batch, .. } = self;
            stream.as_mut().ok_or_else(finished)?.feed_borrowed(bytes, |event| batch.event(event));
            Ok(batch.take(env)?)
        })
    }
}

#[napi]
impl NativeStream {
    /// A stream reading lines of at most `max_line_bytes` bytes, stopping at the first error
    /// when `strict`, giving each frame its line number and line when `raw`, keeping what
    /// `limits` allows (the core's default for each limit not given).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        strict: bool,
        max_line_bytes: f64,
        raw: bool,
        limits: Option<StreamLimits>,
    ) -> napi::Result<Self> {
        guard(&env, || {
            // Each number is a non-negative integer (checked by lib/stream.js); `as` saturates.
            let limits = limits.map_or_else(Limits::default, Limits::from);
            let options = StreamOptions { strict, max_line_length: max_line_bytes as usize, limits };
            Ok(Self { stream: Some(Stream::new(options)), batch: Batch::new(raw), result: None })
        })
    }

    /// The violations and skipped lines the core keeps (the first `max_reports` of each;
    /// after `finish`, the result's), as the JSON of [`Reports`].
    #[napi(catch_unwind)]
    pub fn reports<'env>(&self, env: &'env Env) -> napi::Result<JsString<'env>> {
        guard(env, || {
            let extras = match (&self.stream, &self.result) {
                (Some(stream), _) => Reports::of(stream.violations(), stream.skipped()),
                (None, Some(result)) => Reports::of(&result.violations, &result.skipped),
                (None, None) => return Err(finished()),
            };
            json(env, &extras)
        })
    }

    /// Feeds bytes (a `Buffer` or any `Uint8Array`).
    #[napi(catch_unwind)]
    pub fn feed<'env>(&mut self, env: &'env Env, bytes: &[u8]) -> napi::Result<Array<'env>> {
        self.feed_bytes(env, bytes)
    }

    /// Feeds text (as its UTF-8 bytes).
    #[napi(catch_unwind)]
    pub fn feed_text<'env>(&mut self, env: &'env Env, text: String) -> napi::Result<Array<'env>> {
        self.feed_bytes(env, text.as_bytes())
    }

    /// Ends the input: a partial last line is reported as skipped (truncated).
    #[napi(catch_unwind)]
    pub fn end_input<'env>(&mut self, env: &'env Env) -> napi::Result<Array<'env>> {
        guard(env, || {
            let Self { stream, batch, .. } = self;
            for event in stream.as_mut().ok_or_else(finished)?.end_input() {
                batch.event(event);
            }
            Ok(batch.take(env)?)
        })
    }

    /// Ends the stream with the harness's exit code (`null` when unknown) and keeps the run
    /// result; returns it but its turns (JSON, see [`Summary`]).
    #[napi(catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env, exit_code: Option<i32>) -> napi::Result<JsString<'env>> {
        guard(env, || {
            let result = self.stream.take().ok_or_else(finished)?.finish(exit_code);
            let summary = json(env, &Summary::of(&result));
            self.result = Some(result);
            summary
        })
    }

    /// The run result's turns, as the core serializes them (JSON).
    #[napi(catch_unwind)]
    pub fn turns<'env>(&self, env: &'env Env) -> napi::Result<JsString<'env>> {
        guard(env, || {
            let result =
                self.result.as_ref().ok_or_else(|| Failure::Internal("the stream is not finished".to_owned()))?;
            json(env, &result.run.turns)
        })
    }
}
