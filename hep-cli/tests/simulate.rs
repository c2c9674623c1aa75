//! `hep simulate`: every scenario validates with its own exit code (warnings only where the
//! scenario plays one of the reference's own edge paths), the seed fixes the bytes,
//! `--full-args` changes only the argument rendering, and signals are handled as the
//! reference handles them: SIGINT / SIGTERM while the agent streams end the run with
//! `cancelled` and exit 130; at any other time they abort nothing, write nothing more and
//! exit 130; a second SIGTERM exits 143 at once.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{Finished, Proc, TIMEOUT, hep, poll, run_hep, validate_json};
use nix::sys::signal::Signal;
use serde_json::Value;

/// Every scenario with the exit code and verdict it must end with, and the warnings its
/// stream must carry (none, but for the reference's own edge paths).
const SCENARIOS: &[(&str, i32, &str, &[&str])] = &[
    ("chat", 0, "ok", &[]),
    ("tools", 0, "ok", &[]),
    ("error", 1, "failed", &[]),
    ("cancel-me", 0, "ok", &[]),
    ("compaction", 0, "ok", &[]),
    ("stuck", 0, "ok", &[]),
    ("big-output", 0, "ok", &[]),
    ("future", 0, "ok", &[]),
    // The reference's over-window continuation: a fatal turn_error, a compaction, and the
    // run goes on (conformance/stream/reference/over-window-continuation.json).
    ("over-window", 0, "ok", &["round_after_fatal_error"]),
    // The reference writes compaction_start for every pass and compaction_end only when it
    // ran (conformance/stream/reference/skipped-preflight-compaction.json).
    ("skipped-compaction", 0, "ok", &["unpaired_compaction_start"]),
];

const SEEDS: &[&str] = &["1", "7", "42", "2026", "123456789"];

fn simulate(scenario: &str, seed: &str, extra: &[&str]) -> (Vec<u8>, i32) {
    let mut args = vec!["simulate", "--scenario", scenario, "--seed", seed, "--speed", "0"];
    args.extend_from_slice(extra);
    let out = run_hep(&args, b"");
    assert!(out.stderr.is_empty(), "{scenario}: unexpected stderr: {}", out.stderr);
    (out.stdout, out.code)
}

/// The codes of a report's violations, asserting that none is an error.
fn warnings_only(label: &str, report: &Value) -> Vec<String> {
    let violations = report["violations"].as_array().expect("violations is a list");
    for v in violations {
        assert_eq!(v["severity"], "warning", "{label}: an error violation: {report:#}");
    }
    violations.iter().map(|v| v["code"].as_str().unwrap().to_owned()).collect()
}

