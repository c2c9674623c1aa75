"""Checks the `hep-protocol` installed in this interpreter, as a user of it would use it.

Run by scripts/release-check/python.sh with a fresh venv's python, `-I` and from outside
the repository, so only the installed package can be imported:

    python -I python_installed.py --version 0.1.0 --wheel-tag cp39-abi3-manylinux_2_17_x86_64
    python -I python_installed.py --version 0.1.0 --built-here

It checks where `hep` comes from (the venv), which distribution and version it is, how it
got there (the index's wheel, with its tags, or a wheel pip built from the sdist), runs the
Python blocks of the README the distribution carries (its PyPI page), and supervises
`hep simulate` (the `hep` command on PATH) to an `ok` verdict.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import List

DIST = "hep-protocol"


def fail(message: str) -> None:
    sys.exit(f"release-check python: {message}")


def check_origin(version: str) -> str:
    import hep

    where = Path(hep.__file__).resolve()
    if not where.is_relative_to(Path(sys.prefix).resolve()):
        fail(f"`import hep` found {where}, outside this venv ({sys.prefix})")
    if metadata.version(DIST) != version or hep.__version__ != version:
        fail(f"{DIST} {metadata.version(DIST)} (hep.__version__ {hep.__version__}) installed, {version} expected")
    return str(where.parent)


def installed_tags() -> List[str]:
    wheel = metadata.distribution(DIST).read_text("WHEEL") or ""
    return [line.split(": ", 1)[1] for line in wheel.splitlines() if line.startswith("Tag: ")]


def check_build(wheel_tag: str, built_here: bool) -> str:
    tags = installed_tags()
    if built_here:
        if any("manylinux" in tag for tag in tags):
            fail(f"a wheel built from the sdist was expected, the index's wheel came instead ({tags})")
        return f"built from the sdist ({', '.join(tags)})"
    if wheel_tag not in tags:
        fail(f"the index's wheel ({wheel_tag}) was expected, got a wheel tagged {tags}")
    return f"the index's wheel ({', '.join(tags)})"


def run_readme() -> int:
    """Runs each ```python block of the README in the installed metadata (the PyPI page)."""
    readme = metadata.metadata(DIST).get_payload()  # type: ignore[attr-defined]
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    if not blocks:
        fail("the installed description (the README) has no Python example")
    for number, block in enumerate(blocks, 1):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(block, f"<README example {number}>", "exec"), {"__name__": "__main__"})
        except Exception as error:
            fail(f"README example {number} failed: {error!r}\n{block}")
        if re.search(r"\bok\b", out.getvalue()) is None:
            fail(f"README example {number} did not print an ok verdict:\n{out.getvalue()}")
    return len(blocks)


def supervise() -> str:
    import hep

    binary = shutil.which("hep")
    if binary is None:
        fail("no `hep` command on PATH")
    frames: List[str] = []
    with hep.spawn([binary, "simulate", "--scenario", "tools", "--speed", "8"]) as run:
        frames.extend(frame.type for frame in run)
        result = run.wait()
    if (result.verdict, result.exit_code) != ("ok", 0) or frames[:2] != ["hep_header", "agent_start"]:
        fail(f"hep simulate supervised: verdict {result.verdict} {result.reasons}, exit {result.exit_code}, {frames}")
    return f"{len(frames)} frames, {frames.count('turn_done')} turns, verdict {result.verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True, help="the version expected")
    route = parser.add_mutually_exclusive_group(required=True)
    route.add_argument("--wheel-tag", default="", help="a tag the index's wheel carries")
    route.add_argument("--built-here", action="store_true", help="pip built the wheel from the sdist")
    args = parser.parse_args()

    where = check_origin(args.version)
    build = check_build(args.wheel_tag, args.built_here)
    examples = run_readme()
    run = supervise()
    print(f"  {DIST} {args.version} from {where}: {build}; {examples} README examples ran; {run}")


if __name__ == "__main__":
    main()
