//! The swift binding's generated files: what `bindings-swift` restates of the frame model.
//!
//! - `bindings-swift/src/frames.rs`: the frame model declared to uniffi as hep-core's own
//!   types (`#[uniffi::remote]`), docs included (uniffi carries them into the Swift
//!   declarations); the records Swift sees with a `LivenessAction` where the core keeps the
//!   wire string (`tool_liveness.action`), bridged by custom types; `LivenessAction`.
//! - `bindings-swift/Sources/Hep/FrameBatch+Frames.swift`: how Swift reads a `FrameBatch`
//!   back (hep-core's `batch`, written by `crate::batch`).
//! - `bindings-swift/Sources/Hep/Frame+Wire.swift`: each frame's wire `type` and round id,
//!   and the liveness actions' wire names.

use crate::Generated;
use crate::batch::{tag_list, unknown_tag};
use crate::model::{Field, FrameType, Model, Type};
use crate::text::{banner, comment_lines, plain_links, use_items, wrap};
use std::fmt::Write as _;

/// The fields that hold a `tool_liveness` action (a wire string in the core, a
/// `LivenessAction` in Swift): (frame wire type, field name).
const LIVENESS_ACTION_FIELDS: &[(&str, &str)] = &[("tool_liveness", "action")];

/// The doc of `Frame` (the enum's own doc comment is not in the model).
const FRAME_DOC: &str = "One HEP v1 frame (one line of the stream); unknown frame types are kept, never an error.";

/// The files of the swift binding.
pub(crate) fn files(model: &Model) -> Vec<Generated> {
    vec![
        Generated { path: "bindings-swift/src/frames.rs".into(), contents: rust_frames(model) },
        Generated { path: "bindings-swift/Sources/Hep/FrameBatch+Frames.swift".into(), contents: swift_batch(model) },
        Generated { path: "bindings-swift/Sources/Hep/Frame+Wire.swift".into(), contents: swift_wire(model) },
    ]
}

// --- names and types ------------------------------------------------------------------

/// `turn_id` → `turnId`, `HepHeader` → `hepHeader` (uniffi's Swift names).
fn lower_camel(name: &str) -> String {
    let mut out = String::new();
    for (i, part) in name.split('_').enumerate() {
        let mut chars = part.chars();
        let Some(first) = chars.next() else { continue };
        if i == 0 {
            out.push(first.to_ascii_lowercase());
        } else {
            out.push(first.to_ascii_uppercase());
        }
        out.push_str(chars.as_str());
    }
    out
}

/// Whether `field` of `frame` holds a liveness action.
fn is_action(frame: &str, field: &Field) -> bool {
    LIVENESS_ACTION_FIELDS.contains(&(frame, field.name.as_str()))
}

/// Whether a frame type crosses as a record of this crate (it has a liveness action).
fn bridged(frame: &FrameType) -> bool {
    frame.fields.iter().any(|f| is_action(&frame.wire, f))
}

/// The Rust type of a field of the core.
fn rust_type(ty: &Type) -> String {
    match ty {
        Type::String => "String".into(),
        Type::Int => "u64".into(),
        Type::Float => "f64".into(),
        Type::Bool => "bool".into(),
        Type::List(item) => format!("Vec<{}>", rust_type(item)),
        Type::Record(name) => name.clone(),
    }
}

fn rust_field_type(field: &Field) -> String {
    if field.optional { format!("Option<{}>", rust_type(&field.ty)) } else { rust_type(&field.ty) }
}

/// Whether a value of `ty` holds a float (a record holding one cannot derive `Eq`).
fn has_float(model: &Model, ty: &Type) -> bool {
    match ty {
        Type::Float => true,
        Type::List(item) => has_float(model, item),
        Type::Record(name) => model.record(name).is_some_and(|r| r.fields.iter().any(|f| has_float(model, &f.ty))),
        _ => false,
    }
}

