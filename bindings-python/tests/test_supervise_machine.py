"""`hep.Supervisor`, the core's supervision state machine, as Python sees it: the
conversions (seconds to the microsecond, `Popen.returncode`s, the event and action
objects, the result) and the refusals. The policy itself is pinned by the supervise/
conformance vectors (test_conformance.py); the drivers by the real-child tests."""

from __future__ import annotations

import math
import signal
from typing import Any, List, Optional

import pytest

import hep

HEADER = b'{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s-1"}\n'
START = b'{"type":"agent_start","turn_id":1}\n'
DONE = (
    b'{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],'
    b'"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}\n'
)


def actions(sup: hep.Supervisor) -> List[hep.SupervisorAction]:
    found = []
    while True:
        action = sup.poll_action()
        if action is None:
            return found
        found.append(action)


def events(sup: hep.Supervisor) -> List[Any]:
    found = []
    while True:
        event = sup.poll_event()
        if event is None:
            return found
        found.append(event)


def finish(sup: hep.Supervisor, now: float, returncode: Optional[int]) -> hep.RunResult:
    sup.exited(now, returncode)
    sup.stdout_closed(now)
    sup.stderr_closed(now)
    result = sup.result()
    assert result is not None
    return result


def test_a_whole_run_in_seconds() -> None:
    sup = hep.Supervisor(100.0)
    sup.stdout(100.25, HEADER + START)
    sup.stderr(100.5, "a line\npartial")
    sup.stdout(101.0, bytearray(DONE))
    assert [type(e).__name__ for e in events(sup)] == ["HepHeader", "AgentStart", "TurnDone"]
    assert sup.poll_stderr() == "a line" and sup.poll_stderr() is None
    assert not sup.is_finished() and sup.result() is None
    sup.exited(101.5, 0)
    assert [a.kind for a in actions(sup)] == ["kill_group"]
    assert sup.deadline() == 101.5 + hep.DRAIN_AFTER_EXIT  # the drain after the exit
    sup.stdout_closed(101.5)
    sup.stderr_closed(101.75)
    assert sup.poll_stderr() == "partial"
    assert sup.is_finished() and sup.deadline() is None
    result = sup.result()
    assert result is not None and sup.result() is result
    assert (result.verdict, result.exit_code, result.answer, result.conforms) == ("ok", 0, "hi", True)
    assert result.supervision == hep.Supervision(
        timed_out=False,
        cancelled_by=None,
        signals=(),
        stderr_tail="a line\npartial",
        stderr_dropped=0,
        notices_dropped=0,
        duration=1.75,
    )
    assert result.stderr_tail == "a line\npartial"
    assert result.data["supervision"]["duration_ms"] == 1750


def test_the_cancel_ladder_in_actions() -> None:
    sup = hep.Supervisor(0.0, interrupt_grace=1.5, terminate_grace=0.25)
    sup.cancel(1.0)
    (sigint,) = actions(sup)
    assert (sigint.kind, sigint.signal, sigint.reason, sigint.next) == (
        "signal",
        signal.SIGINT,
        "user",
        (signal.SIGTERM, 1.5),
    )
    assert isinstance(sigint.signal, signal.Signals)
    assert sup.deadline() == 2.5
    sup.tick(sup.deadline() or 0)  # a deadline from deadline() is always reached by tick
    (sigterm,) = actions(sup)
    assert (sigterm.signal, sigterm.next) == (signal.SIGTERM, (signal.SIGKILL, 0.25))
    sup.cancel(2.6, "user")  # a second request from the user: SIGKILL at once
    (sigkill,) = actions(sup)
    assert (sigkill.signal, sigkill.next, sup.deadline()) == (signal.SIGKILL, None, None)
    result = finish(sup, 2.7, -signal.SIGKILL)
    assert (result.verdict, result.exit_code) == ("incomplete", 137)
    supervision = result.supervision
    assert supervision is not None and supervision.cancelled_by == "user"
    assert supervision.signals == (
        hep.SentSignal(1.0, "SIGINT"),
        hep.SentSignal(2.5, "SIGTERM"),
        hep.SentSignal(2.6, "SIGKILL"),
    )
    assert result.reasons[0] == "the supervisor cancelled the run: cancelled on request"


