"""Hypothesis strategies for workflow packs and session inputs, shared by the reference tests.

Packs are built as plain dicts that are valid by construction (every ``on_event`` target,
``on_max_visits`` and ``prompt_task`` exists, no composition mode); tests assert that with
``reference.validate`` instead of filtering, so a generator bug shows up as a failure.

Operations on a session are tuples:

- ``("send", event, source)``: :meth:`Session.send` (``event`` may be unknown everywhere);
- ``("tools", n)``: :meth:`Session.record_tool_calls`;
- ``("artifact", name, value)``: :meth:`Session.set_artifact` (``name`` may be undeclared);
- ``("advance", seconds)``: move the session's :class:`reference.ManualClock`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import reference

EVENTS = ("Go", "Back", "Retry")
UNKNOWN_EVENT = "NoSuchEvent"
ARTIFACTS = ("log", "note")
UNDECLARED_ARTIFACT = "ghost"
ORCHESTRATIONS = ("internal", "external", "hybrid")

Op = tuple[Any, ...]


def make_pack(workflow: dict[str, Any]) -> dict[str, Any]:
    """Wrap a ``workflow`` object in the smallest valid pack (one prompt, ``p``)."""
    return {
        "id": "generated",
        "name": "Generated",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "p": {"id": "p", "name": "P", "version": "1.0.0", "system_template": "Work."},
        },
        "workflow": workflow,
    }


_SHAPES = ("open",) * 9 + ("absent", "empty", "terminal")
_ARTIFACT_MODES = (None, "replace", "append")

# Strategies are built once here: building them inside the composites costs more than drawing.
_state_options = st.tuples(
    st.sampled_from(_SHAPES),
    st.lists(st.sampled_from(EVENTS[1:]), unique=True, max_size=len(EVENTS) - 1),
    st.integers(0, 5),  # 0: write terminal: false on an open state
    st.sampled_from((None, None, 1, 2, 3, 1)),  # max_visits
    st.integers(0, 4),  # on_max_visits: with max_visits set unless 0, without it only if 1
    st.sampled_from((None, None, *ORCHESTRATIONS)),
    st.lists(st.tuples(st.sampled_from(ARTIFACTS), st.sampled_from(_ARTIFACT_MODES)), max_size=2),
)


@st.composite
def workflow_states(draw: st.DrawFn, names: list[str]) -> dict[str, dict[str, Any]]:
    """A ``states`` object over ``names`` whose references all resolve.

    Most states have one to three events, always ``EVENTS[0]``; some are terminal by
    having no ``on_event`` (absent or empty) or by ``terminal: true`` (with events, which
    then never fire).
    """
    states: dict[str, dict[str, Any]] = {}
    targets = st.sampled_from(names)
    for name in names:
        shape, events, flag, max_visits, redirect, orchestration, artifacts = draw(_state_options)
        state: dict[str, Any] = {"prompt_task": "p"}
        if shape != "absent":
            # Open states always take the first event, so runs get somewhere.
            events = [] if shape == "empty" else [EVENTS[0], *events]
            state["on_event"] = {event: draw(targets) for event in events}
        if shape == "terminal":
            state["terminal"] = True
        elif shape == "open" and flag == 0:
            state["terminal"] = False
        if max_visits is not None:
            state["max_visits"] = max_visits
            if redirect:
                state["on_max_visits"] = draw(targets)
        elif redirect == 1:
            state["on_max_visits"] = draw(targets)  # valid, but unused without max_visits
        if orchestration is not None:
            state["orchestration"] = orchestration
        declared: dict[str, dict[str, str]] = {}
        for artifact, mode in artifacts:
            declared[artifact] = {"type": "text/plain"}
            if mode is not None:
                declared[artifact]["mode"] = mode
        if declared:
            state["artifacts"] = declared
        states[name] = state
    return states


budgets = st.fixed_dictionaries(
    {},
    optional={
        "max_total_visits": st.integers(1, 8),
        "max_tool_calls": st.integers(1, 4),
        "max_wall_time_sec": st.integers(1, 5),
    },
)
"""An ``engine.budget`` object: each limit optional (possibly none at all)."""


@st.composite
def workflow_packs(draw: st.DrawFn, max_states: int = 5) -> dict[str, Any]:
    """A valid pack whose workflow has 1..``max_states`` states ``s0``, ``s1``, ..."""
    count = draw(st.integers(1, max_states))
    names = [f"s{i}" for i in range(count)]
    workflow: dict[str, Any] = {
        "version": draw(st.sampled_from((1, 2))),
        "entry": draw(st.sampled_from(names)),
        "states": draw(workflow_states(names)),
    }
    if draw(st.booleans()):
        workflow["engine"] = {"budget": draw(budgets)}
    return make_pack(workflow)


_SENDS: list[Op] = [
    ("send", event, source) for event in (*EVENTS, UNKNOWN_EVENT) for source in ("host", "agent")
]
OPERATIONS: list[Op] = [
    *_SENDS,
    *(op for op in _SENDS if op[1] != UNKNOWN_EVENT),  # known events twice as often
    *(("tools", n) for n in (1, 0, 2, 1)),
    *(("artifact", name, value) for name in ARTIFACTS for value in ("x", "yz", "")),
    ("artifact", UNDECLARED_ARTIFACT, "x"),
    *(("advance", seconds) for seconds in (1, 0, 2, 0.5, 1)),
]
"""Every operation a run draws from (one draw each, so generation stays cheap)."""


def operation_lists(max_size: int = 40) -> st.SearchStrategy[list[Op]]:
    """A run's worth of operations, most of them sending events; about half the runs are long."""
    each = st.sampled_from(OPERATIONS)
    short = min(10, max_size)
    return st.one_of(
        st.lists(each, max_size=short), st.lists(each, min_size=short, max_size=max_size)
    )


Observation = tuple[Any, ...]


def apply(session: reference.Session, clock: reference.ManualClock, op: Op) -> Observation:
    """Perform ``op`` and return what it did: ``("ok", data)`` or ``("rejected", code, limit)``.

    Only :class:`reference.Rejection` is caught; any other exception is a failure.
    """
    kind = op[0]
    try:
        if kind == "send":
            return ("ok", session.send(op[1], source=op[2]).to_dict())
        if kind == "tools":
            session.record_tool_calls(op[1])
        elif kind == "artifact":
            session.set_artifact(op[1], op[2])
        elif kind == "advance":
            clock.advance(op[1])
        else:
            raise AssertionError(f"unknown operation {op!r}")
    except reference.Rejection as rejection:
        return ("rejected", rejection.code, rejection.limit)
    return ("ok", None)


def observable(session: reference.Session) -> dict[str, Any]:
    """``session.state()`` without ``elapsed_sec`` (compared separately, if at all)."""
    data = session.state()
    del data["elapsed_sec"]
    return data
