"""A runtime that declares ``run_script`` and answers one of them wrongly, ``--how``:

``short``     without its last ``--drop`` answers (1 by default), though none stopped it
``long``      with one answer too many
``skipped``   skipped as a whole
``refused``   an error as a whole (``unknown-event``)
``garbage``   with ``answers`` that is not a list of objects
``crash``     not at all: the process exits (status 3)

By default the first ``run_script`` of the process (``--op``/``--nth`` move it, ``--once FILE``
makes it happen once per run: see ``fake_protocol_server.py``); every other request is
answered as the reference does, ``run_script`` included. ``--scripts`` is always on.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from fake_protocol_server import Request, main, options

from conformance._protocol import encode

EXIT_STATUS = 3


def misanswer(request: Request) -> bool:
    how = request.args.how
    request.say(f"scripts_misanswered: {how}")
    if how == "crash":
        os._exit(EXIT_STATUS)
    reply, stop = request.answer()
    answers: list[Any] = reply.get("answers", [])
    if how == "short":
        reply["answers"] = answers[: max(len(answers) - request.args.drop, 0)]
    elif how == "long":
        reply["answers"] = [*answers, {"ok": True}]
    elif how == "skipped":
        reply = {"id": reply["id"], "skipped": {"reason": "not today"}}
    elif how == "refused":
        reply = {"id": reply["id"], "ok": False, "error": {"code": "unknown-event"}}
    elif how == "garbage":
        reply["answers"] = [1, 2]
    else:
        raise SystemExit(f"scripts_misanswered: no --how {how!r}")
    request.write(encode(reply))
    return stop


if __name__ == "__main__":
    main(
        misanswer,
        op="run_script",
        nth=1,
        argv=[*sys.argv[1:], "--scripts"],
        extra=options(how="short", drop=1),
    )
