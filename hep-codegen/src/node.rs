//! The node binding's generated files:
//!
//! - `bindings-node/frames.d.ts`: the frames as TypeScript types (an interface per frame
//!   type, the records inside them, the unknown frame, the `Frame` union and the
//!   `LivenessAction` union), with the Rust doc comments as TSDoc; `index.d.ts` re-exports it.
//! - `bindings-node/src/batch/layout.rs`: the frame codes and the half of the batch layout
//!   that writes each frame's fields (Rust).
//! - `bindings-node/lib/batch.js`: the other half, which reads them back into plain objects
//!   with the wire's field names in the wire's order, and the wire-code table.
//!
//! Both halves carry the same layout signature (`LAYOUT`), which `lib/frames.js` compares
//! with the addon's at load: a stale addon is refused rather than misread.

use crate::Generated;
use crate::model::{Field, Model, Type};
use crate::text::{banner, comment_lines, plain_links};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The files of the node binding.
pub(crate) fn files(model: &Model) -> Vec<Generated> {
    vec![
        Generated { path: PathBuf::from("bindings-node/frames.d.ts"), contents: typings(model) },
        Generated { path: PathBuf::from("bindings-node/src/batch/layout.rs"), contents: batch_writer(model) },
        Generated { path: PathBuf::from("bindings-node/lib/batch.js"), contents: batch_reader(model) },
    ]
}

/// A kind of frame a batch carries: a known frame type, or the unknown frame.
struct Kind<'m> {
    /// The value of `type` in Node (`unknown` for the unknown frame).
    wire: &'m str,
    /// The Rust variant of `Frame`.
    variant: String,
    fields: &'m [Field],
}

/// Every kind, in code order: the frame types in the spec's order, then the unknown frame.
fn kinds(model: &Model) -> Vec<Kind<'_>> {
    let mut kinds: Vec<Kind<'_>> =
        model.frames.iter().map(|f| Kind { wire: &f.wire, variant: f.name.clone(), fields: &f.fields }).collect();
    kinds.push(Kind { wire: "unknown", variant: "Unknown".into(), fields: &model.unknown.fields });
    kinds
}

/// The code of the unknown frame (the last one).
fn unknown_code(model: &Model) -> usize {
    model.frames.len()
}

// ---- the layout signature ----

/// The layout of every kind, `type:fields;...`: `s` a string, `i` an integer, `f` a float,
/// `b` a boolean, `[x]` a list of `x`, `{x,y}` a record, `?` after an optional field.
fn layout(model: &Model) -> String {
    kinds(model)
        .iter()
        .map(|k| format!("{}:{}", k.wire, k.fields.iter().map(|f| field_sig(model, f)).collect::<Vec<_>>().join(",")))
        .collect::<Vec<_>>()
        .join(";")
}

fn field_sig(model: &Model, field: &Field) -> String {
    let sig = type_sig(model, &field.ty);
    if field.optional { sig + "?" } else { sig }
}

fn type_sig(model: &Model, ty: &Type) -> String {
    match ty {
        Type::String => "s".into(),
        Type::Int => "i".into(),
        Type::Float => "f".into(),
        Type::Bool => "b".into(),
        Type::List(item) => format!("[{}]", type_sig(model, item)),
        Type::Record(name) => {
            let fields = model.record(name).map(|r| r.fields.as_slice()).unwrap_or_default();
            format!("{{{}}}", fields.iter().map(|f| field_sig(model, f)).collect::<Vec<_>>().join(","))
        }
    }
}

// ---- frames.d.ts ----

/// A TSDoc comment of `doc` at `indent`: one line when it fits, else a block.
fn tsdoc(doc: &str, indent: &str) -> String {
    let doc = plain_links(doc).replace("*/", "*\\/");
    let doc = doc.trim();
    if doc.is_empty() {
        return String::new();
    }
    if !doc.contains('\n') && indent.len() + doc.len() + 7 <= 100 {
        return format!("{indent}/** {doc} */\n");
    }
    format!("{indent}/**\n{}{indent} */\n", comment_lines(doc, &format!("{indent} * ")))
}

