//! Shared machinery of the conformance runner: finding and loading cases, the *text* and
//! *bytes* notations, canonical frames, and JSON / line comparison with readable diffs.

mod bounds;
mod hostile;
mod lines;
pub(crate) mod stream;
mod supervise;
mod writer;

use base64::Engine as _;
use hep_core::Frame;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A runner's verdict on one case: `Err` holds what differs.
pub(crate) type Res<T = ()> = Result<T, String>;

/// Checks one case.
type Runner = fn(&Value) -> Res;

/// The eight folders of `conformance/`, each with the runner of its cases.
const GROUPS: [(&str, Runner); 8] = [
    ("encode", lines::encode),
    ("decode", lines::decode),
    ("reject", lines::reject),
    ("bounds", bounds::run),
    ("writer", writer::run),
    ("stream", stream::run),
    ("hostile", hostile::run),
    ("supervise", supervise::run),
];

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

/// Runs every case of `conformance/<group>/`, then fails listing every failure.
pub(crate) fn run_group(group: &str) {
    let Some(run) = GROUPS.iter().find(|(name, _)| *name == group).map(|(_, run)| *run) else {
        unreachable!("no runner for group `{group}`");
    };
    let (files, mut failures) = case_files(&root().join(group));
    for path in &files {
        if let Err(e) = load(path).and_then(|case| run(&case)) {
            failures.push(format!("conformance/{}:\n    {}", relative(path), e.replace('\n', "\n    ")));
        }
    }
    if files.is_empty() {
        failures.push(format!("conformance/{group}/ holds no case: an empty folder proves nothing"));
    }
    println!("conformance/{group}: {} cases run, {} failed", files.len(), failures.len());
    assert!(
        failures.is_empty(),
        "conformance/{group}: {} failure(s) in {} cases\n\n{}\n",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// Runs the case `conformance/<group>/<name>.json` after `mutate` has changed it (to check
/// that a runner refuses what it cannot check).
pub(crate) fn run_mutated(group: &str, name: &str, mutate: impl FnOnce(&mut Value)) -> Res {
    let Some(run) = GROUPS.iter().find(|(g, _)| *g == group).map(|(_, run)| *run) else {
        return Err(format!("no runner for group `{group}`"));
    };
    let mut case = load(&root().join(group).join(format!("{name}.json")))?;
    mutate(&mut case);
    run(&case)
}

/// `conformance/` holds the README and the eight folders, nothing else.
pub(crate) fn check_layout() {
    let mut problems = Vec::new();
    match std::fs::read_dir(root()) {
        Err(e) => problems.push(format!("cannot read conformance/: {e}")),
        Ok(entries) => {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let is_dir = entry.path().is_dir();
                let known = if is_dir { GROUPS.iter().any(|(g, _)| *g == name) } else { name == "README.md" };
                if !known {
                    problems.push(format!("conformance/{name}: unknown group or stray file (no runner reads it)"));
                }
            }
        }
    }
    for (group, _) in GROUPS {
        if !root().join(group).is_dir() {
            problems.push(format!("conformance/{group}/ is missing"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every `*.json` file under `dir`, sorted, and a problem for each file that is neither
/// a case nor a `*.md` note (a case with a mistyped extension would never run).
pub(crate) fn case_files(dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                problems.push(format!("cannot read {}: {e}", dir.display()));
                continue;
            }
        };
        for path in entries.flatten().map(|entry| entry.path()) {
            match path.extension().and_then(|e| e.to_str()) {
                _ if path.is_dir() => pending.push(path),
                Some("json") => found.push(path),
                Some("md") => {}
                _ => problems.push(format!("conformance/{}: not a .json case, so it never runs", relative(&path))),
            }
        }
    }
    found.sort();
    (found, problems)
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

/// Reads one case: a JSON object with a non-empty `description`.
pub(crate) fn load(path: &Path) -> Res<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let case: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    match case.get("description") {
        _ if !case.is_object() => Err("a case must be a JSON object".into()),
        Some(Value::String(d)) if !d.trim().is_empty() => Ok(case),
        _ => Err("a case needs a non-empty string `description`".into()),
    }
}

// ---- fields and notations ----

pub(crate) fn get<'a>(v: &'a Value, key: &str) -> Res<&'a Value> {
    v.get(key).ok_or_else(|| format!("missing field `{key}`"))
}

pub(crate) fn get_str<'a>(v: &'a Value, key: &str) -> Res<&'a str> {
    get(v, key)?.as_str().ok_or_else(|| format!("field `{key}` must be a string"))
}

pub(crate) fn get_u64(v: &Value, key: &str) -> Res<u64> {
    get(v, key)?.as_u64().ok_or_else(|| format!("field `{key}` must be a non-negative integer"))
}

pub(crate) fn get_bool(v: &Value, key: &str) -> Res<bool> {
    get(v, key)?.as_bool().ok_or_else(|| format!("field `{key}` must be a boolean"))
}

pub(crate) fn get_array<'a>(v: &'a Value, key: &str) -> Res<&'a [Value]> {
    get(v, key)?.as_array().map(Vec::as_slice).ok_or_else(|| format!("field `{key}` must be an array"))
}

