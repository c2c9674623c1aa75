"""Resource bounds (`make bounds`, `make bounds-smoke`): peak memory of every language's
reader does not grow with the stream, and an oversized line costs at most a bounded buffer.

    python3 scripts/bounds/bounds.py [--smoke] [--lang rust,python,node,swift] [--skip-build]

Each stream of `streams.py` is written on the fly into the stdin pipe of each reader
(nothing is saved): Rust `hep_core::Reader` (bench/src/bin/hep-bounds.rs), Python
`hep.Stream` (reader.py), Node `Stream` over `process.stdin` (reader.mjs) and Swift
`HepStream` (swift/, run through scripts/swift-run.sh). A reader prints its counts, its
verdict and its own peak RSS (`VmHWM`: its address space alone; under `swift run` the
process began as SwiftPM, whose peak `ru_maxrss` would include). `os.wait4` gives the
child's `ru_maxrss` too, shown as a cross-check (for Swift it is SwiftPM's and the
chroot's processes' peak).

Checks, each a FAIL line and exit status 1 when broken:
- counts: frames handed over and in the result, lines, skipped lines (all `line_too_long`)
  and the verdict are exactly what the generator wrote;
- length: the big session's peak RSS is within max(16 MiB, 10 %) of the small one's;
- buffer: each oversized-line stream's peak RSS is within that slack plus 5 times the
  reader's maximum line length (the partial-line buffer, see BUFFER_FACTOR) of the small
  session's, and the streams with lines over the default maximum (one long line, many)
  peak within the slack of each other: the cost depends on neither the line's length nor
  the number of long lines.

Full run: sessions of 64 MiB and 1 GiB, one 256 MiB line, 1 GiB of lines of 16 MiB + 1
bytes, 256 MiB of lines of 257 bytes read with a 256-byte maximum. `--smoke`: sessions of
8 and 64 MiB, one 64 MiB line (shorter, it would end before a reader with a garbage
collector reaches its steady state), 64 MiB of each kind of over-long lines.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Dict, List, Optional

import streams
from streams import DEFAULT_MAX_LINE, MIB, Plan

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
LANGS = ("rust", "python", "node", "swift")
SLACK_BYTES = 16 * MIB
SLACK_RATIO = 0.10
BUFFER_FACTOR = 5
"""A ceiling on what lines over the maximum may cost, in maximum line lengths (5 x 16 MiB
by default). The splitter's partial-line buffer grows by doubling up to the maximum: glibc
(Rust, Swift) remaps it, measured 1x; mimalloc (the Python and Node extensions) copies on
growth and keeps the freed copies, measured 3x; Node also holds its 64 KiB input Buffers
until V8 collects them, measured 4.3x to 4.8x in all. The check that the cost depends on
neither the line's length nor the number of long lines is the comparison between them."""


def plans(smoke: bool) -> List[Plan]:
    """The streams: the small session (the baseline) first, then the big one, then the
    oversized lines."""
    if smoke:
        return [
            streams.session(8 * MIB),
            streams.session(64 * MIB),
            streams.long_line(64 * MIB),
            streams.over_limit(64 * MIB, DEFAULT_MAX_LINE),
            streams.over_limit(64 * MIB, 256),
        ]
    return [
        streams.session(64 * MIB),
        streams.session(1024 * MIB),
        streams.long_line(256 * MIB),
        streams.over_limit(1024 * MIB, DEFAULT_MAX_LINE),
        streams.over_limit(256 * MIB, 256),
    ]


def say(text: str) -> None:
    """A progress line on stderr."""
    print(f"bounds: {text}", file=sys.stderr, flush=True)


def run(cmd: List[str], cwd: Path = REPO, env: Optional[Dict[str, str]] = None) -> str:
    """Runs a build step; its stdout, or exit 1 with its output when it fails."""
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        sys.exit(f"bounds: {' '.join(cmd)} failed (exit {done.returncode})")
    return done.stdout


def target_dir(cargo: str) -> Path:
    """Cargo's target directory."""
    meta = json.loads(run([cargo, "metadata", "--no-deps", "--format-version", "1"]))
    return Path(meta["target_directory"])


def venv_python() -> str:
    """The Python that has `hep` (the repo's .venv, else this one)."""
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def swift_env(target: Path) -> Dict[str, str]:
    """The environment of scripts/swift-run.sh: the Rust library's folder, mounted if it is
    outside the repo."""
    env = dict(os.environ, HEP_RUST_LIB_DIR=str(target / "release"))
    if REPO not in (target / "release").parents:
        env["HEP_SWIFT_MOUNTS"] = ":".join(filter(None, [str(target), os.environ.get("HEP_SWIFT_MOUNTS")]))
    return env


