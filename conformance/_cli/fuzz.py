"""``ppconf fuzz``: generated examples on the reference and a runtime side by side.

Exit status: 0 no divergence, 1 a divergence or an adapter fault (printed, and written as a case
with ``--export``), 2 bad arguments or an adapter that cannot be loaded.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from conformance._areas import AREAS
from conformance._boundary import Guard
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    positive_int,
    positive_seconds,
    report_error,
)
from conformance._cli.run import add_adapter_options, open_adapter
from conformance._errors import AdapterError


def add_fuzz_parser(commands: Any) -> None:
    fuzz = commands.add_parser(
        "fuzz",
        help="fuzz a runtime against the reference: generated packs and scripts, minimal "
        "divergences written as cases",
        description="Draw packs and event scripts (Hypothesis), run each on the reference and on "
        "the runtime, and compare what the RFCs make MUST. A divergence is shrunk to a minimal "
        "example, printed as a diff, and written with --export as a case file that passes on "
        "the reference and fails on the runtime. See docs/fuzzing.md.",
    )
    add_adapter_options(fuzz)
    fuzz.set_defaults(adapter=None, handler=fuzz_command)
    fuzz.add_argument(
        "--area",
        action="append",
        default=[],
        choices=AREAS,
        help="fuzz this area (repeatable; default: the areas the runtime claims, or workflow, "
        "loops and compositions when it claims none; control and state-agents need a runtime "
        "that reports turns and starts at a state)",
    )
    fuzz.add_argument(
        "--examples",
        type=positive_int,
        metavar="N",
        help="how many examples (default 1000, or as many as --max-time allows)",
    )
    fuzz.add_argument(
        "--seed", type=int, default=0, metavar="S", help="the seed: same seed, same examples"
    )
    fuzz.add_argument(
        "--max-time", type=positive_seconds, metavar="SECONDS", help="stop after about this long"
    )
    fuzz.add_argument(
        "--export",
        metavar="DIR",
        help="write a divergence as a case file under DIR/<area>/ (run it with "
        "`ppconf run --catalog DIR`)",
    )
    fuzz.add_argument(
        "--database",
        metavar="DIR",
        default=str(Path(".ppconf") / "fuzz"),
        help="the example database: failures found are kept here and tried first next time "
        "(default .ppconf/fuzz; share one directory between runs to share them)",
    )
    fuzz.add_argument("--no-database", action="store_true", help="keep no example database at all")


def fuzz_command(args: argparse.Namespace, out: TextIO) -> int:
    # Hypothesis is imported here, not by `ppconf` as a whole: only this command needs it.
    from conformance._fuzz.engine import database_at, default_areas, fuzz  # noqa: PLC0415
    from conformance._fuzz.report import export, render_finding, render_summary  # noqa: PLC0415

    if args.adapter is None:
        report_error(
            "ppconf fuzz needs --adapter SPEC: the runtime to compare with the reference "
            "(module:Class or 'cmd:COMMAND LINE')"
        )
        return EXIT_UNUSABLE
    adapter = open_adapter(args)  # an AdapterError is reported by main()
    guard = Guard(adapter)
    try:
        try:
            claims = guard.capabilities().claims
        except AdapterError as error:
            report_error(str(error))
            return EXIT_UNUSABLE
        areas = tuple(args.area) or default_areas(claims)
        wanted = args.examples if args.examples or args.max_time else 1000
        database = None if args.no_database else database_at(args.database)
        result = fuzz(
            adapter,
            areas=tuple(dict.fromkeys(areas)),
            examples_wanted=wanted,
            seed=args.seed,
            max_time=args.max_time,
            database=database,
        )
    finally:
        guard.close()
    finding = result.finding
    if finding is None:
        print(render_summary(result, args.adapter), file=out)
        if not result.tally.examples:
            print("no example ran: give more time (--max-time) or examples", file=out)
            return EXIT_FAILED
        if result.tally.unsupported == result.tally.examples:
            print("nothing was compared: the runtime skipped every example", file=out)
            return EXIT_FAILED
        return EXIT_OK
    print(
        render_finding(finding, found_after=result.found_after, shrink_runs=result.shrink_runs),
        file=out,
    )
    if finding.kind == "fault":
        print(
            "an adapter fault, not a divergence: fix the adapter (it raised, broke the adapter "
            "interface or did not answer the same way twice), then fuzz again",
            file=out,
        )
    elif args.export:
        path = export(finding, args.export, args.adapter, args.seed)
        print(f"written: {path} (ppconf run --catalog {args.export} --adapter ...)", file=out)
    else:
        print("add --export DIR to write it as a case file", file=out)
    return EXIT_FAILED
