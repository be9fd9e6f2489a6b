"""Benchmarks of the views rendered from a report file, against the 1 s target of the issue.

Run: python benchmarks/bench_reports.py [--repeat N]

Runs the whole catalog once against the reference and once against ``fakes:ValidatesOnly`` (a
runtime that never makes a transition: hundreds of failures and skips to group), writing their
JSON Lines reports, then prints for each report and each format the median of N renderings
*from the file* (reading and checking every line against the schema included), the target and
the ratio to it (ratio < 1 meets the target); then the same for ``ppconf compare`` of the two.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from conformance._cli import main
from conformance._report.compare import COMPARE_FORMATS, compare
from conformance._report.jsonl import read_report
from conformance._report.views import VIEWS, render_view

TARGET_SEC = 1.0
FAKES = Path(__file__).resolve().parents[1] / "tests" / "conformance"


def write_report(adapter: str, path: Path) -> None:
    """Run the catalog against ``adapter``, its report to ``path`` (the run's output dropped)."""
    with contextlib.redirect_stdout(io.StringIO()):
        main(["run", "--adapter", adapter, "--report", "json", str(path)])


def median(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def line(label: str, seconds: float) -> str:
    ratio = seconds / TARGET_SEC
    return f"{label:<44} {seconds:8.3f} s   target {TARGET_SEC:.1f} s   ratio {ratio:.3f}"


def view_from_file(name: str, path: Path) -> Callable[[], bytes]:
    return lambda: render_view(name, read_report(path))


def compare_files(name: str, old: Path, new: Path) -> Callable[[], str]:
    return lambda: COMPARE_FORMATS[name](compare(read_report(old), read_report(new)))


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(FAKES))
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for adapter in ("reference", "fakes:ValidatesOnly"):
            paths[adapter] = Path(folder) / f"{adapter.replace(':', '-')}.jsonl"
            write_report(adapter, paths[adapter])
        for adapter, path in paths.items():
            report = read_report(path)
            size = path.stat().st_size
            print(f"{adapter}: {len(report.records)} parts, {size / 1e6:.2f} MB")
            seconds = median(functools.partial(read_report, path), args.repeat)
            print(line("  read the file (schema-checked)", seconds))
            for name in VIEWS:
                seconds = median(view_from_file(name, path), args.repeat)
                print(line(f"  ppconf report --format {name}", seconds))
        old, new = paths["reference"], paths["fakes:ValidatesOnly"]
        for name in COMPARE_FORMATS:
            seconds = median(compare_files(name, old, new), args.repeat)
            print(line(f"ppconf compare --format {name} (both files)", seconds))


if __name__ == "__main__":
    main_()
