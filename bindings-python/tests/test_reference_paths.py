"""The reference harness's own edge paths, on real children supervised by `hep.spawn` and
`hep.aspawn`: a signal after the last round (exit 130, no `cancelled` frame), a failure after
it (exit 1, no `turn_error`), a round after a fatal `turn_error` (the over-window
continuation). The emitters write with `hep.Writer` (tests/emitters/reference_paths.py);
then every vector of conformance/stream/reference/ is replayed by a child that prints its
lines and exits with its exit code, and the supervised run must give the vector's outcome.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import hep

from conformance_stream import check_expect, stream_exit_code, stream_input, summary
from supervise_support import *  # noqa: F401,F403  (the supervision tests' shared helpers)

REFERENCE = REPO / "conformance" / "stream" / "reference"
EMITTER = Path(__file__).resolve().parent / "emitters" / "reference_paths.py"
MODES = ["spawn", "aspawn"]
ANSWER = "All tests pass."


def reference_path(mode: str) -> List[str]:
    return [PY, str(EMITTER), mode]


def vector(name: str) -> Dict[str, Any]:
    case: Dict[str, Any] = json.loads((REFERENCE / f"{name}.json").read_text(encoding="utf-8"))
    return case


def supervise(argv: List[str], how: str) -> Tuple[List[hep.Frame], hep.RunResult]:
    """Every frame of the child and its result, through `hep.spawn` or `hep.aspawn`."""
    if how == "spawn":
        with hep.spawn(argv) as run, Watchdog(run.pid) as dog:
            frames = list(run)
            result = run.wait()
        assert not dog.fired
        return frames, result

    async def main() -> Tuple[List[hep.Frame], hep.RunResult]:
        async with await hep.aspawn(argv) as run:
            frames = [frame async for frame in run]
            return frames, await run.wait()

    return arun(main)


def violations(result: hep.RunResult) -> List[Tuple[str, str, int, Any]]:
    return [(v.code, v.severity, v.line, v.turn_id) for v in result.violations]


def writes_the_vectors_bytes(frames: List[hep.Frame], name: str) -> None:
    """The emitter, through `hep.Writer`, wrote exactly the reference's lines of the vector."""
    assert [f.raw for f in frames] == vector(name)["input_lines"]


# ---- exit 130 after the last round: cancelled, the answer kept ----


@pytest.mark.parametrize("how", MODES)
def test_exit_130_after_the_last_turn_done_is_cancelled_and_keeps_the_answer(how: str) -> None:
    frames, result = supervise(reference_path("signal-between-rounds"), how)
    writes_the_vectors_bytes(frames, "signal-between-rounds")
    assert frames[-1].type == "turn_done"  # no `cancelled` frame
    assert (result.verdict, result.exit_code, result.conforms, result.answer) == ("cancelled", 130, True, ANSWER)
    assert violations(result) == [("cancelled_between_rounds", "warning", 0, 2)]
    assert result.reasons == (
        "exit code 130: cancelled between rounds, after turn 2 finished with turn_done (its answer is kept)",
    )
    assert [t.end for t in result.turns] == ["turn_done", "turn_done"]
    assert result.last_terminal == "turn_done"


def test_a_cancel_after_the_last_round_is_cancelled_without_a_cancelled_frame() -> None:
    with hep.spawn(reference_path("signal-after-the-run")) as run, Watchdog(run.pid) as dog:
        frames = []
        for frame in run:  # its handlers are set before it writes
            frames.append(frame)
            if isinstance(frame, hep.TurnDone) and frame.stop_reason == "stop":
                break
        started = time.monotonic()
        run.cancel()
        took = time.monotonic() - started
        frames += list(run)
        result = run.wait()
    assert not dog.fired
    assert took < hep.INTERRUPT_GRACE, "SIGINT alone should end the child"
    writes_the_vectors_bytes(frames, "signal-between-rounds")
    assert (result.verdict, result.exit_code, result.conforms, result.answer) == ("cancelled", 130, True, ANSWER)
    assert violations(result) == [("cancelled_between_rounds", "warning", 0, 2)]


def test_async_a_cancel_after_the_last_round_is_cancelled_without_a_cancelled_frame() -> None:
    async def main() -> Tuple[List[hep.Frame], hep.RunResult]:
        async with await hep.aspawn(reference_path("signal-after-the-run")) as run:
            frames = [await anext_within(run)]
            while not (isinstance(frames[-1], hep.TurnDone) and frames[-1].stop_reason == "stop"):
                frames.append(await anext_within(run))
            await run.cancel()
            frames += [frame async for frame in run]
            return frames, await run.wait()

    frames, result = arun(main)
    writes_the_vectors_bytes(frames, "signal-between-rounds")
    assert (result.verdict, result.exit_code, result.conforms, result.answer) == ("cancelled", 130, True, ANSWER)
    assert violations(result) == [("cancelled_between_rounds", "warning", 0, 2)]


# ---- exit 1 after the last round: failed, the answer kept ----


@pytest.mark.parametrize("how", MODES)
def test_exit_1_after_the_last_turn_done_is_failed(how: str) -> None:
    frames, result = supervise(reference_path("crash-after-last-round"), how)
    writes_the_vectors_bytes(frames, "crash-after-last-round")
    assert (result.verdict, result.exit_code, result.conforms, result.answer) == ("failed", 1, True, ANSWER)
    assert violations(result) == [("failed_after_last_round", "warning", 0, 2)]
    assert result.reasons == (
        "exit code 1 after turn 2 finished with turn_done: the harness failed after its last round",
    )
    assert result.stderr_tail == "error: could not persist the session\n"


# ---- the over-window continuation: a round after a fatal turn_error ----


@pytest.mark.parametrize("how", MODES)
def test_a_round_after_a_fatal_turn_error_then_turn_done_and_exit_0_is_ok(how: str) -> None:
    frames, result = supervise(reference_path("over-window-continuation"), how)
    writes_the_vectors_bytes(frames, "over-window-continuation")
    answer = "The build failed on an unresolved import; fixed and rebuilt."
    assert (result.verdict, result.exit_code, result.conforms, result.answer) == ("ok", 0, True, answer)
    assert violations(result) == [("round_after_fatal_error", "warning", 10, 3)]
    assert result.reasons == ("turn 3 finished with turn_done",)
    assert [(t.turn_id, t.end) for t in result.turns] == [(1, "turn_done"), (2, "turn_error"), (3, "turn_done")]
    assert result.turns[1].error == "context window exceeded: 212000 tokens > 200000"
    assert (result.compactions, result.tokens_freed) == (1, 150000)


# ---- every reference vector, replayed by a real child ----

CASES = sorted(REFERENCE.glob("*.json"))


def test_the_reference_folder_holds_the_edge_paths() -> None:
    assert len(CASES) >= 15, CASES
    assert {"signal-between-rounds", "crash-after-last-round", "over-window-continuation"} <= {p.stem for p in CASES}


@pytest.mark.parametrize("how", MODES)
@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_a_child_replaying_a_reference_vector_gets_its_outcome(path: Path, how: str, tmp_path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    code = stream_exit_code(case)
    assert code is not None, "a child always has an exit code"
    saved = tmp_path / "stream"
    saved.write_bytes(stream_input(case))
    frames, result = supervise(sh('cat "$1"; exit "$2"', saved, code), how)
    assert result.exit_code == code
    check_expect(case["expect"], summary(frames, result))
