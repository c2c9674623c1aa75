//! `hep watch`: supervise a HEP emitter and mirror its progress live. The supervision is
//! hep-process's driver over the core's `Supervisor` (as for `hep check`).

use crate::args::{Format, Seconds, Watch};
use crate::render::Renderer;
use crate::style::Style;
use hep_core::RunResult;
use hep_core::supervise::{CancelReason, Signal, SignalStep, SuperviseOptions};
use hep_process::{Canceller, Update};
use serde_json::Value;
use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::process::Command;

/// The command to watch: the one given, or the built-in simulator.
pub(crate) fn command_for(argv: &[OsString]) -> io::Result<Command> {
    match argv.split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args);
            Ok(command)
        }
        None => {
            let mut command = Command::new(std::env::current_exe()?);
            command.args(["simulate", "--scenario", "tools"]);
            Ok(command)
        }
    }
}

/// Runs `argv` (or the simulator) under `options`, handing every update to `on_update`.
/// SIGINT and SIGTERM sent to `hep` cancel the child: the first starts the cancel, each
/// further one takes its next step at once.
pub(crate) fn supervise(
    argv: &[OsString],
    options: SuperviseOptions,
    on_update: impl FnMut(Update),
) -> io::Result<RunResult> {
    let canceller = Canceller::new()?;
    canceller.cancel_on_interrupt()?;
    hep_process::Command::from(command_for(argv)?).options(options).canceller(&canceller).run(on_update)
}

/// What the supervisor says, for a person, when it takes a step of the cancel: why a
/// cancel it started began (the timeout, idleness), then what it waits for now.
pub(crate) fn step_notes(step: &SignalStep, options: &SuperviseOptions) -> Vec<String> {
    let mut notes = Vec::new();
    if step.signal == Signal::Interrupt {
        match step.reason {
            CancelReason::Timeout => {
                notes.push(format!("timed out after {} s", Seconds(options.timeout.unwrap_or_default())));
            }
            CancelReason::Idle => {
                notes.push(format!("idle for {} s: no frame", Seconds(options.idle_timeout.unwrap_or_default())));
            }
            CancelReason::User => {}
        }
    }
    let signal = step.signal.name();
    notes.push(match step.next {
        Some((_, grace)) if step.signal == Signal::Interrupt => format!(
            "SIGINT sent; waiting up to {}s for the harness to settle and exit (Ctrl-C again to stop it now)",
            Seconds(grace)
        ),
        Some((next, grace)) => {
            format!("{signal} sent; {} in {}s (Ctrl-C again to send it now)", next.name(), Seconds(grace))
        }
        None => format!("{signal} sent"),
    });
    notes
}

/// The run result as `watch --format json` prints it: the `RunResult`, plus `stderr_tail`
/// and `timed_out` at the top (they are in `supervision` too).
pub(crate) fn result_json(result: &RunResult) -> Value {
    let mut json = serde_json::to_value(result).unwrap_or_default();
    let supervision = result.supervision.as_ref();
    if let Some(object) = json.as_object_mut() {
        object.insert("stderr_tail".into(), supervision.map(|s| s.stderr_tail.clone()).unwrap_or_default().into());
        object.insert("timed_out".into(), supervision.is_some_and(|s| s.timed_out).into());
    }
    json
}

/// Whether stdout is a terminal that can rewrite its last line (heartbeats update in place).
fn rewritable_terminal() -> bool {
    io::stdout().is_terminal() && std::env::var_os("TERM").is_none_or(|term| term != "dumb")
}

/// Runs `hep watch`; returns the child's exit code.
pub(crate) fn run(args: &Watch, style: Style) -> i32 {
    let options = args.supervision.options(args.strict);
    let outcome = match args.format() {
        Format::Json => supervise(&args.command, options, |_| {}),
        Format::Jsonl => supervise(&args.command, options, |update| crate::jsonl::update(&update)),
        Format::Text => {
            let mut view = Renderer::new(io::stdout().lock(), style, true).with_status_line(rewritable_terminal());
            // A closed stdout must not stop the supervision: drawing errors are dropped.
            let result = supervise(&args.command, options, |update| {
                let _ = match update {
                    Update::Event(event) => view.event(&event),
                    Update::Stderr(line) => view.stderr(&line),
                    Update::Signal(step) => step_notes(&step, &options).iter().try_for_each(|note| view.note(note)),
                    _ => Ok(()),
                };
            });
            if let Ok(result) = &result {
                let tail = result.supervision.as_ref().map(|s| s.stderr_tail.as_str());
                let _ = view.summary(result, tail);
            }
            result
        }
    };
    match outcome {
        Ok(result) => {
            match args.format() {
                Format::Json => crate::report::print_json(&result_json(&result)),
                Format::Jsonl => crate::jsonl::result(result_json(&result)),
                Format::Text => {}
            }
            result.exit_code.unwrap_or(1)
        }
        Err(e) => {
            eprintln!("hep watch: cannot supervise the command: {e}");
            crate::EXIT_USAGE
        }
    }
}
