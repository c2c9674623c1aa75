//! What a [`HepSupervisor`] hands the driver: the next [`HepAction`]
//! (`hep_supervisor_poll_action`) and the child's events as [`HepEvents`]
//! (`hep_supervisor_poll_events`): its frames as one [`HepBatch`], the other events
//! (violations, skipped lines, a halt) as [`HepNotice`]s placed among them.

use crate::boundary::guard_void;
use crate::buffers::{HepBatch, HepString, out, put};
use crate::errors::{Failure, HepError};
use crate::supervise::{HepCancelReason, HepSupervisor, with};
use crate::supervise_options::millis;
use hep_core::Event;
use hep_core::batch::FrameBatch;
use hep_core::supervise::{Action, CancelReason};

/// What the driver must do.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HepActionKind {
    /// Nothing waits.
    None = 0,
    /// Send `signal` to the child's process group (a step of a cancel).
    Signal = 1,
    /// The child exited: send SIGKILL to its process group, so that nothing it left there
    /// outlives it.
    KillGroup = 2,
    /// Stop reading stdout: the consumer is behind.
    PauseStdout = 3,
    /// Read stdout again.
    ResumeStdout = 4,
    /// Stop reading and close both pipes: the drain after the exit is over.
    ClosePipes = 5,
}

/// An action; the other fields are those of a `HEP_ACTION_KIND_SIGNAL` (0 otherwise).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HepAction {
    /// What to do.
    pub kind: HepActionKind,
    /// The POSIX number of the signal to send (2, 15, 9).
    pub signal: i32,
    /// Why the run is being cancelled.
    pub reason: HepCancelReason,
    /// Whether a next step follows if the child has not exited by then.
    pub has_next: bool,
    /// The next step's signal number.
    pub next_signal: i32,
    /// The wait before the next step, in milliseconds.
    pub next_after_ms: u64,
}

impl From<Option<Action>> for HepAction {
    fn from(action: Option<Action>) -> Self {
        let plain = |kind| Self {
            kind,
            signal: 0,
            reason: HepCancelReason::User,
            has_next: false,
            next_signal: 0,
            next_after_ms: 0,
        };
        match action {
            None => plain(HepActionKind::None),
            Some(Action::KillGroup) => plain(HepActionKind::KillGroup),
            Some(Action::PauseStdout) => plain(HepActionKind::PauseStdout),
            Some(Action::ResumeStdout) => plain(HepActionKind::ResumeStdout),
            Some(Action::ClosePipes) => plain(HepActionKind::ClosePipes),
            Some(Action::Signal(step)) => Self {
                kind: HepActionKind::Signal,
                signal: step.signal.number(),
                reason: match step.reason {
                    CancelReason::User => HepCancelReason::User,
                    CancelReason::Timeout => HepCancelReason::Timeout,
                    CancelReason::Idle => HepCancelReason::Idle,
                },
                has_next: step.next.is_some(),
                next_signal: step.next.map_or(0, |(signal, _)| signal.number()),
                next_after_ms: step.next.map_or(0, |(_, after)| millis(after)),
            },
        }
    }
}

/// What a notice is.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HepNoticeKind {
    /// A breach of a consumer guarantee: `violation`.
    Violation = 0,
    /// A line that could not be read; reading goes on: `error`.
    Skipped = 1,
    /// The stream stopped (strict mode, a refused version): `error`. Always the last event.
    Halted = 2,
}

/// A breach of a consumer guarantee (hep-core's `Violation`).
#[repr(C)]
#[derive(Debug)]
pub struct HepViolation {
    /// The guarantee's snake_case code (`unterminated_turn`, ...).
    pub code: HepString,
    /// `error` or `warning`.
    pub severity: HepString,
    /// The 1-based line of the offending frame (0 for end-of-stream checks).
    pub line: u64,
    /// Whether the violation concerns a round (`turn_id`).
    pub has_turn_id: bool,
    /// The round concerned.
    pub turn_id: u64,
    /// What happened, in words.
    pub message: HepString,
}

/// An event other than a frame, with its place among the batch's frames.
#[repr(C)]
#[derive(Debug)]
pub struct HepNotice {
    /// How many frames of the batch come before it.
    pub after_frames: usize,
    /// What it is.
    pub kind: HepNoticeKind,
    /// The violation (`HEP_NOTICE_KIND_VIOLATION`; empty strings otherwise).
    pub violation: HepViolation,
    /// The error (`HEP_NOTICE_KIND_SKIPPED`, `HEP_NOTICE_KIND_HALTED`; NULL otherwise),
    /// freed with the events.
    pub error: *mut HepError,
}

impl Drop for HepNotice {
    fn drop(&mut self) {
        if !self.error.is_null() {
            // SAFETY: a non-NULL `error` was boxed by `notice` and is owned by this notice.
            drop(unsafe { Box::from_raw(self.error) });
        }
    }
}

fn notice(
    after_frames: usize,
    kind: HepNoticeKind,
    violation: Option<hep_core::Violation>,
    error: Option<Failure>,
) -> HepNotice {
    let violation = match violation {
        Some(v) => HepViolation {
            code: HepString::from(v.code.as_str().to_owned()),
            severity: HepString::from(v.severity.as_str().to_owned()),
            line: v.line,
            has_turn_id: v.turn_id.is_some(),
            turn_id: v.turn_id.unwrap_or(0),
            message: HepString::from(v.message),
        },
        None => HepViolation {
            code: HepString::NONE,
            severity: HepString::NONE,
            line: 0,
            has_turn_id: false,
            turn_id: 0,
            message: HepString::NONE,
        },
    };
    let error = error.map_or(std::ptr::null_mut(), |f| Box::into_raw(Box::new(HepError::from(f))));
    HepNotice { after_frames, kind, violation, error }
}

