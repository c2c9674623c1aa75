"""The `stream/` cases: whole streams fed three ways, checked against `expect` (and the
machinery `hostile/` stream cases and the chunking tests share)."""

from __future__ import annotations

import base64
import json
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import hep

from conformance_support import *  # noqa: F401,F403  (the runner's shared vocabulary)
from conformance_support import CaseError

# ---- stream/ ----

EXPECT_KEYS = (
    "frames",
    "violations",
    "skipped",
    "halted",
    "verdict",
    "reasons",
    "conforms",
    "answer",
    "usage",
    "turns",
    "violation_count",
    "skipped_count",
    "untracked_calls",
    "turns_dropped",
)
NO_LINE = "<the frame carries no line number: the binding exposes none>"


def run_stream(case: Dict[str, Any]) -> None:
    whole = observe(case)
    check_expect(get(case, "expect"), whole)


def observe(case: Dict[str, Any]) -> Dict[str, Any]:
    """Reads a stream case's input, options and exit code, feeds the input whole, one byte at
    a time and in 7-byte chunks (the outcomes must agree), and returns the outcome."""
    data = stream_input(case)
    strict, max_line = stream_options(case)
    limits = stream_limits(case)
    exit_code = stream_exit_code(case)
    whole = outcome([data], strict, max_line, exit_code, limits)
    for how, size in (("one byte at a time", 1), ("in 7-byte chunks", 7)):
        other = outcome(pieces(data, size), strict, max_line, exit_code, limits)
        same_json(f"fed {how}, the outcome (vs. fed whole)", whole, other)
    return whole


def check_expect(expect: Any, whole: Dict[str, Any]) -> None:
    """Checks every key of `expect` against the outcome `whole`."""
    if not isinstance(expect, dict):
        raise CaseError("`expect` must be an object")
    if not expect:
        raise CaseError("`expect` checks nothing")
    failures = []
    for key, want in expect.items():
        try:
            if key not in EXPECT_KEYS:
                raise CaseError(f"unknown `expect` key `{key}`")
            got = whole.get(key)
            if key == "reasons":  # strings, exactly and in order: what a user reads
                same_json(f"`{key}`", want, got)
            elif isinstance(want, list) and isinstance(got, list):
                entries(key, want, got)
            else:
                same_json(f"`{key}`", want, got)
        except CaseError as e:
            failures.append(str(e))
    if failures:
        raise CaseError("\n".join(failures))


def stream_exit_code(case: Dict[str, Any]) -> Optional[int]:
    exit_code = case.get("exit_code")
    if exit_code is not None and (isinstance(exit_code, bool) or not isinstance(exit_code, int)):
        raise CaseError("`exit_code` must be an integer or null")
    return exit_code


def pieces(data: bytes, size: int) -> List[bytes]:
    """`data` cut into chunks of `size` bytes."""
    return [data[i : i + size] for i in range(0, len(data), size)]


def stream_input(case: Dict[str, Any]) -> bytes:
    """`input_lines` (each followed by `\\n`), or `input` / `input_base64` as given."""
    has_bytes = "input" in case or "input_base64" in case
    if "input_lines" in case:
        if has_bytes:
            raise CaseError("give `input_lines` or `input`/`input_base64`, not both")
        out = bytearray()
        for line in get_list(case, "input_lines"):
            try:
                out += text(line).encode("utf-8") + b"\n"
            except CaseError as e:
                raise CaseError(f"`input_lines`: {e}") from None
        return bytes(out)
    return get_bytes(case, "input")


def stream_options(case: Dict[str, Any]) -> Tuple[bool, int]:
    strict, max_line = False, 16 * 1024 * 1024
    given = case.get("options")
    if given is None:
        return strict, max_line
    if not isinstance(given, dict):
        raise CaseError("`options` must be an object")
    for key, value in given.items():
        if key == "strict":
            if not isinstance(value, bool):
                raise CaseError("`options.strict` must be a boolean")
            strict = value
        elif key == "max_line_length":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise CaseError("`options.max_line_length` must be an integer")
            max_line = value
        elif key != "limits":  # read by `stream_limits`
            raise CaseError(f"unknown option `{key}`")
    return strict, max_line


def stream_limits(case: Dict[str, Any]) -> Optional[hep.Limits]:
    """`options.limits` as a `hep.Limits` (`None` when absent); an unknown key or a value
    that is no count fails the case."""
    given = (case.get("options") or {}).get("limits")
    if given is None:
        return None
    if not isinstance(given, dict):
        raise CaseError("`options.limits` must be an object")
    try:
        return hep.Limits(**given)
    except (TypeError, ValueError) as e:
        raise CaseError(f"`options.limits`: {e}") from None


