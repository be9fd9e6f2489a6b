"""Unit tests of the composition engine against SEMANTICS.md section 4 (C1-C12).

Every rule and failure code has a test that shows it and a near miss that does not. The packs
built here are checked with ``reference.validate`` first (``make_pack(..., check=True)``), so
the engine is tested on valid compositions, as the kit runs them; the few tests of malformed
input say so.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import reference
from reference._compositions.extensions import Extensions, StepFailure
from reference._compositions.extensions import test_extensions as kit_extensions
from reference._compositions.run import (
    CompositionResult,
    CompositionRunError,
    run_composition,
    run_state_composition,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples/rfc"

# -- helpers -----------------------------------------------------------------------------------

PROMPTS = ("p", "q", "r")
TOOLS = ("t", "u", "search", "submit")


def make_pack(
    steps: list[dict[str, Any]],
    *,
    output: str | None = None,
    evals: Sequence[str] = (),
    check: bool = True,
) -> dict[str, Any]:
    """A pack with one composition ``c`` of ``steps``, run by a one-state workflow."""
    composition: dict[str, Any] = {"version": 1, "steps": steps}
    if output is not None:
        composition["output"] = output
    pack: dict[str, Any] = {
        "id": "unit",
        "name": "Unit",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            name: {"id": name, "name": name.upper(), "version": "1.0.0", "system_template": "Go."}
            for name in PROMPTS
        },
        "tools": {name: {"name": name, "description": f"Tool {name}."} for name in TOOLS},
        "workflow": {
            "version": 1,
            "entry": "main",
            "states": {
                "main": {"orchestration": "composition", "composition": "c", "terminal": True}
            },
        },
        "compositions": {"c": composition},
    }
    if evals:
        pack["evals"] = [{"id": name, "type": "regex", "trigger": "every_turn"} for name in evals]
    if check:
        errors = [str(d) for d in reference.validate(pack) if d.severity == "error"]
        assert errors == [], errors  # the helpers must build valid compositions
    return pack


def run(
    steps: list[dict[str, Any]],
    mocks: Mapping[str, Any] | None = None,
    *,
    input: Any = None,
    output: str | None = None,
    extensions: Extensions | None = None,
    evals: Sequence[str] = (),
    check: bool = True,
) -> CompositionResult:
    pack = make_pack(steps, output=output, evals=evals, check=check)
    return run_composition(pack, "c", input, {} if mocks is None else mocks, extensions=extensions)


def prompt(step_id: str, task: str = "p", **fields: Any) -> dict[str, Any]:
    return {"id": step_id, "kind": "prompt", "prompt_task": task, **fields}


def tool(step_id: str, name: str = "t", **fields: Any) -> dict[str, Any]:
    return {"id": step_id, "kind": "tool", "tool": name, **fields}


def agent(step_id: str, termination: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": step_id,
        "kind": "agent",
        "prompt_task": "p",
        "termination": termination,
        **fields,
    }


def branch(step_id: str, predicate: Any, then: str, otherwise: str | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"id": step_id, "kind": "branch", "predicate": predicate, "then": then}
    if otherwise is not None:
        step["else"] = otherwise
    return step


def parallel(
    step_id: str, members: list[Any], strategy: str, into: Any = "merged"
) -> dict[str, Any]:
    return {
        "id": step_id,
        "kind": "parallel",
        "branches": members,
        "reduce": {"strategy": strategy, "into": into},
    }


def out(value: Any, **fields: Any) -> dict[str, Any]:
    return {"output": value, **fields}


def statuses(result: CompositionResult) -> dict[str, str]:
    """Step id -> status for every step, parallel members included."""
    found: dict[str, str] = {}
    for trace in result.trace:
        for step in (trace, *trace.members):
            assert step.step not in found
            found[step.step] = step.status
    return found


def failed(result: CompositionResult) -> str:
    assert result.status == "failed"
    assert result.error is not None
    return result.error.code


IS_TRUE = {"path": "${input.flag}", "op": "equals", "value": True}

# -- C1: array order and depends_on ------------------------------------------------------------


def test_steps_run_in_array_order() -> None:
    # Both steps draw from the prompt task's list, so the order of the calls shows.
    result = run([prompt("first"), prompt("second")], {"p": [out("A"), out("B")]})
    assert [result.step("first").output, result.step("second").output] == ["A", "B"]


def test_steps_run_in_array_order_near_miss_swapped() -> None:
    result = run([prompt("second"), prompt("first")], {"p": [out("A"), out("B")]})
    assert [result.step("first").output, result.step("second").output] == ["B", "A"]


def test_step_whose_dependencies_were_all_skipped_is_skipped() -> None:
    steps = [
        branch("route", IS_TRUE, "a", "b"),
        prompt("a"),
        prompt("b", depends_on=["route"]),
        prompt("after_a", depends_on=["a"]),
    ]
    result = run(steps, {"b": [out("B")]}, input={"flag": False})
    assert statuses(result) == {
        "route": "completed",
        "a": "skipped",
        "b": "completed",
        "after_a": "skipped",
    }
    assert result.step("after_a").reason == "dependencies-skipped"
    assert result.output == "B"


def test_step_runs_when_one_dependency_ran() -> None:
    steps = [
        branch("route", IS_TRUE, "a", "b"),
        prompt("a"),
        prompt("b", depends_on=["route"]),
        prompt("join", task="q", depends_on=["a", "b"]),
    ]
    result = run(steps, {"b": [out("B")], "q": [out("J")]}, input={"flag": False})
    assert result.step("join").status == "completed"
    assert result.output == "J"


def test_skips_propagate_through_depends_on_chains() -> None:
    steps = [
        branch("route", IS_TRUE, "a"),
        prompt("a"),
        prompt("b", depends_on=["a"]),
        prompt("c", depends_on=["b"]),
        prompt("d", task="q", depends_on=["route"]),
    ]
    result = run(steps, {"q": [out("D")]}, input={"flag": False})
    assert [result.step(s).status for s in "abcd"] == ["skipped"] * 3 + ["completed"]


def test_a_step_without_depends_on_runs_after_a_skipped_step() -> None:
    # The implicit "follows the previous step" order carries no skip (else RFC example 2's
    # else-target would be skipped whenever the then-target is).
    steps = [branch("route", IS_TRUE, "a"), prompt("a"), prompt("after", task="q")]
    result = run(steps, {"q": [out("X")]}, input={"flag": False})
    assert result.step("a").status == "skipped"
    assert result.step("after").status == "completed"


# -- C2: branch --------------------------------------------------------------------------------


@pytest.mark.parametrize(("flag", "taken", "skipped"), [(True, "yes", "no"), (False, "no", "yes")])
def test_branch_skips_the_target_not_taken(flag: bool, taken: str, skipped: str) -> None:
    steps = [branch("route", IS_TRUE, "yes", "no"), prompt("yes"), prompt("no", task="q")]
    result = run(steps, {"p": [out("Y")], "q": [out("N")]}, input={"flag": flag})
    decision = result.step("route").decision
    assert decision is not None
    assert (decision.value, decision.taken, decision.skipped) == (flag, taken, skipped)
    assert result.step(taken).status == "completed"
    assert result.step(skipped).status == "skipped"
    assert result.step(skipped).reason == "branch-not-taken"


def test_branch_does_not_jump_steps_between_it_and_its_target() -> None:
    steps = [
        branch("route", IS_TRUE, "target"),
        prompt("between", task="q"),
        prompt("target"),
    ]
    result = run(steps, {"q": [out("B")], "p": [out("T")]}, input={"flag": True})
    assert statuses(result) == {"route": "completed", "between": "completed", "target": "completed"}


def test_branch_without_else_false_skips_then_and_falls_through() -> None:
    steps = [branch("route", IS_TRUE, "then_step"), prompt("then_step"), prompt("next", task="q")]
    result = run(steps, {"q": [out("N")]}, input={"flag": False})
    decision = result.step("route").decision
    assert decision is not None
    assert (decision.value, decision.taken, decision.skipped) == (False, None, "then_step")
    assert result.step("then_step").status == "skipped"
    assert result.output == "N"


def test_branch_without_else_true_runs_then_near_miss() -> None:
    steps = [branch("route", IS_TRUE, "then_step"), prompt("then_step"), prompt("next", task="q")]
    result = run(steps, {"p": [out("T")], "q": [out("N")]}, input={"flag": True})
    decision = result.step("route").decision
    assert decision is not None
    assert (decision.taken, decision.skipped) == ("then_step", None)
    assert result.step("then_step").status == "completed"


@pytest.mark.parametrize("flag", [True, False])
def test_branch_with_then_equal_to_else_skips_nothing(flag: bool) -> None:
    steps = [branch("route", IS_TRUE, "only", "only"), prompt("only")]
    result = run(steps, {"p": [out("O")]}, input={"flag": flag})
    decision = result.step("route").decision
    assert decision is not None
    assert (decision.taken, decision.skipped) == ("only", None)
    assert result.step("only").status == "completed"


def test_a_skipped_branch_takes_neither_target() -> None:
    steps = [
        branch("outer", IS_TRUE, "inner", "other"),
        branch("inner", IS_TRUE, "x", "y"),
        prompt("x"),
        prompt("y"),
        prompt("other", task="q"),
    ]
    result = run(steps, {"q": [out("O")]}, input={"flag": False})
    assert result.step("inner").reason == "branch-not-taken"
    assert result.step("x").reason == "branch-skipped"
    assert result.step("y").reason == "branch-skipped"
    assert result.output == "O"


def test_a_branch_that_decided_skips_only_one_target_near_miss() -> None:
    steps = [
        branch("outer", IS_TRUE, "inner", "other"),
        branch("inner", IS_TRUE, "x", "y"),
        prompt("x"),
        prompt("y", task="r"),
        prompt("other", task="q"),
    ]
    result = run(steps, {"p": [out("X")]}, input={"flag": True})
    assert result.step("x").status == "completed"
    assert result.step("y").reason == "branch-not-taken"
    assert result.step("other").reason == "branch-not-taken"


def test_a_branch_may_target_a_parallel_member() -> None:
    steps = [
        branch("route", IS_TRUE, "a", "b"),
        parallel("fan", [prompt("a"), prompt("b", task="q")], "append"),
    ]
    result = run(steps, {"p": [out("A")], "q": [out("B")]}, input={"flag": True})
    assert result.step("b").reason == "branch-not-taken"
    assert result.output == {"merged": ["A"]}


# -- C3: parallel ------------------------------------------------------------------------------

FAN = [
    prompt("one", task="p"),
    prompt("two", task="q"),
    tool("three", name="t", args={"x": "${input.x}"}),
]
# The first branch finishes last and the last first: merging must not follow finishing order.
SLOW_FIRST = {
    "p": [out("A", delay=0.03)],
    "q": [out("B", delay=0.015)],
    "t": [out("C")],
}


@pytest.mark.parametrize(
    ("strategy", "merged"),
    [
        ("append", ["A", "B", "C"]),
        ("replace", "C"),
        ("barrier", {"one": "A", "two": "B", "three": "C"}),
    ],
)
def test_parallel_merges_in_branch_order(strategy: str, merged: Any) -> None:
    result = run([parallel("fan", FAN, strategy)], SLOW_FIRST, input={"x": 1})
    assert result.output == {"merged": merged}
    if strategy == "barrier":
        assert list(result.output["merged"]) == ["one", "two", "three"]
    assert [m.step for m in result.step("fan").members] == ["one", "two", "three"]


def test_parallel_result_is_exposed_under_into() -> None:
    steps = [
        parallel("fan", FAN, "barrier", into="meta"),
        prompt("use", task="r", input="${fan.output.meta.two}", depends_on=["fan"]),
    ]
    result = run(steps, {**SLOW_FIRST, "r": [out("done")]}, input={"x": 1})
    assert result.step("use").input == "B"
    assert result.step("fan").output == {"meta": {"one": "A", "two": "B", "three": "C"}}


def test_parallel_members_outputs_are_visible_after_the_parallel() -> None:
    steps = [
        parallel("fan", FAN, "replace"),
        prompt("use", task="r", input="${one.output}", depends_on=["fan"]),
    ]
    result = run(steps, {**SLOW_FIRST, "r": [out("done")]}, input={"x": 1})
    assert result.step("use").input == "A"


def test_parallel_branches_start_from_the_same_scope() -> None:
    steps = [
        prompt("before", task="r"),
        parallel(
            "fan",
            [prompt("a", input="${before.output}"), prompt("b", task="q", input="${input.x}")],
            "append",
        ),
    ]
    result = run(steps, {"r": [out("R")], "p": [out(1)], "q": [out(2)]}, input={"x": "X"})
    assert [m.input for m in result.step("fan").members] == ["R", "X"]


def test_parallel_branches_cannot_see_each_other() -> None:
    # The rulebook finds it (reference-unresolved), so the engine refuses it before running.
    members = [prompt("a"), prompt("b", task="q", input="${a.output}")]
    with pytest.raises(CompositionRunError) as caught:
        run([parallel("fan", members, "append")], {"p": [out("A")]}, check=False)
    assert caught.value.code == "reference-unresolved"
    assert caught.value.where == "/compositions/c/steps/0/branches/1/input"


def test_parallel_branches_run_concurrently() -> None:
    # Each branch waits until both are inside: run one after the other, they would time out.
    barrier = threading.Barrier(2, timeout=5)

    def meet(step: Mapping[str, Any], input: Any) -> Any:
        barrier.wait()
        return input

    extensions = Extensions()
    extensions.register_kind("test.meet", meet)
    members = [
        {"id": "a", "kind": "test.meet", "input": "A"},
        {"id": "b", "kind": "test.meet", "input": "B"},
    ]
    result = run([parallel("fan", members, "append")], extensions=extensions)
    assert result.output == {"merged": ["A", "B"]}


def test_a_failing_branch_fails_the_step_after_all_branches_finish() -> None:
    members = [prompt("fast_fail"), prompt("slow", task="q"), tool("also_fails")]
    mocks = {
        "fast_fail": [{"error": "first broke"}],
        "slow": [out("S", delay=0.03)],
        "also_fails": [{"error": "third broke"}],
    }
    result = run([parallel("fan", members, "append"), prompt("after", task="r")], mocks)
    assert failed(result) == "parallel-branch-failed"
    assert result.error is not None
    assert result.error.step == "fan"
    assert "fast_fail" in result.error.message
    assert "also_fails" in result.error.message
    assert "slow" not in result.error.message
    assert [m.status for m in result.step("fan").members] == ["failed", "completed", "failed"]
    assert result.step("slow").output == "S"
    assert result.step("after").reason == "not-run"


def test_a_parallel_without_failing_branches_completes_near_miss() -> None:
    members = [prompt("fast_fail"), prompt("slow", task="q")]
    mocks = {"fast_fail": [out(1)], "slow": [out(2, delay=0.01)]}
    result = run([parallel("fan", members, "append")], mocks)
    assert result.status == "completed"


def test_branches_sharing_a_mock_list_take_responses_in_branch_order() -> None:
    # Branch one calls `search` only after a slow model round; branch two calls it at once.
    # Both draw from mocks["search"], and branch one still gets the first response.
    members = [
        agent("one", {"max_steps": 1}, tools=["search"]),
        tool("two", name="search"),
    ]
    mocks = {
        "one": [{"tool_calls": [{"tool": "search"}], "output": "done", "delay": 0.03}],
        "search": [out("first"), out("second")],
    }
    result = run([parallel("fan", members, "append")], mocks)
    assert result.step("one").tool_calls[0].output == "first"
    assert result.step("two").output == "second"


def test_branches_with_their_own_mock_lists_do_not_wait_for_each_other() -> None:
    delay = 1.0
    started = time.perf_counter()
    members = [prompt("one"), prompt("two"), prompt("three")]
    mocks = {name: [out(name, delay=delay)] for name in ("one", "two", "three")}
    result = run([parallel("fan", members, "append")], mocks)
    assert result.output == {"merged": ["one", "two", "three"]}
    # Not a speed target: one after another, the three sleeps cannot take less than their sum
    # (3 s) however fast the machine; together they take about one (1 s), which leaves a busy
    # machine two whole seconds of margin before the bound could be reached.
    assert time.perf_counter() - started < 3 * delay


def test_parallel_member_skipped_by_depends_on() -> None:
    steps = [
        branch("route", IS_TRUE, "gate"),
        prompt("gate", task="r"),
        parallel("fan", [prompt("a"), prompt("b", task="q", depends_on=["gate"])], "replace"),
    ]
    result = run(steps, {"p": [out("A")], "q": [out("B")]}, input={"flag": False})
    assert result.step("b").reason == "dependencies-skipped"
    assert result.output == {"merged": "A"}


def test_a_skipped_parallel_skips_its_members() -> None:
    steps = [
        branch("route", IS_TRUE, "fan", "other"),
        parallel("fan", [prompt("a"), prompt("b")], "append"),
        prompt("other", task="q"),
    ]
    result = run(steps, {"q": [out("O")]}, input={"flag": False})
    assert result.step("fan").reason == "branch-not-taken"
    assert [m.reason for m in result.step("fan").members] == ["parallel-skipped"] * 2


# -- C4: only leaf kinds in a parallel ---------------------------------------------------------


def test_a_branch_inside_a_parallel_is_refused() -> None:
    members = [prompt("a"), branch("inner", IS_TRUE, "a")]
    with pytest.raises(CompositionRunError) as caught:
        run([parallel("fan", members, "append")], check=False)
    assert caught.value.code == "parallel-member-kind"
    assert caught.value.where == "/compositions/c/steps/0/branches/1/kind"


def test_a_vendor_step_inside_a_parallel_runs_near_miss() -> None:
    members = [prompt("a"), {"id": "b", "kind": "ppconf.upper", "input": "x"}]
    result = run(
        [parallel("fan", members, "append")], {"p": [out("A")]}, extensions=kit_extensions()
    )
    assert result.output == {"merged": ["A", "X"]}


# -- C5: references ----------------------------------------------------------------------------

SOURCE = {"s": "text", "n": 2.5, "i": 10, "b": True, "z": None, "l": [1, "a"], "o": {"k": [1, 2]}}


@pytest.mark.parametrize("key", list(SOURCE))
def test_a_whole_reference_keeps_the_json_type(key: str) -> None:
    steps = [prompt("src"), prompt("use", task="q", input=f"${{src.output.{key}}}")]
    result = run(steps, {"src": [out(SOURCE)], "q": [out("ok")]})
    value = result.step("use").input
    assert value == SOURCE[key]
    assert type(value) is type(SOURCE[key])


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("s", "<text>"),
        ("n", "<2.5>"),
        ("i", "<10>"),
        ("b", "<true>"),
        ("z", "<null>"),
        ("l", '<[1,"a"]>'),
        ("o", '<{"k":[1,2]}>'),
    ],
)
def test_an_embedded_reference_becomes_text(key: str, text: str) -> None:
    steps = [prompt("src"), prompt("use", task="q", input=f"<${{src.output.{key}}}>")]
    result = run(steps, {"src": [out(SOURCE)], "q": [out("ok")]})
    assert result.step("use").input == text


def test_references_resolve_inside_objects_and_lists_but_not_in_keys() -> None:
    args = {"${input.a}": ["${input.a}", {"deep": "${input.b.c}"}], "n": 3}
    result = run([tool("call", args=args)], {"t": [out(None)]}, input={"a": 1, "b": {"c": "C"}})
    assert result.step("call").input == {"${input.a}": [1, {"deep": "C"}], "n": 3}


def test_input_reference_reads_the_whole_input() -> None:
    result = run([prompt("a", input="${input}")], {"p": [out(0)]}, input={"x": [1]})
    assert result.step("a").input == {"x": [1]}


def test_several_references_in_one_string() -> None:
    result = run(
        [prompt("a", input="${input.x}-${input.y}")], {"p": [out(0)]}, input={"x": 1, "y": "b"}
    )
    assert result.step("a").input == "1-b"


@pytest.mark.parametrize(
    "reference",
    [
        "${input.missing}",  # no such key
        "${input.x.deeper}",  # x is a number, not an object
        "${input.l.0}",  # lists are not walked
        "prefix ${input.missing} suffix",  # embedded
    ],
)
def test_an_unresolved_reference_fails_the_step(reference: str) -> None:
    steps = [prompt("a", input=reference), prompt("b", task="q")]
    result = run(steps, {"p": [out(0)], "q": [out(1)]}, input={"x": 1, "l": [1]})
    assert failed(result) == "reference-unresolved"
    assert result.error is not None
    assert result.error.step == "a"
    assert result.step("a").status == "failed"
    assert result.step("b").reason == "not-run"


def test_a_resolvable_reference_near_miss() -> None:
    result = run([prompt("a", input="${input.x}")], {"p": [out(0)]}, input={"x": None})
    assert result.status == "completed"
    assert result.step("a").input is None


def test_referencing_a_skipped_step_is_unresolved() -> None:
    steps = [
        branch("route", IS_TRUE, "maybe"),
        prompt("maybe"),
        prompt("use", task="q", input="${maybe.output}"),
    ]
    result = run(steps, {"p": [out("M")], "q": [out("U")]}, input={"flag": False})
    assert failed(result) == "reference-unresolved"
    assert "skipped" in result.step("use").error.message  # type: ignore[union-attr]
    near_miss = run(steps, {"p": [out("M")], "q": [out("U")]}, input={"flag": True})
    assert near_miss.step("use").input == "M"


# -- C6: predicates ----------------------------------------------------------------------------


def decide(predicate: dict[str, Any], value: Any = None, *, present: bool = True) -> bool:
    """Run a branch on ``${src.output.v}`` where ``v`` is ``value`` (absent if not present)."""
    source = {"v": value} if present else {}
    steps = [prompt("src"), branch("route", predicate, "yes"), prompt("yes", task="q")]
    result = run(steps, {"src": [out(source)], "q": [out("Y")]})
    assert result.status == "completed", result.error
    decision = result.step("route").decision
    assert decision is not None
    return decision.value


def cmp(op: str, value: Any) -> dict[str, Any]:
    return {"path": "${src.output.v}", "op": op, "value": value}


@pytest.mark.parametrize(
    ("op", "actual", "literal", "expected"),
    [
        ("equals", 1, 1.0, True),
        ("equals", 1, 1, True),
        ("equals", "1", 1, False),
        ("equals", 1, "1", False),
        ("equals", True, 1, False),
        ("equals", 0, False, False),
        ("equals", None, None, True),
        ("equals", "a", "a", True),
        ("equals", [1, {"a": 2}], [1.0, {"a": 2.0}], True),
        ("equals", [1, 2], [2, 1], False),
        ("equals", {"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
        ("equals", {"a": 1}, {"a": 1, "b": None}, False),
        ("equals", [], [], True),
        ("not_equals", [], [], False),
        ("not_equals", ["x"], [], True),
        ("not_equals", 1, 1.0, False),
        ("in", "b", ["a", "b"], True),
        ("in", 2, [1.0, 2.0], True),
        ("in", "2", [2], False),
        ("in", [1], [[1], [2]], True),
        ("in", "c", [], False),
        ("not_in", "c", ["a", "b"], True),
        ("not_in", "a", ["a", "b"], False),
        ("less_than", 1, 2, True),
        ("less_than", 2, 2, False),
        ("less_than_or_equals", 2, 2.0, True),
        ("greater_than", 0.81, 0.8, True),
        ("greater_than", 7, 7, False),
        ("greater_than_or_equals", 7, 7, True),
        ("greater_than_or_equals", -1, 0, False),
    ],
)
def test_compare_predicates(op: str, actual: Any, literal: Any, expected: bool) -> None:
    assert decide(cmp(op, literal), actual) is expected


@pytest.mark.parametrize(
    ("op", "literal", "expected"),
    [("equals", None, True), ("not_equals", None, False), ("in", [None], True), ("in", [1], False)],
)
def test_a_missing_path_reads_as_null(op: str, literal: Any, expected: bool) -> None:
    assert decide(cmp(op, literal), present=False) is expected


@pytest.mark.parametrize(
    ("actual", "literal", "present"),
    [
        ("1", 2, True),
        (1, "2", True),
        (True, 0, True),
        (None, 1, True),
        (1, None, True),
        ([1], 2, True),
        (None, 1, False),
    ],
)
def test_ordered_ops_need_two_numbers(actual: Any, literal: Any, present: bool) -> None:
    source = {"v": actual} if present else {}
    steps = [prompt("src"), branch("route", cmp("less_than", literal), "yes"), prompt("yes")]
    result = run(steps, {"src": [out(source)]})
    assert failed(result) == "predicate-type-error"
    assert result.error is not None
    assert result.error.step == "route"


@pytest.mark.parametrize(
    ("value", "present", "expected"), [(None, True, True), (0, True, True), (None, False, False)]
)
def test_exists_tests_presence(value: Any, present: bool, expected: bool) -> None:
    predicate = {"path": "${src.output.v}", "exists": True}
    assert decide(predicate, value, present=present) is expected
    predicate = {"path": "${src.output.v}", "exists": False}
    assert decide(predicate, value, present=present) is not expected


def test_exists_on_a_skipped_step_is_false() -> None:
    steps = [
        branch("route", IS_TRUE, "maybe"),
        prompt("maybe"),
        branch("check", {"path": "${maybe.output}", "exists": True}, "yes"),
        prompt("yes", task="q"),
    ]
    result = run(steps, {"p": [out(None)], "q": [out("Y")]}, input={"flag": False})
    assert result.step("check").decision.value is False  # type: ignore[union-attr]
    result = run(steps, {"p": [out(None)], "q": [out("Y")]}, input={"flag": True})
    assert result.step("check").decision.value is True  # type: ignore[union-attr]


YES, NO = cmp("equals", 1), cmp("equals", 2)


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        ({"all_of": []}, True),
        ({"any_of": []}, False),
        ({"all_of": [YES, YES]}, True),
        ({"all_of": [YES, NO]}, False),
        ({"any_of": [NO, YES]}, True),
        ({"any_of": [NO, NO]}, False),
        ({"not": YES}, False),
        ({"not": NO}, True),
        ({"not": {"all_of": []}}, False),
        ({"any_of": [{"all_of": [YES, {"not": NO}]}, NO]}, True),
    ],
)
def test_composite_predicates(predicate: dict[str, Any], expected: bool) -> None:
    assert decide(predicate, 1) is expected


# -- C7: retry ---------------------------------------------------------------------------------


def test_retry_max_attempts_is_the_total_number_of_attempts() -> None:
    step = tool("call", modifiers={"retry": {"max_attempts": 3}})
    mocks = {"t": [{"error": "once"}, {"error": "twice"}, out("ok")]}
    result = run([step], mocks)
    assert result.status == "completed"
    assert result.step("call").attempts == 3
    assert result.output == "ok"


def test_retry_gives_up_after_max_attempts_near_miss() -> None:
    step = tool("call", modifiers={"retry": {"max_attempts": 2}})
    mocks = {"t": [{"error": "once"}, {"error": "twice"}, out("ok")]}
    result = run([step], mocks)
    assert failed(result) == "call-failed"
    assert result.step("call").attempts == 2
    assert result.error is not None
    assert "twice" in result.error.message


def test_without_retry_a_step_makes_one_attempt() -> None:
    result = run([tool("call")], {"t": [{"error": "once"}, out("ok")]})
    assert failed(result) == "call-failed"
    assert result.step("call").attempts == 1


def test_a_final_failure_is_not_retried() -> None:
    # Another attempt would resolve the same reference in the same scope.
    step = prompt("a", input="${input.missing}", modifiers={"retry": {"max_attempts": 5}})
    result = run([step], {"p": [out(1)]}, input={})
    assert failed(result) == "reference-unresolved"
    assert result.step("a").attempts == 1


def test_running_out_of_the_steps_own_mocks_is_final() -> None:
    step = prompt("a", modifiers={"retry": {"max_attempts": 5}})
    result = run([step], {"p": [{"error": "e1"}, {"error": "e2"}]})
    assert failed(result) == "mock-exhausted"
    assert result.step("a").attempts == 3


@pytest.mark.parametrize("search", [None, [out("hit")]])
def test_an_agent_tool_running_out_of_mocks_is_not_final(search: Any) -> None:
    # The next attempt starts from the next model round, which may call no tool at all.
    step = agent(
        "loop", {"max_steps": 1}, tools=["search"], modifiers={"retry": {"max_attempts": 2}}
    )
    calls = [{"tool": "search"}, {"tool": "search"}]
    mocks: dict[str, Any] = {"loop": [{"tool_calls": calls}, out("answer")]}
    if search is not None:
        mocks["search"] = search
    result = run([step], mocks)
    assert (result.step("loop").attempts, result.output) == (2, "answer")


def test_retry_restarts_an_agent_loop() -> None:
    step = agent("loop", {"max_steps": 2}, modifiers={"retry": {"max_attempts": 2}})
    mocks = {"loop": [out("r1"), {"error": "model down"}, out("r3"), out("r4")]}
    result = run([step], mocks)
    trace = result.step("loop")
    assert (trace.status, trace.attempts, trace.rounds, trace.output) == ("completed", 2, 2, "r4")


def test_retry_reruns_every_branch_of_a_parallel() -> None:
    step = parallel("fan", [prompt("a"), prompt("b", task="q")], "append")
    step["modifiers"] = {"retry": {"max_attempts": 2}}
    mocks = {"a": [out("a1"), out("a2")], "b": [{"error": "no"}, out("b2")]}
    result = run([step], mocks)
    assert result.step("fan").attempts == 2
    assert result.output == {"merged": ["a2", "b2"]}


def test_retry_of_a_parallel_stops_when_every_failed_branch_failed_finally() -> None:
    step = parallel("fan", [prompt("a", input="${input.nope}"), prompt("b", task="q")], "append")
    step["modifiers"] = {"retry": {"max_attempts": 4}}
    result = run([step], {"b": [out(1), out(2), out(3), out(4)]}, input={}, check=False)
    assert failed(result) == "parallel-branch-failed"
    assert result.step("fan").attempts == 1


# -- C8: eval modifiers ------------------------------------------------------------------------


def test_eval_modifiers_are_recorded_not_executed() -> None:
    steps = [
        prompt("a", modifiers={"eval": ["quality", "tone"]}),
        branch("route", IS_TRUE, "b"),
        prompt("b", modifiers={"eval": ["quality"]}),
    ]
    result = run(steps, {"p": [out("A")]}, input={"flag": False}, evals=("quality", "tone"))
    assert result.step("a").evals == ("quality", "tone")
    assert result.step("b").evals == ("quality",)  # recorded on skipped steps too
    assert result.to_dict()["trace"][0]["evals"] == ["quality", "tone"]
    assert "evals" not in result.to_dict()["trace"][1]


# -- C9: agent steps ---------------------------------------------------------------------------


def test_agent_exits_after_the_round_that_calls_tool_called() -> None:
    step = agent("loop", {"tool_called": "submit"}, tools=["search"])
    mocks = {
        "loop": [
            {"tool_calls": [{"tool": "search", "args": {"q": "x"}}], "output": "thinking"},
            {"tool_calls": [{"tool": "submit", "args": {"answer": 42}}, {"tool": "search"}]},
            out("never used"),
        ],
        "search": [out(["hit"]), out(["again"])],
        "submit": [out("accepted")],
    }
    result = run([step], mocks)
    trace = result.step("loop")
    assert (trace.status, trace.rounds, trace.exit) == ("completed", 2, "tool_called")
    assert [call.to_dict() for call in trace.tool_calls] == [
        {"round": 1, "tool": "search", "args": {"q": "x"}, "output": ["hit"]},
        {"round": 2, "tool": "submit", "args": {"answer": 42}, "output": "accepted"},
        {"round": 2, "tool": "search", "args": {}, "output": ["again"]},
    ]
    assert result.output == "thinking"  # the last output a round gave


def test_agent_goes_on_when_the_termination_tool_fails_near_miss() -> None:
    step = agent("loop", {"tool_called": "submit"})
    mocks = {
        "loop": [{"tool_calls": [{"tool": "submit"}]}, {"tool_calls": [{"tool": "submit"}]}],
        "submit": [{"error": "rejected"}, out("accepted")],
    }
    result = run([step], mocks)
    trace = result.step("loop")
    assert (trace.rounds, trace.exit) == (2, "tool_called")
    assert trace.tool_calls[0].error == "rejected"
    assert trace.to_dict()["tool_calls"][0] == {
        "round": 1,
        "tool": "submit",
        "args": {},
        "error": "rejected",
    }


def test_agent_ends_gracefully_after_max_steps_rounds() -> None:
    step = agent("loop", {"max_steps": 3, "tool_called": "submit"}, tools=["search"])
    mocks = {
        "loop": [out("r1"), {"tool_calls": [{"tool": "search"}]}, out("r3"), out("unused")],
        "search": [out("s")],
    }
    result = run([step], mocks)
    trace = result.step("loop")
    assert (trace.status, trace.rounds, trace.exit, trace.output) == (
        "completed",
        3,
        "max_steps",
        "r3",
    )


def test_agent_round_without_tool_calls_does_not_end_the_loop() -> None:
    step = agent("loop", {"tool_called": "submit"})
    result = run([step], {"loop": [out("answer"), out("more")]})
    assert failed(result) == "mock-exhausted"
    assert result.step("loop").rounds == 2


def test_agent_output_is_null_when_no_round_gave_one() -> None:
    result = run([agent("loop", {"max_steps": 1})], {"loop": [{}]})
    assert result.status == "completed"
    assert result.output is None


def test_agent_calling_a_tool_it_was_not_offered_fails() -> None:
    step = agent("loop", {"max_steps": 2}, tools=["search"])
    result = run([step], {"loop": [{"tool_calls": [{"tool": "t"}]}], "t": [out(1)]})
    assert failed(result) == "tool-not-offered"


def test_agent_round_error_fails_the_step() -> None:
    result = run([agent("loop", {"max_steps": 2})], {"loop": [{"error": "overloaded"}]})
    assert failed(result) == "call-failed"
    assert result.step("loop").rounds == 1


def test_agent_resolves_its_input_and_reads_mocks_by_prompt_task() -> None:
    step = agent("loop", {"max_steps": 1}, input={"doc": "${input.text}"})
    result = run([step], {"p": [out("done")]}, input={"text": "T"})
    assert result.step("loop").input == {"doc": "T"}
    assert result.output == "done"


# -- C10: the composition output ---------------------------------------------------------------


def test_output_names_a_step() -> None:
    steps = [prompt("a"), prompt("b", task="q")]
    result = run(steps, {"p": [out("A")], "q": [out("B")]}, output="a")
    assert result.output == "A"


def test_output_defaults_to_the_last_step_that_produced_output() -> None:
    steps = [
        prompt("a"),
        prompt("b", task="q"),
        branch("route", IS_TRUE, "c"),
        prompt("c", task="r"),
    ]
    result = run(steps, {"p": [out("A")], "q": [out("B")]}, input={"flag": False})
    assert result.output == "B"  # neither the branch nor the skipped step counts


def test_a_null_output_is_an_output() -> None:
    result = run([prompt("a"), prompt("b", task="q")], {"p": [out("A")], "q": [out(None)]})
    assert result.status == "completed"
    assert result.output is None


def test_no_step_produced_output() -> None:
    steps = [branch("route", IS_TRUE, "a"), prompt("a")]
    result = run(steps, {}, input={"flag": False})
    assert failed(result) == "composition-no-output"
    assert result.error is not None
    assert result.error.step is None
    assert statuses(result) == {"route": "completed", "a": "skipped"}


def test_the_named_output_step_was_skipped() -> None:
    steps = [branch("route", IS_TRUE, "a", "b"), prompt("a"), prompt("b", task="q")]
    result = run(steps, {"q": [out("B")]}, input={"flag": False}, output="a")
    assert failed(result) == "composition-no-output"
    assert result.error is not None
    assert result.error.step == "a"
    assert result.output is None


# -- C11: a workflow state in composition mode -------------------------------------------------


def test_a_composition_state_runs_its_composition() -> None:
    pack = reference.load_pack(str(EXAMPLES / "rfc0010-example1-single-step.yaml"))
    session = reference.start_session(pack, clock=reference.ManualClock())
    before = session.state()
    result = run_state_composition(
        pack, session, {"text": "..."}, {"doc_classifier": [out({"type": "manual"})]}
    )
    assert result.output == {"type": "manual"}
    assert session.state() == before  # the session is only read


def test_a_state_not_in_composition_mode_has_no_composition_to_run() -> None:
    pack = make_pack([prompt("a")])
    pack["workflow"]["states"] = {"main": {"prompt_task": "p"}}
    pack["workflow"]["states"]["main"]["on_event"] = {}
    session = reference.start_session(pack)
    with pytest.raises(CompositionRunError) as caught:
        run_state_composition(pack, session, None, {"p": [out(1)]})
    assert caught.value.code == "state-not-composition"


def test_the_pack_must_hold_the_sessions_workflow() -> None:
    pack = make_pack([prompt("a")])
    session = reference.start_session(pack)
    other = copy.deepcopy(pack)
    other["workflow"]["version"] = 2
    with pytest.raises(CompositionRunError) as caught:
        run_state_composition(other, session, None, {"p": [out(1)]})
    assert caught.value.code == "workflow-mismatch"


# -- C12: vendor extensions --------------------------------------------------------------------

UPPER = {"id": "shout", "kind": "ppconf.upper", "input": "${input.text}"}
JOIN_FAN = [prompt("a"), prompt("b", task="q"), prompt("c", task="r")]
JOIN_MOCKS = {"p": [out("x", delay=0.02)], "q": [out("y")], "r": [out("z")]}


def test_an_unsupported_vendor_kind_fails_the_composition() -> None:
    step = {**UPPER, "modifiers": {"retry": {"max_attempts": 3}}}
    result = run(
        [prompt("before"), step, prompt("after", task="q")], {"p": [out(1)]}, input={"text": "a"}
    )
    assert failed(result) == "step-kind-unsupported"
    assert result.error is not None
    assert result.error.step == "shout"
    assert result.step("shout").attempts == 1  # final: another attempt cannot change it
    assert result.step("before").status == "completed"
    assert result.step("after").reason == "not-run"


def test_ppconf_upper_upper_cases_its_string_input() -> None:
    result = run([UPPER], input={"text": "Hello, World"}, extensions=kit_extensions())
    assert result.output == "HELLO, WORLD"
    assert result.step("shout").input == "Hello, World"


def test_ppconf_upper_refuses_other_input() -> None:
    result = run([UPPER], input={"text": 5}, extensions=kit_extensions())
    assert failed(result) == "extension-failed"


def test_an_unsupported_vendor_reducer_fails_before_any_branch_runs() -> None:
    steps = [parallel("fan", JOIN_FAN, "ppconf.join"), prompt("after")]
    result = run(steps, JOIN_MOCKS)
    assert failed(result) == "reduce-strategy-unsupported"
    assert [m.reason for m in result.step("fan").members] == ["not-run"] * 3
    assert result.step("after").reason == "not-run"


@pytest.mark.parametrize(("separator", "joined"), [(None, "xyz"), ("", "xyz"), (", ", "x, y, z")])
def test_ppconf_join_joins_in_branch_order(separator: str | None, joined: str) -> None:
    step = parallel("fan", JOIN_FAN, "ppconf.join", into="text")
    if separator is not None:
        step["reduce"]["separator"] = separator
    result = run([step], JOIN_MOCKS, extensions=kit_extensions())
    assert result.output == {"text": joined}


@pytest.mark.parametrize(
    ("mocks", "separator"),
    [({**JOIN_MOCKS, "q": [out(1)]}, ""), (JOIN_MOCKS, 1)],
)
def test_ppconf_join_refuses_non_strings(mocks: dict[str, Any], separator: Any) -> None:
    step = parallel("fan", JOIN_FAN, "ppconf.join")
    step["reduce"]["separator"] = separator
    result = run([step], mocks, extensions=kit_extensions(), check=False)
    assert failed(result) == "extension-failed"


def test_the_kit_namespace() -> None:
    extensions = kit_extensions()
    assert extensions.kinds == ("ppconf.upper",)
    assert extensions.reducers == ("ppconf.join",)
    assert kit_extensions() is not extensions  # a new registry each time


@pytest.mark.parametrize("name", ["upper", "prompt", "PPCONF.upper", "ppconf.", ".upper", "a b.c"])
def test_extension_names_are_namespaced(name: str) -> None:
    with pytest.raises(ValueError, match="namespace"):
        Extensions().register_kind(name, lambda step, input: input)
    with pytest.raises(ValueError, match="namespace"):
        Extensions().register_reducer(name, lambda outputs, reduce: None)


def test_an_extension_is_registered_once() -> None:
    extensions = kit_extensions()
    with pytest.raises(ValueError, match="already"):
        extensions.register_kind("ppconf.upper", lambda step, input: input)
    with pytest.raises(ValueError, match="already"):
        extensions.register_reducer("ppconf.join", lambda outputs, reduce: None)


def test_an_extension_that_raises_fails_the_step_and_is_retried() -> None:
    calls: list[Any] = []

    def flaky(step: Mapping[str, Any], input: Any) -> Any:
        calls.append(input)
        if len(calls) < 2:
            raise ConnectionError("try again")
        return {"field": step["field"], "input": input}

    extensions = Extensions()
    extensions.register_kind("acme.flaky", flaky)
    step = {
        "id": "f",
        "kind": "acme.flaky",
        "field": 7,
        "input": [1],
        "modifiers": {"retry": {"max_attempts": 2}},
    }
    result = run([step], extensions=extensions)
    assert result.output == {"field": 7, "input": [1]}
    assert result.step("f").attempts == 2
    calls.clear()
    step["modifiers"] = {}
    result = run([step], extensions=extensions)
    assert failed(result) == "extension-failed"
    assert "ConnectionError: try again" in result.step("f").error.message  # type: ignore[union-attr]


def test_an_extension_may_fail_with_its_own_code() -> None:
    def judge(step: Mapping[str, Any], input: Any) -> Any:
        raise StepFailure("acme-judge-refused", "no verdict", final=True)

    extensions = Extensions()
    extensions.register_kind("acme.judge", judge)
    step = {"id": "j", "kind": "acme.judge", "modifiers": {"retry": {"max_attempts": 3}}}
    result = run([step], extensions=extensions)
    assert failed(result) == "acme-judge-refused"
    assert result.step("j").attempts == 1
    assert result.step("j").input is None


def test_a_custom_reducer_gets_branch_ids_and_the_reduce_object() -> None:
    seen: list[Any] = []

    def count(outputs: Sequence[tuple[str, Any]], reduce: Mapping[str, Any]) -> Any:
        seen.append((list(outputs), dict(reduce)))
        return len(outputs)

    extensions = Extensions()
    extensions.register_reducer("acme.count", count)
    result = run(
        [parallel("fan", JOIN_FAN, "acme.count", into="n")], JOIN_MOCKS, extensions=extensions
    )
    assert result.output == {"n": 3}
    assert seen == [([("a", "x"), ("b", "y"), ("c", "z")], {"strategy": "acme.count", "into": "n"})]


# -- mocks -------------------------------------------------------------------------------------


def test_mocks_by_step_id_come_before_prompt_task_and_tool() -> None:
    steps = [prompt("a"), prompt("b"), tool("c"), tool("d")]
    mocks = {
        "a": [out("by id")],
        "p": [out("by task")],
        "c": [out("tool by id")],
        "t": [out("by tool")],
    }
    result = run(steps, mocks)
    assert [result.step(s).output for s in "abcd"] == ["by id", "by task", "tool by id", "by tool"]


def test_running_out_of_responses_fails_with_mock_exhausted() -> None:
    result = run([prompt("a"), prompt("b")], {"p": [out(1)]})
    assert failed(result) == "mock-exhausted"
    assert result.error is not None
    assert result.error.step == "b"
    assert "'p'" in result.error.message


def test_a_missing_mock_list_is_exhausted() -> None:
    result = run([tool("a")], {})
    assert failed(result) == "mock-exhausted"


def test_agent_tool_calls_take_tool_mocks_and_can_run_out() -> None:
    step = agent("loop", {"max_steps": 1}, tools=["search"])
    result = run([step], {"loop": [{"tool_calls": [{"tool": "search"}]}]})
    assert failed(result) == "mock-exhausted"


@pytest.mark.parametrize(
    "mocks",
    [
        [],
        {"p": out(1)},
        {"p": [1]},
        {"p": [{"outptu": 1}]},
        {"p": [{"error": 5}]},
        {"p": [{"error": "e", "output": 1}]},
        {"p": [{"output": 1, "delay": -1}]},
        {"p": [{"output": 1, "delay": "1"}]},
        {"p": [{"output": 1, "delay": 61}]},
        {"p": [{"tool_calls": {"tool": "t"}}]},
        {"p": [{"tool_calls": [{"name": "t"}]}]},
        {"p": [{"tool_calls": [{"tool": "t", "args": [1]}]}]},
    ],
)
def test_malformed_mocks_are_refused_before_running(mocks: Any) -> None:
    with pytest.raises(CompositionRunError) as caught:
        run([prompt("a")], mocks)
    assert caught.value.code == "mock-invalid"


def test_a_response_that_does_not_fit_the_call_fails_the_step() -> None:
    result = run([prompt("a")], {"p": [{"tool_calls": []}]})
    assert failed(result) == "mock-invalid"
    result = run([tool("a")], {"t": [{"delay": 0}]})
    assert failed(result) == "mock-invalid"


def test_mock_delay_is_waited() -> None:
    started = time.perf_counter()
    run([prompt("a")], {"p": [out(1, delay=0.02)]})
    assert time.perf_counter() - started >= 0.02


def test_running_changes_neither_the_pack_nor_the_mocks() -> None:
    pack = make_pack([prompt("a", input="${input}"), prompt("b", task="q", input="${a.output}")])
    mocks = {"p": [out({"k": [1]})], "q": [out({"k": [2]})]}
    pack_before, mocks_before = copy.deepcopy(pack), copy.deepcopy(mocks)
    result = run_composition(pack, "c", {"i": 1}, mocks)
    data = result.to_dict()
    data["trace"][1]["input"]["k"].append("changed")  # the dicts are copies
    data["output"]["k"].append("changed")
    assert result.to_dict()["trace"][1]["input"] == {"k": [1]}
    assert result.to_dict()["output"] == {"k": [2]}
    assert (pack, mocks) == (pack_before, mocks_before)


# -- failures end the run; every step appears once ---------------------------------------------


def test_steps_after_a_failure_are_listed_as_not_run() -> None:
    steps = [
        prompt("a"),
        tool("broken"),
        branch("route", IS_TRUE, "x"),
        parallel("fan", [prompt("x"), prompt("y")], "append"),
    ]
    result = run(steps, {"p": [out(1)], "t": [{"error": "down"}]}, input={"flag": True})
    assert result.error is not None
    assert (result.error.code, result.error.step) == ("call-failed", "broken")
    assert statuses(result) == {
        "a": "completed",
        "broken": "failed",
        "route": "skipped",
        "fan": "skipped",
        "x": "skipped",
        "y": "skipped",
    }
    assert {result.step(s).reason for s in ("route", "fan", "x", "y")} == {"not-run"}


# -- the result as data ------------------------------------------------------------------------


def test_to_dict_is_plain_json_with_a_fixed_key_order() -> None:
    pack = reference.load_pack(str(EXAMPLES / "rfc0010-example3-parallel-agent.yaml"))
    result = run_composition(pack, "deep_analyze", {"text": "T"}, EXAMPLE_3_MOCKS)
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["status", "output", "error", "trace"]
    parallel_step, agent_step = data["trace"]
    assert list(parallel_step) == ["step", "kind", "status", "attempts", "members", "output"]
    assert list(parallel_step["members"][0]) == [
        "step",
        "kind",
        "status",
        "attempts",
        "input",
        "output",
    ]
    assert list(agent_step) == [
        "step",
        "kind",
        "status",
        "attempts",
        "evals",
        "input",
        "rounds",
        "exit",
        "tool_calls",
        "output",
    ]


def test_to_dict_of_skipped_failed_and_branch_steps() -> None:
    steps = [branch("route", IS_TRUE, "a"), prompt("a"), tool("b")]
    data = run(steps, {"t": [{"error": "no"}]}, input={"flag": False}).to_dict()
    assert data == {
        "status": "failed",
        "output": None,
        "error": {"code": "call-failed", "message": "tool step 'b': no", "step": "b"},
        "trace": [
            {
                "step": "route",
                "kind": "branch",
                "status": "completed",
                "attempts": 1,
                "decision": {"value": False, "taken": None, "skipped": "a"},
            },
            {
                "step": "a",
                "kind": "prompt",
                "status": "skipped",
                "attempts": 0,
                "reason": "branch-not-taken",
            },
            {
                "step": "b",
                "kind": "tool",
                "status": "failed",
                "attempts": 1,
                "input": None,
                "error": {"code": "call-failed", "message": "tool step 'b': no"},
            },
        ],
    }


def test_step_lookup_of_an_unknown_id() -> None:
    result = run([prompt("a")], {"p": [out(1)]})
    with pytest.raises(KeyError):
        result.step("nope")


# -- what cannot be run at all -----------------------------------------------------------------


def refused(composition: Any, name: str = "c") -> CompositionRunError:
    pack = make_pack([prompt("a")], check=False)
    pack["compositions"]["c"] = composition
    with pytest.raises(CompositionRunError) as caught:
        run_composition(pack, name, None, {})
    return caught.value


def steps_of(*steps: Any) -> dict[str, Any]:
    return {"version": 1, "steps": list(steps)}


@pytest.mark.parametrize(
    ("composition", "code", "where"),
    [
        ([], "schema", ""),
        ({"version": 2, "steps": [prompt("a")]}, "composition-version-unsupported", "/version"),
        ({"version": True, "steps": [prompt("a")]}, "schema", "/version"),
        ({"version": 1, "steps": []}, "schema", "/steps"),
        (steps_of("a"), "schema", "/steps/0"),
        (steps_of(prompt("1a")), "step-id-invalid", "/steps/0/id"),
        (steps_of(prompt("a"), prompt("a")), "step-id-duplicate", "/steps/1/id"),
        (steps_of({"id": "a"}), "step-field-missing", "/steps/0"),
        (steps_of({"id": "a", "kind": "prompt"}), "step-field-missing", "/steps/0"),
        (steps_of({"id": "a", "kind": "tool"}), "step-field-missing", "/steps/0"),
        (steps_of(tool("a", args="x")), "schema", "/steps/0/args"),
        (steps_of({"id": "a", "kind": "judge"}), "step-kind-unknown", "/steps/0/kind"),
        (steps_of(agent("a", {})), "agent-termination-missing", "/steps/0/termination"),
        (steps_of(agent("a", {"max_steps": 0})), "schema", "/steps/0/termination/max_steps"),
        (steps_of(agent("a", {"max_steps": 1}, tools="t")), "schema", "/steps/0/tools"),
        (
            steps_of(branch("b", {"path": "x", "exists": True}, "a"), prompt("a")),
            "predicate-invalid",
            "/steps/0/predicate/path",
        ),
        (
            steps_of(
                branch("b", {"any_of": [{"path": "${input}", "op": "in", "value": 1}]}, "a"),
                prompt("a"),
            ),
            "predicate-invalid",
            "/steps/0/predicate/any_of/0/value",
        ),
        (
            steps_of(
                branch("b", {"not": {"path": "${input}", "op": "like", "value": 1}}, "a"),
                prompt("a"),
            ),
            "predicate-invalid",
            "/steps/0/predicate/not/op",
        ),
        (
            steps_of(branch("b", {"all_of": {}}, "a"), prompt("a")),
            "predicate-invalid",
            "/steps/0/predicate/all_of",
        ),
        (
            steps_of(
                branch("b", {"path": "${input}", "exists": True, "op": "equals"}, "a"), prompt("a")
            ),
            "predicate-invalid",
            "/steps/0/predicate",
        ),
        (
            steps_of(branch("b", {"path": "${input}", "exists": "yes"}, "a"), prompt("a")),
            "predicate-invalid",
            "/steps/0/predicate/exists",
        ),
        (steps_of(branch("b", [], "a"), prompt("a")), "predicate-invalid", "/steps/0/predicate"),
        (
            steps_of({"id": "b", "kind": "branch", "then": "a"}, prompt("a")),
            "step-field-missing",
            "/steps/0",
        ),
        (steps_of(branch("b", IS_TRUE, "nope")), "step-target-unknown", "/steps/0/then"),
        (steps_of(prompt("a"), branch("b", IS_TRUE, "a")), "step-graph-cycle", "/steps/0"),
        (steps_of(branch("b", IS_TRUE, "b")), "step-graph-cycle", "/steps/0"),
        (
            steps_of(branch("b", IS_TRUE, "a", "zz"), prompt("a")),
            "step-target-unknown",
            "/steps/0/else",
        ),
        (
            steps_of(prompt("a", depends_on=["b"]), prompt("b")),
            "step-graph-cycle",
            "/steps/0",
        ),
        (steps_of(prompt("a", depends_on=["a"])), "step-graph-cycle", "/steps/0"),
        (steps_of(prompt("a", depends_on=["zz"])), "step-target-unknown", "/steps/0/depends_on/0"),
        (steps_of(prompt("a", depends_on="b")), "schema", "/steps/0/depends_on"),
        (steps_of(prompt("a", modifiers=[])), "schema", "/steps/0/modifiers"),
        (
            steps_of(prompt("a", modifiers={"retry": {"max_attempts": 0}})),
            "schema",
            "/steps/0/modifiers/retry/max_attempts",
        ),
        (
            steps_of(prompt("a", modifiers={"retry": {"max_attempts": 1.5}})),
            "schema",
            "/steps/0/modifiers/retry/max_attempts",
        ),
        (steps_of(prompt("a", modifiers={"eval": "q"})), "schema", "/steps/0/modifiers/eval"),
        (
            steps_of(parallel("f", [prompt("a")], "append")),
            "parallel-branches-too-few",
            "/steps/0/branches",
        ),
        (
            steps_of({"id": "f", "kind": "parallel", "branches": [prompt("a"), prompt("b")]}),
            "parallel-reduce-missing",
            "/steps/0",
        ),
        (
            steps_of(parallel("f", [prompt("a"), prompt("b")], "merge")),
            "reduce-strategy-unknown",
            "/steps/0/reduce/strategy",
        ),
        (
            steps_of(
                parallel(
                    "f",
                    [prompt("a"), parallel("g", [prompt("c"), prompt("d")], "append")],
                    "append",
                )
            ),
            "parallel-member-kind",
            "/steps/0/branches/1/kind",
        ),
        (
            steps_of(parallel("f", [prompt("a"), prompt("b", depends_on=["b"])], "append")),
            "step-graph-cycle",
            "/steps/0/branches/1",
        ),
        (
            steps_of(parallel("f", [prompt("a"), prompt("b")], "append", into=["x"])),
            "schema",
            "/steps/0/reduce/into",
        ),
        (
            {"version": 1, "steps": [prompt("a")], "output": "zz"},
            "composition-output-unknown",
            "/output",
        ),
    ],
)
def test_what_cannot_be_run_is_refused(composition: Any, code: str, where: str) -> None:
    error = refused(composition)
    assert (error.code, error.where) == (code, "/compositions/c" + where)
    assert code in str(error)


@pytest.mark.parametrize(
    "composition",
    [
        steps_of({"id": "1a", "kind": "tool", "depends_on": ["zz"]}, prompt("1a", input="${x}")),
        steps_of(branch("b", {"not": {"path": "x", "op": "like"}}, "zz"), {"kind": "judge"}),
        {"version": 3, "steps": [agent("a", {}, tools=["nope"])], "output": "b"},
    ],
)
def test_the_refusal_is_the_first_error_validate_lists_for_the_composition(
    composition: Any,
) -> None:
    pack = make_pack([prompt("a")], check=False)
    pack["compositions"]["c"] = composition
    errors = [d for d in reference.validate(pack) if d.severity == "error"]
    assert len(errors) > 2
    error = refused(composition)
    assert (error.code, error.where, error.message) == (
        errors[0].code,
        errors[0].path,
        errors[0].message,
    )


def test_an_unknown_composition_is_refused() -> None:
    error = refused(steps_of(prompt("a")), name="other")
    assert error.code == "composition-unknown"


@pytest.mark.parametrize("pack", [[], {"compositions": []}, {}])
def test_a_pack_without_the_composition_is_refused(pack: Any) -> None:
    with pytest.raises(CompositionRunError):
        run_composition(pack, "c", None, {})


def test_branches_may_depend_on_a_sibling_for_skipping() -> None:
    # Valid: depends_on only decides skipping, and a sibling's skip is known before the start.
    steps = [
        branch("route", IS_TRUE, "a"),
        parallel("fan", [prompt("a"), prompt("b", task="q", depends_on=["a"])], "append"),
    ]
    result = run(steps, {"p": [out("A")], "q": [out("B")]}, input={"flag": False})
    assert result.step("b").reason == "dependencies-skipped"
    result = run(steps, {"p": [out("A")], "q": [out("B")]}, input={"flag": True})
    assert result.output == {"merged": ["A", "B"]}


# -- the RFC 0010 examples, run with mocks -----------------------------------------------------


def example(number: int) -> dict[str, Any]:
    (path,) = EXAMPLES.glob(f"rfc0010-example{number}-*.yaml")
    return reference.load_pack(str(path))


def test_rfc_example_1_single_step() -> None:
    result = run_composition(
        example(1),
        "classify_document",
        {"text": "We propose ..."},
        {"doc_classifier": [out({"type": "research_paper"})]},
    )
    assert result.to_dict() == {
        "status": "completed",
        "output": {"type": "research_paper"},
        "error": None,
        "trace": [
            {
                "step": "classify",
                "kind": "prompt",
                "status": "completed",
                "attempts": 1,
                "input": "We propose ...",
                "output": {"type": "research_paper"},
            }
        ],
    }


@pytest.mark.parametrize(
    ("doc_type", "ran", "skipped"),
    [
        ("research_paper", "extract_paper", "extract_general"),
        ("manual", "extract_general", "extract_paper"),
    ],
)
def test_rfc_example_2_branch(doc_type: str, ran: str, skipped: str) -> None:
    mocks = {
        "classify": [out({"type": doc_type})],
        "research_paper_extractor": [out({"kind": "paper"})],
        "general_doc_extractor": [out({"kind": "general"})],
    }
    result = run_composition(example(2), "analyze_document", {"text": "T"}, mocks)
    assert result.step(ran).status == "completed"
    assert result.step(skipped).reason == "branch-not-taken"
    assert result.output == result.step(ran).output  # no `output`: the last step that ran


EXAMPLE_3_MOCKS: dict[str, list[Any]] = {
    "title_extractor": [out("Attention Is All You Need", delay=0.02)],
    "keyword_extractor": [out(["transformer", "attention"])],
    "doc.parse_structure": [out({"sections": 7})],
    "doc.extract_citations": [out(["Bahdanau 2014"])],
    "synthesize": [
        {"tool_calls": [{"tool": "ref.search", "args": {"query": "Bahdanau 2014"}}]},
        {
            "tool_calls": [{"tool": "kb.lookup", "args": {"term": "attention"}}],
            "output": {"summary": "draft"},
        },
        out({"summary": "final"}),
        *[{}] * 7,  # rounds 4 to 10 (max_steps) call nothing and say nothing
    ],
    "ref.search": [out({"found": True})],
    "kb.lookup": [out("a mechanism")],
}


def test_rfc_example_3_parallel_then_agent() -> None:
    result = run_composition(example(3), "deep_analyze", {"text": "T"}, EXAMPLE_3_MOCKS)
    metadata = {
        "title": "Attention Is All You Need",
        "keywords": ["transformer", "attention"],
        "structure": {"sections": 7},
        "citations": ["Bahdanau 2014"],
    }
    assert result.step("extract_metadata").output == {"metadata": metadata}
    synthesize = result.step("synthesize")
    assert synthesize.input == metadata
    assert (synthesize.status, synthesize.rounds, synthesize.exit) == ("completed", 10, "max_steps")
    assert synthesize.evals == ("analysis_quality",)
    assert [call.tool for call in synthesize.tool_calls] == ["ref.search", "kb.lookup"]
    assert result.output == {"summary": "final"}  # the last output a round gave


def test_rfc_example_3_fails_when_the_script_ends_before_max_steps() -> None:
    mocks = {**EXAMPLE_3_MOCKS, "synthesize": EXAMPLE_3_MOCKS["synthesize"][:3]}
    result = run_composition(example(3), "deep_analyze", {"text": "T"}, mocks)
    assert result.error is not None
    assert (result.error.code, result.error.step) == ("mock-exhausted", "synthesize")
    assert result.step("synthesize").rounds == 3


@pytest.mark.parametrize(
    ("assessment", "deep"),
    [
        ({"confidence": 0.9, "complexity": 3, "flagged_terms": []}, False),
        ({"confidence": 0.5, "complexity": 3, "flagged_terms": []}, True),
        ({"confidence": 0.9, "complexity": 8, "flagged_terms": []}, True),
        ({"confidence": 0.9, "complexity": 3, "flagged_terms": ["GDPR"]}, True),
        ({"confidence": 0.8, "complexity": 7, "flagged_terms": []}, False),
    ],
)
def test_rfc_example_4_composite_predicate(assessment: dict[str, Any], deep: bool) -> None:
    mocks = {
        "assessor": [out(assessment)],
        "deep_reviewer": [out("deep"), *[{}] * 4],  # max_steps: 5 rounds
        "summarizer": [out("summary")],
    }
    result = run_composition(example(4), "review_document", {"text": "T"}, mocks)
    decision = result.step("needs_deep_review").decision
    assert decision is not None
    assert decision.value is deep
    if deep:
        assert result.step("deep_review").status == "completed"
        assert result.step("quick_summary").reason == "branch-not-taken"
        assert result.output == "deep"
    else:
        assert result.output == "summary"
        assert result.step("deep_review").reason == "branch-not-taken"


def test_structures_nested_beyond_any_file_are_refused_not_crashed() -> None:
    predicate: dict[str, Any] = IS_TRUE
    for _ in range(5000):
        predicate = {"not": predicate}
    pack = make_pack([branch("route", predicate, "a"), prompt("a")], check=False)
    with pytest.raises(CompositionRunError) as caught:
        run_composition(pack, "c", {"flag": True}, {})
    assert caught.value.code == "nesting-too-deep"


def test_nesting_as_deep_as_a_file_allows_runs() -> None:
    predicate: dict[str, Any] = IS_TRUE
    for level in range(120):  # 240 levels of objects: near the loader's limit of 256
        predicate = {"not": {"not": predicate}} if level % 2 else {"all_of": [predicate]}
    value: Any = "deep"
    for _ in range(250):
        value = {"v": value}
    steps = [branch("route", predicate, "a"), prompt("a", input="${input.value}")]
    result = run(steps, {"p": [out(value)]}, input={"flag": True, "value": value})
    assert result.status == "completed"
    assert result.to_dict()["output"] == value
