"""The pack schema (``schema/promptpack.schema.json``) as diagnostics.

A pack is checked in two parts: the pack without the insides of its compositions, and each
composition on its own against the schema's ``Composition`` definition. The parts together are
exactly the schema; checking a composition alone lets the engine refuse the one it runs with
the same diagnostics the validator reports. Violations are reported as ``schema`` at the
offending value, except the few with their own SEMANTICS code (see :func:`_code_for`).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import jsonschema_rs

from reference._diagnostics import Diagnostic
from reference._json import json_pointer
from reference._resources import schema_path

_MESSAGES = {
    "prompt-task-missing": "a state not in composition mode needs a prompt_task",
    "composition-missing": "orchestration: composition needs a composition name",
    "composition-not-allowed": "composition is only allowed with orchestration: composition",
}


def pack_diagnostics(pack: dict[str, Any]) -> list[Diagnostic]:
    """The schema's diagnostics for ``pack``, compositions left out but for being objects."""
    return _diagnostics(_pack_validator(), pack, ())


def composition_diagnostics(name: str, composition: Any) -> list[Diagnostic]:
    """The schema's diagnostics for the composition ``name`` (pointers from the pack root)."""
    return _diagnostics(_composition_validator(), composition, ("compositions", name))


@cache
def _schema() -> dict[str, Any]:
    with open(schema_path("promptpack.schema.json"), encoding="utf-8") as stream:
        schema: dict[str, Any] = json.load(stream)
    return schema


@cache
def _pack_validator() -> Any:
    schema = copy.deepcopy(_schema())
    # The compositions map keeps its own checks (an object); each entry is left to
    # _composition_validator, which applies the very definition this replaces.
    schema["properties"]["compositions"]["additionalProperties"] = True
    return jsonschema_rs.validator_for(schema)


@cache
def _composition_validator() -> Any:
    schema = _schema()
    return jsonschema_rs.validator_for(
        {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/Composition"}
    )


def _diagnostics(validator: Any, instance: Any, base: tuple[str, ...]) -> list[Diagnostic]:
    found = []
    for error in validator.iter_errors(instance):
        instance_path = [*base, *error.instance_path]
        code = _code_for(instance_path, list(error.schema_path), error.kind, error.instance)
        if code is not None:
            message = _MESSAGES.get(code, error.message)
            found.append(Diagnostic(code, "error", json_pointer(*instance_path), message))
    return found


def _code_for(
    instance_path: list[str | int], schema_path: list[str | int], kind: Any, value: Any
) -> str | None:
    """Map a schema violation to its own SEMANTICS code where it has one (None: drop it)."""
    in_state = "WorkflowState" in schema_path
    if in_state and schema_path[-2:] == ["else", "required"]:
        return "prompt-task-missing"
    if in_state and schema_path[-2:] == ["then", "required"]:
        return "composition-missing"
    if in_state and schema_path[-2:] == ["else", "not"]:
        return "composition-not-allowed"
    if in_state and instance_path[-1:] == ["orchestration"] and schema_path[-1:] == ["enum"]:
        return "orchestration-invalid"
    if _is_state_field(instance_path, "control") and schema_path[-1:] == ["enum"]:
        # Once: a string outside the two values has its own code; a non-string is already
        # reported as `schema` by the type keyword, so its enum violation is dropped.
        return "control-invalid" if isinstance(value, str) else None
    if instance_path == ["workflow", "version"] and isinstance(
        kind, jsonschema_rs.ValidationErrorKind.Minimum
    ):
        return None  # an integer other than 1 or 2: reported as workflow-version-unsupported
    return "schema"


def _is_state_field(instance_path: list[str | int], name: str) -> bool:
    """Whether ``instance_path`` is ``/workflow/states/<state>/<name>``."""
    return instance_path[:2] == ["workflow", "states"] and instance_path[3:] == [name]
