"""The public API used the way a user would, for `mypy --strict` (and Python 3.10+ to run):
reading, building and writing frames, the constants.

`mypy --strict bindings-python/tests/typing` checks that the stubs and the package give
precise types: `assert_type` pins what the API returns, and each line in `_rejected` must
be an error (an unneeded `# type: ignore` fails under --strict). Run as a script, it exercises
the same code against the real extension and checks the results:

    .venv/bin/python bindings-python/tests/typing/typing_reading.py

Importing it does nothing. The regions between `# START name` and `# END name` are the
snippets of docs/python.md (checked by scripts/check_docs.py).
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from typing_extensions import Literal, assert_never, assert_type

import hep

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
    constants_example()
    print("\ntyping_reading: all good")


if __name__ == "__main__":
    main()
