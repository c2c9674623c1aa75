"""The core's state caps come through: `hep.Limits` given to `Stream`, `read`, `spawn` and
`aspawn`, the counts of what each cap left out, and the stream's report cap."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path
from typing import List

import pytest

import hep

HEADER = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}'
DONE = (
    '{"type":"turn_done","turn_id":1,"message":"ok","tool_results":[],'
    '"usage":{"input":1,"output":1,"cost":0.0},"stop_reason":"stop"}'
)


def one_round(body: List[str]) -> str:
    return "\n".join([HEADER, '{"type":"agent_start","turn_id":1}', *body, DONE]) + "\n"


def calls(n: int) -> List[str]:
    """`n` calls started, then a delta for a call never started."""
    starts = [f'{{"type":"tool_start","turn_id":1,"id":"c{i}","name":"sh","args_summary":""}}' for i in range(n)]
    return [*starts, '{"type":"tool_delta","turn_id":1,"id":"stray","update":"x"}']


def finish(stream: hep.Stream, text: str) -> hep.RunResult:
    stream.feed(text)
    return stream.finish(0)


def rounds(n: int) -> str:
    """`n` rounds, each with its text `r<id>` and a `turn_done`."""
    lines = [HEADER, '{"type":"agent_start","turn_id":1}']
    for i in range(1, n + 1):
        lines.append(f'{{"type":"message_delta","turn_id":{i},"delta":"r{i}"}}')
        lines.append(DONE.replace('"turn_id":1', f'"turn_id":{i}'))
    return "\n".join(lines) + "\n"


def test_untracked_calls_are_counted_and_the_verdict_holds() -> None:
    text = one_round(calls(10))
    capped = finish(hep.Stream(limits=hep.Limits(max_tracked_calls=4)), text)
    assert capped.untracked_calls == 6
    assert capped.violation_count == 0
    assert capped.data["untracked_calls"] == 6

    roomy = finish(hep.Stream(), text)
    assert roomy.untracked_calls == 0
    assert [v.code for v in roomy.violations] == ["unknown_tool_call"]
    assert capped.verdict == roomy.verdict == "ok"


def test_compactions_past_the_cap_are_counted_per_turn() -> None:
    body = ['{"type":"compaction_start","turn_id":1}\n{"type":"compaction_end","turn_id":1,"tokens_freed":5}'] * 7
    result = finish(hep.Stream(limits=hep.Limits(max_compactions_per_turn=3)), one_round(body))
    (turn,) = result.turns
    assert (turn.compactions, turn.compactions_dropped, turn.bytes_dropped) == ((5, 5, 5), 4, 0)
    assert (result.compactions, result.tokens_freed) == (7, 35)


def test_follow_ups_past_the_cap_are_counted_per_call() -> None:
    liveness = (
        '{"type":"tool_liveness","turn_id":1,"id":"c0","name":"sh","action":"advisory","elapsed_ms":1,"detail":"slow"}'
    )
    result = finish(hep.Stream(), one_round([*calls(1)[:1], *[liveness] * 40]))
    (call,) = result.tool_calls
    assert (len(call.followups), call.followups_dropped) == (32, 8)


def test_the_stream_keeps_at_most_1000_violations_and_skipped_lines() -> None:
    stream = hep.Stream()
    stream.feed(one_round(['{"type":"message_start","turn_id":1,"role":"user"}\nnot json'] * 1500)[: -len(DONE) - 1])
    assert (len(stream.violations), len(stream.skipped)) == (1000, 1000)
    result = stream.finish(0)
    assert (len(result.violations), result.violation_count) == (1000, 1501)
    assert (len(result.skipped), result.skipped_count) == (1000, 1500)


def test_limits_is_a_frozen_keyword_only_value_with_the_cores_defaults() -> None:
    limits = hep.Limits(max_turns=2, max_reports=0)
    assert (limits.max_turns, limits.max_reports) == (2, 0)
    assert limits.max_text_bytes == hep.Limits().max_text_bytes
    assert limits == hep.Limits(max_reports=0, max_turns=2) != hep.Limits()
    assert hash(limits) == hash(hep.Limits(max_turns=2, max_reports=0))
    assert eval(repr(limits), {"Limits": hep.Limits}) == limits
    assert repr(hep.Limits()).startswith("Limits(max_turns=")
    with pytest.raises(AttributeError):
        limits.max_turns = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        hep.Limits(2)  # type: ignore[misc]


def test_max_turns_keeps_the_last_turns_through_stream_and_read(tmp_path: Path) -> None:
    limits = hep.Limits(max_turns=2)
    result = finish(hep.Stream(limits=limits), rounds(5))
    assert [(t.turn_id, t.text) for t in result.turns] == [(4, "r4"), (5, "r5")]
    assert (result.turns_dropped, result.usage.input, result.verdict) == (3, 5, "ok")
    assert finish(hep.Stream(), rounds(5)).turns_dropped == 0

    path = tmp_path / "run.hep"
    path.write_text(rounds(5))
    # `read` keeps its frames (all ten rounds' lines) whatever the limits: they cap the
    # state a stream keeps, not what it yields.
    assert len(list(hep.read(path, limits=limits))) == len(list(hep.read(io.BytesIO(path.read_bytes()))))
    with pytest.raises(TypeError, match="limits"):
        list(hep.read(path, limits={"max_turns": 2}))  # type: ignore[arg-type]


def test_max_turns_keeps_the_last_turns_through_spawn_and_aspawn() -> None:
    argv = [sys.executable, "-c", f"import sys; sys.stdout.write({rounds(5)!r})"]
    with hep.spawn(argv, limits=hep.Limits(max_turns=2)) as run:
        result = run.wait()
    assert ([t.turn_id for t in result.turns], result.turns_dropped, result.verdict) == ([4, 5], 3, "ok")

    async def supervise() -> hep.RunResult:
        async with await hep.aspawn(argv, limits=hep.Limits(max_turns=1)) as run:
            return await run.wait()

    result = asyncio.run(supervise())
    assert ([t.turn_id for t in result.turns], result.turns_dropped) == ([5], 4)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: hep.Limits(max_turns=-1), ValueError, "Limits\\(\\): max_turns must be >= 0, not -1"),
        (lambda: hep.Limits(max_reports="9"), TypeError, "Limits\\(\\): max_reports must be an int, not str"),
        (lambda: hep.Limits(max_followups=True), TypeError, "max_followups must be an int, not bool"),
        (lambda: hep.Limits(max_turn=2), TypeError, "unexpected keyword argument 'max_turn'"),
        (lambda: hep.Stream(limits={"max_turns": 2}), TypeError, "limits"),
        (lambda: hep.spawn([sys.executable, "-c", ""], limits=2), TypeError, "limits must be a hep.Limits or None, not int"),
    ],
)
def test_a_bad_limit_is_refused_naming_it(make: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        make()  # type: ignore[operator]


def test_aspawn_refuses_bad_limits_before_starting_a_child() -> None:
    with pytest.raises(TypeError, match="limits must be a hep.Limits or None, not dict"):
        asyncio.run(hep.aspawn([sys.executable, "-c", ""], limits={"max_turns": 1}))  # type: ignore[arg-type]


def test_the_conformance_runner_refuses_an_unknown_or_bad_limit() -> None:
    from conformance_support import CaseError
    from conformance_stream import stream_limits

    assert stream_limits({"options": {"limits": {"max_turns": 2}}}) == hep.Limits(max_turns=2)
    with pytest.raises(CaseError, match="unexpected keyword argument 'max_turn'"):
        stream_limits({"options": {"limits": {"max_turn": 2}}})
    with pytest.raises(CaseError, match="max_turns must be >= 0"):
        stream_limits({"options": {"limits": {"max_turns": -2}}})
