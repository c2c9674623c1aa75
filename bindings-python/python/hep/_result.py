"""The run result and what it holds, as frozen dataclasses built from the core's data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional, Tuple

from . import _hep
from ._hep import Usage

Verdict = Literal["ok", "failed", "cancelled", "incomplete", "protocol_error"]
"""A run's verdict."""
Severity = Literal["error", "warning"]
"""A violation's severity: `error` breaks a consumer guarantee, `warning` does not."""
ToolStatus = Literal["running", "ok", "failed"]
"""A tool call's status: no result yet, or what its round's `turn_done` says."""
CancelReason = Literal["user", "timeout", "idle"]
"""Who cancelled a supervised run: the caller, the `timeout`, or the `idle_timeout`."""
SignalName = Literal["SIGINT", "SIGTERM", "SIGKILL"]
"""A signal of the cancel ladder."""


@dataclass(frozen=True)
class Violation:
    """A breach of a consumer guarantee (`code` is a stable snake_case name)."""

    code: str
    severity: Severity
    line: int
    turn_id: Optional[int]
    message: str

    @classmethod
    def _from(cls, data: Dict[str, Any]) -> "Violation":
        return cls(data["code"], data["severity"], data["line"], data["turn_id"], data["message"])


@dataclass(frozen=True)
class SkippedLine:
    """A line that could not be read: its error kind, position and message."""

    kind: str
    line: int
    column: int
    message: str
    excerpt: str

    @classmethod
    def _from(cls, data: Dict[str, Any]) -> "SkippedLine":
        return cls(data["kind"], data["line"], data["column"], data["message"], data["excerpt"])


@dataclass(frozen=True)
class Liveness:
    """One `tool_liveness` report."""

    action: str
    elapsed_ms: int
    output_bytes: Optional[int]
    detail: Optional[str]


@dataclass(frozen=True)
class ToolCall:
    """A tool call as a supervisor mirrors it."""

    id: str
    name: str
    args_summary: str
    status: ToolStatus
    output: str
    output_dropped: int
    result: Optional[str]
    last_liveness: Optional[Liveness]
    followups: Tuple[Liveness, ...]
    followups_dropped: int

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "ToolCall":
        last = d["last_liveness"]
        return cls(
            d["id"],
            d["name"],
            d["args_summary"],
            d["status"],
            d["output"],
            d["output_dropped"],
            d["result"],
            Liveness(**last) if last else None,
            tuple(Liveness(**f) for f in d["followups"]),
            d["followups_dropped"],
        )


@dataclass(frozen=True)
class Turn:
    """One round as a supervisor mirrors it."""

    turn_id: int
    text: str
    text_dropped: int
    tools: Tuple[ToolCall, ...]
    tools_dropped: int
    end: Optional[str]
    message: Optional[str]
    usage: Optional[Usage]
    stop_reason: Optional[str]
    error: Optional[str]
    compactions: Tuple[int, ...]
    compactions_dropped: int
    bytes_dropped: int

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Turn":
        usage = d["usage"]
        return cls(
            d["turn_id"],
            d["text"],
            d["text_dropped"],
            tuple(ToolCall._from(t) for t in d["tools"]),
            d["tools_dropped"],
            d["end"],
            d["message"],
            Usage(**usage) if usage else None,
            d["stop_reason"],
            d["error"],
            tuple(d["compactions"]),
            d["compactions_dropped"],
            d["bytes_dropped"],
        )


@dataclass(frozen=True)
class SentSignal:
    """A signal of a supervised run's cancel, and when it was sent."""

    at: float
    """Seconds after the supervisor started."""
    signal: SignalName


@dataclass(frozen=True)
class Supervision:
    """How a supervised run went, besides what its stream says (`RunResult.supervision`)."""

    timed_out: bool
    """The `timeout` ran out and cancelled the run."""
    cancelled_by: Optional[CancelReason]
    """Who cancelled the run (`None`: nobody did)."""
    signals: Tuple[SentSignal, ...]
    """The cancel's signals, in order."""
    stderr_tail: str
    """The end of the child's stderr (at most `STDERR_TAIL_BYTES`)."""
    stderr_dropped: int
    """Bytes of stderr before the tail, not kept."""
    notices_dropped: int
    """Events and stderr lines not handed over because the consumer fell far behind (the
    result still counts what the events said)."""
    duration: float
    """Seconds from the start to the end of the run."""

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Supervision":
        return cls(
            d["timed_out"],
            d["cancelled_by"],
            tuple(SentSignal(s["at_ms"] / 1000, s["signal"]) for s in d["signals"]),
            d["stderr_tail"],
            d["stderr_dropped"],
            d["notices_dropped"],
            d["duration_ms"] / 1000,
        )


