"""``ppconf cases list|show|check``: browsing and checking the catalog."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

import reference
from conformance._basics.resources import catalog_root
from conformance._basics.tables import render_table
from conformance._catalog.cases import Case, load_catalog
from conformance._catalog.registry_check import default_texts
from conformance._catalog.statements import Registry
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    print_json,
    report_error,
)
from conformance._cli.run import add_selection_options, selection
from conformance._judging.catalog_check import check_catalog

__all__ = ["add_cases_parser", "cited"]


def add_cases_parser(commands: Any) -> None:
    cases = commands.add_parser("cases", help="list, show and check the catalog's cases")
    actions = cases.add_subparsers(dest="action", required=True, metavar="ACTION")

    listing = actions.add_parser(
        "list", help="list cases (id, area, level, requirement, spec versions)"
    )
    add_selection_options(listing)
    listing.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="RULE",
        help="cases exercising a SEMANTICS row or code (X5, C3, budget-exhausted); repeatable",
    )
    listing.add_argument(
        "--spec",
        action="append",
        default=[],
        metavar="TEXT",
        help="cases citing a statement whose source or section contains TEXT ('RFC 0009', "
        "'WorkflowBudget'); repeatable",
    )
    listing.add_argument(
        "--statement",
        action="append",
        default=[],
        metavar="ID",
        help="cases citing this statement id, or an id starting with it followed by a dot "
        "(RFC0014.rule-4 takes RFC0014.rule-4.1 too); repeatable",
    )
    add_format_option(listing, schema="cases-list.schema.json")
    listing.set_defaults(handler=_list)

    show = actions.add_parser("show", help="print one case file")
    show.add_argument("case_id", metavar="ID")
    show.add_argument("--catalog", metavar="DIR", help="a catalog folder (default: built-in)")
    add_format_option(show, schema="cases-show.schema.json")
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
    check.add_argument(
        "--texts",
        metavar="DIR",
        help="a folder of the sources' texts (rfc-0005-workflow.txt, promptpack-1.9.0.schema.json "
        "...): every quote of the statement registry must be in its text (default: the "
        "project's ../shared/spec beside a source checkout, when it is there)",
    )
    add_format_option(check, schema="cases-check.schema.json")
    check.set_defaults(handler=_check)


def _list(args: argparse.Namespace, out: TextIO) -> int:
    catalog = load_catalog(args.catalog, extra=args.extra_catalog)  # errors: see main()
    chosen = [
        case
        for case in catalog.select(selection(args))
        if (not args.rule or any(rule in case.rules for rule in args.rule))
        and (not args.spec or any(_cites(case, text, catalog.registry) for text in args.spec))
        and (not args.statement or any(_cites_id(case, i) for i in args.statement))
    ]
    if args.format == "json":
        print_json([_listing(case) for case in chosen], out)
        return EXIT_OK
    rows = [
        [c.id, c.area, str(c.level), c.requirement, " ".join(c.spec_versions), c.description]
        for c in chosen
    ]
    headers = ["id", "area", "level", "req", "spec versions", "description"]
    print(render_table(headers, rows), file=out)
    print(f"{len(rows)} cases of spec version {args.spec_version}", file=out)
    return EXIT_OK


def cited(case: Case) -> list[str]:
    """Every statement id the case's checks rest on (its own, then its scenarios'), once."""
    ids = dict.fromkeys(case.statements)
    for scenario in case.scenarios:
        ids.update(dict.fromkeys(scenario.statements))
    return list(ids)


def _cites(case: Case, text: str, registry: Registry) -> bool:
    wanted = text.casefold()
    return any(
        wanted in f"{s.source} {s.section}".casefold()
        for i in cited(case)
        if (s := registry.get(i)) is not None
    )


def _cites_id(case: Case, wanted: str) -> bool:
    return any(i == wanted or i.startswith(wanted + ".") for i in cited(case))


def _listing(case: Case) -> dict[str, object]:
    return {
        "id": case.id,
        "area": case.area,
        "level": case.level,
        "requirement": case.requirement,
        "spec_versions": list(case.spec_versions),
        "rules": list(case.rules),
        "statements": cited(case),
        "description": case.description,
        "file": case.source,
        "parts": case.parts,
    }


def _show(args: argparse.Namespace, out: TextIO) -> int:
    catalog = load_catalog(args.catalog)  # a CaseError is reported by main()
    case = catalog.get(args.case_id)
    if case is None:
        close = [c.id for c in catalog.cases if args.case_id in c.id][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `ppconf cases list`"
        report_error(f"no case {args.case_id!r}{hint}")
        return EXIT_UNUSABLE
    text = case.file.read_text(encoding="utf-8")
    if args.format == "json":
        document = reference.parse_document(text, format="yaml", source=str(case.file))
        statements = [
            s.to_dict() if (s := catalog.registry.get(i)) else {"id": i, "unknown": True}
            for i in cited(case)
        ]
        print_json(
            {"id": case.id, "file": case.source, "case": document.data, "statements": statements},
            out,
        )
        return EXIT_OK
    print(f"# {case.file}", file=out)
    print(text, end="", file=out)
    print("# the statements its checks cite:", file=out)
    for statement_id in cited(case):
        statement = catalog.registry.get(statement_id)
        if statement is None:
            print(f"#   {statement_id}: not in the statement registry", file=out)
            continue
        print(
            f"#   {statement_id} ({statement.source}, {statement.section}; "
            f"{statement.keyword}: {statement.requirement()}):",
            file=out,
        )
        print(f"#     {' '.join(statement.quote.split())}", file=out)
    return EXIT_OK


def _check(args: argparse.Namespace, out: TextIO) -> int:
    root = Path(args.catalog) if args.catalog else catalog_root()
    if not root.is_dir():
        report_error(f"{root} is not a folder")
        return EXIT_UNUSABLE
    texts = Path(args.texts) if args.texts else default_texts()
    if texts is not None and not texts.is_dir():
        report_error(f"--texts {texts}: not a folder; give the folder holding the sources' texts")
        return EXIT_UNUSABLE
    cases, problems = check_catalog(root, coverage=not args.no_coverage, texts=texts)
    if args.format == "json":
        print_json(
            {
                "catalog": str(root),
                "cases": len(cases),
                "passed": not problems,
                "texts": str(texts) if texts is not None else None,
                "problems": problems,
            },
            out,
        )
        return EXIT_FAILED if problems else EXIT_OK
    for problem in problems:
        print(problem, file=out)
    if problems:
        print(f"catalog check FAILED: {len(problems)} problem(s) in {len(cases)} cases", file=out)
        return EXIT_FAILED
    compared = f", every quote found in {texts}" if texts is not None else ""
    print(f"catalog check passed: {len(cases)} cases{compared}", file=out)
    return EXIT_OK
