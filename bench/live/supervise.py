"""The Python supervisors of `make bench-live` (bench/live/run.sh runs them; see the
"Live latency and many runs" section of bench/README.md).

    python supervise.py sync|async latency --frames N -- CHILD [ARGS...]
    python supervise.py async many --runs R --expect F -- CMD [ARGS...]

`latency` runs the child once under `hep.spawn` (sync) or `hep.aspawn` (async) and, for
each timed frame (a `message_delta` or `tool_delta` whose text starts with the
CLOCK_MONOTONIC time it was written, see rust/child.rs), records how long after its
writing the `for` loop got it. `many` runs R copies of CMD at once under `hep.aspawn` in
one event loop, reading every frame's type, and reports the wall time, the process's CPU
time (getrusage), the frames delivered, the peak of its thread count (/proc/self/status,
sampled every 5 ms on the loop) and how many runs ended with verdict ok and F frames.
Each prints one JSON line for live.py.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from typing import Any, List, Optional

import hep


def sent_ns(frame: Any) -> Optional[int]:
    """The time a timed frame was written, from the start of its text."""
    if isinstance(frame, hep.MessageDelta):
        text = frame.delta
    elif isinstance(frame, hep.ToolDelta):
        text = frame.update
    else:
        return None
    return int(text.split(" ", 1)[0])


def report(verdict: str, frames: int, latencies: List[int]) -> None:
    print(json.dumps({"verdict": verdict, "expected": frames, "bad": 0, "latencies_ns": latencies}))


def latency_sync(command: List[str], frames: int) -> None:
    latencies: List[int] = []
    with hep.spawn(command) as run:
        for frame in run:
            now = time.monotonic_ns()
            sent = sent_ns(frame)
            if sent is not None:
                latencies.append(now - sent)
        result = run.wait()
    report(result.verdict, frames, latencies)


async def latency_async(command: List[str], frames: int) -> None:
    latencies: List[int] = []
    async with await hep.aspawn(command) as run:
        async for frame in run:
            now = time.monotonic_ns()
            sent = sent_ns(frame)
            if sent is not None:
                latencies.append(now - sent)
        result = await run.wait()
    report(result.verdict, frames, latencies)


def threads() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    raise RuntimeError("/proc/self/status has no Threads line")


async def many(command: List[str], runs: int, expect: int) -> None:
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_SELF)
    totals = {"frames": 0, "ok": 0}
    peak = threads()

    async def one() -> None:
        seen = 0
        run = await hep.aspawn(command)
        async for frame in run:
            frame.type  # what a supervisor does with a frame: look at it
            seen += 1
        result = await run.wait()
        totals["frames"] += seen
        totals["ok"] += result.verdict == "ok" and seen == expect

    async def sample() -> None:
        nonlocal peak
        while True:
            peak = max(peak, threads())
            await asyncio.sleep(0.005)

    sampler = asyncio.create_task(sample())
    await asyncio.gather(*(one() for _ in range(runs)))
    sampler.cancel()
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "runs": runs,
                "ok": totals["ok"],
                "frames": totals["frames"],
                "wall_s": round(wall, 3),
                "cpu_s": round(usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime, 4),
                "peak_threads": max(peak, threads()),
            }
        )
    )


def main(args: List[str]) -> None:
    usage = "usage: supervise.py sync|async latency --frames N -- CHILD... | async many --runs R --expect F -- CMD..."
    if "--" not in args:
        sys.exit(usage)
    split = args.index("--")
    head, command = args[:split], args[split + 1 :]
    if not command:
        sys.exit("no command after --")
    match head:
        case ["sync", "latency", "--frames", n]:
            latency_sync(command, int(n))
        case ["async", "latency", "--frames", n]:
            asyncio.run(latency_async(command, int(n)))
        case ["async", "many", "--runs", r, "--expect", f]:
            asyncio.run(many(command, int(r), int(f)))
        case _:
            sys.exit(f"unknown arguments {head} ({usage})")


if __name__ == "__main__":
    main(sys.argv[1:])
