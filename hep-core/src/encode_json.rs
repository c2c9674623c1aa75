//! [`encode_json`]: the exact line of a frame given as JSON text, for bindings whose callers
//! build frames as their language's objects (a Node object, a Go struct) and hand them over
//! as JSON: the decoder reads the text as it reads a line (the same fields, types, ranges and
//! error kinds), then the encoder writes the line.

use crate::error::{Error, ErrorKind, Result};
use crate::frame::{Frame, MAX_INT};

/// The canonical line (without `\n`) of the known frame whose JSON text is `json`: an object
/// with its `type`, fields in any order, unknown fields dropped.
///
/// Errors are the decoder's kinds, without line, column or excerpt (they would point into a
/// text the caller never saw); a positive integer above [`MAX_INT`], `out_of_range` on a
/// line, is a value the protocol cannot carry: `unencodable`, as [`encode`](fn@crate::encode)
/// says of it. A `type` v1 does not know is `wrong_type`: an unknown frame's line is its
/// own encoding, and a binding writes it back as it was read.
pub fn encode_json(json: &str) -> Result<String> {
    let frame = crate::decode(json.as_bytes()).map_err(|e| read_error(json, &e))?;
    if let Frame::Unknown(unknown) = &frame {
        let message = format!(
            "`{}` is no frame type of v1; a frame of a type v1 does not know is written as the line it was read from",
            unknown.frame_type
        );
        return Err(Error::new(ErrorKind::WrongType, message));
    }
    crate::encode(&frame)
}

/// The decoder's `error` on `json` as [`encode_json`] reports it.
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
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_json_is_read_as_a_line_and_written_canonically() {
        let line = r#"{"type":"agent_start","turn_id":3}"#;
        assert_eq!(encode_json(r#"{"turn_id":3,"type":"agent_start","x":[1]}"#).unwrap(), line);
    }

    #[test]
    fn errors_are_the_decoders_kinds_without_a_position() {
        let kind = |json: &str| encode_json(json).unwrap_err().kind();
        assert_eq!(kind(r#"{"type":"agent_start","turn_id":-1}"#), ErrorKind::OutOfRange);
        assert_eq!(kind(r#"{"type":"agent_start","turn_id":9007199254740992}"#), ErrorKind::Unencodable);
        assert_eq!(kind(r#"{"type":"agent_start","turn_id":"1"}"#), ErrorKind::WrongType);
        assert_eq!(kind(r#"{"type":"agent_start"}"#), ErrorKind::MissingField);
        assert_eq!(kind(r#"{"type":"later"}"#), ErrorKind::WrongType);
        let error = encode_json(r#"{"type":"agent_start","turn_id":99999999999999999999}"#).unwrap_err();
        assert_eq!(error.message(), "99999999999999999999 is above the largest integer field value 9007199254740991");
        assert_eq!((error.line(), error.column(), error.excerpt()), (0, 0, ""));
        let error = encode_json(r#"{"type":"agent_start","turn_id":1.5}"#).unwrap_err();
        assert_eq!((error.line(), error.column(), error.excerpt()), (0, 0, ""));
    }
}
