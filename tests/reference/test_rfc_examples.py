"""The RFC 0005 and RFC 0009 examples, as shipped in ``examples/rfc/``, through the reference.

* the files are the RFC texts verbatim (only whitespace differs; checked against the RFC texts
  in ``../shared/spec`` when that folder is present);
* RFC 0005's examples validate with no errors and exactly the warnings listed here;
* RFC 0009's verbatim examples only fail on their spaced tool display names, and the
  ``*-corrected.yaml`` copies (tool ``name`` = tool key) have no errors;
* the loop, artifact and budget parts of RFC 0009's examples run as SEMANTICS section 3 says,
  including the RFC's own artifact trace table for the codegen loop.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

import reference

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "rfc"
SPEC = ROOT.parent / "shared" / "spec"

EXAMPLE_FILES = (
    "rfc0005-example1-simple.json",
    "rfc0005-example2-multi-phase.yaml",
    "rfc0005-example3-external.json",
    "rfc0009-example1-codegen.yaml",
    "rfc0009-example1-codegen-corrected.yaml",
    "rfc0009-example2-data-explorer.yaml",
    "rfc0009-example2-data-explorer-corrected.yaml",
    "rfc0009-example3-self-correcting.json",
    "rfc0009-example4-ops-remediation.yaml",
    "rfc0009-example4-ops-remediation-corrected.yaml",
    "rfc0009-example5-backward-compatible.yaml",
)

# RFC 0009 examples whose tools carry display names with spaces: tool key -> RFC name.
SPACED_TOOL_NAMES = {
    "rfc0009-example1-codegen": {
        "write_file": "Write File",
        "read_file": "Read File",
        "run_tests": "Run Tests",
    },
    "rfc0009-example2-data-explorer": {
        "run_query": "Run SQL Query",
        "describe_table": "Describe Table",
    },
    "rfc0009-example4-ops-remediation": {
        "query_metrics": "Query Metrics",
        "read_logs": "Read Logs",
        "check_service_health": "Check Service Health",
        "apply_config": "Apply Config",
        "restart_service": "Restart Service",
        "run_healthcheck": "Run Health Check",
    },
}


def load(name: str) -> dict[str, Any]:
    return reference.load_pack(str(EXAMPLES / name))


def diagnostics(pack: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(d.severity, d.code, d.path) for d in reference.validate(pack)]


def errors(pack: dict[str, Any]) -> list[tuple[str, str]]:
    return [(d.code, d.path) for d in reference.validate(pack) if d.severity == "error"]


def start(name: str) -> tuple[reference.Session, reference.ManualClock]:
    clock = reference.ManualClock()
    return reference.start_session(load(name), clock=clock), clock


def run(session: reference.Session, *events: str) -> list[dict[str, Any]]:
    return [session.send(event, source="host").to_dict() for event in events]


def core(state: dict[str, Any]) -> dict[str, Any]:
    """The parts of the session data a rejection must leave unchanged (X4)."""
    keys = ("current_state", "visit_counts", "history", "artifacts", "artifact_history")
    return {key: state[key] for key in keys}


# -- the files -------------------------------------------------------------------------------------


def test_the_example_folder_holds_exactly_the_rfc_examples() -> None:
    # The RFC 0010 examples are checked by test_composition_validation.py, the RFC 0011 and
    # RFC 0014 ones by test_rfc0011_examples.py and test_rfc0014_examples.py.
    names = sorted(
        p.name
        for p in EXAMPLES.iterdir()
        if not p.name.startswith(("rfc0010-", "rfc0011-", "rfc0014-"))
    )
    assert names == sorted(EXAMPLE_FILES)


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_every_example_loads_as_a_pack(name: str) -> None:
    pack = load(name)
    assert {"id", "name", "version", "template_engine", "prompts", "workflow"} <= set(pack)
    assert pack["workflow"]["version"] == (1 if "rfc0005" in name or "example5" in name else 2)


@pytest.mark.parametrize("base", sorted(SPACED_TOOL_NAMES))
def test_corrected_copies_differ_only_in_tool_names(base: str) -> None:
    verbatim = load(f"{base}.yaml")
    corrected = load(f"{base}-corrected.yaml")
    assert {key: tool["name"] for key, tool in verbatim["tools"].items()} == SPACED_TOOL_NAMES[base]
    assert {key: tool["name"] for key, tool in corrected["tools"].items()} == {
        key: key for key in SPACED_TOOL_NAMES[base]
    }
    renamed = copy.deepcopy(verbatim)
    for key, tool in renamed["tools"].items():
        tool["name"] = key
    assert renamed == corrected
    header = (EXAMPLES / f"{base}-corrected.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith(f"# Corrected copy of {base}.yaml")


def test_yaml_reconstruction_puts_fields_under_the_right_parents() -> None:
    """Spot checks where the RFC text lost the indentation that decides the parent."""
    codegen = load("rfc0009-example1-codegen.yaml")
    assert codegen["prompts"]["coder"]["tools"] == ["write_file", "read_file"]
    assert codegen["prompts"]["test_runner"]["tools"] == ["run_tests", "read_file"]
    assert codegen["prompts"]["planner"]["variables"] == [
        {"name": "requirements", "type": "string", "required": True}
    ]
    assert codegen["prompts"]["planner"]["system_template"].endswith(
        "Requirements: {{requirements}}\n"
    )
    assert codegen["tools"]["write_file"]["parameters"]["required"] == ["path", "content"]
    assert set(codegen["workflow"]["states"]["implement"]["artifacts"]) == {
        "commit_sha",
        "change_summary",
        "test_report",
    }
    ops = load("rfc0009-example4-ops-remediation.yaml")
    assert ops["prompts"]["diagnostician"]["tools"] == [
        "query_metrics",
        "read_logs",
        "check_service_health",
    ]
    assert ops["prompts"]["verifier"]["tools"] == ["query_metrics", "check_service_health"]
    assert "tools" not in ops["prompts"]["postmortem"]
    assert ops["tools"]["apply_config"]["parameters"]["properties"]["config"] == {"type": "object"}
    assert ops["workflow"]["states"]["await_approval"]["orchestration"] == "external"
    multi = load("rfc0005-example2-multi-phase.yaml")
    assert multi["workflow"]["engine"] == {
        "max_state_duration_ms": 300000,
        "enable_state_snapshots": True,
        "telemetry": {"track_transitions": True, "log_level": "info"},
    }
    assert multi["prompts"]["intake"]["system_template"] == (
        "Process and validate incoming requests. Gather necessary context and requirements.\n"
        "When sufficient information is collected, emit the RequirementsGathered event.\n"
    )


# -- fidelity to the RFC texts ---------------------------------------------------------------------

needs_spec = pytest.mark.skipif(
    not SPEC.is_dir(), reason=f"the RFC texts are not available ({SPEC} is absent)"
)


def _rfc_block(rfc: str, heading: str, next_heading: str) -> list[str]:
    """The non-blank lines, stripped, between two headings of an RFC text."""
    lines = [line.strip() for line in (SPEC / rfc).read_text(encoding="utf-8").splitlines()]
    begin = lines.index(heading)
    end = lines.index(next_heading, begin + 1)
    return [line for line in lines[begin + 1 : end] if line]


def _file_lines(name: str) -> list[str]:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip()]


VERBATIM = (
    # file, RFC, heading before, heading after, prose lines between heading and example
    (
        "rfc0005-example1-simple.json",
        "rfc-0005-workflow.txt",
        "Example 1: Simple Two-State Workflow",
        "Example 2: Multi-Phase Agent Workflow",
        0,
    ),
    (
        "rfc0005-example2-multi-phase.yaml",
        "rfc-0005-workflow.txt",
        "Example 2: Multi-Phase Agent Workflow",
        "Example 3: External Orchestration",
        0,
    ),
    (
        "rfc0005-example3-external.json",
        "rfc-0005-workflow.txt",
        "Example 3: External Orchestration",
        "Drawbacks",
        0,
    ),
    (
        "rfc0009-example1-codegen.yaml",
        "rfc-0009-agent-loops.txt",
        "Example 1: Codegen Agent Loop",
        "Example 2: Agentic Data Exploration",
        2,
    ),
    (
        "rfc0009-example2-data-explorer.yaml",
        "rfc-0009-agent-loops.txt",
        "Example 2: Agentic Data Exploration",
        "Example 3: Minimal Self-Correcting Loop",
        1,
    ),
    (
        "rfc0009-example3-self-correcting.json",
        "rfc-0009-agent-loops.txt",
        "Example 3: Minimal Self-Correcting Loop",
        "Example 4: Autonomous Remediation with Human Checkpoint",
        1,
    ),
    (
        "rfc0009-example4-ops-remediation.yaml",
        "rfc-0009-agent-loops.txt",
        "Example 4: Autonomous Remediation with Human Checkpoint",
        "Example 5: Backward-Compatible Workflow (No New Features)",
        1,
    ),
)


@needs_spec
@pytest.mark.parametrize(
    ("name", "rfc", "heading", "next_heading", "prose"), VERBATIM, ids=[v[0] for v in VERBATIM]
)
def test_example_is_the_rfc_text_up_to_whitespace(
    name: str, rfc: str, heading: str, next_heading: str, prose: int
) -> None:
    block = _rfc_block(rfc, heading, next_heading)
    assert _file_lines(name) == block[prose:]


@needs_spec
def test_example5_contains_the_rfc_fragment_verbatim() -> None:
    fragment = _rfc_block(
        "rfc-0009-agent-loops.txt",
        "Example 5: Backward-Compatible Workflow (No New Features)",
        "Drawbacks",
    )[1:]
    assert fragment[0] == "workflow:"
    lines = _file_lines("rfc0009-example5-backward-compatible.yaml")
    starts = [i for i in range(len(lines)) if lines[i : i + len(fragment)] == fragment]
    assert len(starts) == 1


# -- validation ------------------------------------------------------------------------------------

RFC0005_WARNINGS = {
    "rfc0005-example1-simple.json": [],
    # No terminal state, and every phase can return to intake: the loop is unbounded.
    "rfc0005-example2-multi-phase.yaml": [
        ("warning", "loop-without-budget", "/workflow"),
        ("warning", "no-terminal-state", "/workflow/states"),
        ("warning", "cycle-unbounded", "/workflow/states/execution"),
        ("warning", "no-terminal-path", "/workflow/states/execution"),
        ("warning", "no-terminal-path", "/workflow/states/intake"),
        ("warning", "no-terminal-path", "/workflow/states/planning"),
        ("warning", "no-terminal-path", "/workflow/states/validation"),
    ],
    "rfc0005-example3-external.json": [],
}


@pytest.mark.parametrize("name", sorted(RFC0005_WARNINGS))
def test_rfc0005_examples_are_valid_with_exactly_these_warnings(name: str) -> None:
    pack = load(name)
    assert diagnostics(pack) == RFC0005_WARNINGS[name]
    assert reference.is_valid(reference.validate(pack))


@pytest.mark.parametrize("base", sorted(SPACED_TOOL_NAMES))
def test_verbatim_rfc0009_examples_fail_only_on_spaced_tool_names(base: str) -> None:
    verbatim = reference.validate(load(f"{base}.yaml"))
    assert [(d.code, d.path) for d in verbatim if d.severity == "error"] == [
        ("schema", f"/tools/{key}/name") for key in sorted(SPACED_TOOL_NAMES[base])
    ]
    corrected = reference.validate(load(f"{base}-corrected.yaml"))
    assert [d for d in verbatim if d.severity == "warning"] == corrected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("rfc0009-example1-codegen-corrected.yaml", []),
        ("rfc0009-example2-data-explorer-corrected.yaml", []),
        # The worker retries itself with max_visits: bounded, but there is no engine.budget.
        (
            "rfc0009-example3-self-correcting.json",
            [("warning", "loop-without-budget", "/workflow")],
        ),
        ("rfc0009-example4-ops-remediation-corrected.yaml", []),
        ("rfc0009-example5-backward-compatible.yaml", []),
    ],
)
def test_runnable_rfc0009_examples_have_no_errors(
    name: str, expected: list[tuple[str, str, str]]
) -> None:
    assert diagnostics(load(name)) == expected


def test_example5_without_the_added_state_is_the_bare_fragment() -> None:
    """The fragment alone names a state it never defines; hence the added ``execution``."""
    pack = load("rfc0009-example5-backward-compatible.yaml")
    assert list(pack["workflow"]["states"]) == ["intake", "planning", "execution"]
    assert pack["workflow"]["states"]["execution"] == {"prompt_task": "execution"}
    del pack["workflow"]["states"]["execution"]
    assert errors(pack) == [
        ("event-target-unknown", "/workflow/states/planning/on_event/PlanReady")
    ]


# -- RFC 0005 runs ---------------------------------------------------------------------------------


def test_rfc0005_example1_runs_to_its_implicitly_terminal_state() -> None:
    session, _ = start("rfc0005-example1-simple.json")
    assert session.state()["available_events"] == ["AnalysisComplete"]
    assert session.send("AnalysisComplete", source="agent").to_dict() == {
        "from": "analyze",
        "to": "execute",
        "event": "AnalysisComplete",
    }
    state = session.state()
    assert (state["status"], state["terminal"], state["prompt_task"]) == (
        "completed",
        True,
        "execute",
    )
    assert state["artifact_history"] == []


def test_rfc0005_example3_only_accepts_host_events() -> None:
    session, _ = start("rfc0005-example3-external.json")
    before = session.state()
    with pytest.raises(reference.Rejection) as rejected:
        session.send("AnalysisComplete", source="agent")
    assert rejected.value.code == "event-source-not-allowed"
    assert session.state() == before
    run(session, "AnalysisComplete")
    assert (session.current_state, session.status) == ("report", "completed")


def test_rfc0005_example2_loops_without_ever_completing() -> None:
    session, _ = start("rfc0005-example2-multi-phase.yaml")
    events = ["RequirementsGathered", "PlanReady", "TaskComplete", "ValidationPassed"] * 3
    run(session, *events)
    state = session.state()
    assert state["current_state"] == "intake"
    assert state["status"] == "active"
    assert state["visit_counts"] == {"execution": 3, "intake": 4, "planning": 3, "validation": 3}
    assert state["artifact_history"] == []  # no artifacts declared: nothing to capture (X12)


# -- RFC 0009 Example 1: codegen -------------------------------------------------------------------

CODEGEN = "rfc0009-example1-codegen-corrected.yaml"

# RFC 0009, "Example artifact trace for a codegen loop": one row per transition.
RFC_CODEGEN_TRACE = [
    ("plan", "implement", "PlanReady", {}),
    ("implement", "test", "CodeReady", {"commit_sha": "abc123"}),
    ("test", "implement", "TestsFailed", {"commit_sha": "abc123", "test_report": "2/5 pass"}),
    ("implement", "test", "CodeReady", {"commit_sha": "def456", "test_report": "2/5 pass"}),
    ("test", "review", "TestsPassed", {"commit_sha": "def456", "test_report": "5/5 pass"}),
    ("review", "done", "Approved", {"commit_sha": "def456", "test_report": "5/5 pass"}),
]


def test_codegen_reproduces_the_rfc_artifact_trace_table() -> None:
    session, _ = start(CODEGEN)
    # Row "-> plan (entry)": nothing captured yet, no values.
    assert session.state()["artifacts"] == {}
    assert session.state()["artifact_history"] == []
    run(session, "PlanReady")
    session.set_artifact("commit_sha", "abc123")
    run(session, "CodeReady")
    session.set_artifact("test_report", "2/5 pass")
    run(session, "TestsFailed")
    session.set_artifact("commit_sha", "def456")
    run(session, "CodeReady")
    session.set_artifact("test_report", "5/5 pass")
    run(session, "TestsPassed", "Approved")

    state = session.state()
    assert state["artifact_history"] == [
        {"from_state": f, "to_state": t, "event": e, "values": v}
        for f, t, e, v in RFC_CODEGEN_TRACE
    ]
    assert state["history"] == [
        {"from": f, "to": t, "event": e} for f, t, e, _ in RFC_CODEGEN_TRACE
    ]
    assert state["artifacts"] == {"commit_sha": "def456", "test_report": "5/5 pass"}
    assert state["visit_counts"] == {"done": 1, "implement": 2, "plan": 1, "review": 1, "test": 2}
    assert (state["current_state"], state["status"], state["terminal"]) == (
        "done",
        "completed",
        True,
    )
    assert (state["prompt_task"], state["available_events"]) == ("summarizer", [])
    with pytest.raises(reference.Rejection) as rejected:
        session.send("ChangesNeeded")
    assert rejected.value.code == "terminal-state"


def test_codegen_artifacts_are_workflow_scoped_and_declared() -> None:
    session, _ = start(CODEGEN)
    # Set in `plan`, which declares nothing: the name is still the workflow's artifact.
    session.set_artifact("change_summary", "first cut")
    run(session, "PlanReady")
    assert session.state()["artifact_history"][0]["values"] == {"change_summary": "first cut"}
    session.set_artifact("change_summary", "second cut")  # replace mode
    assert session.state()["artifacts"] == {"change_summary": "second cut"}
    before = session.state()
    with pytest.raises(reference.Rejection) as rejected:
        session.set_artifact("plan", "a template variable, not an artifact")
    assert rejected.value.code == "artifact-undeclared"
    assert session.state() == before


def _exhaust_implement(session: reference.Session) -> list[dict[str, Any]]:
    """Go round implement/test until implement's max_visits (10) redirects to review."""
    run(session, "PlanReady")
    run(session, *["CodeReady", "TestsFailed"] * 9)
    return run(session, "CodeReady", "TestsFailed")


