"""Reading: decode errors and their classes, `Stream` in strict and lenient mode, and `hep.read`."""

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
