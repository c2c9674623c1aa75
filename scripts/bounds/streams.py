"""The streams of `make bounds`, written on the fly with their exact expected counts.

A stream is a `Plan`: its name, its size, the reader's maximum line length, what a correct
reader must report (frames, lines, skipped `line_too_long` lines, verdict with exit code 0)
and `chunks()`, the bytes themselves in pieces of at most about 1 MiB, so nothing of its
size is ever held in memory or on disk.

- `session(size)`: a realistic session (header, `agent_start`, then rounds of message
  deltas, tool calls with output, heartbeats, tool results, pre-flight compactions) up to
  `size` bytes, every line a frame, verdict ok.
- `long_line(line_bytes)`: a short session with one `message_delta` line of `line_bytes`
  bytes in the middle, skipped as `line_too_long`.
- `over_limit(size, max_line)`: a session whose deltas alternate with lines of exactly
  `max_line + 1` bytes (each skipped) up to `size` bytes, read with that maximum.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional

MIB = 1 << 20
DEFAULT_MAX_LINE = 16 * MIB
"""The readers' default maximum line length (hep-core's)."""

BLOCK = MIB
"""About how many bytes `chunks()` yields at a time."""

SENTINEL = 987654321
"""The turn id the round templates are written with, replaced by the real one."""

WORDS = (
    "the parser reads each line once and hands the frame over at once; "
    "tests pass again after the fix — café, naïve, 日本語のテキスト, emoji 🚀👍🏽, "
    'quotes "like this", a backslash \\ and a tab\there. Next, run the suite.\n'
    "```rust\nfn main() { println!(\"hi\"); }\n```\n"
).split(" ")

TOOL_OUTPUT = [
    "   Compiling hep-core v0.1.0\n",
    "    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s\n",
    "test lines::tests::splits_on_newline_only ... ok\n",
    "test decode::tests::lone_surrogates ... ok\n",
    "src/lib.rs:42:9: warning: unused variable `x`\n",
    "drwxr-xr-x  5 user user 4096 Nov 30 12:00 src\n",
    "+    let n = line.len(); // 長さ\n",
]


@dataclass
class Plan:
    """A stream to read: what it is and what a correct reader reports for it."""

    name: str
    size: int
    max_line: Optional[int]
    frames: int
    lines: int
    skipped: int
    verdict: str
    chunks: Callable[[], Iterator[bytes]]


def line(obj: Dict[str, Any]) -> str:
    """One frame as the reference emitter writes it (compact JSON, UTF-8, newline)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def template(frames: List[Dict[str, Any]]) -> str:
    """Frames of one round as a %-template, `%(t)d` standing for the turn id (which is also
    in the call ids, so they are distinct over the session)."""
    text = "".join(line(f) for f in frames).replace("%", "%%")
    return text.replace(str(SENTINEL), "%(t)d")


def deltas(rng: random.Random, words: int) -> List[str]:
    """Assistant text cut into `message_delta` chunks of 1 to 6 words."""
    out: List[str] = []
    left = words
    while left > 0:
        n = min(left, rng.randint(1, 6))
        out.append(" ".join(rng.choice(WORDS) for _ in range(n)) + " ")
        left -= n
    return out


def round_frames(rng: random.Random, kind: str) -> List[Dict[str, Any]]:
    """One round's frames, turn id `SENTINEL`: `chat`, `tools`, `stuck` or `compaction`."""
    t = SENTINEL
    frames: List[Dict[str, Any]] = []
    if kind == "compaction":
        frames += [
            {"type": "compaction_start", "turn_id": t},
            {"type": "compaction_end", "turn_id": t, "tokens_freed": rng.randint(1000, 60000)},
        ]
    frames.append({"type": "message_start", "turn_id": t, "role": "assistant"})
    chunks = deltas(rng, rng.randint(40, 160))
    frames += [{"type": "message_delta", "turn_id": t, "delta": d} for d in chunks]
    results = []
    if kind in ("tools", "stuck"):
        call = f"call_{t}"
        frames.append({"type": "tool_start", "turn_id": t, "id": call, "name": "bash", "args_summary": 'command="cargo test"'})
        output = ""
        for i in range(rng.randint(5, 30)):
            update = rng.choice(TOOL_OUTPUT)
            output += update
            frames.append({"type": "tool_delta", "turn_id": t, "id": call, "update": update})
            if i % 8 == 7 or kind == "stuck":
                frames.append({
                    "type": "tool_liveness", "turn_id": t, "id": call, "name": "bash", "action": "heartbeat",
                    "elapsed_ms": 1000 * (i + 1), "output_bytes": len(output.encode()), "detail": "attempt 1",
                })
        results.append({"id": call, "name": "bash", "ok": kind == "tools", "text": output[:2000].rstrip("\n")})
    frames.append({
        "type": "turn_done", "turn_id": t, "message": "".join(chunks)[:300], "tool_results": results,
        "usage": {"input": rng.randint(500, 9000), "output": rng.randint(50, 900), "cost": round(rng.uniform(0.001, 0.05), 6)},
        "stop_reason": "toolUse" if results else "stop",
    })
    return frames