def test_codegen_implement_loop_is_bounded_by_max_visits() -> None:
    session, _ = start(CODEGEN)
    last = _exhaust_implement(session)
    assert last[-1] == {
        "from": "test",
        "to": "review",
        "event": "TestsFailed",
        "redirected": True,
        "original_target": "implement",
    }
    state = session.state()
    assert state["visit_counts"] == {"implement": 10, "plan": 1, "review": 1, "test": 10}
    assert state["status"] == "active"
    # Back to implement from review: still at its limit, so review again.
    assert run(session, "ChangesNeeded") == [
        {
            "from": "review",
            "to": "review",
            "event": "ChangesNeeded",
            "redirected": True,
            "original_target": "implement",
        }
    ]
    run(session, "Approved")
    assert (session.current_state, session.status) == ("done", "completed")


def test_codegen_max_total_visits_30_stops_the_review_loop() -> None:
    session, _ = start(CODEGEN)
    _exhaust_implement(session)  # 22 visits: plan 1, implement 10, test 10, review 1
    run(session, *["ChangesNeeded"] * 8)  # each one redirected back into review
    state = session.state()
    assert sum(state["visit_counts"].values()) == 30
    assert len(state["history"]) == 29
    with pytest.raises(reference.Rejection) as rejected:
        session.send("Approved")
    assert (rejected.value.code, rejected.value.limit) == ("budget-exhausted", "max_total_visits")
    assert session.status == "budget_exhausted"
    assert core(session.state()) == core(state)
    with pytest.raises(reference.Rejection) as again:
        session.send("Approved")
    assert again.value.code == "budget-exhausted"


