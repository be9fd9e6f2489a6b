"""Benchmark of ``ppconf graph --format svg`` (layout and SVG), against the targets of the issue.

Run: python benchmarks/bench_graph.py [--repeat N] [--processes N]

Prints the median time to draw a generated 1,000-state workflow as SVG (target: under 1 s), the
same for 2,000 states, and their ratio (target: at most 2.5, i.e. linear), each with its ratio
to the target (ratio < 1 meets it). The workflow has 3 events per state (the next state and two
random ones, so loops back and long jumps forward), a ``max_visits`` redirect on every fourth
state, and a self-loop on every tenth. Each size is timed in several fresh interpreters, taken
in turn, and the figure is the median of their medians, so one busy moment does not decide it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from typing import Any

from conformance._drawing import draw_workflow

TARGET_SEC = 1.0  # 1,000 states
LINEARITY_TARGET = 2.5  # 2,000-state time / 1,000-state time


def generated_pack(states: int, seed: int = 7) -> dict[str, Any]:
    """A pack whose workflow has ``states`` states with 3 events each."""
    rng = random.Random(seed)
    names = [f"s{i}" for i in range(states)]
    definitions: dict[str, Any] = {}
    for i, name in enumerate(names[:-1]):
        targets = [names[i + 1], *rng.sample(names, 2)]
        if i % 10 == 0:
            targets[2] = name
        state: dict[str, Any] = {
            "prompt_task": "work",
            "on_event": {f"Event{j}": target for j, target in enumerate(targets)},
        }
        if i % 4 == 0:
            state["max_visits"] = 3
            state["on_max_visits"] = names[min(i + 5, states - 1)]
        definitions[name] = state
    definitions[names[-1]] = {"prompt_task": "work", "terminal": True}
    return {
        "id": "bench-graph",
        "name": "Graph benchmark",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "work": {"id": "work", "name": "Work", "version": "1.0.0", "system_template": "Work."}
        },
        "workflow": {"version": 2, "entry": names[0], "states": definitions},
    }


def median_seconds(states: int, repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds to draw a generated pack of ``states`` states."""
    pack = generated_pack(states)
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        draw_workflow(pack, format="svg")
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def fresh_median(states: int, repeat: int) -> tuple[float, float]:
    """:func:`median_seconds`, measured in a fresh interpreter."""
    output = subprocess.run(
        [sys.executable, __file__, "--size", str(states), "--repeat", str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    wall, cpu = output.split()
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--processes", type=int, default=3, help="fresh interpreters per size")
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.size:
        print(*median_seconds(args.size, args.repeat))
        return
    small: list[tuple[float, float]] = []
    large: list[tuple[float, float]] = []
    for _ in range(args.processes):
        small.append(fresh_median(1_000, args.repeat))
        large.append(fresh_median(2_000, args.repeat))
    one, two = (statistics.median(wall for wall, _ in runs) for runs in (small, large))
    cpu_one, cpu_two = (statistics.median(cpu for _, cpu in runs) for runs in (small, large))
    svg = draw_workflow(generated_pack(1_000), format="svg")
    print(f"median of {args.processes} interpreters x {args.repeat} runs of draw_workflow(svg)")
    print("(wall-clock time is the figure; CPU time is shown as a check on a busy machine)")
    print(
        f"1,000 states, 3 events each: {one:.3f} s (CPU {cpu_one:.3f} s), "
        f"{len(svg):,} bytes of SVG  (target <= {TARGET_SEC} s, ratio {one / TARGET_SEC:.2f})"
    )
    print(f"2,000 states, 3 events each: {two:.3f} s (CPU {cpu_two:.3f} s)")
    ratio = two / one
    print(
        f"2,000 / 1,000 states: {ratio:.2f}  "
        f"(target <= {LINEARITY_TARGET}, ratio {ratio / LINEARITY_TARGET:.2f})"
    )


if __name__ == "__main__":
    main()
