//! `hep_encode_json`: the exact line of a frame given as JSON text. The core's decoder reads
//! the text as it reads a line (the same fields, types, ranges and error kinds), then its
//! encoder writes the line, as the Node binding's `encode` does.

use crate::boundary::guard;
use crate::buffers::{HepString, HepText, out, put};
use crate::errors::HepError;
use hep_core::{Error, ErrorKind, Frame, MAX_INT};

/// Writes to `*line_out` the canonical line (without `\n`; free it with `hep_string_free`)
/// of the known frame whose JSON text is `json` (an object with its `type`, fields in any
/// order, unknown fields dropped). Errors are the decoder's kinds, without line, column or
/// excerpt; an integer above 2^53 - 1 is `unencodable`; a `type` v1 does not know is
/// `wrong_type` (an unknown frame's line is its own encoding).
///
/// # Safety
///
/// `json` points to `len` readable bytes (or is NULL with 0); `line_out` and `error_out` are
/// NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_encode_json(
    json: HepText,
    line_out: *mut HepString,
    error_out: *mut *mut HepError,
) -> bool {
    guard(error_out, || {
        let place = out(line_out, "line_out")?;
        // SAFETY: `json` is lent for the call, as `HepText` says.
        let json = unsafe { json.as_str("json") }?;
        let line = encode_json(json)?;
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, HepString::from(line)) };
        Ok(())
    })
}

/// The body of [`hep_encode_json`].
fn encode_json(json: &str) -> Result<String, Error> {
    let frame = hep_core::decode(json.as_bytes()).map_err(|e| read_error(json, &e))?;
    if let Frame::Unknown(unknown) = &frame {
        let message =
            format!("`{}` is no frame type of v1; an unknown frame's line is its own encoding", unknown.frame_type);
        return Err(Error::new(ErrorKind::WrongType, message));
    }
    hep_core::encode(&frame)
}

/// The decoder's error on `json` as `hep_encode_json` reports it: without its column and
/// excerpt, which point into a text the caller never saw; and a positive integer past
/// 2^53 - 1, `out_of_range` on a line, is a value the protocol cannot carry, `unencodable`,
/// as the core's encoder says of it.
fn read_error(json: &str, error: &Error) -> Error {
    if error.kind() == ErrorKind::OutOfRange {
        // The column (1-based, in bytes) is where the value starts; a negative one starts
        // with its `-` and so has no digits here.
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
