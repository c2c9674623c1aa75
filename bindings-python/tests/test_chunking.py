"""Chunking invariance through the Python API: the same bytes fed to `hep.Stream` in any split
(one byte at a time, fixed sizes, seeded random cuts, cuts inside every multi-byte UTF-8
character and inside every escape, between every \\r and \\n) give exactly the same frames,
violations, skipped lines, halt, verdict and run as the bytes fed whole.

The inputs: every `stream/` case and `hostile/` stream case of ../../conformance/ (with its
options and exit code), every `decode/`, `reject/` and `hostile/` line (as a one-line stream
and as a truncated last line), and `hep simulate` output for every scenario that ends by
itself (two seeds, both argument renderings, with \\r\\n line ends and with hostile lines
inserted). The Rust suite (hep-core/tests/chunking.rs) also cuts small inputs at every
position.
"""

from __future__ import annotations

import random
import subprocess
import zlib
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import hep

from conformance_stream import outcome, stream_exit_code, stream_input, stream_limits, stream_options
from conformance_support import CaseError, get_bytes, same_json
from supervise_support import simulate
from test_conformance import ROOT, case_files, load, relative

# Inputs larger than this are not fed in chunks of fewer than 64 bytes here (the conformance
# runner already feeds every stream case one byte at a time, and the Rust suite every input).
BYTEWISE_UP_TO = 64 * 1024
# Most single cuts tried per kind of position.
SINGLE_CUTS = 16
RANDOM_SPLITS = 8
SCENARIOS = (
    "chat", "tools", "error", "compaction", "stuck", "big-output", "future", "over-window", "skipped-compaction"
)

Options = Tuple[bool, int, Optional[hep.Limits]]
Input = Tuple[str, bytes, Options, Optional[int]]


