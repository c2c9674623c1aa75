//! `NativeSupervisor`: the core's [`Supervisor`] (the whole supervision policy, sans-IO) for
//! `lib/supervisor.js`. Conversions only: times are milliseconds (f64) on the driver's
//! clock, events come out as one batch per call (the frames as [`Batch`] lays them out, the
//! violations and skipped lines beside them with their place), actions and the result as
//! plain values and JSON.

use crate::batch::Batch;
use crate::boundary::guard;
use crate::errors::{Failure, Outcome, Record};
use crate::stream::{StreamLimits, Summary, json};
use hep_core::run::Limits;
use hep_core::supervise::{Action, CancelReason, ExitStatus, Signal, SuperviseOptions, Supervision, Supervisor};
use hep_core::{Error, Event, RunResult, StreamOptions, Violation};
use napi::JsString;
use napi::bindgen_prelude::{Array, Env};
use napi_derive::napi;
use serde::Serialize;
use std::time::Duration;

/// The supervisor's options (`lib/supervisor.js` checks them: each number is a
/// non-negative integer, each time a non-negative finite number of milliseconds; absent:
/// the core's default).
#[napi(object)]
pub struct SupervisorConfig {
    /// [`StreamOptions::strict`].
    pub strict: bool,
    /// [`StreamOptions::max_line_length`].
    pub max_line_bytes: f64,
    /// Whether each frame carries its line and line number.
    pub raw: bool,
    /// [`StreamOptions::limits`].
    pub limits: Option<StreamLimits>,
    /// [`SuperviseOptions::timeout`].
    pub timeout_ms: Option<f64>,
    /// [`SuperviseOptions::idle_timeout`].
    pub idle_timeout_ms: Option<f64>,
    /// [`SuperviseOptions::interrupt_grace`].
    pub interrupt_grace_ms: Option<f64>,
    /// [`SuperviseOptions::terminate_grace`].
    pub terminate_grace_ms: Option<f64>,
    /// [`SuperviseOptions::drain`].
    pub drain_ms: Option<f64>,
    /// [`SuperviseOptions::stderr_tail_bytes`].
    pub stderr_tail_bytes: Option<f64>,
    /// [`SuperviseOptions::max_stderr_line`].
    pub max_stderr_line: Option<f64>,
    /// [`SuperviseOptions::pause_at_bytes`].
    pub pause_at_bytes: Option<f64>,
}

/// Milliseconds (a non-negative number; `as` saturates) as a `Duration`, to the nanosecond.
fn duration(ms: f64) -> Duration {
    Duration::from_nanos((ms * 1e6).round() as u64)
}

/// A `Duration` as milliseconds (whole milliseconds exactly).
fn millis(d: Duration) -> f64 {
    d.as_secs() as f64 * 1e3 + f64::from(d.subsec_nanos()) / 1e6
}

impl From<SupervisorConfig> for SuperviseOptions {
    fn from(c: SupervisorConfig) -> Self {
        let d = SuperviseOptions::default();
        let size = |given: Option<f64>, default: usize| given.map_or(default, |n| n as usize);
        let limits = c.limits.map_or_else(Limits::default, Limits::from);
        SuperviseOptions {
            stream: StreamOptions { strict: c.strict, max_line_length: c.max_line_bytes as usize, limits },
            timeout: c.timeout_ms.map(duration),
            idle_timeout: c.idle_timeout_ms.map(duration),
            interrupt_grace: c.interrupt_grace_ms.map_or(d.interrupt_grace, duration),
            terminate_grace: c.terminate_grace_ms.map_or(d.terminate_grace, duration),
            drain: c.drain_ms.map_or(d.drain, duration),
            stderr_tail_bytes: size(c.stderr_tail_bytes, d.stderr_tail_bytes),
            max_stderr_line: size(c.max_stderr_line, d.max_stderr_line),
            pause_at_bytes: size(c.pause_at_bytes, d.pause_at_bytes),
        }
    }
}

/// An [`Action`] for JavaScript: `kind` (`signal`, `kill_group`, `pause_stdout`,
/// `resume_stdout`, `close_pipes`); a signal step's `signal`, `reason`, and the step that
/// follows (`next_signal` after `next_after_ms`) unless it is SIGKILL.
#[napi(object)]
pub struct ActionRecord {
    /// What to do.
    pub kind: String,
    /// The signal to send to the child's process group (`SIGINT`, `SIGTERM`, `SIGKILL`).
    pub signal: Option<String>,
    /// Why the run is cancelled (`user`, `timeout`, `idle`).
    pub reason: Option<String>,
    /// The next signal, if the child has not exited by then.
    pub next_signal: Option<String>,
    /// The wait before the next signal.
    pub next_after_ms: Option<f64>,
}

