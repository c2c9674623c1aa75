"""`make bench-live` (run by bench/live/run.sh, which builds what it needs): how long a frame
takes from the child's write to the supervisor's code, and what one supervisor process
spends driving many runs at once, in every language.

    python3 bench/live/live.py [--only LANG[,LANG...]] [--frames N] [--reps N]
                               [--runs R] [--speed S]

Latency: each language's supervisor (bench/live/supervise.*, rust/supervise.rs, go/,
swift/) runs `hep-live-child --frames N` (rust/child.rs: timed frames at a model's pace,
each with the CLOCK_MONOTONIC time of its writing) and records when each timed frame
reached the user code, the loop or callback the library's docs show. The CLI's user code
is this script reading `hep check --format jsonl`'s line for the frame from a pipe. The
languages take turns, `--reps` times (round-robin, so that the machine's load changes hit
them alike); a language's latencies are pooled over its reps.

Many runs: each language's supervisor drives R copies of `hep simulate --speed S` (the
`tools` scenario) at once from one process and reports the wall time, its CPU time, the
frames delivered and the peak of its thread count. Every run must end with verdict ok and
the full frame count; a failed run fails the bench (exit 1).

Only the standard library: it runs on the system's python3. Paths come from the
environment run.sh sets (HEP_LIVE_*).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]
LANGS = ["cli", "rust", "python-sync", "python-async", "node", "go", "swift"]
MANY_LANGS = ["rust", "python-async", "node", "go", "swift"]
GOAL_P99_NS = 1_000_000


class Failure(Exception):
    """A supervisor that failed, or a run that did not end ok with all its frames."""


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise Failure(f"{name} is not set: run bench/live/run.sh (make bench-live), which builds and sets it")
    return value


def supervisor(lang: str) -> List[str]:
    """The command of `lang`'s supervisor; its mode and arguments follow."""
    if lang == "rust":
        return [env("HEP_LIVE_RUST")]
    if lang in ("python-sync", "python-async"):
        return [env("HEP_LIVE_PYTHON"), str(REPO / "bench/live/supervise.py"), lang.split("-")[1]]
    if lang == "node":
        return ["node", str(REPO / "bench/live/supervise.mjs")]
    if lang == "go":
        return [env("HEP_LIVE_GO")]
    if lang == "swift":
        return env("HEP_LIVE_SWIFT").split()
    raise Failure(f"no supervisor for {lang}")


