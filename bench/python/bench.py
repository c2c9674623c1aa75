"""The Python bench: the `hep` package against what a Python user would otherwise write.

It reads the same seeded corpora as the Rust bench (`hep-bench`), dumped by the Rust
generator itself (`cargo run --release -p hep-bench -- --dump-corpus DIR`), and measures,
in one process, side by side:

  a. `hep.Stream().feed(...)` + `finish(0)`: split, decode, validate, reduce, every frame a
     Python object (whole stream in one call, and in 64 KiB chunks);
  b. `json.loads` per line plus a pure-Python checker of the consumer guarantees;
  c. msgspec typed decoding into a tagged union of `msgspec.Struct`s (types only);
  d. `hep.Writer` replaying every frame of the corpus, against `json.dumps` of the frames
     as dicts.

Every workload is checked before anything is timed, and every timed run must report the
expected frame count: the bench stops rather than report the speed of a failure.

Run: `make bench-python`, or `.venv/bin/python bench/python/bench.py --help`.
See the "Python" section of bench/README.md for what each row measures and the results.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import operator
import os
import platform
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import msgspec

import hep

ROOT = Path(__file__).resolve().parents[2]
CHUNK = 64 * 1024
PROFILES = ("delta-heavy", "tool-heavy")


class Failure(Exception):
    """A failed check or workload: the bench stops rather than report a failure's speed."""


# ---------------------------------------------------------------------------------------
# The corpus, as the Rust generator wrote it
# ---------------------------------------------------------------------------------------


class Corpus:
    """One dumped corpus: each stream's bytes, plus the writer inputs its frames lack."""

    def __init__(self, directory: Path) -> None:
        manifest = json.loads((directory / "corpus.json").read_text())
        self.name: str = manifest["name"]
        self.scale: float = manifest["scale"]
        self.streams: List[bytes] = []
        self.inputs: List[List[Dict[str, Any]]] = []
        for index in range(manifest["streams"]):
            stem = directory / f"stream-{index:04d}"
            self.streams.append(Path(f"{stem}.jsonl").read_bytes())
            inputs = Path(f"{stem}.inputs.jsonl").read_text(encoding="utf-8")
            self.inputs.append([json.loads(line) for line in inputs.splitlines()])
        self.bytes = sum(len(s) for s in self.streams)
        self.counts = [s.count(b"\n") for s in self.streams]  # lines (frames) per stream
        self.frames = sum(self.counts)
        if (self.frames, self.bytes) != (manifest["frames"], manifest["bytes"]):
            raise Failure(f"{directory}: files hold {self.frames} frames / {self.bytes} bytes, "
                          f"the manifest says {manifest['frames']} / {manifest['bytes']}")


def dump_corpora(directory: Path, scale: float) -> None:
    """Has the Rust generator write its corpora (the same seeds and code as `hep-bench`)."""
    cargo = os.environ.get("CARGO", "cargo")
    cmd = [cargo, "run", "--release", "--quiet", "-p", "hep-bench", "--",
           "--dump-corpus", str(directory), "--scale", str(scale)]
    print(f"corpus: {' '.join(cmd[:7])} --dump-corpus DIR --scale {scale}", flush=True)
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise Failure(f"dumping the corpus failed ({done.returncode}):\n{done.stderr}{done.stdout}")


def lines_of(data: bytes) -> List[bytes]:
    """The lines of a stream, without their newlines (every stream ends with one)."""
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


# ---------------------------------------------------------------------------------------
# a. hep.Stream
# ---------------------------------------------------------------------------------------


def check_result(corpus: Corpus, index: int, result: hep.RunResult, frames: int, lines: int) -> None:
    """What every stream of the corpus must come out as: ok, conforming, every line a frame."""
    clean = result.conforms and result.violation_count == 0 and result.skipped_count == 0
    if (result.verdict != "ok" or not clean or result.halted is not None or result.exit_code != 0
            or result.frames != lines or result.lines != lines or frames != lines):
        raise Failure(f"{corpus.name} stream {index}: verdict {result.verdict} (conforms {result.conforms}, "
                      f"{result.violation_count} violations, {result.skipped_count} skipped, "
                      f"{frames} frames delivered, run.frames {result.frames}, {result.lines} lines, "
                      f"expected {lines}): {result.reasons}")


