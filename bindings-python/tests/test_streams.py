"""Errors, `Stream` in strict and lenient mode, `hep.read` and the `Writer`'s output targets."""

from __future__ import annotations

import io
import json
import pathlib
from typing import Any, Dict, List, Optional, Tuple, Type

import pytest

import hep
from frame_samples import SAMPLES, ids, sample

# ---- errors ----

ERRORS = [
    ("syntax", hep.JsonSyntaxError, '{"type":"agent_start","turn_id":}', 33),
    ("invalid_utf8", hep.InvalidUtf8Error, b'{"type":"message_delta","turn_id":1,"delta":"a\xffb"}', None),
    ("trailing_characters", hep.TrailingCharactersError, '{"type":"agent_start","turn_id":1} x', 36),
    ("not_an_object", hep.NotAnObjectError, "[1]", 1),
    ("missing_field", hep.MissingFieldError, '{"type":"agent_start"}', None),
    ("duplicate_field", hep.DuplicateFieldError, '{"type":"agent_start","turn_id":1,"turn_id":2}', None),
    ("wrong_type", hep.WrongTypeError, '{"type":"agent_start","turn_id":"1"}', 33),
    ("out_of_range", hep.OutOfRangeError, '{"type":"agent_start","turn_id":9007199254740992}', 33),
    ("too_deep", hep.TooDeepError, '{"type":"x","a":' + "[" * 100 + "]" * 100 + "}", None),
]


@pytest.mark.parametrize(("kind", "cls", "line", "column"), ERRORS, ids=[e[0] for e in ERRORS])
def test_each_decode_error_kind_raises_its_class(kind: str, cls: Type[Exception], line: Any, column: Optional[int]) -> None:
    with pytest.raises(cls) as info:
        hep.parse_line(line)
    err = info.value
    assert type(err) is cls
    assert isinstance(err, hep.HepError) and isinstance(err, ValueError)
    assert err.kind == kind
    assert err.line == 0  # parse_line: not tied to a line
    assert err.column >= 1
    if column is not None:
        assert err.column == column
    assert kind in str(err)
    # The same line in a stream: skipped, placed at its line number.
    stream = hep.Stream()
    data = line if isinstance(line, bytes) else line.encode()
    assert stream.feed(SAMPLES[hep.HepHeader].encode() + b"\n" + data + b"\n") == [sample(hep.HepHeader)]
    (skipped,) = stream.skipped
    assert type(skipped) is cls and skipped.kind == kind and skipped.line == 2 and skipped.column == err.column


def test_stream_error_kinds_raise_their_class() -> None:
    header = SAMPLES[hep.HepHeader]
    cases: List[Tuple[Type[Exception], str, Dict[str, Any], bytes]] = [
        (hep.LineTooLongError, "line_too_long", {"max_line_bytes": 40}, f"{header}\n{header}\n".encode()),
        (hep.TruncatedError, "truncated", {}, f'{header}\n{{"type":"agent_st'.encode()),
        (hep.UnsupportedVersionError, "unsupported_version", {}, b'{"type":"hep_header","hep":"v2","fah":"1","session":"s"}\n'),
        (hep.ProtocolViolationError, "violation", {}, f'{header}\n{{"type":"agent_start","turn_id":2}}\n'.encode()),
        (hep.JsonSyntaxError, "syntax", {}, f"{header}\nnot json\n".encode()),
    ]
    for cls, kind, options, data in cases:
        stream = hep.Stream(strict=True, **options)
        with pytest.raises(cls) as info:
            stream.feed(data)
            stream.end_input()
        err = info.value
        assert type(err) is cls and isinstance(err, hep.HepError) and isinstance(err, ValueError), kind
        assert err.kind == kind
        assert err.line == (1 if kind in ("line_too_long", "unsupported_version") else 2), kind
        assert isinstance(err.column, int)
        result = stream.finish(0)
        assert result.halted is not None and (result.halted.kind, result.halted.line) == (kind, err.line)
        assert result.verdict == "protocol_error"


def test_every_error_class_is_a_hep_error_and_a_value_error() -> None:
    names = [n for n in hep.__all__ if n.endswith("Error") and n != "TurnError"]
    assert len(names) == 16
    for name in names:
        cls = getattr(hep, name)
        assert issubclass(cls, hep.HepError) and issubclass(cls, ValueError), name


