//! `hep encode`: frames as JSON objects in, their exact canonical bytes out.

use hep_core::sanitize::sanitize;
use std::io::{self, BufRead, Write};

/// Reads stdin line by line; prints each frame canonically. Errors name the line and go to
/// stderr (the input they quote sanitised); the other lines are still printed. Exit 1 if
/// any line failed.
pub(crate) fn run() -> i32 {
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    let (mut line, mut number, mut failed) = (Vec::new(), 0u64, false);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("hep encode: cannot read stdin: {e}");
                return crate::EXIT_USAGE;
            }
        }
        number += 1;
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        match hep_core::decode(text).and_then(|frame| hep_core::encode(&frame)) {
            Ok(canonical) => {
                if writeln!(out, "{canonical}").and_then(|()| out.flush()).is_err() {
                    return 1;
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("hep encode: {}", sanitize(&e.at_line(number).to_string()));
            }
        }
    }
    i32::from(failed)
}
