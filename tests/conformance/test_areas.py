"""The area registry is the one list of areas: the schemas, the CLI and the plugin follow it."""

from __future__ import annotations

import json
import re

import pytest

from conformance._basics.areas import AREAS, REGISTRY, TOP_LEVEL, Area
from conformance._basics.resources import schema_path
from conformance._basics.spec_versions import KNOWN, parse_version


def schema(name: str) -> dict[str, object]:
    with open(schema_path(name), encoding="utf-8") as stream:
        data: dict[str, object] = json.load(stream)
    return data


def id_pattern_areas(pattern: str) -> list[str]:
    match = re.match(r"\^\(([^)]*)\)", pattern)
    assert match is not None, pattern
    return match.group(1).split("|")


def test_the_case_schema_names_every_area_and_only_those() -> None:
    properties = schema("case.schema.json")["properties"]
    assert isinstance(properties, dict)
    assert properties["area"]["enum"] == list(AREAS)
    assert id_pattern_areas(properties["id"]["pattern"]) == list(AREAS)


def test_the_report_schema_case_ids_follow_the_registry() -> None:
    definitions = schema("report.schema.json")["$defs"]
    assert isinstance(definitions, dict)
    assert id_pattern_areas(definitions["CaseId"]["pattern"]) == list(AREAS)


@pytest.mark.parametrize("area", REGISTRY, ids=lambda a: a.name)
def test_each_area_is_coherent(area: Area) -> None:
    assert area.since in KNOWN
    assert 0 <= area.top <= area.rfc_top <= 3
    assert re.fullmatch(r"RFC \d{4}", area.rfc)
    # A level the RFC defines and the kit leaves out is said why, once.
    assert bool(area.above_top) == (area.top < area.rfc_top)
    assert TOP_LEVEL[area.name] == area.top


def test_areas_are_listed_by_name_once() -> None:
    assert len(set(AREAS)) == len(AREAS)
    assert sorted(REGISTRY, key=lambda a: parse_version(a.since))[0].name == "workflow"


def test_the_cli_and_the_plugin_offer_every_area() -> None:
    from conformance._cli import _parser  # noqa: PLC0415

    parser = _parser()
    for area in AREAS:
        assert parser.parse_args(["run", "--area", area]).area == [area]
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--area", "no-such-area"])
