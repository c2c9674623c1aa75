//! `hep validate`: checks a saved or piped stream and reports what it found.

use crate::args::{Format, Validate};
use crate::input;
use crate::report;
use crate::style::Style;
use hep_core::StreamOptions;

/// Runs `hep validate`: 0 when the stream conforms, 1 when not, 2 when it cannot be read.
pub(crate) fn run(args: &Validate, style: Style) -> i32 {
    let options =
        StreamOptions { strict: args.strict, max_line_length: args.max_line_bytes, ..StreamOptions::default() };
    let result = input::read(args.file.as_deref(), options, args.exit_code, |event| {
        match args.format {
            Format::Text => report::finding(&event, style),
            Format::Jsonl => crate::jsonl::event(&event),
            Format::Json => {}
        }
        true
    });
    match result {
        Ok(result) => {
            match args.format {
                Format::Text => report::verdict(&result, style),
                Format::Json => report::print_json(&report::json(&result)),
                Format::Jsonl => crate::jsonl::result(report::json(&result)),
            }
            i32::from(!result.conforms)
        }
        Err(e) => {
            eprintln!("hep validate: cannot read {}: {e}", input::name(args.file.as_deref()));
            crate::EXIT_USAGE
        }
    }
}
