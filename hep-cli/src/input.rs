//! The stream a command reads: a saved file or stdin, fed to a [`Stream`] as it arrives.

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

/// Reads the stream at `path` (stdin for `-` or none) with `options`, handing each event
/// to `on` (which says whether anyone still listens), and judges it with `exit_code`.
pub(crate) fn read(
    path: Option<&Path>,
    options: StreamOptions,
    exit_code: Option<i32>,
    on: impl FnMut(Event) -> bool,
) -> io::Result<RunResult> {
    let stream = read_stream(open(path)?, Stream::new(options), on)?;
    Ok(stream.finish(exit_code))
}

/// The input's name for messages (a file name may hold terminal escapes too).
pub(crate) fn name(path: Option<&Path>) -> String {
    path.map_or_else(|| "stdin".into(), |p| sanitize(&p.display().to_string()).into_owned())
}
