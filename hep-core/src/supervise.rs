//! Process-supervision policy shared by every binding: the grace periods of a cancel, how
//! much stderr to keep, and what exit codes mean. Sans-IO: bindings do the signalling.
//!
//! # Why these grace periods
//!
//! On SIGINT or SIGTERM the reference harness (`_gracefulHeadlessExit` in `bin/fah.dart`)
//! aborts the run if it is streaming, waits up to [`REFERENCE_SETTLE`] (10 s) for the run to
//! settle (the partial transcript persisted, `cancelled` written), drains its stdout, then
//! exits 130; a second SIGTERM makes it exit 143 at once, losing what it had not written.
//! So a supervisor sends SIGINT first and waits [`INTERRUPT_GRACE`]: the settle bound plus
//! [`DRAIN_ALLOWANCE`] for the drain and the exit. Only then SIGTERM, and after
//! [`TERMINATE_GRACE`] SIGKILL, which no process can ignore.

use std::collections::VecDeque;
use std::time::Duration;

/// How long the reference waits for an interrupted run to settle before it exits 130.
pub const REFERENCE_SETTLE: Duration = Duration::from_secs(10);
/// Time allowed beyond [`REFERENCE_SETTLE`] for the harness to drain stdout and exit.
pub const DRAIN_ALLOWANCE: Duration = Duration::from_secs(2);
/// After SIGINT, how long a harness gets to settle, write what it has and exit before
/// SIGTERM: [`REFERENCE_SETTLE`] + [`DRAIN_ALLOWANCE`] (12 s).
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(REFERENCE_SETTLE.as_secs() + DRAIN_ALLOWANCE.as_secs());
/// After SIGTERM, how long before SIGKILL.
pub const TERMINATE_GRACE: Duration = Duration::from_secs(2);
/// Bytes of the child's stderr kept (the most recent ones).
pub const STDERR_TAIL_BYTES: usize = 64 << 10;

/// Exit code of a run whose last terminal frame is `turn_done`.
pub const EXIT_OK: i32 = 0;
/// Exit code of a run whose last terminal frame is `turn_error`.
pub const EXIT_FAILED: i32 = 1;
/// Exit code of a cancelled run (128 + SIGINT).
pub const EXIT_CANCELLED: i32 = 130;

/// The shell convention for a process killed by `signal`: 128 + the signal number
/// (saturating, so no argument can overflow).
pub fn exit_code_for_signal(signal: i32) -> i32 {
    128i32.saturating_add(signal)
}

/// The last [`STDERR_TAIL_BYTES`] (or another cap) of a byte stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    cap: usize,
    bytes: VecDeque<u8>,
    dropped: u64,
}

impl Default for Tail {
    fn default() -> Self {
        Self::new(STDERR_TAIL_BYTES)
    }
}

impl Tail {
    /// An empty tail keeping at most `cap` bytes.
    pub fn new(cap: usize) -> Self {
        Self { cap, bytes: VecDeque::new(), dropped: 0 }
    }

    /// Appends `chunk`, forgetting the oldest bytes beyond the cap.
    pub fn push(&mut self, chunk: &[u8]) {
        let keep = chunk.len().min(self.cap);
        let skip = chunk.len() - keep;
        self.bytes.extend(chunk.get(skip..).unwrap_or_default());
        let over = self.bytes.len().saturating_sub(self.cap);
        self.bytes.drain(..over);
        self.dropped = self.dropped.saturating_add((skip + over) as u64);
    }

    /// Bytes forgotten so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The kept bytes as text (invalid UTF-8, such as a character cut at the start, as U+FFFD).
    pub fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        String::from_utf8_lossy(&[a, b].concat()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_most_recent_bytes() {
        let mut tail = Tail::new(5);
        tail.push(b"abc");
        tail.push(b"defg");
        assert_eq!((tail.text().as_str(), tail.dropped()), ("cdefg", 2));
        tail.push(b"0123456789");
        assert_eq!((tail.text().as_str(), tail.dropped()), ("56789", 12));
    }

    #[test]
    fn the_first_signal_outlasts_the_reference_settle_and_drain() {
        assert!(INTERRUPT_GRACE >= REFERENCE_SETTLE + DRAIN_ALLOWANCE);
        assert!(DRAIN_ALLOWANCE > Duration::ZERO);
    }

    #[test]
    fn signals_map_to_shell_exit_codes() {
        assert_eq!(exit_code_for_signal(2), EXIT_CANCELLED);
        assert_eq!(exit_code_for_signal(9), 137);
        assert_eq!(exit_code_for_signal(i32::MAX), i32::MAX);
    }
}
