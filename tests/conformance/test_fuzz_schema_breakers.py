"""Near-valid packs from the schema breakers: the generated cases' breakers, applied to drawn
packs wherever their constraint's definition stands, judged by the reference's validate."""

from __future__ import annotations

import json
from typing import Any

import breaking
import pytest
from fuzz_packs import pack as small_pack
from fuzz_packs import state
from hypothesis import given, seed, settings

import reference
from conformance import Catalog
from conformance._fuzz.engine import _breaker_packs, fuzz
from conformance._fuzz.oracle import expect_broken
from conformance._fuzz.schema_breakers import (
    CONTEXTS,
    Target,
    broken,
    contexts,
    in_context,
    places,
    targets,
)

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


def composition_pack() -> dict[str, Any]:
    """A pack of one composition holding a branch with nested predicates, an agent step with
    its termination, a prompt step with an input, and provider requirements of both shapes."""
    compare = {"path": "${input.k}", "op": "equals", "value": 1}
    exists = {"path": "${input.k}", "exists": True}
    return {
        **small_pack({"start": state(terminal=True)}),
        "tools": {"fetch": {"name": "fetch", "description": "Fetch."}},
        "requires": {
            "providers": [
                "default",
                {"key": "judge", "role": "llm", "capabilities": {"min_context_tokens": 8}},
            ]
        },
        "compositions": {
            "review": {
                "version": 1,
                "steps": [
                    {
                        "id": "a",
                        "kind": "branch",
                        "predicate": {"all_of": [{"not": compare}, {"any_of": [exists]}]},
                        "then": "b",
                    },
                    {"id": "b", "kind": "prompt", "prompt_task": "main", "input": "${input.k}"},
                    {
                        "id": "c",
                        "kind": "agent",
                        "prompt_task": "main",
                        "tools": ["fetch"],
                        "termination": {"max_steps": 2},
                    },
                ],
            }
        },
    }


def test_places_name_predicates_at_every_depth_and_the_newer_parts() -> None:
    where = places(composition_pack())
    predicate = "/compositions/review/steps/0/predicate"
    assert where["#/$defs/AllOfPredicate"] == [predicate]
    assert where["#/$defs/NotPredicate"] == [f"{predicate}/all_of/0"]
    assert where["#/$defs/ComparePredicate"] == [f"{predicate}/all_of/0/not"]
    assert where["#/$defs/AnyOfPredicate"] == [f"{predicate}/all_of/1"]
    assert where["#/$defs/ExistsPredicate"] == [f"{predicate}/all_of/1/any_of/0"]
    assert where["#/$defs/StepInput/oneOf/0"] == ["/compositions/review/steps/1/input"]
    assert where["#/$defs/AgentStep"] == ["/compositions/review/steps/2"]
    assert where["#/$defs/TerminationPredicate"] == ["/compositions/review/steps/2/termination"]
    assert where["#/properties/requires"] == ["/requires"]
    assert where["#/$defs/ProviderRequirement/oneOf/0"] == ["/requires/providers/0"]
    assert where["#/$defs/ProviderRequirement/oneOf/1"] == ["/requires/providers/1"]
    assert where["#/$defs/ProviderCapabilities"] == ["/requires/providers/1/capabilities"]


def predicate_targets() -> list[Target]:
    return [t for t in targets() if "Predicate" in t.section and "Termination" not in t.section]


def test_predicate_breakers_have_every_context_and_the_others_one() -> None:
    assert len(predicate_targets()) > 20
    for target in targets():
        expected = (None, *CONTEXTS) if target in predicate_targets() else (None,)
        assert contexts(target) == expected, target.case


@pytest.mark.parametrize("context", CONTEXTS)
def test_a_predicate_breaker_lands_inside_each_wrapper_and_the_reference_refuses_it(
    context: str,
) -> None:
    (target,) = [t for t in targets() if t.case.endswith("comparepredicate-op-enum.outsider")]
    shaped = in_context(composition_pack(), target, context)
    assert reference.validate(shaped) == reference.validate(composition_pack())
    # One target: pick 0 is the pack as drawn, picks 1 to 3 the contexts, in their order.
    found = broken(composition_pack(), [target], 1 + CONTEXTS.index(context))
    assert found is not None
    assert (found.context, found.valid) == (context, False)
    assert found.pointer.startswith(f"/compositions/review/steps/0/predicate/{context}/")
    errors = [d for d in reference.validate(found.pack) if d.severity == "error"]
    assert [d.path for d in errors] == [found.pointer]


@pytest.mark.parametrize("context", [None, *CONTEXTS])
def test_a_pack_without_branches_gets_one_for_each_predicate_form(context: str | None) -> None:
    bare = composition_pack()
    bare["compositions"]["review"]["steps"] = bare["compositions"]["review"]["steps"][1:]
    for target in predicate_targets():
        shaped = in_context(bare, target, context)
        assert not [d for d in reference.validate(shaped) if d.severity == "error"], target
        first = shaped["compositions"]["review"]["steps"][0]
        assert (first["kind"], first["then"]) == ("branch", "b")
        assert broken(bare, [target], 0 if context is None else 1 + CONTEXTS.index(context))


def test_a_validator_that_skips_what_not_wraps_is_found() -> None:
    result = fuzz(breaking.IgnoresInsideNot(), areas=("compositions",), examples_wanted=300, seed=1)
    assert result.finding is not None
    assert result.finding.part == "validation"
    assert result.finding.rule.startswith("compositions.generated.")
    assert '"not": ' in json.dumps(result.finding.expected.pack)


UNREACHED = {
    "compositions.generated.stepinput-object": "the fuzzer's step inputs are references, never "
    "objects",
    "compositions.generated.workflowstate-composition": "a pack of the compositions area has "
    "no workflow",
    "extensions.generated.extensionstep": "vendor step kinds are drawn only for a runtime "
    "claiming them, in valid packs it runs; a validator may refuse one it lacks (C12)",
}
"""The breakers the fuzzer's packs give no place, by case id prefix, and why."""


@pytest.mark.parametrize("area", sorted({t.area for t in targets()}))
def test_every_breaker_has_a_place_in_the_fuzzer_s_packs_but_those_said(area: str) -> None:
    drawn: list[dict[str, Any]] = []

    @settings(max_examples=150, database=None, deadline=None)
    @seed(1)
    @given(_breaker_packs(area))
    def collect(pack: dict[str, Any]) -> None:
        drawn.append(pack)

    collect()
    left = [t for t in targets() if t.area == area]
    for drawn_pack in drawn:
        left = [t for t in left if broken(drawn_pack, [t], 0) is None]
    unexplained = [t.case for t in left if not t.case.startswith(tuple(UNREACHED))]
    assert not unexplained
