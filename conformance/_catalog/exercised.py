"""The contexts (R16) each part of a case exercises, derived from the case itself.

Derived, never written: the start of a scenario (``start:entry``, ``start:state``,
``start:agent``), the source of each event, the budget kinds the pack sets (one kind alone, or
``budget:all`` for several together), ``check:load`` and ``check:validate`` for the load and
validation parts, the orchestration of every state the scenario's session is in, and whether
the compositions it runs have steps in sequence or inside a parallel block. The states a
scenario visits are read by playing its script on the reference interpreter (whose run of the
catalog passes every check, so it goes where the case says). A case's or scenario's written
``contexts`` add what derivation cannot see.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

import reference
from conformance._catalog.cases import Case, Scenario
from conformance._catalog.steps import (
    AdvanceClock,
    AgentText,
    Event,
    RunComposition,
    RunState,
    SetArtifact,
    ToolCalls,
    UserTurn,
)

__all__ = ["BUDGET_KINDS", "budget_context", "part_contexts"]

BUDGET_KINDS = ("max_total_visits", "max_tool_calls", "max_wall_time_sec")
"""The limits of ``workflow.engine.budget`` (RFC 0009)."""


def part_contexts(case: Case, part: str) -> frozenset[str]:
    """The contexts one part of a case exercises: derived, plus what the case writes."""
    written = set(case.contexts)
    if part == "load":
        return frozenset({"check:load", *written})
    if part == "validation":
        return frozenset({"check:validate", *written})
    scenario = next((s for s in case.scenarios if s.name == part), None)
    if scenario is None:
        return frozenset(written)
    return frozenset(_scenario_contexts(case, scenario) | written | set(scenario.contexts))


def budget_context(pack: Mapping[str, Any] | None) -> str | None:
    """``budget:<kind>`` for a pack setting one budget kind, ``budget:all`` for several,
    ``None`` for none."""
    workflow = pack.get("workflow") if isinstance(pack, Mapping) else None
    engine = workflow.get("engine") if isinstance(workflow, Mapping) else None
    budget = engine.get("budget") if isinstance(engine, Mapping) else None
    if not isinstance(budget, Mapping):
        return None
    kinds = [kind for kind in BUDGET_KINDS if budget.get(kind) is not None]
    if not kinds:
        return None
    return f"budget:{kinds[0]}" if len(kinds) == 1 else "budget:all"


def _scenario_contexts(case: Case, scenario: Scenario) -> set[str]:
    found: set[str] = set()
    pack = case.pack.document
    if scenario.needs_session:
        if scenario.start_agent is not None:
            found.add("start:agent")
        elif scenario.start_state is not None:
            found.add("start:state")
        else:
            found.add("start:entry")
        budget = budget_context(pack)
        if budget is not None:
            found.add(budget)
    for step in scenario.steps:
        if isinstance(step, Event):
            found.add("source:agent" if step.source == "agent" else "source:host")
    states, compositions = _walk(pack, scenario)
    orchestrations = _orchestrations(pack)
    found.update(f"orchestration:{orchestrations.get(s, 'internal')}" for s in states)
    compositions.extend(s.name for s in scenario.steps if isinstance(s, RunComposition))
    found.update(_step_contexts(pack, compositions))
    return found


def _orchestrations(pack: Mapping[str, Any] | None) -> dict[str, str]:
    states = _states(pack)
    return {
        name: state.get("orchestration", "internal")
        for name, state in states.items()
        if isinstance(state, Mapping) and isinstance(state.get("orchestration", ""), str)
    }


def _states(pack: Mapping[str, Any] | None) -> Mapping[str, Any]:
    workflow = pack.get("workflow") if isinstance(pack, Mapping) else None
    states = workflow.get("states") if isinstance(workflow, Mapping) else None
    return states if isinstance(states, Mapping) else {}


def _walk(pack: Mapping[str, Any] | None, scenario: Scenario) -> tuple[list[str], list[str]]:
    """The states the scenario's session is in, step by step, and the compositions its
    ``run_state`` steps run, as the reference plays the script."""
    if pack is None or not scenario.needs_session or scenario.start_rejection is not None:
        return [], []
    clock = reference.ManualClock()
    try:
        session = reference.start_session(
            pack, clock=clock, at_state=scenario.start_state, agent=scenario.start_agent
        )
    except (reference.InterpreterError, ValueError):
        return [], []
    states = [session.current_state]
    compositions: list[str] = []
    for step in scenario.steps:
        # A rejected input changes nothing; the case says what must be seen.
        with contextlib.suppress(reference.InterpreterError, ValueError):
            _play(session, clock, step, compositions, _states(pack))
        states.append(session.current_state)
    return states, compositions


def _play(
    session: reference.Session,
    clock: reference.ManualClock,
    step: object,
    compositions: list[str],
    states: Mapping[str, Any],
) -> None:
    if isinstance(step, Event):
        session.send(step.event, "agent" if step.source == "agent" else "host")
    elif isinstance(step, ToolCalls):
        session.record_tool_calls(step.count)
    elif isinstance(step, AdvanceClock):
        clock.advance(step.seconds)
    elif isinstance(step, SetArtifact):
        session.set_artifact(step.name, step.value)
    elif isinstance(step, AgentText):
        session.agent_text(step.text)
    elif isinstance(step, UserTurn):
        session.user_turn()
    elif isinstance(step, RunState):
        state = states.get(session.current_state)
        if isinstance(state, Mapping) and isinstance(state.get("composition"), str):
            compositions.append(state["composition"])


def _step_contexts(pack: Mapping[str, Any] | None, names: Iterable[str]) -> set[str]:
    """``step:sequential`` for a composition run with a step outside any parallel block,
    ``step:parallel`` for one with a parallel block."""
    defined = pack.get("compositions") if isinstance(pack, Mapping) else None
    if not isinstance(defined, Mapping):
        return set()
    found: set[str] = set()
    for name in names:
        composition = defined.get(name)
        steps = composition.get("steps") if isinstance(composition, Mapping) else None
        if not isinstance(steps, list):
            continue
        for step in steps:
            if isinstance(step, Mapping):
                found.add("step:parallel" if step.get("kind") == "parallel" else "step:sequential")
    return found
