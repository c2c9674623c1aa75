//! Runs every conformance vector under `conformance/` (the format is in
//! `conformance/README.md`).
//!
//! One test per folder: each runs every case file of its folder, collects all failures
//! (case path and a diff) and fails at the end listing them. A folder without cases, a
//! stray file and an unknown `op` or `call` fail too, so the suite never passes vacuously.
//! `cargo test -p hep-core --test conformance -- --nocapture` prints the count per folder.

#[path = "conformance/mod.rs"]
mod support;

#[test]
fn encode() {
    support::run_group("encode");
}

#[test]
fn decode() {
    support::run_group("decode");
}

#[test]
fn reject() {
    support::run_group("reject");
}

#[test]
fn bounds() {
    support::run_group("bounds");
}

#[test]
fn writer() {
    support::run_group("writer");
}

#[test]
fn stream() {
    support::run_group("stream");
}

#[test]
fn hostile() {
    support::run_group("hostile");
}

#[test]
fn supervise() {
    support::run_group("supervise");
}

/// The hostile runner refuses a case it cannot check: an unknown form or outcome, a key of
/// another kind of case, a malformed `allowed`, or an outcome other than the chosen one.
#[test]
fn hostile_runner_refuses_what_it_cannot_check() {
    use serde_json::{Value, json};
    // (case, JSON pointer to an object, key, new value or None to remove it, complaint)
    let mutations: [(&str, &str, &str, Option<Value>, &str); 18] = [
        ("turn-id-2-pow-53", "", "form", Some(json!("table")), "unknown hostile case `form` `table`"),
        ("turn-id-2-pow-53", "", "outcome", Some(json!("maybe")), "unknown `outcome` `maybe`"),
        ("turn-id-2-pow-53", "/allowed/0", "outcome", Some(json!("ignore")), "unknown allowed `outcome` `ignore`"),
        ("turn-id-2-pow-53", "/allowed/1", "note", Some(json!("x")), "unknown key `note` in an allowed outcome"),
        ("turn-id-2-pow-53", "", "chosen", Some(json!(1)), "is allowed[0], not the chosen allowed[1]"),
        ("turn-id-2-pow-53", "", "chosen", Some(json!(5)), "`chosen` 5 is no index of `allowed`"),
        ("turn-id-2-pow-53", "", "allowed", Some(json!([])), "`allowed` lists no outcome"),
        ("turn-id-2-pow-53", "", "why", None, "needs a non-empty string `why`"),
        ("turn-id-2-pow-53", "/allowed", "0", None, "none of the allowed ones"),
        ("turn-id-fraction", "", "frame", Some(json!({})), "key `frame` does not belong"),
        ("turn-id-fraction", "", "input", Some(json!("x")), "key `input` does not belong"),
        ("turn-id-fraction", "", "topic", None, "missing field `topic`"),
        ("empty-line", "", "line", Some(json!("{}\n{}")), "cannot hold `\\n`"),
        ("empty-line", "", "line", Some(json!("{}\r")), "cannot end in `\\r`"),
        ("crlf-line-ends", "/expect", "violations", None, "must pin `violations`"),
        ("crlf-line-ends", "", "outcome", Some(json!("reject")), "must not conform"),
        ("crlf-line-ends", "", "error", Some(json!({"kind": "syntax"})), "key `error` does not belong"),
        ("bom-before-the-header", "/allowed/1", "exit_status", Some(json!(0)), "unknown `expect` key `exit_status`"),
    ];
    let mut problems = Vec::new();
    for (name, at, key, value, complaint) in mutations {
        let mutate = |case: &mut Value| match (case.pointer_mut(at), value) {
            (Some(Value::Object(o)), Some(v)) => drop(o.insert(key.to_owned(), v)),
            (Some(Value::Object(o)), None) => drop(o.remove(key)),
            (Some(Value::Array(a)), None) => drop(a.remove(key.parse().unwrap_or_default())),
            _ => {}
        };
        match support::run_mutated("hostile", name, mutate) {
            Ok(()) => problems.push(format!("{name}: the mutated case passes; expected {complaint:?}")),
            Err(e) if !e.contains(complaint) => problems.push(format!("{name}: expected {complaint:?}, got {e:?}")),
            Err(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn layout() {
    support::check_layout();
}
