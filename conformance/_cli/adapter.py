"""``ppconf serve`` and ``ppconf smoke``: the adapter protocol from both ends."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from conformance._adapter_spec import REFERENCE, load_adapter
from conformance._boundary import Guard
from conformance._cli.common import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE
from conformance._cli.run import add_adapter_options, open_adapter
from conformance._serve import Server
from conformance._smoke import smoke


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
    check.set_defaults(handler=_smoke)


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    protocol_out = sys.stdout.buffer
    # Whatever the served code prints must not reach the protocol stream.
    sys.stdout = sys.stderr
    adapter = load_adapter(args.adapter)  # an AdapterError is reported by main()
    return Server(adapter, scripts=args.scripts).serve(sys.stdin.buffer, protocol_out)


def _smoke(args: argparse.Namespace, out: TextIO) -> int:
    adapter = open_adapter(args)  # an AdapterError is reported by main()
    try:
        results = smoke(adapter, args.timeout)
    finally:
        Guard(adapter).close()
    for result in results:
        mark = {"passes": "ok  ", "disagrees": "DIFF", "breaks": "FAIL"}[result.verdict]
        detail = f": {result.detail}" if result.detail else ""
        print(f"{mark} {result.name}{detail}", file=out)
    broken = [r for r in results if r.verdict == "breaks"]
    if len(broken) == len(results):
        print(
            "every smoke check failed the same way: the adapter's wiring is broken, not its "
            f"conformance. First error: {broken[0].detail}",
            file=out,
        )
        return EXIT_UNUSABLE
    if broken:
        print(
            f"{len(broken)} check(s) broke: fix the adapter before reading conformance results",
            file=out,
        )
        return EXIT_UNUSABLE
    if any(r.verdict == "disagrees" for r in results):
        print("the wiring works; the runtime disagrees with the spec: see `ppconf run`", file=out)
        return EXIT_FAILED
    print("the wiring works: run the catalog with `ppconf run`", file=out)
    return EXIT_OK
