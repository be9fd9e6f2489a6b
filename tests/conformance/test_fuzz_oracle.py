"""The fuzzer's oracle: what a runtime must do on an example, MUST only (SEMANTICS R1, R4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import allowed
import breaking
import pytest
from fuzz_packs import pack, state

from conformance import Catalog, ReferenceAdapter, check_against_reference
from conformance._fuzz.judge import case_body
from conformance._fuzz.oracle import RULE_VALID, RULES, Expected, expect_run

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"


def run(states: dict[str, Any], script: list[dict[str, Any]], **budget: int) -> Expected:
    return expect_run("loops", pack(states, budget), script)


def expects(expected: Expected) -> list[dict[str, Any]]:
    return [step["expect"] for step in expected.steps]


def test_every_cited_rule_is_a_must_case_citing_a_binding_statement(catalog: Catalog) -> None:
    for rule in RULES:
        case = catalog.get(rule)
        assert case is not None, rule
        assert case.requirement == "MUST", rule
        validity = rule in RULE_VALID.values()  # a verdict: an RFC's "is valid" binds it
        assert catalog.registry.derived(case.statements, validity=validity) == "MUST", rule


def test_a_transition_and_the_session_at_the_end() -> None:
    expected = run(
        {"start": state(on_event={"Go": "work"}), "work": state(terminal=True)},
        [
            {"event": "Go"},
            {"event": "Go"},
        ],
    )
    first, second = expects(expected)
    assert first == {
        "transition": {"from": "start", "to": "work", "event": "Go", "redirected": False},
        "state": "work",
        "visit_counts": {"start": 1, "work": 1},
        "status": "completed",
    }
    assert second["rejection"] == ["terminal-state", "unknown-event"]
    assert expected.final == {
        "state": "work",
        "status": "completed",
        "visit_counts": {"start": 1, "work": 1},
    }
    assert (
        expected.rule_at(1, "visit_counts.start")
        == "workflow.execution.start-entry-counts-as-visit"
    )
    assert expected.rule_at(1, "visit_counts.work") == "workflow.execution.visit-counts-run"
    assert expected.rule_at(2, None) == "loops.terminal.accepts-no-events"


def test_a_limit_without_redirect_ends_the_workflow() -> None:
    expected = run(
        {"start": state(on_event={"Go": "start"}, max_visits=1)},
        [
            {"event": "Go"},
            {"event": "Go"},
        ],
    )
    first, second = expects(expected)
    assert first["rejection"] == ["max-visits-exceeded", "budget-exhausted"]
    assert first["status"] == "budget_exhausted"
    assert second["rejection"] == "budget-exhausted"


def test_a_redirect_cycle_leaves_the_status_open_and_ends_the_script() -> None:
    expected = run(
        {"start": state(on_event={"Go": "start"}, max_visits=1, on_max_visits="start")},
        [{"event": "Go"}, {"event": "Go"}],
    )
    (only,) = expects(expected)
    assert only["rejection"] == "max-visits-exceeded"
    assert "status" not in only
    assert expected.final is not None
    assert "status" not in expected.final


def test_a_redirect_is_reported() -> None:
    expected = run(
        {
            "start": state(on_event={"Go": "start"}, max_visits=1, on_max_visits="work"),
            "work": state(on_event={"Go": "start"}),
        },
        [{"event": "Go"}],
    )
    assert expects(expected)[0]["transition"] == {
        "from": "start",
        "to": "work",
        "event": "Go",
        "redirected": True,
        "original_target": "start",
    }


def test_a_state_without_on_event_ends_the_script_without_a_status() -> None:
    expected = run(
        {"start": state(on_event={"Go": "end"}), "end": state()},
        [
            {"event": "Go"},
            {"event": "Go"},
        ],
    )
    (only,) = expects(expected)
    assert only["state"] == "end"
    assert "status" not in only


def test_budgets_leave_the_status_open_before_the_next_event() -> None:
    expected = run(
        {"start": state(on_event={"Go": "start"})},
        [
            {"tool_calls": 2},
            {"set_artifact": {"name": "log", "value": "a"}},
            {"event": "Go"},
            {"tool_calls": 1},
        ],
        max_tool_calls=2,
    )
    tools, event = expects(expected)
    assert tools["status"] == {"$one_of": ["active", "budget_exhausted"]}
    assert event["rejection"] == "budget-exhausted"
    assert event["status"] == "budget_exhausted"
    assert expected.left_out == 2


def test_an_undeclared_event_past_a_budget_accepts_either_refusal_and_ends() -> None:
    expected = run(
        {"start": state(on_event={"Go": "start"})},
        [
            {"tool_calls": 1},
            {"event": "Stray"},
            {"event": "Go"},
        ],
        max_tool_calls=1,
    )
    assert [e.get("rejection") for e in expects(expected)] == [
        None,
        ["budget-exhausted", "unknown-event"],
    ]


def test_steps_the_rfcs_leave_open_are_left_out() -> None:
    expected = run(
        {
            "start": state(on_event={"Go": "work"}, orchestration="external"),
            "work": state(on_event={"Go": "start"}, orchestration="internal"),
        },
        [
            {"event": "Go", "source": "agent"},  # agent event in an external state: SHOULD
            {"set_artifact": {"name": "log", "value": "a"}},  # undeclared: MAY
            {"snapshot_restore": True},  # X15: SHOULD
            {"event": "Go"},
            {"event": "Go"},  # host event in an internal state: MAY
            {"event": "Go", "source": "agent"},
        ],
    )
    assert [step.get("source", "host") for step in expected.steps] == ["host", "agent"]
    assert expected.left_out == 4


def test_append_artifacts_hold_every_part_in_order() -> None:
    log = {"log": {"type": "text/plain", "mode": "append"}, "note": {"type": "text/plain"}}
    expected = run(
        {"start": state(on_event={"Go": "start"}, artifacts=log)},
        [
            {"set_artifact": {"name": "log", "value": "a"}},
            {"set_artifact": {"name": "note", "value": "a"}},
            {"set_artifact": {"name": "log", "value": ""}},
            {"set_artifact": {"name": "log", "value": "b"}},
            {"set_artifact": {"name": "note", "value": "b"}},
        ],
    )
    assert expects(expected)[-1]["artifacts"] == {
        "$subset": {"log": {"$contains_in_order": ["a", "b"]}, "note": "b"}
    }


def composition_pack(steps: list[dict[str, Any]], output: str | None) -> dict[str, Any]:
    composition: dict[str, Any] = {"version": 1, "steps": steps}
    if output is not None:
        composition["output"] = output
    document = pack({"start": state(terminal=True)})
    del document["workflow"]
    document["tools"] = {"search": {"name": "search", "description": "Search."}}
    document["compositions"] = {"c": composition}
    return document


PARALLEL = {
    "id": "p",
    "kind": "parallel",
    "branches": [
        {"id": "a", "kind": "prompt", "prompt_task": "main"},
        {"id": "b", "kind": "tool", "tool": "search"},
    ],
}


UPPER = {"id": "v", "kind": "ppconf.upper", "input": "hi"}
APPEND = {"strategy": "append", "into": "out"}


@pytest.mark.parametrize(
    ("strategy", "output"),
    [
        ("append", {"out": {"$unordered": ["x", 1]}}),
        ("replace", {"out": {"$one_of": ["x", 1]}}),
        ("barrier", {"out": {"a": "x", "b": 1}}),
    ],
)
def test_parallel_outputs_as_the_rfc_pins_them(strategy: str, output: Any) -> None:
    steps = [{**PARALLEL, "reduce": {"strategy": strategy, "into": "out"}}]
    mocks = {"a": [{"output": "x"}], "b": [{"output": 1}]}
    expected = expect_run(
        "compositions",
        composition_pack(steps, "p"),
        [{"run_composition": {"name": "c", "input": {"k": 0}, "mocks": mocks}}],
    )
    (only,) = expects(expected)
    assert only == {"composition": {"$subset": {"status": "completed", "output": output}}}
    assert (
        expected.rule_at(1, "composition.output") == f"compositions.execution.parallel-{strategy}"
    )


def test_a_failing_run_and_a_skipped_named_step() -> None:
    steps = [
        {
            "id": "r",
            "kind": "branch",
            "predicate": {"path": "${input.k}", "op": "equals", "value": 0},
            "then": "a",
            "else": "b",
        },
        {"id": "a", "kind": "prompt", "prompt_task": "main"},
        {"id": "b", "kind": "prompt", "prompt_task": "main"},
    ]
    document = composition_pack(steps, "b")
    expected = expect_run(
        "compositions",
        document,
        [
            {"run_composition": {"name": "c", "input": {"k": 0}, "mocks": {"a": [{"output": 1}]}}},
            {"run_composition": {"name": "c", "input": {"k": 1}, "mocks": {"b": [{"error": "e"}]}}},
        ],
    )
    # k = 0 skips the named step b: what the output is then is SHOULD (C10); k = 1 fails b:
    # what follows is the runtime's error recovery (R15). Both are left out.
    assert expects(expected) == []
    assert expected.left_out == 2
    assert expected.exercised["left out: composition runs after a failure"] == 1


AGENT = {
    "id": "g",
    "kind": "agent",
    "prompt_task": "main",
    "tools": ["fetch"],
    "termination": {"max_steps": 2},
}
ROUNDS = [{"tool_calls": [{"tool": "fetch", "args": {"n": n}}], "output": "o"} for n in (1, 2, 3)]
"""Three rounds scripted for an agent step bounded to two."""


@pytest.mark.parametrize(
    ("steps", "rule"),
    [
        ([AGENT, {"id": "t", "kind": "tool", "tool": "search"}], "max-steps-bounds-rounds"),
        (
            [{**PARALLEL, "branches": [AGENT, PARALLEL["branches"][1]],
              "reduce": {"strategy": "append", "into": "out"}}],
            "in-parallel",
        ),
    ],
)  # fmt: skip
def test_an_agent_step_at_its_bound_is_judged_by_its_rounds_alone(
    steps: list[dict[str, Any]], rule: str
) -> None:
    document = composition_pack(steps, steps[-1]["id"])
    document["tools"]["fetch"] = {"name": "fetch", "description": "Fetch."}
    mocks = {
        "g": ROUNDS,
        "fetch": [{"output": "r"}] * 3,
        "t": [{"output": 1}],
        "b": [{"output": 1}],
    }
    expected = expect_run(
        "compositions",
        document,
        [{"run_composition": {"name": "c", "input": {"k": 0}, "mocks": mocks}}],
    )
    (only,) = expects(expected)
    rounds = {
        "$subset": {
            "step": "g",
            "rounds": 2,
            "tool_calls": [
                {"$subset": {"round": n, "tool": "fetch", "args": {"n": n}}} for n in (1, 2)
            ],
        }
    }
    if rule == "in-parallel":
        rounds = {"$subset": {"step": "p", "members": {"$contains": [rounds]}}}
    # Neither the status nor the output: completing or failing at the bound is MAY.
    assert only == {"composition": {"$subset": {"trace": {"$contains": [rounds]}}}}
    assert expected.rule_at(1, "composition.trace") == f"compositions.agent.{rule}"
    # Told apart: failing the step at its bound (allowed) and not stopping there in a parallel
    # block (breaks RFC 0010's bounded loop).
    script = [{"run_composition": {"name": "c", "input": {"k": 0}, "mocks": mocks}}]
    for runtime in (ReferenceAdapter(), allowed.FailsAtMaxSteps()):
        assert check_against_reference(runtime, document, script) is None
    finding = check_against_reference(breaking.MaxStepsIgnoredInParallel(), document, script)
    assert (finding is not None) == (rule == "in-parallel")


# -- control (RFC 0014) and state-agents (RFC 0011) --------------------------------------------


def control(states: dict[str, Any], script: list[dict[str, Any]], **budget: int) -> Expected:
    return expect_run("control", pack(states, budget), script)


def test_the_turn_after_agent_moves_and_host_moves() -> None:
    states = {
        "start": state(on_event={"Go": "route"}),
        "route": state(control="agent", on_event={"Go": "answer"}),
        "answer": state(on_event={"Go": "route"}),
    }
    agent, host = {"event": "Go", "source": "agent"}, {"event": "Go"}
    expected = control(states, [agent, agent, host])
    turns = [step["expect"].get("turn") for step in expected.steps]
    # Into control: agent (X18); into a state without control (X19); host, from the user's
    # turn, into control: agent (X20).
    assert turns == ["agent", "user", "user"]
    assert expected.step_rules[0]["turn"] == "control.turn.agent-transition-into-agent-state"
    assert expected.step_rules[1]["turn"] == "control.turn.absent-control-is-user"
    assert expected.step_rules[2]["turn"] == "control.turn.host-transition-into-agent-state"
    assert expected.final is not None
    assert expected.final["turn"] == "user"
    # A host event while the agent may hold the floor: SHOULD, not compared.
    expected = control(states, [agent, host])
    assert [step["expect"].get("turn") for step in expected.steps] == ["agent", None]
    assert expected.final is not None
    assert "turn" not in expected.final


def test_the_turn_is_not_compared_at_the_start_or_after_a_refusal() -> None:
    expected = control(
        {"start": state(control="agent", on_event={"Go": "start"})},
        [{"event": "Nope", "source": "agent"}, {"event": "Go", "source": "agent"}],
    )
    refused, moved = (step["expect"] for step in expected.steps)
    assert "turn" not in refused  # X17 is SHOULD, a refused agent event MAY keep the turn
    assert moved["turn"] == "agent"


def test_terminal_states_and_ends_give_the_user_the_turn() -> None:
    expected = control(
        {
            "start": state(on_event={"Go": "loop", "Stop": "done"}),
            "loop": state(control="agent", max_visits=1, on_event={"Go": "loop"}),
            "done": state(control="agent", terminal=True),
        },
        [{"event": "Go", "source": "agent"}, {"event": "Go", "source": "agent"}],
    )
    entered, ended = (step["expect"] for step in expected.steps)
    assert entered["turn"] == "agent"
    assert ended["rejection"] == ["max-visits-exceeded", "budget-exhausted"]
    assert ended["turn"] == "user"
    assert expected.step_rules[1]["turn"] == "control.turn.max-visits-exceeded-ends"


def test_a_budget_the_move_reaches_leaves_the_turn_open() -> None:
    expected = control(
        {"start": state(on_event={"Go": "route"}), "route": state(control="agent", on_event={})},
        [{"event": "Go", "source": "agent"}],
        max_total_visits=2,
    )
    assert "turn" not in expected.steps[0]["expect"]  # R4: the workflow may end at once


def test_the_reply_holds_each_text_in_order_whatever_the_join() -> None:
    expected = control(
        {"start": state(control="agent", on_event={"Go": "start"})},
        [
            {"agent_text": "hi"},
            {"event": "Go", "source": "agent"},
            {"agent_text": "ok"},
            {"user_turn": True},
            {"agent_text": "ok"},
        ],
    )
    texts = [step["expect"] for step in expected.steps if "agent_text" in step]
    assert texts[0] == {"turn": "user", "reply": {"$contains_in_order": ["hi"]}}
    assert texts[1] == {"turn": "user", "reply": {"$contains_in_order": ["hi", "ok"]}}
    assert texts[2]["reply"] == {"$contains_in_order": ["ok"]}
    user_turn = expected.steps[3]
    assert user_turn == {"user_turn": True, "expect": {"turn": "user"}}  # no empty reply


def test_packs_without_control_compare_no_turn() -> None:
    expected = run({"start": state(on_event={"Go": "start"})}, [{"event": "Go", "source": "agent"}])
    assert "turn" not in expected.steps[0]["expect"]


def agents_pack() -> dict[str, Any]:
    document = pack(
        {
            "start": state(on_event={"Go": "work"}),
            "work": state(on_event={"Go": "start"}),
        }
    )
    document["agents"] = {"entry": "main", "members": {"main": {"state": "work"}, "aide": {}}}
    # Member keys are prompt keys (RFC 0011 rule 3): the prompt-backed aide needs its prompt.
    document["prompts"]["aide"] = {
        "id": "aide",
        "name": "A",
        "version": "1.0.0",
        "system_template": "W",
    }
    return document


def test_a_start_as_an_agent_counts_its_state_only() -> None:
    start = {"agent": "main"}
    expected = expect_run("state-agents", agents_pack(), [{"start": start}, {"event": "Go"}])
    assert expected.start == start
    assert expected.steps[0]["expect"]["visit_counts"] == {"work": 1, "start": 1}
    assert expected.rule_at(1, "visit_counts.start") == (
        "state-agents.execution.start-at-state-counts-visit"
    )
    assert expected.start_rules["outcome"] == "state-agents.execution.start-as-agent"


def test_a_start_at_a_named_state_starts_there() -> None:
    """A start at a named state is the kit's adapter contract: a runtime refusing it skips the
    example (the runner weighs it MAY); one starting there is held to what follows."""
    script = [{"start": {"at_state": "work"}}]
    expected = expect_run("state-agents", agents_pack(), script)
    assert expected.start == {"at_state": "work"}
    assert expected.exercised["starts (state)"] == 1
    assert expected.start_rules["outcome"] == "state-agents.execution.state-start-every-mode"
    assert expected.final is not None
    assert expected.final["visit_counts"] == {"work": 1}


def test_a_start_at_a_state_the_pack_lacks_is_left_out() -> None:
    """The example starts at the entry instead: refusing such a start is the kit's pick."""
    script = [{"start": {"at_state": "nowhere"}}, {"event": "Go"}]
    expected = expect_run("state-agents", agents_pack(), script)
    assert expected.start is None
    assert expected.exercised["left out: start at an unknown state"] == 1
    assert expected.steps[0]["expect"]["visit_counts"] == {"start": 1, "work": 1}


