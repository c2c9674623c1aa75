//! `hep watch` and `hep check` supervising real children: Ctrl-C cancels the child and
//! leaves nothing behind, a second Ctrl-C takes the next step of the escalation at once (and
//! a third the one after), a child killed mid-line is `incomplete`, frames reach the screen
//! while the child still runs, and `check` judges the child's exit code.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{
    AGENT_START, HEADER, HEP, MESSAGE_START, Proc, TIMEOUT, catches, delta_line, done_line, hep, pids_matching, poll,
    ppid, run, scratch, sh_print_lines, sh_quote, unique,
};
use nix::sys::signal::Signal;
use serde_json::Value;
use std::time::{Duration, Instant};

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

/// Starts `hep watch --json -- hep simulate --scenario cancel-me --session <unique>`, waits
/// until the simulator runs with its handlers installed and streams (has written past its
/// header), sends `signal` to the watch process alone, and checks the outcome.
fn cancel_watch(signal: Signal) {
    let session = unique("watch-cancel");
    let mut command = hep(["watch", "--json", "--", HEP, "simulate", "--scenario", "cancel-me", "--session"]);
    command.arg(&session);
    let mut watch = Proc::spawn(command, None, Some(&session));
    let watch_pid = watch.pid();
    let child = poll(TIMEOUT, "the simulator to start under watch", || {
        pids_matching(&session).into_iter().find(|&pid| ppid(pid) == Some(watch_pid))
    });
    // Past the header: the simulator writes `agent_start` once it streams, and only a
    // signal that finds it streaming ends the run with `cancelled` (before, the run ends
    // after its header with `ended_before_agent_start`).
    let header =
        format!(r#"{{"type":"hep_header","hep":"v1","fah":"{}","session":"{session}"}}"#, env!("CARGO_PKG_VERSION"));
    poll(TIMEOUT, "the simulator to install its handlers and write its first frames", || {
        let written = common::bytes_written(child).is_none_or(|n| n > header.len() as u64 + 1);
        (catches(child, Signal::SIGINT) && catches(child, Signal::SIGTERM) && written).then_some(())
    });
    assert!(watch.running(), "watch must still be running");
    watch.signal(signal);
    let out = watch.wait(TIMEOUT);
    assert_eq!(out.code, 130, "watch mirrors the child's exit code; stderr: {}", out.stderr);
    let report = out.json();
    assert_eq!(report["verdict"], "cancelled", "{report:#}");
    assert_eq!(report["exit_code"], 130, "{report:#}");
    assert_eq!(report["conforms"], true, "{report:#}");
    assert_eq!(report["violations"], Value::Array(vec![]), "{report:#}");
    assert_eq!(report["run"]["header"]["session"], session.as_str());
    assert_eq!(report["run"]["last_terminal"]["type"], "cancelled", "{report:#}");
    let left = pids_matching(&session);
    assert!(left.is_empty(), "processes left behind after watch exited: {left:?}");
    assert!(common::status_field(child, "State").is_none(), "the simulator (pid {child}) is gone");
}

#[test]
fn watch_sigint_cancels_the_child_and_leaves_nothing() {
    cancel_watch(Signal::SIGINT);
}

#[test]
fn watch_sigterm_cancels_the_child_and_leaves_nothing() {
    cancel_watch(Signal::SIGTERM);
}

/// A child that ignores SIGINT (and, with `ignore_term`, SIGTERM too) and prints `cancelled`
/// and exits 130 on SIGTERM otherwise; `$1` is the marker.
fn stubborn_child(ignore_term: bool) -> String {
    let term = if ignore_term { "trap '' TERM" } else { "trap stop TERM" };
    format!(
        "stop() {{ {}; exit 130; }}; trap '' INT; {term}; {}; i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; exit 3",
        sh_print_lines(&[r#"{"type":"cancelled","turn_id":1}"#]),
        sh_print_lines(&[HEADER, AGENT_START])
    )
}

/// `hep watch --color never <args> -- sh -c <script> sh <marker>`, started, with its
/// child running, handlers installed and the header on watch's screen.
fn watch_stubborn(args: &[&str], script: &str, marker: &str) -> (Proc, i32) {
    let mut command = hep(["watch", "--color", "never"]);
    command.args(args).args(["--", "sh", "-c", script, "sh", marker]);
    let mut watch = Proc::spawn(command, None, Some(marker));
    let watch_pid = watch.pid();
    let child = poll(TIMEOUT, "the child to start", || {
        pids_matching(marker).into_iter().find(|&pid| ppid(pid) == Some(watch_pid))
    });
    watch.read_until(TIMEOUT, "the header on screen", |out| String::from_utf8_lossy(out).contains("● HEP v1"));
    poll(TIMEOUT, "the child to ignore SIGINT", || {
        let ignored = common::status_field(child, "SigIgn").and_then(|m| u64::from_str_radix(&m, 16).ok());
        ignored.filter(|m| m & 0b10 != 0)
    });
    (watch, child)
}

/// Sends SIGINT to `watch` (a Ctrl-C) and waits until its view shows `note`.
fn press_ctrl_c(watch: &mut Proc, note: &str) {
    watch.signal(Signal::SIGINT);
    watch.read_until(TIMEOUT, &format!("the note {note:?}"), |out| String::from_utf8_lossy(out).contains(note));
}

/// The second Ctrl-C does not wait for the 20 s interrupt grace: SIGTERM goes at once, and
/// the child, which ignores SIGINT, writes `cancelled` and exits 130.
#[test]
fn a_second_ctrl_c_sends_sigterm_at_once() {
    let marker = unique("second-ctrl-c");
    let (mut watch, child) = watch_stubborn(&["--interrupt-grace", "20"], &stubborn_child(false), &marker);
    press_ctrl_c(
        &mut watch,
        "» SIGINT sent; waiting up to 20s for the harness to settle and exit (Ctrl-C again to stop it now)",
    );
    assert!(watch.running(), "the child ignores SIGINT: watch waits");
    let pressed = Instant::now();
    press_ctrl_c(&mut watch, "» SIGTERM sent; SIGKILL in 2s (Ctrl-C again to send it now)");
    let out = watch.wait(TIMEOUT);
    let took = pressed.elapsed();
    let text = out.text();
    assert!(took < Duration::from_secs(10), "watch ended {took:?} after the second Ctrl-C:\n{text}");
    assert_eq!(out.code, 130, "{text}\nstderr: {}", out.stderr);
    assert!(text.contains("⊘ turn 1 cancelled"), "{text}");
    assert!(
        text.contains("verdict     cancelled — the supervisor cancelled the run: cancelled on request; the run was cancelled in turn 1"),
        "{text}"
    );
    assert!(text.contains("violations  none"), "{text}");
    assert!(pids_matching(&marker).is_empty(), "processes left behind: {:?}", pids_matching(&marker));
    assert!(common::status_field(child, "State").is_none(), "the child (pid {child}) is reaped");
}

/// A third Ctrl-C sends SIGKILL at once, without waiting for the 20 s SIGTERM grace.
#[test]
fn a_third_ctrl_c_sends_sigkill_at_once() {
    let marker = unique("third-ctrl-c");
    let args = ["--interrupt-grace", "20", "--terminate-grace", "20"];
    let (mut watch, child) = watch_stubborn(&args, &stubborn_child(true), &marker);
    let pressed = Instant::now();
    press_ctrl_c(&mut watch, "» SIGINT sent; waiting up to 20s");
    press_ctrl_c(&mut watch, "» SIGTERM sent; SIGKILL in 20s (Ctrl-C again to send it now)");
    assert!(watch.running(), "the child ignores SIGTERM too: watch waits");
    press_ctrl_c(&mut watch, "» SIGKILL sent");
    let out = watch.wait(TIMEOUT);
    let took = pressed.elapsed();
    let text = out.text();
    assert!(took < Duration::from_secs(15), "watch ended {took:?} after the first Ctrl-C:\n{text}");
    assert_eq!(out.code, 137, "{text}\nstderr: {}", out.stderr);
    assert!(text.contains("verdict     incomplete"), "{text}");
    assert!(pids_matching(&marker).is_empty(), "processes left behind: {:?}", pids_matching(&marker));
    assert!(common::status_field(child, "State").is_none(), "the child (pid {child}) is reaped");
}

/// A child that leaves a grandchild holding its stdout, immune to SIGINT (a background job
/// of a non-interactive shell ignores it): the shell dies of the SIGINT, and watch must
/// leave no process of its group behind (the job is killed with the group, without waiting
/// for the grace periods).
#[test]
fn watch_cancel_escalates_and_reaps_the_whole_group() {
    let marker = unique("grandchild");
    // The background job is a shell whose command line carries the marker (as its $0).
    let script =
        format!("{}; sh -c 'while :; do sleep 1; done' {marker} & wait", sh_print_lines(&[HEADER, AGENT_START]));
    let mut command = hep(["watch", "--json", "--"]);
    command.args(sh(&script));
    let watch = Proc::spawn(command, None, Some(&marker));
    let watch_pid = watch.pid();
    let shell = poll(TIMEOUT, "the shell to start", || {
        pids_matching(&marker).into_iter().find(|&pid| ppid(pid) == Some(watch_pid))
    });
    let job = poll(TIMEOUT, "the background job to start", || {
        pids_matching(&marker).into_iter().find(|&pid| ppid(pid) == Some(shell))
    });
    poll(TIMEOUT, "the background job to ignore SIGINT", || {
        let ignored = common::status_field(job, "SigIgn").and_then(|m| u64::from_str_radix(&m, 16).ok());
        ignored.filter(|m| m & 0b10 != 0)
    });
    watch.signal(Signal::SIGINT);
    let out = watch.wait(TIMEOUT);
    assert_eq!(out.code, 130, "the shell died of SIGINT; stderr: {}", out.stderr);
    let report = out.json();
    // Exit code 130 ends a run `cancelled` wherever the signal found it; here in round 1.
    assert_eq!(report["verdict"], "cancelled", "{report:#}");
    assert_eq!(report["violations"][0]["code"], "cancelled_in_open_round", "{report:#}");
    // The job is reparented once the shell dies; give its new parent a moment to reap it.
    poll(TIMEOUT, "the background job to be gone", || pids_matching(&marker).is_empty().then_some(()));
    for pid in [shell, job] {
        assert!(common::status_field(pid, "State").is_none_or(|s| s.starts_with('Z')), "pid {pid} is gone");
    }
}

#[test]
fn child_killed_mid_line_is_incomplete_with_137() {
    let marker = unique("killed");
    let script = format!(
        "{}; printf '%s' {}; kill -9 $$ # {marker}",
        sh_print_lines(&[HEADER, AGENT_START]),
        sh_quote(r#"{"type":"message_delta","turn_id":1,"del"#)
    );
    let mut command = hep(["watch", "--json", "--"]);
    command.args(sh(&script));
    let out = Proc::spawn(command, None, Some(&marker)).wait(TIMEOUT);
    assert_eq!(out.code, 137, "watch mirrors the child's death by SIGKILL; stderr: {}", out.stderr);
    let report = out.json();
    assert_eq!(report["verdict"], "incomplete", "{report:#}");
    assert_eq!(report["exit_code"], 137, "{report:#}");
    assert_eq!(report["conforms"], false, "{report:#}");
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{report:#}");
    assert_eq!(skipped[0]["kind"], "truncated", "{report:#}");
    assert_eq!(skipped[0]["line"], 3, "{report:#}");
    let codes: Vec<&str> =
        report["violations"].as_array().unwrap().iter().map(|v| v["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["unterminated_turn"], "{report:#}");
    assert_eq!(report["violations"][0]["turn_id"], 1);
    assert_eq!(report["run"]["frames"], 2);
}

#[test]
fn watch_shows_a_frame_while_the_child_still_runs() {
    let flag = scratch("flag");
    let flag_text = flag.to_str().unwrap().to_owned();
    let marker_text = unique("MARKER-live-delta");
    let script = format!(
        "{}\nwhile [ ! -f {} ]; do sleep 0.05; done\n{}\n",
        sh_print_lines(&[HEADER, AGENT_START, MESSAGE_START, &delta_line(&format!("{marker_text} "))]),
        sh_quote(&flag_text),
        sh_print_lines(&[&done_line(&format!("{marker_text} "))]),
    );
    let mut command = hep(["watch", "--color", "never", "--"]);
    command.args(sh(&script));
    // The flag path is in the child's command line: a failing test sweeps the child too.
    let mut watch = Proc::spawn(command, None, Some(&flag_text));
    let needle = marker_text.as_bytes().to_vec();
    watch.read_until(TIMEOUT, "the marker delta on watch's stdout", |out| {
        out.windows(needle.len()).any(|w| w == needle.as_slice())
    });
    // The child cannot have finished: it waits for the flag, which does not exist yet.
    assert!(!flag.exists());
    let watch_pid = watch.pid();
    let child = pids_matching(&flag_text).into_iter().find(|&pid| ppid(pid) == Some(watch_pid));
    assert!(child.is_some(), "the child is still running while its delta is shown");
    assert!(watch.running());
    std::fs::write(&flag, b"go").unwrap();
    let out = watch.wait(TIMEOUT);
    let _ = std::fs::remove_file(&flag);
    let text = out.text();
    assert_eq!(out.code, 0, "{text}\nstderr: {}", out.stderr);
    assert!(text.contains("verdict     ok"), "{text}");
    assert_eq!(text.matches(&marker_text).count(), 2, "the delta, then the answer in the summary:\n{text}");
    assert!(text.contains("violations  none"), "{text}");
}

#[test]
fn watch_mirrors_the_child_exit_code() {
    let stream = [HEADER, AGENT_START, r#"{"type":"turn_error","turn_id":1,"error":"boom","fatal":true}"#];
    let mut command = hep(["watch", "--json", "--"]);
    command.args(sh(&format!("{}; exit 1", sh_print_lines(&stream))));
    let out = run(command, b"");
    assert_eq!(out.code, 1);
    let report = out.json();
    assert_eq!(report["verdict"], "failed", "{report:#}");
    assert_eq!(report["conforms"], true, "{report:#}");
}

#[test]
fn watch_keeps_the_stderr_tail() {
    let stream = [HEADER, AGENT_START, &done_line("hi")];
    let mut command = hep(["watch", "--json", "--"]);
    command.args(sh(&format!("echo diagnostics-on-stderr >&2; {}", sh_print_lines(&stream))));
    let out = run(command, b"");
    assert_eq!(out.code, 0);
    let report = out.json();
    assert_eq!(report["verdict"], "ok", "{report:#}");
    assert_eq!(report["stderr_tail"], "diagnostics-on-stderr\n", "{report:#}");
    assert_eq!(report["run"]["answer"], "hi");
}

#[test]
fn watch_of_a_missing_program_is_a_usage_error() {
    let out = run(hep(["watch", "--", "/nonexistent/hep-test-program"]), b"");
    assert_eq!(out.code, 2, "stderr: {}", out.stderr);
    assert!(out.stderr.contains("cannot supervise"), "{}", out.stderr);
}

#[test]
fn check_passes_a_conforming_simulator_run() {
    let out = run(hep(["check", "--", HEP, "simulate", "--scenario", "tools", "--speed", "0"]), b"");
    let text = out.text();
    assert_eq!(out.code, 0, "{text}\nstderr: {}", out.stderr);
    assert!(text.contains("verdict ok"), "{text}");
    assert!(text.contains("exit code 0"), "{text}");
}

#[test]
fn check_fails_an_exit_code_that_contradicts_the_last_terminal() {
    // Exit 0 after a failed last round: the reference never does that (exit 1 after a
    // last turn_done, a crash after the last round, is one of its paths: reference.rs).
    let stream = [HEADER, AGENT_START, r#"{"type":"turn_error","turn_id":1,"error":"boom","fatal":true}"#];
    let script = format!("{}; exit 0", sh_print_lines(&stream));
    let mut command = hep(["check", "--"]);
    command.args(sh(&script));
    let out = run(command, b"");
    let text = out.text();
    assert_eq!(out.code, 1, "{text}");
    assert!(text.contains("exit_code_mismatch"), "{text}");
    assert!(text.contains("does not conform"), "{text}");

    let mut command = hep(["check", "--format", "json", "--"]);
    command.args(sh(&script));
    let out = run(command, b"");
    assert_eq!(out.code, 1);
    let report = out.json();
    assert_eq!(report["verdict"], "protocol_error", "{report:#}");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["violations"][0]["code"], "exit_code_mismatch", "{report:#}");
    assert_eq!(report["violations"][0]["line"], 0, "{report:#}");
    assert_eq!(report["violations"][0]["turn_id"], 1, "{report:#}");
}

#[test]
fn check_requires_a_command() {
    let out = run(hep(["check"]), b"");
    assert_eq!(out.code, 2, "clap usage error; stderr: {}", out.stderr);
}

/// `hep watch --json … | head -0`: the report cannot be printed, but the supervision must
/// still mirror the child's exit code (the view's "a closed stdout must not stop the
/// supervision"), and nothing may panic.
#[test]
fn watch_json_with_a_closed_stdout_still_mirrors_the_exit_code() {
    let stream = [HEADER, AGENT_START, r#"{"type":"turn_error","turn_id":1,"error":"boom","fatal":true}"#];
    for json in [false, true] {
        let mut command = hep(["watch"]);
        if json {
            command.arg("--json");
        }
        command.args(["--"]).args(sh(&format!("{}; exit 1", sh_print_lines(&stream))));
        let (code, stderr) = common::run_with_closed_stdout(command, b"");
        assert!(!stderr.contains("panicked"), "watch (json: {json}) panicked on a closed stdout:\n{stderr}");
        assert_eq!(code, 1, "watch (json: {json}) mirrors the child's exit code 1; stderr:\n{stderr}");
    }
}

/// `hep check … | head -0` must not panic.
#[test]
fn check_with_a_closed_stdout_does_not_panic() {
    let mut command = hep(["check", "--", HEP, "simulate", "--scenario", "chat", "--speed", "0"]);
    command.env("RUST_BACKTRACE", "0");
    let (code, stderr) = common::run_with_closed_stdout(command, b"");
    assert!(!stderr.contains("panicked"), "check panicked on a closed stdout (exit {code}):\n{stderr}");
    assert_ne!(code, 101, "{stderr}");
}

/// With no command, `watch` supervises the built-in simulator (`simulate --scenario tools`,
/// at real speed: a few seconds).
#[test]
fn watch_without_a_command_watches_the_simulator() {
    let out = run(hep(["watch", "--json"]), b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = out.json();
    assert_eq!(report["verdict"], "ok", "{report:#}");
    assert_eq!(report["conforms"], true, "{report:#}");
    assert_eq!(report["run"]["header"]["fah"], env!("CARGO_PKG_VERSION"));
    assert_eq!(report["run"]["turns"].as_array().unwrap().len(), 3, "{report:#}");
    assert_eq!(report["run"]["last_terminal"]["type"], "turn_done", "{report:#}");
}

/// In strict mode the stream halts at the first error, but watch must keep draining the
/// child's stdout: a child writing megabytes after the halt must not block on a full pipe.
#[test]
fn watch_strict_keeps_draining_after_a_halt() {
    let script = "echo not-json; head -c 3000000 /dev/zero | tr '\\0' a; echo; exit 0";
    let mut command = hep(["watch", "--strict", "--json", "--"]);
    command.args(sh(script));
    let out = run(command, b"");
    assert_eq!(out.code, 0, "watch mirrors the child's exit 0; stderr: {}", out.stderr);
    let report = out.json();
    assert_eq!(report["verdict"], "protocol_error", "{report:#}");
    assert_eq!(report["halted"]["kind"], "syntax", "{report:#}");
    assert_eq!(report["halted"]["line"], 1, "{report:#}");
}

#[test]
fn watch_ends_with_the_child_and_reaps_what_it_left_behind() {
    // A duration no other process uses makes the background sleep findable.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let marker = format!("sleep 60.{}{nanos}", std::process::id());
    let stream = [HEADER, AGENT_START, &done_line("hi")];
    let mut command = hep(["watch", "--json", "--"]);
    // The background sleep keeps the child's stdout open after the child exits.
    command.args(sh(&format!("{marker} & {}; exit 0", sh_print_lines(&stream))));
    let out = run(command, b"");
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.json()["verdict"], "ok");
    let left = pids_matching(&marker);
    assert!(left.is_empty(), "the child's background process outlived watch: {left:?}");
}
