"""Supervising real child processes with `hep.spawn` (threads); see test_supervise_async.py
for the asyncio twin. Every wait is bounded by a watchdog: a supervisor that buffers output
or leaks a child makes a test fail, never hang.
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

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)


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
    ("scenario", "verdict", "code", "warnings"),
    [
        ("chat", "ok", 0, []),
        ("tools", "ok", 0, []),
        ("error", "failed", 1, []),
        ("compaction", "ok", 0, []),
        ("stuck", "ok", 0, []),
        ("big-output", "ok", 0, []),
        ("future", "ok", 0, []),
        # The reference's edge paths: a round after the fatal turn_error of a request over
        # the context window; a compaction pass that decided not to compact (no end).
        ("over-window", "ok", 0, [("round_after_fatal_error", 3)]),
        ("skipped-compaction", "ok", 0, [("unpaired_compaction_start", 1)]),
    ],
)
def test_simulator_scenarios(hep_bin: Path, scenario: str, verdict: str, code: int, warnings: List[Any]) -> None:
    with hep.spawn(simulate(hep_bin, scenario)) as run:
        with Watchdog(run.pid):
            frames = list(run)
            result = run.wait()
    assert (result.verdict, result.exit_code, result.conforms) == (verdict, code, True)
    assert result.frames == len(frames) and result.lines == len(frames)
    assert isinstance(frames[0], hep.HepHeader) and frames[0].hep == "v1"
    assert [(v.code, v.turn_id) for v in result.violations] == warnings
    assert all(v.severity == "warning" for v in result.violations) and result.skipped == ()
    if scenario == "future":
        assert any(isinstance(f, hep.UnknownFrame) for f in frames)
    if scenario == "tools":
        assert result.tool_calls and all(c.status in ("ok", "failed") for c in result.tool_calls)
    if scenario == "error":
        assert isinstance(frames[-1], hep.TurnError)
    if scenario == "over-window":
        assert [t.end for t in result.turns] == ["turn_done", "turn_error", "turn_done"]
        assert result.answer == frames[-1].message  # type: ignore[union-attr]


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


# A signal while the simulator is not streaming (before agent_start, or after the last
# round's terminal frame) aborts nothing, as in the reference: no `cancelled` frame, a
# compaction left open, exit 130, and the verdict is still `cancelled`. At speed 2 the
# pre-flight compaction lasts 0.4 s and the post-run one 0.75 s: the cancel, sent as soon as
# their compaction_start is read, lands inside them. Each: which compaction_start of the
# scenario (pre-flight, between rounds, post-run), and the warnings (code, turn id).
NOT_STREAMING = {
    "pre-flight compaction": (1, [("unpaired_compaction_start", 1), ("ended_before_agent_start", None)]),
    "post-run compaction": (3, [("unpaired_compaction_start", 3), ("cancelled_between_rounds", 2)]),
}


@pytest.mark.parametrize("where", list(NOT_STREAMING))
def test_cancel_while_the_simulator_is_not_streaming_writes_no_cancelled_frame(hep_bin: Path, where: str) -> None:
    nth, warnings = NOT_STREAMING[where]
    with hep.spawn(simulate(hep_bin, "compaction", "2")) as run:
        with Watchdog(run.pid) as dog:
            frames, seen = [], 0
            for frame in run:
                frames.append(frame)
                seen += isinstance(frame, hep.CompactionStart)
                if seen == nth:
                    break
            run.cancel()
            frames += list(run)
            result = run.wait()
        assert not dog.fired
    assert isinstance(frames[-1], hep.CompactionStart), [f.type for f in frames]
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)
    assert [(v.code, v.turn_id) for v in result.violations] == warnings
    assert all(v.severity == "warning" for v in result.violations)
    done = [f for f in frames if isinstance(f, hep.TurnDone)]
    assert not any(isinstance(f, hep.Cancelled) for f in frames)
    # After the run, the last round's answer is kept; before agent_start there is none.
    assert result.answer == (done[-1].message if where == "post-run compaction" else None)
    assert result.last_terminal == ("turn_done" if done else None)


def test_cancel_escalates_to_sigkill_for_a_child_that_ignores_signals() -> None:
    with hep.spawn(emit("stubborn"), terminate_grace=0.3) as run:
        with Watchdog(run.pid) as dog:
            for frame in run:
                if isinstance(frame, hep.MessageDelta):
                    break
            started = time.monotonic()
            run.cancel(grace=0.2)
            took = time.monotonic() - started
            result = run.wait()
        assert not dog.fired
    assert 0.2 + 0.3 <= took < 0.2 + 0.3 + 2
    assert result.exit_code == 128 + signal.SIGKILL
    assert result.verdict == "incomplete"


# ---- a child killed mid-line ----



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
