//! The protocol's bounds on text (`lib/bounds.js`): a capped tool result, the UTF-16 length,
//! and the two renderings of tool arguments.

use crate::boundary::guard;
use hep_core::bounds;
use napi::bindgen_prelude::Env;
use napi_derive::napi;

/// `text` capped at `limit` UTF-16 units with the `…(+N chars)` suffix.
#[napi(catch_unwind)]
pub fn cap(env: Env, text: String, limit: f64) -> napi::Result<String> {
    // `limit` is a non-negative integer (checked by lib/bounds.js); `as` saturates.
    guard(&env, || Ok(bounds::cap(&text, limit as usize)))
}

/// Length of `text` in UTF-16 code units.
#[napi(catch_unwind)]
pub fn utf16_len(env: Env, text: String) -> napi::Result<f64> {
    guard(&env, || Ok(bounds::utf16_len(&text) as f64))
}

/// Summary-mode `args_summary` of the JSON text of an argument object (key order kept).
#[napi(catch_unwind)]
pub fn args_summary(env: Env, args: String) -> napi::Result<String> {
    guard(&env, || Ok(bounds::args_summary(&hep_core::parse_args(&args)?)))
}

/// Full-mode `args_summary` of the JSON text of an argument object (key order kept).
#[napi(catch_unwind)]
pub fn args_full(env: Env, args: String) -> napi::Result<String> {
    guard(&env, || Ok(bounds::args_full(&hep_core::parse_args(&args)?)))
}