def run_json(lang: str, argv: List[str]) -> Dict:
    done = subprocess.run(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise Failure(f"{lang}: {' '.join(argv[:3])}... exited {done.returncode}: {done.stderr.strip()[-500:]}")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise Failure(f"{lang}: its last line is not JSON ({e}): {lines[-1][:200]!r}")


def sent_ns(frame: Dict) -> Optional[int]:
    text = {"message_delta": frame.get("delta"), "tool_delta": frame.get("update")}.get(frame.get("type"))
    return None if text is None else int(text.split(" ", 1)[0])


def cli_latency(child: List[str], frames: int) -> Dict:
    """`hep check --format jsonl -- CHILD`, each frame's line timed as it is read here."""
    argv = [env("HEP_LIVE_HEP"), "check", "--format", "jsonl", "--", *child]
    latencies: List[int] = []
    verdict = "none"
    with subprocess.Popen(argv, stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            now = time.monotonic_ns()
            event = json.loads(line)
            if event.get("event") == "frame":
                sent = sent_ns(event["frame"])
                if sent is not None:
                    latencies.append(now - sent)
            elif event.get("event") == "result":
                verdict = event["result"]["verdict"]
    if proc.returncode != 0:
        raise Failure(f"cli: hep check exited {proc.returncode}")
    return {"verdict": verdict, "expected": frames, "bad": 0, "latencies_ns": latencies}


def latency(lang: str, frames: int, seed: int) -> List[int]:
    child = [env("HEP_LIVE_CHILD"), "--frames", str(frames), "--seed", str(seed)]
    if lang == "cli":
        got = cli_latency(child, frames)
    else:
        got = run_json(lang, [*supervisor(lang), "latency", "--frames", str(frames), "--", *child])
    if got["verdict"] != "ok" or len(got["latencies_ns"]) != frames or got["bad"]:
        raise Failure(
            f"{lang}: verdict {got['verdict']}, {len(got['latencies_ns'])} timed frames of {frames}, {got['bad']} unreadable"
        )
    return got["latencies_ns"]


def many(lang: str, runs: int, speed: str, expect: int) -> Dict:
    command = [env("HEP_LIVE_HEP"), "simulate", "--speed", speed, "--color", "never"]
    got = run_json(lang, [*supervisor(lang), "many", "--runs", str(runs), "--expect", str(expect), "--", *command])
    if got["ok"] != runs or got["frames"] != runs * expect:
        raise Failure(f"{lang}: {got['ok']} of {runs} runs ended ok with {expect} frames ({got['frames']} frames in all)")
    return got


def load() -> str:
    """The machine's load average (1, 5, 15 minutes): other processes' share of the CPUs."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def percentile(values: List[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(LANGS), help=f"comma-separated, of {','.join(LANGS)}")
    parser.add_argument("--frames", type=int, default=700, help="timed frames per rep and language")
    parser.add_argument("--reps", type=int, default=3, help="round-robin reps of the latency bench")
    parser.add_argument("--runs", type=int, default=200, help="concurrent runs of the many-runs bench")
    parser.add_argument("--speed", default="2", help="`hep simulate --speed` of the many-runs bench")
    args = parser.parse_args()
    langs = [lang for lang in args.only.split(",") if lang]
    unknown = [lang for lang in langs if lang not in LANGS]
    if unknown:
        parser.error(f"unknown language {unknown[0]!r} (known: {', '.join(LANGS)})")
    print(f"load average before: {load()}")
    failures: List[str] = []
    pooled: Dict[str, List[int]] = {lang: [] for lang in langs}
    for rep in range(args.reps):
        for lang in langs:
            if lang in pooled:
                try:
                    pooled[lang] += latency(lang, args.frames, seed=rep + 1)
                except Failure as e:
                    failures.append(str(e))
                    del pooled[lang]
    print(f"\nLive latency: child write -> user code, CLOCK_MONOTONIC; {args.reps} round-robin reps of {args.frames} timed frames")
    print(f"{'language':<14}{'frames':>8}{'p50 µs':>10}{'p90 µs':>10}{'p99 µs':>10}{'max µs':>10}  p99 < 1 ms")
    for lang, values in pooled.items():
        p50, p90, p99, top = (percentile(values, q) for q in (0.5, 0.9, 0.99, 1.0))
        status = "met" if p99 < GOAL_P99_NS else "MISSED"
        print(f"{lang:<14}{len(values):>8}{p50 / 1e3:>10.0f}{p90 / 1e3:>10.0f}{p99 / 1e3:>10.0f}{top / 1e3:>10.0f}  {status}")
    many_langs = [lang for lang in langs if lang in MANY_LANGS]
    if many_langs:
        expect = len(subprocess.run([env("HEP_LIVE_HEP"), "simulate", "--speed", "0"], stdout=subprocess.PIPE, check=True).stdout.splitlines())
        print(f"\nMany runs: {args.runs} x `hep simulate --speed {args.speed}` ({expect} frames each) at once, one supervisor process")
        print(f"{'language':<14}{'ok runs':>9}{'frames':>8}{'wall s':>8}{'CPU s':>8}{'CPU µs/frame':>14}{'peak threads':>14}")
        for lang in many_langs:
            try:
                got = many(lang, args.runs, args.speed, expect)
            except Failure as e:
                failures.append(str(e))
                continue
            per_frame = got["cpu_s"] / got["frames"] * 1e6
            print(
                f"{lang:<14}{got['ok']:>5}/{args.runs:<3}{got['frames']:>8}{got['wall_s']:>8.2f}{got['cpu_s']:>8.2f}"
                f"{per_frame:>14.1f}{got['peak_threads']:>14}"
            )
    print(f"\nload average after: {load()} ({os.cpu_count()} CPUs)")
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
