"""The catalog's own checks (``ppconf cases check``, and a test).

Every case file is well formed; ids and descriptions are unique; the statement registry is
honest (keywords its wording bears, one classification per sentence, and, with the source texts,
quotes that are in them: :mod:`conformance._catalog.registry_check`); every check cites
statements of the registry and is no stronger than they are (R8), its MUST given by a testable
statement and never by a rationale or an illustration; every pack a case runs is itself valid;
every diagnostic code, rejection code and SEMANTICS row is exercised; and the reference
interpreter passes every case.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import reference
from conformance._basics.areas import AREAS
from conformance._basics.contract import (
    COMPOSITION_ERROR_CODES,
    COMPOSITION_RULES,
    COMPOSITION_RUN_CODES,
    COMPOSITION_WARNING_CODES,
    NEWER_ERROR_CODES,
    NEWER_WARNING_CODES,
    REJECTION_CODES,
    REQUIREMENTS,
    RULES,
    RULES_COVERED_ELSEWHERE,
    START_REJECTION_CODES,
    WORKFLOW_ERROR_CODES,
    WORKFLOW_WARNING_CODES,
)
from conformance._basics.errors import CaseError
from conformance._catalog.cases import Case, case_files, check_unique, load_case
from conformance._catalog.registry_check import registry_problems
from conformance._catalog.statements import Registry, load_registry
from conformance._judging.checks import Check
from conformance._judging.runner import Runner, planned_checks
from conformance._runtime.reference_adapter import ReferenceAdapter

__all__ = ["check_catalog", "citation_problems", "coverage_problems"]


def check_catalog(
    root: Path, *, coverage: bool = True, texts: Path | None = None
) -> tuple[list[Case], list[str]]:
    """Run every catalog check on the folder ``root``; return the cases and the problems.

    Arguments:
        root: the catalog folder.
        coverage: also require every code and rule to be covered (off for partial catalogs).
        texts: a folder of the sources' texts to compare every quote with (``None``: quotes
            are not compared).
    """
    problems: list[str] = []
    cases: list[Case] = []
    files = case_files(root)
    if not files:
        return [], [f"{root}: no case files (*.yaml outside packs/ folders)"]
    for path in files:
        try:
            cases.append(load_case(path, root))
        except CaseError as error:
            problems.append(str(error))
    try:
        check_unique(cases)
    except CaseError as error:
        problems.append(str(error))
    problems.extend(_invalid_packs(cases))
    try:
        registry = load_registry(root)
    except CaseError as error:
        problems.append(str(error))
    else:
        problems.extend(registry_problems(registry, texts))
        problems.extend(citation_problems(cases, registry))
    if coverage:
        problems.extend(coverage_problems(cases))
    runner = Runner(ReferenceAdapter())
    for case in cases:
        for part in runner.run(case).failures():
            problems.append(f"the reference does not pass {case.id} [{part.part}]: {part.message}")
    return cases, problems


def citation_problems(cases: Sequence[Case], registry: Registry) -> list[str]:
    """Every check cites statements that exist, and none is stronger than what it cites (R8):
    a case's requirement is at most the strongest requirement its statements give (for its
    validity check, an RFC-named warning gives MUST: R10), and the kit's codes it names are
    in the kit's vocabulary."""
    problems = []
    for case in cases:
        for part in case.parts:
            for check in planned_checks(case, part):
                unknown = [i for i in check.statements if i not in registry]
                if unknown:
                    problems.append(
                        f"{case.where('/statements')}: {case.id} [{part}] check {check.id!r} "
                        f"cites {', '.join(unknown)}, which the statement registry does not "
                        "hold: fix the id, or add the statement under statements/"
                    )
                    continue
                if not check.statements:
                    problems.append(
                        f"{case.where('/statements')}: {case.id} [{part}] check {check.id!r} "
                        "cites no statement: list the statements it rests on"
                    )
                    continue
                validity = check.id == "valid"
                given = registry.derived(check.statements, validity=validity)
                assert given is not None
                if check.requirement == "MUST":
                    problems.extend(_must_problems(case, part, check, registry, validity))
                if REQUIREMENTS.index(check.requirement) < REQUIREMENTS.index(given):
                    cited = ", ".join(
                        f"{i} ({registry.by_id[i].keyword})" for i in check.statements
                    )
                    problems.append(
                        f"{case.where('/requirement')}: {case.id} [{part}] check {check.id!r} is "
                        f"{check.requirement}, but what it cites gives at most {given}: "
                        f"{cited}; cite the statement that requires it, or make the case "
                        f"{given}"
                    )
    return problems


NEVER_MUST = frozenset(("rationale", "illustration"))
"""Kinds of statement a MUST check may not cite at all: why a definition is so, or an instance
of it, is never what a runtime must do (R17)."""


def _must_problems(
    case: Case, part: str, check: Check, registry: Registry, validity: bool
) -> list[str]:
    """A MUST check citing a rationale or an illustration, or whose MUST comes only from
    statements no case can test."""
    cited = [registry.by_id[i] for i in check.statements]
    where = f"{case.where('/statements')}: {case.id} [{part}] check {check.id!r}"
    problems = []
    informative = [s.id for s in cited if s.keyword in NEVER_MUST]
    if informative:
        problems.append(
            f"{where} is MUST and cites {', '.join(informative)}, a rationale or an "
            "illustration, which never gives MUST: cite the definition or rule it explains"
        )
    givers = [s for s in cited if s.requirement(validity=validity) == "MUST"]
    if givers and not any(s.testable for s in givers):
        problems.append(
            f"{where} is MUST only by {', '.join(s.id for s in givers)}, which the registry "
            "marks untestable: cite the testable statement that requires it, or lower the case"
        )
    return problems


def _invalid_packs(cases: Sequence[Case]) -> list[str]:
    """Cases that run a pack must carry a valid one, unless a refusal is the point."""
    problems = []
    for case in cases:
        if case.validation is not None or case.load is False or case.pack.document is None:
            continue
        if any(s.start_rejection for s in case.scenarios):
            continue
        errors = [d for d in reference.validate(case.pack.document) if d.severity == "error"]
        if errors:
            problems.append(
                f"{case.where('/pack')}: {case.id} runs an invalid pack: {errors[0]}"
                + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
            )
    return problems


def coverage_problems(cases: Sequence[Case]) -> list[str]:
    """Codes and SEMANTICS rows that no case exercises."""
    problems = []
    exercised: set[str] = set()
    covered_rules: set[str] = set()
    for case in cases:
        exercised |= case.codes
        covered_rules |= set(case.rules)
    for kind, codes in (
        ("diagnostic code", WORKFLOW_ERROR_CODES + WORKFLOW_WARNING_CODES),
        ("composition diagnostic code", COMPOSITION_ERROR_CODES + COMPOSITION_WARNING_CODES),
        ("composition run code", COMPOSITION_RUN_CODES),
        ("diagnostic code", NEWER_ERROR_CODES + NEWER_WARNING_CODES),
        ("rejection code", REJECTION_CODES + START_REJECTION_CODES),
    ):
        for code in codes:
            if code not in exercised:
                problems.append(f"no case exercises the {kind} {code!r}")
    for area in AREAS:
        if not any(c.area == area and c.level == 0 and c.load for c in cases):
            problems.append(f"no Level 0 case loads a pack carrying {area} fields")
    for rule in RULES + COMPOSITION_RULES:
        if rule.id not in covered_rules and rule.id not in RULES_COVERED_ELSEWHERE:
            problems.append(
                f"no case covers SEMANTICS row {rule.id} ({rule.requirement}: {rule.summary})"
            )
    return problems
