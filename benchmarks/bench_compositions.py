"""Benchmarks of composition validation (RFC 0010), against the 1 s target of the issue.

Run: python benchmarks/bench_compositions.py [--repeat N] [--steps N]

Prints, for each pack, the median of N ``reference.validate`` runs, the target, and the ratio
to it (ratio < 1 meets the target):

* a valid 5,000-step composition using every v1 kind: prompt, agent and tool steps reading
  earlier outputs, branches with composite predicates, parallels of four branches, joins;
* the same composition with a cycle through every step (the first step depends on the last,
  closing the step order into a loop), so the whole graph is one strongly connected component;
* a composition of 5,000 broken steps (one error of a different code each), to time reporting;
* a 200-deep nested predicate, and one 10,000 deep (deeper than any loaded file can be);
* parallels nested 20,000 deep, and a step input nested 10,000 deep (both walked without
  recursion).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from _timing import median_seconds

import reference

TARGET_SEC = 1.0  # 5,000 steps


def base_pack(composition: dict[str, Any]) -> dict[str, Any]:
    """A pack running ``composition`` (as ``c``), with the prompts, tools and evals it names."""
    prompt = {"name": "Work", "version": "1.0.0", "system_template": "Work on {{input}}."}
    return {
        "id": "bench-compositions",
        "name": "Composition benchmark",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {name: {"id": name, **prompt} for name in ("work", "judge")},
        "tools": {
            name: {"name": name, "description": f"The {name} tool"}
            for name in ("lookup", "search", "finish")
        },
        "evals": [{"id": "quality", "type": "llm_judge", "trigger": "every_turn"}],
        "workflow": {
            "version": 1,
            "entry": "main",
            "states": {
                "main": {"orchestration": "composition", "composition": "c", "terminal": True}
            },
        },
        "compositions": {"c": composition},
    }


def generated_steps(count: int) -> list[dict[str, Any]]:
    """About ``count`` steps (parallel branches included) in a valid composition."""
    steps: list[dict[str, Any]] = []
    produced: list[str] = []  # ids of earlier steps that have an output
    total = 0
    index = 0
    while total < count:
        sid = f"s{index}"
        earlier = produced[-1] if produced else None
        source = f"${{{earlier}.output.value}}" if earlier else "${input.text}"
        shape = index % 6
        step: dict[str, Any]
        if shape == 0:
            step = {"id": sid, "kind": "prompt", "prompt_task": "work", "input": source}
        elif shape == 1:
            step = {
                "id": sid,
                "kind": "agent",
                "prompt_task": "work",
                "input": {"task": source, "notes": [source, "${input.notes}"]},
                "tools": ["lookup", "search"],
                "termination": {"max_steps": 5, "tool_called": "finish"},
                "modifiers": {"retry": {"max_attempts": 2}, "eval": ["quality"]},
            }
        elif shape == 2:
            step = {"id": sid, "kind": "tool", "tool": "lookup", "args": {"q": source}}
        elif shape == 3:
            # A branch to the next two steps (its arms, so no join warning).
            step = {
                "id": sid,
                "kind": "branch",
                "predicate": {
                    "any_of": [
                        {"path": source, "op": "in", "value": ["a", "b"]},
                        {"not": {"path": "${input.flag}", "exists": True}},
                        {
                            "all_of": [
                                {"path": source, "op": "greater_than", "value": 3},
                                {"path": source, "op": "not_equals", "value": []},
                            ]
                        },
                    ]
                },
                "then": f"s{index + 1}",
                "else": f"s{index + 2}",
            }
        elif shape == 4:
            step = {
                "id": sid,
                "kind": "parallel",
                "branches": [
                    {"id": f"{sid}_{j}", "kind": "prompt", "prompt_task": "work", "input": source}
                    for j in range(4)
                ],
                "reduce": {"strategy": "barrier", "into": "merged"},
            }
            total += 4
        else:
            step = {
                "id": sid,
                "kind": "prompt",
                "prompt_task": "judge",
                "input": f"${{s{index - 1}.output.merged}}",
                "depends_on": [f"s{index - 1}"],
            }
        steps.append(step)
        if step["kind"] != "branch":
            produced.append(sid)
        total += 1
        index += 1
    # A branch's arms are the two steps after it; make sure they exist.
    while steps[-1]["kind"] == "branch" or steps[-2]["kind"] == "branch":
        steps.append({"id": f"s{index}", "kind": "tool", "tool": "lookup"})
        index += 1
    return steps


def broken_steps(count: int) -> list[dict[str, Any]]:
    """``count`` steps, each with one error, cycling through twelve codes."""
    makers: list[Callable[[int], dict[str, Any]]] = [
        lambda i: {"id": f"{i}bad", "kind": "prompt", "prompt_task": "work"},
        lambda i: {"id": "dup", "kind": "prompt", "prompt_task": "work"},
        lambda i: {"id": f"s{i}", "kind": "summarize"},
        lambda i: {"id": f"s{i}", "kind": "tool"},
        lambda i: {"id": f"s{i}", "kind": "prompt", "prompt_task": "nope"},
        lambda i: {"id": f"s{i}", "kind": "tool", "tool": "nope"},
        lambda i: {"id": f"s{i}", "kind": "tool", "tool": "lookup", "modifiers": {"eval": ["x"]}},
        lambda i: {"id": f"s{i}", "kind": "tool", "tool": "lookup", "depends_on": ["ghost"]},
        lambda i: {"id": f"s{i}", "kind": "prompt", "prompt_task": "work", "input": "${x.output}"},
        lambda i: {"id": f"s{i}", "kind": "agent", "prompt_task": "work"},
        lambda i: {
            "id": f"s{i}",
            "kind": "branch",
            "predicate": {"path": "bare", "op": "in", "value": 1},
            "then": f"s{i}",
        },
        lambda i: {"id": f"s{i}", "kind": "parallel", "branches": []},
    ]
    return [makers[i % len(makers)](i) for i in range(count)]


def deep_predicate(depth: int) -> dict[str, Any]:
    predicate: dict[str, Any] = {"path": "${input.flag}", "exists": True}
    for level in range(depth):
        predicate = {"not": predicate} if level % 2 else {"all_of": [predicate]}
    return predicate


def packs(steps: int) -> dict[str, dict[str, Any]]:
    valid = generated_steps(steps)
    cyclic = generated_steps(steps)
    cyclic[0]["depends_on"] = [cyclic[-1]["id"]]  # the last step before the first: one big cycle
    predicate = {"id": "b", "kind": "branch", "then": "t"}
    target = {"id": "t", "kind": "prompt", "prompt_task": "work"}
    return {
        f"valid, {steps:,} steps": base_pack({"version": 1, "steps": valid}),
        f"one cycle through {steps:,} steps": base_pack({"version": 1, "steps": cyclic}),
        f"{steps:,} broken steps": base_pack({"version": 1, "steps": broken_steps(steps)}),
        "predicate 200 deep": base_pack(
            {"version": 1, "steps": [{**predicate, "predicate": deep_predicate(200)}, target]}
        ),
        "predicate 10,000 deep": base_pack(
            {"version": 1, "steps": [{**predicate, "predicate": deep_predicate(10_000)}, target]}
        ),
        "parallels nested 20,000 deep": base_pack(
            {"version": 1, "steps": [nested_parallels(20_000)]}
        ),
        "input nested 10,000 deep": base_pack({"version": 1, "steps": [nested_input(10_000)]}),
    }


def nested_parallels(depth: int) -> dict[str, Any]:
    step: dict[str, Any] = {"id": "leaf", "kind": "prompt", "prompt_task": "work"}
    for i in range(depth):
        step = {
            "id": f"p{i}",
            "kind": "parallel",
            "branches": [step, {"id": f"q{i}", "kind": "tool", "tool": "lookup"}],
            "reduce": {"strategy": "append", "into": "all"},
        }
    return step


def nested_input(depth: int) -> dict[str, Any]:
    value: Any = "${input.text}"
    for _ in range(depth):
        value = {"k": [value]}
    return {"id": "s", "kind": "prompt", "prompt_task": "work", "input": value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--steps", type=int, default=5_000)
    args = parser.parse_args()
    print(f"median of {args.repeat} runs of reference.validate")
    for name, pack in packs(args.steps).items():
        found = reference.validate(pack)
        errors = sum(d.severity == "error" for d in found)
        seconds = median_seconds(lambda pack=pack: reference.validate(pack), args.repeat)
        print(
            f"{name}: {seconds:.3f} s, {errors} errors  "
            f"(target <= {TARGET_SEC} s, ratio {seconds / TARGET_SEC:.2f})"
        )


if __name__ == "__main__":
    main()
