"""The fuzzer against runtimes that break the RFCs, runtimes that make choices the RFCs allow,
and the reference itself through the adapter protocol.

The counts are the ones the fuzzer promises: each session-breaking runtime is found within
1,000 examples of the workflow areas, and each RFC 0014, RFC 0011, RFC 0016 and RFC 0017 one
within 500 of its own area, for seeds 1 to 5, shrunk to at most 5 states and 8 steps; each
RFC-allowed variant gives no divergence in 1,000 examples of the areas it claims (over all
areas at once, at one seed: ``test_fuzz_goal.py``). They take a while (minutes of CPU on the
CI machine, spread over the xdist workers), deliberately.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import allowed
import breaking
import pytest
from hypothesis.database import InMemoryExampleDatabase

from conformance import Capabilities, PackInput, ReferenceAdapter, Runner, load_catalog
from conformance._fuzz.engine import (
    BATCH,
    FuzzResult,
    default_areas,
    examples,
    fuzz,
    vendor_claimed,
)
from conformance._fuzz.report import case_document, export
from conformance._protocol import SubprocessAdapter

ALLOWED = (
    "BudgetStatusAtOnce",
    "SchemaErrorsWithoutPointers",
    "SchemaErrorsAtParent",
    "RedundantErrors",
    "NoKitLints",
    "Version3AsVersion2",
    "OtherMergeOrder",
    "BranchJumps",
    "OtherTurnChoices",
    "EndsAtVisitLimit",
    "IgnoresProviderAndExtensions",
    "StepTextAsString",
    "OneCodeForRefusedStarts",
    "DropsFailingBranch",
    "GenericSchemaCode",
    "RenamesCodes",
    "OneCodeAfterTheEnd",
    "StartsOnlyAsAgents",
    "NoStartAtState",
    "EveryErrorCode",
    "ListsDeclaredEvents",
    "FailsAtMaxSteps",
    "OtherTestExtensions",
)
"""The RFC-allowed runtimes whose choices the fuzzer's examples reach (schema errors at a
parent or with another code among them, now that near-valid packs carry schema breakers)."""
WORKFLOW_AREAS = ("workflow", "loops")
"""What the breaking runtimes claim (their compositions are the reference's)."""


def found(result: FuzzResult) -> str:
    """What a run found, for assertion messages."""
    finding = result.finding
    return "nothing" if finding is None else f"{finding.kind} {finding.rule}: {finding.message}"


@pytest.mark.parametrize("seed", range(1, 6))
@pytest.mark.parametrize("name", breaking.SESSION_BUGS)
def test_each_rfc_breaking_runtime_is_found_and_shrunk(name: str, seed: int) -> None:
    # What the catalog catches, the fuzzer finds within 1,000 examples; its packs spread over
    # many contexts (agent starts, control and extensions slots), so a budget bug may take
    # more than 500.
    result = fuzz(getattr(breaking, name)(), areas=WORKFLOW_AREAS, examples_wanted=1000, seed=seed)
    finding = result.finding
    assert finding is not None, f"{name} not found in 1,000 examples (seed {seed})"
    assert finding.kind == "divergence", found(result)
    assert result.found_after <= 1000
    states = finding.expected.pack["workflow"]["states"]
    assert len(states) <= 5, states
    assert len(finding.expected.steps) <= 8, finding.expected.steps


NEW_AREA_BUGS = {
    "IgnoresControl": "control",
    "CountsEntryOnStart": "state-agents",
    **breaking.AREA_BUGS,
}
"""The RFC 0014, RFC 0011, RFC 0016 and RFC 0017 fakes, each with the area that must find it."""


@pytest.mark.parametrize("seed", range(1, 6))
@pytest.mark.parametrize("name", NEW_AREA_BUGS)
def test_each_rfc_breaking_runtime_of_the_newer_areas_is_found_and_shrunk(
    name: str, seed: int
) -> None:
    area = NEW_AREA_BUGS[name]
    result = fuzz(getattr(breaking, name)(), areas=(area,), examples_wanted=500, seed=seed)
    finding = result.finding
    assert finding is not None, f"{name} not found in 500 examples (seed {seed})"
    assert finding.kind == "divergence", found(result)
    assert finding.expected.area == area
    states = finding.expected.pack["workflow"]["states"]
    assert len(states) <= 5, states
    assert len(finding.expected.steps) <= 8, finding.expected.steps


@pytest.mark.parametrize("name", ALLOWED)
def test_rfc_allowed_variants_give_no_divergence(name: str) -> None:
    # Over the areas it claims, as `ppconf fuzz` without --area: a runtime claiming neither
    # extensions nor providers gets no pack carrying their fields.
    adapter = getattr(allowed, name)()
    areas = default_areas(adapter.capabilities().claims)
    result = fuzz(adapter, areas=areas, examples_wanted=1000, seed=1)
    assert result.finding is None, found(result)
    assert result.tally.examples == 1000
    assert set(result.tally.by_area) == set(areas)


def test_the_reference_through_the_protocol_gives_no_divergence() -> None:
    adapter = SubprocessAdapter((sys.executable, "-m", "conformance", "serve"))
    try:
        result = fuzz(adapter, examples_wanted=300, seed=7)
    finally:
        adapter.close()
    assert result.finding is None, found(result)
    assert result.tally.examples == 300


def test_an_exported_case_passes_on_the_reference_and_fails_on_the_runtime(
    tmp_path: Path,
) -> None:
    result = fuzz(
        breaking.IgnoresUnknownEvents(), areas=WORKFLOW_AREAS, examples_wanted=300, seed=2
    )
    assert result.finding is not None
    path = export(result.finding, tmp_path, "breaking:IgnoresUnknownEvents", 2)
    assert path.parent == tmp_path / "workflow"
    (case,) = load_catalog(tmp_path).cases  # checked against the case schema
    assert case.id.startswith("workflow.fuzz.")
    assert case.requirement == "MUST"
    assert load_catalog(tmp_path).registry.derived(case.statements) == "MUST"
    assert Runner(ReferenceAdapter()).run(case).passed
    failed = Runner(breaking.IgnoresUnknownEvents()).run(case)
    assert failed.outcome == "failed", failed


@pytest.mark.parametrize(
    ("name", "versions"),
    [
        ("IgnoresControl", ">=1.7"),
        ("CountsEntryOnStart", ">=1.4.1"),
        ("InterpretsExtensions", ">=1.8"),
        ("AcceptsUnknownProvider", ">=1.9"),
    ],
)
def test_an_exported_case_of_the_newer_areas_names_its_spec_versions(
    tmp_path: Path, name: str, versions: str
) -> None:
    area = NEW_AREA_BUGS[name]
    result = fuzz(getattr(breaking, name)(), areas=(area,), examples_wanted=500, seed=1)
    assert result.finding is not None
    export(result.finding, tmp_path, f"breaking:{name}", 1)
    (case,) = load_catalog(tmp_path).cases
    assert case.area == area
    assert case.spec_versions == (versions,)
    assert load_catalog(tmp_path).registry.derived(case.statements) == "MUST"
    assert Runner(ReferenceAdapter()).run(case).passed
    failed = Runner(getattr(breaking, name)()).run(case)
    assert failed.outcome == "failed", failed


def test_a_seed_draws_the_same_examples() -> None:
    def document(seed: int) -> dict[str, Any]:
        result = fuzz(breaking.AppendReplaces(), areas=("loops",), examples_wanted=300, seed=seed)
        assert result.finding is not None
        return case_document(result.finding, "x", seed)

    assert document(4) == document(4)


def test_a_saved_failure_is_tried_first() -> None:
    database = InMemoryExampleDatabase()
    first = fuzz(
        breaking.BudgetOffByOne(), areas=("loops",), examples_wanted=500, seed=5, database=database
    )
    assert first.finding is not None
    assert first.found_after > 1
    again = fuzz(
        breaking.BudgetOffByOne(), areas=("loops",), examples_wanted=500, seed=9, database=database
    )
    assert again.finding is not None
    assert again.found_after <= BATCH  # in the first test case Hypothesis tries
    # Another area set keeps its own saved failures.
    other = fuzz(
        breaking.BudgetOffByOne(), areas=("workflow",), examples_wanted=5, seed=9, database=database
    )
    assert other.finding is None


def test_adapter_faults_are_faults_not_divergences() -> None:
    result = fuzz(breaking.RaisesBaseException(), areas=("workflow",), examples_wanted=50)
    assert result.finding is not None
    assert result.finding.kind == "fault"
    assert "Boom" in result.finding.message


class EveryThirdPackInvalid(ReferenceAdapter):
    """Reports a made-up error on every third pack it validates: the same pack is valid or not
    depending on when it is asked (SEMANTICS R5)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def validate(self, pack: PackInput) -> Sequence[Mapping[str, Any]]:
        self.calls += 1
        found = list(super().validate(pack))
        if self.calls % 3 == 0:
            found.append({"code": "schema", "severity": "error", "path": None})
        return found


def test_an_adapter_answering_differently_is_a_fault() -> None:
    result = fuzz(EveryThirdPackInvalid(), areas=("workflow",), examples_wanted=200, seed=1)
    assert result.finding is not None
    assert result.finding.kind == "fault", found(result)
    assert "did not answer the same way" in result.finding.message


def test_a_time_limit_stops_the_run() -> None:
    result = fuzz(ReferenceAdapter(), examples_wanted=None, max_time=0.5, seed=1)
    assert result.finding is None
    assert result.tally.examples >= 1
    # Without the limit the run would not stop at all (no example count); 30 s is 60 times
    # the limit, so a busy machine cannot fail this, and a limit that is ignored still does.
    assert result.seconds < 30


def test_unknown_areas_and_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="no fuzzer area 'budgets'"):
        examples("budgets")
    with pytest.raises(ValueError, match="examples_wanted or max_time"):
        fuzz(ReferenceAdapter(), examples_wanted=None)


def test_the_kit_s_test_extensions_are_drawn_for_a_runtime_claiming_them_alone() -> None:
    assert vendor_claimed(ReferenceAdapter().capabilities())
    assert not vendor_claimed(breaking.AcceptsEverything().capabilities())  # none registered
    level_2 = {**ReferenceAdapter().capabilities().claims, "compositions": 2}
    extensions = ReferenceAdapter().capabilities().extensions
    assert not vendor_claimed(Capabilities("r", claims=level_2, extensions=extensions))
    drawn = "composition runs with the kit's test extensions"
    claimed = fuzz(ReferenceAdapter(), areas=("compositions",), examples_wanted=200, seed=1)
    assert claimed.finding is None
    assert claimed.tally.exercised[drawn] > 0
    refused = fuzz(
        breaking.RefusesVendorKinds(), areas=("compositions",), examples_wanted=200, seed=1
    )
    assert refused.finding is not None
    assert refused.finding.rule.startswith("compositions.extension.")
