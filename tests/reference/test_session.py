"""Unit tests of the session state machine against SEMANTICS.md section 3 (X1-X16).

Every rule and rejection code has a test that triggers it and a near miss that does not.
Sessions run on a :class:`reference.ManualClock`, so nothing here depends on real time.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import reference
from reference import ManualClock, Rejection, Session

# -- helpers -----------------------------------------------------------------------------------


def make_pack(
    states: dict[str, dict[str, Any]],
    *,
    entry: str | None = None,
    version: Any = 2,
    budget: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A valid pack around ``states``; each state gets ``prompt_task: p`` unless it names one."""
    workflow: dict[str, Any] = {
        "version": version,
        "entry": entry if entry is not None else next(iter(states)),
        "states": {name: {"prompt_task": "p", **spec} for name, spec in states.items()},
    }
    if budget is not None:
        workflow["engine"] = {"budget": budget}
    return {
        "id": "unit",
        "name": "Unit",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "p": {"id": "p", "name": "P", "version": "1.0.0", "system_template": "Work."},
            "q": {"id": "q", "name": "Q", "version": "1.0.0", "system_template": "Other."},
        },
        "workflow": workflow,
    }


def start(
    states: dict[str, dict[str, Any]], *, clock: ManualClock | None = None, **options: Any
) -> Session:
    pack = make_pack(states, **options)
    errors = [d for d in reference.validate(pack) if d.severity == "error"]
    assert errors == [], errors  # the helper must build valid packs
    return reference.start_session(pack, clock=clock or ManualClock())


def reject(action: Callable[[], object]) -> Rejection:
    with pytest.raises(Rejection) as caught:
        action()
    return caught.value


def observable(session: Session) -> dict[str, Any]:
    data = session.state()
    del data["elapsed_sec"]
    return data


FROZEN_FIELDS = ("current_state", "visit_counts", "history", "artifacts", "artifact_history")


def frozen(session: Session) -> dict[str, Any]:
    """What a rejected event must leave unchanged (X4)."""
    data = session.state()
    return {key: data[key] for key in (*FROZEN_FIELDS, "tool_calls")}


LOOP = {  # a -> b -> a ..., b -> done
    "a": {"on_event": {"Next": "b"}},
    "b": {"on_event": {"Again": "a", "Finish": "done"}},
    "done": {"terminal": True},
}

# RFC 0009 Example 3 as shipped (test_rfc_examples.py checks it against the RFC text).
EXAMPLE_3 = (
    Path(__file__).resolve().parents[2] / "examples/rfc/rfc0009-example3-self-correcting.json"
)


# -- X1: start ---------------------------------------------------------------------------------


def test_start_enters_entry_and_counts_it_as_a_visit() -> None:
    session = start(LOOP, entry="b")
    state = session.state()
    assert state.pop("exhausted_by", None) is None  # documented in docs/semantics.md
    assert state.pop("prompt_variables") == {"artifacts": {}}
    assert state == {
        "current_state": "b",
        "status": "active",
        "terminal": False,
        "available_events": ["Again", "Finish"],
        "prompt_task": "p",
        "visit_counts": {"b": 1},
        "history": [],
        "artifacts": {},
        "artifact_history": [],
        "tool_calls": 0,
        "elapsed_sec": 0.0,
        "turn": "user",  # X17
        "reply": "",
    }
    assert session.current_state == "b"
    assert session.status == "active"


def test_start_reports_the_entry_prompt_task() -> None:
    session = start({"a": {"prompt_task": "q", "on_event": {"Go": "b"}}, "b": {}})
    assert session.state()["prompt_task"] == "q"
    session.send("Go")
    assert session.state()["prompt_task"] == "p"


def test_clock_starts_at_session_start() -> None:
    clock = ManualClock(start=100.0)
    session = start(LOOP, clock=clock)
    assert session.elapsed() == 0.0
    clock.advance(2.5)
    assert session.elapsed() == 2.5
    assert session.state()["elapsed_sec"] == 2.5


def test_available_events_are_sorted() -> None:
    session = start({"a": {"on_event": {"Zed": "b", "Alpha": "b", "Mid": "b"}}, "b": {}})
    assert session.available_events() == ["Alpha", "Mid", "Zed"]
    assert session.state()["available_events"] == ["Alpha", "Mid", "Zed"]


# -- X2: terminal states -----------------------------------------------------------------------


def test_terminal_entry_state_completes_at_start() -> None:
    session = start({"only": {"terminal": True}})
    assert session.status == "completed"
    assert session.state()["terminal"] is True
    assert session.state()["visit_counts"] == {"only": 1}
    assert session.available_events() == []


def test_entry_without_on_event_is_terminal() -> None:
    session = start({"only": {}})
    assert session.status == "completed"
    assert session.state()["terminal"] is True


def test_entry_with_empty_on_event_is_terminal_even_if_terminal_false() -> None:
    session = start({"only": {"on_event": {}, "terminal": False}})
    assert session.status == "completed"
    assert reject(lambda: session.send("Anything")).code == "terminal-state"


def test_entry_with_events_and_no_terminal_flag_is_active() -> None:
    session = start({"a": {"on_event": {"Go": "a"}}})
    assert session.status == "active"
    assert session.state()["terminal"] is False


def test_terminal_true_with_on_event_accepts_no_events() -> None:
    session = start(
        {
            "a": {"on_event": {"Go": "end"}},
            "end": {"terminal": True, "on_event": {"Back": "a"}},
        }
    )
    session.send("Go")
    assert session.status == "completed"
    assert session.state()["terminal"] is True
    assert session.available_events() == []
    before = session.state()
    rejection = reject(lambda: session.send("Back"))
    assert rejection.code == "terminal-state"
    assert session.state() == before


def test_terminal_false_with_on_event_accepts_its_events() -> None:
    session = start(
        {"a": {"on_event": {"Go": "mid"}}, "mid": {"terminal": False, "on_event": {"Back": "a"}}}
    )
    session.send("Go")
    assert session.status == "active"
    assert session.send("Back").to_state == "a"


def test_entering_state_without_on_event_completes() -> None:
    session = start(LOOP)
    session.send("Next")
    assert session.status == "active"
    transition = session.send("Finish")
    assert transition.to_state == "done"
    assert session.status == "completed"
    assert session.state()["prompt_task"] == "p"  # terminal states still run their prompt


# -- X3: statuses ------------------------------------------------------------------------------


