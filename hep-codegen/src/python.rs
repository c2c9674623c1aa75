//! The python binding's generated files: what it restates of the frame model.
//!
//! - `bindings-python/src/frame_model.rs`: the lists the pyo3 classes are made from (each
//!   record and frame type with its fields in the wire's order, and their doc comments, which
//!   become the Python docstrings), handed to the macros of `records.rs` and `frames.rs`;
//! - `bindings-python/python/hep/_frames.py`: the module the package takes the classes from,
//!   and `Frame`, their union;
//! - `bindings-python/python/hep/_frames.pyi`: its stubs, the classes' typed fields and
//!   `to_dict()`'s `TypedDict`s, docstrings from the Rust doc comments.

use crate::Generated;
use crate::model::{Field, FrameType, Model, Record, Type};
use crate::text::{banner, comment_lines, plain_links};
use std::fmt::Write as _;

/// What an unknown frame's `type` is in Python (docs/api.md); its wire type is `frame_type`.
const UNKNOWN_TYPE: &str = "unknown";

/// The files of the python binding.
pub(crate) fn files(model: &Model) -> Vec<Generated> {
    vec![
        Generated { path: "bindings-python/src/frame_model.rs".into(), contents: frame_model_rs(model) },
        Generated { path: "bindings-python/python/hep/_frames.py".into(), contents: frames_py(model) },
        Generated { path: "bindings-python/python/hep/_frames.pyi".into(), contents: frames_pyi(model) },
    ]
}

/// The Python class of a frame type or record, and the pyo3 struct behind it.
fn py_struct(name: &str) -> String {
    format!("Py{name}")
}

// ---- bindings-python/src/frame_model.rs ----

fn frame_model_rs(model: &Model) -> String {
    let mut out = banner("//");
    out.push_str(
        "//! The classes of hep-core's frame model, as lists: each record and frame type with its fields\n\
         //! in the wire's order and the doc comments of the Rust types (the Python docstrings). What a\n\
         //! class does is the macro's: `records.rs` and `frames.rs`.\n\n",
    );
    let mut core: Vec<&str> = model.records.iter().map(|r| r.name.as_str()).collect();
    core.extend(model.frames.iter().map(|f| f.rust_struct.as_str()));
    core.sort_unstable();
    core.dedup();
    out.push_str("use crate::frames::frame_classes;\nuse crate::records::record_classes;\n");
    for name in core {
        let _ = writeln!(out, "use hep_core::{name};");
    }
    out.push('\n');

    out.push_str("record_classes! {\n");
    for (i, record) in model.records.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&rust_doc(&record.doc, "    "));
        let _ = writeln!(out, "    {} {:?} {} {{", py_struct(&record.name), record.name, record.name);
        out.push_str(&rust_fields(&record.fields, "        "));
        out.push_str("    }\n");
    }
    out.push_str("}\n\nframe_classes! {\n    known {\n");
    for (i, frame) in model.frames.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&rust_doc(&frame.doc, "        "));
        let _ = writeln!(
            out,
            "        {} {:?} {:?} {}({}) {{",
            py_struct(&frame.name),
            frame.name,
            frame.wire,
            frame.name,
            frame.rust_struct
        );
        out.push_str(&rust_fields(&frame.fields, "            "));
        out.push_str("        }\n");
    }
    out.push_str("    }\n    unknown {\n");
    out.push_str(&rust_doc(&unknown_doc(&model.unknown), "        "));
    let _ = writeln!(out, "        {} {:?} {{", py_struct(&model.unknown.name), model.unknown.name);
    out.push_str(&rust_fields(&model.unknown.fields, "            "));
    out.push_str("        }\n    }\n}\n");
    out
}

fn rust_doc(doc: &str, indent: &str) -> String {
    comment_lines(&plain_links(doc), &format!("{indent}/// "))
}

fn rust_fields(fields: &[Field], indent: &str) -> String {
    let mut out = String::new();
    for field in fields {
        out.push_str(&rust_doc(&field.doc, indent));
        let _ = writeln!(out, "{indent}{},", field.name);
    }
    out
}

/// The unknown frame's doc, with what Python makes of it.
fn unknown_doc(unknown: &Record) -> String {
    format!(
        "{}\n\nKept, never an error: its `type` is `\"{UNKNOWN_TYPE}\"`, its wire type `frame_type`. \
         Only\nparsing makes one.",
        unknown.doc
    )
}