# ---- Stream: strict and lenient ----

HEADER = SAMPLES[hep.HepHeader]
START = '{"type":"agent_start","turn_id":1}'
DELTA = '{"type":"message_delta","turn_id":1,"delta":"hi"}'
DONE = '{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}'


def test_strict_stream_raises_with_the_frames_before_the_error() -> None:
    stream = hep.Stream(strict=True)
    with pytest.raises(hep.JsonSyntaxError) as info:
        stream.feed(f"{HEADER}\n{START}\n{{oops\n{DELTA}\n{DONE}\n")
    err = info.value
    assert (err.kind, err.line, err.column) == ("syntax", 3, 2)
    assert err.frames == [sample(hep.HepHeader), hep.AgentStart(turn_id=1)]
    assert stream.feed(f"{DELTA}\n") == []  # halted: nothing more is delivered
    result = stream.finish(0)
    assert result.verdict == "protocol_error" and not result.conforms
    assert result.halted is not None and (result.halted.kind, result.halted.line) == ("syntax", 3)


def test_strict_stream_raises_on_an_error_violation_after_delivering_its_frame() -> None:
    stream = hep.Stream(strict=True)
    assert stream.feed(f"{HEADER}\n{START}\n") == [sample(hep.HepHeader), hep.AgentStart(turn_id=1)]
    with pytest.raises(hep.ProtocolViolationError) as info:
        stream.feed('{"type":"message_delta","turn_id":3,"delta":"x"}\n' + DONE + "\n")
    assert info.value.kind == "violation" and info.value.line == 3
    assert info.value.frames == [hep.MessageDelta(turn_id=3, delta="x")]
    assert "turn_id_mismatch" in str(info.value)


def test_strict_stream_does_not_raise_on_warnings() -> None:
    stream = hep.Stream(strict=True)
    frames = stream.feed(f'{HEADER}\n{START}\n{{"type":"message_start","turn_id":1,"role":"user"}}\n{DONE}\n')
    assert len(frames) == 4
    assert [(v.code, v.severity) for v in stream.violations] == [("unexpected_role", "warning")]
    assert stream.finish(0).verdict == "ok"


def test_lenient_stream_collects_violations_and_skipped_lines() -> None:
    stream = hep.Stream()
    frames = stream.feed(f"{HEADER}\n{START}\ngarbage\n{START}\n{DELTA}\n{DONE}\n")
    assert [f.type for f in frames] == ["hep_header", "agent_start", "agent_start", "message_delta", "turn_done"]
    assert [(v.code, v.severity, v.line, v.turn_id) for v in stream.violations] == [
        ("duplicate_agent_start", "error", 4, 1)
    ]
    assert isinstance(stream.violations[0], hep.Violation) and stream.violations[0].message
    [skipped] = stream.skipped
    assert isinstance(skipped, hep.JsonSyntaxError) and (skipped.line, skipped.column) == (3, 1)
    result = stream.finish(0)
    assert result.verdict == "protocol_error" and not result.conforms
    assert [(s.kind, s.line) for s in result.skipped] == [("syntax", 3)]
    assert [v.code for v in result.violations] == ["duplicate_agent_start"]
    assert result.answer == "hi" and result.exit_code == 0 and result.lines == 6 and result.frames == 5


def test_lenient_stream_clean_run() -> None:
    stream = hep.Stream()
    assert len(stream.feed(f"{HEADER}\n{START}\n{DELTA}\n{DONE}\n")) == 4
    result = stream.finish(0)
    assert (result.verdict, result.conforms, result.answer) == ("ok", True, "hi")
    assert result.usage == hep.Usage(input=1, output=2, cost=0.5)
    assert [t.turn_id for t in result.turns] == [1] and result.turns[0].text == "hi"
    with pytest.raises(RuntimeError):
        stream.feed(b"x")


@pytest.mark.parametrize("kind", ["bytes", "str", "bytearray", "memoryview"])
def test_feed_accepts_bytes_and_text(kind: str) -> None:
    data = f'{HEADER}\n{{"type":"message_delta","turn_id":1,"delta":"é😀"}}\n'
    convert: Dict[str, Any] = {
        "bytes": str.encode,
        "str": str,
        "bytearray": lambda s: bytearray(s.encode()),
        "memoryview": lambda s: memoryview(s.encode()),
    }
    stream = hep.Stream()
    assert stream.feed(convert[kind](data))[1] == hep.MessageDelta(turn_id=1, delta="é😀")