def test_completed_session_rejects_every_event_with_terminal_state() -> None:
    session = start({"a": {"on_event": {"Go": "end"}}, "end": {}})
    session.send("Go")
    before = session.state()
    for event in ("Go", "Unknown", ""):
        for source in ("host", "agent"):
            rejection = reject(lambda e=event, s=source: session.send(e, source=s))
            assert rejection.code == "terminal-state"
    assert session.state() == before


def test_budget_exhausted_session_rejects_every_later_event() -> None:
    session = start({"a": {"on_event": {"Go": "a"}}}, budget={"max_total_visits": 1})
    assert reject(lambda: session.send("Go")).code == "budget-exhausted"
    assert session.status == "budget_exhausted"
    before = session.state()
    for event in ("Go", "Unknown"):
        assert reject(lambda e=event: session.send(e)).code == "budget-exhausted"
    assert session.state() == before
    assert session.available_events() == []


@pytest.mark.parametrize("limit", ["max_total_visits", "max_tool_calls", "max_wall_time_sec"])
def test_later_rejections_name_the_budget_limit_that_ended_the_session(limit: str) -> None:
    clock = ManualClock()
    budget = {"max_total_visits": 100, "max_tool_calls": 100, "max_wall_time_sec": 100, limit: 1}
    session = start({"a": {"on_event": {"Go": "a"}}}, budget=budget, clock=clock)
    session.record_tool_calls(1)
    clock.advance(1)
    assert reject(lambda: session.send("Go")).limit == limit
    session.record_tool_calls(200)  # every other limit is reached now: the first one stays
    clock.advance(200)
    for _ in range(2):
        rejection = reject(lambda: session.send("Go"))
        assert rejection.code == "budget-exhausted"
        assert rejection.limit == limit


def test_later_rejections_after_max_visits_exceeded_name_no_limit() -> None:
    session = start({"a": {"max_visits": 1, "on_event": {"Go": "a"}}}, budget={"max_tool_calls": 9})
    assert reject(lambda: session.send("Go")).code == "max-visits-exceeded"
    session.record_tool_calls(9)
    rejection = reject(lambda: session.send("Go"))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit is None


def test_state_reports_the_budget_limit_that_ended_the_session() -> None:
    session = start({"a": {"on_event": {"Go": "a"}}}, budget={"max_total_visits": 1})
    reject(lambda: session.send("Go"))
    assert session.state().get("exhausted_by") == "max_total_visits"


def test_send_rejects_an_unknown_source_without_changing_anything() -> None:
    session = start(LOOP)
    before = session.state()
    with pytest.raises(ValueError, match="source"):
        session.send("Next", source="robot")  # type: ignore[arg-type]
    assert session.state() == before


# -- X4: order and atomicity of rejections ----------------------------------------------------


def test_unknown_event_is_rejected_and_status_stays_active() -> None:
    session = start(LOOP)
    rejection = reject(lambda: session.send("Again"))  # exists on b, not on a
    assert rejection.code == "unknown-event"
    assert rejection.limit is None
    assert session.status == "active"
    assert session.current_state == "a"


def test_known_event_is_accepted() -> None:
    session = start(LOOP)
    assert session.send("Next").to_state == "b"


def test_event_names_are_case_sensitive() -> None:
    session = start(LOOP)
    assert reject(lambda: session.send("next")).code == "unknown-event"


def test_budget_check_precedes_unknown_event() -> None:
    session = start(LOOP, budget={"max_total_visits": 1})
    rejection = reject(lambda: session.send("NoSuchEvent"))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit == "max_total_visits"
    assert session.status == "budget_exhausted"


def test_unknown_event_below_budget_is_unknown_event() -> None:
    session = start(LOOP, budget={"max_total_visits": 2})
    assert reject(lambda: session.send("NoSuchEvent")).code == "unknown-event"
    assert session.status == "active"


def test_budget_check_precedes_event_source_check() -> None:
    session = start(
        {"a": {"orchestration": "external", "on_event": {"Go": "a"}}},
        budget={"max_total_visits": 1},
    )
    assert reject(lambda: session.send("Go", source="agent")).code == "budget-exhausted"


def test_terminal_status_precedes_budget_check() -> None:
    session = start({"only": {}}, budget={"max_total_visits": 1})
    assert reject(lambda: session.send("Go")).code == "terminal-state"
    assert session.status == "completed"


def _artifact_loop(**budget: int) -> Session:
    states = {
        "a": {
            "max_visits": 2,
            "artifacts": {"log": {"type": "text/plain", "mode": "append"}},
            "on_event": {"Loop": "a", "Out": "x"},
        },
        "x": {"orchestration": "external", "on_event": {"Back": "a"}},
        "end": {"terminal": True},
    }
    session = start(states, budget=budget or None)
    session.set_artifact("log", "one")
    return session


def _unknown_event() -> tuple[Session, Callable[[], object]]:
    session = _artifact_loop()
    return session, lambda: session.send("Nope")


def _source_not_allowed() -> tuple[Session, Callable[[], object]]:
    session = _artifact_loop()
    session.send("Out")
    session.set_artifact("log", "two")
    return session, lambda: session.send("Back", source="agent")


def _max_visits_exceeded() -> tuple[Session, Callable[[], object]]:
    session = _artifact_loop()
    session.send("Loop")  # a: 2 visits, its limit; no on_max_visits
    session.set_artifact("log", "two")
    return session, lambda: session.send("Loop")


def _budget_exhausted() -> tuple[Session, Callable[[], object]]:
    session = _artifact_loop(max_total_visits=3)
    session.send("Out")
    session.send("Back")
    return session, lambda: session.send("Out")


def _terminal_state() -> tuple[Session, Callable[[], object]]:
    session = start(
        {
            "a": {
                "artifacts": {"log": {"type": "text/plain"}},
                "on_event": {"Go": "end"},
            },
            "end": {"terminal": True, "on_event": {"Go": "a"}},
        }
    )
    session.set_artifact("log", "one")
    session.send("Go")
    return session, lambda: session.send("Go")


def _artifact_undeclared() -> tuple[Session, Callable[[], object]]:
    session = _artifact_loop()
    session.send("Out")
    return session, lambda: session.set_artifact("ghost", "boo")


