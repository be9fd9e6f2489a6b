"""``ppconf fuzz``: generated examples on the reference and a runtime side by side.

Exit status: 0 no divergence, 1 a divergence or an adapter fault (printed, and written as a case
with ``--export``), 2 bad arguments, an adapter that cannot be loaded or an output that cannot
be written, 128 + the signal when stopped by one.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from conformance._basics.areas import AREAS
from conformance._basics.errors import AdapterError
from conformance._basics.stopping import STOP, stop_signals
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    print_json,
    report_error,
)
from conformance._cli.run import add_adapter_options, open_adapter, open_protocol_log
from conformance._options import MAX_EXAMPLES, positive_seconds, whole_number
from conformance._report.outputs import OutputError
from conformance._runtime.boundary import Guard, refusing_exit

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase

    from conformance._fuzz.engine import FuzzResult

__all__ = ["add_fuzz_parser", "fuzz_command"]


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
        type=whole_number(MAX_EXAMPLES),
        metavar="N",
        help="how many examples (default 1000, or as many as --max-time allows; at most "
        f"{MAX_EXAMPLES:,})",
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
        metavar="DIR|URL",
        default=str(Path(".ppconf") / "fuzz"),
        help="the example database: failures found are kept here and tried first next time "
        "(default .ppconf/fuzz; share one directory between runs to share them), or a Redis "
        "server shared by many machines, redis://HOST:PORT/N, each keeping its own findings "
        "in .ppconf/fuzz too (pip install 'ppconf[redis]'; docs/fuzzing.md)",
    )
    fuzz.add_argument("--no-database", action="store_true", help="keep no example database at all")
    fuzz.add_argument(
        "--keep-going",
        action="store_true",
        help="after a divergence, go on until the examples or the time are spent, and report "
        "(and --export) each divergence that fails another way, each shrunk to a minimal case",
    )
    add_format_option(fuzz, schema="fuzz.schema.json")


def fuzz_command(args: argparse.Namespace, out: TextIO) -> int:
    # Hypothesis is imported here, not by `ppconf` as a whole: only this command needs it.
    from conformance._fuzz.engine import default_areas, fuzz  # noqa: PLC0415

    if args.adapter is None:
        report_error(
            "ppconf fuzz needs --adapter SPEC: the runtime to compare with the reference "
            "(module:Class or 'cmd:COMMAND LINE')"
        )
        return EXIT_UNUSABLE
    database = None if args.no_database else _database(args.database)
    made = _export_folder(args.export) if args.export else []
    try:
        with stop_signals(), refusing_exit():
            log = open_protocol_log(args)
            adapter = open_adapter(args, log)  # an AdapterError is reported by main()
            guard = Guard(adapter)
            progress = _Progress(sys.stderr, args.max_time)
            try:
                try:
                    claims = guard.capabilities().claims
                except AdapterError as error:
                    report_error(str(error))
                    return EXIT_UNUSABLE
                areas = tuple(args.area) or default_areas(claims)
                wanted = args.examples if args.examples or args.max_time else 1000
                result = fuzz(
                    adapter,
                    areas=tuple(dict.fromkeys(areas)),
                    examples_wanted=wanted,
                    seed=args.seed,
                    max_time=args.max_time,
                    database=database,
                    timeout=args.timeout,
                    keep_going=args.keep_going,
                    progress=progress.show,
                )
            finally:
                progress.clear()
                if STOP.requested:
                    guard.terminate()  # a stop: no goodbye, the process group goes now
                guard.close()
                if log is not None:
                    log.close()
        if log is not None:
            log.check()  # the kit's fault, not the runtime's: main() says it, exit 2
        return _show(args, result, out)
    finally:
        _remove_if_empty(made)


def _show(args: argparse.Namespace, result: FuzzResult, out: TextIO) -> int:
    from conformance._fuzz.report import render_campaign, render_summary  # noqa: PLC0415

    if args.format == "json":
        return _show_json(args, result, out)
    exported: dict[int, Path] = {}
    status = _show_findings(args, result, out, exported) if result.found else EXIT_OK
    if args.max_time:
        print(render_campaign(result, exported), file=out)
    if result.found:
        return status
    print(render_summary(result, args.adapter), file=out)
    if not result.tally.examples:
        print("no example ran: give more time (--max-time) or examples", file=out)
        return EXIT_FAILED
    if result.tally.unsupported == result.tally.examples:
        print("nothing was compared: the runtime skipped every example", file=out)
        return EXIT_FAILED
    return EXIT_OK


def _show_findings(
    args: argparse.Namespace, result: FuzzResult, out: TextIO, exported: dict[int, Path]
) -> int:
    """Print each finding (and export it with --export); ``exported`` gets each written path
    by the finding's index."""
    from conformance._fuzz.report import export, render_finding  # noqa: PLC0415

    status = EXIT_FAILED
    for index, found in enumerate(result.found):
        if index:
            print(file=out)
        finding = found.finding
        print(
            render_finding(finding, found_after=found.found_after, shrink_runs=found.shrink_runs),
            file=out,
        )
        if finding.kind == "fault":
            print(
                "an adapter fault, not a divergence: fix the adapter (it raised, broke the "
                "adapter interface, hung or did not answer the same way twice), then fuzz again",
                file=out,
            )
        elif args.export:
            try:
                path = export(finding, args.export, args.adapter, args.seed)
            except OSError as error:
                reason = error.strerror or error
                report_error(f"cannot write the case under {args.export}: {reason}")
                status = EXIT_UNUSABLE
                continue
            exported[index] = path
            print(f"written: {path} (ppconf run --catalog {args.export} --adapter ...)", file=out)
        elif not args.keep_going or index == len(result.found) - 1:
            print("add --export DIR to write it as a case file", file=out)
    if args.keep_going:
        print(
            f"{len(result.found)} finding(s) that fail in different ways, in "
            f"{result.tally.examples} examples (seed {result.seed})",
            file=out,
        )
    return status


