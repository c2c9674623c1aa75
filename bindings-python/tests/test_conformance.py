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
GROUPS = ("encode", "decode", "reject", "bounds", "writer", "stream", "hostile", "supervise")
BOUNDS_FUNCTIONS = ("cap", "args_summary", "args_full", "utf16_len")
HAS_BOUNDS = all(callable(getattr(hep, name, None)) for name in BOUNDS_FUNCTIONS)


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
    """conformance/ holds the README and the eight folders; a folder holds only cases and notes
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


from conformance_support import *  # noqa: F401,F403  (the runner's shared vocabulary)
from conformance_support import CaseError
from conformance_stream import run_stream
from conformance_hostile import run_hostile
from conformance_supervise import run_supervise

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
    if kind not in LINE_ERROR_KINDS:
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
    if op != "cap":
        # The same arguments as the mapping Python's json makes of the text (a number past
        # the double range becomes inf), as a harness would pass them to `hep.Writer`.
        render = hep.args_summary if op == "args_summary" else hep.args_full
        try:
            from_mapping = render(json.loads(get_text(case, "args")))
        except (hep.HepError, ValueError, TypeError) as e:
            raise CaseError(f"`{op}` of the arguments as a mapping fails: {type(e).__name__}: {e}") from None
        same_text(f"`{op}` of the arguments as a mapping", expected, from_mapping)


# ---- writer/ ----


def run_writer(case: Dict[str, Any]) -> None:
    mode = case.get("args_mode", "summary")
    if mode not in ("summary", "full"):
        raise CaseError('`args_mode` must be "summary" or "full"')
    calls = get_list(case, "calls")
    # The writer is made for the harness version `fah` (its constructor takes it).
    written: List[str] = []
    writer = hep.Writer(written.append, get_str(case, "fah"), tool_args=mode)
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
        # A call returns the line it wrote without its `\n`; the sink gets it with.
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
    """Makes one call through `hep.Writer`, returning the line it says it wrote (without its
    newline)."""
    if name == "header":
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
        if not is_number(cost):
            raise CaseError("`usage.cost` must be a number")
        usage = {"input": get_uint(u, "input"), "output": get_uint(u, "output"), "cost": float(cost)}
        return w.turn_done(get_text(call, "message"), results, usage, get_str(call, "stop_reason"))
    if name == "turn_error":
        return w.turn_error(get_str(call, "error"), get_bool(call, "fatal"))
    if name == "compaction_end":
        return w.compaction_end(get_uint(call, "tokens_freed"))
    raise CaseError(f"unknown call `{name}`")


RUNNERS: Dict[str, Callable[[Dict[str, Any]], None]] = {
    "encode": run_encode,
    "decode": run_decode,
    "reject": run_reject,
    "bounds": run_bounds,
    "writer": run_writer,
    "stream": run_stream,
    "hostile": run_hostile,
    "supervise": run_supervise,
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
        ("writer", lambda c: c.pop("fah"), "missing field `fah`"),
        ("writer", lambda c: c.update(fah="0.0.0-other"), "line 1 differs"),
        ("stream", lambda c: c["expect"].update(reasons=["a reason nobody gives"]), "`reasons` differs"),
        ("supervise", lambda c: c.update(reference="x"), "unknown key `reference` in the case"),
        ("supervise", lambda c: c.setdefault("options", {}).update(grace_ms=1), "unknown key `grace_ms` in `options`"),
        ("supervise", lambda c: c["steps"][0].update(note="x"), "steps[0]: unknown key `note` in steps[0]"),
        ("supervise", lambda c: c["steps"][0].update(cancel="user"), "a step does exactly one thing; this one does 2"),
        ("supervise", lambda c: c["steps"].append({"at": 10**9, "exit": {"code": 0, "core": 1}}), "unknown key `core` in `exit`"),
        ("supervise", lambda c: c["steps"].append({"at": 10**9, "consumer": "asleep"}), "`consumer` must be attached or detached, not `asleep`"),
        ("supervise", lambda c: c["steps"].append({"at": 10**9, "exit": "lost"}), "`exit` must be an object"),
        ("supervise", lambda c: c["expect"].update(exit_status=0), "unknown key `exit_status` in `expect`"),
        ("supervise", lambda c: c["expect"].setdefault("result", {}).update(stderr=""), "unknown key `stderr` in `expect.result`"),
        ("supervise", lambda c: c.update(consume="lazy"), '`consume` must be "auto" or "manual"'),
        ("supervise", lambda c: c["expect"].update(frames=["hep_header"]), "`frames` differs"),
        ("supervise", lambda c: c["expect"].update(finished_at=-1), "`finished_at`: expected -1"),
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


HOSTILE_MUTATIONS = [
    ("turn-id-2-pow-53", lambda c: c.update(form="table"), "unknown hostile case `form` `table`"),
    ("turn-id-2-pow-53", lambda c: c.update(outcome="maybe"), "unknown `outcome` `maybe`"),
    ("turn-id-2-pow-53", lambda c: c["allowed"][0].update(outcome="ignore"), "unknown allowed `outcome` `ignore`"),
    ("turn-id-2-pow-53", lambda c: c["allowed"][1].update(note="x"), "unknown key `note` in an allowed outcome"),
    ("turn-id-2-pow-53", lambda c: c.update(chosen=1), "is allowed[0], not the chosen allowed[1]"),
    ("turn-id-2-pow-53", lambda c: c.update(chosen=5), "`chosen` 5 is no index of `allowed`"),
    ("turn-id-2-pow-53", lambda c: c.update(allowed=[]), "`allowed` lists no outcome"),
    ("turn-id-2-pow-53", lambda c: c.pop("why"), "needs a non-empty string `why`"),
    ("turn-id-2-pow-53", lambda c: c["allowed"].pop(0), "none of the allowed ones"),
    ("turn-id-fraction", lambda c: c.update(frame={}), "key `frame` does not belong"),
    ("turn-id-fraction", lambda c: c.update(input="x"), "key `input` does not belong"),
    ("turn-id-fraction", lambda c: c.pop("topic"), "missing field `topic`"),
    ("empty-line", lambda c: c.update(line="{}\n{}"), "cannot hold `\\n`"),
    ("empty-line", lambda c: c.update(line="{}\r"), "cannot end in `\\r`"),
    ("crlf-line-ends", lambda c: c["expect"].pop("violations"), "must pin `violations`"),
    ("crlf-line-ends", lambda c: c.update(outcome="reject"), "must not conform"),
    ("crlf-line-ends", lambda c: c.update(error={"kind": "syntax"}), "key `error` does not belong"),
    ("bom-before-the-header", lambda c: c["allowed"][1].update(exit_status=0), "unknown `expect` key `exit_status`"),
]


@pytest.mark.parametrize(("name", "mutate", "complaint"), HOSTILE_MUTATIONS)
def test_hostile_runner_rejects_what_it_cannot_check(name: str, mutate: Callable[[Dict[str, Any]], None], complaint: str) -> None:
    case = load(ROOT / "hostile" / f"{name}.json")
    mutate(case)
    with pytest.raises(CaseError) as info:
        run_hostile(case)
    assert complaint in str(info.value)


def test_cases_in_subfolders_run() -> None:
    """A folder's subfolders (stream/reference/, stream/limits/) are read like the folder."""
    ids = [param.id for param in _params()]
    for folder in ("stream/reference", "stream/limits"):
        on_disk = sorted(f"{folder}/{p.name}" for p in (ROOT / folder).glob("*.json"))
        assert on_disk, f"conformance/{folder}/ holds no case"
        assert sorted(i for i in ids if i.startswith(f"{folder}/")) == on_disk


@pytest.mark.parametrize("group", ["bounds", "writer", "stream"])
def test_unknown_case_keys_are_notes(group: str) -> None:
    """A key no runner reads (`reference`, where the reference harness does it) is a note."""
    case = _first(group)
    case.update(reference="lib/src/cli/hep.dart `HepWriter`", note={"any": ["shape"]})
    RUNNERS[group](case)


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
