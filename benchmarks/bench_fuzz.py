"""Differential examples per second: ``ppconf fuzz``'s speed, in process and through the protocol.

Run: python benchmarks/bench_fuzz.py [--examples N] [--repeat N] [--area A]...

Each run fuzzes N examples (seed 1, the areas given, by default workflow, loops and
compositions, no example database) and finds no divergence, so every example is generated and
run on the runtime, with nothing shrunk; the reference (the oracle) writes down what each
distinct example requires once (Hypothesis draws most examples more than once, see
docs/fuzzing.md):

- in process, against ``MiniRuntime`` (``tests/conformance/mini_runtime.py``: sessions written
  apart from the reference, validation and compositions by the reference), or against the
  reference itself for ``control`` and ``state-agents``, which ``MiniRuntime`` does not do;
- in process against the reference, the runtime ``ppconf serve`` serves;
- through the adapter protocol, against a fresh ``python -m conformance serve`` (the reference
  as a ``cmd:`` adapter; start-up and hello are not counted): with ``run_script`` (each example
  in one request, sent ahead), and with one request per step (``--no-scripts``).

The four run in turn (in the reverse order every other round), ``--repeat`` rounds, so that a
busy machine slows them alike. Prints the
median of each, the ratio to its target, the share of the time spent generating examples
(Hypothesis drawing and decoding) versus running them (the reference and the runtime, judged by
the runner), and the median over the rounds of the protocol's rate over the in-process
reference's (target: at least 0.8 with ``run_script``). Beside each rate, the examples per
CPU second of this process (its threads included; through the protocol, the adapter process
works besides): on a busy machine the wall-clock rates measure the machine's load as much as
the fuzzer, the CPU rate much less so.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from conformance import ReferenceAdapter
from conformance._fuzz.engine import AREAS, BASE_AREAS, FuzzResult, fuzz
from conformance._judging.runner import DEFAULT_TIMEOUT
from conformance._protocol import SubprocessAdapter
from conformance._runtime.adapter import Adapter

IN_PROCESS_TARGET = 300  # examples per second
PROTOCOL_TARGET = 100
RATIO_TARGET = 0.8  # through the protocol (run_script) over in process, the same runtime
SERVE = (sys.executable, "-m", "conformance", "serve")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "conformance"))
from mini_runtime import MiniRuntime  # noqa: E402

_CPU: dict[int, float] = {}
"""CPU seconds of this process (all its threads) per run, by the run's result."""


def _run(adapter: Adapter, examples: int, areas: tuple[str, ...]) -> FuzzResult:
    # With the part time limit `ppconf fuzz` gives (a worker thread per part in process).
    cpu = time.process_time()
    result = fuzz(adapter, areas=areas, examples_wanted=examples, seed=1, timeout=DEFAULT_TIMEOUT)
    _CPU[id(result)] = time.process_time() - cpu
    assert result.finding is None, result.finding
    assert result.tally.examples == examples, result.tally.examples
    return result


def _protocol(examples: int, areas: tuple[str, ...], scripts: bool) -> FuzzResult:
    adapter = SubprocessAdapter(SERVE, scripts=scripts)
    adapter.capabilities()  # starts the process and says hello
    try:
        return _run(adapter, examples, areas)
    finally:
        adapter.close()


def _report(label: str, runs: list[FuzzResult], examples: int, target: int) -> None:
    seconds = statistics.median(r.seconds for r in runs)
    running = statistics.median(r.running / r.seconds for r in runs)
    rate = examples / seconds
    cpu = examples / statistics.median(_CPU[id(r)] for r in runs)
    print(
        f"{label:24} {rate:7,.0f} examples/s (median of {len(runs)}, {seconds:.2f} s for "
        f"{examples}; target >= {target}, ratio {rate / target:.2f}); "
        f"{1 - running:.0%} generating, {running:.0%} running; {cpu:,.0f} per CPU second of "
        "this process"
    )


def _ratio(label: str, over: list[FuzzResult], under: list[FuzzResult]) -> float:
    """The median over the rounds of ``over``'s rate over ``under``'s."""
    ratio = statistics.median(u.seconds / o.seconds for o, u in zip(over, under, strict=True))
    print(f"{label}: {ratio:.2f} x in process (median of the rounds)", end="")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--area", action="append", choices=AREAS, help="default: " + ", ".join(BASE_AREAS)
    )
    args = parser.parse_args()
    areas = tuple(args.area or BASE_AREAS)
    mini = set(areas) <= set(BASE_AREAS)
    runtime = MiniRuntime if mini else ReferenceAdapter
    print(f"areas: {', '.join(areas)}; in process against {runtime.__name__} and the reference")
    load = os.getloadavg()[0]
    fuzz(runtime(), areas=areas, examples_wanted=50, seed=2)  # warm-up: imports, caches
    runs: dict[str, Callable[[], FuzzResult]] = {
        f"in process ({runtime.__name__}):": lambda: _run(runtime(), args.examples, areas),
        "in process (reference):": lambda: _run(ReferenceAdapter(), args.examples, areas),
        "protocol (run_script):": lambda: _protocol(args.examples, areas, True),
        "protocol (per step):": lambda: _protocol(args.examples, areas, False),
    }
    results: dict[str, list[FuzzResult]] = {label: [] for label in runs}
    for round in range(args.repeat):
        order = list(runs) if round % 2 == 0 else list(reversed(runs))
        for label in order:
            results[label].append(runs[label]())
    labels = list(runs)
    for label in labels:
        target = IN_PROCESS_TARGET if label.startswith("in process") else PROTOCOL_TARGET
        _report(label, results[label], args.examples, target)
    ratio = _ratio("protocol (run_script)", results[labels[2]], results[labels[1]])
    print(f" (target >= {RATIO_TARGET:g}, ratio {ratio / RATIO_TARGET:.2f})")
    _ratio("protocol (per step)", results[labels[3]], results[labels[1]])
    after = os.getloadavg()[0]
    print(f"\nload average {load:.2f} before, {after:.2f} after ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
