//! `hep-bounds`: the Rust reader of `make bounds` (scripts/bounds/bounds.py).
//!
//! Reads a HEP stream from stdin with `hep_core::Reader` the way a user would, then prints
//! one JSON line: the frames it was handed, the run's frame, line and skipped counts, the
//! kinds of the skipped lines, the verdict (exit code 0), the seconds from the first read
//! to the result, and its own peak RSS (`VmHWM` of `/proc/self/status`, in KiB; `null`
//! where there is none).
//!
//! `hep-bounds [--max-line-bytes N]`

use hep_core::{Event, Reader, StreamOptions};
use std::collections::BTreeSet;
use std::io::{BufReader, Write};
use std::process::ExitCode;
use std::time::Instant;

/// Bytes read from stdin at a time, as the bindings read (64 KiB).
const CHUNK: usize = 64 * 1024;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hep-bounds: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut options = StreamOptions::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {}
        [flag, n] if flag == "--max-line-bytes" => {
            options.max_line_length = n.parse().map_err(|e| format!("--max-line-bytes {n}: {e}"))?;
        }
        _ => return Err("usage: hep-bounds [--max-line-bytes N]".to_owned()),
    }
    let start = Instant::now();
    let stdin = BufReader::with_capacity(CHUNK, std::io::stdin().lock());
    let mut reader = Reader::with_options(stdin, options);
    let (mut frames, mut kinds) = (0u64, BTreeSet::new());
    for event in reader.by_ref() {
        match event.map_err(|e| format!("reading stdin: {e}"))? {
            Event::Frame(_) => frames += 1,
            Event::Skipped(err) => {
                kinds.insert(err.kind().to_string());
            }
            Event::Violation(_) | Event::Halted(_) => {}
        }
    }
    let result = reader.finish(Some(0));
    let seconds = start.elapsed().as_secs_f64();
    let report = serde_json::json!({
        "frames": frames,
        "result_frames": result.run.frames,
        "lines": result.lines,
        "skipped": result.skipped_count,
        "skipped_kinds": kinds,
        "verdict": result.verdict.as_str(),
        "seconds": seconds,
        "hwm_kib": peak_rss_kib(),
        "maxrss_kib": null,
    });
    writeln!(std::io::stdout(), "{report}").map_err(|e| format!("writing stdout: {e}"))
}

/// This process's peak resident set size in KiB (`VmHWM` in `/proc/self/status`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()
}
