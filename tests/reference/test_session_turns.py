"""Unit tests of turns and replies (RFC 0014 ``control``, SEMANTICS X17-X22) and of starting at
a state or as a state-backed agent (RFC 0011, X23-X24).

Every rule has a test that triggers it and a near miss that does not.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

import reference
from reference import ManualClock, Rejection, Session, SnapshotError

# -- helpers -----------------------------------------------------------------------------------


def make_pack(
    states: dict[str, dict[str, Any]],
    *,
    entry: str | None = None,
    budget: dict[str, Any] | None = None,
    members: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A valid pack around ``states`` (each gets ``prompt_task: p`` unless it names one), with
    an ``agents`` section when ``members`` is given (member keys are prompt keys: p, q, r)."""
    workflow: dict[str, Any] = {
        "version": 2,
        "entry": entry if entry is not None else next(iter(states)),
        "states": {name: {"prompt_task": "p", **spec} for name, spec in states.items()},
    }
    if budget is not None:
        workflow["engine"] = {"budget": budget}
    prompts = {
        key: {"id": key, "name": key.upper(), "version": "1.0.0", "system_template": "Work."}
        for key in ("p", "q", "r")
    }
    pack: dict[str, Any] = {
        "id": "unit",
        "name": "Unit",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": prompts,
        "workflow": workflow,
    }
    if members is not None:
        pack["agents"] = {"entry": next(iter(members)), "members": members}
    return pack


def start(states: dict[str, dict[str, Any]], **options: Any) -> Session:
    clock = options.pop("clock", None) or ManualClock()
    at_state = options.pop("at_state", None)
    agent = options.pop("agent", None)
    pack = make_pack(states, **options)
    errors = [d for d in reference.validate(pack) if d.severity == "error"]
    assert errors == [], errors  # the helper must build valid packs
    return reference.start_session(pack, clock=clock, at_state=at_state, agent=agent)


def reject(action: Callable[[], object]) -> Rejection:
    with pytest.raises(Rejection) as caught:
        action()
    return caught.value


# RFC 0014 Example 1: verifying (user) -> triage (agent) -> resolution (user, terminal).
SUPPORT: dict[str, dict[str, Any]] = {
    "verifying": {"control": "user", "on_event": {"AccountVerified": "triage"}},
    "triage": {
        "control": "agent",
        "on_event": {"ServeBalance": "resolution", "EscalateToAgent": "handoff"},
    },
    "resolution": {"control": "user", "terminal": True},
    "handoff": {"terminal": True},
}

# A routing chain: route (agent) -> work (agent) -> ask (no control) -> route ...
CHAIN: dict[str, dict[str, Any]] = {
    "ask": {"on_event": {"Go": "route", "Quit": "done"}},
    "route": {"control": "agent", "on_event": {"Work": "work", "Ask": "ask"}},
    "work": {"control": "agent", "on_event": {"Again": "route", "Ask": "ask", "End": "done"}},
    "done": {"terminal": True},
}


# -- X17: start, restore -----------------------------------------------------------------------


def test_start_gives_the_user_the_turn_even_in_a_control_agent_entry() -> None:
    session = start(CHAIN, entry="route")
    assert session.state()["turn"] == "user"
    assert session.state()["reply"] == ""
    assert (session.turn, session.reply) == ("user", "")


def test_a_restored_session_continues_with_the_snapshots_turn_and_reply() -> None:
    pack = make_pack(CHAIN)
    session = reference.start_session(pack, clock=ManualClock())
    session.agent_text("Routing you.")
    session.send("Go", "agent")
    session.agent_text("")  # a round with nothing to say ...
    session.send("Work", "agent")  # ... that moved on
    assert (session.turn, session.reply) == ("agent", "Routing you.")
    snapshot = json.loads(json.dumps(session.snapshot()))
    restored = reference.restore_session(pack, snapshot, clock=ManualClock())
    assert restored.state() == session.state()
    restored.agent_text("Done.")
    assert (restored.turn, restored.reply) == ("user", "Routing you.\nDone.")


def test_a_snapshot_without_turn_and_reply_restores_with_the_users_turn() -> None:
    pack = make_pack(CHAIN)
    session = reference.start_session(pack, clock=ManualClock())
    session.send("Go", "host")
    snapshot = session.snapshot()
    del snapshot["turn"], snapshot["reply"]
    restored = reference.restore_session(pack, snapshot, clock=ManualClock())
    assert (restored.turn, restored.reply) == ("user", "")
    assert restored.current_state == "route"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"turn": "system"}, "unknown turn"),
        ({"turn": "agent"}, "control: agent"),  # ask is control: user
        ({"reply": "text"}, "list of texts"),
        ({"reply": [1]}, "list of texts"),
    ],
)
def test_a_snapshot_with_a_bad_turn_or_reply_is_refused(
    change: dict[str, Any], message: str
) -> None:
    pack = make_pack(CHAIN)
    snapshot = {**reference.start_session(pack).snapshot(), **change}
    with pytest.raises(SnapshotError, match=message):
        reference.restore_session(pack, snapshot)


