"""A runtime that speaks protocol 2: its hello answer says so (otherwise the reference's)."""

from __future__ import annotations

from fake_protocol_server import Request, main

from conformance._protocol import encode

PROTOCOL = 2


def newer(request: Request) -> bool:
    reply, stop = request.answer()
    request.say(f"bad_hello: speaking protocol {PROTOCOL}")
    request.write(encode({**reply, "protocol": PROTOCOL}))
    return stop


if __name__ == "__main__":
    main(newer, op="hello", nth=1)