// ---- bindings-python/python/hep/_frames.py ----

fn frames_py(model: &Model) -> String {
    let classes = class_names(model);
    let frames = frame_class_names(model);
    let mut out = banner("#");
    out.push_str(
        "\"\"\"The classes of the frame model, defined by the compiled core (`hep._hep`): one per frame\n\
         type, `UnknownFrame` for a type this version does not know, and the records inside frames.\n\
         `Frame` is the union of the frame classes.\"\"\"\n\n\
         from typing import Union\n\n",
    );
    let mut sorted = classes.clone();
    sorted.sort_unstable();
    let _ = writeln!(out, "from ._hep import (\n{})\n", lines(&sorted, "    ", ","));
    let _ = writeln!(out, "Frame = Union[\n{}]", lines(&frames, "    ", ","));
    out.push_str("\"\"\"Every frame class: what every reading function returns.\"\"\"\n\n");
    let quoted: Vec<String> = classes.iter().map(|c| format!("{c:?}")).collect();
    let _ = writeln!(out, "__all__ = [\n{}]", lines(&quoted, "    ", ","));
    out
}

/// The frame classes, in the spec's order, then `UnknownFrame`.
fn frame_class_names(model: &Model) -> Vec<String> {
    let mut names: Vec<String> = model.frames.iter().map(|f| f.name.clone()).collect();
    names.push(model.unknown.name.clone());
    names
}

/// Every class: the frame classes, then the records.
fn class_names(model: &Model) -> Vec<String> {
    let mut names = frame_class_names(model);
    names.extend(model.records.iter().map(|r| r.name.clone()));
    names
}

fn lines(items: &[String], indent: &str, end: &str) -> String {
    items.iter().map(|item| format!("{indent}{item}{end}\n")).collect()
}

// ---- bindings-python/python/hep/_frames.pyi ----

fn frames_pyi(model: &Model) -> String {
    let mut out = banner("#");
    out.push_str(
        "\"\"\"Stubs of `hep._frames`: the frame model's classes, defined by the compiled core.\n\n\
         Frames and records are frozen: every field is a read-only property, and equality compares\n\
         the protocol values (they are not hashable). Instances cannot be subclassed. Integer fields\n\
         are non-negative (a negative one raises `OverflowError`), and a stream carries at most\n\
         2**53 - 1. Docstrings are hep-core's doc comments.\n\"\"\"\n\n\
         from typing import Any, ClassVar, Dict, Iterable, List, Mapping, Optional, Tuple, Union\n\n\
         from typing_extensions import Literal, NotRequired, TypeAlias, TypedDict, final\n\n",
    );
    let quoted: Vec<String> = class_names(model).iter().map(|c| format!("{c:?}")).collect();
    let _ = writeln!(out, "__all__ = [\n{}]\n", lines(&quoted, "    ", ","));
    let _ = writeln!(out, "Frame: TypeAlias = Union[\n{}]", lines(&frame_class_names(model), "    ", ","));
    out.push_str("\"\"\"Every frame class: what every reading function returns.\"\"\"\n");

    out.push_str("\n# What `to_dict()` returns\n");
    for record in &model.records {
        out.push_str(&typed_dict(&record.name, None, &record.fields));
    }
    for frame in &model.frames {
        out.push_str(&typed_dict(&frame.name, Some(&frame.wire), &frame.fields));
    }

    out.push_str("\n# The records inside frames\n");
    for record in &model.records {
        out.push_str(&record_class(record));
    }
    out.push_str(
        "\n# The frames: one class per frame type. Each has the protocol's fields as properties and\n\
         # constructor keywords, `type` (the wire type), `raw` (the line it was read from, `None` when\n\
         # built in Python), `line` (its 1-based line number in a stream, else `None`), `to_json()` (the\n\
         # exact bytes the reference writes, no newline) and `to_dict()`.\n",
    );
    for frame in &model.frames {
        out.push_str(&frame_class(frame));
    }
    out.push_str(&unknown_class(&model.unknown));
    out
}