/// The frame types' structs, each once, in the order of their first frame type, with the
/// frame types using them.
fn frame_structs(model: &Model) -> Vec<(&str, Vec<&FrameType>)> {
    let mut structs: Vec<(&str, Vec<&FrameType>)> = Vec::new();
    for frame in &model.frames {
        match structs.iter_mut().find(|(name, _)| *name == frame.rust_struct) {
            Some((_, users)) => users.push(frame),
            None => structs.push((&frame.rust_struct, vec![frame])),
        }
    }
    structs
}

/// The doc of a frame struct: its frame type's doc, or which frame types share it.
fn struct_doc(users: &[&FrameType]) -> String {
    match users {
        [one] => format!("`{}`: {}", one.wire, after_colon(&one.doc)),
        _ => {
            let wires: Vec<String> = users.iter().map(|f| format!("`{}`", f.wire)).collect();
            format!("The fields of {}.", wires.join(" and "))
        }
    }
}

/// A Rust doc comment of the model as comment lines with `prefix`, its intra-doc links as
/// plain code spans (the docs reach Swift, which cannot resolve Rust's names).
fn doc_lines(doc: &str, prefix: &str) -> String {
    comment_lines(&plain_links(doc), prefix)
}

/// `text` with its first letter lowercased (a doc sentence after a colon), unless it starts
/// an acronym.
fn after_colon(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_ascii_uppercase() && !second.is_ascii_uppercase() => {
            first.to_ascii_lowercase().to_string() + &text[first.len_utf8()..]
        }
        _ => text.to_owned(),
    }
}

// --- bindings-swift/src/frames.rs -----------------------------------------------------

fn rust_frames(model: &Model) -> String {
    let mut out = banner("//");
    out.push_str(
        "//! The frame model, declared to uniffi as hep-core's own types (`#[uniffi::remote]`
//! repeats each definition field for field; the compiler checks that it matches the core),
//! with the core's doc comments, which uniffi carries into the Swift declarations.
//!
//! In Swift: `enum Frame` with a case per frame type carrying its struct, and `.unknown`.
//!
//! A frame holding a liveness action (`tool_liveness`) differs from the core's: Swift sees a
//! `LivenessAction` (v1's five, or `unknown` with its wire name) where the core keeps the
//! wire string. It crosses as a custom type (`Core…`, the core's struct) bridged by a record
//! of this crate that Swift sees under the core's name.
",
    );
    let structs = frame_structs(model);
    let mut imports: Vec<&str> = vec!["Frame", model.unknown.name.as_str()];
    for (name, users) in &structs {
        if !users.iter().any(|f| bridged(f)) {
            imports.push(name);
        }
    }
    imports.extend(model.records.iter().map(|r| r.name.as_str()));
    imports.sort_unstable();
    imports.dedup();
    out.push('\n');
    out.push_str(&use_items("hep_core", &imports));

    // The enum.
    out.push('\n');
    out.push_str(&doc_lines(FRAME_DOC, "/// "));
    out.push_str("#[uniffi::remote(Enum)]\npub enum Frame {\n");
    for frame in &model.frames {
        out.push_str(&doc_lines(&frame.doc, "    /// "));
        let ty = if bridged(frame) { format!("Core{}", frame.rust_struct) } else { frame.rust_struct.clone() };
        let _ = writeln!(out, "    {}({ty}),", frame.name);
    }
    out.push_str(&doc_lines(&model.unknown.doc, "    /// "));
    let _ = writeln!(out, "    Unknown({}),", model.unknown.name);
    out.push_str("}\n");

    // The frame structs, the nested records, the unknown frame.
    for (name, users) in &structs {
        let doc = struct_doc(users);
        match (users.iter().find(|f| bridged(f)), users.first()) {
            (Some(frame), _) => bridged_record(&mut out, model, name, frame, &doc),
            (None, Some(frame)) => remote_record(&mut out, name, &doc, &frame.fields),
            (None, None) => {}
        }
    }
    for record in &model.records {
        remote_record(&mut out, &record.name, &record.doc, &record.fields);
    }
    remote_record(&mut out, &model.unknown.name, &model.unknown.doc, &model.unknown.fields);

    liveness_action(&mut out, model);
    out
}

