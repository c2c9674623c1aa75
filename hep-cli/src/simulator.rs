//! The simulated harness the scenarios play on: the core's [`Emitter`], stdout, a seeded
//! generator, a clock scaled by the speed, and the flag a signal sets. It follows the
//! reference's streaming rule: a signal aborts the run (and `cancelled` is written) only
//! while the agent is streaming.

use hep_core::writer::{Emitter, ToolOutcome};
use hep_core::{LivenessAction, Usage, parse_args};
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

/// How long an aborted run takes to settle (the tool killed, the transcript saved) before
/// the simulator writes what it has and exits, in simulated milliseconds. Long enough for a
/// second SIGTERM to land in it.
const SETTLE_MS: u64 = 300;

/// The simulator: an emitter, its output, a seeded generator and the clock.
pub(crate) struct Sim {
    em: Emitter,
    out: io::StdoutLock<'static>,
    rng: u64,
    speed: f64,
    interrupted: Arc<AtomicBool>,
    /// Inside the agent run: a signal aborts the run (and `cancelled` is written) only then.
    streaming: bool,
}

impl Sim {
    /// A simulator writing `em`'s lines to stdout, its generator seeded with `seed`, its
    /// clock running `speed` times real time (0: no waiting), watching `interrupted`.
    pub(crate) fn new(em: Emitter, seed: u64, speed: f64, interrupted: Arc<AtomicBool>) -> Self {
        Self { em, out: io::stdout().lock(), rng: seed, speed: speed.max(0.0), interrupted, streaming: false }
    }

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

    /// `ms` simulated milliseconds, scaled by the speed.
    fn scaled(&self, ms: u64) -> Duration {
        if self.speed > 0.0 { Duration::from_secs_f64(ms as f64 / 1000.0 / self.speed) } else { Duration::ZERO }
    }

    /// Stops if SIGINT or SIGTERM has arrived.
    pub(crate) fn check(&self) -> Result<(), Stop> {
        if self.interrupted.load(Ordering::SeqCst) { Err(Stop::Interrupted) } else { Ok(()) }
    }

    /// Waits `ms` simulated milliseconds (scaled by the speed), watching for a signal.
    pub(crate) fn pause(&mut self, ms: u64) -> Result<(), Stop> {
        let mut left = self.scaled(ms);
        loop {
            self.check()?;
            if left.is_zero() {
                return Ok(());
            }
            let step = left.min(Duration::from_millis(10));
            sleep(step);
            left -= step;
        }
    }

    /// The agent starts streaming (its run begins, or resumes). A signal that arrived
    /// before found it not streaming, and is handled so.
    pub(crate) fn start_streaming(&mut self) -> Result<(), Stop> {
        self.check()?;
        self.streaming = true;
        Ok(())
    }

    /// The agent stops streaming: its run's last terminal frame is written (or, in an
    /// over-window continuation, the round that did not fit is over).
    pub(crate) fn stop_streaming(&mut self) {
        self.streaming = false;
    }

    /// `agent_start`: the agent run begins, and with it the streaming.
    pub(crate) fn agent_start(&mut self) -> Result<(), Stop> {
        self.start_streaming()?;
        let line = self.em.agent_start()?;
        self.put(line)
    }

    /// A compaction pass: `compaction_start`, the pass taking `ms`, and `compaction_end`
    /// freeing `tokens_freed` when the pass ran (`None`: it decided not to compact, and the
    /// reference writes no end).
    pub(crate) fn compaction(&mut self, ms: u64, tokens_freed: Option<u64>) -> Result<(), Stop> {
        let line = self.em.compaction_start()?;
        self.put(line)?;
        self.pause(ms)?;
        if let Some(freed) = tokens_freed {
            let line = self.em.compaction_end(freed)?;
            self.put(line)?;
        }
        Ok(())
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

    /// What the reference does after SIGINT or a first SIGTERM: while streaming, the run is
    /// aborted and settles with `cancelled` for the open round; otherwise nothing is aborted
    /// and nothing more is written (a compaction in progress is left without its end).
    /// Either way the run gets a moment to settle; a second SIGTERM meanwhile exits 143.
    pub(crate) fn settle_after_signal(&mut self) -> Result<(), Stop> {
        sleep(self.scaled(SETTLE_MS));
        if self.streaming {
            let line = self.em.cancelled()?;
            self.put(line)?;
        }
        Ok(())
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