/// The TypeScript type of `field`. A string field whose doc names hep-core's
/// `LivenessAction` holds one of its values (`tool_liveness.action`).
fn ts_field_type(field: &Field) -> String {
    if field.ty == Type::String && field.doc.contains("[`LivenessAction`]") {
        return "LivenessAction".into();
    }
    ts_type(&field.ty)
}

fn ts_type(ty: &Type) -> String {
    match ty {
        Type::String => "string".into(),
        Type::Int | Type::Float => "number".into(),
        Type::Bool => "boolean".into(),
        Type::List(item) => format!("{}[]", ts_type(item)),
        Type::Record(name) => name.clone(),
    }
}

fn ts_fields(out: &mut String, fields: &[Field]) {
    for field in fields {
        out.push_str(&tsdoc(&field.doc, "  "));
        let mark = if field.optional { "?" } else { "" };
        let _ = writeln!(out, "  {}{mark}: {};", field.name, ts_field_type(field));
    }
}

/// `text` with its first letter in lower case (unless it starts an acronym).
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_ascii_uppercase() && !second.is_ascii_uppercase() => {
            format!("{}{}", first.to_ascii_lowercase(), text.get(1..).unwrap_or_default())
        }
        _ => text.to_owned(),
    }
}

fn typings(model: &Model) -> String {
    let mut out = banner("//");
    out.push_str(
        "//\n\
         // The frames of HEP v1 as TypeScript types, from hep-core's Rust types (hep-core/src/frame.rs):\n\
         // plain objects with the wire's field names, in the wire's order. `Frame` is a union\n\
         // discriminated by `type`, so `switch (frame.type)` narrows. index.d.ts re-exports them.\n",
    );
    for frame in &model.frames {
        out.push('\n');
        out.push_str(&tsdoc(&format!("`{}`: {}", frame.wire, lower_first(&frame.doc)), ""));
        let _ = writeln!(out, "export interface {} {{", frame.name);
        let _ = writeln!(out, "  type: '{}';", frame.wire);
        ts_fields(&mut out, &frame.fields);
        out.push_str("}\n");
    }
    for record in &model.records {
        out.push('\n');
        out.push_str(&tsdoc(&record.doc, ""));
        let _ = writeln!(out, "export interface {} {{", record.name);
        ts_fields(&mut out, &record.fields);
        out.push_str("}\n");
    }
    out.push('\n');
    let unknown = &model.unknown;
    out.push_str(&tsdoc(
        &format!("{}\n\nNever an error: it is kept, and `encode` writes `raw` back unchanged.", unknown.doc),
        "",
    ));
    let _ = writeln!(out, "export interface {} {{", unknown.name);
    out.push_str("  /** Always `'unknown'`: the frame's own type is `frame_type`. */\n  type: 'unknown';\n");
    ts_fields(&mut out, &unknown.fields);
    out.push_str("}\n\n");
    out.push_str("/** One HEP v1 frame: `switch (frame.type)` narrows to its interface. */\nexport type Frame =\n");
    for frame in &model.frames {
        let _ = writeln!(out, "  | {}", frame.name);
    }
    let _ = writeln!(out, "  | {};", unknown.name);
    out.push_str(
        "\n/** A `tool_liveness.action` of v1 (hep-core's `LivenessAction`). */\nexport type LivenessAction =\n",
    );
    for (n, action) in model.liveness_actions.iter().enumerate() {
        out.push_str(&tsdoc(&action.doc, "  "));
        let end = if n + 1 == model.liveness_actions.len() { ";" } else { "" };
        let _ = writeln!(out, "  | '{}'{end}", action.wire);
    }
    out
}

// ---- src/batch/layout.rs ----

