"""Tests of ``reference.validate`` against SEMANTICS.md section 2 (workflow validation).

Every diagnostic code that applies to workflows has at least one test that triggers it (exact
code, severity and JSON-pointer path) and at least one near miss that must stay silent. The
structural cases, the "own code instead of ``schema``, once" rule and the determinism
requirements (stable order, independent of the order states are written in) follow.

Packs are built by :func:`make_pack`: a minimal valid pack whose prompts are ``work``,
``check`` and ``finish``; each test writes only its ``workflow`` (inline YAML).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import Any

import pytest

import reference
from reference import Diagnostic

# -- helpers ----------------------------------------------------------------------------------

_BASE_PACK = """\
id: test-pack
name: Test pack
version: 1.0.0
template_engine:
  version: v1
  syntax: "{{variable}}"
prompts:
  work:
    id: work
    name: Work
    version: 1.0.0
    system_template: Do the work.
  check:
    id: check
    name: Check
    version: 1.0.0
    system_template: Check the work.
  finish:
    id: finish
    name: Finish
    version: 1.0.0
    system_template: Summarise.
"""


def make_pack(
    workflow: str | Any = None,
    *,
    templates: Mapping[str, str] | None = None,
    compositions: str | None = None,
) -> dict[str, Any]:
    """Return a minimal valid pack, with ``workflow`` (YAML text, or a value used as is).

    Arguments:
        workflow: the ``workflow`` object as YAML text; any non-string value is used as is;
            ``None`` leaves the pack without a workflow.
        templates: extra (or replacing) prompts, prompt key -> ``system_template``.
        compositions: the root ``compositions`` object as YAML text.
    """
    pack = reference.load_pack_string(_BASE_PACK)
    for key, template in (templates or {}).items():
        pack["prompts"][key] = {
            "id": key,
            "name": key.title(),
            "version": "1.0.0",
            "system_template": template,
        }
    if compositions is not None:
        pack["compositions"] = reference.load_pack_string(textwrap.dedent(compositions))
    if isinstance(workflow, str):
        pack["workflow"] = reference.load_pack_string(textwrap.dedent(workflow))
    elif workflow is not None:
        pack["workflow"] = workflow
    return pack


def check(workflow: str | Any, **kwargs: Any) -> list[Diagnostic]:
    """Validate a pack built by :func:`make_pack`."""
    return reference.validate(make_pack(workflow, **kwargs))


def only(diagnostics: list[Diagnostic], code: str) -> list[tuple[str, str]]:
    """``(severity, path)`` of every diagnostic with ``code``, in reported order."""
    return [(d.severity, d.path) for d in diagnostics if d.code == code]


def errors(diagnostics: list[Diagnostic]) -> list[tuple[str, str]]:
    """``(code, path)`` of every error, in reported order."""
    return [(d.code, d.path) for d in diagnostics if d.severity == "error"]


def codes(diagnostics: list[Diagnostic]) -> set[str]:
    return {d.code for d in diagnostics}


def edit(text: str, old: str, new: str) -> str:
    """Replace the one occurrence of ``old`` in a YAML text (so a typo cannot go unnoticed)."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


STATE = "/workflow/states"

# A valid two-state workflow: the baseline most near misses are written against.
BASELINE = """
version: 2
entry: start
states:
  start:
    prompt_task: work
    on_event:
      Done: finish
  finish:
    prompt_task: finish
    terminal: true
"""

COMPOSITIONS = """
summarize:
  version: 1
  steps:
    - id: first
      kind: prompt
      prompt_task: work
"""


# -- baselines --------------------------------------------------------------------------------


def test_pack_without_workflow_is_clean() -> None:
    assert reference.validate(make_pack()) == []


def test_baseline_workflow_is_clean() -> None:
    assert check(BASELINE) == []


def test_rfc_0005_style_v1_workflow_is_clean() -> None:
    # v1: the last state has no on_event, which makes it terminal (X2); no dead-end in v1.
    workflow = """
    version: 1
    entry: intake
    states:
      intake:
        prompt_task: work
        persistence: transient
        orchestration: internal
        on_event:
          RequirementsGathered: execution
      execution:
        prompt_task: finish
        persistence: persistent
        orchestration: external
    """
    assert check(workflow) == []


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [3, 0, -1, 99])
def test_workflow_version_unsupported(version: int) -> None:
    diagnostics = check(edit(BASELINE, "version: 2", f"version: {version}"))
    assert only(diagnostics, "workflow-version-unsupported") == [("error", "/workflow/version")]
    assert only(diagnostics, "schema") == []


@pytest.mark.parametrize("version", [1, 2])
def test_workflow_version_supported_near_miss(version: int) -> None:
    diagnostics = check(edit(BASELINE, "version: 2", f"version: {version}"))
    assert errors(diagnostics) == []


@pytest.mark.parametrize("version", ['"1"', '"2"', "1.5", "true"])
def test_workflow_version_not_an_integer_is_schema_only(version: str) -> None:
    diagnostics = check(edit(BASELINE, "version: 2", f"version: {version}"))
    assert errors(diagnostics) == [("schema", "/workflow/version")]


def test_entry_unknown() -> None:
    diagnostics = check(edit(BASELINE, "entry: start", "entry: begin"))
    assert only(diagnostics, "entry-unknown") == [("error", "/workflow/entry")]