def test_an_agent_turn_in_a_control_agent_state_restores() -> None:
    pack = make_pack(CHAIN, entry="route")
    snapshot = {**reference.start_session(pack).snapshot(), "turn": "agent"}
    assert reference.restore_session(pack, snapshot).turn == "agent"


# -- X18: agent-sourced transitions ------------------------------------------------------------


def test_an_agent_move_into_a_control_agent_state_keeps_the_turn() -> None:
    session = start(SUPPORT)
    session.send("AccountVerified", "agent")
    assert session.state()["turn"] == "agent"


def test_an_agent_move_into_a_control_user_state_yields() -> None:
    session = start(CHAIN, entry="route")
    session.send("Ask", "agent")
    assert session.turn == "user"


def test_the_turn_follows_each_agent_move_of_a_chain() -> None:
    session = start(CHAIN)
    turns = []
    for event in ("Go", "Work", "Again", "Work", "Ask"):
        session.send(event, "agent")
        turns.append(session.turn)
    assert turns == ["agent", "agent", "agent", "agent", "user"]


def test_a_redirect_into_a_control_agent_state_keeps_the_turn() -> None:
    # The event targets ask (user) at its limit; the redirect enters work (agent).
    states = {
        "start": {"on_event": {"ToAsk": "ask"}},
        "ask": {"max_visits": 1, "on_max_visits": "work", "on_event": {"Back": "start"}},
        "work": {"control": "agent", "on_event": {"Back": "start"}},
    }
    session = start(states)
    session.send("ToAsk", "agent")
    assert session.turn == "user"
    session.send("Back", "agent")
    transition = session.send("ToAsk", "agent")
    assert (transition.redirected, transition.to_state) == (True, "work")
    assert session.turn == "agent"


def test_a_redirect_out_of_a_control_agent_target_yields() -> None:
    # The event targets work (agent) at its limit; the redirect enters ask (user): X18 reads
    # the state actually entered.
    states = {
        "start": {"on_event": {"ToWork": "work"}},
        "work": {
            "control": "agent",
            "max_visits": 1,
            "on_max_visits": "ask",
            "on_event": {"Back": "start"},
        },
        "ask": {"on_event": {"Back": "start"}},
    }
    session = start(states)
    session.send("ToWork", "agent")
    assert session.turn == "agent"
    session.send("Back", "agent")
    assert session.turn == "user"
    transition = session.send("ToWork", "agent")
    assert (transition.redirected, transition.to_state) == (True, "ask")
    assert session.turn == "user"


def test_an_agent_move_into_a_terminal_control_agent_state_yields() -> None:
    states = {
        "route": {"control": "agent", "on_event": {"Finish": "done"}},
        "done": {"control": "agent", "terminal": True},
    }
    session = start(states)
    session.send("Finish", "agent")
    assert (session.status, session.turn) == ("completed", "user")


# -- X19: absent control is user ---------------------------------------------------------------


def test_an_absent_control_behaves_as_control_user() -> None:
    def turns(control: dict[str, str]) -> list[str]:
        states = {
            "a": {"control": "agent", "on_event": {"Next": "b"}},
            "b": {**control, "on_event": {"Next": "a"}},
        }
        session = start(states)
        seen = []
        for _ in range(4):
            session.send("Next", "agent")
            seen.append(session.turn)
        return seen

    assert turns({}) == turns({"control": "user"}) == ["user", "agent", "user", "agent"]


def test_a_workflow_without_control_agent_never_gives_the_agent_the_turn() -> None:
    session = start({"a": {"on_event": {"Next": "a"}}, "b": {"control": "user", "terminal": True}})
    assert session.workflow.tracks_turns is False
    session.send("Next", "agent")
    assert session.turn == "user"


# -- X20: host-sourced transitions -------------------------------------------------------------


def test_a_host_move_into_a_control_agent_state_yields() -> None:
    session = start(SUPPORT)
    session.send("AccountVerified", "host")
    assert session.turn == "user"


def test_a_host_move_while_the_agent_holds_the_turn_yields() -> None:
    session = start(CHAIN)
    session.send("Go", "agent")
    assert session.turn == "agent"
    session.send("Work", "host")
    assert session.turn == "user"


# -- X21: ends give the user the turn ----------------------------------------------------------


