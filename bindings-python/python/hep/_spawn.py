"""`spawn`: supervising a harness from blocking code, with `Run` (a `_Driver` reading on a
thread of its own)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import IO, Any, Callable, Iterator, Optional

from . import _hep
from ._frames import Frame
from ._hep import Limits
from ._result import RunResult
from ._driver import Argv, StderrCallback, _check_seconds, _Driver
from ._orphans import _live


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
