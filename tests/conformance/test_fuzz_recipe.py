"""The recipe of docs/fuzzing.md: a runtime author's own Hypothesis tests, with the reference as
oracle, as ``@given`` and as a state machine. Each passes on a runtime written apart from the
reference and fails on one that breaks the RFCs."""

from __future__ import annotations

from typing import Any

import pytest
from breaking import AppendReplaces
from fuzz_packs import pack as small_pack
from fuzz_packs import state
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from mini_runtime import MiniRuntime

from conformance import FuzzFinding, assert_matches_reference, check_against_reference, strategies

QUICK = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    derandomize=True,
)
UNSHRUNK = settings(QUICK, phases=(Phase.generate,))
"""For the runs that must fail: found is enough, shrinking here would only cost time."""


def given_recipe(adapter_class: type[Any], chosen: settings) -> Any:
    """The ``@given`` recipe, for an adapter class."""

    @chosen
    @given(st.data())
    def test_matches_the_reference(data: st.DataObject) -> None:
        pack = data.draw(strategies.packs(max_states=4))
        script = data.draw(strategies.scripts(pack, snapshots=False))
        assert_matches_reference(adapter_class(), pack, script)

    return test_matches_the_reference


def machine_recipe(adapter_class: type[Any]) -> type[RuleBasedStateMachine]:
    """The state machine recipe, for an adapter class."""

    class MatchesTheReference(RuleBasedStateMachine):
        @initialize(pack=strategies.packs())
        def load(self, pack: dict[str, Any]) -> None:
            self.pack, self.script = pack, []

        @rule(data=st.data())
        def act(self, data: st.DataObject) -> None:
            self.script.append(data.draw(strategies.steps(self.pack, snapshots=False)))

        @invariant()
        def agrees(self) -> None:
            assert_matches_reference(adapter_class(), self.pack, self.script)

    return MatchesTheReference


def test_the_given_recipe_passes_on_a_conforming_runtime() -> None:
    given_recipe(MiniRuntime, QUICK)()


def test_the_given_recipe_fails_on_a_breaking_runtime() -> None:
    with pytest.raises(AssertionError, match=r"DIVERGENCE in a loops example"):
        given_recipe(AppendReplaces, UNSHRUNK)()


def test_the_state_machine_recipe() -> None:
    # The script so far is checked again after every step: keep the machines short.
    short = settings(QUICK, max_examples=60, stateful_step_count=10)
    run_state_machine_as_test(machine_recipe(MiniRuntime), settings=short)
    with pytest.raises(AssertionError, match=r"DIVERGENCE in a loops example"):
        run_state_machine_as_test(
            machine_recipe(AppendReplaces), settings=settings(short, phases=(Phase.generate,))
        )


def test_check_against_reference_returns_the_finding() -> None:
    log = {"log": {"type": "text/plain", "mode": "append"}}
    pack = small_pack({"start": state(on_event={"Go": "start"}, artifacts=log)})
    script = [{"set_artifact": {"name": "log", "value": "a"}}] * 2
    assert check_against_reference(MiniRuntime(), pack, script) is None
    finding = check_against_reference(AppendReplaces(), pack, script)
    assert isinstance(finding, FuzzFinding)
    assert (finding.kind, finding.step, finding.field) == ("divergence", 2, "artifacts.log")
    assert finding.rule == "loops.artifacts.replace-vs-append"