# -- budgets of the three RFC 0009 examples that declare one ---------------------------------------

BUDGETS = [
    # file, first event, max_tool_calls, max_wall_time_sec (as written in the RFC)
    (CODEGEN, "PlanReady", 200, 600),
    ("rfc0009-example2-data-explorer-corrected.yaml", "HypothesisFormed", 100, 300),
    ("rfc0009-example4-ops-remediation-corrected.yaml", "DiagnosisReady", 50, 1800),
]


@pytest.mark.parametrize(("name", "event", "tool_calls", "_wall"), BUDGETS)
def test_max_tool_calls_stops_the_next_transition(
    name: str, event: str, tool_calls: int, _wall: int
) -> None:
    session, _ = start(name)
    session.record_tool_calls(tool_calls - 1)
    run(session, event)
    session.record_tool_calls(1)
    state = session.state()
    assert state["tool_calls"] == tool_calls
    with pytest.raises(reference.Rejection) as rejected:
        session.send(state["available_events"][0])
    assert (rejected.value.code, rejected.value.limit) == ("budget-exhausted", "max_tool_calls")
    assert session.status == "budget_exhausted"
    assert core(session.state()) == core(state)


@pytest.mark.parametrize(("name", "event", "_calls", "wall"), BUDGETS)
def test_max_wall_time_sec_stops_the_next_transition(
    name: str, event: str, _calls: int, wall: int
) -> None:
    session, clock = start(name)
    clock.advance(wall - 0.5)
    run(session, event)
    clock.advance(0.5)
    state = session.state()
    assert state["elapsed_sec"] == wall
    with pytest.raises(reference.Rejection) as rejected:
        session.send(state["available_events"][0])
    assert (rejected.value.code, rejected.value.limit) == ("budget-exhausted", "max_wall_time_sec")
    assert session.status == "budget_exhausted"
    assert core(session.state()) == core(state)


