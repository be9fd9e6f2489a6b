"""A runtime whose every start follows the next line of a script file: how each process behaves.

``--script FILE`` holds one word per line; each process takes (and removes) the first line:

``die``    exit (status 3) on reading ``hello``, after a last word on stderr
``hang``   never answer ``hello``
``crash``  answer ``hello``, exit (status 3) on the next request
``serve``  behave (also when the script is used up)

With ``--log FILE`` (see ``fake_protocol_server.py``) each process that reads ``hello`` logs it,
so the log counts the processes started.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from fake_protocol_server import Request, main

EXIT_STATUS = 3


def die(request: Request) -> bool:
    request.say("scripted_starts: dying")
    os._exit(EXIT_STATUS)


def hang(request: Request) -> bool:
    request.say("scripted_starts: hanging")
    for _ in iter(sys.stdin.buffer.readline, b""):
        pass  # never answer
    return True


def next_word(script: Path) -> str:
    """The first line of the script, removed from it."""
    lines = script.read_text(encoding="utf-8").splitlines()
    script.write_text("".join(f"{line}\n" for line in lines[1:]), encoding="utf-8")
    return lines[0].strip() if lines else "serve"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--script", type=Path, required=True)
    args, rest = parser.parse_known_args()
    word = next_word(args.script)
    if word == "die":
        main(die, op="hello", nth=1, argv=rest)
    elif word == "hang":
        main(hang, op="hello", nth=1, argv=rest)
    elif word == "crash":
        main(die, op="any", nth=2, argv=rest)
    else:
        main(argv=rest)