def _show_json(args: argparse.Namespace, result: FuzzResult, out: TextIO) -> int:
    """What ``ppconf fuzz --format json`` prints (``schema/fuzz.schema.json``): the first
    finding as ``finding``, every one (``--keep-going``) in ``findings``."""
    from conformance._fuzz.report import case_document, export  # noqa: PLC0415

    status = EXIT_OK
    findings: list[dict[str, Any]] = []
    exported: list[str] = []
    for found in result.found:
        finding = found.finding
        path = None
        if finding.kind != "fault" and args.export:
            try:
                path = export(finding, args.export, args.adapter, args.seed)
            except OSError as error:
                report_error(
                    f"cannot write the case under {args.export}: {error.strerror or error}"
                )
                status = EXIT_UNUSABLE
        if path is not None:
            exported.append(str(path))
        findings.append(
            {
                "kind": finding.kind,
                "area": finding.expected.area,
                "part": finding.part,
                "message": finding.message,
                "step": finding.step,
                "field": finding.field,
                "rule": finding.rule,
                "found_after": found.found_after,
                "shrink_runs": found.shrink_runs,
                "case": case_document(finding, args.adapter, args.seed),
                "exported": None if path is None else str(path),
            }
        )
    if findings:
        verdict = findings[0]["kind"]
        status = status or EXIT_FAILED
    elif not result.tally.examples:
        verdict, status = "no example ran", EXIT_FAILED
    elif result.tally.unsupported == result.tally.examples:
        verdict, status = "nothing compared", EXIT_FAILED
    else:
        verdict = "no divergence"
    print_json(
        {
            "adapter": args.adapter,
            "areas": list(result.areas),
            "seed": args.seed,
            "examples": result.tally.examples,
            "by_area": dict(sorted(result.tally.by_area.items())),
            "unsupported": result.tally.unsupported,
            "verdict": verdict,
            "finding": findings[0] if findings else None,
            "findings": findings,
            "exported": exported[0] if exported else None,
        },
        out,
    )
    return status


