"""The public API used the way a user would, for `mypy --strict` (and Python 3.10+ to run).

`mypy --strict bindings-python/tests/typing` checks that the stubs and the package give
precise types: `assert_type` pins what the API returns, and each line in `_rejected` must
be an error (an unneeded `# type: ignore` fails under --strict). Run as a script, it
exercises the same code against the real extension and checks the results:

    .venv/bin/python bindings-python/tests/typing/typing_usage.py

Importing it does nothing. The regions between `# START name` and `# END name` are the
snippets of docs/python.md (checked by scripts/check_docs.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from typing_extensions import Literal, assert_never, assert_type

import hep

EMIT = Path(__file__).resolve().parents[3] / "examples" / "python" / "emit.py"
"""The toy harness of examples/python: a conforming two-round stream, exit 0."""

SAVED = (
    b'{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}\n'
    b'{"type":"agent_start","turn_id":1}\n'
    b'{"type":"message_delta","turn_id":1,"delta":"hel\\"lo\\n"}\n'
    b'{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"path=\\"notes.txt\\""}\n'
    b'{"type":"turn_done","turn_id":1,"message":"done reading","tool_results":'
    b'[{"id":"c1","name":"read","ok":true,"text":"data"}],'
    b'"usage":{"input":12,"output":34,"cost":0.5},"stop_reason":"stop"}\n'
)
"""The spec's example stream."""


# -- reading ----------------------------------------------------------------------------


def parse_example() -> None:
    # START parse
    frame = hep.parse_line('{"type":"message_delta","turn_id":1,"delta":"hi"}')
    match frame:
        case hep.MessageDelta(turn_id, delta):  # positional: the protocol's field order
            print(f"turn {turn_id}: {delta!r}")
        case hep.ToolStart(name=name, args_summary=args):  # or by field name
            print(f"tool {name}({args})")
        case hep.TurnDone(usage=hep.Usage(input=tokens_in, output=tokens_out)):
            print(f"{tokens_in} in / {tokens_out} out")
        case hep.UnknownFrame(frame_type=kind):  # a type from a newer emitter: ignore it
            pass
    print(frame.type, frame.raw)  # "message_delta", the line it was read from
    # END parse
    assert_type(frame, hep.Frame)
    assert isinstance(frame, hep.MessageDelta) and frame.delta == "hi" and frame.turn_id == 1
    assert frame.raw == '{"type":"message_delta","turn_id":1,"delta":"hi"}'


def describe(frame: hep.Frame) -> str:
    """Every frame class, matched exhaustively: `hep.Frame` is exactly these 13 classes."""
    match frame:
        case hep.HepHeader(hep=version, fah=fah, session=session):
            assert_type(version, str)
            return f"header {version} {fah} {session}"
        case hep.AgentStart(turn_id):
            assert_type(turn_id, int)
            return f"agent_start {turn_id}"
        case hep.MessageStart(turn_id, role):
            return f"message_start {turn_id} {role}"
        case hep.MessageDelta(turn_id, delta):
            assert_type(delta, str)
            return f"delta {turn_id} {delta!r}"
        case hep.ToolStart(turn_id, id, name, args_summary):
            return f"tool_start {turn_id} {id} {name} {args_summary}"
        case hep.ToolDelta(turn_id, id, update):
            return f"tool_delta {turn_id} {id} {update!r}"
        case hep.ToolLiveness(turn_id, id, name, action, elapsed_ms, output_bytes, detail):
            assert_type(elapsed_ms, int)
            assert_type(output_bytes, Optional[int])
            assert_type(detail, Optional[str])
            return f"liveness {turn_id} {id} {name} {action} {elapsed_ms} {output_bytes} {detail}"
        case hep.TurnDone(turn_id, message, tool_results, usage, stop_reason):
            assert_type(tool_results, List[hep.ToolResult])
            assert_type(usage, hep.Usage)
            assert_type(usage.cost, float)
            oks = [r.ok for r in tool_results]
            return f"turn_done {turn_id} {message!r} {oks} {usage.input} {stop_reason}"
        case hep.TurnError(turn_id, error, fatal):
            assert_type(fatal, bool)
            return f"turn_error {turn_id} {error} {fatal}"
        case hep.Cancelled(turn_id):
            return f"cancelled {turn_id}"
        case hep.CompactionStart(turn_id):
            return f"compaction_start {turn_id}"
        case hep.CompactionEnd(turn_id, tokens_freed):
            return f"compaction_end {turn_id} {tokens_freed}"
        case hep.UnknownFrame(frame_type, turn_id, raw):
            assert_type(frame.type, Literal["unknown"])  # the wire type is `frame_type`
            assert_type(frame_type, str)
            assert_type(turn_id, Optional[int])
            assert_type(raw, str)
            return f"unknown {frame_type} {turn_id}"
        case _:
            assert_never(frame)