def build(langs: List[str], cargo: str, target: Path) -> None:
    """Release builds of each reader and the library under it."""
    nice = ["nice", "-n", os.environ.get("CARGO_NICE", "10")]
    if "rust" in langs:
        say("building hep-bounds (release)")
        run(nice + [cargo, "build", "--release", "--quiet", "-p", "hep-bench", "--bin", "hep-bounds"])
    if "python" in langs:
        say("building the Python extension (maturin develop --release)")
        maturin = str(Path(venv_python()).parent / "maturin")
        run(nice + [maturin, "develop", "--release", "--quiet"], cwd=REPO / "bindings-python")
    if "node" in langs:
        say("building the Node addon (npm run build)")
        run(nice + ["npm", "run", "--silent", "build"], cwd=REPO / "bindings-node")
    if "swift" in langs:
        say("building the Swift library and sources (bindings-swift/test.sh --generate)")
        run([str(REPO / "bindings-swift" / "test.sh"), "--generate"], env=dict(os.environ, CARGO=cargo))
        say("building hep-bounds-swift (swift build -c release)")
        run(
            [str(REPO / "scripts" / "swift-run.sh"), "build", "-c", "release", "--disable-build-manifest-caching",
             "-Xswiftc", "-warnings-as-errors", "--package-path", str(HERE / "swift")],
            env=swift_env(target),
        )


def reader_cmd(lang: str, target: Path, max_line: Optional[int]) -> List[str]:
    """The command line of `lang`'s reader."""
    args = [] if max_line is None else ["--max-line-bytes", str(max_line)]
    if lang == "rust":
        return [str(target / "release" / "hep-bounds")] + args
    if lang == "python":
        return [venv_python(), str(HERE / "reader.py")] + args
    if lang == "node":
        return ["node", str(HERE / "reader.mjs")] + args
    return [str(REPO / "scripts" / "swift-run.sh"), "run", "-c", "release", "--skip-build",
            "--package-path", str(HERE / "swift"), "hep-bounds-swift"] + args


@dataclass
class Outcome:
    """One reader on one stream: its report, what the parent measured, the failures."""

    lang: str
    plan: Plan
    report: Dict[str, Any] = field(default_factory=dict)
    wait4_kib: int = 0
    seconds: float = 0.0
    failures: List[str] = field(default_factory=list)

    @property
    def peak_kib(self) -> int:
        """The reader's own peak RSS (VmHWM), or what wait4 saw where it has none."""
        return self.report.get("hwm_kib") or self.wait4_kib


def drain(pipe: IO[bytes], into: List[bytes]) -> None:
    """Reads `pipe` to its end into `into`."""
    into.append(pipe.read())


