"""Type stubs of `hep._hep`, the compiled core (pyo3; see bindings-python/src).

The classes of the frame model (the frames, `UnknownFrame`, `Usage`, `ToolResult`) are
defined here too; their stubs are generated from hep-core's frame model into `_frames.pyi`
(`make codegen`) and imported below.
"""

from signal import Signals as _Signals
from typing import IO, Any, Callable, ClassVar, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from typing_extensions import Final, Literal, TypeAlias, final

from ._frames import *
from ._frames import Frame as _Frame
from ._frames import __all__ as __all__
from ._result import RunResult as _PyRunResult
from ._result import SkippedLine as _SkippedLine
from ._result import Verdict as _Verdict
from ._result import Violation as _Violation

__all__ += [
    "HepError",
    "JsonSyntaxError",
    "InvalidUtf8Error",
    "TrailingCharactersError",
    "NotAnObjectError",
    "MissingFieldError",
    "DuplicateFieldError",
    "WrongTypeError",
    "OutOfRangeError",
    "TooDeepError",
    "LineTooLongError",
    "TruncatedError",
    "UnsupportedVersionError",
    "ProtocolViolationError",
    "UnencodableError",
    "HepIOError",
    "Limits",
    "Stream",
    "RunResult",
    "Writer",
    "Supervisor",
    "SupervisorAction",
    "parse_line",
    "encode",
    "sanitize",
    "json_schema",
    "cap",
    "utf16_len",
    "render_args",
    "__version__",
    "PROTOCOL_VERSION",
    "INTERRUPT_GRACE",
    "TERMINATE_GRACE",
    "DRAIN_AFTER_EXIT",
    "STDERR_TAIL_BYTES",
    "MAX_STDERR_LINE",
    "PAUSE_AT_BYTES",
    "MIN_DROP_AT_BYTES",
    "EXIT_OK",
    "EXIT_FAILED",
    "EXIT_CANCELLED",
    "TOOL_RESULT_CAP",
]  # after the frame model's classes (`_frames.__all__`)

# ---------------------------------------------------------------------------------------
# Helper types (stub-only; they do not exist at runtime)

_Bytes: TypeAlias = Union[str, bytes, bytearray, memoryview]
"""What `parse_line` and `Stream.feed` accept: text (encoded as UTF-8) or bytes."""

# ---------------------------------------------------------------------------------------
# Constants

__version__: Final[str]
PROTOCOL_VERSION: Final = "v1"
INTERRUPT_GRACE: Final[float]
"""Default seconds between SIGINT and SIGTERM when cancelling a child (`interrupt_grace`):
the reference harness's 10 s settle plus 2 s to drain its stdout and exit."""
TERMINATE_GRACE: Final[float]
"""Default seconds between SIGTERM and SIGKILL when cancelling a child (`terminate_grace`)."""
DRAIN_AFTER_EXIT: Final[float]
"""Default seconds a supervised child's pipes are still read after it exits (a process it
left outside its group may hold them open)."""
STDERR_TAIL_BYTES: Final[int]
"""Bytes of a child's stderr kept (the tail)."""
MAX_STDERR_LINE: Final[int]
"""Longest stderr line handed over live, in bytes; a longer one is cut there."""
PAUSE_AT_BYTES: Final[int]
"""Bytes of events waiting for the consumer above which a supervisor pauses stdout (while
someone takes them as they come); reading resumes at half of it."""
MIN_DROP_AT_BYTES: Final[int]
"""The least number of waiting bytes past which a supervisor counts events (and, in their
own queue, stderr lines) in `notices_dropped` instead of keeping them: the threshold is 16 ×
`pause_at_bytes`, at least this (`Supervisor.drop_at_bytes()`)."""
EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_CANCELLED: Final = 130
TOOL_RESULT_CAP: Final = 2000
"""`turn_done.tool_results[].text` is capped at this many UTF-16 code units."""

# ---------------------------------------------------------------------------------------
# Errors: `HepError(ValueError)` and one subclass per error kind

class HepError(ValueError):
    """Any error of the hep library; `.kind` names it.

    The attributes are set on every error hep raises (not on one built by hand)."""

    kind: str
    """The stable snake_case kind (`"syntax"`, `"missing_field"`, ...)."""
    line: int
    """1-based line number; 0 when the error is not tied to a line."""
    column: int
    """1-based byte offset within the line; 0 when unknown."""
    excerpt: str
    """A short excerpt of the offending input ("" when none)."""
    detail: str
    """The message without the position."""
    frames: List[_Frame]
    """Set only on the error a `Stream` halts with (strict mode): the frames that came
    before it in the chunk being fed."""

