//! The core's constants, read once by `lib/native.js` when the addon loads.

use crate::batch::{FRAME_TYPES, LAYOUT};
use crate::boundary::guard;
use hep_core::supervise;
use hep_core::{LivenessAction, bounds};
use napi::bindgen_prelude::Env;
use napi_derive::napi;

/// The core's constants.
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
    /// The signature of the batch layout (`lib/batch.js` must have the same).
    pub batch_layout: String,
    /// The `tool_liveness.action` values v1 names.
    pub liveness_actions: Vec<String>,
}

/// The core's constants.
#[napi(catch_unwind)]
pub fn constants(env: Env) -> napi::Result<Constants> {
    guard(&env, || {
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
            batch_layout: LAYOUT.to_owned(),
            liveness_actions: LivenessAction::ALL.iter().map(|a| a.as_str().to_owned()).collect(),
        })
    })
}
