"""A runtime that dies: exits (status 3) on its third request, after a last word on stderr.

By default the third request of the process (hello being the first); ``--op``/``--nth`` move
it, ``--once FILE`` makes it happen once per run (see ``fake_protocol_server.py``).
"""

from __future__ import annotations

import os

from fake_protocol_server import Request, main

EXIT_STATUS = 3


def crash(request: Request) -> bool:
    request.say("crash_on_third: segmentation fault in the runtime")
    os._exit(EXIT_STATUS)


if __name__ == "__main__":
    main(crash, op="any", nth=3)
