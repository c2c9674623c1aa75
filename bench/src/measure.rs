//! The timing harness: warm-up rounds, then repetitions run round-robin over the cases
//! (so drift in machine load hits every case alike), median reported; time is wall-clock
//! or the thread's own CPU time.

use crate::Failure;
use crate::cases::Work;
use std::time::Instant;

/// A workload to time.
pub(crate) struct Case<'a> {
    /// Row label.
    pub(crate) name: &'static str,
    /// Frames the workload must report each time (anything else is an error).
    pub(crate) frames: u64,
    /// The workload.
    pub(crate) run: Box<dyn FnMut() -> Result<Work, Failure> + 'a>,
}

/// Timings of one case.
#[derive(Debug, Clone)]
pub(crate) struct Timing {
    /// Row label.
    pub(crate) name: &'static str,
    /// What one run did.
    pub(crate) work: Work,
    /// Median seconds per run.
    pub(crate) median: f64,
    /// Fastest run.
    pub(crate) min: f64,
    /// Slowest run.
    pub(crate) max: f64,
}

impl Timing {
    /// Megabytes (10^6 bytes) per second at the median.
    pub(crate) fn mb_per_s(&self) -> f64 {
        self.work.bytes as f64 / 1e6 / self.median
    }

    /// Frames per second at the median.
    pub(crate) fn frames_per_s(&self) -> f64 {
        self.work.frames as f64 / self.median
    }
}

/// What a run's time is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Clock {
    /// Wall-clock time (`Instant`).
    Wall,
    /// Time this thread spent on a CPU, from Linux's `/proc/thread-self/schedstat`: on a
    /// machine shared with other jobs it leaves out the time the thread waited for a core.
    Cpu,
}

impl Clock {
    /// Seconds since an arbitrary origin, by this clock.
    fn now(self, origin: Instant) -> Result<f64, Failure> {
        match self {
            Clock::Wall => Ok(origin.elapsed().as_secs_f64()),
            Clock::Cpu => {
                let text = std::fs::read_to_string("/proc/thread-self/schedstat")
                    .map_err(|e| Failure(format!("--clock cpu: /proc/thread-self/schedstat: {e}")))?;
                let ns: u64 = text.split_whitespace().next().and_then(|t| t.parse().ok()).ok_or_else(|| {
                    Failure(format!("--clock cpu: /proc/thread-self/schedstat: no CPU time in {text:?}"))
                })?;
                Ok(ns as f64 / 1e9)
            }
        }
    }
}

/// Runs every case `warmup` times untimed, then `reps` times timed by `clock`, round-robin.
pub(crate) fn measure(
    cases: &mut [Case<'_>],
    warmup: usize,
    reps: usize,
    clock: Clock,
) -> Result<Vec<Timing>, Failure> {
    let origin = Instant::now();
    let mut samples: Vec<(Vec<f64>, Option<Work>)> = cases.iter().map(|_| (Vec::new(), None)).collect();
    for rep in 0..warmup + reps {
        for (case, (times, work)) in cases.iter_mut().zip(samples.iter_mut()) {
            let start = clock.now(origin)?;
            let done = (case.run)()?;
            let secs = clock.now(origin)? - start;
            if done.frames != case.frames {
                return Err(Failure(format!(
                    "{}: handled {} frames, expected {}",
                    case.name, done.frames, case.frames
                )));
            }
            if rep >= warmup {
                times.push(secs);
            }
            *work = Some(done);
        }
    }
    let mut out = Vec::with_capacity(cases.len());
    for (case, (mut times, work)) in cases.iter().zip(samples) {
        times.sort_by(f64::total_cmp);
        let work = work.ok_or_else(|| Failure(format!("{}: never ran", case.name)))?;
        let median = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
        let min = times.first().copied().unwrap_or(f64::NAN);
        let max = times.last().copied().unwrap_or(f64::NAN);
        out.push(Timing { name: case.name, work, median, min, max });
    }
    Ok(out)
}
