"""Tests of ``reference.validate`` against SEMANTICS.md section 6: RFC 0014 ``control``,
RFC 0011 ``AgentDef.state``, RFC 0016 ``extensions``, RFC 0017 ``provider`` and the vendor
step-kind pattern of the published 1.9.0 schema.

Each code has a test that triggers it (exact code, severity and JSON pointer) and near misses
that must stay silent. Packs are YAML texts: :data:`BASE` plus the sections a test adds.
"""

from __future__ import annotations

import copy
import random
import textwrap
from typing import Any

import pytest

import reference
from reference import Diagnostic

BASE = """\
id: newer-rfcs
name: Newer RFCs
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
  finish:
    id: finish
    name: Finish
    version: 1.0.0
    system_template: Summarise.
"""

STATE = "/workflow/states"
CONTROL_CODES = {"control-invalid", "control-agent-terminal", "control-cycle-unbounded"}
AGENT_CODES = {"agent-state-unknown", "agent-state-without-workflow"}
PROVIDER_CODES = {"provider-unknown", "provider-optional-referenced", "provider-role-not-llm"}


def pack(*sections: str) -> dict[str, Any]:
    """:data:`BASE` with the given top-level YAML sections (each dedented) appended."""
    text = BASE + "".join(textwrap.dedent(s).strip("\n") + "\n" for s in sections)
    document: dict[str, Any] = reference.load_pack_string(text)
    return document


def found(document: dict[str, Any], codes: set[str]) -> list[tuple[str, str, str]]:
    """``(code, severity, path)`` of the diagnostics with one of ``codes``, in reported order."""
    return [(d.code, d.severity, d.path) for d in reference.validate(document) if d.code in codes]


def workflow(states: str, *, entry: str = "start", extra: str = "") -> str:
    """A ``workflow`` section whose ``states`` are the given YAML (indented by the caller)."""
    return f"workflow:\n  version: 2\n  entry: {entry}\n{extra}  states:\n{states}"


# -- control (RFC 0014) -------------------------------------------------------------------------


def states(text: str) -> str:
    """Indent a dedented YAML mapping of states under ``workflow.states``."""
    return textwrap.indent(textwrap.dedent(text).strip("\n"), "    ") + "\n"


def control_pack(state_yaml: str, *, extra: str = "") -> dict[str, Any]:
    return pack(workflow(states(state_yaml), extra=extra))


RFC_0014_EXAMPLE_2 = """
compile:
  prompt_task: work
  control: agent
  max_visits: 5
  on_event:
    CompileFailed: fix
    CompileOk: test
test:
  prompt_task: work
  control: agent
  max_visits: 5
  on_event:
    TestsFailed: fix
    TestsPassed: report
fix:
  prompt_task: work
  control: agent
  max_visits: 10
  on_max_visits: report
  on_event:
    PatchApplied: compile
report:
  prompt_task: finish
  control: user
  terminal: true
"""


def test_control_values_are_valid_and_silent() -> None:
    document = control_pack(
        """
        start:
          prompt_task: work
          control: user
          on_event:
            Route: route
        route:
          prompt_task: work
          control: agent
          on_event:
            Done: finish
        finish:
          prompt_task: finish
          terminal: true
        """
    )
    assert reference.validate(document) == []


def test_rfc_0014_example_2_is_clean() -> None:
    document = pack(workflow(states(RFC_0014_EXAMPLE_2), entry="compile"))
    assert found(document, CONTROL_CODES) == []
    assert reference.is_valid(reference.validate(document))


@pytest.mark.parametrize("value", ["system", "Agent", "", "USER"])
def test_control_invalid_is_reported_once_not_as_schema(value: str) -> None:
    document = control_pack(
        f"""
        start:
          prompt_task: work
          control: "{value}"
        """
    )
    diagnostics = reference.validate(document)
    assert [(d.code, d.severity, d.path) for d in diagnostics if d.severity == "error"] == [
        ("control-invalid", "error", f"{STATE}/start/control")
    ]


@pytest.mark.parametrize("value", ["1", "true", "null", "[agent]", "{who: agent}"])
def test_control_not_a_string_is_schema_only(value: str) -> None:
    document = control_pack(
        f"""
        start:
          prompt_task: work
          control: {value}
        """
    )
    assert [(d.code, d.path) for d in reference.validate(document) if d.severity == "error"] == [
        ("schema", f"{STATE}/start/control")
    ]


