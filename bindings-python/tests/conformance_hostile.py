"""The `hostile/` cases: a `line` or a `stream` that must be accepted, must be rejected, or is
implementation-defined (a list of allowed outcomes, and the one this library gives). Same
semantics as the Rust runner (hep-core/tests/conformance/hostile.rs): anything the runner does
not know is an error, never a pass."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Union

import hep

from conformance_stream import EXPECT_KEYS, check_expect, observe
from conformance_support import (
    ERROR_KINDS,
    CaseError,
    canonical,
    encode,
    get,
    get_bytes,
    get_list,
    get_str,
    get_uint,
    same_json,
    same_text,
    show,
)

OUTCOMES = ("accept", "reject", "implementation_defined")
STREAM_MUST_PIN = ("frames", "violations", "skipped", "verdict")
LINE_KEYS = ("line", "line_base64", "frame", "encoded", "error")
STREAM_KEYS = ("input", "input_base64", "input_lines", "options", "exit_code", "expect")

Decoded = Union[Any, hep.HepError]  # a frame, or the error decoding raised


def run_hostile(case: Dict[str, Any]) -> None:
    topic = get_str(case, "topic")
    if not topic.strip():
        raise CaseError("`topic` must not be empty")
    form = get_str(case, "form")
    outcome = get_str(case, "outcome")
    if outcome not in OUTCOMES:
        raise CaseError(f"unknown `outcome` `{outcome}` (accept, reject or implementation_defined)")
    refuse_keys_of_other_kinds(case, form, outcome)
    if form == "line":
        line_case(case, outcome)
    elif form == "stream":
        stream_case(case, outcome)
    else:
        raise CaseError(f"unknown hostile case `form` `{form}` (line or stream)")


def refuse_keys_of_other_kinds(case: Dict[str, Any], form: str, outcome: str) -> None:
    """A key that belongs to another form or outcome means the case is not what it seems."""
    foreign: List[str] = {"line": list(STREAM_KEYS), "stream": list(LINE_KEYS)}.get(form, [])
    if outcome == "implementation_defined":
        foreign += ["frame", "encoded", "error", "expect"]
        why = case.get("why")
        if not isinstance(why, str) or not why.strip():
            raise CaseError("an implementation_defined case needs a non-empty string `why`")
    else:
        foreign += ["allowed", "chosen"]
    if (form, outcome) == ("line", "accept"):
        foreign.append("error")
    if (form, outcome) == ("line", "reject"):
        foreign += ["frame", "encoded"]
    for key in foreign:
        if key in case:
            raise CaseError(f"key `{key}` does not belong to a `{form}` case with outcome `{outcome}`")


# ---- line cases ----


def decode(line: bytes) -> Decoded:
    """The frame `line` decodes to, or the `HepError` it raises; anything else propagates (a
    crash fails the case)."""
    try:
        return hep.parse_line(line)
    except hep.HepError as e:
        return e


def line_case(case: Dict[str, Any], outcome: str) -> None:
    line = get_bytes(case, "line")
    if b"\n" in line:
        raise CaseError("a line case cannot hold `\\n` (a line ends there): make it a stream case")
    if line.endswith(b"\r"):
        raise CaseError("a line case cannot end in `\\r` (a line end to some helpers): make it a stream case")
    got = decode(line)
    as_one_line_stream(line, got)
    if outcome != "implementation_defined":
        line_matches(case, got)
        return
    allowed = get_list(case, "allowed")
    for i, alt in enumerate(allowed):
        try:
            line_alternative(alt)
        except CaseError as e:
            raise CaseError(f"`allowed[{i}]`: {e}") from None
    chosen(case, [attempt(lambda alt=alt: line_matches(alt, got)) for alt in allowed], lambda: describe(got))


def line_alternative(alt: Any) -> None:
    """An allowed line outcome is `{"outcome": "accept", "frame"?, "encoded"?}` (at least one
    of the two) or `{"outcome": "reject", "error"}`."""
    outcome = get_str(alt, "outcome")
    if outcome == "accept":
        if "frame" not in alt and "encoded" not in alt:
            raise CaseError("an allowed `accept` needs `frame` or `encoded`")
        keys = ("outcome", "frame", "encoded")
    elif outcome == "reject":
        keys = ("outcome", "error")
    else:
        raise CaseError(f"unknown allowed `outcome` `{outcome}` (accept or reject)")
    for key in alt:
        if key not in keys:
            raise CaseError(f"unknown key `{key}` in an allowed outcome")


def line_matches(want: Dict[str, Any], got: Decoded) -> None:
    """`want` (a case, or an allowed outcome) holds `outcome` and what it implies."""
    outcome = get_str(want, "outcome")
    if outcome == "accept":
        if isinstance(got, hep.HepError):
            raise CaseError(f"must decode, but is rejected: {got}")
        if "frame" in want:
            same_json("the decoded frame", get(want, "frame"), canonical(got))
        if "encoded" in want:
            same_text("the encoding of the decoded frame", get_str(want, "encoded"), encode(got))
        return
    if outcome != "reject":
        raise CaseError(f"unknown `outcome` `{outcome}`")
    error = get(want, "error")
    kind = get_str(error, "kind")
    if kind not in ERROR_KINDS:
        raise CaseError(f"`error.kind` `{kind}` is no ErrorKind name")
    if not isinstance(got, hep.HepError):
        raise CaseError(f"must be rejected with `{kind}`, but decodes to {show(canonical(got))}")
    if got.kind != kind:
        raise CaseError(f"rejected with kind `{got.kind}` instead of `{kind}`: {got}")
    if "column" in error:
        column = get_uint(error, "column")
        if got.column != column:
            raise CaseError(f"rejected at column {got.column} instead of {column}: {got}")


def describe(got: Decoded) -> str:
    if isinstance(got, hep.HepError):
        return f"rejected with `{got.kind}` at column {got.column}: {got}"
    return f"accepted as {show(canonical(got))}"


def as_one_line_stream(line: bytes, got: Decoded) -> None:
    """The line fed as a one-line stream (`line` + `\\n`) gives the same: the same frame, or line
    1 skipped with the same kind."""
    stream = hep.Stream()
    try:
        frames = stream.feed(line + b"\n")
    except hep.HepError as e:
        frames = e.frames  # a refused version halts the stream after its header
    result = stream.finish(None)
    skipped = [(s.line, s.kind) for s in result.skipped]
    if isinstance(got, hep.HepError):
        if frames == [] and skipped == [(1, got.kind)]:
            return
    elif skipped == [] and len(frames) == 1 and canonical(frames[0]) == canonical(got) and encode(frames[0]) == encode(got):
        return
    shown = [show(canonical(f)) for f in frames]
    raise CaseError(f"fed as a one-line stream, the line gives frames {shown} and skipped {skipped}, unlike decoding it ({describe(got)})")


# ---- stream cases ----


def stream_case(case: Dict[str, Any], outcome: str) -> None:
    whole = observe(case)
    if outcome == "implementation_defined":
        allowed = get_list(case, "allowed")
        for i, want in enumerate(allowed):
            try:
                pins_enough(want)
            except CaseError as e:
                raise CaseError(f"`allowed[{i}]`: {e}") from None
        chosen(case, [attempt(lambda want=want: check_expect(want, whole)) for want in allowed], lambda: show(whole))
        return
    expect = get(case, "expect")
    pins_enough(expect)
    check_expect(expect, whole)
    conforms = whole.get("conforms")
    if outcome == "accept" and conforms is not True:
        raise CaseError("an `accept` stream case must conform, and this one does not")
    if outcome == "reject" and conforms is not False:
        raise CaseError("a `reject` stream case must not conform, and this one does")


def pins_enough(expect: Any) -> None:
    """A hostile stream outcome pins at least the frames, violations, skipped lines and verdict,
    and nothing a runner does not know."""
    if not isinstance(expect, dict):
        raise CaseError("a stream outcome must be an object")
    for key in expect:
        if key not in EXPECT_KEYS:
            raise CaseError(f"unknown `expect` key `{key}`")
    for key in STREAM_MUST_PIN:
        if key not in expect:
            raise CaseError(f"a hostile stream outcome must pin `{key}`")


# ---- implementation-defined ----


def attempt(check: Callable[[], None]) -> Optional[str]:
    """None when `check` passes, else what differs."""
    try:
        check()
    except CaseError as e:
        return str(e)
    return None


def chosen(case: Dict[str, Any], checks: List[Optional[str]], got: Callable[[], str]) -> None:
    """`checks[i]` says whether the outcome is `allowed[i]`; it must be `allowed[chosen]`, the
    alternative this library takes (so that every binding gives the same)."""
    if not checks:
        raise CaseError("`allowed` lists no outcome")
    index = get_uint(case, "chosen")
    if index >= len(checks):
        raise CaseError(f"`chosen` {index} is no index of `allowed`")
    if checks[index] is None:
        return
    other = next((i for i, c in enumerate(checks) if c is None), None)
    if other is not None:
        raise CaseError(
            f"the outcome is allowed[{other}], not the chosen allowed[{index}]: the bindings would disagree\n  {checks[index]}"
        )
    raise CaseError(f"the outcome is none of the allowed ones: {got()}\n  against allowed[{index}]: {checks[index]}")