@dataclass
class Round:
    """A round template: its text, its line count, its size in bytes for a one-digit turn
    id, and how many times the turn id appears in it."""

    text: str
    lines: int
    size: int
    ids: int

    def size_for(self, turn: int) -> int:
        """Its size in bytes with turn id `turn`."""
        return self.size + self.ids * (len(str(turn)) - 1)


def round_templates(seed: int = 7) -> List[Round]:
    """A fixed mix of round templates (chat, tool calls, a stuck call, a compaction)."""
    rng = random.Random(seed)
    kinds = ["chat"] * 5 + ["tools"] * 8 + ["stuck"] * 2 + ["compaction"] * 1
    out = []
    for kind in kinds:
        frames = round_frames(rng, kind)
        text = template(frames)
        out.append(Round(text, len(frames), len((text % {"t": 0}).encode()), text.count("%(t)d")))
    return out


def header() -> str:
    """The header and the first round's `agent_start`."""
    return line({"type": "hep_header", "hep": "v1", "fah": "0.1.0", "session": "bounds"}) + line(
        {"type": "agent_start", "turn_id": 1}
    )


def closing(turn: int) -> str:
    """A last round that ends the session (`turn_done`, stop reason `stop`)."""
    return "".join([
        line({"type": "message_start", "turn_id": turn, "role": "assistant"}),
        line({"type": "message_delta", "turn_id": turn, "delta": "Done."}),
        line({
            "type": "turn_done", "turn_id": turn, "message": "Done.", "tool_results": [],
            "usage": {"input": 10, "output": 2, "cost": 0.0001}, "stop_reason": "stop",
        }),
    ])


def session(size: int) -> Plan:
    """A realistic session of about `size` bytes (at most one round more)."""
    templates = round_templates()
    rounds, lines, written = 0, 2, len(header().encode())
    while written + len(closing(rounds + 1).encode()) < size:
        template = templates[rounds % len(templates)]
        written += template.size_for(rounds + 1)
        lines += template.lines
        rounds += 1
    written += len(closing(rounds + 1).encode())
    lines += 3

    def chunks() -> Iterator[bytes]:
        parts = [header()]
        held = 0
        for r in range(rounds):
            part = templates[r % len(templates)].text % {"t": r + 1}
            parts.append(part)
            held += len(part)
            if held >= BLOCK:
                yield "".join(parts).encode()
                parts, held = [], 0
        parts.append(closing(rounds + 1))
        yield "".join(parts).encode()

    return Plan(f"session-{label(size)}", written, None, lines, lines, 0, "ok", chunks)


def padded_delta(length: int, turn: int) -> Iterator[bytes]:
    """A `message_delta` line of exactly `length` bytes (newline excluded), then `\\n`."""
    head = ('{"type":"message_delta","turn_id":%d,"delta":"' % turn).encode()
    tail = b'"}\n'
    body = length - len(head) - len(tail) + 1
    yield head
    block = b"x" * min(BLOCK, body)
    while body > 0:
        yield block[:body]
        body -= len(block)
    yield tail


def opening() -> str:
    """Header, `agent_start` and round 1's `message_start` and a first delta (4 lines)."""
    return header() + line({"type": "message_start", "turn_id": 1, "role": "assistant"}) + line(
        {"type": "message_delta", "turn_id": 1, "delta": "Reading a long line. "}
    )


def ending() -> str:
    """Round 1's `turn_done` (1 line)."""
    return line({
        "type": "turn_done", "turn_id": 1, "message": "Reading a long line.", "tool_results": [],
        "usage": {"input": 10, "output": 2, "cost": 0.0001}, "stop_reason": "stop",
    })


def long_line(line_bytes: int) -> Plan:
    """One line of `line_bytes` bytes amid a session; read with the default maximum."""

    def chunks() -> Iterator[bytes]:
        yield opening().encode()
        yield from padded_delta(line_bytes, 1)
        yield ending().encode()

    size = len(opening().encode()) + line_bytes + 1 + len(ending().encode())
    return Plan(f"line-{label(line_bytes)}", size, None, 5, 6, 1, "protocol_error", chunks)


def over_limit(size: int, max_line: int) -> Plan:
    """Lines of `max_line + 1` bytes, each after a valid delta, to about `size` bytes."""
    good = line({"type": "message_delta", "turn_id": 1, "delta": "ok "}).encode()
    pair = len(good) + max_line + 2
    fixed = len(opening().encode()) + len(ending().encode())
    count = max(1, (size - fixed) // pair)

    def chunks() -> Iterator[bytes]:
        yield opening().encode()
        if max_line + 1 >= BLOCK:
            for _ in range(count):
                yield good
                yield from padded_delta(max_line + 1, 1)
        else:
            one = good + b"".join(padded_delta(max_line + 1, 1))
            per_block = max(1, BLOCK // len(one))
            left = count
            while left > 0:
                n = min(left, per_block)
                yield one * n
                left -= n
        yield ending().encode()

    frames = 5 + count
    name = f"over-{label(max_line)}-{label(size)}"
    return Plan(name, fixed + count * pair, max_line, frames, frames + count, count, "protocol_error", chunks)


def label(n: int) -> str:
    """`n` bytes as a short label: 64M, 1G, 256, 16M+1."""
    for unit, suffix in ((1 << 30, "G"), (MIB, "M"), (1 << 10, "K")):
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)
