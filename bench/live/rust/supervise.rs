//! `hep-live-rust`: the Rust supervisor of `make bench-live`, on `hep-process`'s blocking
//! driver (`Command::run`, its callback being the user code).
//!
//!   hep-live-rust latency --frames N -- CHILD [ARGS...]
//!   hep-live-rust many --runs R --expect F -- CMD [ARGS...]
//!
//! `latency` runs the child once and, for each timed frame (a `message_delta` or
//! `tool_delta` whose text starts with the CLOCK_MONOTONIC time it was written, see
//! `child.rs`), records how long after its writing the callback got it. `many` runs R
//! copies of CMD at once, one thread each (the driver is blocking), and reports the wall
//! time, the process's CPU time, the frames delivered, the peak of its thread count
//! (`/proc/self/status`, sampled every 5 ms) and how many runs ended with verdict ok and F
//! frames. Each prints one JSON line for bench/live/live.py.

use hep_core::{Event, Frame};
use hep_process::{Command, Update};
use nix::sys::resource::{UsageWho, getrusage};
use nix::time::{ClockId, clock_gettime};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn main() {
    if let Err(e) = run(std::env::args().skip(1).collect()) {
        eprintln!("hep-live-rust: {e}");
        std::process::exit(2);
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let split = args.iter().position(|a| a == "--").ok_or("usage: hep-live-rust latency|many OPTIONS -- COMMAND...")?;
    let (head, command) = args.split_at(split);
    let command = command.get(1..).and_then(<[String]>::split_first).ok_or("no command after --")?;
    match head {
        [mode, flag, value] if mode == "latency" && flag == "--frames" => latency(command, number(value)?),
        [mode, f1, runs, f2, expect] if mode == "many" && f1 == "--runs" && f2 == "--expect" => {
            many(command, number(runs)?, number(expect)?)
        }
        _ => Err(format!("unknown arguments {head:?} (latency --frames N | many --runs R --expect F)")),
    }
}

fn number(text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| format!("not a number: {text:?}"))
}

/// CLOCK_MONOTONIC in nanoseconds, the clock the child writes.
fn now_ns() -> u64 {
    clock_gettime(ClockId::CLOCK_MONOTONIC).map_or(0, |t| t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64)
}

/// The time a timed frame was written, from the start of its text.
fn sent_ns(frame: &Frame) -> Option<u64> {
    let text = match frame {
        Frame::MessageDelta(f) => &f.delta,
        Frame::ToolDelta(f) => &f.update,
        _ => return None,
    };
    text.split(' ').next()?.parse().ok()
}

fn latency((program, args): (&String, &[String]), frames: u64) -> Result<(), String> {
    let mut latencies = Vec::with_capacity(frames as usize);
    let mut bad = 0;
    let result = Command::new(program)
        .args(args)
        .run(|update| {
            if let Update::Event(Event::Frame(received)) = update {
                let now = now_ns();
                match sent_ns(&received.frame) {
                    Some(sent) => latencies.push(now.saturating_sub(sent)),
                    None if matches!(received.frame, Frame::MessageDelta(_) | Frame::ToolDelta(_)) => bad += 1,
                    None => {}
                }
            }
        })
        .map_err(|e| format!("{program}: {e}"))?;
    let list: Vec<String> = latencies.iter().map(u64::to_string).collect();
    println!(
        r#"{{"verdict":"{}","expected":{frames},"bad":{bad},"latencies_ns":[{}]}}"#,
        result.verdict.as_str(),
        list.join(",")
    );
    Ok(())
}

fn many((program, args): (&String, &[String]), runs: u64, expect: u64) -> Result<(), String> {
    let start = Instant::now();
    let before = cpu_seconds()?;
    let frames = Arc::new(AtomicU64::new(0));
    let ok = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for _ in 0..runs {
        let (program, args) = (program.clone(), args.to_vec());
        let (frames, ok, done) = (frames.clone(), ok.clone(), done.clone());
        handles.push(std::thread::spawn(move || {
            let mut seen = 0;
            let result = Command::new(&program).args(&args).run(|update| {
                if let Update::Event(Event::Frame(received)) = update {
                    // What a supervisor does with a frame: look at it.
                    std::hint::black_box(received.frame.frame_type());
                    seen += 1;
                }
            });
            frames.fetch_add(seen, Ordering::Relaxed);
            if matches!(&result, Ok(r) if r.verdict.as_str() == "ok") && seen == expect {
                ok.fetch_add(1, Ordering::Relaxed);
            }
            done.fetch_add(1, Ordering::Release);
        }));
    }
    let mut peak = threads()?;
    while done.load(Ordering::Acquire) < runs {
        peak = peak.max(threads()?);
        std::thread::sleep(Duration::from_millis(5));
    }
    for handle in handles {
        handle.join().map_err(|_| "a run's thread panicked")?;
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds()? - before;
    println!(
        r#"{{"runs":{runs},"ok":{},"frames":{},"wall_s":{wall:.3},"cpu_s":{:.4},"peak_threads":{peak}}}"#,
        ok.load(Ordering::Relaxed),
        frames.load(Ordering::Relaxed),
        cpu,
    );
    Ok(())
}

/// The process's user and system time so far, in seconds.
fn cpu_seconds() -> Result<f64, String> {
    let usage = getrusage(UsageWho::RUSAGE_SELF).map_err(|e| format!("getrusage: {e}"))?;
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    Ok(seconds(usage.user_time()) + seconds(usage.system_time()))
}

/// The process's thread count now (`Threads:` of `/proc/self/status`).
fn threads() -> Result<u64, String> {
    let status = std::fs::read_to_string("/proc/self/status").map_err(|e| format!("/proc/self/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| "/proc/self/status has no Threads line".to_owned())
}