def measure(lang: str, plan: Plan, target: Path) -> Outcome:
    """Pipes `plan`'s stream into `lang`'s reader; its report, peak RSS and wall time."""
    out = Outcome(lang, plan)
    env = swift_env(target) if lang == "swift" else None
    start = time.monotonic()
    child = subprocess.Popen(reader_cmd(lang, target, plan.max_line), cwd=REPO, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout: List[bytes] = []
    stderr: List[bytes] = []
    readers = [threading.Thread(target=drain, args=(child.stdout, stdout)),
               threading.Thread(target=drain, args=(child.stderr, stderr))]
    for t in readers:
        t.start()
    assert child.stdin is not None
    try:
        for chunk in plan.chunks():
            child.stdin.write(chunk)
        child.stdin.close()
    except BrokenPipeError:
        out.failures.append("the reader stopped reading before the end of the stream")
    _, status, usage = os.wait4(child.pid, 0)
    out.seconds = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join()
    out.wait4_kib = usage.ru_maxrss
    lines = b"".join(stdout).decode(errors="replace").strip().splitlines()
    if child.returncode != 0 or not lines:
        tail = b"".join(stderr).decode(errors="replace").strip()[-2000:]
        out.failures.append(f"the reader exited with {child.returncode}: {tail}")
        return out
    out.report = json.loads(lines[-1])
    check_counts(out)
    return out


def check_counts(out: Outcome) -> None:
    """The reader's counts and verdict against the generator's."""
    r, p = out.report, out.plan
    want = {
        "frames": p.frames, "result_frames": p.frames, "lines": p.lines, "skipped": p.skipped,
        "skipped_kinds": ["line_too_long"] if p.skipped else [], "verdict": p.verdict,
    }
    for key, value in want.items():
        if r.get(key) != value:
            out.failures.append(f"{key} is {r.get(key)!r}, the generator wrote {value!r}")
    hwm = r.get("hwm_kib")
    if hwm is not None and hwm > out.wait4_kib + 1024:
        out.failures.append(f"VmHWM {hwm} KiB exceeds wait4's ru_maxrss {out.wait4_kib} KiB")


def slack(base_kib: int) -> int:
    """Allowed growth over `base_kib`, in KiB: max(16 MiB, 10 %)."""
    return max(SLACK_BYTES // 1024, int(base_kib * SLACK_RATIO))


def check_bounds(results: List[Outcome]) -> None:
    """Peak RSS of every run but the first against the first (the small session), and of
    the runs with lines over the default maximum against each other."""
    base = results[0]
    if not base.report:
        return
    for out in results[1:]:
        if not out.report:
            continue
        allowed = base.peak_kib + slack(base.peak_kib)
        what = "the small session's"
        if out.plan.skipped:
            buffer = out.plan.max_line or DEFAULT_MAX_LINE
            allowed += BUFFER_FACTOR * buffer // 1024
            what += f" + {BUFFER_FACTOR} x the {streams.label(buffer)} line maximum"
        if out.peak_kib > allowed:
            out.failures.append(f"peak RSS {mib(out.peak_kib)} exceeds {mib(allowed)} ({what} {mib(base.peak_kib)} + slack)")
    long = [o for o in results if o.report and o.plan.skipped and (o.plan.max_line or DEFAULT_MAX_LINE) == DEFAULT_MAX_LINE]
    for out in long[1:]:
        if abs(out.peak_kib - long[0].peak_kib) > slack(long[0].peak_kib):
            out.failures.append(
                f"peak RSS {mib(out.peak_kib)} differs from {long[0].plan.name}'s {mib(long[0].peak_kib)} by more than the slack"
            )


def mib(kib: float) -> str:
    """KiB as MiB, for the table."""
    return f"{kib / 1024:.1f} MiB"


def table(results: List[Outcome]) -> str:
    """The results as a Markdown table: peak RSS is the reader's `VmHWM`; `ru_maxrss` as
    the reader saw it (getrusage) and as wait4 did; MB/s over the reader's own read time."""
    rows = ["| lang | stream | size | frames | lines | skipped | verdict | peak RSS | ru_maxrss self / wait4 "
            "| read | MB/s | wall | check |",
            "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|"]
    for o in results:
        r = o.report
        read = r.get("seconds")
        counts = [f"{r[k]:,}" if k in r else "-" for k in ("frames", "lines", "skipped")]
        own = mib(r["maxrss_kib"]) if r.get("maxrss_kib") else "-"
        cells = [o.lang, o.plan.name, f"{o.plan.size / MIB:,.0f} MiB", *counts, r.get("verdict", "-"),
                 mib(o.peak_kib) if r else "-", f"{own} / {mib(o.wait4_kib)}",
                 f"{read:.1f} s" if read else "-", f"{o.plan.size / 1e6 / read:,.0f}" if read else "-",
                 f"{o.seconds:.1f} s", "FAIL" if o.failures else "ok"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def machine() -> str:
    """Where and when: host, CPU, cores, memory, date."""
    cpu = next((row.split(":", 1)[1].strip() for row in Path("/proc/cpuinfo").read_text().splitlines()
                if row.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else platform.processor()
    mem = next((row.split()[1] for row in Path("/proc/meminfo").read_text().splitlines() if row.startswith("MemTotal")), "?") \
        if Path("/proc/meminfo").exists() else "?"
    mem_text = f"{int(mem) / (1 << 20):.0f} GiB" if mem != "?" else "?"
    return (f"{datetime.date.today().isoformat()}, {platform.system()} {platform.release()}, {cpu}, "
            f"{os.cpu_count()} cores, {mem_text} RAM")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="small sizes (make bounds-smoke)")
    parser.add_argument("--lang", default=",".join(LANGS), help="comma-separated: rust,python,node,swift")
    parser.add_argument("--skip-build", action="store_true", help="use the readers as built")
    args = parser.parse_args()
    langs = [lang for lang in args.lang.split(",") if lang]
    unknown = set(langs) - set(LANGS)
    if unknown:
        parser.error(f"unknown language(s): {', '.join(sorted(unknown))}")
    cargo = os.environ.get("CARGO", "cargo")
    target = target_dir(cargo)
    if not args.skip_build:
        build(langs, cargo, target)
    all_results: List[Outcome] = []
    for lang in langs:
        results = []
        for plan in plans(args.smoke):
            say(f"{lang}: {plan.name} ({plan.size / MIB:,.0f} MiB)")
            results.append(measure(lang, plan, target))
        check_bounds(results)
        all_results += results
    print(f"\n{machine()}; `{' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}`\n")
    print(table(all_results))
    failures = [f"{o.lang} {o.plan.name}: {f}" for o in all_results for f in o.failures]
    for f in failures:
        print(f"FAIL {f}")
    passed = sum(1 for o in all_results if not o.failures)
    print(f"\n{passed} of {len(all_results)} runs passed every check")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
