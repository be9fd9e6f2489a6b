"""Throughput of the whole catalog through the in-process reference adapter.

Run: python benchmarks/bench_catalog.py [--repeat N]

A "scenario" here is one case part: a load check, a validation check or an event script, each
run on its own (the unit the runner reports and the pytest plugin turns into a test item).
Timing excludes interpreter start-up and loading the catalog; each repeat uses a fresh adapter,
so the reference compiles every workflow again. Prints the median of N runs, with and without
the per-part timeout (which runs each part on a worker thread, as ``ppconf run`` does).
"""

from __future__ import annotations

import argparse
import statistics
import time

from conformance._catalog.cases import load_catalog
from conformance._judging.runner import DEFAULT_TIMEOUT, Runner
from conformance._runtime.reference_adapter import ReferenceAdapter

TARGET = 1_000  # scenarios per second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    catalog = load_catalog()
    cases = catalog.cases
    parts = sum(len(c.parts) for c in cases)
    scripts = sum(len(c.scenarios) for c in cases)
    print(f"catalog: {len(cases)} cases, {parts} scenarios ({scripts} event scripts)")
    for label, timeout in (
        ("no timeout", None),
        (f"timeout {DEFAULT_TIMEOUT:g} s", DEFAULT_TIMEOUT),
    ):
        times = []
        for _ in range(args.repeat):
            runner = Runner(ReferenceAdapter(), timeout=timeout)
            start = time.perf_counter()
            results = runner.run_all(cases)
            times.append(time.perf_counter() - start)
            assert all(r.passed for r in results), [r.case.id for r in results if not r.passed]
        median = statistics.median(times)
        rate = parts / median
        print(
            f"{label}: {median * 1000:.1f} ms median of {args.repeat}, "
            f"{rate:,.0f} scenarios/s (target >= {TARGET:,}, ratio {rate / TARGET:.2f})"
        )


if __name__ == "__main__":
    main()
