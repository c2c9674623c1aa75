//! Terminal safety: everything `hep` prints that a stream (or a child's stderr, or a file
//! name) can put text into comes out with no control character, escape sequence or bidi
//! control left raw, and with that text still visible as escapes. The hostile child is
//! `examples/hostile/emit.sh`, the one the example supervisors are tested with: every text
//! field of its stream, a prose line and its stderr carry CSI and OSC sequences (clear
//! screen, window title, OSC 52 clipboard), C1 controls, BEL, backspace, CR, DEL, NUL and
//! bidi overrides and isolates.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{Finished, hep, run, run_hep, scratch};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The payload, as the views show it (`hep_core::sanitize::sanitize`).
const SHOWN: &str = r"\x1b[2J\x1b]0;title\x07\x1b]52;c;aGk=\x07\x9b31m\x9d0;t\x07\x08\x0d\x7f\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\x00|";
/// The payload as violation messages quote it (debug escapes, already safe).
const QUOTED: &str = r"\u{1b}[2J\u{1b}]0;title\u{7}\u{1b}]52;c;aGk=\u{7}\u{9b}31m\u{9d}0;t\u{7}\u{8}\r\u{7f}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\0|";
/// The payload's characters themselves.
const RAW: &str = "\u{1b}[2J\u{1b}]0;title\u{7}\u{1b}]52;c;aGk=\u{7}\u{9b}31m\u{9d}0;t\u{7}\u{8}\r\u{7f}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\u{0}|";

/// The fields `hep cat` and `hep watch` show, each tagged in the stream with this prefix.
const SHOWN_FIELDS: [&str; 16] = [
    "v1.HEP:",
    "FAH:",
    "SESSION:",
    "DELTA:",
    "NAME:",
    "ARGS:",
    "TOOLOUT:",
    "LIVENAME:",
    "DETAIL:",
    "ACTION:",
    "x_TYPE:",
    "ERROR:",
    "RESULTNAME:",
    "RESULT:",
    "STOP:",
    "ANSWER:",
];
/// The fields only violation messages quote: a tool call id, a liveness action, a role.
const QUOTED_FIELDS: [&str; 3] = ["ID:", "ACTION:", "ROLE:"];
/// The delta whose JSON string holds DEL, C1 and bidi characters raw.
const RAW_DELTA: &str = r"RAW:\x7f\x9b\x9d\u{202e}\u{2066}\u{2069}|";
/// The start of the prose line, as the skipped-line message quotes it.
const PROSE: &str = r"PROSE:\u{202e}\x9b\x7f\x1b[2J\x0d\x08\x07|";
/// The child's stderr line (its lone byte 0x9b, not UTF-8, read as U+FFFD).
const STDERR: &str = r"STDERR:\x1b[2J\x1b]0;title\x07\x1b]52;c;aGk=\x07\x9b\x9d\x08\x0d\x7f\u{202e}\u{2066}\x00�|";

/// The renderer's own SGR codes: with colours on, the only escape sequences allowed.
const OWN_SGR: [&str; 7] = ["\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m"];

fn emitter() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/hostile/emit.sh")
}

