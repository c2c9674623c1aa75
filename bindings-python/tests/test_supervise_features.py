"""What supervisor authors asked for (issue 13), with real children, for `hep.spawn` and
`hep.aspawn` alike: a cancel keeps reading; `idle_timeout` (its clock stopped while a slow
consumer holds stdout paused); a run only waited for reads on past the pause threshold (the
consumer detached), keeping its frames up to the drop threshold; an exit something else
reaped is judged without an exit code; live stderr (`on_stderr`); no orphans when the
supervisor goes away (interpreter exit, an uncaught exception, a deadly signal); a `str`
argv is one program; `stdin`; a cancelled asyncio task cancels the child; a second cancel
escalates at once. Every wait is bounded: a test that goes wrong fails, it never hangs.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, List, Tuple

import pytest

import hep

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)

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


# ---- no orphans when the supervisor goes away ----

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

# The supervisor: starts PATIENT with `spawn` or `aspawn`, reads its first frame, prints the
# child's pid, then ends as told: `return` (normal exit, run not waited for), `raise` (an
# uncaught exception, no `with`), `with-raise` (an exception leaving the `with` block),
# `sleep` (waits for a signal), `own-handler` (a SIGTERM handler of its own that exits).
SUPERVISOR = """
import asyncio, os, signal, sys, time
import hep

mode, end, base = sys.argv[1], sys.argv[2], sys.argv[3]
argv = json_argv = __import__("json").loads(sys.argv[4]) + [base]
if end == "own-handler":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))

def ready(run):
    print(run.pid, flush=True)
    if end in ("sleep", "own-handler"):
        time.sleep(30)
    if end in ("raise", "with-raise"):
        raise RuntimeError("the supervisor fails")

if mode == "sync":
    run = hep.spawn(argv)
    next(run)
    if end == "with-raise":
        with run:
            ready(run)
    ready(run)
else:
    async def main():
        run = await hep.aspawn(argv)
        await run.__anext__()
        if end == "with-raise":
            async with run:
                ready(run)
        ready(run)
    asyncio.run(main())
"""


def supervise_and_end(mode: str, end: str, base: Path, send: Any = None) -> Tuple[int, int]:
    """Runs SUPERVISOR; `send` (a signal) is sent once it has printed the child's pid.
    Returns the supervisor's return code and the child's pid."""
    proc = subprocess.Popen(
        [PY, "-c", SUPERVISOR, mode, end, str(base), json.dumps(PATIENT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline() or 0)
        assert child, proc.stderr.read().decode() if proc.stderr else ""
        if send is not None:
            proc.send_signal(send)
        proc.wait(WATCHDOG)
    finally:
        proc.kill()
        proc.wait()
    return proc.returncode, child


ENDS = {
    # how it ends: (signal sent, the supervisor's return code)
    "return": (None, 0),
    "raise": (None, 1),
    "with-raise": (None, 1),
    "sleep": (signal.SIGTERM, -signal.SIGTERM),
    "own-handler": (signal.SIGTERM, 3),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("end", list(ENDS))
def test_children_are_cancelled_when_the_supervisor_goes_away(mode: str, end: str, tmp_path: Path) -> None:
    send, code = ENDS[end]
    base = tmp_path / "child"
    returncode, child = supervise_and_end(mode, end, base, send)
    try:
        assert returncode == code
        assert Path(f"{base}.sigint").exists(), "the child never got SIGINT"
        assert_no_process_left(child, child)
    finally:
        kill_quietly(child)


def test_sighup_cancels_the_children_too(tmp_path: Path) -> None:
    base = tmp_path / "child"
    returncode, child = supervise_and_end("sync", "sleep", base, signal.SIGHUP)
    try:
        assert returncode == -signal.SIGHUP
        assert Path(f"{base}.sigint").exists()
        assert_no_process_left(child, child)
    finally:
        kill_quietly(child)


HANDLERS = """
import signal
import hep

def show():
    return [getattr(h, "__name__", "default") for h in map(signal.getsignal, (signal.SIGTERM, signal.SIGHUP))]

mine = lambda *_: None
signal.signal(signal.SIGHUP, mine)  # a handler of the program's own
hep.spawn(["true"]).wait()
print(show())
signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the opt-out: the default set back
hep.spawn(["true"]).wait()
print(show())
"""


def test_the_signal_handlers_leave_the_programs_own_and_an_opt_out_alone() -> None:
    out = subprocess.run([PY, "-c", HANDLERS], capture_output=True, check=True, timeout=WATCHDOG).stdout
    assert out.decode().splitlines() == ["['_on_signal', '<lambda>']", "['default', '<lambda>']"]


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
