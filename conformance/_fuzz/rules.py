"""The rules the fuzzer cites that the built-in catalog does not pin yet.

A finding names the catalog case whose rule it breaks, and an exported case copies that case's
``spec`` (its RFC quotes), level, ``spec_versions`` and ``rules``. The control area (RFC 0014)
has no catalog cases in this release: its rules are written here in the same form, under the
ids their catalog cases take. Once a catalog case with the same id exists, it is used instead
(:func:`conformance._fuzz.report.rule_case` reads the catalog first).
"""

# ruff: noqa: E501 (the RFC quotes are kept verbatim, one string each)

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from conformance._contract import Requirement


@dataclass(frozen=True)
class RuleText:
    """A MUST rule as a catalog case states it (the fields an exported case copies)."""

    id: str
    level: int
    spec: tuple[Mapping[str, Any], ...]
    spec_versions: tuple[str, ...]
    rules: tuple[str, ...]
    requirement: Requirement = "MUST"


def _rule(
    case_id: str, level: int, rules: list[str], *spec: tuple[str, str, str | None]
) -> RuleText:
    entries = tuple(
        {"source": source, "section": section, **({"quote": quote} if quote else {})}
        for source, section, quote in spec
    )
    return RuleText(case_id, level, entries, (">=1.7",), tuple(rules))