class JsonSyntaxError(HepError):
    kind: Literal["syntax"]

class InvalidUtf8Error(HepError):
    kind: Literal["invalid_utf8"]

class TrailingCharactersError(HepError):
    kind: Literal["trailing_characters"]

class NotAnObjectError(HepError):
    kind: Literal["not_an_object"]

class MissingFieldError(HepError):
    kind: Literal["missing_field"]

class DuplicateFieldError(HepError):
    kind: Literal["duplicate_field"]

class WrongTypeError(HepError):
    kind: Literal["wrong_type"]

class OutOfRangeError(HepError):
    kind: Literal["out_of_range"]

class TooDeepError(HepError):
    kind: Literal["too_deep"]

class LineTooLongError(HepError):
    kind: Literal["line_too_long"]

class TruncatedError(HepError):
    kind: Literal["truncated"]

class UnsupportedVersionError(HepError):
    kind: Literal["unsupported_version"]

class ProtocolViolationError(HepError):
    kind: Literal["violation"]

class UnencodableError(HepError):
    kind: Literal["unencodable"]

class HepIOError(HepError):
    kind: Literal["io"]

# ---------------------------------------------------------------------------------------
# What a stream keeps

@final
class Limits:
    """What a `Stream` keeps at most; each field defaults to the core's cap, and what a cap
    leaves out is counted in the result (see docs/python.md, "Limits")."""

    __match_args__: ClassVar[
        Tuple[
            Literal["max_turns"],
            Literal["max_text_bytes"],
            Literal["max_tool_output_bytes"],
            Literal["max_tools_per_turn"],
            Literal["max_followups"],
            Literal["max_reports"],
            Literal["max_retained_bytes"],
            Literal["max_tracked_calls"],
            Literal["max_compactions_per_turn"],
        ]
    ]
    def __new__(
        cls,
        *,
        max_turns: int = ...,
        max_text_bytes: int = ...,
        max_tool_output_bytes: int = ...,
        max_tools_per_turn: int = ...,
        max_followups: int = ...,
        max_reports: int = ...,
        max_retained_bytes: int = ...,
        max_tracked_calls: int = ...,
        max_compactions_per_turn: int = ...,
    ) -> Limits: ...
    @property
    def max_turns(self) -> int:
        """Most recent turns kept (`RunResult.turns_dropped` counts the others)."""
    @property
    def max_text_bytes(self) -> int:
        """Bytes of assistant text kept per turn (`Turn.text_dropped`)."""
    @property
    def max_tool_output_bytes(self) -> int:
        """Bytes of `tool_delta` output kept per call (`ToolCall.output_dropped`)."""
    @property
    def max_tools_per_turn(self) -> int:
        """Tool calls kept per turn (`Turn.tools_dropped`)."""
    @property
    def max_followups(self) -> int:
        """Stuck-call follow-ups kept per call (`ToolCall.followups_dropped`)."""
    @property
    def max_reports(self) -> int:
        """Violations, and skipped lines, kept (`RunResult.violation_count`, `skipped_count`)."""
    @property
    def max_retained_bytes(self) -> int:
        """Text bytes kept over all turns (older turns dropped, the current one cut)."""
    @property
    def max_tracked_calls(self) -> int:
        """Tool-call ids remembered per round (`RunResult.untracked_calls`)."""
    @property
    def max_compactions_per_turn(self) -> int:
        """Compactions kept per turn (`Turn.compactions_dropped`)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

# ---------------------------------------------------------------------------------------
# Reading

def parse_line(line: _Bytes) -> _Frame:
    """One line (a trailing `\\n` or `\\r\\n` is allowed) to its frame; raises a `HepError`
    subclass."""

def encode(frame: _Frame) -> str:
    """The exact line the reference emitter writes for `frame` (no newline)."""

@final
class Stream:
    """The core stream (wrapped by `hep.Stream`): bytes in, frames out."""

    def __new__(
        cls,
        *,
        strict: bool = False,
        max_line_bytes: int = ...,
        limits: Optional[Limits] = None,
    ) -> Stream: ...
    def feed(self, data: _Bytes) -> List[_Frame]:
        """Raises the halting `HepError` (with `.frames`) in strict mode."""
    def end_input(self) -> List[_Frame]: ...
    def finish(self, exit_code: Optional[int] = None) -> RunResult:
        """The run result (wrapped by `hep.RunResult`); raises `RuntimeError` when called
        twice."""
    def violations(self) -> List[Dict[str, Any]]: ...
    def skipped(self) -> List[HepError]: ...
    def halted(self) -> Optional[HepError]: ...

@final
class RunResult:
    """The core's run result (wrapped by `hep.RunResult`): cheap fields as attributes, the
    bulky parts as plain data on demand."""

    @property
    def verdict(self) -> _Verdict: ...
    @property
    def reasons(self) -> List[str]: ...
    @property
    def exit_code(self) -> Optional[int]: ...
    @property
    def conforms(self) -> bool: ...
    @property
    def answer(self) -> Optional[str]: ...
    @property
    def usage(self) -> Usage: ...
    @property
    def turns_dropped(self) -> int: ...
    @property
    def violation_count(self) -> int: ...
    @property
    def skipped_count(self) -> int: ...
    @property
    def untracked_calls(self) -> int: ...
    @property
    def frames(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def session(self) -> Optional[str]: ...
    @property
    def fah(self) -> Optional[str]: ...
    @property
    def last_terminal(self) -> Optional[str]: ...
    @property
    def compactions(self) -> int: ...
    @property
    def tokens_freed(self) -> int: ...
    def turns(self) -> List[Dict[str, Any]]: ...
    def violations(self) -> List[Dict[str, Any]]: ...
    def skipped(self) -> List[Dict[str, Any]]: ...
    def halted(self) -> Optional[Dict[str, Any]]: ...
    def supervision(self) -> Optional[Dict[str, Any]]:
        """How a supervisor ran it, as plain data (`None` without one)."""
    def to_dict(self) -> Dict[str, Any]: ...

# ---------------------------------------------------------------------------------------
# Writing

_Output: TypeAlias = Union[IO[str], IO[bytes], Callable[[str], Any]]

@final
class Writer:
    """Writes byte-exact HEP lines to `out`: a text or binary file (each line flushed), or a
    callable given each line, each with its `\\n`. Every method returns the line it wrote,
    without the `\\n`, or `None` when the protocol says the call writes nothing."""

    def __new__(cls, out: _Output, fah_version: str, tool_args: str = "summary") -> Writer:
        """`out`: a text file (`io.TextIOBase`), another object with `write` and `flush`
        (given UTF-8 bytes), or a callable (else `TypeError`); `fah_version`: the harness
        version the header names; `tool_args`: `"summary"` or `"full"` (else `ValueError`)."""
    @property
    def turn_id(self) -> int:
        """The open turn's id, else the last allocated one (0 before any)."""
    def header(self, session: str) -> Optional[str]:
        """`hep_header` (written once; later calls write nothing)."""
    def agent_start(self) -> Optional[str]:
        """`agent_start` (only the first call writes); opens a turn."""
    def turn_start(self) -> None:
        """Opens a turn if none is open; writes nothing."""
    def message_start(self, role: str = "assistant") -> Optional[str]:
        """`message_start`, written only for assistant messages (another role writes nothing
        and opens no turn)."""
    def message_delta(self, text: str) -> Optional[str]:
        """`message_delta` with a chunk of assistant text."""
    def tool_start(self, id: str, name: str, args: Mapping[str, Any]) -> Optional[str]:
        """`tool_start`; `args` (JSON-serializable values) keeps its key order in the summary.
        A value holding a float JSON cannot write (`nan`, `inf`) is rendered
        `[unserializable]`, as the reference does."""
    def tool_delta(self, id: str, update: str) -> Optional[str]:
        """`tool_delta`; an empty update writes nothing and opens no turn."""
    def tool_liveness(
        self,
        id: str,
        name: str,
        action: str,
        elapsed_ms: int,
        output_bytes: Optional[int] = None,
        detail: Optional[str] = None,
    ) -> Optional[str]:
        """`tool_liveness`. `action`: one of v1's, as `ToolLiveness.action` lists them (else
        `ValueError`)."""
    def turn_done(
        self,
        message: str,
        tool_results: Iterable[Union[ToolResult, Mapping[str, Any]]],
        usage: Union[Usage, Mapping[str, Any]],
        stop_reason: str,
    ) -> Optional[str]:
        """`turn_done` (tool result texts capped at 2000 UTF-16 units); closes the turn."""
    def turn_error(self, error: str, fatal: bool = True) -> Optional[str]:
        """`turn_error`; closes the turn."""
    def cancelled(self) -> Optional[str]:
        """`cancelled`; closes the turn."""
    def compaction_start(self) -> Optional[str]:
        """`compaction_start`."""
    def compaction_end(self, tokens_freed: int) -> Optional[str]:
        """`compaction_end`."""

