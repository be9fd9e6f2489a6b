"""Near-valid packs from the schema breakers: the generated cases' breakers, applied to drawn
packs wherever their constraint's definition stands, judged by the reference's validate."""

from __future__ import annotations

from typing import Any

import breaking
import pytest
from fuzz_packs import pack as small_pack
from fuzz_packs import state

from conformance import Catalog
from conformance._fuzz.engine import fuzz
from conformance._fuzz.oracle import expect_broken
from conformance._fuzz.schema_breakers import broken, places, targets

MAX_VISITS_BOOLEAN = "loops.generated.workflowstate-max-visits-type.boolean"


def pack() -> dict[str, Any]:
    return small_pack(
        {
            "start": state(on_event={"Go": "work"}, max_visits=2),
            "work": state(terminal=True),
        }
    )


def test_every_target_is_a_generated_must_case_of_the_newest_schema(catalog: Catalog) -> None:
    found = targets()
    assert len(found) > 300
    for target in found:
        case = catalog.get(target.case)
        assert case is not None, target.case
        assert case.requirement == "MUST", target.case
        assert f"schema-1.9.0.{target.constraint}" in case.statements, target.case
        assert target.area == case.area


def test_places_name_every_instance_of_a_definition() -> None:
    where = places(pack())
    assert where["#/$defs/WorkflowState"] == ["/workflow/states/start", "/workflow/states/work"]
    assert where["#/$defs/WorkflowConfig"] == ["/workflow"]
    assert "#/$defs/WorkflowBudget" not in where


@pytest.mark.parametrize("pick", range(2))
def test_a_breaker_lands_on_each_instance_and_the_reference_refuses_it(pick: int) -> None:
    (target,) = [t for t in targets() if t.case == MAX_VISITS_BOOLEAN]
    found = broken(pack(), [target], pick)
    assert found is not None
    state = ("start", "work")[pick]
    assert found.pointer == f"/workflow/states/{state}/max_visits"
    assert found.pack["workflow"]["states"][state]["max_visits"] is True
    assert found.valid is False
    expected = expect_broken("loops", found)
    assert (expected.valid, expected.validity_rule) == (False, MAX_VISITS_BOOLEAN)


def test_a_breaker_that_keeps_the_pack_valid_expects_it_valid() -> None:
    (target,) = [
        t for t in targets() if t.case.endswith("workflowstate-max-visits-minimum.at-minimum")
    ]
    found = broken(pack(), [target], 0)
    assert found is not None
    assert found.valid is True
    assert found.pack["workflow"]["states"]["start"]["max_visits"] == 1


def test_a_breaker_without_a_place_in_the_pack_gives_nothing() -> None:
    budget = [t for t in targets() if t.constraint.startswith("WorkflowBudget.")]
    assert budget
    assert broken(pack(), budget, 0) is None


def test_a_validator_taking_booleans_for_integers_is_found() -> None:
    result = fuzz(
        breaking.AcceptsBooleansAsIntegers(), areas=("loops",), examples_wanted=500, seed=1
    )
    assert result.finding is not None
    assert result.finding.part == "validation"
    assert result.finding.rule.startswith("loops.generated.")
    assert result.finding.expected.valid is False