/// The events one poll took, in order: `frames`, with `notices_len` notices at `notices`
/// (NULL when none) placed among them. Freed by `hep_events_free`.
#[repr(C)]
#[derive(Debug)]
pub struct HepEvents {
    /// The frames with their line numbers and lines (the batch layout).
    pub frames: HepBatch,
    /// The notices, in order.
    pub notices: *mut HepNotice,
    /// The number of notices.
    pub notices_len: usize,
}

impl HepEvents {
    fn new(frames: HepBatch, notices: Vec<HepNotice>) -> Self {
        if notices.is_empty() {
            return Self { frames, notices: std::ptr::null_mut(), notices_len: 0 };
        }
        let notices_len = notices.len();
        Self { frames, notices: Box::into_raw(notices.into_boxed_slice()).cast(), notices_len }
    }
}

impl Drop for HepEvents {
    fn drop(&mut self) {
        if !self.notices.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(self.notices, self.notices_len);
            // SAFETY: a non-NULL `notices` is the boxed slice of `notices_len` notices made
            // by `new`, freed once (the caller hands each `HepEvents` back once).
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

/// Writes the next action to `*action_out` (`HEP_ACTION_KIND_NONE` when none waits). Poll
/// until none after each call that tells the supervisor something.
///
/// # Safety
///
/// `sup` is NULL or a live handle from `hep_supervisor_new`, not used by another thread
/// during the call; `action_out` and `error_out` are NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_poll_action(
    sup: *mut HepSupervisor,
    action_out: *mut HepAction,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let place = out(action_out, "action_out")?;
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, HepAction::from(s.poll_action())) };
        Ok(())
    })
}

/// Takes up to `max_events` events into `*events_out`, stopping early once the frames taken
/// hold `max_bytes` bytes of lines (at least one event is taken when one waits). Free them
/// with `hep_events_free`, also when empty.
///
/// # Safety
///
/// As `hep_supervisor_poll_action`, with `events_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_supervisor_poll_events(
    sup: *mut HepSupervisor,
    max_events: usize,
    max_bytes: usize,
    events_out: *mut HepEvents,
    error_out: *mut *mut HepError,
) -> bool {
    with(sup, error_out, |s| {
        let place = out(events_out, "events_out")?;
        let mut frames = FrameBatch::default();
        let (mut count, mut taken, mut bytes) = (0usize, 0usize, 0usize);
        let mut notices = Vec::new();
        while taken < max_events && (taken == 0 || bytes < max_bytes) {
            let Some(event) = s.poll_event() else { break };
            taken += 1;
            match event {
                Event::Frame(received) => {
                    bytes = bytes.saturating_add(received.raw.len());
                    frames.push(&received);
                    count += 1;
                }
                Event::Violation(v) => notices.push(notice(count, HepNoticeKind::Violation, Some(v), None)),
                Event::Skipped(e) => notices.push(notice(count, HepNoticeKind::Skipped, None, Some(e.into()))),
                Event::Halted(e) => notices.push(notice(count, HepNoticeKind::Halted, None, Some(e.into()))),
            }
        }
        // SAFETY: `place` is the caller's out argument, checked not NULL.
        unsafe { put(place, HepEvents::new(HepBatch::new(frames, count), notices)) };
        Ok(())
    })
}

/// Frees `events`: its batch, its notices and their strings and errors. Empty events are
/// accepted.
///
/// # Safety
///
/// `events` comes from `hep_supervisor_poll_events`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hep_events_free(events: HepEvents) {
    guard_void(|| drop(events));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervise::{hep_supervisor_cancel, hep_supervisor_free, hep_supervisor_new, hep_supervisor_stdout};
    use std::ptr::{null, null_mut};

    #[test]
    fn a_cancel_is_a_signal_and_events_carry_frames_and_notices() {
        let lines = b"{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n{oops\n";
        let mut sup = null_mut();
        let mut action = HepAction::from(None);
        // SAFETY: valid arguments and a live supervisor throughout.
        unsafe {
            assert!(hep_supervisor_new(null(), 0, &mut sup, null_mut()));
            assert!(hep_supervisor_stdout(sup, 1, lines.as_ptr(), lines.len(), null_mut()));
            let mut events = HepEvents::new(HepBatch::EMPTY, Vec::new());
            assert!(hep_supervisor_poll_events(sup, 16, 1 << 20, &mut events, null_mut()));
            assert_eq!((events.frames.frames, events.notices_len), (1, 1));
            let skipped = &*events.notices;
            assert_eq!((skipped.after_frames, skipped.kind), (1, HepNoticeKind::Skipped));
            assert_eq!((*skipped.error).line, 2);
            hep_events_free(events);
            assert!(hep_supervisor_cancel(sup, 2, HepCancelReason::User as i32, null(), null_mut()));
            assert!(hep_supervisor_poll_action(sup, &mut action, null_mut()));
            assert_eq!((action.kind, action.signal, action.next_signal), (HepActionKind::Signal, 2, 15));
            assert_eq!(action.next_after_ms, 12_000);
            assert!(hep_supervisor_poll_action(sup, &mut action, null_mut()));
            assert_eq!(action.kind, HepActionKind::None);
            assert!(!hep_supervisor_poll_action(sup, null_mut(), null_mut()));
            hep_supervisor_free(sup);
        }
    }
}
