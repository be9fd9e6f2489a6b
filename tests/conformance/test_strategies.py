"""``conformance.strategies``: valid packs, near-valid packs with their rules, scripts."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, seed, settings
from hypothesis import strategies as st

import reference
from conformance import Catalog, strategies

PASCAL_CASE = re.compile(r"^[A-Z][a-zA-Z0-9]*$")
FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
KNOBS = [
    {},
    {"loops": False, "redirects": False, "budgets": False, "artifacts": False},
    {"orchestration": False, "dead_ends": False, "terminal_states": False},
    {"compositions": True},
    {"workflow": False, "compositions": True},
    {"min_states": 8, "max_states": 8},
    {"control": True},
    {"state_agents": True},
    {"control": True, "state_agents": True, "min_states": 8, "max_states": 8},
    {"workflow": False, "compositions": True, "vendor": True},
    {"providers": True},
]


def errors(pack: dict[str, Any]) -> list[str]:
    return [str(d) for d in reference.validate(pack) if d.severity == "error"]


# -- packs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("knobs", KNOBS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_packs_are_valid_and_readable(knobs: dict[str, Any]) -> None:
    @FAST
    @given(strategies.packs(**knobs))
    def check(pack: dict[str, Any]) -> None:
        assert errors(pack) == []
        workflow = pack.get("workflow")
        if knobs.get("workflow", True):
            states = workflow["states"]
            assert knobs.get("min_states", 1) <= len(states) <= knobs.get("max_states", 4)
            assert list(states) == list(strategies.STATES[: len(states)])
            for state in states.values():
                assert all(PASCAL_CASE.match(event) for event in state.get("on_event") or {})
                if not knobs.get("loops", True):
                    assert "max_visits" not in state
                if not knobs.get("artifacts", True):
                    assert "artifacts" not in state
                if knobs.get("control", False):
                    assert state.get("control", "user") in ("user", "agent")
                else:
                    assert "control" not in state
        else:
            assert workflow is None
        assert ("compositions" in pack) == knobs.get("compositions", False)
        assert ("agents" in pack) == knobs.get("state_agents", False)
        if "agents" in pack:
            members = pack["agents"]["members"]
            assert list(members) == list(strategies.AGENTS[: len(members)])
            assert set(members) <= set(pack["prompts"])
            assert all(m.get("state", "start") in workflow["states"] for m in members.values())

    check()


def test_packs_shrink_to_small_readable_packs() -> None:
    """The smallest pack with three states: each state loops on ``Go`` back to ``start``."""
    found = find(
        strategies.packs(),
        lambda pack: len(pack["workflow"]["states"]) >= 3,
        settings=settings(database=None, derandomize=True),
    )
    assert found["workflow"] == {
        "version": 2,
        "entry": "start",
        "states": {
            name: {"prompt_task": "main", "on_event": {"Go": "start"}}
            for name in ("start", "work", "check")
        },
    }


def test_control_and_agents_shrink_to_small_readable_packs() -> None:
    """The smallest pack with a control: agent state and two agents: the one state, entered
    by ``Go``, and both agents starting there."""
    found = find(
        strategies.packs(control=True, state_agents=True),
        lambda pack: (
            any(s.get("control") == "agent" for s in pack["workflow"]["states"].values())
            and len(pack["agents"]["members"]) == 2
        ),
        settings=settings(database=None, derandomize=True),
    )
    assert found["workflow"]["states"] == {
        "start": {"prompt_task": "main", "on_event": {"Go": "start"}, "control": "agent"}
    }
    assert found["agents"] == {
        "entry": "main",
        "members": {"main": {"state": "start"}, "aide": {"state": "start"}},
    }


def test_packs_refuse_bad_knobs() -> None:
    with pytest.raises(ValueError, match="state_agents=True"):
        strategies.packs(workflow=False, compositions=True, state_agents=True)
    with pytest.raises(ValueError, match="min_states=3, max_states=2"):
        strategies.packs(min_states=3, max_states=2)
    with pytest.raises(ValueError, match="compositions=True"):
        strategies.packs(workflow=False)


# -- near-valid packs -------------------------------------------------------------------------


def test_every_mutation_matches_its_catalog_case(catalog: Catalog) -> None:
    """Each mutation's requirement is the one of the catalog case pinning its rule, and that
    case expects the pack invalid with the mutation's code (a MUST case quotes the RFC)."""
    for mutation in strategies.MUTATIONS:
        case = catalog.get(mutation.case)
        assert case is not None, mutation.case
        assert case.area == mutation.area, mutation.name
        assert case.requirement == mutation.requirement, mutation.name
        assert case.validation is not None
        assert not case.validation.valid, mutation.name
        assert any(mutation.code in ref.codes for ref in case.validation.errors), mutation.name
        if mutation.requirement == "MUST":
            given = catalog.registry.derived(case.statements, validity=True)
            assert given == "MUST", mutation.case


