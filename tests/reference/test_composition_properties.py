"""Property tests of the composition engine over generated valid compositions.

Each example is an acyclic composition of every step kind (prompt, agent, tool, branch,
parallel and the kit's vendor kind), with references, depends_on joins, retries and a script
of mocks in which responses to parallel branches carry random delays of 0 to 3 ms, so branches
finish in varying orders. The generated packs are checked with ``reference.validate``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from reference._compositions.extensions import test_extensions as kit_extensions
from reference._compositions.run import CompositionResult, StepTrace, run_composition

SETTINGS = settings(max_examples=100, deadline=None)

PROMPTS = ("p", "q")
TOOLS = ("t", "search", "submit")
DELAYS = (0.0, 0.0, 0.0, 0.001, 0.002, 0.003)
LEAF_KINDS = ("prompt", "prompt", "tool", "agent", "ppconf.upper")
TOP_KINDS = (*LEAF_KINDS, "branch", "branch", "parallel", "parallel")
STRATEGIES = ("append", "replace", "barrier", "ppconf.join")
VALUES = st.one_of(
    st.text("ab", max_size=3),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.sampled_from(("k", "v")), st.integers(0, 2), max_size=2),
)


def make_pack(composition: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "generated",
        "name": "Generated",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            name: {"id": name, "name": name, "version": "1.0.0", "system_template": "Go."}
            for name in PROMPTS
        },
        "tools": {name: {"name": name, "description": f"Tool {name}."} for name in TOOLS},
        "evals": [{"id": "quality", "type": "regex", "trigger": "every_turn"}],
        "workflow": {
            "version": 1,
            "entry": "main",
            "states": {
                "main": {"orchestration": "composition", "composition": "c", "terminal": True}
            },
        },
        "compositions": {"c": composition},
    }


class _Script:
    """The mocks being drawn up: responses by key, appended as steps are generated."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.mocks: dict[str, list[dict[str, Any]]] = {}

    def response(self, delayed: bool) -> dict[str, Any]:
        draw = self.draw
        response: dict[str, Any] = (
            {"error": "scripted failure"}
            if draw(st.integers(0, 11)) == 0
            else {"output": draw(VALUES)}
        )
        if delayed:
            response["delay"] = draw(st.sampled_from(DELAYS))
        return response

    def add(self, key: str, responses: list[dict[str, Any]]) -> None:
        self.mocks.setdefault(key, []).extend(responses)

    def calls(self, key: str, delayed: bool) -> None:
        """Script 0 to 3 one-shot responses (0: the step may run out: mock-exhausted)."""
        count = self.draw(st.sampled_from((1, 1, 1, 2, 3, 0)))
        self.add(key, [self.response(delayed) for _ in range(count)])

    def rounds(self, key: str, count: int, delayed: bool) -> None:
        """Script ``count`` agent rounds (sometimes one less), some with tool calls."""
        draw = self.draw
        rounds = []
        for _ in range(count - (draw(st.integers(0, 5)) == 0)):
            response = self.response(delayed)
            if "error" not in response and draw(st.booleans()):
                tools = draw(
                    st.lists(st.sampled_from(("search", "submit", "submit", "t")), max_size=2)
                )
                response["tool_calls"] = [{"tool": name, "args": {"n": 1}} for name in tools]
            rounds.append(response)
        self.add(key, rounds)


def _reference(draw: st.DrawFn, readable: list[str]) -> str:
    """A reference a step may make: the input, or an earlier step that is not a branch."""
    choices = ["${input.text}", "${input}", "${input.n}", "text ${input.n}"]
    choices += [f"${{{step}.output}}" for step in readable]
    return draw(st.sampled_from(choices))


def _predicate(draw: st.DrawFn, readable: list[str], depth: int = 0) -> dict[str, Any]:
    paths = ["${input.flag}", "${input.n}", "${input.missing}"]
    paths += [f"${{{step}.output}}" for step in readable]
    variant = draw(st.integers(0, 5 if depth < 2 else 2))
    path = draw(st.sampled_from(paths))
    if variant == 0:
        op = draw(st.sampled_from(("equals", "not_equals", "less_than", "greater_than_or_equals")))
        return {"path": path, "op": op, "value": draw(st.sampled_from((True, 1, 2, "a")))}
    if variant == 1:
        op = draw(st.sampled_from(("in", "not_in")))
        return {"path": path, "op": op, "value": [True, 1, "ab"]}
    if variant == 2:
        return {"path": path, "exists": draw(st.booleans())}
    if variant == 5:
        return {"not": _predicate(draw, readable, depth + 1)}
    items = [_predicate(draw, readable, depth + 1) for _ in range(draw(st.integers(0, 2)))]
    return {"all_of" if variant == 3 else "any_of": items}


