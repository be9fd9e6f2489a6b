"""The protocol's messages: the published version, JSON both ways, capabilities in hello."""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import pytest

from conformance import Capabilities, ReferenceAdapter
from conformance._basics.resources import schema_path
from conformance._protocol import PROTOCOL_VERSION as CLIENT_VERSION
from conformance._protocol.messages import (
    PROTOCOL_VERSION,
    ProtocolError,
    capabilities_of,
    decode,
    encode,
    hello_answer,
)
from conformance._runtime.serve import Server

PACK_TEXT = json.dumps(
    {
        "id": "messages-test",
        "name": "Messages test",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "W"}
        },
        "workflow": {
            "version": 1,
            "entry": "a",
            "states": {
                "a": {"prompt_task": "main", "on_event": {"Go": "b"}},
                "b": {"prompt_task": "main", "terminal": True},
            },
        },
    }
)
FULL = Capabilities(
    name="toy-runtime",
    version="1.2",
    language="go",
    claims={"workflow": 2, "compositions": 3},
    extensions=("toy.upper",),
)


def test_the_published_schema_has_the_clients_version() -> None:
    with open(schema_path("protocol.schema.json"), encoding="utf-8") as stream:
        schema = json.load(stream)
    assert schema["x-protocol-version"] == PROTOCOL_VERSION == CLIENT_VERSION
    assert f"version {PROTOCOL_VERSION}" in schema["title"]


# -- JSON, and nothing else ---------------------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_encode_refuses_what_json_has_not(value: float) -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        encode({"id": 1, "op": "advance_clock", "seconds": value})


def test_encode_writes_one_compact_line() -> None:
    assert encode({"id": 1, "op": "send", "event": "Gé"}) == (
        '{"id":1,"op":"send","event":"Gé"}\n'.encode()
    )


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"id": 1, "ok": true, "x": NaN}\n', "not JSON: NaN is not a JSON value"),
        (b'{"id": 1, "ok": true, "x": Infinity}\n', "not JSON: Infinity is not a JSON value"),
        (b'{"id": 1, "ok": true, "x": -Infinity}\n', "not JSON: -Infinity is not a JSON value"),
        (b'{"id": 1, "ok": true, "x": 1e999}\n', "not JSON: 1e999 is too large for a number"),
        (b'{"id": 1, "ok": tru}\n', "not JSON: Expecting value"),
        (b"\xff\n", "not JSON: 'utf-8' codec can't decode"),
        (b"[1, 2]\n", "not a JSON object: '[1, 2]'"),
        # Legal JSON text, but no character: it could never be written to a report.
        (
            b'{"id": 1, "ok": true, "x": "a\\ud800"}\n',
            "not JSON: a string holds a lone surrogate escape",
        ),
        (b'{"id": 1, "ok": false, "error": {"code": "\\udfff"}}\n', "not JSON: a string holds"),
        (
            b'{"id": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
            "not JSON: arrays and objects nested deeper than 256",
        ),
        (
            b'{"id": 1, "x": ' + b"[" * 300 + b"]" * 300 + b"}\n",
            "not JSON: arrays and objects nested deeper than 256",
        ),
        (b'{"id": 1, "x": ' + b"9" * 5000 + b"}\n", "not JSON: an integer of 5,000 digits"),
    ],
)
def test_decode_refuses_what_is_not_a_json_object(line: bytes, reason: str) -> None:
    with pytest.raises(ProtocolError) as error:
        decode(line)
    assert str(error.value).startswith(reason)


def test_decode_reads_surrogate_pairs_and_deep_enough_nesting() -> None:
    """Only a lone surrogate is refused; a pair is a character beyond U+FFFF."""
    assert decode(b'{"id": 1, "x": "\\ud83d\\ude00"}\n')["x"] == "\U0001f600"
    deep = decode(b'{"id": 1, "x": ' + b"[" * 255 + b"]" * 255 + b"}\n")
    assert deep["id"] == 1


