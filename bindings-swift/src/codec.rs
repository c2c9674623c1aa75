//! One line to its frame and back (Swift's `parseLine(_:)` and `encode(_:)`), and the
//! protocol version they speak.

use crate::boundary::guard;
use crate::errors::CoreError;
use hep_core::Frame;

/// One line (a trailing `\n` or `\r\n` is ignored) to its frame (Swift: `parseLine(_:)`).
#[uniffi::export]
pub fn decode_line(line: &[u8]) -> Result<Frame, CoreError> {
    guard(|| {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        Ok(hep_core::decode(line.strip_suffix(b"\r").unwrap_or(line))?)
    })
}

/// The exact line the reference emitter writes for `frame`, no newline (Swift: `encode(_:)`).
#[uniffi::export]
pub fn encode_frame(frame: Frame) -> Result<String, CoreError> {
    guard(|| Ok(hep_core::encode(&frame)?))
}

/// The protocol version this library speaks (`"v1"`).
#[uniffi::export]
pub fn core_protocol_version() -> String {
    hep_core::PROTOCOL_VERSION.to_owned()
}
