"""``ppconf compare``: two reports side by side; exit 1 on any regression."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from conformance._cli.common import EXIT_FAILED, EXIT_OK
from conformance._report.compare import COMPARE_FORMATS, compare
from conformance._report.jsonl import read_report


def add_compare_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "compare",
        help="compare two JSON Lines reports: regressions, fixes, new and removed cases, levels",
        description="Compare the report of a run (NEW) with a baseline (OLD), by case id, part "
        "and check: regressions (a part or check that passed in OLD and does not in NEW, or a "
        "case new in NEW that fails), fixes, new and removed cases, and level changes. Timings "
        "are ignored. Exit status: 1 on any regression, 0 otherwise, 2 when a report cannot "
        "be read.",
    )
    parser.add_argument("old", metavar="OLD", help="the baseline report (e.g. from main)")
    parser.add_argument("new", metavar="NEW", help="the report to judge against it")
    parser.add_argument(
        "--format",
        choices=tuple(COMPARE_FORMATS),
        default="text",
        help="text (default) or md, for a CI step summary",
    )
    parser.set_defaults(handler=compare_command)


def compare_command(args: argparse.Namespace, out: TextIO) -> int:
    comparison = compare(read_report(args.old), read_report(args.new))
    print(COMPARE_FORMATS[args.format](comparison).rstrip("\n"), file=out)
    return EXIT_FAILED if comparison.regressed else EXIT_OK
