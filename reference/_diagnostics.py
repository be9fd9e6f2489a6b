"""What the validator reports: one :class:`Diagnostic` per finding, in one stable order."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    """One finding of the validator.

    Attributes:
        code: the stable SEMANTICS code, e.g. ``entry-unknown``.
        severity: ``error`` (the pack is invalid) or ``warning`` (it is not).
        path: JSON pointer to the value the finding is about.
        message: a sentence for people; compare codes and paths, never messages.
    """

    code: str
    severity: Severity
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity} {self.code} at {self.path or '/'}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        """Return the diagnostic as plain JSON-able data."""
        return {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
        }


def sort_key(diagnostic: Diagnostic) -> tuple[int, str, str, str]:
    """Errors first, then by path, code and message: the order every tool prints."""
    return (diagnostic.severity != "error", diagnostic.path, diagnostic.code, diagnostic.message)


def is_valid(diagnostics: Iterable[Diagnostic]) -> bool:
    """Whether a list of diagnostics has no error (warnings never make a pack invalid)."""
    return not any(d.severity == "error" for d in diagnostics)
