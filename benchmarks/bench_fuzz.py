"""Differential examples per second: ``ppconf fuzz``'s speed, in process and through the protocol.

Run: python benchmarks/bench_fuzz.py [--examples N] [--repeat N] [--area A]...

Each run fuzzes N examples (seed 1, the areas given, by default workflow, loops and
compositions, no example database) and finds no divergence, so every example is generated, run
on the reference (the oracle) and run on the runtime, with nothing shrunk:

- in process, against ``MiniRuntime`` (``tests/conformance/mini_runtime.py``: sessions written
  apart from the reference, validation and compositions by the reference), or against the
  reference itself for ``control`` and ``state-agents``, which ``MiniRuntime`` does not do;
- through the adapter protocol, against a fresh ``python -m conformance serve`` (the reference
  as a ``cmd:`` adapter; start-up and hello are not counted).

Prints the median of the repeats, the ratio to the target, and the share of the time spent
generating examples (Hypothesis drawing and decoding) versus running them (the reference and
the runtime, judged by the runner).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from conformance import ReferenceAdapter
from conformance._adapter import Adapter
from conformance._fuzz.engine import AREAS, BASE_AREAS, FuzzResult, fuzz
from conformance._protocol import SubprocessAdapter
from conformance._runner import DEFAULT_TIMEOUT

IN_PROCESS_TARGET = 300  # examples per second
PROTOCOL_TARGET = 100
SERVE = (sys.executable, "-m", "conformance", "serve")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "conformance"))
from mini_runtime import MiniRuntime  # noqa: E402


def _run(adapter: Adapter, examples: int, areas: tuple[str, ...]) -> FuzzResult:
    # With the part time limit `ppconf fuzz` gives (a worker thread per part in process).
    result = fuzz(adapter, areas=areas, examples_wanted=examples, seed=1, timeout=DEFAULT_TIMEOUT)
    assert result.finding is None, result.finding
    assert result.tally.examples == examples, result.tally.examples
    return result


def _protocol(examples: int, areas: tuple[str, ...]) -> FuzzResult:
    adapter = SubprocessAdapter(SERVE)
    adapter.capabilities()  # starts the process and says hello
    try:
        return _run(adapter, examples, areas)
    finally:
        adapter.close()


def _report(label: str, runs: list[FuzzResult], examples: int, target: int) -> None:
    seconds = statistics.median(r.seconds for r in runs)
    running = statistics.median(r.running / r.seconds for r in runs)
    rate = examples / seconds
    print(
        f"{label:12} {rate:7,.0f} examples/s (median of {len(runs)}, {seconds:.2f} s for "
        f"{examples}; target >= {target}, ratio {rate / target:.2f}); "
        f"{1 - running:.0%} generating, {running:.0%} running"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--area", action="append", choices=AREAS, help="default: " + ", ".join(BASE_AREAS)
    )
    args = parser.parse_args()
    areas = tuple(args.area or BASE_AREAS)
    mini = set(areas) <= set(BASE_AREAS)
    runtime = MiniRuntime if mini else ReferenceAdapter
    print(f"areas: {', '.join(areas)}; in process against {runtime.__name__}")
    fuzz(runtime(), areas=areas, examples_wanted=50, seed=2)  # warm-up: imports, caches
    in_process = [_run(runtime(), args.examples, areas) for _ in range(args.repeat)]
    _report("in process:", in_process, args.examples, IN_PROCESS_TARGET)
    protocol = [_protocol(args.examples, areas) for _ in range(args.repeat)]
    _report("protocol:", protocol, args.examples, PROTOCOL_TARGET)


if __name__ == "__main__":
    main()
