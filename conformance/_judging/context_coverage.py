"""Context coverage: in which of its contexts each execution statement is tested at MUST (R16).

A testable MUST statement that some scenario's MUST check cites is an *execution statement*;
the context table (``cases/statements/contexts/``) says in which contexts it applies and why
the other dimensions do not. A statement is *fully covered* when a MUST check citing it
exercises each context it applies in (one context at a time, not every combination: R16 names
the contexts one by one, and the one combination it names, the budget kinds together, is a
context of its own, ``budget:all``); *missing*
lists those no MUST check exercises; *undeclared* is an execution statement the table does not
list, which is a gap of the table itself. Spec editors read it beside the citation coverage of
:mod:`conformance._judging.coverage` (``ppconf coverage``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from conformance._catalog.cases import PART_NAMES, Case
from conformance._catalog.contexts import ContextTable, StatementContexts
from conformance._catalog.exercised import part_contexts
from conformance._catalog.statements import Registry, Statement
from conformance._judging.runner import planned_checks

__all__ = [
    "CONTEXT_STATUSES",
    "ContextCoverage",
    "ContextTotals",
    "context_coverage",
    "context_totals",
    "exercised_contexts",
]

ContextStatus = Literal["undeclared", "missing", "full"]
CONTEXT_STATUSES: tuple[ContextStatus, ...] = ("undeclared", "missing", "full")
"""In the order a spec editor reads them: what needs work first."""


@dataclass(frozen=True)
class ContextCoverage:
    """One execution statement: its contexts, and those its MUST checks exercise.

    Attributes:
        statement: the statement.
        entry: its row of the context table (``None``: the table does not list it).
        exercised: context -> the cases whose MUST checks citing it exercise that context.
        areas: the areas of the cases citing it at MUST.
    """

    statement: Statement
    entry: StatementContexts | None
    exercised: Mapping[str, tuple[str, ...]]
    areas: tuple[str, ...]

    @property
    def required(self) -> tuple[str, ...]:
        return () if self.entry is None else self.entry.required

    @property
    def missing(self) -> tuple[str, ...]:
        """The contexts it applies in that no MUST check citing it exercises."""
        return tuple(c for c in self.required if c not in self.exercised)

    @property
    def status(self) -> ContextStatus:
        if self.entry is None:
            return "undeclared"
        return "missing" if self.missing else "full"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.statement.id,
            "source": self.statement.source,
            "quote": self.statement.quote,
            "status": self.status,
            "family": None if self.entry is None else self.entry.family,
            "areas": list(self.areas),
            "required": list(self.required),
            "missing": list(self.missing),
            "exercised": {
                context: list(cases) for context, cases in sorted(self.exercised.items())
            },
            "not_applicable": {} if self.entry is None else dict(self.entry.not_applicable),
        }


@dataclass(frozen=True)
class ContextTotals:
    """The share of execution statements fully covered in their contexts, in one group (a
    source or an area)."""

    name: str
    full: int
    total: int

    @property
    def percent(self) -> float | None:
        return 100.0 * self.full / self.total if self.total else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "full": self.full,
            "total": self.total,
            "percent": self.percent,
        }


def exercised_contexts(
    cases: Iterable[Case],
) -> tuple[dict[str, dict[str, list[str]]], dict[str, set[str]], set[str]]:
    """For each statement a MUST check cites: context -> the ids of the cases exercising it;
    the areas citing it at MUST; and the statements a scenario's MUST check cites."""
    found: dict[str, dict[str, list[str]]] = {}
    areas: dict[str, set[str]] = {}
    in_scenarios: set[str] = set()
    for case in cases:
        for part in case.parts:
            must = {
                statement
                for check in planned_checks(case, part)
                if check.requirement == "MUST"
                for statement in check.statements
            }
            if not must:
                continue
            contexts = part_contexts(case, part)
            for statement in must:
                row = found.setdefault(statement, {})
                areas.setdefault(statement, set()).add(case.area)
                if part not in PART_NAMES:
                    in_scenarios.add(statement)
                for context in contexts:
                    cited = row.setdefault(context, [])
                    if case.id not in cited:
                        cited.append(case.id)
    return found, areas, in_scenarios


def context_coverage(
    registry: Registry, cases: Sequence[Case], table: ContextTable, sources: Sequence[str] = ()
) -> list[ContextCoverage]:
    """Every execution statement of the RFCs (those of ``sources`` when given), and every
    testable MUST statement the context table lists, with the contexts its MUST checks
    exercise; in registry order."""
    found, areas, in_scenarios = exercised_contexts(cases)
    rows = []
    for source in registry.sources:
        if sources and source.name not in sources:
            continue
        for statement in source.statements:
            if not statement.testable or statement.requirement() != "MUST":
                continue  # contexts are asked of MUST checks only (R16)
            listed = table.get(statement.id)
            execution = statement.source.startswith("RFC ") and statement.id in in_scenarios
            if listed is None and not execution:
                continue
            exercised = {c: tuple(ids) for c, ids in found.get(statement.id, {}).items()}
            rows.append(
                ContextCoverage(
                    statement, listed, exercised, tuple(sorted(areas.get(statement.id, ())))
                )
            )
    return rows


def context_totals(
    rows: Sequence[ContextCoverage],
) -> tuple[list[ContextTotals], list[ContextTotals]]:
    """The share fully covered per source (registry order) and per area (sorted); a statement
    cited by cases of several areas counts in each."""
    by_source: dict[str, list[bool]] = {}
    by_area: dict[str, list[bool]] = {}
    for row in rows:
        full = row.status == "full"
        by_source.setdefault(row.statement.source, []).append(full)
        for area in row.areas:
            by_area.setdefault(area, []).append(full)
    return (
        [ContextTotals(name, sum(v), len(v)) for name, v in by_source.items()],
        [ContextTotals(name, sum(v), len(v)) for name, v in sorted(by_area.items())],
    )
