//! `FrameBatch`: the frames one `feed` completes, with their line numbers and lines, encoded
//! in one buffer that the Swift side (`Sources/Hep/FrameBatch.swift`) decodes in place, while
//! it holds the object. A conversion only, and the hot path of reading: uniffi's generic
//! lifting of a `[Frame]` costs Swift about ten times what the core spends reading the same
//! bytes, and a `Vec<u8>` crosses uniffi one byte at a time and is copied three times; reading
//! one buffer in place with unaligned loads costs a fraction of the core's time.
//!
//! Layout, little-endian, items back to back until the end of the buffer:
//!
//! ```text
//! item  = u64 line, str raw, frame
//! frame = u8 tag, then the fields of the frame type in declaration order
//! str   = u32 byte length, UTF-8 bytes
//! u64, i.e. ids, counts, `elapsed_ms`; f64 as its u64 bits; bool as u8 (0 or 1)
//! opt   = u8 0 (none) or u8 1 then the value
//! list  = u32 count, then the items
//! ```
//!
//! Tags: 0 `hep_header`, 1 `agent_start`, 2 `message_start`, 3 `message_delta`,
//! 4 `tool_start`, 5 `tool_delta`, 6 `tool_liveness`, 7 `turn_done`, 8 `turn_error`,
//! 9 `cancelled`, 10 `compaction_start`, 11 `compaction_end`, 12 unknown
//! (`frame_type`, opt `turn_id`, `raw`). Each frame is destructured field by field, so a field
//! added to the core fails to compile here until it is encoded (and decoded in Swift).

use hep_core::{
    AgentStart, CompactionEnd, Frame, HepHeader, MessageDelta, MessageStart, ToolDelta, ToolLiveness, ToolResult,
    ToolStart, TurnDone, TurnError, TurnRef, UnknownFrame, Usage,
};

/// Encoded frames with their lines (see the module documentation for the layout). Never
/// changed once made, so its bytes stay where they are while the object lives.
#[derive(Debug, Default, uniffi::Object)]
pub struct FrameBatch(Vec<u8>);

#[uniffi::export]
impl FrameBatch {
    /// The address of the encoded bytes, valid while this object lives.
    pub fn address(&self) -> u64 {
        self.0.as_ptr() as usize as u64
    }

    /// The number of encoded bytes.
    pub fn length(&self) -> u64 {
        self.0.len() as u64
    }
}

impl FrameBatch {
    /// An empty batch with room for what `input_len` bytes of input usually give: each line
    /// twice (as read, and its decoded fields), so that it is not grown while filled.
    pub fn for_input(input_len: usize) -> Self {
        Self(Vec::with_capacity(input_len.saturating_mul(2)))
    }

    /// Appends one frame with its line number and line as read.
    pub fn push(&mut self, received: &hep_core::Received) {
        self.u64(received.line);
        self.str(&received.raw);
        self.frame(&received.frame);
    }

    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }

    fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn len(&mut self, len: usize) {
        // Lines are capped far below 4 GiB (16 MiB by default); a longer text cannot occur.
        self.0.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
    }

    fn str(&mut self, value: &str) {
        self.len(value.len());
        self.0.extend_from_slice(value.as_bytes());
    }

    fn bool(&mut self, value: bool) {
        self.u8(u8::from(value));
    }

    fn opt_u64(&mut self, value: Option<u64>) {
        match value {
            Some(v) => {
                self.u8(1);
                self.u64(v);
            }
            None => self.u8(0),
        }
    }

    fn opt_str(&mut self, value: Option<&str>) {
        match value {
            Some(v) => {
                self.u8(1);
                self.str(v);
            }
            None => self.u8(0),
        }
    }

    fn frame(&mut self, frame: &Frame) {
        match frame {
            Frame::HepHeader(HepHeader { hep, fah, session }) => {
                self.u8(0);
                self.str(hep);
                self.str(fah);
                self.str(session);
            }
            Frame::AgentStart(AgentStart { turn_id }) => {
                self.u8(1);
                self.u64(*turn_id);
            }
            Frame::MessageStart(MessageStart { turn_id, role }) => {
                self.u8(2);
                self.u64(*turn_id);
                self.str(role);
            }
            Frame::MessageDelta(MessageDelta { turn_id, delta }) => {
                self.u8(3);
                self.u64(*turn_id);
                self.str(delta);
            }
            Frame::ToolStart(ToolStart { turn_id, id, name, args_summary }) => {
                self.u8(4);
                self.u64(*turn_id);
                self.str(id);
                self.str(name);
                self.str(args_summary);
            }
            Frame::ToolDelta(ToolDelta { turn_id, id, update }) => {
                self.u8(5);
                self.u64(*turn_id);
                self.str(id);
                self.str(update);
            }
            Frame::ToolLiveness(ToolLiveness { turn_id, id, name, action, elapsed_ms, output_bytes, detail }) => {
                self.u8(6);
                self.u64(*turn_id);
                self.str(id);
                self.str(name);
                self.str(action);
                self.u64(*elapsed_ms);
                self.opt_u64(*output_bytes);
                self.opt_str(detail.as_deref());
            }
            Frame::TurnDone(TurnDone { turn_id, message, tool_results, usage, stop_reason }) => {
                self.u8(7);
                self.u64(*turn_id);
                self.str(message);
                self.len(tool_results.len());
                for ToolResult { id, name, ok, text } in tool_results {
                    self.str(id);
                    self.str(name);
                    self.bool(*ok);
                    self.str(text);
                }
                let Usage { input, output, cost } = usage;
                self.u64(*input);
                self.u64(*output);
                self.u64(cost.to_bits());
                self.str(stop_reason);
            }
            Frame::TurnError(TurnError { turn_id, error, fatal }) => {
                self.u8(8);
                self.u64(*turn_id);
                self.str(error);
                self.bool(*fatal);
            }
            Frame::Cancelled(TurnRef { turn_id }) => {
                self.u8(9);
                self.u64(*turn_id);
            }
            Frame::CompactionStart(TurnRef { turn_id }) => {
                self.u8(10);
                self.u64(*turn_id);
            }
            Frame::CompactionEnd(CompactionEnd { turn_id, tokens_freed }) => {
                self.u8(11);
                self.u64(*turn_id);
                self.u64(*tokens_freed);
            }
            Frame::Unknown(UnknownFrame { frame_type, turn_id, raw }) => {
                self.u8(12);
                self.str(frame_type);
                self.opt_u64(*turn_id);
                self.str(raw);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_encoded_field_by_field() {
        let mut batch = FrameBatch::default();
        let frame = Frame::MessageDelta(MessageDelta { turn_id: 2, delta: "hé".to_owned() });
        batch.push(&hep_core::Received { line: 7, raw: "x".to_owned(), frame });
        let mut want = vec![7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, b'x', 3, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0];
        want.extend_from_slice("hé".as_bytes());
        assert_eq!(batch.0, want);
    }
}