def test_feed_joins_lines_split_anywhere_even_inside_a_character() -> None:
    data = f'{HEADER}\n{{"type":"message_delta","turn_id":1,"delta":"é😀"}}\n'.encode()
    stream = hep.Stream()
    frames = []
    for i in range(len(data)):
        frames += stream.feed(data[i : i + 1])
    assert frames == [sample(hep.HepHeader), hep.MessageDelta(turn_id=1, delta="é😀")]
    assert stream.skipped == []


def test_end_input_reports_a_partial_last_line() -> None:
    stream = hep.Stream()
    stream.feed(f"{HEADER}\n{START}\n{DONE}".encode())
    assert stream.end_input() == []
    [skipped] = stream.skipped
    assert isinstance(skipped, hep.TruncatedError) and skipped.line == 3
    result = stream.finish(0)
    assert result.verdict == "incomplete"


# ---- hep.read ----


def _saved(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "run.hep"
    path.write_bytes(f"{HEADER}\n{START}\nbad line\n{DELTA}\n{DONE}\n".encode())
    return path


def test_read_a_path(tmp_path: pathlib.Path) -> None:
    path = _saved(tmp_path)
    expected = ["hep_header", "agent_start", "message_delta", "turn_done"]
    assert [f.type for f in hep.read(path)] == expected
    assert [f.type for f in hep.read(str(path))] == expected


def test_read_a_binary_file_object(tmp_path: pathlib.Path) -> None:
    with open(_saved(tmp_path), "rb") as file:
        frames = list(hep.read(file))
    assert frames[-1] == hep.parse_line(DONE)
    big = (HEADER + "\n" + "\n".join(DELTA for _ in range(20000)) + "\n").encode()  # several read chunks
    assert len(list(hep.read(io.BytesIO(big)))) == 20001


def test_read_strict_raises_at_the_bad_line(tmp_path: pathlib.Path) -> None:
    """Strict reading yields every frame before the bad line, then raises."""
    frames = []
    with pytest.raises(hep.JsonSyntaxError) as info:
        for frame in hep.read(_saved(tmp_path), strict=True):
            frames.append(frame)
    assert info.value.line == 3
    assert [f.type for f in frames] == ["hep_header", "agent_start"]


def test_read_truncated_file_yields_the_complete_frames(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "cut.hep"
    path.write_bytes(f"{HEADER}\n{START}\n{DELTA[:10]}".encode())
    assert [f.type for f in hep.read(path)] == ["hep_header", "agent_start"]
    with pytest.raises(hep.TruncatedError):
        list(hep.read(path, strict=True))


# ---- Writer output targets ----


def test_writer_writes_each_line_to_text_binary_and_callable_targets() -> None:
    text, binary = io.StringIO(), io.BytesIO()
    lines: List[str] = []
    for out in (text, binary, lines.append):
        w = hep.Writer(out, "1.2.3")
        assert w.header("abc") == HEADER + "\n"
        assert w.header("again") is None
        assert w.agent_start() == START + "\n"
        assert w.message_delta("hi") == DELTA + "\n"
        assert w.tool_delta("c1", "") is None
        assert w.turn_done("hi", [], {"input": 1, "output": 2, "cost": 0.5}, "stop") == DONE + "\n"
        assert w.turn_id == 1
    expected = f"{HEADER}\n{START}\n{DELTA}\n{DONE}\n"
    assert text.getvalue() == expected
    assert binary.getvalue() == expected.encode()
    assert "".join(lines) == expected
    with pytest.raises(TypeError):
        hep.Writer(42, "1.2.3")  # type: ignore[arg-type]


# ---- Writer arguments ----


def _tool_start_line(args: Any, mode: str = "full") -> str:
    lines: List[str] = []
    w = hep.Writer(lines.append, "1.2.3", tool_args=mode)
    w.agent_start()
    written = w.tool_start("c1", "run", args)
    assert written is not None
    return json.loads(written)["args_summary"]  # type: ignore[no-any-return]


def test_writer_tool_args_convert_like_json_dumps_and_keep_key_order() -> None:
    args = {"z": 1, "a": [True, None, 1.5, "é"], "m": {"k": (1, 2)}, "big": 2**53 - 1, "neg": -3}
    assert _tool_start_line(args) == json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    assert _tool_start_line(args, "summary").startswith("z=1, a=[true,null,1.5,")


def test_writer_tool_args_accept_any_mapping_and_json_text_in_args_summary() -> None:
    class Args(dict):  # type: ignore[type-arg]
        pass

    from types import MappingProxyType

    assert _tool_start_line(Args(path="a.txt")) == '{"path":"a.txt"}'
    assert _tool_start_line(MappingProxyType({"path": "a.txt"})) == '{"path":"a.txt"}'
    assert hep.args_summary('{"b":1,"a":2}') == hep.args_summary({"b": 1, "a": 2}) == "b=1, a=2"
    assert hep.args_full({"n": 2**53}) == '{"n":9007199254740992}'  # text, not an integer field
    with pytest.raises(hep.NotAnObjectError, match="must be a JSON object"):
        hep.args_summary("[1]")


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ({1: "x"}, TypeError, "keys must be strings, not int"),
        ({"s": {1, 2}}, TypeError, "cannot hold a set"),
        ({"f": float("nan"), "s": {1, 2}}, TypeError, "cannot hold a set"),
        ({"n": 2**64}, hep.OutOfRangeError, "does not fit a 64-bit integer"),
        ({"deep": json.loads("[" * 70 + "]" * 70)}, hep.TooDeepError, "deeper than 64"),
        ('{"a":1}', TypeError, "must be a mapping"),
        (["a"], TypeError, "must be a mapping"),
    ],
    ids=["int-key", "set", "set-after-nan", "u64-overflow", "too-deep", "json-text", "list"],
)
def test_writer_refuses_arguments_json_cannot_hold(args: Any, error: Type[Exception], message: str) -> None:
    lines: List[str] = []
    w = hep.Writer(lines.append, "1.2.3", tool_args="full")
    w.agent_start()
    with pytest.raises(error, match=message):
        w.tool_start("c1", "run", args)
    assert lines == [START + "\n"]  # nothing half-written
    assert w.message_delta("hi") == DELTA + "\n"  # and the writer goes on


