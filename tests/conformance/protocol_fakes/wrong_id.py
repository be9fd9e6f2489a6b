"""A runtime that answers one request (by default the third ``send``) with a wrong id.

The answer is otherwise the reference's own, so only the id is wrong.
"""

from __future__ import annotations

from fake_protocol_server import Request, main

from conformance._protocol import encode

ID_OFFSET = 1000


def wrong_id(request: Request) -> bool:
    reply, stop = request.answer()
    request.say(f"wrong_id: answering with id {reply['id'] + ID_OFFSET}")
    request.write(encode({**reply, "id": reply["id"] + ID_OFFSET}))
    return stop


if __name__ == "__main__":
    main(wrong_id, op="send", nth=3)
