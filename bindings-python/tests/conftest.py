"""Fixtures shared by the supervision tests."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any, List

import pytest

from supervise_support import HEP_BIN, REPO


@pytest.fixture(scope="session")
def hep_bin() -> Path:
    """The `hep` command, built from the tree as it is (a no-op when it is up to date): a
    binary left from an older tree would test the old simulator."""
    subprocess.run(["cargo", "build", "-q", "-p", "hep-cli"], cwd=REPO, check=True, timeout=1200)
    assert HEP_BIN.exists()
    return HEP_BIN


@pytest.fixture
def reaper() -> Any:
    """Kills, after the test, every process group it was given (whatever the test did)."""
    groups: List[int] = []
    yield groups.append
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
