//! One frame at a time: a line to its frame (`parseLine`, a batch of one), a frame object to
//! its exact line (`encode`), and the frames' JSON Schema.
//!
//! `encode` has no reader of its own: `lib/frames.js` writes the object as JSON text, and the
//! core's decoder reads it as it reads a line (the same fields, types, ranges and error
//! kinds), then the core's encoder writes the line.

use crate::batch::Batch;
use crate::boundary::guard;
use hep_core::{Error, ErrorKind, Frame, MAX_INT};
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
/// `lib/frames.js` writes it).
#[napi(catch_unwind)]
pub fn encode(env: Env, json: String) -> napi::Result<String> {
    guard(&env, || Ok(encode_json(&json)?))
}

/// The body of [`encode`]. A frame of a type v1 does not know is refused: it is given as
/// `{type: 'unknown', ..., raw}` and written back as `raw` ([`encode_unknown`]).
fn encode_json(json: &str) -> Result<String, Error> {
    let frame = hep_core::decode(json.as_bytes()).map_err(|e| read_error(json, &e))?;
    if let Frame::Unknown(unknown) = &frame {
        let message = format!(
            "`{}` is no frame type of v1; a frame of another type is {{type: 'unknown', frame_type, turn_id, raw}}",
            unknown.frame_type
        );
        return Err(Error::new(ErrorKind::WrongType, message));
    }
    hep_core::encode(&frame)
}

/// The error of the decoder on `json` as `encode` reports it: without its column and
/// excerpt, which point into a text the caller never saw; and a positive integer past
/// 2^53 - 1, `out_of_range` on a line, is a value the protocol cannot carry, `unencodable`,
/// as the core's encoder says of it (JavaScript numbers go that high; a line's do not).
fn read_error(json: &str, error: &Error) -> Error {
    if error.kind() == ErrorKind::OutOfRange {
        // The column (1-based, in bytes) is where the value starts; `lib/frames.js` writes
        // an integer with all its digits, a negative one with its `-`.
        let at = usize::try_from(error.column()).unwrap_or(usize::MAX).saturating_sub(1);
        let rest = json.get(at..).unwrap_or_default();
        let digits = rest.get(..rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len())).unwrap_or_default();
        if !digits.is_empty() {
            return Error::new(
                ErrorKind::Unencodable,
                format!("{digits} is above the largest integer field value {MAX_INT}"),
            );
        }
    }
    Error::new(error.kind(), error.message())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_reads_the_json_as_a_line() {
        let line = r#"{"type":"agent_start","turn_id":3}"#;
        assert_eq!(encode_json(r#"{"turn_id":3,"type":"agent_start","x":[1]}"#).unwrap(), line);
        let kind = |json: &str| encode_json(json).unwrap_err().kind();
        assert_eq!(kind(r#"{"type":"agent_start","turn_id":-1}"#), ErrorKind::OutOfRange);
        assert_eq!(kind(r#"{"type":"agent_start","turn_id":9007199254740992}"#), ErrorKind::Unencodable);
        assert_eq!(kind(r#"{"type":"agent_start","turn_id":"1"}"#), ErrorKind::WrongType);
        assert_eq!(kind(r#"{"type":"agent_start"}"#), ErrorKind::MissingField);
        assert_eq!(kind(r#"{"type":"later"}"#), ErrorKind::WrongType);
        let error = encode_json(r#"{"type":"agent_start","turn_id":99999999999999999999}"#).unwrap_err();
        assert_eq!(error.message(), "99999999999999999999 is above the largest integer field value 9007199254740991");
        assert_eq!((error.line(), error.column(), error.excerpt()), (0, 0, ""));
    }
}