@pytest.mark.parametrize(
    ("scenario", "code", "status_after"),
    [
        (_unknown_event, "unknown-event", "active"),
        (_source_not_allowed, "event-source-not-allowed", "active"),
        (_max_visits_exceeded, "max-visits-exceeded", "budget_exhausted"),
        (_budget_exhausted, "budget-exhausted", "budget_exhausted"),
        (_terminal_state, "terminal-state", "completed"),
        (_artifact_undeclared, "artifact-undeclared", "active"),
    ],
    ids=lambda value: value if isinstance(value, str) else value.__name__.strip("_"),
)
def test_rejection_leaves_session_data_unchanged(
    scenario: Callable[[], tuple[Session, Callable[[], object]]], code: str, status_after: str
) -> None:
    session, action = scenario()
    before = frozen(session)
    assert before["history"] or before["artifacts"]  # the scenario has something to lose
    assert reject(action).code == code
    assert frozen(session) == before
    assert session.status == status_after


# -- X5: loop guard ----------------------------------------------------------------------------


def test_max_visits_allows_exactly_max_visits_entries() -> None:
    session = start(
        {"a": {"on_event": {"Go": "b"}}, "b": {"max_visits": 3, "on_event": {"Back": "a"}}}
    )
    for _ in range(3):
        session.send("Go")
        session.send("Back")
    assert session.state()["visit_counts"] == {"a": 4, "b": 3}
    rejection = reject(lambda: session.send("Go"))
    assert rejection.code == "max-visits-exceeded"
    assert rejection.limit is None
    assert session.status == "budget_exhausted"
    assert session.current_state == "a"
    assert session.state()["visit_counts"] == {"a": 4, "b": 3}


def test_max_visits_without_redirect_ends_workflow_and_later_events_are_budget_exhausted() -> None:
    session = start({"a": {"max_visits": 1, "on_event": {"Go": "a"}}})
    assert reject(lambda: session.send("Go")).code == "max-visits-exceeded"
    assert session.status == "budget_exhausted"
    assert session.available_events() == []
    assert reject(lambda: session.send("Go")).code == "budget-exhausted"


def test_redirect_enters_on_max_visits_and_reports_it() -> None:
    session = start(
        {
            "a": {"on_event": {"Go": "b"}},
            "b": {"max_visits": 1, "on_max_visits": "c", "on_event": {"Back": "a"}},
            "c": {"on_event": {"Back": "a"}},
        }
    )
    first = session.send("Go")
    assert first.to_dict() == {"from": "a", "to": "b", "event": "Go"}
    assert first.redirected is False
    assert first.original_target is None
    session.send("Back")
    second = session.send("Go")
    assert second.to_dict() == {
        "from": "a",
        "to": "c",
        "event": "Go",
        "redirected": True,
        "original_target": "b",
    }
    assert (second.from_state, second.to_state, second.event) == ("a", "c", "Go")
    assert second.redirected is True
    assert second.original_target == "b"
    state = session.state()
    assert state["current_state"] == "c"
    assert state["history"][-1] == {"from": "a", "to": "c", "event": "Go"}
    assert state["visit_counts"] == {"a": 2, "b": 1, "c": 1}
    assert session.status == "active"


def test_redirect_into_terminal_state_completes() -> None:
    session = example_3_session()
    session.send("Error")
    session.send("Error")
    transition = session.send("Error")
    assert transition.redirected is True
    assert transition.to_state == "give_up"
    assert session.status == "completed"


def test_redirect_chain_follows_each_guard() -> None:
    session = start(
        {
            "x": {"on_event": {"ToA": "a", "ToB": "b"}},
            "a": {"max_visits": 1, "on_max_visits": "b", "on_event": {"Back": "x"}},
            "b": {"max_visits": 1, "on_max_visits": "c", "on_event": {"Back": "x"}},
            "c": {"on_event": {"Back": "x"}},
        }
    )
    session.send("ToA")
    session.send("Back")
    session.send("ToB")
    session.send("Back")
    transition = session.send("ToA")  # a at limit -> b at limit -> c
    assert transition.to_dict() == {
        "from": "x",
        "to": "c",
        "event": "ToA",
        "redirected": True,
        "original_target": "a",
    }
    assert session.state()["visit_counts"] == {"x": 3, "a": 1, "b": 1, "c": 1}
    assert session.state()["history"][-1]["to"] == "c"


def test_redirect_chain_stops_at_first_state_below_its_limit() -> None:
    session = start(
        {
            "x": {"on_event": {"ToA": "a"}},
            "a": {"max_visits": 1, "on_max_visits": "b", "on_event": {"Back": "x"}},
            "b": {"max_visits": 1, "on_max_visits": "c", "on_event": {"Back": "x"}},
            "c": {"on_event": {"Back": "x"}},
        }
    )
    session.send("ToA")
    session.send("Back")
    assert session.send("ToA").to_state == "b"  # b has room: no further redirect


def test_redirect_chain_returning_to_a_tried_state_ends_workflow() -> None:
    session = start(
        {
            "x": {"on_event": {"ToA": "a", "ToB": "b"}},
            "a": {"max_visits": 1, "on_max_visits": "b", "on_event": {"Back": "x"}},
            "b": {"max_visits": 1, "on_max_visits": "a", "on_event": {"Back": "x"}},
        }
    )
    session.send("ToA")
    session.send("Back")
    session.send("ToB")
    session.send("Back")
    before = frozen(session)
    assert reject(lambda: session.send("ToA")).code == "max-visits-exceeded"
    assert session.status == "budget_exhausted"
    assert frozen(session) == before


def test_redirect_cycle_with_room_left_still_redirects() -> None:
    states = {
        "x": {"on_event": {"ToA": "a"}},
        "a": {"max_visits": 1, "on_max_visits": "b", "on_event": {"Back": "x"}},
        "b": {"max_visits": 1, "on_max_visits": "a", "on_event": {"Back": "x"}},
    }
    session = start(states)
    session.send("ToA")
    session.send("Back")
    assert session.send("ToA").to_state == "b"


def test_self_targeting_on_max_visits_ends_workflow() -> None:
    session = start({"a": {"max_visits": 2, "on_max_visits": "a", "on_event": {"Go": "a"}}})
    session.send("Go")  # the second entry: allowed
    before = frozen(session)
    assert reject(lambda: session.send("Go")).code == "max-visits-exceeded"
    assert session.status == "budget_exhausted"
    assert frozen(session) == before


