"""The run result and what it holds, as frozen dataclasses built from the core's data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ._hep import Usage


@dataclass(frozen=True)
class Violation:
    """A breach of a consumer guarantee (`code` is a stable snake_case name)."""

    code: str
    severity: str
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
    status: str
    output: str
    output_dropped: int
    result: Optional[str]
    last_liveness: Optional[Liveness]
    followups: Tuple[Liveness, ...]

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
        )


@dataclass(frozen=True)
class RunResult:
    """Everything known at the end of a run: the verdict and its reasons, the answer, the
    turns and tool calls, usage totals, the exit code, violations and skipped lines."""

    verdict: str
    reasons: Tuple[str, ...]
    exit_code: Optional[int]
    conforms: bool
    answer: Optional[str]
    usage: Usage
    turns: Tuple[Turn, ...]
    turns_dropped: int
    violations: Tuple[Violation, ...]
    violation_count: int
    skipped: Tuple[SkippedLine, ...]
    skipped_count: int
    halted: Optional[SkippedLine]
    frames: int
    lines: int
    session: Optional[str]
    fah: Optional[str]
    last_terminal: Optional[str]
    compactions: int
    tokens_freed: int
    stderr_tail: str = ""
    data: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def tool_calls(self) -> List[ToolCall]:
        """Every kept tool call, in order."""
        return [call for turn in self.turns for call in turn.tools]

    @classmethod
    def _from(cls, d: Dict[str, Any], stderr_tail: str = "") -> "RunResult":
        run = d["run"]
        halted = d["halted"]
        header = run["header"] or {}
        last = run["last_terminal"]
        return cls(
            verdict=d["verdict"],
            reasons=tuple(d["reasons"]),
            exit_code=d["exit_code"],
            conforms=d["conforms"],
            answer=run["answer"],
            usage=Usage(**run["usage"]),
            turns=tuple(Turn._from(t) for t in run["turns"]),
            turns_dropped=run["turns_dropped"],
            violations=tuple(Violation._from(v) for v in d["violations"]),
            violation_count=d["violation_count"],
            skipped=tuple(SkippedLine._from(s) for s in d["skipped"]),
            skipped_count=d["skipped_count"],
            halted=SkippedLine._from(halted) if halted else None,
            frames=run["frames"],
            lines=d["lines"],
            session=header.get("session"),
            fah=header.get("fah"),
            last_terminal=last["type"] if last else None,
            compactions=run["compactions"],
            tokens_freed=run["tokens_freed"],
            stderr_tail=stderr_tail,
            data=d,
        )
