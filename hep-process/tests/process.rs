//! hep-process with real children: frames reach the caller while the child runs, a cancel
//! keeps reading a child blocked on a full pipe, the idle timeout, live stderr in order, a
//! second cancel escalates at once, the timeout's ladder to SIGKILL, stdin, and no orphan
//! when the handle is dropped or the supervising process exits, panics or is SIGKILLed
//! (those run in a child copy of this test binary: the `helper` test below).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use hep_core::supervise::{CancelReason, Signal};
use hep_core::{Event, Terminal};
use hep_process::{Canceller, Command, Process, Update};
use nix::sys::signal::{self, kill};
use nix::unistd::Pid;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const HEADER: &str = r#"{"type":"hep_header","hep":"v1","fah":"9.9.9","session":"t"}"#;
const AGENT_START: &str = r#"{"type":"agent_start","turn_id":1}"#;
const MESSAGE_START: &str = r#"{"type":"message_start","turn_id":1,"role":"assistant"}"#;
const CANCELLED: &str = r#"{"type":"cancelled","turn_id":1}"#;
const DONE: &str = r#"{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],"usage":{"input":1,"output":2,"cost":0.0},"stop_reason":"stop"}"#;
/// The longest any wait of this suite may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A token no other process carries: in every child's command line, swept by [`Sweep`].
fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    format!("{prefix}-{}-{}-{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst))
}

/// A fresh path in cargo's scratch directory for this crate's tests.
fn scratch(prefix: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(unique(prefix))
}

/// `sh -c <script> sh <marker>`: `$1` is the marker.
fn sh(script: &str, marker: &str) -> Command {
    let mut command = Command::new("sh");
    command.args(["-c", script, "sh", marker]);
    command
}

/// `printf '%s\n' <lines>` for sh.
fn print_lines(lines: &[&str]) -> String {
    let words: Vec<String> = lines.iter().map(|l| format!("'{}'", l.replace('\'', r"'\''"))).collect();
    format!("printf '%s\\n' {}", words.join(" "))
}

/// Kills, on drop, every process whose command line holds the marker (a failing test
/// leaves nothing behind).
struct Sweep(String);

impl Drop for Sweep {
    fn drop(&mut self) {
        for pid in pids_matching(&self.0) {
            let _ = kill(Pid::from_raw(pid), signal::SIGKILL);
        }
    }
}

/// Live (not zombie) processes whose command line contains `marker`.
fn pids_matching(marker: &str) -> Vec<i32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| u32::try_from(pid).is_ok_and(|p| p != me))
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).replace('\0', " ").contains(marker))
        })
        .filter(|&pid| !gone(pid))
        .collect()
}

/// The process is gone (or a zombie waiting for its parent).
fn gone(pid: i32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("State:")).is_none_or(|s| s.trim().starts_with('Z'))
}

/// Polls `cond` every 10 ms until it holds; panics after [`TIMEOUT`].
fn wait_for<T>(what: &str, mut cond: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(v) = cond() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(10));
    }
}

fn read_pid(path: &Path) -> i32 {
    wait_for("a pid file", || std::fs::read_to_string(path).ok()?.trim().parse().ok())
}

/// The frame type of an update, if it is a frame.
fn frame_type(update: &Update) -> Option<&str> {
    match update {
        Update::Event(Event::Frame(received)) => Some(received.frame.frame_type()),
        _ => None,
    }
}

/// The next update, which must come within [`TIMEOUT`] (the child is killed otherwise).
fn next(process: &mut Process) -> Update {
    process.next_update().unwrap().expect("an update before the end")
}

#[test]
fn a_frame_reaches_the_caller_while_the_child_still_runs() {
    let flag = scratch("flag");
    let marker = flag.to_str().unwrap();
    let _sweep = Sweep(marker.to_owned());
    let script = format!(
        r#"{}; i=0; while [ ! -e "$1" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; {}"#,
        print_lines(&[HEADER]),
        print_lines(&[AGENT_START, DONE])
    );
    let mut process = sh(&script, marker).spawn().unwrap();
    assert_eq!(frame_type(&next(&mut process)), Some("hep_header"));
    assert!(!gone(i32::try_from(process.id()).unwrap()), "the child waits for the flag");
    std::fs::write(&flag, b"").unwrap();
    let result = process.wait().unwrap();
    let _ = std::fs::remove_file(&flag);
    assert_eq!(result.verdict.as_str(), "ok", "{:?}", result.reasons);
    let supervision = result.supervision.unwrap();
    assert_eq!((supervision.cancelled_by, supervision.signals.len()), (None, 0));
}

