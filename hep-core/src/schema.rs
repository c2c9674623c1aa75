//! The JSON Schema of HEP v1 frames, generated from the Rust types.

use crate::frame::Frame;

/// The JSON Schema (draft 2020-12) of every known frame, pretty-printed with a final newline.
///
/// Unknown fields are allowed everywhere, as the protocol requires.
pub fn json_schema() -> String {
    let mut schema = schemars::schema_for!(Frame);
    schema.insert("$id".into(), "https://hep.invalid/schema/hep-v1.schema.json".into());
    schema.insert("title".into(), "HEP v1 frame".into());
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