def test_entry_known_near_miss() -> None:
    # The entry names a state that is written as null: the key exists, so no entry-unknown
    # (the null state itself is a schema error).
    workflow = """
    version: 1
    entry: start
    states:
      start: null
      finish: {prompt_task: finish}
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "entry-unknown") == []
    assert errors(diagnostics) == [("schema", f"{STATE}/start")]


@pytest.mark.parametrize(
    ("task", "path"),
    [
        pytest.param("work", f"{STATE}/start/prompt_task", id="entry-state"),
        pytest.param("finish", f"{STATE}/finish/prompt_task", id="other-state"),
    ],
)
def test_prompt_task_unknown(task: str, path: str) -> None:
    workflow = edit(BASELINE, f"prompt_task: {task}\n", "prompt_task: ghost\n")
    assert only(check(workflow), "prompt-task-unknown") == [("error", path)]


def test_prompt_task_unknown_near_misses() -> None:
    # Every prompt_task is a key of prompts; and a composition-mode state's prompt_task is not
    # checked (prompt-task-unknown is about non-composition states).
    workflow = """
    version: 2
    entry: start
    states:
      start:
        prompt_task: check
        on_event:
          Done: compose
      compose:
        orchestration: composition
        composition: summarize
        prompt_task: ghost
        terminal: true
    """
    diagnostics = check(workflow, compositions=COMPOSITIONS)
    assert only(diagnostics, "prompt-task-unknown") == []
    assert errors(diagnostics) == []


def test_prompt_task_missing_reported_once_not_as_schema() -> None:
    workflow = edit(BASELINE, "  start:\n    prompt_task: work\n", "  start:\n")
    diagnostics = check(workflow)
    assert errors(diagnostics) == [("prompt-task-missing", f"{STATE}/start")]


@pytest.mark.parametrize("orchestration", ["internal", "external", "hybrid"])
def test_prompt_task_missing_with_explicit_orchestration(orchestration: str) -> None:
    workflow = edit(
        BASELINE,
        "  start:\n    prompt_task: work\n",
        f"  start:\n    orchestration: {orchestration}\n",
    )
    assert errors(check(workflow)) == [("prompt-task-missing", f"{STATE}/start")]


def test_prompt_task_missing_near_miss_composition_mode() -> None:
    workflow = edit(
        BASELINE,
        "  start:\n    prompt_task: work\n",
        "  start:\n    orchestration: composition\n    composition: summarize\n",
    )
    assert check(workflow, compositions=COMPOSITIONS) == []


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        pytest.param("ghost", [("error", f"{STATE}/start/on_event/Done")], id="unknown"),
        pytest.param("finish", [], id="near-miss-known"),
    ],
)
def test_event_target_unknown(target: str, expected: list[tuple[str, str]]) -> None:
    workflow = edit(BASELINE, "Done: finish", f"Done: {target}")
    assert only(check(workflow), "event-target-unknown") == expected


def test_event_target_unknown_on_terminal_state() -> None:
    # Edges of terminal states never fire, but their targets are still references to check.
    workflow = """
    version: 2
    entry: start
    states:
      start:
        prompt_task: work
        on_event: {Done: finish}
      finish:
        prompt_task: finish
        terminal: true
        on_event: {Again: ghost}
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "event-target-unknown") == [
        ("error", f"{STATE}/finish/on_event/Again")
    ]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        pytest.param("ghost", [("error", f"{STATE}/start/on_max_visits")], id="unknown"),
        pytest.param("finish", [], id="near-miss-known"),
    ],
)
def test_on_max_visits_unknown(target: str, expected: list[tuple[str, str]]) -> None:
    workflow = f"""
    version: 2
    entry: start
    engine:
      budget: {{max_total_visits: 10}}
    states:
      start:
        prompt_task: work
        max_visits: 3
        on_max_visits: {target}
        on_event: {{Retry: start, Done: finish}}
      finish:
        prompt_task: finish
        terminal: true
    """
    assert only(check(workflow), "on-max-visits-unknown") == expected


@pytest.mark.parametrize("orchestration", ["magic", "Internal", "compositions", "5", "null"])
def test_orchestration_invalid_reported_once_not_as_schema(orchestration: str) -> None:
    workflow = edit(
        BASELINE,
        "    prompt_task: work\n",
        f"    prompt_task: work\n    orchestration: {orchestration}\n",
    )
    diagnostics = check(workflow)
    assert errors(diagnostics) == [("orchestration-invalid", f"{STATE}/start/orchestration")]


@pytest.mark.parametrize("orchestration", ["internal", "external", "hybrid"])
def test_orchestration_valid_near_miss(orchestration: str) -> None:
    workflow = edit(
        BASELINE,
        "    prompt_task: work\n",
        f"    prompt_task: work\n    orchestration: {orchestration}\n",
    )
    assert check(workflow) == []


def test_composition_missing_reported_once_not_as_schema() -> None:
    workflow = edit(
        BASELINE, "  start:\n    prompt_task: work\n", "  start:\n    orchestration: composition\n"
    )
    diagnostics = check(workflow, compositions=COMPOSITIONS)
    assert errors(diagnostics) == [("composition-missing", f"{STATE}/start")]


def test_composition_missing_near_miss() -> None:
    workflow = edit(
        BASELINE,
        "  start:\n    prompt_task: work\n",
        "  start:\n    orchestration: composition\n    composition: summarize\n",
    )
    assert only(check(workflow, compositions=COMPOSITIONS), "composition-missing") == []


@pytest.mark.parametrize(
    "orchestration_line",
    ["", "    orchestration: internal\n", "    orchestration: external\n"],
    ids=["default", "internal", "external"],
)
def test_composition_not_allowed_reported_once_not_as_schema(orchestration_line: str) -> None:
    workflow = edit(
        BASELINE,
        "  start:\n    prompt_task: work\n",
        f"  start:\n    prompt_task: work\n{orchestration_line}    composition: summarize\n",
    )
    diagnostics = check(workflow, compositions=COMPOSITIONS)
    assert errors(diagnostics) == [("composition-not-allowed", f"{STATE}/start")]


def test_composition_not_allowed_near_miss() -> None:
    workflow = edit(
        BASELINE,
        "  start:\n    prompt_task: work\n",
        "  start:\n    orchestration: composition\n    composition: summarize\n",
    )
    assert only(check(workflow, compositions=COMPOSITIONS), "composition-not-allowed") == []


@pytest.mark.parametrize(
    ("compositions", "expected"),
    [
        pytest.param(COMPOSITIONS, [("error", f"{STATE}/start/composition")], id="other-name"),
        pytest.param(None, [("error", f"{STATE}/start/composition")], id="no-compositions"),
        pytest.param(edit(COMPOSITIONS, "summarize", "analyze"), [], id="near-miss-known"),
    ],
)
def test_composition_unknown(compositions: str | None, expected: list[tuple[str, str]]) -> None:
    workflow = edit(
        BASELINE,
        "  start:\n    prompt_task: work\n",
        "  start:\n    orchestration: composition\n    composition: analyze\n",
    )
    diagnostics = check(workflow, compositions=compositions)
    assert only(diagnostics, "composition-unknown") == expected
    assert [c for c, _ in errors(diagnostics) if c != "composition-unknown"] == []


# -- schema: structural violations ------------------------------------------------------------

# Each case replaces the baseline's `finish` state (or another part) and gives the exact
# errors expected, as (code, path).
_TERMINAL_FINISH = "  finish:\n    prompt_task: finish\n    terminal: true\n"


