"""A toy harness that prints a HEP v1 stream on stdout with `hep.Writer`.

It plays a two-round run: the assistant says what it will do, reads a file with a tool
(streamed output and a heartbeat), then gives its answer. On SIGINT or SIGTERM it exits
130, as the reference harness does; like the reference, it writes `cancelled` first only
when the signal finds a round streaming (not before `agent_start`, nor after the last
round).

    python examples/python/emit.py                      # the stream, on stdout
    hep check -- python examples/python/emit.py         # checked against the protocol
    hep watch -- python examples/python/emit.py         # mirrored live
"""

from __future__ import annotations

import signal
import sys
import time
from types import FrameType
from typing import Optional

import hep

FAH_VERSION = "0.1.0"
PAUSE = 0.01  # seconds between chunks, so the stream arrives the way a live one does


# START writer
def stream_text(out: hep.Writer, text: str) -> None:
    """Sends `text` as a few `message_delta` chunks."""
    for start in range(0, len(text), 12):
        out.message_delta(text[start : start + 12])
        time.sleep(PAUSE)


def run(out: hep.Writer) -> None:
    out.header(session="demo-1")
    out.agent_start()
    try:
        rounds(out)
    except KeyboardInterrupt:
        out.cancelled()  # the signal found a round streaming: the round's terminal frame
        raise


def rounds(out: hep.Writer) -> None:
    # Round 1: some text, then a tool call with streamed output.
    out.message_start()
    intro = "Let me read the notes first."
    stream_text(out, intro)
    out.tool_start("call_1", "read", {"path": "notes.txt"})
    lines = ["# Notes\n", "- the parser splits lines on newlines only\n", "- 42 tests\n"]
    for line in lines:
        out.tool_delta("call_1", line)
        time.sleep(PAUSE)
    size = len("".join(lines).encode())
    out.tool_liveness("call_1", "read", "heartbeat", elapsed_ms=1000, output_bytes=size, detail="attempt 1")
    out.turn_done(
        intro,
        [hep.ToolResult(id="call_1", name="read", ok=True, text="".join(lines).rstrip("\n"))],
        hep.Usage(input=1200, output=85, cost=0.0051),
        "toolUse",
    )

    # Round 2: the answer.
    out.message_start()
    answer = "The notes say the parser splits lines on newlines only, and all 42 tests pass."
    stream_text(out, answer)
    out.turn_done(answer, [], {"input": 1350, "output": 40, "cost": 0.0047}, "stop")
# END writer


# START writer-main
def main() -> int:
    out = hep.Writer(sys.stdout, fah_version=FAH_VERSION)

    def on_term(signum: int, frame: Optional[FrameType]) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        run(out)
    except KeyboardInterrupt:
        return hep.EXIT_CANCELLED  # 130, wherever the signal landed
    return hep.EXIT_OK
# END writer-main


if __name__ == "__main__":
    sys.exit(main())
