"""``ppconf run``: the catalog against a runtime, with levels and reports."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, TextIO, cast

from conformance._basics.errors import AdapterError, AdapterGaveUp, CaseError, KitError
from conformance._basics.spec_versions import SpecVersionError, check_target
from conformance._basics.stopping import STOP, Stopped, signal_name, stop_signals
from conformance._basics.text import terminal
from conformance._catalog.cases import Case, Selection, load_catalog
from conformance._catalog.expected_failures import (
    ExpectedFailure,
    load_expected_failures,
    write_expected_failures,
)
from conformance._catalog.statements import Registry
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    report_error,
)
from conformance._judging.records import PartRecord, Report, RunHeader
from conformance._judging.runner import Runner
from conformance._judging.verdicts import judge_report
from conformance._options import add_run_option
from conformance._report.jsonl import JsonLinesWriter, summary_line
from conformance._report.outputs import (
    STDOUT,
    KitLog,
    OutputError,
    check_outputs,
    write_output,
)
from conformance._report.text import render_text
from conformance._report.views import VIEWS, render_view
from conformance._runtime.adapter import Adapter
from conformance._runtime.adapter_spec import load_adapter
from conformance._runtime.boundary import Guard, refusing_exit

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
    for dest in ("report", "require_level", "strict", "expected_failures"):
        add_run_option(run, dest)
    run.add_argument(
        "--write-expected-failures",
        metavar="FILE",
        help="write the cases that did not pass, each with its reason, as an expected-failures "
        "file",
    )
    add_run_option(run, "repeat")
    add_format_option(
        run,
        schema="summary.schema.json (the summary record a report ends with)",
        views={name: view.description for name, view in VIEWS.items() if name != "text"},
    )
    run.set_defaults(handler=run_command)


def add_adapter_options(parser: argparse.ArgumentParser) -> None:
    """The adapter options shared by ``run``, ``fuzz`` and ``adapter check``."""
    for dest in ("adapter", "validate_protocol", "timeout"):
        add_run_option(parser, dest)
    parser.add_argument(
        "--protocol-log",
        metavar="PATH",
        help="for cmd: adapters, write every request and response line to PATH",
    )


def open_protocol_log(args: argparse.Namespace) -> KitLog | None:
    """The protocol log the options ask for (``--protocol-log``), if any.

    Raises:
        OutputError: it cannot be written.
    """
    if not args.protocol_log:
        return None
    check_outputs([("--protocol-log", args.protocol_log)])
    return KitLog(args.protocol_log, "the protocol log")


def open_adapter(args: argparse.Namespace, log: KitLog | None = None) -> Adapter:
    """The adapter the options name, its traffic copied to ``log``.

    Raises:
        AdapterError: the spec names no adapter.
    """
    return load_adapter(
        args.adapter,
        timeout=args.timeout,
        validate_protocol=args.validate_protocol,
        transcript=cast(IO[str], log),  # a text stream: it writes and flushes, never raises
    )


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """The case filters shared by ``run`` and ``cases list``."""
    for dest in ("catalog", "extra_catalog", "spec_version", "area"):
        add_run_option(parser, dest)
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


def _outputs(args: argparse.Namespace) -> None:
    """Refuse, before anything runs, outputs that would overwrite an input or each other.

    Raises:
        OutputError: naming both uses of a path, or what is wrong with one.
    """
    outputs = [(f"--report {fmt}", path) for fmt, path in args.report]
    if args.write_expected_failures:
        outputs.append(("--write-expected-failures", args.write_expected_failures))
    if args.protocol_log:
        outputs.append(("--protocol-log", args.protocol_log))
    inputs = [("--expected-failures", args.expected_failures)] if args.expected_failures else []
    check_outputs(outputs, inputs)


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
    _outputs(args)
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
    except CaseError as error:
        report_error(str(error))
        return EXIT_UNUSABLE
    with stop_signals(), refusing_exit():
        log = open_protocol_log(args)
        guard = Guard(open_adapter(args, log))
        try:
            return _start(args, guard, catalog, chosen, expected, cases=cases, out=out, log=log)
        finally:
            if STOP.requested:
                guard.terminate()  # a stop: no goodbye, the process group goes now
            guard.close()
            if log is not None:
                log.close()


def _start(
    args: argparse.Namespace,
    guard: Guard,
    catalog: Any,
    chosen: Selection,
    expected: dict[str, ExpectedFailure],
    *,
    cases: Sequence[Case],
    out: TextIO,
    log: KitLog | None,
) -> int:
    try:
        capabilities = guard.capabilities()
    except AdapterError as error:
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
    writers: list[JsonLinesWriter] = []
    try:
        for path in json_paths:
            writers.append(JsonLinesWriter(path, header, stdout=out))
    except OutputError:
        for writer in writers:
            writer.close()
        raise
    return _run(
        args,
        guard.adapter,
        header,
        cases=cases,
        writers=writers,
        out=out,
        registry=lambda: catalog.registry,
        log=log,
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
    log: KitLog | None,
) -> int:
    runner = Runner(adapter, timeout=args.timeout, repeat=args.repeat)
    progress = _Progress(len(cases), sys.stderr)
    records: list[PartRecord] = []
    stopped: Stopped | None = None
    gave_up: str | None = None
    lost: OutputError | None = None
    started = time.perf_counter()
    try:
        for case in cases:
            progress.show(case.id)
            for part in case.parts:
                STOP.raise_if_requested()  # a stop signal: after the part that was running
                record = PartRecord.of(case, runner.run_part(case, part), registry)
                records.append(record)
                if log is not None:
                    log.check()
                for writer in writers:
                    writer.add(record)
    except Stopped as stop:
        stopped = stop
    except KeyboardInterrupt:  # raised by an adapter, as a Ctrl-C would be
        stopped = Stopped(signal.SIGINT)
    except AdapterGaveUp as error:
        gave_up = f"the adapter gave up: {error}"
    except OutputError as error:  # the kit's own fault: the run stops, no runtime is judged
        lost = error
    finally:
        progress.clear()
    elapsed = time.perf_counter() - started
    report = Report(
        header, tuple(records), complete=stopped is None and gave_up is None and lost is None
    )
    judgement = judge_report(report)
    unwritten = 0
    for writer in writers:
        try:
            if report.complete:
                writer.finish(report)
        except OutputError as error:
            report_error(str(error))
            unwritten += 1
        writer.close()
    if log is not None and lost is None:
        try:
            log.check()
        except OutputError as error:
            lost = error
    if lost is not None:
        report_error(f"{lost}; the run stopped after {len(records)} part(s), judging nothing")
        return EXIT_UNUSABLE
    unwritten += _write_reports(args, report, out)
    if args.write_expected_failures:
        try:
            write_expected_failures(args.write_expected_failures, _failures_of(report))
        except OSError as error:
            report_error(
                f"cannot write --write-expected-failures {args.write_expected_failures}: "
                f"{error.strerror or error}"
            )
            unwritten += 1
    # With a report on stdout, the summary goes to stderr, so stdout holds the report alone.
    summary_out = sys.stderr if any(path == STDOUT for _, path in args.report) else out
    if args.format == "json":
        summary_out.write(summary_line(report))
    elif args.format == "text":
        print(render_text(report, judgement), file=summary_out)
        print(f"ran in {elapsed:.2f} s", file=summary_out)
    else:
        summary_out.write(render_view(args.format, report).decode("utf-8"))
    if stopped is not None:
        print(
            f"ppconf: stopped by {signal_name(stopped.signum)} after {len(records)} part(s); "
            "the report is unfinished (no summary)",
            file=sys.stderr,
        )
        return stopped.exit_status
    if gave_up is not None:
        print(
            f"ppconf: stopped: {terminal(gave_up)}, after {len(records)} part(s)", file=sys.stderr
        )
        return EXIT_UNUSABLE
    if unwritten:
        report_error(f"{unwritten} output(s) asked for were not written (see above)")
        return EXIT_UNUSABLE
    return EXIT_OK if judgement.passed else EXIT_FAILED


def _write_reports(args: argparse.Namespace, report: Report, out: TextIO) -> int:
    """Write every view asked for; return how many could not be written (each said)."""
    failed = 0
    for fmt, path in args.report:
        if fmt == "json":
            continue
        try:
            write_output(path, render_view(fmt, report), f"the {fmt} report", stdout=out)
        except OutputError as error:
            report_error(str(error))
            failed += 1
    return failed


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


__all__ = ["add_run_parser", "open_adapter", "open_protocol_log", "selection"]
