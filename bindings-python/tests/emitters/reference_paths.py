"""The reference harness's own edge paths, written with `hep.Writer`, for the supervision
tests. Each writes the stream of the conformance vector of the same name (the same bytes:
conformance/stream/reference/), then ends the way the reference does:

    reference_paths.py signal-between-rounds    two rounds, then exit 130 (a signal came
                                                after the last round: no `cancelled` frame)
    reference_paths.py signal-after-the-run     two rounds, then waits; SIGINT or SIGTERM
                                                makes it exit 130 without a frame, as the
                                                reference does when it is not streaming
    reference_paths.py crash-after-last-round   two rounds, then exit 1 (a failure while
                                                persisting: no `turn_error`)
    reference_paths.py over-window-continuation a round, a fatal turn_error (the request did
                                                not fit the context window), a compaction,
                                                a round that ends the run; exit 0

Every wait is bounded (WAIT_LIMIT): a test that goes wrong fails, it never hangs.
"""

import signal
import sys
import time
from typing import Any, List

import hep

WAIT_LIMIT = 30.0
USAGE = {"input": 10, "output": 5, "cost": 0.5}


def header(w: hep.Writer) -> None:
    w.header("s-1")
    w.agent_start()


def two_rounds(w: hep.Writer) -> None:
    """A tool round, then the answer."""
    header(w)
    w.message_start()
    w.message_delta("Looking at the tests.")
    w.tool_start("c1", "bash", {"command": "cargo test"})
    w.tool_delta("c1", "test result: ok\n")
    result = {"id": "c1", "name": "bash", "ok": True, "text": "test result: ok"}
    w.turn_done("Looking at the tests.", [result], USAGE, "toolUse")
    w.message_start()
    w.message_delta("All tests pass.")
    w.turn_done("All tests pass.", [], USAGE, "stop")


def over_window(w: hep.Writer) -> None:
    header(w)
    w.message_start()
    w.message_delta("Reading the log.")
    w.tool_start("c1", "read", {"path": "build.log"})
    result = {"id": "c1", "name": "read", "ok": True, "text": "error[E0432]: unresolved import"}
    w.turn_done("Reading the log.", [result], USAGE, "toolUse")
    # The next request does not fit the context window: the round fails (the writer always
    # marks a turn_error fatal), then the harness compacts and continues.
    w.turn_error("context window exceeded: 212000 tokens > 200000", True)
    w.compaction_start()
    w.compaction_end(150000)
    w.message_start()
    answer = "The build failed on an unresolved import; fixed and rebuilt."
    w.message_delta(answer)
    w.turn_done(answer, [], USAGE, "stop")


def main() -> int:
    mode = sys.argv[1]
    w = hep.Writer(sys.stdout, "1.2.3")
    if mode == "signal-between-rounds":
        two_rounds(w)
        return hep.EXIT_CANCELLED
    if mode == "signal-after-the-run":
        signals: List[int] = []

        def on_signal(signum: int, _frame: Any) -> None:
            signals.append(signum)

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        two_rounds(w)
        deadline = time.monotonic() + WAIT_LIMIT
        while not signals and time.monotonic() < deadline:
            time.sleep(0.01)  # persisting the session, waiting for background jobs
        return hep.EXIT_CANCELLED if signals else 3
    if mode == "crash-after-last-round":
        two_rounds(w)
        print("error: could not persist the session", file=sys.stderr, flush=True)
        return hep.EXIT_FAILED
    if mode == "over-window-continuation":
        over_window(w)
        return hep.EXIT_OK
    print(f"unknown mode {mode!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