def _finish(extra: str) -> str:
    """The baseline with extra YAML lines (indented as state fields) on the finish state."""
    body = textwrap.indent(textwrap.dedent(extra).strip("\n") + "\n", "    ")
    return edit(BASELINE, _TERMINAL_FINISH, _TERMINAL_FINISH + body)


def _with_engine(engine: str) -> str:
    body = textwrap.indent(textwrap.dedent(engine).strip("\n") + "\n", "  ")
    return edit(BASELINE, "entry: start\n", "entry: start\nengine:\n" + body)


@pytest.mark.parametrize(
    ("workflow", "expected"),
    [
        pytest.param(_finish("max_visits: 0"), [f"{STATE}/finish/max_visits"], id="max-visits-0"),
        pytest.param(
            _finish("max_visits: -2"), [f"{STATE}/finish/max_visits"], id="max-visits-negative"
        ),
        pytest.param(
            _finish("max_visits: 2.5"), [f"{STATE}/finish/max_visits"], id="max-visits-float"
        ),
        pytest.param(
            _finish('max_visits: "3"'), [f"{STATE}/finish/max_visits"], id="max-visits-string"
        ),
        pytest.param(
            _with_engine("budget: {max_total_visits: 0}"),
            ["/workflow/engine/budget/max_total_visits"],
            id="budget-total-visits-0",
        ),
        pytest.param(
            _with_engine("budget: {max_tool_calls: 0}"),
            ["/workflow/engine/budget/max_tool_calls"],
            id="budget-tool-calls-0",
        ),
        pytest.param(
            _with_engine("budget: {max_wall_time_sec: 0}"),
            ["/workflow/engine/budget/max_wall_time_sec"],
            id="budget-wall-time-0",
        ),
        pytest.param(
            _with_engine("budget: {max_total_visits: 2.5}"),
            ["/workflow/engine/budget/max_total_visits"],
            id="budget-float",
        ),
        pytest.param(
            _with_engine('budget: {max_wall_time_sec: "600"}'),
            ["/workflow/engine/budget/max_wall_time_sec"],
            id="budget-string",
        ),
        pytest.param(
            _with_engine("budget: {max_tool_calls: true}"),
            ["/workflow/engine/budget/max_tool_calls"],
            id="budget-boolean",
        ),
        pytest.param(
            _finish("artifacts: {summary: {description: no type}}"),
            [f"{STATE}/finish/artifacts/summary"],
            id="artifact-without-type",
        ),
        pytest.param(
            _finish("artifacts: {summary: {type: text/plain, mode: merge}}"),
            [f"{STATE}/finish/artifacts/summary/mode"],
            id="artifact-mode-merge",
        ),
        pytest.param(
            _finish("artifacts: {summary: {type: text/plain, colour: red}}"),
            [f"{STATE}/finish/artifacts/summary"],
            id="artifact-unknown-property",
        ),
        pytest.param(
            _finish("artifacts: {summary: null}"),
            [f"{STATE}/finish/artifacts/summary"],
            id="artifact-null",
        ),
        pytest.param(
            _finish("artifacts: [summary]"),
            [f"{STATE}/finish/artifacts"],
            id="artifacts-list",
        ),
        pytest.param(_finish("colour: blue"), [f"{STATE}/finish"], id="state-unknown-property"),
        pytest.param(
            edit(BASELINE, "entry: start\n", "entry: start\nmetadata: {owner: me}\n"),
            ["/workflow"],
            id="workflow-unknown-property",
        ),
        pytest.param(
            _with_engine("budget: {max_total_visits: 5, max_tokens: 100}"),
            ["/workflow/engine/budget"],
            id="budget-unknown-property",
        ),
        pytest.param(_with_engine("budget: 10"), ["/workflow/engine/budget"], id="budget-int"),
        pytest.param(
            edit(BASELINE, "entry: start\n", "entry: start\nengine: [fast]\n"),
            ["/workflow/engine"],
            id="engine-list",
        ),
        pytest.param(
            edit(BASELINE, "entry: start", "entry: 5"), ["/workflow/entry"], id="entry-int"
        ),
        pytest.param(
            edit(BASELINE, "prompt_task: work", "prompt_task: 7"),
            [f"{STATE}/start/prompt_task"],
            id="prompt-task-int",
        ),
        pytest.param(
            edit(BASELINE, "terminal: true", 'terminal: "yes"'),
            [f"{STATE}/finish/terminal"],
            id="terminal-string",
        ),
        pytest.param(
            edit(BASELINE, "on_event:\n      Done: finish", "on_event: [finish]"),
            [f"{STATE}/start/on_event"],
            id="on-event-list",
        ),
        pytest.param(
            edit(BASELINE, "Done: finish", "Done: 3"),
            [f"{STATE}/start/on_event/Done"],
            id="on-event-target-int",
        ),
        pytest.param(
            _finish("on_max_visits: 4"), [f"{STATE}/finish/on_max_visits"], id="on-max-visits-int"
        ),
        pytest.param(
            _finish("persistence: 1"), [f"{STATE}/finish/persistence"], id="persistence-int"
        ),
        pytest.param(_finish("description: 1"), [f"{STATE}/finish/description"], id="desc-int"),
        pytest.param(
            "version: 1\nentry: start\nstates:\n  start: {prompt_task: work}\n  finish: null\n",
            [f"{STATE}/finish"],
            id="state-null",
        ),
        pytest.param(
            "version: 1\nentry: start\nstates:\n  start: {prompt_task: work}\n  finish: [x]\n",
            [f"{STATE}/finish"],
            id="state-list",
        ),
        pytest.param(
            "version: 1\nentry: start\nstates:\n  start: {prompt_task: work}\n  finish: done\n",
            [f"{STATE}/finish"],
            id="state-string",
        ),
        pytest.param("version: 1\nentry: start\nstates: [start]\n", [STATE], id="states-list"),
        pytest.param("version: 1\nentry: start\n", ["/workflow"], id="states-missing"),
        pytest.param(
            "version: 1\nstates: {start: {prompt_task: work}}\n", ["/workflow"], id="entry-missing"
        ),
        pytest.param(
            "entry: start\nstates: {start: {prompt_task: work}}\n",
            ["/workflow"],
            id="version-missing",
        ),
    ],
)
def test_schema_violations(workflow: str, expected: list[str]) -> None:
    diagnostics = check(workflow)
    assert errors(diagnostics) == [("schema", path) for path in expected]