/// A record of the core, declared to uniffi (optional fields default to `nil` in Swift).
fn remote_record(out: &mut String, name: &str, doc: &str, fields: &[Field]) {
    out.push('\n');
    out.push_str(&doc_lines(doc, "/// "));
    let _ = writeln!(out, "#[uniffi::remote(Record)]\npub struct {name} {{");
    for field in fields {
        out.push_str(&doc_lines(&field.doc, "    /// "));
        if field.optional {
            out.push_str("    #[uniffi(default = None)]\n");
        }
        let _ = writeln!(out, "    pub {}: {},", field.name, rust_field_type(field));
    }
    out.push_str("}\n");
}

/// A frame struct holding a liveness action: the core's struct as a custom type, and the
/// record of this crate it crosses as.
fn bridged_record(out: &mut String, model: &Model, name: &str, frame: &FrameType, doc: &str) {
    let record = format!("{name}Record");
    let core = format!("Core{name}");
    let _ = write!(
        out,
        "\n/// hep-core's `{wire}` frame, which crosses as [`{record}`].\npub type {core} = hep_core::{name};\n\n",
        wire = frame.wire
    );
    out.push_str(&doc_lines(doc, "/// "));
    let eq = if frame.fields.iter().any(|f| has_float(model, &f.ty)) { "" } else { ", Eq" };
    let _ = writeln!(out, "#[derive(Debug, Clone, PartialEq{eq}, uniffi::Record)]");
    let _ = writeln!(out, "#[uniffi(name = \"{name}\")]\npub struct {record} {{");
    for field in &frame.fields {
        out.push_str(&doc_lines(&field.doc, "    /// "));
        if field.optional {
            out.push_str("    #[uniffi(default = None)]\n");
        }
        let ty = if is_action(&frame.wire, field) { "LivenessAction".into() } else { rust_field_type(field) };
        let _ = writeln!(out, "    pub {}: {ty},", field.name);
    }
    out.push_str("}\n\n");
    let convert = |from: &str, action: &str| -> String {
        frame
            .fields
            .iter()
            .map(|f| {
                if is_action(&frame.wire, f) {
                    format!("        {0}: {1},\n", f.name, action.replace('@', &format!("{from}.{}", f.name)))
                } else {
                    format!("        {0}: {from}.{0},\n", f.name)
                }
            })
            .collect()
    };
    let _ = write!(
        out,
        "uniffi::custom_type!({core}, {record}, {{
    remote,
    lower: |f| {record} {{
{lower}    }},
    try_lift: |r| Ok({core} {{
{lift}    }}),
}});
",
        lower = convert("f", "LivenessAction::from_wire(@)"),
        lift = convert("r", "@.into_wire()"),
    );
}