def _leaf(
    draw: st.DrawFn,
    step_id: str,
    kind: str,
    readable: list[str],
    script: _Script,
    *,
    delayed: bool,
) -> dict[str, Any]:
    step: dict[str, Any] = {"id": step_id, "kind": kind}
    by_id = draw(st.booleans())
    if kind in ("prompt", "agent"):
        task = draw(st.sampled_from(PROMPTS))
        step["prompt_task"] = task
        if draw(st.booleans()):
            step["input"] = _reference(draw, readable)
        key = step_id if by_id else task
        if kind == "prompt":
            script.calls(key, delayed)
        else:
            termination: dict[str, Any] = {}
            if draw(st.booleans()):
                termination["tool_called"] = "submit"
            if not termination or draw(st.booleans()):
                termination["max_steps"] = draw(st.integers(1, 3))
            step["termination"] = termination
            if draw(st.integers(0, 3)):
                step["tools"] = ["search", "t"]
            script.rounds(key, termination.get("max_steps", 2), delayed)
            script.calls("search", delayed)
            script.calls("submit", delayed)
    elif kind == "tool":
        step["tool"] = "t"
        if draw(st.booleans()):
            step["args"] = {"value": _reference(draw, readable), "fixed": 1}
        script.calls(step_id if by_id else "t", delayed)
    else:  # the kit's vendor kind: upper-cases strings, fails on anything else
        references = ["${input.text}", "text ${input.n}", _reference(draw, readable)]
        step["input"] = draw(st.sampled_from(references))
    return step


