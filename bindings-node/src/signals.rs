//! The exit code of a process a signal killed, as the core computes it (`lib/signals.js`).

use crate::boundary::guard;
use hep_core::supervise;
use napi::bindgen_prelude::Env;
use napi_derive::napi;

/// The exit code of a process killed by signal number `signal`.
#[napi(catch_unwind)]
pub fn exit_code_for_signal(env: Env, signal: i32) -> napi::Result<i32> {
    guard(&env, || Ok(supervise::exit_code_for_signal(signal)))
}
