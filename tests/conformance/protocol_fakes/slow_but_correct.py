"""The reference, but every answer takes ``--delay`` seconds (50 ms by default) more."""

from __future__ import annotations

import time

from fake_protocol_server import Request, behave, main, options


def slowly(request: Request) -> bool:
    time.sleep(request.args.delay)
    return behave(request)


if __name__ == "__main__":
    main(behaviour=slowly, extra=options(delay=0.05))