def test_control_agent_terminal() -> None:
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            Done: finish
        finish:
          prompt_task: finish
          control: agent
          terminal: true
        """
    )
    assert found(document, CONTROL_CODES) == [
        ("control-agent-terminal", "warning", f"{STATE}/finish/control")
    ]


def test_control_agent_terminal_near_misses() -> None:
    # control: user on a terminal state, and control: agent on a state that is terminal only
    # by having no on_event (the rule names `terminal: true`).
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            Done: finish
            Stop: stop
        finish:
          prompt_task: finish
          control: user
          terminal: true
        stop:
          prompt_task: finish
          control: agent
        """
    )
    assert found(document, CONTROL_CODES) == []


def test_control_cycle_unbounded_once_per_component_at_its_first_state() -> None:
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            Go: b
        b:
          prompt_task: work
          control: agent
          on_event:
            Next: a
        a:
          prompt_task: work
          control: agent
          on_event:
            Next: c
        c:
          prompt_task: work
          control: agent
          on_event:
            Back: b
            Self: c
        """,
        extra="  engine:\n    budget:\n      max_total_visits: 100\n",
    )
    # one warning for {a, b, c}, at the first name sorted; engine.budget does not silence it
    diagnostics = reference.validate(document)
    assert found(document, CONTROL_CODES) == [("control-cycle-unbounded", "warning", f"{STATE}/a")]
    message = next(d.message for d in diagnostics if d.code == "control-cycle-unbounded")
    assert "a, b, c" in message


def test_control_cycle_unbounded_self_loop_and_two_components() -> None:
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            One: spin
            Two: x
        spin:
          prompt_task: work
          control: agent
          on_event:
            Again: spin
        x:
          prompt_task: work
          control: agent
          on_event:
            Next: y
        y:
          prompt_task: work
          control: agent
          on_event:
            Next: x
        """
    )
    assert found(document, CONTROL_CODES) == [
        ("control-cycle-unbounded", "warning", f"{STATE}/spin"),
        ("control-cycle-unbounded", "warning", f"{STATE}/x"),
    ]


def _agent_loop(**changes: Any) -> dict[str, Any]:
    """``start -> a <-> b`` with a and b ``control: agent``; ``changes`` maps
    ``"<state>.<field>"`` to a value set on that state (``on_event.<event>`` adds an event)."""
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            Go: a
        a:
          prompt_task: work
          control: agent
          on_event:
            Next: b
        b:
          prompt_task: work
          control: agent
          on_event:
            Back: a
        done:
          prompt_task: finish
          terminal: true
        helper:
          prompt_task: work
          on_event:
            Back: a
        """
    )
    for where, value in changes.items():
        state, *fields = where.split(".")
        target = document["workflow"]["states"][state]
        for name in fields[:-1]:
            target = target[name]
        target[fields[-1]] = value
    return document


def test_control_cycle_unbounded_base_of_the_near_misses() -> None:
    assert found(_agent_loop(), CONTROL_CODES) == [
        ("control-cycle-unbounded", "warning", f"{STATE}/a")
    ]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"a.max_visits": 3}, "a member has max_visits"),
        ({"b.max_visits": 1}, "another member has max_visits"),
        ({"a.on_event.Finish": "done"}, "a terminal state is reachable"),
        ({"a.on_event.Ask": "helper"}, "a state without control is reachable"),
        ({"b.on_event.Ask": "start"}, "the user state it came from is reachable"),
        ({"b.control": "user"}, "b hands the turn back"),
    ],
)
def test_control_cycle_unbounded_near_misses(changes: dict[str, Any], why: str) -> None:
    assert found(_agent_loop(**changes), CONTROL_CODES) == [], why


def test_control_cycle_unbounded_exit_through_other_agent_states() -> None:
    # The cycle reaches a user state only through an agent state outside it: bounded.
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            Go: a
        a:
          prompt_task: work
          control: agent
          on_event:
            Next: b
            Out: relay
        b:
          prompt_task: work
          control: agent
          on_event:
            Back: a
        relay:
          prompt_task: work
          control: agent
          on_event:
            Ask: start
        """
    )
    assert found(document, CONTROL_CODES) == []


