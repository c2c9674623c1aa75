"""The Python reader of `make bounds`: `hep.Stream` fed stdin in 64 KiB chunks.

Prints one JSON line: the frames it was handed, the run's frame, line and skipped counts,
the kinds of the skipped lines kept, the verdict (exit code 0), the seconds from the first
read to the result, and its own peak RSS in KiB (`VmHWM` of /proc/self/status, and
getrusage's `ru_maxrss`).

    python reader.py [--max-line-bytes N]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import hep

CHUNK = 64 * 1024


def peak_rss_kib() -> int | None:
    """This process's peak resident set size in KiB (`VmHWM`), or None off Linux."""
    try:
        with open("/proc/self/status") as status:
            for row in status:
                if row.startswith("VmHWM:"):
                    return int(row.split()[1])
    except OSError:
        pass
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-line-bytes", type=int)
    args = parser.parse_args()
    options = {} if args.max_line_bytes is None else {"max_line_bytes": args.max_line_bytes}
    start = time.perf_counter()
    stream = hep.Stream(**options)
    source = sys.stdin.buffer
    frames = 0
    while True:
        chunk = source.read(CHUNK)
        if not chunk:
            break
        frames += len(stream.feed(chunk))
    frames += len(stream.end_input())
    result = stream.finish(0)
    seconds = time.perf_counter() - start
    report = {
        "frames": frames,
        "result_frames": result.frames,
        "lines": result.lines,
        "skipped": result.skipped_count,
        "skipped_kinds": sorted({s.kind for s in result.skipped}),
        "verdict": result.verdict,
        "seconds": seconds,
        "hwm_kib": peak_rss_kib(),
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
