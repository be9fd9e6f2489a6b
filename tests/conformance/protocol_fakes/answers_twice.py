"""A runtime that answers one request (by default the second ``state``) twice.

By default the two answers go out in one write. With ``--pause SECONDS`` the second follows
that long after the first. With ``--late`` it goes out only when the next request arrives,
just before that request's own answer.
"""

from __future__ import annotations

import argparse
import time

from fake_protocol_server import Request, behave, main

from conformance._protocol import encode

_owed: list[bytes] = []  # with --late: the second answer, not written yet


def twice(request: Request) -> bool:
    reply, stop = request.answer()
    line = encode(reply)
    request.say("answers_twice: answering twice")
    if request.args.late:
        request.write(line)
        _owed.append(line)
    elif request.args.pause:
        request.write(line)
        time.sleep(request.args.pause)
        request.write(line)
    else:
        request.write(line + line)
    return stop


def then_behave(request: Request) -> bool:
    if _owed:
        request.write(_owed.pop())
    return behave(request)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--late", action="store_true")
    parser.add_argument("--pause", type=float, default=0.0)


if __name__ == "__main__":
    main(twice, behaviour=then_behave, op="state", nth=2, extra=arguments)
