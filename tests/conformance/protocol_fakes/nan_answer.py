"""A runtime whose answer to one request (by default the first ``state``) holds a ``NaN``.

Python's JSON encoder writes ``NaN`` when asked to; JSON has no such value.
"""

from __future__ import annotations

import json

from fake_protocol_server import Request, main


def nan(request: Request) -> bool:
    reply, stop = request.answer()
    reply["state"]["elapsed_sec"] = float("nan")
    request.say("nan_answer: answering with NaN")
    request.write(json.dumps(reply).encode() + b"\n")
    return stop


if __name__ == "__main__":
    main(nan, op="state", nth=1)
