"""The example supervisor (examples/python/supervise.py) against a hostile child
(examples/hostile/emit.sh): every text field it prints, the verdict's reasons, the
violations and the child's stderr come out with no control character, escape sequence or
bidi control left raw, and with that text still visible as escapes (the checks are
examples/hostile/check.py's, shared with the Swift example's test)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUPERVISE = REPO / "examples" / "python" / "supervise.py"
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
