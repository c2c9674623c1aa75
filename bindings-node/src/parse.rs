//! `parseLine`: one line to its frame, as a batch of one (with its line, as line 1).

use crate::batch::Batch;
use crate::failure::boundary;
use napi::bindgen_prelude::{Array, Env};
use napi_derive::napi;

/// Decodes `bytes` (one line; a final `\n` or `\r\n` is ignored) into a raw-mode batch of
/// one frame.
fn parse<'env>(env: &'env Env, bytes: &[u8]) -> napi::Result<Array<'env>> {
    boundary(env, || {
        let bytes = bytes.strip_suffix(b"\n").map_or(bytes, |line| line.strip_suffix(b"\r").unwrap_or(line));
        let frame = hep_core::decode(bytes)?;
        let mut batch = Batch::new(true);
        batch.frame(1, &String::from_utf8_lossy(bytes), &frame);
        Ok(batch.take(env)?)
    })
}

/// Decodes one line given as bytes (a `Buffer` or any `Uint8Array`).
#[napi(catch_unwind)]
pub fn parse_line<'env>(env: &'env Env, bytes: &[u8]) -> napi::Result<Array<'env>> {
    parse(env, bytes)
}

/// Decodes one line given as text.
#[napi(catch_unwind)]
pub fn parse_line_text<'env>(env: &'env Env, text: String) -> napi::Result<Array<'env>> {
    parse(env, text.as_bytes())
}
