"""The protocol's messages: one JSON object per line, their schema, codes and the hello answer.

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

from conformance._basics.json_text import JsonTextError, loads
from conformance._basics.resources import schema_path
from conformance._runtime.adapter import Capabilities, PackInput

__all__ = [
    "FAULT_CODES",
    "PACK_REJECTED",
    "PROTOCOL_VERSION",
    "RUNTIME_FIELDS",
    "RUN_SCRIPT",
    "ProtocolError",
    "capabilities_of",
    "check_message",
    "decode",
    "encode",
    "excerpt",
    "hello_answer",
    "operations_of",
    "pack_message",
]

PROTOCOL_VERSION = 1
"""The version this kit speaks; ``x-protocol-version`` in the published schema."""
PACK_REJECTED = "pack-rejected"
"""The error code of a ``load`` the runtime refuses."""
FAULT_CODES = ("bad-request", "internal-error", "protocol-unsupported")
"""Error codes that say the adapter, not the runtime's conformance, went wrong."""
RUNTIME_FIELDS = ("name", "version", "language")
"""What the hello answer's ``runtime`` object holds (the rest of ``Capabilities`` is beside it)."""
RUN_SCRIPT = "run_script"
"""The optional operation that runs a whole scenario in one request (``operations`` in the hello
answer declares it): its requests are answered in order, each as it would have been alone."""


class ProtocolError(Exception):
    """A message breaks the protocol (not JSON, wrong shape, wrong id ...)."""


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a line of compact JSON (UTF-8, newline-terminated).

    Raises:
        ValueError: a number is NaN or infinite (JSON has neither).
        TypeError: a value is not JSON data at all.
    """
    return _ENCODER.encode(message).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line into a message object.

    Read strictly (:func:`conformance._basics.json_text.loads`): ``NaN``, ``Infinity``, numbers too
    large for a float (``1e999``), integers of more than 100 digits, nesting deeper than 256
    and lone surrogate escapes (``"\\ud800"``) are refused, although Python's parser would
    read them.

    Raises:
        ProtocolError: the line is not a JSON object the kit reads.
    """
    try:
        text = line.decode()
    except UnicodeDecodeError as error:
        raise ProtocolError(f"not JSON: {error}: {excerpt(line)}") from None
    try:
        message = loads(text)
    except JsonTextError as error:
        raise ProtocolError(f"not JSON: {error}: {excerpt(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {excerpt(line)}")
    return message


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def excerpt(line: bytes, limit: int = 200) -> str:
    """A line for a message: decoded, without its newline, cut to ``limit`` characters."""
    text = line.decode("utf-8", errors="replace").rstrip("\n")
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def pack_message(pack: PackInput) -> dict[str, Any]:
    """A pack as requests carry it: its text and format, and the kit's parse of it."""
    return {"text": pack.text, "format": pack.format, "document": pack.document}


def hello_answer(capabilities: Capabilities) -> dict[str, Any]:
    """The results of an ok ``hello`` answer describing ``capabilities``."""
    data = capabilities.to_dict()
    runtime = {key: data.pop(key) for key in RUNTIME_FIELDS}
    return {"protocol": PROTOCOL_VERSION, "runtime": runtime, **data}


def capabilities_of(answer: Mapping[str, Any], default_name: str) -> Capabilities:
    """What an ok ``hello`` answer says about the runtime.

    Arguments:
        answer: the response.
        default_name: the runtime's name when the answer gives none (the command, say).

    ``runtime``, ``claims`` and ``extensions`` may be left out (or ``null``, as some JSON
    encoders write an empty map or list); what is there must have the right types.

    Raises:
        ValueError: naming the field that is malformed.
    """
    runtime = answer.get("runtime")
    if runtime is None:
        runtime = {}
    if not isinstance(runtime, Mapping):
        raise ValueError(f"runtime must be an object {{name, version, language}}, not {runtime!r}")
    fields: dict[str, Any] = {"name": default_name}
    fields.update((key, runtime[key]) for key in RUNTIME_FIELDS if key in runtime)
    fields.update(
        (key, answer[key]) for key in ("claims", "extensions") if answer.get(key) is not None
    )
    return Capabilities.from_dict(fields)


def operations_of(answer: Mapping[str, Any]) -> frozenset[str]:
    """The optional operations an ok ``hello`` answer declares (``operations``; none if absent
    or ``null``). Names the kit does not know are kept, and never used.

    Raises:
        ValueError: ``operations`` is not a list of names.
    """
    operations = answer.get("operations")
    if operations is None:
        return frozenset()
    if not isinstance(operations, list) or not all(isinstance(o, str) for o in operations):
        raise ValueError(f"operations must be a list of operation names, not {operations!r}")
    return frozenset(operations)


@cache
def _validator(definition: str) -> Any:
    with open(schema_path("protocol.schema.json"), encoding="utf-8") as stream:
        schema = json.load(stream)
    return jsonschema_rs.validator_for({**schema, "$ref": f"#/$defs/{definition}"})


def check_message(message: Mapping[str, Any], definition: str) -> None:
    """Validate a message against a definition of the protocol schema: ``Request``, or the
    response to one operation (``responses/send``), or one answer of a script
    (``answers/send``).

    Raises:
        ProtocolError: naming the first violation and where it is.
    """
    for error in _validator(definition).iter_errors(message):
        where = "/" + "/".join(map(str, error.instance_path))
        what = definition.lower().replace("s/", " to ", 1)  # responses/send: the response to send
        raise ProtocolError(f"the {what} breaks the protocol schema at {where}: {error.message}")
