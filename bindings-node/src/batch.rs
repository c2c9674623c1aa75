//! The batch: every frame a call completes, handed to JavaScript in one return value and
//! turned into plain objects by `lib/batch.js`.
//!
//! A batch is the array `[pool, cols, halted]`:
//!
//! - `pool`: one string holding every string field of every frame, in the order of `cols`
//!   (written as UTF-16, which V8 copies as it is, or narrows when it can).
//! - `cols`: a `Float64Array`. Per frame: its type code (the index of its type in
//!   [`FRAME_TYPES`]); in raw mode its line number and its line; then its fields in the
//!   wire's order. A string is given by where it ends in `pool`, counted in UTF-16 code
//!   units (JavaScript string indices), since each one starts where the previous ended. A
//!   number is itself (integers are at most 2^53 - 1, so exact), a boolean is 0 or 1, a
//!   list is its length followed by its items, a record is its fields, and an absent
//!   optional field is NaN (a present optional record is 1, then its fields). The unknown
//!   frame is `frame_type`, `turn_id` and `raw`, as its other fields.
//! - `halted`: `null`, or the JSON text of the [`Record`] of the error that halted the
//!   stream. Violations and skipped lines stay in the core, which keeps the first
//!   `max_reports` (`NativeStream.reports`).
//!
//! Each frame type's code and fields ([`layout`]) and their reading in `lib/batch.js` are
//! generated from hep-core's frame model (`make codegen`); both carry the layout's
//! signature ([`LAYOUT`]), which `lib/frames.js` compares at load.
//!
//! One string and one typed array per chunk replace the hundreds of strings and objects a
//! chunk holds, each of which would cost a boundary crossing of its own.

#[rustfmt::skip] // generated
mod layout;

pub(crate) use layout::{FRAME_TYPES, LAYOUT};

use crate::errors::Record;
use crate::text::push_utf16;
use hep_core::{Error, Event, Frame};
use napi::bindgen_prelude::{Array, Env, Float64Array};
use std::ops::Deref;

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

    /// Adds what the core's stream reported (its frame's text owned or borrowed).
    pub(crate) fn event<S: Deref<Target = str>>(&mut self, event: Event<S>) {
        match event {
            Event::Frame(received) => self.frame(received.line, &received.raw, &received.frame),
            Event::Violation(_) | Event::Skipped(_) => {}
            Event::Halted(e) => self.halted = Some(e),
        }
    }

    /// Adds one frame, read from line `line` whose text is `raw`.
    pub(crate) fn frame<S: Deref<Target = str>>(&mut self, line: u64, raw: &str, frame: &Frame<S>) {
        self.count += 1;
        self.cols.push(layout::code(frame));
        if self.raw {
            self.cols.push(line as f64);
            self.text(raw);
        }
        self.fields(frame);
    }

    /// Frames in the batch so far.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// A string: where it ends in the pool.
    fn text(&mut self, text: &str) {
        push_utf16(&mut self.pool, text);
        self.cols.push(self.pool.len() as f64);
    }

    /// An integer (at most 2^53 - 1, so exact).
    fn int(&mut self, value: u64) {
        self.cols.push(value as f64);
    }

    /// A float.
    fn float(&mut self, value: f64) {
        self.cols.push(value);
    }

    /// A boolean: 1 or 0.
    fn bool(&mut self, value: bool) {
        self.cols.push(if value { 1.0 } else { 0.0 });
    }

    /// The length of a list (its items follow).
    fn count(&mut self, len: usize) {
        self.cols.push(len as f64);
    }

    /// An absent optional field.
    fn absent(&mut self) {
        self.cols.push(f64::NAN);
    }

    /// A present optional record (its fields follow).
    #[allow(dead_code)] // v1 has no optional record; the generated layout would use it
    fn present(&mut self) {
        self.cols.push(1.0);
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
            assert_eq!(FRAME_TYPES[layout::code(&frame) as usize], frame.frame_type());
        }
        let unknown = hep_core::decode(br#"{"type":"later"}"#).unwrap();
        assert_eq!(FRAME_TYPES[layout::code(&unknown) as usize], "unknown");
    }

    #[test]
    fn an_unknown_frame_is_its_type_turn_id_and_line() {
        let mut batch = Batch::new(false);
        for line in [r#"{"type":"later","turn_id":4}"#, r#"{"type":"later"}"#] {
            batch.frame(1, line, &hep_core::decode(line.as_bytes()).unwrap());
        }
        // code, end of "later", turn id, end of the line; then the same with no turn id (NaN).
        assert_eq!(batch.cols[..4], [12.0, 5.0, 4.0, 33.0]);
        assert_eq!(batch.cols[4..6], [12.0, 38.0]);
        assert!(batch.cols[6].is_nan());
        assert_eq!(batch.cols[7], 38.0 + 16.0);
        assert_eq!(
            String::from_utf16(&batch.pool).unwrap(),
            r#"later{"type":"later","turn_id":4}later{"type":"later"}"#
        );
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
