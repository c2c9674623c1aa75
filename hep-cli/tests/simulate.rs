//! `hep simulate`: every scenario validates with its own exit code, the seed fixes the
//! bytes, `--full-args` changes only the argument rendering, and SIGINT / SIGTERM end a
//! run with `cancelled` and exit 130.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{Proc, TIMEOUT, hep, run_hep, validate_json};
use nix::sys::signal::Signal;
use serde_json::Value;

/// Every scenario with the exit code and verdict it must end with.
const SCENARIOS: &[(&str, i32, &str)] = &[
    ("chat", 0, "ok"),
    ("tools", 0, "ok"),
    ("error", 1, "failed"),
    ("cancel-me", 0, "ok"),
    ("compaction", 0, "ok"),
    ("stuck", 0, "ok"),
    ("big-output", 0, "ok"),
    ("future", 0, "ok"),
];

const SEEDS: &[&str] = &["1", "7", "123456789"];

fn simulate(scenario: &str, seed: &str, extra: &[&str]) -> (Vec<u8>, i32) {
    let mut args = vec!["simulate", "--scenario", scenario, "--seed", seed, "--speed", "0"];
    args.extend_from_slice(extra);
    let out = run_hep(&args, b"");
    assert!(out.stderr.is_empty(), "{scenario}: unexpected stderr: {}", out.stderr);
    (out.stdout, out.code)
}

/// Validates `stream` with `code` and asserts it conforms with `verdict`.
fn assert_valid(label: &str, stream: &[u8], code: i32, verdict: &str) {
    let (report, validate_code) = validate_json(stream, &["--exit-code", &code.to_string()]);
    assert_eq!(report["verdict"], verdict, "{label}: {report:#}");
    assert_eq!(report["conforms"], true, "{label}: {report:#}");
    assert_eq!(report["violations"], Value::Array(vec![]), "{label}: {report:#}");
    assert_eq!(report["skipped"], Value::Array(vec![]), "{label}: {report:#}");
    assert_eq!(report["exit_code"], code, "{label}: {report:#}");
    let lines = stream.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(report["frames"].as_u64(), Some(lines as u64), "{label}: every line is a frame");
    assert_eq!(validate_code, 0, "{label}: validate exits 0 on a conforming stream");
}

