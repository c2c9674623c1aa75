"""Helpers of the supervision tests: the children to run, process inspection, a watchdog."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, List, Optional, TypeVar

import pytest

import hep

REPO = Path(__file__).resolve().parents[2]
HEP_BIN = REPO / "target" / "debug" / "hep"
EMIT = Path(__file__).resolve().parent / "emitters" / "emit.py"
PY = sys.executable
WATCHDOG = 15.0
T = TypeVar("T")

HEADER = '{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}'
START = '{"type":"agent_start","turn_id":1}'


def simulate(hep_bin: Path, scenario: str, speed: str = "0") -> List[str]:
    return [str(hep_bin), "simulate", "--scenario", scenario, "--speed", speed, "--color", "never"]


def emit(mode: str, arg: Any = "", stdio: str = "detach") -> List[str]:
    return [PY, str(EMIT), mode, str(arg), stdio]


# ---- process inspection ----


def _stat(pid: int) -> Optional[List[str]]:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text[text.rindex(")") + 2 :].split()  # state, ppid, pgrp, ...


def alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped by its parent, counts as gone)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def group_members(pgid: int) -> List[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


def eventually(check: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def read_pid(path: Path) -> int:
    assert eventually(path.exists, 10.0), f"the emitter never wrote {path}"
    return int(path.read_text())


def assert_no_process_left(pgid: int, *pids: int) -> None:
    assert eventually(lambda: not group_members(pgid) and not any(alive(p) for p in pids)), (
        f"processes left behind: group {pgid} still holds {group_members(pgid)}; alive: {[p for p in pids if alive(p)]}"
    )


class Watchdog:
    """Kills the child's process group if the test is still waiting after `seconds`."""

    def __init__(self, pid: int, seconds: float = WATCHDOG) -> None:
        self.fired = False
        self._pid = pid
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        try:
            os.killpg(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def __enter__(self) -> "Watchdog":
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


def arun(coro_fn: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(asyncio.wait_for(coro_fn(), 60))  # type: ignore[arg-type]


async def anext_within(run: hep.AsyncRun, seconds: float = WATCHDOG) -> Any:
    try:
        return await asyncio.wait_for(run.__anext__(), seconds)
    except asyncio.TimeoutError:
        pytest.fail(f"no frame within {seconds}s: the supervisor buffers the child's output")

LEAK_WATCHDOG = 8.0
STDIO = ["detach", "inherit"]
KILLED_MID_LINE = ["sh", "-c", f"printf '%s\\n' '{HEADER}' '{START}'; printf '%s' '{{\"type\":\"message_del'; kill -9 $$"]


# ---- misbehaving children (test_faults.py) ----
#
# Each is an `sh -c` script: it writes its frames only once its traps are set, so a test
# that has read a frame knows how the child will take a signal. Every wait of theirs is
# bounded (about 30 s): a test that goes wrong fails, it never hangs.

DONE = (
    '{"type":"turn_done","turn_id":1,"message":"hi","tool_results":[],'
    '"usage":{"input":1,"output":1,"cost":0},"stop_reason":"stop"}'
)
CANCELLED = '{"type":"cancelled","turn_id":1}'
# Waits until the file $1 exists.
_WAIT_FOR_FLAG = 'i=0; while [ ! -e "$1" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done'
_FOREVER = 'i=0; while [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done'


def _lines(*lines: str) -> str:
    return "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines)


def sh(script: str, *args: Any) -> List[str]:
    return ["sh", "-c", script, "sh", *[str(a) for a in args]]


def closes_stdout(flag: Path) -> List[str]:
    """Writes a whole turn, closes stdout, waits for `flag`, writes to stderr and exits 0."""
    return sh(
        f"{_lines(HEADER, START, DONE)}; exec 1>&-; echo 'stdout closed' >&2; {_WAIT_FOR_FLAG}; "
        "echo 'exiting after the flag' >&2; exit 0",
        flag,
    )


# Writes the start of a turn, closes stdout and keeps running; SIGINT makes it exit 130.
CLOSES_STDOUT_THEN_HANGS = sh(
    f"trap 'echo got SIGINT >&2; exit 130' INT; {_lines(HEADER, START)}; exec 1>&-; {_FOREVER}; exit 3"
)
# Ignores SIGINT; SIGTERM makes it write `cancelled` and exit 130.
ONLY_SIGTERM_STOPS = sh(
    f"stop() {{ {_lines(CANCELLED)}; exit 130; }}; trap '' INT; trap stop TERM; {_lines(HEADER, START)}; {_FOREVER}; exit 3"
)
# Children that end with no terminal frame: argv, exit code, verdict, (code, severity) of
# each violation. A stream that ends before agent_start is what the reference writes when
# it is cancelled (130) or fails (1) before its first round; exit 0 needs a turn_done.
UNTERMINATED = ("unterminated_turn", "error")
BEFORE_START = ("ended_before_agent_start", "warning")
NO_TERMINAL = {
    "exit 0 after agent_start": (sh(f"{_lines(HEADER, START)}; exit 0"), 0, "incomplete", [UNTERMINATED]),
    "exit 3 after agent_start": (sh(f"{_lines(HEADER, START)}; exit 3"), 3, "incomplete", [UNTERMINATED]),
    "exit 0 after the header": (
        sh(f"{_lines(HEADER)}; exit 0"),
        0,
        "protocol_error",
        [BEFORE_START, ("exit_code_mismatch", "error")],
    ),
    "exit 1 after the header": (sh(f"{_lines(HEADER)}; exit 1"), 1, "failed", [BEFORE_START]),
    "exit 130 after the header": (sh(f"{_lines(HEADER)}; exit 130"), 130, "cancelled", [BEFORE_START]),
    "exit 3 after the header": (
        sh(f"{_lines(HEADER)}; exit 3"),
        3,
        "incomplete",
        [BEFORE_START, ("unexpected_exit_code", "warning")],
    ),
    "exit 0 without output": (sh("exit 0"), 0, "incomplete", [("empty_stream", "error")]),
}


def escapes(pidfiles: Path, end: str) -> List[str]:
    """Starts a background `sleep` in its group and another in a session of its own
    (`setsid`), both holding its stdout and stderr, writes their pids to `pidfiles`.group
    and `pidfiles`.session, writes a turn start; then `end` ("done": `turn_done`, exit 0;
    "cancel": waits, SIGINT makes it write `cancelled` and exit 130)."""
    escapee = 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 60'
    wait_session = 'i=0; while [ ! -e "$1.session" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done'
    tail = f"{_lines(DONE)}; exit 0" if end == "done" else f"{_FOREVER}; exit 3"
    return sh(
        f"stop() {{ {_lines(CANCELLED)}; exit 130; }}; trap stop INT; sleep 60 & echo $! > \"$1.group\"; "
        f"setsid sh -c '{escapee}' sh \"$1.session\" & {wait_session}; {_lines(HEADER, START)}; {tail}",
        pidfiles,
    )


def flood(frames: int, pad: int) -> List[str]:
    """A Python child writing `frames` numbered deltas of `pad` bytes as fast as it can, each
    with a line of `pad` bytes to stderr, then `turn_done` (and `stderr end` to stderr)."""
    script = f"""
import sys
out, err = sys.stdout.buffer, sys.stderr.buffer
pad = b"x" * {pad}
out.write(b'{HEADER}\\n{START}\\n{{"type":"message_start","turn_id":1,"role":"assistant"}}\\n')
for i in range({frames}):
    out.write(b'{{"type":"message_delta","turn_id":1,"delta":"%08d %s"}}\\n' % (i, pad))
    err.write(b"stderr %08d %s\\n" % (i, pad))
err.write(b"stderr end\\n")
out.write(b'{DONE}\\n')
"""
    return [PY, "-c", script]


def exists(pid: int) -> bool:
    """Exists at all, a zombie included: false once its parent has reaped it."""
    return _stat(pid) is not None


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
