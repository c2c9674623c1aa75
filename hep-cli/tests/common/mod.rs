//! Shared helpers of the `hep` integration tests: running the real binary with a
//! watchdog, reading a child's stdout live, signalling it, and making sure no process
//! a test started outlives it (every child sits in a [`Proc`] whose `Drop` kills it and
//! every process whose command line carries the test's unique marker).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The binary under test.
pub(crate) const HEP: &str = env!("CARGO_BIN_EXE_hep");

/// The most any single process of the suite may take before the test fails (never hangs).
pub(crate) const TIMEOUT: Duration = Duration::from_secs(30);

/// A `hep` command with the given arguments.
pub(crate) fn hep<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut command = Command::new(HEP);
    command.args(args).env_remove("NO_COLOR");
    command
}

/// A token no other process on the machine carries: for session ids, file names and
/// the process sweep.
pub(crate) fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    format!("{prefix}-{}-{}-{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst))
}

/// A fresh path under cargo's per-target scratch directory (nothing is created).
pub(crate) fn scratch(prefix: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(unique(prefix))
}

/// `text` as one single-quoted `sh` word.
pub(crate) fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// An `sh` script line printing each of `lines` followed by a newline.
pub(crate) fn sh_print_lines(lines: &[&str]) -> String {
    let words: Vec<String> = lines.iter().map(|l| sh_quote(l)).collect();
    format!("printf '%s\\n' {}", words.join(" "))
}

/// The header line every hand-written stream starts with.
pub(crate) const HEADER: &str = r#"{"type":"hep_header","hep":"v1","fah":"9.9.9","session":"t"}"#;
/// `agent_start` of round 1.
pub(crate) const AGENT_START: &str = r#"{"type":"agent_start","turn_id":1}"#;
/// `message_start` of round 1.
pub(crate) const MESSAGE_START: &str = r#"{"type":"message_start","turn_id":1,"role":"assistant"}"#;

/// `message_delta` of round 1 carrying `delta` (already JSON-escaped).
pub(crate) fn delta_line(delta_json_escaped: &str) -> String {
    format!(r#"{{"type":"message_delta","turn_id":1,"delta":"{delta_json_escaped}"}}"#)
}

/// `turn_done` of round 1 with `message` (already JSON-escaped).
pub(crate) fn done_line(message_json_escaped: &str) -> String {
    format!(
        r#"{{"type":"turn_done","turn_id":1,"message":"{message_json_escaped}","tool_results":[],"usage":{{"input":3,"output":4,"cost":0.5}},"stop_reason":"stop"}}"#
    )
}

/// How a process ended, and everything it printed.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The exit code, or 128 + N when killed by signal N.
    pub(crate) code: i32,
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
}

impl Finished {
    /// Stdout as UTF-8.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// Stdout parsed as one JSON document.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", String::from_utf8_lossy(&self.stdout), self.stderr)
        })
    }

    /// Stdout's lines (without their newlines).
    pub(crate) fn lines(&self) -> Vec<String> {
        self.text().lines().map(str::to_owned).collect()
    }
}

fn exit_code(status: ExitStatus) -> i32 {
    status.code().or_else(|| status.signal().map(|s| 128 + s)).expect("an exit code or a signal")
}

/// A running child. Dropping it (a test that fails included) kills it, reaps it, and kills
/// every process whose command line contains `marker`, so nothing outlives the test.
pub(crate) struct Proc {
    child: Option<Child>,
    marker: Option<String>,
    chunks: Receiver<Vec<u8>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
    /// Stdout read so far.
    pub(crate) stdout: Vec<u8>,
    eof: bool,
}