# A float JSON cannot write (nan, inf) is what the reference gets from a provider's number
# past the double range (`1e400`, infinity once decoded): its safe encoder writes the value,
# or in full mode the whole object, as `[unserializable]`.
UNSERIALIZABLE_ARGS = {"x": float("nan"), "y": [1, float("inf")], "z": "ok"}
UNSERIALIZABLE_SUMMARY = 'x=[unserializable], y=[unserializable], z="ok"'


def test_writer_renders_arguments_json_cannot_write_as_unserializable() -> None:
    assert _tool_start_line(UNSERIALIZABLE_ARGS, "summary") == UNSERIALIZABLE_SUMMARY
    assert _tool_start_line(UNSERIALIZABLE_ARGS, "full") == "[unserializable]"
    nested = {"a": 1, "m": {"k": [{"v": -float("inf")}]}, "t": (float("nan"),)}
    assert _tool_start_line(nested, "summary") == "a=1, m=[unserializable], t=[unserializable]"
    assert _tool_start_line(nested, "full") == "[unserializable]"
    assert _tool_start_line({"big": 1e308, "small": -5e-324}, "full") == '{"big":1e+308,"small":-5e-324}'


def test_the_bounds_helpers_render_unserializable_arguments_as_the_writer_does() -> None:
    assert hep.args_summary(UNSERIALIZABLE_ARGS) == UNSERIALIZABLE_SUMMARY
    assert hep.args_full(UNSERIALIZABLE_ARGS) == "[unserializable]"
    # The same arguments as JSON text: numbers past the double range, as Dart decodes them.
    text = '{"x":1e400,"y":[1,-1e999],"z":"ok"}'
    assert hep.args_summary(text) == UNSERIALIZABLE_SUMMARY
    assert hep.args_full(text) == "[unserializable]"
    # As Python's json reads that text (inf), through the writer.
    assert _tool_start_line(json.loads(text), "summary") == UNSERIALIZABLE_SUMMARY
    # The summary's 100-unit cap applies after the rendering.
    long = {"n": float("nan"), "s": "x" * 200}
    assert hep.args_summary(long) == ('n=[unserializable], s="' + "x" * 200)[:100] + "..."


