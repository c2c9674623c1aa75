"""Frame objects, errors and the reading API (`parse_line`, `Stream`, `read`)."""

from __future__ import annotations

import io
import json
import pathlib
from typing import Any, Dict, List, Optional, Tuple, Type

import pytest

import hep

from frame_samples import KEY_ORDER, KNOWN, SAMPLES, TYPES, ids, known_ids, sample


# ---- classes, .type, .raw ----


@pytest.mark.parametrize("cls", list(SAMPLES), ids=ids)
def test_parsed_frame_has_its_class_type_and_raw_line(cls: Type[Any]) -> None:
    frame = sample(cls)
    assert type(frame) is cls
    assert frame.type == TYPES[cls]
    assert frame.raw == SAMPLES[cls]
    assert cls.__module__ == "hep"


def test_raw_is_the_line_verbatim_with_unknown_fields_and_without_line_ending() -> None:
    line = '{"type":"agent_start", "turn_id":1,"new_field":{"a":[1,2]}}'
    assert hep.parse_line(line + "\n").raw == line
    assert hep.parse_line((line + "\r\n").encode()).raw == line
    # Only `\n` or `\r\n` ends a line: a lone `\r` is the line's own (JSON whitespace here).
    assert hep.parse_line(line + "\r").raw == line + "\r"
    stream = hep.Stream()
    header = SAMPLES[hep.HepHeader]
    frames = stream.feed(f"{header}\r\n{line}\n")
    assert [f.raw for f in frames] == [header, line]
    # Unknown fields are kept in raw, but not in the encoding.
    assert frames[1].to_json() == '{"type":"agent_start","turn_id":1}'


def test_frame_built_in_python_has_no_raw() -> None:
    assert hep.AgentStart(turn_id=1).raw is None
    assert hep.parse_line(hep.AgentStart(turn_id=1).to_json()).raw == '{"type":"agent_start","turn_id":1}'


def test_unknown_frame_is_its_own_variant_with_its_wire_type_turn_id_and_line() -> None:
    """docs/api.md: `type` is "unknown"; `frame_type` the wire type; `turn_id`; `raw` the line."""
    frame = sample(hep.UnknownFrame)
    assert (frame.type, frame.frame_type, frame.turn_id) == ("unknown", "future_frame", 4)
    assert frame.raw == frame.to_json() == hep.encode(frame) == SAMPLES[hep.UnknownFrame]
    assert frame.to_dict() == {"type": "future_frame", "turn_id": 4, "x": [1, {"y": None}]}
    no_id = hep.parse_line('{"type":"later","turn_id":"x"}')
    assert type(no_id) is hep.UnknownFrame and (no_id.type, no_id.frame_type, no_id.turn_id) == ("unknown", "later", None)
    # A frame whose wire type is "unknown" is no different: its wire type is `frame_type`.
    named = hep.parse_line('{"type":"unknown","turn_id":2}')
    assert type(named) is hep.UnknownFrame and (named.type, named.frame_type) == ("unknown", "unknown")
    with pytest.raises(TypeError):
        hep.UnknownFrame()  # only parsing makes one


# ---- frozen ----


@pytest.mark.parametrize("cls", list(SAMPLES), ids=ids)
def test_frames_are_frozen(cls: Type[Any]) -> None:
    frame = sample(cls)
    before = frame.to_json()
    for name in (*cls.__match_args__, "type", "raw"):
        with pytest.raises(AttributeError):
            setattr(frame, name, 7)
        with pytest.raises(AttributeError):
            delattr(frame, name)
    with pytest.raises(AttributeError):
        frame.brand_new_attribute = 1
    assert frame.to_json() == before


@pytest.mark.parametrize("cls", KNOWN, ids=known_ids)
def test_the_type_of_every_frame_of_a_class_is_one_str(cls: Type[Any]) -> None:
    """`type` is the class's one interned `str`, not a new one on each read."""
    one, other = hep.parse_line(SAMPLES[cls]), hep.parse_line(SAMPLES[cls])
    assert one.type is other.type is one.type == json.loads(SAMPLES[cls])["type"]


def test_nested_values_are_frozen_and_lists_are_copies() -> None:
    frame = sample(hep.TurnDone)
    with pytest.raises(AttributeError):
        frame.usage.cost = 9.0
    with pytest.raises(AttributeError):
        frame.tool_results[0].ok = False
    results = frame.tool_results
    results.clear()
    assert len(frame.tool_results) == 1
    assert frame.to_json() == SAMPLES[hep.TurnDone]