def test_max_visits_on_entry_state_counts_the_entry() -> None:
    session = start(
        {
            "a": {"max_visits": 1, "on_max_visits": "done", "on_event": {"Again": "a"}},
            "done": {"terminal": True},
        }
    )
    transition = session.send("Again")
    assert transition.redirected is True
    assert transition.original_target == "a"
    assert transition.to_state == "done"
    assert session.state()["visit_counts"] == {"a": 1, "done": 1}


def test_max_visits_two_on_entry_allows_one_self_transition() -> None:
    session = start(
        {
            "a": {"max_visits": 2, "on_max_visits": "done", "on_event": {"Again": "a"}},
            "done": {"terminal": True},
        }
    )
    assert session.send("Again").redirected is False
    assert session.state()["visit_counts"] == {"a": 2}
    assert session.send("Again").to_state == "done"


def test_loop_guard_applies_to_target_not_to_current_state() -> None:
    # a is at its limit (the entry visit), but only entering a state is guarded.
    session = start(
        {"a": {"max_visits": 1, "on_event": {"Go": "b"}}, "b": {"on_event": {"Stay": "b"}}}
    )
    assert session.send("Go").to_state == "b"
    assert session.send("Stay").to_state == "b"


# -- X6: transitions ---------------------------------------------------------------------------


def test_transition_updates_history_counts_and_current_state() -> None:
    session = start(LOOP)
    transition = session.send("Next")
    assert transition.to_dict() == {"from": "a", "to": "b", "event": "Next"}
    session.send("Again")
    session.send("Next")
    state = session.state()
    assert state["current_state"] == "b"
    assert state["visit_counts"] == {"a": 2, "b": 2}
    assert state["history"] == [
        {"from": "a", "to": "b", "event": "Next"},
        {"from": "b", "to": "a", "event": "Again"},
        {"from": "a", "to": "b", "event": "Next"},
    ]


def test_self_transition_is_an_ordinary_transition() -> None:
    session = start({"a": {"on_event": {"Stay": "a", "Leave": "b"}}, "b": {}})
    transition = session.send("Stay")
    assert transition.to_dict() == {"from": "a", "to": "a", "event": "Stay"}
    assert transition.redirected is False
    assert session.state()["visit_counts"] == {"a": 2}
    assert session.state()["history"] == [{"from": "a", "to": "a", "event": "Stay"}]
    assert session.status == "active"


def test_two_events_to_the_same_target() -> None:
    session = start({"a": {"on_event": {"One": "b", "Two": "b"}}, "b": {"on_event": {"Back": "a"}}})
    session.send("One")
    session.send("Back")
    session.send("Two")
    assert [h["event"] for h in session.state()["history"]] == ["One", "Back", "Two"]


# -- X7: history -------------------------------------------------------------------------------


def test_history_is_not_capped() -> None:
    session = start({"a": {"on_event": {"Stay": "a"}}})
    for _ in range(1500):
        session.send("Stay")
    history = session.state()["history"]
    assert len(history) == 1500
    assert session.state()["visit_counts"] == {"a": 1501}


# -- X8: budgets -------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_max_total_visits_n_allows_n_minus_one_transitions(limit: int) -> None:
    session = start({"a": {"on_event": {"Stay": "a"}}}, budget={"max_total_visits": limit})
    for _ in range(limit - 1):
        session.send("Stay")
    assert session.status == "active"
    before = frozen(session)
    rejection = reject(lambda: session.send("Stay"))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit == "max_total_visits"
    assert session.status == "budget_exhausted"
    assert frozen(session) == before
    assert sum(session.state()["visit_counts"].values()) == limit


def test_redirected_entries_count_toward_max_total_visits() -> None:
    session = start(
        {
            "a": {"on_event": {"Go": "b"}},
            "b": {"max_visits": 1, "on_max_visits": "c", "on_event": {"Back": "a"}},
            "c": {"on_event": {"Back": "a"}},
        },
        budget={"max_total_visits": 4},
    )
    session.send("Go")
    session.send("Back")
    assert session.send("Go").redirected is True  # the 4th visit, into c
    assert reject(lambda: session.send("Back")).limit == "max_total_visits"


def test_budget_only_stops_the_next_transition() -> None:
    session = start({"a": {"on_event": {"Stay": "a"}}}, budget={"max_total_visits": 2})
    session.send("Stay")  # the sum is now 2: reached, but the state is not interrupted
    assert session.status == "active"
    assert session.available_events() == ["Stay"]
    assert reject(lambda: session.send("Stay")).code == "budget-exhausted"


def test_last_allowed_transition_into_terminal_state_completes() -> None:
    session = start({"a": {"on_event": {"Done": "end"}}, "end": {}}, budget={"max_total_visits": 2})
    session.send("Done")
    assert session.status == "completed"
    assert reject(lambda: session.send("Done")).code == "terminal-state"


def test_max_tool_calls_at_limit_rejects() -> None:
    session = start({"a": {"on_event": {"Stay": "a"}}}, budget={"max_tool_calls": 3})
    session.record_tool_calls(2)
    session.record_tool_calls(1)
    assert session.state()["tool_calls"] == 3
    rejection = reject(lambda: session.send("Stay"))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit == "max_tool_calls"
    assert session.status == "budget_exhausted"


def test_max_tool_calls_one_below_limit_accepts() -> None:
    session = start({"a": {"on_event": {"Stay": "a"}}}, budget={"max_tool_calls": 3})
    session.record_tool_calls(2)
    assert session.send("Stay").to_state == "a"
    assert session.status == "active"


def test_tool_calls_over_limit_are_recorded_and_stop_the_next_event() -> None:
    session = start({"a": {"on_event": {"Stay": "a"}}}, budget={"max_tool_calls": 1})
    session.record_tool_calls(5)  # recording never raises; the budget stops the next event
    assert session.state()["tool_calls"] == 5
    assert session.status == "active"
    assert reject(lambda: session.send("Stay")).limit == "max_tool_calls"


def test_tool_calls_without_budget_never_stop() -> None:
    session = start({"a": {"on_event": {"Stay": "a"}}})
    session.record_tool_calls(10_000)
    assert session.send("Stay").to_state == "a"


def test_record_tool_calls_rejects_bad_counts() -> None:
    session = start(LOOP)
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="tool call count"):
            session.record_tool_calls(bad)  # type: ignore[arg-type]
    session.record_tool_calls(0)
    assert session.state()["tool_calls"] == 0


