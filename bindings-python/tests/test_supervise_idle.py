"""The idle timeout and backpressure,
with real children, for `hep.spawn` and `hep.aspawn` alike (issue 13). Every wait is
bounded: a test that goes wrong fails, it never hangs.
`idle_timeout` (its clock stopped while a slow consumer holds stdout paused); a run only
waited for reads on past the pause threshold, keeping its frames up to the drop threshold;
an exit something else reaped is judged without an exit code."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any, List

import pytest

import hep

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)
from supervise_modes import *  # noqa: F401,F403  (one test body for spawn and aspawn)


# ---- idle_timeout ----

# Writes a turn's start, then only stderr (which is no sign of life) until SIGINT, which
# makes it write `cancelled` and exit 130.
SILENT = [
    PY,
    "-c",
    f"""
import signal, sys, time
stop = []
signal.signal(signal.SIGINT, lambda *_: stop.append(1))
print('{HEADER}\\n{START}', flush=True)
deadline = time.monotonic() + 30
while not stop and time.monotonic() < deadline:
    print("working", file=sys.stderr, flush=True)
    time.sleep(0.02)
print('{CANCELLED}', flush=True)
sys.exit(130)
""",
]

# Writes a heartbeat every 0.1 s for a second, then ends its turn.
BEATING = [
    PY,
    "-c",
    f"""
import time
print('{HEADER}\\n{START}', flush=True)
for i in range(10):
    time.sleep(0.1)
    print('{{"type":"message_delta","turn_id":1,"delta":"beat %d"}}' % i, flush=True)
print('{DONE}', flush=True)
""",
]


@pytest.mark.parametrize("mode", MODES)
def test_idle_timeout_cancels_a_child_that_writes_no_frame(mode: str) -> None:
    def consume(run: Any) -> Any:
        return [f.type for f in run], run.cancelled_by, run.timed_out

    async def aconsume(view: AsyncView) -> Any:
        return [f.type for f in await view.rest()], view.run.cancelled_by, view.run.timed_out

    started = time.monotonic()
    (types, cancelled_by, timed_out), result = run_through(
        mode, SILENT, consume if mode == "sync" else aconsume, idle_timeout=0.4
    )
    took = time.monotonic() - started
    assert types == ["hep_header", "agent_start", "cancelled"]
    assert (cancelled_by, timed_out) == ("idle", False)
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)
    assert result.reasons[0] == "the supervisor cancelled the run: idle for 0.4 s: no frame"
    supervision = result.supervision
    assert supervision is not None and supervision.cancelled_by == "idle" and not supervision.timed_out
    assert [s.signal for s in supervision.signals] == ["SIGINT"]
    assert 0.4 <= supervision.signals[0].at < 0.4 + 2
    assert supervision.stderr_tail.startswith("working\n"), "stderr was written all along"
    assert took < 0.4 + 5


@pytest.mark.parametrize("mode", MODES)
def test_frames_keep_an_idle_timeout_from_firing(mode: str) -> None:
    def consume(run: Any) -> Any:
        return len(list(run))

    async def aconsume(view: AsyncView) -> Any:
        return len(await view.rest())

    count, result = run_through(mode, BEATING, consume if mode == "sync" else aconsume, idle_timeout=0.5)
    assert count == 13
    assert (result.verdict, result.exit_code) == ("ok", 0)
    assert result.supervision is not None and result.supervision.cancelled_by is None


@pytest.mark.parametrize(("value", "error"), [(-1, ValueError), (float("nan"), ValueError), ("5", TypeError), (True, TypeError)])
def test_a_bad_idle_timeout_is_refused_before_the_start(tmp_path: Path, value: Any, error: type) -> None:
    marker = tmp_path / "started"
    with pytest.raises(error, match="idle_timeout"):
        hep.spawn(["touch", str(marker)], idle_timeout=value)
    with pytest.raises(error, match="idle_timeout"):
        arun(lambda: hep.aspawn(["touch", str(marker)], idle_timeout=value))
    assert not marker.exists()


# ---- waiting only: the consumer is detached; an idle clock stopped while paused ----

# Writes its turn's start, $1 deltas of about 1 KiB as fast as the pipe takes them, then its
# turn's end; exits 0.
FLOOD_THEN_DONE = [
    PY,
    "-c",
    f"""
import sys
out = sys.stdout.buffer
out.write(b'{HEADER}\\n{START}\\n{MESSAGE_START}\\n')
pad = b"x" * 1000
for i in range(int(sys.argv[1])):
    out.write(b'{{"type":"message_delta","turn_id":1,"delta":"%08d %s"}}\\n' % (i, pad))