# -- RFC 0009 Example 2: data explorer -------------------------------------------------------------


def test_data_explorer_accumulates_findings_until_max_visits_sends_it_to_report() -> None:
    session, _ = start("rfc0009-example2-data-explorer-corrected.yaml")
    transitions = []
    for round_ in range(1, 9):
        assert session.current_state == "hypothesize"
        session.set_artifact("current_hypothesis", f"H{round_}")
        session.set_artifact("queries_run", f"q{round_};")
        run(session, "HypothesisFormed")
        session.set_artifact("query_result_ref", f"query-{round_}")
        run(session, "QueryComplete")
        # `analyze` declares nothing: findings keeps hypothesize's append mode (X11).
        session.set_artifact("findings", f"f{round_};")
        transitions = run(session, "NeedsMoreData")
    assert transitions[-1] == {
        "from": "analyze",
        "to": "report",
        "event": "NeedsMoreData",
        "redirected": True,
        "original_target": "hypothesize",
    }
    state = session.state()
    assert state["visit_counts"] == {"analyze": 8, "hypothesize": 8, "query": 8, "report": 1}
    assert (state["status"], state["prompt_task"]) == ("completed", "reporter")
    assert state["artifacts"] == {
        "current_hypothesis": "H8",
        "findings": "".join(f"f{i};" for i in range(1, 9)),
        "query_result_ref": "query-8",
        "queries_run": "".join(f"q{i};" for i in range(1, 9)),
    }
    assert len(state["artifact_history"]) == 24
    assert state["artifact_history"][2]["values"] == {
        "current_hypothesis": "H1",
        "findings": "f1;",
        "queries_run": "q1;",
        "query_result_ref": "query-1",
    }