fn batch_writer(model: &Model) -> String {
    let kinds = kinds(model);
    let mut out = banner("//");
    out.push_str(
        "//! The frame codes, and each frame's fields in the batch (the layout is the parent\n\
         //! module's), from hep-core's frame model: `lib/batch.js`, generated from the same model,\n\
         //! reads them back.\n\n\
         use super::Batch;\n\
         use hep_core::Frame;\n\
         use std::ops::Deref;\n\n",
    );
    out.push_str(
        "/// The type of each frame code: the protocol's frame types in the spec's order, then\n\
         /// `unknown` for a type v1 does not know.\n",
    );
    let _ = writeln!(out, "pub(crate) const FRAME_TYPES: [&str; {}] = [", kinds.len());
    for kind in &kinds {
        let _ = writeln!(out, "    {:?},", kind.wire);
    }
    out.push_str("];\n\n");
    out.push_str(
        "/// The fields of each frame code, in order (`s` a string, `i` an integer, `f` a float, `b` a\n\
         /// boolean, `[x]` a list, `{x}` a record, `?` an optional field): `lib/batch.js` has the same.\n",
    );
    let _ = writeln!(out, "pub(crate) const LAYOUT: &str = {:?};\n", layout(model));
    out.push_str("/// The code of `frame`'s type (its index in [`FRAME_TYPES`]).\npub(super) fn code<S>(frame: &Frame<S>) -> f64 {\n    match frame {\n");
    for (code, kind) in kinds.iter().enumerate() {
        let _ = writeln!(out, "        Frame::{}(_) => {code}.0,", kind.variant);
    }
    out.push_str("    }\n}\n\n");
    out.push_str(
        "impl Batch {\n    /// Adds the fields of `frame` (owned or borrowed text), in the wire's order.\n    pub(super) fn fields<S: Deref<Target = str>>(&mut self, frame: &Frame<S>) {\n        match frame {\n",
    );
    for kind in &kinds {
        if kind.fields.is_empty() {
            let _ = writeln!(out, "            Frame::{}(_) => {{}}", kind.variant);
            continue;
        }
        let _ = writeln!(out, "            Frame::{}(f) => {{", kind.variant);
        for field in kind.fields {
            rust_field(&mut out, model, &format!("f.{}", field.name), field, 4, 0);
        }
        out.push_str("            }\n");
    }
    out.push_str("        }\n    }\n}\n");
    out
}

/// The statements that add the value at `place` (a field of type `field.ty`).
fn rust_field(out: &mut String, model: &Model, place: &str, field: &Field, indent: usize, depth: usize) {
    let pad = "    ".repeat(indent);
    if !field.optional {
        rust_value(out, model, place, &field.ty, indent, depth);
        return;
    }
    let var = format!("x{depth}");
    let _ = writeln!(out, "{pad}match &{place} {{");
    let _ = writeln!(out, "{pad}    Some({var}) => {{");
    if matches!(field.ty, Type::Record(_)) {
        let _ = writeln!(out, "{pad}        self.present();");
    }
    rust_value(out, model, &item_place(&var, &field.ty), &field.ty, indent + 2, depth + 1);
    let _ = writeln!(out, "{pad}    }}");
    let _ = writeln!(out, "{pad}    None => self.absent(),");
    let _ = writeln!(out, "{pad}}}");
}

/// How the value behind the reference `var` is named: a record by the reference (its
/// fields auto-deref), anything else by `*var`.
fn item_place(var: &str, ty: &Type) -> String {
    if matches!(ty, Type::Record(_)) { var.to_owned() } else { format!("*{var}") }
}

fn rust_value(out: &mut String, model: &Model, place: &str, ty: &Type, indent: usize, depth: usize) {
    let pad = "    ".repeat(indent);
    match ty {
        Type::String => {
            // A reference already (`*x0`) is passed as it is.
            let text = place.strip_prefix('*').map_or_else(|| format!("&{place}"), str::to_owned);
            let _ = writeln!(out, "{pad}self.text({text});");
        }
        Type::Int => {
            let _ = writeln!(out, "{pad}self.int({place});");
        }
        Type::Float => {
            let _ = writeln!(out, "{pad}self.float({place});");
        }
        Type::Bool => {
            let _ = writeln!(out, "{pad}self.bool({place});");
        }
        Type::List(item) => {
            let var = format!("x{depth}");
            let _ = writeln!(out, "{pad}self.count({place}.len());");
            let _ = writeln!(out, "{pad}for {var} in &{place} {{");
            rust_value(out, model, &item_place(&var, item), item, indent + 1, depth + 1);
            let _ = writeln!(out, "{pad}}}");
        }
        Type::Record(name) => {
            for field in model.record(name).map(|r| r.fields.as_slice()).unwrap_or_default() {
                rust_field(out, model, &format!("{place}.{}", field.name), field, indent, depth);
            }
        }
    }
}

