"""A runtime that answers one request (by default the second ``state``) twice.

By default the two answers go out in one write. With ``--late`` the second goes out only when
the next request arrives, just before that request's own answer.
"""

from __future__ import annotations

import argparse

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
    else:
        request.write(line + line)
    return stop


def then_behave(request: Request) -> bool:
    if _owed:
        request.write(_owed.pop())
    return behave(request)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--late", action="store_true")


if __name__ == "__main__":
    main(twice, behaviour=then_behave, op="state", nth=2, extra=arguments)
