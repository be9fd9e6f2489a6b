"""The reference fuzzed on its own, with the kit's public strategies: validation never raises,
every valid pack compiles and runs every script without an internal error, and a snapshot
restored at any step continues with identical observations."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference
from conformance import strategies

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

junk = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from(("", "start", "Go", "${x}")),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(("id", "kind", "steps", "on_event", "x")), inner, max_size=3
        )
    ),
    max_leaves=8,
)
"""Values to put where they do not belong."""


@FUZZ
@given(strategies.near_valid_packs(), st.data())
def test_validation_never_raises(near: strategies.NearValid, data: st.DataObject) -> None:
    """Near-valid packs, and the same with junk put somewhere in them."""
    assert any(d.severity == "error" for d in reference.validate(near.pack)) or (
        near.requirement != "MUST"
    )
    target = near.pack
    for _ in range(data.draw(st.integers(0, 4))):
        if not isinstance(target, dict) or not target:
            break
        key = data.draw(st.sampled_from(sorted(target, key=str)))
        if data.draw(st.booleans()):
            target[key] = data.draw(junk)
            break
        target = target[key]
    diagnostics = reference.validate(near.pack)
    assert all(d.severity in ("error", "warning") for d in diagnostics)


def apply(
    session: reference.Session, clock: reference.ManualClock, pack: dict[str, Any], step: Any
) -> tuple[Any, ...]:
    """One script step; only refusals (``Rejection``) may be raised."""
    kind = next(iter(step))
    try:
        if kind == "event":
            return ("ok", session.send(step["event"], step.get("source", "host")).to_dict())
        if kind == "set_artifact":
            session.set_artifact(step["set_artifact"]["name"], step["set_artifact"]["value"])
        elif kind == "tool_calls":
            session.record_tool_calls(step["tool_calls"])
        elif kind == "advance_clock":
            clock.advance(step["advance_clock"])
        elif kind == "run_composition":
            run = step["run_composition"]
            result = reference.run_composition(pack, run["name"], run["input"], run["mocks"])
            return ("ran", result.to_dict()["status"])
    except reference.Rejection as rejection:
        return ("refused", rejection.code, rejection.limit)
    return ("ok",)


def observe(session: reference.Session) -> dict[str, Any]:
    return session.state()


@FUZZ
@given(st.data())
def test_every_valid_pack_runs_every_script(data: st.DataObject) -> None:
    pack = data.draw(strategies.packs(compositions=True))
    script = data.draw(strategies.scripts(pack, undeclared_artifacts=True))
    assert [d for d in reference.validate(pack) if d.severity == "error"] == []
    clock = reference.ManualClock()
    session = reference.start_session(reference.compile_workflow(pack), clock=clock)
    for step in script:
        if "snapshot_restore" in step:
            session = reference.restore_session(session.workflow, session.snapshot(), clock=clock)
        else:
            apply(session, clock, pack, step)
        state = session.state()
        assert state["status"] in ("active", "completed", "budget_exhausted")
        assert state["current_state"] in pack["workflow"]["states"]


@FUZZ
@given(st.data())
def test_a_snapshot_restored_at_any_step_continues_identically(data: st.DataObject) -> None:
    pack = data.draw(strategies.packs())
    script = data.draw(strategies.scripts(pack, snapshots=False, undeclared_artifacts=True))
    at = data.draw(st.integers(0, len(script)))
    workflow = reference.compile_workflow(pack)
    clock = reference.ManualClock()
    straight = reference.start_session(workflow, clock=clock)
    other_clock = reference.ManualClock(1000.0)
    restored = reference.start_session(workflow, clock=other_clock)
    for index, step in enumerate(script):
        if index == at:
            restored = reference.restore_session(workflow, restored.snapshot(), clock=other_clock)
        assert apply(straight, clock, pack, step) == apply(restored, other_clock, pack, step)
        assert observe(straight) == observe(restored)
    if at == len(script):
        restored = reference.restore_session(workflow, restored.snapshot(), clock=other_clock)
    assert observe(straight) == observe(restored)
