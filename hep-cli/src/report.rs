//! The findings of `validate` and `check`: violations and skipped lines as they are found,
//! the closing verdict, and the JSON report. Stream text is sanitised before it is printed.

use crate::say;
use crate::style::Style;
use hep_core::sanitize::{sanitize, sanitize_json};
use hep_core::{Error, Event, RunResult, Severity, Violation};
use serde_json::{Value, json};

/// Prints a violation, skipped line or halt the moment it is found (frames print nothing).
pub(crate) fn finding(event: &Event, style: Style) {
    let text = match event {
        Event::Frame(_) => return,
        Event::Violation(v) => {
            let text = format!("line {}: {} {}: {}", v.line, v.severity.as_str(), v.code, sanitize(&v.message));
            if v.severity == Severity::Error { style.red(&text) } else { style.yellow(&text) }
        }
        Event::Skipped(e) => style.red(&format!("skipped {}", sanitize(&e.to_string()))),
        Event::Halted(e) => style.red(&format!("stopped: {}", sanitize(&e.to_string()))),
    };
    say(text);
}

/// `n word` or `n words`.
pub(crate) fn count(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// Where a violation was found: `line N`, or `end of stream` for the findings made when
/// the stream ended (line 0).
pub(crate) fn place(v: &Violation) -> String {
    if v.line == 0 { "end of stream".to_owned() } else { format!("line {}", v.line) }
}

/// The violations counted by severity: `no violations`, `2 violations (0 errors, 2
/// warnings)`; when more were found than kept, the split is of the kept ones.
pub(crate) fn tally(result: &RunResult) -> String {
    match result.violation_count {
        0 => "no violations".to_owned(),
        n => format!("{} ({})", count(n, "violation"), severities(result)),
    }
}

/// The kept violations by severity: `0 errors, 2 warnings`, or `of the first 1000: …` when
/// more were found than kept.
pub(crate) fn severities(result: &RunResult) -> String {
    let kept = result.violations.len() as u64;
    let errors = result.violations.iter().filter(|v| v.severity == Severity::Error).count() as u64;
    let split = format!("{}, {}", count(errors, "error"), count(kept - errors, "warning"));
    if kept == result.violation_count { split } else { format!("of the first {kept}: {split}") }
}

/// Prints the end-of-stream violations and the verdict line.
pub(crate) fn verdict(result: &RunResult, style: Style) {
    for v in result.violations.iter().filter(|v| v.line == 0) {
        let text = format!("{}: {} {}: {}", place(v), v.severity.as_str(), v.code, sanitize(&v.message));
        say(if v.severity == Severity::Error { style.red(&text) } else { style.yellow(&text) });
    }
    let conforms = if result.conforms { style.green("conforms") } else { style.red("does not conform") };
    say(format!(
        "{}, {}, {}: {conforms}; verdict {} ({})",
        count(result.run.frames, "frame"),
        tally(result),
        count(result.skipped_count, "skipped line"),
        style.bold(result.verdict.as_str()),
        sanitize(&result.reasons.join("; "))
    ));
}

/// A violation as the JSON reports show it: `{"code", "severity", "line", "turn_id", "message"}`.
pub(crate) fn violation_json(v: &Violation) -> Value {
    json!({"code": v.code.as_str(), "severity": v.severity.as_str(), "line": v.line, "turn_id": v.turn_id, "message": v.message})
}

/// A skipped line (or a halt) as the JSON reports show it: `{"line", "kind", "reason"}`.
pub(crate) fn skipped_json(e: &Error) -> Value {
    json!({"line": e.line(), "kind": e.kind().as_str(), "reason": e.message()})
}

/// The JSON report of `validate` and `check`: `{"verdict", "conforms", "frames",
/// "exit_code", "violations", "skipped"}`.
pub(crate) fn json(result: &RunResult) -> Value {
    json!({
        "verdict": result.verdict.as_str(),
        "conforms": result.conforms,
        "frames": result.run.frames,
        "exit_code": result.exit_code,
        "violations": result.violations.iter().map(violation_json).collect::<Vec<_>>(),
        "skipped": result.skipped.iter().map(skipped_json).collect::<Vec<_>>(),
    })
}

/// Prints `value` as pretty JSON with the terminal-driving characters of its strings
/// written as `\u` escapes (the same value, safe on a terminal).
pub(crate) fn print_json(value: &Value) {
    say(sanitize_json(&serde_json::to_string_pretty(value).unwrap_or_default()));
}