@pytest.mark.parametrize("mutation", strategies.MUTATIONS, ids=lambda m: m.name)
def test_each_mutation_breaks_its_rule(mutation: strategies.Mutation) -> None:
    """On any valid pack, the mutation makes the reference report its code (the reference
    takes the kit's pick where the rule is MAY)."""
    area = (mutation.area,)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategies.near_valid_packs(areas=area, requirements=(mutation.requirement,)))
    def check(near: strategies.NearValid) -> None:
        if near.mutation != mutation:
            return
        codes = {d.code for d in reference.validate(near.pack) if d.severity == "error"}
        assert mutation.code in codes, (near.pointer, codes)

    check()


@FAST
@given(strategies.near_valid_packs(requirements=("MUST",)))
def test_near_valid_packs_of_must_rules_are_invalid(near: strategies.NearValid) -> None:
    assert near.requirement == "MUST"
    assert errors(near.pack)


def test_near_valid_packs_refuse_an_empty_choice() -> None:
    with pytest.raises(ValueError, match="no mutation matches"):
        strategies.near_valid_packs(areas=("control",), requirements=("MAY",))


# -- scripts ----------------------------------------------------------------------------------


@FAST
@given(st.data())
def test_scripts_use_the_packs_names(data: st.DataObject) -> None:
    pack = data.draw(strategies.packs(compositions=True))
    script = data.draw(strategies.scripts(pack, max_steps=10, undeclared_artifacts=True))
    assert len(script) <= 10
    workflow = pack["workflow"]["states"]
    declared = {e for s in workflow.values() for e in s.get("on_event") or {}}
    artifacts = {a for s in workflow.values() for a in s.get("artifacts") or {}}
    for step in script:
        kind = next(iter(step))
        if kind == "event":
            assert step["event"] in declared | {strategies.STRAY_EVENT}
            assert step.get("source", "host") in ("host", "agent")
        elif kind == "set_artifact":
            assert step["set_artifact"]["name"] in artifacts | {"stray"}
        elif kind == "run_composition":
            run = step["run_composition"]
            assert run["name"] in pack["compositions"]
            assert set(run["input"]) == {"k"}
        else:
            assert kind in ("tool_calls", "advance_clock", "snapshot_restore")


@FAST
@given(st.data())
def test_scripts_with_turns_and_starts(data: st.DataObject) -> None:
    pack = data.draw(strategies.packs(control=True, state_agents=True))
    script = data.draw(strategies.scripts(pack, max_steps=10))
    states, members = pack["workflow"]["states"], pack["agents"]["members"]
    for index, step in enumerate(script):
        kind = next(iter(step))
        if kind == "start":
            assert index == 0
            (how, name), *_ = step["start"].items()
            known = states if how == "at_state" else members
            assert name in {*known, strategies.UNKNOWN_STATE, strategies.UNKNOWN_AGENT}
        elif kind == "agent_text":
            assert step["agent_text"] in strategies.TEXTS
        elif kind == "user_turn":
            assert step == {"user_turn": True}
        else:
            assert kind in (
                "event",
                "set_artifact",
                "tool_calls",
                "advance_clock",
                "snapshot_restore",
            )


def test_turns_and_starts_are_off_for_other_packs() -> None:
    @FAST
    @given(st.data())
    def check(data: st.DataObject) -> None:
        pack = data.draw(strategies.packs())
        for step in data.draw(strategies.scripts(pack)):
            assert next(iter(step)) not in ("start", "agent_text", "user_turn")

    check()


@FAST
@given(st.data())
def test_single_steps(data: st.DataObject) -> None:
    pack = data.draw(strategies.packs())
    step = data.draw(strategies.steps(pack, snapshots=False))
    assert next(iter(step)) in ("event", "set_artifact", "tool_calls", "advance_clock")


# -- the contexts of SEMANTICS R16 --------------------------------------------------------------


