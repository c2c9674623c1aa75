//! The frame model as the generators see it, read from hep-core's Rust types (through the
//! JSON Schema they derive, which carries their doc comments).

use hep_core::{LivenessAction, UnknownFrame};
use serde_json::{Map, Value};

/// Everything the bindings restate.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The known frame types, in the spec's order.
    pub frames: Vec<FrameType>,
    /// The records nested in frames (`ToolResult`, `Usage`), by their Rust name.
    pub records: Vec<Record>,
    /// The shape of a frame of a type this version does not know.
    pub unknown: Record,
    /// The `tool_liveness.action` values of v1, in order.
    pub liveness_actions: Vec<Variant>,
}

/// One known frame type.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameType {
    /// The wire name (`tool_start`).
    pub wire: String,
    /// The name of its class or case: the wire name in PascalCase (`ToolStart`).
    pub name: String,
    /// The Rust struct holding its fields (two frame types share `TurnRef`).
    pub rust_struct: String,
    /// What it means (the Rust doc comment of its `Frame` variant).
    pub doc: String,
    /// Its fields after `type`, in the wire's key order.
    pub fields: Vec<Field>,
}

/// A record nested in frames.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The Rust name (`ToolResult`).
    pub name: String,
    /// The Rust doc comment.
    pub doc: String,
    /// Its fields, in the wire's key order.
    pub fields: Vec<Field>,
}

/// One field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The wire (and Rust) name, snake_case.
    pub name: String,
    /// The Rust doc comment.
    pub doc: String,
    /// Its type.
    pub ty: Type,
    /// Whether it may be absent (omitted on the wire when absent).
    pub optional: bool,
}

/// A field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    /// A string.
    String,
    /// An integer from 0 to 2^53 - 1.
    Int,
    /// A finite floating-point number.
    Float,
    /// A boolean.
    Bool,
    /// A list.
    List(Box<Type>),
    /// A record of [`Model::records`], by its Rust name.
    Record(String),
}

/// One value of a string enumeration.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// The wire string.
    pub wire: String,
    /// The Rust doc comment.
    pub doc: String,
}

/// What went wrong reading the schema (a change in hep-core the generators must learn).
pub type Problem = String;

impl Model {
    /// The model of the hep-core this crate is built with.
    pub fn read() -> Result<Self, Problem> {
        let frame = schema_value(schemars::schema_for!(hep_core::Frame))?;
        let defs = get(&frame, "$defs")?.as_object().ok_or("`$defs` is no object")?;
        let mut frames = Vec::new();
        for variant in get(&frame, "oneOf")?.as_array().ok_or("`oneOf` is no list")? {
            let wire = text(get(get(get(variant, "properties")?, "type")?, "const")?)?;
            let rust_struct = text(get(variant, "$ref")?)?.trim_start_matches("#/$defs/").to_owned();
            let def = defs.get(&rust_struct).ok_or_else(|| format!("no $defs entry `{rust_struct}`"))?;
            frames.push(FrameType { name: pascal(&wire), wire, rust_struct, doc: doc(variant), fields: fields(def)? });
        }
        let in_frames: Vec<&str> = frames.iter().map(|f| f.rust_struct.as_str()).collect();
        let mut records = Vec::new();
        for (name, def) in defs {
            if !in_frames.contains(&name.as_str()) {
                records.push(Record { name: name.clone(), doc: doc(def), fields: fields(def)? });
            }
        }
        let unknown = schema_value(schemars::schema_for!(UnknownFrame))?;
        let unknown = Record { name: "UnknownFrame".into(), doc: doc(&unknown), fields: fields(&unknown)? };
        let actions = schema_value(schemars::schema_for!(LivenessAction))?;
        let mut liveness_actions = Vec::new();
        for variant in get(&actions, "oneOf")?.as_array().ok_or("LivenessAction: `oneOf` is no list")? {
            liveness_actions.push(Variant { wire: text(get(variant, "const")?)?, doc: doc(variant) });
        }
        let listed: Vec<&str> = liveness_actions.iter().map(|v| v.wire.as_str()).collect();
        let known: Vec<&str> = LivenessAction::ALL.iter().map(|a| a.as_str()).collect();
        if listed != known {
            return Err(format!("the schema lists the liveness actions {listed:?}, the core {known:?}"));
        }
        Ok(Self { frames, records, unknown, liveness_actions })
    }

    /// The record named `name` (a nested record, or a frame's struct).
    pub fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }
}

fn schema_value(schema: schemars::Schema) -> Result<Value, Problem> {
    serde_json::to_value(schema).map_err(|e| e.to_string())
}

fn get<'a>(v: &'a Value, key: &str) -> Result<&'a Value, Problem> {
    v.get(key).ok_or_else(|| format!("no `{key}` in {v}"))
}

fn text(v: &Value) -> Result<String, Problem> {
    v.as_str().map(str::to_owned).ok_or_else(|| format!("{v} is no string"))
}

fn doc(v: &Value) -> String {
    v.get("description").and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// `tool_start` → `ToolStart`.
pub fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

fn fields(def: &Value) -> Result<Vec<Field>, Problem> {
    let empty = Map::new();
    let properties = def.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> =
        def.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    properties
        .iter()
        .map(|(name, schema)| {
            let (ty, nullable) = field_type(schema).map_err(|e| format!("field `{name}`: {e}"))?;
            Ok(Field {
                name: name.clone(),
                doc: doc(schema),
                ty,
                optional: nullable || !required.contains(&name.as_str()),
            })
        })
        .collect()
}

/// A field's type, and whether `null` is allowed.
fn field_type(schema: &Value) -> Result<(Type, bool), Problem> {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return Ok((Type::Record(target.trim_start_matches("#/$defs/").to_owned()), false));
    }
    let (name, nullable) = match schema.get("type") {
        Some(Value::String(name)) => (name.as_str(), false),
        Some(Value::Array(names)) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            match names.as_slice() {
                [name, "null"] | ["null", name] => (*name, true),
                _ => return Err(format!("unsupported type list {names:?}")),
            }
        }
        _ => return Err(format!("no type in {schema}")),
    };
    let ty = match name {
        "string" => Type::String,
        "integer" => Type::Int,
        "number" => Type::Float,
        "boolean" => Type::Bool,
        "array" => Type::List(Box::new(field_type(get(schema, "items")?)?.0)),
        other => return Err(format!("unsupported type `{other}`")),
    };
    Ok((ty, nullable))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_has_every_frame_type_and_their_fields_in_wire_order() {
        let model = Model::read().unwrap();
        let wires: Vec<&str> = model.frames.iter().map(|f| f.wire.as_str()).collect();
        assert_eq!(wires, hep_core::Frame::KNOWN_TYPES);
        let liveness = model.frames.iter().find(|f| f.wire == "tool_liveness").unwrap();
        let names: Vec<(&str, bool)> = liveness.fields.iter().map(|f| (f.name.as_str(), f.optional)).collect();
        assert_eq!(
            names,
            [
                ("turn_id", false),
                ("id", false),
                ("name", false),
                ("action", false),
                ("elapsed_ms", false),
                ("output_bytes", true),
                ("detail", true)
            ]
        );
        let done = model.frames.iter().find(|f| f.wire == "turn_done").unwrap();
        assert_eq!(done.fields[2].ty, Type::List(Box::new(Type::Record("ToolResult".into()))));
        assert_eq!(model.record("Usage").map(|u| u.fields.len()), Some(3));
        assert_eq!(model.liveness_actions.len(), 5);
        assert!(!model.frames[0].doc.is_empty());
    }
}
