"""The cancel's grace periods with `hep.spawn` and `hep.aspawn`: SIGINT, then SIGTERM after
`interrupt_grace`, then SIGKILL after `terminate_grace`. The defaults are the core's
constants, a caller can change both, and a bad value is refused before any child starts.
Every test that escalates passes short graces.
"""

from __future__ import annotations

import inspect
import math
import signal
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

import hep

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)

INTERRUPT = 0.2
TERMINATE = 0.8
# How late a signal may come past its due time on a loaded machine.
SLACK = 2.0


def signal_times(log: Path) -> Dict[str, float]:
    """When the stubborn emitter got each signal (`time.monotonic()`, the same clock here)."""
    assert eventually(log.exists), f"the emitter never logged a signal to {log}"
    times = {}
    for line in log.read_text().splitlines():
        name, at = line.split()
        times.setdefault(name, float(at))
    return times


def check_escalation(log: Path, started: float, took: float, result: hep.RunResult) -> None:
    """SIGINT at once, SIGTERM `INTERRUPT` later, SIGKILL `TERMINATE` after that."""
    times = signal_times(log)
    assert sorted(times) == ["SIGINT", "SIGTERM"], times
    sigint, sigterm = times["SIGINT"] - started, times["SIGTERM"] - started
    assert 0 <= sigint < SLACK
    # SIGTERM waits for the interrupt grace, and not for the (longer) terminate grace.
    assert INTERRUPT <= sigterm < TERMINATE, (sigint, sigterm)
    # SIGKILL (cancel returns once it is sent) waits for the terminate grace after SIGTERM.
    assert took >= INTERRUPT + TERMINATE, (sigterm, took)
    assert took - sigterm >= TERMINATE - 0.1, (sigterm, took)
    assert took < INTERRUPT + TERMINATE + SLACK, took
    assert (result.exit_code, result.verdict) == (128 + signal.SIGKILL, "incomplete")


# ---- the defaults are the core's ----


def test_the_cores_grace_periods_outlast_the_reference_settle_and_drain() -> None:
    # hep_core::supervise: INTERRUPT_GRACE = REFERENCE_SETTLE (10 s) + DRAIN_ALLOWANCE (2 s).
    assert (hep.INTERRUPT_GRACE, hep.TERMINATE_GRACE) == (12.0, 2.0)


@pytest.mark.parametrize("function", [hep.spawn, hep.aspawn, hep.Run], ids=["spawn", "aspawn", "Run"])
def test_the_grace_parameters_default_to_the_cores_constants(function: Callable[..., Any]) -> None:
    parameters = inspect.signature(function).parameters
    for name, default in (("interrupt_grace", hep.INTERRUPT_GRACE), ("terminate_grace", hep.TERMINATE_GRACE)):
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters[name].default == default


def test_a_run_reports_its_grace_periods() -> None:
    with hep.spawn([PY, "-c", "pass"]) as run:
        assert (run.interrupt_grace, run.terminate_grace) == (hep.INTERRUPT_GRACE, hep.TERMINATE_GRACE)
        run.wait()
    with hep.spawn([PY, "-c", "pass"], interrupt_grace=1, terminate_grace=0) as run:
        assert (run.interrupt_grace, run.terminate_grace) == (1.0, 0.0)
        assert isinstance(run.interrupt_grace, float)
        run.wait()

    async def main() -> Tuple[float, float]:
        async with await hep.aspawn([PY, "-c", "pass"], interrupt_grace=0.5) as run:
            await run.wait()
            return run.interrupt_grace, run.terminate_grace

    assert arun(main) == (0.5, hep.TERMINATE_GRACE)


# ---- a child that ignores SIGINT and SIGTERM: each signal after its grace ----


def test_sigterm_after_interrupt_grace_and_sigkill_after_terminate_grace(tmp_path: Path) -> None:
    log = tmp_path / "signals"
    with hep.spawn(emit("stubborn", log), interrupt_grace=INTERRUPT, terminate_grace=TERMINATE) as run:
        with Watchdog(run.pid) as dog:
            for frame in run:
                if isinstance(frame, hep.MessageDelta):  # its handlers are set by now
                    break
            started = time.monotonic()
            run.cancel()
            took = time.monotonic() - started
            result = run.wait()
        assert not dog.fired
    check_escalation(log, started, took, result)


def test_async_sigterm_after_interrupt_grace_and_sigkill_after_terminate_grace(tmp_path: Path) -> None:
    log = tmp_path / "signals"

    async def main() -> Tuple[float, float, hep.RunResult]:
        argv = emit("stubborn", log)
        async with await hep.aspawn(argv, interrupt_grace=INTERRUPT, terminate_grace=TERMINATE) as run:
            while not isinstance(await anext_within(run), hep.MessageDelta):
                pass
            started = time.monotonic()
            await run.cancel()
            took = time.monotonic() - started
            return started, took, await run.wait()

    started, took, result = arun(main)
    check_escalation(log, started, took, result)


