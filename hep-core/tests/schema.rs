//! The committed JSON Schema must match the one generated from the Rust types.
//! Regenerate with `HEP_UPDATE_SCHEMA=1 cargo test -p hep-core --test schema` (or `make schema`).

use std::path::PathBuf;

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schema/hep-v1.schema.json")
}

#[test]
fn committed_schema_is_fresh() {
    let generated = hep_core::schema::json_schema();
    let path = committed();
    if std::env::var_os("HEP_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(on_disk == generated, "schema/hep-v1.schema.json is stale; run `make schema` and commit the result");
}

#[test]
fn schema_covers_every_known_frame_type() {
    let schema: serde_json::Value = serde_json::from_str(&hep_core::schema::json_schema()).unwrap();
    let text = schema.to_string();
    for frame_type in hep_core::Frame::KNOWN_TYPES {
        assert!(text.contains(&format!("\"const\":\"{frame_type}\"")), "{frame_type} missing from the schema");
    }
}
