//! [`HepSuperviseOptions`]: how a run is supervised, in C layout, and its conversions to
//! and from hep-core's `SuperviseOptions` (times in milliseconds).

use crate::boundary::guard_void;
use crate::options::{HepStreamOptions, narrow, wide};
use hep_core::supervise::SuperviseOptions;
use std::time::Duration;

/// How a run is supervised; `hep_supervise_options_default` gives the core's policy.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HepSuperviseOptions {
    /// How stdout is read.
    pub stream: HepStreamOptions,
    /// Whether `timeout_ms` applies (default: no timeout).
    pub has_timeout: bool,
    /// The longest the run may take; past it, the run is cancelled (`timeout`).
    pub timeout_ms: u64,
    /// Whether `idle_timeout_ms` applies (default: none).
    pub has_idle_timeout: bool,
    /// The longest the child may go without writing a frame; past it, the run is
    /// cancelled (`idle`).
    pub idle_timeout_ms: u64,
    /// After SIGINT, the wait before SIGTERM (default 12 s).
    pub interrupt_grace_ms: u64,
    /// After SIGTERM, the wait before SIGKILL (default 2 s).
    pub terminate_grace_ms: u64,
    /// After the child exits, how long its pipes are still read (default 2 s).
    pub drain_ms: u64,
    /// Bytes of stderr kept for the result.
    pub stderr_tail_bytes: u64,
    /// Longest stderr line handed over live.
    pub max_stderr_line: u64,
    /// Bytes waiting for the consumer above which stdout is paused.
    pub pause_at_bytes: u64,
}

/// Milliseconds as a `Duration`.
pub(crate) fn ms(value: u64) -> Duration {
    Duration::from_millis(value)
}

/// A `Duration` in whole milliseconds (saturating).
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl From<SuperviseOptions> for HepSuperviseOptions {
    fn from(o: SuperviseOptions) -> Self {
        Self {
            stream: o.stream.into(),
            has_timeout: o.timeout.is_some(),
            timeout_ms: o.timeout.map_or(0, millis),
            has_idle_timeout: o.idle_timeout.is_some(),
            idle_timeout_ms: o.idle_timeout.map_or(0, millis),
            interrupt_grace_ms: millis(o.interrupt_grace),
            terminate_grace_ms: millis(o.terminate_grace),
            drain_ms: millis(o.drain),
            stderr_tail_bytes: wide(o.stderr_tail_bytes),
            max_stderr_line: wide(o.max_stderr_line),
            pause_at_bytes: wide(o.pause_at_bytes),
        }
    }
}

impl From<HepSuperviseOptions> for SuperviseOptions {
    fn from(o: HepSuperviseOptions) -> Self {
        Self {
            stream: o.stream.into(),
            timeout: o.has_timeout.then(|| ms(o.timeout_ms)),
            idle_timeout: o.has_idle_timeout.then(|| ms(o.idle_timeout_ms)),
            interrupt_grace: ms(o.interrupt_grace_ms),
            terminate_grace: ms(o.terminate_grace_ms),
            drain: ms(o.drain_ms),
            stderr_tail_bytes: narrow(o.stderr_tail_bytes),
            max_stderr_line: narrow(o.max_stderr_line),
            pause_at_bytes: narrow(o.pause_at_bytes),
        }
    }
}

/// The core's supervision policy: no timeouts, SIGINT then SIGTERM 12 s later then SIGKILL
/// 2 s later, a 2 s drain, the core's stream options. Change fields of the copy.
#[unsafe(no_mangle)]
pub extern "C" fn hep_supervise_options_default() -> HepSuperviseOptions {
    let mut options = None;
    guard_void(|| options = Some(HepSuperviseOptions::from(SuperviseOptions::default())));
    options.unwrap_or_else(|| HepSuperviseOptions::from(SuperviseOptions::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_cores_both_ways() {
        let options = hep_supervise_options_default();
        assert_eq!(SuperviseOptions::from(options), SuperviseOptions::default());
        assert_eq!((options.interrupt_grace_ms, options.terminate_grace_ms), (12_000, 2_000));
        assert!(!options.has_timeout && !options.has_idle_timeout);
    }
}