def test_cancel_grace_replaces_the_interrupt_grace_for_that_cancel(tmp_path: Path) -> None:
    log = tmp_path / "signals"
    with hep.spawn(emit("stubborn", log), interrupt_grace=60, terminate_grace=0.1) as run:
        with Watchdog(run.pid) as dog:
            for frame in run:
                if isinstance(frame, hep.MessageDelta):
                    break
            started = time.monotonic()
            run.cancel(grace=INTERRUPT)
            took = time.monotonic() - started
            result = run.wait()
        assert not dog.fired
    sigterm = signal_times(log)["SIGTERM"] - started
    assert INTERRUPT <= sigterm < SLACK and INTERRUPT + 0.1 <= took < SLACK
    assert result.exit_code == 137


def test_a_child_that_writes_cancelled_on_sigterm_is_cancelled_after_interrupt_grace() -> None:
    with hep.spawn(ONLY_SIGTERM_STOPS, interrupt_grace=INTERRUPT) as run, Watchdog(run.pid) as dog:
        next(run)  # its traps are set before it writes
        started = time.monotonic()
        run.cancel()
        took = time.monotonic() - started
        frames = list(run)
        result = run.wait()
    assert not dog.fired
    assert INTERRUPT <= took < SLACK
    assert [f.type for f in frames] == ["agent_start", "cancelled"]
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True)


def deaf() -> None:
    """Run in the child before exec: SIGINT and SIGTERM ignored (exec keeps that), so the
    child ignores them from its first instruction on."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_timeout_escalates_with_the_runs_grace_periods(mode: str) -> None:
    argv = ["sleep", "30"]
    options: Dict[str, Any] = {"interrupt_grace": INTERRUPT, "terminate_grace": INTERRUPT, "preexec_fn": deaf}
    started = time.monotonic()
    if mode == "sync":
        with hep.spawn(argv, timeout=0.1, **options) as run, Watchdog(run.pid) as dog:
            result = run.wait()
        assert not dog.fired
    else:

        async def main() -> Tuple[Any, hep.RunResult]:
            async with await hep.aspawn(argv, timeout=0.1, **options) as run:
                return run, await run.wait()

        run, result = arun(main)
    took = time.monotonic() - started
    assert run.timed_out
    assert result.exit_code == 128 + signal.SIGKILL
    assert 0.1 + 2 * INTERRUPT <= took < 0.1 + 2 * INTERRUPT + SLACK


# ---- bad values are refused before a child starts ----

BAD_SECONDS: List[Tuple[Any, type]] = [
    (-1, ValueError),
    (-0.001, ValueError),
    (math.nan, ValueError),
    (math.inf, ValueError),
    (10**400, ValueError),
    ("5", TypeError),
    (True, TypeError),
    (None, TypeError),
]


@pytest.mark.parametrize("name", ["interrupt_grace", "terminate_grace"])
@pytest.mark.parametrize(("value", "error"), BAD_SECONDS, ids=[repr(v)[:12] for v, _ in BAD_SECONDS])
def test_a_bad_grace_is_refused_naming_it_before_the_start(tmp_path: Path, name: str, value: Any, error: type) -> None:
    marker = tmp_path / "started"
    argv = ["touch", str(marker)]
    with pytest.raises(error, match=name):
        hep.spawn(argv, **{name: value})
    with pytest.raises(error, match=name):
        hep.Run(argv, **{name: value})
    with pytest.raises(error, match=name):
        arun(lambda: hep.aspawn(argv, **{name: value}))
    assert not marker.exists(), "a child was started"


@pytest.mark.parametrize(("value", "error"), BAD_SECONDS[:-1], ids=[repr(v)[:12] for v, _ in BAD_SECONDS[:-1]])
def test_a_bad_cancel_grace_is_refused_and_the_child_keeps_running(value: Any, error: type) -> None:
    with hep.spawn(ONLY_SIGTERM_STOPS, interrupt_grace=0) as run, Watchdog(run.pid) as dog:
        next(run)
        with pytest.raises(error, match="grace"):
            run.cancel(grace=value)
        assert alive(run.pid)
    # Leaving the block cancelled it with the run's own graces: SIGTERM at once.
    assert not dog.fired
    assert (run.wait().verdict, run.wait().exit_code) == ("cancelled", 130)

    async def main() -> hep.RunResult:
        async with await hep.aspawn(ONLY_SIGTERM_STOPS, interrupt_grace=0) as arun_:
            await anext_within(arun_)
            with pytest.raises(error, match="grace"):
                await arun_.cancel(grace=value)
            assert alive(arun_.pid)
        return await arun_.wait()

    result = arun(main)
    assert (result.verdict, result.exit_code) == ("cancelled", 130)