def test_control_cycle_unbounded_exit_through_a_guarded_redirect_only() -> None:
    # The agent loop a <-> b can go on to c, an agent state whose only way out is its
    # on_max_visits redirect to a terminal state: the redirect counts, since c has max_visits.
    base = """
        start:
          prompt_task: work
          on_event:
            Go: a
        a:
          prompt_task: work
          control: agent
          on_event:
            Next: b
            On: c
        b:
          prompt_task: work
          control: agent
          on_event:
            Back: a
        c:
          prompt_task: work
          control: agent
          GUARD
          on_max_visits: done
          on_event:
            Back: a
        done:
          prompt_task: finish
          terminal: true
        """
    guarded = control_pack(base.replace("GUARD", "max_visits: 2"))
    assert found(guarded, CONTROL_CODES) == []
    # Without max_visits the redirect never fires: a, b and c are one unbounded loop.
    unguarded = control_pack(base.replace("GUARD", "description: no max_visits"))
    assert found(unguarded, CONTROL_CODES) == [("control-cycle-unbounded", "warning", f"{STATE}/a")]


def test_control_cycle_unbounded_ignores_a_terminal_agent_state_in_the_loop() -> None:
    # A terminal state's on_event never fires, so no cycle passes through it.
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            Go: a
        a:
          prompt_task: work
          control: agent
          on_event:
            Next: t
        t:
          prompt_task: work
          control: agent
          terminal: true
          on_event:
            Back: a
        """
    )
    assert [c for c, _, _ in found(document, CONTROL_CODES)] == ["control-agent-terminal"]


def test_user_cycles_do_not_give_the_control_warning() -> None:
    document = control_pack(
        """
        start:
          prompt_task: work
          on_event:
            Again: start
        """
    )
    codes = {d.code for d in reference.validate(document)}
    assert "cycle-unbounded" in codes
    assert not codes & CONTROL_CODES


def test_control_warnings_are_independent_of_state_order() -> None:
    document = _agent_loop()
    states_map = document["workflow"]["states"]
    document["workflow"]["states"] = dict(reversed(list(states_map.items())))
    assert found(document, CONTROL_CODES) == found(_agent_loop(), CONTROL_CODES)


# -- AgentDef.state (RFC 0011) --------------------------------------------------------------------

AGENT_WORKFLOW = workflow(
    states(
        """
        start:
          prompt_task: work
          on_event:
            Done: finish
        triage:
          prompt_task: work
          max_visits: 4
          on_event:
            Done: finish
        finish:
          prompt_task: finish
          terminal: true
        """
    ),
    extra="  engine:\n    budget:\n      max_total_visits: 3\n",
)


def agents(members: str) -> str:
    return "agents:\n  entry: work\n  members:\n" + textwrap.indent(
        textwrap.dedent(members).strip("\n"), "    "
    )


def test_state_backed_agent_is_valid_and_makes_its_state_reachable() -> None:
    document = pack(
        AGENT_WORKFLOW,
        agents(
            """
            work:
              state: triage
              tags: [triage]
            finish: {}
            """
        ),
    )
    diagnostics = reference.validate(document)
    assert reference.is_valid(diagnostics)
    assert [d.code for d in diagnostics if d.code == "unreachable-state"] == []


def test_without_the_agent_the_state_is_unreachable() -> None:
    document = pack(AGENT_WORKFLOW, agents("work: {}"))
    assert [(d.code, d.path) for d in reference.validate(document)] == [
        ("unreachable-state", f"{STATE}/triage")
    ]


def test_agent_states_count_for_budget_below_max_visits() -> None:
    # max_total_visits 3 is below triage's max_visits 4 only once triage is reachable.
    with_agent = pack(AGENT_WORKFLOW, agents("work:\n  state: triage"))
    without = pack(AGENT_WORKFLOW, agents("work: {}"))
    budget = "/workflow/engine/budget/max_total_visits"
    assert [(d.code, d.path) for d in reference.validate(with_agent)] == [
        ("budget-below-max-visits", budget)
    ]
    assert "budget-below-max-visits" not in {d.code for d in reference.validate(without)}


def test_agent_state_unknown() -> None:
    document = pack(AGENT_WORKFLOW, agents("work:\n  state: nowhere\nfinish:\n  state: finish"))
    assert found(document, AGENT_CODES) == [
        ("agent-state-unknown", "error", "/agents/members/work/state")
    ]


def test_agent_state_without_workflow() -> None:
    document = pack(agents("work:\n  state: triage\nfinish:\n  tags: [x]"))
    assert found(document, AGENT_CODES) == [
        ("agent-state-without-workflow", "error", "/agents/members/work/state")
    ]


def test_agent_member_key_is_escaped_in_the_pointer() -> None:
    document = pack(AGENT_WORKFLOW, agents('"a/b~c":\n  state: nowhere'))
    assert found(document, AGENT_CODES) == [
        ("agent-state-unknown", "error", "/agents/members/a~1b~0c/state")
    ]


@pytest.mark.parametrize("value", ["1", "null", "[triage]", "{name: triage}"])
def test_agent_state_not_a_string_is_schema_only(value: str) -> None:
    document = pack(AGENT_WORKFLOW, agents(f"work:\n  state: {value}"))
    assert [(d.code, d.path) for d in reference.validate(document) if d.severity == "error"] == [
        ("schema", "/agents/members/work/state")
    ]


def test_agent_state_with_a_malformed_workflow_is_left_to_the_schema() -> None:
    document = pack("workflow: 3\n", agents("work:\n  state: triage"))
    assert [(d.code, d.path) for d in reference.validate(document)] == [("schema", "/workflow")]


def test_agent_member_key_must_be_a_prompt_key() -> None:
    # RFC 0011 rule 3: a state-backed member is no exception; the pointer is escaped.
    document = pack(AGENT_WORKFLOW, agents('work: {}\ntriage:\n  state: triage\n"a/b": {}'))
    assert found(document, {"agent-member-unknown"}) == [
        ("agent-member-unknown", "error", "/agents/members/a~1b"),
        ("agent-member-unknown", "error", "/agents/members/triage"),
    ]


def test_agents_entry_must_be_a_prompt_key() -> None:
    document = pack(AGENT_WORKFLOW, "agents:\n  entry: triage\n  members:\n    work: {}\n")
    errors = [(d.code, d.path) for d in reference.validate(document) if d.severity == "error"]
    assert errors == [("agent-member-unknown", "/agents/entry")]


def test_agent_member_keys_naming_prompts_are_silent() -> None:
    # The entry need not be a member; a prompt without a member is fine.
    document = pack(AGENT_WORKFLOW, "agents:\n  entry: finish\n  members:\n    work: {}\n")
    assert found(document, {"agent-member-unknown"}) == []


@pytest.mark.parametrize(
    "section",
    [
        "agents: 3\n",
        "agents:\n  entry: 3\n  members: {}\n",
        "agents:\n  entry: work\n  members: [nowhere]\n",
    ],
)
def test_agent_member_rule_leaves_malformed_agents_to_the_schema(section: str) -> None:
    document = pack(AGENT_WORKFLOW, section)
    codes = {d.code for d in reference.validate(document)}
    assert "schema" in codes
    assert "agent-member-unknown" not in codes


def test_agent_member_rule_skips_a_pack_without_prompts_object() -> None:
    document = pack(agents("work: {}"))
    document["prompts"] = ["work"]
    codes = {d.code for d in reference.validate(document)}
    assert "schema" in codes
    assert "agent-member-unknown" not in codes


# -- extensions (RFC 0016) ------------------------------------------------------------------------

EXTENSIONS = {
    "acme.example/owner": "team-a",
    "plain": {"nested": [1, {"deeper": None}], "flag": True},
}


def _everywhere(value: Any) -> dict[str, Any]:
    document = pack(
        workflow(
            states(
                """
                start:
                  prompt_task: work
                  on_event:
                    Run: compose
                compose:
                  orchestration: composition
                  composition: pipeline
                  on_event:
                    Done: finish
                finish:
                  prompt_task: finish
                  terminal: true
                """
            )
        ),
        agents("work:\n  state: start"),
        """
        compositions:
          pipeline:
            version: 1
            steps:
              - id: draft
                kind: prompt
                prompt_task: work
        """,
    )
    for target in (
        document["workflow"]["states"]["start"],
        document["compositions"]["pipeline"],
        document["prompts"]["work"],
        document["agents"]["members"]["work"],
    ):
        target["extensions"] = copy.deepcopy(value)
    return document


def test_extensions_accept_any_object_everywhere() -> None:
    assert reference.validate(_everywhere(EXTENSIONS)) == []
    assert reference.validate(_everywhere({})) == []


@pytest.mark.parametrize("value", [[], "acme", 1, None, True])
def test_extensions_not_an_object_is_schema(value: Any) -> None:
    paths = [
        f"{STATE}/start/extensions",
        "/agents/members/work/extensions",
        "/compositions/pipeline/extensions",
        "/prompts/work/extensions",
    ]
    diagnostics = reference.validate(_everywhere(value))
    assert sorted((d.code, d.path) for d in diagnostics) == sorted(("schema", p) for p in paths)


# -- provider (RFC 0017) ------------------------------------------------------------------------

REQUIRES = """
requires:
  providers:
    - default
    - drafter
    - key: triage
      role: inference
    - key: spare
      role: llm
      required: false
    - key: embed
      role: embedding
      required: false
