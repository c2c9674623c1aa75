"""FFI safety: no panic of the extension reaches Python. Every entry point of `hep._hep`
runs its body in `boundary::guard`, which raises a panic as a `HepError` of kind `internal`
(the Rust unit test `boundary::tests` proves that conversion); pyo3's own `PanicException`, a
`BaseException` that `except Exception` lets through, must never be seen. Hostile arguments
must not panic at all: an `internal` error fails a sweep too.

A sweep that never gets past a check before the code under test proves nothing: the
keyword sweeps check that their calls reach field conversion (no unknown keyword, and some
calls accepted), and the live objects the method sweeps call are checked to be live.
"""

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


USAGE = {"input": 1, "output": 2, "cost": 0.5}


def argument_lists() -> Iterator[Tuple[Any, ...]]:
    """Every list of up to two hostile arguments, then seeded samples of three to six."""
    for n in range(3):
        yield from itertools.product(HOSTILE, repeat=n)
    pick = random.Random(7)
    for n in range(3, 7):
        for _ in range(60):
            yield tuple(pick.choice(HOSTILE) for _ in range(n))


class Outcomes:
    """How the calls of a sweep ended: accepted, or refused with which exception."""

    def __init__(self) -> None:
        self.calls = 0
        self.accepted = 0
        self.refusals: List[BaseException] = []

    def reached_conversion(self) -> None:
        """Every call got past the keyword check (no call named a keyword the target does
        not take), and some were accepted: the sweep exercised field conversion."""
        unknown = [e for e in self.refusals if "unexpected keyword argument" in str(e)]
        assert not unknown, f"{len(unknown)} of {self.calls} calls stopped at the keyword check: {unknown[0]}"
        assert self.accepted > 0, f"none of {self.calls} calls was accepted: {self.refusals[:3]}"


def sweep(target: Callable[..., Any]) -> Outcomes:
    """Calls `target` with every argument list; any failure must be an ordinary exception,
    and none a caught panic (`internal`)."""
    outcomes = Outcomes()
    for args in argument_lists():
        outcomes.calls += 1
        try:
            target(*args)
        except Exception as e:  # noqa: BLE001 - which exception is not the point here
            assert type(e).__name__ != "PanicException", (target, args, e)
            assert getattr(e, "kind", None) != "internal", f"{target!r}{args!r} panicked (caught): {e}"
            outcomes.refusals.append(e)
        except BaseException as e:  # a PanicException: a panic crossed the boundary
            raise AssertionError(f"{target!r}{args!r} raised {type(e).__name__}: {e}") from e
        else:
            outcomes.accepted += 1
    return outcomes


def instances() -> List[Any]:
    """One live object of each native class with methods."""
    stream = _hep.Stream()
    frames = stream.feed(
        b'{"hep":"v1","type":"hep_header","fah":"x","session":"s"}\n'
        b'{"type":"agent_start","turn_id":1}\n'
        b'{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":""}\n'
        b'{"type":"tool_delta","turn_id":1,"id":"c1","update":"partial'  # a line under way
    )
    # A live stream: its lines read as frames (none skipped), mid-round, a line under way.
    assert [f.type for f in frames] == ["hep_header", "agent_start", "tool_start"], frames
    assert stream.skipped() == [] and stream.halted() is None
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
    assert sum(sweep(c).calls for c in callables) > 10_000


def test_no_keyword_argument_lets_a_panic_through() -> None:
    sweeps = [
        sweep(lambda strict=False, limit=1, *_: _hep.Stream(strict=strict, max_line_bytes=limit)),
        sweep(lambda a=0, b=0, *_: _hep.Usage(input=a, output=b, cost=a)),
        sweep(lambda a="", b="", *_: _hep.HepHeader(hep=a, fah=b, session=a)),
        sweep(lambda a=0, b="", *_: _hep.MessageDelta(turn_id=a, delta=b)),
        sweep(lambda a="", b=True, *_: _hep.ToolResult(id=a, name=a, ok=b, text=a)),
        sweep(
            lambda turn_id=0, message="", results=(), usage=USAGE, *_: _hep.TurnDone(
                turn_id=turn_id, message=message, tool_results=results, usage=usage, stop_reason=message
            )
        ),
    ]
    for outcomes in sweeps:
        outcomes.reached_conversion()


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
