"""Property tests of the session state machine over generated valid workflows.

Each example is a valid pack (see ``strategies.workflow_packs``) and a random run of events
(known and unknown, host and agent), tool-call recordings, artifact writes and clock moves.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import Op, apply, observable, operation_lists, workflow_packs

import reference
from reference import ManualClock, Session

SETTINGS = settings(max_examples=200, deadline=None)

ENDED_STATUSES = ("completed", "budget_exhausted")
STATUS_CHANGING_CODES = ("budget-exhausted", "max-visits-exceeded")
UNCHANGED_BY_REJECTION = (
    "current_state",
    "visit_counts",
    "history",
    "artifacts",
    "artifact_history",
    "tool_calls",
)


def begin(pack: dict[str, Any]) -> tuple[Session, ManualClock]:
    clock = ManualClock()
    return reference.start_session(pack, clock=clock), clock


def states_of(pack: dict[str, Any]) -> dict[str, dict[str, Any]]:
    states: dict[str, dict[str, Any]] = pack["workflow"]["states"]
    return states


@SETTINGS
@given(workflow_packs())
def test_generated_packs_are_valid(pack: dict[str, Any]) -> None:
    errors = [d for d in reference.validate(pack) if d.severity == "error"]
    assert errors == []


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_visit_counts_sum_to_accepted_transitions_plus_one(
    pack: dict[str, Any], ops: list[Op]
) -> None:
    """(a) Every accepted transition adds exactly one visit; the entry is the first."""
    session, clock = begin(pack)
    accepted = 0
    for op in ops:
        observation = apply(session, clock, op)
        if op[0] == "send" and observation[0] == "ok":
            accepted += 1
        state = session.state()
        assert sum(state["visit_counts"].values()) == accepted + 1
        assert len(state["history"]) == accepted


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_no_visit_count_exceeds_max_visits(pack: dict[str, Any], ops: list[Op]) -> None:
    """(b) The loop guard holds for every state, redirect entries and the entry included."""
    limits = {n: s["max_visits"] for n, s in states_of(pack).items() if "max_visits" in s}
    session, clock = begin(pack)
    for op in [("start",), *ops]:
        if op[0] != "start":
            apply(session, clock, op)
        counts = session.state()["visit_counts"]
        for name, limit in limits.items():
            assert counts.get(name, 0) <= limit, (name, counts)


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_rejection_changes_nothing_but_status(pack: dict[str, Any], ops: list[Op]) -> None:
    """(c) A rejected operation leaves the session data as it was (X4)."""
    session, clock = begin(pack)
    for op in ops:
        before = session.state()
        observation = apply(session, clock, op)
        if observation[0] != "rejected":
            continue
        after = session.state()
        for key in UNCHANGED_BY_REJECTION:
            assert after[key] == before[key], (op, observation, key)
        code = observation[1]
        if before["status"] == "active" and code in STATUS_CHANGING_CODES:
            assert after["status"] == "budget_exhausted", (op, observation)
        else:
            assert after["status"] == before["status"], (op, observation)
        if code == "budget-exhausted" and before["status"] == "active":
            assert observation[2] in ("max_total_visits", "max_tool_calls", "max_wall_time_sec")


@SETTINGS
@given(workflow_packs(), operation_lists(), st.data())
def test_snapshot_restore_continues_identically(
    pack: dict[str, Any], ops: list[Op], data: st.DataObject
) -> None:
    """(d) Restoring a JSON round-tripped snapshot mid-run changes no later observation."""
    split = data.draw(st.integers(0, len(ops)), label="split")
    restart_at = data.draw(st.sampled_from((0.0, 7.0, 1e6)), label="restored clock start")

    session, clock = begin(pack)
    uninterrupted = []
    for index, op in enumerate(ops):
        if index == split:
            uninterrupted.append((None, observable(session), session.elapsed()))
        uninterrupted.append((apply(session, clock, op), observable(session), session.elapsed()))
    if split == len(ops):
        uninterrupted.append((None, observable(session), session.elapsed()))

    first, first_clock = begin(pack)
    for op in ops[:split]:
        apply(first, first_clock, op)
    snapshot = json.loads(json.dumps(first.snapshot()))
    restored_clock = ManualClock(start=restart_at)
    restored = reference.restore_session(copy.deepcopy(pack), snapshot, clock=restored_clock)
    resumed = [(None, observable(restored), restored.elapsed())]
    for op in ops[split:]:
        resumed.append(
            (apply(restored, restored_clock, op), observable(restored), restored.elapsed())
        )

    expected = uninterrupted[split:]
    assert len(resumed) == len(expected)
    for (got_result, got_state, got_elapsed), (want_result, want_state, want_elapsed) in zip(
        resumed, expected, strict=True
    ):
        assert got_result == want_result
        assert got_state == want_state
        assert math.isclose(got_elapsed, want_elapsed, abs_tol=1e-6)


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_ended_session_accepts_no_transition(pack: dict[str, Any], ops: list[Op]) -> None:
    """(e) Once completed or budget_exhausted, every event is rejected and the status stays."""
    session, clock = begin(pack)
    ended = session.status if session.status in ENDED_STATUSES else None
    for op in ops:
        before = session.state()
        observation = apply(session, clock, op)
        if ended is not None:
            assert session.status == ended
            assert session.available_events() == []
            if op[0] == "send":
                expected = "terminal-state" if ended == "completed" else "budget-exhausted"
                assert observation[:2] == ("rejected", expected), (op, observation)
                after = session.state()
                del before["elapsed_sec"], after["elapsed_sec"]
                assert after == before
        elif session.status in ENDED_STATUSES:
            ended = session.status


def is_terminal(spec: dict[str, Any]) -> bool:
    """X2, from the pack: ``terminal: true`` or no ``on_event`` entries."""
    return spec.get("terminal") is True or not spec.get("on_event")


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_completed_exactly_in_terminal_states(pack: dict[str, Any], ops: list[Op]) -> None:
    """X2/X3: status ``completed`` exactly while the current state is terminal."""
    states = states_of(pack)
    session, clock = begin(pack)
    for op in [("start",), *ops]:
        if op[0] != "start":
            apply(session, clock, op)
        state = session.state()
        spec = states[state["current_state"]]
        assert state["terminal"] == is_terminal(spec)
        assert (state["status"] == "completed") == is_terminal(spec)
        assert state["prompt_task"] == spec["prompt_task"]
        if state["status"] == "active":
            assert state["available_events"] == sorted(spec["on_event"])
        else:
            assert state["available_events"] == []


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_artifact_history_records_every_transition(pack: dict[str, Any], ops: list[Op]) -> None:
    """X12: one entry per accepted transition, with the values current at that moment."""
    declares = any("artifacts" in spec for spec in states_of(pack).values())
    session, clock = begin(pack)
    for op in ops:
        before = session.state()
        observation = apply(session, clock, op)
        after = session.state()
        if not declares:
            assert after["artifact_history"] == []
        elif op[0] == "send" and observation[0] == "ok":
            assert after["artifact_history"] == [
                *before["artifact_history"],
                {
                    "from_state": before["current_state"],
                    "to_state": after["current_state"],
                    "event": op[1],
                    "values": before["artifacts"],
                },
            ]
        else:
            assert after["artifact_history"] == before["artifact_history"]
        assert len(after["artifact_history"]) == (len(after["history"]) if declares else 0)


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_transitions_follow_declared_edges(pack: dict[str, Any], ops: list[Op]) -> None:
    """X5/X6: a transition goes to the event's target, or along that target's redirect chain."""
    states = states_of(pack)
    session, clock = begin(pack)
    for op in ops:
        current = session.current_state
        observation = apply(session, clock, op)
        if op[0] != "send" or observation[0] != "ok":
            continue
        transition = observation[1]
        target = states[current]["on_event"][op[1]]
        assert transition["from"] == current
        assert transition["event"] == op[1]
        assert session.state()["history"][-1] == {
            "from": current,
            "to": transition["to"],
            "event": op[1],
        }
        assert session.current_state == transition["to"]
        if transition.get("redirected"):
            assert transition["original_target"] == target
            chain, state = [], target
            while "on_max_visits" in states[state] and state not in chain:
                chain.append(state)
                state = states[state]["on_max_visits"]
            chain.append(state)
            assert transition["to"] in chain[1:]
            assert transition["to"] != target
        else:
            assert transition["to"] == target
            assert "original_target" not in transition
        if op[2] == "agent":
            assert states[current].get("orchestration") != "external"


# -- a model of SEMANTICS section 3, predicting each operation from the state before it ------

BUDGET_ORDER = ("max_total_visits", "max_tool_calls", "max_wall_time_sec")


class Model:
    """What SEMANTICS X3-X13 (with the choices of docs/semantics.md) say an operation does.

    It reads only the pack and ``state()``, and remembers which budget limit ended the session.
    """

    def __init__(self, pack: dict[str, Any]) -> None:
        workflow = pack["workflow"]
        self.states: dict[str, dict[str, Any]] = workflow["states"]
        self.budget: dict[str, int] = workflow.get("engine", {}).get("budget", {})
        self.first_mode: dict[str, str] = {}
        for spec in self.states.values():  # document order
            for name, definition in spec.get("artifacts", {}).items():
                self.first_mode.setdefault(name, definition.get("mode", "replace"))
        self.exhausted_by: str | None = None

    def send(self, state: dict[str, Any], event: str, source: str) -> tuple[Any, ...]:
        if state["status"] == "completed":
            return ("rejected", "terminal-state", None)
        if state["status"] == "budget_exhausted":
            return ("rejected", "budget-exhausted", self.exhausted_by)
        used = {
            "max_total_visits": sum(state["visit_counts"].values()),
            "max_tool_calls": state["tool_calls"],
            "max_wall_time_sec": state["elapsed_sec"],
        }
        for limit in BUDGET_ORDER:
            if limit in self.budget and used[limit] >= self.budget[limit]:
                self.exhausted_by = limit
                return ("rejected", "budget-exhausted", limit)
        spec = self.states[state["current_state"]]
        if source == "agent" and spec.get("orchestration") == "external":
            return ("rejected", "event-source-not-allowed", None)
        target = spec["on_event"].get(event)
        if target is None:
            return ("rejected", "unknown-event", None)
        entered, tried = target, []
        while entered in self.states and "max_visits" in self.states[entered]:
            if state["visit_counts"].get(entered, 0) < self.states[entered]["max_visits"]:
                break
            tried.append(entered)
            redirect = self.states[entered].get("on_max_visits")
            if redirect is None or redirect in tried:
                return ("rejected", "max-visits-exceeded", None)
            entered = redirect
        result = {"from": state["current_state"], "to": entered, "event": event}
        if entered != target:
            result.update(redirected=True, original_target=target)
        return ("ok", result)

    def set_artifact(self, state: dict[str, Any], name: str, value: str) -> tuple[Any, ...]:
        declared = self.states[state["current_state"]].get("artifacts", {})
        if name in declared:
            mode = declared[name].get("mode", "replace")
        elif name in self.first_mode:
            mode = self.first_mode[name]
        else:
            return ("rejected", "artifact-undeclared", None), state["artifacts"]
        artifacts = dict(state["artifacts"])
        artifacts[name] = artifacts.get(name, "") + value if mode == "append" else value
        return ("ok", None), artifacts


@SETTINGS
@given(workflow_packs(), operation_lists())
def test_operations_follow_the_semantics_model(pack: dict[str, Any], ops: list[Op]) -> None:
    """Every result, artifact value and tool-call total is what the model predicts."""
    model = Model(pack)
    session, clock = begin(pack)
    for op in ops:
        before = session.state()
        expected_artifacts = before["artifacts"]
        expected_tools = before["tool_calls"]
        if op[0] == "send":
            expected = model.send(before, op[1], op[2])
        elif op[0] == "artifact":
            expected, expected_artifacts = model.set_artifact(before, op[1], op[2])
        elif op[0] == "tools":
            expected, expected_tools = ("ok", None), expected_tools + op[1]
        else:
            expected = ("ok", None)
        observation = apply(session, clock, op)
        assert observation == expected, (op, before)
        after = session.state()
        assert after["artifacts"] == expected_artifacts, (op, before)
        assert after["tool_calls"] == expected_tools
        if observation[0] == "ok" and op[0] == "send":
            assert after["current_state"] == observation[1]["to"]
            assert after["visit_counts"] == {
                **before["visit_counts"],
                observation[1]["to"]: before["visit_counts"].get(observation[1]["to"], 0) + 1,
            }
