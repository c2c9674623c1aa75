//! `hep check`: run an emitter and check its live stdout and exit code against the protocol.

use crate::args::{Check, Format};
use crate::report;
use crate::style::Style;
use crate::watch::{step_notes, supervise};
use hep_process::Update;

/// Runs `hep check`; exit 0 when the run conforms, 1 when it does not.
pub(crate) fn run(args: &Check, style: Style) -> i32 {
    let options = args.supervision.options(args.strict);
    let outcome = supervise(&args.command, options, |update| match (args.format, update) {
        (Format::Text, Update::Event(event)) => report::finding(&event, style),
        (Format::Text, Update::Signal(step)) => step_notes(&step, &options).into_iter().for_each(crate::say),
        (Format::Jsonl, update) => crate::jsonl::update(&update),
        _ => {}
    });
    match outcome {
        Ok(result) => {
            match args.format {
                Format::Text => {
                    report::verdict(&result, style);
                    crate::say(format!(
                        "exit code {}",
                        result.exit_code.map_or_else(|| "unknown".into(), |c| c.to_string())
                    ));
                }
                Format::Json => report::print_json(&report::json(&result)),
                Format::Jsonl => crate::jsonl::result(report::json(&result)),
            }
            i32::from(!result.conforms)
        }
        Err(e) => {
            eprintln!("hep check: cannot run the command: {e}");
            crate::EXIT_USAGE
        }
    }
}
