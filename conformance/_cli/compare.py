"""``ppconf compare``: two reports side by side; exit 1 on any regression, or on a NEW that
cannot be judged."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from conformance._cli.common import EXIT_FAILED, EXIT_OK, add_format_option, print_json
from conformance._judging.records import Report
from conformance._report.compare import (
    ALLOWANCES,
    COMPARE_FORMATS,
    Comparison,
    PartChange,
    compare,
)
from conformance._report.jsonl import read_report

__all__ = ["add_compare_parser", "compare_command", "comparison_data"]


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
    add_format_option(
        parser,
        schema="compare.schema.json",
        views={"md": "Markdown, for a CI step summary"},
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
    if args.format == "json":
        print_json(comparison_data(comparison), out)
    else:
        print(COMPARE_FORMATS[args.format](comparison).rstrip("\n"), file=out)
    return EXIT_FAILED if comparison.failed else EXIT_OK


def comparison_data(comparison: Comparison) -> dict[str, Any]:
    """A comparison as the data ``ppconf compare --format json`` prints
    (``schema/compare.schema.json``)."""
    return {
        "old": _run(comparison.old),
        "new": _run(comparison.new),
        "regressed": comparison.regressed,
        "failed": comparison.failed,
        "problems": list(comparison.problems),
        "notes": list(comparison.notes),
        "regressions": [_change(c) for c in comparison.regressions],
        "fixes": [_change(c) for c in comparison.fixes],
        "changed": [_change(c) for c in comparison.changed],
        "new_cases": list(comparison.new_cases),
        "removed_cases": list(comparison.removed_cases),
        "new_parts": [_change(c) for c in comparison.new_parts],
        "removed_parts": [_change(c) for c in comparison.removed_parts],
        "levels": [
            {"area": level.area, "old": level.old, "new": level.new, "change": level.direction}
            for level in comparison.levels
        ],
    }


def _run(report: Report) -> dict[str, Any]:
    header = report.header
    return {
        "adapter": header.adapter,
        "spec_version": header.selection.spec_version,
        "catalog": header.catalog_hash,
        "complete": report.complete,
    }


def _change(change: PartChange) -> dict[str, Any]:
    record = change.record
    return {
        "case": record.case,
        "part": record.part,
        "area": record.area,
        "requirement": record.requirement,
        "old": change.old.outcome if change.old is not None else None,
        "new": change.new.outcome if change.new is not None else None,
        "checks": list(change.checks),
        "message": change.new.message if change.new is not None else "",
    }
