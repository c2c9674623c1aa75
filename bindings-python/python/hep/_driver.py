"""What `spawn` (blocking) and `aspawn` (asyncio) share: `_Driver`, a thin driver of
`hep.Supervisor`, hep-core's supervision policy, and the checks of their options.

A driver only does the I/O. It starts the child in a process group of its own with pipes,
reads its stdout and stderr as they come and hands the bytes and the time to the
supervisor, sends the signals it is told to the group, stops and resumes reading stdout
when told, reaps the child, and wakes the supervisor at its deadline. It also tells the
supervisor whether someone takes the frames as they come: not while the user only waits
for the result (`wait()` with no `next` under way). Everything else (the cancel ladder, the
timeouts, the drain after the exit, the stderr tail, backpressure, the verdict) is the
core's. A `Run` (`_spawn.py`) reads on a thread of its own, an `AsyncRun` (`_aspawn.py`) in
the event loop. The child's exit is seen through its pidfd (Linux), else by a thread
waiting for it.

Supervising needs process groups and POSIX signals: on Windows `spawn` and `aspawn` raise
`NotImplementedError` naming the platform (reading, writing and `Supervisor` work there).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import threading
from typing import Any, Callable, List, Optional, Sequence, Set, Union

from ._frames import Frame
from ._hep import HepError, Limits, Supervisor
from ._result import CancelReason, SkippedLine, Violation
from ._stream import CHUNK
from ._orphans import _guard_signals, _live

Argv = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]
"""A program and its arguments; a `str` (or path) alone is a program without arguments."""
StderrCallback = Callable[[str], object]
"""Called with each line of the child's stderr (without its line end) as it comes."""

_REPORTS = (Violation, SkippedLine)  # the stream's events that are not for the iteration