/// The hostile stream (the emitter's stdout).
fn hostile_stream() -> Vec<u8> {
    let out = run(
        {
            let mut command = Command::new("sh");
            command.arg(emitter());
            command
        },
        b"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

/// `hep <args> -- sh examples/hostile/emit.sh`.
fn hep_on_emitter(args: &[&str]) -> Finished {
    let mut command = hep(args);
    command.arg("--").arg("sh").arg(emitter());
    run(command, b"")
}

/// A character that could drive a terminal or reorder what it shows.
fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `out` is UTF-8 (so no lone 8-bit C1 byte) with no raw byte 0x00-0x08, 0x0b-0x1f or
/// 0x7f, no C1 control and no bidi control; returns it as text.
fn assert_safe(label: &str, out: &[u8]) -> String {
    let text = std::str::from_utf8(out).unwrap_or_else(|e| panic!("{label}: not UTF-8 ({e})"));
    if let Some(at) = out.iter().position(|&b| b < 0x20 && b != b'\n' && b != b'\t' || b == 0x7f) {
        panic!("{label}: raw byte {:#04x} at {at}, in {:?}", out[at], around(out, at));
    }
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| is_unsafe(c)) {
        panic!("{label}: raw {c:?} at {at}, in {:?}", around(out, at));
    }
    text.to_owned()
}

/// The 40 bytes of `out` on either side of `at`, for a failure message.
fn around(out: &[u8], at: usize) -> String {
    String::from_utf8_lossy(&out[at.saturating_sub(40)..out.len().min(at + 40)]).into_owned()
}

/// `out` with the renderer's own SGR codes taken out (there must be some).
fn without_own_sgr(label: &str, out: &[u8]) -> Vec<u8> {
    let mut text = String::from_utf8_lossy(out).into_owned();
    assert!(text.contains('\x1b'), "{label}: colours are on, so there are SGR codes");
    for code in OWN_SGR {
        text = text.replace(code, "");
    }
    text.into_bytes()
}

fn assert_shows(label: &str, text: &str, wanted: &str) {
    assert!(text.contains(wanted), "{label}: `{wanted}` is not shown in:\n{text}");
}

/// Every rendered field, the raw delta and the prose line are shown as escapes.
fn assert_every_field_shown(label: &str, text: &str) {
    for field in SHOWN_FIELDS {
        assert_shows(label, text, &format!("{field}{SHOWN}"));
    }
    for field in QUOTED_FIELDS {
        assert_shows(label, text, &format!("{field}{QUOTED}"));
    }
    assert_shows(label, text, RAW_DELTA);
    assert_shows(label, text, PROSE);
}

#[test]
fn cat_shows_every_hostile_field_as_escapes() {
    let out = run_hep(&["cat"], &hostile_stream());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = assert_safe("cat", &out.stdout);
    assert_every_field_shown("cat", &text);
    assert_shows("cat", &text, &format!("answer      ANSWER:{SHOWN}"));
}

#[test]
fn cat_with_colours_adds_only_its_own_sgr_codes() {
    let out = run_hep(&["--color", "always", "cat"], &hostile_stream());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = assert_safe("cat --color always", &without_own_sgr("cat --color always", &out.stdout));
    assert_every_field_shown("cat --color always", &text);
}

#[test]
fn watch_shows_every_hostile_field_and_the_stderr_as_escapes() {
    for color in ["never", "always"] {
        let label = format!("watch --color {color}");
        let out = hep_on_emitter(&["--color", color, "watch"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let stdout = if color == "always" { without_own_sgr(&label, &out.stdout) } else { out.stdout.clone() };
        let text = assert_safe(&label, &stdout);
        assert_every_field_shown(&label, &text);
        assert_shows(&label, &text, &format!("stderr (tail)\n  {STDERR}"));
        assert_safe(&format!("{label} (its own stderr)"), out.stderr.as_bytes());
    }
}

#[test]
fn watch_json_escapes_what_json_allows_raw_and_keeps_the_values() {
    let out = hep_on_emitter(&["watch", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_safe("watch --json", &out.stdout);
    let json = out.json();
    assert_eq!(json["run"]["answer"], format!("ANSWER:{RAW}"));
    assert_eq!(json["run"]["header"]["fah"], format!("FAH:{RAW}"));
    let tail = json["stderr_tail"].as_str().unwrap();
    assert!(tail.starts_with("STDERR:\u{1b}[2J\u{1b}]0;title\u{7}"), "{tail:?}");
    assert!(tail.contains("\u{9b}\u{9d}\u{8}\r\u{7f}\u{202e}\u{2066}\u{0}\u{fffd}|"), "{tail:?}");
}

#[test]
fn watch_jsonl_escapes_what_json_allows_raw_and_keeps_the_values() {
    let out = hep_on_emitter(&["watch", "--format", "jsonl"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = assert_safe("watch --format jsonl", &out.stdout);
    let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let header = records.iter().find(|r| r["event"] == "frame").unwrap();
    assert_eq!(header["frame"]["fah"], format!("FAH:{RAW}"));
    let stderr = records.iter().find(|r| r["event"] == "stderr").unwrap();
    assert!(stderr["text"].as_str().unwrap().starts_with("STDERR:\u{1b}[2J\u{1b}]0;title\u{7}"), "{stderr}");
    let result = &records.last().unwrap()["result"];
    assert_eq!(result["run"]["answer"], format!("ANSWER:{RAW}"));
}

#[test]
fn check_reports_every_quoted_field_escaped() {
    let out = hep_on_emitter(&["check"]);
    assert_eq!(out.code, 1, "the run does not conform: {}", out.stderr);
    let text = assert_safe("check", &out.stdout);
    for field in QUOTED_FIELDS {
        assert_shows("check", &text, &format!("{field}{QUOTED}"));
    }
    assert_shows(
        "check",
        &text,
        &format!("skipped line 17, column 1: syntax: expected a JSON value, found `P` (near `{PROSE}`)"),
    );
    assert_shows(
        "check",
        &text,
        &format!(
            "verdict protocol_error (skipped line 17, column 1: syntax: expected a JSON value, found `P` (near `{PROSE}`))"
        ),
    );
}

/// A stream whose first frame has a hostile unknown type: the `missing_header` message
/// quotes it as it is, so the JSON reports carry DEL, C1 and bidi characters in a string.
const FIRST_TYPE: &str = r#"{"type":"x_FIRST:\u001b[2J\u009b\u202e\u2066\u007f","turn_id":1}"#;

/// The `missing_header` message of [`FIRST_TYPE`] in `report`, checked and returned.
fn missing_header_message(label: &str, report: &Value) -> String {
    let message = report["violations"][0]["message"].as_str().unwrap_or_else(|| panic!("{label}: {report}"));
    assert_eq!(
        message, "the first frame is `x_FIRST:\u{1b}[2J\u{9b}\u{202e}\u{2066}\u{7f}`, not hep_header",
        "{label}"
    );
    message.to_owned()
}

#[test]
fn validate_and_check_json_reports_escape_raw_controls_and_keep_the_values() {
    let out = run_hep(&["validate", "--format", "json"], format!("{FIRST_TYPE}\n").as_bytes());
    assert_eq!(out.code, 1, "{}", out.stderr);
    let text = assert_safe("validate --format json", &out.stdout);
    assert!(text.contains(r"x_FIRST:\u001b[2J\u009b\u202e\u2066\u007f"), "{text}");
    missing_header_message("validate --format json", &out.json());

    let mut command = hep(["check", "--format", "json", "--", "printf", "%s\\n"]);
    command.arg(FIRST_TYPE);
    let out = run(command, b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_safe("check --format json", &out.stdout);
    missing_header_message("check --format json", &out.json());
}

#[test]
fn validate_text_shows_the_quoted_type_as_escapes() {
    let out = run_hep(&["validate"], format!("{FIRST_TYPE}\n").as_bytes());
    assert_eq!(out.code, 1, "{}", out.stderr);
    let text = assert_safe("validate", &out.stdout);
    assert_shows("validate", &text, r"the first frame is `x_FIRST:\x1b[2J\x9b\u{202e}\u{2066}\x7f`, not hep_header");
}

#[test]
fn file_names_and_encode_errors_are_shown_as_escapes() {
    let dir = scratch("terminal");
    let path = dir.join("evil\u{1b}]0;title\u{7}\u{202e}.jsonl");
    for command in ["cat", "validate"] {
        let mut hep_command = hep([command]);
        hep_command.arg(&path);
        let out = run(hep_command, b"");
        assert_eq!(out.code, 2, "{command}: a missing file is a usage error");
        let err = assert_safe(&format!("{command} (stderr)"), out.stderr.as_bytes());
        assert_shows(command, &err, r"evil\x1b]0;title\x07\u{202e}.jsonl");
    }
    let out = run_hep(&["encode"], "prose \u{1b}[2J\u{9b}\u{202e}\n".as_bytes());
    assert_eq!(out.code, 1, "{}", out.stderr);
    let err = assert_safe("encode (stderr)", out.stderr.as_bytes());
    assert_shows("encode", &err, r"prose \x1b[2J\x9b\u{202e}");
}

/// A newline in a delta can start a line that reads like the view's own (here a whole
/// fake summary), but it cannot come last: the real summary is printed only after the
/// child exited and its stdout ended. docs/cli.md, "Terminal safety", says why this is
/// accepted.
#[test]
fn a_summary_forged_in_a_delta_is_followed_by_the_real_one() {
    let forged = r"\n── summary ──\nverdict     ok — all good\nexit code   0\n";
    let script = format!(
        "{}; exit 1",
        common::sh_print_lines(&[
            common::HEADER,
            common::AGENT_START,
            common::MESSAGE_START,
            &common::delta_line(forged),
            r#"{"type":"turn_error","turn_id":1,"error":"boom","fatal":true}"#,
        ])
    );
    let mut command = hep(["watch", "--"]);
    command.args(["sh", "-c", &script]);
    let out = run(command, b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let lines = out.lines();
    let verdicts: Vec<_> = lines.iter().filter(|l| l.starts_with("verdict ")).collect();
    assert_eq!(verdicts.len(), 2, "{lines:#?}");
    assert!(verdicts[1].starts_with("verdict     failed"), "{lines:#?}");
    let summaries: Vec<_> = lines.iter().enumerate().filter(|(_, l)| *l == "── summary ──").map(|(i, _)| i).collect();
    assert_eq!(summaries.len(), 2, "{lines:#?}");
    assert!(lines[summaries[1]..].iter().any(|l| l == "exit code   1"), "{lines:#?}");
}
