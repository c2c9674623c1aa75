"""Checks that every code snippet of a language's doc (docs/python.md, docs/swift.md) is
tested code.

Each ```LANG block of the doc must be tagged with a `<!-- snippet: NAME -->` line just above
its opening fence, and its text must be exactly the region between `START NAME` and
`END NAME` comment lines (`# ...` in Python, `// ...` in Swift) in that language's tested
sources (dedented, marker lines of nested regions left out):

- python: examples/python/*.py and bindings-python/tests/typing/*.py;
- swift: examples/swift/Sources/**/*.swift and bindings-swift/Tests/**/*.swift.

Those files run in `make test`, so the doc shows code that runs.

    python3 scripts/check_docs.py python|swift [DOC]

Exit 0 when every snippet matches; 1 with a diff per mismatch otherwise.
"""

from __future__ import annotations

import difflib
import re
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, NamedTuple, Tuple

REPO = Path(__file__).resolve().parents[1]


class Lang(NamedTuple):
    """Where a language's doc and tested sources are, and how its code is marked."""

    doc: Path
    sources: List[Path]
    pattern: str
    comment: str
    fences: Tuple[str, ...]


LANGS = {
    "python": Lang(
        REPO / "docs" / "python.md",
        [REPO / "examples" / "python", REPO / "bindings-python" / "tests" / "typing"],
        "*.py",
        "#",
        ("python", "py"),
    ),
    "swift": Lang(
        REPO / "docs" / "swift.md",
        [REPO / "examples" / "swift" / "Sources", REPO / "bindings-swift" / "Tests"],
        "**/*.swift",
        "//",
        ("swift",),
    ),
}
TAG = re.compile(r"^<!-- snippet: ([\w.-]+) -->\s*$")
FENCE = re.compile(r"^(```+|~~~+)(.*)$")


def regions(lang: Lang, errors: List[str]) -> Dict[str, Tuple[str, str]]:
    """Every `START name` ... `END name` region of `lang`'s sources: name -> (text, where)."""
    marker_line = re.compile(rf"^\s*{re.escape(lang.comment)} (START|END) ([\w.-]+)\s*$")
    found: Dict[str, Tuple[str, str]] = {}
    for folder in lang.sources:
        for path in sorted(folder.glob(lang.pattern)):
            where = str(path.relative_to(REPO))
            open_at: Dict[str, int] = {}
            body: Dict[str, List[str]] = {}
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                marker = marker_line.match(line)
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
                    errors.append(f"{where}:{number}: `{lang.comment} END {name}` without its START")
                else:
                    del open_at[name]
                    text = textwrap.dedent("\n".join(body.pop(name))).strip("\n")
                    found[name] = (text, f"{where}:{number}")
            for name, number in open_at.items():
                errors.append(f"{where}:{number}: region {name!r} is never ended")
    return found


def snippets(lang: Lang, doc: Path, errors: List[str]) -> List[Tuple[str, str, int]]:
    """Every block of `lang`'s code in `doc`: (tag, text, line of the fence)."""
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
        if info.split()[:1] not in ([fence] for fence in lang.fences):
            continue
        tag = TAG.match(lines[start - 1]) if start > 0 else None
        if tag is None:
            errors.append(f"{doc.name}:{start + 1}: {lang.fences[0]} block without a `<!-- snippet: NAME -->` line above")
            continue
        blocks.append((tag.group(1), "\n".join(body).strip("\n"), start + 1))
    return blocks


def main(argv: List[str]) -> int:
    if not argv or argv[0] not in LANGS:
        print(f"usage: check_docs.py {'|'.join(LANGS)} [DOC]", file=sys.stderr)
        return 2
    lang = LANGS[argv[0]]
    doc = Path(argv[1]) if len(argv) > 1 else lang.doc
    errors: List[str] = []
    found = regions(lang, errors)
    blocks = snippets(lang, doc, errors)
    for name, text, line in blocks:
        if name not in found:
            errors.append(f"{doc.name}:{line}: snippet {name!r} has no `{lang.comment} START {name}` region")
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
