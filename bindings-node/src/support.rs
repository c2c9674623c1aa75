//! What the JavaScript layer takes from the core besides streams and writers: its constants,
//! the stderr tail, the signal exit codes, bounds, terminal sanitising and the schema.

use crate::batch::FRAME_TYPES;
use crate::failure::boundary;
use hep_core::supervise::{self, Tail};
use hep_core::{LivenessAction, bounds};
use napi::bindgen_prelude::Env;
use napi_derive::napi;

/// The core's constants, read once at load.
#[napi(object)]
pub struct Constants {
    /// The crate version (the package's version too).
    pub version: String,
    /// `hep_header.hep` of v1.
    pub protocol_version: String,
    /// Exit code of a run that ended with `turn_done`.
    pub exit_ok: i32,
    /// Exit code of a run that ended with `turn_error`.
    pub exit_failed: i32,
    /// Exit code of a cancelled run.
    pub exit_cancelled: i32,
    /// After SIGINT, how long a harness gets before SIGTERM.
    pub interrupt_grace_ms: f64,
    /// After SIGTERM, how long before SIGKILL.
    pub terminate_grace_ms: f64,
    /// Bytes of stderr kept.
    pub stderr_tail_bytes: f64,
    /// After the exit, how long the pipes are still read.
    pub drain_after_exit_ms: f64,
    /// The longest stderr line handed over, in bytes.
    pub max_stderr_line: f64,
    /// Waiting bytes of events above which stdout is paused.
    pub pause_at_bytes: f64,
    /// The least drop threshold: waiting bytes past which events are counted, not kept.
    pub min_drop_at_bytes: f64,
    /// Cap on a tool result's text, in UTF-16 code units.
    pub tool_result_cap: f64,
    /// The default longest line, in bytes.
    pub max_line_bytes: f64,
    /// The type of each frame code of a batch.
    pub frame_types: Vec<String>,
    /// The `tool_liveness.action` values v1 names.
    pub liveness_actions: Vec<String>,
}

/// The core's constants.
#[napi(catch_unwind)]
pub fn constants(env: Env) -> napi::Result<Constants> {
    boundary(&env, || {
        Ok(Constants {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            protocol_version: hep_core::PROTOCOL_VERSION.to_owned(),
            exit_ok: supervise::EXIT_OK,
            exit_failed: supervise::EXIT_FAILED,
            exit_cancelled: supervise::EXIT_CANCELLED,
            interrupt_grace_ms: supervise::INTERRUPT_GRACE.as_millis() as f64,
            terminate_grace_ms: supervise::TERMINATE_GRACE.as_millis() as f64,
            stderr_tail_bytes: supervise::STDERR_TAIL_BYTES as f64,
            drain_after_exit_ms: supervise::DRAIN_AFTER_EXIT.as_millis() as f64,
            max_stderr_line: supervise::MAX_STDERR_LINE as f64,
            pause_at_bytes: supervise::PAUSE_AT_BYTES as f64,
            min_drop_at_bytes: supervise::MIN_DROP_AT_BYTES as f64,
            tool_result_cap: bounds::TOOL_RESULT_CAP as f64,
            max_line_bytes: hep_core::lines::DEFAULT_MAX_LINE as f64,
            frame_types: FRAME_TYPES.iter().map(|t| (*t).to_owned()).collect(),
            liveness_actions: LivenessAction::ALL.iter().map(|a| a.as_str().to_owned()).collect(),
        })
    })
}

/// The last bytes of a stream (a child's stderr), bounded.
#[napi]
pub struct NativeTail(Tail);

#[napi]
impl NativeTail {
    /// An empty tail keeping at most `cap` bytes.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, cap: f64) -> napi::Result<Self> {
        // `cap` is a non-negative integer (checked by lib/core.js); `as` saturates.
        boundary(&env, || Ok(Self(Tail::new(cap as usize))))
    }

    /// Appends `chunk`, forgetting the oldest bytes beyond the cap.
    #[napi(catch_unwind)]
    pub fn push(&mut self, env: Env, chunk: &[u8]) -> napi::Result<()> {
        boundary(&env, || {
            self.0.push(chunk);
            Ok(())
        })
    }

    /// The kept bytes as text (invalid UTF-8 as U+FFFD).
    #[napi(catch_unwind)]
    pub fn text(&self, env: Env) -> napi::Result<String> {
        boundary(&env, || Ok(self.0.text()))
    }

    /// Bytes forgotten so far.
    #[napi(getter, catch_unwind)]
    pub fn dropped(&self, env: Env) -> napi::Result<f64> {
        boundary(&env, || Ok(self.0.dropped() as f64))
    }
}

/// The exit code of a process killed by signal number `signal`.
#[napi(catch_unwind)]
pub fn exit_code_for_signal(env: Env, signal: i32) -> napi::Result<i32> {
    boundary(&env, || Ok(supervise::exit_code_for_signal(signal)))
}

/// `text` with terminal-driving characters turned into visible escapes.
#[napi(catch_unwind)]
pub fn sanitize(env: Env, text: String) -> napi::Result<String> {
    boundary(&env, || Ok(hep_core::sanitize::sanitize(&text).into_owned()))
}

/// The JSON Schema of the frames.
#[napi(catch_unwind)]
pub fn json_schema(env: Env) -> napi::Result<String> {
    boundary(&env, || Ok(hep_core::schema::json_schema()))
}

/// `text` capped at `limit` UTF-16 units with the `…(+N chars)` suffix.
#[napi(catch_unwind)]
pub fn cap(env: Env, text: String, limit: f64) -> napi::Result<String> {
    // `limit` is a non-negative integer (checked by lib/core.js); `as` saturates.
    boundary(&env, || Ok(bounds::cap(&text, limit as usize)))
}

/// Length of `text` in UTF-16 code units.
#[napi(catch_unwind)]
pub fn utf16_len(env: Env, text: String) -> napi::Result<f64> {
    boundary(&env, || Ok(bounds::utf16_len(&text) as f64))
}

/// Summary-mode `args_summary` of the JSON text of an argument object (key order kept).
#[napi(catch_unwind)]
pub fn args_summary(env: Env, args: String) -> napi::Result<String> {
    boundary(&env, || Ok(bounds::args_summary(&hep_core::parse_args(&args)?)))
}

/// Full-mode `args_summary` of the JSON text of an argument object (key order kept).
#[napi(catch_unwind)]
pub fn args_full(env: Env, args: String) -> napi::Result<String> {
    boundary(&env, || Ok(bounds::args_full(&hep_core::parse_args(&args)?)))
}