def hep_stream(corpus: Corpus, chunk: Optional[int], touch: bool = False, view: bool = False) -> int:
    """a. A fresh `hep.Stream` per stream, fed the whole stream (chunk None) or 64 KiB
    chunks, then `finish(0)`; with `touch`, every field of every frame is read once; with
    `view`, the chunks are memoryview slices instead of bytes."""
    total = 0
    for index, data in enumerate(corpus.streams):
        stream = hep.Stream()
        frames = 0
        if chunk is None:
            got = stream.feed(data)
            frames = len(got)
            if touch:
                for frame in got:
                    FIELDS_OF[type(frame)](frame)
        else:
            # bytes, as os.read or a file's read() hands them over (or memoryview slices)
            source = memoryview(data) if view else data
            for start in range(0, len(data), chunk):
                got = stream.feed(source[start:start + chunk])
                frames += len(got)
                if touch:
                    for frame in got:
                        FIELDS_OF[type(frame)](frame)
        frames += len(stream.end_input())
        del got
        result = stream.finish(0)
        check_result(corpus, index, result, frames, corpus.counts[index])
        total += frames
    return total


#: One getter per frame class reading every field (for the "read every field" row).
FIELDS_OF: Dict[type, Callable[[Any], Any]] = {
    cls: operator.attrgetter("type", *cls.__match_args__)
    for cls in (hep.HepHeader, hep.AgentStart, hep.MessageStart, hep.MessageDelta, hep.ToolStart,
                hep.ToolDelta, hep.ToolLiveness, hep.TurnDone, hep.TurnError, hep.Cancelled,
                hep.CompactionStart, hep.CompactionEnd)
}


# ---------------------------------------------------------------------------------------
# b. json.loads + a pure-Python checker (a user's straightforward implementation)
# ---------------------------------------------------------------------------------------

#: Required fields and their exact JSON types (`type(v) is int`: a bool is not an int).
REQUIRED: Dict[str, Tuple[Tuple[str, type], ...]] = {
    "agent_start": (("turn_id", int),),
    "message_start": (("turn_id", int), ("role", str)),
    "message_delta": (("turn_id", int), ("delta", str)),
    "tool_start": (("turn_id", int), ("id", str), ("name", str), ("args_summary", str)),
    "tool_delta": (("turn_id", int), ("id", str), ("update", str)),
    "tool_liveness": (("turn_id", int), ("id", str), ("name", str), ("action", str), ("elapsed_ms", int)),
    "turn_done": (("turn_id", int), ("message", str), ("tool_results", list), ("usage", dict),
                  ("stop_reason", str)),
    "turn_error": (("turn_id", int), ("error", str), ("fatal", bool)),
    "cancelled": (("turn_id", int),),
    "compaction_start": (("turn_id", int),),
    "compaction_end": (("turn_id", int), ("tokens_freed", int)),
}
TERMINAL = frozenset(("turn_done", "turn_error", "cancelled"))
ACTIONS = frozenset(("heartbeat", "cancel_retry", "background_convert", "escalate", "advisory"))
EXIT_OF = {"turn_done": 0, "turn_error": 1, "cancelled": 130}
RESULT_FIELDS = (("id", str), ("name", str), ("ok", bool), ("text", str))
USAGE_FIELDS = (("input", int), ("output", int), ("cost", float))


class Invalid(Exception):
    """The checker's verdict on a bad stream."""


