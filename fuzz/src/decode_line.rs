//! `decode_line`: the line decoder on arbitrary bytes.
//!
//! - [`hep_core::decode`] never panics, and every error it gives has a column.
//! - The one-pass fast path and the general decoder agree: the same line behind a leading
//!   space (which the fast path never takes) decodes to the same frame, or fails with the
//!   same error kind one column further on.
//! - A line it accepts encodes (no `unencodable`), the encoding decodes back to an equal
//!   frame, and encoding is a fixpoint: decode(encode(f)) encodes to the same bytes.
//! - The encoding of a known frame is one clean line: no byte below 0x20.

// A broken invariant panics: that is what the fuzzer (and the regression test) detects.
#![allow(clippy::panic)]

use hep_core::{Frame, decode, encode};

/// Checks every invariant above on `data`, panicking on the first that breaks.
pub fn check(data: &[u8]) {
    let decoded = decode(data);
    let mut spaced = Vec::with_capacity(data.len() + 1);
    spaced.push(b' ');
    spaced.extend_from_slice(data);
    let general = decode(&spaced);
    match (&decoded, &general) {
        (Ok(Frame::Unknown(fast)), Ok(Frame::Unknown(slow))) => {
            assert_eq!((&fast.frame_type, fast.turn_id), (&slow.frame_type, slow.turn_id), "unknown frame differs");
            assert_eq!(format!(" {}", fast.raw), slow.raw, "unknown frame keeps its raw line");
        }
        (Ok(fast), Ok(slow)) => assert_eq!(fast, slow, "fast path and general decoder disagree"),
        (Err(fast), Err(slow)) => {
            assert_eq!(fast.kind(), slow.kind(), "error kinds differ: {fast} / {slow}");
            assert!(fast.column() > 0, "error without a column: {fast}");
            assert_eq!(fast.column() + 1, slow.column(), "error columns differ: {fast} / {slow}");
            assert_eq!(fast.line(), 0, "decode places no line: {fast}");
            let _ = fast.to_string();
        }
        _ => panic!("one decoder accepts, the other refuses: {decoded:?} / {general:?}"),
    }
    let Ok(frame) = decoded else { return };
    let line = match encode(&frame) {
        Ok(line) => line,
        Err(err) => panic!("a decoded frame does not encode: {err}: {frame:?}"),
    };
    match decode(line.as_bytes()) {
        Ok(again) => {
            assert_eq!(again, frame, "encode then decode changes the frame; line {line:?}");
            assert_eq!(encode(&again).ok().as_deref(), Some(line.as_str()), "encoding is not a fixpoint");
        }
        Err(err) => panic!("the encoding of a decoded frame does not decode: {err}: {line:?}"),
    }
    if !matches!(frame, Frame::Unknown(_)) {
        assert!(line.bytes().all(|b| b >= 0x20), "control byte in an encoded line: {line:?}");
    }
}