def test_max_wall_time_exactly_at_limit_rejects() -> None:
    clock = ManualClock()
    session = start(
        {"a": {"on_event": {"Stay": "a"}}}, budget={"max_wall_time_sec": 10}, clock=clock
    )
    clock.advance(10)
    rejection = reject(lambda: session.send("Stay"))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit == "max_wall_time_sec"
    assert session.status == "budget_exhausted"


def test_max_wall_time_just_below_limit_accepts() -> None:
    clock = ManualClock()
    session = start(
        {"a": {"on_event": {"Stay": "a"}}}, budget={"max_wall_time_sec": 10}, clock=clock
    )
    clock.advance(9.5)
    assert session.send("Stay").to_state == "a"
    clock.advance(0.5)  # exactly 10.0 now
    assert reject(lambda: session.send("Stay")).limit == "max_wall_time_sec"


def test_wall_time_is_measured_from_session_start() -> None:
    clock = ManualClock(start=1_000.0)
    session = start(
        {"a": {"on_event": {"Stay": "a"}}}, budget={"max_wall_time_sec": 5}, clock=clock
    )
    clock.advance(4)
    assert session.send("Stay").to_state == "a"


@pytest.mark.parametrize(
    ("visits", "tools", "seconds", "expected"),
    [
        (True, True, True, "max_total_visits"),
        (True, True, False, "max_total_visits"),
        (True, False, True, "max_total_visits"),
        (False, True, True, "max_tool_calls"),
        (False, True, False, "max_tool_calls"),
        (False, False, True, "max_wall_time_sec"),
    ],
)
def test_limit_order_when_several_budgets_are_reached(
    visits: bool, tools: bool, seconds: bool, expected: str
) -> None:
    clock = ManualClock()
    session = start(
        {"a": {"on_event": {"Stay": "a"}}},
        budget={"max_total_visits": 2, "max_tool_calls": 2, "max_wall_time_sec": 2},
        clock=clock,
    )
    if visits:
        session.send("Stay")
    if tools:
        session.record_tool_calls(2)
    if seconds:
        clock.advance(2)
    rejection = reject(lambda: session.send("Stay"))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit == expected


def test_no_budget_limit_reached_accepts() -> None:
    clock = ManualClock()
    session = start(
        {"a": {"on_event": {"Stay": "a"}}},
        budget={"max_total_visits": 3, "max_tool_calls": 2, "max_wall_time_sec": 2},
        clock=clock,
    )
    session.record_tool_calls(1)
    clock.advance(1)
    assert session.send("Stay").to_state == "a"


def test_budget_is_checked_before_loop_guard() -> None:
    session = start(
        {"a": {"max_visits": 1, "on_event": {"Stay": "a"}}}, budget={"max_total_visits": 1}
    )
    rejection = reject(lambda: session.send("Stay"))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit == "max_total_visits"


# -- X9-X11: artifacts -------------------------------------------------------------------------


def _artifact_states(mode: str) -> dict[str, dict[str, Any]]:
    return {
        "work": {
            "artifacts": {"out": {"type": "text/plain", "mode": mode}},
            "on_event": {"Check": "check"},
        },
        "check": {"on_event": {"Retry": "work", "Done": "end"}},
        "end": {"terminal": True},
    }


def test_replace_overwrites_across_loops() -> None:
    session = start(_artifact_states("replace"))
    session.set_artifact("out", "first")
    session.send("Check")
    assert session.state()["artifacts"] == {"out": "first"}  # persists across transitions
    session.send("Retry")
    session.set_artifact("out", "second")
    assert session.state()["artifacts"] == {"out": "second"}


def test_replace_is_the_default_mode() -> None:
    session = start({"a": {"artifacts": {"out": {"type": "text/plain"}}, "on_event": {"Go": "a"}}})
    session.set_artifact("out", "one")
    session.set_artifact("out", "two")
    assert session.state()["artifacts"] == {"out": "two"}


def test_append_accumulates_across_loops_without_separator() -> None:
    session = start(_artifact_states("append"))
    session.set_artifact("out", "first")
    session.send("Check")
    session.send("Retry")
    session.set_artifact("out", "second")
    session.set_artifact("out", "")
    session.set_artifact("out", "third")
    assert session.state()["artifacts"] == {"out": "firstsecondthird"}


def test_append_to_an_unset_artifact_starts_from_empty() -> None:
    session = start(_artifact_states("append"))
    session.set_artifact("out", "x")
    assert session.state()["artifacts"] == {"out": "x"}


def test_artifacts_are_shared_across_states() -> None:
    session = start(
        {
            "implement": {
                "artifacts": {"commit_sha": {"type": "text/plain"}},
                "on_event": {"Review": "review"},
            },
            "review": {"on_event": {"Fix": "implement"}},  # declares nothing, reads commit_sha
        }
    )
    session.set_artifact("commit_sha", "abc123")
    session.send("Review")
    assert session.state()["artifacts"] == {"commit_sha": "abc123"}
    session.set_artifact("commit_sha", "def456")  # writable from a non-declaring state
    assert session.state()["artifacts"] == {"commit_sha": "def456"}


def test_mode_comes_from_current_state_declaration() -> None:
    session = start(
        {
            "zeta": {
                "artifacts": {"log": {"type": "text/plain", "mode": "append"}},
                "on_event": {"Go": "alpha"},
            },
            "alpha": {
                "artifacts": {"log": {"type": "text/plain", "mode": "replace"}},
                "on_event": {"Go": "mid"},
            },
            "mid": {"on_event": {"Go": "zeta"}},
        }
    )
    session.set_artifact("log", "a")
    session.set_artifact("log", "b")
    assert session.state()["artifacts"]["log"] == "ab"  # zeta: append
    session.send("Go")
    session.set_artifact("log", "c")
    assert session.state()["artifacts"]["log"] == "c"  # alpha: replace
    session.send("Go")
    session.set_artifact("log", "d")
    # mid declares nothing: the first declaration in document order (zeta: append) wins,
    # not the alphabetical first (alpha: replace).
    assert session.state()["artifacts"]["log"] == "cd"


def test_mode_fallback_uses_first_declaring_state_replace() -> None:
    session = start(
        {
            "first": {
                "artifacts": {"log": {"type": "text/plain"}},
                "on_event": {"Go": "other"},
            },
            "second": {
                "artifacts": {"log": {"type": "text/plain", "mode": "append"}},
                "on_event": {"Go": "other"},
            },
            "other": {"on_event": {"Go": "first"}},
        },
        entry="other",
    )
    session.set_artifact("log", "a")
    session.set_artifact("log", "b")
    assert session.state()["artifacts"]["log"] == "b"