def test_decode_reads_large_finite_numbers() -> None:
    assert decode(b'{"id": 1, "x": 1e308, "y": -2.5, "z": 12345678901234567890}') == {
        "id": 1,
        "x": 1e308,
        "y": -2.5,
        "z": 12345678901234567890,
    }


# -- capabilities -------------------------------------------------------------------------------


def test_capabilities_go_to_json_and_back() -> None:
    data = FULL.to_dict()
    assert data == {
        "name": "toy-runtime",
        "version": "1.2",
        "language": "go",
        "claims": {"workflow": 2, "compositions": 3},
        "extensions": ["toy.upper"],
    }
    assert json.loads(json.dumps(data)) == data
    assert Capabilities.from_dict(data) == FULL
    assert Capabilities.from_dict({"name": "bare"}) == Capabilities("bare")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({}, "capabilities need a name"),
        ({"name": "x", "vendor": "y"}, "capabilities have no field 'vendor'"),
        ({"name": None}, "capabilities: name must be a string, not None"),
        ({"name": "x", "version": 2}, "capabilities: version must be a string, not 2"),
        ({"name": "x", "claims": {"workflow": "2"}}, "claims must map each area to an integer"),
        ({"name": "x", "claims": {"workflow": True}}, "claims must map each area to an integer"),
        ({"name": "x", "claims": [["workflow", 2]]}, "claims must map each area to an integer"),
        ({"name": "x", "extensions": "a.b"}, "extensions must be a list of names, not 'a.b'"),
        ({"name": "x", "extensions": [1]}, "extensions must be a list of names, not [1]"),
    ],
)
def test_malformed_capabilities_are_refused(data: Mapping[str, Any], reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        Capabilities.from_dict(data)


def test_hello_carries_the_capabilities() -> None:
    answer = hello_answer(FULL)
    assert answer == {
        "protocol": PROTOCOL_VERSION,
        "runtime": {"name": "toy-runtime", "version": "1.2", "language": "go"},
        "claims": {"workflow": 2, "compositions": 3},
        "extensions": ["toy.upper"],
    }
    assert capabilities_of({"id": 1, "ok": True, **answer}, "cmd") == FULL


def test_a_bare_hello_names_the_runtime_by_default() -> None:
    assert capabilities_of({"id": 1, "ok": True}, "./my-adapter --fast") == Capabilities(
        "./my-adapter --fast"
    )


def test_the_server_says_hello_with_the_adapters_capabilities() -> None:
    reply, stop = Server(ReferenceAdapter()).answer(b'{"id": 1, "op": "hello", "protocol": 1}')
    assert not stop
    assert capabilities_of(reply, "cmd") == ReferenceAdapter().capabilities()


# -- the server's side --------------------------------------------------------------------------


class NotANumber(ReferenceAdapter):
    """The reference, but every session's state says its clock is at NaN."""

    def start(self, pack: Any) -> Any:
        session = super().start(pack)
        real = session.state
        session.state = lambda: {**real(), "elapsed_sec": math.nan}  # type: ignore[method-assign]
        return session


def test_the_server_answers_internal_error_for_a_value_that_is_not_json() -> None:
    """The served adapter's NaN is its fault, said in one answer; the server goes on."""
    pack = {"text": PACK_TEXT, "format": "json", "document": json.loads(PACK_TEXT)}
    requests = [
        {"id": 1, "op": "start", "pack": pack},
        {"id": 2, "op": "state", "session": "s1"},
        {"id": 3, "op": "send", "session": "s1", "event": "Go", "source": "host"},
    ]
    stdin = io.BytesIO(b"".join(encode(r) for r in requests))
    stdout = io.BytesIO()
    assert Server(NotANumber()).serve(stdin, stdout) == 0
    replies = [decode(line) for line in stdout.getvalue().splitlines()]
    assert [(r["id"], r["ok"]) for r in replies] == [(1, True), (2, False), (3, True)]
    assert replies[1]["error"] == {
        "code": "internal-error",
        "message": "the adapter's answer is not JSON: Out of range float values are not JSON "
        "compliant",
    }
