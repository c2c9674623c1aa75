//! `hep watch`: supervise a HEP emitter and mirror its progress live.

use crate::args::Watch;
use crate::render::Renderer;
use crate::style::Style;
use crate::supervise::{Update, supervise_within};
use hep_core::StreamOptions;
use std::io;
use std::process::Command;

/// The command to watch: the one given, or the built-in simulator.
pub(crate) fn command_for(argv: &[std::ffi::OsString]) -> io::Result<Command> {
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

/// Runs `hep watch`; returns the child's exit code.
pub(crate) fn run(args: &Watch, style: Style) -> i32 {
    let options = StreamOptions { strict: args.strict, ..StreamOptions::default() };
    let outcome = command_for(&args.command).and_then(|command| {
        if args.json {
            return supervise_within(command, options, args.timeout, &args.graces, |_| {});
        }
        let mut view = Renderer::new(io::stdout().lock(), style, true);
        // A closed stdout must not stop the supervision: drawing errors are dropped.
        let outcome = supervise_within(command, options, args.timeout, &args.graces, |update| {
            let _ = match update {
                Update::Event(event) => view.event(&event),
                Update::TimedOut(limit) => view.note(&format!("timed out after {} s", limit.as_secs_f64())),
                Update::Signalled(step) => view.note(&step.describe()),
            };
        })?;
        let _ = view.summary(&outcome.result, Some(&outcome.stderr.text()));
        Ok(outcome)
    });
    match outcome {
        Ok(outcome) => {
            if args.json {
                let mut json = serde_json::to_value(&outcome.result).unwrap_or_default();
                if let Some(object) = json.as_object_mut() {
                    object.insert("stderr_tail".into(), outcome.stderr.text().into());
                    object.insert("timed_out".into(), outcome.timed_out.into());
                }
                crate::report::print_json(&json);
            }
            outcome.exit_code
        }
        Err(e) => {
            eprintln!("hep watch: cannot supervise the command: {e}");
            crate::EXIT_USAGE
        }
    }
}
