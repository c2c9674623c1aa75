"""The protocol's bounds, from the core: UTF-16 caps and the two `args_summary` renderings."""

from __future__ import annotations

from typing import Any, Mapping, Union

from . import _hep

Args = Union[Mapping[str, Any], str]


def cap(text: str, limit: int) -> str:
    """`text` cut to `limit` UTF-16 units plus `…(+N chars)` when longer (never splitting a
    surrogate pair)."""
    return _hep.cap(text, limit)


def utf16_len(text: str) -> int:
    """Length of `text` in UTF-16 code units, the protocol's "characters"."""
    return _hep.utf16_len(text)


def args_summary(args: Args) -> str:
    """Summary-mode `args_summary`: `key=<json>` joined with `", "`, cut at 100 units + `...`.
    `args` is a mapping or the JSON text of the argument object (key order is kept). A value
    holding a float JSON cannot write (`nan`, `inf`; `1e400` in JSON text) is
    `key=[unserializable]`, as the reference writes it."""
    return _hep.render_args(args, "summary")


def args_full(args: Args) -> str:
    """Full-mode `args_summary` (`events=full`): the arguments' JSON, capped at 4000 units;
    `[unserializable]` when a value holds a float JSON cannot write."""
    return _hep.render_args(args, "full")
