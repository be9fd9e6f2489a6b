"""Benchmark of the HTML report of the whole catalog, against the 1 s target of the issue.

Run: python benchmarks/bench_report_html.py [--repeat N]

Runs the whole catalog once against the reference (every part passes: the page is the level
table and the passes) and once against ``fakes:AlwaysWrong`` from the kit's tests (every part
fails: each failure, or each cause shared by several, carries its state diagram or step graph,
so this is the heaviest page the catalog makes). Prints, for each, the median of N renders of
``render_html`` (timing excludes the run itself), the page size, the target and the ratio to it
(ratio < 1 meets the target).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from conformance._catalog.cases import Selection, load_catalog
from conformance._judging.records import Report, RunHeader, records_of
from conformance._judging.runner import Runner
from conformance._report.html import render_html
from conformance._runtime.reference_adapter import ReferenceAdapter

TARGET_SEC = 1.0  # any format, the report of the whole catalog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "conformance"))
from fakes import AlwaysWrong  # noqa: E402 (the kit's tests are no package)


def report_of(adapter: Any, spec: str) -> Report:
    """The report of the whole catalog (newest spec version) against ``adapter``."""
    catalog = load_catalog()
    results = Runner(adapter, timeout=None).run_all(catalog.select())
    header = RunHeader.of(spec, adapter.capabilities(), catalog, Selection())
    return Report(header, tuple(records_of(results)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    for label, adapter, spec in (
        ("reference (every part passes)", ReferenceAdapter(), "reference"),
        ("fakes:AlwaysWrong (every part fails)", AlwaysWrong(), "fakes:AlwaysWrong"),
    ):
        report = report_of(adapter, spec)
        failing = sum(1 for r in report.records if not r.passed)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            page = render_html(report)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{label}: {len(report.records)} parts, {failing} not passing, "
            f"{len(page.encode()):,} bytes: {median * 1000:.0f} ms median of {args.repeat} "
            f"(target <= {TARGET_SEC:g} s, ratio {median / TARGET_SEC:.2f})"
        )


if __name__ == "__main__":
    main()
