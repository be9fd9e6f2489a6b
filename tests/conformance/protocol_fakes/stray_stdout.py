"""A runtime that logs to stdout once: a line before its (correct) answer to one request.

By default the fifth ``start``.
"""

from __future__ import annotations

from fake_protocol_server import Request, main

from conformance._protocol import encode

LOG_LINE = b"INFO runtime: creating a session\n"


def chatter(request: Request) -> bool:
    reply, stop = request.answer()
    request.say("stray_stdout: logging to stdout")
    request.write(LOG_LINE + encode(reply))
    return stop


if __name__ == "__main__":
    main(chatter, op="start", nth=5)
