//! The batch: every frame a call completes, handed to JavaScript in one return value and
//! turned into plain objects by `lib/frames.js` (which mirrors the layout below).
//!
//! A batch is the array `[pool, cols, halted]`:
//!
//! - `pool`: one string holding every string field of every frame, in the order listed
//!   below (written as UTF-16, which V8 copies as it is, or narrows when it can).
//! - `cols`: a `Float64Array`. Per frame: its type code (the index of its type in
//!   [`FRAME_TYPES`]); in raw mode its line number and its line; then its fields in
//!   protocol order. A string is given by where it ends in `pool`, counted in UTF-16 code
//!   units (JavaScript string indices), since each one starts where the previous ended. An
//!   integer or the cost is the number itself (integers are at most 2^53 - 1, so exact), a
//!   boolean is 0 or 1, an absent optional field is NaN, and `tool_results` is its length
//!   followed by each result's `id`, `name`, `ok` and `text`.
//!   An unknown frame is its line (JSON text, parsed by JavaScript).
//! - `halted`: `null`, or the JSON text of the [`Record`] of the error that halted the
//!   stream. Violations and skipped lines stay in the core, which keeps the first
//!   `max_reports` (`NativeStream.reports`).
//!
//! One string and one typed array per chunk replace the hundreds of strings and objects a
//! chunk holds, each of which would cost a boundary crossing of its own.

use crate::failure::Record;
use crate::text::push_utf16;
use hep_core::{Error, Event, Frame};
use napi::bindgen_prelude::{Array, Env, Float64Array};

/// The type of each frame code: the protocol's frame types in the spec's order, then
/// `unknown` for a type v1 does not know.
pub(crate) const FRAME_TYPES: [&str; 13] = [
    "hep_header",
    "agent_start",
    "message_start",
    "message_delta",
    "tool_start",
    "tool_delta",
    "tool_liveness",
    "turn_done",
    "turn_error",
    "cancelled",
    "compaction_start",
    "compaction_end",
    "unknown",
];

/// The code of `frame`'s type (its index in [`FRAME_TYPES`]).
fn code(frame: &Frame) -> f64 {
    match frame {
        Frame::HepHeader(_) => 0.0,
        Frame::AgentStart(_) => 1.0,
        Frame::MessageStart(_) => 2.0,
        Frame::MessageDelta(_) => 3.0,
        Frame::ToolStart(_) => 4.0,
        Frame::ToolDelta(_) => 5.0,
        Frame::ToolLiveness(_) => 6.0,
        Frame::TurnDone(_) => 7.0,
        Frame::TurnError(_) => 8.0,
        Frame::Cancelled(_) => 9.0,
        Frame::CompactionStart(_) => 10.0,
        Frame::CompactionEnd(_) => 11.0,
        Frame::Unknown(_) => 12.0,
    }
}

/// The batch being written; reused from call to call.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    raw: bool,
    pool: Vec<u16>,
    cols: Vec<f64>,
    halted: Option<Error>,
    /// Frames in the batch.
    count: usize,
}

impl Batch {
    /// An empty batch; with `raw`, each frame carries its line number and line.
    pub(crate) fn new(raw: bool) -> Self {
        Self { raw, ..Self::default() }
    }

    /// Adds what the core's stream reported.
    pub(crate) fn event(&mut self, event: Event) {
        match event {
            Event::Frame(received) => self.frame(received.line, &received.raw, &received.frame),
            Event::Violation(_) | Event::Skipped(_) => {}
            Event::Halted(e) => self.halted = Some(e),
        }
    }

