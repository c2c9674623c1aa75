"""The example supervisor (examples/python/supervise.py) against a hostile child
(examples/hostile/emit.sh): every text field it prints, the verdict's reasons, the
violations and the child's stderr come out with no control character, escape sequence or
bidi control left raw, and with that text still visible as escapes (the checks are
examples/hostile/check.py's, shared with the Swift example's test). The example emitter
(examples/python/emit.py) cancelled at any point; the typing test run as a script (it holds
the snippets of docs/python.md)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import hep

REPO = Path(__file__).resolve().parents[2]
SUPERVISE = REPO / "examples" / "python" / "supervise.py"
EMIT = REPO / "examples" / "python" / "emit.py"
TYPING = REPO / "bindings-python" / "tests" / "typing"
HOSTILE = REPO / "examples" / "hostile"

spec = importlib.util.spec_from_file_location("hostile_check", HOSTILE / "check.py")
assert spec is not None and spec.loader is not None
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


@pytest.fixture(scope="module")
def done() -> "subprocess.CompletedProcess[bytes]":
    """The example, run once against the hostile emitter."""
    return subprocess.run(
        [sys.executable, str(SUPERVISE), "--", "sh", str(HOSTILE / "emit.sh")],
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_the_example_shows_a_hostile_stream_as_visible_escapes(done: "subprocess.CompletedProcess[bytes]") -> None:
    assert done.returncode == 0, done.stderr
    assert check.problems(done.stdout, done.stderr) == []


def test_the_checks_catch_a_raw_escape_a_lone_c1_byte_and_a_missing_field(
    done: "subprocess.CompletedProcess[bytes]",
) -> None:
    assert check.problems(done.stdout + b"\x1b[2J", done.stderr)[0].startswith("stdout: raw U+001B at ")
    assert check.problems(done.stdout, done.stderr + b"\x9b")[0].startswith("stderr: not UTF-8")
    assert check.problems(done.stdout.replace(b"ANSWER:", b"answer:"), done.stderr) == [
        f"stdout does not show {'answer      ANSWER:' + check.SHOWN!r}"
    ]


# The warnings of a run cancelled before agent_start, mid-round, or after a round.
WHERE_THE_SIGNAL_LANDED = ("ended_before_agent_start", "cancelled_in_open_round", "cancelled_between_rounds")


@pytest.mark.parametrize("after", ["hep_header", "agent_start", "message_delta", "tool_delta", "turn_done"])
def test_the_example_emitter_is_cancelled_wherever_the_signal_lands(after: str) -> None:
    """Like the reference: `cancelled` only when the signal finds a round streaming, exit 130
    in every case, and a conforming stream either way."""
    with hep.spawn([sys.executable, str(EMIT)]) as run:
        frames = []
        for frame in run:
            frames.append(frame)
            if frame.type == after:
                run.cancel()
                break
        frames += list(run)
        result = run.wait()
    assert (result.verdict, result.exit_code, result.conforms) == ("cancelled", 130, True), result.violations
    assert all(v.code in WHERE_THE_SIGNAL_LANDED for v in result.violations), result.violations
    types = [f.type for f in frames]
    if "cancelled" in types:
        assert types.index("cancelled") == len(types) - 1 and "agent_start" in types


@pytest.mark.parametrize("name", ["typing_reading", "typing_supervising"])
def test_the_typing_tests_run_as_scripts(name: str) -> None:
    """The typing tests, which hold the snippets of docs/python.md, run against the built
    package (mypy checks them in `make test`; this runs them)."""
    done = subprocess.run([sys.executable, str(TYPING / f"{name}.py")], capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.decode().endswith(f"{name}: all good\n")
