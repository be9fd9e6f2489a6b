"""``ppconf cases list|show|check``: browsing and checking the catalog."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from conformance._cases import load_catalog
from conformance._checks import check_catalog
from conformance._cli_common import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, report_error
from conformance._cli_run import add_selection_options, select
from conformance._resources import catalog_root
from conformance._tables import render_table


def add_cases_parser(commands: Any) -> None:
    cases = commands.add_parser("cases", help="list, show and check the catalog's cases")
    actions = cases.add_subparsers(dest="action", required=True, metavar="ACTION")

    listing = actions.add_parser("list", help="list cases (id, area, level, requirement)")
    add_selection_options(listing)
    listing.set_defaults(handler=_list)

    show = actions.add_parser("show", help="print one case file")
    show.add_argument("case_id", metavar="ID")
    show.add_argument("--catalog", metavar="DIR", help="a catalog folder (default: built-in)")
    show.set_defaults(handler=_show)

    check = actions.add_parser(
        "check",
        help="check the catalog: case schema, unique ids, valid packs, coverage, reference passes",
    )
    check.add_argument("--catalog", metavar="DIR", help="a catalog folder (default: built-in)")
    check.add_argument(
        "--no-coverage",
        action="store_true",
        help="skip the coverage checks (for a partial catalog of your own)",
    )
    check.set_defaults(handler=_check)


def _list(args: argparse.Namespace, out: TextIO) -> int:
    catalog = load_catalog(args.catalog)  # a CaseError is reported by main()
    rows = [
        [c.id, c.area, str(c.level), c.requirement, c.description] for c in select(args, catalog)
    ]
    print(render_table(["id", "area", "level", "req", "description"], rows), file=out)
    print(f"{len(rows)} cases", file=out)
    return EXIT_OK


def _show(args: argparse.Namespace, out: TextIO) -> int:
    catalog = load_catalog(args.catalog)  # a CaseError is reported by main()
    case = catalog.get(args.case_id)
    if case is None:
        close = [c.id for c in catalog.cases if args.case_id in c.id][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `ppconf cases list`"
        report_error(f"no case {args.case_id!r}{hint}")
        return EXIT_UNUSABLE
    print(f"# {case.file}", file=out)
    print(case.file.read_text(encoding="utf-8"), end="", file=out)
    return EXIT_OK


def _check(args: argparse.Namespace, out: TextIO) -> int:
    root = Path(args.catalog) if args.catalog else catalog_root()
    if not root.is_dir():
        report_error(f"{root} is not a folder")
        return EXIT_UNUSABLE
    cases, problems = check_catalog(root, coverage=not args.no_coverage)
    for problem in problems:
        print(problem, file=out)
    if problems:
        print(f"catalog check FAILED: {len(problems)} problem(s) in {len(cases)} cases", file=out)
        return EXIT_FAILED
    print(f"catalog check passed: {len(cases)} cases", file=out)
    return EXIT_OK