def test_schema_empty_states() -> None:
    diagnostics = check("version: 1\nentry: start\nstates: {}\n")
    assert only(diagnostics, "schema") == [("error", STATE)]
    # The entry is (also, independently) not a key of the empty states object.
    assert only(diagnostics, "entry-unknown") == [("error", "/workflow/entry")]


@pytest.mark.parametrize("value", ['"nope"', "[start]", "3"])
def test_schema_workflow_not_an_object(value: str) -> None:
    pack = make_pack()
    pack["workflow"] = reference.load_pack_string(f"w: {value}")["w"]
    assert [(d.code, d.severity, d.path) for d in reference.validate(pack)] == [
        ("schema", "error", "/workflow")
    ]


def test_engine_stays_open_near_miss() -> None:
    # Unknown engine keys are vendor configuration, not a schema violation.
    workflow = _with_engine(
        """
        timeout_ms: 30000
        telemetry: {track_transitions: true}
        budget: {max_total_visits: 5, max_tool_calls: 50, max_wall_time_sec: 600}
        """
    )
    assert check(workflow) == []


def test_valid_artifacts_and_limits_near_miss() -> None:
    workflow = _finish(
        """
        max_visits: 1
        artifacts:
          summary: {type: text/plain, mode: append, description: a log}
          report: {type: application/json, mode: replace}
          note: {type: text/markdown}
        """
    )
    assert check(workflow) == []


def test_schema_and_own_codes_are_reported_together_each_once() -> None:
    # One state with several independent violations: each is reported once, under its own code.
    workflow = """
    version: 2
    entry: start
    states:
      start:
        orchestration: wizard
        colour: blue
        max_visits: 0
        on_event: {Done: finish}
      finish:
        prompt_task: finish
        terminal: true
    """
    assert errors(check(workflow)) == [
        ("prompt-task-missing", f"{STATE}/start"),
        ("schema", f"{STATE}/start"),
        ("schema", f"{STATE}/start/max_visits"),
        ("orchestration-invalid", f"{STATE}/start/orchestration"),
    ]


# -- warnings ---------------------------------------------------------------------------------


@pytest.mark.parametrize("event", ["done", "go_on", "goOn", "Go_On", "Go-On", "GO ON", "1Go"])
def test_event_name_style(event: str) -> None:
    workflow = edit(BASELINE, "Done: finish", f'"{event}": finish')
    diagnostics = check(workflow)
    assert only(diagnostics, "event-name-style") == [("warning", f"{STATE}/start/on_event/{event}")]
    assert reference.is_valid(diagnostics)


@pytest.mark.parametrize("event", ["Done", "GoalDefined", "GO", "Step2", "X"])
def test_event_name_style_near_miss(event: str) -> None:
    workflow = edit(BASELINE, "Done: finish", f"{event}: finish")
    assert check(workflow) == []


def test_event_name_style_path_is_escaped() -> None:
    workflow = edit(BASELINE, "Done: finish", '"Done/Now~Then": finish')
    assert only(check(workflow), "event-name-style") == [
        ("warning", f"{STATE}/start/on_event/Done~1Now~0Then")
    ]


def test_event_name_style_trailing_newline() -> None:
    workflow = edit(BASELINE, "Done: finish", '"Done\\n": finish')
    assert only(check(workflow), "event-name-style") == [
        ("warning", f"{STATE}/start/on_event/Done\n")
    ]


LOOP = """
version: 2
entry: start
states:
  start:
    prompt_task: work
    on_event: {Ready: verify}
  verify:
    prompt_task: check
    on_event: {Failed: start, Passed: finish}
  finish:
    prompt_task: finish
    terminal: true
"""


def test_cycle_unbounded() -> None:
    diagnostics = check(LOOP)
    assert only(diagnostics, "cycle-unbounded") == [("warning", f"{STATE}/start")]
    assert reference.is_valid(diagnostics)


def test_cycle_unbounded_self_loop() -> None:
    workflow = edit(BASELINE, "Done: finish", "Done: finish\n      Again: start")
    assert only(check(workflow), "cycle-unbounded") == [("warning", f"{STATE}/start")]


@pytest.mark.parametrize(
    "workflow",
    [
        pytest.param(
            edit(LOOP, "    prompt_task: check\n", "    prompt_task: check\n    max_visits: 3\n"),
            id="max-visits-on-a-loop-state",
        ),
        pytest.param(
            edit(
                LOOP,
                "entry: start\n",
                "entry: start\nengine:\n  budget:\n    max_total_visits: 20\n",
            ),
            id="budget-max-total-visits",
        ),
        pytest.param(BASELINE, id="no-loop"),
        pytest.param(
            edit(
                BASELINE,
                "    terminal: true\n",
                "    terminal: true\n    on_event: {Restart: start}\n",
            ),
            id="back-edge-from-terminal-state",
        ),
    ],
)
def test_cycle_unbounded_near_miss(workflow: str) -> None:
    assert only(check(workflow), "cycle-unbounded") == []


def test_loop_without_budget() -> None:
    assert only(check(LOOP), "loop-without-budget") == [("warning", "/workflow")]


@pytest.mark.parametrize(
    ("engine", "expected"),
    [
        pytest.param("budget: {max_tool_calls: 5}", [], id="budget-without-total-visits"),
        pytest.param("budget: {max_total_visits: 20}", [], id="budget-with-total-visits"),
        pytest.param("budget: {}", [], id="empty-budget"),
        pytest.param("timeout_ms: 100", [("warning", "/workflow")], id="engine-without-budget"),
    ],
)
def test_loop_without_budget_near_misses(engine: str, expected: list[tuple[str, str]]) -> None:
    workflow = edit(LOOP, "entry: start\n", "entry: start\nengine:\n  " + engine + "\n")
    assert only(check(workflow), "loop-without-budget") == expected


def test_budget_without_total_visits_still_leaves_cycle_unbounded() -> None:
    workflow = edit(
        LOOP, "entry: start\n", "entry: start\nengine:\n  budget:\n    max_tool_calls: 5\n"
    )
    diagnostics = check(workflow)
    assert only(diagnostics, "cycle-unbounded") == [("warning", f"{STATE}/start")]
    assert only(diagnostics, "loop-without-budget") == []


def test_no_loop_no_loop_warnings_near_miss() -> None:
    assert codes(check(BASELINE)) & {"loop-without-budget", "cycle-unbounded"} == set()


def test_unreachable_state() -> None:
    workflow = BASELINE + "  orphan:\n    prompt_task: check\n    terminal: true\n"
    assert only(check(workflow), "unreachable-state") == [("warning", f"{STATE}/orphan")]