"""


def provider_pack(*, prompt: str | None = None, steps: str = "", requires: str = REQUIRES) -> Any:
    """A pack whose prompt ``work`` runs in a workflow state and, with ``steps``, a composition
    of those steps; ``prompt`` is ``work``'s provider."""
    document = pack(
        requires,
        workflow(
            states(
                """
                start:
                  prompt_task: work
                  on_event:
                    Run: compose
                compose:
                  orchestration: composition
                  composition: pipeline
                  on_event:
                    Done: finish
                finish:
                  prompt_task: finish
                  terminal: true
                """
            )
        ),
        "compositions:\n  pipeline:\n    version: 1\n    steps:\n"
        + textwrap.indent(
            textwrap.dedent(steps or "- {id: draft, kind: tool, tool: t}").strip("\n"), "      "
        )
        + "\n",
        "tools:\n  t:\n    name: t\n    description: A tool.\n",
    )
    if prompt is not None:
        document["prompts"]["work"]["provider"] = prompt
    return document


@pytest.mark.parametrize("key", ["default", "drafter", "triage_is_not"])
def test_provider_on_a_prompt(key: str) -> None:
    expected = (
        [] if key != "triage_is_not" else [("provider-unknown", "error", "/prompts/work/provider")]
    )
    assert found(provider_pack(prompt=key), PROVIDER_CODES) == expected