def errors_example() -> List[Tuple[str, int, int]]:
    # START errors
    positions: List[Tuple[str, int, int]] = []
    for line in ['{"type":"agent_start"}', '{"type":"agent_start","turn_id":-1}', "not json"]:
        try:
            hep.parse_line(line)
        except hep.MissingFieldError as e:  # one kind
            print("missing field:", e.detail)
            positions.append((e.kind, e.line, e.column))
        except hep.HepError as e:  # every kind; a ValueError too
            print(f"{e.kind} at column {e.column} near {e.excerpt!r}: {e}")
            positions.append((e.kind, e.line, e.column))
    # END errors
    return positions


def stream_example(chunks: Sequence[bytes]) -> hep.RunResult:
    # START stream
    stream = hep.Stream()
    for chunk in chunks:  # bytes as they arrive, cut anywhere
        for frame in stream.feed(chunk):
            print(frame)
    stream.end_input()  # a partial last line is reported as skipped
    for violation in stream.violations:
        print(f"line {violation.line}: {violation.code}: {violation.message}")
    for error in stream.skipped:
        print(f"skipped line {error.line}: {error.kind}")
    result = stream.finish(exit_code=0)  # the harness's exit code, when known
    # END stream
    return result


def strict_example(data: bytes) -> Tuple[List[hep.Frame], Optional[str]]:
    # START strict
    stream = hep.Stream(strict=True)
    try:
        frames = stream.feed(data)
    except hep.HepError as e:  # e.g. ProtocolViolationError, JsonSyntaxError
        print(f"stopped at line {e.line}: {e.kind}")
        frames = e.frames  # what the chunk delivered before the stream stopped
    # END strict
    halted = stream.finish().halted
    return frames, halted.kind if halted else None


def read_example(path: Path) -> List[str]:
    deltas = []
    # START read
    for frame in hep.read(path):  # a path or a binary file object
        if isinstance(frame, hep.MessageDelta):
            deltas.append(frame.delta)
    # END read
    return deltas


# -- building and writing ---------------------------------------------------------------


def build_example() -> Tuple[str, Dict[str, Any]]:
    # START build
    done = hep.TurnDone(
        turn_id=1,
        message="done reading",
        tool_results=[hep.ToolResult(id="c1", name="read", ok=True, text="data")],
        usage=hep.Usage(input=12, output=34, cost=0.5),
        stop_reason="stop",
    )
    line = done.to_json()  # the exact bytes the reference writes, == hep.encode(done)
    data = done.to_dict()  # {"type": "turn_done", "turn_id": 1, ...}, in protocol order
    assert hep.parse_line(line) == done
    # END build
    assert_type(line, str)
    assert_type(data["usage"]["cost"], float)
    assert_type(data["tool_results"][0]["ok"], bool)
    return line, dict(data)


def writer_example() -> List[str]:
    # START writer-targets
    buffer = io.StringIO()
    to_text = hep.Writer(buffer, fah_version="1.2.3")  # a text file: each line flushed
    to_bytes = hep.Writer(io.BytesIO(), "1.2.3")  # a binary file
    lines: List[str] = []
    to_list = hep.Writer(lines.append, "1.2.3")  # a callable, given each line with "\n"
    for w in (to_text, to_bytes, to_list):
        w.header("abc")
        w.agent_start()
        w.message_delta('hel"lo\n')
        w.tool_start("c1", "read", {"path": "notes.txt"})
        result = {"id": "c1", "name": "read", "ok": True, "text": "data"}  # or a hep.ToolResult
        w.turn_done("done reading", [result], {"input": 12, "output": 34, "cost": 0.5}, "stop")
    # END writer-targets
    assert buffer.getvalue() == "".join(lines) == SAVED.decode()
    written = to_text.cancelled()
    assert_type(written, Optional[str])
    assert written == '{"type":"cancelled","turn_id":2}'  # the line, without its "\n"
    assert buffer.getvalue().endswith(written + "\n")  # which the writer wrote
    assert to_text.header("abc") is None  # the header is written once
    assert_type(to_text.turn_id, int)
    return lines