def test_unreachable_state_only_reached_from_terminal_state() -> None:
    # The edge declared on a terminal state never fires, so it does not make `later` reachable.
    workflow = (
        edit(BASELINE, "    terminal: true\n", "    terminal: true\n    on_event: {Next: later}\n")
        + "  later:\n    prompt_task: check\n    terminal: true\n"
    )
    diagnostics = check(workflow)
    assert only(diagnostics, "unreachable-state") == [("warning", f"{STATE}/later")]
    assert only(diagnostics, "terminal-with-transitions") == [
        ("warning", f"{STATE}/finish/on_event")
    ]


def test_unreachable_state_near_miss_reached_through_on_max_visits() -> None:
    workflow = """
    version: 2
    entry: start
    engine:
      budget: {max_total_visits: 10}
    states:
      start:
        prompt_task: work
        max_visits: 3
        on_max_visits: give_up
        on_event: {Retry: start, Done: finish}
      finish:
        prompt_task: finish
        terminal: true
      give_up:
        prompt_task: finish
        terminal: true
    """
    assert check(workflow) == []


def test_unreachable_state_not_reported_when_entry_is_unknown() -> None:
    diagnostics = check(edit(BASELINE, "entry: start", "entry: begin"))
    assert only(diagnostics, "unreachable-state") == []


NO_EXIT = """
version: 2
entry: start
engine:
  budget: {max_total_visits: 10}
states:
  start:
    prompt_task: work
    on_event: {Go: draft, Skip: finish}
  draft:
    prompt_task: work
    max_visits: 3
    on_event: {Ready: review}
  review:
    prompt_task: check
    max_visits: 3
    on_event: {Again: draft}
  finish:
    prompt_task: finish
    terminal: true
"""


def test_no_terminal_path_one_per_state() -> None:
    diagnostics = check(NO_EXIT)
    assert only(diagnostics, "no-terminal-path") == [
        ("warning", f"{STATE}/draft"),
        ("warning", f"{STATE}/review"),
    ]
    assert only(diagnostics, "no-terminal-state") == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(
            "    max_visits: 3\n    on_event: {Again",
            "    max_visits: 3\n    on_max_visits: finish\n    on_event: {Again",
            id="forced-exit",
        ),
        pytest.param("{Again: draft}", "{Again: draft, Approved: finish}", id="event-exit"),
    ],
)
def test_no_terminal_path_near_miss(old: str, new: str) -> None:
    workflow = edit(NO_EXIT, old, new)
    assert workflow != NO_EXIT
    assert only(check(workflow), "no-terminal-path") == []


def test_no_terminal_state() -> None:
    workflow = """
    version: 2
    entry: start
    engine:
      budget: {max_total_visits: 10}
    states:
      start:
        prompt_task: work
        max_visits: 3
        on_event: {Next: verify}
      verify:
        prompt_task: check
        max_visits: 3
        on_event: {Again: start}
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "no-terminal-state") == [("warning", STATE)]
    assert only(diagnostics, "no-terminal-path") == [
        ("warning", f"{STATE}/start"),
        ("warning", f"{STATE}/verify"),
    ]


@pytest.mark.parametrize(
    "finish",
    [
        pytest.param("terminal: true", id="explicit-terminal"),
        pytest.param("on_event: {}", id="empty-on-event"),
        pytest.param("description: no on_event at all", id="no-on-event"),
    ],
)
def test_no_terminal_state_near_miss(finish: str) -> None:
    workflow = edit(edit(BASELINE, "terminal: true", finish), "version: 2", "version: 1")
    diagnostics = check(workflow)
    assert only(diagnostics, "no-terminal-state") == []
    assert only(diagnostics, "no-terminal-path") == []


def test_terminal_with_transitions() -> None:
    workflow = edit(
        BASELINE, "    terminal: true\n", "    terminal: true\n    on_event: {Restart: start}\n"
    )
    diagnostics = check(workflow)
    assert only(diagnostics, "terminal-with-transitions") == [
        ("warning", f"{STATE}/finish/on_event")
    ]
    # The edge never fires, so it is no loop.
    assert codes(diagnostics) & {"cycle-unbounded", "loop-without-budget"} == set()


@pytest.mark.parametrize(
    "finish",
    [
        pytest.param("terminal: true\n    on_event: {}", id="terminal-empty-on-event"),
        pytest.param("terminal: true", id="terminal-no-on-event"),
        pytest.param("terminal: false\n    on_event: {Restart: start}", id="not-terminal"),
    ],
)
def test_terminal_with_transitions_near_miss(finish: str) -> None:
    workflow = edit(BASELINE, "terminal: true", finish)
    assert only(check(workflow), "terminal-with-transitions") == []


REDIRECTS = """
version: 2
entry: start
engine:
  budget: {max_total_visits: 20}
states:
  start:
    prompt_task: work
    max_visits: 3
    on_max_visits: plan_b
    on_event: {Retry: start, Done: finish}
  plan_b:
    prompt_task: work
    max_visits: 2
    on_max_visits: plan_c
    on_event: {Retry: plan_b, Done: finish}
  plan_c:
    prompt_task: check
    max_visits: 2
    on_max_visits: finish
    on_event: {Retry: plan_c, Done: finish}
  finish:
    prompt_task: finish
    terminal: true
"""


def test_redirect_chain_that_exits_near_miss() -> None:
    assert check(REDIRECTS) == []


@pytest.mark.parametrize(
    ("old", "new", "path", "chain"),
    [
        pytest.param(
            "on_max_visits: finish",
            "on_max_visits: plan_b",
            f"{STATE}/plan_b/on_max_visits",
            "plan_b -> plan_c -> plan_b",
            id="two-state-loop",
        ),
        pytest.param(
            "on_max_visits: finish",
            "on_max_visits: start",
            f"{STATE}/plan_b/on_max_visits",
            "plan_b -> plan_c -> start -> plan_b",
            id="three-state-loop",
        ),
        pytest.param(
            "on_max_visits: finish",
            "on_max_visits: plan_c",
            f"{STATE}/plan_c/on_max_visits",
            "plan_c -> plan_c",
            id="names-itself",
        ),
    ],
)
def test_redirect_cycle(old: str, new: str, path: str, chain: str) -> None:
    diagnostics = check(edit(REDIRECTS, old, new))
    assert only(diagnostics, "redirect-cycle") == [("warning", path)]
    # The chain is spelled out from its smallest state name, in edge order.
    (message,) = [d.message for d in diagnostics if d.code == "redirect-cycle"]
    assert chain in message


def test_redirect_cycle_reported_once_for_a_shared_cycle() -> None:
    # start -> plan_b -> plan_c -> plan_b: start leads into the loop, which is reported once.
    diagnostics = check(edit(REDIRECTS, "on_max_visits: finish", "on_max_visits: plan_b"))
    assert len(only(diagnostics, "redirect-cycle")) == 1


ARTIFACT_TEMPLATES = {
    "coder": "Write code. Previous: {{artifacts.commit_sha}} Tests: {{artifacts.test_report}}",
    "tester": "Run tests for {{ artifacts.commit_sha }}.",
    "reviewer": "Review {{artifacts.commit_sha}}; tests: {{artifacts.test_report}}.",
}

# RFC 0009 example 1, reduced: `review` reads commit_sha, which only `implement` declares.
CODEGEN = """
version: 2
entry: plan
engine:
  budget: {max_total_visits: 30, max_tool_calls: 200, max_wall_time_sec: 600}
