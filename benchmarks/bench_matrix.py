"""Benchmark of the matrix of three full reports, against the 1 s target of the issue.

Run: python benchmarks/bench_matrix.py [--repeat N]

Runs the whole catalog against three runtimes: the reference (spec 1.9), a runtime of the kit's
tests that breaks loops (``breaking:OneLevelRedirects``, 1.9: it follows ``on_max_visits`` one
level only), and the Node.js example (``examples/node``, at spec 1.5, over the adapter protocol;
``node`` must be on ``PATH``, else the reference at 1.5 stands in, and the script says so). Then
prints the median time of N renders of the matrix (reading the three reports from their JSON
Lines files, aligning them, and rendering the HTML page; the runs themselves are not timed), the
page size, how many case parts differ, the target and the ratio to it (ratio < 1 meets it), and
the Markdown view's time.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from conformance._catalog.cases import Selection, load_catalog
from conformance._judging.records import Report, RunHeader, records_of
from conformance._judging.runner import Runner
from conformance._report.jsonl import JsonLinesWriter, read_report
from conformance._report.matrix import build_matrix, render_matrix_html, render_matrix_markdown
from conformance._runtime.adapter_spec import load_adapter

TARGET_SEC = 1.0  # three full reports, read, aligned and rendered
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "conformance"))


def write_report(spec: str, spec_version: str, path: Path) -> None:
    """Run the whole catalog of ``spec_version`` against ``spec``; write its JSON Lines."""
    adapter = load_adapter(spec)
    try:
        catalog = load_catalog()
        selection = Selection(spec_version=spec_version)
        results = Runner(adapter, timeout=None).run_all(catalog.select(selection))
        header = RunHeader.of(spec, adapter.capabilities(), catalog, selection)
        report = Report(header, tuple(records_of(results)))
    finally:
        close = getattr(adapter, "close", None)
        if close is not None:
            close()
    writer = JsonLinesWriter(path, header)
    for record in report.records:
        writer.add(record)
    writer.finish(report)
    writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    node = shutil.which("node")
    third = f"cmd:node {ROOT / 'examples' / 'node' / 'adapter.js'}" if node else "reference"
    if node is None:
        print("node is not on PATH: the reference at spec 1.5 stands in for the Node example")
    runs = (("reference", "1.9"), ("breaking:OneLevelRedirects", "1.9"), (third, "1.5"))
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for number, (spec, version) in enumerate(runs):
            path = Path(folder) / f"run{number}.jsonl"
            write_report(spec, version, path)
            files.append(str(path))
        times, md_times = [], []
        page = ""
        for _ in range(args.repeat):
            start = time.perf_counter()
            matrix = build_matrix([read_report(f) for f in files], files)
            page = render_matrix_html(matrix)
            times.append(time.perf_counter() - start)
            start = time.perf_counter()
            render_matrix_markdown(matrix)
            md_times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"3 reports ({', '.join(f'{s} at {v}' for s, v in runs)}): {matrix.shared} shared "
        f"parts, {len(matrix.rows)} differ, {len(page.encode()):,} bytes of HTML: "
        f"{median * 1000:.0f} ms median of {args.repeat} (read, align, render; "
        f"target <= {TARGET_SEC:g} s, ratio {median / TARGET_SEC:.2f})"
    )
    print(f"the Markdown view of the same matrix: {statistics.median(md_times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
