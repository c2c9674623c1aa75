//! Terminal-safe text (`lib/sanitize.js`): the core's `sanitize`.

use crate::boundary::guard;
use napi::bindgen_prelude::Env;
use napi_derive::napi;

/// `text` with terminal-driving characters turned into visible escapes.
#[napi(catch_unwind)]
pub fn sanitize(env: Env, text: String) -> napi::Result<String> {
    guard(&env, || Ok(hep_core::sanitize::sanitize(&text).into_owned()))
}