def check_lines(lines: Sequence[Union[bytes, str]], exit_code: int) -> int:
    """Parses every line with `json.loads` and checks HEP v1's consumer guarantees: the
    header first (protocol v1), required fields and their types per frame type, turn ids
    per round (1, 2, ... ; every frame of a round shares its id), exactly one terminal frame
    per round, `agent_start` once, compactions bracketed, and the exit code matching the last
    terminal frame. Unknown frame types and fields are ignored. Returns the frame count."""
    loads = json.loads
    required: Dict[Any, Tuple[Tuple[str, type], ...]] = REQUIRED
    missing = None
    if not lines:
        raise Invalid("empty stream")
    header = loads(lines[0])
    if type(header) is not dict or header.get("type") != "hep_header":
        raise Invalid("line 1: not a hep_header")
    for key in ("hep", "fah", "session"):
        if type(header.get(key)) is not str:
            raise Invalid(f"line 1: hep_header.{key} is not a string")
    if header["hep"].split(".")[0] != "v1":
        raise Invalid(f"line 1: unsupported protocol {header['hep']!r}")
    current = 0  # the last round id allocated
    is_open = False  # a round is open (no terminal frame yet)
    agent_starts = 0
    compaction = None  # id of a compaction_start awaiting its compaction_end
    last_terminal = None
    number = 1
    for line in lines[1:]:
        number += 1
        frame = loads(line)
        if type(frame) is not dict:
            raise Invalid(f"line {number}: not an object")
        kind = frame.get("type")
        fields = required.get(kind)
        if fields is None:
            if type(kind) is not str:
                raise Invalid(f"line {number}: no type")
            continue  # an unknown frame type: ignored (additive evolution)
        for key, want in fields:
            if type(frame.get(key, missing)) is not want:
                raise Invalid(f"line {number}: {kind}.{key} is missing or not {want.__name__}")
        turn_id = frame["turn_id"]
        if is_open:
            if turn_id != current:
                raise Invalid(f"line {number}: turn_id {turn_id} in round {current}")
        elif turn_id == current + 1:
            current = turn_id
            is_open = True
        else:
            raise Invalid(f"line {number}: turn_id {turn_id} opens no round (expected {current + 1})")
        if kind == "message_delta":
            pass
        elif kind in TERMINAL:
            is_open = False
            last_terminal = kind
            if kind == "turn_done":
                for result in frame["tool_results"]:
                    if type(result) is not dict:
                        raise Invalid(f"line {number}: a tool result is not an object")
                    for key, want in RESULT_FIELDS:
                        if type(result.get(key, missing)) is not want:
                            raise Invalid(f"line {number}: tool_results[].{key} is missing or not {want.__name__}")
                usage = frame["usage"]
                for key, want in USAGE_FIELDS:
                    if type(usage.get(key, missing)) is not want:
                        raise Invalid(f"line {number}: usage.{key} is missing or not {want.__name__}")
        elif kind == "tool_delta":
            if not frame["update"]:
                raise Invalid(f"line {number}: empty tool_delta.update")
        elif kind == "tool_liveness":
            if frame["action"] not in ACTIONS:
                raise Invalid(f"line {number}: unknown tool_liveness.action")
            if "output_bytes" in frame and type(frame["output_bytes"]) is not int:
                raise Invalid(f"line {number}: tool_liveness.output_bytes is not int")
            if "detail" in frame and type(frame["detail"]) is not str:
                raise Invalid(f"line {number}: tool_liveness.detail is not str")
        elif kind == "message_start":
            if frame["role"] != "assistant":
                raise Invalid(f"line {number}: message_start.role is not assistant")
        elif kind == "agent_start":
            agent_starts += 1
            if agent_starts > 1:
                raise Invalid(f"line {number}: a second agent_start")
        elif kind == "compaction_start":
            compaction = turn_id
        elif kind == "compaction_end":
            if compaction != turn_id:
                raise Invalid(f"line {number}: compaction_end without its compaction_start")
            compaction = None
    if is_open:
        raise Invalid(f"round {current} has no terminal frame")
    if agent_starts != 1 or compaction is not None:
        raise Invalid("agent_start missing, or a compaction left open")
    if last_terminal is None or EXIT_OF[last_terminal] != exit_code:
        raise Invalid(f"exit code {exit_code} but the last terminal frame is {last_terminal}")
    return number


def checker_refuses_bad_streams(lines: List[bytes]) -> None:
    """The checker must not be a no-op: each of these breaks of a good stream is refused."""
    done = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"turn_done"'))
    delta = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"message_delta"'))
    broken = {
        "header not first": [lines[1], lines[0]] + lines[2:],
        "a round with two terminal frames": lines[:done + 1] + [lines[done]] + lines[done + 1:],
        "turn_id as a string": lines[:delta] + [lines[delta].replace(b'"turn_id":1', b'"turn_id":"1"')]
        + lines[delta + 1:],
        "turn_done without usage": lines[:done] + [json.dumps(
            {k: v for k, v in json.loads(lines[done]).items() if k != "usage"}).encode()] + lines[done + 1:],
        "the last round unterminated": lines[:-1],
    }
    for name, bad in broken.items():
        try:
            check_lines(bad, 0)
        except Invalid:
            continue
        raise Failure(f"the pure-Python checker accepted a stream with {name}")