def entries(path: str, want: List[Any], got: List[Any]) -> None:
    """Each listed entry must match the actual one key by key (`tools` entries likewise); the
    lists must be equally long."""
    for i, (w, g) in enumerate(zip(want, got)):
        at = f"{path}[{i}]"
        if not isinstance(w, dict):
            raise CaseError(f"`{at}` must be an object")
        for key, wv in w.items():
            if key not in g:
                raise CaseError(f"`{at}.{key}` is no key a runner knows")
            gv = g[key]
            if key == "tools" and isinstance(wv, list) and isinstance(gv, list):
                entries(f"{at}.tools", wv, gv)
            else:
                same_json(f"`{at}.{key}`", wv, gv)
    if len(want) != len(got):
        raise CaseError(f"`{path}` has {len(got)} entries instead of {len(want)}: {show(got)}")


def outcome(
    chunks: List[bytes], strict: bool, max_line: int, exit_code: Optional[int], limits: Optional[hep.Limits] = None
) -> Dict[str, Any]:
    """Everything a case can check, as JSON data, after feeding `chunks` to a fresh
    `hep.Stream` (with `limits`, when given) and finishing it with `exit_code`."""
    stream = hep.Stream(strict=strict, max_line_bytes=max_line, limits=limits)
    frames: List[Any] = []
    raised: List[hep.HepError] = []
    for chunk in chunks:
        try:
            frames += stream.feed(chunk)
        except hep.HepError as e:
            # A halt (strict mode, or an unsupported version in any mode) is raised with
            # the frames that came before it in that chunk.
            raised.append(e)
            frames += e.frames
    result = stream.finish(exit_code)
    if raised:
        if len(raised) > 1:
            raise CaseError(f"feeding raised {len(raised)} errors; a stream halts once: {raised!r}")
        err = raised[0]
        halted = None if result.halted is None else {"kind": result.halted.kind, "line": result.halted.line}
        if halted != {"kind": err.kind, "line": err.line}:
            raise CaseError(f"feeding raised {err!r} (kind {err.kind}, line {err.line}) but the result's halt is {halted}")
    return summary(frames, result)


def summary(frames: List[Any], result: hep.RunResult) -> Dict[str, Any]:
    """Everything a case can check, as JSON data: the frames read and the result."""
    halted = None if result.halted is None else {"kind": result.halted.kind, "line": result.halted.line}
    return {
        "frames": [frame_entry(frame) for frame in frames],
        "violations": [
            {"code": v.code, "severity": v.severity, "line": v.line, "turn_id": v.turn_id} for v in result.violations
        ],
        "skipped": [{"line": s.line, "kind": s.kind} for s in result.skipped],
        "halted": halted,
        "verdict": result.verdict,
        "reasons": list(result.reasons),
        "conforms": result.conforms,
        "answer": result.answer,
        "usage": usage(result.usage),
        "turns": [turn(t) for t in result.turns],
        "violation_count": result.violation_count,
        "skipped_count": result.skipped_count,
        "untracked_calls": result.untracked_calls,
        "turns_dropped": result.turns_dropped,
    }


def frame_entry(frame: Any) -> Dict[str, Any]:
    try:
        form = canonical(frame)
    except CaseError as e:
        form = f"<no canonical form: {e}>"
    return {"line": getattr(frame, "line", NO_LINE), "type": wire_type(frame), "frame": form}


def usage(u: Any) -> Optional[Dict[str, Any]]:
    return None if u is None else {"input": u.input, "output": u.output, "cost": u.cost}


def turn(t: hep.Turn) -> Dict[str, Any]:
    return {
        "turn_id": t.turn_id,
        "text": t.text,
        "text_dropped": t.text_dropped,
        "end": t.end,
        "message": t.message,
        "error": t.error,
        "stop_reason": t.stop_reason,
        "usage": usage(t.usage),
        "compactions": list(t.compactions),
        "compactions_dropped": t.compactions_dropped,
        "bytes_dropped": t.bytes_dropped,
        "tools": [tool(c) for c in t.tools],
        "tools_dropped": t.tools_dropped,
    }


def tool(c: hep.ToolCall) -> Dict[str, Any]:
    return {
        "id": c.id,
        "name": c.name,
        "args_summary": c.args_summary,
        "status": c.status,
        "output": c.output,
        "output_dropped": c.output_dropped,
        "result": c.result,
        "followups": [f.action for f in c.followups],
        "followups_dropped": c.followups_dropped,
    }
