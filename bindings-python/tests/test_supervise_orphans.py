"""No orphans when the supervisor goes away,
with real children, for `hep.spawn` and `hep.aspawn` alike (issue 13). Every wait is
bounded: a test that goes wrong fails, it never hangs.
Interpreter exit, an uncaught exception, a deadly signal (SIGTERM, SIGHUP): the children
are cancelled; the program's own handlers and an opt-out are left alone."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any, Tuple

import pytest

from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)
from supervise_modes import *  # noqa: F401,F403  (one test body for spawn and aspawn)


# ---- no orphans when the supervisor goes away ----

# The supervisor: starts PATIENT with `spawn` or `aspawn`, reads its first frame, prints the
# child's pid, then ends as told: `return` (normal exit, run not waited for), `raise` (an
# uncaught exception, no `with`), `with-raise` (an exception leaving the `with` block),
# `sleep` (waits for a signal), `own-handler` (a SIGTERM handler of its own that exits).
SUPERVISOR = """
import asyncio, os, signal, sys, time
import hep

mode, end, base = sys.argv[1], sys.argv[2], sys.argv[3]
argv = json_argv = __import__("json").loads(sys.argv[4]) + [base]
if end == "own-handler":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))

def ready(run):
    print(run.pid, flush=True)
    if end in ("sleep", "own-handler"):
        time.sleep(30)
    if end in ("raise", "with-raise"):
        raise RuntimeError("the supervisor fails")

if mode == "sync":
    run = hep.spawn(argv)
    next(run)
    if end == "with-raise":
        with run:
            ready(run)
    ready(run)
else:
    async def main():
        run = await hep.aspawn(argv)
        await run.__anext__()
        if end == "with-raise":
            async with run:
                ready(run)
        ready(run)
    asyncio.run(main())
"""


def supervise_and_end(mode: str, end: str, base: Path, send: Any = None) -> Tuple[int, int]:
    """Runs SUPERVISOR; `send` (a signal) is sent once it has printed the child's pid.
    Returns the supervisor's return code and the child's pid."""
    proc = subprocess.Popen(
        [PY, "-c", SUPERVISOR, mode, end, str(base), json.dumps(PATIENT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline() or 0)
        assert child, proc.stderr.read().decode() if proc.stderr else ""
        if send is not None:
            proc.send_signal(send)
        proc.wait(WATCHDOG)
    finally:
        proc.kill()
        proc.wait()
    return proc.returncode, child


ENDS = {
    # how it ends: (signal sent, the supervisor's return code)
    "return": (None, 0),
    "raise": (None, 1),
    "with-raise": (None, 1),
    "sleep": (signal.SIGTERM, -signal.SIGTERM),
    "own-handler": (signal.SIGTERM, 3),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("end", list(ENDS))
def test_children_are_cancelled_when_the_supervisor_goes_away(mode: str, end: str, tmp_path: Path) -> None:
    send, code = ENDS[end]
    base = tmp_path / "child"
    returncode, child = supervise_and_end(mode, end, base, send)
    try:
        assert returncode == code
        assert Path(f"{base}.sigint").exists(), "the child never got SIGINT"
        assert_no_process_left(child, child)
    finally:
        kill_quietly(child)


def test_sighup_cancels_the_children_too(tmp_path: Path) -> None:
    base = tmp_path / "child"
    returncode, child = supervise_and_end("sync", "sleep", base, signal.SIGHUP)
    try:
        assert returncode == -signal.SIGHUP
        assert Path(f"{base}.sigint").exists()
        assert_no_process_left(child, child)
    finally:
        kill_quietly(child)


HANDLERS = """
import signal
import hep

def show():
    return [getattr(h, "__name__", "default") for h in map(signal.getsignal, (signal.SIGTERM, signal.SIGHUP))]

mine = lambda *_: None
signal.signal(signal.SIGHUP, mine)  # a handler of the program's own
hep.spawn(["true"]).wait()
print(show())
signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the opt-out: the default set back
hep.spawn(["true"]).wait()
print(show())
"""


def test_the_signal_handlers_leave_the_programs_own_and_an_opt_out_alone() -> None:
    out = subprocess.run([PY, "-c", HANDLERS], capture_output=True, check=True, timeout=WATCHDOG).stdout
    assert out.decode().splitlines() == ["['_on_signal', '<lambda>']", "['default', '<lambda>']"]
