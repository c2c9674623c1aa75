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
