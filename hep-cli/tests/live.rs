//! `hep watch` and `hep check` on hep-process with real children: `--idle-timeout`, live
//! stderr lines in the view (dimmed, in order with the frames), a cancel that keeps
//! reading a child blocked on a full pipe while `watch` itself is blocked, the child
//! killed with `watch` (PR_SET_PDEATHSIG), and the `--format` spellings.

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{
    AGENT_START, HEADER, MESSAGE_START, Proc, TIMEOUT, done_line, hep, pids_matching, poll, ppid, run, sh_print_lines,
    status_field, unique,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CANCELLED: &str = r#"{"type":"cancelled","turn_id":1}"#;

/// `hep <args> -- sh -c <script> sh <marker>`.
fn hep_sh(args: &[&str], script: &str, marker: &str) -> Command {
    let mut command = hep(args);
    command.args(["--", "sh", "-c", script, "sh", marker]);
    command
}

fn gone(pid: i32) -> bool {
    status_field(pid, "State").is_none_or(|state| state.starts_with('Z'))
}

/// A child that writes its header and round start, then nothing on stdout for 30 s (but
/// keeps writing to stderr, which does not count), and exits 130 on SIGINT.
fn silent_child() -> String {
    format!(
        "trap 'exit 130' INT; {}; i=0; while [ $i -lt 1500 ]; do echo still-here >&2; sleep 0.02; i=$((i+1)); done; exit 3",
        sh_print_lines(&[HEADER, AGENT_START])
    )
}

#[test]
fn idle_timeout_cancels_a_silent_child_and_the_summary_says_why() {
    let marker = unique("idle");
    let started = Instant::now();
    let out = Proc::spawn(
        hep_sh(&["watch", "--color", "never", "--idle-timeout", "0.5"], &silent_child(), &marker),
        None,
        Some(&marker),
    )
    .wait(TIMEOUT);
    let text = out.text();
    assert!(started.elapsed() < Duration::from_secs(10), "{text}");
    assert_eq!(out.code, 130, "{text}\nstderr: {}", out.stderr);
    let lines = out.lines();
    let idle = lines.iter().position(|l| l == "» idle for 0.5 s: no frame").unwrap_or_else(|| panic!("{text}"));
    assert!(lines[idle + 1].starts_with("» SIGINT sent; waiting up to 12s"), "{text}");
    assert!(
        text.contains("verdict     cancelled — the supervisor cancelled the run: idle for 0.5 s: no frame"),
        "{text}"
    );
    assert!(pids_matching(&marker).is_empty());

    let marker = unique("idle-json");
    let args = ["watch", "--format", "json", "--idle-timeout", "0.3"];
    let out = Proc::spawn(hep_sh(&args, &silent_child(), &marker), None, Some(&marker)).wait(TIMEOUT);
    let report = out.json();
    assert_eq!(report["verdict"], "cancelled", "{report:#}");
    assert_eq!(report["reasons"][0], "the supervisor cancelled the run: idle for 0.3 s: no frame", "{report:#}");
    assert_eq!(report["supervision"]["cancelled_by"], "idle", "{report:#}");
    assert_eq!(report["timed_out"], false, "{report:#}");

    let out = run(hep_sh(&["check", "--idle-timeout", "0.3"], &silent_child(), &unique("idle-check")), b"");
    let text = out.text();
    assert!(text.contains("idle for 0.3 s: no frame\nSIGINT sent; waiting up to 12s"), "{text}");
    assert!(text.contains("exit code 130"), "{text}");
}

#[test]
fn a_bad_idle_timeout_is_a_usage_error() {
    for command in ["watch", "check"] {
        let out = run(hep([command, "--idle-timeout", "-1", "--", "true"]), b"");
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(
            out.stderr.contains("--idle-timeout") && out.stderr.contains("`-1` is not a duration"),
            "{}",
            out.stderr
        );
    }
}

/// Stderr lines show up in the live view as they arrive, between the frames written
/// before and after them; the tail is still in the summary.
#[test]
fn the_view_shows_stderr_lines_live_and_in_order() {
    let script = format!(
        "echo err-1 >&2; sleep 0.1; {}; sleep 0.1; echo err-2 >&2; sleep 0.1; {}; sleep 0.1; printf 'err-3' >&2; sleep 0.1; {}",
        sh_print_lines(&[HEADER, AGENT_START, MESSAGE_START]),
        sh_print_lines(&[&common::delta_line("hello\\n")]),
        sh_print_lines(&[&done_line("hello")])
    );
    let out = run(hep_sh(&["watch", "--color", "never"], &script, "stderr-live"), b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = out.lines();
    let at = |wanted: &str| lines.iter().position(|l| l == wanted).unwrap_or_else(|| panic!("{wanted:?}: {lines:#?}"));
    let order = [at("  stderr: err-1"), at("● HEP v1 · fa 9.9.9 · session t"), at("  stderr: err-2"), at("hello")];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{lines:#?}");
    // The last line had no line end: it shows when stderr closes.
    assert!(at("  stderr: err-3") < at("── summary ──"), "{lines:#?}");
    let tail = at("stderr (tail)");
    assert_eq!(lines[tail + 1..], ["  err-1", "  err-2", "  err-3"], "{lines:#?}");

    let out = run(hep_sh(&["watch", "--color", "always"], &script, "stderr-live"), b"");
    assert!(out.text().contains("\x1b[2m  stderr: err-1\x1b[0m"), "dimmed: {:?}", out.text());
}

/// The child floods stdout until SIGINT, then writes `cancelled` and exits 130. The test
/// does not read `watch`'s output for a while, so `watch` blocks writing its view, and the
/// child blocks on its full pipe; then Ctrl-C. `watch` must carry the cancel out and read
/// on, so the child can finish its write and stop: verdict `cancelled`, no SIGTERM.
#[test]
fn ctrl_c_keeps_reading_a_child_blocked_on_a_full_pipe() {
    let marker = unique("flood-cancel");
    let delta = common::delta_line(&"x".repeat(1000));
    let script = format!(
        r#"trap 'stop=1' INT; {}; while [ -z "$stop" ]; do printf '%s\n' '{delta}'; done; {}; exit 130"#,
        sh_print_lines(&[HEADER, AGENT_START, MESSAGE_START]),
        sh_print_lines(&[CANCELLED])
    );
    let mut command = hep_sh(&["watch", "--color", "never", "--interrupt-grace", "20"], &script, &marker);
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut watch = command.spawn().unwrap();
    let watch_pid = i32::try_from(watch.id()).unwrap();
    let child = poll(TIMEOUT, "the child to start", || {
        pids_matching(&marker).into_iter().find(|&pid| ppid(pid) == Some(watch_pid))
    });
    poll(TIMEOUT, "the child to fill its pipe", || common::bytes_written(child).filter(|&n| n > 64 << 10));
    std::thread::sleep(Duration::from_millis(300));
    let pressed = Instant::now();
    kill(Pid::from_raw(watch_pid), Signal::SIGINT).unwrap();
    let mut out = Vec::new();
    let mut stdout = watch.stdout.take().unwrap();
    let reader = std::thread::spawn(move || stdout.read_to_end(&mut out).map(|_| out));
    let status = poll(TIMEOUT, "watch to end", || watch.try_wait().unwrap());
    let took = pressed.elapsed();
    let text = String::from_utf8(reader.join().unwrap().unwrap()).unwrap();
    let summary = &text[text.rfind("── summary ──").unwrap_or_else(|| panic!("no summary"))..];
    assert!(took < Duration::from_secs(10), "the child stopped at SIGINT: {took:?}");
    assert_eq!(status.code(), Some(130), "{summary}");
    assert!(summary.contains("verdict     cancelled"), "{summary}");
    assert!(text.contains("» SIGINT sent") && !text.contains("» SIGTERM sent"), "SIGINT was enough");
    assert!(text.contains("⊘ turn 1 cancelled"), "{summary}");
    assert!(pids_matching(&marker).is_empty());
}

/// SIGKILL, which `watch` cannot handle, still takes the child along: the kernel sends it
/// SIGKILL when its supervisor dies (PR_SET_PDEATHSIG).
#[test]
fn a_watch_killed_by_sigkill_takes_its_child_along() {
    let marker = unique("pdeathsig");
    let script = format!(
        "trap '' INT TERM; {}; i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done",
        sh_print_lines(&[HEADER, AGENT_START])
    );
    let mut watch = Proc::spawn(hep_sh(&["watch", "--color", "never"], &script, &marker), None, Some(&marker));
    let watch_pid = watch.pid();
    let child = poll(TIMEOUT, "the child to start", || {
        pids_matching(&marker).into_iter().find(|&pid| ppid(pid) == Some(watch_pid))
    });
    watch.read_until(TIMEOUT, "the header on screen", |out| String::from_utf8_lossy(out).contains("● HEP v1"));
    kill(Pid::from_raw(watch_pid), Signal::SIGKILL).unwrap();
    let out = watch.wait(TIMEOUT);
    assert_eq!(out.code, 137);
    poll(TIMEOUT, "the child to die with watch", || gone(child).then_some(()));
}

#[test]
fn every_json_spelling_gives_the_same_report() {
    let script = format!("{}; exit 0", sh_print_lines(&[HEADER, AGENT_START, &done_line("hi")]));
    let json = run(hep_sh(&["watch", "--json"], &script, "spelling"), b"").json();
    let format = run(hep_sh(&["watch", "--format", "json"], &script, "spelling"), b"").json();
    let without_duration = |mut v: serde_json::Value| {
        v["supervision"]["duration_ms"] = 0.into();
        v
    };
    assert_eq!(without_duration(json), without_duration(format));

    let both = run(hep_sh(&["watch", "--json", "--format", "jsonl"], &script, "spelling"), b"");
    assert_eq!(both.code, 2, "--json and --format conflict: {}", both.stderr);

    for flag in ["--format", "--output"] {
        let out = common::run_hep(&["--version", flag, "json"], b"");
        assert_eq!(out.json()["hep"], "v1", "{flag}");
    }
}

#[test]
fn check_and_watch_mirror_the_exit_of_a_child_killed_by_a_signal() {
    let script = format!("{}; kill -TERM $$", sh_print_lines(&[HEADER, AGENT_START]));
    let out = run(hep_sh(&["watch", "--json"], &script, "killed"), b"");
    assert_eq!(out.code, 143);
    assert_eq!(out.json()["verdict"], "incomplete");
    let out = run(hep_sh(&["check"], &script, "killed"), b"");
    assert!(out.text().contains("exit code 143"), "{}", out.text());
    assert_eq!(out.code, 1);
}
