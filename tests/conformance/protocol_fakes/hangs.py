"""A runtime that hangs: never answers one request (by default the first ``validate``).

It keeps reading its stdin without answering, and exits when the kit closes it (or kills it).
"""

from __future__ import annotations

import sys

from fake_protocol_server import Request, main


def hang(request: Request) -> bool:
    request.say("hangs: waiting forever")
    for _ in iter(sys.stdin.buffer.readline, b""):
        pass  # never answer
    return True


if __name__ == "__main__":
    main(hang, op="validate", nth=1)
