#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets under fuzz/corpus/<target>/ (not committed).

decode_line gets every line of conformance/ (decode, reject, encode, writer, stream cases);
stream_split gets every conformance/stream input behind a few option headers (see
fuzz/src/stream_split.rs: 24 header bytes, then the stream). With a bench corpus dump
(`cargo run --release -p hep-bench -- --dump-corpus DIR --scale 0.01`) given as the first
argument, its streams are added too, cut to 4 KiB. writer_session starts from nothing: its
input is structured by `arbitrary`, so conformance text would not be meaningful to it.
"""

import base64
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
HEADER = 24
MAX_SEED = 4096


def text(value):
    """A conformance *text*: a string, {"repeat": S, "count": N}, or a list of texts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(text(v) for v in value)
    if isinstance(value, dict) and "repeat" in value:
        return value["repeat"] * value["count"]
    return None


def case_bytes(case, name):
    """The *bytes* field `name` (or `name_base64`) of a case, if present."""
    if f"{name}_base64" in case:
        return base64.b64decode(case[f"{name}_base64"])
    value = text(case.get(name))
    return None if value is None else value.encode()


def headers():
    """Option headers: defaults whole; tiny limits byte by byte; strict, max line 40, cuts of 7 and 3."""
    plain = bytes(HEADER)
    tiny = bytes([2 | (1 << 3), 0, 2, 8, 8, 2, 2, 2, 64, 0, 0, 0, 0]) + bytes([1] * (HEADER - 13))
    strict = bytes([1 | 4 | (4 << 3) | (2 << 6), 40, 0, 0, 0, 0]) + bytes([7, 3] * ((HEADER - 6) // 2))
    return [plain, tiny, strict]


def write(target, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main():
    lines, streams = set(), set()
    for path in sorted((ROOT / "conformance").rglob("*.json")):
        case = json.loads(path.read_text())
        if not isinstance(case, dict):
            continue
        for name in ("line", "encoded"):
            line = case_bytes(case, name)
            if line is not None:
                lines.add(line)
        for line in case.get("lines", []) if isinstance(case.get("lines"), list) else []:
            if isinstance(line, str):
                lines.add(line.encode())
        if "input_lines" in case:
            stream = b"".join((text(l) or "").encode() + b"\n" for l in case["input_lines"])
        else:
            stream = case_bytes(case, "input")
        if stream is not None and path.parent.name == "stream":
            streams.add(stream[:MAX_SEED])
            lines.update(l for l in stream.split(b"\n") if l)
    if len(sys.argv) > 1:
        for path in sorted(pathlib.Path(sys.argv[1]).rglob("stream-*.jsonl")):
            if path.name.endswith(".inputs.jsonl"):
                continue
            data = path.read_bytes()
            streams.add(data[:MAX_SEED])
            lines.update(l for l in data[:MAX_SEED].split(b"\n")[:-1] if l)
    for line in lines:
        write("decode_line", line)
    for stream in streams:
        for head in headers():
            write("stream_split", head + stream)
    print(f"seeds: {len(lines)} lines for decode_line, {len(streams) * len(headers())} streams for stream_split")


if __name__ == "__main__":
    main()
