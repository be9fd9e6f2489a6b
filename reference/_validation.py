"""Validating packs: the schema, then the workflow rules and the composition rulebook.

Every rule reports under a stable code with a JSON pointer. The checks after the schema are
written to survive malformed input (they skip what the schema already reported), so one run
reports everything it can, once, in a deterministic order.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema_rs

from reference._compositions import rules as composition_rules
from reference._diagnostics import Diagnostic, sort_key
from reference._json import describe_json_type, json_pointer
from reference._resources import schema_path
from reference._workflow import rules as workflow_rules


def validate(pack: Any) -> list[Diagnostic]:
    """Validate a loaded pack and return its diagnostics, errors first, in a stable order.

    Arguments:
        pack: the document as loaded from JSON or YAML (normally a ``dict``).
    """
    if not isinstance(pack, dict):
        kind = describe_json_type(pack)
        return [Diagnostic("schema", "error", "", f"a pack must be an object, not {kind}")]
    found = _schema_diagnostics(pack)
    workflow = pack.get("workflow")
    if isinstance(workflow, dict):
        found.extend(workflow_rules.diagnostics(pack, workflow))
    found.extend(composition_rules.diagnostics(pack))
    return sorted(found, key=sort_key)


# -- the schema -------------------------------------------------------------------------------


@cache
def _pack_schema_validator() -> Any:
    with open(schema_path("promptpack.schema.json"), encoding="utf-8") as stream:
        schema = json.load(stream)
    return jsonschema_rs.validator_for(schema)


def _schema_diagnostics(pack: dict[str, Any]) -> list[Diagnostic]:
    found = []
    for error in _pack_schema_validator().iter_errors(pack):
        instance_path = list(error.instance_path)
        where = json_pointer(*instance_path)
        code = _code_for_schema_error(instance_path, list(error.schema_path), error.kind)
        if code is None:
            continue
        message = error.message
        if code == "prompt-task-missing":
            message = "a state not in composition mode needs a prompt_task"
        elif code == "composition-missing":
            message = "orchestration: composition needs a composition name"
        elif code == "composition-not-allowed":
            message = "composition is only allowed with orchestration: composition"
        found.append(Diagnostic(code, "error", where, message))
    return found


def _code_for_schema_error(
    instance_path: list[str | int], schema_path: list[str | int], kind: Any
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
    if instance_path == ["workflow", "version"] and isinstance(
        kind, jsonschema_rs.ValidationErrorKind.Minimum
    ):
        return None  # an integer other than 1 or 2: reported as workflow-version-unsupported
    return "schema"
