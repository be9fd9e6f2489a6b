"""A runtime whose answer to one request (by default the second ``state``) is a huge line.

The line is the reference's correct answer, padded with JSON whitespace to ``--bytes`` bytes
(newline included): by default 1 KiB beyond the kit's 16 MiB cap.
"""

from __future__ import annotations

from fake_protocol_server import Request, main, options

from conformance._protocol import encode
from conformance._protocol.connection import MAX_LINE_BYTES


def pad(request: Request) -> bool:
    reply, stop = request.answer()
    line = encode(reply)
    size = max(request.args.bytes, len(line))
    request.say(f"huge_line: answering with a line of {size} bytes")
    request.write(line[:-1] + b" " * (size - len(line)) + b"\n")
    return stop


if __name__ == "__main__":
    main(pad, op="state", nth=2, extra=options(bytes=MAX_LINE_BYTES + 1024))
