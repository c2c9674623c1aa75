//! `hep-live-child`: the emitter of `make bench-live`. It writes one round of real HEP
//! through `hep_core::writer::Writer` (each line flushed as it is written, as `fa` does) at
//! a model's pace, and puts the time of writing in each timed frame, so that a supervisor
//! can tell how long the frame took to reach its code.
//!
//!   hep-live-child [--frames N] [--seed S]
//!
//! The timed frames are `message_delta` and `tool_delta`: their text starts with the
//! CLOCK_MONOTONIC time in nanoseconds, then a space. The pace: one frame every 1 to 4 ms,
//! a burst of 8 frames written back to back every 50, and a tool call (a `tool_start`, then
//! its output as `tool_delta` frames) every 200. The round ends with `turn_done` (exit 0):
//! N timed frames in all.

use hep_core::writer::ToolOutcome;
use hep_core::{Args, ArgsMode, Usage, Writer};
use nix::time::{ClockId, clock_gettime};
use std::io::Write;
use std::time::Duration;

/// A tool call lasts this many timed frames.
const TOOL_FRAMES: u64 = 12;

fn main() {
    if let Err(e) = run() {
        eprintln!("hep-live-child: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let (frames, seed) = parse_args(std::env::args().skip(1))?;
    let stdout = std::io::stdout().lock();
    let mut writer = Writer::new(stdout, "live-bench", ArgsMode::Summary);
    let mut rng = seed | 1;
    let fail = |e: hep_core::Error| e.to_string();
    writer.header("live").map_err(fail)?;
    writer.agent_start().map_err(fail)?;
    writer.message_start("assistant").map_err(fail)?;
    let mut tools = Vec::new();
    let mut in_tool: Option<(String, u64)> = None;
    for (i, filler) in (0..frames).zip(FILLER.iter().cycle()) {
        if i % 200 == 100 {
            let id = format!("call_{i}");
            let mut args = Args::new();
            args.insert("command".to_owned(), "cargo test --workspace".into());
            writer.tool_start(&id, "bash", &args).map_err(fail)?;
            in_tool = Some((id, TOOL_FRAMES));
        }
        let text = format!("{} {filler}", now_ns()?);
        match in_tool.take() {
            Some((id, left)) => {
                writer.tool_delta(&id, &text).map_err(fail)?;
                if left > 1 {
                    in_tool = Some((id, left - 1));
                } else {
                    tools.push(id);
                }
            }
            None => {
                writer.message_delta(&text).map_err(fail)?;
            }
        }
        if i % 50 < 42 {
            rng = xorshift(rng);
            std::thread::sleep(Duration::from_micros(1000 + rng % 3000));
        }
    }
    tools.extend(in_tool.map(|(id, _)| id));
    let results: Vec<ToolOutcome<'_>> =
        tools.iter().map(|id| ToolOutcome { id, name: "bash", ok: true, text: "test result: ok" }).collect();
    let usage = Usage { input: 1200, output: frames, cost: 0.01 };
    writer.turn_done("done", &results, usage, "stop").map_err(fail)?;
    writer.into_inner().flush().map_err(|e| e.to_string())
}

/// CLOCK_MONOTONIC in nanoseconds: the clock every supervisor of the bench reads.
fn now_ns() -> Result<u128, String> {
    let t = clock_gettime(ClockId::CLOCK_MONOTONIC).map_err(|e| format!("clock_gettime: {e}"))?;
    Ok(t.tv_sec() as u128 * 1_000_000_000 + t.tv_nsec() as u128)
}

fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^ (x << 17)
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<(u64, u64), String> {
    let (mut frames, mut seed) = (2000, 1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = value.parse::<u64>().map_err(|_| format!("{flag}: not a number: {value:?}"))?;
        match flag.as_str() {
            "--frames" => frames = number,
            "--seed" => seed = number,
            _ => return Err(format!("unknown argument {flag:?} (usage: hep-live-child [--frames N] [--seed S])")),
        }
    }
    Ok((frames, seed))
}

/// What the timed frames say after their time: model text and tool output, escapes included.
const FILLER: [&str; 6] = [
    "Let me look at the failing test first.",
    "The error says \"expected 3, got 4\":\n",
    "running 12 tests\ntest parse::ok ... ok\n",
    "I'll fix the off-by-one in `split_lines`.",
    "warning: unused variable `x`\t--> src/lib.rs:4:9",
    "Done: all tests pass now. ",
];
