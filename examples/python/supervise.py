"""A supervisor: runs a HEP emitter, mirrors its progress and its stderr live, cancels it
on Ctrl-C.

It runs the simulator `hep simulate --scenario tools --speed 4`, or the command given
after `--`:

    python examples/python/supervise.py
    python examples/python/supervise.py -- python examples/python/emit.py

The `hep` binary is $HEP_BIN, else target/debug/hep in this repository, else `hep` on
PATH. Everything the stream says is passed through `hep.sanitize` before it reaches the
terminal. The exit code is the child's (0 ok, 1 failed, 130 cancelled).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import List, Optional

import hep

REPO = Path(__file__).resolve().parents[2]


def find_hep() -> Optional[str]:
    """$HEP_BIN, else target/debug/hep in the repository, else `hep` on PATH."""
    env = os.environ.get("HEP_BIN")
    if env:
        return env
    local = REPO / "target" / "debug" / "hep"
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which("hep")


def err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# START show
class Mirror:
    """Mirrors frames on the terminal; stream text always goes through `hep.sanitize`."""

    def __init__(self) -> None:
        self.mid_line = False  # assistant text was printed without its newline yet

    def end_text(self) -> None:
        """Ends the line of streamed assistant text, if one is open."""
        if self.mid_line:
            print(flush=True)
            self.mid_line = False

    def line(self, text: str) -> None:
        self.end_text()
        print(text, flush=True)

    def stderr(self, line: str) -> None:
        """A line of the child's stderr, as it comes (on the run's reader thread)."""
        err(f"  stderr │ {hep.sanitize(line)}")

    def show(self, frame: hep.Frame) -> None:
        match frame:
            case hep.HepHeader(hep=version, fah=fah, session=session):
                self.line(f"● HEP {hep.sanitize(version)} · fa {hep.sanitize(fah)} · session {hep.sanitize(session)}")
            case hep.MessageStart(turn_id=turn_id):
                self.line(f"── turn {turn_id} ──")
            case hep.MessageDelta(delta=text) if text:
                print(hep.sanitize(text), end="", flush=True)
                self.mid_line = not text.endswith("\n")
            case hep.ToolStart(name=name, args_summary=args):
                self.line(f"  ⚙ {hep.sanitize(name)}({hep.sanitize(args)})")
            case hep.ToolDelta(update=update):
                for text in update.removesuffix("\n").split("\n"):
                    self.line(f"  │ {hep.sanitize(text)}")
            case hep.ToolLiveness(name=name, action="heartbeat", elapsed_ms=ms, detail=detail):
                note = f" · {hep.sanitize(detail)}" if detail else ""
                self.line(f"  ⏳ {hep.sanitize(name)} after {ms / 1000:.1f}s{note}")
            case hep.ToolLiveness(name=name, action=action):
                self.line(f"  ⚠ {hep.sanitize(name)}: {hep.sanitize(action)}")
            case hep.TurnDone(turn_id=turn_id, tool_results=results, usage=usage, stop_reason=why):
                for r in results:
                    self.line(f"  {'✓' if r.ok else '✗'} {hep.sanitize(r.name)} {'ok' if r.ok else 'failed'}")
                cost = f"${usage.cost:.4f}"
                self.line(f"  · turn {turn_id} done ({hep.sanitize(why)}) · {usage.input} in / {usage.output} out · {cost}")
            case hep.TurnError(turn_id=turn_id, error=error):
                self.line(f"  ✗ turn {turn_id} failed: {hep.sanitize(error)}")
            case hep.Cancelled(turn_id=turn_id):
                self.line(f"  ✗ turn {turn_id} cancelled")
            case hep.CompactionStart() | hep.CompactionEnd():
                self.line(f"  · {frame.type}")
            case _:
                pass  # agent_start, and frame types from a newer emitter: nothing to show
# END show


def main(argv: List[str]) -> int:
    if "--" in argv:
        command = argv[argv.index("--") + 1 :]
    else:
        binary = find_hep()
        if binary is None:
            err("supervise: no `hep` binary: set HEP_BIN, run `cargo build -p hep-cli`, or put hep on PATH")
            return 2
        command = [binary, "simulate", "--scenario", "tools", "--speed", "4"]

    # START supervise
    mirror = Mirror()
    with hep.spawn(command, on_stderr=mirror.stderr) as run:  # stderr lines as they come
        try:
            for frame in run:
                mirror.show(frame)
        except KeyboardInterrupt:
            mirror.end_text()
            err("cancelling (SIGINT, then SIGTERM and SIGKILL if it lingers)…")
            run.cancel()
            for frame in run:  # what the child wrote while stopping, e.g. `cancelled`
                mirror.show(frame)
        result = run.wait()
    mirror.end_text()
    # END supervise

    # START verdict
    print("── summary ──")
    print(f"verdict     {result.verdict} — {hep.sanitize('; '.join(result.reasons))}")
    print(f"answer      {hep.sanitize(result.answer) if result.answer is not None else '(none)'}")
    usage = result.usage
    print(f"usage       {usage.input} in / {usage.output} out · ${usage.cost:.6f}")
    print(f"tools       {len(result.tool_calls)} ({sum(c.status == 'ok' for c in result.tool_calls)} ok)")
    print(f"exit code   {result.exit_code}")
    for v in result.violations:
        print(f"violation   line {v.line}: {v.severity} {v.code}: {hep.sanitize(v.message)}")
    # END verdict
    return result.exit_code if result.exit_code is not None else hep.EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
