//! `hep.Supervisor` (hep-core's supervision state machine, [`Supervisor`]) and
//! `hep.SupervisorAction` (what it asks a driver to do). Conversions only: times are
//! seconds (`float`, kept to the microsecond), a child's end is a `Popen.returncode` (or
//! `None`: unknown), and events become the package's frame, `Violation`, `SkippedLine` and `HepError` objects.

use crate::boundary::guard;
use crate::convert::to_py_data;
use crate::errors::to_py;
use crate::frame_model::frame_to_py;
use crate::limits::PyLimits;
use crate::result::PyRunResult;
use crate::stream::with_bytes;
use hep_core::lines::DEFAULT_MAX_LINE;
use hep_core::run::Limits;
use hep_core::supervise::{
    self, Action, CancelReason, ExitStatus, MAX_STDERR_LINE, MIN_DROP_AT_BYTES, PAUSE_AT_BYTES, STDERR_TAIL_BYTES,
    Signal, SuperviseOptions, Supervisor,
};
use hep_core::{Error, Event, StreamOptions, Violation};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple, PyType};
use std::time::Duration;

/// The latest time (and longest duration) accepted, in seconds: 2**52 microseconds (about
/// 142 years), below which a time survives the trip to a `float` and back exactly, so
/// `tick(deadline())` always reaches the deadline.
const MAX_SECONDS: f64 = 4_503_599_627.370_496;

/// `seconds` as a [`Duration`], to the microsecond; `name` is the parameter, for the error.
fn duration(name: &str, seconds: f64) -> PyResult<Duration> {
    if !(0.0..=MAX_SECONDS).contains(&seconds) {
        return Err(PyValueError::new_err(format!(
            "{name} must be a finite number of seconds from 0 to 2**52 microseconds, not {seconds}"
        )));
    }
    Ok(Duration::from_micros((seconds * 1e6).round() as u64))
}

fn optional(name: &str, seconds: Option<f64>) -> PyResult<Option<Duration>> {
    seconds.map(|s| duration(name, s)).transpose()
}

/// A time or duration of the core in seconds (a whole number of microseconds here).
fn seconds(d: Duration) -> f64 {
    d.as_micros() as f64 / 1e6
}

static SIGNALS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static VIOLATION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static SKIPPED_LINE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static RUN_RESULT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `signal` as a member of Python's `signal.Signals` (an `int`).
fn signal_to_py(py: Python<'_>, signal: Signal) -> PyResult<Py<PyAny>> {
    Ok(SIGNALS.import(py, "signal", "Signals")?.call1((signal.number(),))?.unbind())
}

/// A violation as the package's `hep.Violation`.
fn violation_to_py(py: Python<'_>, v: &Violation) -> PyResult<Py<PyAny>> {
    let class = VIOLATION.import(py, "hep._result", "Violation")?;
    Ok(class.call1((v.code.as_str(), v.severity.as_str(), v.line, v.turn_id, v.message.as_str()))?.unbind())
}

/// A skipped line as the package's `hep.SkippedLine`.
fn skipped_to_py(py: Python<'_>, e: &Error) -> PyResult<Py<PyAny>> {
    let class = SKIPPED_LINE.import(py, "hep._result", "SkippedLine")?;
    Ok(class.call_method1("_from", (to_py_data(py, e)?,))?.unbind())
}

/// What a [`Supervisor`] asks its driver to do: `kind` says what, and a signal step says
/// which signal, why, and what follows.
#[pyclass(frozen, module = "hep", name = "SupervisorAction")]
pub(crate) struct PyAction(Action);