    /// Adds one frame, read from line `line` whose text is `raw`.
    pub(crate) fn frame(&mut self, line: u64, raw: &str, frame: &Frame) {
        self.count += 1;
        self.cols.push(code(frame));
        if self.raw {
            self.cols.push(line as f64);
            self.text(raw);
        }
        match frame {
            Frame::HepHeader(f) => {
                self.text(&f.hep);
                self.text(&f.fah);
                self.text(&f.session);
            }
            Frame::AgentStart(f) => self.int(f.turn_id),
            Frame::MessageStart(f) => {
                self.int(f.turn_id);
                self.text(&f.role);
            }
            Frame::MessageDelta(f) => {
                self.int(f.turn_id);
                self.text(&f.delta);
            }
            Frame::ToolStart(f) => {
                self.int(f.turn_id);
                self.text(&f.id);
                self.text(&f.name);
                self.text(&f.args_summary);
            }
            Frame::ToolDelta(f) => {
                self.int(f.turn_id);
                self.text(&f.id);
                self.text(&f.update);
            }
            Frame::ToolLiveness(f) => {
                self.int(f.turn_id);
                self.text(&f.id);
                self.text(&f.name);
                self.text(&f.action);
                self.int(f.elapsed_ms);
                self.cols.push(f.output_bytes.map_or(f64::NAN, |b| b as f64));
                match f.detail.as_deref().filter(|d| !d.is_empty()) {
                    Some(detail) => self.text(detail),
                    None => self.cols.push(f64::NAN),
                }
            }
            Frame::TurnDone(f) => {
                self.int(f.turn_id);
                self.text(&f.message);
                self.cols.push(f.tool_results.len() as f64);
                for r in &f.tool_results {
                    self.text(&r.id);
                    self.text(&r.name);
                    self.bool(r.ok);
                    self.text(&r.text);
                }
                self.int(f.usage.input);
                self.int(f.usage.output);
                self.cols.push(f.usage.cost);
                self.text(&f.stop_reason);
            }
            Frame::TurnError(f) => {
                self.int(f.turn_id);
                self.text(&f.error);
                self.bool(f.fatal);
            }
            Frame::Cancelled(f) | Frame::CompactionStart(f) => self.int(f.turn_id),
            Frame::CompactionEnd(f) => {
                self.int(f.turn_id);
                self.int(f.tokens_freed);
            }
            Frame::Unknown(u) => self.text(&u.raw),
        }
    }

    /// Frames in the batch so far.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    fn text(&mut self, text: &str) {
        push_utf16(&mut self.pool, text);
        self.cols.push(self.pool.len() as f64);
    }

    fn int(&mut self, value: u64) {
        self.cols.push(value as f64);
    }

    fn bool(&mut self, value: bool) {
        self.cols.push(if value { 1.0 } else { 0.0 });
    }

    /// The batch as the JavaScript array `[pool, cols, halted]`; the batch is empty again.
    pub(crate) fn take<'env>(&mut self, env: &'env Env) -> napi::Result<Array<'env>> {
        let pool = env.create_string_utf16(&self.pool)?;
        let capacity = self.cols.len();
        let cols = Float64Array::new(std::mem::replace(&mut self.cols, Vec::with_capacity(capacity)));
        let halted = match self.halted.take() {
            Some(error) => {
                Some(serde_json::to_string(&Record::of(&error)).map_err(|e| napi::Error::from_reason(e.to_string()))?)
            }
            None => None,
        };
        self.pool.clear();
        self.count = 0;
        let mut batch = env.create_array(3)?;
        batch.set(0, pool)?;
        batch.set(1, cols)?;
        batch.set(2, halted)?;
        Ok(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_core_type_names() {
        let lines = [
            r#"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"#,
            r#"{"type":"agent_start","turn_id":1}"#,
            r#"{"type":"message_start","turn_id":1,"role":"assistant"}"#,
            r#"{"type":"message_delta","turn_id":1,"delta":"hi"}"#,
            r#"{"type":"tool_start","turn_id":1,"id":"c","name":"n","args_summary":""}"#,
            r#"{"type":"tool_delta","turn_id":1,"id":"c","update":"u"}"#,
            r#"{"type":"tool_liveness","turn_id":1,"id":"c","name":"n","action":"heartbeat","elapsed_ms":1}"#,
            r#"{"type":"turn_done","turn_id":1,"message":"","tool_results":[],"usage":{"input":0,"output":0,"cost":0.0},"stop_reason":"stop"}"#,
            r#"{"type":"turn_error","turn_id":1,"error":"e","fatal":true}"#,
            r#"{"type":"cancelled","turn_id":1}"#,
            r#"{"type":"compaction_start","turn_id":1}"#,
            r#"{"type":"compaction_end","turn_id":1,"tokens_freed":5}"#,
        ];
        assert_eq!(FRAME_TYPES[..12], Frame::KNOWN_TYPES);
        for line in lines {
            let frame = hep_core::decode(line.as_bytes()).unwrap();
            assert_eq!(FRAME_TYPES[code(&frame) as usize], frame.frame_type());
        }
        let unknown = hep_core::decode(br#"{"type":"later"}"#).unwrap();
        assert_eq!(FRAME_TYPES[code(&unknown) as usize], "unknown");
    }

    #[test]
    fn strings_end_at_utf16_offsets() {
        let mut batch = Batch::new(true);
        let frame =
            hep_core::decode("{\"type\":\"message_delta\",\"turn_id\":2,\"delta\":\"é😀\"}".as_bytes()).unwrap();
        batch.frame(7, "line", &frame);
        // code, line, end of the raw line (4 units), turn id, end of the delta (4 + 1 + 2).
        assert_eq!(batch.cols, [3.0, 7.0, 4.0, 2.0, 7.0]);
        assert_eq!(String::from_utf16(&batch.pool).unwrap(), "lineé😀");
    }
}
