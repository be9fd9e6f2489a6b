"""Checks: what a case part asserts, one thing at a time, each with its requirement.

A case part yields checks tagged MUST, SHOULD or MAY (SEMANTICS section 0), each citing the
statements it rests on (R8). Levels count MUST checks only; SHOULD and MAY findings are reported
beside them and never dropped. A check's requirement is never stronger than its case's (a SHOULD
case yields SHOULD and MAY checks) nor than the statements it cites.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance._basics.contract import REQUIREMENTS, Requirement

__all__ = ["Check", "weaker"]


def weaker(first: Requirement, second: Requirement) -> Requirement:
    """The weaker of two requirements (``MAY`` < ``SHOULD`` < ``MUST``)."""
    return max(first, second, key=REQUIREMENTS.index)


@dataclass(frozen=True)
class Check:
    """One assertion of a case part and its result.

    Attributes:
        id: stable within the part (``valid``, ``error-code entry-unknown``, ``scenario`` ...),
            so that two runs can be compared check by check.
        requirement: what is at stake: MUST counts for levels, SHOULD is advisory, MAY
            informational.
        passed: whether the runtime did what the check asserts.
        message: why it did not (empty when passed).
        detail: structured data about a failure, for reports: ``step`` (1-based),
            ``step_text``, ``line``, ``field``, ``expected``, ``actual``, ``path`` (the
            transitions taken so far), where known.
        statements: the ids of the statements the check rests on (SEMANTICS R8): its
            requirement is never stronger than theirs.
    """

    id: str
    requirement: Requirement
    passed: bool
    message: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    statements: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The check as JSON-able data."""
        data: dict[str, Any] = {
            "id": self.id,
            "requirement": self.requirement,
            "passed": self.passed,
        }
        if self.statements:
            data["statements"] = list(self.statements)
        if self.message:
            data["message"] = self.message
        if self.detail:
            data["detail"] = dict(self.detail)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Check:
        """Read a check back from :meth:`to_dict` data."""
        return cls(
            id=str(data["id"]),
            requirement=data["requirement"],
            passed=bool(data["passed"]),
            message=str(data.get("message", "")),
            detail=dict(data.get("detail") or {}),
            statements=tuple(data.get("statements", ())),
        )

    def failed_as(self, message: str) -> Check:
        """The same check, not passed, for a part that did not get to judge it."""
        return Check(self.id, self.requirement, False, message, statements=self.statements)