#[pymethods]
impl PyAction {
    #[classattr]
    fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(py, ["kind"])?.unbind())
    }

    /// `"signal"`, `"kill_group"`, `"pause_stdout"`, `"resume_stdout"` or `"close_pipes"`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.0 {
            Action::Signal(_) => "signal",
            Action::KillGroup => "kill_group",
            Action::PauseStdout => "pause_stdout",
            Action::ResumeStdout => "resume_stdout",
            Action::ClosePipes => "close_pipes",
        }
    }

    /// The signal to send to the child's process group: the step's (`signal`), SIGKILL
    /// (`kill_group`), else `None`.
    #[getter]
    fn signal(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard(|| match &self.0 {
            Action::Signal(step) => signal_to_py(py, step.signal).map(Some),
            Action::KillGroup => signal_to_py(py, Signal::Kill).map(Some),
            _ => Ok(None),
        })
    }

    /// Why the run is being cancelled (`signal` only): `"user"`, `"timeout"` or `"idle"`.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        match &self.0 {
            Action::Signal(step) => Some(step.reason.as_str()),
            _ => None,
        }
    }

    /// The step that follows if the child still runs, and the seconds before it (`signal`
    /// only; `None` after SIGKILL).
    #[getter]
    fn next(&self, py: Python<'_>) -> PyResult<Option<(Py<PyAny>, f64)>> {
        guard(|| match &self.0 {
            Action::Signal(step) => match step.next {
                Some((signal, after)) => Ok(Some((signal_to_py(py, signal)?, seconds(after)))),
                None => Ok(None),
            },
            _ => Ok(None),
        })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Self>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard(|| {
            let kind = self.kind().into_pyobject(py)?.into_any().unbind();
            match &self.0 {
                Action::Signal(_) => crate::fields::repr_of(
                    py,
                    "SupervisorAction",
                    &[
                        ("kind", kind),
                        ("signal", self.signal(py)?.into_pyobject(py)?.unbind()),
                        ("reason", self.reason().into_pyobject(py)?.unbind()),
                        ("next", self.next(py)?.into_pyobject(py)?.unbind()),
                    ],
                ),
                _ => crate::fields::repr_of(py, "SupervisorAction", &[("kind", kind)]),
            }
        })
    }
}

/// hep-core's supervision policy, without I/O: told what the child did and when, it answers
/// with actions for the driver, the stream's events and stderr lines for the user, the next
/// deadline and, at the end, the result.
#[pyclass(module = "hep", name = "Supervisor")]
pub(crate) struct PySupervisor {
    sup: Supervisor,
    /// The result as a `hep.RunResult`, once made.
    result: Option<Py<PyAny>>,
}