def test_a_start_with_no_steps_shows_the_state_and_its_visit() -> None:
    expected = expect_run("state-agents", agents_pack(), [{"start": {"agent": "main"}}])
    assert expected.final == {
        "state": "work",
        "status": "active",
        "visit_counts": {"work": 1},
    }


@pytest.mark.parametrize(("start", "code"), [({"agent": "stranger"}, "agent-unknown")])
def test_refused_starts_are_the_whole_example(start: dict[str, str], code: str) -> None:
    expected = expect_run("state-agents", agents_pack(), [{"start": start}, {"event": "Go"}])
    assert expected.start == {**start, "rejection": code}
    assert expected.steps == []
    assert expected.final is None
    assert expected.rule_at(0, None).endswith(code)


def test_a_start_as_an_agent_without_state_is_left_out() -> None:
    expected = expect_run("state-agents", agents_pack(), [{"start": {"agent": "aide"}}])
    assert expected.start is None
    assert expected.final is not None
    assert expected.final["state"] == "start"


def test_a_pack_carrying_extensions_must_load_and_start_as_an_agent() -> None:
    """RFC 0016 Level 0: "Packs carrying them remain valid and execute identically", loaded,
    validated and started as an agent (RFC 0011) alike."""
    document = agents_pack()
    document["workflow"]["states"]["work"]["extensions"] = {"acme.review": {"level": 2}}
    expected = expect_run("state-agents", document, [{"start": {"agent": "main"}}])
    assert expected.load is True
    assert expected.load_rule == "extensions.load.prompt-state-agent-slots"
    assert expected.start_rules["outcome"] == "state-agents.execution.agent-start-extensions"
    assert case_body(expected)["load"] is True