def test_undeclared_artifact_is_rejected() -> None:
    session = start(_artifact_states("replace"))
    session.set_artifact("out", "kept")
    rejection = reject(lambda: session.set_artifact("ghost", "x"))
    assert rejection.code == "artifact-undeclared"
    assert session.state()["artifacts"] == {"out": "kept"}
    assert session.status == "active"


def test_declared_artifact_on_unvisited_state_is_accepted() -> None:
    session = start(
        {
            "a": {"on_event": {"Go": "b"}},
            "b": {"artifacts": {"note": {"type": "text/plain"}}},
        }
    )
    session.set_artifact("note", "early")
    assert session.state()["artifacts"] == {"note": "early"}


def test_artifact_values_must_be_strings() -> None:
    session = start(_artifact_states("replace"))
    with pytest.raises(TypeError, match="string"):
        session.set_artifact("out", 42)  # type: ignore[arg-type]
    assert session.state()["artifacts"] == {}


# -- X12: artifact history ---------------------------------------------------------------------


def test_artifact_history_is_recorded_at_every_transition() -> None:
    session = start(
        {
            "a": {
                "artifacts": {
                    "log": {"type": "text/plain", "mode": "append"},
                    "sha": {"type": "text/plain"},
                },
                "on_event": {"Next": "b"},
            },
            "b": {"max_visits": 1, "on_max_visits": "end", "on_event": {"Back": "a"}},
            "end": {"terminal": True},
        }
    )
    session.send("Next")  # no values yet: still recorded
    session.set_artifact("log", "x")
    session.send("Back")
    session.set_artifact("sha", "abc")
    session.set_artifact("log", "y")
    session.send("Next")  # redirected to end
    assert session.state()["artifact_history"] == [
        {"from_state": "a", "to_state": "b", "event": "Next", "values": {}},
        {"from_state": "b", "to_state": "a", "event": "Back", "values": {"log": "x"}},
        {
            "from_state": "a",
            "to_state": "end",
            "event": "Next",
            "values": {"log": "xy", "sha": "abc"},
        },
    ]


def test_artifact_history_entries_are_copies() -> None:
    session = start(_artifact_states("replace"))
    session.set_artifact("out", "v1")
    session.send("Check")
    session.set_artifact("out", "v2")
    assert session.state()["artifact_history"][0]["values"] == {"out": "v1"}


def test_artifact_history_is_empty_when_no_artifact_is_declared() -> None:
    session = start(LOOP)
    session.send("Next")
    session.send("Again")
    assert session.state()["artifact_history"] == []


def test_artifact_history_is_kept_when_only_an_unvisited_state_declares() -> None:
    session = start(
        {
            "a": {"on_event": {"Go": "a", "Out": "b"}},
            "b": {"artifacts": {"note": {"type": "text/plain"}}},
        }
    )
    session.send("Go")
    assert session.state()["artifact_history"] == [
        {"from_state": "a", "to_state": "a", "event": "Go", "values": {}}
    ]


def test_rejected_event_adds_no_artifact_history() -> None:
    session = start(_artifact_states("replace"))
    session.send("Check")
    reject(lambda: session.send("Nope"))
    assert len(session.state()["artifact_history"]) == 1


# -- X13: orchestration ------------------------------------------------------------------------


@pytest.mark.parametrize("orchestration", [None, "internal", "hybrid"])
def test_agent_events_accepted_in_internal_and_hybrid(orchestration: str | None) -> None:
    state: dict[str, Any] = {"on_event": {"Go": "b"}}
    if orchestration is not None:
        state["orchestration"] = orchestration
    session = start({"a": state, "b": {}})
    assert session.send("Go", source="agent").to_state == "b"


def test_agent_events_accepted_in_composition_state() -> None:
    pack = make_pack({"a": {"on_event": {"Go": "b"}}, "b": {"terminal": True}})
    pack["workflow"]["states"]["a"] = {
        "orchestration": "composition",
        "composition": "c",
        "on_event": {"Go": "b"},
    }
    pack["compositions"] = {
        "c": {"version": 1, "steps": [{"id": "s1", "kind": "prompt", "prompt_task": "p"}]}
    }
    session = reference.start_session(pack, clock=ManualClock())
    assert session.state()["prompt_task"] is None
    assert session.send("Go", source="agent").to_state == "b"


@pytest.mark.parametrize("orchestration", [None, "internal", "external", "hybrid"])
def test_host_events_accepted_in_every_mode(orchestration: str | None) -> None:
    state: dict[str, Any] = {"on_event": {"Go": "b"}}
    if orchestration is not None:
        state["orchestration"] = orchestration
    session = start({"a": state, "b": {}})
    assert session.send("Go", source="host").to_state == "b"


def test_agent_event_in_external_state_is_rejected() -> None:
    session = start({"a": {"orchestration": "external", "on_event": {"Go": "b"}}, "b": {}})
    before = session.state()
    rejection = reject(lambda: session.send("Go", source="agent"))
    assert rejection.code == "event-source-not-allowed"
    assert session.state() == before
    assert session.send("Go").to_state == "b"  # the host may still send it


def test_source_rule_follows_the_current_state() -> None:
    session = start(
        {
            "a": {"on_event": {"Wait": "gate"}},
            "gate": {"orchestration": "external", "on_event": {"Approved": "a"}},
        }
    )
    session.send("Wait", source="agent")  # a is internal; entering an external state is fine
    assert reject(lambda: session.send("Approved", source="agent")).code == (
        "event-source-not-allowed"
    )
    session.send("Approved", source="host")
    assert session.send("Wait", source="agent").to_state == "gate"


# -- X14: persistence --------------------------------------------------------------------------


def test_persistence_has_no_observable_effect() -> None:
    observations = []
    for persistence in (None, "transient", "persistent"):
        states = copy.deepcopy(LOOP)
        if persistence is not None:
            for state in states.values():
                state["persistence"] = persistence
        session = start(states)
        session.send("Next")
        session.send("Again")
        session.send("Next")
        session.send("Finish")
        observations.append(observable(session))
    assert observations[0] == observations[1] == observations[2]


# -- X15: snapshot and restore -----------------------------------------------------------------


