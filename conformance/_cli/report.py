"""``ppconf report``: render any view of a run from its JSON Lines report."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from conformance._basics.files import open_regular
from conformance._basics.json_text import JsonTextError, loads
from conformance._cli.common import EXIT_OK, EXIT_UNUSABLE, add_format_option, report_error
from conformance._report.badge import render_badge
from conformance._report.jsonl import (
    MAX_LINE_BYTES,
    MAX_REPORT_BYTES,
    ReportError,
    read_report,
    summary_line,
)
from conformance._report.matrix import (
    Matrix,
    build_matrix,
    render_matrix_html,
    render_matrix_markdown,
    render_matrix_text,
)
from conformance._report.outputs import STDOUT, OutputError, check_outputs, write_output
from conformance._report.views import VIEWS, Renderer, render_view

__all__ = ["MATRIX_VIEWS", "add_report_parser", "report_command"]


def add_report_parser(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="render a view (text, md, junit, badge ...) of a JSON Lines report",
        description="Render a view of a run from the JSON Lines report `ppconf run --report "
        "json` wrote, complete or cut short. Given several reports (FILE FILE ...), render one "
        "matrix of them (--format html, md or text): runtimes as columns, the levels of each "
        "area, then every case part on which they differ; reports of different spec versions "
        "or catalogs are compared on the parts they share, and the view says so. Exit status: 0 "
        "when the view is written, whatever the run's verdict (each run's, for a matrix; use "
        "`ppconf run` or `ppconf compare` to fail CI); 2 when a report cannot be read, or "
        "reports cannot be compared.",
    )
    report.add_argument(
        "files",
        metavar="FILE",
        nargs="+",
        help="the JSON Lines report(s); with one report, a last argument that is not a report "
        "(no such file yet, or no run header) is OUT, where to write the view",
    )
    report.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="where to write the view (default: stdout)",
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
    """Takes reports (and OUT) after the options too (``ppconf report FILE --format md OUT``):
    argparse ends FILE ... at the first option, and then has no place left for them."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        while extras and not extras[0].startswith("-") and hasattr(parsed, "files"):
            parsed.files.append(extras.pop(0))
        return parsed, extras


MATRIX_VIEWS: dict[str, Callable[[Matrix], str]] = {
    "html": render_matrix_html,
    "md": render_matrix_markdown,
    "text": render_matrix_text,
}


def _is_report(path: str) -> bool:
    """Whether ``path`` is a regular file whose first line is a run header. Read as the report
    reader reads (see :func:`~conformance._basics.files.open_regular`): a FIFO, a device, a
    line without end or nesting without end is no report, and never a hang or a traceback."""
    try:
        with open_regular(path) as stream:
            first = stream.readline(MAX_LINE_BYTES + 1)
        data = loads(first.decode("utf-8"))
    except (OSError, UnicodeDecodeError, JsonTextError):
        return False
    return isinstance(data, dict) and data.get("type") == "run"


VIEW_SUFFIXES = frozenset({".md", ".markdown", ".html", ".htm", ".xml", ".txt", ".json", ".svg"})
"""The names of files a view may overwrite when given as ``ppconf report FILE OUT``."""


def _is_view(path: str) -> bool:
    return os.path.splitext(path)[1].lower() in VIEW_SUFFIXES


def _files_and_out(args: argparse.Namespace) -> tuple[list[str], str | None]:
    """The reports, and where the view goes: ``--output``, else a last argument that is not a
    report (``ppconf report FILE OUT``, as before several reports could be given).

    Raises:
        OutputError: the last argument is an existing file that is neither a report nor a
            view (by its name): it is never guessed to be the output (it may be a compressed
            report, or anything else of value).
    """
    files = list(args.files)
    out = args.output
    if out is None and len(files) >= 2:
        last = files[-1]
        if _same_file(last, files[:-1]):
            out = files.pop()  # the outputs check then refuses a view over its own report
        elif os.path.exists(last) and not os.path.isfile(last):
            pass  # a folder, FIFO or device: read as a report, the reader says what it is
        elif not _is_report(last):
            if os.path.lexists(last) and last != STDOUT and not _is_view(last):
                raise OutputError(
                    f"{last} exists and is not a report: to write the view there, say so with "
                    f"--output {last}; to read it, give a report written by `ppconf run "
                    "--report json` (decompressed)"
                )
            out = files.pop()
    return files, out


def _same_file(path: str, others: Sequence[str]) -> bool:
    try:
        return any(os.path.samefile(path, other) for other in others)
    except OSError:
        return False


def report_command(args: argparse.Namespace, out: TextIO) -> int:
    if args.area is not None and args.format != "badge":
        report_error("--area goes with --format badge (the other views show every area)")
        return EXIT_UNUSABLE
    files, args.out = _files_and_out(args)
    outputs = [(f"the {args.format} view", args.out)] if args.out is not None else []
    check_outputs(outputs, [("the report", path) for path in files])
    if len(files) > 1:
        return _matrix_command(args, files, out)
    args.file = files[0]
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
    if args.out is None or args.out == STDOUT:
        out.write(data.decode("utf-8"))
        return EXIT_OK
    write_output(args.out, data, f"the {args.format} view")  # an OutputError goes to main()
    return EXIT_OK


def _check_total(files: Sequence[str]) -> None:
    """Refuse reports whose sizes add up to more than one report may hold: a matrix holds them
    all in memory at once.

    Raises:
        ReportError: naming the total and the limit.
    """
    total = 0
    for path in files:
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # the reader says what is wrong with it
    if total > MAX_REPORT_BYTES:
        raise ReportError(
            f"the {len(files)} reports add up to {total // (1024 * 1024):,} MB, more than the "
            f"{MAX_REPORT_BYTES // (1024 * 1024)} MB a matrix reads; a report written by ppconf "
            "is far smaller: give fewer or smaller reports"
        )


def _matrix_command(args: argparse.Namespace, files: list[str], out: TextIO) -> int:
    """Several reports: one matrix of them."""
    render = MATRIX_VIEWS.get(args.format)
    if render is None:
        report_error(
            f"--format {args.format} renders one report; several reports make a matrix in "
            f"{', '.join(MATRIX_VIEWS)} (or render each report on its own)"
        )
        return EXIT_UNUSABLE
    _check_total(files)
    reports = [read_report(path) for path in files]
    text = render(build_matrix(reports, files))
    if args.out is None or args.out == STDOUT:
        out.write(text)
        return EXIT_OK
    write_output(args.out, text.encode("utf-8"), f"the {args.format} matrix")
    return EXIT_OK
