"""FFI safety: no panic of the extension reaches Python. Every entry point of `hep._hep`
runs its body in a guard that raises a panic as a `HepError` of kind `internal` (the Rust
unit test `guard::tests` proves that conversion); pyo3's own `PanicException`, a
`BaseException` that `except Exception` lets through, must never be seen."""

from __future__ import annotations

import io
import itertools
import random
from typing import Any, Callable, Iterator, List, Tuple

from hep import _hep

HOSTILE: List[Any] = [
    None,
    True,
    0,
    -1,
    2**64,
    -(2**63) - 1,
    1e308,
    float("nan"),
    "",
    "\x00\x1b[31m\u2028",
    "\ud800",
    "é" * 5000,
    b"\xff\xc0\x80\n",
    bytearray(b'{"type":"turn_done"}'),
    memoryview(b"{}\n"),
    [],
    {"type": "turn_done", "turn_id": -1},
    {"": object()},
    object(),
]


def argument_lists() -> Iterator[Tuple[Any, ...]]:
    """Every list of up to two hostile arguments, then seeded samples of three to six."""
    for n in range(3):
        yield from itertools.product(HOSTILE, repeat=n)
    pick = random.Random(7)
    for n in range(3, 7):
        for _ in range(60):
            yield tuple(pick.choice(HOSTILE) for _ in range(n))


def sweep(target: Callable[..., Any]) -> int:
    """Calls `target` with every argument list; any failure must be an ordinary exception."""
    calls = 0
    for args in argument_lists():
        calls += 1
        try:
            target(*args)
        except Exception as e:  # noqa: BLE001 - which exception is not the point here
            assert type(e).__name__ != "PanicException", (target, args, e)
        except BaseException as e:  # a PanicException: a panic crossed the boundary
            raise AssertionError(f"{target!r}{args!r} raised {type(e).__name__}: {e}") from e
    return calls


def instances() -> List[Any]:
    """One live object of each native class with methods."""
    stream = _hep.Stream()
    stream.feed(b'{"hep":"v1","type":"hep_header","fah_version":"x","session":"s"}\n')
    supervisor = _hep.Supervisor(1.0, timeout=2.0, pause_at_bytes=10)
    supervisor.stdout(1.5, b'{"hep":"v1","type":"hep_header","fah":"x","session":"s"}\nnot json\n')
    supervisor.cancel(1.5)
    action = supervisor.poll_action()
    frame = _hep.parse_line('{"type":"turn_done","turn_id":1,"message":"ok","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"end"}')
    return [
        stream,
        _hep.Stream(strict=True, max_line_bytes=1),
        _hep.Writer(io.StringIO(), "1.0"),
        _hep.Supervisor(0.0),
        supervisor,
        action,
        frame,
        _hep.Usage(input=1, output=2, cost=0.5),
        _hep.ToolResult(id="id", name="name", ok=True, text="text"),
    ]


def test_no_function_or_constructor_lets_a_panic_through() -> None:
    entry_points = [getattr(_hep, name) for name in dir(_hep) if not name.startswith("_")]
    callables = [e for e in entry_points if callable(e) and not (isinstance(e, type) and issubclass(e, BaseException))]
    assert {"parse_line", "encode", "sanitize", "Stream", "Writer", "Supervisor"} <= {c.__name__ for c in callables}
    assert sum(sweep(c) for c in callables) > 10_000


def test_no_keyword_argument_lets_a_panic_through() -> None:
    sweep(lambda strict=None, limit=None, *_: _hep.Stream(strict=strict, max_line_bytes=limit))
    sweep(lambda turn_id=None, message=None, *_: _hep.TurnDone(turn_id=turn_id, message=message))
    sweep(lambda a=None, b=None, *_: _hep.Usage(input=a, output=b, cost=a))
    sweep(lambda a=None, b=None, *_: _hep.HepHeader(hep=a, fah_version=b, session=a))


def test_no_method_lets_a_panic_through() -> None:
    methods = [
        getattr(obj, name)
        for obj in instances()
        for name in dir(obj)
        if not name.startswith("__") and callable(getattr(obj, name))
    ]
    assert len(methods) > 20
    for method in methods:
        sweep(method)
