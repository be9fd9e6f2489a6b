"""The reference behind the adapter protocol, as a hostile runtime would serve it.

Options (any number):

``--slow SECONDS``   each ``start`` takes this long
``--hang-validate``  never answers ``validate`` (and stops reading its stdin)
``--sticky``         outlives the end of its stdin: only a kill ends it
``--pidfile FILE``   appends its pid to FILE first
``--mark FILE``      writes FILE when it hangs
``--log FILE``       appends each request's op to FILE
``--surrogate WHERE`` answers with a lone surrogate escape (``\\ud800``): in its ``name``
                     (hello), as the rejection ``code`` of every ``send``, or in the ``to`` of
                     every transition (``state``)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from conformance._runtime.reference_adapter import ReferenceAdapter
from conformance._runtime.serve import Server

MARK = "SURROGATE"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--hang-validate", action="store_true")
    parser.add_argument("--sticky", action="store_true")
    parser.add_argument("--pidfile")
    parser.add_argument("--mark")
    parser.add_argument("--log")
    parser.add_argument("--surrogate", choices=("name", "code", "state"))
    args = parser.parse_args()
    if args.pidfile:
        with open(args.pidfile, "a", encoding="utf-8") as pids:
            pids.write(f"{os.getpid()}\n")
    server = Server(ReferenceAdapter(), scripts=False)  # every request on its own line
    out = sys.stdout.buffer
    for line in iter(sys.stdin.buffer.readline, b""):
        request = json.loads(line)
        op = request.get("op")
        if args.log:
            with open(args.log, "a", encoding="utf-8") as log:
                log.write(f"{op}\n")
        if args.hang_validate and op == "validate":
            if args.mark:
                with open(args.mark, "w", encoding="utf-8") as mark:
                    mark.write("hung")
            while True:
                time.sleep(1)
        if op == "start" and args.slow:
            time.sleep(args.slow)
        reply, stop = server.answer(line)
        data = json.dumps(reply)
        if args.surrogate == "name" and op == "hello":
            reply["runtime"]["name"] = MARK
            data = json.dumps(reply)
        elif args.surrogate == "code" and op == "send":
            reply = {"id": request["id"], "ok": False, "error": {"code": MARK, "message": ""}}
            data = json.dumps(reply)
        elif args.surrogate == "state" and op == "send" and "transition" in reply:
            reply["transition"]["to"] = MARK
            data = json.dumps(reply)
        out.write(data.replace(MARK, "\\ud800").encode() + b"\n")
        out.flush()
        if stop:
            break
    while args.sticky:
        time.sleep(1)


if __name__ == "__main__":
    main()
