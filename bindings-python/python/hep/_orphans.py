"""No orphans: a child still running is cancelled when its `with` block exits, at
interpreter exit (atexit), and on SIGTERM or SIGHUP where those still have their default
disposition (see `_guard_signals`)."""

from __future__ import annotations

import atexit
import os
import signal
import threading
from typing import Any, List, Set

_live: Set[Any] = set()
"""The runs whose result is not known yet."""


def _cancel_all() -> None:
    """Cancels every run whose child still runs, and waits for each one's exit."""
    for run in list(_live):
        try:
            run._abandon()
        except Exception:
            pass


atexit.register(_cancel_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_live.clear)  # a forked process owns none of them

_DEADLY = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


_guarded: List[bool] = []


def _guard_signals() -> None:
    """Once, from the main thread (the only one that can): sets `_on_signal` for SIGTERM and
    SIGHUP where they still have their default disposition (the process would die at once,
    leaving its children running). A handler of the program's own is left alone, and so is
    the default set back later (an opt-out)."""
    if not _guarded and threading.current_thread() is threading.main_thread():
        _guarded.append(True)
        for signum in _DEADLY:
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _on_signal)


def _on_signal(signum: int, _frame: Any) -> None:
    """Cancels every child still running, then dies of `signum` as the default would."""
    _cancel_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