def test_provider_default_is_valid_without_any_requires() -> None:
    document = provider_pack(prompt="default", requires="")
    assert reference.validate(document) == []


def test_provider_unknown_without_requires() -> None:
    document = provider_pack(prompt="drafter", requires="")
    assert found(document, PROVIDER_CODES) == [
        ("provider-unknown", "error", "/prompts/work/provider")
    ]


def test_provider_unknown_on_prompt_and_agent_steps_only() -> None:
    document = provider_pack(
        steps="""
        - {id: one, kind: prompt, prompt_task: work, provider: nope, output_schema: s.json}
        - {id: two, kind: agent, prompt_task: work, provider: nope, termination: {max_steps: 2}}
        - {id: three, kind: tool, tool: t, provider: nope}
        - {id: four, kind: acme.judge, provider: nope}
        """
    )
    assert found(document, PROVIDER_CODES) == [
        ("provider-unknown", "error", "/compositions/pipeline/steps/0/provider"),
        ("provider-unknown", "error", "/compositions/pipeline/steps/1/provider"),
    ]


def test_provider_unknown_in_a_parallel_branch() -> None:
    document = provider_pack(
        steps="""
        - id: fan
          kind: parallel
          reduce: {strategy: append, into: all}
          branches:
            - {id: a, kind: prompt, prompt_task: work, output_schema: s.json}
            - {id: b, kind: prompt, prompt_task: work, output_schema: s.json, provider: Drafter}
        """
    )
    assert found(document, PROVIDER_CODES) == [
        ("provider-unknown", "error", "/compositions/pipeline/steps/0/branches/1/provider")
    ]