def test_an_unserializable_tool_start_is_read_back_as_written() -> None:
    lines: List[str] = []
    w = hep.Writer(lines.append, "1.2.3")
    w.header("abc")
    w.agent_start()
    w.tool_start("c1", "read", UNSERIALIZABLE_ARGS)
    w.turn_done("", [{"id": "c1", "name": "read", "ok": True, "text": "data"}], {"input": 1, "output": 1, "cost": 0.0}, "stop")
    stream = hep.Stream()
    frames = stream.feed("".join(lines))
    assert frames[2] == hep.ToolStart(turn_id=1, id="c1", name="read", args_summary=UNSERIALIZABLE_SUMMARY)
    result = stream.finish(0)
    assert (result.verdict, result.conforms, result.violations) == ("ok", True, ())
    assert result.tool_calls[0].args_summary == UNSERIALIZABLE_SUMMARY


# ---- Writer turn ids: a call that writes nothing opens no turn ----

USAGE = {"input": 1, "output": 2, "cost": 0.5}


def _after_one_round() -> Tuple[hep.Writer, List[str]]:
    lines: List[str] = []
    w = hep.Writer(lines.append, "1.2.3")
    w.header("abc")
    w.agent_start()
    w.message_delta("hi")
    w.turn_done("hi", [], USAGE, "stop")
    assert w.turn_id == 1
    return w, lines


@pytest.mark.parametrize(
    "call",
    [
        lambda w: w.message_start("user"),
        lambda w: w.message_start("toolResult"),
        lambda w: w.tool_delta("c1", ""),
    ],
    ids=["message_start-user", "message_start-toolResult", "empty-tool_delta"],
)
def test_writer_calls_that_write_nothing_open_no_turn(call: Any) -> None:
    w, lines = _after_one_round()
    assert call(w) is None
    assert w.turn_id == 1
    # compaction_end with no open turn reuses the last id: turn 1, not a new turn 2.
    assert w.compaction_end(7) == '{"type":"compaction_end","turn_id":1,"tokens_freed":7}\n'
    assert w.message_delta("next") == '{"type":"message_delta","turn_id":2,"delta":"next"}\n'
    assert len(lines) == 6


def test_writer_turn_start_and_an_assistant_message_start_do_open_a_turn() -> None:
    w, _ = _after_one_round()
    w.turn_start()
    assert w.compaction_end(7) == '{"type":"compaction_end","turn_id":2,"tokens_freed":7}\n'
    w, _ = _after_one_round()
    assert w.message_start("assistant") == '{"type":"message_start","turn_id":2,"role":"assistant"}\n'
    assert w.tool_delta("c1", "") is None
    assert w.compaction_end(7) == '{"type":"compaction_end","turn_id":2,"tokens_freed":7}\n'


def test_writer_refuses_a_list_that_holds_itself() -> None:
    loop: List[Any] = []
    loop.append(loop)
    w = hep.Writer(lambda line: None, "1.2.3")
    with pytest.raises(hep.TooDeepError):
        w.tool_start("c1", "run", {"loop": loop})


def test_writer_in_a_reference_cycle_is_collected() -> None:
    import gc
    import weakref

    class Sink:
        def __init__(self) -> None:
            self.writer: Optional[hep.Writer] = None

        def __call__(self, line: str) -> None:
            pass

    sink = Sink()
    sink.writer = hep.Writer(sink, "1.2.3")
    alive = weakref.ref(sink)
    del sink
    gc.collect()
    assert alive() is None


def test_writer_sink_errors_propagate() -> None:
    def broken(line: str) -> None:
        raise OSError("disk full")

    w = hep.Writer(broken, "1.2.3")
    with pytest.raises(OSError, match="disk full"):
        w.header("s")


def test_parsed_frames_are_not_tracked_by_the_cycle_collector() -> None:
    import gc

    stream = hep.Stream()
    frames = stream.feed(f"{HEADER}\n{START}\n{DELTA}\n{DONE}\n")
    assert [f.type for f in frames] == ["hep_header", "agent_start", "message_delta", "turn_done"]
    assert not any(gc.is_tracked(f) for f in frames)
    assert not gc.is_tracked(frames[3].usage)
