"""Supervising a harness: `spawn` (blocking) and `aspawn` (asyncio), two thin drivers of
`hep.Supervisor`, hep-core's supervision policy.

A driver only does the I/O. It starts the child in a process group of its own with pipes,
reads its stdout and stderr as they come and hands the bytes and the time to the
supervisor, sends the signals it is told to the group, stops and resumes reading stdout
when told, reaps the child, and wakes the supervisor at its deadline. Everything else (the
cancel ladder, the timeouts, the drain after the exit, the stderr tail, backpressure, the
verdict) is the core's. A `Run` reads on a thread of its own, an `AsyncRun` in the event
loop. The child's exit is seen through its pidfd (Linux), else by a thread waiting for it.

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
import threading
import time
from collections import deque
from typing import IO, Any, AsyncIterator, Callable, Deque, Iterator, List, Optional, Sequence, Set, Union

from . import _hep
from ._hep import HepError, Limits, Supervisor
from ._result import CancelReason, RunResult, SkippedLine, Violation
from ._stream import CHUNK, Frame

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


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _exit_fd(proc: "subprocess.Popen[bytes]") -> int:
    """A descriptor that becomes readable when `proc` exits: its pidfd (Linux 5.3+), else the
    read end of a pipe that a thread waiting for the exit closes."""
    if hasattr(os, "pidfd_open"):
        try:
            return os.pidfd_open(proc.pid)
        except OSError:
            pass
    read, write = os.pipe()

    def wait() -> None:
        proc.wait()
        os.close(write)

    threading.Thread(target=wait, name=f"hep-exit-{proc.pid}", daemon=True).start()
    return read


class _Driver:
    """What `Run` and `AsyncRun` share: the child, its pipes, and the supervisor they feed.
    The methods below run with `_lock` held (a `Run`'s reader thread and its caller share
    the state; an `AsyncRun` holds it only on its exit cleanup)."""

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
        self._exit_fd = _exit_fd(self._proc)
        self._exited = self._paused = False
        self._cancelled_by: Optional[CancelReason] = None
        self._held: Deque[Any] = deque()  # frames (and a halt) taken by `wait()`
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
        return self._cancelled_by == "timeout"

    @property
    def cancelled_by(self) -> Optional[CancelReason]:
        """Who started the cancel of this run, if one was started: `"user"` (`cancel()`, a
        `with` block left early, a cancelled task, the interpreter's exit), `"timeout"` or
        `"idle"`."""
        return self._cancelled_by

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

    def _ready(self, fd: int) -> None:
        """Hands the supervisor what `fd` has: the exit, a chunk of a pipe, or its end."""
        now = self._clock()
        if fd == self._exit_fd:
            if not self._exited:
                self._exited = True
                self._sup.exited(now, self._proc.wait())  # at once: the child has exited
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

    def _act(self) -> None:
        """Carries out what the supervisor asks: signals to the child's group, pausing and
        resuming stdout, closing the pipes."""
        while True:
            action = self._sup.poll_action()
            if action is None:
                return
            if action.signal is not None:
                self._cancelled_by = self._cancelled_by or action.reason
                _signal_group(self.pid, action.signal)
            elif action.kind == "close_pipes":
                self._reading.clear()
            else:
                self._paused = action.kind == "pause_stdout"

    def _wanted(self) -> Set[int]:
        """What to wait on: the pipes being read (stdout not while paused), the exit."""
        fds = {fd for fd in self._reading if fd != self._out or not self._paused}
        return fds if self._exited else fds | {self._exit_fd}

    def _release(self) -> None:
        """Closes what the run is done with (once it is no longer waited on)."""
        for fd in [fd for fd in self._pipes if fd not in self._reading]:
            self._pipes.pop(fd).close()
        if self._exited and self._exit_fd >= 0:
            os.close(self._exit_fd)
            self._exit_fd = -1
        if self._sup.is_finished():
            _live.discard(self)

    def _take(self) -> Any:
        """The next event for the iteration (a frame, or the halting `HepError`), or `None`."""
        while True:
            event = self._held.popleft() if self._held else self._sup.poll_event()
            self._act()  # taking an event may resume stdout
            if not isinstance(event, _REPORTS):
                return event

    def _hold(self) -> None:
        """Takes every waiting event, keeping the frames (and a halt) for a later iteration:
        waiting never leaves the child paused on an unread stream."""
        while True:
            event = self._sup.poll_event()
            if event is None:
                break
            if not isinstance(event, _REPORTS):
                self._held.append(event)
        self._act()

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
                    wanted = self._wanted()
                    for fd in set(selector.get_map()) - wanted - {wake}:
                        selector.unregister(fd)
                    self._release()
                    if done():
                        return
                    for fd in wanted - set(selector.get_map()):
                        selector.register(fd, selectors.EVENT_READ)
                    deadline = self._sup.deadline()
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
                    lines = self._stderr_lines()
                    self._changed()
                self._deliver(lines)


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

    def _poke(self, paused: Optional[bool] = None) -> None:
        """Makes the reader thread look again at what it waits for (given `paused`, the
        state before taking events: only if they resumed stdout)."""
        if paused is False or (paused and self._paused):
            return
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
            while True:
                self._check()
                paused = self._paused
                event = self._take()
                self._poke(paused)
                if isinstance(event, HepError):
                    raise event
                if event is not None:
                    frame: Frame = event
                    return frame
                if self._out not in self._reading or not self._thread.is_alive():
                    raise StopIteration
                self._cond.wait()

    def cancel(self, grace: Optional[float] = None) -> None:
        """SIGINT to the child's group; SIGTERM after `grace` seconds (default: the run's
        `interrupt_grace`) if it still runs, SIGKILL after `terminate_grace` more; a cancel
        under way takes its next step at once. Returns once the child has exited (at once
        when called from `on_stderr`). Its output is read meanwhile; the frames stay
        available to iteration."""
        seconds = None if grace is None else _check_seconds(grace, "grace")
        with self._lock:
            self._sup.cancel(self._clock(), "user", seconds)
            self._act()
            self._poke()
            if threading.current_thread() is not self._thread:
                self._wait_for(lambda: self._exited)

    def wait(self, timeout: Optional[float] = None) -> RunResult:
        """Reads the rest of the stream (keeping the frames not iterated yet), waits for the
        child, and returns the result. Raises `subprocess.TimeoutExpired` if that takes
        longer than `timeout` seconds (the run goes on; call `wait` again, or `cancel`)."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:

            def finished() -> bool:
                paused = self._paused
                self._hold()
                self._poke(paused)
                return self._sup.is_finished()

            if not self._wait_for(finished, end):
                raise subprocess.TimeoutExpired(self._proc.args, timeout or 0)
            result = self._sup.result()
        self._thread.join()  # every stderr line handed over
        self._check()
        assert result is not None
        return result

    def _abandon(self) -> None:
        """At interpreter exit or on a deadly signal: starts a cancel unless one is under
        way, and waits for the exit."""
        with self._lock:
            if self._cancelled_by is None:
                self._sup.cancel(self._clock(), "user")
                self._act()
                self._poke()
            while not self._exited and self._thread.is_alive():
                self._cond.wait()

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._cancelled_by is None and not self._exited:
            self.cancel()
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
    run's reader thread. Other keyword arguments go to `subprocess.Popen`."""
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

    def __init__(self, argv: Argv, loop: asyncio.AbstractEventLoop, **options: Any) -> None:
        self._loop = loop
        self._readers: Set[int] = set()
        self._timer: Optional[asyncio.TimerHandle] = None
        self._event = asyncio.Event()
        super().__init__(argv, loop.time, **options)
        self.stdin: Optional[asyncio.StreamWriter] = None
        """The child's stdin as a stream, with `stdin=subprocess.PIPE`; else `None`."""
        self._refresh()
        _live.add(self)

    def _refresh(self) -> None:
        """Matches the loop's readers and timer to what the run waits for."""
        if self._loop.is_closed():
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

    def _after(self, now: float) -> None:
        self._sup.tick(now)
        self._act()
        self._refresh()
        self._deliver(self._stderr_lines())

    def _on_ready(self, fd: int) -> None:
        self._ready(fd)
        self._after(self._clock())

    def _on_time(self, due: float) -> None:
        self._timer = None
        self._after(max(self._clock(), due))

    def _changed(self) -> None:
        if not self._loop.is_closed():
            self._event.set()

    def _start_cancel(self, grace: Optional[float]) -> None:
        self._sup.cancel(self._clock(), "user", grace)
        self._act()
        self._refresh()

    async def _until_changed(self) -> None:
        self._event.clear()
        try:
            await self._event.wait()
        except asyncio.CancelledError:  # the task awaiting the run is cancelled: so is the child
            if self._cancelled_by is None:
                self._start_cancel(None)
            raise

    def __aiter__(self) -> AsyncIterator[Frame]:
        return self

    async def __anext__(self) -> Frame:
        while True:
            self._check()
            paused = self._paused
            event = self._take()
            if paused != self._paused:
                self._refresh()
            if isinstance(event, HepError):
                raise event
            if event is not None:
                frame: Frame = event
                return frame
            if self._out not in self._reading:
                raise StopAsyncIteration
            await self._until_changed()

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
        """Reads the rest of the stream (keeping the frames not iterated yet), waits for the
        child, and returns the result."""
        while True:
            self._check()
            self._hold()
            self._refresh()
            result = self._sup.result()
            if result is not None:
                return result
            await self._until_changed()

    def _abandon(self) -> None:
        """At interpreter exit or on a deadly signal, when the loop may be gone: starts a
        cancel unless one is under way, and runs the I/O here until the child exits."""
        if not self._loop.is_closed():
            for fd in self._readers:
                self._loop.remove_reader(fd)
            if self._timer is not None:
                self._timer.cancel()
        self._readers, self._timer = set(), None
        if self._cancelled_by is None:
            self._sup.cancel(self._clock(), "user")
            self._act()
        self._pump(lambda: self._exited)

    async def __aenter__(self) -> "AsyncRun":
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._cancelled_by is None and not self._exited:
            self._start_cancel(None)
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
    `stdin=subprocess.PIPE`, `run.stdin` is an `asyncio.StreamWriter`."""
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
