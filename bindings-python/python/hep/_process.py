"""Supervising a harness: `spawn` (blocking) and `aspawn` (asyncio), two thin drivers of
`hep.Supervisor`, hep-core's supervision policy.

A driver only does the I/O. It starts the child in a process group of its own with pipes,
reads its stdout and stderr as they come and hands the bytes and the time to the
supervisor, sends the signals it is told to the group, stops and resumes reading stdout
when told, reaps the child, and wakes the supervisor at its deadline. It also tells the
supervisor whether someone takes the frames as they come: not while the user only waits
for the result (`wait()` with no `next` under way). Everything else (the cancel ladder, the
timeouts, the drain after the exit, the stderr tail, backpressure, the verdict) is the
core's. A `Run` reads on a thread of its own, an `AsyncRun` in the event loop. The child's
exit is seen through its pidfd (Linux), else by a thread waiting for it.

Supervising needs process groups and POSIX signals: on Windows `spawn` and `aspawn` raise
`NotImplementedError` naming the platform (reading, writing and `Supervisor` work there).

No orphans: a child still running is cancelled when its `with` block exits, at
interpreter exit (atexit), and on SIGTERM or SIGHUP where those still have their default
disposition (see `_guard_signals`).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any, AsyncIterator, Callable, Iterator, List, Optional, Sequence, Set, Union

from . import _hep
from ._frames import Frame
from ._hep import HepError, Limits, Supervisor
from ._result import CancelReason, RunResult, SkippedLine, Violation
from ._stream import CHUNK

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


class Run(_Driver):
    """A running harness. Iterate it for frames; `wait()` for the `RunResult`.

    Its I/O runs on a thread of its own (`on_stderr` is called there). Use it as a context
    manager: leaving the block cancels a child that is still running and reaps it."""

    def __init__(
        self,
        argv: Argv,
        *,
        strict: bool = False,
        timeout: Optional[float] = None,
        idle_timeout: Optional[float] = None,
        limits: Optional[Limits] = None,
        interrupt_grace: float = _hep.INTERRUPT_GRACE,
        terminate_grace: float = _hep.TERMINATE_GRACE,
        stdin: Any = subprocess.DEVNULL,
        on_stderr: Optional[StderrCallback] = None,
        **popen: Any,
    ) -> None:
        super().__init__(
            argv,
            time.monotonic,
            strict,
            timeout,
            idle_timeout,
            limits,
            interrupt_grace,
            terminate_grace,
            stdin,
            on_stderr,
            popen,
        )
        self._cond = threading.Condition(self._lock)
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._thread = threading.Thread(target=self._read, name=f"hep-run-{self.pid}", daemon=True)
        self._thread.start()
        _live.add(self)

    @property
    def stdin(self) -> Optional[IO[bytes]]:
        """The child's stdin, with `stdin=subprocess.PIPE`; else `None`."""
        return self._proc.stdin

    def _read(self) -> None:
        try:
            self._pump(self._sup.is_finished, self._wake_read)
        except Exception as e:  # a bug: raised by the caller's next call
            with self._lock:
                self._error = e
        finally:
            with self._lock:
                os.close(self._wake_read)
                os.close(self._wake_write)
                self._wake_write = -1
                self._cond.notify_all()

    def _changed(self) -> None:
        self._cond.notify_all()

    def _rewatch(self) -> None:
        """Makes the reader thread look again at what it waits for."""
        if self._wake_write >= 0 and threading.current_thread() is not self._thread:
            try:
                os.write(self._wake_write, b"!")
            except BlockingIOError:
                pass

    def _wait_for(self, done: Callable[[], bool], end: Optional[float] = None) -> bool:
        """Waits (lock held) until `done()`, or until `end` (`time.monotonic()`): False then."""
        self._off_reader()
        while not done():
            self._check()
            left = None if end is None else end - time.monotonic()
            if (left is not None and left <= 0) or not self._thread.is_alive():
                return done()
            self._cond.wait(left)
        return True

    def _off_reader(self) -> None:
        if threading.current_thread() is self._thread:
            raise RuntimeError("on_stderr cannot wait for the run's frames or its end: it runs on the run's reader")

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        self._off_reader()
        with self._lock:
            self._nexts += 1
            try:
                self._attach()
                while True:
                    got = self._next_frame(reader_gone=not self._thread.is_alive())
                    if got is True:
                        raise StopIteration
                    if got is not False:
                        return got
                    self._cond.wait()
            finally:
                self._nexts -= 1
                self._attach()

    def cancel(self, grace: Optional[float] = None) -> None:
        """SIGINT to the child's group; SIGTERM after `grace` seconds (default: the run's
        `interrupt_grace`) if it still runs, SIGKILL after `terminate_grace` more; a cancel
        under way takes its next step at once. Returns once the child has exited (at once
        when called from `on_stderr`). Its output is read meanwhile; the frames stay
        available to iteration."""
        seconds = None if grace is None else _check_seconds(grace, "grace")
        with self._lock:
            self._start_cancel(seconds)
            if threading.current_thread() is not self._thread:
                self._wait_for(lambda: self._exited)

    def wait(self, timeout: Optional[float] = None) -> RunResult:
        """Reads the rest of the stream, waits for the child, and returns the result. While
        it waits (and no `next` is under way), stdout is read on without pausing: the frames
        not iterated yet stay for a later loop. Raises `subprocess.TimeoutExpired` if that
        takes longer than `timeout` seconds (the run goes on; call `wait` again, or
        `cancel`)."""
        self._off_reader()
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self._waits += 1
            try:
                self._attach()
                if not self._wait_for(self._sup.is_finished, end):
                    raise subprocess.TimeoutExpired(self._proc.args, timeout or 0)
                result = self._sup.result()
            finally:
                self._waits -= 1
                self._attach()
        self._thread.join()  # every stderr line handed over
        self._check()
        assert result is not None
        return result

    def _abandon(self) -> None:
        """At interpreter exit or on a deadly signal: starts a cancel unless one is under
        way, and waits for the exit."""
        with self._lock:
            self._start_cancel(again=False)
            while not self._exited and self._thread.is_alive():
                self._cond.wait()

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._start_cancel(again=False)  # a cancel under way is left to its ladder
        self.wait()


