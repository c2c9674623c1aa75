//! Process faults under `hep watch` and `hep check`: a child that closes stdout but keeps
//! running, floods stdout and stderr, ignores SIGINT (and SIGTERM) for the grace periods
//! given (`--interrupt-grace`, `--terminate-grace`), leaves grandchildren (one in a session
//! of its own), ends without a terminal frame, or outlives `--timeout` (of `watch` and of
//! `check`).
//! Each test checks the verdict, the exit code, and that nothing the child started is left.
//! (Killed mid-line, Ctrl-C pressed once, twice and three times, and leftovers in the
//! group: watch.rs.)

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{
    AGENT_START, HEADER, HEP, Proc, TIMEOUT, done_line, hep, pids_matching, poll, ppid, run, scratch, sh_print_lines,
    status_field, unique,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

const CANCELLED: &str = r#"{"type":"cancelled","turn_id":1}"#;
/// A bounded wait (about 30 s) for the file `$1`.
const WAIT_FOR_FLAG: &str = r#"i=0; while [ ! -e "$1" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done"#;
const FOREVER: &str = "i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done";

/// `hep <args> -- sh -c <script> sh <marker>`: `$1` in the script is the marker (a unique
/// path), which also puts it in the command line of the shell and of its subshells.
fn watch_sh(args: &[&str], script: &str, marker: &str) -> std::process::Command {
    let mut command = hep(args);
    command.args(["--", "sh", "-c", script, "sh", marker]);
    command
}

/// The child `sh` of the `hep` process `parent`.
fn child_of(parent: i32, marker: &str) -> i32 {
    poll(TIMEOUT, "the child to start", || pids_matching(marker).into_iter().find(|&pid| ppid(pid) == Some(parent)))
}

fn gone(pid: i32) -> bool {
    status_field(pid, "State").is_none_or(|state| state.starts_with('Z'))
}

fn read_pid(path: &Path) -> i32 {
    poll(TIMEOUT, "a pid file", || std::fs::read_to_string(path).ok()?.trim().parse().ok())
}

// ---- the child closes stdout but keeps running ----

#[test]
fn watch_waits_for_the_exit_of_a_child_that_closed_stdout() {
    let flag = scratch("flag");
    let marker = flag.to_str().unwrap();
    let script = format!(
        "{}; exec 1>&-; {WAIT_FOR_FLAG}; echo after-the-flag >&2; exit 0",
        sh_print_lines(&[HEADER, AGENT_START, &done_line("hi")])
    );
    let mut watch = Proc::spawn(watch_sh(&["watch", "--json"], &script, marker), None, Some(marker));
    let child = child_of(watch.pid(), marker);
    poll(TIMEOUT, "the child to close its stdout", || {
        std::fs::read_link(format!("/proc/{child}/fd/1")).is_err().then_some(())
    });
    assert!(watch.running(), "watch ended when the child closed stdout, before it exited");
    std::fs::write(&flag, b"").unwrap();
    let out = watch.wait(TIMEOUT);
    let _ = std::fs::remove_file(&flag);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let report = out.json();
    assert_eq!((report["verdict"].as_str(), report["conforms"].as_bool()), (Some("ok"), Some(true)), "{report:#}");
    assert_eq!(report["stderr_tail"], "after-the-flag\n", "stderr is read to the child's exit");
    assert!(gone(child));
}

#[test]
fn ctrl_c_and_timeout_reach_a_child_that_closed_stdout() {
    let script =
        format!("trap 'exit 130' INT; {}; exec 1>&-; {FOREVER}; exit 3", sh_print_lines(&[HEADER, AGENT_START]));
    for timeout in [false, true] {
        let marker = unique("closed-stdout");
        let args: &[&str] = if timeout { &["watch", "--json", "--timeout", "0.3"] } else { &["watch", "--json"] };
        let watch = Proc::spawn(watch_sh(args, &script, &marker), None, Some(&marker));
        let child = child_of(watch.pid(), &marker);
        poll(TIMEOUT, "the child to close its stdout", || {
            std::fs::read_link(format!("/proc/{child}/fd/1")).is_err().then_some(())
        });
        if !timeout {
            watch.signal(Signal::SIGINT);
        }
        let out = watch.wait(TIMEOUT);
        assert_eq!(out.code, 130, "stderr: {}", out.stderr);
        let report = out.json();
        // Exit 130 in the middle of a round: the reference's path when its run does not
        // settle in time (conformance/stream/reference/signal-mid-round-not-settled.json).
        assert_eq!(report["verdict"], "cancelled", "{report:#}");
        assert_eq!(report["violations"][0]["code"], "cancelled_in_open_round", "{report:#}");
        assert_eq!(report["timed_out"], timeout, "{report:#}");
        assert!(gone(child) && pids_matching(&marker).is_empty());
    }
}

// ---- the child floods stdout and stderr ----

/// 50,000 numbered deltas of about 1 KB on stdout (51 MB) and as much on stderr at the
/// same time, as fast as `awk` and `yes` write them; `watch` renders every delta, in order,
/// with bounded memory.
#[test]
fn watch_keeps_every_frame_of_a_flood_in_order_with_bounded_memory() {
    const FRAMES: usize = 50_000;
    let marker = unique("flood");
    let pad = "x".repeat(1000);
    let script = format!(
        r#"{}; yes "stderr {pad}" | head -n {FRAMES} >&2 & awk 'BEGIN {{ for (i = 0; i < {FRAMES}; i++) printf "{{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"<%08d>{pad}\"}}\n", i }}'; wait; echo stderr-end >&2; {}"#,
        sh_print_lines(&[HEADER, AGENT_START, common::MESSAGE_START]),
        sh_print_lines(&[&done_line("hi")]),
    );
    let mut watch = Proc::spawn(watch_sh(&["watch", "--color", "never"], &script, &marker), None, Some(&marker));
    let pid = watch.pid();
    let mut peak_kib = 0;
    while watch.running() {
        let hwm = status_field(pid, "VmHWM").and_then(|v| v.trim_end_matches(" kB").trim().parse::<u64>().ok());
        peak_kib = peak_kib.max(hwm.unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = watch.wait(TIMEOUT);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let numbers: Vec<usize> = text.split('<').skip(1).filter_map(|s| s.get(..8)?.parse().ok()).collect();
    assert_eq!(numbers.len(), FRAMES, "every delta is shown once");
    assert!(numbers.iter().enumerate().all(|(i, &n)| i == n), "the deltas are shown in order");
    assert!(text.contains("verdict     ok"), "{}", &text[text.len().saturating_sub(2000)..]);
    assert!(text.contains("stderr-end"), "the stderr tail ends with the child's last line");
    assert!(peak_kib > 0 && peak_kib < 48 * 1024, "watch's peak memory was {peak_kib} KiB for a 100 MB flood");
}

// ---- the child ignores SIGINT: SIGTERM, then SIGKILL, after the grace periods ----

/// With `--interrupt-grace 0.5`, SIGTERM follows SIGINT after half a second (not the
/// default 12 s).
#[test]
fn sigint_ignored_escalates_to_sigterm_and_the_verdict_is_cancelled() {
    let marker = unique("only-sigterm");
    let script = format!(
        "stop() {{ {}; exit 130; }}; trap '' INT; trap stop TERM; {}; {FOREVER}; exit 3",
        sh_print_lines(&[CANCELLED]),
        sh_print_lines(&[HEADER, AGENT_START])
    );
    let args = ["watch", "--json", "--timeout", "0.2", "--interrupt-grace", "0.5"];
    let started = Instant::now();
    let out = Proc::spawn(watch_sh(&args, &script, &marker), None, Some(&marker)).wait(TIMEOUT);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(6), "the 0.5 s interrupt grace was not used: {took:?}");
    assert_eq!(out.code, 130, "stderr: {}", out.stderr);
    let report = out.json();
    assert_eq!(report["verdict"], "cancelled", "{report:#}");
    assert_eq!(report["conforms"], true, "{report:#}");
    assert_eq!(report["timed_out"], true, "{report:#}");
    assert!(pids_matching(&marker).is_empty());
}

/// Both grace periods given; the view says what it waits for at each step.
#[test]
fn sigint_and_sigterm_ignored_escalate_to_sigkill() {
    let marker = unique("stubborn");
    let script = format!("trap '' INT TERM; {}; {FOREVER}; exit 3", sh_print_lines(&[HEADER, AGENT_START]));
    let args =
        ["watch", "--color", "never", "--timeout", "0.2", "--interrupt-grace", "0.4", "--terminate-grace", "0.3"];
    let watch = Proc::spawn(watch_sh(&args, &script, &marker), None, Some(&marker));
    let child = child_of(watch.pid(), &marker);
    let out = watch.wait(TIMEOUT);
    let text = out.text();
    assert_eq!(out.code, 137, "{text}\nstderr: {}", out.stderr);
    for note in [
        "» timed out after 0.2 s",
        "» SIGINT sent; waiting up to 0.4s for the harness to settle and exit (Ctrl-C again to stop it now)",
        "» SIGTERM sent; SIGKILL in 0.3s (Ctrl-C again to send it now)",
        "» SIGKILL sent",
    ] {
        assert!(text.contains(note), "{note:?} missing:\n{text}");
    }
    assert!(text.contains("verdict     incomplete"), "{text}");
    assert!(gone(child) && pids_matching(&marker).is_empty());
}

// ---- grandchildren, one of them in a session of its own ----
//
// A process that calls setsid leaves the child's process group, so group signals no longer
// reach it (the documented limit). What watch guarantees: it does not wait for such a
// process beyond the drain grace, although it holds the child's stdout and stderr open.

fn grandchildren(end: &str) {
    let pidfiles = scratch("sleeper");
    let marker = pidfiles.to_str().unwrap().to_owned();
    let tail = if end == "done" {
        format!("{}; exit 0", sh_print_lines(&[&done_line("hi")]))
    } else {
        format!("{FOREVER}; exit 3")
    };
    let script = format!(
        r#"stop() {{ {}; exit 130; }}; trap stop INT; sleep 60 & echo $! > "$1.group"; setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 60' sh "$1.session" & i=0; while [ ! -e "$1.session" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; {}; : > "$1.ready"; {tail}"#,
        sh_print_lines(&[CANCELLED]),
        sh_print_lines(&[HEADER, AGENT_START]),
    );
    let watch = Proc::spawn(watch_sh(&["watch", "--json"], &script, &marker), None, None);
    let child = child_of(watch.pid(), &marker);
    let session = Path::new(&format!("{marker}.session")).to_owned();
    let (grouped, escapee) = (read_pid(Path::new(&format!("{marker}.group"))), read_pid(&session));
    // The Ctrl-C below must find the run started (the header written).
    poll(TIMEOUT, "the child to write its header", || Path::new(&format!("{marker}.ready")).exists().then_some(()));
    if end == "cancel" {
        watch.signal(Signal::SIGINT);
    }
    let out = watch.wait(TIMEOUT);
    let escaped = !gone(escapee);
    let _ = kill(Pid::from_raw(escapee), Signal::SIGKILL);
    assert!(escaped, "the grandchild in its own session still held stdout: watch did not wait for it");
    let report = out.json();
    let expected = if end == "done" { ("ok", 0) } else { ("cancelled", 130) };
    assert_eq!((report["verdict"].as_str().unwrap(), out.code), expected, "{report:#}");
    assert!(gone(child) && gone(grouped), "the child and the sleep in its group are gone");
}

#[test]
fn a_grandchild_in_its_own_session_does_not_keep_watch_after_the_child_ends() {
    grandchildren("done");
}

#[test]
fn a_grandchild_in_its_own_session_does_not_keep_watch_after_a_cancel() {
    grandchildren("cancel");
}

// ---- the child exits without a terminal frame ----

#[test]
fn exit_without_a_terminal_frame_is_judged_by_where_it_stopped() {
    let cases: [(String, i32, &str, &[&str]); 5] = [
        (sh_print_lines(&[HEADER, AGENT_START]) + "; exit 0", 0, "incomplete", &["unterminated_turn"]),
        (sh_print_lines(&[HEADER, AGENT_START]) + "; exit 3", 3, "incomplete", &["unterminated_turn"]),
        // Before agent_start, exit 0 claims a run that never happened.
        (
            sh_print_lines(&[HEADER]) + "; exit 0",
            0,
            "protocol_error",
            &["ended_before_agent_start", "exit_code_mismatch"],
        ),
        (
            sh_print_lines(&[HEADER]) + "; exit 3",
            3,
            "incomplete",
            &["ended_before_agent_start", "unexpected_exit_code"],
        ),
        ("exit 0".to_owned(), 0, "incomplete", &["empty_stream"]),
    ];
    for (script, code, verdict, violations) in cases {
        let out = run(watch_sh(&["watch", "--json"], &script, "no-terminal"), b"");
        assert_eq!(out.code, code, "watch mirrors the exit code of {script:?}");
        let report = out.json();
        assert_eq!(report["verdict"], verdict, "{script}: {report:#}");
        let codes: Vec<&str> =
            report["violations"].as_array().unwrap().iter().map(|v| v["code"].as_str().unwrap()).collect();
        assert_eq!(codes, violations, "{script}: {report:#}");

        let out = run(watch_sh(&["check", "--format", "json"], &script, "no-terminal"), b"");
        let report = out.json();
        assert_eq!(report["verdict"], verdict, "{script}: {report:#}");
        assert_eq!(out.code, i32::from(report["conforms"] != true), "check exits 1 when {script:?} does not conform");
    }
}

// ---- --timeout ----

#[test]
fn timeout_cancels_a_run_that_takes_too_long() {
    let session = unique("timeout");
    let mut command = hep(["watch", "--json", "--timeout", "0.5", "--", HEP, "simulate", "--scenario", "cancel-me"]);
    command.args(["--session", &session]);
    let out = Proc::spawn(command, None, Some(&session)).wait(TIMEOUT);
    assert_eq!(out.code, 130, "stderr: {}", out.stderr);
    let report = out.json();
    assert_eq!(report["verdict"], "cancelled", "{report:#}");
    assert_eq!(report["conforms"], true, "{report:#}");
    assert_eq!(report["timed_out"], true, "{report:#}");
    assert_eq!(report["run"]["last_terminal"]["type"], "cancelled", "{report:#}");
    assert!(pids_matching(&session).is_empty());
}

#[test]
fn a_run_that_ends_in_time_does_not_time_out() {
    let out = run(
        hep(["watch", "--json", "--timeout", "30", "--", HEP, "simulate", "--scenario", "chat", "--speed", "0"]),
        b"",
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let report = out.json();
    assert_eq!((report["verdict"].as_str(), report["timed_out"].as_bool()), (Some("ok"), Some(false)), "{report:#}");
}

#[test]
fn a_bad_timeout_or_grace_is_a_usage_error_naming_the_value() {
    for command in ["watch", "check"] {
        for flag in ["--timeout", "--interrupt-grace", "--terminate-grace"] {
            for (value, says) in [
                ("-1", "`-1` is not a duration: give seconds >= 0"),
                ("soon", "`soon` is not a number of seconds"),
                ("inf", "`inf` is not a duration"),
                ("NaN", "`NaN` is not a duration"),
            ] {
                let out = run(hep([command, flag, value, "--", "true"]), b"");
                let label = format!("{command} {flag} {value}");
                assert_eq!(out.code, 2, "{label}: {}", out.stderr);
                assert!(out.stderr.contains(says), "{label}: {}", out.stderr);
                assert!(out.stderr.contains(flag), "{label} names the flag: {}", out.stderr);
            }
        }
    }
    let json: Value = run(hep(["watch", "--json", "--timeout", "0", "--", "true"]), b"").json();
    assert_eq!(json["verdict"], "incomplete", "a zero timeout still runs and judges the child: {json:#}");
    let zero = ["watch", "--json", "--interrupt-grace", "0", "--terminate-grace", "0", "--", "true"];
    assert_eq!(run(hep(zero), b"").json()["verdict"], "incomplete", "zero graces are accepted");
}

#[test]
fn check_timeout_cancels_an_emitter_and_a_cancelled_run_still_conforms() {
    let session = unique("check-timeout");
    let mut command = hep(["check", "--timeout", "0.5", "--", HEP, "simulate", "--scenario", "cancel-me"]);
    command.args(["--session", &session]);
    let out = Proc::spawn(command, None, Some(&session)).wait(TIMEOUT);
    let text = out.text();
    assert_eq!(out.code, 0, "a harness that honours the cancel conforms: {text}");
    assert!(text.contains("timed out after 0.5 s"), "{text}");
    // The default grace is the core's, which outlasts the reference's 10 s settle.
    let grace = hep_core::supervise::INTERRUPT_GRACE.as_secs();
    assert_eq!(grace, 12);
    assert!(
        text.contains(&format!("SIGINT sent; waiting up to {grace}s for the harness to settle and exit")),
        "{text}"
    );
    assert!(text.contains("exit code 130"), "{text}");
    assert!(pids_matching(&session).is_empty());
}
