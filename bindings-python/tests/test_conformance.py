"""The conformance vectors of ../../conformance/, run through the Python API.

Same semantics as the Rust runner (hep-core/tests/conformance/): one pytest test per case
file (its id is the path below conformance/), and a test per folder that fails when the
folder holds no case. A case with an unknown `op`, `call`, option or `expect` key fails.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import hep

ROOT = Path(__file__).resolve().parents[2] / "conformance"
GROUPS = ("encode", "decode", "reject", "bounds", "writer", "stream")
ERROR_KINDS = (
    "syntax",
    "invalid_utf8",
    "trailing_characters",
    "not_an_object",
    "missing_field",
    "duplicate_field",
    "wrong_type",
    "out_of_range",
    "too_deep",
)
BOUNDS_FUNCTIONS = ("cap", "args_summary", "args_full", "utf16_len")
HAS_BOUNDS = all(callable(getattr(hep, name, None)) for name in BOUNDS_FUNCTIONS)


class CaseError(AssertionError):
    """What differs between a case and the library (or what is wrong with the case)."""


# ---- finding cases ----


def case_files(group: str) -> List[Path]:
    folder = ROOT / group
    return sorted(p for p in folder.rglob("*.json") if p.is_file()) if folder.is_dir() else []


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _params() -> List[Any]:
    params = []
    for group in GROUPS:
        for path in case_files(group):
            marks = []
            if group == "bounds" and not HAS_BOUNDS:
                marks.append(pytest.mark.xfail(strict=True, reason="binding lacks bounds functions"))
            params.append(pytest.param(group, path, id=relative(path), marks=marks))
    return params


@pytest.mark.parametrize("group", GROUPS)
def test_folder_holds_cases(group: str) -> None:
    assert (ROOT / group).is_dir(), f"conformance/{group}/ is missing"
    assert case_files(group), f"conformance/{group}/ holds no case: an empty folder proves nothing"


def test_layout_has_no_stray_files() -> None:
    """conformance/ holds the README and the six folders; a folder holds only cases and notes
    (a case with a mistyped extension would never run)."""
    problems = []
    for entry in sorted(ROOT.iterdir()):
        known = entry.name in GROUPS if entry.is_dir() else entry.name == "README.md"
        if not known:
            problems.append(f"conformance/{entry.name}: unknown group or stray file (no runner reads it)")
    for group in GROUPS:
        for path in sorted((ROOT / group).rglob("*")):
            if path.is_file() and path.suffix not in (".json", ".md"):
                problems.append(f"conformance/{relative(path)}: not a .json case, so it never runs")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("group", "path"), _params())
def test_case(group: str, path: Path) -> None:
    failure = None
    try:
        RUNNERS[group](load(path))
    except CaseError as e:
        failure = str(e)
    if failure is not None:
        pytest.fail(f"conformance/{relative(path)}:\n    " + failure.replace("\n", "\n    "), pytrace=False)


def load(path: Path) -> Dict[str, Any]:
    """One case: a JSON object with a non-empty `description`."""
    try:
        case = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise CaseError(f"not JSON: {e}") from None
    if not isinstance(case, dict):
        raise CaseError("a case must be a JSON object")
    description = case.get("description")
    if not isinstance(description, str) or not description.strip():
        raise CaseError("a case needs a non-empty string `description`")
    return case


# ---- fields and notations ----

_MISSING = object()


def get(obj: Any, key: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise CaseError(f"missing field `{key}`")
    return obj[key]


def get_str(obj: Any, key: str) -> str:
    value = get(obj, key)
    if not isinstance(value, str):
        raise CaseError(f"field `{key}` must be a string")
    return value


def get_uint(obj: Any, key: str) -> int:
    value = get(obj, key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CaseError(f"field `{key}` must be a non-negative integer")
    return value


def get_bool(obj: Any, key: str) -> bool:
    value = get(obj, key)
    if not isinstance(value, bool):
        raise CaseError(f"field `{key}` must be a boolean")
    return value


def get_list(obj: Any, key: str) -> List[Any]:
    value = get(obj, key)
    if not isinstance(value, list):
        raise CaseError(f"field `{key}` must be an array")
    return value


def text(value: Any) -> str:
    """The *text* notation: a string, `{"repeat": S, "count": N}`, or an array of texts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(text(part) for part in value)
    if isinstance(value, dict) and len(value) == 2:
        if "repeat" not in value:
            raise CaseError("a text object needs `repeat`")
        count = value.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise CaseError("a text object needs an integer `count`")
        return text(value["repeat"]) * count
    raise CaseError(f"not a text: {show(value)}")