fn frames(stream: &[u8]) -> Vec<Value> {
    std::str::from_utf8(stream)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn every_scenario_validates_with_its_exit_code() {
    for &(scenario, want_code, verdict) in SCENARIOS {
        for &seed in SEEDS {
            let label = format!("{scenario} seed {seed}");
            let (stream, code) = simulate(scenario, seed, &[]);
            assert_eq!(code, want_code, "{label}: exit code");
            assert!(stream.ends_with(b"\n"), "{label}: the last line is complete");
            assert_valid(&label, &stream, code, verdict);
            let frames = frames(&stream);
            assert_eq!(frames[0]["type"], "hep_header", "{label}");
            let last = &frames[frames.len() - 1]["type"];
            assert_eq!(last, if want_code == 1 { "turn_error" } else { "turn_done" }, "{label}");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    for &(scenario, ..) in SCENARIOS {
        let (a, _) = simulate(scenario, "42", &[]);
        let (b, _) = simulate(scenario, "42", &[]);
        assert!(!a.is_empty(), "{scenario}");
        assert!(a == b, "{scenario}: two runs with seed 42 differ");
    }
    let (a, _) = simulate("tools", "1", &[]);
    let (b, _) = simulate("tools", "2", &[]);
    assert_ne!(a, b, "different seeds give different streams");
}

#[test]
fn full_args_still_validate() {
    for &(scenario, want_code, verdict) in SCENARIOS {
        let label = format!("{scenario} --full-args");
        let (stream, code) = simulate(scenario, "5", &["--full-args"]);
        assert_eq!(code, want_code, "{label}");
        assert_valid(&label, &stream, code, verdict);
    }
}

#[test]
fn full_args_render_raw_json_and_summary_is_capped() {
    let tool_args = |stream: &[u8]| -> Vec<String> {
        frames(stream)
            .iter()
            .filter(|f| f["type"] == "tool_start")
            .map(|f| f["args_summary"].as_str().unwrap().to_owned())
            .collect()
    };
    let (summary, _) = simulate("big-output", "1", &[]);
    let (full, _) = simulate("big-output", "1", &["--full-args"]);
    let (summary, full) = (tool_args(&summary), tool_args(&full));
    assert_eq!(summary.len(), 1);
    assert_eq!(full.len(), 1);
    // Summary mode: `key=<json>` joined with ", ", cut to 100 characters plus "...".
    assert!(summary[0].starts_with("command=\"cat /var/log/service/access.log"), "{}", summary[0]);
    assert!(summary[0].ends_with("..."), "{}", summary[0]);
    assert_eq!(summary[0].chars().count(), 103, "{}", summary[0]);
    // Full mode: the JSON of the argument object, in arrival order.
    let parsed: Value = serde_json::from_str(&full[0]).expect("full args are JSON");
    assert_eq!(parsed["timeout_s"], 120);
    assert_eq!(parsed["cwd"], "/srv/app");
    assert!(full[0].starts_with(r#"{"command":"#), "{}", full[0]);
}

#[test]
fn session_flag_names_the_session() {
    let out = run_hep(&["simulate", "--scenario", "chat", "--speed", "0", "--session", "my-session"], b"");
    let header: Value = serde_json::from_str(out.lines().first().unwrap()).unwrap();
    assert_eq!(header["session"], "my-session");
    assert_eq!(header["hep"], "v1");
}

/// Starts `cancel-me` at real speed, waits for its first frame, sends `signal`, and checks
/// the run ends with `cancelled`, exit 130, and a stream that validates as cancelled.
fn cancel_with(signal: Signal) {
    let mut sim = Proc::spawn(hep(["simulate", "--scenario", "cancel-me", "--speed", "1"]), None, None);
    // The header is written after the signal handlers are installed: one line is enough.
    sim.read_lines(1, TIMEOUT);
    assert!(sim.running(), "cancel-me must still be running after its first frame");
    sim.signal(signal);
    let out = sim.wait(TIMEOUT);
    assert_eq!(out.code, 130, "{signal}: exit code; stderr: {}", out.stderr);
    assert!(out.status.code().is_some(), "{signal}: the simulator exits by itself, not killed by the signal");
    let lines = out.lines();
    let last: Value = serde_json::from_str(lines.last().expect("some output")).expect("the last line is JSON");
    assert_eq!(last["type"], "cancelled", "{signal}: last line {last}");
    assert!(out.stdout.ends_with(b"\n"));
    // A short run: the signal stopped it long before its 200 rounds.
    assert!(lines.len() < 200, "{signal}: {} lines", lines.len());
    let (report, code) = validate_json(&out.stdout, &["--exit-code", "130"]);
    assert_eq!(report["verdict"], "cancelled", "{report:#}");
    assert_eq!(report["conforms"], true, "{report:#}");
    assert_eq!(code, 0);
}

#[test]
fn cancel_me_sigint_ends_with_cancelled_and_130() {
    cancel_with(Signal::SIGINT);
}

#[test]
fn cancel_me_sigterm_ends_with_cancelled_and_130() {
    cancel_with(Signal::SIGTERM);
}

#[test]
fn cancel_me_at_speed_0_plays_every_round() {
    let out = run_hep(&["simulate", "--scenario", "cancel-me", "--speed", "0"], b"");
    assert_eq!(out.code, 0);
    let cancelled = out.lines().iter().filter(|l| l.contains(r#""type":"cancelled""#)).count();
    assert_eq!(cancelled, 0);
    let done = out.lines().iter().filter(|l| l.contains(r#""type":"turn_done""#)).count();
    assert_eq!(done, 201, "200 tool rounds and the answer");
}