states:
  plan:
    prompt_task: work
    on_event: {PlanReady: implement}
  implement:
    prompt_task: coder
    max_visits: 10
    on_max_visits: review
    artifacts:
      commit_sha: {type: text/plain, description: Git commit SHA}
      test_report: {type: application/json}
    on_event: {CodeReady: test, NeedsRethink: plan}
  test:
    prompt_task: tester
    max_visits: 10
    on_max_visits: review
    artifacts:
      test_report: {type: application/json}
    on_event: {TestsPassed: review, TestsFailed: implement}
  review:
    prompt_task: reviewer
    on_event: {Approved: done, ChangesNeeded: implement}
  done:
    prompt_task: finish
    terminal: true
"""


def test_artifact_declared_on_another_state_near_miss() -> None:
    assert check(CODEGEN, templates=ARTIFACT_TEMPLATES) == []


def test_artifact_undeclared() -> None:
    templates = {
        **ARTIFACT_TEMPLATES,
        "reviewer": "Review {{artifacts.commit_sha}} and {{artifacts.lint_log}}.",
    }
    diagnostics = check(CODEGEN, templates=templates)
    assert only(diagnostics, "artifact-undeclared") == [
        ("warning", "/prompts/reviewer/system_template")
    ]
    assert reference.is_valid(diagnostics)


def test_artifact_undeclared_once_per_prompt_and_name() -> None:
    # Two states share the prompt, which reads the same undeclared name twice; plus a second
    # undeclared name: one warning per name, both at the prompt's template.
    templates = {"looper": "{{artifacts.log}} then {{artifacts.log}} and {{artifacts.plan}}"}
    workflow = """
    version: 2
    entry: start
    states:
      start:
        prompt_task: looper
        on_event: {Done: finish}
      finish:
        prompt_task: looper
        terminal: true
    """
    assert only(check(workflow, templates=templates), "artifact-undeclared") == [
        ("warning", "/prompts/looper/system_template"),
        ("warning", "/prompts/looper/system_template"),
    ]


def test_artifact_undeclared_near_miss_prompt_not_used_by_workflow() -> None:
    templates = {"unused": "Reads {{artifacts.nothing}} but no state runs this prompt."}
    assert check(BASELINE, templates=templates) == []


@pytest.mark.parametrize("definition", ["{type: text/plain, mode: 3}", "null"])
def test_artifact_with_malformed_definition_is_still_declared(definition: str) -> None:
    workflow = edit(
        BASELINE,
        "    prompt_task: work\n",
        f"    prompt_task: reader\n    artifacts:\n      notes: {definition}\n",
    )
    diagnostics = check(workflow, templates={"reader": "Notes: {{artifacts.notes}}"})
    assert only(diagnostics, "schema")  # the malformed definition itself
    assert only(diagnostics, "artifact-undeclared") == []


MODES = """
version: 2
entry: start
states:
  start:
    prompt_task: work
    artifacts:
      log: {type: text/plain, mode: MODE_A}
    on_event: {Done: finish}
  finish:
    prompt_task: finish
    terminal: true
    artifacts:
      log: {type: text/plain, mode: MODE_B}
"""


def _modes(mode_a: str | None, mode_b: str | None) -> str:
    text = MODES
    for placeholder, mode in (("MODE_A", mode_a), ("MODE_B", mode_b)):
        text = edit(text, f", mode: {placeholder}", "" if mode is None else f", mode: {mode}")
    return text


@pytest.mark.parametrize(
    ("mode_a", "mode_b"),
    [("replace", "append"), ("append", "replace"), (None, "append"), ("append", None)],
)
def test_artifact_mode_conflict(mode_a: str | None, mode_b: str | None) -> None:
    # Reported once, at the declaration that disagrees with an earlier one.
    diagnostics = check(_modes(mode_a, mode_b))
    assert only(diagnostics, "artifact-mode-conflict") == [
        ("warning", f"{STATE}/finish/artifacts/log")
    ]


def test_artifact_mode_conflict_reported_once_per_name() -> None:
    # Three declarations of `log`, two of them disagreeing with the first: one warning.
    workflow = """
    version: 2
    entry: start
    states:
      start:
        prompt_task: work
        artifacts:
          log: {type: text/plain, mode: replace}
        on_event: {Next: middle}
      middle:
        prompt_task: check
        artifacts:
          log: {type: text/plain, mode: append}
        on_event: {Done: finish}
      finish:
        prompt_task: finish
        terminal: true
        artifacts:
          log: {type: text/plain, mode: append}
    """
    assert only(check(workflow), "artifact-mode-conflict") == [
        ("warning", f"{STATE}/middle/artifacts/log")
    ]


@pytest.mark.parametrize(
    ("mode_a", "mode_b"),
    [("replace", "replace"), ("append", "append"), (None, "replace"), (None, None)],
)
def test_artifact_mode_conflict_near_miss(mode_a: str | None, mode_b: str | None) -> None:
    assert check(_modes(mode_a, mode_b)) == []


def test_artifact_mode_conflict_near_miss_different_names() -> None:
    workflow = edit(
        _modes("replace", "append"),
        "      log: {type: text/plain, mode: append}",
        "      journal: {type: text/plain, mode: append}",
    )
    assert "journal" in workflow
    assert only(check(workflow), "artifact-mode-conflict") == []


BUDGET = """
version: 2
entry: start
engine:
  budget: {max_total_visits: TOTAL}
