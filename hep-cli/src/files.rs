//! `validate` and `cat`: reading a saved or piped stream.

use crate::args::{Cat, Format, Validate};
use crate::render::Renderer;
use crate::report;
use crate::style::Style;
use hep_core::sanitize::sanitize;
use hep_core::{Event, RunResult, Stream, StreamOptions};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The file at `path`, or stdin for `-` or no path.
fn open(path: Option<&Path>) -> io::Result<Box<dyn Read>> {
    match path {
        Some(p) if p != Path::new("-") => Ok(Box::new(File::open(p)?)),
        _ => Ok(Box::new(io::stdin().lock())),
    }
}

/// Feeds everything `from` yields into `stream`, handing each event to `send` as soon as
/// it exists (a read returns as soon as a pipe has data); stops early when `send` says
/// nobody listens. Gives the stream back at the end.
fn read_stream(mut from: impl Read, mut stream: Stream, mut send: impl FnMut(Event) -> bool) -> io::Result<Stream> {
    let mut buf = vec![0; 64 << 10];
    let mut listening = true;
    while listening {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        stream.feed_with(buf.get(..n).unwrap_or_default(), |event| listening = listening && send(event));
    }
    if listening {
        for event in stream.end_input() {
            send(event);
        }
    }
    Ok(stream)
}

fn read(
    path: Option<&Path>,
    options: StreamOptions,
    exit_code: Option<i32>,
    on: impl FnMut(Event) -> bool,
) -> io::Result<RunResult> {
    let stream = read_stream(open(path)?, Stream::new(options), on)?;
    Ok(stream.finish(exit_code))
}

/// The input's name for messages (a file name may hold terminal escapes too).
fn name(path: Option<&Path>) -> String {
    path.map_or_else(|| "stdin".into(), |p| sanitize(&p.display().to_string()).into_owned())
}

/// Runs `hep validate`: 0 when the stream conforms, 1 when not, 2 when it cannot be read.
pub(crate) fn validate(args: &Validate, style: Style) -> i32 {
    let options =
        StreamOptions { strict: args.strict, max_line_length: args.max_line_bytes, ..StreamOptions::default() };
    let result = read(args.file.as_deref(), options, args.exit_code, |event| {
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
            eprintln!("hep validate: cannot read {}: {e}", name(args.file.as_deref()));
            crate::EXIT_USAGE
        }
    }
}

/// Runs `hep cat`: renders the stream, then its summary.
pub(crate) fn cat(args: &Cat, style: Style) -> i32 {
    let mut view = Renderer::new(io::stdout().lock(), style, false);
    let result = read(args.file.as_deref(), StreamOptions::default(), None, |event| view.event(&event).is_ok());
    match result {
        Ok(result) => {
            let _ = view.summary(&result, None);
            0
        }
        Err(e) => {
            eprintln!("hep cat: cannot read {}: {e}", name(args.file.as_deref()));
            crate::EXIT_USAGE
        }
    }
}
