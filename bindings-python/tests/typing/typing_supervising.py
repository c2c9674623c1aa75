"""The public API used the way a user would, for `mypy --strict` (and Python 3.10+ to run):
supervising a harness (`spawn`, `aspawn`, `Supervisor`) and reading its `RunResult`.

`mypy --strict bindings-python/tests/typing` checks that the stubs and the package give
precise types: `assert_type` pins what the API returns. Run as a script, it exercises
the same code against the real extension and checks the results:

    .venv/bin/python bindings-python/tests/typing/typing_supervising.py

Importing it does nothing. The regions between `# START name` and `# END name` are the
snippets of docs/python.md (checked by scripts/check_docs.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

from typing_extensions import Literal, assert_type

import hep

from typing_reading import SAVED

EMIT = Path(__file__).resolve().parents[3] / "examples" / "python" / "emit.py"


# -- supervising ------------------------------------------------------------------------


def quickstart_example(argv: Sequence[str]) -> hep.RunResult:
    # START quickstart
    run = hep.spawn(argv)  # e.g. ["hep", "simulate", "--scenario", "tools"]
    for frame in run:
        match frame:
            case hep.MessageDelta(delta=text):
                print(hep.sanitize(text), end="", flush=True)
            case hep.ToolStart(name=name, args_summary=args):
                print(f"\n⚙ {hep.sanitize(name)}({hep.sanitize(args)})")
    result = run.wait()
    print(result.verdict, result.answer, result.usage)
    # END quickstart
    return result


def spawn_example(argv: Sequence[str]) -> hep.RunResult:
    # START spawn
    run = hep.spawn(argv)  # e.g. ["fa", "--output", "events", "-p", "fix the failing test"]
    print("child pid", run.pid)
    for frame in run:  # each frame as soon as its line is complete
        print(frame.type)
    result = run.wait()  # reads the rest, reaps the child, judges the run
    print(result.verdict, run.violations)
    # END spawn
    assert_type(run, hep.Run)
    return result


def cancel_example(argv: Sequence[str]) -> hep.RunResult:
    # START cancel
    with hep.spawn(argv) as run:  # leaving the block cancels a child still running
        for frame in run:
            if isinstance(frame, hep.ToolStart) and frame.name == "read":
                run.cancel()  # SIGINT to its group; SIGTERM, SIGKILL after grace periods
        result = run.wait()
    print(result.verdict, result.exit_code)  # "cancelled" 130 if it was still running
    # END cancel
    return result


def graces_example(argv: Sequence[str]) -> hep.RunResult:
    # START graces
    # A harness known to settle within 3 s after SIGINT: SIGTERM after 3 s, SIGKILL 1 s later.
    with hep.spawn(argv, interrupt_grace=3.0, terminate_grace=1.0) as run:
        print(run.interrupt_grace, run.terminate_grace)  # 3.0 1.0 (defaults: 12.0 2.0)
        next(run)  # the header
        run.cancel()  # SIGINT now, SIGTERM 3 s later if it still runs, SIGKILL 1 s after
        result = run.wait()
    print(result.verdict, result.exit_code)  # cancelled 130
    # END graces
    assert_type(run.interrupt_grace, float)
    return result


def idle_example(argv: Sequence[str]) -> hep.RunResult:
    # START idle
    # No frame for 5 minutes (heartbeats count, stderr does not): cancelled, as by cancel().
    with hep.spawn(argv, idle_timeout=300.0) as run:
        for frame in run:
            print(frame.type)
        result = run.wait()
    if run.cancelled_by == "idle":  # or "user", "timeout"; None if nobody cancelled
        print(result.reasons[0])  # "the supervisor cancelled the run: idle for 300 s: no frame"
    # END idle
    assert_type(run.cancelled_by, Optional[Literal["user", "timeout", "idle"]])
    return result


def stderr_example(argv: Sequence[str]) -> List[str]:
    # START stderr
    lines: List[str] = []
    with hep.spawn(argv, on_stderr=lines.append) as run:  # each line as it comes
        for frame in run:
            print(frame.type, lines)  # the stderr lines so far
        result = run.wait()
    print(result.stderr_tail)  # and the last 64 KiB of it, as text
    # END stderr
    return lines


def stdin_example(argv: Sequence[str]) -> hep.RunResult:
    # START stdin
    with hep.spawn(argv, stdin=subprocess.PIPE) as run:  # or a file; default DEVNULL
        assert run.stdin is not None
        run.stdin.write(b"fix the failing test\n")
        run.stdin.close()
        result = run.wait()
    # END stdin
    return result


def supervision_example(result: hep.RunResult) -> None:
    # START supervision
    s = result.supervision  # None for a stream read without a supervisor
    if s is not None:
        print(s.cancelled_by, s.timed_out)  # who cancelled ("user", "timeout", "idle"), or None
        for sent in s.signals:  # the cancel's signals, e.g. SIGINT at 0.5 s
            print(sent.signal, f"at {sent.at:.3f} s")
        print(s.duration, s.stderr_tail, s.stderr_dropped, s.notices_dropped)
    # END supervision
    if s is not None:
        assert_type(s.cancelled_by, Optional[hep.CancelReason])
        assert_type(s.signals, Tuple[hep.SentSignal, ...])


def driver_example(argv: Sequence[str]) -> Optional[hep.RunResult]:
    # START driver
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert child.stdout is not None and child.stderr is not None
    out, err = child.stdout.fileno(), child.stderr.fileno()
    exited = os.pidfd_open(child.pid)  # readable once the child exits (Linux 5.3+)
    sup = hep.Supervisor(time.monotonic(), idle_timeout=300.0)
    reading = {out, err}
    while not sup.is_finished():
        due = sup.deadline()  # wake the supervisor then (at once if past), or when something happens
        wait = None if due is None else max(0.0, due - time.monotonic())
        watched = [fd for fd in reading if fd != out or not sup.is_paused()]  # paused: we are behind
        ready, _, _ = select.select(watched + ([exited] if child.returncode is None else []), [], [], wait)
        now = time.monotonic()
        for fd in ready:
            if fd == exited:
                sup.exited(now, child.wait())  # the returncode: -N for a signal
            elif data := os.read(fd, 65536):
                (sup.stdout if fd == out else sup.stderr)(now, data)
            else:
                reading.discard(fd)
                (sup.stdout_closed if fd == out else sup.stderr_closed)(now)
        sup.tick(now)  # the current time, even when the deadline was earlier
        while (event := sup.poll_event()) is not None:  # a frame, a Violation, a SkippedLine
            print(event)  # (or the HepError that halted a strict stream)
        while (line := sup.poll_stderr()) is not None:
            print("stderr:", line)
        while (action := sup.poll_action()) is not None:
            if action.signal is not None:  # a step of a cancel, or SIGKILL once it exited
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, action.signal)
            elif action.kind == "close_pipes":  # the drain after the exit is over
                reading.clear()
            # "pause_stdout", "resume_stdout": `watched` follows sup.is_paused()
    os.close(exited)
    child.stdout.close()
    child.stderr.close()
    result = sup.result()  # a hep.RunResult, with its supervision
    # END driver
    assert_type(sup.poll_action(), Optional[hep.SupervisorAction])
    assert_type(sup.poll_stderr(), Optional[str])
    assert_type(sup.deadline(), Optional[float])
    assert_type(sup.cancelled_by(), Optional[hep.CancelReason])
    assert_type(sup.is_cancelling(), bool)
    assert_type(sup.is_stdout_open(), bool)
    assert_type(sup.drop_at_bytes(), int)
    sup.set_consumer(time.monotonic(), False)
    sup.exited(time.monotonic(), None)  # how it ended is unknown
    event = sup.poll_event()
    assert_type(event, Union[hep.Frame, hep.Violation, hep.SkippedLine, hep.HepError, None])
    return result


def warnings_example(result: hep.RunResult) -> List[str]:
    # START warnings
    for v in result.violations:
        if v.severity == "error":  # the protocol is broken: result.conforms is False
            print(f"error   line {v.line}: {v.code}: {v.message}")
        else:  # a path the reference takes (a signal between rounds, ...): judged, not wrong
            print(f"warning turn {v.turn_id}: {v.code}: {v.message}")
    # END warnings
    return [f"{v.severity} {v.code}" for v in result.violations]


def result_example(result: hep.RunResult) -> None:
    # START result
    print(result.verdict)  # "ok", "failed", "cancelled", "incomplete" or "protocol_error"
    print(result.reasons)  # why, as sentences
    print(result.exit_code, result.conforms)  # the child's exit code; no protocol errors?
    print(result.answer)  # the user-visible answer: the last round's message
    print(result.usage.input, result.usage.output, result.usage.cost)  # totals
    for turn in result.turns:  # each round: text, tools, end ("turn_done", ...), usage
        print(turn.turn_id, turn.end, turn.text, turn.stop_reason, turn.usage)
    for call in result.tool_calls:  # every tool call, in order
        print(call.name, call.args_summary, call.status, call.output, call.result)
    for v in result.violations:
        print(v.line, v.severity, v.code, v.message)
    for s in result.skipped:
        print(s.line, s.kind, s.message)
    print(result.frames, result.lines, result.stderr_tail)
    # END result
    assert_type(result.verdict, Literal["ok", "failed", "cancelled", "incomplete", "protocol_error"])
    assert_type(result.verdict, hep.Verdict)
    assert_type(result.reasons, Tuple[str, ...])
    assert_type(result.exit_code, Optional[int])
    assert_type(result.answer, Optional[str])
    assert_type(result.usage, hep.Usage)
    assert_type(result.turns, Tuple[hep.Turn, ...])
    assert_type(result.tool_calls, List[hep.ToolCall])
    assert_type(result.violations, Tuple[hep.Violation, ...])
    assert_type(result.skipped, Tuple[hep.SkippedLine, ...])
    assert_type(result.halted, Optional[hep.SkippedLine])
    for v in result.violations:
        assert_type(v.severity, Literal["error", "warning"])
    for call in result.tool_calls:
        assert_type(call.status, Literal["running", "ok", "failed"])
        assert_type(call.last_liveness, Optional[hep.Liveness])
        assert_type(call.followups, Tuple[hep.Liveness, ...])


async def aspawn_example(argv: Sequence[str]) -> hep.RunResult:
    # START aspawn
    run = await hep.aspawn(argv)
    async with run:  # leaving the block cancels a child still running
        async for frame in run:
            if isinstance(frame, hep.MessageDelta):
                print(frame.delta, end="")
        result = await run.wait()
    # END aspawn
    assert_type(run, hep.AsyncRun)
    return result


async def atimeout_example(argv: Sequence[str]) -> hep.RunResult:
    # START atimeout
    async with await hep.aspawn(argv, on_stderr=lambda line: print("stderr:", line)) as run:
        try:
            async with asyncio.timeout(600):  # Python 3.11; cancelling the task cancels the child
                async for frame in run:
                    print(frame.type)
        except TimeoutError:
            print("cancelled after 10 minutes:", run.cancelled_by)  # "user": a cancelled task
        result = await run.wait()
    # END atimeout
    return result


# -- running it -------------------------------------------------------------------------


def main() -> None:
    argv = [sys.executable, str(EMIT)]
    assert quickstart_example(argv).verdict == "ok"
    result = spawn_example(argv)
    assert result.verdict == "ok" and result.exit_code == hep.EXIT_OK and result.answer
    result_example(result)
    cancelled = cancel_example(argv)
    assert cancelled.verdict in ("ok", "cancelled"), cancelled
    cancelled = graces_example(argv)
    assert (cancelled.verdict, cancelled.exit_code, cancelled.conforms) == ("cancelled", 130, True)
    assert idle_example(argv).verdict == "ok"
    noisy = ["sh", "-c", 'echo "warming up" >&2; exec "$0" "$1"', sys.executable, str(EMIT)]
    assert stderr_example(noisy) == ["warming up"]
    echo = [sys.executable, "-c", "import sys; sys.stderr.write(sys.stdin.read()); import runpy; runpy.run_path(sys.argv[1], run_name='__main__')", str(EMIT)]
    fed = stdin_example(echo)
    assert (fed.verdict, fed.stderr_tail) == ("ok", "fix the failing test\n")
    supervision_example(fed)
    if hasattr(os, "pidfd_open"):
        own = driver_example(argv)
        assert own is not None and own.verdict == "ok" and own.supervision is not None

    # The spec's example stream, then exit 130: a signal after the last round, which the
    # reference answers with no `cancelled` frame. Cancelled, the answer kept, one warning.
    stream = hep.Stream()
    stream.feed(SAVED)
    between = stream.finish(exit_code=hep.EXIT_CANCELLED)
    assert (between.verdict, between.answer, between.conforms) == ("cancelled", "done reading", True)
    assert warnings_example(between) == ["warning cancelled_between_rounds"]
    result = asyncio.run(aspawn_example(argv))
    assert result.verdict == "ok" and len(result.turns) == 2 and len(result.tool_calls) == 1
    assert asyncio.run(atimeout_example(noisy)).verdict == "ok"
    print("\ntyping_supervising: all good")


if __name__ == "__main__":
    main()
