"""Statement coverage: which statements of the registry the catalog's checks test, and how hard.

For each statement: the checks citing it, by requirement. A testable statement is *covered*
when some check citing it carries the statement's own requirement (a MUST statement by a MUST
check), *partial* when only weaker checks cite it, *not covered* when none does; an untestable
one says why. Spec editors read it source by source, testable MUST statements without a case
first (``ppconf coverage``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from conformance._basics.contract import REQUIREMENTS, Requirement
from conformance._catalog.cases import Case
from conformance._catalog.statements import Registry, Source, Statement
from conformance._judging.runner import planned_checks

Status = Literal["covered", "partial", "not covered", "untestable"]
STATUSES: tuple[Status, ...] = ("not covered", "partial", "covered", "untestable")
"""In the order a spec editor reads them: what needs a case first."""


@dataclass(frozen=True)
class Citation:
    """One check citing a statement: the case, the part, the check and its requirement."""

    case: str
    part: str
    check: str
    requirement: Requirement
    file: str


@dataclass(frozen=True)
class StatementCoverage:
    """A statement and the checks citing it."""

    statement: Statement
    citations: tuple[Citation, ...]

    @property
    def status(self) -> Status:
        if not self.statement.testable:
            return "untestable"
        if not self.citations:
            return "not covered"
        own = REQUIREMENTS.index(self.statement.requirement(validity=True))
        strongest = min(REQUIREMENTS.index(c.requirement) for c in self.citations)
        return "covered" if strongest <= own else "partial"

    @property
    def cases(self) -> tuple[str, ...]:
        """The ids of the cases citing it, once each, in catalog order."""
        return tuple(dict.fromkeys(c.case for c in self.citations))

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.statement.to_dict(),
            "status": self.status,
            "citations": [
                {"case": c.case, "part": c.part, "check": c.check, "requirement": c.requirement}
                for c in self.citations
            ],
        }


@dataclass(frozen=True)
class SourceCoverage:
    """The coverage of one source's statements."""

    source: Source
    statements: tuple[StatementCoverage, ...]
    counts: dict[Status, int] = field(default_factory=dict)
    must: tuple[int, int] = (0, 0)
    """(covered, testable) statements that give MUST."""

    @property
    def must_percent(self) -> float | None:
        covered, testable = self.must
        return 100.0 * covered / testable if testable else None

    def gaps(self) -> list[StatementCoverage]:
        """Testable MUST statements no check tests at MUST: what a spec editor adds first."""
        return [
            s
            for s in self.statements
            if s.status in ("not covered", "partial") and s.statement.requirement() == "MUST"
        ]

    def to_dict(self) -> dict[str, Any]:
        covered, testable = self.must
        return {
            "source": self.source.name,
            "title": self.source.title,
            "revision": self.source.revision,
            "counts": {status: self.counts.get(status, 0) for status in STATUSES},
            "must": {"covered": covered, "testable": testable, "percent": self.must_percent},
            "statements": [s.to_dict() for s in self.statements],
        }


def citations_of(cases: Iterable[Case]) -> dict[str, list[Citation]]:
    """Every check of every case part, by the statement ids it cites."""
    found: dict[str, list[Citation]] = {}
    for case in cases:
        for part in case.parts:
            for check in planned_checks(case, part):
                for statement_id in check.statements:
                    found.setdefault(statement_id, []).append(
                        Citation(case.id, part, check.id, check.requirement, case.source)
                    )
    return found


def coverage(
    registry: Registry, cases: Sequence[Case], sources: Sequence[str] = ()
) -> list[SourceCoverage]:
    """The coverage of each source of the registry (those named in ``sources``, else all but
    the kit's own vocabulary), in the registry's order; the statements of a source that several
    files hold (a spec editor's draft beside the built-in registry) are counted together."""
    cited = citations_of(cases)
    result = []
    for name in merged_sources(registry):
        if (sources and name not in sources) or (not sources and name == "kit"):
            continue
        files = [s for s in registry.sources if s.name == name]
        source = files[0]
        rows = tuple(
            StatementCoverage(statement, tuple(cited.get(statement.id, ())))
            for each in files
            for statement in each.statements
        )
        counts: dict[Status, int] = dict.fromkeys(STATUSES, 0)
        for row in rows:
            counts[row.status] += 1
        testable_must = [
            r for r in rows if r.statement.testable and r.statement.requirement() == "MUST"
        ]
        covered = sum(1 for r in testable_must if r.status == "covered")
        result.append(SourceCoverage(source, rows, counts, (covered, len(testable_must))))
    return result


def merged_sources(registry: Registry) -> list[str]:
    """The source names of the registry, once each, in order (a catalog may add statements of a
    source in a file of its own)."""
    return list(dict.fromkeys(source.name for source in registry.sources))


__all__ = [
    "STATUSES",
    "Citation",
    "SourceCoverage",
    "StatementCoverage",
    "citations_of",
    "coverage",
    "merged_sources",
]
