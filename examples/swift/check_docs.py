"""Checks that every Swift snippet of docs/swift.md is tested code.

Each ```swift block of the doc must be tagged with a `<!-- snippet: NAME -->` line just
above its opening fence, and its text must be exactly the region between `// START NAME`
and `// END NAME` in examples/swift/Sources/**/*.swift or bindings-swift/Tests/**/*.swift
(dedented, marker lines of nested regions left out). Those files are built and run by
bindings-swift/test.sh (`make test`), so the doc shows code that runs.

    python3 examples/swift/check_docs.py [DOC]

Exit 0 when every snippet matches; 1 with a diff per mismatch otherwise.
"""

from __future__ import annotations

import difflib
import re
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "swift.md"
SOURCES = [REPO / "examples" / "swift" / "Sources", REPO / "bindings-swift" / "Tests"]

MARKER = re.compile(r"^\s*// (START|END) ([\w.-]+)\s*$")
TAG = re.compile(r"^<!-- snippet: ([\w.-]+) -->\s*$")
FENCE = re.compile(r"^(```+|~~~+)(.*)$")


def regions(errors: List[str]) -> Dict[str, Tuple[str, str]]:
    """Every `// START name` ... `// END name` region: name -> (text, where)."""
    found: Dict[str, Tuple[str, str]] = {}
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.swift")):
            where = str(path.relative_to(REPO))
            open_at: Dict[str, int] = {}
            body: Dict[str, List[str]] = {}
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                marker = MARKER.match(line)
                if marker is None:
                    for name in open_at:
                        body[name].append(line)
                    continue
                kind, name = marker.groups()
                if kind == "START":
                    if name in open_at or name in found:
                        errors.append(f"{where}:{number}: region {name!r} started twice")
                    open_at[name] = number
                    body[name] = []
                elif name not in open_at:
                    errors.append(f"{where}:{number}: `// END {name}` without its START")
                else:
                    del open_at[name]
                    text = textwrap.dedent("\n".join(body.pop(name))).strip("\n")
                    found[name] = (text, f"{where}:{number}")
            for name, number in open_at.items():
                errors.append(f"{where}:{number}: region {name!r} is never ended")
    return found


def snippets(doc: Path, errors: List[str]) -> List[Tuple[str, str, int]]:
    """Every ```swift block of `doc`: (tag, text, line of the fence)."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks: List[Tuple[str, str, int]] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        ticks, info = fence.group(1), fence.group(2).strip()
        start = i
        i += 1
        body: List[str] = []
        while i < len(lines) and not (lines[i].startswith(ticks) and lines[i].strip() == ticks):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            errors.append(f"{doc.name}:{start + 1}: code block is never closed")
        i += 1
        if info.split()[:1] != ["swift"]:
            continue
        tag = TAG.match(lines[start - 1]) if start > 0 else None
        if tag is None:
            errors.append(f"{doc.name}:{start + 1}: swift block without a `<!-- snippet: NAME -->` line above")
            continue
        blocks.append((tag.group(1), "\n".join(body).strip("\n"), start + 1))
    return blocks


def main(argv: List[str]) -> int:
    doc = Path(argv[0]) if argv else DOC
    errors: List[str] = []
    found = regions(errors)
    blocks = snippets(doc, errors)
    for name, text, line in blocks:
        if name not in found:
            errors.append(f"{doc.name}:{line}: snippet {name!r} has no `// START {name}` region")
            continue
        expected, where = found[name]
        if text != expected:
            diff = difflib.unified_diff(
                expected.splitlines(), text.splitlines(), f"{where} ({name})", f"{doc.name}:{line}", lineterm=""
            )
            errors.append(f"{doc.name}:{line}: snippet {name!r} differs from its region:\n" + "\n".join(diff))
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"check_docs: {len(errors)} problem(s) in {doc}", file=sys.stderr)
        return 1
    unused = sorted(set(found) - {name for name, _, _ in blocks})
    note = f" (regions not shown: {', '.join(unused)})" if unused else ""
    print(f"check_docs: {len(blocks)} snippets of {doc.name} match the tested code{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
