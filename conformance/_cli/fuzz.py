"""``ppconf fuzz``: generated examples on the reference and a runtime side by side.

Exit status: 0 no divergence, 1 a divergence or an adapter fault (printed, and written as a case
with ``--export``), 2 bad arguments or an adapter that cannot be loaded.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from conformance._areas import AREAS
from conformance._boundary import Guard
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    positive_int,
    positive_seconds,
    print_json,
    report_error,
)
from conformance._cli.run import add_adapter_options, open_adapter
from conformance._errors import AdapterError

if TYPE_CHECKING:
    from conformance._fuzz.engine import FuzzResult


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
    add_format_option(fuzz, schema="fuzz.schema.json")


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
    exported = None
    if finding is not None and finding.kind != "fault" and args.export:
        exported = export(finding, args.export, args.adapter, args.seed)
    if finding is None:
        if not result.tally.examples:
            verdict, status = "no example ran", EXIT_FAILED
        elif result.tally.unsupported == result.tally.examples:
            verdict, status = "nothing compared", EXIT_FAILED
        else:
            verdict, status = "no divergence", EXIT_OK
    else:
        verdict, status = finding.kind, EXIT_FAILED
    if args.format == "json":
        print_json(_fuzz_data(args, result, verdict, exported), out)
        return status
    if finding is None:
        print(render_summary(result, args.adapter), file=out)
        if verdict == "no example ran":
            print("no example ran: give more time (--max-time) or examples", file=out)
        elif verdict == "nothing compared":
            print("nothing was compared: the runtime skipped every example", file=out)
        return status
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
    elif exported is not None:
        print(f"written: {exported} (ppconf run --catalog {args.export} --adapter ...)", file=out)
    else:
        print("add --export DIR to write it as a case file", file=out)
    return status


def _fuzz_data(
    args: argparse.Namespace, result: FuzzResult, verdict: str, exported: Path | None
) -> dict[str, Any]:
    """What ``ppconf fuzz --format json`` prints (``schema/fuzz.schema.json``)."""
    from conformance._fuzz.report import case_document  # noqa: PLC0415

    finding = result.finding
    found: dict[str, Any] | None = None
    if finding is not None:
        found = {
            "kind": finding.kind,
            "area": finding.expected.area,
            "part": finding.part,
            "message": finding.message,
            "step": finding.step,
            "field": finding.field,
            "rule": finding.rule,
            "found_after": result.found_after,
            "shrink_runs": result.shrink_runs,
            "case": case_document(finding, args.adapter, args.seed),
        }
    return {
        "adapter": args.adapter,
        "areas": list(result.areas),
        "seed": args.seed,
        "examples": result.tally.examples,
        "by_area": dict(sorted(result.tally.by_area.items())),
        "unsupported": result.tally.unsupported,
        "verdict": verdict,
        "finding": found,
        "exported": str(exported) if exported is not None else None,
    }