/// The child floods stdout and stops at SIGINT, writing `cancelled`. The caller stops
/// reading, so the pipe fills and the child blocks in `write`; then it cancels. The driver
/// must go on reading (the child's write completes, its trap runs, it writes `cancelled`
/// and exits 130), not wait for the grace with the pipe full (the child would then end
/// by SIGTERM, `incomplete`).
#[test]
fn cancel_keeps_reading_a_child_blocked_on_a_full_pipe() {
    let marker = unique("flood");
    let _sweep = Sweep(marker.clone());
    let delta = format!(r#"{{"type":"message_delta","turn_id":1,"delta":"{}"}}"#, "x".repeat(1000));
    let script = format!(
        r#"trap 'stop=1' INT; {}; while [ -z "$stop" ]; do printf '%s\n' '{delta}'; done; {}; exit 130"#,
        print_lines(&[HEADER, AGENT_START, MESSAGE_START]),
        print_lines(&[CANCELLED])
    );
    let mut process = sh(&script, &marker).interrupt_grace(Duration::from_secs(20)).spawn().unwrap();
    let mut deltas = 0;
    while deltas < 10 {
        deltas += usize::from(frame_type(&next(&mut process)) == Some("message_delta"));
    }
    // Nobody reads for a while: the child fills the pipe and blocks in `write`.
    thread::sleep(Duration::from_millis(300));
    let cancelled_at = Instant::now();
    process.cancel();
    let (mut after, mut steps) = (0, Vec::new());
    while let Some(update) = process.next_update().unwrap() {
        match update {
            Update::Signal(step) => steps.push((step.signal, step.reason)),
            other => after += usize::from(frame_type(&other) == Some("message_delta") && !steps.is_empty()),
        }
    }
    let result = process.result().unwrap();
    assert!(after > 0, "frames are read after the cancel");
    assert_eq!(steps, [(Signal::Interrupt, CancelReason::User)], "SIGINT was enough");
    assert!(cancelled_at.elapsed() < Duration::from_secs(10), "the child stopped at SIGINT");
    assert_eq!((result.verdict.as_str(), result.exit_code), ("cancelled", Some(130)), "{:?}", result.reasons);
    assert_eq!(result.run.last_terminal.map(|(terminal, _)| terminal), Some(Terminal::Cancelled));
    assert!(pids_matching(&marker).is_empty());
}

#[test]
fn idle_timeout_cancels_a_child_that_sends_no_frame() {
    let marker = unique("idle");
    let _sweep = Sweep(marker.clone());
    // Stderr does not count as activity.
    let script = format!(
        "trap 'exit 130' INT; {}; i=0; while [ $i -lt 1500 ]; do echo still-here >&2; sleep 0.02; i=$((i+1)); done; exit 3",
        print_lines(&[HEADER, AGENT_START])
    );
    let started = Instant::now();
    let mut steps = Vec::new();
    let result = sh(&script, &marker)
        .idle_timeout(Duration::from_millis(300))
        .run(|update| {
            if let Update::Signal(step) = update {
                steps.push((step.signal, step.reason, started.elapsed()));
            }
        })
        .unwrap();
    assert_eq!(steps.len(), 1, "{steps:?}");
    let (signal, reason, at) = steps[0];
    assert_eq!((signal, reason), (Signal::Interrupt, CancelReason::Idle));
    assert!(at >= Duration::from_millis(300) && at < Duration::from_secs(5), "SIGINT after {at:?}");
    assert_eq!(result.verdict.as_str(), "cancelled", "{:?}", result.reasons);
    assert_eq!(result.reasons[0], "the supervisor cancelled the run: idle for 0.3 s: no frame");
    let supervision = result.supervision.unwrap();
    assert_eq!((supervision.cancelled_by, supervision.timed_out), (Some(CancelReason::Idle), false));
    assert!(supervision.stderr_tail.contains("still-here"));
}

#[test]
fn frames_keep_an_idle_timeout_away() {
    let script = format!(
        "{}; for i in 1 2 3 4 5 6; do sleep 0.5; {}; done; {}",
        print_lines(&[HEADER, AGENT_START, MESSAGE_START]),
        print_lines(&[r#"{"type":"message_delta","turn_id":1,"delta":"."}"#]),
        print_lines(&[DONE])
    );
    let result = sh(&script, "busy").idle_timeout(Duration::from_millis(1500)).run(|_| {}).unwrap();
    assert_eq!(result.verdict.as_str(), "ok", "{:?}", result.reasons);
    assert_eq!(result.supervision.unwrap().cancelled_by, None);
}

#[test]
fn stderr_lines_arrive_live_and_in_order_with_the_frames() {
    let script = format!(
        "echo err-1 >&2; sleep 0.1; {}; sleep 0.1; printf 'err-2\\nerr-' >&2; sleep 0.1; echo 3 >&2; sleep 0.1; {}; sleep 0.1; printf err-4 >&2",
        print_lines(&[HEADER]),
        print_lines(&[AGENT_START, DONE])
    );
    let mut seen = Vec::new();
    let result = sh(&script, "stderr-order")
        .run(|update| match update {
            Update::Stderr(line) => seen.push(line),
            other => seen.extend(frame_type(&other).map(str::to_owned)),
        })
        .unwrap();
    assert_eq!(seen, ["err-1", "hep_header", "err-2", "err-3", "agent_start", "turn_done", "err-4"]);
    assert_eq!(result.supervision.unwrap().stderr_tail, "err-1\nerr-2\nerr-3\nerr-4");
}

/// A child that ignores SIGINT and writes `cancelled` on SIGTERM: the second cancel sends
/// SIGTERM at once, not after the 20 s interrupt grace.
#[test]
fn a_second_cancel_escalates_at_once() {
    let marker = unique("second-cancel");
    let _sweep = Sweep(marker.clone());
    let script = format!(
        "stop() {{ {}; exit 130; }}; trap '' INT; trap stop TERM; {}; i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; exit 3",
        print_lines(&[CANCELLED]),
        print_lines(&[HEADER, AGENT_START])
    );
    let mut process = sh(&script, &marker).interrupt_grace(Duration::from_secs(20)).spawn().unwrap();
    let canceller = process.canceller();
    assert_eq!(frame_type(&next(&mut process)), Some("hep_header"));
    canceller.cancel();
    let first = loop {
        if let Update::Signal(step) = next(&mut process) {
            break step;
        }
    };
    assert_eq!((first.signal, first.next), (Signal::Interrupt, Some((Signal::Terminate, Duration::from_secs(20)))));
    let pressed = Instant::now();
    canceller.cancel();
    let mut second = None;
    while let Some(update) = process.next_update().unwrap() {
        if let Update::Signal(step) = update {
            second.get_or_insert((step.signal, pressed.elapsed()));
        }
    }
    let (signal, after) = second.expect("a second step");
    assert_eq!(signal, Signal::Terminate);
    assert!(after < Duration::from_secs(2), "SIGTERM {after:?} after the second cancel");
    let result = process.result().unwrap();
    assert_eq!(result.verdict.as_str(), "cancelled", "{:?}", result.reasons);
    let signals: Vec<Signal> = result.supervision.as_ref().unwrap().signals.iter().map(|s| s.signal).collect();
    assert_eq!(signals, [Signal::Interrupt, Signal::Terminate]);
}

#[test]
fn the_timeout_runs_the_ladder_to_sigkill() {
    let marker = unique("stubborn");
    let _sweep = Sweep(marker.clone());
    let script = format!(
        "trap '' INT TERM; {}; i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; exit 3",
        print_lines(&[HEADER, AGENT_START])
    );
    let mut steps = Vec::new();
    let result = sh(&script, &marker)
        .timeout(Duration::from_millis(200))
        .interrupt_grace(Duration::from_millis(300))
        .terminate_grace(Duration::from_millis(300))
        .run(|update| {
            if let Update::Signal(step) = update {
                steps.push((step.signal, step.reason));
            }
        })
        .unwrap();
    let timeout = CancelReason::Timeout;
    assert_eq!(steps, [(Signal::Interrupt, timeout), (Signal::Terminate, timeout), (Signal::Kill, timeout)]);
    assert_eq!((result.verdict.as_str(), result.exit_code), ("incomplete", Some(137)));
    assert_eq!(result.reasons[0], "the supervisor cancelled the run: timed out after 0.2 s");
    assert!(result.supervision.unwrap().timed_out);
    assert!(pids_matching(&marker).is_empty());
}

#[test]
fn a_child_killed_by_a_signal_exits_128_plus_its_number() {
    let result = sh(&format!("{}; kill -9 $$", print_lines(&[HEADER, AGENT_START])), "killed").run(|_| {}).unwrap();
    assert_eq!((result.verdict.as_str(), result.exit_code), ("incomplete", Some(137)));
}

#[test]
fn stdin_is_null_by_default_and_can_be_piped() {
    // `cat` would wait for the terminal if stdin were inherited.
    let result = Command::new("cat").run(|_| {}).unwrap();
    assert_eq!((result.verdict.as_str(), result.exit_code, result.run.frames), ("incomplete", Some(0), 0));

    let mut process = Command::new("cat").stdin(Stdio::piped()).spawn().unwrap();
    let mut stdin = process.take_stdin().unwrap();
    writeln!(stdin, "{HEADER}\n{AGENT_START}\n{DONE}").unwrap();
    drop(stdin);
    let result = process.wait().unwrap();
    assert_eq!(result.verdict.as_str(), "ok", "{:?}", result.reasons);
}

#[test]
fn a_missing_program_is_an_error() {
    let error = Command::new("/nonexistent/hep-process-test").spawn().unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn dropping_a_process_kills_its_whole_group() {
    let marker = unique("dropped");
    let _sweep = Sweep(marker.clone());
    let script = format!(
        "sh -c 'while :; do sleep 0.05; done' {marker} & trap '' INT TERM; {}; while :; do sleep 0.05; done",
        print_lines(&[HEADER])
    );
    let mut process = sh(&script, &marker).spawn().unwrap();
    assert_eq!(frame_type(&next(&mut process)), Some("hep_header"));
    wait_for("the child and its background job", || (pids_matching(&marker).len() >= 2).then_some(()));
    drop(process);
    wait_for("every process of the group to be gone", || pids_matching(&marker).is_empty().then_some(()));
}

// ---- the supervising process goes away: a copy of this binary runs `helper` ----

/// What `helper` does (`HEP_PROCESS_HELPER`), with `HEP_PROCESS_PIDFILE` for its child.
#[test]
#[ignore = "run by the other tests in a child process"]
fn helper() {
    let (Ok(mode), Ok(pidfile)) = (std::env::var("HEP_PROCESS_HELPER"), std::env::var("HEP_PROCESS_PIDFILE")) else {
        return;
    };
    // The child writes its pid once its traps are set, then waits (ignoring SIGINT and
    // SIGTERM unless it is the cancel mode's harness).
    let cancel = mode.starts_with("cancel");
    let traps = if cancel {
        format!("stop() {{ {}; exit 130; }}; trap '' INT; trap stop TERM", print_lines(&[CANCELLED]))
    } else {
        "trap '' INT TERM".into()
    };
    let script = format!(
        r#"{traps}; {}; echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done"#,
        print_lines(&[HEADER, AGENT_START])
    );
    let mut command = sh(&script, &pidfile);
    command.die_with_supervisor(!matches!(mode.as_str(), "panic" | "return" | "exit-without-pdeathsig"));
    if cancel {
        let canceller = Canceller::new().unwrap();
        canceller.cancel_on_interrupt().unwrap();
        let result = command.interrupt_grace(Duration::from_secs(20)).canceller(&canceller).run(|_| {}).unwrap();
        let signals: Vec<&str> = result.supervision.unwrap().signals.iter().map(|s| s.signal.name()).collect();
        println!("verdict={} signals={}", result.verdict.as_str(), signals.join(","));
        std::process::exit(0);
    }
    let mut process = command.spawn().unwrap();
    while frame_type(&next(&mut process)) != Some("agent_start") {}
    read_pid(Path::new(&pidfile));
    match mode.as_str() {
        "exit" | "exit-without-pdeathsig" => std::process::exit(0),
        "panic" => panic!("the supervisor panics"),
        "return" => {}
        _ => thread::sleep(TIMEOUT), // "wait": until the test SIGKILLs this process
    }
}

/// Runs `helper` in `mode` in a copy of this binary; returns it, the pid file of its
/// child and a sweep for that child.
fn start_helper(mode: &str) -> (std::process::Child, PathBuf, Sweep) {
    let pidfile = scratch(&format!("helper-{mode}"));
    let sweep = Sweep(pidfile.to_str().unwrap().to_owned());
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "helper", "--ignored", "--nocapture", "--test-threads=1"])
        .env("HEP_PROCESS_HELPER", mode)
        .env("HEP_PROCESS_PIDFILE", &pidfile)
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (child, pidfile, sweep)
}

/// The helper in `mode`, waited for; its exit status, its child's pid, and the sweep for
/// that child.
fn helper_ends(mode: &str) -> (std::process::ExitStatus, i32, Sweep) {
    let (mut helper, pidfile, sweep) = start_helper(mode);
    let child = read_pid(&pidfile);
    let status = wait_for("the helper to end", || helper.try_wait().unwrap());
    // The child was reparented when the helper ended; it must go (or not) on its own.
    thread::sleep(Duration::from_millis(300));
    (status, child, sweep)
}

#[test]
fn a_supervisor_that_exits_takes_its_child_along() {
    let (status, child, _sweep) = helper_ends("exit");
    assert!(status.success());
    wait_for("the child to die with its supervisor (PR_SET_PDEATHSIG)", || gone(child).then_some(()));
}

#[test]
fn without_the_parent_death_signal_an_exit_leaves_the_child_running() {
    let (status, child, _sweep) = helper_ends("exit-without-pdeathsig");
    assert!(status.success());
    let survived = !gone(child);
    let _ = kill(Pid::from_raw(child), signal::SIGKILL);
    assert!(survived, "std::process::exit runs no destructor: only the kernel's signal kills the child");
}

#[test]
fn a_supervisor_that_panics_kills_its_child() {
    let (status, child, _sweep) = helper_ends("panic");
    assert_eq!(status.code(), Some(101), "the helper test failed with its panic");
    assert!(gone(child), "the Process was dropped while the panic unwound");
}

#[test]
fn a_supervisor_that_returns_kills_its_child() {
    let (status, child, _sweep) = helper_ends("return");
    assert!(status.success());
    assert!(gone(child), "the Process was dropped at the end of its scope");
}

#[test]
fn a_supervisor_killed_by_sigkill_takes_its_child_along() {
    let (mut helper, pidfile, _sweep) = start_helper("wait");
    let child = read_pid(&pidfile);
    helper.kill().unwrap();
    helper.wait().unwrap();
    wait_for("the child to die with its supervisor (PR_SET_PDEATHSIG)", || gone(child).then_some(()));
}

/// SIGINT to the supervising process (a Ctrl-C) cancels the child through
/// `Canceller::cancel_on_interrupt`; a second one sends SIGTERM at once.
#[test]
fn ctrl_c_routed_to_a_canceller_cancels_and_a_second_escalates() {
    let (mut helper, pidfile, _sweep) = start_helper("cancel");
    let child = read_pid(&pidfile);
    let helper_pid = Pid::from_raw(i32::try_from(helper.id()).unwrap());
    kill(helper_pid, signal::SIGINT).unwrap();
    thread::sleep(Duration::from_millis(300));
    assert!(helper.try_wait().unwrap().is_none(), "the child ignores SIGINT: the helper waits for it");
    let pressed = Instant::now();
    kill(helper_pid, signal::SIGINT).unwrap();
    let status = wait_for("the helper to end", || helper.try_wait().unwrap());
    assert!(pressed.elapsed() < Duration::from_secs(10), "the second Ctrl-C sent SIGTERM at once");
    let mut out = String::new();
    helper.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(status.success(), "{out}");
    assert!(out.contains("verdict=cancelled signals=SIGINT,SIGTERM"), "{out}");
    assert!(gone(child));
}
