"""The child's I/O,
with real children, for `hep.spawn` and `hep.aspawn` alike (issue 13). Every wait is
bounded: a test that goes wrong fails, it never hangs.
Live stderr (`on_stderr`); a `str` argv is one program; `stdin`; without a pidfd a
thread sees the exit."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from pathlib import Path
from typing import Any, List

import pytest

import hep

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)
from supervise_modes import *  # noqa: F401,F403  (one test body for spawn and aspawn)


# ---- live stderr ----

# Writes a stderr line, then waits for the file $1 before a second one and its turn's end.
STDERR_THEN_WAIT = [
    PY,
    "-c",
    f"""
import os, sys, time
print('{HEADER}\\n{START}', flush=True)
print("first line", file=sys.stderr, flush=True)
sys.stderr.write("no newline yet")
sys.stderr.flush()
deadline = time.monotonic() + 30
while not os.path.exists(sys.argv[1]) and time.monotonic() < deadline:
    time.sleep(0.01)
print(", now one\\nlast line", file=sys.stderr, flush=True)
print('{DONE}', flush=True)
""",
]


def test_stderr_lines_reach_on_stderr_while_the_child_runs(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    lines: List[str] = []
    first = threading.Event()

    def on_stderr(line: str) -> None:
        lines.append(line)
        first.set()

    with hep.spawn(STDERR_THEN_WAIT + [str(flag)], on_stderr=on_stderr) as run, Watchdog(run.pid) as dog:
        # Nobody iterates: the run's reader thread hands the line over by itself.
        assert first.wait(WATCHDOG), "no stderr line arrived while the child was running"
        assert lines == ["first line"] and alive(run.pid) and not flag.exists()
        flag.touch()
        result = run.wait()
    assert not dog.fired
    assert lines == ["first line", "no newline yet, now one", "last line"]
    assert result.verdict == "ok"
    assert result.stderr_tail == "first line\nno newline yet, now one\nlast line\n"


def test_async_stderr_lines_reach_on_stderr_while_the_child_runs(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    lines: List[str] = []

    async def main() -> hep.RunResult:
        first = asyncio.Event()

        def on_stderr(line: str) -> None:
            lines.append(line)
            first.set()

        async with await hep.aspawn(STDERR_THEN_WAIT + [str(flag)], on_stderr=on_stderr) as run:
            await asyncio.wait_for(first.wait(), WATCHDOG)  # the loop reads without us
            assert lines == ["first line"] and alive(run.pid) and not flag.exists()
            flag.touch()
            return await asyncio.wait_for(run.wait(), WATCHDOG)

    result = arun(main)
    assert lines == ["first line", "no newline yet, now one", "last line"]
    assert result.verdict == "ok"


@pytest.mark.parametrize("mode", MODES)
def test_a_failing_on_stderr_is_raised_by_the_next_call(mode: str, tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    flag.touch()
    calls: List[str] = []

    def on_stderr(line: str) -> None:
        calls.append(line)
        raise KeyError(line)

    argv = STDERR_THEN_WAIT + [str(flag)]
    if mode == "sync":
        run = hep.spawn(argv, on_stderr=on_stderr)
        with pytest.raises(KeyError, match="first line"):
            run.wait(timeout=WATCHDOG)
        result = run.wait(timeout=WATCHDOG)
    else:

        async def main() -> hep.RunResult:
            run = await hep.aspawn(argv, on_stderr=on_stderr)
            with pytest.raises(KeyError, match="first line"):
                await asyncio.wait_for(run.wait(), WATCHDOG)
            return await asyncio.wait_for(run.wait(), WATCHDOG)

        result = arun(main)
    assert calls == ["first line"], "a callback that failed is not called again"
    assert result.verdict == "ok" and result.stderr_tail.endswith("last line\n")


# ---- argv, stdin ----


def test_a_str_argv_is_one_program_without_arguments(tmp_path: Path) -> None:
    program = tmp_path / "an emitter"  # a space: split, it would be two words
    program.write_text(f"#!/bin/sh\nprintf '%s\\n' '{HEADER}' '{START}' '{DONE}'\necho \"$#\" >&2\n")
    program.chmod(0o755)
    for argv in (str(program), program):
        with hep.spawn(argv) as run:
            result = run.wait(timeout=WATCHDOG)
        assert (result.verdict, result.stderr_tail.splitlines()[-1]) == ("ok", "0")

    async def main() -> hep.RunResult:
        async with await hep.aspawn(str(program)) as run:
            return await run.wait()

    assert arun(main).verdict == "ok"


# Reads all of stdin and writes it back as the text of its turn.
ECHO = [
    PY,
    "-c",
    f"""