def test_a_cancel_grace_and_a_timeout_and_idleness() -> None:
    sup = hep.Supervisor(0.0, timeout=10.0, idle_timeout=3.0)
    assert sup.deadline() == 3.0
    sup.stdout(2.0, HEADER)  # a frame: idle again from 2 s on
    assert sup.deadline() == 5.0
    sup.tick(5.0)
    (sigint,) = actions(sup)
    assert (sigint.reason, sigint.next) == ("idle", (signal.SIGTERM, hep.INTERRUPT_GRACE))
    result = finish(sup, 5.5, 130)
    assert result.reasons[0] == "the supervisor cancelled the run: idle for 3 s: no frame"
    assert result.supervision is not None and result.supervision.cancelled_by == "idle"

    sup = hep.Supervisor(0.0, timeout=0.5)
    sup.cancel(0.1, "user", 0.2)
    (sigint,) = actions(sup)
    assert sigint.next == (signal.SIGTERM, 0.2)


def test_times_keep_the_microsecond_and_survive_the_trip() -> None:
    sup = hep.Supervisor(1234567.000001, idle_timeout=0.000002)
    due = sup.deadline()
    assert due == 1234567.000003
    sup.tick(due or 0)
    assert [a.reason for a in actions(sup)] == ["idle"]


@pytest.mark.parametrize("bad", [-1.0, -1e-9 * 1e6, math.nan, math.inf, 2.0**60])
def test_a_bad_time_is_refused_naming_it(bad: float) -> None:
    with pytest.raises(ValueError, match="now must be a finite number of seconds"):
        hep.Supervisor(bad)
    with pytest.raises(ValueError, match="interrupt_grace"):
        hep.Supervisor(0.0, interrupt_grace=bad)
    with pytest.raises(ValueError, match="idle_timeout"):
        hep.Supervisor(0.0, idle_timeout=bad)
    sup = hep.Supervisor(0.0)
    with pytest.raises(ValueError, match="now"):
        sup.tick(bad)
    with pytest.raises(ValueError, match="grace"):
        sup.cancel(1.0, "user", bad)
    assert actions(sup) == [], "a refused call changes nothing"


def test_a_bad_reason_is_refused() -> None:
    sup = hep.Supervisor(0.0)
    with pytest.raises(ValueError, match='reason must be "user", "timeout" or "idle", not "boredom"'):
        sup.cancel(1.0, "boredom")  # type: ignore[arg-type]
    assert actions(sup) == []


def test_returncodes_as_popen_gives_them() -> None:
    assert finish(hep.Supervisor(0.0), 1.0, -signal.SIGTERM).exit_code == 143
    assert finish(hep.Supervisor(0.0), 1.0, 3).exit_code == 3


def test_events_are_frames_violations_skipped_lines_and_the_halt() -> None:
    sup = hep.Supervisor(0.0)
    sup.stdout(0.1, HEADER + b"not json\n" + b'{"type":"message_start","turn_id":1,"role":"user"}\n')
    header, skipped, frame, *violations = events(sup)
    assert isinstance(header, hep.HepHeader) and header.line == 1 and header.raw == HEADER.decode().strip()
    assert isinstance(skipped, hep.SkippedLine) and (skipped.kind, skipped.line) == ("syntax", 2)
    assert isinstance(frame, hep.MessageStart)
    assert [(v.code, v.severity, v.line) for v in violations] == [
        ("frame_before_agent_start", "error", 3),
        ("unexpected_role", "warning", 3),
    ]
    assert all(isinstance(v, hep.Violation) for v in violations)
    assert sup.violations == violations and sup.skipped == [skipped] and sup.halted is None

    strict = hep.Supervisor(0.0, strict=True)
    strict.stdout(0.1, HEADER + b"not json\n" + START)
    header, skipped, halt = events(strict)
    assert isinstance(skipped, hep.SkippedLine)
    assert isinstance(halt, hep.JsonSyntaxError) and (halt.kind, halt.line) == ("syntax", 2)
    assert isinstance(strict.halted, hep.JsonSyntaxError)
    result = finish(strict, 1.0, 0)
    assert result.verdict == "protocol_error"
    assert strict.skipped == [skipped] and isinstance(strict.halted, hep.JsonSyntaxError)


def test_backpressure_pauses_and_taking_events_resumes() -> None:
    sup = hep.Supervisor(0.0, pause_at_bytes=300)
    sup.stdout(0.0, HEADER + START + DONE)
    assert [a.kind for a in actions(sup)] == ["pause_stdout"] and sup.is_paused()
    events(sup)
    assert [a.kind for a in actions(sup)] == ["resume_stdout"] and not sup.is_paused()