def test_a_max_visits_end_gives_the_user_the_turn() -> None:
    states = {
        "a": {"control": "agent", "on_event": {"Next": "b"}},
        "b": {"control": "agent", "max_visits": 1, "on_event": {"Next": "a"}},
    }
    session = start(states)
    session.send("Next", "agent")
    session.send("Next", "agent")
    assert session.turn == "agent"
    assert reject(lambda: session.send("Next", "agent")).code == "max-visits-exceeded"
    assert (session.status, session.turn) == ("budget_exhausted", "user")


@pytest.mark.parametrize(
    ("budget", "spend"),
    [
        ({"max_total_visits": 2}, lambda s, c: None),
        ({"max_tool_calls": 3}, lambda s, c: s.record_tool_calls(3)),
        ({"max_wall_time_sec": 10}, lambda s, c: c.advance(10)),
    ],
    ids=["visits", "tool-calls", "wall-time"],
)
def test_a_budget_stop_gives_the_user_the_turn(
    budget: dict[str, int], spend: Callable[[Session, ManualClock], None]
) -> None:
    clock = ManualClock()
    session = start(CHAIN, budget=budget, clock=clock)
    session.send("Go", "agent")
    assert session.turn == "agent"  # budgets stop the next transition, not the round (X8)
    spend(session, clock)
    assert reject(lambda: session.send("Work", "agent")).code == "budget-exhausted"
    assert (session.status, session.turn) == ("budget_exhausted", "user")


def test_a_budget_below_its_limit_leaves_the_turn_with_the_agent() -> None:
    clock = ManualClock()
    session = start(CHAIN, budget={"max_tool_calls": 3, "max_wall_time_sec": 10}, clock=clock)
    session.send("Go", "agent")
    session.record_tool_calls(2)
    clock.advance(9.5)
    session.send("Work", "agent")
    assert (session.status, session.turn) == ("active", "agent")


# -- X22: replies, agent text, user turns ------------------------------------------------------


def test_the_rounds_between_two_user_turns_make_one_reply_in_order() -> None:
    session = start(SUPPORT)
    session.agent_text("Thanks, you are verified.")
    session.send("AccountVerified", "agent")
    session.agent_text("Routing to balance.")
    session.send("ServeBalance", "agent")
    session.agent_text("Your balance is 10.")
    assert session.state()["reply"] == (
        "Thanks, you are verified.\nRouting to balance.\nYour balance is 10."
    )
    assert session.state()["turn"] == "user"
    session.user_turn()
    assert (session.reply, session.turn) == ("", "user")


def test_agent_text_ends_the_agents_rounds() -> None:
    session = start(CHAIN)
    session.send("Go", "agent")
    session.agent_text("Which account?")
    assert (session.turn, session.reply) == ("user", "Which account?")
    assert session.current_state == "route"  # text moves no state


def test_agent_text_in_the_users_turn_keeps_it_the_users() -> None:
    session = start(CHAIN)
    session.agent_text("Hello.")
    session.agent_text("How can I help?")
    assert (session.turn, session.reply) == ("user", "Hello.\nHow can I help?")


def test_empty_agent_text_adds_nothing_to_the_reply_but_ends_the_rounds() -> None:
    session = start(CHAIN)
    session.agent_text("One.")
    session.send("Go", "agent")
    session.agent_text("")
    assert (session.turn, session.reply) == ("user", "One.")


def test_user_turn_clears_the_reply_and_takes_the_turn() -> None:
    session = start(CHAIN)
    session.agent_text("Before.")
    session.send("Go", "agent")
    session.user_turn()
    assert (session.turn, session.reply) == ("user", "")
    session.agent_text("After.")
    assert session.reply == "After."


def test_agent_text_must_be_a_string() -> None:
    session = start(CHAIN)
    with pytest.raises(TypeError):
        session.agent_text(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("event", "source", "code"),
    [("Nope", "agent", "unknown-event"), ("Nope", "host", "unknown-event")],
)
def test_a_rejected_event_leaves_the_turn_and_reply(event: str, source: str, code: str) -> None:
    session = start(CHAIN)
    session.agent_text("Text.")
    session.send("Go", "agent")
    assert reject(lambda: session.send(event, source)).code == code  # type: ignore[arg-type]
    assert (session.turn, session.reply) == ("agent", "Text.")


def test_an_agent_event_refused_in_an_external_state_leaves_the_turn() -> None:
    states = {
        "a": {"control": "agent", "orchestration": "external", "on_event": {"Next": "b"}},
        "b": {"on_event": {"Next": "a"}},
    }
    session = start(states, entry="b")
    session.send("Next", "agent")  # into the external state, from an internal one
    assert session.turn == "agent"
    assert reject(lambda: session.send("Next", "agent")).code == "event-source-not-allowed"
    assert session.turn == "agent"