import json, sys
data = sys.stdin.read()
print('{HEADER}\\n{START}', flush=True)
print(json.dumps({{"type": "message_delta", "turn_id": 1, "delta": data}}), flush=True)
print('{DONE}', flush=True)
""",
]


def echoed(frames: List[Any]) -> str:
    return "".join(f.delta for f in frames if isinstance(f, hep.MessageDelta))


def test_stdin_is_devnull_by_default_a_pipe_or_a_file(tmp_path: Path) -> None:
    with hep.spawn(ECHO) as run:
        assert run.stdin is None
        assert echoed(list(run)) == ""
    with hep.spawn(ECHO, stdin=subprocess.PIPE) as run:
        assert run.stdin is not None
        run.stdin.write(b"through the pipe\n")
        run.stdin.close()
        assert echoed(list(run)) == "through the pipe\n"
    path = tmp_path / "input"
    path.write_text("from a file")
    with path.open("rb") as file, hep.spawn(ECHO, stdin=file) as run:
        assert echoed(list(run)) == "from a file"
        assert run.wait().verdict == "ok"


def test_async_stdin_is_a_stream_writer_with_pipe(tmp_path: Path) -> None:
    path = tmp_path / "input"
    path.write_text("from a file")

    async def main() -> List[str]:
        texts = []
        async with await hep.aspawn(ECHO) as run:
            assert run.stdin is None
            texts.append(echoed([f async for f in run]))
        async with await hep.aspawn(ECHO, stdin=subprocess.PIPE) as run:
            assert isinstance(run.stdin, asyncio.StreamWriter)
            run.stdin.write(b"through the pipe\n")
            await run.stdin.drain()
            run.stdin.close()
            texts.append(echoed([f async for f in run]))
        with path.open("rb") as file:
            async with await hep.aspawn(ECHO, stdin=file) as run:
                texts.append(echoed([f async for f in run]))
        return texts

    assert arun(main) == ["", "through the pipe\n", "from a file"]


# ---- where there is no pidfd (macOS, old kernels): a thread waits for the exit ----


@pytest.mark.parametrize("mode", MODES)
def test_without_pidfd_a_thread_sees_the_exit(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    if hasattr(os, "pidfd_open"):
        monkeypatch.delattr(os, "pidfd_open")

    def consume(run: Any) -> Any:
        next(run)
        run.cancel(grace=0.2)
        return list(run)

    async def aconsume(view: AsyncView) -> Any:
        await view.next()
        await view.cancel(grace=0.2)
        return await view.rest()

    rest, result = run_through(mode, ONLY_SIGTERM_STOPS, consume if mode == "sync" else aconsume)
    assert [f.type for f in rest] == ["agent_start", "cancelled"]
    assert (result.verdict, result.exit_code) == ("cancelled", 130)
    assert result.supervision is not None and [s.signal for s in result.supervision.signals] == ["SIGINT", "SIGTERM"]


def test_on_stderr_cannot_wait_for_the_run_it_runs_on(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    flag.touch()
    runs: List[hep.Run] = []
    started = threading.Event()

    def on_stderr(line: str) -> None:
        started.wait(WATCHDOG)
        runs[0].wait()

    run = hep.spawn(STDERR_THEN_WAIT + [str(flag)], on_stderr=on_stderr)
    runs.append(run)
    started.set()
    with pytest.raises(RuntimeError, match="on_stderr cannot wait"):
        run.wait(timeout=WATCHDOG)
    assert run.wait(timeout=WATCHDOG).verdict == "ok"