# -- RFC 0009 Example 3: self-correcting loop ------------------------------------------------------

SELF_CORRECTING = "rfc0009-example3-self-correcting.json"


def test_self_correcting_runs_work_three_times_then_gives_up() -> None:
    session, _ = start(SELF_CORRECTING)
    assert session.state()["visit_counts"] == {"work": 1}  # the entry is the first run
    transitions = []
    for attempt in (1, 2, 3):
        assert session.current_state == "work"
        session.set_artifact("error_summary", f"TypeError: attempt {attempt}")
        transitions += run(session, "Error")
    assert transitions == [
        {"from": "work", "to": "work", "event": "Error"},
        {"from": "work", "to": "work", "event": "Error"},
        {
            "from": "work",
            "to": "give_up",
            "event": "Error",
            "redirected": True,
            "original_target": "work",
        },
    ]
    state = session.state()
    assert state["visit_counts"] == {"give_up": 1, "work": 3}
    assert (state["current_state"], state["status"], state["terminal"]) == (
        "give_up",
        "completed",
        True,
    )
    assert state["prompt_task"] == "fallback"
    assert state["artifacts"] == {"error_summary": "TypeError: attempt 3"}
    assert [h["values"] for h in state["artifact_history"]] == [
        {"error_summary": f"TypeError: attempt {attempt}"} for attempt in (1, 2, 3)
    ]
    with pytest.raises(reference.Rejection) as rejected:
        session.send("Success")
    assert rejected.value.code == "terminal-state"


