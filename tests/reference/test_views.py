"""``read_workflow`` and ``read_composition``: a pack as the validation rules read it, for tools
that show it (the kit's drawings), whether the pack is valid or not."""

from __future__ import annotations

from typing import Any

import reference

PACK: dict[str, Any] = {
    "workflow": {
        "entry": "a",
        "states": {
            "a": {"prompt_task": "main", "on_event": {"Go": "b", "Bad": 7}, "on_max_visits": "c"},
            "b": {"prompt_task": "main", "terminal": True, "on_event": {"Back": "a"}},
            "c": {"prompt_task": "main"},
            "d": "not a state",
        },
    },
    "agents": {"members": {"helper": {"state": "c"}, "plain": {}}},
    "compositions": {
        "flow": {
            "steps": [
                {"id": "p", "kind": "parallel", "branches": [{"id": "x"}, "junk", {"id": "y"}]},
                "junk",
                {"id": "z", "kind": 5},
            ]
        }
    },
}


def test_a_workflow_reads_its_well_formed_states_with_x2() -> None:
    view = reference.read_workflow(PACK)
    assert view is not None
    assert list(view.all_states) == ["a", "b", "c", "d"]
    states = {state.name: state for state in view.states}
    assert list(states) == ["a", "b", "c"]  # d is not a mapping
    assert states["a"].events == {"Go": "b"}  # a target that is not a name is left out
    assert states["a"].redirect == "c"
    # X2: terminal when marked so, or when it has no on_event entries.
    assert [states[n].terminal for n in "abc"] == [False, True, True]
    assert reference.agent_members(PACK) == [("helper", "c"), ("plain", None)]


def test_no_workflow_reads_as_none() -> None:
    assert reference.read_workflow({"prompts": {}}) is None
    assert reference.read_workflow({"workflow": []}) is None


def test_a_composition_reads_every_step_object_in_document_order() -> None:
    read = reference.read_composition(PACK, "flow")
    assert [step.id for step in read.steps] == ["p", "x", "y", "z"]
    assert [read.steps[n].id for n in read.steps[0].members] == ["x", "y"]
    assert read.tops == [0, -1, 3]  # the second item is not a step object
    assert read.steps[3].kind is None  # a kind that is not a string
    assert reference.read_composition(PACK, "missing").steps == []