def test_actions_compare_match_and_show() -> None:
    sup = hep.Supervisor(0.0)
    sup.cancel(0.0)
    sup.exited(0.1, 130)
    sigint, kill = actions(sup)
    assert kill.kind == "kill_group" and kill.signal == signal.SIGKILL and kill.reason is None and kill.next is None
    assert repr(kill) == "SupervisorAction(kind='kill_group')"
    assert repr(sigint) == (
        "SupervisorAction(kind='signal', signal=<Signals.SIGINT: 2>, reason='user', "
        "next=(<Signals.SIGTERM: 15>, 12.0))"
    )
    again = hep.Supervisor(5.0)
    again.cancel(5.0)
    assert actions(again) == [sigint] and sigint != kill
    match kill:
        case hep.SupervisorAction("kill_group"):
            pass
        case _:
            pytest.fail("no match on kind")


def test_the_result_before_the_end_and_the_reports_after() -> None:
    sup = hep.Supervisor(0.0)
    sup.stdout(0.0, HEADER + b"garbage\n")
    sup.exited(0.5, 0)
    assert sup.result() is None  # the pipes are still open
    sup.tick(0.5 + hep.DRAIN_AFTER_EXIT)  # the drain ends: the pipes are closed by order
    assert [a.kind for a in actions(sup)] == ["kill_group", "close_pipes"]
    result = sup.result()
    assert result is not None and result.skipped_count == 1
    assert [s.line for s in sup.skipped] == [2]


def test_who_cancelled_a_cancel_under_way_and_the_end_of_stdout() -> None:
    sup = hep.Supervisor(0.0, timeout=1.0)
    assert (sup.cancelled_by(), sup.is_cancelling(), sup.timed_out(), sup.is_stdout_open()) == (None, False, False, True)
    sup.tick(1.0)
    assert [a.reason for a in actions(sup)] == ["timeout"]
    assert (sup.cancelled_by(), sup.is_cancelling(), sup.timed_out()) == ("timeout", True, True)
    sup.cancel(1.5)  # the user's later request hurries it, but does not change who cancelled
    assert sup.cancelled_by() == "timeout"
    sup.stdout_closed(1.6)
    assert not sup.is_stdout_open()
    sup.exited(1.7, 130)
    assert (sup.cancelled_by(), sup.is_cancelling(), sup.timed_out()) == ("timeout", False, True)


def test_an_unknown_exit_is_judged_without_an_exit_code() -> None:
    sup = hep.Supervisor(0.0)
    sup.stdout(0.1, HEADER + START + DONE)
    result = finish(sup, 0.5, None)
    assert (result.verdict, result.exit_code) == ("ok", None)


def test_a_detached_consumer_is_never_paused() -> None:
    sup = hep.Supervisor(0.0, pause_at_bytes=300)
    sup.stdout(0.0, HEADER + START + DONE)
    assert [a.kind for a in actions(sup)] == ["pause_stdout"]
    sup.set_consumer(0.1, False)  # detaching resumes stdout
    assert [a.kind for a in actions(sup)] == ["resume_stdout"] and not sup.is_paused()
    sup.stdout(0.2, HEADER + START + DONE)
    assert actions(sup) == [] and not sup.is_paused()
    sup.set_consumer(0.3, True)  # attached again: backpressure from the next read
    assert actions(sup) == []
    sup.stdout(0.4, START)
    assert [a.kind for a in actions(sup)] == ["pause_stdout"]


def test_taking_events_restarts_the_idle_clock_at_the_next_time_told() -> None:
    sup = hep.Supervisor(0.0, pause_at_bytes=100, idle_timeout=1.0)
    sup.stdout(0.0, HEADER + START)  # paused: the idle clock stops with 1 s left
    assert [a.kind for a in actions(sup)] == ["pause_stdout"] and sup.deadline() is None
    events(sup)  # resumes stdout; taking events tells no time
    assert [a.kind for a in actions(sup)] == ["resume_stdout"]
    assert sup.deadline() == 0.0  # at or before the latest time told: tick now
    sup.tick(5.0)  # with the current time: the clock runs on from there
    assert sup.deadline() == 6.0 and actions(sup) == []


def test_the_drop_threshold() -> None:
    assert hep.Supervisor(0.0).drop_at_bytes() == 16 * hep.PAUSE_AT_BYTES
    assert hep.Supervisor(0.0, pause_at_bytes=10).drop_at_bytes() == hep.MIN_DROP_AT_BYTES == 1 << 20
