//! `CoreSupervisor`: hep-core's supervision state machine (`hep_core::supervise::Supervisor`)
//! behind Swift's `Supervisor`, which `HepProcess`'s driver runs. Conversions only: every
//! decision (the cancel ladder, the timeouts, the drain, backpressure, the verdict) is the
//! core's.
//!
//! Times cross as nanoseconds since the caller's origin (`u64`, exact: no rounding of a
//! simulated clock's milliseconds). The events one poll takes cross as one
//! `CoreEventBatch`: the frames in a `FrameBatch` (read in place by the Swift side, as a
//! stream's are) and the other events (violations, skipped lines, the halt) beside it, each
//! with its place among the frames.

use crate::batch::FrameBatch;
use crate::errors::{HepError, Violation};
use crate::limits::{CoreLimits, default_limits};
use crate::result::RunResult;
use hep_core::supervise::{self, Action, SentSignal, SuperviseOptions, Supervision, Supervisor};
use hep_core::{Event, StreamOptions};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Why a run is cancelled (`hep_core::supervise::CancelReason`).
pub type CancelReason = supervise::CancelReason;
/// A signal of the cancel ladder (`hep_core::supervise::Signal`).
pub type CancelSignal = supervise::Signal;
/// How the child ended (`hep_core::supervise::ExitStatus`).
pub type ExitStatus = supervise::ExitStatus;

/// Why a run was cancelled: by the caller, the total timeout, or the idle timeout.
#[uniffi::remote(Enum)]
pub enum CancelReason {
    User,
    Timeout,
    Idle,
}

/// A signal of the cancel ladder: SIGINT, SIGTERM, SIGKILL.
#[uniffi::remote(Enum)]
pub enum CancelSignal {
    Interrupt,
    Terminate,
    Kill,
}

/// How the child ended: its exit code, the signal that killed it, or unknown (something
/// else reaped it).
#[uniffi::remote(Enum)]
pub enum ExitStatus {
    Code(i32),
    Signal(i32),
    Unknown,
}

/// A signal the supervisor had sent, `at_ms` after the start.
#[uniffi::remote(Record)]
pub struct SentSignal {
    pub at_ms: u64,
    pub signal: CancelSignal,
}

/// How a supervised run went besides what its stream says (`RunResult.supervision`).
#[uniffi::remote(Record)]
pub struct Supervision {
    pub timed_out: bool,
    pub cancelled_by: Option<CancelReason>,
    pub signals: Vec<SentSignal>,
    pub stderr_tail: String,
    pub stderr_dropped: u64,
    pub notices_dropped: u64,
    pub duration_ms: u64,
}

