"""Snapshots of the reference's full traces on rich scripts, so a change in behaviour is a diff.

Update deliberately with ``pytest --snapshot-update`` and review the diff of ``__snapshots__``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import reference

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rfc"

# (example file, script): a script step is an event ("Name" or "agent:Name"), or
# ("artifact", name, value), ("tools", n), ("clock", seconds), ("snapshot",).
SCRIPTS: dict[str, tuple[str, list[Any]]] = {
    "codegen-artifact-trace": (
        "rfc0009-example1-codegen-corrected.yaml",
        [
            "PlanReady",
            ("artifact", "commit_sha", "abc123"),
            "CodeReady",
            ("artifact", "test_report", "2/5 pass"),
            "TestsFailed",
            ("artifact", "commit_sha", "def456"),
            ("artifact", "change_summary", "fix parser"),
            "CodeReady",
            ("artifact", "test_report", "5/5 pass"),
            "TestsPassed",
            "Approved",
            "Approved",
        ],
    ),
    "self-correcting-until-give-up": (
        "rfc0009-example3-self-correcting.json",
        [
            ("artifact", "error_summary", "timeout"),
            "Error",
            ("artifact", "error_summary", "parse error"),
            "Error",
            ("snapshot",),
            "Error",
            "Success",
        ],
    ),
    "ops-remediation-approval-and-budgets": (
        "rfc0009-example4-ops-remediation-corrected.yaml",
        [
            ("artifact", "diagnosis_log", '[{"tool":"read_logs"}]'),
            "NeedMoreData",
            ("artifact", "diagnosis_log", '[{"tool":"query_metrics"}]'),
            ("artifact", "diagnosis", "disk full on db-1"),
            "DiagnosisReady",
            ("artifact", "proposed_fix", '{"action":"expand_volume"}'),
            "FixProposed",
            "agent:Approved",
            "Approved",
            ("tools", 49),
            "FixApplied",
            ("tools", 1),
            "StillBroken",
            ("clock", 1800),
            "DiagnosisReady",
        ],
    ),
    "multi-phase-loop": (
        "rfc0005-example2-multi-phase.yaml",
        [
            "RequirementsGathered",
            "PlanRevisionNeeded",
            "PlanReady",
            "BlockerFound",
            "PlanReady",
            "TaskComplete",
            "ValidationFailed",
            "TaskComplete",
            "ValidationPassed",
            "Unknown",
        ],
    ),
}


def run_script(example: str, script: list[Any]) -> list[dict[str, Any]]:
    pack = reference.load_pack(str(EXAMPLES / example))
    clock = reference.ManualClock()
    session = reference.start_session(pack, clock=clock)
    trace: list[dict[str, Any]] = [{"step": "start", "state": observe(session)}]
    for step in script:
        record: dict[str, Any] = {"step": step if isinstance(step, str) else list(step)}
        try:
            if isinstance(step, str):
                source, _, event = step.rpartition(":")
                record["transition"] = session.send(event, source or "host").to_dict()
            elif step[0] == "artifact":
                session.set_artifact(step[1], step[2])
            elif step[0] == "tools":
                session.record_tool_calls(step[1])
            elif step[0] == "clock":
                clock.advance(step[1])
            else:
                session = reference.restore_session(pack, session.snapshot(), clock=clock)
        except reference.Rejection as rejection:
            record["rejection"] = {"code": rejection.code, "limit": rejection.limit}
        record["state"] = observe(session)
        trace.append(record)
    return trace


def observe(session: reference.Session) -> dict[str, Any]:
    state = session.state()
    state.pop("history")  # the transitions are in the trace already
    return state


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_trace(name: str, snapshot: Any) -> None:
    example, script = SCRIPTS[name]
    assert run_script(example, script) == snapshot
