"""``ppconf run``: the catalog against a runtime, with levels and reports."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from conformance._adapter import Adapter
from conformance._adapter_spec import REFERENCE, load_adapter
from conformance._cases import Case, Catalog, load_catalog
from conformance._cli_common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNUSABLE,
    report_error,
)
from conformance._errors import AdapterError, CaseError
from conformance._expected_failures import load_expected_failures
from conformance._levels import LevelReport, compute_levels, describe_level
from conformance._reports import JsonLinesReport, render_levels, write_junit, write_markdown
from conformance._runner import DEFAULT_TIMEOUT, CaseResult, Runner
from conformance._verdicts import verdicts


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
        help="write a report: json (JSON Lines, streamed), junit or md; repeatable",
    )
    run.add_argument(
        "--require-level",
        type=int,
        choices=range(4),
        metavar="N",
        help="exit 1 unless the headline level is at least N (0-3)",
    )
    run.add_argument(
        "--expected-failures",
        metavar="FILE",
        help="YAML mapping of case id to reason; those failures do not fail the run, "
        "but an unexpected pass does",
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
        type=float,
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


def close_adapter(adapter: Adapter) -> None:
    """Let an adapter that holds a process or other resources go."""
    close = getattr(adapter, "close", None)
    if close is not None:
        with contextlib.suppress(Exception):
            close()


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """The case filters shared by ``run`` and ``cases list``."""
    parser.add_argument("--catalog", metavar="DIR", help="a catalog folder (default: built-in)")
    parser.add_argument(
        "--area", action="append", default=[], choices=("workflow", "loops", "compositions")
    )
    parser.add_argument("--level", action="append", default=[], type=int, choices=range(4))
    parser.add_argument(
        "--requirement", action="append", default=[], choices=("MUST", "SHOULD", "MAY")
    )
    parser.add_argument("--id", action="append", default=[], metavar="GLOB", help="case id glob")


def select(args: argparse.Namespace, catalog: Catalog) -> list[Case]:
    return catalog.select(
        areas=args.area, levels=args.level, requirements=args.requirement, ids=args.id
    )


def run_command(args: argparse.Namespace, out: TextIO) -> int:
    formats = {fmt for fmt, _ in args.report}
    unknown = formats - {"json", "junit", "md"}
    if unknown:
        report_error(f"unknown report format {sorted(unknown)[0]!r}; use json, junit or md")
        return EXIT_UNUSABLE
    try:
        adapter = open_adapter(args)
        catalog = load_catalog(args.catalog)
        expected = (
            load_expected_failures(args.expected_failures, [c.id for c in catalog.cases])
            if args.expected_failures
            else {}
        )
        capabilities = adapter.capabilities()
    except (AdapterError, CaseError) as error:
        report_error(str(error))
        return EXIT_UNUSABLE
    except Exception as error:  # capabilities() is the adapter's own code
        report_error(f"the adapter failed to describe itself: {type(error).__name__}: {error}")
        return EXIT_UNUSABLE
    cases = select(args, catalog)
    if not cases:
        report_error("no case matches the filters")
        return EXIT_UNUSABLE

    selection = {
        "area": args.area,
        "level": args.level,
        "requirement": args.requirement,
        "id": args.id,
    }
    json_paths = [path for fmt, path in args.report if fmt == "json"]
    try:
        streams = [JsonLinesReport(path, capabilities, selection) for path in json_paths]
    except OSError as error:
        report_error(f"cannot write the report: {error}")
        return EXIT_UNUSABLE

    runner = Runner(adapter, timeout=args.timeout)
    progress = _Progress(len(cases), sys.stderr)
    results: list[CaseResult] = []
    interrupted = False
    started = time.perf_counter()
    try:
        for case in cases:
            progress.show(case.id)
            result = runner.run(case)
            results.append(result)
            for stream in streams:
                stream.add(result, expected.get(case.id))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.clear()
        close_adapter(adapter)
        levels = compute_levels(verdicts(results))
        complete = len(results) == len(cases)
        outcome = _judge(results, expected, levels, args.require_level)
        for stream in streams:
            if complete:
                stream.finish(levels, results, outcome.summary())
            stream.close()
        for fmt, path in args.report:
            if fmt == "junit":
                write_junit(path, results, complete)
            elif fmt == "md":
                write_markdown(path, levels, capabilities, results, complete)

    _print_results(results, expected, out)
    print(render_levels(levels, capabilities), file=out)
    elapsed = time.perf_counter() - started
    counts = ", ".join(
        f"{outcome.counts[k]} {k}"
        for k in ("passed", "failed", "errored", "skipped", "timeout")
        if outcome.counts.get(k)
    )
    print(
        f"{len(results)} cases ({counts}) in {elapsed:.2f} s against {capabilities.name}", file=out
    )
    for line in outcome.problems:
        print(line, file=out)
    if interrupted:
        print(f"interrupted after {len(results)} of {len(cases)} cases", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_FAILED if outcome.problems else EXIT_OK


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


class _Outcome:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.unexpected_failures: list[str] = []
        self.unexpected_passes: list[str] = []
        self.problems: list[str] = []

    def summary(self) -> dict[str, Any]:
        return {
            "unexpected_failures": self.unexpected_failures,
            "unexpected_passes": self.unexpected_passes,
        }


def _judge(
    results: Sequence[CaseResult],
    expected: dict[str, str],
    levels: LevelReport,
    require_level: int | None,
) -> _Outcome:
    """Decide the exit status: the level asked for, and no surprise against expected failures."""
    outcome = _Outcome()
    for result in results:
        outcome.counts[result.outcome] = outcome.counts.get(result.outcome, 0) + 1
        if result.case.id in expected:
            if result.passed:
                outcome.unexpected_passes.append(result.case.id)
        elif not result.passed:
            outcome.unexpected_failures.append(result.case.id)
    if require_level is not None:
        headline = levels.headline
        if headline is None or headline < require_level:
            outcome.problems.append(
                f"FAILED: headline level {describe_level(headline)} "
                f"is below the required {require_level}"
            )
    if (expected or require_level is None) and outcome.unexpected_failures:
        outcome.problems.append(
            f"FAILED: {len(outcome.unexpected_failures)} case(s) did not pass"
            + (" and are not in the expected failures" if expected else "")
        )
    if outcome.unexpected_passes:
        outcome.problems.append(
            "FAILED: expected failures now pass (remove them from the file): "
            + ", ".join(outcome.unexpected_passes)
        )
    return outcome


def _print_results(results: Sequence[CaseResult], expected: dict[str, str], out: TextIO) -> None:
    for result in results:
        case = result.case
        if result.passed:
            if case.id in expected:
                print(f"XPASS {case.id}: passes but is listed as an expected failure", file=out)
            continue
        tag = "XFAIL" if case.id in expected else result.outcome.upper()
        for part in result.failures():
            print(
                f"{tag} {case.id} [{part.part}] ({case.area} L{case.level} {case.requirement})",
                file=out,
            )
            print(f"  {part.message}", file=out)
        if case.id in expected:
            print(f"  expected: {expected[case.id]}", file=out)