/// `SuperviseOptions` across the FFI; durations in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct CoreSuperviseOptions {
    /// Stop reading at the first error-severity violation or skipped line.
    pub strict: bool,
    /// What the stream keeps at most.
    pub limits: CoreLimits,
    /// The longest the run may take.
    pub timeout_ns: Option<u64>,
    /// The longest the child may go without writing a frame.
    pub idle_timeout_ns: Option<u64>,
    /// After SIGINT, the wait before SIGTERM.
    pub interrupt_grace_ns: u64,
    /// After SIGTERM, the wait before SIGKILL.
    pub terminate_grace_ns: u64,
    /// After the child exits, how long its pipes are still read.
    pub drain_ns: u64,
    /// Bytes of stderr kept for the result.
    pub stderr_tail_bytes: u64,
    /// Longest stderr line handed over live.
    pub max_stderr_line: u64,
    /// Bytes waiting for the consumer above which stdout is paused.
    pub pause_at_bytes: u64,
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn size(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// The core's supervision defaults (Swift: `Supervisor.Options()`).
#[uniffi::export]
pub fn supervise_defaults() -> CoreSuperviseOptions {
    let d = SuperviseOptions::default();
    CoreSuperviseOptions {
        strict: d.stream.strict,
        limits: default_limits(),
        timeout_ns: d.timeout.map(nanos),
        idle_timeout_ns: d.idle_timeout.map(nanos),
        interrupt_grace_ns: nanos(d.interrupt_grace),
        terminate_grace_ns: nanos(d.terminate_grace),
        drain_ns: nanos(d.drain),
        stderr_tail_bytes: d.stderr_tail_bytes as u64,
        max_stderr_line: d.max_stderr_line as u64,
        pause_at_bytes: d.pause_at_bytes as u64,
    }
}

/// Bytes of waiting events (or stderr lines) past which `options` count further ones
/// instead of keeping them: 16 × `pause_at_bytes`, at least `MIN_DROP_AT_BYTES`.
#[uniffi::export]
pub fn supervise_drop_at_bytes(options: CoreSuperviseOptions) -> u64 {
    u64::try_from(SuperviseOptions::from(options).drop_at_bytes()).unwrap_or(u64::MAX)
}

impl From<CoreSuperviseOptions> for SuperviseOptions {
    fn from(o: CoreSuperviseOptions) -> Self {
        Self {
            stream: StreamOptions { strict: o.strict, limits: o.limits.into(), ..StreamOptions::default() },
            timeout: o.timeout_ns.map(Duration::from_nanos),
            idle_timeout: o.idle_timeout_ns.map(Duration::from_nanos),
            interrupt_grace: Duration::from_nanos(o.interrupt_grace_ns),
            terminate_grace: Duration::from_nanos(o.terminate_grace_ns),
            drain: Duration::from_nanos(o.drain_ns),
            stderr_tail_bytes: size(o.stderr_tail_bytes),
            max_stderr_line: size(o.max_stderr_line),
            pause_at_bytes: size(o.pause_at_bytes),
        }
    }
}

/// What the driver must do (`hep_core::supervise::Action`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum CoreAction {
    /// Send `signal` to the child's process group (a step of a cancel).
    Signal {
        /// The signal to send.
        signal: CancelSignal,
        /// Why the run is being cancelled.
        reason: CancelReason,
        /// The step that follows if the child still runs `next_after_ns` later (none after
        /// SIGKILL).
        next: Option<CancelSignal>,
        /// The wait before `next` (0 without one).
        next_after_ns: u64,
    },
    /// The child exited: SIGKILL its process group.
    KillGroup,
    /// Stop reading stdout.
    PauseStdout,
    /// Read stdout again.
    ResumeStdout,
    /// Stop reading and close both pipes.
    ClosePipes,
}

impl From<Action> for CoreAction {
    fn from(action: Action) -> Self {
        match action {
            Action::Signal(step) => Self::Signal {
                signal: step.signal,
                reason: step.reason,
                next: step.next.map(|(signal, _)| signal),
                next_after_ns: step.next.map_or(0, |(_, after)| nanos(after)),
            },
            Action::KillGroup => Self::KillGroup,
            Action::PauseStdout => Self::PauseStdout,
            Action::ResumeStdout => Self::ResumeStdout,
            Action::ClosePipes => Self::ClosePipes,
        }
    }
}

/// An event of the stdout stream other than a frame.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum CoreNotice {
    /// A breach of a consumer guarantee.
    Violation(Violation),
    /// A line that could not be read.
    Skipped(HepError),
    /// The stream stopped (always the last event).
    Halted(HepError),
}

/// A notice and its place: after the first `after_frames` frames of its batch.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CorePlacedNotice {
    /// Frames of the batch before it.
    pub after_frames: u64,
    /// The notice.
    pub notice: CoreNotice,
}

/// The events one poll took, in order: `frames`, with `notices` placed among them.
#[derive(Debug, uniffi::Record)]
pub struct CoreEventBatch {
    /// The frames with their line numbers and lines.
    pub frames: Arc<FrameBatch>,
    /// The other events, each with its place among the frames.
    pub notices: Vec<CorePlacedNotice>,
}

/// The supervision policy of one child: told what happened and when, it answers with
/// actions, events, stderr lines and the next deadline.
#[derive(Debug, uniffi::Object)]
pub struct CoreSupervisor(Mutex<Supervisor>);