SNAPSHOT_STATES = {
    "work": {
        "max_visits": 3,
        "on_max_visits": "review",
        "artifacts": {"log": {"type": "text/plain", "mode": "append"}},
        "on_event": {"Retry": "work", "Review": "review"},
    },
    "review": {
        "artifacts": {"verdict": {"type": "text/plain"}},
        "on_event": {"Rework": "work", "Approve": "done"},
    },
    "done": {"terminal": True},
}


def _run_to_middle(budget: dict[str, int] | None = None) -> tuple[Session, ManualClock]:
    clock = ManualClock()
    session = start(SNAPSHOT_STATES, budget=budget, clock=clock)
    session.set_artifact("log", "a")
    session.send("Retry")
    session.set_artifact("log", "b")
    session.record_tool_calls(2)
    clock.advance(3)
    return session, clock


def _restore(
    snapshot: dict[str, Any], budget: dict[str, int] | None = None
) -> tuple[Session, ManualClock]:
    clock = ManualClock(start=500.0)  # a different absolute time: only elapsed time carries over
    pack = make_pack(copy.deepcopy(SNAPSHOT_STATES), budget=budget)
    return reference.restore_session(pack, snapshot, clock=clock), clock


def test_snapshot_json_round_trip_restores_identical_state() -> None:
    session, _ = _run_to_middle()
    snapshot = json.loads(json.dumps(session.snapshot()))
    restored, _ = _restore(snapshot)
    assert restored.state() == session.state()  # elapsed included: 3.0 on both clocks


def test_restored_session_behaves_identically() -> None:
    script: list[tuple[str, Any]] = [
        ("send", "Retry"),  # work: 3rd visit
        ("artifact", ("log", "c")),
        ("send", "Retry"),  # redirected to review
        ("artifact", ("verdict", "meh")),
        ("send", "Rework"),  # work at its limit, no room: redirected to review again
        ("send", "Nope"),
        ("send", "Approve"),
        ("send", "Rework"),
    ]

    def play(session: Session) -> list[Any]:
        seen = []
        for kind, arg in script:
            try:
                if kind == "send":
                    result: Any = session.send(arg).to_dict()
                else:
                    session.set_artifact(*arg)
                    result = None
            except Rejection as rejection:
                result = (rejection.code, rejection.limit)
            seen.append((result, observable(session)))
        return seen

    session, _ = _run_to_middle()
    restored, _ = _restore(json.loads(json.dumps(session.snapshot())))
    expected = play(session)
    assert play(restored) == expected
    assert expected[4][0]["redirected"] is True  # the script did exercise the guard
    assert expected[-1][0] == ("terminal-state", None)


@pytest.mark.parametrize(
    ("budget", "exhaust", "limit"),
    [
        ({"max_total_visits": 4}, lambda s, c: s.send("Rework"), "max_total_visits"),
        ({"max_tool_calls": 5}, lambda s, c: s.record_tool_calls(3), "max_tool_calls"),
        ({"max_wall_time_sec": 5}, lambda s, c: c.advance(2), "max_wall_time_sec"),
    ],
    ids=["visits", "tool-calls", "wall-time"],
)
def test_restored_session_keeps_budget_usage(
    budget: dict[str, int], exhaust: Callable[[Session, ManualClock], object], limit: str
) -> None:
    # At the snapshot: 2 visits, 2 tool calls, 3 seconds; one more unit of use reaches each limit.
    session, _ = _run_to_middle(budget)
    restored, clock = _restore(json.loads(json.dumps(session.snapshot())), budget)
    assert restored.send("Review").to_state == "review"  # below every limit
    exhaust(restored, clock)
    event = restored.available_events()[0]  # an event the state would otherwise accept
    rejection = reject(lambda: restored.send(event))
    assert rejection.code == "budget-exhausted"
    assert rejection.limit == limit


def test_restored_session_below_budget_accepts() -> None:
    budget = {"max_total_visits": 5, "max_tool_calls": 3, "max_wall_time_sec": 4}
    session, _ = _run_to_middle(budget)
    restored, clock = _restore(json.loads(json.dumps(session.snapshot())), budget)
    clock.advance(0.5)
    assert restored.send("Review").to_state == "review"
    assert restored.send("Rework").to_state == "work"


def test_snapshot_is_independent_of_later_changes() -> None:
    session, _ = _run_to_middle()
    snapshot = session.snapshot()
    frozen_copy = copy.deepcopy(snapshot)
    kept = observable(session)
    session.set_artifact("log", "later")
    session.send("Review")
    session.record_tool_calls(1)
    assert snapshot == frozen_copy
    restored, _ = _restore(snapshot)
    assert observable(restored) == kept


def test_snapshot_of_ended_sessions_restores_their_status() -> None:
    completed = start(LOOP)
    completed.send("Next")
    completed.send("Finish")
    restored = reference.restore_session(make_pack(LOOP), completed.snapshot(), clock=ManualClock())
    assert restored.status == "completed"
    assert reject(lambda: restored.send("Next")).code == "terminal-state"

    exhausted = start({"a": {"max_visits": 1, "on_event": {"Go": "a"}}})
    reject(lambda: exhausted.send("Go"))
    pack = make_pack({"a": {"max_visits": 1, "on_event": {"Go": "a"}}})
    restored = reference.restore_session(pack, exhausted.snapshot(), clock=ManualClock())
    assert restored.status == "budget_exhausted"
    assert reject(lambda: restored.send("Go")).code == "budget-exhausted"


def test_restored_session_keeps_the_limit_that_ended_it() -> None:
    pack = make_pack({"a": {"on_event": {"Go": "a"}}}, budget={"max_tool_calls": 1})
    session = reference.start_session(pack, clock=ManualClock())
    session.record_tool_calls(1)
    reject(lambda: session.send("Go"))
    snapshot = json.loads(json.dumps(session.snapshot()))
    restored = reference.restore_session(pack, snapshot, clock=ManualClock())
    rejection = reject(lambda: restored.send("Go"))
    assert (rejection.code, rejection.limit) == ("budget-exhausted", "max_tool_calls")


def test_restore_accepts_a_compiled_workflow() -> None:
    session, _ = _run_to_middle()
    workflow = reference.compile_workflow(make_pack(SNAPSHOT_STATES))
    restored = reference.restore_session(workflow, session.snapshot(), clock=ManualClock())
    assert observable(restored) == observable(session)


