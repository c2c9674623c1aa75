//! `--format jsonl`: every record is one JSON object on one line with the shape
//! docs/cli.md gives (`event`: frame, violation, skipped, halted, stderr, signal, then
//! result), printed the moment its subject happens; the last is the result, the same
//! object as `--format json`. For `watch`, `check` and `validate`.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{AGENT_START, HEADER, MESSAGE_START, Proc, TIMEOUT, delta_line, done_line, hep, run, run_hep, scratch};
use serde_json::Value;
use std::process::Command;

const CANCELLED: &str = r#"{"type":"cancelled","turn_id":1}"#;
/// A tool output for a call never started: the warning `unknown_tool_call`.
const STRAY_DELTA: &str = r#"{"type":"tool_delta","turn_id":1,"id":"nope","update":"x"}"#;

/// `hep <args> -- sh -c <script> sh <marker>`.
fn hep_sh(args: &[&str], script: &str, marker: &str) -> Command {
    let mut command = hep(args);
    command.args(["--", "sh", "-c", script, "sh", marker]);
    command
}

/// `printf '%s\n' <lines>` for sh.
fn print(lines: &[&str]) -> String {
    common::sh_print_lines(lines)
}

/// Every line of `out` parsed, each checked against the documented shape of its kind.
fn records(out: &str) -> Vec<Value> {
    let records: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not one JSON object ({e}): {line}")))
        .collect();
    for record in &records {
        let keys: Vec<&str> = record.as_object().unwrap().keys().map(String::as_str).collect();
        let shape: &[&str] = match record["event"].as_str() {
            Some("frame") => &["event", "line", "frame"],
            Some("violation") => &["event", "code", "severity", "line", "turn_id", "message"],
            Some("skipped" | "halted") => &["event", "line", "kind", "reason"],
            Some("stderr") => &["event", "text"],
            Some("signal") => &["event", "signal", "reason", "next"],
            Some("result") => &["event", "result"],
            other => panic!("unknown record kind {other:?}: {record}"),
        };
        assert_eq!(keys, shape, "{record}");
    }
    let results = records.iter().filter(|r| r["event"] == "result").count();
    assert_eq!(results, 1, "one result: {out}");
    assert_eq!(records.last().unwrap()["event"], "result", "the result comes last: {out}");
    records
}

/// Each record summed up: `frame hep_header`, `stderr starting`, `violation unknown_tool_call`...
fn kinds(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let what = match r["event"].as_str().unwrap() {
                "frame" => r["frame"]["type"].clone(),
                "violation" => r["code"].clone(),
                "skipped" | "halted" => r["kind"].clone(),
                "stderr" => r["text"].clone(),
                "signal" => r["signal"].clone(),
                _ => r["result"]["verdict"].clone(),
            };
            format!("{} {}", r["event"].as_str().unwrap(), what.as_str().unwrap())
        })
        .collect()
}

/// A child with something of every kind but a signal: stderr lines, frames, a prose line
/// (skipped), a warning.
fn every_kind() -> String {
    format!(
        "echo starting >&2; {}; echo not-json; {}; sleep 0.1; echo done-soon >&2; sleep 0.1; {}",
        print(&[HEADER]),
        print(&[AGENT_START, MESSAGE_START, &delta_line("hi"), STRAY_DELTA]),
        print(&[&done_line("hi")])
    )
}

#[test]
fn watch_jsonl_gives_every_record_in_order_then_the_result() {
    let out = run(hep_sh(&["watch", "--format", "jsonl"], &every_kind(), "jsonl"), b"");
    assert_eq!(out.code, 0, "watch mirrors the child's exit code: {}", out.stderr);
    let records = records(&out.text());
    assert_eq!(
        kinds(&records),
        [
            "stderr starting",
            "frame hep_header",
            "skipped syntax",
            "frame agent_start",
            "frame message_start",
            "frame message_delta",
            "frame tool_delta",
            "violation unknown_tool_call",
            "stderr done-soon",
            "frame turn_done",
            "result protocol_error",
        ],
        "{}",
        out.text()
    );
    // A frame record holds the line exactly as the child wrote it, and its number.
    assert_eq!(records[1]["frame"], serde_json::from_str::<Value>(HEADER).unwrap());
    assert_eq!((records[1]["line"].as_u64(), records[3]["line"].as_u64()), (Some(1), Some(3)));
    assert_eq!(records[2]["line"], 2);
    assert_eq!(records[7]["severity"], "warning");
    // The result is what `--format json` prints.
    let result = &records.last().unwrap()["result"];
    let json = run(hep_sh(&["watch", "--format", "json"], &every_kind(), "jsonl"), b"").json();
    for key in
        ["verdict", "reasons", "exit_code", "conforms", "run", "violations", "skipped", "stderr_tail", "timed_out"]
    {
        assert_eq!(result[key], json[key], "{key}");
    }
    assert_eq!(result["stderr_tail"], "starting\ndone-soon\n");
}

