"""Supervising real child processes with `hep.aspawn` (asyncio), mirroring test_supervise.py."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, List, Optional, TypeVar

import pytest

import hep

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)


# ---- the asyncio twin ----


def test_async_frame_arrives_while_the_child_is_still_running(tmp_path: Path) -> None:
    flag = tmp_path / "flag"

    async def main() -> hep.RunResult:
        async with await hep.aspawn(emit("wait", flag)) as run:
            seen: List[Any] = []
            while not seen or not isinstance(seen[-1], hep.MessageDelta):
                seen.append(await anext_within(run))
            assert not flag.exists() and alive(run.pid)
            assert [f.type for f in seen] == ["hep_header", "agent_start", "message_start", "message_delta"]
            flag.touch()
            rest = [frame async for frame in run]
            assert [f.type for f in rest] == ["message_delta", "turn_done"]
            return await asyncio.wait_for(run.wait(), WATCHDOG)

    result = arun(main)
    assert (result.verdict, result.exit_code, result.answer) == ("ok", 0, "waiting done")
    assert "emitter wait: finished" in result.stderr_tail


def test_async_cancel(hep_bin: Path) -> None:
    async def main() -> Any:
        async with await hep.aspawn(simulate(hep_bin, "cancel-me", "1")) as run:
            while not isinstance(await anext_within(run), (hep.MessageDelta, hep.ToolDelta)):
                pass
            started = time.monotonic()
            await run.cancel()
            took = time.monotonic() - started
            after = [frame async for frame in run]
            return took, after, await run.wait()

    took, after, result = arun(main)
    assert took < hep.INTERRUPT_GRACE
    assert isinstance(after[-1], hep.Cancelled)
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)


def test_async_child_killed_mid_line() -> None:
    async def main() -> Any:
        async with await hep.aspawn(KILLED_MID_LINE) as run:
            frames = [frame async for frame in run]
            return frames, await run.wait()

    frames, result = arun(main)
    assert [f.type for f in frames] == ["hep_header", "agent_start"]
    assert (result.verdict, result.exit_code) == ("incomplete", 137)
    assert [(s.kind, s.line) for s in result.skipped] == [("truncated", 3)]


def test_async_stderr_tail() -> None:
    async def main() -> hep.RunResult:
        async with await hep.aspawn(emit("stderr", 3 * hep.STDERR_TAIL_BYTES)) as run:
            return await run.wait()

    result = arun(main)
    assert result.verdict == "ok"
    assert result.stderr_tail.endswith("LAST STDERR LINE\nemitter stderr: first delta written\nemitter stderr: finished\n")
    assert len(result.stderr_tail.encode()) <= hep.STDERR_TAIL_BYTES


@pytest.mark.parametrize("stdio", STDIO)
def test_async_context_manager_leaves_no_process(tmp_path: Path, stdio: str, reaper: Any) -> None:
    pidfile = tmp_path / "sleeper.pid"
    pids: List[int] = []

    async def main() -> hep.RunResult:
        run = await hep.aspawn(emit("hang", pidfile, stdio))
        reaper(run.pid)
        with Watchdog(run.pid, LEAK_WATCHDOG) as dog:
            async with run:
                while not isinstance(await anext_within(run), hep.MessageDelta):
                    pass
                pids.extend((run.pid, read_pid(pidfile)))
                assert alive(pids[0]) and alive(pids[1])
        assert not dog.fired, (
            "leaving the async with block took until the watchdog killed the group: the supervisor "
            "waits for stdout EOF, which the grandchild still holds, before killing the group"
        )
        return await run.wait()

    result = arun(main)
    assert_no_process_left(pids[0], *pids)
    assert (result.verdict, result.exit_code) == ("cancelled", 130)


def test_async_context_manager_cleans_up_when_the_block_raises(tmp_path: Path, reaper: Any) -> None:
    pidfile = tmp_path / "sleeper.pid"
    pids: List[int] = []

    async def main() -> None:
        async with await hep.aspawn(emit("hang", pidfile)) as run:
            reaper(run.pid)
            pids.append(run.pid)
            await anext_within(run)
            pids.append(read_pid(pidfile))
            raise KeyError("the consumer fails")

    with pytest.raises(KeyError):
        arun(main)
    assert_no_process_left(pids[0], *pids)


def test_async_strict_mode_raises() -> None:
    async def main() -> Any:
        async with await hep.aspawn(emit("garbage"), strict=True) as run:
            seen: List[Any] = []
            with pytest.raises(hep.JsonSyntaxError) as info:
                async for frame in run:
                    seen.append(frame)
            return seen, info.value, await run.wait()

    seen, err, result = arun(main)
    assert (err.kind, err.line) == ("syntax", 4)
    assert [f.type for f in seen] == ["hep_header", "agent_start", "message_start"]
    assert result.verdict == "protocol_error"
