//! `--format jsonl`: one JSON object per line, printed the moment its subject happens, so
//! a program in any language can supervise through `hep` (docs/cli.md lists the records).
//! Every record has `"event"`: `frame`, `violation`, `skipped`, `halted`, `stderr`,
//! `signal`, and last `result`.

use crate::report;
use hep_core::Event;
use hep_core::sanitize::sanitize_json;
#[cfg(unix)]
use hep_core::supervise::SignalStep;
#[cfg(unix)]
use hep_process::Update;
use serde_json::{Value, json};

/// Prints one record (terminal-driving characters in its strings as `\u` escapes).
fn print(record: &str) {
    crate::say(sanitize_json(record));
}

/// Prints the record of an event of the stream.
pub(crate) fn event(event: &Event) {
    let record = match event {
        Event::Frame(received) => {
            // The line exactly as the child wrote it, when it is plain JSON for any parser
            // (the core's reader accepts what the reference writes; this checks again).
            if serde_json::from_str::<serde::de::IgnoredAny>(&received.raw).is_ok() {
                print(&format!(r#"{{"event":"frame","line":{},"frame":{}}}"#, received.line, received.raw));
                return;
            }
            json!({"event": "frame", "line": received.line, "frame": null, "raw": received.raw})
        }
        Event::Violation(v) => with_event("violation", report::violation_json(v)),
        Event::Skipped(e) => with_event("skipped", report::skipped_json(e)),
        Event::Halted(e) => with_event("halted", report::skipped_json(e)),
    };
    print(&record.to_string());
}

/// Prints the record of a supervision update.
#[cfg(unix)]
pub(crate) fn update(update: &Update) {
    match update {
        Update::Event(e) => event(e),
        Update::Stderr(line) => print(&json!({"event": "stderr", "text": line}).to_string()),
        Update::Signal(step) => print(&signal(step).to_string()),
        _ => {}
    }
}

/// The record of a cancel step: the signal sent, why, and what follows unless the child exits.
#[cfg(unix)]
fn signal(step: &SignalStep) -> Value {
    let next = step.next.map(|(signal, after)| json!({"signal": signal.name(), "after_ms": after.as_millis()}));
    json!({"event": "signal", "signal": step.signal.name(), "reason": step.reason.as_str(), "next": next})
}

/// Prints the last record: `result`, what `--format json` prints.
pub(crate) fn result(result: Value) {
    print(&json!({"event": "result", "result": result}).to_string());
}

/// `object` with `"event": kind` first.
fn with_event(kind: &str, object: Value) -> Value {
    let mut record = json!({"event": kind});
    if let (Some(record), Value::Object(fields)) = (record.as_object_mut(), object) {
        record.extend(fields);
    }
    record
}
