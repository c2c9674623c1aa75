"""One test body for `hep.spawn` and `hep.aspawn`: `MODES` to parametrize over, and
`run_through`, which runs a consumer written once against either (the asyncio one through
`AsyncView`); `PATIENT`, a harness that waits to be cancelled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, List, Tuple

import hep

from supervise_support import CANCELLED, HEADER, PY, START, WATCHDOG, Watchdog, anext_within, arun

MODES = ["sync", "async"]
MESSAGE_START = '{"type":"message_start","turn_id":1,"role":"assistant"}'


def blocked_writing(pid: int) -> bool:
    """Whether `pid` sleeps in a write to a full pipe (Linux's /proc/PID/wchan)."""
    try:
        return "pipe_write" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


def run_through(mode: str, argv: Any, consume: Any, **options: Any) -> Tuple[Any, hep.RunResult]:
    """Runs `argv` with `spawn` or `aspawn` and `options`; `consume(run)` (a plain function
    for both: for `aspawn` it gets a `Sync` view whose calls run the coroutines) does the
    test's part inside the `with` block; returns what it returned and the result."""
    if mode == "sync":
        with hep.spawn(argv, **options) as run, Watchdog(run.pid) as dog:
            got = consume(run)
            result = run.wait()
        assert not dog.fired
        return got, result

    async def main() -> Tuple[Any, hep.RunResult]:
        async with await hep.aspawn(argv, **options) as run:
            got = await consume(AsyncView(run))
            return got, await asyncio.wait_for(run.wait(), WATCHDOG)

    return arun(main)


class AsyncView:
    """An `AsyncRun` with the awaitables a consumer written for both modes needs."""

    def __init__(self, run: hep.AsyncRun) -> None:
        self.run = run
        self.pid = run.pid

    async def next(self) -> Any:
        return await anext_within(self.run)

    async def rest(self) -> List[Any]:
        return [frame async for frame in self.run]

    async def cancel(self, grace: Any = None) -> None:
        await asyncio.wait_for(self.run.cancel(grace), WATCHDOG)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


# A harness that writes its pid to $1.pid, a turn's start, then waits; SIGINT makes it write
# `cancelled`, note it in $1.sigint and exit 130.
PATIENT = [
    PY,
    "-c",
    f"""
import os, signal, sys, time
stop = []
signal.signal(signal.SIGINT, lambda *_: stop.append(1))
print('{HEADER}\\n{START}', flush=True)
deadline = time.monotonic() + 30
while not stop and time.monotonic() < deadline:
    time.sleep(0.01)
if stop:
    open(sys.argv[1] + ".sigint", "w").close()
print('{CANCELLED}', flush=True)
sys.exit(130)
""",
]
