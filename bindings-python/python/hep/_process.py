"""Supervising a harness: `spawn` (threads) and `aspawn` (asyncio).

The child gets its own process group. Its stdout is read as it arrives and each frame is
handed over the moment its line is complete. Its stderr is kept as a bounded tail.
`cancel` sends SIGINT to the group, then SIGTERM after `interrupt_grace` and SIGKILL after
`terminate_grace` more (by default the core's `INTERRUPT_GRACE` and `TERMINATE_GRACE`);
a `timeout` does the same once it runs out. When the child ends, anything it left
in its group is killed (no orphans), and the pipes are read only as far as they hold what
was written before: a process that left the group (`setsid`) and keeps them open cannot
keep the run waiting.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import threading
import time
from collections import deque
from typing import Any, AsyncIterator, Deque, Iterator, List, Optional, Sequence, Tuple, Union

from . import _hep
from ._result import RunResult
from ._hep import HepError, Limits
from ._stream import CHUNK, Frame, FrameSource, Stream

Argv = Sequence[Union[str, "os.PathLike[str]"]]

# How often a blocked read looks whether the child has exited.
TICK = 0.05


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _readable(fd: int, wait: float) -> bool:
    return bool(select.select([fd], [], [], wait)[0])


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


def _check_timeout(timeout: Optional[float]) -> Optional[float]:
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))):
        raise TypeError(f"timeout must be a number of seconds or None, not {type(timeout).__name__}")
    return None if timeout is None else _check_seconds(timeout, "timeout")


class _Graces:
    """The cancel escalation's two waits, in seconds, checked."""

    def __init__(self, interrupt_grace: float, terminate_grace: float) -> None:
        self.interrupt = _check_seconds(interrupt_grace, "interrupt_grace")
        self.terminate = _check_seconds(terminate_grace, "terminate_grace")

    def steps(self, grace: Optional[float]) -> List[Tuple[int, Optional[float]]]:
        """Each signal of a cancel and how long to wait for the exit after it; `grace`, when
        given, replaces the interrupt grace for this cancel."""
        first = self.interrupt if grace is None else _check_seconds(grace, "grace")
        return [(signal.SIGINT, first), (signal.SIGTERM, self.terminate), (signal.SIGKILL, None)]


def _check_limits(limits: Optional[Limits]) -> Optional[Limits]:
    """`limits`, refused before any child is started when it is no `hep.Limits`."""
    if limits is not None and not isinstance(limits, Limits):
        raise TypeError(f"limits must be a hep.Limits or None, not {type(limits).__name__}")
    return limits


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


class _Supervised:
    """What `Run` and `AsyncRun` share: the stream, its frames, the stderr tail."""

    def __init__(self, pid: int, strict: bool, limits: Optional[Limits], graces: _Graces) -> None:
        self._pid = pid
        self._graces = graces
        self._stream = Stream(strict=strict, limits=limits)
        self._frames = FrameSource(self._stream)
        self._tail = _hep.Tail()
        self._pending: Deque[Frame] = deque()
        self._eof = False
        self._group_killed = False
        self._timed_out = False
        self._result: Optional[RunResult] = None

    @property
    def pid(self) -> int:
        """The child's process id (and process group id)."""
        return self._pid

    @property
    def interrupt_grace(self) -> float:
        """Seconds `cancel()` waits after SIGINT before SIGTERM."""
        return self._graces.interrupt

    @property
    def terminate_grace(self) -> float:
        """Seconds `cancel()` waits after SIGTERM before SIGKILL."""
        return self._graces.terminate

    @property
    def stream(self) -> Stream:
        """The stream being read (violations and skipped lines so far)."""
        return self._stream

    @property
    def timed_out(self) -> bool:
        """Whether the `timeout` ran out while the child was running, and cancelled it."""
        return self._timed_out

    def _take(self, chunk: bytes) -> None:
        self._eof = not chunk
        self._pending.extend(self._frames.take(chunk or None))

    def _kill_leftovers(self, exited: bool) -> None:
        """Once the child has exited, kills whatever it left in its group (which could
        otherwise hold stdout open and block the read)."""
        if exited and not self._group_killed:
            _signal_group(self._pid, signal.SIGKILL)
            self._group_killed = True

    def _judge(self, returncode: int) -> RunResult:
        _signal_group(self._pid, signal.SIGKILL)
        self._result = RunResult(self._stream._core.finish(_exit_code(returncode)), self._tail.text())
        return self._result