def test_provider_optional_referenced() -> None:
    document = provider_pack(
        prompt="spare",
        steps="- {id: one, kind: agent, prompt_task: finish, provider: spare, "
        "termination: {max_steps: 1}}",
    )
    assert found(document, PROVIDER_CODES) == [
        ("provider-optional-referenced", "warning", "/compositions/pipeline/steps/0/provider"),
        ("provider-optional-referenced", "warning", "/prompts/work/provider"),
    ]


def test_provider_optional_referenced_near_miss_required_true_and_shorthand() -> None:
    requires = """
    requires:
      providers:
        - drafter
        - key: spare
          role: llm
          required: true
    """
    for key in ("drafter", "spare"):
        assert found(provider_pack(prompt=key, requires=requires), PROVIDER_CODES) == []


def test_provider_role_not_llm_on_a_conversational_prompt() -> None:
    assert found(provider_pack(prompt="triage"), PROVIDER_CODES) == [
        ("provider-role-not-llm", "warning", "/prompts/work/provider")
    ]


def test_provider_role_not_llm_near_miss_prompt_only_in_compositions() -> None:
    document = provider_pack(
        steps="- {id: one, kind: prompt, prompt_task: finish, output_schema: intent.json}"
    )
    document["prompts"]["finish"]["provider"] = "triage"
    document["workflow"]["states"]["finish"]["prompt_task"] = "work"
    assert found(document, PROVIDER_CODES) == []


def test_provider_role_not_llm_on_prompt_steps_without_output_schema() -> None:
    document = provider_pack(
        steps="""
        - {id: own, kind: prompt, prompt_task: finish, provider: triage}
        - {id: inherited, kind: prompt, prompt_task: finish}
        - {id: schema, kind: prompt, prompt_task: finish, provider: triage, output_schema: i.json}
        - {id: overridden, kind: prompt, prompt_task: finish, provider: drafter}
        - {id: agent, kind: agent, prompt_task: finish, termination: {max_steps: 1}}
        """
    )
    document["prompts"]["finish"]["provider"] = "triage"
    document["workflow"]["states"]["finish"]["prompt_task"] = "work"
    assert found(document, PROVIDER_CODES) == [
        ("provider-role-not-llm", "warning", "/compositions/pipeline/steps/0/provider"),
        ("provider-role-not-llm", "warning", "/compositions/pipeline/steps/1/prompt_task"),
    ]


def test_provider_role_not_llm_and_optional_on_one_provider() -> None:
    assert found(provider_pack(prompt="embed"), PROVIDER_CODES) == [
        ("provider-optional-referenced", "warning", "/prompts/work/provider"),
        ("provider-role-not-llm", "warning", "/prompts/work/provider"),
    ]


def test_provider_not_a_string_is_schema_only() -> None:
    document = provider_pack(
        prompt=["drafter"],  # type: ignore[arg-type]
        steps="- {id: one, kind: prompt, prompt_task: work, provider: 3}",
    )
    assert [(d.code, d.path) for d in reference.validate(document) if d.severity == "error"] == [
        ("schema", "/compositions/pipeline/steps/0/provider"),
        ("schema", "/prompts/work/provider"),
    ]


def test_provider_references_unchecked_when_requires_is_malformed() -> None:
    document = provider_pack(prompt="nope", requires="requires:\n  providers: drafter\n")
    assert [(d.code, d.path) for d in reference.validate(document)] == [
        ("schema", "/requires/providers")
    ]


def test_rfc_0017_example_2_is_valid() -> None:
    document = pack(
        """
        requires:
          providers:
            - default
            - key: triage
              role: inference
            - key: drafter
              role: llm
        """,
        """
        tools:
          crm_lookup: {name: crm_lookup, description: Look up a customer.}
        """,
        """
        compositions:
          handle_ticket:
            version: 1
            steps:
              - id: intent
                kind: prompt
                prompt_task: work
                provider: triage
                output_schema: schemas/intent.json
              - id: gate
                kind: branch
                predicate: { path: "${intent.output.category}", op: equals, value: refund }
                then: refund
                else: escalate
              - id: refund
                kind: prompt
                prompt_task: finish
                provider: drafter
                input: "${input}"
              - id: escalate
                kind: agent
                prompt_task: work
                tools: [crm_lookup]
                termination: { max_steps: 6 }
        """,
    )
    diagnostics = reference.validate(document)
    assert reference.is_valid(diagnostics)
    assert not {d.code for d in diagnostics} & PROVIDER_CODES