def json_check(corpus: Corpus) -> int:
    """b. `bytes.split` into lines, `json.loads` per line, the checker above."""
    total = 0
    for index, data in enumerate(corpus.streams):
        try:
            total += check_lines(lines_of(data), 0)
        except Invalid as e:
            raise Failure(f"{corpus.name} stream {index}: {e}") from None
    return total


# ---------------------------------------------------------------------------------------
# c. msgspec: a tagged union of Structs, one per frame type (types only, no protocol check)
# ---------------------------------------------------------------------------------------


class MHepHeader(msgspec.Struct, tag_field="type", tag="hep_header"):
    hep: str
    fah: str
    session: str


class MAgentStart(msgspec.Struct, tag_field="type", tag="agent_start"):
    turn_id: int


class MMessageStart(msgspec.Struct, tag_field="type", tag="message_start"):
    turn_id: int
    role: str


class MMessageDelta(msgspec.Struct, tag_field="type", tag="message_delta"):
    turn_id: int
    delta: str


class MToolStart(msgspec.Struct, tag_field="type", tag="tool_start"):
    turn_id: int
    id: str
    name: str
    args_summary: str


class MToolDelta(msgspec.Struct, tag_field="type", tag="tool_delta"):
    turn_id: int
    id: str
    update: str


class MToolLiveness(msgspec.Struct, tag_field="type", tag="tool_liveness", omit_defaults=True):
    turn_id: int
    id: str
    name: str
    action: str
    elapsed_ms: int
    output_bytes: Optional[int] = None
    detail: Optional[str] = None


class MToolResult(msgspec.Struct):
    id: str
    name: str
    ok: bool
    text: str


class MUsage(msgspec.Struct):
    input: int
    output: int
    cost: float


class MTurnDone(msgspec.Struct, tag_field="type", tag="turn_done"):
    turn_id: int
    message: str
    tool_results: List[MToolResult]
    usage: MUsage
    stop_reason: str


class MTurnError(msgspec.Struct, tag_field="type", tag="turn_error"):
    turn_id: int
    error: str
    fatal: bool


class MCancelled(msgspec.Struct, tag_field="type", tag="cancelled"):
    turn_id: int


class MCompactionStart(msgspec.Struct, tag_field="type", tag="compaction_start"):
    turn_id: int


class MCompactionEnd(msgspec.Struct, tag_field="type", tag="compaction_end"):
    turn_id: int
    tokens_freed: int


MFrame = Union[MHepHeader, MAgentStart, MMessageStart, MMessageDelta, MToolStart, MToolDelta, MToolLiveness,
               MTurnDone, MTurnError, MCancelled, MCompactionStart, MCompactionEnd]
DECODER = msgspec.json.Decoder(MFrame)


def msgspec_lines(corpus: Corpus) -> int:
    """c1. `bytes.split` into lines, `Decoder(MFrame).decode` per line."""
    decode = DECODER.decode
    total = 0
    for data in corpus.streams:
        frames = [decode(line) for line in lines_of(data)]
        total += len(frames)
    return total


def msgspec_decode_lines(corpus: Corpus, touch: bool = False) -> int:
    """c2. `Decoder(MFrame).decode_lines` over the whole stream (msgspec's own NDJSON path);
    with `touch` (c3), every field of every frame is read once, as a3 reads hep's."""
    decode_lines = DECODER.decode_lines
    if not touch:
        return sum(len(decode_lines(data)) for data in corpus.streams)
    total = 0
    for data in corpus.streams:
        got = decode_lines(data)
        for frame in got:
            M_FIELDS_OF[type(frame)](frame)
        total += len(got)
    return total


#: One getter per Struct class reading every field (c3); the class is the frame's type, so
#: there is no `type` attribute to read (hep's a3 reads `type` as well).
M_FIELDS_OF: Dict[type, Callable[[Any], Any]] = {
    cls: operator.attrgetter(*cls.__struct_fields__) for cls in MFrame.__args__  # type: ignore[attr-defined]
}


# ---------------------------------------------------------------------------------------
# d. Writing: hep.Writer replaying the corpus, json.dumps of the frames as dicts
# ---------------------------------------------------------------------------------------

Call = Tuple[Callable[..., Any], Tuple[Any, ...]]


