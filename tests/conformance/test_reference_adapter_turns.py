"""The reference adapter's RFC 0011 and RFC 0014 operations: ``start_at``, ``agent_text`` and
``user_turn``, as the kit sees them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance import (
    PackInput,
    ReferenceAdapter,
    Rejected,
    StateStartingAdapter,
    TurnSession,
)

STATES: dict[str, Any] = {
    "ask": {"prompt_task": "p", "on_event": {"Go": "route"}},
    "route": {"prompt_task": "p", "control": "agent", "on_event": {"Ask": "ask", "End": "done"}},
    "done": {"prompt_task": "p", "terminal": True},
}
PACK: dict[str, Any] = {
    "id": "unit",
    "name": "Unit",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {
        key: {"id": key, "name": key, "version": "1.0.0", "system_template": "Work."}
        for key in ("p", "q")
    },
    "workflow": {"version": 2, "entry": "ask", "states": STATES},
    "agents": {"entry": "p", "members": {"p": {"state": "route"}, "q": {}}},
}


def pack() -> PackInput:
    return PackInput(json.dumps(PACK), "json", PACK, "<test>")


def test_the_reference_implements_the_optional_protocols() -> None:
    adapter = ReferenceAdapter()
    assert isinstance(adapter, StateStartingAdapter)
    assert isinstance(adapter.start(pack()), TurnSession)
    claims = adapter.capabilities().claims
    assert (claims["control"], claims["state-agents"]) == (2, 2)


def test_turns_and_replies_through_the_adapter() -> None:
    session = ReferenceAdapter().start(pack())
    session.agent_text("Hello.")
    session.send("Go", "agent")
    assert (session.state()["turn"], session.state()["reply"]) == ("agent", "Hello.")
    session.agent_text("Routed.")
    assert (session.state()["turn"], session.state()["reply"]) == ("user", "Hello.\nRouted.")
    restored = ReferenceAdapter().restore(pack(), session.snapshot())
    restored.user_turn()
    assert (restored.state()["turn"], restored.state()["reply"]) == ("user", "")


@pytest.mark.parametrize(
    ("where", "state", "visits"),
    [({"state": "route"}, "route", {"route": 1}), ({"agent": "p"}, "route", {"route": 1})],
)
def test_start_at(where: dict[str, str], state: str, visits: dict[str, int]) -> None:
    data = ReferenceAdapter().start_at(pack(), **where).state()
    assert (data["current_state"], data["visit_counts"], data["turn"]) == (state, visits, "user")


@pytest.mark.parametrize(
    ("where", "code"),
    [
        ({"state": "nowhere"}, "start-state-unknown"),
        ({"agent": "nobody"}, "agent-unknown"),
        ({"agent": "q"}, "agent-not-state-backed"),
    ],
)
def test_refused_starts_are_rejections(where: dict[str, str], code: str) -> None:
    with pytest.raises(Rejected) as caught:
        ReferenceAdapter().start_at(pack(), **where)
    assert caught.value.code == code
