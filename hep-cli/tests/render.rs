//! The human views (`hep cat`, `hep watch`) never pass terminal-driving bytes from the
//! stream through: ESC, BEL and bidi overrides show as visible escapes, and with colours
//! on, the only escape sequences are the renderer's own SGR codes.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{AGENT_START, HEADER, MESSAGE_START, delta_line, hep, run, run_hep, scratch};

/// A delta with a colour escape, a bell and a right-to-left override, as JSON escapes.
const HOSTILE: &str = r"plain \u001b[31mred\u0007 bell \u202eevil\u001b]0;title\u0007 end";

/// A stream carrying the hostile text in a delta, a tool call, its result and the answer.
fn stream() -> String {
    let lines = [
        HEADER.to_owned(),
        AGENT_START.to_owned(),
        MESSAGE_START.to_owned(),
        delta_line(HOSTILE),
        format!(r#"{{"type":"tool_start","turn_id":1,"id":"c1","name":"sh\u001b[2J","args_summary":"{HOSTILE}"}}"#),
        format!(r#"{{"type":"tool_delta","turn_id":1,"id":"c1","update":"{HOSTILE}\n"}}"#),
        format!(
            r#"{{"type":"turn_done","turn_id":1,"message":"{HOSTILE}","tool_results":[{{"id":"c1","name":"sh","ok":false,"text":"{HOSTILE}"}}],"usage":{{"input":1,"output":1,"cost":0.5}},"stop_reason":"stop"}}"#
        ),
    ];
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const RLO: &[u8] = "\u{202e}".as_bytes();

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// No raw ESC, BEL or U+202E, and the visible escapes are there.
fn assert_neutralised(label: &str, out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    assert!(!out.contains(&ESC), "{label}: raw ESC in the output:\n{text}");
    assert!(!out.contains(&BEL), "{label}: raw BEL in the output:\n{text}");
    assert!(!contains(out, RLO), "{label}: raw U+202E in the output:\n{text}");
    assert_visible(label, &text);
}

fn assert_visible(label: &str, text: &str) {
    for visible in [r"plain \x1b[31mred\x07 bell \u{202e}evil\x1b]0;title\x07 end", r"sh\x1b[2J"] {
        assert!(text.contains(visible), "{label}: `{visible}` is not shown:\n{text}");
    }
}

/// With colours: every ESC starts one of the renderer's own SGR sequences, and nothing
/// of the stream's own sequences survives.
fn assert_only_own_sgr(label: &str, out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    assert!(out.contains(&ESC), "{label}: colours are on, so there are SGR sequences:\n{text}");
    let own: &[&[u8]] = &[b"\x1b[0m", b"\x1b[1m", b"\x1b[2m", b"\x1b[31m", b"\x1b[32m", b"\x1b[33m", b"\x1b[36m"];
    let mut rest = out;
    while let Some(at) = rest.iter().position(|&b| b == ESC) {
        let tail = &rest[at..];
        let sgr = own.iter().find(|s| tail.starts_with(s));
        assert!(sgr.is_some(), "{label}: a foreign escape sequence at {:?}", String::from_utf8_lossy(&tail[..8]));
        rest = &tail[sgr.unwrap().len()..];
    }
    assert!(!contains(out, b"\x1b[31mred"), "{label}: the stream's own colour code reached the output");
    assert!(!contains(out, b"\x1b[2J"), "{label}: the stream's clear-screen reached the output");
    assert!(!out.contains(&BEL), "{label}: raw BEL");
    assert!(!contains(out, RLO), "{label}: raw U+202E");
    assert_visible(label, &text);
}

#[test]
fn cat_neutralises_escape_sequences() {
    let out = run_hep(&["cat"], stream().as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_neutralised("cat", &out.stdout);
    let never = run_hep(&["--color", "never", "cat"], stream().as_bytes());
    assert_neutralised("cat --color never", &never.stdout);
    assert_eq!(out.stdout, never.stdout, "auto colour on a pipe is no colour");
}

#[test]
fn cat_with_colours_emits_only_its_own_sgr() {
    let out = run_hep(&["--color", "always", "cat"], stream().as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_only_own_sgr("cat --color always", &out.stdout);
}

#[test]
fn no_color_env_turns_auto_colours_off_but_not_always() {
    let mut command = hep(["cat"]);
    command.env("NO_COLOR", "1");
    let out = run(command, stream().as_bytes());
    assert_neutralised("NO_COLOR cat", &out.stdout);
    let mut command = hep(["--color", "always", "cat"]);
    command.env("NO_COLOR", "1");
    let out = run(command, stream().as_bytes());
    assert_only_own_sgr("NO_COLOR cat --color always", &out.stdout);
}

fn watch_file(color: Option<&str>) -> Vec<u8> {
    let path = scratch("hostile.jsonl");
    std::fs::write(&path, stream()).unwrap();
    let mut command = hep(["watch"]);
    if let Some(color) = color {
        command.args(["--color", color]);
    }
    command.args(["--", "cat"]).arg(&path);
    let out = run(command, b"");
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(String::from_utf8_lossy(&out.stdout).contains("verdict"), "the summary is shown");
    out.stdout
}

#[test]
fn watch_neutralises_escape_sequences() {
    assert_neutralised("watch", &watch_file(None));
}

#[test]
fn watch_with_colours_emits_only_its_own_sgr() {
    assert_only_own_sgr("watch --color always", &watch_file(Some("always")));
}

#[test]
fn watch_neutralises_the_childs_stderr_tail() {
    let script = format!(
        "printf 'oops \\033[31mred\\007 \\342\\200\\256rlo\\n' >&2; printf '%s' {}",
        common::sh_quote(&stream())
    );
    let out = run(
        {
            let mut command = hep(["watch", "--"]);
            command.args(["sh", "-c", &script]);
            command
        },
        b"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("stderr (tail)"), "{text}");
    assert!(text.contains(r"oops \x1b[31mred\x07 \u{202e}rlo"), "{text}");
    assert_neutralised("watch stderr tail", &out.stdout);
}

#[test]
fn the_summary_names_the_caps_a_long_run_went_past() {
    let mut stream = format!("{HEADER}\n{AGENT_START}\n");
    for id in 0..4100 {
        stream.push_str(&format!(
            "{{\"type\":\"tool_start\",\"turn_id\":1,\"id\":\"c{id}\",\"name\":\"sh\",\"args_summary\":\"\"}}\n"
        ));
    }
    for id in 1..=1002 {
        stream.push_str(&format!(
            "{{\"type\":\"turn_done\",\"turn_id\":{id},\"message\":\"m\",\"tool_results\":[],\"usage\":{{\"input\":1,\"output\":1,\"cost\":0.0}},\"stop_reason\":\"stop\"}}\n"
        ));
    }
    let out = run_hep(&["cat", "--color", "never"], stream.as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.text();
    let limits = text.lines().find(|l| l.starts_with("limits ")).unwrap_or_else(|| panic!("no limits line: {text}"));
    assert!(limits.contains("2 older turns not kept"), "{limits}");
    assert!(limits.contains("4 tool call ids not remembered"), "{limits}");
    let short = run_hep(&["cat", "--color", "never"], format!("{HEADER}\n{AGENT_START}\n").as_bytes());
    assert!(!short.text().contains("limits "), "no limits line when nothing went past a cap: {}", short.text());
}