states:
  start:
    prompt_task: work
    max_visits: 2
    on_max_visits: finish
    on_event: {Next: verify, Retry: start}
  verify:
    prompt_task: check
    max_visits: 3
    on_max_visits: finish
    on_event: {Failed: start, Passed: finish}
  finish:
    prompt_task: finish
    max_visits: 1
    terminal: true
  archive:
    prompt_task: finish
    max_visits: 50
    terminal: true
"""


@pytest.mark.parametrize(
    ("total", "expected"),
    [
        pytest.param(5, [("warning", "/workflow/engine/budget/max_total_visits")], id="one-below"),
        pytest.param(1, [("warning", "/workflow/engine/budget/max_total_visits")], id="far-below"),
        pytest.param(6, [], id="equal-to-sum"),
        pytest.param(100, [], id="above"),
    ],
)
def test_budget_below_max_visits(total: int, expected: list[tuple[str, str]]) -> None:
    # Reachable states' max_visits sum to 2 + 3 + 1 = 6; the unreachable `archive` (50) does
    # not count.
    diagnostics = check(edit(BUDGET, "TOTAL", str(total)))
    assert only(diagnostics, "budget-below-max-visits") == expected
    assert only(diagnostics, "unreachable-state") == [("warning", f"{STATE}/archive")]


def test_budget_below_max_visits_near_miss_no_total_visits() -> None:
    workflow = edit(BUDGET, "max_total_visits: TOTAL", "max_tool_calls: 1")
    assert only(check(workflow), "budget-below-max-visits") == []


@pytest.mark.parametrize("persistence", ["durable", "Persistent", "", "none"])
def test_persistence_unknown(persistence: str) -> None:
    workflow = edit(
        BASELINE,
        "    prompt_task: work\n",
        f'    prompt_task: work\n    persistence: "{persistence}"\n',
    )
    diagnostics = check(workflow)
    assert only(diagnostics, "persistence-unknown") == [("warning", f"{STATE}/start/persistence")]
    assert reference.is_valid(diagnostics)


@pytest.mark.parametrize("persistence", ["transient", "persistent"])
def test_persistence_known_near_miss(persistence: str) -> None:
    workflow = edit(
        BASELINE,
        "    prompt_task: work\n",
        f"    prompt_task: work\n    persistence: {persistence}\n",
    )
    assert check(workflow) == []


DEAD_END = """
version: VERSION
entry: start
states:
  start:
    prompt_task: work
    on_event: {Done: finish, Park: parked}
  finish:
    prompt_task: finish
    terminal: true
  parked:
    prompt_task: check
"""


@pytest.mark.parametrize("version", [2, 3])
def test_dead_end_state(version: int) -> None:
    diagnostics = check(edit(DEAD_END, "VERSION", str(version)))
    assert only(diagnostics, "dead-end-state") == [("warning", f"{STATE}/parked")]


@pytest.mark.parametrize(
    ("version", "parked_extra"),
    [
        pytest.param(1, "", id="version-1"),
        pytest.param(2, "    terminal: true\n", id="terminal-true"),
        pytest.param(2, "    max_visits: 2\n", id="max-visits"),
        pytest.param(2, "    on_event: {Resume: start}\n", id="has-transitions"),
    ],
)
def test_dead_end_state_near_miss(version: int, parked_extra: str) -> None:
    workflow = edit(DEAD_END, "VERSION", str(version)) + parked_extra
    assert only(check(workflow), "dead-end-state") == []


def test_dead_end_state_with_empty_on_event() -> None:
    workflow = edit(DEAD_END, "VERSION", "2") + "    on_event: {}\n"
    assert only(check(workflow), "dead-end-state") == [("warning", f"{STATE}/parked")]


# -- cycle-unbounded: one warning per strongly connected component ----------------------------


def _cycle_messages(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.message for d in diagnostics if d.code == "cycle-unbounded"]


def _names_in_message(message: str, names: list[str]) -> list[str]:
    """The given state names in the order they appear in the message (each must appear)."""
    positions = {}
    for name in names:
        match = re.search(rf"\b{re.escape(name)}\b", message)
        assert match is not None, f"{name!r} not in {message!r}"
        positions[name] = match.start()
    return sorted(names, key=positions.__getitem__)


def test_cycle_unbounded_lists_component_states_sorted() -> None:
    workflow = """
    version: 2
    entry: zulu
    states:
      zulu:
        prompt_task: work
        on_event: {Next: alpha}
      alpha:
        prompt_task: check
        on_event: {Next: mike}
      mike:
        prompt_task: work
        on_event: {Next: zulu, Stop: done}
      done:
        prompt_task: finish
        terminal: true
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "cycle-unbounded") == [("warning", f"{STATE}/alpha")]
    (message,) = _cycle_messages(diagnostics)
    assert _names_in_message(message, ["zulu", "alpha", "mike"]) == ["alpha", "mike", "zulu"]
    assert not re.search(r"\bdone\b", message)


def test_cycle_unbounded_two_separate_loops_give_two_warnings() -> None:
    workflow = """
    version: 2
    entry: one
    states:
      one:
        prompt_task: work
        on_event: {Loop: two, Next: three}
      two:
        prompt_task: check
        on_event: {Back: one}
      three:
        prompt_task: work
        on_event: {Again: three, Done: done}
      done:
        prompt_task: finish
        terminal: true
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "cycle-unbounded") == [
        ("warning", f"{STATE}/one"),
        ("warning", f"{STATE}/three"),
    ]
    first, second = _cycle_messages(diagnostics)
    assert _names_in_message(first, ["one", "two"]) == ["one", "two"]
    assert not re.search(r"\bthree\b", first)
    assert re.search(r"\bthree\b", second)
    assert not re.search(r"\b(one|two)\b", second)
    # One loop-without-budget for the whole workflow, however many loops.
    assert only(diagnostics, "loop-without-budget") == [("warning", "/workflow")]


def test_cycle_unbounded_one_warning_for_two_cycles_in_one_component() -> None:
    # hub <-> left and hub <-> right: two unbounded cycles, one component, one warning.
    workflow = """
    version: 2
    entry: hub
    states:
      hub:
        prompt_task: work
        on_event: {Left: left, Right: right, Done: done}
      left:
        prompt_task: check
        on_event: {Back: hub}
      right:
        prompt_task: check
        on_event: {Back: hub}
      done:
        prompt_task: finish
        terminal: true
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "cycle-unbounded") == [("warning", f"{STATE}/hub")]
    (message,) = _cycle_messages(diagnostics)
    assert _names_in_message(message, ["right", "hub", "left"]) == ["hub", "left", "right"]


