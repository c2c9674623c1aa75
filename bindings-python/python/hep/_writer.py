"""Writing HEP: `Writer`, the reference emitter's state machine writing each line, flushed."""

from __future__ import annotations

import io
import json
from typing import IO, Any, Callable, Iterable, Mapping, Optional, Union

from . import _hep

Output = Union[IO[str], IO[bytes], Callable[[str], Any]]


class Writer:
    """Writes byte-exact HEP lines to `out` (a text or binary file, each line flushed, or a
    callable given each line with its newline). Every method returns the line it wrote
    (without the newline), or `None` when the protocol says the call writes nothing."""

    def __init__(self, out: Output, fah_version: str, tool_args: str = "summary") -> None:
        self._emitter = _hep.Emitter(tool_args)
        self._fah = fah_version
        self._write: Callable[[str], Any]
        if isinstance(out, io.TextIOBase):
            self._write = self._text_writer(out)
        elif hasattr(out, "write"):
            self._write = self._bytes_writer(out)  # type: ignore[arg-type]
        elif callable(out):
            self._write = out
        else:
            raise TypeError("out must be a text or binary file, or a callable taking each line")

    @staticmethod
    def _text_writer(out: IO[str]) -> Callable[[str], None]:
        def write(line: str) -> None:
            out.write(line)
            out.flush()

        return write

    @staticmethod
    def _bytes_writer(out: IO[bytes]) -> Callable[[str], None]:
        def write(line: str) -> None:
            out.write(line.encode())
            out.flush()

        return write

    @property
    def turn_id(self) -> int:
        """The open turn's id, else the last allocated one (0 before any)."""
        return self._emitter.turn_id

    def _put(self, line: Optional[str]) -> Optional[str]:
        if line is not None:
            self._write(line + "\n")
        return line

    def header(self, session: str) -> Optional[str]:
        """`hep_header` (written once; later calls write nothing)."""
        return self._put(self._emitter.header(self._fah, session))

    def agent_start(self) -> Optional[str]:
        """`agent_start` (only the first call writes); opens a turn."""
        return self._put(self._emitter.agent_start())

    def turn_start(self) -> None:
        """Opens a turn if none is open; writes nothing."""
        self._emitter.turn_start()

    def message_start(self, role: str = "assistant") -> Optional[str]:
        """`message_start`, written only for assistant messages."""
        return self._put(self._emitter.message_start(role))

    def message_delta(self, text: str) -> Optional[str]:
        """`message_delta` with a chunk of assistant text."""
        return self._put(self._emitter.message_delta(text))

    def tool_start(self, id: str, name: str, args: Mapping[str, Any]) -> Optional[str]:
        """`tool_start`; `args` keeps its key order in the summary."""
        return self._put(self._emitter.tool_start(id, name, json.dumps(args, allow_nan=False)))

    def tool_delta(self, id: str, update: str) -> Optional[str]:
        """`tool_delta`; an empty update writes nothing."""
        return self._put(self._emitter.tool_delta(id, update))

    def tool_liveness(
        self,
        id: str,
        name: str,
        action: str,
        elapsed_ms: int,
        output_bytes: Optional[int] = None,
        detail: Optional[str] = None,
    ) -> Optional[str]:
        """`tool_liveness`: a heartbeat or a stuck-call follow-up."""
        return self._put(self._emitter.tool_liveness(id, name, action, elapsed_ms, output_bytes, detail))

    def turn_done(
        self,
        message: str,
        tool_results: Iterable[Union[_hep.ToolResult, Mapping[str, Any]]],
        usage: Union[_hep.Usage, Mapping[str, Any]],
        stop_reason: str,
    ) -> Optional[str]:
        """`turn_done` (tool result texts capped at 2000 UTF-16 units); closes the turn."""
        results = [r if isinstance(r, _hep.ToolResult) else dict(r) for r in tool_results]
        core_usage = usage if isinstance(usage, _hep.Usage) else dict(usage)
        return self._put(self._emitter.turn_done(message, results, core_usage, stop_reason))

    def turn_error(self, error: str, fatal: bool = True) -> Optional[str]:
        """`turn_error`; closes the turn."""
        return self._put(self._emitter.turn_error(error, fatal))

    def cancelled(self) -> Optional[str]:
        """`cancelled`; closes the turn."""
        return self._put(self._emitter.cancelled())

    def compaction_start(self) -> Optional[str]:
        """`compaction_start`."""
        return self._put(self._emitter.compaction_start())

    def compaction_end(self, tokens_freed: int) -> Optional[str]:
        """`compaction_end`."""
        return self._put(self._emitter.compaction_end(tokens_freed))
