"""A session's records as state() hands them out: plain lists, made when first read, that do
not change when the session moves on."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

import reference
from reference._workflow.records import Records


def _loop(artifacts: bool = False) -> dict[str, Any]:
    states: dict[str, Any] = {
        "a": {"prompt_task": "p", "on_event": {"Next": "b"}},
        "b": {"prompt_task": "p", "on_event": {"Next": "a"}},
    }
    if artifacts:
        states["a"]["artifacts"] = {"notes": {"type": "text", "mode": "append"}}
    return {
        "id": "records",
        "name": "Records",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {"p": {"id": "p", "name": "P", "version": "1.0.0", "system_template": "P."}},
        "workflow": {"version": 2, "entry": "a", "states": states},
    }


def _entries(count: int) -> list[dict[str, Any]]:
    return [{"n": n} for n in range(count)]


def _records(count: int, length: int | None = None) -> Records:
    source = [(n,) for n in range(count)]
    return Records(source, count if length is None else length, lambda entry: {"n": entry[0]})


def test_a_state_does_not_change_when_the_session_moves_on() -> None:
    session = reference.start_session(_loop(artifacts=True))
    session.set_artifact("notes", "x")
    session.send("Next")
    state = session.state()
    session.send("Next")
    session.set_artifact("notes", "y")
    session.send("Next")
    assert state["history"] == [{"from": "a", "to": "b", "event": "Next"}]
    assert state["artifact_history"] == [
        {"from_state": "a", "to_state": "b", "event": "Next", "values": {"notes": "x"}}
    ]
    assert session.state()["artifact_history"][-1]["values"] == {"notes": "xy"}
    assert len(session.state()["history"]) == 3


def test_a_state_read_after_a_restore_keeps_what_it_saw() -> None:
    pack = _loop()
    session = reference.start_session(pack)
    session.send("Next")
    state = session.state()
    restored = reference.restore_session(pack, session.snapshot())
    restored.send("Next")
    assert len(state["history"]) == 1
    assert state["history"] == session.state()["history"]


def test_changing_a_read_state_changes_neither_the_session_nor_another_state() -> None:
    session = reference.start_session(_loop(artifacts=True))
    session.set_artifact("notes", "x")
    session.send("Next")
    session.send("Next")
    first = session.state()
    first["history"][0]["to"] = "elsewhere"
    first["history"].append({"mine": True})
    first["artifact_history"][0]["values"]["notes"] = "changed"
    second = session.state()
    assert second["history"][0]["to"] == "b"
    assert len(second["history"]) == 2
    assert [entry["values"] for entry in second["artifact_history"]] == [{"notes": "x"}] * 2
    assert session.snapshot()["artifact_history"][0][3] == {"notes": "x"}


def test_entries_are_made_once_on_first_read_and_length_needs_none() -> None:
    made: list[int] = []

    def make(entry: tuple[int]) -> dict[str, Any]:
        made.append(entry[0])
        return {"n": entry[0]}

    records = Records([(0,), (1,), (2,)], 2, make)
    assert len(records) == 2
    assert records  # truth is the length
    assert made == []
    assert records[1] == {"n": 1}
    assert list(records) == _entries(2)
    assert made == [0, 1]


@pytest.mark.parametrize(
    "read",
    [
        list,
        tuple,
        lambda r: json.loads(json.dumps(r)),
        lambda r: json.loads(json.dumps(r, indent=2)),
        lambda r: pickle.loads(pickle.dumps(r)),
        copy.copy,
        copy.deepcopy,
        lambda r: [*r],
        lambda r: [] + r,  # noqa: RUF005 (list's own concatenation, reflected)
        lambda r: r + [],  # noqa: RUF005 (the concatenation itself is under test)
        lambda r: r.copy(),
        lambda r: r[:],
        lambda r: list(reversed(list(reversed(r)))),
        lambda r: eval(repr(r)),
    ],
)
def test_every_way_of_reading_sees_the_entries(read: Any) -> None:
    assert list(read(_records(3))) == _entries(3)


def test_a_copy_or_a_pickle_is_a_plain_list() -> None:
    assert type(copy.copy(_records(2))) is list
    assert type(pickle.loads(pickle.dumps(_records(2)))) is list


def test_only_the_first_length_entries_are_seen() -> None:
    records = _records(5, length=2)
    assert records == _entries(2)
    assert json.dumps(records) == '[{"n": 0}, {"n": 1}]'


@pytest.mark.parametrize("other", [_entries(3), _entries(2), _entries(4)])
def test_comparisons_agree_with_a_plain_list(other: list[dict[str, int]]) -> None:
    def key(value: Any) -> list[int]:
        return [entry["n"] for entry in value]

    plain = _entries(3)
    assert (_records(3) == other) is (plain == other)
    assert (other == _records(3)) is (other == plain)
    assert (_records(3) != other) is (plain != other)
    assert _records(3) == _records(3)
    assert (_records(3) == _records(len(other))) is (plain == other)
    assert (key(_records(3)) < key(other)) is (key(plain) < key(other))


def test_writes_go_to_the_callers_own_list() -> None:
    source = [(0,), (1,)]
    records = Records(source, 2, lambda entry: {"n": entry[0]})
    records.append({"n": 9})
    records += [{"n": 10}]
    records.sort(key=lambda entry: -entry["n"])
    assert records == [{"n": 10}, {"n": 9}, {"n": 1}, {"n": 0}]
    assert source == [(0,), (1,)]
    empty = Records(source, 2, lambda entry: {"n": entry[0]})
    empty.clear()
    assert empty == []
    assert len(empty) == 0
