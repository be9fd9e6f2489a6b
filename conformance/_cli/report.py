"""``ppconf report``: render any view of a run from its JSON Lines report."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from conformance._cli.common import EXIT_OK, EXIT_UNUSABLE, add_format_option, report_error
from conformance._report.badge import render_badge
from conformance._report.jsonl import read_report, summary_line
from conformance._report.views import VIEWS, Renderer, render_view


def add_report_parser(commands: Any) -> None:
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
        "out", metavar="OUT", nargs="?", help="where to write the view (default: stdout)"
    )
    add_format_option(
        report,
        schema="summary.schema.json (the summary record, computed also for a run that did "
        "not finish)",
        views={name: view.description for name, view in VIEWS.items() if name != "text"},
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
    report = read_report(args.file)
    render: Renderer | None = None
    if args.area is not None:
        render = functools.partial(render_badge, area=args.area)
    if args.format == "json":
        data = summary_line(report).encode("utf-8")
    else:
        data = render_view(args.format, report, render)
    if not report.complete:
        print(
            f"ppconf: note: {args.file}: the run did not finish; the view shows the "
            f"{len(report.records)} part(s) it holds",
            file=sys.stderr,
        )
    if args.out is None:
        out.write(data.decode("utf-8"))
        return EXIT_OK
    try:
        Path(args.out).write_bytes(data)
    except OSError as error:
        report_error(f"cannot write {args.out}: {error}")
        return EXIT_UNUSABLE
    return EXIT_OK