def spawn(
    argv: Argv,
    *,
    strict: bool = False,
    timeout: Optional[float] = None,
    idle_timeout: Optional[float] = None,
    limits: Optional[Limits] = None,
    interrupt_grace: float = _hep.INTERRUPT_GRACE,
    terminate_grace: float = _hep.TERMINATE_GRACE,
    stdin: Any = subprocess.DEVNULL,
    on_stderr: Optional[StderrCallback] = None,
    **popen_options: Any,
) -> Run:
    """Starts `argv` (a HEP emitter) and returns the `Run` supervising it.

    `timeout` (seconds) cancels the run if the child still runs by then; `idle_timeout`
    cancels it once the child has written no frame for that long. A cancel waits
    `interrupt_grace` seconds after SIGINT before SIGTERM, and `terminate_grace` after
    SIGTERM before SIGKILL (defaults: the core's `INTERRUPT_GRACE` and `TERMINATE_GRACE`).
    `limits` caps what the stream keeps. `stdin` is as for `subprocess` (default: DEVNULL;
    PIPE gives `run.stdin`). `on_stderr` is called with each stderr line as it comes, on the
    run's reader thread. Other keyword arguments go to `subprocess.Popen`. On Windows (no
    process groups nor POSIX signals) it raises `NotImplementedError` naming the platform."""
    return Run(
        argv,
        strict=strict,
        timeout=timeout,
        idle_timeout=idle_timeout,
        limits=limits,
        interrupt_grace=interrupt_grace,
        terminate_grace=terminate_grace,
        stdin=stdin,
        on_stderr=on_stderr,
        **popen_options,
    )


