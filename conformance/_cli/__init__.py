"""The ``ppconf`` command line.

Exit codes: 0 success, 1 the input was read but is not valid (or a run or check failed), 2 the
input could not be used (unreadable file, malformed case, bad arguments, an output that cannot
be written), 128 + the signal when stopped by one (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Sequence

from conformance._basics.errors import KitError
from conformance._basics.stopping import Stopped, signal_name
from conformance._cli.adapter import add_adapter_parsers
from conformance._cli.cases import add_cases_parser
from conformance._cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_UNUSABLE, report_error
from conformance._cli.compare import add_compare_parser
from conformance._cli.fuzz import add_fuzz_parser
from conformance._cli.graph import add_graph_parser
from conformance._cli.pack import add_composition_parser, add_pack_parsers
from conformance._cli.report import add_report_parser
from conformance._cli.run import add_run_parser
from conformance._cli.statements import add_statements_parsers
from conformance._judging.records import kit_version

__all__ = ["entry_point", "main"]


def entry_point() -> None:
    """The ``ppconf`` console script: :func:`main`, then exit even if an in-process adapter
    left a thread running that would keep the interpreter alive (its results are printed and
    its reports written by then)."""
    status = main()
    lingering = [
        t for t in threading.enumerate() if not t.daemon and t is not threading.main_thread()
    ]
    if lingering:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    _never_unencodable()
    args = _parser().parse_args(argv)
    try:
        status: int = args.handler(args, sys.stdout)
    except KitError as error:  # a malformed case, an adapter that cannot be loaded, ...
        report_error(str(error))
        return EXIT_UNUSABLE
    except BrokenPipeError:  # e.g. piped into `head`
        return EXIT_OK
    except Stopped as stop:
        print(f"ppconf: stopped by {signal_name(stop.signum)}", file=sys.stderr)
        return stop.exit_status
    except KeyboardInterrupt:
        print("ppconf: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return status


def _never_unencodable() -> None:
    """Write what the terminal's encoding cannot hold as escapes (``\\u00e9``): a runtime's
    name in a view printed under ``PYTHONIOENCODING=ascii`` is never a traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            reconfigure(errors="backslashreplace")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ppconf",
        description="Conformance kit and reference interpreter for PromptPack workflows.",
    )
    parser.add_argument("--version", action="version", version=f"ppconf {kit_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_run_parser(commands)
    add_cases_parser(commands)
    add_adapter_parsers(commands)
    add_pack_parsers(commands)
    add_composition_parser(commands)
    add_graph_parser(commands)
    add_report_parser(commands)
    add_compare_parser(commands)
    add_fuzz_parser(commands)
    add_statements_parsers(commands)
    return parser