#[test]
fn watch_jsonl_reports_each_cancel_step_and_why() {
    let script = format!(
        "stop() {{ {}; exit 130; }}; trap '' INT; trap stop TERM; {}; i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; exit 3",
        print(&[CANCELLED]),
        print(&[HEADER, AGENT_START])
    );
    let marker = common::unique("jsonl-cancel");
    let args = ["watch", "--format", "jsonl", "--timeout", "0.2", "--interrupt-grace", "0.3"];
    let out = Proc::spawn(hep_sh(&args, &script, &marker), None, Some(&marker)).wait(TIMEOUT);
    assert_eq!(out.code, 130, "{}", out.stderr);
    // Without the stderr records (the shell may say `Terminated` of its `sleep`).
    let records: Vec<Value> = records(&out.text()).into_iter().filter(|r| r["event"] != "stderr").collect();
    assert_eq!(
        kinds(&records),
        [
            "frame hep_header",
            "frame agent_start",
            "signal SIGINT",
            "signal SIGTERM",
            "frame cancelled",
            "result cancelled"
        ]
    );
    let sigint: Value = serde_json::from_str(
        r#"{"event":"signal","signal":"SIGINT","reason":"timeout","next":{"signal":"SIGTERM","after_ms":300}}"#,
    )
    .unwrap();
    assert_eq!(records[2], sigint);
    assert_eq!(records[3]["next"], serde_json::json!({"signal": "SIGKILL", "after_ms": 2000}));
    let result = &records.last().unwrap()["result"];
    assert_eq!(result["timed_out"], true);
    assert_eq!(result["supervision"]["cancelled_by"], "timeout");
    assert_eq!(result["reasons"][0], "the supervisor cancelled the run: timed out after 0.2 s");
}

/// The first record is on `watch`'s stdout while the child still runs.
#[test]
fn watch_jsonl_prints_each_record_as_it_happens() {
    let flag = scratch("flag");
    let marker = flag.to_str().unwrap();
    let script = format!(
        r#"{}; i=0; while [ ! -e "$1" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; {}"#,
        print(&[HEADER]),
        print(&[AGENT_START, &done_line("hi")])
    );
    let mut watch = Proc::spawn(hep_sh(&["watch", "--format", "jsonl"], &script, marker), None, Some(marker));
    watch.read_lines(1, TIMEOUT);
    let first: Value = serde_json::from_slice(watch.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(first["frame"]["type"], "hep_header");
    assert!(watch.running(), "the child waits for the flag");
    std::fs::write(&flag, b"").unwrap();
    let out = watch.wait(TIMEOUT);
    let _ = std::fs::remove_file(&flag);
    assert_eq!(kinds(&records(&out.text())).last().unwrap(), "result ok");
}

#[test]
fn check_and_validate_jsonl_end_with_their_report() {
    let out = run(hep_sh(&["check", "--format", "jsonl"], &every_kind(), "jsonl"), b"");
    assert_eq!(out.code, 1, "the skipped line: does not conform");
    let checked = records(&out.text());
    let summed = kinds(&checked);
    assert_eq!(summed.first().unwrap(), "stderr starting");
    assert_eq!(summed.last().unwrap(), "result protocol_error");
    let report = run(hep_sh(&["check", "--format", "json"], &every_kind(), "jsonl"), b"").json();
    assert_eq!(checked.last().unwrap()["result"], report, "the report of --format json");

    let stream = format!("{HEADER}\nnot-json\n{AGENT_START}\n{}\n", done_line("hi"));
    let out = run_hep(&["validate", "--format", "jsonl", "--exit-code", "0"], stream.as_bytes());
    assert_eq!(out.code, 1);
    let records = records(&out.text());
    assert_eq!(
        kinds(&records),
        ["frame hep_header", "skipped syntax", "frame agent_start", "frame turn_done", "result protocol_error"]
    );
    let report = run_hep(&["validate", "--format", "json", "--exit-code", "0"], stream.as_bytes()).json();
    assert_eq!(records.last().unwrap()["result"], report);
}

#[test]
fn strict_jsonl_reports_the_halt() {
    let stream = format!("{HEADER}\nnot-json\n{AGENT_START}\n");
    let out = run_hep(&["validate", "--strict", "--format", "jsonl"], stream.as_bytes());
    let records = records(&out.text());
    // The line is reported skipped, then the stream halts on it.
    assert_eq!(kinds(&records), ["frame hep_header", "skipped syntax", "halted syntax", "result protocol_error"]);
}
