"""`aspawn`: supervising a harness under asyncio, with `AsyncRun` (a `_Driver` whose I/O
runs in the event loop)."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any, AsyncIterator, Optional, Set

from . import _hep
from ._frames import Frame
from ._hep import Limits
from ._result import RunResult
from ._driver import Argv, StderrCallback, _check_seconds, _Driver
from ._orphans import _live


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