impl CoreSupervisor {
    fn inner(&self) -> MutexGuard<'_, Supervisor> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl CoreSupervisor {
    /// A supervisor for a child started at `now_ns`.
    #[uniffi::constructor]
    pub fn new(options: CoreSuperviseOptions, now_ns: u64) -> Arc<Self> {
        Arc::new(Self(Mutex::new(Supervisor::new(options.into(), Duration::from_nanos(now_ns)))))
    }

    /// Bytes the child wrote on stdout.
    pub fn stdout(&self, now_ns: u64, data: &[u8]) {
        self.inner().stdout(Duration::from_nanos(now_ns), data);
    }

    /// Bytes the child wrote on stderr.
    pub fn stderr(&self, now_ns: u64, data: &[u8]) {
        self.inner().stderr(Duration::from_nanos(now_ns), data);
    }

    /// The child's stdout reached its end.
    pub fn stdout_closed(&self, now_ns: u64) {
        self.inner().stdout_closed(Duration::from_nanos(now_ns));
    }

    /// The child's stderr reached its end.
    pub fn stderr_closed(&self, now_ns: u64) {
        self.inner().stderr_closed(Duration::from_nanos(now_ns));
    }

    /// The child exited.
    pub fn exited(&self, now_ns: u64, status: ExitStatus) {
        self.inner().exited(Duration::from_nanos(now_ns), status);
    }

    /// Asks for the run to be cancelled; `interrupt_grace_ns` replaces the interrupt grace
    /// when this request starts the cancel.
    pub fn cancel(&self, now_ns: u64, reason: CancelReason, interrupt_grace_ns: Option<u64>) {
        self.inner().cancel_within(Duration::from_nanos(now_ns), reason, interrupt_grace_ns.map(Duration::from_nanos));
    }

    /// Handles every deadline up to `now_ns`.
    pub fn tick(&self, now_ns: u64) {
        self.inner().tick(Duration::from_nanos(now_ns));
    }

    /// When to call `tick` next, if anything waits for a time.
    pub fn deadline_ns(&self) -> Option<u64> {
        self.inner().deadline().map(nanos)
    }

    /// The next thing the driver must do.
    pub fn poll_action(&self) -> Option<CoreAction> {
        self.inner().poll_action().map(CoreAction::from)
    }

    /// Takes up to `max_events` events, stopping early once the frames taken hold
    /// `max_bytes` bytes of lines (at least one event is taken when one waits).
    pub fn poll_events(&self, max_events: u64, max_bytes: u64) -> CoreEventBatch {
        let mut sup = self.inner();
        let mut frames = hep_core::batch::FrameBatch::default();
        let (mut count, mut taken, mut bytes) = (0u64, 0u64, 0u64);
        let mut notices = Vec::new();
        while taken < max_events && (taken == 0 || bytes < max_bytes) {
            let Some(event) = sup.poll_event() else { break };
            taken += 1;
            let notice = match event {
                Event::Frame(received) => {
                    bytes = bytes.saturating_add(received.raw.len() as u64);
                    frames.push(&received);
                    count += 1;
                    continue;
                }
                Event::Violation(v) => CoreNotice::Violation(v.into()),
                Event::Skipped(e) => CoreNotice::Skipped(HepError::from(&e)),
                Event::Halted(e) => CoreNotice::Halted(HepError::from(&e)),
            };
            notices.push(CorePlacedNotice { after_frames: count, notice });
        }
        CoreEventBatch { frames: Arc::new(frames.into()), notices }
    }

    /// Takes up to `max` stderr lines (without their line ends), oldest first.
    pub fn poll_stderr(&self, max: u64) -> Vec<String> {
        let mut sup = self.inner();
        std::iter::from_fn(|| sup.poll_stderr()).take(size(max)).collect()
    }

    /// Whether someone takes the events as they come (the default): detached, stdout is
    /// never paused (detaching resumes it) and events wait up to the drop threshold.
    pub fn set_consumer(&self, now_ns: u64, attached: bool) {
        self.inner().set_consumer(Duration::from_nanos(now_ns), attached);
    }

    /// Whether stdout is paused for the consumer.
    pub fn is_paused(&self) -> bool {
        self.inner().is_paused()
    }

