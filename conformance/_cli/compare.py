"""``ppconf compare``: two reports side by side; exit 1 on any regression, or on a NEW that
cannot be judged."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from conformance._cli.common import EXIT_FAILED, EXIT_OK
from conformance._report.compare import ALLOWANCES, COMPARE_FORMATS, compare
from conformance._report.jsonl import read_report


def add_compare_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "compare",
        help="compare two JSON Lines reports: regressions, fixes, new and removed cases, levels",
        description="Compare the report of a run (NEW) with a baseline (OLD), by case id, part "
        "and check: regressions (a part or check that passed in OLD and does not in NEW, or a "
        "case new in NEW that fails), fixes, new and removed cases, and level changes. Timings "
        "are ignored. Exit status: 1 on any regression, or when NEW cannot be judged against "
        "OLD (a run that did not finish, a partial selection, another spec version or "
        "catalog; see --allow); 0 otherwise; 2 when a report cannot be read.",
    )
    parser.add_argument("old", metavar="OLD", help="the baseline report (e.g. from main)")
    parser.add_argument("new", metavar="NEW", help="the report to judge against it")
    parser.add_argument(
        "--format",
        choices=tuple(COMPARE_FORMATS),
        default="text",
        help="text (default) or md, for a CI step summary",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        choices=ALLOWANCES,
        help="accept a NEW that is so on purpose: unfinished (its run did not finish), partial "
        "(a filtered selection), spec-version or catalog (another than OLD's); repeatable. "
        "Without it, each fails the comparison",
    )
    parser.set_defaults(handler=compare_command)


def compare_command(args: argparse.Namespace, out: TextIO) -> int:
    comparison = compare(read_report(args.old), read_report(args.new), allow=args.allow)
    print(COMPARE_FORMATS[args.format](comparison).rstrip("\n"), file=out)
    return EXIT_FAILED if comparison.failed else EXIT_OK