def get_text(obj: Any, key: str) -> str:
    try:
        return text(get(obj, key))
    except CaseError as e:
        raise CaseError(f"field `{key}`: {e}") from None


def get_bytes(obj: Dict[str, Any], key: str) -> bytes:
    """The *bytes* notation: `key` (a text, as UTF-8) or `key_base64`, exactly one."""
    b64 = f"{key}_base64"
    if key in obj and b64 in obj:
        raise CaseError(f"give `{key}` or `{b64}`, not both")
    if key in obj:
        try:
            return get_text(obj, key).encode("utf-8")
        except UnicodeEncodeError as e:
            raise CaseError(f"field `{key}` is not valid Unicode text: {e}") from None
    if b64 in obj:
        if not isinstance(obj[b64], str):
            raise CaseError(f"field `{b64}` must be a string")
        try:
            return base64.b64decode(obj[b64], validate=True)
        except ValueError as e:
            raise CaseError(f"field `{b64}` is not standard base64: {e}") from None
    raise CaseError(f"missing field `{key}` (or `{b64}`)")


# ---- frames ----


def parse(line: Any, what: str) -> Any:
    try:
        return hep.parse_line(line)
    except hep.HepError as e:
        raise CaseError(f"the library cannot decode {what}: {e}") from None


def encode(frame: Any) -> str:
    """The frame's encoding; `hep.encode` and `frame.to_json()` must agree."""
    try:
        line = hep.encode(frame)
        method = frame.to_json()
    except hep.HepError as e:
        raise CaseError(f"the library cannot encode {frame!r}: {e}") from None
    if line != method:
        raise CaseError(f"hep.encode(frame) and frame.to_json() differ:\n  encode:  {line!r}\n  to_json: {method!r}")
    return line


def canonical(frame: Any) -> Any:
    """The canonical form of a frame: the JSON object of the library's own encoding."""
    line = encode(frame)
    try:
        return json.loads(line)
    except ValueError as e:
        raise CaseError(f"the encoding `{line}` is not JSON: {e}") from None


# ---- comparison ----


