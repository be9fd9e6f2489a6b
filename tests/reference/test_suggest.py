"""Tests of "did you mean": a close known name in the message of a diagnostic about an unknown
one, for every kind of reference the validator checks, and nothing where no name is close."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import reference
from reference import _suggest

PACK = """\
id: suggest
name: Suggest
version: 1.0.0
template_engine:
  version: v1
  syntax: "{{variable}}"
prompts:
  main:
    id: main
    name: Main
    version: 1.0.0
    system_template: Work.
  review:
    id: review
    name: Review
    version: 1.0.0
    system_template: Review.
tools:
  lookup:
    name: lookup
    description: Look a thing up.
workflow:
  version: 1
  entry: draft
  states:
    draft:
      prompt_task: main
      max_visits: 2
      on_max_visits: done
      on_event:
        Submit: reviewing
    reviewing:
      prompt_task: review
      on_event:
        Approve: done
        Pipeline: run
    run:
      prompt_task: main
      orchestration: composition
      composition: pipeline
      on_event:
        Finished: done
    done:
      prompt_task: main
      terminal: true
agents:
  entry: main
  members:
    main:
      state: draft
compositions:
  pipeline:
    version: 1
    output: summarise
    steps:
      - id: fetch
        kind: tool
        tool: lookup
      - id: summarise
        kind: prompt
        prompt_task: review
        depends_on: [fetch]
"""


@pytest.fixture
def pack() -> dict[str, Any]:
    data = reference.load_pack_string(PACK)
    assert reference.validate(data) == [], "the base pack is valid"
    return data


def _set(pack: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(pack)
    where: Any = changed
    for token in path[:-1]:
        where = where[token]
    where[path[-1]] = value
    return changed


S = ("workflow", "states")
STEPS = ("compositions", "pipeline", "steps")


@pytest.mark.parametrize(
    ("path", "typo", "code", "suggested"),
    [
        ((*S, "draft", "prompt_task"), "mian", "prompt-task-unknown", "main"),
        (("workflow", "entry"), "darft", "entry-unknown", "draft"),
        (
            (*S, "draft", "on_event", "Submit"),
            "reviewin",
            "event-target-unknown",
            "reviewing",
        ),
        ((*S, "draft", "on_max_visits"), "Done", "on-max-visits-unknown", "done"),
        ((*S, "run", "composition"), "pipelin", "composition-unknown", "pipeline"),
        (("agents", "members", "main", "state"), "drafts", "agent-state-unknown", "draft"),
        ((*STEPS, 0, "tool"), "lookpu", "step-tool-unknown", "lookup"),
        ((*STEPS, 1, "prompt_task"), "reveiw", "step-prompt-task-unknown", "review"),
        ((*STEPS, 1, "depends_on", 0), "fecth", "step-target-unknown", "fetch"),
        (
            ("compositions", "pipeline", "output"),
            "summarize",
            "composition-output-unknown",
            "summarise",
        ),
    ],
)
def test_a_close_name_is_suggested_in_the_message(
    pack: dict[str, Any],
    path: tuple[Any, ...],
    typo: str,
    code: str,
    suggested: str,
) -> None:
    found = [d for d in reference.validate(_set(pack, path, typo)) if d.code == code]
    assert len(found) == 1, found
    diagnostic = found[0]
    assert diagnostic.path == reference.json_pointer(*map(str, path))  # the pointer is kept
    assert diagnostic.message.endswith(f"; did you mean {suggested!r}?"), diagnostic.message
    assert repr(typo) in diagnostic.message


@pytest.mark.parametrize(
    ("path", "name", "code"),
    [
        ((*S, "draft", "prompt_task"), "zzzzzz", "prompt-task-unknown"),
        ((*S, "draft", "on_event", "Submit"), "elsewhere", "event-target-unknown"),
        ((*STEPS, 1, "depends_on", 0), "q", "step-target-unknown"),
    ],
)
def test_nothing_is_suggested_when_no_name_is_close(
    pack: dict[str, Any], path: tuple[Any, ...], name: str, code: str
) -> None:
    found = [d for d in reference.validate(_set(pack, path, name)) if d.code == code]
    assert len(found) == 1
    assert "did you mean" not in found[0].message


def test_a_parallel_branch_is_a_step_that_can_be_suggested(pack: dict[str, Any]) -> None:
    steps = [
        {
            "id": "both",
            "kind": "parallel",
            "branches": [
                {"id": "left_side", "kind": "tool", "tool": "lookup"},
                {"id": "right", "kind": "tool", "tool": "lookup"},
            ],
            "reduce": {"strategy": "merge"},
        },
        {"id": "after", "kind": "prompt", "prompt_task": "main", "depends_on": ["left_sid"]},
    ]
    changed = _set(pack, ("compositions", "pipeline", "steps"), steps)
    changed["compositions"]["pipeline"]["output"] = "after"
    found = [d for d in reference.validate(changed) if d.code == "step-target-unknown"]
    assert [d.message.rsplit(";", 1)[-1] for d in found] == [" did you mean 'left_side'?"]


def test_suggestions_stop_at_the_comparison_budget(
    pack: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four states to compare with: a budget of 8 covers two unknown targets, not three.
    monkeypatch.setattr(_suggest, "COMPARISONS", 8)
    changed = copy.deepcopy(pack)
    events = changed["workflow"]["states"]["reviewing"]["on_event"]
    events.update({"A1": "drafft", "A2": "drafft", "A3": "drafft"})
    found = [d for d in reference.validate(changed) if d.code == "event-target-unknown"]
    assert [("did you mean" in d.message) for d in found] == [True, True, False]


def test_the_same_name_in_another_case_comes_first() -> None:
    assert _suggest.close_name("DONE", ["done", "dune", "DONE!"]) == "done"
    assert _suggest.close_name("mian", ["review", "main"]) == "main"
    assert _suggest.close_name("main", ["main"]) is None  # known, nothing to suggest