class RunResult:
    """Everything known at the end of a run: the verdict and its reasons, the answer, the
    turns and tool calls, usage totals, the exit code, violations and skipped lines.

    Read-only. The bulky parts (turns, violations, skipped lines) are converted from the
    core the first time they are read."""

    __slots__ = ("_core", "_supervision", "_turns", "_violations", "_skipped")

    def __init__(self, core: _hep.RunResult) -> None:
        self._core = core
        supervision = core.supervision()
        self._supervision = Supervision._from(supervision) if supervision is not None else None
        self._turns: Optional[Tuple[Turn, ...]] = None
        self._violations: Optional[Tuple[Violation, ...]] = None
        self._skipped: Optional[Tuple[SkippedLine, ...]] = None

    @property
    def verdict(self) -> Verdict:
        """`ok`, `failed`, `cancelled`, `incomplete` or `protocol_error`."""
        return self._core.verdict

    @property
    def reasons(self) -> Tuple[str, ...]:
        """The findings that decided the verdict, most important first."""
        return tuple(self._core.reasons)

    @property
    def exit_code(self) -> Optional[int]:
        """The exit code the verdict was given with (`None` if unknown)."""
        return self._core.exit_code

    @property
    def conforms(self) -> bool:
        """No error-severity violation, no skipped line, not halted."""
        return self._core.conforms

    @property
    def answer(self) -> Optional[str]:
        """The user-visible answer: the last terminal frame's message, if it is a `turn_done`."""
        return self._core.answer

    @property
    def usage(self) -> Usage:
        """Token and cost totals over every `turn_done`."""
        return self._core.usage

    @property
    def turns(self) -> Tuple[Turn, ...]:
        """The kept turns, oldest first."""
        if self._turns is None:
            self._turns = tuple(Turn._from(t) for t in self._core.turns())
        return self._turns

    @property
    def turns_dropped(self) -> int:
        """Turns not kept (the reducer's bounds)."""
        return self._core.turns_dropped

    @property
    def tool_calls(self) -> List[ToolCall]:
        """Every kept tool call, in order."""
        return [call for turn in self.turns for call in turn.tools]

    @property
    def violations(self) -> Tuple[Violation, ...]:
        """The kept violations (see `violation_count` for all of them)."""
        if self._violations is None:
            self._violations = tuple(Violation._from(v) for v in self._core.violations())
        return self._violations

    @property
    def violation_count(self) -> int:
        """Every violation found, kept or not."""
        return self._core.violation_count

    @property
    def skipped(self) -> Tuple[SkippedLine, ...]:
        """The kept unreadable lines."""
        if self._skipped is None:
            self._skipped = tuple(SkippedLine._from(s) for s in self._core.skipped())
        return self._skipped

    @property
    def skipped_count(self) -> int:
        """Every unreadable line, kept or not."""
        return self._core.skipped_count

    @property
    def untracked_calls(self) -> int:
        """`tool_start`s whose id the validator did not remember (their round already held
        `max_tracked_calls` ids; there, `unknown_tool_call` is not reported)."""
        return self._core.untracked_calls

    @property
    def halted(self) -> Optional[SkippedLine]:
        """The error that stopped the stream (strict mode, or a refused version)."""
        halted = self._core.halted()
        return SkippedLine._from(halted) if halted else None

    @property
    def frames(self) -> int:
        """Frames applied."""
        return self._core.frames

    @property
    def lines(self) -> int:
        """Lines read, complete or skipped."""
        return self._core.lines

    @property
    def session(self) -> Optional[str]:
        """The header's session id."""
        return self._core.session

    @property
    def fah(self) -> Optional[str]:
        """The header's emitter version."""
        return self._core.fah

    @property
    def last_terminal(self) -> Optional[str]:
        """The type of the stream's last terminal frame."""
        return self._core.last_terminal

    @property
    def compactions(self) -> int:
        """Compactions ended."""
        return self._core.compactions

    @property
    def tokens_freed(self) -> int:
        """Tokens freed by all compactions."""
        return self._core.tokens_freed

    @property
    def supervision(self) -> Optional[Supervision]:
        """How a supervised run went (who cancelled, the signals, the stderr tail); `None`
        for a stream read without a supervisor."""
        return self._supervision

    @property
    def stderr_tail(self) -> str:
        """The end of the child's stderr (supervised runs only, else "")."""
        return self._supervision.stderr_tail if self._supervision is not None else ""

    @property
    def data(self) -> Dict[str, Any]:
        """The whole result as plain data, as `hep watch --json` prints it."""
        data: Dict[str, Any] = self._core.to_dict()
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunResult):
            return NotImplemented
        return self.data == other.data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunResult(verdict={self.verdict!r}, answer={self.answer!r}, usage={self.usage!r}, exit_code={self.exit_code!r})"
