//! `encode/`, `decode/` and `reject/`: one line against one frame or one error.

use super::{Res, canonical, encode_frame, get, get_bytes, get_str, same_json, same_text, show};
use hep_core::{ErrorKind, decode as decode_line};
use serde_json::Value;

/// `frame` (serialized, decoded, encoded) must give `line` byte for byte, and `line`
/// must decode to the same frame.
pub(crate) fn encode(case: &Value) -> Res {
    let serialized = serde_json::to_string(get(case, "frame")?).map_err(|e| e.to_string())?;
    let line = get_str(case, "line")?;
    let frame = decode_line(serialized.as_bytes())
        .map_err(|e| format!("the library cannot decode `frame` {serialized}: {e}"))?;
    same_text("the encoding of `frame`", line, &encode_frame(&frame)?)?;
    let back = decode_line(line.as_bytes()).map_err(|e| format!("the library cannot decode `line`: {e}"))?;
    if back != frame {
        return Err(format!("`line` decodes to another frame than `frame`\n  frame: {frame:?}\n  line:  {back:?}"));
    }
    Ok(())
}

/// `line` must decode to `frame` (canonical form) and, when given, encode to `encoded`.
pub(crate) fn decode(case: &Value) -> Res {
    let line = get_bytes(case, "line")?;
    let frame = decode_line(&line).map_err(|e| format!("must decode, but is rejected: {e}"))?;
    same_json("the decoded frame", get(case, "frame")?, &canonical(&frame)?)?;
    if case.get("encoded").is_some() {
        same_text("the encoding of the decoded frame", get_str(case, "encoded")?, &encode_frame(&frame)?)?;
    }
    Ok(())
}

/// `line` must be rejected with `error.kind` (and `error.column` when given).
pub(crate) fn reject(case: &Value) -> Res {
    let line = get_bytes(case, "line")?;
    let error = get(case, "error")?;
    let kind = get_str(error, "kind")?;
    if !ErrorKind::ALL.iter().any(|k| k.as_str() == kind) {
        return Err(format!("`error.kind` `{kind}` is no ErrorKind name"));
    }
    let err = match decode_line(&line) {
        Ok(frame) => {
            let got = canonical(&frame).map_or_else(|e| e, |v| show(&v));
            return Err(format!("must be rejected with `{kind}`, but decodes to {got}"));
        }
        Err(err) => err,
    };
    if err.kind().as_str() != kind {
        return Err(format!("rejected with kind `{}` instead of `{kind}`: {err}", err.kind()));
    }
    if error.get("column").is_some() {
        let column = super::get_u64(error, "column")?;
        if err.column() != column {
            return Err(format!("rejected at column {} instead of {column}: {err}", err.column()));
        }
    }
    Ok(())
}
