//! `hep check`: run an emitter and check its live stdout and exit code against the protocol.

use crate::args::{Check, Format};
use crate::report;
use crate::style::Style;
use crate::supervise::{Update, supervise_within};
use crate::watch::command_for;
use hep_core::StreamOptions;

/// Runs `hep check`; exit 0 when the run conforms, 1 when it does not.
pub(crate) fn run(args: &Check, style: Style) -> i32 {
    let options = StreamOptions { strict: args.strict, ..StreamOptions::default() };
    let text = args.format == Format::Text;
    let outcome = command_for(&args.command).and_then(|command| {
        supervise_within(command, options, args.timeout, &args.graces, |update| match (text, update) {
            (true, Update::Event(event)) => report::finding(&event, style),
            (true, Update::TimedOut(limit)) => crate::say(format!("timed out after {} s", limit.as_secs_f64())),
            (true, Update::Signalled(step)) => crate::say(step.describe()),
            _ => {}
        })
    });
    match outcome {
        Ok(outcome) => {
            if text {
                report::verdict(&outcome.result, style);
                crate::say(format!("exit code {}", outcome.exit_code));
            } else {
                report::json(&outcome.result);
            }
            i32::from(!outcome.result.conforms)
        }
        Err(e) => {
            eprintln!("hep check: cannot run the command: {e}");
            crate::EXIT_USAGE
        }
    }
}
