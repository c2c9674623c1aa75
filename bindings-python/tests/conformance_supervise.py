"""The `supervise/` cases: a timeline of what a supervised child did, fed to `hep.Supervisor`
on a simulated clock (milliseconds in the cases, seconds for the binding), and what it must
order and conclude. The runner is conformance/README.md's, step for step (a deadline before
the clock is ticked at the clock: "tick now"); any key it does not know, in a case, its
options, a step, `exit`, `expect` or `expect.result`, fails the case.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import hep

from conformance_support import CaseError, get, get_list, get_str, get_uint, same_json, show, text, wire_type

CASE_KEYS = ("description", "options", "consume", "steps", "expect")
OPTION_KEYS = (
    "timeout_ms",
    "idle_timeout_ms",
    "interrupt_grace_ms",
    "terminate_grace_ms",
    "drain_ms",
    "stderr_tail_bytes",
    "max_stderr_line",
    "pause_at_bytes",
    "strict",
    "max_reports",
)
STEP_KEYS = ("at", "stdout", "stderr", "cancel", "grace_ms", "exit", "close", "consumer", "consume")
EXPECT_KEYS = ("actions", "stderr_lines", "frames", "finished_at", "result")
RESULT_KEYS = (
    "verdict",
    "exit_code",
    "reasons",
    "conforms",
    "timed_out",
    "cancelled_by",
    "signals",
    "stderr_tail",
    "stderr_dropped",
    "notices_dropped",
    "duration_ms",
)
# Each option in milliseconds, with the keyword of `hep.Supervisor` it sets (in seconds).
TIMES = {
    "timeout_ms": "timeout",
    "idle_timeout_ms": "idle_timeout",
    "interrupt_grace_ms": "interrupt_grace",
    "terminate_grace_ms": "terminate_grace",
    "drain_ms": "drain",
}


def keys_known(what: str, value: Any, known: tuple) -> None:
    if not isinstance(value, dict):
        raise CaseError(f"{what} must be an object")
    for key in value:
        if key not in known:
            raise CaseError(f"unknown key `{key}` in {what}")


def seconds(ms: int) -> float:
    return ms / 1000


def millis(s: float) -> int:
    """Seconds from the binding back to whole milliseconds (the binding keeps microseconds)."""
    return round(s * 1000)


def supervisor(case: Dict[str, Any]) -> hep.Supervisor:
    """A supervisor at time 0 with the case's options (the core's defaults for the others)."""
    given = case.get("options", {})
    keys_known("`options`", given, OPTION_KEYS)
    options: Dict[str, Any] = {}
    for key, keyword in TIMES.items():
        if given.get(key) is not None:
            options[keyword] = seconds(get_uint(given, key))
    for key in ("stderr_tail_bytes", "max_stderr_line", "pause_at_bytes"):
        if key in given:
            options[key] = get_uint(given, key)
    if "max_reports" in given:
        options["limits"] = hep.Limits(max_reports=get_uint(given, "max_reports"))
    strict = given.get("strict", False)
    if not isinstance(strict, bool):
        raise CaseError("`options.strict` must be a boolean")
    return hep.Supervisor(0.0, strict=strict, **options)


def action_json(at: int, action: hep.SupervisorAction) -> Dict[str, Any]:
    """An action as the cases spell it."""
    if action.kind != "signal":
        return {"at": at, "action": action.kind}
    assert action.signal is not None
    after = action.next
    return {
        "at": at,
        "action": "signal",
        "signal": action.signal.name,
        "reason": action.reason,
        "next": None if after is None else {"signal": after[0].name, "after_ms": millis(after[1])},
    }


class Seen:
    """What the run produced, on the simulated clock."""

    def __init__(self, auto: bool) -> None:
        self.auto = auto
        self.actions: List[Dict[str, Any]] = []
        self.stderr_lines: List[str] = []
        self.frames: List[str] = []
        self.finished_at: Optional[int] = None

    def event(self, event: Any) -> None:
        if not isinstance(event, (hep.Violation, hep.SkippedLine, hep.HepError)):
            self.frames.append(wire_type(event))

    def take_actions(self, sup: hep.Supervisor, at: int) -> None:
        while True:
            action = sup.poll_action()
            if action is None:
                return
            self.actions.append(action_json(at, action))

    def collect(self, sup: hep.Supervisor, at: int) -> None:
        """Takes every action, every stderr line and, with `consume: auto`, every event
        (and the actions after each one) at `at`."""
        self.take_actions(sup, at)
        while True:
            line = sup.poll_stderr()
            if line is None:
                break
            self.stderr_lines.append(line)
        while self.auto:
            event = sup.poll_event()
            if event is None:
                break
            self.event(event)
            self.take_actions(sup, at)
        if sup.is_finished() and self.finished_at is None:
            self.finished_at = at


def apply(sup: hep.Supervisor, seen: Seen, step: Dict[str, Any], now: float) -> None:
    """Applies one step; a step does exactly one thing."""
    did = 0
    if "stdout" in step:
        sup.stdout(now, text(step["stdout"]).encode())
        did += 1
    if "stderr" in step:
        sup.stderr(now, text(step["stderr"]).encode())
        did += 1
    if "cancel" in step:
        reason = get_str(step, "cancel")
        if reason not in ("user", "timeout", "idle"):
            raise CaseError(f"unknown cancel reason `{reason}`")
        grace = step.get("grace_ms")
        sup.cancel(now, reason, None if grace is None else seconds(get_uint(step, "grace_ms")))
        did += 1
    elif "grace_ms" in step:
        raise CaseError("`grace_ms` belongs to a `cancel` step")
    if step.get("exit") == "unknown":  # something else reaped the child
        sup.exited(now, None)
        did += 1
    elif "exit" in step:
        exit = step["exit"]
        keys_known("`exit`", exit, ("code", "signal"))
        values = {k: v for k, v in exit.items() if isinstance(v, int) and not isinstance(v, bool)}
        if len(exit) != 1 or len(values) != 1:
            raise CaseError(f"`exit` needs one integer `code` or `signal`: {show(exit)}")
        sup.exited(now, values["code"] if "code" in values else -values["signal"])
        did += 1
    if "close" in step:
        which = get_str(step, "close")
        if which not in ("stdout", "stderr", "both"):
            raise CaseError(f"`close` must be stdout, stderr or both, not `{which}`")
        if which in ("stdout", "both"):
            sup.stdout_closed(now)
        if which in ("stderr", "both"):
            sup.stderr_closed(now)
        did += 1
    if "consumer" in step:
        consumer = get_str(step, "consumer")
        if consumer not in ("attached", "detached"):
            raise CaseError(f"`consumer` must be attached or detached, not `{consumer}`")
        sup.set_consumer(now, consumer == "attached")
        did += 1
    if "consume" in step:
        for _ in range(get_uint(step, "consume")):
            event = sup.poll_event()
            if event is None:
                break
            seen.event(event)
        did += 1
    if did != 1:
        raise CaseError(f"a step does exactly one thing; this one does {did}: {show(step)}")


def run_supervise(case: Dict[str, Any]) -> None:
    keys_known("the case", case, CASE_KEYS)
    consume = case.get("consume", "auto")
    if consume not in ("auto", "manual"):
        raise CaseError('`consume` must be "auto" or "manual"')
    sup = supervisor(case)
    seen = Seen(consume == "auto")
    clock = 0
    for i, step in enumerate(get_list(case, "steps")):
        try:
            keys_known(f"steps[{i}]", step, STEP_KEYS)
            at = get_uint(step, "at")
            if at < clock:
                raise CaseError(f"`at` {at} is before the previous step's {clock}")
            while True:
                due = sup.deadline()
                if due is None or millis(due) > at:
                    break
                clock = max(clock, millis(due))  # a deadline before the clock: tick now
                sup.tick(seconds(clock))
                seen.collect(sup, clock)
            clock = at
            apply(sup, seen, step, seconds(at))
            seen.collect(sup, at)
        except CaseError as e:
            raise CaseError(f"steps[{i}]: {e}") from None
    while not sup.is_finished():
        due = sup.deadline()
        if due is None:
            break
        clock = max(clock, millis(due))
        sup.tick(seconds(clock))
        seen.collect(sup, clock)
    while True:
        event = sup.poll_event()
        if event is None:
            break
        seen.event(event)
    check(case, sup, seen)


def outcome(result: hep.RunResult) -> Dict[str, Any]:
    """The result's fields the cases pin, as they spell them."""
    supervision = result.supervision
    if supervision is None:
        raise CaseError("a supervised result has no `supervision`")
    return {
        "verdict": result.verdict,
        "exit_code": result.exit_code,
        "reasons": list(result.reasons),
        "conforms": result.conforms,
        "timed_out": supervision.timed_out,
        "cancelled_by": supervision.cancelled_by,
        "signals": [{"at_ms": millis(s.at), "signal": s.signal} for s in supervision.signals],
        "stderr_tail": supervision.stderr_tail,
        "stderr_dropped": supervision.stderr_dropped,
        "notices_dropped": supervision.notices_dropped,
        "duration_ms": millis(supervision.duration),
    }


def check(case: Dict[str, Any], sup: hep.Supervisor, seen: Seen) -> None:
    expect = get(case, "expect")
    keys_known("`expect`", expect, EXPECT_KEYS)
    problems = []
    got: Dict[str, Any] = {
        "actions": seen.actions,
        "stderr_lines": seen.stderr_lines,
        "frames": seen.frames,
        "finished_at": seen.finished_at,
    }
    for key in ("actions", "stderr_lines", "frames", "finished_at"):
        if key in expect:
            try:
                same_json(f"`{key}`", expect[key], got[key])
            except CaseError as e:
                problems.append(str(e))
    if "result" in expect:
        want = expect["result"]
        keys_known("`expect.result`", want, RESULT_KEYS)
        result = sup.result()
        if result is None:
            raise CaseError("the run never finished (no result), though `expect.result` is given")
        fields = outcome(result)
        for key, value in want.items():
            try:
                same_json(f"`result.{key}`", value, fields[key])
            except CaseError as e:
                problems.append(str(e))
    if problems:
        raise CaseError("\n".join(problems))