class Replay:
    """Per stream, the Writer calls that reproduce it (built from its decoded frames plus the
    writer inputs the frames cannot hold: each call's argument object, each result's uncapped
    text) and the same frames as dicts for `json.dumps`."""

    def __init__(self, corpus: Corpus) -> None:
        self.streams: List[Tuple[str, List[Call]]] = []
        self.dicts: List[List[Dict[str, Any]]] = []
        W = hep.Writer
        for index, (data, inputs) in enumerate(zip(corpus.streams, corpus.inputs)):
            mode = inputs[0]["tool_args"]
            args = iter([json.loads(i["tool_start"]) for i in inputs if "tool_start" in i])
            texts = iter([i["turn_done"] for i in inputs if "turn_done" in i])
            calls: List[Call] = []
            for f in hep.Stream().feed(data):
                if isinstance(f, hep.MessageDelta):
                    calls.append((W.message_delta, (f.delta,)))
                elif isinstance(f, hep.ToolDelta):
                    calls.append((W.tool_delta, (f.id, f.update)))
                elif isinstance(f, hep.ToolStart):
                    calls.append((W.tool_start, (f.id, f.name, next(args))))
                elif isinstance(f, hep.ToolLiveness):
                    calls.append((W.tool_liveness, (f.id, f.name, f.action, f.elapsed_ms, f.output_bytes, f.detail)))
                elif isinstance(f, hep.TurnDone):
                    full = next(texts)
                    if len(full) != len(f.tool_results):
                        raise Failure(f"{corpus.name} stream {index}: turn_done inputs do not match {f!r}")
                    results = [{"id": r.id, "name": r.name, "ok": r.ok, "text": t}
                               for r, t in zip(f.tool_results, full)]
                    usage = {"input": f.usage.input, "output": f.usage.output, "cost": f.usage.cost}
                    calls.append((W.turn_done, (f.message, results, usage, f.stop_reason)))
                elif isinstance(f, hep.MessageStart):
                    calls.append((W.message_start, (f.role,)))
                elif isinstance(f, hep.HepHeader):
                    if f.fah != "1.2.3":
                        raise Failure(f"{corpus.name} stream {index}: unexpected fah {f.fah!r}")
                    calls.append((W.header, (f.session,)))
                elif isinstance(f, hep.AgentStart):
                    calls.append((W.agent_start, ()))
                elif isinstance(f, hep.TurnError):
                    calls.append((W.turn_error, (f.error, f.fatal)))
                elif isinstance(f, hep.Cancelled):
                    calls.append((W.cancelled, ()))
                elif isinstance(f, hep.CompactionStart):
                    calls.append((W.compaction_start, ()))
                elif isinstance(f, hep.CompactionEnd):
                    calls.append((W.compaction_end, (f.tokens_freed,)))
                else:
                    raise Failure(f"{corpus.name} stream {index}: no Writer call for {f!r}")
            if next(args, None) is not None or next(texts, None) is not None:
                raise Failure(f"{corpus.name} stream {index}: writer inputs left over")
            self.streams.append((mode, calls))
            self.dicts.append([json.loads(line) for line in lines_of(data)])


def hep_writer(replay: Replay, sink: str) -> Tuple[int, List[str]]:
    """d1. A fresh `hep.Writer` per stream, into a list's `append` or an `io.StringIO`
    (where the Writer flushes every line), replaying every call. Returns frames and output."""
    frames = 0
    out: List[str] = []
    for mode, calls in replay.streams:
        if sink == "list":
            lines: List[str] = []
            writer = hep.Writer(lines.append, "1.2.3", mode)
            for method, args in calls:
                method(writer, *args)
            frames += len(lines)
            out.append("".join(lines))
        else:
            buffer = io.StringIO()
            writer = hep.Writer(buffer, "1.2.3", mode)
            for method, args in calls:
                method(writer, *args)
            text = buffer.getvalue()
            frames += text.count("\n")
            out.append(text)
    return frames, out


