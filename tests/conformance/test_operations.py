"""The table of operations against what it drives: the published protocol schema, the adapter
interfaces, the proxies that forward each operation, the scenario steps, and the client's
checks of each answer (with and without ``--validate-protocol``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from conformance._basics.resources import schema_path
from conformance._catalog.steps import STEP_TYPES
from conformance._protocol import ProtocolError, SubprocessAdapter, check_message
from conformance._protocol.adapter import SubprocessSession
from conformance._runtime.adapter import Adapter, AdapterSession
from conformance._runtime.boundary import Guard, GuardedSession
from conformance._runtime.operations import BY_METHOD, BY_NAME, OPERATIONS, SCRIPT_OPS, Operation

SCHEMA = json.loads(Path(schema_path("protocol.schema.json")).read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]
FAKES = Path(__file__).resolve().parent / "protocol_fakes"


def ops(schemas: list[dict[str, Any]]) -> list[str]:
    return [
        DEFS["requests"][ref["$ref"].rsplit("/", 1)[1]]["properties"]["op"]["const"]
        if "$ref" in ref
        else ref["properties"]["op"]["const"]
        for ref in schemas
    ]


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: o.name)
def test_each_operation_has_its_request_in_the_schema(operation: Operation) -> None:
    request = DEFS["requests"][operation.name]
    fixed = {"id", "op"} | ({"pack"} if operation.carries_pack else set())
    fixed |= {"session"} if operation.target == "session" else set()
    assert request["properties"]["op"] == {"const": operation.name}
    assert set(request["required"]) == fixed | set(operation.arguments)
    assert set(request["properties"]) == set(request["required"]) | set(operation.optional)


def test_the_schemas_requests_are_the_operations_in_their_order() -> None:
    assert ops(DEFS["Request"]["oneOf"]) == [o.name for o in OPERATIONS]
    assert list(DEFS["requests"]) == [o.name for o in OPERATIONS]
    assert sorted(ops(DEFS["ScriptRequest"]["oneOf"])) == sorted(SCRIPT_OPS)


def expected_answer(base: str, operation: Operation) -> dict[str, Any]:
    schema: dict[str, Any] = {"$ref": f"#/$defs/{base}"}
    if operation.answer is not None:
        schema["if"] = {"required": ["ok"], "properties": {"ok": {"const": True}}}
        schema["then"] = {"required": [operation.answer]}
    return schema


def test_each_operation_has_its_response_and_each_scripted_one_its_answer() -> None:
    assert DEFS["responses"] == {o.name: expected_answer("Response", o) for o in OPERATIONS}
    scripted = [o for o in OPERATIONS if o.scripted]
    assert DEFS["answers"] == {o.name: expected_answer("Answer", o) for o in scripted}
    for operation in OPERATIONS:  # the field an answer carries is one the schema types
        if operation.answer is not None:
            assert operation.answer in DEFS["Response"]["oneOf"][0]["properties"]


def test_an_ok_answer_without_its_result_breaks_that_operations_response() -> None:
    check_message({"id": 1, "ok": True}, "Response")  # the answer common to every operation
    check_message({"id": 1, "ok": True}, "responses/load")
    check_message({"id": 1, "ok": False, "error": {"code": "unknown-event"}}, "responses/send")
    check_message({"id": 1, "skipped": {"reason": "no"}}, "responses/state")
    for operation in (o for o in OPERATIONS if o.answer is not None):
        with pytest.raises(ProtocolError, match=f"response to {operation.name} breaks"):
            check_message({"id": 1, "ok": True}, f"responses/{operation.name}")
        if operation.scripted:
            with pytest.raises(ProtocolError, match=f"answer to {operation.name} breaks"):
                check_message({"ok": True}, f"answers/{operation.name}")


@pytest.mark.parametrize(
    "operation", [o for o in OPERATIONS if o.target != "protocol"], ids=lambda o: o.name
)
def test_each_operation_is_a_method_of_its_interface_and_of_every_proxy(
    operation: Operation,
) -> None:
    interface = operation.needs or (Adapter if operation.target == "adapter" else AdapterSession)
    assert operation.method in vars(interface)
    proxies = (
        (SubprocessAdapter, Guard)
        if operation.target == "adapter"
        else (SubprocessSession, GuardedSession)
    )
    for proxy in proxies:
        assert callable(getattr(proxy, operation.method, None)), (proxy, operation.method)
    assert BY_METHOD[operation.method] is operation


def test_each_step_is_one_operation_called_with_the_steps_fields() -> None:
    for kind, step in STEP_TYPES.items():
        fields = [f.name for f in dataclasses.fields(step) if f.name not in ("expect", "pointer")]
        if step.operation is None:  # snapshot_restore: a snapshot, a restore and a close
            assert kind == "snapshot_restore"
            continue
        operation = BY_NAME[step.operation]
        assert fields == list(operation.arguments), kind
        assert operation.scripted, kind
