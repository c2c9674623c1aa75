//! The demo: a harness writes a multi-round HEP stream in a child process, and a
//! supervisor reads it back live from the pipe, mirrors progress and prints the verdict.
//!
//! Run with `make demo` (or `cargo run -p hep-core --example demo`).

use hep_core::writer::{ToolOutcome, Writer};
use hep_core::{ArgsMode, Event, Frame, LivenessAction, Reader, Usage, parse_args};
use std::io::{self, BufReader};
use std::process::{Command, ExitCode, Stdio};
use std::thread::sleep;
use std::time::Duration;

/// The harness side: writes a three-round run to stdout, pausing like a real model would.
fn emit() -> hep_core::Result<()> {
    let pause = || sleep(Duration::from_millis(40));
    let mut w = Writer::new(io::stdout().lock(), "1.2.3", ArgsMode::Summary);
    w.header("demo-7f3a")?;
    w.compaction_start()?;
    w.compaction_end(4200)?;
    w.agent_start()?;
    w.message_start("assistant")?;
    for chunk in ["Let me look ", "at the notes ", "first."] {
        w.message_delta(chunk)?;
        pause();
    }
    w.tool_start("c1", "read", &parse_args(r#"{"path":"notes.txt","limit":200}"#)?)?;
    w.tool_delta("c1", "# Notes\n- ship the parser\n")?;
    pause();
    let notes = "# Notes\n- ship the parser\n- measure it";
    let round1 = [ToolOutcome { id: "c1", name: "read", ok: true, text: notes }];
    w.turn_done(
        "Let me look at the notes first.",
        &round1,
        Usage { input: 1200, output: 85, cost: 0.0042 },
        "toolUse",
    )?;

    w.message_start("assistant")?;
    w.tool_start("c2", "bash", &parse_args(r#"{"command":"cargo bench","timeout_s":600}"#)?)?;
    w.liveness("c2", "bash", LivenessAction::Heartbeat, 5000, Some(512), Some("attempt 1"))?;
    pause();
    w.tool_delta("c2", "parser: 2.1x faster than serde\n")?;
    let long_log = "bench line\n".repeat(300);
    let round2 = [ToolOutcome { id: "c2", name: "bash", ok: true, text: &long_log }];
    w.turn_done("", &round2, Usage { input: 2300, output: 40, cost: 0.0061 }, "toolUse")?;

    w.message_start("assistant")?;
    for chunk in ["The parser ", "ships: it is ", "2.1× faster ✅"] {
        w.message_delta(chunk)?;
        pause();
    }
    w.turn_done(
        "The parser ships: it is 2.1× faster ✅",
        &[],
        Usage { input: 2500, output: 30, cost: 0.0058 },
        "stop",
    )?;
    Ok(())
}

/// The supervisor side: spawns the harness, mirrors each frame as it arrives, then judges the run.
fn supervise() -> Result<(), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?).arg("--emit").stdout(Stdio::piped()).spawn()?;
    let stdout = child.stdout.take().ok_or("the child has no stdout")?;
    let mut reader = Reader::new(BufReader::new(stdout));
    for event in reader.by_ref() {
        match event? {
            Event::Frame(r) => println!("  line {:>2}  {}", r.line, describe(&r.frame)),
            Event::Violation(v) => println!("  ! {v}"),
            Event::Skipped(e) => println!("  ! skipped {e}"),
            Event::Halted(e) => println!("  ! halted: {e}"),
        }
    }
    let status = child.wait()?;
    let result = reader.finish(status.code());
    println!();
    println!("verdict  {} ({})", result.verdict.as_str(), result.reasons.join("; "));
    println!("answer   {}", result.run.answer.as_deref().unwrap_or("(none)"));
    let u = result.run.usage;
    println!(
        "usage    {} in / {} out tokens, ${:.4} over {} rounds",
        u.input,
        u.output,
        u.cost,
        result.run.turns.len()
    );
    println!("conforms {}", result.conforms);
    Ok(())
}

fn describe(frame: &Frame) -> String {
    match frame {
        Frame::HepHeader(h) => format!("header: HEP {} from fa {} (session {})", h.hep, h.fah, h.session),
        Frame::MessageDelta(m) => format!("turn {} says {:?}", m.turn_id, m.delta),
        Frame::ToolStart(t) => format!("turn {} runs {}({})", t.turn_id, t.name, t.args_summary),
        Frame::ToolDelta(t) => format!("turn {} tool {} output {:?}", t.turn_id, t.id, t.update),
        Frame::ToolLiveness(l) => format!("turn {} tool {} {} after {} ms", l.turn_id, l.id, l.action, l.elapsed_ms),
        Frame::TurnDone(d) => {
            format!("turn {} done ({}, {} tool results)", d.turn_id, d.stop_reason, d.tool_results.len())
        }
        Frame::CompactionEnd(c) => format!("turn {} compaction freed {} tokens", c.turn_id, c.tokens_freed),
        other => format!("turn {} {}", other.turn_id().unwrap_or_default(), other.frame_type()),
    }
}

fn main() -> ExitCode {
    let outcome = if std::env::args().any(|a| a == "--emit") {
        emit().map_err(|e| e.to_string())
    } else {
        supervise().map_err(|e| e.to_string())
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}