def test_extensions_on_a_parallel_branch_cite_the_composition_load_case() -> None:
    document = pack({"start": state(on_event={"Go": "start"})})
    document["tools"] = {"search": {"name": "search", "description": "Search."}}
    branches = [{"id": i, "kind": "tool", "tool": "search"} for i in ("b", "c")]
    branches[1]["extensions"] = {"x": 1}
    document["compositions"] = {
        "review": {
            "version": 1,
            "steps": [
                {"id": "a", "kind": "parallel", "branches": branches, "reduce": {
                    "strategy": "append", "into": "out"}},
            ],
        }
    }  # fmt: skip
    expected = expect_run("compositions", document, [])
    assert expected.load is True
    assert expected.load_rule == "extensions.load.composition-and-steps"


def test_a_pack_without_extensions_is_not_loaded() -> None:
    expected = run({"start": state(on_event={"Go": "start"})}, [{"event": "Go"}])
    assert expected.load is None
    assert "load" not in case_body(expected)


@pytest.mark.parametrize(
    ("steps", "named", "rule"),
    [
        (
            [{"id": "a", "kind": "prompt", "prompt_task": "main"}, UPPER],
            "v",
            "compositions.extension.upper-between-steps",
        ),
        (
            [{**PARALLEL, "branches": [*PARALLEL["branches"], UPPER], "reduce": APPEND}],
            "p",
            "compositions.extension.upper-inside-parallel",
        ),
        (
            [{**PARALLEL, "reduce": {"strategy": "ppconf.join", "into": "out"}}],
            "p",
            "compositions.extension.join-without-separator",
        ),
    ],
)
def test_the_kit_s_test_extensions_are_judged_by_the_run_s_status_alone(
    steps: list[dict[str, Any]], named: str, rule: str
) -> None:
    mocks = {"a": [{"output": "x"}], "b": [{"output": "y"}]}
    expected = expect_run(
        "compositions",
        composition_pack(steps, named),
        [{"run_composition": {"name": "c", "input": {"k": 0}, "mocks": mocks}}],
    )
    # What ppconf.upper and ppconf.join give is the kit's definition (MAY): no output holding
    # it is compared, whatever the reference gave.
    (only,) = expects(expected)
    assert only == {"composition": {"$subset": {"status": "completed"}}}
    assert expected.rule_at(1, "composition.status") == rule
    assert expected.level == 3


def test_a_run_without_the_test_extensions_stays_at_level_2() -> None:
    steps = [{**PARALLEL, "reduce": APPEND}]
    mocks = {"a": [{"output": "x"}], "b": [{"output": "y"}]}
    expected = expect_run(
        "compositions",
        composition_pack(steps, "p"),
        [{"run_composition": {"name": "c", "input": {"k": 0}, "mocks": mocks}}],
    )
    assert expected.level == 2
