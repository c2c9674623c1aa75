"""Process faults with `hep.spawn` and `hep.aspawn`: a child that closes stdout but keeps
running, floods stdout and stderr, ignores SIGINT, leaves grandchildren (one in a session of
its own), ends without a terminal frame, or outlives a `timeout`. Each test checks the
verdict, the exit code, and that the child is reaped and its group gone. (Killed mid-line,
SIGKILL escalation and leftovers in the group: test_supervise.py and
test_supervise_async.py.)
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
from pathlib import Path
from typing import Any, List

import pytest

import hep

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)

FLOOD_FRAMES = 50_000
FLOOD_PAD = 1000  # 50,000 lines of about 1 KB: 51 MB on stdout, as much on stderr


def assert_reaped(run: Any) -> None:
    assert not exists(run.pid), f"the child {run.pid} was not reaped"
    assert_no_process_left(run.pid)


def check_cancelled_in_open_round(result: hep.RunResult, why: str = "cancelled on request") -> None:
    """Exit 130 after SIGINT with round 1 open (no `cancelled` frame): the reference exits
    130 after any signal, so the run was cancelled before the round settled. The first
    reason says why the supervisor cancelled it."""
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)
    assert [(v.code, v.severity, v.turn_id) for v in result.violations] == [("cancelled_in_open_round", "warning", 1)]
    assert result.reasons == (
        f"the supervisor cancelled the run: {why}",
        "exit code 130: cancelled in turn 1, before the round settled",
    )


# ---- the child closes stdout but keeps running ----


def test_closed_stdout_ends_iteration_but_wait_waits_for_the_exit(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    results: List[hep.RunResult] = []
    with hep.spawn(closes_stdout(flag)) as run, Watchdog(run.pid) as dog:
        frames = list(run)  # ends at stdout's end
        # The child cannot exit before the flag exists.
        assert alive(run.pid)
        waiter = threading.Thread(target=lambda: results.append(run.wait()))
        waiter.start()
        flag.touch()
        waiter.join(WATCHDOG)
    assert not dog.fired
    assert [f.type for f in frames] == ["hep_header", "agent_start", "turn_done"]
    (result,) = results
    assert (result.verdict, result.exit_code, result.conforms) == ("ok", 0, True)
    assert result.stderr_tail == "stdout closed\nexiting after the flag\n"
    assert_reaped(run)


def test_closed_stdout_child_can_still_be_cancelled() -> None:
    with hep.spawn(CLOSES_STDOUT_THEN_HANGS) as run, Watchdog(run.pid) as dog:
        frames = list(run)
        assert alive(run.pid)
        run.cancel()
        result = run.wait()
    assert not dog.fired
    assert [f.type for f in frames] == ["hep_header", "agent_start"]
    check_cancelled_in_open_round(result)
    assert result.stderr_tail == "got SIGINT\n"
    assert_reaped(run)


def test_async_closed_stdout(tmp_path: Path) -> None:
    flag = tmp_path / "flag"

    async def main() -> Any:
        async with await hep.aspawn(closes_stdout(flag)) as run:
            frames = [frame async for frame in run]
            assert alive(run.pid)
            waiting = asyncio.ensure_future(run.wait())
            await asyncio.sleep(0)  # let the wait start
            flag.touch()
            return run, frames, await asyncio.wait_for(waiting, WATCHDOG)

    run, frames, result = arun(main)
    assert [f.type for f in frames] == ["hep_header", "agent_start", "turn_done"]
    assert (result.verdict, result.exit_code) == ("ok", 0)
    assert result.stderr_tail == "stdout closed\nexiting after the flag\n"
    assert_reaped(run)


def test_async_closed_stdout_child_can_still_be_cancelled() -> None:
    async def main() -> Any:
        async with await hep.aspawn(CLOSES_STDOUT_THEN_HANGS) as run:
            frames = [frame async for frame in run]
            assert alive(run.pid)
            await run.cancel()
            return run, frames, await run.wait()

    run, frames, result = arun(main)
    assert [f.type for f in frames] == ["hep_header", "agent_start"]
    check_cancelled_in_open_round(result)
    assert result.stderr_tail == "got SIGINT\n"
    assert_reaped(run)


# ---- the child floods stdout and stderr ----


def check_flood(frames: List[Any], result: hep.RunResult) -> None:
    deltas = [f.delta for f in frames if isinstance(f, hep.MessageDelta)]
    assert len(deltas) == FLOOD_FRAMES
    assert all(d.startswith(f"{i:08d} ") for i, d in enumerate(deltas)), "a frame was lost or reordered"
    assert (result.verdict, result.exit_code, result.lines) == ("ok", 0, FLOOD_FRAMES + 4)
    assert result.stderr_tail.endswith(f"stderr {FLOOD_FRAMES - 1:08d} {'x' * FLOOD_PAD}\nstderr end\n")
    assert len(result.stderr_tail.encode()) <= hep.STDERR_TAIL_BYTES


def test_flood_of_stdout_and_stderr_keeps_every_frame_in_order() -> None:
    with hep.spawn(flood(FLOOD_FRAMES, FLOOD_PAD)) as run, Watchdog(run.pid, 60) as dog:
        frames = list(run)
        result = run.wait()
    assert not dog.fired
    check_flood(frames, result)
    assert_reaped(run)


def test_async_flood_of_stdout_and_stderr_keeps_every_frame_in_order() -> None:
    async def main() -> Any:
        async with await hep.aspawn(flood(FLOOD_FRAMES, FLOOD_PAD)) as run:
            frames = [frame async for frame in run]
            return run, frames, await run.wait()

    run, frames, result = arun(main)
    check_flood(frames, result)
    assert_reaped(run)


# A supervisor in a process of its own: peak memory (ru_maxrss, KiB) after a small run, then
# after consuming the flood frame by frame.
PEAK_SCRIPT = """
import asyncio, json, resource, sys
import hep
small, big, mode = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