_RULES = (
    _rule(
        "control.turn.agent-transition-into-agent-state",
        2,
        ["X18"],
        (
            "RFC 0014",
            "Detailed Design",
            "`control: agent` — the runtime runs another agent round in the new state, rebuilding the pipeline for that state's `prompt_task`, tools, and validators.",
        ),
        (
            "RFC 0014",
            "Runtime Support Levels",
            "Level 2 — Execute. Honor the property: run another agent round on entering a `control: agent` state, accumulate assistant text across rounds, and terminate on a `control: user` state, a terminal state, `max_visits`, or budget exhaustion.",
        ),
        ("SEMANTICS", "6.1 control area, X18", None),
    ),
    _rule(
        "control.turn.agent-transition-into-user-state",
        2,
        ["X18"],
        (
            "RFC 0014",
            "Detailed Design",
            "`control: user` — the conversation yields. The accumulated assistant response is returned to the user.",
        ),
        (
            "RFC 0014",
            "Detailed Design",
            "The loop terminates when the conversation reaches a state with `control: user`,",
        ),
        ("SEMANTICS", "6.1 control area, X18", None),
    ),
    _rule(
        "control.turn.absent-control-is-user",
        2,
        ["X19", "X18"],
        (
            "RFC 0014",
            "Validation Rules",
            "An absent `control` is equivalent to `control: user`. A runtime MUST NOT distinguish the two.",
        ),
        ("RFC 0014", "Schema Changes", '"default": "user",'),
        ("SEMANTICS", "6.1 control area, X19", None),
    ),
    _rule(
        "control.turn.host-transition-into-agent-state",
        2,
        ["X20", "X18"],
        (
            "RFC 0014",
            "Relationship to orchestration",
            "`control` is only consulted on an agent-initiated transition.",
        ),
        (
            "RFC 0014",
            "Detailed Design",
            "After the runtime enters a state as the result of an agent-initiated transition, it consults the new state's `control`:",
        ),
        ("SEMANTICS", "6.1 control area, X20", None),
    ),
    _rule(
        "control.turn.terminal-agent-state",
        2,
        ["X21", "X2", "X5"],
        (
            "RFC 0014",
            "Validation Rules",
            "`control` on a `terminal: true` state has no effect — a terminal state ends the conversation regardless.",
        ),
        (
            "RFC 0014",
            "Detailed Design",
            "The loop terminates when the conversation reaches a state with `control: user`, reaches a `terminal: true` state, or trips an existing bound",
        ),
        ("SEMANTICS", "6.1 control area, X21", None),
    ),
    _rule(
        "control.turn.max-visits-exceeded-ends",
        2,
        ["X21", "X5", "max-visits-exceeded"],
        (
            "RFC 0014",
            "Detailed Design",
            "The loop terminates when the conversation reaches a state with `control: user`, reaches a `terminal: true` state, or trips an existing bound — `max_visits` on a state, or the workflow's `engine.budget`.",
        ),
        (
            "RFC 0009",
            "Modified Definition: WorkflowState (on_max_visits)",
            "If omitted and max_visits is reached, the workflow terminates with a budget-exhausted status.",
        ),
        ("SEMANTICS", "6.1 control area, X21; 3. X5", None),
    ),
    _rule(
        "control.turn.budget-tool-calls-and-time-stop",
        2,
        ["X21", "X8", "budget-exhausted"],
        (
            "RFC 0014",
            "Detailed Design",
            "The loop terminates when the conversation reaches a state with `control: user`, reaches a `terminal: true` state, or trips an existing bound — `max_visits` on a state, or the workflow's `engine.budget`.",
        ),
        (
            "RFC 0014",
            "Detailed Design",
            "A pack whose states all declare `control: agent` and never reach a terminal state is bounded by budget in exactly the way an unbounded agent loop already is.",
        ),
        (
            "RFC 0009",
            "New Definition: WorkflowBudget",
            "When any budget limit is reached, the workflow terminates with a budget-exhausted status.",
        ),
        ("SEMANTICS", "6.1 control area, X21; 3. X8; 0. R4 (X8)", None),
    ),
    _rule(
        "control.turn.agent-text-ends-round",
        2,
        ["X22", "X18"],
        (
            "RFC 0014",
            "Detailed Design",
            "The agent then either calls another tool (including another `workflow__transition`, continuing the loop) or emits a final text response.",
        ),
        (
            "RFC 0014",
            "Detailed Design",
            "Text emitted in a `control: agent` state is appended to the response that eventually reaches the user, rather than being discarded or delivered on its own.",
        ),
        ("SEMANTICS", "6.1 control area (agent_text), X22", None),
    ),
    _rule(
        "control.reply.rounds-in-order",
        2,
        ["X22", "X18"],
        (
            "RFC 0014",
            "Detailed Design",
            "Text emitted in a `control: agent` state is appended to the response that eventually reaches the user, rather than being discarded or delivered on its own. A pack that routes through three states produces one user-visible reply assembled from the rounds that had something to say.",
        ),
        (
            "RFC 0014",
            "Runtime Support Levels",
            "run another agent round on entering a `control: agent` state, accumulate assistant text across rounds,",
        ),
        ("SEMANTICS", "6.1 control area, X22", None),
    ),
    _rule(
        "control.validation.control-values-valid",
        1,
        ["control-invalid"],
        (
            "RFC 0014",
            "Validation Rules",
            "`control` MUST be one of `user` or `agent` when present.",
        ),
        ("schema 1.9.0", "$defs/WorkflowState/properties/control", '"enum": ["user", "agent"],'),
        (
            "RFC 0014",
            "Relationship to orchestration",
            "Declaring it there is not an error — the state may be reachable both ways under `hybrid` — but it has no effect on the externally driven path.",
        ),
        ("SEMANTICS", "6.1 control area (validation)", None),
    ),
    _rule(
        "control.validation.control-invalid-capitalised",
        1,
        ["control-invalid"],
        (
            "RFC 0014",
            "Validation Rules",
            "`control` MUST be one of `user` or `agent` when present. Any other value is a schema violation.",
        ),
        ("schema 1.9.0", "$defs/WorkflowState/properties/control", '"enum": ["user", "agent"],'),
        ("SEMANTICS", "6.1 control area (validation)", None),
    ),
    _rule(
        "control.validation.control-boolean",
        1,
        ["schema"],
        (
            "schema 1.9.0",
            "$defs/WorkflowState/properties/control",
            '"control": { "type": "string",',
        ),
        ("RFC 0014", "Validation Rules", "Any other value is a schema violation."),
        ("SEMANTICS", "6.1 control area (validation)", None),
    ),
)

RULE_TEXTS: Mapping[str, RuleText] = MappingProxyType({rule.id: rule for rule in _RULES})
"""Rule id -> its text, for the rules no built-in catalog case pins yet."""
