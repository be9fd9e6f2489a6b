"""Breaker coverage: for each schema constraint, which of its standard breakers a MUST check
catches (SEMANTICS R16: covered means every way to break it is caught).

A constraint statement (``keyword: schema`` of a published schema or of an RFC's schema
fragment) has standard breakers (:mod:`conformance._catalog.breakers`), derived from its quote.
A breaker is *exercised* when a generated case applying it cites the statement in a check at
MUST; the constraint is *fully covered* when every breaker is. Written cases citing the
statement are counted beside, but say no breaker. Per source and area: the share of
constraints fully covered. Constraints of parts the catalog does not test (the pack root,
prompts, the template engine) are counted apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance._catalog.breakers import standard_breakers
from conformance._catalog.cases import Case
from conformance._catalog.constraints import constraint_name, constraint_value, statement_area
from conformance._catalog.statements import Registry, Statement
from conformance._judging.runner import planned_checks

__all__ = [
    "ConstraintBreakers",
    "SourceBreakers",
    "breaker_coverage",
]


@dataclass(frozen=True)
class ConstraintBreakers:
    """One constraint statement: its standard breakers, and those a MUST check catches."""

    statement: Statement
    constraint: str
    area: str | None
    """``None``: a part of the pack the catalog does not test (in that source's version)."""
    keyword: str
    breakers: tuple[str, ...]
    exercised: tuple[str, ...]
    written: tuple[str, ...]
    """Written (not generated) cases citing it at MUST."""
    differs: bool = False
    """An RFC fragment no published schema states alike (RFC 0005's ``persistence`` enum, where
    1.4.0 to 1.9.0 leave an open string): its own breakers are MAY (R16), and the reference
    follows the published schema, so they are listed apart, not counted."""

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(b for b in self.breakers if b not in self.exercised)

    @property
    def full(self) -> bool:
        return not self.missing

    @property
    def counted(self) -> bool:
        """Whether it counts in its source's share: a catalog part, stated as published."""
        return self.area is not None and not self.apart

    @property
    def apart(self) -> bool:
        """An RFC fragment stated otherwise by the published schemas, with breakers of its own
        that no MUST check catches (and none may: R16 makes them MAY)."""
        return self.differs and bool(self.missing)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.statement.id,
            "constraint": self.constraint,
            "area": self.area,
            "keyword": self.keyword,
            "breakers": list(self.breakers),
            "exercised": list(self.exercised),
            "missing": list(self.missing),
            "written_cases": list(self.written),
            "differs_from_published": self.differs,
        }


@dataclass(frozen=True)
class SourceBreakers:
    """The constraints of one source, and per area how many are fully covered."""

    source: str
    constraints: tuple[ConstraintBreakers, ...]

    def areas(self) -> dict[str, tuple[int, int]]:
        """Area -> (fully covered, constraints), areas in name order, ``-`` for the parts the
        catalog does not test."""
        found: dict[str, list[int]] = {}
        for row in self.constraints:
            if row.apart:
                continue
            counts = found.setdefault(row.area or "-", [0, 0])
            counts[0] += row.full
            counts[1] += 1
        return {area: (c[0], c[1]) for area, c in sorted(found.items())}

    @property
    def full(self) -> tuple[int, int]:
        """(fully covered, constraints) over the catalog's parts."""
        rows = [r for r in self.constraints if r.counted]
        return sum(r.full for r in rows), len(rows)

    def to_dict(self) -> dict[str, Any]:
        full, total = self.full
        return {
            "source": self.source,
            "full": full,
            "constraints": total,
            "percent": 100.0 * full / total if total else None,
            "areas": [
                {"area": area, "full": f, "constraints": t} for area, (f, t) in self.areas().items()
            ],
            "statements": [r.to_dict() for r in self.constraints],
        }


def breaker_coverage(
    registry: Registry, cases: Sequence[Case], sources: Sequence[str] = ()
) -> list[SourceBreakers]:
    """The breaker coverage of each source with schema constraints (those named in
    ``sources``, else all), in the registry's order."""
    exercised, written = _caught(cases)
    published = {
        (name, read)
        for s in registry.statements
        if s.source.startswith("schema ")
        and (name := constraint_name(s)) is not None
        and (read := _frozen(constraint_value(s))) is not None
    }
    result: list[SourceBreakers] = []
    for name in dict.fromkeys(s.name for s in registry.sources):
        if sources and name not in sources:
            continue
        rows = []
        for source in (s for s in registry.sources if s.name == name):
            for statement in source.statements:
                row = _row(statement, exercised, written, published)
                if row is not None:
                    rows.append(row)
        if rows:
            result.append(SourceBreakers(name, tuple(rows)))
    return result


def _row(
    statement: Statement,
    exercised: Mapping[str, set[str]],
    written: Mapping[str, list[str]],
    published: set[tuple[str, str]],
) -> ConstraintBreakers | None:
    if not statement.testable:
        return None
    name = constraint_name(statement)
    read = constraint_value(statement)
    if name is None or read is None:
        return None
    keyword, value = read
    breakers = standard_breakers(keyword, value)
    if not breakers:
        return None
    caught = exercised.get(statement.id, set())
    return ConstraintBreakers(
        statement,
        name,
        statement_area(statement),
        keyword,
        breakers,
        tuple(b for b in breakers if b in caught),
        tuple(dict.fromkeys(written.get(statement.id, ()))),
        statement.source.startswith("RFC ") and (name, _frozen(read)) not in published,
    )


def _frozen(read: tuple[str, Any] | None) -> str | None:
    """A constraint's keyword and value as one comparable string."""
    return None if read is None else json.dumps(read, sort_keys=True)


def _caught(cases: Sequence[Case]) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """Statement id -> the breakers generated cases catch at MUST citing it; and -> the
    written cases citing it at MUST."""
    exercised: dict[str, set[str]] = {}
    written: dict[str, list[str]] = {}
    for case in cases:
        for part in case.parts:
            for check in planned_checks(case, part):
                if check.requirement != "MUST":
                    continue
                for statement_id in check.statements:
                    if case.generated is not None:
                        exercised.setdefault(statement_id, set()).add(case.generated.breaker)
                    else:
                        written.setdefault(statement_id, []).append(case.id)
    return exercised, written
