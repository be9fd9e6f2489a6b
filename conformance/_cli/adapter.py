"""``ppconf serve`` and ``ppconf smoke``: the adapter protocol from both ends."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from conformance._basics.stopping import STOP, stop_signals
from conformance._basics.text import terminal
from conformance._cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    add_format_option,
    print_json,
)
from conformance._cli.run import add_adapter_options, open_adapter, open_protocol_log
from conformance._runtime.adapter_spec import REFERENCE, load_adapter
from conformance._runtime.boundary import Guard, refusing_exit
from conformance._runtime.serve import Server
from conformance._runtime.smoke import smoke

__all__ = ["add_adapter_parsers"]


def add_adapter_parsers(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="speak the adapter protocol on stdin/stdout (the reference, or --adapter)",
        description="Serve an in-process adapter (the reference interpreter by default) over "
        "the JSON Lines adapter protocol on stdin and stdout. See docs/protocol.md.",
    )
    serve.add_argument(
        "--adapter",
        metavar="module:Class",
        default=REFERENCE,
        help="a Python adapter to serve instead of the reference",
    )
    serve.add_argument(
        "--no-scripts",
        dest="scripts",
        action="store_false",
        help="do not offer run_script: the kit then sends one request per step",
    )
    serve.set_defaults(handler=_serve)

    check = commands.add_parser(
        "smoke",
        help="a few trivial checks telling broken adapter wiring from non-conformance",
    )
    add_adapter_options(check)
    add_format_option(check, schema="smoke.schema.json")
    check.set_defaults(handler=_smoke)


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    protocol_out = sys.stdout.buffer
    # Whatever the served code prints must not reach the protocol stream.
    sys.stdout = sys.stderr
    adapter = load_adapter(args.adapter)  # an AdapterError is reported by main()
    # A server has no part of its own to finish: a stop signal ends it at once (the kit that
    # started it decides what its pending request means), with 128 + the signal.
    with stop_signals(at_once=True):
        return Server(adapter, scripts=args.scripts).serve(sys.stdin.buffer, protocol_out)


def _smoke(args: argparse.Namespace, out: TextIO) -> int:
    with stop_signals(), refusing_exit():
        log = open_protocol_log(args)
        adapter = open_adapter(args, log)  # an AdapterError is reported by main()
        guard = Guard(adapter)
        try:
            results = smoke(adapter, args.timeout)
        finally:
            if STOP.requested:
                guard.terminate()  # a stop: no goodbye, the process group goes now
            guard.close()
            if log is not None:
                log.close()
        if log is not None:
            log.check()  # the kit's fault, not the runtime's: main() says it, exit 2
    broken = [r for r in results if r.verdict == "breaks"]
    if len(broken) == len(results):
        verdict, status = "broken", EXIT_UNUSABLE
        conclusion = (
            "every smoke check failed the same way: the adapter's wiring is broken, not its "
            f"conformance. First error: {terminal(broken[0].detail)}"
        )
    elif broken:
        verdict, status = "broken", EXIT_UNUSABLE
        conclusion = (
            f"{len(broken)} check(s) broke: fix the adapter before reading conformance results"
        )
    elif any(r.verdict == "disagrees" for r in results):
        verdict, status = "disagrees", EXIT_FAILED
        conclusion = "the wiring works; the runtime disagrees with the spec: see `ppconf run`"
    else:
        verdict, status = "works", EXIT_OK
        conclusion = "the wiring works: run the catalog with `ppconf run`"
    if args.format == "json":
        checks = [{"name": r.name, "verdict": r.verdict, "detail": r.detail} for r in results]
        print_json({"checks": checks, "verdict": verdict, "conclusion": conclusion}, out)
        return status
    for result in results:
        mark = {"passes": "ok  ", "disagrees": "DIFF", "breaks": "FAIL"}[result.verdict]
        detail = f": {terminal(result.detail)}" if result.detail else ""
        print(f"{mark} {result.name}{detail}", file=out)
    print(conclusion, file=out)
    return status
