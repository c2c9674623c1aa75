"""A tiny HEP emitter built on `hep.Writer`, for the supervision tests.

    emit.py wait FLAG        one round; after the first delta, waits for FLAG to exist
    emit.py stderr NBYTES    one round, after writing NBYTES of numbered lines to stderr
    emit.py garbage          a round with a malformed line in it
    emit.py orphan PIDFILE [STDIO]   one round, leaving a `sleep` in its process group
    emit.py hang PIDFILE [STDIO]     starts a `sleep` in its group, then waits; SIGINT: `cancelled`, 130
    emit.py stubborn [LOG]   ignores SIGINT and SIGTERM, waits forever; with LOG, appends
                             `SIGINT <time>` / `SIGTERM <time>` (time.monotonic()) to it
                             on each

The `sleep` ignores SIGINT and SIGTERM and outlives any test. STDIO is `detach` (default:
its stdout and stderr are /dev/null) or `inherit` (it holds the child's stdout and stderr
pipes open, as a background tool process of a real harness would).

Every wait of the emitter is bounded (WAIT_LIMIT): a test that goes wrong fails, it never hangs.
"""

import os
import signal
import subprocess
import sys
import time
from typing import Any, Callable

import hep

WAIT_LIMIT = 30.0
USAGE = {"input": 3, "output": 5, "cost": 0.25}


def start_sleeper(pidfile: str, stdio: str) -> None:
    """Starts a grandchild in this process group that ignores SIGINT and SIGTERM (only the
    supervisor's final SIGKILL to the group ends it); returns once it ignores them (it
    writes its pid to `pidfile` then)."""
    out = None if stdio == "inherit" else subprocess.DEVNULL
    script = 'trap "" INT TERM; echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300'
    subprocess.Popen(["sh", "-c", script, "sh", pidfile], stdout=out, stderr=out)
    deadline = time.monotonic() + WAIT_LIMIT
    while not os.path.exists(pidfile) and time.monotonic() < deadline:
        time.sleep(0.005)


def log_signal(path: str) -> Callable[[int, Any], None]:
    """A handler that appends the signal's name and the time it came to `path`."""

    def handler(signum: int, _frame: Any) -> None:
        with open(path, "a") as log:
            log.write(f"{signal.Signals(signum).name} {time.monotonic()}\n")

    return handler


def main() -> int:
    mode, arg = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    stdio = sys.argv[3] if len(sys.argv) > 3 else "detach"
    w = hep.Writer(sys.stdout, "9.9.9")
    w.header(f"emit-{mode}")
    if mode == "stubborn":
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, log_signal(arg) if arg else signal.SIG_IGN)
    if mode == "hang":
        cancelled = []
        signal.signal(signal.SIGINT, lambda *_: cancelled.append(1))
        start_sleeper(arg, stdio)
    w.agent_start()
    w.message_start()
    if mode == "stderr":
        n, i = int(arg), 0
        while n > 0:
            line = f"stderr line {i}\n"[:n]
            sys.stderr.write(line)
            n -= len(line)
            i += 1
        sys.stderr.write("LAST STDERR LINE\n")
        sys.stderr.flush()
    if mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
    w.message_delta("waiting")
    print(f"emitter {mode}: first delta written", file=sys.stderr, flush=True)
    deadline = time.monotonic() + WAIT_LIMIT
    if mode == "wait":
        while not os.path.exists(arg):
            if time.monotonic() > deadline:
                w.turn_error("the flag never came", True)
                return 1
            time.sleep(0.01)
    if mode == "hang":
        while not cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        w.cancelled()
        return 130
    if mode == "stubborn":
        while time.monotonic() < deadline:
            time.sleep(0.05)
        return 3
    if mode == "orphan":
        start_sleeper(arg, stdio)
    w.message_delta(" done")
    w.turn_done("waiting done", [], USAGE, "stop")
    print(f"emitter {mode}: finished", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
