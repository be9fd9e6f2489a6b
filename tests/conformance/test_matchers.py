"""Comparing observations with expectations: JSON equality, each matcher, the failure message."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance._basics.matchers import (
    MATCHERS,
    Mismatch,
    compare,
    differences,
    is_matcher,
    missing,
    pointer_problems,
)

NOTHING = missing()


def message(expected: Any, actual: Any, path: str = "") -> str:
    mismatch = compare(expected, actual, path)
    assert mismatch is not None, f"{actual!r} unexpectedly matches {expected!r}"
    return str(mismatch)


# -- plain values: JSON equality ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (1, 1),
        (1, 1.0),
        (1.0, 1),
        ("done", "done"),
        (None, None),
        (True, True),
        ([1, "a"], [1, "a"]),
        ([1, "a"], (1, "a")),
        ({"a": 1, "b": [2]}, {"b": [2], "a": 1.0}),
        ({}, {}),
        ([], []),
    ],
)
def test_equal_json_values_match(expected: Any, actual: Any) -> None:
    assert compare(expected, actual) is None


@pytest.mark.parametrize(
    ("expected", "actual", "text"),
    [
        (True, 1, "value: expected true, got 1"),
        (1, True, "value: expected 1, got true"),
        (False, 0, "value: expected false, got 0"),
        ("1", 1, 'value: expected "1", got 1'),
        (None, "null", 'value: expected null, got "null"'),
        ("review", "done", 'value: expected "review", got "done"'),
        ({"a": 1}, [1], 'value: expected {"a": 1}, got [1]'),
        ([1], {"a": 1}, 'value: expected [1], got {"a": 1}'),
    ],
)
def test_different_json_values_do_not(expected: Any, actual: Any, text: str) -> None:
    assert message(expected, actual) == text


def test_a_value_not_reported_is_nothing() -> None:
    assert (
        message(None, NOTHING, "terminal") == "terminal: expected null, got nothing (not reported)"
    )


def test_objects_compare_exactly() -> None:
    assert (
        message({"a": 1}, {"a": 1, "b": 2}, "visit_counts")
        == 'visit_counts: expected {"a": 1}, got {"a": 1, "b": 2} (unexpected key \'b\')'
    )
    assert message({"a": 1, "b": 2}, {"a": 1}, "visit_counts") == (
        "visit_counts.b: expected 2, got nothing (not reported)"
    )


def test_lists_compare_in_order_and_length() -> None:
    assert message([1, 2], [2, 1], "x") == "x[0]: expected 1, got 2"
    assert message([1, 2], [1, 2, 3], "x") == "x: expected [1, 2], got [1, 2, 3] (3 items, not 2)"


def test_the_path_leads_to_the_first_difference() -> None:
    expected = {"history": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]}
    actual = {"history": [{"from": "a", "to": "b"}, {"from": "b", "to": "d"}]}
    assert message(expected, actual, "final") == 'final.history[1].to: expected "c", got "d"'
    assert message({"to": "c"}, {"to": "d"}) == 'to: expected "c", got "d"'


def test_long_values_are_cut_short() -> None:
    text = message("x" * 1000, "y" * 1000)
    assert len(text) < 700
    assert text.count("...") == 2


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.text(max_size=3).filter(lambda k: not k.startswith("$")), children, max_size=3
        )
    ),
    max_leaves=10,
)


@given(JSON)
def test_every_json_value_matches_itself(value: Any) -> None:
    assert compare(value, value) is None


@given(JSON, JSON)
def test_comparison_of_plain_data_is_symmetric(a: Any, b: Any) -> None:
    assert (compare(a, b) is None) == (compare(b, a) is None)


# -- matchers -----------------------------------------------------------------------------------


def test_a_matcher_is_an_object_with_exactly_one_known_dollar_key() -> None:
    assert set(MATCHERS) == {
        "$contains_in_order",
        "$contains",
        "$unordered",
        "$one_of",
        "$subset",
        "$any",
        "$same_as",
    }
    for name in MATCHERS:
        assert is_matcher({name: []})
    assert not is_matcher({"$any": True, "other": 1})
    assert not is_matcher({"$bogus": 1})
    assert not is_matcher([{"$any": True}])
    assert not is_matcher("$any")


def test_an_unknown_dollar_key_is_plain_data() -> None:
    assert compare({"$bogus": 1}, {"$bogus": 1}) is None
    assert compare({"$bogus": 1}, 1) is not None


def test_any_accepts_every_reported_value() -> None:
    for value in (None, 0, "", [], {}, False):
        assert compare({"$any": True}, value) is None
    assert message({"$any": True}, NOTHING, "prompt_task") == (
        'prompt_task: expected {"$any": true}, got nothing (not reported)'
    )


def test_one_of() -> None:
    matcher = {"$one_of": ["done", {"$subset": {"a": 1}}]}
    assert compare(matcher, "done") is None
    assert compare(matcher, {"a": 1, "b": 2}) is None
    assert message(matcher, "review", "state") == (
        'state: expected {"$one_of": ["done", {"$subset": {"a": 1}}]}, got "review" '
        "(matches none of the options)"
    )
    assert "not reported" in message(matcher, NOTHING)


def test_subset() -> None:
    matcher = {"$subset": {"to": "done", "redirected": True}}
    assert compare(matcher, {"from": "a", "to": "done", "redirected": True}) is None
    assert message(matcher, {"to": "done", "redirected": False}, "transition") == (
        "transition.redirected: expected true, got false"
    )
    assert message(matcher, {"to": "done"}, "transition") == (
        "transition.redirected: expected true, got nothing (not reported)"
    )
    assert message(matcher, ["done"], "transition") == (
        'transition: expected {"$subset": {"redirected": true, "to": "done"}}, got ["done"] '
        "(not an object)"
    )


def test_subset_values_are_compared_exactly_below_the_top() -> None:
    matcher = {"$subset": {"counts": {"a": 1}}}
    assert compare(matcher, {"counts": {"a": 1}, "x": 0}) is None
    assert "unexpected key 'b'" in message(matcher, {"counts": {"a": 1, "b": 1}})


def test_contains_in_order_on_strings() -> None:
    matcher = {"$contains_in_order": ["first", "second"]}
    assert compare(matcher, "first\nsecond") is None
    assert compare(matcher, "firstsecond") is None
    assert compare(matcher, "xx first yy second zz") is None
    assert message(matcher, "second first", "artifacts.log") == (
        'artifacts.log: expected {"$contains_in_order": ["first", "second"]}, '
        "got \"second first\" ('second' missing or out of order)"
    )
    assert "'first' missing or out of order" in message(matcher, "neither")


def test_contains_in_order_does_not_reuse_a_substring() -> None:
    assert compare({"$contains_in_order": ["ab", "ab"]}, "ab") is not None
    assert compare({"$contains_in_order": ["ab", "ab"]}, "abab") is None


def test_contains_in_order_on_lists() -> None:
    matcher = {"$contains_in_order": [{"to": "b"}, {"$subset": {"to": "d"}}]}
    history = [{"to": "a"}, {"to": "b"}, {"to": "c"}, {"to": "d", "event": "E"}]
    assert compare(matcher, history) is None
    assert message(matcher, list(reversed(history)), "history") == (
        'history: expected {"$contains_in_order": [{"to": "b"}, {"$subset": {"to": "d"}}]}, got '
        '[{"event": "E", "to": "d"}, {"to": "c"}, {"to": "b"}, {"to": "a"}] '
        '({"$subset": {"to": "d"}} missing or out of order)'
    )
    assert compare({"$contains_in_order": [1, 1]}, [1]) is not None
    assert compare({"$contains_in_order": []}, []) is None


def test_contains() -> None:
    matcher = {"$contains": ["b", "a"]}
    assert compare(matcher, ["a", "x", "b"]) is None
    assert message(matcher, ["a"], "available_events") == (
        'available_events: expected {"$contains": ["b", "a"]}, got ["a"] ("b" missing)'
    )


def test_unordered() -> None:
    matcher = {"$unordered": ["a", "b", "a"]}
    assert compare(matcher, ["b", "a", "a"]) is None
    assert message(matcher, ["a", "b"], "x") == (
        'x: expected {"$unordered": ["a", "b", "a"]}, got ["a", "b"] (2 items, not 3)'
    )
    assert message(matcher, ["a", "a", "b", "c"], "x") == (
        'x: expected {"$unordered": ["a", "b", "a"]}, got ["a", "a", "b", "c"] (4 items, not 3)'
    )
    assert message(matcher, ["a", "b", "b"], "x") == (
        'x: expected {"$unordered": ["a", "b", "a"]}, got ["a", "b", "b"] (no item left for "a")'
    )


def test_unordered_finds_a_pairing_when_one_exists() -> None:
    """Matchers may overlap: a greedy pairing would give the 1 to the first item and fail."""
    assert compare({"$unordered": [{"$one_of": [1, 2]}, 1]}, [1, 2]) is None
    assert compare({"$unordered": [{"$any": True}, "a"]}, ["a", "b"]) is None
    assert compare({"$unordered": [{"$one_of": [1, 2]}, 1]}, [1, 3]) is not None


@pytest.mark.parametrize("name", ["$contains_in_order", "$contains", "$unordered"])
def test_list_matchers_need_a_list(name: str) -> None:
    assert (
        message({name: [1]}, {"a": 1}, "x")
        == f'x: expected {{"{name}": [1]}}, got {{"a": 1}} (not a list)'
    )
    assert "not reported" in message({name: [1]}, NOTHING)
    assert compare({name: [1]}, (1,)) is None


def test_matchers_nest_inside_plain_data() -> None:
    expected = {"state": "done", "history": {"$contains": [{"$subset": {"event": "Go"}}]}}
    actual = {"state": "done", "history": [{"from": "a", "to": "done", "event": "Go"}]}
    assert compare(expected, actual) is None
    actual["history"][0]["event"] = "Stop"
    assert message(expected, actual) == (
        'history: expected {"$contains": [{"$subset": {"event": "Go"}}]}, '
        'got [{"event": "Stop", "from": "a", "to": "done"}] '
        '({"$subset": {"event": "Go"}} missing)'
    )


def test_a_mismatch_knows_what_was_expected_and_seen() -> None:
    mismatch = compare({"a": 1}, {"a": 2}, "root")
    assert mismatch == Mismatch("root.a", 1, 2)
    assert str(Mismatch("", "x", NOTHING, "not reported")) == (
        'value: expected "x", got nothing (not reported)'
    )
    unprintable = object()
    assert repr(unprintable) in str(Mismatch("p", 1, unprintable))


def test_differences_lists_every_key_that_differs_and_every_unexpected_one() -> None:
    found = differences({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 5, "d": 1}, "visit_counts")
    assert [(m.path, m.actual) for m in found] == [
        ("visit_counts.b", 5),
        ("visit_counts.c", missing()),
        ("visit_counts.d", 1),
    ]
    # A matcher, or a value that is no mapping, gives the first mismatch only.
    assert [m.path for m in differences({"$any": True}, missing(), "x")] == ["x"]
    assert differences("a", "a", "x") == ()


# -- $same_as -----------------------------------------------------------------------------------

RESULT = {
    "status": "completed",
    "trace": [
        {"step": "shout", "output": "LOUD", "input": "loud"},
        {"step": "publish", "input": {"title": "LOUD", "n": 1}},
    ],
}
SAME_TITLE = {
    "$subset": {
        "trace": [
            {"$subset": {"step": "shout", "output": {"$any": True}}},
            {"$subset": {"input": {"$subset": {"title": {"$same_as": "/trace/0/output"}}}}},
        ]
    }
}


def test_same_as_matches_the_value_at_its_pointer_in_the_same_observation() -> None:
    assert compare(SAME_TITLE, RESULT, "composition") is None
    other = {**RESULT, "trace": [RESULT["trace"][0], {"input": {"title": "quiet"}}]}
    assert message(SAME_TITLE, other, "composition") == (
        'composition.trace[1].input.title: expected {"$same_as": "/trace/0/output"}, '
        'got "quiet" (not the value at /trace/0/output, "LOUD")'
    )


def test_same_as_compares_by_json_equality() -> None:
    observed = {"a": {"n": 1, "l": [1, True]}, "b": {"n": 1.0, "l": (1.0, True)}}
    assert compare({"$subset": {"b": {"$same_as": "/a"}}}, observed) is None
    observed["b"] = {"n": 1, "l": [1, 1]}
    assert compare({"$subset": {"b": {"$same_as": "/a"}}}, observed) is not None
    observed["b"] = {"n": 1, "l": [1, True], "x": None}
    assert compare({"$subset": {"b": {"$same_as": "/a"}}}, observed) is not None


def test_same_as_never_reads_the_runtime_s_values_as_matchers() -> None:
    """A value a runtime reports is data: ``{"$any": true}`` at the pointer is equal only to
    that very object, and a matcher-shaped value compared with it is no matcher either."""
    expected = {"$subset": {"b": {"$same_as": "/a"}}}
    assert compare(expected, {"a": {"$any": True}, "b": "anything"}) is not None
    assert compare(expected, {"a": "x", "b": {"$any": True}}) is not None
    assert compare(expected, {"a": {"$any": True}, "b": {"$any": True}}) is None


def test_same_as_at_nothing_or_of_nothing_fails() -> None:
    expected = {"$subset": {"b": {"$same_as": "/a/1"}}}
    assert message(expected, {"a": [0], "b": 0}) == (
        'b: expected {"$same_as": "/a/1"}, got 0 (nothing reported at /a/1)'
    )
    assert "not reported" in message(expected, {"a": [0, 1]})
    for pointer in ("/a/01", "/a/-", "/a/x", "a/0"):
        assert compare({"$subset": {"b": {"$same_as": pointer}}}, {"a": [5], "b": 5}) is not None
    assert compare({"$subset": {"b": {"$same_as": "/a/0"}}}, {"a": [5], "b": 5}) is None


def test_same_as_unescapes_its_pointer() -> None:
    observed = {"a/b": {"~c": 3}, "d": 3}
    assert compare({"$subset": {"d": {"$same_as": "/a~1b/~0c"}}}, observed) is None


def test_same_as_reads_the_whole_observation_inside_other_matchers() -> None:
    observed = {"first": "x", "items": ["y", "x"]}
    inside = {"$contains": [{"$same_as": "/first"}]}
    assert compare({"$subset": {"items": inside}}, observed) is None
    observed["items"] = ["y"]
    assert compare({"$subset": {"items": inside}}, observed) is not None
    observed["items"] = "x"
    assert compare({"$subset": {"items": {"$one_of": [{"$same_as": "/first"}]}}}, observed) is None
    observed["items"] = ["y", "x"]
    assert compare({"first": "x", "items": ["y", {"$same_as": "/first"}]}, observed) is None


def test_same_as_in_differences_reads_the_whole_observation() -> None:
    found = differences({"a": 1, "b": {"$same_as": "/a"}}, {"a": 1, "b": 2}, "counts")
    assert [(m.path, m.actual) for m in found] == [("counts.b", 2)]
    assert differences({"a": 1, "b": {"$same_as": "/a"}}, {"a": 1, "b": 1}, "counts") == ()


def test_an_explicit_root_is_where_pointers_are_read() -> None:
    assert compare({"$same_as": "/x"}, 3, root={"x": 3}) is None
    assert compare({"$same_as": "/x"}, 3, root={"x": 4}) is not None


@pytest.mark.parametrize(
    ("expected", "where", "why"),
    [
        (
            {"a": {"$any": True}, "b": {"$same_as": "/c"}},
            "/b/$same_as",
            "'/c' names 'c' at the top, which the expectation does not hold",
        ),
        (
            {"$subset": {"t": [{"o": 1}], "b": {"$same_as": "/t/1/o"}}},
            "/$subset/b/$same_as",
            "'/t/1/o' names '1' at /t, which the expectation does not hold",
        ),
        (
            {"t": {"$unordered": [{"o": 1}]}, "b": {"$same_as": "/t/0/o"}},
            "/b/$same_as",
            "'/t/0/o' passes through $unordered at /t, which fixes no place below it",
        ),
        (
            {"t": {"$any": True}, "b": {"$same_as": "/t/x"}},
            "/b/$same_as",
            "'/t/x' passes through $any at /t",
        ),
        (
            {"t": "text", "b": {"$same_as": "/t/x"}},
            "/b/$same_as",
            "'/t/x' names 'x' at /t, which the expectation does not hold",
        ),
        (
            {"t": {"b": {"$same_as": "/t"}}},
            "/t/b/$same_as",
            "'/t' points at a value holding this $same_as itself",
        ),
        (
            {"t": {"$contains": [{"$same_as": "/t"}]}},
            "/t/$contains/0/$same_as",
            "'/t' points at a value holding this $same_as itself",
        ),
        ({"b": {"$same_as": ""}}, "/b/$same_as", "'' points at a value holding"),
        ({"b": {"$same_as": "b"}}, "/b/$same_as", "'b' is not a JSON pointer"),
        ({"b": {"$same_as": "/a~2"}}, "/b/$same_as", "'/a~2' is not a JSON pointer"),
    ],
)
def test_a_pointer_to_no_required_place_is_a_problem(expected: Any, where: str, why: str) -> None:
    [(found_where, found_why)] = pointer_problems(expected)
    assert found_where == where
    assert why in found_why


def test_pointers_to_required_places_are_fine() -> None:
    assert pointer_problems(SAME_TITLE) == []
    assert pointer_problems({"a~b": {"c/d": 1}, "e": {"$same_as": "/a~0b/c~1d"}}) == []
    assert pointer_problems({"a": {"$one_of": [1, 2]}, "b": {"$same_as": "/a"}}) == []
    assert pointer_problems({"a": 1, "b": {"$one_of": [{"$same_as": "/a"}, 2]}}) == []
    assert pointer_problems({"a": [1, {"$same_as": "/a/0"}]}) == []
