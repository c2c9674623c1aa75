//! hep-core's generated batch code, `hep-core/src/batch/frames.rs`: the [`FrameTag`] of each
//! frame type (its doc listing the frame's fields in the layout, which cbindgen carries into
//! the C header) and how each frame is written into a `FrameBatch` (its tag, then its fields
//! in the wire's order). Swift's reader (`crate::swift`) and the C header follow the same
//! tags.
//!
//! [`FrameTag`]: https://docs.rs/hep-core/latest/hep_core/batch/enum.FrameTag.html

use crate::Generated;
use crate::model::{Field, Model, Record, Type};
use crate::text::{banner, comment_lines, field_names, use_items, wrap};
use std::fmt::Write as _;

/// The file of hep-core's batch.
pub(crate) fn files(model: &Model) -> Vec<Generated> {
    vec![Generated { path: "hep-core/src/batch/frames.rs".into(), contents: core_batch(model) }]
}

/// The tag of the unknown frame: after every known one.
pub(crate) fn unknown_tag(model: &Model) -> usize {
    model.frames.len()
}

/// "0 `hep_header`, 1 `agent_start`, ..., 12 an unknown frame type".
pub(crate) fn tag_list(model: &Model) -> String {
    let mut tags: Vec<String> = model.frames.iter().enumerate().map(|(i, f)| format!("{i} `{}`", f.wire)).collect();
    tags.push(format!("{} an unknown frame type", unknown_tag(model)));
    tags.join(", ")
}

/// How the layout writes a value of `ty`.
fn layout_type(ty: &Type) -> String {
    match ty {
        Type::String => "str".into(),
        Type::Int => "u64".into(),
        Type::Float => "f64".into(),
        Type::Bool => "bool".into(),
        Type::List(item) => format!("list of {}", layout_type(item)),
        Type::Record(name) => format!("{name} record"),
    }
}

/// "`turn_id` u64, `detail` optional str, ..." (or "no fields").
fn layout_fields(fields: &[Field]) -> String {
    if fields.is_empty() {
        return "no fields".into();
    }
    let each = |f: &Field| {
        let ty = layout_type(&f.ty);
        if f.optional { format!("`{}` optional {ty}", f.name) } else { format!("`{}` {ty}", f.name) }
    };
    fields.iter().map(each).collect::<Vec<_>>().join(", ")
}

/// `FrameTag`: one variant per frame type, its doc the frame's fields in the layout.
fn frame_tag(out: &mut String, model: &Model) {
    let records: Vec<String> =
        model.records.iter().map(|r| format!("`{}` = {}", r.name, layout_fields(&r.fields))).collect();
    let doc = format!(
        "The tag of a frame in a [`FrameBatch`]: the byte before its fields, which follow in the \
         wire's order as each variant lists them (`str` = `u32` length + UTF-8 bytes, optional = \
         `u8` 0 or 1 + the value, list = `u32` count + the items, a record = its fields: {}).",
        records.join("; ")
    );
    out.push('\n');
    out.push_str(&comment_lines(&wrap(&doc, 88), "/// "));
    out.push_str("#[repr(u8)]\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum FrameTag {\n");
    let variant = |out: &mut String, doc: String, name: &str, tag: usize| {
        out.push_str(&comment_lines(&wrap(&doc, 88), "    /// "));
        let _ = writeln!(out, "    {name} = {tag},");
    };
    for (tag, frame) in model.frames.iter().enumerate() {
        variant(out, format!("`{}`: {}.", frame.wire, layout_fields(&frame.fields)), &frame.name, tag);
    }
    let doc = format!("A frame type this version does not know: {}.", layout_fields(&model.unknown.fields));
    variant(out, doc, "Unknown", unknown_tag(model));
    out.push_str("}\n");
}

