//! `hep validate --format json` against every stream case of `conformance/stream/`: the
//! verdict, conformance, violations and skipped lines the CLI reports must be the ones the
//! case expects, and the exit code must follow conformance. Plus the usage errors.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use base64::Engine;
use common::{AGENT_START, HEADER, conformance_dir, done_line, run_hep, validate_json};
use serde_json::{Value, json};

/// A *text* of the conformance notation: a string, `{"repeat", "count"}`, or a list.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().map(text).collect(),
        Value::Object(o) => text(&o["repeat"]).repeat(usize::try_from(o["count"].as_u64().unwrap()).unwrap()),
        other => panic!("not a text: {other}"),
    }
}

/// The case's input bytes, as the conformance README describes them.
fn input(case: &Value) -> Vec<u8> {
    if let Some(lines) = case.get("input_lines") {
        let mut bytes = Vec::new();
        for line in lines.as_array().unwrap() {
            bytes.extend(text(line).into_bytes());
            bytes.push(b'\n');
        }
        bytes
    } else if let Some(b64) = case.get("input_base64") {
        base64::engine::general_purpose::STANDARD.decode(b64.as_str().unwrap()).unwrap()
    } else {
        text(&case["input"]).into_bytes()
    }
}

/// The `validate` arguments for the case's options and exit code.
fn arguments(case: &Value) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(options) = case.get("options") {
        for (key, v) in options.as_object().unwrap() {
            match key.as_str() {
                "strict" if v == true => args.push("--strict".to_owned()),
                "strict" => {}
                "max_line_length" => args.extend(["--max-line-bytes".to_owned(), v.as_u64().unwrap().to_string()]),
                other => panic!("unknown option `{other}`"),
            }
        }
    }
    if let Some(code) = case.get("exit_code").and_then(Value::as_i64) {
        args.extend(["--exit-code".to_owned(), code.to_string()]);
    }
    args
}

fn violations(list: &Value) -> Value {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| json!({"code": v["code"], "severity": v["severity"], "line": v["line"], "turn_id": v["turn_id"]}))
        .collect()
}

fn skipped(list: &Value) -> Value {
    list.as_array().unwrap().iter().map(|s| json!({"line": s["line"], "kind": s["kind"]})).collect()
}

#[test]
fn validate_reports_every_conformance_stream_case() {
    let dir = conformance_dir().join("stream");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() > 50, "the stream cases are there: {}", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let expect = &case["expect"];
        let args = arguments(&case);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (report, code) = validate_json(&input(&case), &args);
        let mut problems = Vec::new();
        for key in ["verdict", "conforms"] {
            if expect.get(key).is_some_and(|want| *want != report[key]) {
                problems.push(format!("{key}: want {}, got {}", expect[key], report[key]));
            }
        }
        if let Some(want) = expect.get("violations") {
            let (want, got) = (violations(want), violations(&report["violations"]));
            if want != got {
                problems.push(format!("violations:\n    want {want}\n    got  {got}"));
            }
        }
        if let Some(want) = expect.get("skipped") {
            let (want, got) = (skipped(want), skipped(&report["skipped"]));
            if want != got {
                problems.push(format!("skipped:\n    want {want}\n    got  {got}"));
            }
        }
        let want_code = if expect["conforms"] == true { 0 } else { 1 };
        if code != want_code {
            problems.push(format!("exit code: want {want_code}, got {code}"));
        }
        let want_exit = case.get("exit_code").cloned().unwrap_or(Value::Null);
        if report["exit_code"] != want_exit {
            problems.push(format!("report exit_code: want {want_exit}, got {}", report["exit_code"]));
        }
        if !problems.is_empty() {
            failures.push(format!("{name} (validate {}):\n  {}", args.join(" "), problems.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), paths.len(), failures.join("\n"));
}

#[test]
fn validate_text_output_names_violations_with_lines() {
    let stream = format!("{HEADER}\n{AGENT_START}\n{}\n{}\n", done_line("a"), done_line("b"));
    let out = run_hep(&["validate", "--color", "never", "--exit-code", "0"], stream.as_bytes());
    let text = out.text();
    assert_eq!(out.code, 1, "{text}");
    assert!(text.contains("line 4: error duplicate_terminal"), "{text}");
    assert!(text.contains("does not conform; verdict protocol_error"), "{text}");
}

#[test]
fn validate_reads_a_file_argument_like_stdin() {
    let stream = format!("{HEADER}\n{AGENT_START}\n{}\n", done_line("hi"));
    let path = common::scratch("stream.jsonl");
    std::fs::write(&path, &stream).unwrap();
    let from_file = run_hep(&["validate", "--format", "json", "--exit-code", "0", path.to_str().unwrap()], b"");
    let from_dash = run_hep(&["validate", "--format", "json", "--exit-code", "0", "-"], stream.as_bytes());
    let _ = std::fs::remove_file(&path);
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    assert_eq!(from_file.json()["verdict"], "ok");
    assert_eq!(from_file.json(), from_dash.json());
}

#[test]
fn validate_without_exit_code_reports_null() {
    let stream = format!("{HEADER}\n{AGENT_START}\n{}\n", done_line("hi"));
    let (report, code) = validate_json(stream.as_bytes(), &[]);
    assert_eq!(code, 0);
    assert_eq!(report["exit_code"], Value::Null);
    assert_eq!(report["verdict"], "ok");
    assert_eq!(report["frames"], 3);
}

#[test]
fn validate_of_a_missing_file_exits_2() {
    let missing = common::scratch("missing").join("no-such-stream.jsonl");
    let out = run_hep(&["validate", "--format", "json", missing.to_str().unwrap()], b"");
    assert_eq!(out.code, 2, "stdout: {}", out.text());
    assert!(out.stdout.is_empty(), "no report for an unreadable file: {}", out.text());
    assert!(out.stderr.contains("no-such-stream.jsonl"), "stderr names the file: {}", out.stderr);
}

#[test]
fn validate_with_a_bad_flag_exits_2() {
    let out = run_hep(&["validate", "--exit-code", "not-a-number"], b"");
    assert_eq!(out.code, 2, "{}", out.stderr);
}

#[test]
fn cat_of_a_missing_file_exits_2() {
    let missing = common::scratch("missing").join("no-such-stream.jsonl");
    let out = run_hep(&["cat", missing.to_str().unwrap()], b"");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no-such-stream.jsonl"), "{}", out.stderr);
}

/// `hep validate … | head -0` (stdout closed): no panic, whatever the format.
#[test]
fn validate_with_a_closed_stdout_does_not_panic() {
    let stream = format!("{HEADER}\n{AGENT_START}\n{}\n{}\n", done_line("a"), done_line("b"));
    for format in ["text", "json"] {
        let mut command = common::hep(["validate", "--format", format, "--exit-code", "0"]);
        command.env("RUST_BACKTRACE", "0");
        let (code, stderr) = common::run_with_closed_stdout(command, stream.as_bytes());
        assert!(!stderr.contains("panicked"), "validate --format {format} panicked (exit {code}):\n{stderr}");
        assert_ne!(code, 101, "{stderr}");
    }
}
