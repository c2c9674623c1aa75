"""`hep.Writer`: its output targets (each line written with its `\\n`, returned without), the
harness version given to its constructor, tool arguments, the turn ids of calls that write
nothing, and its sink's errors and lifetime."""

from __future__ import annotations

import io
import json
from typing import Any, List, Optional, Tuple, Type

import pytest

import hep
from frame_samples import SAMPLES

HEADER = SAMPLES[hep.HepHeader]
START = '{"type":"agent_start","turn_id":1}'
DELTA = '{"type":"message_delta","turn_id":1,"delta":"hi"}'
DONE = '{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}'


# ---- Writer output targets ----


def test_writer_writes_each_line_with_its_newline_and_returns_it_without() -> None:
    """docs/api.md: a method returns the line without its `\\n`; the writer writes the `\\n`
    to the sink itself (a file, or a callable given each line)."""
    text, binary = io.StringIO(), io.BytesIO()
    lines: List[str] = []
    for out in (text, binary, lines.append):
        w = hep.Writer(out, "1.2.3")
        assert w.header("abc") == HEADER
        assert w.header("again") is None
        assert w.agent_start() == START
        assert w.message_delta("hi") == DELTA
        assert w.tool_delta("c1", "") is None
        assert w.turn_done("hi", [], {"input": 1, "output": 2, "cost": 0.5}, "stop") == DONE
        assert w.turn_id == 1
    expected = f"{HEADER}\n{START}\n{DELTA}\n{DONE}\n"
    assert text.getvalue() == expected
    assert binary.getvalue() == expected.encode()
    assert lines == [f"{HEADER}\n", f"{START}\n", f"{DELTA}\n", f"{DONE}\n"]  # one call a line
    with pytest.raises(TypeError):
        hep.Writer(42, "1.2.3")  # type: ignore[arg-type]


def test_the_header_names_the_harness_version_given_to_the_constructor() -> None:
    for fah in ("1.2.3", "0.9.0-dev+local", ""):
        header = hep.Writer(lambda line: None, fah).header("s-1")
        assert header is not None and hep.parse_line(header) == hep.HepHeader(hep="v1", fah=fah, session="s-1")
    assert hep.Writer(lambda line: None, fah_version="2.0").header("s") == '{"type":"hep_header","hep":"v1","fah":"2.0","session":"s"}'
    with pytest.raises(TypeError):
        hep.Writer(lambda line: None).header("s")  # type: ignore[call-arg]


def test_an_unknown_liveness_action_is_refused_naming_the_known_ones() -> None:
    w = hep.Writer(lambda line: None, "1.2.3")
    with pytest.raises(ValueError, match="heartbeat, cancel_retry, background_convert, escalate, advisory, not \"nap\""):
        w.tool_liveness("c1", "bash", "nap", 1000)
    line = w.tool_liveness("c1", "bash", "escalate", 1000, detail="stuck")
    assert line == '{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"escalate","elapsed_ms":1000,"detail":"stuck"}'


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
    assert w.message_delta("hi") == DELTA  # and the writer goes on


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
    assert w.compaction_end(7) == '{"type":"compaction_end","turn_id":1,"tokens_freed":7}'
    assert w.message_delta("next") == '{"type":"message_delta","turn_id":2,"delta":"next"}'
    assert len(lines) == 6


def test_writer_turn_start_and_an_assistant_message_start_do_open_a_turn() -> None:
    w, _ = _after_one_round()
    w.turn_start()
    assert w.compaction_end(7) == '{"type":"compaction_end","turn_id":2,"tokens_freed":7}'
    w, _ = _after_one_round()
    assert w.message_start("assistant") == '{"type":"message_start","turn_id":2,"role":"assistant"}'
    assert w.tool_delta("c1", "") is None
    assert w.compaction_end(7) == '{"type":"compaction_end","turn_id":2,"tokens_freed":7}'


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


@pytest.mark.parametrize(
    "text",
    ["short", "a" * 2001, "a" * 2002, "é😀" * 1500, "😀" * 2001, "a" * 1999 + "😀" + "b" * 5, "€" * 5000],
    ids=["short", "2001", "2002", "accents-astral", "astral", "pair-at-cap", "bmp"],
)
def test_turn_done_caps_a_mapping_text_as_a_tool_result_text(text: str) -> None:
    """A long text given in a mapping is read by its head and length (never converted whole):
    the line is the one a `hep.ToolResult` holding the whole text gives."""
    lines: List[str] = []
    usage = {"input": 1, "output": 2, "cost": 0.5}
    for result in ({"id": "c1", "name": "bash", "ok": True, "text": text}, hep.ToolResult(id="c1", name="bash", ok=True, text=text)):
        writer = hep.Writer(lines.append, "1")
        writer.agent_start()
        writer.turn_done("m", [result], usage, "stop")
    assert lines[1] == lines[3]
    capped = json.loads(lines[1])["tool_results"][0]["text"]
    units = len(text.encode("utf-16-le")) // 2
    assert capped == text if units <= 2000 else capped.endswith(" chars)") and "…(+" in capped


def test_turn_done_refuses_a_lone_surrogate_past_the_cap() -> None:
    writer = hep.Writer(lambda line: None, "1")
    with pytest.raises(UnicodeEncodeError):
        writer.turn_done("m", [{"id": "c1", "name": "bash", "ok": True, "text": "x" * 3000 + "\ud800"}], {"input": 1, "output": 2, "cost": 0.5}, "stop")


def test_turn_done_reads_a_str_subclass_text_whole() -> None:
    """A `str` subclass may answer `len` and slicing its own way: its text is read whole."""

    class Shifty(str):
        def __len__(self) -> int:
            return 5000

        def __getitem__(self, key: Any) -> str:
            return "x"

    lines: List[str] = []
    usage = {"input": 1, "output": 2, "cost": 0.5}
    for text in (Shifty("é" * 3000), "é" * 3000):
        writer = hep.Writer(lines.append, "1")
        writer.turn_done("m", [{"id": "c1", "name": "bash", "ok": True, "text": text}], usage, "stop")
    assert lines[0] == lines[1] and "…(+1000 chars)" in lines[0]