impl ActionRecord {
    fn of(action: Action) -> Self {
        let plain = |kind: &str| Self {
            kind: kind.to_owned(),
            signal: None,
            reason: None,
            next_signal: None,
            next_after_ms: None,
        };
        match action {
            Action::Signal(step) => Self {
                kind: "signal".to_owned(),
                signal: Some(step.signal.name().to_owned()),
                reason: Some(step.reason.as_str().to_owned()),
                next_signal: step.next.map(|(signal, _): (Signal, _)| signal.name().to_owned()),
                next_after_ms: step.next.map(|(_, after)| millis(after)),
            },
            Action::KillGroup => plain("kill_group"),
            Action::PauseStdout => plain("pause_stdout"),
            Action::ResumeStdout => plain("resume_stdout"),
            Action::ClosePipes => plain("close_pipes"),
        }
    }
}

/// A violation or a skipped line of a batch of events, after its first `at` frames.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Report<'a> {
    Violation { at: usize, violation: &'a Violation },
    Skipped { at: usize, skipped: Record<'a> },
}

/// The violations, skipped lines and halt so far (the result's once finished).
#[derive(Serialize)]
struct Reports<'a> {
    violations: &'a [Violation],
    skipped: Vec<Record<'a>>,
    halted: Option<Record<'a>>,
}

/// The result but its turns, with the supervision report.
#[derive(Serialize)]
struct Supervised<'a> {
    #[serde(flatten)]
    summary: Summary<'a>,
    supervision: Option<&'a Supervision>,
}

/// The core's supervisor and the batch its events are handed over in.
#[napi]
pub struct NativeSupervisor {
    sup: Supervisor,
    batch: Batch,
}

/// The supervisor of a finished run has its result (the core says so).
fn unfinished() -> Failure {
    Failure::Internal("the run is not finished".to_owned())
}

impl NativeSupervisor {
    /// Runs `input` on the supervisor inside the boundary.
    fn input(&mut self, env: &Env, input: impl FnOnce(&mut Supervisor) -> Outcome<()>) -> napi::Result<()> {
        guard(env, || input(&mut self.sup))
    }

    fn finished_result(&self) -> Outcome<&RunResult> {
        self.sup.result().ok_or_else(unfinished)
    }
}

