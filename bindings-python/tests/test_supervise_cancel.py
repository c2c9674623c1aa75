"""Cancelling,
with real children, for `hep.spawn` and `hep.aspawn` alike (issue 13). Every wait is
bounded: a test that goes wrong fails, it never hangs.
A cancel keeps reading (a child blocked on a full pipe still writes `cancelled`); a
cancelled asyncio task cancels the child; a second cancel escalates at once."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any, List, Tuple

import pytest

import hep

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)
from supervise_modes import *  # noqa: F401,F403  (one test body for spawn and aspawn)


# ---- a cancel keeps reading ----

# Floods stdout with deltas until SIGINT, then writes `cancelled` and exits 130: blocked on
# a full pipe when the signal comes, it can only end well if the supervisor reads on.
FLOOD_UNTIL_SIGINT = [
    PY,
    "-c",
    f"""
import signal, sys
stop = []
signal.signal(signal.SIGINT, lambda *_: stop.append(1))
out = sys.stdout.buffer
out.write(b'{HEADER}\\n{START}\\n{MESSAGE_START}\\n')
pad, i = b"x" * 1000, 0
while not stop:
    out.write(b'{{"type":"message_delta","turn_id":1,"delta":"%08d %s"}}\\n' % (i, pad))
    i += 1
out.write(b'{CANCELLED}\\n')
out.flush()
sys.exit(130)
""",
]


@pytest.mark.parametrize("mode", MODES)
def test_cancel_keeps_reading_a_child_blocked_on_a_full_pipe(mode: str) -> None:
    def consume(run: Any) -> Any:
        first = next(run)
        assert eventually(lambda: blocked_writing(run.pid)), "the child never filled its pipe"
        started = time.monotonic()
        run.cancel()
        return first, time.monotonic() - started, list(run)

    async def aconsume(view: AsyncView) -> Any:
        first = await view.next()
        assert eventually(lambda: blocked_writing(view.pid)), "the child never filled its pipe"
        started = time.monotonic()
        await view.cancel()
        return first, time.monotonic() - started, await view.rest()

    (first, took, rest), result = run_through(mode, FLOOD_UNTIL_SIGINT, consume if mode == "sync" else aconsume)
    assert first.type == "hep_header"
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True), result.reasons
    assert rest[-1].type == "cancelled"
    assert took < hep.INTERRUPT_GRACE, "the child needed more than SIGINT"
    supervision = result.supervision
    assert supervision is not None
    assert (supervision.cancelled_by, [s.signal for s in supervision.signals]) == ("user", ["SIGINT"])
    assert result.reasons[0] == "the supervisor cancelled the run: cancelled on request"


# ---- cancelling the asyncio task cancels the child ----


def test_a_timed_out_await_cancels_the_child(tmp_path: Path) -> None:
    base = tmp_path / "child"

    async def main() -> Tuple[hep.AsyncRun, hep.RunResult]:
        run = await hep.aspawn(PATIENT + [str(base)])
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(run.wait(), 0.3)  # cancels the awaiting task
        assert run.cancelled_by == "user"
        return run, await asyncio.wait_for(run.wait(), WATCHDOG)

    run, result = arun(main)
    assert (result.verdict, result.exit_code) == ("cancelled", 130)
    assert Path(f"{base}.sigint").exists()
    assert_no_process_left(run.pid, run.pid)


@pytest.mark.skipif(not hasattr(asyncio, "timeout"), reason="asyncio.timeout is Python 3.11+")
def test_asyncio_timeout_around_the_iteration_cancels_the_child(tmp_path: Path) -> None:
    base = tmp_path / "child"

    async def main() -> Tuple[hep.AsyncRun, List[str], hep.RunResult]:
        seen = []
        async with await hep.aspawn(PATIENT + [str(base)]) as run:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.3):  # type: ignore[attr-defined]
                    async for frame in run:
                        seen.append(frame.type)
            rest = [frame.type async for frame in run]
            return run, seen + rest, await run.wait()

    run, types, result = arun(main)
    assert types == ["hep_header", "agent_start", "cancelled"]
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)
    assert_no_process_left(run.pid, run.pid)


def test_a_cancelled_task_cancels_the_child_it_iterates(tmp_path: Path) -> None:
    base = tmp_path / "child"

    async def main() -> Tuple[hep.AsyncRun, hep.RunResult]:
        run = await hep.aspawn(PATIENT + [str(base)])

        async def consume() -> None:
            async for _ in run:
                pass

        task = asyncio.ensure_future(consume())
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return run, await asyncio.wait_for(run.wait(), WATCHDOG)

    run, result = arun(main)
    assert (result.verdict, result.exit_code) == ("cancelled", 130)
    assert Path(f"{base}.sigint").exists()


# ---- a second cancel escalates at once ----


@pytest.mark.parametrize("mode", MODES)
def test_a_second_cancel_takes_the_next_step_at_once(mode: str) -> None:
    started = time.monotonic()
    if mode == "sync":
        with hep.spawn(ONLY_SIGTERM_STOPS, interrupt_grace=60) as run, Watchdog(run.pid) as dog:
            next(run)  # its traps are set
            first = threading.Thread(target=run.cancel)  # blocks: SIGINT is ignored
            first.start()
            time.sleep(0.3)
            run.cancel()  # SIGTERM now: it writes `cancelled` and exits 130
            first.join(WATCHDOG)
            assert not first.is_alive()
            result = run.wait()
        assert not dog.fired
    else:

        async def main() -> hep.RunResult:
            async with await hep.aspawn(ONLY_SIGTERM_STOPS, interrupt_grace=60) as run:
                await anext_within(run)
                first = asyncio.ensure_future(run.cancel())
                await asyncio.sleep(0.3)
                await asyncio.wait_for(run.cancel(), WATCHDOG)
                await asyncio.wait_for(first, WATCHDOG)
                return await run.wait()

        result = arun(main)
    took = time.monotonic() - started
    assert (result.verdict, result.exit_code) == ("cancelled", 130)
    supervision = result.supervision
    assert supervision is not None
    assert [s.signal for s in supervision.signals] == ["SIGINT", "SIGTERM"]
    assert 0.3 <= supervision.signals[1].at - supervision.signals[0].at < 5
    assert took < 10
