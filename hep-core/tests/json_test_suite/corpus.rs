//! The vendored JSONTestSuite corpus (`tests/data/JSONTestSuite/test_parsing/`) and the
//! ways a document becomes a HEP line.

use super::checks::Res;
use std::path::PathBuf;

/// How many documents the vendored corpus holds.
pub(crate) const DOCUMENTS: usize = 318;

/// What JSONTestSuite says a parser must answer, by the document's name prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// `y_`: valid JSON, must be accepted.
    Accept,
    /// `n_`: invalid JSON, must be rejected.
    Reject,
    /// `i_`: implementation-defined: either answer, never a crash or a hang.
    Either,
}

/// One document of the corpus.
pub(crate) struct Doc {
    /// The file name without `.json`.
    pub(crate) name: String,
    /// What the document's prefix asks for.
    pub(crate) class: Class,
    /// The file's bytes.
    pub(crate) bytes: Vec<u8>,
}

/// The part of an unknown frame's line before the document.
pub(crate) const FRAME_HEAD: &[u8] = br#"{"type":"x_case","v":"#;

/// The part of a `message_delta` line before the string, in the writer's exact shape (the
/// one-pass decoder reads it).
pub(crate) const DELTA_HEAD: &[u8] = br#"{"type":"message_delta","turn_id":1,"delta":"#;

/// The same head with the keys in another order, which only the general decoder reads
/// (the same length, so an error in the string is at the same column).
pub(crate) const GENERAL_DELTA_HEAD: &[u8] = br#"{"turn_id":1,"type":"message_delta","delta":"#;

/// The folder of the corpus.
fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/JSONTestSuite/test_parsing")
}

/// Every document, sorted by name; an error for a file that is not `[yni]_*.json`, or when
/// the corpus does not hold [`DOCUMENTS`] documents.
pub(crate) fn load() -> Res<Vec<Doc>> {
    let entries = std::fs::read_dir(dir()).map_err(|e| format!("cannot read {}: {e}", dir().display()))?;
    let mut docs = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", dir().display()))?.path();
        let file = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let name = file.strip_suffix(".json").ok_or_else(|| format!("{file}: not a .json document"))?;
        let class = match name.get(..2) {
            Some("y_") => Class::Accept,
            Some("n_") => Class::Reject,
            Some("i_") => Class::Either,
            _ => return Err(format!("{file}: the name starts with none of y_, n_, i_")),
        };
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {file}: {e}"))?;
        docs.push(Doc { name: name.to_owned(), class, bytes });
    }
    docs.sort_by(|a, b| a.name.cmp(&b.name));
    match docs.len() {
        DOCUMENTS => Ok(docs),
        n => Err(format!("the vendored corpus holds {n} documents, not {DOCUMENTS}")),
    }
}

/// The documents of one class.
pub(crate) fn of(class: Class) -> Res<Vec<Doc>> {
    Ok(load()?.into_iter().filter(|doc| doc.class == class).collect())
}

/// True when the document holds a raw `\n` or `\r` byte.
pub(crate) fn has_line_end(doc: &[u8]) -> bool {
    doc.iter().any(|b| matches!(b, b'\n' | b'\r'))
}

/// `head` + the document with each raw `\n` and `\r` replaced by a space + `}`: one line.
pub(crate) fn wrap(head: &[u8], doc: &[u8]) -> Vec<u8> {
    let mut line = head.to_vec();
    line.extend(doc.iter().map(|&b| if matches!(b, b'\n' | b'\r') { b' ' } else { b }));
    line.push(b'}');
    line
}

/// The string of a document that is an array of exactly one string (`["..."]`, JSON
/// whitespace around it allowed), quotes included; `None` for any other document.
///
/// The string is found by its bytes, not parsed: an `n_` document's string may be malformed.
pub(crate) fn lone_string(doc: &[u8]) -> Option<&[u8]> {
    let inner = trim_json_space(trim_json_space(doc).strip_prefix(b"[")?.strip_suffix(b"]")?);
    let string = inner.strip_prefix(b"\"")?.strip_suffix(b"\"").map(|_| inner)?;
    let mut content = string.get(1..string.len() - 1)?.iter();
    while let Some(b) = content.next() {
        match b {
            b'\\' => {
                content.next();
            }
            b'"' => return None,
            _ => {}
        }
    }
    Some(string)
}

/// `bytes` without the JSON whitespace (space, tab, `\n`, `\r`) at either end.
fn trim_json_space(mut bytes: &[u8]) -> &[u8] {
    while let [b' ' | b'\t' | b'\n' | b'\r', rest @ ..] = bytes {
        bytes = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\n' | b'\r'] = bytes {
        bytes = rest;
    }
    bytes
}

/// Does serde_json, the oracle, accept `line` as JSON?
pub(crate) fn serde_accepts(line: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(line).is_ok()
}
