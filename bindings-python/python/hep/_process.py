"""Supervising a harness: `spawn` (threads) and `aspawn` (asyncio).

The child gets its own process group. Its stdout is read as it arrives and each frame is
handed over the moment its line is complete. Its stderr is kept as a bounded tail.
`cancel` sends SIGINT to the group, then SIGTERM and SIGKILL after the core's grace
periods. When the child ends, anything it left in its group is killed: no orphans.
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
from ._hep import HepError
from ._stream import CHUNK, Frame, FrameSource, Stream

Argv = Sequence[Union[str, "os.PathLike[str]"]]


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def _cancel_steps(grace: Optional[float]) -> List[Tuple[int, Optional[float]]]:
    """The cancel escalation: each signal and how long to wait for the exit after it."""
    first = _hep.INTERRUPT_GRACE if grace is None else grace
    return [(signal.SIGINT, first), (signal.SIGTERM, _hep.TERMINATE_GRACE), (signal.SIGKILL, None)]


class _Supervised:
    """What `Run` and `AsyncRun` share: the stream, its frames, the stderr tail."""

    def __init__(self, pid: int, strict: bool) -> None:
        self._pid = pid
        self._stream = Stream(strict=strict)
        self._frames = FrameSource(self._stream)
        self._tail = _hep.Tail()
        self._pending: Deque[Frame] = deque()
        self._eof = False
        self._group_killed = False
        self._result: Optional[RunResult] = None

    @property
    def pid(self) -> int:
        """The child's process id (and process group id)."""
        return self._pid

    @property
    def stream(self) -> Stream:
        """The stream being read (violations and skipped lines so far)."""
        return self._stream

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

    def __init__(self, argv: Argv, *, strict: bool = False, **popen: Any) -> None:
        self._proc = subprocess.Popen(
            list(argv),
            stdin=popen.pop("stdin", subprocess.DEVNULL),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            **popen,
        )
        super().__init__(self._proc.pid, strict)
        self._stderr = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr.start()

    def _drain_stderr(self) -> None:
        err = self._proc.stderr
        assert err is not None
        for chunk in iter(lambda: os.read(err.fileno(), CHUNK), b""):
            self._tail.push(chunk)

    def _read_chunk(self, deadline: Optional[float] = None) -> bytes:
        """The next bytes of stdout (empty at its end). Once the child has exited, whatever
        it left in its group is killed, so a leftover holding stdout cannot block the read.
        Raises `subprocess.TimeoutExpired` past `deadline` (a `time.monotonic()` value)."""
        out = self._proc.stdout
        assert out is not None
        while not select.select([out], [], [], 0.05)[0]:
            self._kill_leftovers(self._proc.poll() is not None)
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self._proc.args, 0)
        return os.read(out.fileno(), CHUNK)

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
        """SIGINT to the child's group; SIGTERM after `grace` seconds (default: the core's
        `INTERRUPT_GRACE`) if it still runs, SIGKILL after `TERMINATE_GRACE` more. Frames that
        arrive meanwhile stay available to iteration."""
        for sig, wait in _cancel_steps(grace):
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


def spawn(argv: Argv, *, strict: bool = False, **popen_options: Any) -> Run:
    """Starts `argv` (a HEP emitter) and returns the `Run` supervising it."""
    return Run(argv, strict=strict, **popen_options)


class AsyncRun(_Supervised):
    """The asyncio twin of `Run`: `async for frame in run`, `await run.wait()`,
    `await run.cancel()`; usable as an async context manager."""

    def __init__(self, proc: "asyncio.subprocess.Process", strict: bool) -> None:
        self._proc = proc
        super().__init__(proc.pid, strict)
        self._stderr = asyncio.ensure_future(self._drain_stderr())

    async def _drain_stderr(self) -> None:
        err = self._proc.stderr
        assert err is not None
        while True:
            chunk = await err.read(CHUNK)
            if not chunk:
                return
            self._tail.push(chunk)

    async def _read_chunk(self) -> bytes:
        """The next bytes of stdout (empty at its end); kills what the child left in its group
        once it has exited, so a leftover holding stdout cannot block the read."""
        out = self._proc.stdout
        assert out is not None
        read = asyncio.ensure_future(out.read(CHUNK))
        while not (await asyncio.wait({read}, timeout=0.05))[0]:
            self._kill_leftovers(self._proc.returncode is not None)
        return read.result()

    async def _read_more(self) -> None:
        self._take(await self._read_chunk())

    def __aiter__(self) -> AsyncIterator[Frame]:
        return self

    async def __anext__(self) -> Frame:
        while not self._pending:
            if self._eof:
                raise StopAsyncIteration
            await self._read_more()
        return self._pending.popleft()

    async def cancel(self, grace: Optional[float] = None) -> None:
        """SIGINT, then SIGTERM and SIGKILL after the grace periods, to the child's group."""
        for sig, wait in _cancel_steps(grace):
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
        await self._stderr
        return self._judge(returncode)

    async def __aenter__(self) -> "AsyncRun":
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._proc.returncode is None:
            await self.cancel()
        await self.wait()


async def aspawn(argv: Argv, *, strict: bool = False, **options: Any) -> AsyncRun:
    """Starts `argv` (a HEP emitter) under asyncio and returns the `AsyncRun` supervising it."""
    proc = await asyncio.create_subprocess_exec(
        *[os.fspath(a) for a in argv],
        stdin=options.pop("stdin", asyncio.subprocess.DEVNULL),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        **options,
    )
    return AsyncRun(proc, strict)
