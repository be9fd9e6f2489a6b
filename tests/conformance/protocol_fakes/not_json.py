"""A runtime that answers one request (by default the third ``start``) with a non-JSON line."""

from __future__ import annotations

from fake_protocol_server import Request, main

GARBAGE = b"{this is not json: answer=42\n"


def garble(request: Request) -> bool:
    request.say("not_json: answering with garbage")
    request.write(GARBAGE)
    return False


if __name__ == "__main__":
    main(garble, op="start", nth=3)
