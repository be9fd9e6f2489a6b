"""A runtime whose hello answer is wrong: it speaks protocol 2 (otherwise the reference's).

``--answer JSON`` merges other fields into the answer instead (e.g. malformed ``claims``).
"""

from __future__ import annotations

import json

from fake_protocol_server import Request, main, options

from conformance._protocol import encode

PROTOCOL = 2


def newer(request: Request) -> bool:
    reply, stop = request.answer()
    if request.args.answer:
        request.say(f"bad_hello: answering with {request.args.answer}")
        request.write(encode({**reply, **json.loads(request.args.answer)}))
    else:
        request.say(f"bad_hello: speaking protocol {PROTOCOL}")
        request.write(encode({**reply, "protocol": PROTOCOL}))
    return stop


if __name__ == "__main__":
    main(newer, op="hello", nth=1, extra=options(answer=""))