def bounds_example() -> List[str]:
    # START bounds
    text = hep.cap("x" * 2500, 2000)  # 2000 "x" then "…(+500 chars)"
    width = hep.utf16_len("a😀")  # 3: the protocol counts UTF-16 code units
    summary = hep.args_summary({"path": "notes.txt", "limit": 20})  # 'path="notes.txt", limit=20'
    full = hep.args_full('{"path":"notes.txt"}')  # the JSON itself (events=full mode)
    # END bounds
    assert_type(width, int)
    assert width == 3 and text.endswith("…(+500 chars)") and hep.utf16_len(text) == 2000 + 13
    return [summary, full]


def unserializable_example() -> List[str]:
    # START unserializable
    args = {"x": float("nan"), "y": [1, float("inf")], "z": "ok"}
    summary = hep.args_summary(args)  # 'x=[unserializable], y=[unserializable], z="ok"'
    full = hep.args_full(args)  # '[unserializable]': one such value and the object fails
    same = hep.args_summary('{"x":1e400,"y":[1,-1e400],"z":"ok"}')  # past the double range
    # END unserializable
    assert same == summary
    return [summary, full]


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


def constants_example() -> None:
    # START constants
    print(hep.__version__, hep.PROTOCOL_VERSION)  # "0.1.0", "v1"
    print(hep.EXIT_OK, hep.EXIT_FAILED, hep.EXIT_CANCELLED)  # 0 1 130
    print(hep.INTERRUPT_GRACE, hep.TERMINATE_GRACE)  # 12.0 2.0 (seconds)
    print(hep.STDERR_TAIL_BYTES)  # 65536
    print(hep.PAUSE_AT_BYTES, hep.MIN_DROP_AT_BYTES)  # 1048576 1048576
    print(hep.sanitize("\x1b[31mred"))  # \x1b[31mred: visible, harmless on a terminal
    # END constants
    assert_type(hep.EXIT_CANCELLED, Literal[130])
    assert_type(hep.INTERRUPT_GRACE, float)


def _rejected(frame: hep.AgentStart, result: hep.RunResult, writer: hep.Writer) -> None:
    """Never called: each line must be a type error (checked by mypy --strict)."""
    hep.AgentStart(turn_id="1")  # type: ignore[arg-type]
    hep.AgentStart(1)  # type: ignore[call-arg]
    hep.Usage(input=1, output=2)  # type: ignore[call-arg]
    frame.turn_id = 2  # type: ignore[misc]
    result.verdict = "ok"  # type: ignore[misc]
    hep.parse_line(1)  # type: ignore[arg-type]
    writer.tool_liveness("c1", "bash", "heartbeat", "1000")  # type: ignore[arg-type]
    hep.spawn(["fa"], interrupt_grace="12")  # type: ignore[arg-type]
    hep.spawn(["fa"], terminate_grace=None)  # type: ignore[arg-type]
    hep.spawn(["fa"], idle_timeout="300")  # type: ignore[arg-type]
    hep.Supervisor(0.0).cancel(1.0, "boredom")  # type: ignore[arg-type]
    _v: Literal["ok"] = hep.Stream().finish().verdict  # type: ignore[assignment]
    _: int = frame.raw  # type: ignore[assignment]

    class Mine(hep.TurnDone):  # type: ignore[misc]
        pass


# -- running it -------------------------------------------------------------------------


def main() -> None:
    parse_example()
    assert errors_example() == [("missing_field", 0, 1), ("out_of_range", 0, 33), ("syntax", 0, 1)]

    chunks = [SAVED[i : i + 7] for i in range(0, len(SAVED), 7)]
    result = stream_example(chunks)
    assert result.verdict == "ok" and result.conforms and result.answer == "done reading"
    assert result.usage == hep.Usage(input=12, output=34, cost=0.5)

    broken = SAVED.replace(b'{"type":"tool_start"', b'{"type":"tool_start",')
    frames, kind = strict_example(broken)
    assert kind == "syntax" and [f.type for f in frames] == ["hep_header", "agent_start", "message_delta"]

    line, data = build_example()
    assert line == SAVED.decode().splitlines()[-1] and data["type"] == "turn_done"
    assert writer_example()[0] == SAVED.decode().splitlines(keepends=True)[0]
    assert bounds_example() == ['path="notes.txt", limit=20', '{"path":"notes.txt"}']
    assert unserializable_example() == ['x=[unserializable], y=[unserializable], z="ok"', "[unserializable]"]

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.hep"
        path.write_bytes(SAVED)
        assert read_example(path) == ['hel"lo\n']
    assert [describe(f) for f in hep.read(io.BytesIO(SAVED))][0] == "header v1 1.2.3 abc"

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
    constants_example()
    print("\ntyping_usage: all good")


if __name__ == "__main__":
    main()