out.write(b'{DONE}\\n')
""",
]


def flood(deltas: int) -> List[str]:
    return FLOOD_THEN_DONE + [str(deltas)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("first", [False, True], ids=["waits-at-once", "waits-once-paused"])
def test_a_run_only_waited_for_reads_on_past_the_pause_threshold(mode: str, first: bool) -> None:
    """`wait()` with no iteration under way: the consumer is detached, so stdout is never
    paused (and a pause already in effect ends); the frames stay for a later loop."""
    deltas = 3 * hep.PAUSE_AT_BYTES // 1000  # about 3 MiB: past the pause threshold

    def consume(run: Any) -> Any:
        taken = [next(run)] if first else []
        if first:  # attached: the run pauses stdout for us and the child blocks
            assert eventually(lambda: blocked_writing(run.pid)), "the child was never paused for its consumer"
        result = run.wait(timeout=WATCHDOG)
        return taken + list(run), result

    async def aconsume(view: AsyncView) -> Any:
        taken = [await view.next()] if first else []
        if first:
            started = time.monotonic()
            while not blocked_writing(view.pid) and time.monotonic() - started < 5:
                await view.sleep(0.02)
            assert blocked_writing(view.pid), "the child was never paused for its consumer"
        result = await asyncio.wait_for(view.run.wait(), WATCHDOG)
        return taken + await view.rest(), result

    (frames, waited), result = run_through(mode, flood(deltas), consume if mode == "sync" else aconsume)
    assert waited is result
    assert (result.verdict, result.exit_code, result.answer) == ("ok", 0, "hi")
    assert result.supervision is not None and result.supervision.notices_dropped == 0
    assert len(frames) == 3 + deltas + 1 and frames[-1].type == "turn_done"
    assert [f.delta[:8] for f in frames[3:-1]] == [f"{i:08d}" for i in range(deltas)]


@pytest.mark.parametrize("mode", MODES)
def test_frames_past_the_drop_threshold_are_counted_not_kept(mode: str) -> None:
    """Waited for without iterating, a run keeps at most `drop_at_bytes()` of frames (16 ×
    PAUSE_AT_BYTES); the rest are counted, and the verdict still weighs them."""
    deltas = 20 * hep.PAUSE_AT_BYTES // 1000  # about 20 MiB, past 16 MiB

    def consume(run: Any) -> Any:
        return run.wait(timeout=WATCHDOG), list(run)

    async def aconsume(view: AsyncView) -> Any:
        return await asyncio.wait_for(view.run.wait(), WATCHDOG), await view.rest()

    (_, kept), result = run_through(mode, flood(deltas), consume if mode == "sync" else aconsume)
    assert (result.verdict, result.exit_code, result.answer) == ("ok", 0, "hi")
    supervision = result.supervision
    assert supervision is not None and supervision.notices_dropped > 0
    assert len(kept) + supervision.notices_dropped == 3 + deltas + 1
    assert 16 * hep.PAUSE_AT_BYTES <= sum(len(f.raw) + 64 for f in kept) <= 17 * hep.PAUSE_AT_BYTES


@pytest.mark.parametrize("mode", MODES)
def test_an_idle_timeout_does_not_fire_while_a_slow_consumer_holds_stdout_paused(mode: str) -> None:
    """The child is held up by its consumer, not idle: the idle clock stops while stdout is
    paused, and runs on from where it stopped once the consumer catches up."""
    deltas = 3 * hep.PAUSE_AT_BYTES // 1000

    def consume(run: Any) -> Any:
        first = next(run)
        assert eventually(lambda: blocked_writing(run.pid)), "the child was never paused for its consumer"
        time.sleep(1.5)  # three idle timeouts without taking a frame
        return [first] + list(run), run.cancelled_by

    async def aconsume(view: AsyncView) -> Any:
        first = await view.next()
        started = time.monotonic()
        while not blocked_writing(view.pid) and time.monotonic() - started < 5:
            await view.sleep(0.02)
        assert blocked_writing(view.pid), "the child was never paused for its consumer"
        await view.sleep(1.5)
        return [first] + await view.rest(), view.run.cancelled_by

    (frames, cancelled_by), result = run_through(
        mode, flood(deltas), consume if mode == "sync" else aconsume, idle_timeout=0.5
    )
    assert cancelled_by is None
    assert (result.verdict, result.exit_code) == ("ok", 0), result.reasons
    assert result.supervision is not None and result.supervision.signals == ()
    assert len(frames) == 3 + deltas + 1


# ---- an exit something else reaped ----

# Ends its turn, then exits 3: a known exit code would weigh in the verdict.
DONE_THEN_EXIT_3 = [PY, "-c", f"import sys\nprint('{HEADER}\\n{START}\\n{DONE}', flush=True)\nsys.exit(3)"]


@pytest.mark.parametrize("mode", MODES + ["sync-without-pidfd"])
def test_an_exit_reaped_by_something_else_is_judged_without_an_exit_code(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With SIGCHLD ignored the kernel reaps the child itself, so its exit status is lost
    (`Popen.wait()` would say 0): the supervisor is told the exit is unknown."""
    import os

    if mode == "sync-without-pidfd" and hasattr(os, "pidfd_open"):
        monkeypatch.delattr(os, "pidfd_open")
    mode = mode.removesuffix("-without-pidfd")

    def nothing(run: Any) -> Any:
        return None

    async def anothing(view: AsyncView) -> Any:
        return None

    def supervise() -> hep.RunResult:
        return run_through(mode, DONE_THEN_EXIT_3, nothing if mode == "sync" else anothing)[1]

    known = supervise()
    assert (known.verdict, known.exit_code) == ("incomplete", 3), known.reasons  # "crashed or killed"
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        unknown = supervise()
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert (unknown.verdict, unknown.exit_code) == ("ok", None), unknown.reasons
    assert unknown.reasons == ("turn 1 finished with turn_done",)
