"""Checks what an example supervisor (examples/{python,node,swift}) printed while it ran
the hostile emitter beside this file: stdout and stderr must be UTF-8 with no control
character (but newline and tab), DEL, C1 control or bidi override or isolate left raw, and
every field the examples show, the verdict's reasons, the violations and the child's stderr
must be there as visible escapes.

    python3 examples/hostile/check.py STDOUT_FILE STDERR_FILE

Exit 0 when the output is safe and complete; 1 with the problems found otherwise. The
Python tests import `problems`; bindings-swift/test.sh runs this file.
"""

from __future__ import annotations

import sys
from typing import List

# The emitter's payload as `sanitize` shows it, and as violation messages quote it.
SHOWN = r"\x1b[2J\x1b]0;title\x07\x1b]52;c;aGk=\x07\x9b31m\x9d0;t\x07\x08\x0d\x7f\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\x00|"
QUOTED = r"\u{1b}[2J\u{1b}]0;title\u{7}\u{1b}]52;c;aGk=\u{7}\u{9b}31m\u{9d}0;t\u{7}\u{8}\r\u{7f}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\0|"
# Where the examples show each tagged field: the text just before the payload.
SHOWN_AT = [
    "● HEP v1.HEP:",
    " · fa FAH:",
    " · session SESSION:",
    "\nDELTA:",
    "  ⚙ NAME:",
    "(ARGS:",
    "  │ TOOLOUT:",
    "  ⏳ LIVENAME:",
    " · DETAIL:",
    "  ⚠ n: ACTION:",
    "  ✗ turn 1 failed: ERROR:",
    "  ✓ RESULTNAME:",
    " done (STOP:",
    "answer      ANSWER:",
]
# The violations quote a tool call id, a liveness action and a role.
QUOTED_AT = ['call "ID:', 'action "ACTION:', 'role is "ROLE:']
# The delta with DEL, C1 and bidi characters raw in its JSON string.
RAW_DELTA = r"RAW:\x7f\x9b\x9d\u{202e}\u{2066}\u{2069}|"
# The verdict's reason for the prose line quotes its start.
PROSE = r"(near `PROSE:\u{202e}\x9b\x7f\x1b[2J\x0d\x08\x07|`)"
# The child's stderr (its lone byte 0x9b, not UTF-8, read as U+FFFD).
STDERR = r"STDERR:\x1b[2J\x1b]0;title\x07\x1b]52;c;aGk=\x07\x9b\x9d\x08\x0d\x7f\u{202e}\u{2066}\x00" + "\ufffd|"


def is_unsafe(c: str) -> bool:
    """C0 controls but newline and tab, DEL, C1 controls, bidi overrides and isolates."""
    n = ord(c)
    return (n < 0x20 and c not in "\n\t") or 0x7F <= n <= 0x9F or 0x202A <= n <= 0x202E or 0x2066 <= n <= 0x2069


def unsafe_in(label: str, data: bytes) -> List[str]:
    """The problem with `data` as terminal output, if any (at most one)."""
    try:
        text = data.decode("utf-8")  # strict: a lone 8-bit C1 byte is an error
    except UnicodeDecodeError as e:
        return [f"{label}: not UTF-8: {e}"]
    for i, c in enumerate(text):
        if is_unsafe(c):
            return [f"{label}: raw U+{ord(c):04X} at {i}, in {text[max(0, i - 40) : i + 40]!r}"]
    return []


def problems(out: bytes, err: bytes) -> List[str]:
    """Everything wrong with an example's stdout `out` and stderr `err`; empty when none."""
    found = unsafe_in("stdout", out) + unsafe_in("stderr", err)
    if found:
        return found
    text, err_text = out.decode("utf-8"), err.decode("utf-8")
    wanted = [at + SHOWN for at in SHOWN_AT] + [at + QUOTED for at in QUOTED_AT] + [RAW_DELTA, PROSE]
    found += [f"stdout does not show {w!r}" for w in wanted if w not in text]
    if STDERR not in err_text:
        found.append(f"stderr does not show {STDERR!r}")
    return found


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print("usage: check.py STDOUT_FILE STDERR_FILE", file=sys.stderr)
        return 2
    with open(argv[0], "rb") as out, open(argv[1], "rb") as err:
        found = problems(out.read(), err.read())
    for problem in found:
        print(f"check.py: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
