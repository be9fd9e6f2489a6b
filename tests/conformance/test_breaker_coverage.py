"""Breaker coverage (R16): a schema constraint is covered when a MUST check catches each of its
standard breakers, not when one case cites it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from conformance import Catalog, load_catalog
from conformance._basics.resources import schema_path
from conformance._cli import main
from conformance._judging.breaker_coverage import (
    ConstraintBreakers,
    SourceBreakers,
    breaker_coverage,
)
from conformance._views.breaker_coverage import render_breakers_text


@pytest.fixture(scope="module")
def covered() -> list[SourceBreakers]:
    whole = load_catalog()  # every spec version's cases: some constraints hold only in older ones
    return breaker_coverage(whole.registry, whole.cases)


def _row(sources: list[SourceBreakers], statement_id: str) -> ConstraintBreakers:
    return next(r for s in sources for r in s.constraints if r.statement.id == statement_id)


def test_every_constraint_of_the_catalog_parts_is_fully_covered(
    covered: list[SourceBreakers],
) -> None:
    for source in covered:
        full, total = source.full
        assert full == total, (
            source.source,
            [r.constraint for r in source.constraints if r.counted and not r.full],
        )


def test_a_constraint_lists_its_standard_breakers_and_those_caught(
    covered: list[SourceBreakers],
) -> None:
    row = _row(covered, "schema-1.9.0.WorkflowState.max_visits.type")
    assert row.area == "loops"
    assert row.breakers == ("boolean", "numeric-string", "float", "null")
    assert row.exercised == row.breakers
    assert row.written  # written cases cite it too, but name no breaker


def test_a_breaker_without_its_generated_case_is_missing(catalog: Catalog) -> None:
    dropped = "loops.generated.workflowstate-max-visits-type.boolean"
    cases = [c for c in catalog.cases if c.id != dropped]
    row = _row(
        breaker_coverage(catalog.registry, cases), "schema-1.9.0.WorkflowState.max_visits.type"
    )
    assert row.missing == ("boolean",)
    assert not row.full
    text = render_breakers_text(breaker_coverage(catalog.registry, cases))
    assert "schema-1.9.0.WorkflowState.max_visits.type: missing boolean" in text


def test_a_generated_case_weaker_than_must_catches_nothing(catalog: Catalog) -> None:
    weak = [
        replace(c, requirement="MAY") if c.id.endswith("max-visits-type.null") else c
        for c in catalog.cases
    ]
    row = _row(
        breaker_coverage(catalog.registry, weak), "schema-1.9.0.WorkflowState.max_visits.type"
    )
    assert "null" in row.missing


def test_an_rfc_fragment_the_published_schemas_state_otherwise_is_listed_apart(
    covered: list[SourceBreakers],
) -> None:
    """RFC 0005 enumerates persistence; 1.4.0 to 1.9.0 leave it an open string (R16)."""
    row = _row(covered, "RFC0005.def.WorkflowState.persistence.enum")
    assert row.differs
    assert row.apart
    assert not row.counted
    agreeing = _row(covered, "RFC0009.def.WorkflowState.max_visits.minimum")
    assert not agreeing.differs
    assert agreeing.full


def test_parts_and_versions_the_catalog_does_not_test_are_counted_apart(
    covered: list[SourceBreakers],
) -> None:
    assert _row(covered, "schema-1.9.0.root.additionalProperties").area is None
    # requires.providers of 1.5.1 governs spec versions before the providers area's first
    assert _row(covered, "schema-1.5.1.root.requires.providers.type").area is None
    assert _row(covered, "schema-1.9.0.root.requires.providers.type").area == "providers"


def test_the_json_view_carries_breakers_in_its_published_shape(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "coverage.json"
    assert main(["coverage", "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(schema_path("coverage.schema.json").read_text()))
    source = next(s for s in data["breakers"] if s["source"] == "schema 1.9.0")
    assert source["full"] == source["constraints"] > 0
    assert any(a["area"] == "loops" for a in source["areas"])