fn core_batch(model: &Model) -> String {
    let mut out = banner("//");
    let _ = write!(
        out,
        "//! The frames of a [`FrameBatch`]: each frame's tag, then its fields in the wire's order
//! (`bindings-swift/Sources/Hep/FrameBatch+Frames.swift`, generated from the same model,
//! reads them; so does a C reader, by `HepFrameTag` in `bindings-c/include/hep.h`).
//! Nested records are written field by field too.
//!
{tags}
//!
//! Each frame is destructured field by field: a field added to the core fails to compile
//! here until `make codegen` writes it (and its reading in Swift).
",
        tags = comment_lines(&wrap(&format!("Tags: {}.", tag_list(model)), 88), "//! ").trim_end_matches('\n'),
    );
    let mut imports: Vec<&str> = vec!["Frame", model.unknown.name.as_str()];
    imports.extend(model.frames.iter().map(|f| f.rust_struct.as_str()));
    imports.extend(model.records.iter().map(|r| r.name.as_str()));
    imports.sort_unstable();
    imports.dedup();
    let _ = write!(out, "\nuse super::{{FrameBatch, Put}};\n{}", use_items("crate", &imports));
    frame_tag(&mut out, model);
    out.push_str(
        "
impl FrameBatch {
    /// Appends `frame` (owned or borrowed text): its tag, then its fields.
    pub(super) fn frame<S: Put>(&mut self, frame: &Frame<S>) {
        match frame {
",
    );
    let arm = |out: &mut String, variant: &str, record: &str, fields: &[Field]| {
        let _ = writeln!(out, "            Frame::{variant}({record} {{ {} }}) => {{", field_names(fields));
        let _ = writeln!(out, "                self.tag(FrameTag::{variant});");
        for field in fields {
            let _ = writeln!(out, "                self.put({});", field.name);
        }
        out.push_str("            }\n");
    };
    for frame in &model.frames {
        arm(&mut out, &frame.name, &frame.rust_struct, &frame.fields);
    }
    arm(&mut out, "Unknown", &model.unknown.name, &model.unknown.fields);
    out.push_str("        }\n    }\n}\n");
    for Record { name, fields, .. } in &model.records {
        let generics = if fields.iter().any(|f| holds_text(model, &f.ty)) { ("<S: Put>", "<S>") } else { ("", "") };
        let _ = write!(
            out,
            "
impl{} Put for {name}{} {{
    fn put(&self, batch: &mut FrameBatch) {{
        let {name} {{ {} }} = self;
",
            generics.0,
            generics.1,
            field_names(fields)
        );
        for field in fields {
            let _ = writeln!(out, "        batch.put({});", field.name);
        }
        out.push_str("    }\n}\n");
    }
    out
}

/// Whether a field of this type holds text, so that its record is generic over the
/// string type as hep-core's text-holding types are.
fn holds_text(model: &Model, ty: &Type) -> bool {
    match ty {
        Type::String => true,
        Type::List(item) => holds_text(model, item),
        Type::Record(name) => {
            model.records.iter().filter(|r| &r.name == name).any(|r| r.fields.iter().any(|f| holds_text(model, &f.ty)))
        }
        Type::Int | Type::Float | Type::Bool => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frame_type_has_a_tag_and_is_written() {
        let model = Model::read().unwrap();
        let rust = &files(&model)[0].contents;
        for (tag, frame) in model.frames.iter().enumerate() {
            assert!(rust.contains(&format!("Frame::{}(", frame.name)), "{}", frame.wire);
            assert!(rust.contains(&format!("    {} = {tag},", frame.name)), "{}", frame.wire);
            assert!(rust.contains(&format!("self.tag(FrameTag::{});", frame.name)), "{}", frame.wire);
        }
        assert!(rust.contains(&format!("    Unknown = {},", unknown_tag(&model))));
        assert!(
            rust.contains("/// `tool_liveness`: `turn_id` u64, `id` str, `name` str, `action` str, `elapsed_ms` u64,")
        );
    }
}
