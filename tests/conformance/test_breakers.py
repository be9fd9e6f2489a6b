"""The breaker library: the standard ways to break each kind of schema constraint (R16)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance._catalog.breakers import Breaker, apply, breakers_for, standard_breakers


def names(found: tuple[Breaker, ...]) -> list[str]:
    return [b.name for b in found]


@pytest.mark.parametrize(
    ("expected", "wrong"),
    [
        ("integer", ["boolean", "numeric-string", "float", "null"]),
        ("number", ["boolean", "numeric-string", "null"]),
        ("string", ["integer", "null"]),
        ("boolean", ["string", "null"]),
        ("object", ["list", "null"]),
        ("array", ["object", "null"]),
    ],
)
def test_each_wrong_json_type_r16_lists_breaks_a_type(expected: str, wrong: list[str]) -> None:
    found = breakers_for("type", expected)
    assert names(found) == wrong
    assert all(not b.valid and b.edit == "set" for b in found)


def test_a_wrong_type_the_schema_also_allows_is_no_breaker() -> None:
    assert names(breakers_for("type", ["string", "null"])) == ["integer"]
    assert names(breakers_for("type", ["integer", "boolean"])) == [
        "numeric-string",
        "float",
        "null",
        "string",
    ]


def test_a_boolean_and_a_float_are_not_integers() -> None:
    values = {b.name: b.value for b in breakers_for("type", "integer")}
    assert values["boolean"] is True
    assert values["float"] == 1.5
    assert values["numeric-string"] == "1"


def test_an_enum_gets_an_outsider_and_the_near_misses_of_other_case_and_trailing_space() -> None:
    found = {b.name: b.value for b in breakers_for("enum", ["replace", "append"])}
    assert found == {
        "outsider": "not_a_listed_value",
        "other-case": "REPLACE",
        "trailing-space": "replace ",
    }
    assert all(not b.valid for b in breakers_for("enum", ["replace", "append"]))


def test_an_integer_const_gets_the_next_integer() -> None:
    assert [(b.name, b.value) for b in breakers_for("const", 1)] == [("outsider", 2)]


def test_each_required_field_left_out_is_a_breaker() -> None:
    found = breakers_for("required", ["version", "prompt_task"])
    assert [(b.name, b.edit, b.key) for b in found] == [
        ("missing-version", "delete", "version"),
        ("missing-prompt-task", "delete", "prompt_task"),
    ]


@pytest.mark.parametrize("closed", [False, True])
def test_unknown_and_vendor_keys_break_a_closed_object_and_stay_valid_on_an_open_one(
    closed: bool,
) -> None:
    found = breakers_for("additionalProperties", not closed)
    assert [(b.name, b.key) for b in found] == [
        ("unknown-key", "unknown_field"),
        ("vendor-key-x", "x-acme"),
        ("vendor-key-dotted", "acme.field"),
    ]
    assert all(b.valid is (not closed) and b.edit == "add" for b in found)


def test_a_typed_map_gets_each_wrong_type_as_a_value() -> None:
    found = breakers_for("additionalProperties", {"type": "string"})
    assert [(b.name, b.value) for b in found] == [("value-integer", 1), ("value-null", None)]
    assert breakers_for("additionalProperties", {"$ref": "#/$defs/Step"}) == ()


def test_just_below_a_minimum_breaks_it_and_the_minimum_itself_is_valid() -> None:
    found = breakers_for("minimum", 1)
    assert [(b.name, b.value, b.valid) for b in found] == [
        ("below-minimum", 0, False),
        ("at-minimum", 1, True),
    ]
    assert [(b.name, b.value) for b in breakers_for("maximum", 10)] == [
        ("above-maximum", 11),
        ("at-maximum", 10),
    ]


def test_one_item_short_of_min_items_breaks_it() -> None:
    found = breakers_for("minItems", 2, ["a", "b", "c"])
    assert [(b.name, b.value, b.valid) for b in found] == [
        ("too-few-items", ["a"], False),
        ("at-min-items", ["a", "b"], True),
    ]
    assert names(breakers_for("minProperties", 1)) == ["empty"]


def test_a_string_off_the_pattern_is_one_the_pattern_refuses() -> None:
    pattern = "^[a-zA-Z_][a-zA-Z0-9_]*$"
    (found,) = breakers_for("pattern", pattern)
    assert not re.search(pattern, found.value)
    namespaced = r"^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*$"
    (found,) = breakers_for("pattern", namespaced)
    assert not re.search(namespaced, found.value)


def test_a_list_of_typed_items_gets_each_wrong_item() -> None:
    found = breakers_for("items", {"type": "string"})
    assert [(b.name, b.value) for b in found] == [("item-integer", [1]), ("item-null", [None])]


@pytest.mark.parametrize("keyword", ["$ref", "default", "oneOf", "if"])
def test_keywords_without_breakers_give_none(keyword: str) -> None:
    assert breakers_for(keyword, {"$ref": "#/$defs/X"}) == ()


def test_standard_breakers_name_what_coverage_counts() -> None:
    assert standard_breakers("minItems", 1) == ("too-few-items", "at-min-items")
    assert standard_breakers("type", "boolean") == ("string", "null")


PACK: dict[str, Any] = {"workflow": {"states": {"a": {"prompt_task": "p", "max_visits": 2}}}}


def test_apply_sets_deletes_and_adds_without_touching_the_template() -> None:
    state = "/workflow/states/a"
    (boolean, *_) = breakers_for("type", "integer")
    assert apply(PACK, f"{state}/max_visits", boolean)["workflow"]["states"]["a"]["max_visits"]
    (missing,) = breakers_for("required", ["prompt_task"])
    assert "prompt_task" not in apply(PACK, state, missing)["workflow"]["states"]["a"]
    vendor = breakers_for("additionalProperties", False)[1]
    assert apply(PACK, state, vendor)["workflow"]["states"]["a"]["x-acme"] == "added"
    assert PACK == {"workflow": {"states": {"a": {"prompt_task": "p", "max_visits": 2}}}}


def test_apply_adds_an_optional_object_the_template_leaves_out() -> None:
    vendor = breakers_for("additionalProperties", True)[1]
    assert apply(PACK, "/workflow/engine", vendor)["workflow"]["engine"] == {"x-acme": "added"}


def test_apply_sets_inside_a_list() -> None:
    pack = {"steps": [{"id": "a"}]}
    (off,) = breakers_for("pattern", "^[a-z]+$")
    assert apply(pack, "/steps/0/id", off)["steps"][0]["id"] == off.value