def test_self_correcting_success_completes_with_the_worker_prompt() -> None:
    session, _ = start(SELF_CORRECTING)
    session.send("Error", source="agent")  # internal (the default): the agent may send events
    session.send("Success", source="agent")
    state = session.state()
    assert (state["current_state"], state["status"], state["prompt_task"]) == (
        "complete",
        "completed",
        "worker",
    )
    assert state["visit_counts"] == {"complete": 1, "work": 2}


# -- RFC 0009 Example 4: ops remediation -----------------------------------------------------------

OPS = "rfc0009-example4-ops-remediation-corrected.yaml"


def test_ops_approval_is_external_only_the_host_may_approve() -> None:
    session, _ = start(OPS)
    session.send("DiagnosisReady", source="agent")
    session.send("FixProposed", source="agent")
    state = session.state()
    assert state["current_state"] == "await_approval"
    assert state["available_events"] == ["Approved", "Rejected"]
    for event in ("Approved", "Rejected"):
        with pytest.raises(reference.Rejection) as rejected:
            session.send(event, source="agent")
        assert rejected.value.code == "event-source-not-allowed"
        assert session.state() == state
    assert session.send("Approved", source="host").to_dict() == {
        "from": "await_approval",
        "to": "execute",
        "event": "Approved",
    }
    session.send("FixApplied", source="agent")  # execute is internal again
    assert session.current_state == "verify"