class Run(_Supervised):
    """A running harness. Iterate it for frames; `wait()` for the `RunResult`.

    Use it as a context manager: leaving the block cancels a child that is still running
    and always reaps it."""

    def __init__(
        self,
        argv: Argv,
        *,
        strict: bool = False,
        timeout: Optional[float] = None,
        limits: Optional[Limits] = None,
        interrupt_grace: float = _hep.INTERRUPT_GRACE,
        terminate_grace: float = _hep.TERMINATE_GRACE,
        **popen: Any,
    ) -> None:
        seconds = _check_timeout(timeout)
        _check_limits(limits)
        graces = _Graces(interrupt_grace, terminate_grace)
        self._proc = subprocess.Popen(
            list(argv),
            stdin=popen.pop("stdin", subprocess.DEVNULL),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            **popen,
        )
        super().__init__(self._proc.pid, strict, limits, graces)
        self._stderr = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr.start()
        self._timer: Optional[threading.Timer] = None
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._time_out)
            self._timer.daemon = True
            self._timer.start()

    def _time_out(self) -> None:
        if self._proc.poll() is None:
            self._timed_out = True
            self.cancel()

    def _drain_stderr(self) -> None:
        """Keeps the tail of stderr until its end, or until the child has exited and nothing
        more is readable (what a process outside the group writes later is not waited for)."""
        err = self._proc.stderr
        assert err is not None
        while True:
            gone = self._proc.returncode is not None
            if _readable(err.fileno(), 0 if gone else TICK):
                chunk = os.read(err.fileno(), CHUNK)
                if not chunk:
                    return
                self._tail.push(chunk)
            elif gone:
                return

    def _read_chunk(self, deadline: Optional[float] = None) -> bytes:
        """The next bytes of stdout; empty at its end, or once the child has exited and all
        it wrote is read. Then whatever it left in its group is killed, so neither a leftover
        nor a process that left the group can keep the read waiting. Raises
        `subprocess.TimeoutExpired` past `deadline` (a `time.monotonic()` value)."""
        out = self._proc.stdout
        assert out is not None
        while True:
            # Everything the child wrote before its exit is in the pipe by now.
            gone = self._proc.poll() is not None
            self._kill_leftovers(gone)
            if _readable(out.fileno(), 0 if gone else TICK):
                return os.read(out.fileno(), CHUNK)
            if gone:
                return b""
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self._proc.args, 0)

    def _read_more(self, deadline: Optional[float] = None) -> None:
        self._take(self._read_chunk(deadline))

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        while not self._pending:
            if self._eof:
                raise StopIteration
            self._read_more()
        return self._pending.popleft()

    def cancel(self, grace: Optional[float] = None) -> None:
        """SIGINT to the child's group; SIGTERM after `grace` seconds (default: the run's
        `interrupt_grace`) if it still runs, SIGKILL after `terminate_grace` more. Frames that
        arrive meanwhile stay available to iteration."""
        for sig, wait in self._graces.steps(grace):
            if self._proc.poll() is not None:
                return
            _signal_group(self._proc.pid, sig)
            if wait is None:
                return
            deadline = time.monotonic() + wait
            while self._proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)

    def wait(self, timeout: Optional[float] = None) -> RunResult:
        """Reads the rest of the stream, waits for the child, and judges the run. Raises
        `subprocess.TimeoutExpired` if that takes longer than `timeout` seconds (the run
        goes on; call `wait` again, or `cancel`)."""
        if self._result is not None:
            return self._result
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._eof:
            try:
                self._read_more(deadline)
            except HepError:
                continue
        returncode = self._proc.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if self._timer is not None:
            self._timer.cancel()
        self._stderr.join()
        for pipe in (self._proc.stdout, self._proc.stderr):
            if pipe is not None:
                pipe.close()
        return self._judge(returncode)

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc.poll() is None:
            self.cancel()
        self.wait()


def spawn(
    argv: Argv,
    *,
    strict: bool = False,
    timeout: Optional[float] = None,
    limits: Optional[Limits] = None,
    interrupt_grace: float = _hep.INTERRUPT_GRACE,
    terminate_grace: float = _hep.TERMINATE_GRACE,
    **popen_options: Any,
) -> Run:
    """Starts `argv` (a HEP emitter) and returns the `Run` supervising it. `timeout`
    (seconds) cancels the run, as `cancel()` does, if the child still runs by then;
    `limits` caps what its stream keeps (see `Stream`). A cancel waits `interrupt_grace`
    seconds after SIGINT before SIGTERM, and `terminate_grace` after SIGTERM before SIGKILL
    (defaults: the core's `INTERRUPT_GRACE`, which outlasts the reference harness's settle
    and drain, and `TERMINATE_GRACE`)."""
    return Run(
        argv,
        strict=strict,
        timeout=timeout,
        limits=limits,
        interrupt_grace=interrupt_grace,
        terminate_grace=terminate_grace,
        **popen_options,
    )


