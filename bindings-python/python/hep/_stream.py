"""Reading HEP: `Stream` (bytes in, frames out) and `read` (a saved stream)."""

from __future__ import annotations

import os
from typing import IO, Iterator, List, Optional, Union

from . import _hep
from ._frames import Frame
from ._hep import HepError, Limits
from ._result import RunResult, Violation

CHUNK = 64 * 1024


class Stream:
    """A live HEP stream: `feed` bytes as they arrive, get the frames they complete.

    Violations and skipped lines are collected on the object (`violations`, `skipped`);
    in strict mode the first error is raised instead, as a `HepError` subclass whose
    `frames` attribute holds the frames of that `feed` call up to the one that stopped it
    (for a violation, the offending frame is the last of them). A header naming another
    major version is refused in every mode (`UnsupportedVersionError`).

    `limits` caps what the stream keeps (default: `Limits()`, the core's caps); what a cap
    leaves out is counted in the result.
    """

    def __init__(
        self, *, strict: bool = False, max_line_bytes: int = 16 * 1024 * 1024, limits: Optional[Limits] = None
    ) -> None:
        self._core = _hep.Stream(strict=strict, max_line_bytes=max_line_bytes, limits=limits)

    def feed(self, data: Union[bytes, bytearray, memoryview, str]) -> List[Frame]:
        """The frames completed by `data`."""
        return self._core.feed(data)

    def end_input(self) -> List[Frame]:
        """Marks the end of input (a partial last line is reported as skipped)."""
        return self._core.end_input()

    @property
    def violations(self) -> List[Violation]:
        """The protocol violations found so far."""
        return [Violation._from(v) for v in self._core.violations()]

    @property
    def halted(self) -> Optional[HepError]:
        """The error that stopped the stream, if it has stopped."""
        return self._core.halted()

    @property
    def skipped(self) -> List[HepError]:
        """The lines skipped so far, as errors naming line, column and kind."""
        return self._core.skipped()

    def finish(self, exit_code: Optional[int] = None) -> RunResult:
        """Ends the stream; the verdict weighs the harness's `exit_code` when given."""
        return RunResult(self._core.finish(exit_code))


def read(
    source: Union[str, "os.PathLike[str]", IO[bytes]], *, strict: bool = False, limits: Optional[Limits] = None
) -> Iterator[Frame]:
    """Iterates the frames of a saved stream (a path or a binary file object).

    Malformed lines are skipped (see `Stream` for strict mode and `limits`)."""
    stream = Stream(strict=strict, limits=limits)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as file:
            yield from _frames(stream, file)
    else:
        yield from _frames(stream, source)


def _frames(stream: Stream, source: IO[bytes]) -> Iterator[Frame]:
    """The frames of `source`, read in chunks into `stream`."""
    frames = FrameSource(stream)
    while True:
        chunk = source.read(CHUNK)
        yield from frames.take(chunk or None)
        if not chunk:
            return


class FrameSource:
    """Frames of a stream for iteration. When strict mode stops the stream, the frames
    before the error come out first, and the error is raised on the next call."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.error: Optional[HepError] = None

    def take(self, chunk: Optional[bytes]) -> List[Frame]:
        """The frames completed by `chunk` (`None`: the end of input)."""
        if self.error is not None:
            raise self.error
        try:
            return self.stream.feed(chunk) if chunk is not None else self.stream.end_input()
        except HepError as error:
            self.error = error
            before: List[Frame] = list(getattr(error, "frames", []))
            if before:
                return before
            raise
