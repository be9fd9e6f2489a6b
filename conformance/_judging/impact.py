"""What a revision of the spec would do to runtimes already measured, from their stored reports.

A check's requirement is derived from the statements it cites (R8): a revision that changes a
statement's keyword changes the requirement of every check resting on it. Here each stored
check is re-weighed with the revised keywords and each area's level re-judged from the stored
outcomes, nothing run again: "if rule 2 became a SHOULD, this runtime would reach control
Level 2".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from conformance._basics.contract import REQUIREMENTS, Requirement
from conformance._catalog.revision import Revision
from conformance._catalog.statements import Registry
from conformance._judging.checks import Check, weaker
from conformance._judging.levels import compute_levels, describe_level
from conformance._judging.records import PartRecord, Report, case_verdicts


@dataclass(frozen=True)
class CaseImpact:
    """A case whose checks' requirement the revision changes: from ``was`` to ``becomes``,
    and whether those checks passed when the report was made."""

    case: str
    was: Requirement
    becomes: Requirement
    outcome: str


@dataclass(frozen=True)
class AreaImpact:
    """An area's level before and after the revision (``describe_level``: 2, below 0, ...)."""

    area: str
    was: str
    becomes: str

    @property
    def moved(self) -> bool:
        return self.was != self.becomes


@dataclass(frozen=True)
class Impact:
    """What the revision does to one stored report."""

    report: str
    runtime: str
    cases: tuple[CaseImpact, ...]
    levels: tuple[AreaImpact, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "report": self.report,
            "runtime": self.runtime,
            "cases": [
                {"case": c.case, "was": c.was, "becomes": c.becomes, "outcome": c.outcome}
                for c in self.cases
            ],
            "levels": [{"area": a.area, "was": a.was, "becomes": a.becomes} for a in self.levels],
        }


def requirements_after(revision: Revision) -> dict[str, Requirement | None]:
    """Statement id -> the requirement it gives after the revision (``None``: removed)."""
    after: dict[str, Requirement | None] = {}
    for change in revision.stale:
        assert change.statement is not None
        after[change.statement.id] = None if change.kind == "removed" else change.becomes
    return after


def _reweighed(
    check: Check, after: Mapping[str, Requirement | None], registry: Registry
) -> Requirement:
    if not any(i in after for i in check.statements):
        return check.requirement
    given = [
        after[i] if i in after else (s.requirement() if (s := registry.get(i)) else None)
        for i in check.statements
    ]
    kept = [g for g in given if g is not None]
    # A check resting only on removed statements rests on nothing: informational.
    new: Requirement = min(kept, key=REQUIREMENTS.index) if kept else "MAY"
    old = registry.derived(check.statements)
    # A check written weaker than its statements (a pick of the kit's) stays at most as strong.
    return new if check.requirement == old else weaker(check.requirement, new)


def impact_of(
    report: Report, name: str, after: Mapping[str, Requirement | None], registry: Registry
) -> Impact:
    """Re-weigh the checks of ``report`` (read from the file ``name``) with the requirements
    ``after`` a revision, and re-judge its levels from the stored outcomes."""
    changed: dict[tuple[str, Requirement, Requirement], list[bool]] = {}
    records: list[PartRecord] = []
    for record in report.records:
        checks = []
        for check in record.checks:
            becomes = _reweighed(check, after, registry)
            if becomes != check.requirement:
                key = (record.case, check.requirement, becomes)
                changed.setdefault(key, []).append(check.passed)
                check = replace(check, requirement=becomes)  # noqa: PLW2901 (the re-weighed one)
            checks.append(check)
        records.append(replace(record, checks=tuple(checks)))
    before = report.levels()
    header = report.header
    levels = compute_levels(
        case_verdicts(records),
        claims=header.capabilities.claims,
        spec_version=header.selection.spec_version,
        partial=report.partial,
    )
    areas = tuple(
        AreaImpact(area.area, describe_level(area.level), describe_level(now.level))
        for area in before.areas
        if (now := levels.area(area.area)) is not None
    )
    capabilities = header.capabilities
    runtime = f"{capabilities.name} {capabilities.version}".strip() or header.adapter
    cases = tuple(
        CaseImpact(case, was, becomes, "passed" if all(results) else "failed")
        for (case, was, becomes), results in sorted(changed.items())
    )
    return Impact(name, runtime, cases, areas)


__all__ = ["AreaImpact", "CaseImpact", "Impact", "impact_of", "requirements_after"]
