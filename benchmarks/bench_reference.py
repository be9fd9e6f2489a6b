"""Benchmarks of the reference interpreter, against the targets of the interpreter issue.

Run: python benchmarks/bench_reference.py [--repeat N]

Prints the median of N runs for each figure, the target, and the ratio to it (for a time,
ratio < 1 meets the target; for a rate, ratio > 1 does). Each validation size is timed in
several fresh interpreters, taken in turn (10k, 20k, 10k, 20k, ...), and the figure is the median
of their medians: one process's memory layout, or a busy moment, does not decide the ratio.

Validation is timed on two shapes with the same targets: the plain workflow, and the same one
with the 1.7-1.9 fields (``control`` and ``extensions`` on every state, one state-backed agent
per ten states, so 1,000 at 10,000 states, and prompt providers).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import reference

VALIDATION_TARGET_SEC = 1.0  # 10,000 states
LINEARITY_TARGET = 2.5  # 20,000-state time / 10,000-state time
EVENTS_TARGET = 200_000  # events/s, 3-state loop, no budget
EVENTS_BUDGET_TARGET = 100_000  # events/s, all three budgets set


SHAPES = ("plain", "newer")


def generated_pack(states: int, seed: int = 7, shape: str = "plain") -> dict[str, Any]:
    """A valid pack whose workflow has ``states`` states with 3 events each; the ``newer``
    shape adds the fields of RFC 0011, 0014, 0016 and 0017 (see the module docstring)."""
    rng = random.Random(seed)
    names = [f"s{i}" for i in range(states)]
    definitions: dict[str, Any] = {}
    for i, name in enumerate(names[:-1]):
        targets = [names[i + 1], *rng.sample(names, 2)]
        state: dict[str, Any] = {
            "prompt_task": "work",
            "on_event": {f"Event{j}": target for j, target in enumerate(targets)},
        }
        if i % 4 == 0:
            state["max_visits"] = 3
            state["on_max_visits"] = names[-1]
        if i % 10 == 0:
            state["artifacts"] = {f"note{i % 30}": {"type": "text/plain"}}
        definitions[name] = state
    definitions[names[-1]] = {"prompt_task": "work", "terminal": True}
    pack = _pack(names[0], definitions, budget={"max_total_visits": 10 * states})
    if shape == "newer":
        _add_newer_fields(pack, rng)
    return pack


def _add_newer_fields(pack: dict[str, Any], rng: random.Random) -> None:
    """``control`` (agent on every other state) and ``extensions`` on every state, a
    state-backed agent per ten states, and a provider on the prompt."""
    states = pack["workflow"]["states"]
    names = list(states)
    for i, state in enumerate(states.values()):
        state["control"] = "agent" if i % 2 else "user"
        state["extensions"] = {"acme.example/owner": f"team-{i % 7}", "plain": {"n": [i]}}
    pack["agents"] = {
        "entry": "work",
        "members": {
            f"agent{i}": {"state": rng.choice(names), "tags": ["bench"]}
            for i in range(len(names) // 10)
        },
    }
    pack["requires"] = {"providers": ["default", {"key": "drafter", "role": "llm"}]}
    pack["prompts"]["work"]["provider"] = "drafter"


def loop_pack(budget: dict[str, int] | None) -> dict[str, Any]:
    """Three states in a loop a -> b -> c -> a, without max_visits."""
    states = {
        "a": {"prompt_task": "work", "on_event": {"Next": "b"}},
        "b": {"prompt_task": "work", "on_event": {"Next": "c"}},
        "c": {"prompt_task": "work", "on_event": {"Next": "a"}},
    }
    return _pack("a", states, budget)


def _pack(entry: str, states: dict[str, Any], budget: dict[str, int] | None) -> dict[str, Any]:
    workflow: dict[str, Any] = {"version": 2, "entry": entry, "states": states}
    if budget is not None:
        workflow["engine"] = {"budget": budget}
    return {
        "id": "bench",
        "name": "Benchmark",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "work": {"id": "work", "name": "Work", "version": "1.0.0", "system_template": "Work."}
        },
        "workflow": workflow,
    }


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def events_per_second(pack: dict[str, Any], events: int, repeat: int) -> float:
    workflow = reference.compile_workflow(pack)

    def run() -> None:
        session = reference.start_session(workflow, clock=reference.ManualClock())
        send = session.send
        for _ in range(events):
            send("Next")

    return events / median_seconds(run, repeat)


def validation_seconds(states: int, repeat: int, shape: str = "plain") -> float:
    """Median validation time of a generated pack, measured in a fresh interpreter."""
    output = subprocess.run(
        [
            sys.executable,
            __file__,
            "--validate-size",
            str(states),
            "--repeat",
            str(repeat),
            "--shape",
            shape,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--processes", type=int, default=5, help="fresh interpreters per size")
    parser.add_argument("--validate-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--shape", choices=SHAPES, default="plain", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.validate_size:
        pack = generated_pack(args.validate_size, shape=args.shape)
        diagnostics = reference.validate(pack)
        assert reference.is_valid(diagnostics), diagnostics[:3]
        print(median_seconds(lambda: reference.validate(pack), args.repeat))
        return

    runs: dict[tuple[str, int], list[float]] = {
        (shape, count): [] for shape in SHAPES for count in (10_000, 20_000)
    }
    for _ in range(args.processes):
        for (shape, count), times in runs.items():
            times.append(validation_seconds(count, args.repeat, shape))
    timings = {key: statistics.median(times) for key, times in runs.items()}
    rate = events_per_second(loop_pack(None), args.events, args.repeat)
    budget = {"max_total_visits": 10**9, "max_tool_calls": 10**9, "max_wall_time_sec": 10**9}
    rate_budget = events_per_second(loop_pack(budget), args.events, args.repeat)

    print(f"median of {args.repeat} runs (validation: in each of {args.processes} processes)")
    for shape in SHAPES:
        small, large = timings[shape, 10_000], timings[shape, 20_000]
        linearity = large / small
        label = "" if shape == "plain" else " (control, extensions, 1,000 agents)"
        print(
            f"validate 10,000 states{label}: {small:.3f} s  "
            f"(target <= {VALIDATION_TARGET_SEC} s, ratio {small / VALIDATION_TARGET_SEC:.2f})"
        )
        print(
            f"validate 20,000 states{label}: {large:.3f} s  (20k/10k = {linearity:.2f}, "
            f"target <= {LINEARITY_TARGET}, ratio {linearity / LINEARITY_TARGET:.2f})"
        )
    print(
        f"events, 3-state loop, no budget: {rate:,.0f} events/s  "
        f"(target >= {EVENTS_TARGET:,}, ratio {rate / EVENTS_TARGET:.2f})"
    )
    print(
        f"events, 3-state loop, all budgets: {rate_budget:,.0f} events/s  "
        f"(target >= {EVENTS_BUDGET_TARGET:,}, ratio {rate_budget / EVENTS_BUDGET_TARGET:.2f})"
    )


if __name__ == "__main__":
    main()