    /// Who cancelled the run, once a cancel has started.
    pub fn cancelled_by(&self) -> Option<CancelReason> {
        self.inner().cancelled_by()
    }

    /// Whether a cancel has started and the child has not exited yet.
    pub fn is_cancelling(&self) -> bool {
        self.inner().is_cancelling()
    }

    /// Whether the timeout ran out and cancelled the run.
    pub fn timed_out(&self) -> bool {
        self.inner().timed_out()
    }

    /// Whether stdout is still open: once it is not (its end reached, or the drain closed
    /// it), no event comes after the ones waiting.
    pub fn is_stdout_open(&self) -> bool {
        self.inner().is_stdout_open()
    }

    /// Whether the result is known.
    pub fn is_finished(&self) -> bool {
        self.inner().is_finished()
    }

    /// The run's result, once finished (with `supervision`, and its stderr tail also as
    /// `stderr_tail`).
    pub fn result(&self) -> Option<RunResult> {
        self.inner().result().cloned().map(RunResult::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_cores_both_ways() {
        assert_eq!(SuperviseOptions::from(supervise_defaults()), SuperviseOptions::default());
    }

    #[test]
    fn events_come_in_order_with_notices_placed_among_the_frames() {
        let sup = CoreSupervisor::new(supervise_defaults(), 0);
        sup.stdout(1, b"{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n{oops\n");
        sup.stdout(2, b"{\"type\":\"agent_start\",\"turn_id\":1}\n");
        let batch = sup.poll_events(1, u64::MAX);
        assert!(batch.frames.length() > 0);
        assert!(batch.notices.is_empty());
        let rest = sup.poll_events(100, u64::MAX);
        assert_eq!(rest.notices.len(), 1);
        assert_eq!(rest.notices[0].after_frames, 0);
        assert!(matches!(rest.notices[0].notice, CoreNotice::Skipped(_)));
        assert!(sup.poll_events(100, u64::MAX).notices.is_empty());
    }

    #[test]
    fn the_drop_threshold_is_the_cores_rule() {
        let defaults = supervise_defaults();
        assert_eq!(supervise_drop_at_bytes(defaults), 16 << 20);
        let small = CoreSuperviseOptions { pause_at_bytes: 10, ..defaults };
        assert_eq!(supervise_drop_at_bytes(small), supervise::MIN_DROP_AT_BYTES as u64);
    }

    #[test]
    fn a_detached_consumer_is_never_paused_for_and_the_getters_follow_the_run() {
        let options = CoreSuperviseOptions { pause_at_bytes: 10, ..supervise_defaults() };
        let sup = CoreSupervisor::new(options, 0);
        sup.set_consumer(0, false);
        sup.stdout(1, b"{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n");
        assert_eq!(sup.poll_action(), None);
        sup.set_consumer(2, true);
        sup.stdout(3, b"{\"type\":\"agent_start\",\"turn_id\":1}\n");
        assert_eq!(sup.poll_action(), Some(CoreAction::PauseStdout));
        assert!(sup.is_stdout_open() && !sup.is_cancelling() && sup.cancelled_by().is_none());
        sup.cancel(4, CancelReason::Idle, None);
        assert!(sup.is_cancelling() && sup.cancelled_by() == Some(CancelReason::Idle) && !sup.timed_out());
        sup.stdout_closed(5);
        sup.exited(5, ExitStatus::Unknown);
        assert!(!sup.is_stdout_open() && !sup.is_cancelling());
    }

    #[test]
    fn a_cancel_orders_sigint_with_its_next_step() {
        let sup = CoreSupervisor::new(supervise_defaults(), 0);
        sup.cancel(5, CancelReason::User, Some(1_000));
        let want = CoreAction::Signal {
            signal: CancelSignal::Interrupt,
            reason: CancelReason::User,
            next: Some(CancelSignal::Terminate),
            next_after_ns: 1_000,
        };
        assert_eq!(sup.poll_action(), Some(want));
        assert_eq!(sup.deadline_ns(), Some(1_005));
    }
}