def json_dumps(replay: Replay, reuse: bool) -> Tuple[int, List[str]]:
    """d2. `json.dumps(frame, separators=(",", ":"), ensure_ascii=False)` per frame dict, into
    a list's `append`; with `reuse`, one `json.JSONEncoder` built once and its `encode`."""
    frames = 0
    out: List[str] = []
    dumps = json.dumps
    encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    for dicts in replay.dicts:
        lines: List[str] = []
        append = lines.append
        if reuse:
            for d in dicts:
                append(encode(d) + "\n")
        else:
            for d in dicts:
                append(dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n")
        frames += len(lines)
        out.append("".join(lines))
    return frames, out


# ---------------------------------------------------------------------------------------
# Checks before timing
# ---------------------------------------------------------------------------------------


def precheck(corpus: Corpus, replay: Replay) -> str:
    """Makes the numbers mean something: every method reads the corpus and agrees with the
    others, the Writer reproduces it byte for byte. Returns a line of findings."""
    n = corpus.frames
    for index, data in enumerate(corpus.streams):
        frames = hep.Stream().feed(data)
        lines = lines_of(data)
        for frame, line in zip(frames, lines):
            if frame.to_json().encode() != line or (frame.raw or "").encode() != line:
                raise Failure(f"{corpus.name} stream {index}: a frame does not re-encode to its line:\n{line!r}")
        typed = DECODER.decode_lines(data)
        for m, line in zip(typed, lines):
            if msgspec.to_builtins(m) != json.loads(line):
                raise Failure(f"{corpus.name} stream {index}: msgspec reads {m!r} from\n{line!r}")
    checker_refuses_bad_streams(lines_of(corpus.streams[0]))
    counts = {
        "a. hep whole": hep_stream(corpus, None),
        "a. hep 64K": hep_stream(corpus, CHUNK),
        "a. hep read fields": hep_stream(corpus, None, touch=True),
        "a. hep memoryview": hep_stream(corpus, CHUNK, view=True),
        "b. json+check": json_check(corpus),
        "c. msgspec lines": msgspec_lines(corpus),
        "c. msgspec decode_lines": msgspec_decode_lines(corpus),
        "c. msgspec decode_lines read fields": msgspec_decode_lines(corpus, touch=True),
    }
    wrote, text = hep_writer(replay, "list")
    counts["d. Writer list"] = wrote
    for index, (made, data) in enumerate(zip(text, corpus.streams)):
        if made.encode() != data:
            raise Failure(f"{corpus.name} stream {index}: hep.Writer's replay differs from the corpus")
    wrote, text = hep_writer(replay, "stringio")
    counts["d. Writer StringIO"] = wrote
    if [t.encode() for t in text] != corpus.streams:
        raise Failure(f"{corpus.name}: hep.Writer into StringIO differs from the corpus")
    wrote, text = json_dumps(replay, reuse=False)
    counts["d. json.dumps"] = wrote
    identical = sum(a == b for t, data in zip(text, corpus.streams)
                    for a, b in zip(t.encode().split(b"\n"), lines_of(data)))
    bad = {k: v for k, v in counts.items() if v != n}
    if bad:
        raise Failure(f"{corpus.name}: frame counts differ from the corpus's {n}: {bad}")
    capped = sum(1 for data in corpus.streams for f in hep.Stream().feed(data) if isinstance(f, hep.TurnDone)
                 for r in f.tool_results if r.text.endswith(" chars)") and "…(+" in r.text)
    return (f"checks: every frame re-encodes byte-exact (to_json and raw); msgspec agrees with json.loads "
            f"on every frame; the pure-Python checker refuses 5 broken variants of a stream; "
            f"every method reads {n} frames and every stream is ok/conforming; "
            f"hep.Writer replays the corpus byte for byte; {capped} tool results over the cap; "
            f"json.dumps reproduces {identical}/{n} lines")


# ---------------------------------------------------------------------------------------
# Timing and report
# ---------------------------------------------------------------------------------------


class Case:
    def __init__(self, name: str, run: Callable[[], int]) -> None:
        self.name = name
        self.run = run
        self.cpu: List[float] = []
        self.wall: List[float] = []

    @property
    def median(self) -> float:
        """Median CPU seconds per run (what the ratios use)."""
        return median(self.cpu)


def median(values: List[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def measure(cases: List[Case], frames: int, warmup: int, reps: int) -> None:
    """Each case `warmup` times untimed, then `reps` timed rounds, round-robin over the
    cases (so drift in machine load hits every case alike). Each run is timed both in
    process CPU time (immune to other processes taking the CPU, which is what the ratios
    use) and in wall time. The garbage collector stays on, as in a user's program; a full
    collection runs (untimed) before each run."""
    for rep in range(warmup + reps):
        for case in cases:
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            done = case.run()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            if done != frames:
                raise Failure(f"{case.name}: handled {done} frames, expected {frames}")
            if rep >= warmup:
                case.cpu.append(cpu)
                case.wall.append(wall)


def table(title: str, cases: List[Case], base: str, corpus: Corpus) -> None:
    base_time = next(c.median for c in cases if c.name == base)
    print(f"\n{title}")
    print(f"  {'case':<52} {'cpu ms':>8} {'MB/s':>6} {'kframes/s':>9} {'min..max ms':>12} "
          f"{'wall ms':>8} {'hep/row':>8}")
    for c in cases:
        spread = f"{min(c.cpu) * 1e3:.0f}..{max(c.cpu) * 1e3:.0f}"
        print(f"  {c.name:<52} {c.median * 1e3:>8.1f} {corpus.bytes / 1e6 / c.median:>6.1f} "
              f"{corpus.frames / 1e3 / c.median:>9.0f} {spread:>12} {median(c.wall) * 1e3:>8.1f} "
              f"{c.median / base_time:>7.2f}x")


A_WHOLE = "a1. hep.Stream.feed(whole stream) + finish(0)"
A_CHUNK = "a2. hep.Stream.feed(64 KiB chunks) + finish(0)"
A_TOUCH = "a3. a1 + every field of every frame read once"
A_VIEW = "a4. a2 fed memoryview slices instead of bytes"
B_JSON = "b. json.loads per line + pure-Python check"
C_LINES = "c1. msgspec Decoder(Union).decode per line"
C_NDJSON = "c2. msgspec Decoder(Union).decode_lines"
C_TOUCH = "c3. c2 + every field of every frame read once"
D_WRITER = "d1. hep.Writer replay -> list.append"
D_WRITER_IO = "d1b. hep.Writer replay -> io.StringIO"
D_DUMPS = "d2. json.dumps(d, separators, ensure_ascii=False)"
D_ENCODER = "d3. one JSONEncoder(separators, ...).encode"

#: (label, hep row, alternative row, target or None)
RATIOS = (
    ("Stream.feed(whole) + read fields / decode_lines + read fields", A_TOUCH, C_TOUCH, 1.0),
    ("Stream.feed(whole) / msgspec decode_lines", A_WHOLE, C_NDJSON, 1.0),
    ("Stream.feed(64K) / msgspec decode_lines", A_CHUNK, C_NDJSON, None),
    ("Stream.feed(whole) / msgspec typed (per line)", A_WHOLE, C_LINES, None),
    ("Stream.feed(64K) / msgspec typed (per line)", A_CHUNK, C_LINES, None),
    ("Stream.feed(whole) / json.loads + check", A_WHOLE, B_JSON, None),
    ("Stream.feed(64K) / json.loads + check", A_CHUNK, B_JSON, None),
    ("Writer (list.append) / json.dumps", D_WRITER, D_DUMPS, 2.0),
    ("Writer (list.append) / reused JSONEncoder", D_WRITER, D_ENCODER, None),
    ("Writer (StringIO) / json.dumps", D_WRITER_IO, D_DUMPS, None),
)


def bench_corpus(corpus: Corpus, args: argparse.Namespace) -> List[Tuple[str, float, float]]:
    print(f"\ncorpus {corpus.name:<12} {corpus.bytes / 1e6:7.1f} MB  {len(corpus.streams):3d} streams  "
          f"{corpus.frames:9d} frames  {corpus.bytes / corpus.frames:5.0f} B/frame  (scale {corpus.scale})")
    replay = Replay(corpus)
    print("  " + precheck(corpus, replay), flush=True)

    def frames_only(run: Callable[[], Tuple[int, List[str]]]) -> Callable[[], int]:
        return lambda: run()[0]

    reading = [
        Case(A_WHOLE, lambda: hep_stream(corpus, None)),
        Case(A_CHUNK, lambda: hep_stream(corpus, CHUNK)),
        Case(A_TOUCH, lambda: hep_stream(corpus, None, touch=True)),
        Case(A_VIEW, lambda: hep_stream(corpus, CHUNK, view=True)),
        Case(B_JSON, lambda: json_check(corpus)),
        Case(C_LINES, lambda: msgspec_lines(corpus)),
        Case(C_NDJSON, lambda: msgspec_decode_lines(corpus)),
        Case(C_TOUCH, lambda: msgspec_decode_lines(corpus, touch=True)),
    ]
    writing = [
        Case(D_WRITER, frames_only(lambda: hep_writer(replay, "list"))),
        Case(D_WRITER_IO, frames_only(lambda: hep_writer(replay, "stringio"))),
        Case(D_DUMPS, frames_only(lambda: json_dumps(replay, reuse=False))),
        Case(D_ENCODER, frames_only(lambda: json_dumps(replay, reuse=True))),
    ]
    cases = [c for c in reading + writing if args.only is None or args.only in c.name]

    if args.profile:
        for case in cases:
            print(f"\ncProfile of {case.name} ({corpus.name}), one run:")
            profiler = cProfile.Profile()
            profiler.runcall(case.run)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(14)
        return []
    # The corpus and the replay inputs are long-lived: move them out of the collector's
    # sight, so each case pays for the collections its own objects cause and not for
    # traversing the bench's inputs again and again.
    gc.collect()
    gc.freeze()
    try:
        measure(cases, corpus.frames, args.warmup, args.reps)
    finally:
        gc.unfreeze()
    busy = max(median(c.wall) / c.median for c in cases)
    if busy > 1.15:
        print(f"  note: wall time exceeded CPU time by up to {100 * (busy - 1):.0f}%: other processes took the CPU "
              "(CPU time leaves that wait out, though not the slowdown of sharing caches and memory)")
    names = {c.name for c in cases}
    if A_WHOLE in names:
        table(f"{corpus.name} — reading", [c for c in reading if c.name in names], A_WHOLE, corpus)
    if D_WRITER in names:
        table(f"{corpus.name} — writing", [c for c in writing if c.name in names], D_WRITER, corpus)
    times = {c.name: c.median for c in cases}
    print("  ratios (hep speed / alternative speed = alternative time / hep time):")
    verdicts = []
    for label, fast, slow, target in RATIOS:
        if fast in times and slow in times:
            ratio = times[slow] / times[fast]
            verdict = "" if target is None else f"target >= {target:.1f}x: {'MET' if ratio >= target else 'MISSED'}"
            print(f"  {label:<52} {ratio:6.2f}x   {verdict}")
            if target is not None:
                verdicts.append((f"{corpus.name}: {label}", ratio, target))
    return verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=7, help="timed runs per case (median reported)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per case first")
    parser.add_argument("--scale", type=float, default=1.0, help="corpus size (streams x scale), as hep-bench")
    parser.add_argument("--corpus", choices=PROFILES, help="only this corpus")
    parser.add_argument("--corpus-dir", type=Path,
                        help="read a corpus dumped earlier by `hep-bench --dump-corpus DIR` instead of dumping one")
    parser.add_argument("--only", help="only the cases whose name contains this")
    parser.add_argument("--profile", action="store_true", help="run each chosen case once under cProfile, no timing")
    args = parser.parse_args()
    args.reps = max(1, args.reps)
    print(f"hep-bench (Python): {args.warmup} warm-up + {args.reps} timed runs per case (median reported), "
          f"{os.cpu_count()} cores")
    print(f"Python {platform.python_version()} ({platform.python_implementation()}), hep {hep.__version__} "
          f"({Path(hep._hep.__file__).name}), msgspec {msgspec.__version__}")
    print("MB = 10^6 bytes of the corpus (read by the parsers, written by the writers); frames = lines")
    print("times are process CPU time (median; wall-clock median shown too); "
          "hep/row = row time / hep time (> 1.00x: hep is faster)")
    with tempfile.TemporaryDirectory(prefix="hep-bench-corpus-") as tmp:
        directory = args.corpus_dir
        if directory is None:
            directory = Path(tmp)
            dump_corpora(directory, args.scale)
        corpora = [Corpus(directory / name) for name in PROFILES if args.corpus in (None, name)]
    verdicts = []
    for corpus in corpora:
        verdicts.extend(bench_corpus(corpus, args))
    if verdicts:
        print("\nsummary")
        for label, ratio, target in verdicts:
            print(f"  {label:<66} {ratio:6.2f}x  (target >= {target:.1f}x) {'MET' if ratio >= target else 'MISSED'}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print(f"\nhep-bench (Python): FAILED: {e}", file=sys.stderr)
        sys.exit(1)