/// The *text* notation: a string, `{"repeat": S, "count": N}`, or an array of texts.
pub(crate) fn text(v: &Value) -> Res<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Array(parts) => parts.iter().map(text).collect(),
        Value::Object(o) if o.len() == 2 => {
            let unit = text(o.get("repeat").ok_or("a text object needs `repeat`")?)?;
            let count = o.get("count").and_then(Value::as_u64).ok_or("a text object needs an integer `count`")?;
            Ok(unit.repeat(usize::try_from(count).map_err(|e| e.to_string())?))
        }
        other => Err(format!("not a text: {}", show(other))),
    }
}

pub(crate) fn get_text(v: &Value, key: &str) -> Res<String> {
    text(get(v, key)?).map_err(|e| format!("field `{key}`: {e}"))
}

/// The *bytes* notation: `key` (a text, as UTF-8) or `key_base64`, exactly one of them.
pub(crate) fn get_bytes(v: &Value, key: &str) -> Res<Vec<u8>> {
    let b64 = format!("{key}_base64");
    match (v.get(key), v.get(&b64)) {
        (Some(t), None) => Ok(text(t).map_err(|e| format!("field `{key}`: {e}"))?.into_bytes()),
        (None, Some(Value::String(s))) => base64::engine::general_purpose::STANDARD
            .decode(s)
            .map_err(|e| format!("field `{b64}` is not standard base64: {e}")),
        (None, Some(_)) => Err(format!("field `{b64}` must be a string")),
        (None, None) => Err(format!("missing field `{key}` (or `{b64}`)")),
        (Some(_), Some(_)) => Err(format!("give `{key}` or `{b64}`, not both")),
    }
}

// ---- frames ----

pub(crate) fn encode_frame(frame: &Frame) -> Res<String> {
    hep_core::encode(frame).map_err(|e| format!("the library cannot encode {frame:?}: {e}"))
}

/// The canonical form of a frame: the JSON object of the library's own encoding.
pub(crate) fn canonical(frame: &Frame) -> Res<Value> {
    let line = encode_frame(frame)?;
    serde_json::from_str(&line).map_err(|e| format!("the encoding `{line}` is not JSON: {e}"))
}

// ---- comparison ----

/// Compares `got` with `expected` as JSON (numbers by value, `0` equals `0.0`; key order
/// ignored), describing the first difference and both values.
pub(crate) fn same_json(what: &str, expected: &Value, got: &Value) -> Res {
    match first_difference("$", expected, got) {
        None => Ok(()),
        Some(d) if !expected.is_object() && !expected.is_array() => {
            Err(format!("{what}: {}", d.trim_start_matches("$: ")))
        }
        Some(d) => Err(format!("{what} differs at {d}\n  expected: {}\n  got:      {}", show(expected), show(got))),
    }
}

fn first_difference(path: &str, expected: &Value, got: &Value) -> Option<String> {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (key, ev) in e {
                let at = format!("{path}.{key}");
                match g.get(key) {
                    None => return Some(format!("{at}: expected {}, got nothing", show(ev))),
                    Some(gv) => {
                        if let Some(d) = first_difference(&at, ev, gv) {
                            return Some(d);
                        }
                    }
                }
            }
            let extra = g.iter().find(|(key, _)| !e.contains_key(*key));
            extra.map(|(key, gv)| format!("{path}.{key}: expected nothing, got {}", show(gv)))
        }
        (Value::Array(e), Value::Array(g)) => {
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), ev, gv) {
                    return Some(d);
                }
            }
            (e.len() != g.len()).then(|| format!("{path}: expected {} items, got {}", e.len(), g.len()))
        }
        (Value::Number(e), Value::Number(g)) => {
            let equal = match (e.as_i64(), g.as_i64(), e.as_u64(), g.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => e.as_f64() == g.as_f64(),
            };
            (!equal).then(|| format!("{path}: expected {e}, got {g}"))
        }
        _ if expected == got => None,
        _ => Some(format!("{path}: expected {}, got {}", show(expected), show(got))),
    }
}

/// Compares two lines byte for byte, showing where they part.
pub(crate) fn same_text(what: &str, expected: &str, got: &str) -> Res {
    if expected == got {
        return Ok(());
    }
    let mut at = expected.bytes().zip(got.bytes()).take_while(|(a, b)| a == b).count();
    while !expected.is_char_boundary(at) || !got.is_char_boundary(at) {
        at -= 1;
    }
    Err(format!(
        "{what} differs at byte {at} (of {} expected, {} got)\n  expected: {}\n  got:      {}",
        expected.len(),
        got.len(),
        excerpt(expected, at),
        excerpt(got, at)
    ))
}

/// `s` as a JSON string literal, shortened around byte `at` when long.
fn excerpt(s: &str, at: usize) -> String {
    const BEFORE: usize = 60;
    const AFTER: usize = 140;
    let mut start = at.saturating_sub(BEFORE);
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + AFTER).min(s.len());
    while !s.is_char_boundary(end) {
        end += 1;
    }
    let body = Value::from(s.get(start..end).unwrap_or_default()).to_string();
    let head = if start > 0 { format!("…{start} bytes… ") } else { String::new() };
    let tail = if end < s.len() { format!(" …{} more bytes…", s.len() - end) } else { String::new() };
    format!("{head}{body}{tail}")
}

/// Compact JSON of `v`, shortened when long.
pub(crate) fn show(v: &Value) -> String {
    const MAX: usize = 400;
    let text = v.to_string();
    if text.len() <= MAX {
        return text;
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …({} more bytes)", text.get(..end).unwrap_or_default(), text.len() - end)
}
