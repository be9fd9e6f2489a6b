"""A revised published schema read against the registry, constraint by JSON pointer."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conformance._basics.quotes import SOURCE_FILES
from conformance._catalog.schema_revision import check_schema_revision
from conformance._catalog.statements import builtin
from conformance._cli import main

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"


def held(source: str) -> Any:
    path = SPEC / SOURCE_FILES[source]
    if not path.is_file():
        pytest.skip(f"the schemas are not at {SPEC}: the revision check needs one")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", ["schema 1.4.0", "schema 1.5.1", "schema 1.9.0"])
def test_the_schema_the_registry_was_built_from_has_no_change(source: str) -> None:
    revision = check_schema_revision(builtin(), source, held(source))
    assert [(c.kind, c.section) for c in revision.changes] == []


def changes_of(revised: Any) -> list[tuple[str, str, str | None]]:
    revision = check_schema_revision(builtin(), "schema 1.9.0", revised)
    return [(c.kind, c.section, c.statement and c.statement.id) for c in revision.changes]


def test_a_constraint_changed_at_its_pointer_only() -> None:
    # '"additionalProperties": true' is written at many places; closing Composition's engine
    # is found at #/$defs/Composition/properties/engine.
    schema = copy.deepcopy(held("schema 1.9.0"))
    schema["$defs"]["Composition"]["properties"]["engine"]["additionalProperties"] = False
    assert changes_of(schema) == [
        (
            "constraint changed",
            "#/$defs/Composition/properties/engine",
            "schema-1.9.0.Composition.engine.additionalProperties",
        )
    ]


def test_a_property_removed_and_a_description_changed() -> None:
    schema = copy.deepcopy(held("schema 1.9.0"))
    del schema["$defs"]["WorkflowState"]["properties"]["max_visits"]
    budget = schema["$defs"]["WorkflowBudget"]["properties"]["max_wall_time_sec"]
    budget["description"] = "Wall-clock time."
    found = changes_of(schema)
    removed = {i for kind, _, i in found if kind == "removed"}
    assert removed
    assert all(i and i.startswith("schema-1.9.0.WorkflowState.max_visits") for i in removed)
    assert (
        "wording changed",
        "#/$defs/WorkflowBudget/properties/max_wall_time_sec",
        "schema-1.9.0.WorkflowBudget.max_wall_time_sec.1",
    ) in found


def test_a_new_constraint_and_a_new_property_in_a_covered_part() -> None:
    schema = copy.deepcopy(held("schema 1.9.0"))
    schema["$defs"]["Composition"]["minProperties"] = 1
    schema["$defs"]["WorkflowState"]["properties"]["retries"] = {"type": "integer"}
    assert changes_of(schema) == [
        ("new", "#/$defs/Composition/minProperties", None),
        ("new", "#/$defs/WorkflowState/properties/retries", None),
    ]


def test_a_new_version_is_read_against_the_newest_held_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = copy.deepcopy(held("schema 1.9.0"))
    schema["$defs"]["WorkflowState"]["properties"]["control"]["enum"].append("system")
    (tmp_path / "next.json").write_text(json.dumps(schema), encoding="utf-8")
    status = main(["statements", "check", "schema 2.0.0", str(tmp_path / "next.json")])
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith("schema 2.0.0 is not held: read against schema 1.9.0")
    assert "constraint changed: schema-1.9.0.WorkflowState.control.enum" in out
    assert "control.validation.control-invalid-system" in out  # a case citing it
    (tmp_path / "same.json").write_text(json.dumps(held("schema 1.9.0")), encoding="utf-8")
    assert main(["statements", "check", "schema 1.9.0", str(tmp_path / "same.json")]) == 0


def test_a_schema_that_is_not_json_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    assert main(["statements", "check", "schema 1.9.0", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "x.json: not a JSON schema" in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
