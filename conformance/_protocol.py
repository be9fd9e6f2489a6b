"""The adapter protocol: JSON Lines over a subprocess's stdin and stdout.

The kit writes one request per line, ``{"id": N, "op": ..., ...}``, and reads exactly one
response line with the same id: ``{"id": N, "ok": true, ...}``, ``{"id": N, "ok": false,
"error": {"code", "message", "limit"?}}`` or ``{"id": N, "skipped": {"reason"}}``. The first
request is ``hello``; the last is ``shutdown``. Published as ``schema/protocol.schema.json``
and explained for runtime authors in ``docs/protocol.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

import jsonschema_rs

from conformance._adapter import PackInput
from conformance._resources import schema_path

PROTOCOL_VERSION = 1
PACK_REJECTED = "pack-rejected"
"""The error code of a ``load`` the runtime refuses."""
FAULT_CODES = ("bad-request", "internal-error", "protocol-unsupported")
"""Error codes that say the adapter, not the runtime's conformance, went wrong."""


class ProtocolError(Exception):
    """A message breaks the protocol (not JSON, wrong shape, wrong id ...)."""


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a line of compact JSON (UTF-8, newline-terminated)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line into a message object.

    Raises:
        ProtocolError: the line is not a JSON object.
    """
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProtocolError(f"not JSON: {error}: {_excerpt(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {_excerpt(line)}")
    return message


def _excerpt(line: bytes) -> str:
    text = line.decode("utf-8", errors="replace").rstrip("\n")
    return repr(text if len(text) <= 200 else text[:197] + "...")


def pack_message(pack: PackInput) -> dict[str, Any]:
    """A pack as requests carry it: its text and format, and the kit's parse of it."""
    return {"text": pack.text, "format": pack.format, "document": pack.document}


@cache
def _validator(definition: str) -> Any:
    with open(schema_path("protocol.schema.json"), encoding="utf-8") as stream:
        schema = json.load(stream)
    return jsonschema_rs.validator_for({**schema, "$ref": f"#/$defs/{definition}"})


def check_message(message: Mapping[str, Any], definition: str) -> None:
    """Validate a request (``Request``) or response (``Response``) against the protocol schema.

    Raises:
        ProtocolError: naming the first violation and where it is.
    """
    for error in _validator(definition).iter_errors(message):
        where = "/" + "/".join(map(str, error.instance_path))
        raise ProtocolError(
            f"{definition.lower()} breaks the protocol schema at {where}: {error.message}"
        )