# ---- pattern matching ----


@pytest.mark.parametrize("cls", list(SAMPLES), ids=ids)
def test_match_args_name_the_fields_in_protocol_order(cls: Type[Any]) -> None:
    args = cls.__match_args__
    assert isinstance(args, tuple) and args
    frame = sample(cls)
    for name in args:
        getattr(frame, name)  # every name is an attribute
    if cls in KEY_ORDER:
        assert args == KEY_ORDER[cls]
    else:
        assert args == ("frame_type", "turn_id", "raw")


@pytest.mark.parametrize("cls", list(SAMPLES), ids=ids)
def test_positional_class_pattern_binds_every_field(cls: Type[Any]) -> None:
    frame = sample(cls)
    names = cls.__match_args__
    captures = ", ".join(f"v{i}" for i in range(len(names)))
    code = (
        "match frame:\n"
        f"    case cls({captures}):\n"
        f"        got = ({captures},)\n"
        "    case _:\n"
        "        got = None\n"
    )
    scope: Dict[str, Any] = {"frame": frame, "cls": cls, "hep": hep}
    exec(code, scope)
    assert scope["got"] == tuple(getattr(frame, n) for n in names)


def describe(frame: Any) -> str:
    """A consumer's dispatch, as the README shows it."""
    match frame:
        case hep.HepHeader(version, fah, session):
            return f"header {version} {fah} {session}"
        case hep.AgentStart(turn_id):
            return f"start {turn_id}"
        case hep.MessageStart(turn_id, role="assistant"):
            return f"message {turn_id}"
        case hep.MessageDelta(delta=text):
            return f"delta {text!r}"
        case hep.ToolStart(_, call_id, name, args):
            return f"tool {call_id} {name}({args})"
        case hep.ToolDelta(_, call_id, update):
            return f"output {call_id} {update}"
        case hep.ToolLiveness(action="heartbeat", elapsed_ms=ms, output_bytes=size, detail=detail):
            return f"heartbeat {ms} {size} {detail}"
        case hep.TurnDone(turn_id, message, [hep.ToolResult(call_id, _, True, text)], hep.Usage(i, o, cost), stop):
            return f"done {turn_id} {message!r} {call_id}={text} {i}/{o}/{cost} {stop}"
        case hep.TurnError(turn_id, error, fatal=True):
            return f"fatal {turn_id} {error}"
        case hep.Cancelled(turn_id):
            return f"cancelled {turn_id}"
        case hep.CompactionStart(turn_id):
            return f"compacting {turn_id}"
        case hep.CompactionEnd(turn_id, freed):
            return f"compacted {turn_id} {freed}"
        case hep.UnknownFrame(kind, turn_id):
            return f"unknown {kind} {turn_id}"
    return "no match"


def test_match_dispatches_every_frame_class() -> None:
    got = [describe(sample(cls)) for cls in SAMPLES]
    assert got == [
        "header v1 1.2.3 abc",
        "start 1",
        "message 1",
        "delta 'hel\"lo\\n'",
        'tool c1 read(path="notes.txt")',
        "output c1 partial",
        "heartbeat 5000 12 attempt 2",
        "done 1 'done reading' c1=data 12/34/0.5 stop",
        "fatal 2 rate limited",
        "cancelled 3",
        "compacting 1",
        "compacted 1 4200",
        "unknown future_frame 4",
    ]
    # Classes with the same fields never match each other.
    assert describe(hep.CompactionStart(turn_id=9)) == "compacting 9"
    assert describe(hep.MessageStart(turn_id=1, role="user")) == "no match"
    assert describe(hep.TurnError(turn_id=1, error="x", fatal=False)) == "no match"


# ---- repr and equality ----


def test_repr_shows_class_and_fields() -> None:
    assert repr(hep.AgentStart(turn_id=1)) == "AgentStart(turn_id=1)"
    assert repr(sample(hep.MessageDelta)) == "MessageDelta(turn_id=1, delta='hel\"lo\\n')"
    assert repr(sample(hep.TurnDone)) == (
        "TurnDone(turn_id=1, message='done reading', "
        "tool_results=[ToolResult(id='c1', name='read', ok=True, text='data')], "
        "usage=Usage(input=12, output=34, cost=0.5), stop_reason='stop')"
    )
    assert repr(hep.ToolLiveness(turn_id=1, id="c", name="n", action="escalate", elapsed_ms=1)) == (
        "ToolLiveness(turn_id=1, id='c', name='n', action='escalate', elapsed_ms=1, output_bytes=None, detail=None)"
    )
    assert repr(hep.parse_line('{"type":"later"}')) == "UnknownFrame(frame_type='later', turn_id=None, raw='{\"type\":\"later\"}')"