// ---- lib/batch.js ----

fn batch_reader(model: &Model) -> String {
    let kinds = kinds(model);
    let mut out = banner("//");
    out.push_str(
        "'use strict';\n\
         //\n\
         // The frames of a batch of the native addon as plain objects, with the wire's field names\n\
         // in the wire's order (the layout: src/batch.rs; the half that writes each frame's fields,\n\
         // src/batch/layout.rs, is generated from the same model).\n\n",
    );
    out.push_str("/** The type of each frame code: v1's frame types in the spec's order, then `unknown`. */\nconst FRAME_TYPES = [\n");
    for kind in &kinds {
        let _ = writeln!(out, "  '{}',", kind.wire);
    }
    out.push_str("];\n\n");
    out.push_str(
        "/**\n * The fields of each frame code, in order (`s` a string, `i` an integer, `f` a float, `b` a\n * boolean, `[x]` a list, `{x}` a record, `?` an optional field): the addon's must be the same.\n */\n",
    );
    let _ = writeln!(out, "const LAYOUT = '{}';\n", layout(model));
    out.push_str(
        "/**\n\
         \x20* The frames of a batch. `pool` holds the string fields one after the other, `cols` each\n\
         \x20* frame's code, then (in `raw` mode) its line number and the end of its line in `pool`,\n\
         \x20* then its fields: a string as where it ends in `pool` (`at` is where the next one\n\
         \x20* starts), a number as itself, a boolean as 0 or 1, a list as its length and its items, a\n\
         \x20* record as its fields; an absent optional field is NaN (an optional record is 1, then\n\
         \x20* its fields, when present).\n\
         \x20*/\n\
         function framesOf(pool, cols, raw) {\n\
         \x20 const frames = [];\n\
         \x20 const n = cols.length;\n\
         \x20 let i = 0;\n\
         \x20 let at = 0;\n\
         \x20 let v = 0; // the first column of an optional field\n\
         \x20 /** A list of `count` items, each read by `item`. */\n\
         \x20 const list = (count, item) => {\n\
         \x20   const items = [];\n\
         \x20   for (let k = 0; k < count; k++) items.push(item());\n\
         \x20   return items;\n\
         \x20 };\n",
    );
    for record in &model.records {
        let _ = write!(out, "  /** A `{}`. */\n  const read{} = () =>", record.name, record.name);
        js_object(&mut out, None, &record.fields, "o", 2, true);
    }
    out.push_str(
        "  while (i < n) {\n\
         \x20   const code = cols[i++];\n\
         \x20   let line = 0;\n\
         \x20   let text = '';\n\
         \x20   if (raw) {\n\
         \x20     line = cols[i++];\n\
         \x20     text = pool.slice(at, (at = cols[i++]));\n\
         \x20   }\n\
         \x20   let frame;\n\
         \x20   switch (code) {\n",
    );
    for (code, kind) in kinds.iter().enumerate() {
        let _ = write!(out, "      case {code}:");
        js_object(&mut out, Some(kind.wire), kind.fields, "frame", 4, false);
        out.push_str("        break;\n");
    }
    let _ = write!(
        out,
        "      default:\n\
         \x20       throw new Error(`hep: unknown frame code ${{code}} in a batch of the native addon: rebuild it`);\n\
         \x20   }}\n\
         \x20   if (raw) {{\n\
         \x20     // The unknown frame holds its line as a field of its own.\n\
         \x20     if (code !== {}) Object.defineProperty(frame, 'raw', {{ value: text, configurable: true }});\n\
         \x20     Object.defineProperty(frame, 'line', {{ value: line, configurable: true }});\n\
         \x20   }}\n\
         \x20   frames.push(frame);\n\
         \x20 }}\n\
         \x20 return frames;\n\
         }}\n\n\
         module.exports = {{ FRAME_TYPES, LAYOUT, framesOf }};\n",
        unknown_code(model)
    );
    out
}