def _database(path: str) -> ExampleDatabase:
    """The example database folder at ``path``, or the shared server at that URL over the
    folder .ppconf/fuzz; a path that is a file is refused, since Hypothesis would silently keep
    nothing there.

    Raises:
        OutputError: the path is not a folder, and cannot be made one.
        DatabaseError: the URL cannot be used (see :func:`open_database`).
    """
    from conformance._fuzz.databases import is_url, open_database  # noqa: PLC0415
    from conformance._fuzz.engine import DEFAULT_DATABASE, database_at  # noqa: PLC0415

    if is_url(path):
        local = _folder(str(DEFAULT_DATABASE))
        return open_database(path, local=local, warn=_warn)
    return database_at(_folder(path))


def _warn(message: str) -> None:
    print(f"ppconf fuzz: warning: {message}", file=sys.stderr, flush=True)


def _folder(path: str) -> Path:
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise OutputError(
            f"--database {path} is a file: the example database is a folder (it keeps one file "
            "per example); give a folder, or --no-database"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or error
        raise OutputError(f"--database {path}: cannot make the folder: {reason}") from None
    return folder


def _export_folder(path: str) -> list[Path]:
    """Make the --export folder now, so that a finding is not lost at the end of a long run.

    Returns:
        The folders made, the innermost last: a run that exports nothing removes them again
        (``_remove_if_empty``), so a failed start leaves no empty folder to be mistaken for a
        catalog.

    Raises:
        OutputError: it is not a folder, or cannot be made.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"--export {path} is a file: give a folder")
    missing = [f for f in (folder, *folder.parents) if not f.exists()][::-1]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or error
        raise OutputError(f"--export {path}: cannot make the folder: {reason}") from None
    return missing


def _remove_if_empty(folders: list[Path]) -> None:
    """Remove the folders ``_export_folder`` made that are still empty, the innermost first."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (a case was exported), or no longer ours to remove


class _Progress:
    """How a run is going, on stderr: one self-overwriting line on a terminal; elsewhere (a CI
    log), for a run with a time limit, one line at a steady interval, so that an hour-long
    campaign shows it is alive without flooding the log; nothing for a run of a few examples."""

    EVERY = 0.2
    """Seconds between two updates of the terminal line."""
    LOG_EVERY = (30.0, 600.0)
    """The shortest and longest interval between two log lines: a twentieth of the time limit
    within these bounds (a minute for a 20-minute campaign, ten for a day's)."""

    def __init__(
        self,
        stream: TextIO,
        max_time: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.clock = clock
        self.terminal = stream.isatty()
        self.max_time = max_time
        if self.terminal:
            self.every: float | None = self.EVERY
        elif max_time is not None:
            low, high = self.LOG_EVERY
            self.every = min(max(max_time / 20, low), high)
        else:
            self.every = None
        self.started = clock()
        self.last = self.started
        self.shown = False

    def show(self, examples: int, findings: int, shrinking: bool) -> None:
        now = self.clock()
        if self.every is None or now - self.last < self.every:
            return
        self.last = now
        text = self.line(examples, findings, shrinking, now - self.started)
        if self.terminal:
            self.stream.write("\r" + text.ljust(70))
            self.shown = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def line(self, examples: int, findings: int, shrinking: bool, elapsed: float) -> str:
        """``fuzz: 1,234 examples (6.2/s), 0 divergence(s), 9m20s left``."""
        rate = examples / elapsed if elapsed > 0 else 0.0
        text = f"fuzz: {examples:,} examples ({rate:,.1f}/s), {findings} divergence(s)"
        if shrinking:
            text += ", shrinking"
        if self.max_time is not None:
            text += f", {_duration(max(self.max_time - elapsed, 0.0))} left"
        return text

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()


def _duration(seconds: float) -> str:
    """``45s``, ``9m20s``, ``2h05m``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