def test_restore_into_a_different_workflow_fails() -> None:
    session, _ = _run_to_middle()
    snapshot = json.loads(json.dumps(session.snapshot()))
    other = copy.deepcopy(SNAPSHOT_STATES)
    other["work"]["max_visits"] = 4  # same states and events, different limits
    with pytest.raises(reference.SnapshotError):
        reference.restore_session(make_pack(other), snapshot, clock=ManualClock())
    with pytest.raises(reference.SnapshotError):
        reference.restore_session(make_pack(LOOP), snapshot, clock=ManualClock())


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.pop("visit_counts"),
        lambda s: s.update(format="something-else/1"),
        lambda s: s.update(status="paused"),
        lambda s: s.update(current_state="nowhere"),
        lambda s: s.update(tool_calls=-1),
        lambda s: s.update(artifacts={"log": 3}),
        lambda s: s.update(history=[["work", "work"]]),
    ],
    ids=["missing-field", "format", "status", "state", "tool-calls", "artifact", "history"],
)
def test_malformed_snapshot_fails(damage: Callable[[dict[str, Any]], object]) -> None:
    session, _ = _run_to_middle()
    snapshot = json.loads(json.dumps(session.snapshot()))
    damage(snapshot)
    with pytest.raises(reference.SnapshotError):
        reference.restore_session(make_pack(SNAPSHOT_STATES), snapshot, clock=ManualClock())


def test_unmodified_snapshot_restores() -> None:  # the near miss of the two tests above
    session, _ = _run_to_middle()
    snapshot = json.loads(json.dumps(session.snapshot()))
    restored = reference.restore_session(make_pack(SNAPSHOT_STATES), snapshot, clock=ManualClock())
    assert observable(restored) == observable(session)


# -- X16 and starting ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 3, 99])
def test_unsupported_workflow_version_refuses_to_start(version: int) -> None:
    pack = make_pack(LOOP, version=version)
    with pytest.raises(Rejection) as caught:
        reference.start_session(pack, clock=ManualClock())
    assert caught.value.code == "workflow-version-unsupported"
    with pytest.raises(Rejection) as caught:
        reference.compile_workflow(pack)
    assert caught.value.code == "workflow-version-unsupported"


@pytest.mark.parametrize("version", [1, 2])
def test_supported_workflow_versions_start(version: int) -> None:
    session = reference.start_session(make_pack(LOOP, version=version), clock=ManualClock())
    assert session.status == "active"


def test_unsupported_workflow_version_written_as_float_refuses_to_start() -> None:
    # 3.0 is an integer to JSON Schema and to the validator: the same refusal as for 3.
    text = json.dumps(make_pack(LOOP, version=3)).replace('"version": 3,', '"version": 3.0,')
    pack = reference.load_pack_string(text, format="json")
    assert pack["workflow"]["version"] == 3.0
    with pytest.raises(Rejection) as caught:
        reference.start_session(pack, clock=ManualClock())
    assert caught.value.code == "workflow-version-unsupported"


def test_supported_workflow_version_written_as_float_starts() -> None:
    text = json.dumps(make_pack(LOOP, version=2)).replace('"version": 2,', '"version": 2.0,')
    pack = reference.load_pack_string(text, format="json")
    assert pack["workflow"]["version"] == 2.0
    assert reference.start_session(pack, clock=ManualClock()).status == "active"


def test_invalid_pack_refuses_to_start() -> None:
    pack = make_pack(LOOP)
    pack["workflow"]["entry"] = "missing"
    with pytest.raises(reference.PackInvalidError) as caught:
        reference.start_session(pack, clock=ManualClock())
    assert "entry-unknown" in [d.code for d in caught.value.diagnostics]


def test_pack_without_workflow_refuses_to_start() -> None:
    pack = make_pack(LOOP)
    del pack["workflow"]
    with pytest.raises(reference.PackInvalidError):
        reference.start_session(pack, clock=ManualClock())


def test_pack_with_warnings_only_starts() -> None:
    # a loop without budget or max_visits warns (cycle-unbounded, loop-without-budget)
    pack = make_pack({"a": {"on_event": {"again": "a"}}})
    assert reference.validate(pack)
    assert reference.start_session(pack, clock=ManualClock()).send("again").to_state == "a"


def test_compiled_workflow_starts_independent_sessions() -> None:
    workflow = reference.compile_workflow(make_pack(LOOP))
    one = reference.start_session(workflow, clock=ManualClock())
    two = reference.start_session(workflow, clock=ManualClock())
    one.send("Next")
    assert two.current_state == "a"
    assert two.state()["visit_counts"] == {"a": 1}


def test_pack_loaded_from_yaml_runs() -> None:
    text = """
id: yaml-pack
name: YAML pack
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  p: {id: p, name: P, version: 1.0.0, system_template: Work.}
workflow:
  version: 1
  entry: intake
  states:
    intake: {prompt_task: p, on_event: {RequirementsGathered: planning}}
    planning: {prompt_task: p}
"""
    session = reference.start_session(reference.load_pack_string(text), clock=ManualClock())
    assert session.send("RequirementsGathered").to_state == "planning"
    assert session.status == "completed"


# -- RFC 0009 Example 3 ------------------------------------------------------------------------


def example_3_session() -> Session:
    return reference.start_session(reference.load_pack(str(EXAMPLE_3)), clock=ManualClock())


def test_example_3_work_runs_three_times_then_gives_up() -> None:
    session = example_3_session()
    assert session.current_state == "work"
    assert session.send("Error").to_state == "work"  # 2nd run
    assert session.send("Error").to_state == "work"  # 3rd run
    transition = session.send("Error")
    assert transition.to_dict() == {
        "from": "work",
        "to": "give_up",
        "event": "Error",
        "redirected": True,
        "original_target": "work",
    }
    state = session.state()
    assert state["visit_counts"] == {"work": 3, "give_up": 1}
    assert state["status"] == "completed"
    assert state["prompt_task"] == "fallback"
    assert [h["to"] for h in state["history"]] == ["work", "work", "give_up"]


def test_example_3_success_on_third_attempt_completes() -> None:
    session = example_3_session()
    session.set_artifact("error_summary", "E1")
    session.send("Error")
    session.set_artifact("error_summary", "E2")
    session.send("Error")
    assert session.send("Success").to_state == "complete"
    state = session.state()
    assert state["status"] == "completed"
    assert state["artifacts"] == {"error_summary": "E2"}  # replace mode by default
    assert [entry["values"] for entry in state["artifact_history"]] == [
        {"error_summary": "E1"},
        {"error_summary": "E2"},
        {"error_summary": "E2"},
    ]
