"""A broken pack is judged with each standard breaker of its constraint: a runtime that reads a
value wrongly in one way only (a boolean taken for an integer) is found whichever of that
constraint's breakers was drawn (within 1,000 examples over the areas it claims:
``test_fuzz_goal.py``)."""

from __future__ import annotations

from typing import Any

import allowed
import breaking
from fuzz_packs import pack as small_pack
from fuzz_packs import state

from conformance import ReferenceAdapter
from conformance._fuzz.engine import Example, expect_all, fuzz, other_breakers
from conformance._fuzz.judge import judge
from conformance._fuzz.schema_breakers import broken, targets
from conformance._judging.runner import Runner

MAX_VISITS_TYPE = "WorkflowState.max_visits.type"


def pack() -> dict[str, Any]:
    return small_pack(
        {
            "start": state(on_event={"Go": "work"}, max_visits=2),
            "work": state(terminal=True, max_visits=3),
        }
    )


def test_the_other_breakers_are_those_of_the_same_constraint_at_the_same_place() -> None:
    chosen = [t for t in targets() if t.area == "loops"]
    (null,) = [t for t in chosen if t.constraint == MAX_VISITS_TYPE and t.breaker == "null"]
    found = broken(pack(), (null,), 1)
    assert found is not None
    assert found.pointer == "/workflow/states/work/max_visits"
    others = other_breakers(pack(), found, chosen, 1)
    assert {b.target.breaker for b in others} == {"boolean", "float", "numeric-string"}
    assert {b.target.constraint for b in others} == {MAX_VISITS_TYPE}
    assert {b.pointer for b in others} == {found.pointer}
    by_breaker = {
        b.target.breaker: b.pack["workflow"]["states"]["work"]["max_visits"] for b in others
    }
    assert by_breaker["boolean"] is True
    assert isinstance(by_breaker["numeric-string"], str)


def test_each_breaker_is_judged_and_a_validator_taking_booleans_for_integers_fails_one() -> None:
    chosen = [t for t in targets() if t.area == "loops"]
    (null,) = [t for t in chosen if t.constraint == MAX_VISITS_TYPE and t.breaker == "null"]
    found = broken(pack(), (null,), 0)
    assert found is not None
    example = Example(
        "loops", found.pack, broken=found, breakers=other_breakers(pack(), found, chosen, 0)
    )
    every = expect_all(example)
    assert len(every) == 4
    assert not any(e.valid for e in every)
    # The drawn breaker (null) does not show it; the boolean one does.
    verdicts = [judge(Runner(breaking.AcceptsBooleansAsIntegers()), e).finding for e in every]
    failed = [e.validity_rule for e, f in zip(every, verdicts, strict=True) if f is not None]
    assert failed == ["loops.generated.workflowstate-max-visits-type.boolean"]
    assert all(judge(Runner(ReferenceAdapter()), e).finding is None for e in every)


def test_schema_errors_at_the_parent_pass_every_breaker() -> None:
    # R19: the generic code and a parent pointer are allowed, whatever breaker was applied.
    result = fuzz(allowed.SchemaErrorsAtParent(), areas=("loops",), examples_wanted=200, seed=1)
    assert result.finding is None, result.finding
