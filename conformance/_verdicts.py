"""From case results to the verdicts levels are computed from."""

from __future__ import annotations

from collections.abc import Iterable

from conformance._levels import CaseVerdict
from conformance._runner import CaseResult


def verdicts(results: Iterable[CaseResult]) -> list[CaseVerdict]:
    """One verdict per case: passed only if every part passed."""
    return [
        CaseVerdict(
            id=r.case.id,
            area=r.case.area,
            level=r.case.level,
            requirement=r.case.requirement,
            passed=r.passed,
            message=next((p.message for p in r.failures()), ""),
        )
        for r in results
    ]