/// `_{name}Dict`: a frame's (with its `type`) or a record's `to_dict()`. A frame omits an
/// absent optional field; a record holds it as `None`.
fn typed_dict(name: &str, wire: Option<&str>, fields: &[Field]) -> String {
    let mut out = format!("\nclass _{name}Dict(TypedDict):\n");
    if let Some(wire) = wire {
        let _ = writeln!(out, "    type: Literal[{wire:?}]");
    }
    for field in fields {
        let ty = dict_type(&field.ty);
        let ty = match (field.optional, wire.is_some()) {
            (false, _) => ty,
            (true, true) => format!("NotRequired[{ty}]"),
            (true, false) => format!("Optional[{ty}]"),
        };
        let _ = writeln!(out, "    {}: {ty}", field.name);
    }
    out
}

fn record_class(record: &Record) -> String {
    let mut out = format!("\n@final\nclass {}:\n", record.name);
    out.push_str(&docstring(&record.doc, "    "));
    out.push('\n');
    out.push_str(&class_head(&record.name, &record.fields, true));
    out.push_str(&properties(&record.fields));
    let _ = writeln!(out, "    def to_dict(self) -> _{}Dict:", record.name);
    out.push_str(&docstring("The record as a dict, keys in the protocol's order.", "        "));
    out.push_str("    def __eq__(self, other: object, /) -> bool: ...\n");
    out
}

fn frame_class(frame: &FrameType) -> String {
    let mut out = format!("\n@final\nclass {}:\n", frame.name);
    out.push_str(&docstring(&frame.doc, "    "));
    out.push('\n');
    out.push_str(&class_head(&frame.name, &frame.fields, true));
    out.push_str(&properties(&frame.fields));
    let _ = writeln!(out, "    @property\n    def type(self) -> Literal[{:?}]:", frame.wire);
    out.push_str(&docstring("The wire `type`.", "        "));
    out.push_str("    @property\n    def raw(self) -> Optional[str]:\n");
    out.push_str(&docstring("The line this frame was read from (`None` for a frame built in Python).", "        "));
    out.push_str(LINE);
    out.push_str("    def to_json(self) -> str:\n");
    out.push_str(&docstring("The exact bytes the reference emitter writes for this frame (no newline).", "        "));
    let _ = writeln!(out, "    def to_dict(self) -> _{}Dict:", frame.name);
    out.push_str(&docstring("The frame as a dict, keys in the protocol's order.", "        "));
    out.push_str("    def __eq__(self, other: object, /) -> bool: ...\n");
    out
}

fn unknown_class(unknown: &Record) -> String {
    let mut out = format!("\n@final\nclass {}:\n", unknown.name);
    out.push_str(&docstring(&unknown_doc(unknown), "    "));
    out.push('\n');
    out.push_str(&class_head(&unknown.name, &unknown.fields, false));
    out.push_str(&properties(&unknown.fields));
    let _ = writeln!(out, "    @property\n    def type(self) -> Literal[{UNKNOWN_TYPE:?}]:");
    out.push_str(&docstring(
        &format!("`\"{UNKNOWN_TYPE}\"`: a frame type this version does not know (its wire type is `frame_type`)."),
        "        ",
    ));
    out.push_str(LINE);
    out.push_str("    def to_json(self) -> str:\n");
    out.push_str(&docstring("The line, verbatim (an unknown frame is written back unchanged).", "        "));
    out.push_str("    def to_dict(self) -> Dict[str, Any]:\n");
    out.push_str(&docstring("The line parsed as a dict.", "        "));
    out.push_str("    def __eq__(self, other: object, /) -> bool: ...\n");
    out
}

const LINE: &str = "    @property\n    def line(self) -> Optional[int]:\n        \
     \"\"\"The 1-based line number in its stream (`None` for `parse_line` or a built frame).\"\"\"\n";

/// `__match_args__`, `__hash__` and (when `constructor`) `__new__`, keyword-only.
fn class_head(class: &str, fields: &[Field], constructor: bool) -> String {
    let names: Vec<String> = fields.iter().map(|f| format!("Literal[{:?}]", f.name)).collect();
    let mut out = wrapped("    __match_args__: ClassVar[Tuple[", &names, "]]", "        ");
    out.push_str("    __hash__: ClassVar[None]  # type: ignore[assignment]\n");
    if constructor {
        let mut params = vec!["*".to_owned()];
        params.extend(fields.iter().map(|f| {
            let ty = param_type(&f.ty);
            if f.optional { format!("{}: Optional[{ty}] = None", f.name) } else { format!("{}: {ty}", f.name) }
        }));
        let mut items = vec!["cls".to_owned()];
        items.extend(params);
        out.push_str(&wrapped("    def __new__(", &items, &format!(") -> {class}: ..."), "        "));
    }
    out
}