/// `LivenessAction`: v1's actions, or an unknown one by its wire name.
fn liveness_action(out: &mut String, model: &Model) {
    out.push_str(
        "
/// The `action` of a `tool_liveness` frame: one of HEP v1's, or an action a newer emitter
/// writes, kept with its wire name (a frame with one is still read, as an unknown frame
/// type is).
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum LivenessAction {
",
    );
    let variants: Vec<(String, &str)> =
        model.liveness_actions.iter().map(|a| (crate::model::pascal(&a.wire), a.wire.as_str())).collect();
    for (action, (variant, _)) in model.liveness_actions.iter().zip(&variants) {
        out.push_str(&doc_lines(&action.doc, "    /// "));
        let _ = writeln!(out, "    {variant},");
    }
    out.push_str(
        "    /// An action HEP v1 does not define, by its wire name.
    Unknown(String),
}

impl LivenessAction {
    /// The action a frame's `action` names.
    pub fn from_wire(name: String) -> Self {
        match name.as_str() {
",
    );
    for (variant, wire) in &variants {
        let _ = writeln!(out, "            {wire:?} => Self::{variant},");
    }
    out.push_str(
        "            _ => Self::Unknown(name),
        }
    }

    /// The wire name.
    pub fn name(&self) -> &str {
        match self {
",
    );
    for (variant, wire) in &variants {
        let _ = writeln!(out, "            Self::{variant} => {wire:?},");
    }
    out.push_str(
        "            Self::Unknown(name) => name,
        }
    }

    /// The wire name, owned (what a frame holds).
    pub fn into_wire(self) -> String {
        match self {
            Self::Unknown(name) => name,
            known => known.name().to_owned(),
        }
    }

    /// The core's action, for one v1 defines.
    pub fn known(&self) -> Option<hep_core::LivenessAction> {
        match self {
",
    );
    for (variant, _) in &variants {
        let _ = writeln!(out, "            Self::{variant} => Some(hep_core::LivenessAction::{variant}),");
    }
    out.push_str(
        "            Self::Unknown(_) => None,
        }
    }
}

impl From<hep_core::LivenessAction> for LivenessAction {
    fn from(action: hep_core::LivenessAction) -> Self {
        match action {
",
    );
    for (variant, _) in &variants {
        let _ = writeln!(out, "            hep_core::LivenessAction::{variant} => Self::{variant},");
    }
    out.push_str("        }\n    }\n}\n");
}

// --- bindings-swift/Sources/Hep/FrameBatch+Frames.swift -------------------------------

/// The Swift expression reading a value of `ty` from a `FrameBatchReader` (`self` or `$0`).
fn swift_read(ty: &Type, on: &str) -> String {
    let call = |name: &str| if on.is_empty() { format!("{name}()") } else { format!("{on}.{name}()") };
    match ty {
        Type::String => call("str"),
        Type::Int => call("u64"),
        Type::Float => call("f64"),
        Type::Bool => call("bool"),
        Type::List(item) => format!("{}list {{ {} }}", prefix(on), swift_read(item, "$0")),
        Type::Record(name) => call(&format!("read{name}")),
    }
}

fn prefix(on: &str) -> String {
    if on.is_empty() { String::new() } else { format!("{on}.") }
}

fn swift_read_field(frame: &str, field: &Field) -> String {
    let read = |on: &str| {
        if is_action(frame, field) {
            format!("LivenessAction(wireName: {})", swift_read(&Type::String, on))
        } else {
            swift_read(&field.ty, on)
        }
    };
    if field.optional { format!("optional {{ {} }}", read("$0")) } else { read("") }
}

/// `Name(field: read, ...)`, its arguments one per line (indented by `indent`) when on one
/// line it would be longer than `room`.
fn swift_init(name: &str, frame: &str, fields: &[Field], indent: &str, room: usize) -> String {
    let args: Vec<String> =
        fields.iter().map(|f| format!("{}: {}", lower_camel(&f.name), swift_read_field(frame, f))).collect();
    let one_line = format!("{name}({})", args.join(", "));
    if one_line.len() <= room {
        return one_line;
    }
    format!("{name}(\n{indent}    {})", args.join(&format!(",\n{indent}    ")))
}

fn swift_batch(model: &Model) -> String {
    let mut out = banner("//");
    out.push_str("// The frames of a `FrameBatch`: each frame's tag, then its fields in the wire's order, as\n");
    out.push_str("// hep-core/src/batch/frames.rs (generated from the same model) writes them.\n");
    out.push_str(&comment_lines(&wrap(&format!("Tags: {}.", tag_list(model)), 88), "// "));
    out.push_str(
        "
extension FrameBatchReader {
    /// A frame: its tag, then its fields.
    mutating func frame() -> Frame {
        switch u8() {
",
    );
    for (tag, frame) in model.frames.iter().enumerate() {
        let _ = writeln!(out, "        case {tag}:");
        let case = lower_camel(&frame.wire);
        let room = 100 - case.len();
        let init = swift_init(&frame.rust_struct, &frame.wire, &frame.fields, "            ", room);
        let _ = writeln!(out, "            return .{case}({init})");
    }
    let _ = writeln!(out, "        case {}:", unknown_tag(model));
    let init = swift_init(&model.unknown.name, "", &model.unknown.fields, "            ", 90);
    let _ = writeln!(out, "            return .unknown({init})");
    out.push_str(
        "        case let tag:
            preconditionFailure(\"unknown frame tag \\(tag) in a batch from the core\")
        }
    }
",
    );
    for record in &model.records {
        out.push('\n');
        out.push_str(&comment_lines(
            &wrap(&format!("A `{}`: {}", record.name, after_colon(&plain_links(&record.doc))), 88),
            "    /// ",
        ));
        let _ = writeln!(out, "    mutating func read{}() -> {} {{", record.name, record.name);
        let _ = writeln!(out, "        {}", swift_init(&record.name, "", &record.fields, "        ", 100));
        out.push_str("    }\n");
    }
    out.push_str("}\n");
    out
}

// --- bindings-swift/Sources/Hep/Frame+Wire.swift --------------------------------------

fn swift_wire(model: &Model) -> String {
    let mut out = banner("//");
    out.push_str(
        "// Each frame's wire `type` and round id, and the liveness actions' wire names.

extension Frame {
    /// The wire `type` of the frame (`\"message_delta\"`, ...; an unknown frame's own type, as
    /// Rust's `Frame::frame_type()`: the case `.unknown` tells it apart).
    public var type: String {
        switch self {
",
    );
    for frame in &model.frames {
        let _ = writeln!(out, "        case .{}: {:?}", lower_camel(&frame.wire), frame.wire);
    }
    let has_turn_id = |fields: &[Field]| fields.iter().any(|f| f.name == "turn_id");
    let without: Vec<String> =
        model.frames.iter().filter(|f| !has_turn_id(&f.fields)).map(|f| format!("`{}`", f.wire)).collect();
    let _ = write!(
        out,
        "        case .unknown(let frame): frame.frameType
        }}
    }}

    /// The round id (`nil` for {}, and for an unknown frame without one).
    public var turnId: UInt64? {{
        switch self {{
",
        without.join(", ")
    );
    for frame in &model.frames {
        let case = lower_camel(&frame.wire);
        if has_turn_id(&frame.fields) {
            let _ = writeln!(out, "        case .{case}(let frame): frame.turnId");
        } else {
            let _ = writeln!(out, "        case .{case}: nil");
        }
    }
    if has_turn_id(&model.unknown.fields) {
        out.push_str("        case .unknown(let frame): frame.turnId\n");
    } else {
        out.push_str("        case .unknown: nil\n");
    }
    out.push_str(
        "        }
    }
}

extension LivenessAction {
    /// The action a frame's `action` field names: one of v1's, or `.unknown` with the name
    /// (what `ToolLiveness.action` holds for an action from a newer emitter).
    public init(wireName: String) {
        switch wireName {
",
    );
    for action in &model.liveness_actions {
        let _ = writeln!(out, "        case {:?}: self = .{}", action.wire, lower_camel(&action.wire));
    }
    out.push_str(
        "        default: self = .unknown(wireName)
        }
    }

    /// The wire name of the action (`\"cancel_retry\"`; an unknown action's own name).
    public var name: String {
        switch self {
",
    );
    for action in &model.liveness_actions {
        let _ = writeln!(out, "        case .{}: {:?}", lower_camel(&action.wire), action.wire);
    }
    out.push_str("        case .unknown(let name): name\n        }\n    }\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_uniffis() {
        assert_eq!(lower_camel("turn_id"), "turnId");
        assert_eq!(lower_camel("HepHeader"), "hepHeader");
        assert_eq!(lower_camel("tool_liveness"), "toolLiveness");
    }

    #[test]
    fn every_frame_type_has_a_tag_read() {
        let model = Model::read().unwrap();
        let files = files(&model);
        let swift = &files[1].contents;
        for (tag, frame) in model.frames.iter().enumerate() {
            assert!(swift.contains(&format!("case {tag}:\n            return .{}(", lower_camel(&frame.wire))));
        }
        assert!(swift.contains("LivenessAction(wireName: str())"));
    }
}
