//! `hep simulate`: a realistic HEP v1 emitter with real timing, built on the core's
//! [`Emitter`]. SIGINT or SIGTERM make it emit `cancelled` and exit 130, as the reference does.

use crate::args::Simulate;
use crate::scenarios;
use hep_core::supervise::{EXIT_CANCELLED, EXIT_FAILED, EXIT_OK};
use hep_core::writer::{Emitter, ToolOutcome};
use hep_core::{ArgsMode, LivenessAction, Usage, parse_args};
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::sleep;
use std::time::Duration;

/// Why a scenario stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// SIGINT or SIGTERM arrived.
    Interrupted,
    /// Writing failed (the reader went away) or a frame could not be encoded.
    Failed(hep_core::Error),
}

impl From<hep_core::Error> for Stop {
    fn from(e: hep_core::Error) -> Self {
        Self::Failed(e)
    }
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Self::Failed(e.into())
    }
}

/// How a scenario ended, when it was not stopped.
pub(crate) enum Ending {
    /// The last round ended with `turn_done`.
    Done,
    /// The last round ended with a fatal `turn_error`.
    Failed,
}

/// A tool call to play: its output arrives line by line over `duration_ms`.
pub(crate) struct ToolRun<'a> {
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
    /// The arguments, as JSON text.
    pub(crate) args: &'a str,
    pub(crate) output: &'a [&'a str],
    pub(crate) duration_ms: u64,
    pub(crate) ok: bool,
}

/// The simulator: an emitter, its output, a seeded generator and the clock.
pub(crate) struct Sim {
    em: Emitter,
    out: io::StdoutLock<'static>,
    rng: u64,
    speed: f64,
    interrupted: Arc<AtomicBool>,
}

impl Sim {
    /// Emits `line`, if any, and flushes it.
    pub(crate) fn put(&mut self, line: Option<String>) -> Result<(), Stop> {
        if let Some(line) = line {
            self.out.write_all(line.as_bytes())?;
            self.out.write_all(b"\n")?;
            self.out.flush()?;
        }
        Ok(())
    }

    /// The emitter, for calls that emit.
    pub(crate) fn em(&mut self) -> &mut Emitter {
        &mut self.em
    }

    /// A number in `lo..=hi` from the seeded generator (splitmix64).
    pub(crate) fn pick(&mut self, lo: u64, hi: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        lo + (z ^ (z >> 31)) % (hi - lo + 1)
    }

    /// One of `options`, chosen by the seed.
    pub(crate) fn choose<'a>(&mut self, options: &[&'a str]) -> &'a str {
        let i = self.pick(0, options.len().saturating_sub(1) as u64) as usize;
        options.get(i).copied().unwrap_or_default()
    }

    /// Waits `ms` simulated milliseconds (scaled by the speed), watching for a signal.
    pub(crate) fn pause(&mut self, ms: u64) -> Result<(), Stop> {
        let mut left =
            if self.speed > 0.0 { Duration::from_secs_f64(ms as f64 / 1000.0 / self.speed) } else { Duration::ZERO };
        loop {
            if self.interrupted.load(Ordering::SeqCst) {
                return Err(Stop::Interrupted);
            }
            if left.is_zero() {
                return Ok(());
            }
            let step = left.min(Duration::from_millis(10));
            sleep(step);
            left -= step;
        }
    }

    /// Streams `text` as `message_delta` chunks of 2 to 12 characters.
    pub(crate) fn say(&mut self, text: &str) -> Result<(), Stop> {
        let chars: Vec<char> = text.chars().collect();
        let mut at = 0;
        while at < chars.len() {
            let n = (self.pick(2, 12) as usize).min(chars.len() - at);
            let chunk: String = chars.iter().skip(at).take(n).collect();
            at += n;
            let line = self.em.message_delta(&chunk)?;
            self.put(line)?;
            let wait = self.pick(15, 45);
            self.pause(wait)?;
        }
        Ok(())
    }

    /// Plays one tool call: `tool_start`, output lines as `tool_delta`, a heartbeat each
    /// simulated second; returns its outcome text.
    pub(crate) fn tool(&mut self, run: &ToolRun<'_>) -> Result<String, Stop> {
        let args = parse_args(run.args)?;
        let line = self.em.tool_start(run.id, run.name, &args)?;
        self.put(line)?;
        let steps = run.output.len().max(1) as u64;
        let step = run.duration_ms / steps;
        let (mut elapsed, mut next_beat, mut bytes) = (0, 1000, 0u64);
        let mut output = String::new();
        for chunk in run.output {
            self.pause(step)?;
            elapsed += step;
            while elapsed >= next_beat {
                self.heartbeat(run, next_beat, bytes)?;
                next_beat += 1000;
            }
            let update = format!("{chunk}\n");
            bytes += update.len() as u64;
            output.push_str(&update);
            let line = self.em.tool_delta(run.id, &update)?;
            self.put(line)?;
        }
        Ok(output.trim_end().to_owned())
    }

    fn heartbeat(&mut self, run: &ToolRun<'_>, elapsed_ms: u64, bytes: u64) -> Result<(), Stop> {
        let output = (bytes > 0).then_some(bytes);
        let line =
            self.em.liveness(run.id, run.name, LivenessAction::Heartbeat, elapsed_ms, output, Some("attempt 1"))?;
        self.put(line)
    }

    /// Ends the run with `cancelled` (after `agent_start`, if the run had not begun).
    fn cancel(&mut self) -> Result<(), Stop> {
        let start = self.em.agent_start()?;
        self.put(start)?;
        let line = self.em.cancelled()?;
        self.put(line)
    }

    /// Ends the round with `turn_done`, with plausible usage.
    pub(crate) fn done(&mut self, message: &str, results: &[ToolOutcome<'_>], stop_reason: &str) -> Result<(), Stop> {
        let input = self.pick(800, 4000);
        let output = self.pick(20, 400);
        let cost = ((input as f64 * 3.0 + output as f64 * 15.0) / 1e6 * 1e6).round() / 1e6;
        let line = self.em.turn_done(message, results, Usage { input, output, cost }, stop_reason)?;
        self.put(line)
    }
}

/// Runs the chosen scenario; returns the process exit code.
pub(crate) fn run(opts: &Simulate) -> i32 {
    let interrupted = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(e) = signal_hook::flag::register(signal, Arc::clone(&interrupted)) {
            eprintln!("hep simulate: cannot watch for signals: {e}");
            return EXIT_FAILED;
        }
    }
    let mode = if opts.full_args { ArgsMode::Full } else { ArgsMode::Summary };
    let mut sim = Sim {
        em: Emitter::new(mode),
        out: io::stdout().lock(),
        rng: opts.seed,
        speed: opts.speed.max(0.0),
        interrupted,
    };
    let session = opts.session.clone().unwrap_or_else(|| format!("sim-{:04x}", opts.seed % 0x10000));
    let outcome = sim.em.header(env!("CARGO_PKG_VERSION"), &session).map_err(Stop::from).and_then(|line| sim.put(line));
    match outcome.and_then(|()| scenarios::play(&mut sim, opts.scenario)) {
        Ok(Ending::Done) => EXIT_OK,
        Ok(Ending::Failed) => EXIT_FAILED,
        Err(Stop::Interrupted) => match sim.cancel() {
            Ok(()) => EXIT_CANCELLED,
            Err(_) => EXIT_FAILED,
        },
        Err(Stop::Failed(e)) => {
            eprintln!("hep simulate: {e}");
            EXIT_FAILED
        }
    }
}