def show(value: Any, limit: int = 400) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= limit else f"{shown[:limit]} …({len(shown) - limit} more chars)"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def first_difference(path: str, expected: Any, got: Any) -> Optional[str]:
    """JSON equality: same keys (order ignored), numbers by value (`0` equals `0.0`), and a
    boolean never equals a number."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key, ev in expected.items():
            if key not in got:
                return f"{path}.{key}: expected {show(ev)}, got nothing"
            d = first_difference(f"{path}.{key}", ev, got[key])
            if d:
                return d
        for key, gv in got.items():
            if key not in expected:
                return f"{path}.{key}: expected nothing, got {show(gv)}"
        return None
    if isinstance(expected, list) and isinstance(got, list):
        for i, (ev, gv) in enumerate(zip(expected, got)):
            d = first_difference(f"{path}[{i}]", ev, gv)
            if d:
                return d
        if len(expected) != len(got):
            return f"{path}: expected {len(expected)} items, got {len(got)}"
        return None
    if _is_number(expected) and _is_number(got):
        return None if expected == got else f"{path}: expected {show(expected)}, got {show(got)}"
    same_kind = type(expected) is type(got) or (expected is None and got is None)
    if same_kind and expected == got and not _is_number(expected):
        return None
    return f"{path}: expected {show(expected)}, got {show(got)}"


def same_json(what: str, expected: Any, got: Any) -> None:
    d = first_difference("$", expected, got)
    if d is None:
        return
    if not isinstance(expected, (dict, list)):
        raise CaseError(f"{what}: {d[len('$: '):] if d.startswith('$: ') else d}")
    raise CaseError(f"{what} differs at {d}\n  expected: {show(expected)}\n  got:      {show(got)}")


def same_text(what: str, expected: str, got: Any) -> None:
    if expected == got:
        return
    if not isinstance(got, str):
        raise CaseError(f"{what}: expected the string {expected!r}, got {got!r}")
    at = 0
    while at < min(len(expected), len(got)) and expected[at] == got[at]:
        at += 1
    start = max(0, at - 60)
    raise CaseError(
        f"{what} differs at character {at} (of {len(expected)} expected, {len(got)} got)\n"
        f"  expected: {expected[start : at + 140]!r}\n"
        f"  got:      {got[start : at + 140]!r}"
    )


# ---- encode/, decode/, reject/ ----


def run_encode(case: Dict[str, Any]) -> None:
    """`frame` (serialized by Python's json, decoded, encoded) must give `line` byte for byte,
    and `line` must decode to the same frame."""
    serialized = json.dumps(get(case, "frame"))
    line = get_str(case, "line")
    frame = parse(serialized, f"`frame` {serialized}")
    same_text("the encoding of `frame`", line, encode(frame))
    back = parse(line, "`line`")
    if back != frame:
        raise CaseError(f"`line` decodes to another frame than `frame`\n  frame: {frame!r}\n  line:  {back!r}")


def run_decode(case: Dict[str, Any]) -> None:
    """`line` must decode to `frame` (canonical form) and, when given, encode to `encoded`."""
    line = get_bytes(case, "line")
    try:
        frame = hep.parse_line(line)
    except hep.HepError as e:
        raise CaseError(f"must decode, but is rejected: {e}") from None
    same_json("the decoded frame", get(case, "frame"), canonical(frame))
    if "encoded" in case:
        same_text("the encoding of the decoded frame", get_str(case, "encoded"), encode(frame))


def run_reject(case: Dict[str, Any]) -> None:
    """`line` must be rejected with `error.kind` (and `error.column` when given), raising the
    matching `HepError` subclass."""
    line = get_bytes(case, "line")
    error = get(case, "error")
    kind = get_str(error, "kind")
    if kind not in ERROR_KINDS:
        raise CaseError(f"`error.kind` `{kind}` is no ErrorKind name")
    try:
        frame = hep.parse_line(line)
    except hep.HepError as e:
        err = e
    else:
        raise CaseError(f"must be rejected with `{kind}`, but decodes to {show(canonical(frame))}")
    if err.kind != kind:
        raise CaseError(f"rejected with kind `{err.kind}` instead of `{kind}`: {err}")
    expected_class = ERROR_CLASSES[kind]
    if type(err) is not expected_class:
        raise CaseError(f"rejected with {type(err).__name__} instead of {expected_class.__name__}: {err}")
    if "column" in error:
        column = get_uint(error, "column")
        if err.column != column:
            raise CaseError(f"rejected at column {err.column} instead of {column}: {err}")


ERROR_CLASSES = {
    "syntax": hep.JsonSyntaxError,
    "invalid_utf8": hep.InvalidUtf8Error,
    "trailing_characters": hep.TrailingCharactersError,
    "not_an_object": hep.NotAnObjectError,
    "missing_field": hep.MissingFieldError,
    "duplicate_field": hep.DuplicateFieldError,
    "wrong_type": hep.WrongTypeError,
    "out_of_range": hep.OutOfRangeError,
    "too_deep": hep.TooDeepError,
}


# ---- bounds/ ----


def run_bounds(case: Dict[str, Any]) -> None:
    op = get_str(case, "op")
    if op not in BOUNDS_FUNCTIONS:
        raise CaseError(f"unknown op `{op}`")
    if not HAS_BOUNDS:
        missing = [name for name in BOUNDS_FUNCTIONS if not callable(getattr(hep, name, None))]
        raise CaseError(f"the binding lacks hep.{', hep.'.join(missing)}")
    if op == "utf16_len":
        want, length = get_uint(case, "expected"), hep.utf16_len(get_text(case, "text"))
        if length != want or isinstance(length, bool) or not isinstance(length, int):
            raise CaseError(f"utf16_len is {length!r} instead of {want}")
        return
    try:
        if op == "cap":
            got = hep.cap(get_text(case, "text"), get_uint(case, "limit"))
        elif op == "args_summary":
            got = hep.args_summary(get_text(case, "args"))
        else:
            got = hep.args_full(get_text(case, "args"))
    except hep.HepError as e:
        raise CaseError(f"`{op}` fails: {e}") from None
    try:
        expected = text(get(case, "expected"))
    except CaseError as e:
        raise CaseError(f"field `expected`: {e}") from None
    same_text(f"`{op}`", expected, got)


# ---- writer/ ----


def run_writer(case: Dict[str, Any]) -> None:
    mode = case.get("args_mode", "summary")
    if mode not in ("summary", "full"):
        raise CaseError('`args_mode` must be "summary" or "full"')
    calls = get_list(case, "calls")
    # The Python Writer takes the emitter version up front; only the first header writes.
    fah = next((get_str(c, "fah") for c in calls if isinstance(c, dict) and c.get("call") == "header"), "")
    written: List[str] = []
    writer = hep.Writer(written.append, fah, tool_args=mode)
    lines: List[str] = []
    for i, call in enumerate(calls):
        try:
            name = get_str(call, "call")
        except CaseError as e:
            raise CaseError(f"calls[{i}]: {e}") from None
        before = len(written)
        try:
            returned = apply(writer, name, call)
        except CaseError as e:
            raise CaseError(f"calls[{i}] `{name}`: {e}") from None
        except (hep.HepError, ValueError, TypeError) as e:
            raise CaseError(f"calls[{i}] `{name}`: the writer fails: {type(e).__name__}: {e}") from None
        new = written[before:]
        expected_out = [] if returned is None else [returned + "\n"]
        if new != expected_out:
            raise CaseError(f"calls[{i}] `{name}` returned {returned!r} but wrote {new!r}")
        if returned is not None:
            lines.append(returned)
    expected = get_list(case, "lines")
    if not all(isinstance(line, str) for line in expected):
        raise CaseError("`lines` must hold strings")
    for i, (want, got) in enumerate(zip(expected, lines)):
        same_text(f"line {i + 1}", want, got)
    if len(expected) != len(lines):
        raise CaseError(
            f"the calls emit {len(lines)} lines instead of {len(expected)}; "
            f"unexpected extra lines: {lines[len(expected):]!r}"
        )
    if "turn_id" in case:
        want = get_uint(case, "turn_id")
        if writer.turn_id != want:
            raise CaseError(f"current turn id is {writer.turn_id} instead of {want}")


def _optional(call: Dict[str, Any], key: str, getter: Callable[[Any, str], Any]) -> Any:
    return None if call.get(key) is None else getter(call, key)


def apply(w: hep.Writer, name: str, call: Dict[str, Any]) -> Optional[str]:
    """Makes one call through `hep.Writer`, returning the line it says it wrote."""
    if name == "header":
        get_str(call, "fah")
        return w.header(get_str(call, "session"))
    if name == "agent_start":
        return w.agent_start()
    if name == "turn_start":
        returned = w.turn_start()  # type: ignore[func-returns-value]
        if returned is not None:
            raise CaseError(f"turn_start returned {returned!r}")
        return None
    if name == "cancelled":
        return w.cancelled()
    if name == "compaction_start":
        return w.compaction_start()
    if name == "message_start":
        return w.message_start(get_str(call, "role"))
    if name == "message_delta":
        return w.message_delta(get_text(call, "delta"))
    if name == "tool_start":
        # Writer.tool_start takes a mapping: json keeps key order (and a repeated key's
        # first position with its last value, as the reference's map does).
        try:
            args = json.loads(get_text(call, "args"))
        except ValueError as e:
            raise CaseError(f"`args`: {e}") from None
        if not isinstance(args, dict):
            raise CaseError("`args` must be the JSON text of an object")
        return w.tool_start(get_str(call, "id"), get_str(call, "name"), args)
    if name == "tool_delta":
        return w.tool_delta(get_str(call, "id"), get_text(call, "update"))
    if name == "liveness":
        return w.tool_liveness(
            get_str(call, "id"),
            get_str(call, "name"),
            get_str(call, "action"),
            get_uint(call, "elapsed_ms"),
            _optional(call, "output_bytes", get_uint),
            _optional(call, "detail", get_str),
        )
    if name == "turn_done":
        results = []
        for r in get_list(call, "tool_results"):
            try:
                results.append(
                    {"id": get_str(r, "id"), "name": get_str(r, "name"), "ok": get_bool(r, "ok"), "text": get_text(r, "text")}
                )
            except CaseError as e:
                raise CaseError(f"`tool_results`: {e}") from None
        u = get(call, "usage")
        cost = get(u, "cost")
        if not _is_number(cost):
            raise CaseError("`usage.cost` must be a number")
        usage = {"input": get_uint(u, "input"), "output": get_uint(u, "output"), "cost": float(cost)}
        return w.turn_done(get_text(call, "message"), results, usage, get_str(call, "stop_reason"))
    if name == "turn_error":
        return w.turn_error(get_str(call, "error"), get_bool(call, "fatal"))
    if name == "compaction_end":
        return w.compaction_end(get_uint(call, "tokens_freed"))
    raise CaseError(f"unknown call `{name}`")


# ---- stream/ ----

EXPECT_KEYS = ("frames", "violations", "skipped", "halted", "verdict", "conforms", "answer", "usage", "turns")
NO_LINE = "<the frame carries no line number: the binding exposes none>"


def run_stream(case: Dict[str, Any]) -> None:
    data = stream_input(case)
    strict, max_line = stream_options(case)
    exit_code = case.get("exit_code")
    if exit_code is not None and (isinstance(exit_code, bool) or not isinstance(exit_code, int)):
        raise CaseError("`exit_code` must be an integer or null")
    whole = outcome(data, len(data), strict, max_line, exit_code)
    for how, chunk in (("one byte at a time", 1), ("in 7-byte chunks", 7)):
        other = outcome(data, chunk, strict, max_line, exit_code)
        same_json(f"fed {how}, the outcome (vs. fed whole)", whole, other)
    expect = get(case, "expect")
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
            if isinstance(want, list) and isinstance(got, list):
                entries(key, want, got)
            else:
                same_json(f"`{key}`", want, got)
        except CaseError as e:
            failures.append(str(e))
    if failures:
        raise CaseError("\n".join(failures))


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
        else:
            raise CaseError(f"unknown option `{key}`")
    return strict, max_line


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


def outcome(data: bytes, chunk: int, strict: bool, max_line: int, exit_code: Optional[int]) -> Dict[str, Any]:
    """Everything a case can check, as JSON data, after feeding `data` in `chunk`-byte pieces
    to a fresh `hep.Stream` and finishing it with `exit_code`."""
    stream = hep.Stream(strict=strict, max_line_bytes=max_line)
    frames: List[Dict[str, Any]] = []
    raised: List[hep.HepError] = []
    for start in range(0, len(data), max(chunk, 1)):
        try:
            got = stream.feed(data[start : start + max(chunk, 1)])
        except hep.HepError as e:
            # A halt (strict mode, or an unsupported version in any mode) is raised with
            # the frames that came before it in that chunk.
            raised.append(e)
            got = e.frames
        for frame in got:
            try:
                form = canonical(frame)
            except CaseError as e:
                form = f"<no canonical form: {e}>"
            frames.append({"line": getattr(frame, "line", NO_LINE), "type": frame.type, "frame": form})
    result = stream.finish(exit_code)
    halted = None if result.halted is None else {"kind": result.halted.kind, "line": result.halted.line}
    if raised:
        if len(raised) > 1:
            raise CaseError(f"feeding raised {len(raised)} errors; a stream halts once: {raised!r}")
        err = raised[0]
        if halted != {"kind": err.kind, "line": err.line}:
            raise CaseError(f"feeding raised {err!r} (kind {err.kind}, line {err.line}) but the result's halt is {halted}")
    return {
        "frames": frames,
        "violations": [
            {"code": v.code, "severity": v.severity, "line": v.line, "turn_id": v.turn_id} for v in result.violations
        ],
        "skipped": [{"line": s.line, "kind": s.kind} for s in result.skipped],
        "halted": halted,
        "verdict": result.verdict,
        "conforms": result.conforms,
        "answer": result.answer,
        "usage": usage(result.usage),
        "turns": [turn(t) for t in result.turns],
    }


def usage(u: Any) -> Optional[Dict[str, Any]]:
    return None if u is None else {"input": u.input, "output": u.output, "cost": u.cost}


def turn(t: hep.Turn) -> Dict[str, Any]:
    return {
        "turn_id": t.turn_id,
        "text": t.text,
        "end": t.end,
        "message": t.message,
        "error": t.error,
        "stop_reason": t.stop_reason,
        "usage": usage(t.usage),
        "compactions": list(t.compactions),
        "tools": [tool(c) for c in t.tools],
    }


def tool(c: hep.ToolCall) -> Dict[str, Any]:
    return {
        "id": c.id,
        "name": c.name,
        "args_summary": c.args_summary,
        "status": c.status,
        "output": c.output,
        "result": c.result,
        "followups": [f.action for f in c.followups],
    }


RUNNERS: Dict[str, Callable[[Dict[str, Any]], None]] = {
    "encode": run_encode,
    "decode": run_decode,
    "reject": run_reject,
    "bounds": run_bounds,
    "writer": run_writer,
    "stream": run_stream,
}


# ---- the runner itself: it must fail on what it cannot check ----


def _first(group: str) -> Dict[str, Any]:
    case: Dict[str, Any] = load(case_files(group)[0])
    return case


@pytest.mark.parametrize(
    ("group", "mutate", "complaint"),
    [
        ("bounds", lambda c: c.update(op="cap_everything"), "unknown op `cap_everything`"),
        ("writer", lambda c: c["calls"].append({"call": "tool_finish"}), "unknown call `tool_finish`"),
        ("stream", lambda c: c["expect"].update(exit_status=0), "unknown `expect` key `exit_status`"),
        ("stream", lambda c: c.update(options={"strictly": True}), "unknown option `strictly`"),
        ("stream", lambda c: c.update(expect={}), "`expect` checks nothing"),
        ("stream", lambda c: c["expect"].update(verdict="nonsense"), "`verdict`: expected \"nonsense\""),
        ("reject", lambda c: c["error"].update(kind="bogus"), "`error.kind` `bogus` is no ErrorKind name"),
        ("decode", lambda c: c["frame"].update(extra=1), "$.extra: expected 1, got nothing"),
        ("encode", lambda c: c.update(line=c["line"] + " "), "the encoding of `frame` differs"),
        ("writer", lambda c: c["lines"].append("{}"), "lines instead of"),
    ],
)
def test_runner_rejects_what_it_cannot_check(group: str, mutate: Callable[[Dict[str, Any]], None], complaint: str) -> None:
    case = _first(group)
    if group == "bounds" and not HAS_BOUNDS and "unknown op" not in complaint:
        pytest.skip("binding lacks bounds functions")
    mutate(case)
    with pytest.raises(CaseError) as info:
        RUNNERS[group](case)
    assert complaint in str(info.value)


def test_runner_rejects_an_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "stream").mkdir()
    (tmp_path / "stream" / "notes.md").write_text("no case here")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert case_files("stream") == []
    with pytest.raises(AssertionError, match="holds no case"):
        test_folder_holds_cases("stream")


def test_json_equality_is_strict_about_types() -> None:
    assert first_difference("$", {"a": 0}, {"a": 0.0}) is None
    assert first_difference("$", {"a": 1}, {"a": True}) is not None
    assert first_difference("$", {"a": None}, {"a": 0}) is not None
    assert first_difference("$", [1, 2], [1]) is not None
    assert first_difference("$", {"a": 1}, {"a": 1, "b": 2}) is not None
    assert first_difference("$", "x", "x") is None