/// Validates `stream` with `code` and asserts it conforms with `verdict` and exactly the
/// `warnings`.
fn assert_valid(label: &str, stream: &[u8], code: i32, verdict: &str, warnings: &[&str]) {
    let (report, validate_code) = validate_json(stream, &["--exit-code", &code.to_string()]);
    assert_eq!(report["verdict"], verdict, "{label}: {report:#}");
    assert_eq!(report["conforms"], true, "{label}: {report:#}");
    assert_eq!(warnings_only(label, &report), warnings, "{label}: {report:#}");
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
    for &(scenario, want_code, verdict, warnings) in SCENARIOS {
        for &seed in SEEDS {
            let label = format!("{scenario} seed {seed}");
            let (stream, code) = simulate(scenario, seed, &[]);
            assert_eq!(code, want_code, "{label}: exit code");
            assert!(stream.ends_with(b"\n"), "{label}: the last line is complete");
            assert_valid(&label, &stream, code, verdict, warnings);
            let frames = frames(&stream);
            assert_eq!(frames[0]["type"], "hep_header", "{label}");
            // The run's last terminal frame, then at most a post-run compaction.
            let last_terminal = frames
                .iter()
                .rev()
                .find(|f| ["turn_done", "turn_error", "cancelled"].contains(&f["type"].as_str().unwrap_or_default()));
            let want = if want_code == 1 { "turn_error" } else { "turn_done" };
            assert_eq!(last_terminal.unwrap()["type"], want, "{label}");
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
    for &(scenario, want_code, verdict, warnings) in SCENARIOS {
        let label = format!("{scenario} --full-args");
        let (stream, code) = simulate(scenario, "5", &["--full-args"]);
        assert_eq!(code, want_code, "{label}");
        assert_valid(&label, &stream, code, verdict, warnings);
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

/// Whether the stream so far holds a complete line of frame type `kind`.
fn has_line(out: &[u8], kind: &str) -> bool {
    let needle = format!(r#"{{"type":"{kind}","#);
    String::from_utf8_lossy(out).lines().any(|l| l.starts_with(&needle))
}

/// Starts `scenario` at real speed and reads its stdout until `ready` holds.
fn start(scenario: &str, what: &str, ready: impl Fn(&[u8]) -> bool) -> Proc {
    let mut sim = Proc::spawn(hep(["simulate", "--scenario", scenario, "--speed", "1"]), None, None);
    sim.read_until(TIMEOUT, what, ready);
    assert!(sim.running(), "{scenario} must still be running when {what} arrived");
    sim
}

/// The last frame of `out`, and the `validate --exit-code <code>` report of the stream.
fn judged(out: &Finished, code: i32) -> (Value, Value) {
    assert!(out.stdout.ends_with(b"\n"), "the last line is complete");
    let last: Value = serde_json::from_str(out.lines().last().expect("some output")).expect("the last line is JSON");
    let (report, validate_code) = validate_json(&out.stdout, &["--exit-code", &code.to_string()]);
    assert_eq!(validate_code, i32::from(report["conforms"] != true), "{report:#}");
    (last, report)
}

/// Starts `cancel-me` at real speed, waits until it streams (its first delta), sends
/// `signal`, and checks the run ends with `cancelled`, exit 130, and a stream that
/// validates as cancelled with no violation at all.
fn cancel_with(signal: Signal) {
    let sim = start("cancel-me", "the first delta", |out| has_line(out, "message_delta"));
    sim.signal(signal);
    let out = sim.wait(TIMEOUT);
    assert_eq!(out.code, 130, "{signal}: exit code; stderr: {}", out.stderr);
    assert!(out.status.code().is_some(), "{signal}: the simulator exits by itself, not killed by the signal");
    let (last, report) = judged(&out, 130);
    assert_eq!(last["type"], "cancelled", "{signal}: last line {last}");
    // A short run: the signal stopped it long before its 200 rounds.
    assert!(out.lines().len() < 200, "{signal}: {} lines", out.lines().len());
    assert_eq!(report["verdict"], "cancelled", "{report:#}");
    assert_eq!(report["conforms"], true, "{report:#}");
    assert_eq!(report["violations"], Value::Array(vec![]), "{report:#}");
}

#[test]
fn cancel_me_sigint_ends_with_cancelled_and_130() {
    cancel_with(Signal::SIGINT);
}

#[test]
fn cancel_me_sigterm_ends_with_cancelled_and_130() {
    cancel_with(Signal::SIGTERM);
}

/// Starts `scenario` at real speed, waits until its `nth` compaction has started (and is
/// still running: nothing came after its `compaction_start`), sends `signal`, and checks
/// what the reference does when a signal finds it not streaming: nothing is aborted,
/// no `cancelled` is written, the compaction is left without its end, and the exit code is
/// 130; `hep validate --exit-code 130` judges the run `cancelled`, with `warnings` only.
fn signal_during_compaction(scenario: &str, nth: usize, signal: Signal, warnings: &[&str]) {
    let label = format!("{scenario}, compaction {nth}, {signal}");
    let sim = start(scenario, &format!("compaction_start number {nth}"), |out| {
        let text = String::from_utf8_lossy(out);
        let started = text.lines().filter(|l| l.starts_with(r#"{"type":"compaction_start","#)).count();
        started == nth && text.lines().last().is_some_and(|l| l.starts_with(r#"{"type":"compaction_start","#))
    });
    sim.signal(signal);
    let out = sim.wait(TIMEOUT);
    assert_eq!(out.code, 130, "{label}: exit code; stderr: {}", out.stderr);
    assert!(out.status.code().is_some(), "{label}: the simulator exits by itself");
    let (last, report) = judged(&out, 130);
    assert_eq!(last["type"], "compaction_start", "{label}: the compaction is left open, nothing follows");
    assert!(!has_line(&out.stdout, "cancelled"), "{label}: no cancelled frame:\n{}", out.text());
    assert_eq!(report["verdict"], "cancelled", "{label}: {report:#}");
    assert_eq!(report["conforms"], true, "{label}: {report:#}");
    assert_eq!(warnings_only(&label, &report), warnings, "{label}: {report:#}");
}

/// The post-run compaction of `compaction` runs after the last `turn_done`: the run's answer
/// is kept (conformance/stream/reference/signal-during-post-run-compaction.json).
#[test]
fn a_signal_during_the_post_run_compaction_aborts_nothing_and_exits_130() {
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        let warnings = ["unpaired_compaction_start", "cancelled_between_rounds"];
        signal_during_compaction("compaction", 3, signal, &warnings);
    }
}

/// The pre-flight compaction runs before `agent_start`
/// (conformance/stream/reference/signal-during-preflight-compaction.json).
#[test]
fn a_signal_during_the_preflight_compaction_aborts_nothing_and_exits_130() {
    signal_during_compaction(
        "compaction",
        1,
        Signal::SIGINT,
        &["unpaired_compaction_start", "ended_before_agent_start"],
    );
}

/// The over-window compaction runs once the failed prompt has settled, outside the agent
/// run (conformance/stream/reference/signal-after-turn-error.json has the same shape).
#[test]
fn a_signal_during_the_over_window_compaction_aborts_nothing_and_exits_130() {
    signal_during_compaction(
        "over-window",
        1,
        Signal::SIGINT,
        &["unpaired_compaction_start", "cancelled_between_rounds"],
    );
}

/// Whether `signal` is pending for the process `pid` (sent, not yet handled).
fn pending(pid: i32, signal: Signal) -> bool {
    common::status_field(pid, "ShdPnd")
        .and_then(|mask| u64::from_str_radix(&mask, 16).ok())
        .is_some_and(|mask| mask & (1u64 << (signal as i32 - 1)) != 0)
}

/// A second SIGTERM, while the aborted run settles, exits 143 at once: no `cancelled` is
/// written, and the stream is judged `incomplete` (killed by signal 15). A second SIGINT
/// changes nothing.
#[test]
fn a_second_sigterm_exits_143_at_once() {
    for (signal, code) in [(Signal::SIGTERM, 143), (Signal::SIGINT, 130)] {
        let sim = start("cancel-me", "the first delta", |out| has_line(out, "message_delta"));
        sim.signal(signal);
        // Two signals sent back to back may merge into one: wait until the first was handled.
        poll(TIMEOUT, "the first signal to be handled", || (!pending(sim.pid(), signal)).then_some(()));
        sim.signal(signal);
        let out = sim.wait(TIMEOUT);
        assert_eq!(out.code, code, "{signal} twice: exit code; stderr: {}", out.stderr);
        assert!(out.status.code().is_some(), "{signal} twice: the simulator exits by itself");
        let (last, report) = judged(&out, code);
        if code == 143 {
            assert!(!has_line(&out.stdout, "cancelled"), "143: nothing written after the signal:\n{}", out.text());
            assert_eq!(report["verdict"], "incomplete", "{report:#}");
        } else {
            assert_eq!(last["type"], "cancelled", "a second SIGINT does not stop the settling: {last}");
            assert_eq!(report["verdict"], "cancelled", "{report:#}");
        }
    }
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
