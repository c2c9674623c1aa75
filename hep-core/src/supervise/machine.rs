//! [`Supervisor`]: the whole policy of running a harness, as a state machine without I/O.

use super::{
    Action, CancelReason, ExitStatus, SentSignal, Signal, SignalStep, StderrLines, SuperviseOptions, Supervision, Tail,
};
use crate::event::Event;
use crate::stream::Stream;
use crate::verdict::RunResult;
use std::collections::VecDeque;
use std::time::Duration;

/// The policy of running one harness: told what happened and when, it answers with
/// [`Action`]s for the driver, [`Event`]s of the stdout stream and stderr lines for the
/// user (two queues: stderr lines never wait behind events), and the next deadline.
///
/// Times are [`Duration`]s since any fixed origin (a driver passes its monotonic clock); a
/// time earlier than one already seen counts as that one. Every method that takes `now`
/// first handles the deadlines that passed before it, in order.
///
/// A driver's loop, here on a made-up clock:
///
/// ```
/// use hep_core::supervise::{Action, CancelReason, ExitStatus, SuperviseOptions, Supervisor};
/// use hep_core::Event;
/// use std::time::Duration;
///
/// let ms = Duration::from_millis;
/// let mut sup = Supervisor::new(SuperviseOptions::default(), ms(0));
/// sup.stdout(ms(5), b"{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n");
/// sup.cancel(ms(10), CancelReason::User);
/// // The driver sends SIGINT to the child's process group...
/// assert!(matches!(sup.poll_action(), Some(Action::Signal(step)) if step.signal.name() == "SIGINT"));
/// // ... and would wake the supervisor at its deadline: SIGTERM 12 s later.
/// assert_eq!(sup.deadline(), Some(ms(12_010)));
/// // The child exits 130; its pipes close.
/// sup.exited(ms(400), ExitStatus::Code(130));
/// assert_eq!(sup.poll_action(), Some(Action::KillGroup));
/// sup.stdout_closed(ms(400));
/// sup.stderr_closed(ms(400));
/// while let Some(event) = sup.poll_event() {
///     if let Event::Frame(received) = event { /* hand the frame to the user */ }
/// }
/// let result = sup.result().expect("finished");
/// assert_eq!(result.verdict.as_str(), "cancelled");
/// ```
#[derive(Debug)]
pub struct Supervisor {
    options: SuperviseOptions,
    /// The stdout stream; taken to make the result.
    stream: Option<Stream>,
    stderr_lines: StderrLines,
    tail: Tail,
    start: Duration,
    now: Duration,
    stdout_open: bool,
    stderr_open: bool,
    paused: bool,
    /// Someone takes events as they come (stdout may be paused for them).
    consumer: bool,
    /// The idle deadline's distance left when stdout was paused (the child is not idle
    /// while the consumer holds it up).
    idle_left: Option<Duration>,
    /// The idle clock restarts with this much left at the next time told (the consumer
    /// resumed stdout by taking events, which tells no time).
    idle_restart: Option<Duration>,
    exit: Option<ExitStatus>,
    drain_until: Option<Duration>,
    cancelled_by: Option<CancelReason>,
    /// The signals of the cancel not sent yet.
    ladder: Vec<Signal>,
    next_step_at: Option<Duration>,
    timeout_at: Option<Duration>,
    timed_out: bool,
    idle_at: Option<Duration>,
    signals: Vec<SentSignal>,
    actions: VecDeque<Action>,
    events: VecDeque<Event>,
    /// Bytes the waiting events are counted as.
    pending: usize,
    stderr: VecDeque<String>,
    /// Bytes of the waiting stderr lines.
    stderr_pending: usize,
    notices_dropped: u64,
    result: Option<RunResult>,
}

/// Bytes an event is counted as while it waits (its text plus a fixed overhead).
fn size(event: &Event) -> usize {
    64 + match event {
        Event::Frame(r) => r.raw.len(),
        Event::Violation(v) => v.message.len(),
        Event::Skipped(e) | Event::Halted(e) => e.to_string().len(),
    }
}

