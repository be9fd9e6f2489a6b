"""``ppconf report``: render any view of a run from its JSON Lines report."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from conformance._cli.common import EXIT_OK, EXIT_UNUSABLE, report_error
from conformance._report.badge import render_badge
from conformance._report.jsonl import read_report
from conformance._report.outputs import STDOUT, check_outputs, write_output
from conformance._report.views import VIEWS, Renderer, render_view


def add_report_parser(commands: Any) -> None:
    formats = "; ".join(f"{name}: {view.description}" for name, view in VIEWS.items())
    report = commands.add_parser(
        "report",
        help="render a view (text, md, junit, badge ...) of a JSON Lines report",
        description="Render a view of a run from the JSON Lines report `ppconf run --report "
        "json` wrote, complete or cut short. Exit status: 0 when the view is written, whatever "
        "the run's verdict (use `ppconf run` or `ppconf compare` to fail CI); 2 when the report "
        "cannot be read.",
    )
    report.add_argument("file", metavar="FILE", help="the JSON Lines report")
    report.add_argument(
        "out",
        metavar="OUT",
        nargs="?",
        help="where to write the view (default, or -: stdout); never the report itself",
    )
    report.add_argument(
        "--format", choices=tuple(VIEWS), default="text", help=f"the view ({formats})"
    )
    report.add_argument(
        "--area",
        metavar="AREA",
        help="with --format badge: the badge of one area instead of the headline",
    )
    report.set_defaults(handler=report_command)
    report.__class__ = _OutAfterOptions


class _OutAfterOptions(argparse.ArgumentParser):
    """Takes OUT after the options too (``ppconf report FILE --format md OUT``): argparse
    matches the optional OUT, empty, beside FILE when an option follows FILE, and then has no
    place left for it."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if getattr(parsed, "out", None) is None and extras and not extras[0].startswith("-"):
            parsed.out = extras.pop(0)
        return parsed, extras


def report_command(args: argparse.Namespace, out: TextIO) -> int:
    if args.area is not None and args.format != "badge":
        report_error("--area goes with --format badge (the other views show every area)")
        return EXIT_UNUSABLE
    if args.out is not None:
        check_outputs([(f"the {args.format} view", args.out)], [("the report", args.file)])
    report = read_report(args.file)
    render: Renderer | None = None
    if args.area is not None:
        render = functools.partial(render_badge, area=args.area)
    data = render_view(args.format, report, render)
    if not report.complete:
        print(
            f"ppconf: note: {args.file}: the run did not finish; the view shows the "
            f"{len(report.records)} part(s) it holds",
            file=sys.stderr,
        )
    if args.out is None or args.out == STDOUT:
        out.write(data.decode("utf-8"))
        return EXIT_OK
    write_output(args.out, data, f"the {args.format} view")  # an OutputError goes to main()
    return EXIT_OK