def _check_seconds(value: float, name: str) -> float:
    """`value` as seconds: a finite number >= 0, or `TypeError` / `ValueError` naming `name`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    try:
        seconds = float(value)
    except OverflowError:
        seconds = float("inf")
    if not 0 <= seconds < float("inf"):
        raise ValueError(f"{name} must be a finite number of seconds >= 0, not {value}")
    return seconds


def _check_optional(value: Optional[float], name: str) -> Optional[float]:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise TypeError(f"{name} must be a number of seconds or None, not {type(value).__name__}")
    return None if value is None else _check_seconds(value, name)


def _check_limits(limits: Optional[Limits]) -> Optional[Limits]:
    if limits is not None and not isinstance(limits, Limits):
        raise TypeError(f"limits must be a hep.Limits or None, not {type(limits).__name__}")
    return limits


def _argv(argv: Argv) -> List[Any]:
    """`argv` as a list; a `str` (or path) alone is one program, as `subprocess` takes it."""
    return [argv] if isinstance(argv, (str, bytes, os.PathLike)) else list(argv)


_UNSUPERVISED = frozenset({"win32"})
"""The platforms (`sys.platform`) without process groups and POSIX signals."""


def _require_supervision(what: str) -> None:
    """Raises `NotImplementedError` naming the platform where `what` cannot supervise a child."""
    if sys.platform in _UNSUPERVISED:
        raise NotImplementedError(
            f"{what} is not supported on this platform ({sys.platform}): supervising a harness needs "
            "process groups and POSIX signals (Linux, macOS); reading and writing HEP work everywhere"
        )


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _Driver:
    """What `Run` and `AsyncRun` share: the child, its pipes, and the supervisor they feed.
    The methods below run with `_lock` held (a `Run`'s reader thread and its caller share
    the state; an `AsyncRun` holds it only on its exit cleanup)."""

    _entry = "hep.spawn"  # what an unsupported platform's error names

    def __init__(
        self,
        argv: Argv,
        clock: Callable[[], float],
        strict: bool,
        timeout: Optional[float],
        idle_timeout: Optional[float],
        limits: Optional[Limits],
        interrupt_grace: float,
        terminate_grace: float,
        stdin: Any,
        on_stderr: Optional[StderrCallback],
        popen: Any,
    ) -> None:
        _require_supervision(self._entry)
        self._interrupt_grace = _check_seconds(interrupt_grace, "interrupt_grace")
        self._terminate_grace = _check_seconds(terminate_grace, "terminate_grace")
        self._clock = clock
        self._sup = Supervisor(
            clock(),
            strict=strict,
            limits=_check_limits(limits),
            timeout=_check_optional(timeout, "timeout"),
            idle_timeout=_check_optional(idle_timeout, "idle_timeout"),
            interrupt_grace=self._interrupt_grace,
            terminate_grace=self._terminate_grace,
        )
        self._proc = subprocess.Popen(
            _argv(argv), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **popen
        )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._out = self._proc.stdout.fileno()
        self._pipes = {self._out: self._proc.stdout, self._proc.stderr.fileno(): self._proc.stderr}
        for fd in self._pipes:
            os.set_blocking(fd, False)
        self._reading = set(self._pipes)  # the pipes not at their end nor closed by order
        self._reaped: List[Optional[int]] = []  # the child's returncode (None: unknown), once reaped
        self._exit_fd = self._watch_exit()
        self._exited = False  # the supervisor knows of the exit
        self._nexts = self._waits = 0  # `next` and `wait()` calls under way
        self._attached = True  # what the supervisor was told of the consumer
        self._on_stderr = on_stderr
        self._error: Optional[Exception] = None  # raised by the next call: on_stderr's failure
        self._lock = threading.RLock()
        _guard_signals()

    @property
    def pid(self) -> int:
        """The child's process id (and process group id)."""
        return self._proc.pid

    @property
    def interrupt_grace(self) -> float:
        """Seconds a cancel waits after SIGINT before SIGTERM."""
        return self._interrupt_grace

    @property
    def terminate_grace(self) -> float:
        """Seconds a cancel waits after SIGTERM before SIGKILL."""
        return self._terminate_grace

    @property
    def timed_out(self) -> bool:
        """Whether the `timeout` ran out while the child was running, and cancelled it."""
        with self._lock:
            return self._sup.timed_out()

    @property
    def cancelled_by(self) -> Optional[CancelReason]:
        """Who started the cancel of this run, if one was started: `"user"` (`cancel()`, a
        `with` block left early, a cancelled task, the interpreter's exit), `"timeout"` or
        `"idle"`."""
        with self._lock:
            return self._sup.cancelled_by()

    @property
    def violations(self) -> List[Violation]:
        """The protocol violations found so far."""
        with self._lock:
            return self._sup.violations

    @property
    def skipped(self) -> List[SkippedLine]:
        """The lines skipped so far."""
        with self._lock:
            return self._sup.skipped

    @property
    def halted(self) -> Optional[HepError]:
        """The error that stopped the stream (strict mode, or a refused version), if any."""
        with self._lock:
            return self._sup.halted

    @property
    def stream(self) -> "StreamReports":
        """The stream's reports so far (`violations`, `skipped`, `halted`), as the run has them."""
        return StreamReports(self)

    # ---- the I/O, shared by both drivers ----

    def _watch_exit(self) -> int:
        """A descriptor that becomes readable when the child exits: its pidfd (Linux 5.3+),
        else the read end of a pipe that a thread reaping the child closes."""
        if hasattr(os, "pidfd_open"):
            try:
                return os.pidfd_open(self.pid)
            except OSError:
                pass
        read, write = os.pipe()

        def wait() -> None:
            try:
                self._reap()
            finally:
                os.close(write)

        threading.Thread(target=wait, name=f"hep-exit-{self.pid}", daemon=True).start()
        return read

    def _reap(self) -> Optional[int]:
        """Reaps the child (waiting for its exit): its returncode as `Popen` gives it, or
        `None` when something else reaped it (a SIGCHLD handler of the program's, SIGCHLD
        ignored): how it ended is then unknown, where `Popen.wait()` would say 0."""
        if not self._reaped:
            if self._proc.returncode is None:
                try:
                    _, status = os.waitpid(self.pid, 0)
                    self._proc.returncode = os.waitstatus_to_exitcode(status)
                except ChildProcessError:
                    self._proc.returncode = 0  # as Popen has it; the supervisor is told None
                    self._reaped.append(None)
                    return None
            self._reaped.append(self._proc.returncode)
        return self._reaped[0]

    def _ready(self, fd: int) -> None:
        """Hands the supervisor what `fd` has: the exit, a chunk of a pipe, or its end."""
        now = self._clock()
        if fd == self._exit_fd:
            if not self._exited:
                self._exited = True
                self._sup.exited(now, self._reap())  # at once: the child has exited
            return
        if fd not in self._reading:
            return
        try:
            data = os.read(fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            (self._sup.stdout if fd == self._out else self._sup.stderr)(now, data)
        else:
            self._reading.discard(fd)
            (self._sup.stdout_closed if fd == self._out else self._sup.stderr_closed)(now)

    def _act(self) -> bool:
        """Carries out what the supervisor asks: signals to the child's group, closing the
        pipes (stdout is watched while `is_paused()` says so). True if what to wait on
        changed."""
        changed = False
        while (action := self._sup.poll_action()) is not None:
            if action.signal is not None:
                _signal_group(self.pid, action.signal)
            else:  # "pause_stdout", "resume_stdout", "close_pipes"
                changed = True
                if action.kind == "close_pipes":
                    self._reading.clear()
        return changed

    def _wanted(self) -> Set[int]:
        """What to wait on: the pipes being read (stdout not while paused), the exit."""
        fds = {fd for fd in self._reading if fd != self._out or not self._sup.is_paused()}
        return fds if self._exited else fds | {self._exit_fd}

    def _rewatch(self) -> None:
        """Makes the I/O look again at what to wait for and when (after a call of the user
        changed the supervisor)."""

    def _attach(self) -> None:
        """Tells the supervisor whether someone takes the frames as they come: not while
        the user only waits for the result (a `wait()` under way and no `next`); stdout is
        then read on without pausing, the frames kept for a later loop."""
        attached = self._nexts > 0 or self._waits == 0
        if attached != self._attached:
            self._attached = attached
            self._sup.set_consumer(self._clock(), attached)
            self._act()
            self._rewatch()

    def _release(self) -> None:
        """Closes what the run is done with (once it is no longer waited on)."""
        for fd in [fd for fd in self._pipes if fd not in self._reading]:
            self._pipes.pop(fd).close()
        if self._exited and self._exit_fd >= 0:
            os.close(self._exit_fd)
            self._exit_fd = -1
        if self._sup.is_finished():
            _live.discard(self)

    def _next_frame(self, reader_gone: bool = False) -> Union[Frame, bool]:
        """What the iteration gets now: the next frame; `True` when the frames are over (stdout
        ended, or `reader_gone`); `False` while none waits. Raises a failure of `on_stderr`
        and the error that halted a strict stream."""
        self._check()
        event = self._take()
        if isinstance(event, HepError):
            raise event
        if event is not None:
            frame: Frame = event
            return frame
        return reader_gone or not self._sup.is_stdout_open()

    def _take(self) -> Any:
        """The next event for the iteration (a frame, or the halting `HepError`), or `None`."""
        while True:
            event = self._sup.poll_event()
            if not isinstance(event, _REPORTS):
                if self._act():  # taking events may resume stdout
                    self._rewatch()
                return event

    def _start_cancel(self, grace: Optional[float] = None, again: bool = True) -> None:
        """Asks the supervisor for a cancel (`again`: a cancel under way takes its next step;
        else it is left alone) and carries out its first step."""
        if again or not self._sup.is_cancelling():
            self._sup.cancel(self._clock(), "user", grace)
            self._act()
            self._rewatch()

    def _stderr_lines(self) -> List[str]:
        lines: List[str] = []
        while True:
            line = self._sup.poll_stderr()
            if line is None:
                return lines
            lines.append(line)

    def _deliver(self, lines: List[str]) -> None:
        """Hands each stderr line to `on_stderr` (outside the lock); its first failure is
        raised by the run's next call, and ends the calls."""
        for line in lines:
            if self._on_stderr is not None:
                try:
                    self._on_stderr(line)
                except Exception as e:
                    self._error, self._on_stderr = e, None

    def _check(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _changed(self) -> None:
        """Wakes whoever waits for the run."""

    def _pump(self, done: Callable[[], bool], wake: Optional[int] = None) -> None:
        """Runs the child's I/O on this thread until `done()`: waits for its pipes, its exit
        and the supervisor's deadline, and hands what comes to the supervisor. `wake`, when
        readable, only makes it look again at what to wait for."""
        with selectors.DefaultSelector() as selector:
            if wake is not None:
                selector.register(wake, selectors.EVENT_READ)
            while True:
                with self._lock:
                    lines = self._stderr_lines()
                    wanted = self._wanted()
                    for fd in set(selector.get_map()) - wanted - {wake}:
                        selector.unregister(fd)
                    self._release()
                    finished = done()
                    for fd in set() if finished else wanted - set(selector.get_map()):
                        selector.register(fd, selectors.EVENT_READ)
                    deadline = self._sup.deadline()
                self._deliver(lines)  # every line handed over before the end
                if finished:
                    return
                # A deadline in the past means: tick now (with the clock, below).
                timeout = None if deadline is None else max(0.0, deadline - self._clock())
                ready = [key.fd for key, _ in selector.select(timeout)]
                with self._lock:
                    for fd in ready:
                        if fd == wake:
                            os.read(fd, CHUNK)
                        else:
                            self._ready(fd)
                    self._sup.tick(self._clock())
                    self._act()
                    self._changed()


class StreamReports:
    """`run.stream`: the stream's reports so far, as the run has them (the same as the
    run's `violations`, `skipped` and `halted`)."""

    def __init__(self, run: _Driver) -> None:
        self._run = run

    @property
    def violations(self) -> List[Violation]:
        return self._run.violations

    @property
    def skipped(self) -> List[SkippedLine]:
        return self._run.skipped

    @property
    def halted(self) -> Optional[HepError]:
        return self._run.halted
