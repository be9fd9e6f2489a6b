"""``ppconf run``: the catalog against a runtime, with levels and reports."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any, TextIO

from conformance._adapter import Adapter
from conformance._adapter_spec import REFERENCE, load_adapter
from conformance._areas import AREAS
from conformance._boundary import Guard
from conformance._cases import Case, Selection, load_catalog
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    positive_int,
    positive_seconds,
    report_error,
)
from conformance._errors import AdapterError, AdapterGaveUp, CaseError, KitError
from conformance._expected_failures import (
    ExpectedFailure,
    load_expected_failures,
    write_expected_failures,
)
from conformance._protocol import SubprocessAdapter
from conformance._records import PartRecord, Report, RunHeader, records_of
from conformance._report.jsonl import JsonLinesWriter, summary_line
from conformance._report.text import render_text
from conformance._report.views import VIEWS, render_view, write_view
from conformance._runner import DEFAULT_TIMEOUT, Runner
from conformance._spec_versions import NEWEST, SpecVersionError, check_target
from conformance._statements import Registry
from conformance._verdicts import judge_report

REPORT_FORMATS = ("json", *VIEWS)
"""json, streamed as the run goes, and every view rendered from it at the end."""


def add_run_parser(commands: Any) -> None:
    run = commands.add_parser(
        "run",
        help="run the catalog against a runtime and report its support levels",
        description="Run the conformance catalog against the reference interpreter (default) or "
        "an adapter, print failures and the level table, and write reports.",
    )
    add_adapter_options(run)
    add_selection_options(run)
    run.add_argument(
        "--report",
        nargs=2,
        action="append",
        default=[],
        metavar=("FORMAT", "PATH"),
        help="write a report: json (JSON Lines, streamed), or a view of it: "
        f"{', '.join(VIEWS)} (see `ppconf report`); repeatable",
    )
    run.add_argument(
        "--require-level",
        type=int,
        choices=range(4),
        metavar="N",
        help="exit 1 unless the headline level is at least N (0-3); needs the whole catalog of "
        "the spec version (no --area/--level/--requirement/--id)",
    )
    run.add_argument(
        "--strict",
        action="store_true",
        help="every check counts: exit 1 on any case that does not pass, at any requirement "
        "(default: only MUST checks of the claimed areas, up to the claimed levels)",
    )
    run.add_argument(
        "--expected-failures",
        metavar="FILE",
        help="YAML mapping of case id to reason (or {flaky: reason}); those failures do not "
        "fail the run, but an unexpected pass does",
    )
    run.add_argument(
        "--write-expected-failures",
        metavar="FILE",
        help="write the cases that did not pass, each with its reason, as an expected-failures "
        "file",
    )
    run.add_argument(
        "--repeat",
        type=positive_int,
        default=1,
        metavar="N",
        help="run each case part N times; a part that does not end the same way every time is "
        "reported flaky and does not pass (default 1)",
    )
    add_format_option(
        run,
        schema="summary.schema.json (the summary record a report ends with)",
        views={name: view.description for name, view in VIEWS.items() if name != "text"},
    )
    run.set_defaults(handler=run_command)


def add_adapter_options(parser: argparse.ArgumentParser) -> None:
    """The adapter options shared by ``run`` and ``smoke``."""
    parser.add_argument(
        "--adapter",
        metavar="SPEC",
        default=REFERENCE,
        help="the runtime: module:Class for a Python adapter, 'cmd:COMMAND LINE' for a program "
        "speaking the adapter protocol on stdio (docs/protocol.md), or reference (default)",
    )
    parser.add_argument(
        "--validate-protocol",
        action="store_true",
        help="for cmd: adapters, check every request and response against the protocol schema",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit for each case part and each protocol request "
        f"(default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--protocol-log",
        metavar="PATH",
        help="for cmd: adapters, write every request and response line to PATH",
    )


def open_adapter(args: argparse.Namespace) -> Adapter:
    """The adapter the options name (raises AdapterError)."""
    transcript = open(args.protocol_log, "w", encoding="utf-8") if args.protocol_log else None  # noqa: SIM115
    return load_adapter(
        args.adapter,
        timeout=args.timeout,
        validate_protocol=args.validate_protocol,
        transcript=transcript,
    )


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """The case filters shared by ``run`` and ``cases list``."""
    parser.add_argument("--catalog", metavar="DIR", help="a catalog folder (default: built-in)")
    parser.add_argument(
        "--extra-catalog",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of more cases, run on top of the catalog (repeatable)",
    )
    parser.add_argument(
        "--spec-version",
        default=NEWEST,
        metavar="VERSION",
        help=f"the PromptPack spec version to assess (default {NEWEST}): its cases and areas",
    )
    parser.add_argument("--area", action="append", default=[], choices=AREAS)
    parser.add_argument("--level", action="append", default=[], type=int, choices=range(4))
    parser.add_argument(
        "--requirement", action="append", default=[], choices=("MUST", "SHOULD", "MAY")
    )
    parser.add_argument("--id", action="append", default=[], metavar="GLOB", help="case id glob")


def selection(args: argparse.Namespace) -> Selection:
    """The selection the options describe.

    Raises:
        KitError: the spec version is not one the kit knows.
    """
    try:
        version = check_target(args.spec_version)
    except SpecVersionError as error:
        raise KitError(str(error)) from None
    return Selection(
        spec_version=version,
        areas=tuple(args.area),
        levels=tuple(args.level),
        requirements=tuple(args.requirement),
        ids=tuple(args.id),
    )


class _Stop(Exception):
    """SIGTERM arrived: stop after the current part, clean up, write what was measured."""


@contextlib.contextmanager
def _stop_on_sigterm(adapter: Adapter) -> Iterator[None]:
    """Turn SIGTERM (a CI timeout) into :class:`_Stop`, so reports are still written; an
    adapter process is killed at once rather than after its pending request times out."""

    def stop(signum: int, frame: FrameType | None) -> None:
        _terminate(adapter)
        raise _Stop

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (e.g. an embedding application)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_command(args: argparse.Namespace, out: TextIO) -> int:
    formats = {fmt for fmt, _ in args.report}
    unknown = formats - set(REPORT_FORMATS)
    if unknown:
        report_error(
            f"unknown report format {sorted(unknown)[0]!r}; use one of {', '.join(REPORT_FORMATS)}"
        )
        return EXIT_UNUSABLE
    chosen = selection(args)
    if args.require_level is not None and chosen.partial:
        report_error(
            "--require-level judges the whole catalog of a spec version; a filtered run "
            "(--area, --level, --requirement, --id) certifies nothing. Drop the filters, or "
            "drop --require-level to look at a part of the catalog"
        )
        return EXIT_UNUSABLE
    try:
        catalog = load_catalog(args.catalog, extra=args.extra_catalog)
    except CaseError as error:
        report_error(f"catalog error: {error}")
        return EXIT_UNUSABLE
    cases = catalog.select(chosen)
    if not cases:
        report_error(
            f"no case of spec version {chosen.spec_version} matches the filters "
            "(`ppconf cases list` shows them)"
        )
        return EXIT_UNUSABLE
    try:
        expected = (
            load_expected_failures(args.expected_failures, [c.id for c in catalog.cases])
            if args.expected_failures
            else {}
        )
        adapter = open_adapter(args)
    except CaseError as error:
        report_error(str(error))
        return EXIT_UNUSABLE
    try:
        capabilities = Guard(adapter).capabilities()
    except AdapterError as error:
        Guard(adapter).close()
        report_error(str(error))
        return EXIT_UNUSABLE
    header = RunHeader.of(
        args.adapter,
        capabilities,
        catalog,
        chosen,
        repeat=args.repeat,
        expected_failures=expected,
        require_level=args.require_level,
        strict=args.strict,
    )
    json_paths = [path for fmt, path in args.report if fmt == "json"]
    try:
        writers = [JsonLinesWriter(path, header) for path in json_paths]
    except OSError as error:
        Guard(adapter).close()
        report_error(f"cannot write the report: {error}")
        return EXIT_UNUSABLE
    return _run(
        args,
        adapter,
        header,
        cases=cases,
        writers=writers,
        out=out,
        registry=lambda: catalog.registry,
    )


def _run(
    args: argparse.Namespace,
    adapter: Adapter,
    header: RunHeader,
    *,
    cases: Sequence[Case],
    writers: list[JsonLinesWriter],
    out: TextIO,
    registry: Callable[[], Registry],
) -> int:
    runner = Runner(adapter, timeout=args.timeout, repeat=args.repeat)
    progress = _Progress(len(cases), sys.stderr)
    records: list[PartRecord] = []
    stopped: str | None = None
    started = time.perf_counter()
    try:
        with _stop_on_sigterm(adapter):
            for case in cases:
                progress.show(case.id)
                result = runner.run(case)
                for record in records_of([result], registry):
                    records.append(record)
                    for writer in writers:
                        writer.add(record)
    except KeyboardInterrupt:
        _terminate(adapter)
        stopped = "interrupted"
    except _Stop:
        stopped = "terminated (SIGTERM)"
    except AdapterGaveUp as error:
        stopped = f"the adapter gave up: {error}"
    finally:
        progress.clear()
        runner.guard.close()
    elapsed = time.perf_counter() - started
    report = Report(header, tuple(records), complete=stopped is None)
    judgement = judge_report(report)
    for writer in writers:
        if report.complete:
            writer.finish(report)
        writer.close()
    _write_reports(args, report)
    if args.write_expected_failures:
        write_expected_failures(args.write_expected_failures, _failures_of(report))
    if args.format == "json":
        out.write(summary_line(report))
    elif args.format == "text":
        print(render_text(report, judgement), file=out)
        print(f"ran in {elapsed:.2f} s", file=out)
    else:
        out.write(render_view(args.format, report).decode("utf-8"))
    if stopped is not None:
        print(f"ppconf: stopped: {stopped}, after {len(records)} part(s)", file=sys.stderr)
        if stopped.startswith("the adapter gave up"):
            return EXIT_UNUSABLE
        return EXIT_INTERRUPTED if stopped == "interrupted" else 128 + signal.SIGTERM
    return EXIT_OK if judgement.passed else EXIT_FAILED


def _terminate(adapter: Adapter) -> None:
    """Kill an adapter's process now, if it has one (safe inside a signal handler)."""
    if isinstance(adapter, SubprocessAdapter):
        with contextlib.suppress(Exception):
            adapter.terminate()


def _write_reports(args: argparse.Namespace, report: Report) -> None:
    for fmt, path in args.report:
        try:
            if fmt != "json":
                write_view(fmt, report, path)
        except OSError as error:
            report_error(f"cannot write the {fmt} report {path}: {error}")


def _failures_of(report: Report) -> dict[str, ExpectedFailure]:
    entries: dict[str, ExpectedFailure] = {}
    for record in report.records:
        if record.passed or record.case in entries:
            continue
        kind = "flaky" if record.outcome == "flaky" else "fail"
        entries[record.case] = ExpectedFailure(f"[{record.part}] {record.message}"[:300], kind)
    return entries


class _Progress:
    """One self-overwriting progress line on a terminal; silent otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.count = 0
        self.enabled = stream.isatty()

    def show(self, label: str) -> None:
        self.count += 1
        if self.enabled:
            text = f"[{self.count}/{self.total}] {label}"
            self.stream.write("\r" + text[:100].ljust(100))
            self.stream.flush()

    def clear(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


__all__ = ["add_run_parser", "selection"]