# -- vendor step kinds (the published 1.9.0 pattern) ---------------------------------------------


@pytest.mark.parametrize(
    ("kind", "valid"),
    [
        ("acme-co.judge.v2", True),
        ("acme.judge", True),
        ("a_b.c-d.e_f", True),
        ("Acme.judge", False),
        ("acme.Judge", False),
        ("acme", False),
        ("acme.", False),
        (".judge", False),
        ("1acme.judge", False),
        ("acme.1judge", False),
    ],
)
def test_vendor_step_kinds_follow_the_published_pattern(kind: str, valid: bool) -> None:
    document = pack(
        f"""
        compositions:
          pipeline:
            version: 1
            steps:
              - id: judge
                kind: "{kind}"
        """
    )
    diagnostics = [d for d in reference.validate(document) if d.severity == "error"]
    expected: list[tuple[str, str]] = (
        [] if valid else [("step-kind-unknown", "/compositions/pipeline/steps/0/kind")]
    )
    assert [(d.code, d.path) for d in diagnostics] == expected


def test_diagnostics_are_plain_diagnostics() -> None:
    document = provider_pack(prompt="nope")
    assert all(isinstance(d, Diagnostic) for d in reference.validate(document))


# -- control-cycle-unbounded against its definition, on many small random workflows ------------


def _random_workflow(rng: random.Random, size: int) -> dict[str, Any]:
    names = [f"s{i}" for i in range(size)]
    states: dict[str, Any] = {}
    for name in names:
        state: dict[str, Any] = {"prompt_task": "work"}
        events = rng.sample(names, rng.randint(0, min(3, size)))
        if events:
            state["on_event"] = {f"E{i}": target for i, target in enumerate(events)}
        if rng.random() < 0.6:
            state["control"] = "agent"
        elif rng.random() < 0.5:
            state["control"] = "user"
        if rng.random() < 0.15:
            state["terminal"] = True
        if rng.random() < 0.15:
            state["max_visits"] = 2
        if rng.random() < 0.2:
            state["on_max_visits"] = rng.choice(names)
        states[name] = state
    return {"version": 2, "entry": names[0], "states": states}


def _expected_control_cycles(states: dict[str, Any]) -> list[str]:
    """SEMANTICS 6.1 read literally, by brute force: the first (sorted) state of each
    unguarded cyclic component of control: agent states from which no state handing the turn
    back is reachable (over on_event edges and the redirects of guarded states)."""

    def terminal(name: str) -> bool:
        return states[name].get("terminal") is True or not states[name].get("on_event")

    looping = {n for n, s in states.items() if s.get("control") == "agent" and not terminal(n)}

    def successors(name: str, *, agent_only: bool) -> set[str]:
        found = set() if terminal(name) else set(states[name].get("on_event", {}).values())
        if not agent_only and "max_visits" in states[name] and "on_max_visits" in states[name]:
            found.add(states[name]["on_max_visits"])
        return found & looping if agent_only else found

    def reach(starts: set[str], *, agent_only: bool) -> set[str]:
        seen, frontier = set(starts), list(starts)
        while frontier:
            for target in successors(frontier.pop(), agent_only=agent_only):
                if target not in seen:
                    seen.add(target)
                    frontier.append(target)
        return seen

    flagged = set()
    for name in looping:
        component = {
            other
            for other in reach({name}, agent_only=True)
            if name in reach({other}, agent_only=True)
        }
        cyclic = len(component) > 1 or name in successors(name, agent_only=True)
        guarded = any("max_visits" in states[m] for m in component)
        escapes = reach(component, agent_only=False) - looping
        if cyclic and not guarded and not escapes:
            flagged.add(min(component))
    return sorted(flagged)


def test_control_cycle_unbounded_matches_its_definition_on_random_workflows() -> None:
    rng = random.Random(14)
    warned = 0
    for _ in range(400):
        wf = _random_workflow(rng, rng.randint(1, 7))
        document = pack()
        document["workflow"] = wf
        got = [
            d.path.rsplit("/", 1)[1]
            for d in reference.validate(document)
            if d.code == "control-cycle-unbounded"
        ]
        assert got == _expected_control_cycles(wf["states"]), wf
        warned += bool(got)
    assert warned >= 20  # the generator does produce the case it tests
