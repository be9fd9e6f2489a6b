"""The reference behind the adapter protocol, misbehaving on one chosen request.

Shared by the fake adapter programs beside this file; run on its own, it is a well-behaved
server (the reference) that can log the requests it gets. Every fake takes these options:

``--op OP``      which requests count towards ``--nth``: an op name, or ``any`` (hello included)
``--nth N``      misbehave on the Nth counted request of this process (1-based)
``--once FILE``  misbehave only if FILE does not exist yet, and create it: a restarted process
                 then behaves, so a whole run has exactly one fault
``--log FILE``   append each request's op to FILE, one per line, before answering it
``--scripts``    declare and answer ``run_script`` (off by default, so that every step is a
                 request of its own that a fake can count)

Requests are counted per process, hello included, so ``--op any --nth 3`` is the third line the
process reads. Each misbehaviour first says on stderr what it is about to do.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from conformance._protocol import ProtocolError, decode, encode
from conformance._runtime.reference_adapter import ReferenceAdapter
from conformance._runtime.serve import Server


@dataclass
class Request:
    """One request line, as the fake sees it."""

    line: bytes
    message: dict[str, Any]
    number: int  # the line's number in this process, from 1 (hello)
    server: Server
    stdout: IO[bytes]
    args: argparse.Namespace  # the fake's options

    @property
    def op(self) -> str:
        return str(self.message.get("op"))

    def answer(self) -> tuple[dict[str, Any], bool]:
        """What the reference would answer, and whether it would stop afterwards."""
        return self.server.answer(self.line)

    def write(self, data: bytes) -> None:
        self.stdout.write(data)
        self.stdout.flush()

    def say(self, text: str) -> None:
        """Tell stderr (which the kit keeps for the report)."""
        sys.stderr.write(f"{text} (request {self.number}, {self.op})\n")
        sys.stderr.flush()


Misbehaviour = Callable[[Request], bool]
"""Does something wrong instead of answering; returns whether to stop serving."""


def behave(request: Request) -> bool:
    """Answer as the reference does."""
    reply, stop = request.answer()
    request.write(encode(reply))
    return stop


def main(
    misbehave: Misbehaviour = behave,
    *,
    behaviour: Misbehaviour = behave,
    op: str = "any",
    nth: int = 0,
    argv: Sequence[str] | None = None,
    extra: Callable[[argparse.ArgumentParser], None] | None = None,
) -> argparse.Namespace:
    """Serve stdin/stdout until shutdown or end of input, misbehaving on the chosen request.

    ``behaviour`` answers every other request (the reference's answer, by default).
    """
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--op", default=op)
    parser.add_argument("--nth", type=int, default=nth)
    parser.add_argument("--once", metavar="FILE")
    parser.add_argument("--log", metavar="FILE")
    parser.add_argument("--scripts", action="store_true")
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but answers on the protocol stream
    server = Server(ReferenceAdapter(), scripts=args.scripts)
    counted = number = 0
    for line in iter(sys.stdin.buffer.readline, b""):
        if not line.strip():
            continue  # as ppconf serve does
        number += 1
        try:
            message = decode(line)
        except ProtocolError:
            message = {}
        request = Request(line, message, number, server, stdout, args)
        if args.log:
            with open(args.log, "a", encoding="utf-8") as log:
                log.write(f"{request.op}\n")
        if args.op in ("any", request.op):
            counted += 1
        act = behaviour
        if counted == args.nth and args.op in ("any", request.op) and _first_time(args.once):
            act = misbehave
        if act(request):
            break
    return args


def _first_time(marker: str | None) -> bool:
    if marker is None:
        return True
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def options(**defaults: Any) -> Callable[[argparse.ArgumentParser], None]:
    """Extra options of a fake, e.g. ``options(delay=0.05)`` adds ``--delay`` (float)."""

    def add(parser: argparse.ArgumentParser) -> None:
        for name, value in defaults.items():
            parser.add_argument(f"--{name}", type=type(value), default=value)

    return add


if __name__ == "__main__":
    main()
