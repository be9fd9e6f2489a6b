"""Throughput of the whole catalog through ``ppconf serve``: the adapter protocol's overhead.

Run: python benchmarks/bench_protocol.py [--repeat N]

A "scenario" is one case part, as in ``bench_catalog.py``: a load check, a validation check or
an event script. Each protocol repeat starts a fresh ``python -m conformance serve``, says hello
and only then starts the clock, so interpreter start-up and imports are excluded; what is timed
is every request and answer (JSON encoding, the pipes, the client's checks) and the served
reference's own work, which starts cold each time, as a fresh in-process adapter does. The same
cases run in process (fresh ``ReferenceAdapter`` per repeat, no timeout thread) for the ratio.
Prints the median of N runs of each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from conformance._adapter import Adapter
from conformance._cases import Case, load_catalog
from conformance._protocol import SubprocessAdapter
from conformance._reference_adapter import ReferenceAdapter
from conformance._runner import DEFAULT_TIMEOUT, Runner

TARGET = 300  # scenarios per second through the protocol
SERVE = (sys.executable, "-m", "conformance", "serve")


def _time_run(cases: Sequence[Case], adapter: Adapter, timeout: float | None) -> float:
    runner = Runner(adapter, timeout=timeout)
    start = time.perf_counter()
    results = runner.run_all(cases)
    elapsed = time.perf_counter() - start
    assert all(r.passed for r in results), [r.case.id for r in results if not r.passed]
    return elapsed


def _protocol(cases: Sequence[Case], validate: bool) -> tuple[float, float]:
    """One run through a fresh server: (seconds to start and say hello, seconds for the run)."""
    start = time.perf_counter()
    adapter = SubprocessAdapter(SERVE, validate_protocol=validate)
    adapter.capabilities()  # starts the process and says hello
    startup = time.perf_counter() - start
    try:
        return startup, _time_run(cases, adapter, DEFAULT_TIMEOUT)
    finally:
        adapter.close()


def _median(repeat: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cases = load_catalog().cases
    parts = sum(len(c.parts) for c in cases)
    print(f"catalog: {len(cases)} cases, {parts} scenarios")

    in_process = _median(args.repeat, lambda: _time_run(cases, ReferenceAdapter(), None))
    in_process_rate = parts / in_process
    print(
        f"in process:          {in_process * 1000:7.1f} ms median of {args.repeat}, "
        f"{in_process_rate:7,.0f} scenarios/s"
    )
    for label, validate in (("protocol:", False), ("protocol, validated:", True)):
        runs = [_protocol(cases, validate) for _ in range(args.repeat)]
        startup = statistics.median(s for s, _ in runs)
        elapsed = statistics.median(t for _, t in runs)
        rate = parts / elapsed
        print(
            f"{label:20} {elapsed * 1000:7.1f} ms median of {args.repeat}, {rate:7,.0f} "
            f"scenarios/s (target >= {TARGET:,}, ratio {rate / TARGET:.2f}; "
            f"{rate / in_process_rate:.2f} x in process; start-up and hello "
            f"{startup * 1000:.0f} ms, not counted)"
        )


if __name__ == "__main__":
    main()
