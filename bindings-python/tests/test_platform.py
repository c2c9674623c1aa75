"""Where supervising works: on a platform without process groups and POSIX signals
(Windows), `spawn` and `aspawn` refuse with an error naming the platform and start nothing,
while reading, writing and the `Supervisor` machine still work.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import List

import pytest

import hep


def marker_argv(path: Path) -> List[str]:
    """A child that creates `path`: proof that it was started."""
    return [sys.executable, "-c", f"open({str(path)!r}, 'w').close()"]


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_spawn_runs_where_process_groups_exist(platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    marker = tmp_path / "started"
    with hep.spawn(marker_argv(marker)) as run:
        run.wait()
    assert marker.exists()


def test_spawn_on_windows_raises_naming_the_platform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    marker = tmp_path / "started"
    with pytest.raises(NotImplementedError) as info:
        hep.spawn(marker_argv(marker))
    assert str(info.value) == (
        "hep.spawn is not supported on this platform (win32): supervising a harness needs process groups "
        "and POSIX signals (Linux, macOS); reading and writing HEP work everywhere"
    )
    assert not marker.exists()


def test_aspawn_on_windows_raises_naming_the_platform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    marker = tmp_path / "started"
    with pytest.raises(NotImplementedError, match=r"^hep\.aspawn is not supported on this platform \(win32\): "):
        asyncio.run(hep.aspawn(marker_argv(marker)))
    assert not marker.exists()


def test_reading_writing_and_the_supervisor_work_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    lines: List[str] = []
    writer = hep.Writer(lines.append, "1.0.0")
    writer.header("s")
    writer.agent_start()
    writer.message_delta("hi")
    writer.turn_done("hi", [], {"input": 1, "output": 1, "cost": 0.0}, "stop")
    stream = hep.Stream()
    frames = stream.feed("".join(lines).encode())
    assert [f.type for f in frames] == ["hep_header", "agent_start", "message_delta", "turn_done"]
    assert stream.finish(0).verdict == "ok"
    hep.Supervisor(0.0)  # the policy machine needs no process