#[pymethods]
impl PySupervisor {
    #[new]
    #[pyo3(signature = (
        now,
        *,
        strict = false,
        max_line_bytes = DEFAULT_MAX_LINE,
        limits = None,
        timeout = None,
        idle_timeout = None,
        interrupt_grace = supervise::INTERRUPT_GRACE.as_secs_f64(),
        terminate_grace = supervise::TERMINATE_GRACE.as_secs_f64(),
        drain = supervise::DRAIN_AFTER_EXIT.as_secs_f64(),
        stderr_tail_bytes = STDERR_TAIL_BYTES,
        max_stderr_line = MAX_STDERR_LINE,
        pause_at_bytes = PAUSE_AT_BYTES,
    ))]
    #[allow(clippy::too_many_arguments)] // the core's options, as keyword arguments
    fn new(
        now: f64,
        strict: bool,
        max_line_bytes: usize,
        limits: Option<Bound<'_, PyLimits>>,
        timeout: Option<f64>,
        idle_timeout: Option<f64>,
        interrupt_grace: f64,
        terminate_grace: f64,
        drain: f64,
        stderr_tail_bytes: usize,
        max_stderr_line: usize,
        pause_at_bytes: usize,
    ) -> PyResult<Self> {
        guard(|| {
            let limits = limits.map_or_else(Limits::default, |l| l.get().0);
            let options = SuperviseOptions {
                stream: StreamOptions { strict, max_line_length: max_line_bytes, limits },
                timeout: optional("timeout", timeout)?,
                idle_timeout: optional("idle_timeout", idle_timeout)?,
                interrupt_grace: duration("interrupt_grace", interrupt_grace)?,
                terminate_grace: duration("terminate_grace", terminate_grace)?,
                drain: duration("drain", drain)?,
                stderr_tail_bytes,
                max_stderr_line,
                pause_at_bytes,
            };
            Ok(Self { sup: Supervisor::new(options, duration("now", now)?), result: None })
        })
    }

    /// Bytes (or text, as UTF-8) the child wrote on stdout.
    fn stdout(&mut self, now: f64, data: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| {
            let now = duration("now", now)?;
            with_bytes(data, |bytes| self.sup.stdout(now, bytes))
        })
    }

    /// Bytes (or text, as UTF-8) the child wrote on stderr.
    fn stderr(&mut self, now: f64, data: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| {
            let now = duration("now", now)?;
            with_bytes(data, |bytes| self.sup.stderr(now, bytes))
        })
    }

    /// The child's stdout reached its end.
    fn stdout_closed(&mut self, now: f64) -> PyResult<()> {
        guard(|| {
            self.sup.stdout_closed(duration("now", now)?);
            Ok(())
        })
    }

    /// The child's stderr reached its end.
    fn stderr_closed(&mut self, now: f64) -> PyResult<()> {
        guard(|| {
            self.sup.stderr_closed(duration("now", now)?);
            Ok(())
        })
    }

    /// The child exited; `returncode` as `Popen.returncode` gives it: the exit code, or -N
    /// when signal N killed it; `None` when how it ended is unknown (something else reaped
    /// it): the run is then judged without an exit code.
    fn exited(&mut self, now: f64, returncode: Option<i32>) -> PyResult<()> {
        guard(|| {
            let status = match returncode {
                None => ExitStatus::Unknown,
                Some(code) if code < 0 => ExitStatus::Signal(code.saturating_neg()),
                Some(code) => ExitStatus::Code(code),
            };
            self.sup.exited(duration("now", now)?, status);
            Ok(())
        })
    }

    /// Asks for the run to be cancelled (`reason`: `"user"`, `"timeout"` or `"idle"`);
    /// `grace` replaces the interrupt grace when this request starts the cancel.
    #[pyo3(signature = (now, reason = "user", grace = None))]
    fn cancel(&mut self, now: f64, reason: &str, grace: Option<f64>) -> PyResult<()> {
        guard(|| {
            let why = CancelReason::parse(reason).ok_or_else(|| {
                PyValueError::new_err(format!("reason must be \"user\", \"timeout\" or \"idle\", not {reason:?}"))
            })?;
            let grace = optional("grace", grace)?;
            self.sup.cancel_within(duration("now", now)?, why, grace);
            Ok(())
        })
    }

    /// Handles every deadline up to `now`.
    fn tick(&mut self, now: f64) -> PyResult<()> {
        guard(|| {
            self.sup.tick(duration("now", now)?);
            Ok(())
        })
    }

    /// When to call `tick` next (`None`: nothing waits for a time); at or before the latest
    /// time given: tick now, with the current time.
    fn deadline(&self) -> Option<f64> {
        self.sup.deadline().map(seconds)
    }

    /// The next thing the driver must do, or `None`.
    fn poll_action(&mut self) -> Option<PyAction> {
        self.sup.poll_action().map(PyAction)
    }

    /// The next event of the stdout stream: a frame, a `Violation`, a `SkippedLine`, or
    /// the `HepError` that halted the stream (returned, not raised); `None` when none waits.
    fn poll_event(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard(|| {
            let Some(event) = self.sup.poll_event() else { return Ok(None) };
            Ok(Some(match event {
                Event::Frame(r) => frame_to_py(py, r.frame, Some(r.raw), Some(r.line))?,
                Event::Violation(v) => violation_to_py(py, &v)?,
                Event::Skipped(e) => skipped_to_py(py, &e)?,
                Event::Halted(e) => to_py(py, &e).value(py).clone().into_any().unbind(),
            }))
        })
    }

    /// The next line of the child's stderr (without its line end), or `None`.
    fn poll_stderr(&mut self) -> Option<String> {
        self.sup.poll_stderr()
    }

    /// Whether stdout is paused for the consumer.
    fn is_paused(&self) -> bool {
        self.sup.is_paused()
    }

    /// Whether the result is known (events may still wait).
    fn is_finished(&self) -> bool {
        self.sup.is_finished()
    }

    /// Says whether someone takes the events as they come (`attached`, the default). While
    /// detached (the user only awaits the result), stdout is never paused (detaching
    /// resumes it) and events wait up to `drop_at_bytes()`.
    fn set_consumer(&mut self, now: f64, attached: bool) -> PyResult<()> {
        guard(|| {
            self.sup.set_consumer(duration("now", now)?, attached);
            Ok(())
        })
    }

    /// Who cancelled the run (`"user"`, `"timeout"` or `"idle"`), once a cancel has
    /// started; else `None`.
    fn cancelled_by(&self) -> Option<&'static str> {
        self.sup.cancelled_by().map(CancelReason::as_str)
    }

    /// Whether a cancel has started and the child has not exited yet.
    fn is_cancelling(&self) -> bool {
        self.sup.is_cancelling()
    }

    /// Whether the timeout ran out and cancelled the run.
    fn timed_out(&self) -> bool {
        self.sup.timed_out()
    }

    /// Whether stdout is still open: `False` once it reached its end or the drain closed
    /// it (no event comes after the ones waiting).
    fn is_stdout_open(&self) -> bool {
        self.sup.is_stdout_open()
    }

    /// Bytes of waiting events (or, in their own queue, stderr lines) past which further
    /// ones are counted in `notices_dropped` instead of kept: 16 × `pause_at_bytes`, at
    /// least `MIN_DROP_AT_BYTES`.
    fn drop_at_bytes(&self) -> usize {
        self.sup.options().drop_at_bytes()
    }

    /// The run's `hep.RunResult` (with its `supervision`), once finished; else `None`.
    fn result(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard(|| {
            if self.result.is_none() {
                if let Some(result) = self.sup.result() {
                    let core = Bound::new(py, PyRunResult(result.clone()))?;
                    self.result = Some(RUN_RESULT.import(py, "hep._result", "RunResult")?.call1((core,))?.unbind());
                }
            }
            Ok(self.result.as_ref().map(|r| r.clone_ref(py)))
        })
    }

    /// The violations found so far (the first `limits.max_reports`), as `hep.Violation`s.
    #[getter]
    fn violations(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        guard(|| {
            let list = PyList::empty(py);
            let found = match (self.sup.stream(), self.sup.result()) {
                (Some(stream), _) => stream.violations(),
                (None, Some(result)) => result.violations.as_slice(),
                (None, None) => &[],
            };
            for v in found {
                list.append(violation_to_py(py, v)?)?;
            }
            Ok(list.unbind())
        })
    }

    /// The lines skipped so far (the first `limits.max_reports`), as `hep.SkippedLine`s.
    #[getter]
    fn skipped(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        guard(|| {
            let list = PyList::empty(py);
            let found = match (self.sup.stream(), self.sup.result()) {
                (Some(stream), _) => stream.skipped(),
                (None, Some(result)) => result.skipped.as_slice(),
                (None, None) => &[],
            };
            for e in found {
                list.append(skipped_to_py(py, e)?)?;
            }
            Ok(list.unbind())
        })
    }

    /// The error that halted the stream (strict mode, or a refused version), if any.
    #[getter]
    fn halted(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard(|| {
            let halted = match (self.sup.stream(), self.sup.result()) {
                (Some(stream), _) => stream.halted(),
                (None, Some(result)) => result.halted.as_ref(),
                (None, None) => None,
            };
            Ok(halted.map(|e| to_py(py, e).value(py).clone().into_any().unbind()))
        })
    }
}