def test_text_after_completion_still_reaches_the_reply() -> None:
    session = start(SUPPORT)
    session.send("AccountVerified", "agent")
    session.send("ServeBalance", "agent")
    session.agent_text("Your balance is 10.")  # terminal states still run their prompt
    assert (session.status, session.turn, session.reply) == (
        "completed",
        "user",
        "Your balance is 10.",
    )


# -- X23: start at a state ---------------------------------------------------------------------


LOOP: dict[str, dict[str, Any]] = {
    "a": {"on_event": {"Next": "b"}},
    "b": {"max_visits": 2, "on_event": {"Again": "a", "Finish": "done"}},
    "done": {"terminal": True},
}


def test_starting_at_a_state_counts_only_that_state() -> None:
    session = start(LOOP, at_state="b", budget={"max_total_visits": 10})
    state = session.state()
    assert state["current_state"] == "b"
    assert state["visit_counts"] == {"b": 1}
    assert state["history"] == []
    assert state["artifacts"] == {}
    assert state["artifact_history"] == []
    assert state["tool_calls"] == 0
    assert state["elapsed_sec"] == 0
    assert state["status"] == "active"
    assert (state["turn"], state["reply"]) == ("user", "")


def test_after_starting_at_a_state_the_loop_guard_counts_the_start() -> None:
    session = start(LOOP, at_state="b")
    for event in ("Again", "Next", "Again"):  # b: the start, then one entry
        session.send(event)
    assert reject(lambda: session.send("Next")).code == "max-visits-exceeded"


def test_after_starting_at_a_state_budgets_are_fresh() -> None:
    session = start(LOOP, at_state="b", budget={"max_total_visits": 2})
    session.send("Again")
    assert reject(lambda: session.send("Next")).code == "budget-exhausted"
    assert session.state()["exhausted_by"] == "max_total_visits"


def test_starting_at_a_terminal_state_completes() -> None:
    session = start(LOOP, at_state="done")
    assert (session.status, session.state()["terminal"]) == ("completed", True)
    assert reject(lambda: session.send("Next")).code == "terminal-state"


def test_starting_at_a_control_agent_state_gives_the_user_the_turn() -> None:
    assert start(CHAIN, at_state="work").turn == "user"


def test_starting_at_the_entry_by_name_is_starting() -> None:
    pack = make_pack(LOOP)
    named = reference.start_session(pack, clock=ManualClock(), at_state="a").state()
    assert named == reference.start_session(pack, clock=ManualClock()).state()


def test_starting_at_an_unknown_state_is_refused() -> None:
    rejection = reject(lambda: start(LOOP, at_state="nowhere"))
    assert rejection.code == "start-state-unknown"
    assert "nowhere" in rejection.message


def test_a_session_started_at_a_state_snapshots_and_restores() -> None:
    pack = make_pack(LOOP)
    session = reference.start_session(pack, clock=ManualClock(), at_state="b")
    restored = reference.restore_session(pack, session.snapshot(), clock=ManualClock())
    assert restored.state() == session.state()


# -- X24: start as an agent --------------------------------------------------------------------


AGENTS: dict[str, dict[str, Any]] = {
    "p": {"state": "b"},
    "q": {"tags": ["plain"]},
    "r": {"state": "done"},
}


def test_starting_as_an_agent_is_starting_at_its_state() -> None:
    by_agent = start(LOOP, members=AGENTS, agent="p").state()
    by_state = start(LOOP, members=AGENTS, at_state="b").state()
    assert by_agent == by_state
    assert by_agent["visit_counts"] == {"b": 1}


def test_starting_as_an_agent_on_a_terminal_state_completes() -> None:
    assert start(LOOP, members=AGENTS, agent="r").status == "completed"


def test_starting_as_an_unknown_agent_is_refused() -> None:
    rejection = reject(lambda: start(LOOP, members=AGENTS, agent="nobody"))
    assert rejection.code == "agent-unknown"
    assert "p, q, r" in rejection.message


def test_starting_as_an_agent_of_a_pack_without_agents_is_refused() -> None:
    assert reject(lambda: start(LOOP, agent="p")).code == "agent-unknown"


def test_starting_as_a_prompt_backed_agent_is_refused() -> None:
    rejection = reject(lambda: start(LOOP, members=AGENTS, agent="q"))
    assert rejection.code == "agent-not-state-backed"


def test_a_state_and_an_agent_at_once_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="not both"):
        start(LOOP, members=AGENTS, agent="p", at_state="b")


def test_the_compiled_workflow_knows_each_members_state() -> None:
    workflow = reference.compile_workflow(make_pack(LOOP, members=AGENTS))
    assert dict(workflow.agent_states) == {"p": "b", "q": None, "r": "done"}


def test_starting_does_not_change_the_pack() -> None:
    pack = make_pack(LOOP, members=AGENTS)
    before = copy.deepcopy(pack)
    reference.start_session(pack, agent="p").send("Again")
    assert pack == before