class AsyncRun(_Supervised):
    """The asyncio twin of `Run`: `async for frame in run`, `await run.wait()`,
    `await run.cancel()`; usable as an async context manager."""

    def __init__(
        self,
        proc: "asyncio.subprocess.Process",
        out: int,
        err: int,
        strict: bool,
        timeout: Optional[float],
        limits: Optional[Limits],
        graces: _Graces,
    ) -> None:
        self._proc = proc
        self._out = out
        self._err = err
        super().__init__(proc.pid, strict, limits, graces)
        self._stderr = asyncio.ensure_future(self._drain_stderr())
        self._cancelling: "Optional[asyncio.Future[None]]" = None
        self._timer: Optional[asyncio.TimerHandle] = None
        if timeout is not None:
            self._timer = asyncio.get_running_loop().call_later(timeout, self._time_out)

    def _time_out(self) -> None:
        if self._proc.returncode is None:
            self._timed_out = True
            self._cancelling = asyncio.ensure_future(self.cancel())

    async def _read_fd(self, fd: int) -> bytes:
        """The next bytes of `fd` (a non-blocking pipe); empty at its end, or once the child
        has exited and all it wrote is read. Then whatever it left in its group is killed,
        so neither a leftover nor a process that left the group can keep the read waiting."""
        loop = asyncio.get_running_loop()
        while True:
            # Everything the child wrote before its exit is in the pipe by now.
            gone = self._proc.returncode is not None
            self._kill_leftovers(gone)
            try:
                return os.read(fd, CHUNK)
            except BlockingIOError:
                if gone:
                    return b""
            ready: "asyncio.Future[None]" = loop.create_future()

            def wake() -> None:
                if not ready.done():
                    ready.set_result(None)

            loop.add_reader(fd, wake)
            try:
                await asyncio.wait({ready}, timeout=TICK)
            finally:
                loop.remove_reader(fd)

    async def _drain_stderr(self) -> None:
        while True:
            chunk = await self._read_fd(self._err)
            if not chunk:
                return
            self._tail.push(chunk)

    async def _read_more(self) -> None:
        self._take(await self._read_fd(self._out))

    def __aiter__(self) -> AsyncIterator[Frame]:
        return self

    async def __anext__(self) -> Frame:
        while not self._pending:
            if self._eof:
                raise StopAsyncIteration
            await self._read_more()
        return self._pending.popleft()

    async def cancel(self, grace: Optional[float] = None) -> None:
        """SIGINT, then SIGTERM after `grace` seconds (default: the run's `interrupt_grace`)
        and SIGKILL after `terminate_grace` more, to the child's group."""
        for sig, wait in self._graces.steps(grace):
            if self._proc.returncode is not None:
                return
            _signal_group(self._proc.pid, sig)
            if wait is None:
                return
            try:
                await asyncio.wait_for(asyncio.shield(self._proc.wait()), wait)
            except asyncio.TimeoutError:
                continue

    async def wait(self) -> RunResult:
        """Reads the rest of the stream, waits for the child, and judges the run."""
        if self._result is not None:
            return self._result
        while not self._eof:
            try:
                await self._read_more()
            except HepError:
                continue
        returncode = await self._proc.wait()
        if self._timer is not None:
            self._timer.cancel()
        if self._cancelling is not None:
            await self._cancelling
        await self._stderr
        for fd in (self._out, self._err):
            os.close(fd)
        return self._judge(returncode)

    async def __aenter__(self) -> "AsyncRun":
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._proc.returncode is None:
            await self.cancel()
        await self.wait()


async def aspawn(
    argv: Argv,
    *,
    strict: bool = False,
    timeout: Optional[float] = None,
    limits: Optional[Limits] = None,
    interrupt_grace: float = _hep.INTERRUPT_GRACE,
    terminate_grace: float = _hep.TERMINATE_GRACE,
    **options: Any,
) -> AsyncRun:
    """Starts `argv` (a HEP emitter) under asyncio and returns the `AsyncRun` supervising
    it. `timeout` (seconds) cancels the run, as `cancel()` does, if the child still runs by
    then; `limits` caps what its stream keeps (see `Stream`); `interrupt_grace` and
    `terminate_grace` are the cancel's waits, as for `spawn`."""
    seconds = _check_timeout(timeout)
    _check_limits(limits)
    graces = _Graces(interrupt_grace, terminate_grace)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *[os.fspath(a) for a in argv],
            stdin=options.pop("stdin", asyncio.subprocess.DEVNULL),
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
            **options,
        )
    except BaseException:
        os.close(out_r)
        os.close(err_r)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    os.set_blocking(out_r, False)
    os.set_blocking(err_r, False)
    return AsyncRun(proc, out_r, err_r, strict, seconds, limits, graces)