/// `d` in seconds, as short as it goes (`300`, `0.25`).
fn seconds(d: Duration) -> String {
    format!("{}", d.as_secs_f64())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Supervisor {
    /// A supervisor for a child started at `now`.
    pub fn new(options: SuperviseOptions, now: Duration) -> Self {
        Self {
            stream: Some(Stream::new(options.stream)),
            stderr_lines: StderrLines::new(options.max_stderr_line),
            tail: Tail::new(options.stderr_tail_bytes),
            start: now,
            now,
            stdout_open: true,
            stderr_open: true,
            paused: false,
            consumer: true,
            idle_left: None,
            idle_restart: None,
            exit: None,
            drain_until: None,
            cancelled_by: None,
            ladder: Vec::new(),
            next_step_at: None,
            timeout_at: options.timeout.map(|t| now.saturating_add(t)),
            timed_out: false,
            idle_at: options.idle_timeout.map(|t| now.saturating_add(t)),
            signals: Vec::new(),
            actions: VecDeque::new(),
            events: VecDeque::new(),
            pending: 0,
            stderr: VecDeque::new(),
            stderr_pending: 0,
            notices_dropped: 0,
            result: None,
            options,
        }
    }

    /// The options the run is supervised with.
    pub fn options(&self) -> &SuperviseOptions {
        &self.options
    }

    /// The stdout stream as read so far (`None` once finished: see [`Supervisor::result`]).
    pub fn stream(&self) -> Option<&Stream> {
        self.stream.as_ref()
    }

    /// Bytes the child wrote on stdout.
    pub fn stdout(&mut self, now: Duration, bytes: &[u8]) {
        self.advance(now);
        let Some(stream) = self.stream.as_mut().filter(|_| self.stdout_open) else { return };
        let mut events = Vec::new();
        stream.feed_into(bytes, &mut events);
        self.queue_events(events);
        let stop = self.pending > self.options.pause_at_bytes
            && self.consumer
            && self.cancelled_by.is_none()
            && self.exit.is_none();
        if stop && !self.paused {
            self.paused = true;
            self.idle_left = self.idle_at.map(|at| at.saturating_sub(self.now));
            self.idle_at = None;
            self.actions.push_back(Action::PauseStdout);
        }
    }

    /// Bytes the child wrote on stderr.
    pub fn stderr(&mut self, now: Duration, bytes: &[u8]) {
        self.advance(now);
        if !self.stderr_open || self.result.is_some() {
            return;
        }
        self.tail.push(bytes);
        let mut lines = Vec::new();
        self.stderr_lines.push(bytes, |line| lines.push(line));
        for line in lines {
            self.queue_stderr(line);
        }
    }

    /// The child's stdout reached its end.
    pub fn stdout_closed(&mut self, now: Duration) {
        self.advance(now);
        self.close_stdout();
        self.maybe_finish();
    }

    /// The child's stderr reached its end.
    pub fn stderr_closed(&mut self, now: Duration) {
        self.advance(now);
        self.close_stderr();
        self.maybe_finish();
    }

    /// The child exited (the driver reaped it).
    pub fn exited(&mut self, now: Duration, status: ExitStatus) {
        self.advance(now);
        if self.exit.is_some() {
            return;
        }
        self.exit = Some(status);
        self.next_step_at = None;
        self.actions.push_back(Action::KillGroup);
        self.resume();
        if self.stdout_open || self.stderr_open {
            self.drain_until = Some(self.now.saturating_add(self.options.drain));
        }
        self.maybe_finish();
    }

    /// Asks for the run to be cancelled. The first request sends SIGINT, then SIGTERM and
    /// SIGKILL after their graces while the child runs; a later request from the user
    /// takes the next step at once (a timeout or idleness never hurries a cancel under way).
    pub fn cancel(&mut self, now: Duration, reason: CancelReason) {
        self.cancel_within(now, reason, None);
    }

    /// [`Supervisor::cancel`], waiting `interrupt_grace` (instead of the option's) after
    /// SIGINT when this request starts the cancel.
    pub fn cancel_within(&mut self, now: Duration, reason: CancelReason, interrupt_grace: Option<Duration>) {
        self.advance(now);
        if self.exit.is_some() || self.result.is_some() {
            return;
        }
        match self.cancelled_by {
            None => {
                self.cancelled_by = Some(reason);
                self.ladder = vec![Signal::Kill, Signal::Terminate, Signal::Interrupt];
                self.resume();
                self.step(interrupt_grace);
            }
            Some(_) if reason == CancelReason::User => self.step(None),
            Some(_) => {}
        }
    }

    /// Handles every deadline up to `now` (call it when [`Supervisor::deadline`] is reached).
    pub fn tick(&mut self, now: Duration) {
        self.advance(now);
    }

    /// When to call [`Supervisor::tick`] next, if anything is waiting for a time. A deadline
    /// at or before the latest time told means: tick now (with the current time).
    pub fn deadline(&self) -> Option<Duration> {
        if self.result.is_some() {
            return None;
        }
        if self.exit.is_some() {
            return self.drain_until;
        }
        let restart = self.idle_restart.map(|_| self.now);
        let waiting =
            if self.cancelled_by.is_none() { [self.timeout_at, self.idle_at, restart] } else { [None, None, None] };
        waiting.into_iter().chain([self.next_step_at]).flatten().min()
    }

    /// The next thing the driver must do.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// The next event of the stdout stream for the user (taking it may resume stdout: look
    /// at the actions after).
    pub fn poll_event(&mut self) -> Option<Event> {
        let event = self.events.pop_front()?;
        self.pending = self.pending.saturating_sub(size(&event));
        if self.paused && self.pending <= self.options.pause_at_bytes / 2 {
            self.resume();
            // Taking an event tells no time: the idle clock restarts at the next time told.
            self.idle_restart = self.idle_at.take().map(|at| at.saturating_sub(self.now));
        }
        Some(event)
    }

    /// The next line of the child's stderr (without its line end), as soon as it is complete.
    pub fn poll_stderr(&mut self) -> Option<String> {
        let line = self.stderr.pop_front()?;
        self.stderr_pending = self.stderr_pending.saturating_sub(64 + line.len());
        Some(line)
    }

    /// Whether stdout is paused for the consumer.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Says whether someone takes the events as they come (the default). A driver detaches
    /// the consumer while nobody iterates (its user only awaits the result): stdout is then
    /// never paused for events nobody will take, which wait up to the drop threshold.
    /// Attaching again lets backpressure apply from the next read.
    pub fn set_consumer(&mut self, now: Duration, attached: bool) {
        self.advance(now);
        self.consumer = attached;
        if !attached {
            self.resume();
        }
    }

    /// Who cancelled the run, once a cancel has started.
    pub fn cancelled_by(&self) -> Option<CancelReason> {
        self.cancelled_by
    }

    /// True from the start of a cancel until the child exits.
    pub fn is_cancelling(&self) -> bool {
        self.cancelled_by.is_some() && self.exit.is_none()
    }

    /// True once the timeout has run out and cancelled the run.
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// Whether stdout has reached its end (or the drain closed it): no event comes after
    /// the ones waiting.
    pub fn is_stdout_open(&self) -> bool {
        self.stdout_open
    }

    /// The run's result, once the child has exited and its pipes are closed or drained
    /// (with [`RunResult::supervision`] set).
    pub fn result(&self) -> Option<&RunResult> {
        self.result.as_ref()
    }

    /// True once the result is known (notices may still be waiting).
    pub fn is_finished(&self) -> bool {
        self.result.is_some()
    }

    /// Moves the clock to `now`, handling every deadline passed on the way, in order.
    fn advance(&mut self, now: Duration) {
        if let Some(left) = self.idle_restart.take() {
            self.idle_at = Some(now.max(self.now).saturating_add(left));
        }
        while let Some(due) = self.deadline().filter(|&due| due <= now) {
            self.now = self.now.max(due);
            self.fire(due);
        }
        self.now = self.now.max(now);
    }

    /// Handles the deadline `due` (each branch clears what made it due).
    fn fire(&mut self, due: Duration) {
        if self.exit.is_some() {
            self.drain_until = None;
            self.actions.push_back(Action::ClosePipes);
            self.close_stdout();
            self.close_stderr();
            self.maybe_finish();
        } else if self.next_step_at == Some(due) {
            self.next_step_at = None;
            self.step(None);
        } else if self.timeout_at == Some(due) {
            self.timeout_at = None;
            self.timed_out = true;
            self.cancel_within(due, CancelReason::Timeout, None);
        } else {
            self.idle_at = None;
            self.cancel_within(due, CancelReason::Idle, None);
        }
    }

    /// Sends the next signal of the cancel; `grace` replaces the interrupt grace.
    fn step(&mut self, grace: Option<Duration>) {
        let (Some(signal), Some(reason)) = (self.ladder.pop(), self.cancelled_by) else { return };
        let wait = match signal {
            Signal::Interrupt => grace.unwrap_or(self.options.interrupt_grace),
            Signal::Terminate => self.options.terminate_grace,
            Signal::Kill => Duration::ZERO,
        };
        let next = self.ladder.last().map(|&next| (next, wait));
        self.next_step_at = next.map(|_| self.now.saturating_add(wait));
        self.signals.push(SentSignal { at_ms: millis(self.now.saturating_sub(self.start)), signal });
        self.actions.push_back(Action::Signal(SignalStep { signal, reason, next }));
    }

    fn resume(&mut self) {
        if self.paused {
            self.paused = false;
            if let Some(left) = self.idle_left.take() {
                self.idle_at = Some(self.now.saturating_add(left));
            }
            self.actions.push_back(Action::ResumeStdout);
        }
    }

    fn close_stdout(&mut self) {
        if self.stdout_open {
            self.stdout_open = false;
            let events = self.stream.as_mut().map(Stream::end_input).unwrap_or_default();
            self.queue_events(events);
        }
    }

    fn close_stderr(&mut self) {
        if self.stderr_open {
            self.stderr_open = false;
            if let Some(line) = self.stderr_lines.finish() {
                self.queue_stderr(line);
            }
        }
    }

    fn queue_events(&mut self, events: Vec<Event>) {
        for event in events {
            if let (Event::Frame(_), Some(idle)) = (&event, self.options.idle_timeout) {
                if self.paused {
                    self.idle_left = Some(idle);
                } else {
                    self.idle_at = Some(self.now.saturating_add(idle));
                }
            }
            self.queue(event);
        }
    }

    /// Queues `event` for the user (a halt always). Past the drop threshold (stderr is never
    /// paused, and a cancel, the drain or a detached consumer reads stdout regardless), it
    /// is counted instead, so memory stays bounded whatever the child writes.
    fn queue(&mut self, event: Event) {
        if self.pending > self.options.drop_at_bytes() && !matches!(event, Event::Halted(_)) {
            self.notices_dropped += 1;
            return;
        }
        self.pending = self.pending.saturating_add(size(&event));
        self.events.push_back(event);
    }

    fn queue_stderr(&mut self, line: String) {
        if self.stderr_pending > self.options.drop_at_bytes() {
            self.notices_dropped += 1;
            return;
        }
        self.stderr_pending = self.stderr_pending.saturating_add(64 + line.len());
        self.stderr.push_back(line);
    }

    fn maybe_finish(&mut self) {
        let Some(status) = self.exit else { return };
        if self.stdout_open || self.stderr_open {
            return;
        }
        let Some(stream) = self.stream.take() else { return };
        let mut result = stream.finish(status.code());
        if let Some(reason) = self.cancelled_by {
            let why = match reason {
                CancelReason::User => "cancelled on request".to_owned(),
                CancelReason::Timeout => {
                    format!("timed out after {} s", seconds(self.options.timeout.unwrap_or_default()))
                }
                CancelReason::Idle => {
                    format!("idle for {} s: no frame", seconds(self.options.idle_timeout.unwrap_or_default()))
                }
            };
            result.reasons.insert(0, format!("the supervisor cancelled the run: {why}"));
        }
        result.supervision = Some(Supervision {
            timed_out: self.timed_out,
            cancelled_by: self.cancelled_by,
            signals: std::mem::take(&mut self.signals),
            stderr_tail: self.tail.text(),
            stderr_dropped: self.tail.dropped(),
            notices_dropped: self.notices_dropped,
            duration_ms: millis(self.now.saturating_sub(self.start)),
        });
        self.result = Some(result);
    }
}