/// Adds `Supervisor`, `SupervisorAction` and the supervision constants (the default graces,
/// drain and caps, and a harness's exit codes) to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySupervisor>()?;
    m.add_class::<PyAction>()?;
    m.add("INTERRUPT_GRACE", supervise::INTERRUPT_GRACE.as_secs_f64())?;
    m.add("TERMINATE_GRACE", supervise::TERMINATE_GRACE.as_secs_f64())?;
    m.add("DRAIN_AFTER_EXIT", supervise::DRAIN_AFTER_EXIT.as_secs_f64())?;
    m.add("STDERR_TAIL_BYTES", STDERR_TAIL_BYTES)?;
    m.add("MAX_STDERR_LINE", MAX_STDERR_LINE)?;
    m.add("PAUSE_AT_BYTES", PAUSE_AT_BYTES)?;
    m.add("MIN_DROP_AT_BYTES", MIN_DROP_AT_BYTES)?;
    m.add("EXIT_OK", supervise::EXIT_OK)?;
    m.add("EXIT_FAILED", supervise::EXIT_FAILED)?;
    m.add("EXIT_CANCELLED", supervise::EXIT_CANCELLED)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every whole number of microseconds up to the largest accepted survives the trip to
    /// `float` seconds and back, so `tick(deadline())` reaches the deadline.
    #[test]
    fn times_survive_the_trip_to_seconds_and_back() {
        let micros = [0, 1, 999_999, 12_010_000, 1_234_567_000_001, 86_400 * 365 * 100 * 1_000_000 + 7, 1 << 52];
        for m in micros {
            let d = Duration::from_micros(m);
            assert_eq!(duration("now", seconds(d)).unwrap(), d, "{m} µs");
        }
        assert!(duration("now", MAX_SECONDS + 1.0).is_err());
        assert!(duration("now", -0.5).is_err());
        assert!(duration("now", f64::NAN).is_err());
    }
}
