"""A runtime that answers one request (by default the first ``start``) with a bare
``{"id": N, "ok": true}``: ok, but without the result the operation answers (a session id, a
transition, the session data ...)."""

from __future__ import annotations

from fake_protocol_server import Request, main

from conformance._protocol import encode


def bare_ok(request: Request) -> bool:
    reply, stop = request.answer()
    request.say("bare_ok: answering ok with nothing else")
    request.write(encode({"id": reply["id"], "ok": True}))
    return stop


if __name__ == "__main__":
    main(bare_ok, op="start", nth=1)
