//! A complete supervisor on hep-process: runs the command given, prints the assistant's
//! text and each tool call as they stream, the harness's stderr dimmed, each cancel step;
//! Ctrl-C cancels (again: the next step at once); cancels after 5 minutes without a frame;
//! ends with the verdict and the child's exit code.
//!
//! ```sh
//! cargo run -p hep-process --example supervise -- fa --output events -p "fix the failing test"
//! cargo run -p hep-process --example supervise -- target/debug/hep simulate --scenario tools
//! ```

use hep_process::hep_core::sanitize::sanitize;
use hep_process::hep_core::{Event, Frame};
use hep_process::{Canceller, Command, Update};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let mut argv = std::env::args_os().skip(1);
    let Some(program) = argv.next() else {
        eprintln!("usage: supervise PROGRAM [ARGS...]");
        return ExitCode::from(2);
    };
    let run = || -> std::io::Result<_> {
        let canceller = Canceller::new()?;
        canceller.cancel_on_interrupt()?;
        Command::new(program).args(argv).idle_timeout(Duration::from_secs(300)).canceller(&canceller).run(show)
    };
    match run() {
        Ok(result) => {
            println!("\nverdict: {} ({})", result.verdict.as_str(), sanitize(&result.reasons.join("; ")));
            ExitCode::from(u8::try_from(result.exit_code.unwrap_or(1)).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("supervise: cannot run the command: {e}");
            ExitCode::from(2)
        }
    }
}

/// Shows one update (every text from the child sanitised: it may hold terminal escapes).
fn show(update: Update) {
    let mut out = std::io::stdout().lock();
    let _ = match update {
        Update::Event(Event::Frame(received)) => match received.frame {
            Frame::MessageDelta(m) => write!(out, "{}", sanitize(&m.delta)),
            Frame::ToolStart(t) => writeln!(out, "\n⚙ {}({})", sanitize(&t.name), sanitize(&t.args_summary)),
            Frame::TurnDone(d) => writeln!(out, "\n· turn {} done ({})", d.turn_id, sanitize(&d.stop_reason)),
            _ => Ok(()),
        },
        Update::Event(Event::Violation(v)) => writeln!(out, "\n! {}: {}", v.code, sanitize(&v.message)),
        Update::Event(Event::Skipped(e) | Event::Halted(e)) => writeln!(out, "\n! {}", sanitize(&e.to_string())),
        Update::Stderr(line) => writeln!(out, "\x1b[2m{}\x1b[0m", sanitize(&line)),
        Update::Signal(step) => writeln!(out, "\n» {} sent ({})", step.signal.name(), step.reason.as_str()),
        _ => Ok(()),
    };
    let _ = out.flush();
}