def test_each_start_is_drawn_often_the_agent_start_likeliest() -> None:
    pack: dict[str, Any] = {
        "workflow": {"entry": "start", "states": {"start": {}, "work": {}, "check": {}}},
        "agents": {"members": {"main": {"state": "start"}, "aide": {"state": "work"}}},
    }
    starts = strategies._starts(pack)
    assert starts[0] is None  # what starts shrink to: the entry
    entry = starts.count(None)
    named = [s for s in starts if s is not None and s.get("at_state") in ("start", "work", "check")]
    agents = [s for s in starts if s is not None and s.get("agent") in ("main", "aide")]
    assert entry == len(named) == 3
    assert len(agents) >= 2 * len(named)
    del pack["agents"]
    starts = strategies._starts(pack)
    assert starts.count(None) == 3
    assert not [s for s in starts if s is not None and "agent" in s]


def test_scripts_start_at_named_states_in_packs_without_agents_when_asked() -> None:
    pack = {"workflow": {"entry": "start", "states": {"start": {"on_event": {"Go": "start"}}}}}
    found = find(
        strategies.scripts(pack, starts=True),
        lambda script: bool(script) and script[0].get("start") == {"at_state": "start"},
        settings=settings(database=None, max_examples=200),
    )
    assert found == [{"start": {"at_state": "start"}}]


def _scripts_drawn(directly: bool) -> list[list[dict[str, Any]]]:
    """The scripts one seed draws for packs with compositions and agents, through
    :func:`strategies.scripts` or as the fuzzer draws them (``directly``)."""
    found: list[list[dict[str, Any]]] = []

    @seed(3)
    @settings(
        max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(st.data())
    def draw(data: st.DataObject) -> None:
        pack = data.draw(strategies.packs(compositions=True, state_agents=True))
        if directly:
            found.append(strategies._draw_script(data.draw, pack, max_steps=10, starts=True))
        else:
            found.append(data.draw(strategies.scripts(pack, max_steps=10, starts=True)))

    draw()
    return found


def test_the_fuzzer_draws_scripts_as_scripts_does() -> None:
    # The same choices and the same spans: Hypothesis's mutations go by the spans, so a
    # difference there would draw other scripts after the first few examples.
    scripts = _scripts_drawn(directly=False)
    assert len(scripts) == 60
    assert len({repr(s) for s in scripts}) > 10
    assert _scripts_drawn(directly=True) == scripts


def _extensions_on(pack: dict[str, Any], where: str) -> bool:
    if where == "member":
        return any("extensions" in m for m in pack.get("agents", {}).get("members", {}).values())
    return any(
        "extensions" in branch
        for composition in pack.get("compositions", {}).values()
        for step in composition["steps"]
        for branch in step.get("branches", [])
    )


@pytest.mark.parametrize("where", ["member", "branch"])
def test_extensions_reach_every_slot_rfc_0016_allows(where: str) -> None:
    found = find(
        strategies.packs(extensions=True, state_agents=True, compositions=True),
        lambda pack: _extensions_on(pack, where),
        settings=settings(max_examples=2000, database=None),
    )
    assert not [d for d in reference.validate(found) if d.severity == "error"]


@pytest.mark.parametrize("mode", ["external", "hybrid"])
def test_control_agent_states_come_in_every_mode(mode: str) -> None:
    found = find(
        strategies.packs(control=True),
        lambda pack: any(
            s.get("control") == "agent" and s.get("orchestration") == mode
            for s in pack["workflow"]["states"].values()
        ),
        settings=settings(max_examples=2000, database=None),
    )
    assert not [d for d in reference.validate(found) if d.severity == "error"]


def _vendor_parts(pack: dict[str, Any]) -> set[str]:
    found = set()
    for composition in pack.get("compositions", {}).values():
        for step in composition["steps"]:
            if step["kind"] == "ppconf.upper":
                found.add("step")
            if any(b["kind"] == "ppconf.upper" for b in step.get("branches", [])):
                found.add("branch")
            if step.get("reduce", {}).get("strategy") == "ppconf.join":
                found.add("reducer")
    return found


@pytest.mark.parametrize("part", ["step", "branch", "reducer"])
def test_the_kit_s_test_extensions_come_where_asked(part: str) -> None:
    found = find(
        strategies.packs(workflow=False, compositions=True, vendor=True),
        lambda pack: part in _vendor_parts(pack),
        settings=settings(max_examples=2000, database=None),
    )
    assert not errors(found)


@FAST
@given(strategies.packs(compositions=True))
def test_the_kit_s_test_extensions_only_when_asked(pack: dict[str, Any]) -> None:
    assert not _vendor_parts(pack)
