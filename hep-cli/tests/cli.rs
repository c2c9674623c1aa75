//! `hep encode`, `hep schema` and `hep --version`: exact bytes and exit codes.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{conformance_dir, run_hep};
use serde_json::Value;

#[test]
fn encode_prints_canonical_bytes_whatever_the_key_order_and_number_form() {
    let input = concat!(
        r#"{"usage":{"cost":5e-1,"output":2,"input":1},"stop_reason":"stop","tool_results":[],"message":"hi","turn_id":1,"type":"turn_done"}"#,
        "\n",
        r#"{"stop_reason":"toolUse","usage":{"output":20,"cost":1.0,"input":10},"type":"turn_done","message":"","turn_id":2,"tool_results":[{"text":"t","ok":true,"name":"read","id":"c1"}]}"#,
        "\n",
        r#"{ "turn_id" : 3 , "type" : "agent_start" }"#,
        "\r\n",
        r#"{"turn_id":1,"type":"message_delta","delta":"\u00e9\/\u001F"}"#,
        "\n",
        r#"{"session":"abc","fah":"1.2.3","hep":"v1","type":"hep_header"}"#,
    );
    let out = run_hep(&["encode"], input.as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let want = concat!(
        r#"{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}"#,
        "\n",
        r#"{"type":"turn_done","turn_id":2,"message":"","tool_results":[{"id":"c1","name":"read","ok":true,"text":"t"}],"usage":{"input":10,"output":20,"cost":1.0},"stop_reason":"toolUse"}"#,
        "\n",
        r#"{"type":"agent_start","turn_id":3}"#,
        "\n",
        "{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"\u{e9}/\\u001f\"}",
        "\n",
        r#"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}"#,
        "\n",
    );
    assert_eq!(out.text(), want);
}

#[test]
fn encode_integral_cost_is_written_as_a_double() {
    let input = r#"{"type":"turn_done","turn_id":1,"message":"","tool_results":[],"usage":{"input":1,"output":2,"cost":2},"stop_reason":"stop"}"#;
    let out = run_hep(&["encode"], format!("{input}\n").as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.text().contains(r#""cost":2.0}"#), "{}", out.text());
}

#[test]
fn encode_reports_bad_lines_by_number_and_prints_the_rest() {
    let input = concat!(
        r#"{"type":"agent_start","turn_id":1}"#,
        "\n",
        "garbage {\n",
        r#"{"type":"agent_start"}"#,
        "\n",
        r#"{"turn_id":2,"type":"agent_start"}"#,
        "\n",
    );
    let out = run_hep(&["encode"], input.as_bytes());
    assert_eq!(out.code, 1, "any bad line makes the exit code 1");
    assert_eq!(out.text(), "{\"type\":\"agent_start\",\"turn_id\":1}\n{\"type\":\"agent_start\",\"turn_id\":2}\n");
    let errors: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(errors.len(), 2, "one message per bad line: {}", out.stderr);
    assert!(errors[0].contains("line 2"), "{}", errors[0]);
    assert!(errors[0].contains("syntax"), "{}", errors[0]);
    assert!(errors[1].contains("line 3"), "{}", errors[1]);
    assert!(errors[1].contains("missing_field") || errors[1].contains("turn_id"), "{}", errors[1]);
}

#[test]
fn encode_agrees_with_every_conformance_encode_case() {
    let dir = conformance_dir().join("encode");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let case: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let (Some(frame), Some(line)) = (case.get("frame"), case.get("line").and_then(Value::as_str)) else {
            continue;
        };
        let out = run_hep(&["encode"], format!("{frame}\n").as_bytes());
        assert_eq!(out.code, 0, "{}: {}", path.display(), out.stderr);
        assert_eq!(out.text(), format!("{line}\n"), "{}", path.display());
        checked += 1;
    }
    assert!(checked > 0, "no encode case was checked");
}

#[test]
fn encode_empty_input_prints_nothing() {
    let out = run_hep(&["encode"], b"");
    assert_eq!((out.code, out.stdout.len()), (0, 0), "{}", out.stderr);
}

#[test]
fn schema_is_the_committed_schema() {
    let out = run_hep(&["schema"], b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let printed = out.json();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/hep-v1.schema.json");
    let committed: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(printed, committed);
}

#[test]
fn version_json_is_exact() {
    let out = run_hep(&["--version", "--output", "json"], b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.text(), format!("{{\"version\":\"{}\",\"hep\":\"v1\"}}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn version_text_names_both_versions() {
    let out = run_hep(&["--version"], b"");
    assert_eq!(out.code, 0);
    assert_eq!(out.text(), format!("hep {} (HEP v1)\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn no_arguments_prints_help_and_exits_2() {
    let out = run_hep(&[], b"");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("Usage"), "{}", out.stderr);
}

/// `hep schema | head -0` and `hep --version | head -0`: no panic.
#[test]
fn schema_and_version_with_a_closed_stdout_do_not_panic() {
    for args in [&["schema"][..], &["--version"], &["--version", "--output", "json"]] {
        let mut command = common::hep(args);
        command.env("RUST_BACKTRACE", "0");
        let (code, stderr) = common::run_with_closed_stdout(command, b"");
        assert!(!stderr.contains("panicked"), "hep {args:?} panicked on a closed stdout (exit {code}):\n{stderr}");
        assert_ne!(code, 101, "{stderr}");
    }
}
