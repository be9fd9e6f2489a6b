"""The errors the reference interpreter raises, each carrying enough context to act on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class InterpreterError(Exception):
    """Base class of every error raised on purpose by :mod:`reference`."""


@dataclass(frozen=True)
class Location:
    """Where in a document something is: file, 1-based line and column, JSON pointer."""

    file: str | None = None
    line: int | None = None
    column: int | None = None
    pointer: str | None = None

    def __str__(self) -> str:
        parts = [self.file or "<string>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        text = ":".join(parts)
        if self.pointer is not None:
            text += f" at {self.pointer or '/'}"
        return text


class LocatedError(Exception):
    """An error about a place in a document: what is wrong, where, and how to fix it.

    Attributes:
        message: what is wrong, in one sentence.
        location: where (file, line, column, JSON pointer), as far as known.
        hint: how to fix it.
    """

    def __init__(self, message: str, location: Location, hint: str = "") -> None:
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


class PackLoadError(LocatedError, InterpreterError):
    """A document could not be read as a pack (bad syntax, hostile shape, wrong root type)."""


class PackInvalidError(InterpreterError):
    """A session was asked for a pack that has validation errors.

    Attributes:
        diagnostics: the validator's errors (warnings are left out).
    """

    def __init__(self, diagnostics: list[Any], message: str = "") -> None:
        self.diagnostics = diagnostics
        if not message:
            lines = [f"  {d}" for d in diagnostics]
            message = "the pack has validation errors:\n" + "\n".join(lines)
        super().__init__(message)


class Rejection(InterpreterError):
    """A session refused an operation; nothing about the session changed except its status.

    Attributes:
        code: the SEMANTICS rejection code, e.g. ``unknown-event``.
        message: a sentence for people.
        limit: for ``budget-exhausted``, the budget field that was hit.
    """

    def __init__(self, code: str, message: str, limit: str | None = None) -> None:
        self.code = code
        self.message = message
        self.limit = limit
        super().__init__(f"{code}: {message}")


class SnapshotError(InterpreterError):
    """A snapshot does not fit the workflow it is restored into."""