impl Proc {
    /// Spawns `command` with `stdin` fed to it (or `/dev/null`), stdout and stderr piped.
    /// `marker`, when given, is a unique string in the command line of every process the
    /// child may leave behind (swept on drop).
    pub(crate) fn spawn(mut command: Command, stdin: Option<Vec<u8>>, marker: Option<&str>) -> Self {
        command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot spawn {command:?}: {e}"));
        if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
            // A child that stops reading early makes this fail; that is its business.
            thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let mut out = child.stdout.take().unwrap();
        let (send, chunks) = mpsc::channel();
        thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match out.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if send.send(buf[..n].to_vec()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = err.read_to_end(&mut bytes);
            bytes
        });
        Self {
            child: Some(child),
            marker: marker.map(str::to_owned),
            chunks,
            stderr: Some(stderr),
            stdout: Vec::new(),
            eof: false,
        }
    }

    /// The child's process id.
    pub(crate) fn pid(&self) -> i32 {
        i32::try_from(self.child.as_ref().unwrap().id()).unwrap()
    }

    /// Sends `signal` to the child (only to it, not to its group).
    pub(crate) fn signal(&self, signal: Signal) {
        kill(Pid::from_raw(self.pid()), signal).unwrap_or_else(|e| panic!("cannot send {signal} to the child: {e}"));
    }

    /// Reads stdout until `done(&all_stdout_so_far)` holds. Panics (killing the child) if
    /// that takes longer than `timeout` or stdout closes first.
    pub(crate) fn read_until(&mut self, timeout: Duration, what: &str, done: impl Fn(&[u8]) -> bool) {
        let deadline = Instant::now() + timeout;
        while !done(&self.stdout) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.stdout.extend(chunk),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out after {timeout:?} waiting for {what}; stdout so far:\n{}", self.shown())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.eof = true;
                    panic!("stdout closed before {what}; stdout:\n{}", self.shown())
                }
            }
        }
    }

    /// Reads stdout until at least `n` complete lines arrived.
    pub(crate) fn read_lines(&mut self, n: usize, timeout: Duration) {
        self.read_until(timeout, &format!("{n} complete lines"), |out| {
            out.iter().filter(|&&b| b == b'\n').count() >= n
        });
    }

    fn shown(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Whether the child is still running.
    pub(crate) fn running(&mut self) -> bool {
        self.child.as_mut().unwrap().try_wait().unwrap().is_none()
    }

    /// Waits (at most `timeout`, then kills it and panics) for the child to exit and its
    /// stdout and stderr to close; returns everything.
    pub(crate) fn wait(mut self, timeout: Duration) -> Finished {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= deadline {
                panic!("the child did not exit within {timeout:?}; stdout so far:\n{}", self.shown());
            }
            // Keep draining stdout so a chatty child never blocks on a full pipe.
            match self.chunks.recv_timeout(Duration::from_millis(5)) {
                Ok(chunk) => self.stdout.extend(chunk),
                Err(RecvTimeoutError::Disconnected) => {
                    self.eof = true;
                    thread::sleep(Duration::from_millis(5));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        };
        self.child = None;
        while !self.eof {
            match self.chunks.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(chunk) => self.stdout.extend(chunk),
                Err(RecvTimeoutError::Disconnected) => self.eof = true,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("the child exited but its stdout stayed open (a descendant holds it)")
                }
            }
        }
        let stderr = self.stderr.take().unwrap().join().unwrap();
        Finished {
            code: exit_code(status),
            status,
            stdout: std::mem::take(&mut self.stdout),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(marker) = &self.marker {
            for pid in pids_matching(marker) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
    }
}

/// Runs `command` to completion with `stdin`, under the suite's [`TIMEOUT`].
pub(crate) fn run(command: Command, stdin: &[u8]) -> Finished {
    Proc::spawn(command, Some(stdin.to_vec()), None).wait(TIMEOUT)
}

/// Runs `hep <args>` to completion with `stdin`.
pub(crate) fn run_hep(args: &[&str], stdin: &[u8]) -> Finished {
    run(hep(args), stdin)
}

/// Ids of the live (not zombie) processes whose command line contains `marker`.
pub(crate) fn pids_matching(marker: &str) -> Vec<i32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| u32::try_from(pid).is_ok_and(|p| p != me))
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).replace('\0', " ").contains(marker))
        })
        .filter(|&pid| status_field(pid, "State").is_some_and(|s| !s.starts_with('Z')))
        .collect()
}

/// A field of `/proc/<pid>/status`, trimmed.
pub(crate) fn status_field(pid: i32, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix(field)?.strip_prefix(':').map(|v| v.trim().to_owned()))
}

/// The parent of `pid`.
pub(crate) fn ppid(pid: i32) -> Option<i32> {
    status_field(pid, "PPid")?.parse().ok()
}

/// Whether `pid` has a handler installed for `signal` (its `SigCgt` mask).
pub(crate) fn catches(pid: i32, signal: Signal) -> bool {
    status_field(pid, "SigCgt")
        .and_then(|mask| u64::from_str_radix(&mask, 16).ok())
        .is_some_and(|mask| mask & (1u64 << (signal as i32 - 1)) != 0)
}

/// Bytes `pid` has written so far (`wchar` of `/proc/<pid>/io`), when readable.
pub(crate) fn bytes_written(pid: i32) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines().find_map(|l| l.strip_prefix("wchar:")?.trim().parse().ok())
}

/// Polls `cond` every 10 ms until it holds; panics after `timeout`.
pub(crate) fn poll<T>(timeout: Duration, what: &str, mut cond: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = cond() {
            return v;
        }
        if Instant::now() >= deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// The workspace's `conformance/` folder.
pub(crate) fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("conformance")
}

/// The `validate --format json` report of `stream`, run with `extra` arguments.
pub(crate) fn validate_json(stream: &[u8], extra: &[&str]) -> (Value, i32) {
    let mut args = vec!["validate", "--format", "json"];
    args.extend_from_slice(extra);
    let out = run_hep(&args, stream);
    (out.json(), out.code)
}

/// The `(code, line)` pairs of a report's `violations`.
pub(crate) fn violation_codes(report: &Value) -> Vec<(String, u64)> {
    report["violations"]
        .as_array()
        .expect("violations is a list")
        .iter()
        .map(|v| (v["code"].as_str().unwrap().to_owned(), v["line"].as_u64().unwrap()))
        .collect()
}

/// Runs `command` with `stdin`, its stdout a pipe whose reading end is already closed (as
/// in `hep … | head -0`): every write to stdout fails with EPIPE. Returns the exit code and
/// stderr.
pub(crate) fn run_with_closed_stdout(mut command: Command, stdin: &[u8]) -> (i32, String) {
    let (read_end, write_end) = nix::unistd::pipe().unwrap();
    drop(read_end);
    command.stdin(Stdio::piped()).stdout(Stdio::from(write_end)).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot spawn {command:?}: {e}"));
    let input = stdin.to_vec();
    let mut pipe = child.stdin.take().unwrap();
    thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let mut err = child.stderr.take().unwrap();
    let stderr = thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = err.read_to_end(&mut bytes);
        bytes
    });
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not exit within {TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(5));
    };
    (exit_code(status), String::from_utf8_lossy(&stderr.join().unwrap()).into_owned())
}
