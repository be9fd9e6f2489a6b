"""The adapter protocol: a runtime in any language, as a subprocess speaking JSON Lines.

- :mod:`.messages`: the wire format (framing of one object, the schema, codes, ``hello``);
- :mod:`.connection`: one adapter process (its own process group, line framing with a size
  cap, the tail of stderr, kill);
- :mod:`.client`: the protocol client (ids, ``hello``, restarts and giving up, answers mapped to
  the kit's signals and faults);
- :mod:`.adapter`: :class:`SubprocessAdapter`, the kit's adapter interface on the client.
"""

from conformance._protocol.adapter import SubprocessAdapter
from conformance._protocol.client import DEFAULT_REQUEST_TIMEOUT, MAX_FAILED_STARTS
from conformance._protocol.messages import (
    PROTOCOL_VERSION,
    ProtocolError,
    check_message,
    decode,
    encode,
)

__all__ = [
    "DEFAULT_REQUEST_TIMEOUT",
    "MAX_FAILED_STARTS",
    "PROTOCOL_VERSION",
    "ProtocolError",
    "SubprocessAdapter",
    "check_message",
    "decode",
    "encode",
]