def test_cycle_unbounded_near_miss_loop_with_a_bounded_state() -> None:
    # Every cycle of the component passes through `hub`, which has max_visits.
    workflow = """
    version: 2
    entry: hub
    states:
      hub:
        prompt_task: work
        max_visits: 4
        on_event: {Left: left, Right: right, Done: done}
      left:
        prompt_task: check
        on_event: {Back: hub}
      right:
        prompt_task: check
        on_event: {Back: hub}
      done:
        prompt_task: finish
        terminal: true
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "cycle-unbounded") == []
    assert only(diagnostics, "loop-without-budget") == [("warning", "/workflow")]


def test_cycle_unbounded_cycle_avoiding_the_only_bounded_state() -> None:
    # Component {a, b, c}: the cycle a <-> b avoids c, the only state with max_visits.
    workflow = """
    version: 2
    entry: a
    states:
      a:
        prompt_task: work
        on_event: {ToB: b, ToC: c}
      b:
        prompt_task: check
        on_event: {ToA: a}
      c:
        prompt_task: check
        max_visits: 2
        on_max_visits: done
        on_event: {ToA: a}
      done:
        prompt_task: finish
        terminal: true
    """
    diagnostics = check(workflow)
    assert only(diagnostics, "cycle-unbounded") == [("warning", f"{STATE}/a")]
    (message,) = _cycle_messages(diagnostics)
    assert _names_in_message(message, ["c", "b", "a"]) == ["a", "b", "c"]


# -- determinism ------------------------------------------------------------------------------

# Errors and warnings of many codes at once, with state names whose document order differs
# from their sorted order.
MESSY = """
version: 2
entry: start
states:
  start:
    prompt_task: work
    persistence: durable
    on_event: {go_on: zeta, Next: alpha, Lost: ghost}
  zeta:
    prompt_task: nowhere
    on_event: {Again: zeta, Back: start}
  alpha:
    prompt_task: check
    max_visits: 2
    on_max_visits: beta
    artifacts:
      log: {type: text/plain, mode: append}
    on_event: {Next: beta}
  beta:
    prompt_task: check
    max_visits: 2
    on_max_visits: alpha
    on_event: {Next: alpha}
  parked:
    prompt_task: finish
  done:
    prompt_task: finish
    terminal: true
    on_event: {Restart: start}
  broken:
    orchestration: wizard
    max_visits: 0
"""


def _messy_pack(order: list[str] | None = None) -> dict[str, Any]:
    pack = make_pack(MESSY, templates={"work": "Use {{artifacts.log}} and {{artifacts.gone}}"})
    if order is not None:
        states = pack["workflow"]["states"]
        pack["workflow"]["states"] = {name: states[name] for name in order}
    return pack


def test_messy_pack_reports_many_codes() -> None:
    # Guards the determinism tests below: they are only meaningful on a pack with many findings.
    diagnostics = reference.validate(_messy_pack())
    assert codes(diagnostics) >= {
        "schema",
        "prompt-task-missing",
        "prompt-task-unknown",
        "event-target-unknown",
        "orchestration-invalid",
        "event-name-style",
        "cycle-unbounded",
        "loop-without-budget",
        "unreachable-state",
        "no-terminal-path",
        "terminal-with-transitions",
        "redirect-cycle",
        "artifact-undeclared",
        "persistence-unknown",
        "dead-end-state",
    }


def test_validating_twice_gives_identical_lists() -> None:
    pack = _messy_pack()
    first = reference.validate(pack)
    second = reference.validate(pack)
    third = reference.validate(_messy_pack())
    assert first == second == third
    assert [d.to_dict() for d in first] == [d.to_dict() for d in third]


def test_diagnostics_sorted_errors_first_then_by_path() -> None:
    diagnostics = reference.validate(_messy_pack())
    keys = [(d.severity != "error", d.path) for d in diagnostics]
    assert keys == sorted(keys)
    severities = [d.severity for d in diagnostics]
    assert severities == sorted(severities)  # "error" < "warning"
    assert "error" in severities
    assert "warning" in severities


@pytest.mark.parametrize(
    "order",
    [
        pytest.param(["broken", "done", "parked", "beta", "alpha", "zeta", "start"], id="reverse"),
        pytest.param(["alpha", "beta", "broken", "done", "parked", "start", "zeta"], id="sorted"),
        pytest.param(["parked", "start", "beta", "zeta", "done", "broken", "alpha"], id="mixed"),
    ],
)
def test_state_order_does_not_change_diagnostics(order: list[str]) -> None:
    assert reference.validate(_messy_pack(order)) == reference.validate(_messy_pack())


@pytest.mark.parametrize(
    "order",
    [["start", "zulu", "alpha", "mike", "done"], ["done", "mike", "alpha", "zulu", "start"]],
)
def test_cycle_unbounded_same_for_any_state_order(order: list[str]) -> None:
    states = {
        "start": {"prompt_task": "work", "on_event": {"Go": "zulu"}},
        "zulu": {"prompt_task": "work", "on_event": {"Next": "mike"}},
        "mike": {"prompt_task": "work", "on_event": {"Next": "alpha"}},
        "alpha": {"prompt_task": "work", "on_event": {"Next": "zulu", "Stop": "done"}},
        "done": {"prompt_task": "finish", "terminal": True},
    }
    workflow = {"version": 2, "entry": "start", "states": {n: states[n] for n in order}}
    diagnostics = reference.validate(make_pack(workflow))
    assert only(diagnostics, "cycle-unbounded") == [("warning", f"{STATE}/alpha")]
    (message,) = _cycle_messages(diagnostics)
    assert _names_in_message(message, ["zulu", "mike", "alpha"]) == ["alpha", "mike", "zulu"]
    assert not re.search(r"\bstart\b", message)


def test_json_pointer_escaping_of_state_names() -> None:
    workflow = {
        "version": 1,
        "entry": "a/b",
        "states": {
            "a/b": {"prompt_task": "ghost", "on_event": {"Done": "c~d"}},
            "c~d": {"prompt_task": "finish", "colour": "red"},
        },
    }
    assert errors(reference.validate(make_pack(workflow))) == [
        ("prompt-task-unknown", f"{STATE}/a~1b/prompt_task"),
        ("schema", f"{STATE}/c~0d"),
    ]
