"""Supervising real child processes: `hep.spawn` (threads) and `hep.aspawn` (asyncio).

The children are `hep simulate` (the CLI's simulator) and tests/emitters/emit.py, a tiny
emitter built on `hep.Writer`. Every wait is bounded by a watchdog: a supervisor that
buffers output or leaks a child makes a test fail, never hang.
"""

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

REPO = Path(__file__).resolve().parents[2]
HEP_BIN = REPO / "target" / "debug" / "hep"
EMIT = Path(__file__).resolve().parent / "emitters" / "emit.py"
PY = sys.executable
WATCHDOG = 15.0
T = TypeVar("T")

HEADER = '{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}'
START = '{"type":"agent_start","turn_id":1}'


@pytest.fixture(scope="session")
def hep_bin() -> Path:
    if not HEP_BIN.exists():
        subprocess.run(["cargo", "build", "-q", "-p", "hep-cli"], cwd=REPO, check=True, timeout=600)
    assert HEP_BIN.exists()
    return HEP_BIN


def simulate(hep_bin: Path, scenario: str, speed: str = "0") -> List[str]:
    return [str(hep_bin), "simulate", "--scenario", scenario, "--speed", speed, "--color", "never"]


def emit(mode: str, arg: Any = "", stdio: str = "detach") -> List[str]:
    return [PY, str(EMIT), mode, str(arg), stdio]


# ---- process inspection ----


def _stat(pid: int) -> Optional[List[str]]:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text[text.rindex(")") + 2 :].split()  # state, ppid, pgrp, ...


def alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped by its parent, counts as gone)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def group_members(pgid: int) -> List[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


def eventually(check: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def read_pid(path: Path) -> int:
    assert eventually(path.exists, 10.0), f"the emitter never wrote {path}"
    return int(path.read_text())


def assert_no_process_left(pgid: int, *pids: int) -> None:
    assert eventually(lambda: not group_members(pgid) and not any(alive(p) for p in pids)), (
        f"processes left behind: group {pgid} still holds {group_members(pgid)}; alive: {[p for p in pids if alive(p)]}"
    )


class Watchdog:
    """Kills the child's process group if the test is still waiting after `seconds`."""

    def __init__(self, pid: int, seconds: float = WATCHDOG) -> None:
        self.fired = False
        self._pid = pid
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        try:
            os.killpg(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def __enter__(self) -> "Watchdog":
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


def arun(coro_fn: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(asyncio.wait_for(coro_fn(), 60))  # type: ignore[arg-type]


async def anext_within(run: hep.AsyncRun, seconds: float = WATCHDOG) -> Any:
    try:
        return await asyncio.wait_for(run.__anext__(), seconds)
    except asyncio.TimeoutError:
        pytest.fail(f"no frame within {seconds}s: the supervisor buffers the child's output")


# ---- a frame reaches the consumer while the child still runs ----


def test_frame_arrives_while_the_child_is_still_running(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    with hep.spawn(emit("wait", flag)) as run:
        seen = []
        with Watchdog(run.pid) as dog:
            for frame in run:
                seen.append(frame)
                if isinstance(frame, hep.MessageDelta):
                    break
        # The child cannot end before the flag exists: the frame came from a running child.
        assert not dog.fired, "the delta arrived only after the watchdog killed the child: output is buffered"
        assert not flag.exists() and alive(run.pid)
        assert [f.type for f in seen] == ["hep_header", "agent_start", "message_start", "message_delta"]
        flag.touch()
        with Watchdog(run.pid) as dog:
            rest = list(run)
            result = run.wait(timeout=WATCHDOG)
        assert not dog.fired
    assert [f.type for f in rest] == ["message_delta", "turn_done"]
    assert (result.verdict, result.exit_code, result.conforms) == ("ok", 0, True)
    assert result.answer == "waiting done"
    assert result.usage == hep.Usage(input=3, output=5, cost=0.25)


def test_simulator_at_speed_one_streams_frames_as_they_are_written(hep_bin: Path) -> None:
    arrivals = []
    start = time.monotonic()
    with hep.spawn(simulate(hep_bin, "chat", "1")) as run:
        with Watchdog(run.pid) as dog:
            frames = []
            for frame in run:
                arrivals.append(time.monotonic() - start)
                frames.append(frame)
            result = run.wait()
        assert not dog.fired
    assert (result.verdict, result.exit_code, result.conforms) == ("ok", 0, True)
    # The run takes a while at speed 1; the header must come long before the end.
    assert arrivals[-1] - arrivals[0] > 0.3, arrivals
    assert len({round(t, 2) for t in arrivals}) > 5, "frames arrived in a few big batches"
    # Same seed, same bytes: the frames equal those of the same run at speed 0.
    fast = subprocess.run(simulate(hep_bin, "chat"), capture_output=True, check=True, timeout=WATCHDOG).stdout
    assert frames == [f for f in hep.Stream().feed(fast)]
    last = frames[-1]
    assert isinstance(last, hep.TurnDone) and result.answer and result.answer == last.message


@pytest.mark.parametrize(
    ("scenario", "verdict", "code"),
    [
        ("chat", "ok", 0),
        ("tools", "ok", 0),
        ("error", "failed", 1),
        ("compaction", "ok", 0),
        ("stuck", "ok", 0),
        ("big-output", "ok", 0),
        ("future", "ok", 0),
    ],
)
def test_simulator_scenarios(hep_bin: Path, scenario: str, verdict: str, code: int) -> None:
    with hep.spawn(simulate(hep_bin, scenario)) as run:
        with Watchdog(run.pid):
            frames = list(run)
            result = run.wait()
    assert (result.verdict, result.exit_code, result.conforms) == (verdict, code, True)
    assert result.frames == len(frames) and result.lines == len(frames)
    assert isinstance(frames[0], hep.HepHeader) and frames[0].hep == "v1"
    assert result.violations == () and result.skipped == ()
    if scenario == "future":
        assert any(isinstance(f, hep.UnknownFrame) for f in frames)
    if scenario == "tools":
        assert result.tool_calls and all(c.status in ("ok", "failed") for c in result.tool_calls)
    if scenario == "error":
        assert isinstance(frames[-1], hep.TurnError)


# ---- cancellation ----


def test_cancel_gives_verdict_cancelled_exit_130_and_a_last_cancelled_frame(hep_bin: Path) -> None:
    with hep.spawn(simulate(hep_bin, "cancel-me", "1")) as run:
        with Watchdog(run.pid) as dog:
            before = []
            for frame in run:
                before.append(frame)
                if isinstance(frame, (hep.MessageDelta, hep.ToolDelta)):
                    break
            started = time.monotonic()
            run.cancel()
            took = time.monotonic() - started
            after = list(run)
            result = run.wait()
        assert not dog.fired
    assert took < hep.INTERRUPT_GRACE, "SIGINT alone should end the simulator"
    assert isinstance(after[-1], hep.Cancelled)
    assert (result.verdict, result.exit_code) == ("cancelled", 130)
    assert result.conforms, result.reasons
    assert result.turns[-1].end == "cancelled"


def test_cancel_escalates_to_sigkill_for_a_child_that_ignores_signals() -> None:
    with hep.spawn(emit("stubborn")) as run:
        with Watchdog(run.pid) as dog:
            for frame in run:
                if isinstance(frame, hep.MessageDelta):
                    break
            started = time.monotonic()
            run.cancel(grace=0.2)
            took = time.monotonic() - started
            result = run.wait()
        assert not dog.fired
    assert 0.2 <= took < 0.2 + hep.TERMINATE_GRACE + 2
    assert result.exit_code == 128 + signal.SIGKILL
    assert result.verdict == "incomplete"


# ---- a child killed mid-line ----

KILLED_MID_LINE = ["sh", "-c", f"printf '%s\\n' '{HEADER}' '{START}'; printf '%s' '{{\"type\":\"message_del'; kill -9 $$"]


def test_child_killed_mid_line_is_incomplete_with_a_truncated_line() -> None:
    with hep.spawn(KILLED_MID_LINE) as run:
        with Watchdog(run.pid):
            frames = list(run)
            result = run.wait()
    assert [f.type for f in frames] == ["hep_header", "agent_start"]
    assert result.exit_code == 137
    assert result.verdict == "incomplete" and not result.conforms
    assert [(s.kind, s.line) for s in result.skipped] == [("truncated", 3)]
    assert result.halted is None


# ---- stderr ----


def test_stderr_tail_is_captured_and_bounded() -> None:
    with hep.spawn(emit("stderr", 3 * hep.STDERR_TAIL_BYTES)) as run:
        with Watchdog(run.pid):
            frames = list(run)
            result = run.wait()
    assert (result.verdict, len(frames)) == ("ok", 6)
    tail = result.stderr_tail
    assert tail.endswith("LAST STDERR LINE\nemitter stderr: first delta written\nemitter stderr: finished\n")
    assert hep.STDERR_TAIL_BYTES - 100 < len(tail.encode()) <= hep.STDERR_TAIL_BYTES
    assert "stderr line 0\n" not in tail


def test_stderr_of_a_short_run(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    flag.touch()
    with hep.spawn(emit("wait", flag)) as run:
        with Watchdog(run.pid):
            result = run.wait()
    assert result.stderr_tail == "emitter wait: first delta written\nemitter wait: finished\n"


# ---- no leaks ----
#
# The emitter leaves a `sleep` in its process group that ignores SIGINT and SIGTERM. With
# STDIO `inherit` that grandchild also holds the child's stdout and stderr open, as a
# background process started by a real harness's tool would.

LEAK_WATCHDOG = 8.0
STDIO = ["detach", "inherit"]


@pytest.fixture
def reaper() -> Any:
    """Kills, after the test, every process group it was given (whatever the test did)."""
    groups: List[int] = []
    yield groups.append
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("stdio", STDIO)
def test_context_manager_cancels_and_reaps_the_child_and_its_group(tmp_path: Path, stdio: str, reaper: Any) -> None:
    pidfile = tmp_path / "sleeper.pid"
    run = hep.spawn(emit("hang", pidfile, stdio))
    reaper(run.pid)
    with Watchdog(run.pid, LEAK_WATCHDOG) as dog, run:
        for frame in run:
            if isinstance(frame, hep.MessageDelta):
                break
        child, sleeper = run.pid, read_pid(pidfile)
        assert alive(child) and alive(sleeper)
        assert set(group_members(child)) == {child, sleeper}
        left = time.monotonic()
    assert not dog.fired, (
        f"leaving the with block waited {time.monotonic() - left:.1f}s, until the watchdog killed the group: "
        "the supervisor waits for stdout EOF, which the grandchild still holds, before killing the group"
    )
    assert_no_process_left(child, child, sleeper)
    result = run.wait()
    assert (result.verdict, result.exit_code) == ("cancelled", 130)
    assert isinstance(list(run)[-1], hep.Cancelled)


def test_context_manager_cleans_up_when_the_block_raises(tmp_path: Path, reaper: Any) -> None:
    pidfile = tmp_path / "sleeper.pid"
    run = hep.spawn(emit("hang", pidfile))
    reaper(run.pid)
    with pytest.raises(KeyError):
        with Watchdog(run.pid, LEAK_WATCHDOG) as dog, run:
            next(run)
            sleeper = read_pid(pidfile)
            raise KeyError("the consumer fails")
    assert not dog.fired
    assert_no_process_left(run.pid, run.pid, sleeper)


@pytest.mark.parametrize("stdio", STDIO)
def test_what_the_child_leaves_in_its_group_is_killed_when_it_ends(tmp_path: Path, stdio: str, reaper: Any) -> None:
    pidfile = tmp_path / "sleeper.pid"
    run = hep.spawn(emit("orphan", pidfile, stdio))
    reaper(run.pid)
    with Watchdog(run.pid, LEAK_WATCHDOG) as dog, run:
        frames = list(run)
        result = run.wait()
    assert not dog.fired, (
        "the child ended but wait() only returned when the watchdog killed its group: "
        "the supervisor waits for stdout EOF, which the grandchild still holds, before killing the group"
    )
    assert (result.verdict, result.exit_code) == ("ok", 0)
    assert [f.type for f in frames][-1] == "turn_done"
    assert_no_process_left(run.pid, read_pid(pidfile))


# ---- strict mode ----


def test_strict_mode_raises_at_the_bad_line() -> None:
    with hep.spawn(emit("garbage"), strict=True) as run:
        with Watchdog(run.pid):
            seen = []
            with pytest.raises(hep.JsonSyntaxError) as info:
                for frame in run:
                    seen.append(frame)
            result = run.wait()
    assert (info.value.kind, info.value.line) == ("syntax", 4)
    # Iteration yields every frame before the bad line, then raises.
    assert [f.type for f in seen] == ["hep_header", "agent_start", "message_start"]
    assert result.verdict == "protocol_error"
    assert result.halted is not None and (result.halted.kind, result.halted.line) == ("syntax", 4)


def test_lenient_mode_skips_the_bad_line() -> None:
    with hep.spawn(emit("garbage")) as run:
        with Watchdog(run.pid):
            frames = list(run)
            result = run.wait()
    assert len(frames) == 6
    assert [(s.kind, s.line) for s in result.skipped] == [("syntax", 4)]
    assert run.stream.skipped[0].line == 4
    assert (result.verdict, result.exit_code, result.conforms) == ("protocol_error", 0, False)


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