/// `head` + `items` joined with `, ` + `tail` on one line when it fits in 100 columns, else
/// one item a line (indented by `indent`, each with its comma).
fn wrapped(head: &str, items: &[String], tail: &str, indent: &str) -> String {
    let one = format!("{head}{}{tail}\n", items.join(", "));
    if one.len() <= 101 {
        return one;
    }
    let outer = &indent[..indent.len() - 4];
    format!("{head}\n{}{outer}{tail}\n", lines(items, indent, ","))
}

fn properties(fields: &[Field]) -> String {
    let mut out = String::new();
    for field in fields {
        let ty = py_type(&field.ty);
        let ty = if field.optional { format!("Optional[{ty}]") } else { ty };
        let _ = writeln!(out, "    @property\n    def {}(self) -> {ty}:", field.name);
        let mut doc = field.doc.clone();
        if matches!(field.ty, Type::List(_)) {
            doc.push_str(" A new list on each access.");
        }
        out.push_str(&docstring(&doc, "        "));
    }
    out
}

/// A field's type as a property returns it.
fn py_type(ty: &Type) -> String {
    match ty {
        Type::String => "str".into(),
        Type::Int => "int".into(),
        Type::Float => "float".into(),
        Type::Bool => "bool".into(),
        Type::List(item) => format!("List[{}]", py_type(item)),
        Type::Record(name) => name.clone(),
    }
}

/// A field's type as a constructor takes it: a record may be a mapping, a list any iterable.
fn param_type(ty: &Type) -> String {
    match ty {
        Type::List(item) => format!("Iterable[{}]", param_type(item)),
        Type::Record(name) => format!("Union[{name}, Mapping[str, Any]]"),
        other => py_type(other),
    }
}

/// A field's type in `to_dict()`.
fn dict_type(ty: &Type) -> String {
    match ty {
        Type::List(item) => format!("List[{}]", dict_type(item)),
        Type::Record(name) => format!("_{name}Dict"),
        other => py_type(other),
    }
}

/// `doc` as a docstring indented by `indent` (`...` when there is none).
fn docstring(doc: &str, indent: &str) -> String {
    let doc = plain_links(doc);
    if doc.is_empty() {
        return format!("{indent}...\n");
    }
    let mut text = doc.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    if text.ends_with('"') {
        text.insert(text.len() - 1, '\\');
    }
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        match (i, line.is_empty()) {
            (0, _) => {
                let _ = write!(out, "{indent}\"\"\"{line}");
            }
            (_, true) => out.push('\n'),
            (_, false) => {
                let _ = write!(out, "\n{indent}{line}");
            }
        }
    }
    out.push_str("\"\"\"\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_docstring_escapes_backslashes_and_a_closing_quote() {
        assert_eq!(docstring("joined with `\"\\n\"`.", "    "), "    \"\"\"joined with `\"\\\\n\"`.\"\"\"\n");
        assert_eq!(docstring("ends in \"", ""), "\"\"\"ends in \\\"\"\"\"\n");
        assert_eq!(docstring("", "  "), "  ...\n");
    }

    #[test]
    fn every_frame_and_record_has_a_class_in_the_stubs_and_the_lists() {
        let model = Model::read().unwrap();
        let [rs, py, pyi] = [frame_model_rs(&model), frames_py(&model), frames_pyi(&model)];
        for frame in &model.frames {
            assert!(rs.contains(&format!("Py{} {:?} {:?}", frame.name, frame.name, frame.wire)));
            assert!(pyi.contains(&format!("class {}:", frame.name)));
            assert!(pyi.contains(&format!("def type(self) -> Literal[{:?}]", frame.wire)));
            assert!(py.contains(&format!("    {},\n", frame.name)));
        }
        for record in &model.records {
            assert!(pyi.contains(&format!("class {}:", record.name)));
        }
        assert!(pyi.contains("def type(self) -> Literal[\"unknown\"]"));
    }
}