def test_ops_diagnosis_log_appends_until_max_visits_forces_a_proposal() -> None:
    session, _ = start(OPS)
    for step in range(1, 6):
        assert session.current_state == "diagnose"
        session.set_artifact("diagnosis_log", f'{{"step": {step}}}\n')
        session.set_artifact("diagnosis", f"guess {step}")
        last = run(session, "NeedMoreData")
    assert last == [
        {
            "from": "diagnose",
            "to": "propose",
            "event": "NeedMoreData",
            "redirected": True,
            "original_target": "diagnose",
        }
    ]
    state = session.state()
    assert state["visit_counts"] == {"diagnose": 5, "propose": 1}
    assert state["artifacts"] == {
        "diagnosis": "guess 5",
        "diagnosis_log": "".join(f'{{"step": {step}}}\n' for step in range(1, 6)),
    }


def test_ops_fourth_failed_verification_ends_in_postmortem_within_budget() -> None:
    session, _ = start(OPS)
    round_trip = ["DiagnosisReady", "FixProposed", "Approved", "FixApplied"]
    run(session, *round_trip, "StillBroken")
    run(session, *round_trip, "StillBroken")
    run(session, *round_trip, "StillBroken")
    last = run(session, *round_trip)[-1]
    assert last == {
        "from": "execute",
        "to": "postmortem",
        "event": "FixApplied",
        "redirected": True,
        "original_target": "verify",
    }
    state = session.state()
    assert state["visit_counts"] == {
        "await_approval": 4,
        "diagnose": 4,
        "execute": 4,
        "postmortem": 1,
        "propose": 4,
        "verify": 3,
    }
    assert sum(state["visit_counts"].values()) == 20  # exactly max_total_visits
    assert (state["status"], state["prompt_task"]) == ("completed", "postmortem")


def test_ops_max_total_visits_20_stops_an_endless_rejection_loop() -> None:
    session, _ = start(OPS)
    reply = {"diagnose": "DiagnosisReady", "propose": "FixProposed", "await_approval": "Rejected"}
    for _ in range(19):
        session.send(reply[session.current_state])
    state = session.state()
    # diagnose reached max_visits 5, after which Rejected is redirected to propose.
    assert state["visit_counts"] == {"await_approval": 7, "diagnose": 5, "propose": 8}
    assert state["history"][-1] == {"from": "await_approval", "to": "propose", "event": "Rejected"}
    with pytest.raises(reference.Rejection) as rejected:
        session.send("FixProposed")
    assert (rejected.value.code, rejected.value.limit) == ("budget-exhausted", "max_total_visits")
    assert session.status == "budget_exhausted"
    assert core(session.state()) == core(state)
