"""``schema/report.schema.json``: every line ``ppconf run --report json`` writes validates against
it (checked here with ``jsonschema``, apart from the reader's own validator), it names what the
code names, and the reader refuses, at file:line, the lines it refuses."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from report_files import ReportFiles

from conformance._basics.areas import AREAS
from conformance._basics.contract import REQUIREMENTS
from conformance._basics.resources import schema_path
from conformance._judging.records import REPORT_FORMAT
from conformance._judging.runner import OUTCOMES
from conformance._report.jsonl import ReportError, read_report

pytestmark = pytest.mark.usefixtures("cached_catalog", "fakes_importable")

SCHEMA = json.loads(schema_path("report.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def schema_errors(record: Any) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(record)]


def test_the_schema_is_a_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_schema_names_what_the_code_names() -> None:
    definitions = SCHEMA["$defs"]
    assert definitions["Area"]["enum"] == list(AREAS)
    assert definitions["Outcome"]["enum"] == list(OUTCOMES)
    assert definitions["Requirement"]["enum"] == list(REQUIREMENTS)
    assert definitions["run"]["properties"]["format"]["const"] == REPORT_FORMAT
    assert set(definitions["summary"]["properties"]["counts"]["required"]) == set(OUTCOMES)


@pytest.mark.parametrize(
    "adapter",
    ["reference", "fakes:ValidatesOnly", "fakes:RejectsWorkflows", "fakes:RaisesSometimes"],
)
def test_every_line_of_a_run_validates(adapter: str, report_file: ReportFiles) -> None:
    lines = lines_of(report_file(adapter))
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "run"
    assert kinds[-1] == "summary"
    assert set(kinds[1:-1]) == {"part"}
    for number, line in enumerate(lines, start=1):
        assert schema_errors(line) == [], f"line {number}"
    if adapter != "reference":  # parts that did not pass carry their pack
        assert any("pack" in line for line in lines)
    if adapter == "fakes:ValidatesOnly":  # a scenario failing at a step says where
        assert any(c.get("detail") for line in lines[1:-1] for c in line["checks"])


def test_the_lines_of_an_interrupted_run_validate(report_file: ReportFiles) -> None:
    path = report_file("fakes:InterruptedOnThirdCase")
    lines = lines_of(path)
    assert [line["type"] for line in lines][:1] == ["run"]
    assert "summary" not in [line["type"] for line in lines]
    for line in lines:
        assert schema_errors(line) == []
    report = read_report(path)
    assert not report.complete
    assert len(report.records) == len(lines) - 1


def test_a_line_cut_off_mid_way_is_dropped_the_rest_read(
    report_file: ReportFiles, tmp_path: Path
) -> None:
    text = report_file("fakes:ValidatesOnly").read_text("utf-8")
    lines = text.splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:11]) + lines[11][: len(lines[11]) // 2], "utf-8")
    report = read_report(cut)
    assert not report.complete
    assert len(report.records) == 10


# -- the reader refuses what the schema refuses -------------------------------------------------

Edit = Callable[[list[dict[str, Any]]], None]


def _set(index: int, *path_and_value: Any) -> Edit:
    """An edit setting ``lines[index][k1][k2]... = value`` (value last; ``...`` deletes)."""
    *path, value = path_and_value

    def edit(lines: list[dict[str, Any]]) -> None:
        target = lines[index]
        for key in path[:-1]:
            target = target[key]
        if value is ...:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return edit


BROKEN: dict[str, tuple[Edit, str]] = {
    "an unknown outcome": (_set(1, "outcome", "bogus"), "schema/report.schema.json at /outcome"),
    "an unknown requirement": (_set(1, "requirement", "MUSTN'T"), "/requirement"),
    "a level out of range": (_set(1, "level", 7), "/level"),
    "an unknown area": (_set(1, "area", "elsewhere"), "/area"),
    "a part without its case": (_set(1, "case", ...), 'at /: "case" is a required property'),
    "a check without an id": (
        _set(1, "checks", 0, "id", ...),
        'at /checks/0: "id" is a required property',
    ),
    "a check passed as a string": (_set(1, "checks", 0, "passed", "yes"), "/checks/0/passed"),
    "a header without the catalog hash": (
        _set(0, "catalog", "hash", ...),
        'at /catalog: "hash" is a required',
    ),
    "a header with a field it does not have": (
        _set(0, "extra", 1),
        "Additional properties are not allowed",
    ),
    "a summary without the verdict": (_set(-1, "verdict", ...), 'at /: "verdict" is a required'),
    "a record of an unknown type": (_set(1, "type", "case"), "its type is 'case'"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_the_reader_refuses_what_the_schema_refuses(
    name: str, report_file: ReportFiles, tmp_path: Path
) -> None:
    lines = lines_of(report_file("fakes:ValidatesOnly"))
    edit, expected = BROKEN[name]
    broken = copy.deepcopy(lines)
    edit(broken)
    changed = next(i for i, (a, b) in enumerate(zip(lines, broken, strict=True)) if a != b)
    assert schema_errors(broken[changed])
    path = tmp_path / "broken.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in broken), "utf-8")
    with pytest.raises(ReportError) as caught:
        read_report(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{changed + 1}: ")
    assert expected in message
    assert "\n" not in message


def test_what_the_schema_cannot_say_is_refused_too(
    report_file: ReportFiles, tmp_path: Path
) -> None:
    lines = lines_of(report_file("fakes:ValidatesOnly"))
    path = tmp_path / "broken.jsonl"

    def refused(records: list[dict[str, Any]]) -> str:
        path.write_text("".join(json.dumps(line) + "\n" for line in records), "utf-8")
        with pytest.raises(ReportError) as caught:
            read_report(path)
        return str(caught.value)

    assert refused([lines[1], *lines]) == (
        f"{path}:1: no run header before this line; is this a report written by "
        "`ppconf run --report json`?"
    )
    assert "a second record of" in refused([*lines[:2], lines[1], *lines[2:]])
    assert f"{path}:{len(lines) + 1}: a part record after the summary" in refused(
        [*lines, lines[1]]
    )
    assert "a second run header" in refused([lines[0], *lines])
    older = {**lines[0], "format": "ppconf-report/1"}
    assert refused([older, *lines[1:]]) == (
        f"{path}:1: a report in format 'ppconf-report/1'; this kit reads {REPORT_FORMAT} "
        "(render it with the kit that wrote it, or run again)"
    )
    mid = refused([*lines[:3], {"type": "part"}, *lines[3:]])
    assert mid.startswith(f"{path}:4: the part record breaks schema/report.schema.json at /: ")