def cut(data: bytes, cuts: List[int]) -> List[bytes]:
    """`data` cut at ascending positions `cuts`."""
    bounds = [0] + [c for c in cuts if 0 <= c <= len(data)] + [len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


def splits(data: bytes, seed: int) -> Iterator[Tuple[str, List[int]]]:
    """Named splits of `data`, each a list of cut positions."""
    n = len(data)
    for size in (1, 2, 3, 7, 64, 4096):
        if size >= 64 or n <= BYTEWISE_UP_TO:
            yield f"in {size}-byte chunks", list(range(size, n, size))
    rng = random.Random(seed)
    inside_chars = [i for i in range(1, n) if data[i] & 0xC0 == 0x80]
    inside_escapes = sorted(
        {c for i in range(n) if data[i] == 0x5C for c in range(i + 1, i + (6 if data[i + 1 : i + 2] == b"u" else 2)) if c < n}
    )
    between_cr_lf = [i for i in range(1, n) if data[i - 1 : i + 1] == b"\r\n"]
    for what, cuts in (
        ("inside every multi-byte character", inside_chars),
        ("inside every escape", inside_escapes),
        ("between every \\r and \\n", between_cr_lf),
    ):
        if cuts:
            yield what, cuts
        for c in cuts if len(cuts) <= SINGLE_CUTS else rng.sample(cuts, SINGLE_CUTS):
            yield f"cut once {what} (at byte {c})", [c]
    for round_ in range(RANDOM_SPLITS):
        cuts = sorted(rng.randrange(n + 1) for _ in range(1 + rng.randrange(min(48, max(n, 1)))))
        yield f"random cuts #{round_} (seed {seed}): {cuts}", cuts


def check(name: str, data: bytes, options: Options, exit_code: Optional[int]) -> List[str]:
    """Feeds `data` in every split; returns a description of each split whose outcome differs."""
    strict, max_line, limits = options
    whole = outcome([data], strict, max_line, exit_code, limits)
    failures = []
    for how, cuts in splits(data, zlib.crc32(name.encode())):
        try:
            same_json(f"fed {how}, the outcome (vs. fed whole)", whole, outcome(cut(data, cuts), strict, max_line, exit_code, limits))
        except CaseError as e:
            failures.append(f"{name}: {e}")
    return failures


# ---- the conformance vectors ----


def conformance_inputs(group: str) -> List[Input]:
    inputs: List[Input] = []
    for path in case_files(group):
        name = f"conformance/{relative(path)}"
        case = load(path)
        if group == "stream" or case.get("form") == "stream":
            inputs.append((name, stream_input(case), (*stream_options(case), stream_limits(case)), stream_exit_code(case)))
        else:
            line = get_bytes(case, "line")
            inputs.append((f"{name} (as a line)", line + b"\n", (False, 16 << 20, None), 0))
            inputs.append((f"{name} (as a truncated tail)", line, (False, 16 << 20, None), None))
    return inputs


@pytest.mark.parametrize("group", ["stream", "hostile", "decode", "reject"])
def test_every_conformance_input_gives_the_same_outcome_however_split(group: str) -> None:
    inputs = conformance_inputs(group)
    assert inputs, f"conformance/{group}/ holds no case"
    failures = [f for name, data, options, exit_code in inputs for f in check(name, data, options, exit_code)]
    assert not failures, f"{len(failures)} split(s) change the outcome:\n" + "\n".join(failures)


# ---- a realistic stream: `hep simulate` ----

HOSTILE_LINES = [
    b"",
    b"   Compiling agent v1.0 (prose on stdout)",
    b'{"type":"message_delta","turn_id":1,"delta":"bad \xc3\x28 utf-8"}',
    b'{"type":"agent_start","turn_id":1}{"type":"cancelled","turn_id":1}',
    b'{"type":"plan_update","turn_id":"x","note":"\\ud83d"}',
    b'\xef\xbb\xbf{"type":"message_delta","turn_id":1,"delta":"bom"}',
    b"\x00\x00\x00\x00",
    b'{"type":"message_delta","turn_id":1,"delta":"a\\ud83d\\ude00\\u00e9\\\\\\""}',
]


def with_hostile_lines(data: bytes, seed: int) -> bytes:
    """`data` with hostile lines inserted every so often and a tail cut inside a character."""
    rng = random.Random(seed)
    out = bytearray()
    for line in data.splitlines(keepends=True):
        if rng.randrange(7) == 0:
            out += rng.choice(HOSTILE_LINES) + b"\n"
        out += line
    return bytes(out) + b'{"type":"message_delta","turn_id":9,"delta":"cut \xe2\x82'


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_simulated_runs_give_the_same_outcome_however_split(hep_bin: Path, scenario: str) -> None:
    failures: List[str] = []
    for seed in (1, 2):
        for extra in ([], ["--full-args"]):
            argv = simulate(hep_bin, scenario) + ["--seed", str(seed)] + extra
            done = subprocess.run(argv, capture_output=True, check=False, timeout=60)
            data, code = done.stdout, done.returncode
            assert data.count(b"\n") >= 3, f"{argv}: {done.stderr!r}"
            name = f"hep simulate --scenario {scenario} --seed {seed} {' '.join(extra)}"
            whole = outcome([data], False, 16 << 20, code)
            assert whole["conforms"], f"{name}: the simulator's run does not conform: {whole['violations']} {whole['skipped']}"
            variants: List[Input] = [
                (name, data, (False, 16 << 20, None), code),
                (f"{name}, \\r\\n line ends", data.replace(b"\n", b"\r\n"), (False, 16 << 20, None), code),
                (f"{name}, hostile lines", with_hostile_lines(data, seed), (False, 16 << 20, None), 137),
                (f"{name}, hostile lines, 300-byte lines", with_hostile_lines(data, seed), (False, 300, None), None),
                (f"{name}, hostile lines, strict", with_hostile_lines(data, seed), (True, 16 << 20, None), code),
            ]
            for variant in variants:
                failures += check(*variant)
    assert not failures, f"{len(failures)} split(s) change the outcome:\n" + "\n".join(failures)


def test_the_splits_cut_where_they_say() -> None:
    data = "a\u00e9\\u00e9\r\n\U0001F600".encode()
    named: Dict[str, Any] = dict(splits(data, 1))
    assert named["inside every multi-byte character"] == [2, 12, 13, 14]
    assert named["inside every escape"] == [4, 5, 6, 7, 8]
    assert named["between every \\r and \\n"] == [10]
    assert named["in 1-byte chunks"] == list(range(1, len(data)))
    assert cut(b"abcdef", [2, 2, 5]) == [b"ab", b"", b"cde", b"f"]