@pytest.mark.parametrize("cls", KNOWN, ids=known_ids)
def test_repr_evaluates_back_to_an_equal_frame(cls: Type[Any]) -> None:
    frame = sample(cls)
    assert eval(repr(frame), vars(hep)) == frame


@pytest.mark.parametrize("cls", list(SAMPLES), ids=ids)
def test_equality(cls: Type[Any]) -> None:
    a, b = sample(cls), sample(cls)
    assert a is not b
    assert a == b and not (a != b)
    assert a != SAMPLES[cls] and a != a.to_dict() and a != None  # noqa: E711
    for other in SAMPLES:
        if other is not cls:
            assert a != sample(other)


def test_equality_compares_fields_not_classes_with_the_same_fields_nor_raw() -> None:
    assert hep.Cancelled(turn_id=1) != hep.CompactionStart(turn_id=1)
    assert hep.AgentStart(turn_id=1) != hep.AgentStart(turn_id=2)
    assert hep.MessageDelta(turn_id=1, delta="a") != hep.MessageDelta(turn_id=1, delta="b")
    # The same frame read from another line (spacing, unknown fields) is equal.
    assert hep.parse_line('{ "turn_id": 1, "type": "agent_start", "new": 0 }') == hep.AgentStart(turn_id=1)
    assert sample(hep.UnknownFrame) != hep.parse_line('{"type":"future_frame","turn_id":4,"x":[2]}')
    assert hep.Usage(input=1, output=2, cost=0.5) == hep.Usage(input=1, output=2, cost=0.5)
    assert hep.Usage(input=1, output=2, cost=0.5) != hep.Usage(input=1, output=2, cost=0.25)
    assert hep.ToolResult(id="a", name="b", ok=True, text="") != hep.ToolResult(id="a", name="b", ok=False, text="")


# ---- to_dict ----


@pytest.mark.parametrize("cls", KNOWN, ids=known_ids)
def test_to_dict_keys_in_protocol_order(cls: Type[Any]) -> None:
    d = sample(cls).to_dict()
    assert list(d) == ["type", *KEY_ORDER[cls]]
    assert d == json.loads(SAMPLES[cls])
    assert json.dumps(d, separators=(",", ":"), ensure_ascii=False) == SAMPLES[cls]


def test_to_dict_nested_order_and_omitted_optionals() -> None:
    d = sample(hep.TurnDone).to_dict()
    assert list(d["tool_results"][0]) == ["id", "name", "ok", "text"]
    assert list(d["usage"]) == ["input", "output", "cost"]
    assert isinstance(d["usage"]["cost"], float)
    bare = hep.ToolLiveness(turn_id=1, id="c", name="n", action="heartbeat", elapsed_ms=3).to_dict()
    assert list(bare) == ["type", "turn_id", "id", "name", "action", "elapsed_ms"]
    assert hep.Usage(input=1, output=2, cost=3).to_dict() == {"input": 1, "output": 2, "cost": 3.0}
    assert list(hep.ToolResult(id="a", name="b", ok=True, text="t").to_dict()) == ["id", "name", "ok", "text"]


# ---- building frames with keywords and encoding them ----


