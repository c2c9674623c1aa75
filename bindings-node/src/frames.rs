//! One frame at a time: a line to its frame (`parseLine`, a batch of one), a frame object to
//! its exact line (`encode`), and the frames' JSON Schema.
//!
//! `encode` has no reader of its own: `lib/frames.js` writes the object as JSON text, and the
//! core's decoder reads it as it reads a line (the same fields, types, ranges and error
//! kinds), then the core's encoder writes the line.

use crate::batch::Batch;
use crate::boundary::guard;
use hep_core::{Error, ErrorKind, Frame};
use napi::bindgen_prelude::{Array, Env};
use napi_derive::napi;

/// Decodes `bytes` (one line; a final `\n` or `\r\n` is ignored) into a raw-mode batch of
/// one frame.
fn parse<'env>(env: &'env Env, bytes: &[u8]) -> napi::Result<Array<'env>> {
    guard(env, || {
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

/// The exact line of the known frame whose JSON text is `json` (a frame object as
/// `lib/frames.js` writes it), read through the core's decoder (`hep_core::encode_json`). A
/// frame of a type v1 does not know is refused: it is given as `{type: 'unknown', ..., raw}`
/// and written back as `raw` ([`encode_unknown`]).
#[napi(catch_unwind)]
pub fn encode(env: Env, json: String) -> napi::Result<String> {
    guard(&env, || Ok(hep_core::encode_json(&json)?))
}

/// The exact line of an unknown frame given as its line (`raw`): the line itself once the
/// core has read it as a frame of a type v1 does not know.
#[napi(catch_unwind)]
pub fn encode_unknown(env: Env, raw: String) -> napi::Result<String> {
    guard(&env, || match hep_core::decode(raw.as_bytes())? {
        frame @ Frame::Unknown(_) => Ok(hep_core::encode(&frame)?),
        known => Err(Error::new(
            ErrorKind::WrongType,
            format!(
                "an unknown frame's `raw` holds a `{}` frame, which v1 knows: give it as that frame",
                known.frame_type()
            ),
        )
        .into()),
    })
}

/// The JSON Schema of the frames.
#[napi(catch_unwind)]
pub fn json_schema(env: Env) -> napi::Result<String> {
    guard(&env, || Ok(hep_core::schema::json_schema()))
}
