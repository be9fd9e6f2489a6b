"""A runtime that logs to stdout once: a line before its (correct) answer to one request.

By default the fifth ``start``. With ``--after SECONDS`` the line comes that long after the
answer instead.
"""

from __future__ import annotations

import time

from fake_protocol_server import Request, main, options

from conformance._protocol import encode

LOG_LINE = b"INFO runtime: creating a session\n"


def chatter(request: Request) -> bool:
    reply, stop = request.answer()
    request.say("stray_stdout: logging to stdout")
    if request.args.after:
        request.write(encode(reply))
        time.sleep(request.args.after)
        request.write(LOG_LINE)
    else:
        request.write(LOG_LINE + encode(reply))
    return stop


if __name__ == "__main__":
    main(chatter, op="start", nth=5, extra=options(after=0.0))
