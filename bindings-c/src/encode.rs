//! `hep_encode_json`: the exact line of a frame given as JSON text (`hep_core::encode_json`,
//! which the Node binding's `encode` calls too).

use crate::boundary::guard;
use crate::buffers::{HepString, HepText, out, put};
use crate::errors::HepError;

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
        let line = hep_core::encode_json(json)?;
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, HepString::from(line)) };
        Ok(())
    })
}