# ---------------------------------------------------------------------------------------
# Supervising: the core's state machine, for drivers (`hep.spawn` and `hep.aspawn` are two)

_ActionKind: TypeAlias = Literal["signal", "kill_group", "pause_stdout", "resume_stdout", "close_pipes"]
_CancelReason: TypeAlias = Literal["user", "timeout", "idle"]
_Event: TypeAlias = Union[_Frame, _Violation, _SkippedLine, HepError]
"""What `Supervisor.poll_event` gives: a frame, a violation, a skipped line, or the error
that halted the stream (returned, not raised; always the last event)."""

@final
class SupervisorAction:
    """What a `Supervisor` asks its driver to do, by `kind`:

    - `"signal"`: send `signal` to the child's process group (a step of a cancel, for
      `reason`; `next` is the step that follows if the child still runs, and the seconds
      before it, `None` after SIGKILL);
    - `"kill_group"`: the child exited: send `signal` (SIGKILL) to its group, so that
      nothing it left there outlives it;
    - `"pause_stdout"` / `"resume_stdout"`: stop / start reading stdout again (the
      consumer is behind);
    - `"close_pipes"`: the drain after the exit is over: stop reading, close both pipes.
    """

    __match_args__: ClassVar[Tuple[Literal["kind"]]]
    __hash__: ClassVar[None]  # type: ignore[assignment]
    @property
    def kind(self) -> _ActionKind: ...
    @property
    def signal(self) -> Optional[_Signals]:
        """The signal to send to the child's group (`signal` and `kill_group`), else `None`."""
    @property
    def reason(self) -> Optional[_CancelReason]:
        """Why the run is being cancelled (`signal` only)."""
    @property
    def next(self) -> Optional[Tuple[_Signals, float]]:
        """The next step of the cancel and the seconds before it (`signal` only)."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class Supervisor:
    """hep-core's supervision policy without I/O, for a driver of one child.

    Tell it what happened and when: the bytes the child wrote (`stdout`, `stderr`), a pipe's
    end (`stdout_closed`, `stderr_closed`), the exit (`exited`), a cancel request
    (`cancel`), and the time (`tick`, at `deadline()`). Then carry out `poll_action()`'s
    actions, hand `poll_event()`'s events and `poll_stderr()`'s lines to the user, and wake
    it at `deadline()`. Once the child has exited and its pipes are closed (or drained),
    `result()` is the `RunResult`.

    Times are seconds, from any fixed origin (a driver passes its monotonic clock, such as
    `time.monotonic()` or `loop.time()`), kept to the microsecond; a time earlier than one
    already given counts as that one. Durations are seconds too. Every method that takes
    `now` first handles the deadlines that passed before it, in order.
    """

    def __new__(
        cls,
        now: float,
        *,
        strict: bool = False,
        max_line_bytes: int = ...,
        limits: Optional[Limits] = None,
        timeout: Optional[float] = None,
        idle_timeout: Optional[float] = None,
        interrupt_grace: float = ...,
        terminate_grace: float = ...,
        drain: float = ...,
        stderr_tail_bytes: int = ...,
        max_stderr_line: int = ...,
        pause_at_bytes: int = ...,
    ) -> Supervisor:
        """A supervisor for a child started at `now`. The options default to the core's:
        no `timeout` nor `idle_timeout` (no frame for that long: the run is cancelled),
        `interrupt_grace` `INTERRUPT_GRACE`, `terminate_grace` `TERMINATE_GRACE`, `drain`
        `DRAIN_AFTER_EXIT`, `stderr_tail_bytes` `STDERR_TAIL_BYTES`, `max_stderr_line`
        `MAX_STDERR_LINE`, `pause_at_bytes` `PAUSE_AT_BYTES`; `strict`, `max_line_bytes` and
        `limits` are `Stream`'s. A time that is negative, not finite or past 2**52
        microseconds raises `ValueError` naming it."""
    def stdout(self, now: float, data: _Bytes) -> None:
        """Bytes (or text, as UTF-8) the child wrote on stdout."""
    def stderr(self, now: float, data: _Bytes) -> None:
        """Bytes (or text, as UTF-8) the child wrote on stderr."""
    def stdout_closed(self, now: float) -> None:
        """The child's stdout reached its end."""
    def stderr_closed(self, now: float) -> None:
        """The child's stderr reached its end."""
    def exited(self, now: float, returncode: Optional[int]) -> None:
        """The child exited (the driver reaped it); `returncode` as `Popen.returncode`
        gives it: the exit code, or -N when signal N killed it. `None`: it is gone but how
        it ended is unknown (something else reaped it); the run is judged without an exit
        code."""
    def cancel(self, now: float, reason: _CancelReason = "user", grace: Optional[float] = None) -> None:
        """Asks for the run to be cancelled. The first request sends SIGINT, then SIGTERM
        and SIGKILL after their graces while the child runs (`grace` replaces the interrupt
        grace); a later request from the user takes the next step at once (a timeout or
        idleness never hurries a cancel under way). Ignored once the child has exited."""
    def tick(self, now: float) -> None:
        """Handles every deadline up to `now` (call it with the current time when
        `deadline()` is reached)."""
    def deadline(self) -> Optional[float]:
        """When to call `tick` next (`None`: nothing waits for a time). A deadline at or
        before the latest time given means: tick now, with the current time (not with the
        deadline), e.g. after taking events resumed stdout and the idle clock restarts."""
    def poll_action(self) -> Optional[SupervisorAction]:
        """The next thing the driver must do, or `None`."""
    def poll_event(self) -> Optional[_Event]:
        """The next event of the stdout stream, or `None`: a frame, a `hep.Violation`, a
        `hep.SkippedLine`, or the `HepError` that halted the stream (returned, not raised).
        Taking one may resume stdout: look at the actions after."""
    def poll_stderr(self) -> Optional[str]:
        """The next line of the child's stderr (without its line end), as soon as it is
        complete, or `None`. A queue of its own: never behind unconsumed events."""
    def is_paused(self) -> bool:
        """Whether stdout is paused for the consumer."""
    def is_finished(self) -> bool:
        """Whether the result is known (events may still wait)."""
    def set_consumer(self, now: float, attached: bool) -> None:
        """Says whether someone takes the events as they come (`True`, the default): only
        then is stdout paused when `pause_at_bytes` of them wait. Detach (`False`) while
        nobody iterates and the user only awaits the result: stdout is never paused then
        (detaching resumes it), and the events wait up to `drop_at_bytes()`. Attaching
        again lets backpressure apply from the next read."""
    def cancelled_by(self) -> Optional[_CancelReason]:
        """Who cancelled the run (`"user"`, `"timeout"` or `"idle"`), once a cancel has
        started; else `None`."""
    def is_cancelling(self) -> bool:
        """Whether a cancel has started and the child has not exited yet."""
    def timed_out(self) -> bool:
        """Whether the timeout ran out and cancelled the run."""
    def is_stdout_open(self) -> bool:
        """Whether stdout is still open: `False` once it reached its end or the drain after
        the exit closed it (no event comes after the ones waiting)."""
    def drop_at_bytes(self) -> int:
        """Bytes of waiting events (or, in their own queue, stderr lines) past which further
        ones are counted in `notices_dropped` instead of kept: 16 × `pause_at_bytes`, at
        least `MIN_DROP_AT_BYTES`."""
    def result(self) -> Optional[_PyRunResult]:
        """The run's result (with its `supervision`), once finished; else `None`."""
    @property
    def violations(self) -> List[_Violation]:
        """The violations found so far (the first `limits.max_reports`)."""
    @property
    def skipped(self) -> List[_SkippedLine]:
        """The lines skipped so far (the first `limits.max_reports`)."""
    @property
    def halted(self) -> Optional[HepError]:
        """The error that halted the stream (strict mode, or a refused version), if any."""

# ---------------------------------------------------------------------------------------
# Bounds, sanitising, the schema

def sanitize(text: str) -> str:
    """`text` with terminal-driving characters turned into visible escapes."""

def json_schema() -> str:
    """The JSON Schema of the frames."""

def cap(text: str, limit: int) -> str:
    """`text` capped at `limit` UTF-16 units with the `…(+N chars)` suffix."""

def utf16_len(text: str) -> int:
    """Length of `text` in UTF-16 code units (the protocol's "characters")."""

def render_args(args: Union[Mapping[str, Any], str], mode: str) -> str:
    """`args_summary` for `args` (a mapping, or the JSON text of an object); `mode`:
    `"summary"` or `"full"` (else `ValueError`)."""