#[napi]
impl NativeSupervisor {
    /// A supervisor with `config`, for a child started at `now_ms`.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, config: SupervisorConfig, now_ms: f64) -> napi::Result<Self> {
        guard(&env, || {
            let raw = config.raw;
            Ok(Self { sup: Supervisor::new(config.into(), duration(now_ms)), batch: Batch::new(raw) })
        })
    }

    /// Bytes the child wrote on stdout.
    #[napi(catch_unwind)]
    pub fn stdout(&mut self, env: Env, now_ms: f64, bytes: &[u8]) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.stdout(duration(now_ms), bytes);
            Ok(())
        })
    }

    /// Text the child wrote on stdout (as its UTF-8 bytes).
    #[napi(catch_unwind)]
    pub fn stdout_text(&mut self, env: Env, now_ms: f64, text: String) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.stdout(duration(now_ms), text.as_bytes());
            Ok(())
        })
    }

    /// Bytes the child wrote on stderr.
    #[napi(catch_unwind)]
    pub fn stderr(&mut self, env: Env, now_ms: f64, bytes: &[u8]) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.stderr(duration(now_ms), bytes);
            Ok(())
        })
    }

    /// Text the child wrote on stderr (as its UTF-8 bytes).
    #[napi(catch_unwind)]
    pub fn stderr_text(&mut self, env: Env, now_ms: f64, text: String) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.stderr(duration(now_ms), text.as_bytes());
            Ok(())
        })
    }

    /// The child's stdout reached its end.
    #[napi(catch_unwind)]
    pub fn stdout_closed(&mut self, env: Env, now_ms: f64) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.stdout_closed(duration(now_ms));
            Ok(())
        })
    }

    /// The child's stderr reached its end.
    #[napi(catch_unwind)]
    pub fn stderr_closed(&mut self, env: Env, now_ms: f64) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.stderr_closed(duration(now_ms));
            Ok(())
        })
    }

    /// The child exited with `code`, or was killed by signal number `signal`; with neither,
    /// it is gone but how it ended is unknown (something else reaped it).
    #[napi(catch_unwind)]
    pub fn exited(&mut self, env: Env, now_ms: f64, code: Option<i32>, signal: Option<i32>) -> napi::Result<()> {
        self.input(&env, |sup| {
            let status = match (code, signal) {
                (Some(code), None) => ExitStatus::Code(code),
                (None, Some(signal)) => ExitStatus::Signal(signal),
                (None, None) => ExitStatus::Unknown,
                (Some(_), Some(_)) => {
                    return Err(Failure::Internal("an exit has a code or a signal, not both".to_owned()));
                }
            };
            sup.exited(duration(now_ms), status);
            Ok(())
        })
    }

    /// A cancel request (`user`, `timeout` or `idle`), with the interrupt grace of the
    /// cancel it starts when given.
    #[napi(catch_unwind)]
    pub fn cancel(&mut self, env: Env, now_ms: f64, reason: String, grace_ms: Option<f64>) -> napi::Result<()> {
        self.input(&env, |sup| {
            let reason = CancelReason::parse(&reason)
                .ok_or_else(|| Failure::Internal(format!("no cancel reason is named {reason}")))?;
            sup.cancel_within(duration(now_ms), reason, grace_ms.map(duration));
            Ok(())
        })
    }

    /// Whether someone takes the events as they come (`attached`); while detached, stdout is
    /// never paused.
    #[napi(catch_unwind)]
    pub fn set_consumer(&mut self, env: Env, now_ms: f64, attached: bool) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.set_consumer(duration(now_ms), attached);
            Ok(())
        })
    }

    /// Handles every deadline up to `now_ms`.
    #[napi(catch_unwind)]
    pub fn tick(&mut self, env: Env, now_ms: f64) -> napi::Result<()> {
        self.input(&env, |sup| {
            sup.tick(duration(now_ms));
            Ok(())
        })
    }

    /// When to call `tick` next, in milliseconds on the driver's clock.
    #[napi(catch_unwind)]
    pub fn deadline(&self, env: Env) -> napi::Result<Option<f64>> {
        guard(&env, || Ok(self.sup.deadline().map(millis)))
    }

    /// The next action, if any.
    #[napi(catch_unwind)]
    pub fn poll_action(&mut self, env: Env) -> napi::Result<Option<ActionRecord>> {
        guard(&env, || Ok(self.sup.poll_action().map(ActionRecord::of)))
    }

    /// Up to `max` events as one batch `[pool, cols, halted, reports]`: the frames and the
    /// halt as `Batch` lays them out, and `reports` the JSON of the violations and skipped
    /// lines among them (each with the number of frames before it), or null.
    #[napi(catch_unwind)]
    pub fn poll_events<'env>(&mut self, env: &'env Env, max: f64) -> napi::Result<Array<'env>> {
        guard(env, || {
            let Self { sup, batch } = self;
            let mut reports = Vec::new();
            let mut halt = None;
            let mut taken = 0.0;
            while taken < max {
                let Some(event) = sup.poll_event() else { break };
                taken += 1.0;
                match event {
                    Event::Violation(v) => reports.push((batch.len(), Ok(v))),
                    Event::Skipped(e) => reports.push((batch.len(), Err(e))),
                    Event::Halted(e) => halt = Some(e),
                    frame @ Event::Frame(_) => batch.event(frame),
                }
            }
            if let Some(e) = halt {
                batch.event(Event::<String>::Halted(e));
            }
            let reports = match reports.is_empty() {
                true => None,
                false => {
                    let list: Vec<Report<'_>> = reports
                        .iter()
                        .map(|(at, report)| match report {
                            Ok(violation) => Report::Violation { at: *at, violation },
                            Err(error) => Report::Skipped { at: *at, skipped: Record::of(error) },
                        })
                        .collect();
                    Some(serde_json::to_string(&list).map_err(|e| Failure::Internal(e.to_string()))?)
                }
            };
            let mut out = batch.take(env)?;
            out.set(3, reports)?;
            Ok(out)
        })
    }

    /// The next stderr line, if any.
    #[napi(catch_unwind)]
    pub fn poll_stderr(&mut self, env: Env) -> napi::Result<Option<String>> {
        guard(&env, || Ok(self.sup.poll_stderr()))
    }

    /// Whether stdout is paused for the consumer.
    #[napi(getter, catch_unwind)]
    pub fn paused(&self, env: Env) -> napi::Result<bool> {
        guard(&env, || Ok(self.sup.is_paused()))
    }

    /// Who cancelled the run (`user`, `timeout`, `idle`), once a cancel has started.
    #[napi(getter, catch_unwind)]
    pub fn cancelled_by(&self, env: Env) -> napi::Result<Option<String>> {
        guard(&env, || Ok(self.sup.cancelled_by().map(|reason| reason.as_str().to_owned())))
    }

    /// Whether a cancel has started and the child has not exited yet.
    #[napi(getter, catch_unwind)]
    pub fn cancelling(&self, env: Env) -> napi::Result<bool> {
        guard(&env, || Ok(self.sup.is_cancelling()))
    }

    /// Whether the timeout ran out and cancelled the run.
    #[napi(getter, catch_unwind)]
    pub fn timed_out(&self, env: Env) -> napi::Result<bool> {
        guard(&env, || Ok(self.sup.timed_out()))
    }

    /// Whether stdout is still open: false once it reached its end or the drain closed it.
    #[napi(getter, catch_unwind)]
    pub fn stdout_open(&self, env: Env) -> napi::Result<bool> {
        guard(&env, || Ok(self.sup.is_stdout_open()))
    }

    /// Waiting bytes past which events and stderr lines are counted instead of kept.
    #[napi(getter, catch_unwind)]
    pub fn drop_at_bytes(&self, env: Env) -> napi::Result<f64> {
        guard(&env, || Ok(self.sup.options().drop_at_bytes() as f64))
    }

    /// Whether the result is known.
    #[napi(getter, catch_unwind)]
    pub fn finished(&self, env: Env) -> napi::Result<bool> {
        guard(&env, || Ok(self.sup.is_finished()))
    }

    /// The violations, skipped lines and halt so far (JSON of [`Reports`]).
    #[napi(catch_unwind)]
    pub fn reports<'env>(&self, env: &'env Env) -> napi::Result<JsString<'env>> {
        guard(env, || {
            let (violations, skipped, halted): (&[Violation], &[Error], Option<&Error>) =
                match (self.sup.stream(), self.sup.result()) {
                    (Some(s), _) => (s.violations(), s.skipped(), s.halted()),
                    (None, Some(r)) => (&r.violations, &r.skipped, r.halted.as_ref()),
                    (None, None) => return Err(unfinished()),
                };
            let reports = Reports {
                violations,
                skipped: skipped.iter().map(Record::of).collect(),
                halted: halted.map(Record::of),
            };
            json(env, &reports)
        })
    }

    /// The result but its turns, with `supervision` (JSON), once finished.
    #[napi(catch_unwind)]
    pub fn result<'env>(&self, env: &'env Env) -> napi::Result<JsString<'env>> {
        guard(env, || {
            let result = self.finished_result()?;
            json(env, &Supervised { summary: Summary::of(result), supervision: result.supervision.as_ref() })
        })
    }

    /// The result's turns (JSON), once finished.
    #[napi(catch_unwind)]
    pub fn turns<'env>(&self, env: &'env Env) -> napi::Result<JsString<'env>> {
        guard(env, || json(env, &self.finished_result()?.run.turns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_round_trip() {
        for ms in [0.0, 1.0, 10.0, 12_010.0, 2_147_483_647.0] {
            assert_eq!(millis(duration(ms)), ms);
        }
        assert_eq!(duration(1234.5678), Duration::from_nanos(1_234_567_800));
        assert_eq!(duration(f64::MAX), Duration::from_nanos(u64::MAX));
    }

    #[test]
    fn actions_name_their_steps() {
        let step = hep_core::supervise::SignalStep {
            signal: Signal::Interrupt,
            reason: CancelReason::Idle,
            next: Some((Signal::Terminate, Duration::from_millis(500))),
        };
        let a = ActionRecord::of(Action::Signal(step));
        assert_eq!(
            (a.kind.as_str(), a.signal.as_deref(), a.reason.as_deref()),
            ("signal", Some("SIGINT"), Some("idle"))
        );
        assert_eq!((a.next_signal.as_deref(), a.next_after_ms), (Some("SIGTERM"), Some(500.0)));
        assert_eq!(ActionRecord::of(Action::ClosePipes).kind, "close_pipes");
    }
}
