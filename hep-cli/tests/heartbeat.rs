//! The live view on a terminal (a pseudo-terminal here) updates a running tool's heartbeat
//! in place: one status line, rewritten (`\r`, erase the line) at each heartbeat, kept at
//! the bottom while other lines print above it, and gone when the tool ends. Piped, each
//! heartbeat is a line of its own. (One test in this binary: nothing else spawns while
//! the pseudo-terminal is open.)

// Test helpers outside `#[test]` functions may fail loudly too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{AGENT_START, HEADER, MESSAGE_START, TIMEOUT, hep, run};
use std::io::Read;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Instant;

const ERASE: &str = "\r\x1b[2K";
const NO_WRAP: &str = "\x1b[?7l";
const WRAP: &str = "\x1b[?7h";

fn liveness(elapsed_ms: u64, bytes: u64) -> String {
    format!(
        r#"{{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"heartbeat","elapsed_ms":{elapsed_ms},"output_bytes":{bytes},"detail":"attempt 1"}}"#
    )
}

/// A round with a tool that gets three heartbeats, with output and a stuck follow-up
/// between them.
fn script() -> String {
    let p = |lines: &[&str]| common::sh_print_lines(lines);
    [
        p(&[HEADER, AGENT_START, MESSAGE_START, &common::delta_line("Running it.\\n")]),
        p(&[r#"{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"command=\"make\""}"#]),
        p(&[&liveness(1000, 10)]),
        p(&[r#"{"type":"tool_delta","turn_id":1,"id":"c1","update":"line one\n"}"#]),
        p(&[&liveness(2000, 20)]),
        p(&[
            r#"{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"advisory","elapsed_ms":2500,"detail":"slow"}"#,
        ]),
        p(&[&liveness(3000, 30)]),
        p(&[
            r#"{"type":"turn_done","turn_id":1,"message":"done","tool_results":[{"id":"c1","name":"bash","ok":true,"text":"ok"}],"usage":{"input":1,"output":2,"cost":0.0},"stop_reason":"stop"}"#,
        ]),
    ]
    .join("; sleep 0.05; ")
}

/// What a terminal shows at the end, line by line, after `\r\n`, the erase and the
/// autowrap switches (the only controls the view writes with `--color never`).
fn screen(out: &str) -> Vec<String> {
    let (mut lines, mut current) = (Vec::new(), String::new());
    let mut rest = out;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix(ERASE) {
            current.clear();
            rest = after;
        } else if let Some(after) = rest.strip_prefix(NO_WRAP).or_else(|| rest.strip_prefix(WRAP)) {
            rest = after;
        } else if let Some(after) = rest.strip_prefix("\r\n") {
            lines.push(std::mem::take(&mut current));
            rest = after;
        } else {
            assert!(c != '\r' && c != '\x1b', "an unexpected control at {:?}", &rest[..rest.len().min(20)]);
            current.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    lines.push(current);
    lines
}

/// Runs `hep watch --color never` with its stdout on a pseudo-terminal; what it wrote.
fn watch_on_a_terminal() -> String {
    let pty = nix::pty::openpty(None, None).unwrap();
    // Close-on-exec copies, so that no other child keeps the terminal open.
    let (master, slave) = (pty.master.try_clone().unwrap(), pty.slave.try_clone().unwrap());
    drop(pty);
    let mut command = hep(["watch", "--color", "never", "--", "sh", "-c", &script()]);
    command.env_remove("TERM").stdin(Stdio::null()).stdout(Stdio::from(slave)).stderr(Stdio::piped());
    let mut watch = command.spawn().unwrap();
    drop(command);
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut master = std::fs::File::from(master);
        let mut out = Vec::new();
        // The read fails (EIO) once every holder of the terminal has closed it.
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = master.read(&mut buf) {
            out.extend_from_slice(&buf[..n]);
        }
        let _ = send.send(out);
    });
    let started = Instant::now();
    let status = common::poll(TIMEOUT, "watch to end", || watch.try_wait().unwrap());
    assert!(status.success(), "{status:?}");
    let out = receive.recv_timeout(TIMEOUT.saturating_sub(started.elapsed())).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn heartbeats_update_one_status_line_on_a_terminal_and_are_lines_when_piped() {
    let out = watch_on_a_terminal();
    // Each heartbeat is drawn, with autowrap off, and never ends with a line break: the next
    // thing written first erases it.
    let drawn: Vec<&str> = out.split(NO_WRAP).skip(1).map(|s| s.split(WRAP).next().unwrap()).collect();
    assert!(drawn.iter().all(|text| text.starts_with("  ⏳ bash after ")), "{out:?}");
    for (at, _) in out.match_indices(WRAP) {
        let after = &out[at + WRAP.len()..];
        assert!(after.starts_with(ERASE), "a status line is always erased before the next output: {after:?}");
    }
    for beat in ["after 1.0s · 10 B of output", "after 2.0s · 20 B of output", "after 3.0s · 30 B of output"] {
        assert!(drawn.iter().any(|text| text.contains(beat)), "{beat}: {out:?}");
    }
    // The screen: the tool's output and the stuck follow-up as lines, no heartbeat left.
    let screen = screen(&out);
    assert!(!screen.iter().any(|l| l.contains('⏳')), "{screen:#?}");
    let at = |wanted: &str| {
        screen.iter().position(|l| l.starts_with(wanted)).unwrap_or_else(|| panic!("{wanted}: {screen:#?}"))
    };
    assert!(at("  ⚙ bash(command=\"make\")") < at("  │ line one"), "{screen:#?}");
    assert!(at("  │ line one") < at("  ⚠ stuck: advisory · bash after 2.5s · slow"), "{screen:#?}");
    assert!(at("  ⚠ stuck") < at("  ✓ bash ok") && at("  ✓ bash ok") < at("── summary ──"), "{screen:#?}");

    let piped = run(hep(["watch", "--color", "never", "--", "sh", "-c", &script()]), b"");
    let text = piped.text();
    assert!(!text.contains('\r') && !text.contains('\x1b'), "{text:?}");
    let beats: Vec<&str> = text.lines().filter(|l| l.starts_with("  ⏳ ")).collect();
    assert_eq!(
        beats,
        [
            "  ⏳ bash after 1.0s · 10 B of output · attempt 1",
            "  ⏳ bash after 2.0s · 20 B of output · attempt 1",
            "  ⏳ bash after 3.0s · 30 B of output · attempt 1"
        ]
    );
}
