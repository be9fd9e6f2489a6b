"""The catalog against the reference interpreter: every case passes, and the catalog is whole."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance._basics.contract import (
    BEYOND_SEMANTICS,
    COMPOSITION_ERROR_CODES,
    COMPOSITION_RULES,
    COMPOSITION_RUN_CODES,
    COMPOSITION_WARNING_CODES,
    KIT_CODES,
    NEWER_ERROR_CODES,
    NEWER_WARNING_CODES,
    REJECTION_CODES,
    RFC_WARNINGS,
    RULES,
    START_REJECTION_CODES,
    WORKFLOW_ERROR_CODES,
    WORKFLOW_WARNING_CODES,
)
from conformance._basics.resources import catalog_root
from conformance._catalog.cases import load_catalog
from conformance._judging.catalog_check import check_catalog, coverage_problems
from conformance._judging.runner import Runner
from conformance._runtime.reference_adapter import ReferenceAdapter

CATALOG = load_catalog()
SEMANTICS = Path(__file__).resolve().parents[2].parent / "shared" / "SEMANTICS.md"


@pytest.fixture(scope="module")
def runner() -> Runner:
    return Runner(ReferenceAdapter(), timeout=None)


@pytest.mark.parametrize("case", CATALOG.cases, ids=lambda case: case.id)
def test_the_reference_passes(case, runner) -> None:
    result = runner.run(case)
    assert [(p.part, p.outcome, p.message) for p in result.failures()] == []
    # Every check, the weaker ones too: a strict run counts them all.
    assert [(part, c.id, c.message) for part, c in result.findings()] == []


def test_catalog_size() -> None:
    by_area = {
        area: sum(c.area == area for c in CATALOG.cases)
        for area in ("workflow", "loops", "compositions")
    }
    assert by_area["workflow"] + by_area["loops"] >= 150, by_area
    assert by_area["compositions"] >= 120, by_area


def test_catalog_checks_pass() -> None:
    cases, problems = check_catalog(catalog_root())
    assert problems == []
    assert len(cases) == len(CATALOG.cases)


def test_coverage_check_notices_a_missing_code() -> None:
    without = [c for c in CATALOG.cases if "redirect-cycle" not in c.codes]
    assert any("'redirect-cycle'" in p for p in coverage_problems(without))


def test_every_case_declares_rules_known_to_the_contract() -> None:
    known = {r.id for r in RULES + COMPOSITION_RULES} | set(
        WORKFLOW_ERROR_CODES
        + WORKFLOW_WARNING_CODES
        + REJECTION_CODES
        + COMPOSITION_ERROR_CODES
        + COMPOSITION_WARNING_CODES
        + COMPOSITION_RUN_CODES
        + KIT_CODES
        + NEWER_ERROR_CODES
        + NEWER_WARNING_CODES
        + START_REJECTION_CODES
    )
    unknown = {(c.id, r) for c in CATALOG.cases for r in c.rules if r not in known}
    assert unknown == set()


def test_requirements_follow_the_contract() -> None:
    """A case exercising only MAY rows is not MUST; every RFC-named warning has a MUST case
    whose pack, carrying only that warning's condition, must stay valid (R10)."""
    requirement = {r.id: r.requirement for r in RULES + COMPOSITION_RULES}
    valid_at_must: set[str] = set()
    for case in CATALOG.cases:
        rows = [r for r in case.rules if r in requirement]
        if rows and all(requirement[r] == "MAY" for r in rows):
            assert case.requirement == "MAY", case.id
        validation = case.validation
        if validation and validation.valid and case.requirement == "MUST":
            valid_at_must.update(code for ref in validation.warnings for code in ref.codes)
    assert set(RFC_WARNINGS) <= valid_at_must, sorted(set(RFC_WARNINGS) - valid_at_must)


@pytest.mark.skipif(not SEMANTICS.is_file(), reason="../shared/SEMANTICS.md is not present")
def test_contract_matches_semantics() -> None:
    """The kit's table of rows and codes is the one SEMANTICS.md gives."""
    text = SEMANTICS.read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)
    rows_1_3 = "".join(s for s in sections if s[:2] in ("1.", "2.", "3.", "6."))
    # The last cell holds the requirement, sometimes split ("host events MUST; agent ...
    # SHOULD"): the first word of it is the row's own.
    cells = re.findall(r"^\| (L\d+|X\d+) \|.*\|([^|]*)\|\s*$", rows_1_3, flags=re.M)
    rows = {row: re.search(r"MUST|SHOULD|MAY", last).group() for row, last in cells}
    assert rows == {r.id: r.requirement for r in RULES}
    section_2 = next(s for s in sections if s.startswith("2."))
    errors_part, warnings_part = section_2.split("Warnings (SHOULD)")
    assert re.findall(r"^\| `([a-z-]+)` \|", errors_part, flags=re.M) == list(WORKFLOW_ERROR_CODES)
    assert re.findall(r"^\| `([a-z-]+)` \|", warnings_part, flags=re.M) == list(
        WORKFLOW_WARNING_CODES
    )
    section_4 = next(s for s in sections if s.startswith("4."))
    cells_4 = re.findall(r"^\| (C\d+) \|.*\|([^|]*)\|\s*$", section_4, flags=re.M)
    rows_4 = {row: re.search(r"MUST|SHOULD|MAY", last).group() for row, last in cells_4}
    assert rows_4 == {r.id: r.requirement for r in COMPOSITION_RULES}
    errors_4, warnings_4 = section_4.split("Warnings (SHOULD):")
    listed = re.findall(r"`([a-z]+(?:-[a-z]+)+)`", errors_4.split("Execution")[0])
    assert set(COMPOSITION_ERROR_CODES) <= set(listed)
    assert re.findall(r"`([a-z]+(?:-[a-z]+)+)`", warnings_4.split("\n\n")[0]) == list(
        COMPOSITION_WARNING_CODES
    )
    section_3 = next(s for s in sections if s.startswith("3."))
    mentioned = set(re.findall(r"`([a-z]+(?:-[a-z]+)+)`", section_3))
    assert set(REJECTION_CODES) <= mentioned | {"workflow-version-unsupported"}
    section_6 = next(s for s in sections if s.startswith("6."))
    code = r"`([a-z]+(?:-[a-z]+)+)`"
    assert re.findall(code + r" \(error", section_6) == [
        c for c in NEWER_ERROR_CODES if c not in BEYOND_SEMANTICS
    ]
    warnings_6 = [
        found
        for part in section_6.split("Warnings (SHOULD):")[1:]
        for found in re.findall(code, re.split(r"\n\n|\n- ", part)[0])
    ]
    assert warnings_6 == list(NEWER_WARNING_CODES)
    starts = re.search(r"Rejections: (.*?)\n\n", section_6, flags=re.S)
    assert starts is not None
    assert re.findall(code, starts.group(1)) == list(START_REJECTION_CODES)