def consume(argv):
    with hep.spawn(argv) as run:
        n = sum(1 for _ in run)
        return n, run.wait().verdict

async def aconsume(argv):
    async with await hep.aspawn(argv) as run:
        n = 0
        async for _ in run:
            n += 1
        return n, (await run.wait()).verdict

go = consume if mode == "sync" else lambda argv: asyncio.run(aconsume(argv))
go(small)
base = peak()
n, verdict = go(big)
print(json.dumps({"base": base, "peak": peak(), "frames": n, "verdict": verdict}))
"""


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_flood_memory_stays_bounded(mode: str) -> None:
    small, big = flood(10, FLOOD_PAD), flood(FLOOD_FRAMES, FLOOD_PAD)
    out = subprocess.run(
        [PY, "-c", PEAK_SCRIPT, json.dumps(small), json.dumps(big), mode],
        capture_output=True,
        check=True,
        timeout=120,
    ).stdout
    report = json.loads(out)
    assert (report["frames"], report["verdict"]) == (FLOOD_FRAMES + 4, "ok")
    # 100 MB went through the supervisor; what it holds at any time is a few chunks.
    grew_mib = (report["peak"] - report["base"]) / 1024
    assert grew_mib < 16, f"peak memory grew by {grew_mib:.1f} MiB while consuming the flood: {report}"


# ---- the child ignores SIGINT: SIGTERM follows the grace period ----


def test_sigint_ignored_escalates_to_sigterm_and_the_verdict_is_cancelled() -> None:
    with hep.spawn(ONLY_SIGTERM_STOPS) as run, Watchdog(run.pid) as dog:
        first = next(run)  # its traps are set before it writes
        run.cancel(grace=0.2)
        rest = list(run)
        result = run.wait()
    assert not dog.fired
    assert [f.type for f in [first, *rest]] == ["hep_header", "agent_start", "cancelled"]
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)
    assert_reaped(run)


def test_async_sigint_ignored_escalates_to_sigterm() -> None:
    async def main() -> Any:
        async with await hep.aspawn(ONLY_SIGTERM_STOPS) as run:
            await anext_within(run)
            await run.cancel(grace=0.2)
            return run, [frame async for frame in run], await run.wait()

    run, rest, result = arun(main)
    assert [f.type for f in rest] == ["agent_start", "cancelled"]
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)
    assert_reaped(run)


def test_async_sigint_and_sigterm_ignored_escalate_to_sigkill() -> None:
    async def main() -> Any:
        async with await hep.aspawn(emit("stubborn"), terminate_grace=0.3) as run:
            while not isinstance(await anext_within(run), hep.MessageDelta):
                pass
            await run.cancel(grace=0.2)
            return run, await run.wait()

    run, result = arun(main)
    assert (result.verdict, result.exit_code) == ("incomplete", 137)
    assert_reaped(run)


# ---- grandchildren, one of them in a session of its own ----
#
# A process that calls setsid leaves the child's process group: group signals no longer
# reach it (the documented limit). What the supervisor guarantees: it does not wait for
# such a process, although it holds the child's stdout and stderr open.


@pytest.mark.parametrize("end", ["done", "cancel"])
def test_grandchildren_in_and_out_of_the_group(tmp_path: Path, end: str, reaper: Any) -> None:
    pidfiles = tmp_path / "sleeper"
    escapee = 0
    try:
        with hep.spawn(escapes(pidfiles, end)) as run, Watchdog(run.pid, LEAK_WATCHDOG) as dog:
            reaper(run.pid)
            first = next(run)
            grouped, escapee = read_pid(Path(f"{pidfiles}.group")), read_pid(Path(f"{pidfiles}.session"))
            if end == "cancel":
                run.cancel()
            frames = [first, *run]
            result = run.wait()
        assert not dog.fired, "the supervisor waited for the escaped grandchild's stdout to close"
        assert alive(escapee), "the grandchild in its own session still holds stdout: the run did not wait for it"
        expected = ("ok", 0) if end == "done" else ("cancelled", 130)
        assert (result.verdict, result.exit_code) == expected
        assert frames[-1].type == ("turn_done" if end == "done" else "cancelled")
        assert_reaped(run)
        assert_no_process_left(run.pid, grouped)
    finally:
        if escapee:
            kill_quietly(escapee)


def test_async_grandchild_in_its_own_session_does_not_keep_the_run(tmp_path: Path, reaper: Any) -> None:
    pidfiles = tmp_path / "sleeper"
    pids: List[int] = []

    async def main() -> Any:
        async with await hep.aspawn(escapes(pidfiles, "done")) as run:
            reaper(run.pid)
            frames = [await anext_within(run)]
            pids.extend([read_pid(Path(f"{pidfiles}.group")), read_pid(Path(f"{pidfiles}.session"))])
            frames.extend([frame async for frame in run])
            return run, frames, await asyncio.wait_for(run.wait(), LEAK_WATCHDOG)

    try:
        run, frames, result = arun(main)
        assert alive(pids[1])
        assert (result.verdict, result.exit_code, frames[-1].type) == ("ok", 0, "turn_done")
        assert_reaped(run)
        assert_no_process_left(run.pid, pids[0])
    finally:
        for pid in pids[1:]:
            kill_quietly(pid)


# ---- the child exits without a terminal frame ----


@pytest.mark.parametrize("case", list(NO_TERMINAL))
def test_exit_without_a_terminal_frame(case: str) -> None:
    argv, code, verdict, violations = NO_TERMINAL[case]
    with hep.spawn(argv) as run, Watchdog(run.pid):
        list(run)
        result = run.wait()
    assert (result.verdict, result.exit_code) == (verdict, code)
    assert [(v.code, v.severity) for v in result.violations] == violations
    assert result.conforms == all(severity == "warning" for _, severity in violations)
    assert_reaped(run)


@pytest.mark.parametrize("case", list(NO_TERMINAL))
def test_async_exit_without_a_terminal_frame(case: str) -> None:
    argv, code, verdict, violations = NO_TERMINAL[case]

    async def main() -> Any:
        async with await hep.aspawn(argv) as run:
            return run, await run.wait()

    run, result = arun(main)
    assert (result.verdict, result.exit_code) == (verdict, code)
    assert [(v.code, v.severity) for v in result.violations] == violations
    assert result.conforms == all(severity == "warning" for _, severity in violations)
    assert_reaped(run)


# ---- an overall timeout ----


def test_timeout_cancels_a_run_that_takes_too_long(hep_bin: Path) -> None:
    argv = simulate(hep_bin, "cancel-me", "1")
    with hep.spawn(argv, timeout=0.5) as run:  # cancelled after 0.5 s, as by run.cancel()
        frames = list(run)
        result = run.wait()
    assert run.timed_out
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)
    assert frames[-1].type == "cancelled"
    assert_reaped(run)


def test_timeout_reaches_a_child_whose_stdout_is_closed() -> None:
    with hep.spawn(CLOSES_STDOUT_THEN_HANGS, timeout=0.3) as run, Watchdog(run.pid) as dog:
        result = run.wait()
    assert not dog.fired
    assert run.timed_out
    check_cancelled_in_open_round(result, "timed out after 0.3 s")
    assert result.stderr_tail == "got SIGINT\n"
    assert_reaped(run)


def test_a_run_that_ends_in_time_does_not_time_out(hep_bin: Path) -> None:
    with hep.spawn(simulate(hep_bin, "chat"), timeout=WATCHDOG) as run:
        result = run.wait()
    assert not run.timed_out
    assert result.verdict == "ok"


def test_async_timeout(hep_bin: Path) -> None:
    async def main() -> Any:
        async with await hep.aspawn(argv, timeout=0.5) as run:  # cancelled after 0.5 s
            frames = [frame async for frame in run]
            result = await run.wait()
        return run, frames, result

    argv = simulate(hep_bin, "cancel-me", "1")
    run, frames, result = arun(main)
    assert run.timed_out
    assert (result.verdict, result.exit_code, frames[-1].type) == ("cancelled", 130, "cancelled")
    assert_reaped(run)


def test_async_run_that_ends_in_time_does_not_time_out(hep_bin: Path) -> None:
    async def main() -> Any:
        async with await hep.aspawn(simulate(hep_bin, "chat"), timeout=WATCHDOG) as run:
            return run, await run.wait()

    run, result = arun(main)
    assert (run.timed_out, result.verdict) == (False, "ok")


@pytest.mark.parametrize(("timeout", "error"), [(-1, ValueError), (float("nan"), ValueError), ("5", TypeError)])
def test_a_bad_timeout_is_refused_before_the_start(timeout: Any, error: type) -> None:
    with pytest.raises(error, match="timeout"):
        hep.spawn(["true"], timeout=timeout)
    with pytest.raises(error, match="timeout"):
        arun(lambda: hep.aspawn(["true"], timeout=timeout))