SPEC_EXAMPLES = [
    (hep.HepHeader(hep="v1", fah="1.2.3", session="abc"), '{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}'),
    (hep.AgentStart(turn_id=1), '{"type":"agent_start","turn_id":1}'),
    (hep.MessageDelta(turn_id=1, delta='hel"lo\n'), '{"type":"message_delta","turn_id":1,"delta":"hel\\"lo\\n"}'),
    (
        hep.ToolStart(turn_id=1, id="c1", name="read", args_summary='path="notes.txt"'),
        '{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"path=\\"notes.txt\\""}',
    ),
    (
        hep.TurnDone(
            turn_id=1,
            message="done reading",
            tool_results=[hep.ToolResult(id="c1", name="read", ok=True, text="data")],
            usage=hep.Usage(input=12, output=34, cost=0.5),
            stop_reason="stop",
        ),
        '{"type":"turn_done","turn_id":1,"message":"done reading","tool_results":[{"id":"c1","name":"read","ok":true,'
        '"text":"data"}],"usage":{"input":12,"output":34,"cost":0.5},"stop_reason":"stop"}',
    ),
    (hep.CompactionEnd(turn_id=1, tokens_freed=4200), '{"type":"compaction_end","turn_id":1,"tokens_freed":4200}'),
    (hep.Cancelled(turn_id=2), '{"type":"cancelled","turn_id":2}'),
    (hep.CompactionStart(turn_id=2), '{"type":"compaction_start","turn_id":2}'),
    (hep.MessageStart(turn_id=2, role="assistant"), '{"type":"message_start","turn_id":2,"role":"assistant"}'),
    (hep.ToolDelta(turn_id=2, id="c", update="é/😀"), '{"type":"tool_delta","turn_id":2,"id":"c","update":"é/😀"}'),
    (hep.TurnError(turn_id=2, error="boom", fatal=True), '{"type":"turn_error","turn_id":2,"error":"boom","fatal":true}'),
    (
        hep.ToolLiveness(turn_id=2, id="c", name="bash", action="heartbeat", elapsed_ms=10, detail="attempt 1"),
        '{"type":"tool_liveness","turn_id":2,"id":"c","name":"bash","action":"heartbeat","elapsed_ms":10,"detail":"attempt 1"}',
    ),
]


@pytest.mark.parametrize(("frame", "line"), SPEC_EXAMPLES, ids=[type(f).__name__ for f, _ in SPEC_EXAMPLES])
def test_keyword_built_frame_encodes_to_exact_bytes_and_back(frame: Any, line: str) -> None:
    assert frame.to_json() == line
    assert hep.encode(frame) == line
    assert hep.parse_line(line) == frame


def test_turn_done_accepts_dicts_and_writes_cost_as_float() -> None:
    frame = hep.TurnDone(
        turn_id=1,
        message="",
        tool_results=[{"id": "c1", "name": "read", "ok": False, "text": "nope"}],
        usage={"input": 0, "output": 0, "cost": 0},
        stop_reason="toolUse",
    )
    assert frame.tool_results == [hep.ToolResult(id="c1", name="read", ok=False, text="nope")]
    assert frame.usage == hep.Usage(input=0, output=0, cost=0.0)
    assert frame.to_json().endswith('"usage":{"input":0,"output":0,"cost":0.0},"stop_reason":"toolUse"}')


def test_building_frames_checks_arguments() -> None:
    with pytest.raises(TypeError, match="turn_id"):
        hep.AgentStart()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        hep.AgentStart(1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        hep.AgentStart(turn_id="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        hep.TurnDone(turn_id=1, message="", tool_results=[], usage=[1, 2, 3], stop_reason="stop")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        hep.encode({"type": "agent_start", "turn_id": 1})  # type: ignore[arg-type]
    with pytest.raises(hep.UnencodableError) as info:
        hep.TurnDone(turn_id=1, message="", tool_results=[], usage={"input": 0, "output": 0, "cost": float("nan")}, stop_reason="s").to_json()
    assert isinstance(info.value, ValueError) and info.value.kind == "unencodable"


def test_unknown_keyword_is_rejected_not_dropped() -> None:
    """A misspelt optional field must not vanish silently from the frame."""
    with pytest.raises(TypeError):
        hep.ToolLiveness(turn_id=1, id="c", name="n", action="heartbeat", elapsed_ms=1, output_byte=5)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        hep.AgentStart(turn_id=1, bogus=2)  # type: ignore[call-arg]


def test_encoded_frame_always_decodes_back() -> None:
    """Whatever `encode` writes, `parse_line` must read back (turn ids are capped at 2**53-1
    on decode, so encoding a larger one must fail instead of writing an unreadable line)."""
    for turn_id in (0, 2**53 - 1, 2**53, 2**60):
        try:
            line = hep.AgentStart(turn_id=turn_id).to_json()
        except (ValueError, OverflowError):
            continue
        assert hep.parse_line(line) == hep.AgentStart(turn_id=turn_id), line


def test_parsed_frames_are_not_tracked_by_the_cycle_collector() -> None:
    import gc

    stream = hep.Stream()
    frames = stream.feed("\n".join(SAMPLES[cls] for cls in (hep.HepHeader, hep.AgentStart, hep.MessageDelta, hep.TurnDone)) + "\n")
    assert [f.type for f in frames] == ["hep_header", "agent_start", "message_delta", "turn_done"]
    assert not any(gc.is_tracked(f) for f in frames)
    assert not gc.is_tracked(frames[3].usage)