class AsyncRun(_Driver):
    """The asyncio twin of `Run`: `async for frame in run`, `await run.wait()`,
    `await run.cancel()`; usable as an async context manager. Its I/O runs in the event
    loop (`on_stderr` is called there). Cancelling a task while it awaits the run cancels
    the child."""

    _entry = "hep.aspawn"

    def __init__(self, argv: Argv, loop: asyncio.AbstractEventLoop, **options: Any) -> None:
        self._loop = loop
        self._readers: Set[int] = set()
        self._timer: Optional[asyncio.TimerHandle] = None
        self._abandoned = False  # the loop no longer runs the I/O
        self._event = asyncio.Event()
        super().__init__(argv, loop.time, **options)
        self.stdin: Optional[asyncio.StreamWriter] = None
        """The child's stdin as a stream, with `stdin=subprocess.PIPE`; else `None`."""
        self._refresh()
        _live.add(self)

    def _refresh(self) -> None:
        """Matches the loop's readers and timer to what the run waits for."""
        if self._loop.is_closed() or self._abandoned:
            return
        wanted = self._wanted()
        for fd in self._readers - wanted:
            self._loop.remove_reader(fd)
        for fd in wanted - self._readers:
            self._loop.add_reader(fd, self._on_ready, fd)
        self._readers = wanted
        self._release()
        deadline = self._sup.deadline()
        if self._timer is not None and self._timer.when() != deadline:
            self._timer.cancel()
            self._timer = None
        if deadline is not None and self._timer is None:
            self._timer = self._loop.call_at(deadline, self._on_time, deadline)
        self._event.set()

    def _rewatch(self) -> None:
        self._refresh()
        self._deliver(self._stderr_lines())

    def _after(self, now: float) -> None:
        self._sup.tick(now)
        self._act()
        self._rewatch()

    def _on_ready(self, fd: int) -> None:
        self._ready(fd)
        self._after(self._clock())

    def _on_time(self, due: float) -> None:
        self._timer = None
        self._after(max(self._clock(), due))  # a deadline in the past: now

    def _changed(self) -> None:
        if not self._loop.is_closed():
            self._event.set()

    async def _until_changed(self) -> None:
        self._event.clear()
        try:
            await self._event.wait()
        except asyncio.CancelledError:  # the task awaiting the run is cancelled: so is the child
            self._start_cancel(again=False)
            raise

    def __aiter__(self) -> AsyncIterator[Frame]:
        return self

    async def __anext__(self) -> Frame:
        self._nexts += 1
        try:
            self._attach()
            while True:
                got = self._next_frame()
                if got is True:
                    raise StopAsyncIteration
                if got is not False:
                    return got
                await self._until_changed()
        finally:
            self._nexts -= 1
            self._attach()

    async def cancel(self, grace: Optional[float] = None) -> None:
        """SIGINT, then SIGTERM after `grace` seconds (default: the run's `interrupt_grace`)
        and SIGKILL after `terminate_grace` more, to the child's group; a cancel under way
        takes its next step at once. Returns once the child has exited."""
        seconds = None if grace is None else _check_seconds(grace, "grace")
        self._start_cancel(seconds)
        while not self._exited:
            self._check()
            await self._until_changed()

    async def wait(self) -> RunResult:
        """Reads the rest of the stream, waits for the child, and returns the result. While
        it waits (and no `anext` is under way), stdout is read on without pausing: the
        frames not iterated yet stay for a later loop."""
        self._waits += 1
        try:
            self._attach()
            while True:
                self._check()
                result = self._sup.result()
                if result is not None:
                    return result
                await self._until_changed()
        finally:
            self._waits -= 1
            self._attach()

    def _abandon(self) -> None:
        """At interpreter exit or on a deadly signal, when the loop may be gone: starts a
        cancel unless one is under way, and runs the I/O here until the child exits."""
        if not self._loop.is_closed():
            for fd in self._readers:
                self._loop.remove_reader(fd)
            if self._timer is not None:
                self._timer.cancel()
        self._readers, self._timer, self._abandoned = set(), None, True
        self._start_cancel(again=False)
        self._pump(lambda: self._exited)

    async def __aenter__(self) -> "AsyncRun":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._start_cancel(again=False)  # a cancel under way is left to its ladder
        await self.wait()


async def aspawn(
    argv: Argv,
    *,
    strict: bool = False,
    timeout: Optional[float] = None,
    idle_timeout: Optional[float] = None,
    limits: Optional[Limits] = None,
    interrupt_grace: float = _hep.INTERRUPT_GRACE,
    terminate_grace: float = _hep.TERMINATE_GRACE,
    stdin: Any = subprocess.DEVNULL,
    on_stderr: Optional[StderrCallback] = None,
    **options: Any,
) -> AsyncRun:
    """Starts `argv` (a HEP emitter) under asyncio and returns the `AsyncRun` supervising
    it. The options are `spawn`'s; `on_stderr` is called in the event loop, and with
    `stdin=subprocess.PIPE`, `run.stdin` is an `asyncio.StreamWriter`. On Windows it raises
    `NotImplementedError` naming the platform, as `spawn` does."""
    loop = asyncio.get_running_loop()
    run = AsyncRun(
        argv,
        loop,
        strict=strict,
        timeout=timeout,
        idle_timeout=idle_timeout,
        limits=limits,
        interrupt_grace=interrupt_grace,
        terminate_grace=terminate_grace,
        stdin=stdin,
        on_stderr=on_stderr,
        popen=options,
    )
    if run._proc.stdin is not None:
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.streams.FlowControlMixin(loop=loop), run._proc.stdin
        )
        run.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
    return run


# ---- no orphans ----

_live: Set[_Driver] = set()
"""The runs whose result is not known yet."""


def _cancel_all() -> None:
    """Cancels every run whose child still runs, and waits for each one's exit."""
    for run in list(_live):
        try:
            run._abandon()  # type: ignore[attr-defined]
        except Exception:
            pass


atexit.register(_cancel_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_live.clear)  # a forked process owns none of them

_DEADLY = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


_guarded: List[bool] = []


def _guard_signals() -> None:
    """Once, from the main thread (the only one that can): sets `_on_signal` for SIGTERM and
    SIGHUP where they still have their default disposition (the process would die at once,
    leaving its children running). A handler of the program's own is left alone, and so is
    the default set back later (an opt-out)."""
    if not _guarded and threading.current_thread() is threading.main_thread():
        _guarded.append(True)
        for signum in _DEADLY:
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _on_signal)


def _on_signal(signum: int, _frame: Any) -> None:
    """Cancels every child still running, then dies of `signum` as the default would."""
    _cancel_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
