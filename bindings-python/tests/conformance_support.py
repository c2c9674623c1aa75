"""Shared by the conformance runner's modules: reading case fields and notations,
frames in canonical form, and comparison with readable differences."""

from __future__ import annotations

import base64
import json
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import hep

LINE_ERROR_KINDS = (
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
"""The error kinds a single line can be refused with (`reject/`)."""

ERROR_KINDS = LINE_ERROR_KINDS + ("line_too_long", "truncated", "unsupported_version", "violation", "unencodable", "io")
"""Every error kind of the core: the line kinds, then those of a stream or a writer."""



class CaseError(AssertionError):
    """What differs between a case and the library (or what is wrong with the case)."""


# ---- fields and notations ----

MISSING = object()


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


def wire_type(frame: Any) -> str:
    """The frame's wire `type`: an unknown frame's `type` is `"unknown"`, its wire type
    `frame_type` (docs/api.md)."""
    if isinstance(frame, hep.UnknownFrame):
        assert frame.type == "unknown", frame
        return frame.frame_type
    wire: str = frame.type
    return wire


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


def is_number(v: Any) -> bool:
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
    if is_number(expected) and is_number(got):
        return None if expected == got else f"{path}: expected {show(expected)}, got {show(got)}"
    same_kind = type(expected) is type(got) or (expected is None and got is None)
    if same_kind and expected == got and not is_number(expected):
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