@st.composite
def compositions(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """A valid acyclic composition, its mocks and an input."""
    kinds = draw(st.lists(st.sampled_from(TOP_KINDS), min_size=1, max_size=7))
    ids = [f"s{index}" for index in range(len(kinds))]
    script = _Script(draw)
    steps: list[dict[str, Any]] = []
    readable: list[str] = []  # earlier steps that may have output (not branches)
    for index, drawn in enumerate(kinds):
        step_id, later = ids[index], ids[index + 1 :]
        # A branch needs a later step to target.
        kind = "prompt" if drawn == "branch" and not later else drawn
        step: dict[str, Any]
        if kind == "branch":
            step = {
                "id": step_id,
                "kind": "branch",
                "predicate": _predicate(draw, readable),
                "then": draw(st.sampled_from(later)),
            }
            if draw(st.booleans()):
                step["else"] = draw(st.sampled_from(later))
        elif kind == "parallel":
            members = [
                _leaf(
                    draw,
                    f"{step_id}_{j}",
                    draw(st.sampled_from(LEAF_KINDS)),
                    readable,
                    script,
                    delayed=True,
                )
                for j in range(draw(st.integers(2, 3)))
            ]
            step = {
                "id": step_id,
                "kind": "parallel",
                "branches": members,
                "reduce": {"strategy": draw(st.sampled_from(STRATEGIES)), "into": "all"},
            }
        else:
            step = _leaf(draw, step_id, kind, readable, script, delayed=False)
        earlier = ids[:index]
        if earlier and draw(st.integers(0, 2)) == 0:
            step["depends_on"] = draw(
                st.lists(st.sampled_from(earlier), min_size=1, max_size=2, unique=True)
            )
        modifiers: dict[str, Any] = {}
        if draw(st.integers(0, 3)) == 0:
            modifiers["retry"] = {"max_attempts": draw(st.integers(1, 3))}
        if draw(st.integers(0, 4)) == 0:
            modifiers["eval"] = ["quality"]
        if modifiers:
            step["modifiers"] = modifiers
        steps.append(step)
        if kind != "branch":
            readable.append(step_id)
    composition: dict[str, Any] = {"version": 1, "steps": steps}
    named_output: bool = draw(st.booleans())
    if readable and named_output:
        composition["output"] = draw(st.sampled_from(readable))
    given_input: dict[str, Any] = {
        "flag": draw(st.booleans()),
        "n": draw(st.integers(0, 3)),
        "text": draw(st.text("ab", max_size=3)),
    }
    return composition, script.mocks, given_input


def run(composition: dict[str, Any], mocks: dict[str, Any], given_input: Any) -> CompositionResult:
    pack = make_pack(composition)
    errors = [str(d) for d in reference.validate(pack) if d.severity == "error"]
    assert errors == []  # the generator builds valid compositions
    return run_composition(pack, "c", given_input, mocks, extensions=kit_extensions())


def all_ids(composition: dict[str, Any]) -> list[str]:
    ids = []
    for step in composition["steps"]:
        ids.append(step["id"])
        ids.extend(member["id"] for member in step.get("branches", []))
    return ids


def flattened(result: CompositionResult) -> list[StepTrace]:
    return [step for trace in result.trace for step in (trace, *trace.members)]


@SETTINGS
@given(compositions())
def test_running_twice_gives_identical_results(example: tuple[Any, Any, Any]) -> None:
    composition, mocks, given_input = example
    first = run(composition, mocks, given_input).to_dict()
    second = run(composition, mocks, given_input).to_dict()
    assert first == second
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


@SETTINGS
@given(compositions())
def test_every_step_is_completed_skipped_or_failed_exactly_once(
    example: tuple[Any, Any, Any],
) -> None:
    composition, mocks, given_input = example
    result = run(composition, mocks, given_input)
    traced = flattened(result)
    assert sorted(step.step for step in traced) == sorted(all_ids(composition))
    assert [trace.step for trace in result.trace] == [step["id"] for step in composition["steps"]]
    for step in traced:
        assert step.status in ("completed", "skipped", "failed")
        assert (step.status == "skipped") == (step.attempts == 0) == (step.reason is not None)
        assert (step.status == "failed") == (step.error is not None)


@SETTINGS
@given(compositions())
def test_a_failure_ends_the_run(example: tuple[Any, Any, Any]) -> None:
    composition, mocks, given_input = example
    result = run(composition, mocks, given_input)
    assert (result.status == "failed") == (result.error is not None)
    failed = [index for index, trace in enumerate(result.trace) if trace.status == "failed"]
    assert len(failed) <= 1
    if failed:
        assert result.error is not None
        assert result.error.step == result.trace[failed[0]].step
        assert result.output is None
        after = [
            step for trace in result.trace[failed[0] + 1 :] for step in (trace, *trace.members)
        ]
        assert all(step.reason == "not-run" for step in after)
    elif result.status == "failed":
        assert result.error is not None
        assert result.error.code == "composition-no-output"


@SETTINGS
@given(compositions())
def test_parallel_outputs_merge_member_outputs_in_branch_order(
    example: tuple[Any, Any, Any],
) -> None:
    composition, mocks, given_input = example
    result = run(composition, mocks, given_input)
    for trace in result.trace:
        if trace.kind != "parallel" or trace.status != "completed":
            continue
        (raw,) = [step for step in composition["steps"] if step["id"] == trace.step]
        outputs = [(m.step, m.output) for m in trace.members if m.status == "completed"]
        expected = {
            "append": [output for _, output in outputs],
            "replace": outputs[-1][1] if outputs else None,
            "barrier": dict(outputs),
            "ppconf.join": "".join(str(output) for _, output in outputs),
        }[raw["reduce"]["strategy"]]
        assert trace.output == {"all": expected}
        assert [m.step for m in trace.members] == [m["id"] for m in raw["branches"]]


@st.composite
def fan_outs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[Any], list[Any]]:
    """One parallel step of 2-5 branches whose responses come after random delays.

    Without sharing, each branch is a prompt step with a list of its own. With sharing, every
    branch takes one response from the shared list ``search``: a tool step at once, or an agent
    step only after a model round of its own that is itself delayed.

    Returns the composition, the mocks, the merged outputs in branch order and, with sharing,
    the ``search`` response each branch must get (in branch order, as in a sequential run).
    """
    count = draw(st.integers(2, 5))
    values = draw(st.lists(VALUES, min_size=count, max_size=count))
    delays = draw(st.lists(st.sampled_from(DELAYS), min_size=count, max_size=count))
    shared: bool = draw(st.booleans())
    members: list[dict[str, Any]] = []
    mocks: dict[str, Any] = {}
    outputs: list[Any] = []
    for index, (value, delay) in enumerate(zip(values, delays, strict=True)):
        step_id = f"b{index}"
        if not shared:
            members.append({"id": step_id, "kind": "prompt", "prompt_task": "p"})
            mocks[step_id] = [{"output": value, "delay": delay}]
            outputs.append(value)
        elif draw(st.booleans()):
            members.append(
                {
                    "id": step_id,
                    "kind": "agent",
                    "prompt_task": "p",
                    "tools": ["search"],
                    "termination": {"max_steps": 1},
                }
            )
            round_ = {"tool_calls": [{"tool": "search"}], "output": step_id, "delay": delay}
            mocks[step_id] = [round_]
            outputs.append(step_id)
        else:
            members.append({"id": step_id, "kind": "tool", "tool": "search"})
            outputs.append(value)
    if shared:
        mocks["search"] = [
            {"output": value, "delay": draw(st.sampled_from(DELAYS))} for value in values
        ]
    strategy = draw(st.sampled_from(("append", "replace", "barrier")))
    composition = {
        "version": 1,
        "steps": [
            {
                "id": "fan",
                "kind": "parallel",
                "branches": members,
                "reduce": {"strategy": strategy, "into": "all"},
            }
        ],
    }
    return composition, mocks, outputs, values if shared else []


@settings(max_examples=100, deadline=None)
@given(fan_outs())
def test_merged_output_does_not_depend_on_finishing_order(
    example: tuple[dict[str, Any], dict[str, Any], list[Any], list[Any]],
) -> None:
    composition, mocks, outputs, searched = example
    result = run(composition, mocks, None)
    ids = [f"b{i}" for i in range(len(outputs))]
    strategy = composition["steps"][0]["reduce"]["strategy"]
    expected = {
        "append": outputs,
        "replace": outputs[-1],
        "barrier": dict(zip(ids, outputs, strict=True)),
    }[strategy]
    assert result.output == {"all": expected}
    if strategy == "barrier":
        assert list(result.output["all"]) == ids
    for step_id, value in zip(ids, searched, strict=False):
        member = result.step(step_id)
        got = member.tool_calls[0].output if member.kind == "agent" else member.output
        assert got == value  # the shared list is read in branch order