/// An object of `fields` (with `type` first, if given), built in the wire's order: the
/// fields up to the first optional one in a literal, the rest one statement each. As the
/// body of an arrow function (`arrow`: returns it) or a `case` (assigns `name`).
fn js_object(out: &mut String, wire: Option<&str>, fields: &[Field], name: &str, indent: usize, arrow: bool) {
    let pad = "  ".repeat(indent);
    let outer = "  ".repeat(indent.saturating_sub(1));
    let literal_len = fields.iter().position(|f| f.optional).unwrap_or(fields.len());
    let (literal, rest) = fields.split_at(literal_len);
    let mut members: Vec<String> = wire.map(|w| format!("type: '{w}'")).into_iter().collect();
    members.extend(literal.iter().map(|f| format!("{}: {}", f.name, js_value(&f.ty, None))));
    // On one line when it fits in 120 columns, else a member a line.
    let short = format!("{{ {} }}", members.join(", "));
    let object = |base: &str, at: usize| {
        if at + short.len() <= 120 {
            short.clone()
        } else {
            format!("{{\n{}{base}}}", members.iter().map(|m| format!("{base}  {m},\n")).collect::<String>())
        }
    };
    if arrow && rest.is_empty() {
        let _ = writeln!(out, " ({});", object(&outer, outer.len() + 30 + name.len()));
        return;
    }
    if arrow {
        let _ = writeln!(out, " {{\n{pad}const {name} = {};", object(&pad, pad.len() + name.len() + 10));
    } else {
        let _ = writeln!(out, "\n{pad}{name} = {};", object(&pad, pad.len() + name.len() + 4));
    }
    for field in rest {
        if field.optional {
            let _ = writeln!(out, "{pad}v = cols[i++];");
            let value = js_value(&field.ty, Some("v"));
            let _ = writeln!(out, "{pad}if (!Number.isNaN(v)) {name}.{} = {value};", field.name);
        } else {
            let _ = writeln!(out, "{pad}{name}.{} = {};", field.name, js_value(&field.ty, None));
        }
    }
    if arrow {
        let _ = writeln!(out, "{pad}return {name};\n{outer}}};");
    }
}

/// The expression reading a value of type `ty`; `first`, when its first column has been
/// read already (an optional field's: for a record, its presence).
fn js_value(ty: &Type, first: Option<&str>) -> String {
    let next = first.unwrap_or("cols[i++]");
    match ty {
        Type::String => format!("pool.slice(at, (at = {next}))"),
        Type::Int | Type::Float => next.to_owned(),
        Type::Bool => format!("{next} === 1"),
        Type::List(item) => {
            let read = match item.as_ref() {
                Type::Record(name) => format!("read{name}"),
                other => format!("() => {}", js_value(other, None)),
            };
            format!("list({next}, {read})")
        }
        Type::Record(name) => format!("read{name}()"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_names_every_field_in_wire_order() {
        let model = Model::read().unwrap();
        let layout = layout(&model);
        assert!(layout.starts_with("hep_header:s,s,s;agent_start:i;"), "{layout}");
        assert!(layout.contains(";tool_liveness:i,s,s,s,i,i?,s?;"), "{layout}");
        assert!(layout.contains(";turn_done:i,s,[{s,s,b,s}],{i,i,f},s;"), "{layout}");
        assert!(layout.ends_with(";unknown:s,i?,s"), "{layout}");
    }

    #[test]
    fn the_reader_builds_optional_fields_after_the_literal() {
        let model = Model::read().unwrap();
        let js = batch_reader(&model);
        assert!(js.contains("if (!Number.isNaN(v)) frame.output_bytes = v;"), "{js}");
        assert!(js.contains("tool_results: list(cols[i++], readToolResult)"), "{js}");
        let ts = typings(&model);
        assert!(ts.contains("  action: LivenessAction;\n"), "{ts}");
        assert!(ts.contains("  output_bytes?: number;\n"), "{ts}");
    }
}
