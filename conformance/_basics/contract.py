"""The rows and codes of the behavioural contract (SEMANTICS.md) that the catalog must cover.

A test compares these tables with SEMANTICS.md itself, so they cannot drift apart silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "BEYOND_SEMANTICS",
    "COMPOSITION_ERROR_CODES",
    "COMPOSITION_RULES",
    "COMPOSITION_RUN_CODES",
    "COMPOSITION_WARNING_CODES",
    "KIT_CODES",
    "KIT_LINTS",
    "NEWER_ERROR_CODES",
    "NEWER_WARNING_CODES",
    "REJECTION_CODES",
    "REQUIREMENTS",
    "RFC_WARNINGS",
    "RULES",
    "RULES_COVERED_ELSEWHERE",
    "START_REJECTION_CODES",
    "WORKFLOW_ERROR_CODES",
    "WORKFLOW_WARNING_CODES",
    "Requirement",
    "Rule",
    "code_requirement",
]

Requirement = Literal["MUST", "SHOULD", "MAY"]
REQUIREMENTS: tuple[Requirement, ...] = ("MUST", "SHOULD", "MAY")
"""Strongest first."""


@dataclass(frozen=True)
class Rule:
    """One row of SEMANTICS.md: sections 1 and 3 (L1-L5, X1-X16), 6.1 and 6.2 (X17-X24), or
    section 4 (C1-C12)."""

    id: str
    requirement: Requirement
    summary: str


RULES = (
    Rule("L1", "MUST", "JSON and YAML packs load to the same document"),
    Rule("L2", "MUST", "the required pack and prompt fields"),
    Rule("L3", "MUST", "Level 0: packs carrying workflow fields still load"),
    Rule("L4", "SHOULD", "duplicate keys are an error"),
    Rule("L5", "MUST", "hostile documents give one clear error (the kit's own tools)"),
    Rule("X1", "MUST", "start at the entry, which counts as a visit"),
    Rule("X2", "MUST", "terminal states: terminal: true or no on_event; they accept no events"),
    Rule("X3", "MUST", "status active/completed/budget_exhausted; no events once not active"),
    Rule("X4", "MUST", "event processing order; rejections change nothing"),
    Rule("X5", "MUST", "loop guards and redirect chains"),
    Rule("X6", "MUST", "transitions, history and redirect reporting"),
    Rule("X7", "MAY", "complete history"),
    Rule("X8", "MUST", "budgets, checked before every event"),
    Rule("X9", "MUST", "workflow-scoped artifacts, replace and append"),
    Rule("X10", "SHOULD", "append joins with no separator"),
    Rule("X11", "MAY", "artifact mode lookup; undeclared artifacts rejected"),
    Rule("X12", "SHOULD", "artifact history at every transition"),
    Rule("X13", "MUST", "host and agent event sources"),
    Rule("X14", "MAY", "persistence is a hint"),
    Rule("X15", "SHOULD", "snapshot and restore"),
    Rule("X16", "MUST", "unknown workflow version refuses to start"),
    Rule("X17", "SHOULD", "turn is user at start; a restored session keeps turn and reply"),
    Rule(
        "X18",
        "MUST",
        "after an agent transition the turn is agent iff the state entered has "
        "control: agent and the workflow is active",
    ),
    Rule("X19", "MUST", "an absent control behaves as control: user"),
    Rule("X20", "MUST", "after a host transition the turn is user"),
    Rule(
        "X21", "MUST", "a terminal state, max-visits end or budget stop gives the turn to the user"
    ),
    Rule("X22", "MUST", "the text of every round between two user turns makes one reply, in order"),
    Rule("X23", "MUST", "starting at a state: only that state visited, fresh session data"),
    Rule("X24", "MUST", "starting as an agent is starting at its state"),
)
"""The rows of SEMANTICS.md sections 1 and 3, then those of 6.1 (control, RFC 0014) and 6.2
(state-agents, RFC 0011)."""

COMPOSITION_RULES = (
    Rule("C1", "MUST", "steps in array order; depends_on joins"),
    Rule("C2", "MUST", "branch: the target not taken is skipped, no jump"),
    Rule("C3", "MUST", "parallel: concurrent branches merged in branch order"),
    Rule("C4", "MAY", "only leaf kinds inside a parallel"),
    Rule("C5", "MUST", "references keep JSON types; unresolved references fail the step"),
    Rule("C6", "MUST", "predicates: JSON equality, membership, ordered ops, exists, all/any/not"),
    Rule("C7", "MUST", "retry.max_attempts counts attempts"),
    Rule("C8", "MAY", "eval modifiers recorded, not executed"),
    Rule("C9", "MUST", "agent steps: bounded rounds, exit on the termination tool"),
    Rule("C10", "SHOULD", "the composition's output"),
    Rule("C11", "MAY", "a composition-mode state runs its composition"),
    Rule("C12", "MUST", "vendor extensions at Level 3"),
)
"""The rows of SEMANTICS.md section 4."""

RULES_COVERED_ELSEWHERE = {
    "L5": "hostile documents are about the kit's own loader; tests/reference/test_loading.py "
    "and tests/conformance/test_cli_validate.py cover them, and a case file cannot carry them",
}

WORKFLOW_ERROR_CODES = (
    "schema",
    "workflow-version-unsupported",
    "entry-unknown",
    "prompt-task-unknown",
    "prompt-task-missing",
    "event-target-unknown",
    "on-max-visits-unknown",
    "orchestration-invalid",
    "composition-missing",
    "composition-not-allowed",
    "composition-unknown",
)

WORKFLOW_WARNING_CODES = (
    "event-name-style",
    "cycle-unbounded",
    "unreachable-state",
    "no-terminal-path",
    "no-terminal-state",
    "terminal-with-transitions",
    "redirect-cycle",
    "artifact-undeclared",
    "artifact-mode-conflict",
    "budget-below-max-visits",
    "persistence-unknown",
    "dead-end-state",
    "loop-without-budget",
)

COMPOSITION_ERROR_CODES = (
    "composition-version-unsupported",
    "composition-name-reserved",
    "step-id-invalid",
    "step-id-duplicate",
    "step-kind-unknown",
    "step-field-missing",
    "step-prompt-task-unknown",
    "step-tool-unknown",
    "step-eval-unknown",
    "step-target-unknown",
    "reference-unresolved",
    "agent-termination-missing",
    "parallel-branches-too-few",
    "parallel-reduce-missing",
    "reduce-strategy-unknown",
    "predicate-invalid",
    "step-graph-cycle",
    "composition-output-unknown",
)

COMPOSITION_WARNING_CODES = ("composition-unreferenced", "join-without-depends-on")

NEWER_ERROR_CODES = (
    "control-invalid",
    "agent-state-unknown",
    "agent-state-without-workflow",
    "agent-member-unknown",
    "provider-unknown",
)
"""Validation errors of SEMANTICS.md section 6 (RFC 0014, RFC 0011, RFC 0017), in its order,
and those it does not list yet (:data:`BEYOND_SEMANTICS`)."""

BEYOND_SEMANTICS = {
    "agent-member-unknown": "RFC 0011 rule 3 (member keys and agents.entry MUST be keys of "
    "prompts), a testable MUST statement SEMANTICS 6.2 does not list yet",
}
"""Codes the kit adds where SEMANTICS.md is silent and an RFC statement requires them; the
contract test reads SEMANTICS.md without them."""

NEWER_WARNING_CODES = (
    "control-agent-terminal",
    "control-cycle-unbounded",
    "provider-optional-referenced",
    "provider-role-not-llm",
)
"""Validation warnings of SEMANTICS.md section 6, in its order (all RFC-named: SHOULD)."""

RFC_WARNINGS = frozenset(
    (
        "event-name-style",
        "cycle-unbounded",
        "unreachable-state",
        "terminal-with-transitions",
        "redirect-cycle",
        "artifact-undeclared",
        "budget-below-max-visits",
        "dead-end-state",
        "control-agent-terminal",
        "control-cycle-unbounded",
        "provider-optional-referenced",
        "provider-role-not-llm",
    )
)
"""Warnings an RFC names (SEMANTICS R3): expecting one is a SHOULD check."""

KIT_LINTS = frozenset(
    (
        "no-terminal-path",
        "no-terminal-state",
        "loop-without-budget",
        "artifact-mode-conflict",
        "persistence-unknown",
        "join-without-depends-on",
        "composition-unreferenced",
        "parallel-member-kind",
    )
)
"""The kit's own warnings (R3): expecting one (or its absence) is a MAY check."""


def code_requirement(code: str) -> Requirement:
    """How much reporting an expected code weighs (R2, R3): MAY for the kit's own lints,
    SHOULD for everything else (codes are the kit's vocabulary, which runtimes map onto)."""
    return "MAY" if code in KIT_LINTS else "SHOULD"


COMPOSITION_RUN_CODES = (
    "predicate-type-error",
    "reference-unresolved",
    "composition-no-output",
    "step-kind-unsupported",
    "reduce-strategy-unsupported",
)
"""Failure codes of a composition run (in its result's ``error`` or a step's trace)."""

KIT_CODES = (
    "parallel-member-kind",
    "call-failed",
    "tool-not-offered",
    "parallel-branch-failed",
    "extension-failed",
    "mock-exhausted",
    "mock-invalid",
    "state-not-composition",
)
"""Codes the reference adds where SEMANTICS gives none (docs/semantics.md sections 4 and 5);
cases may name them, the catalog need not cover them."""

REJECTION_CODES = (
    "unknown-event",
    "terminal-state",
    "max-visits-exceeded",
    "budget-exhausted",
    "event-source-not-allowed",
    "artifact-undeclared",
    "workflow-version-unsupported",
)

START_REJECTION_CODES = ("start-state-unknown", "agent-unknown", "agent-not-state-backed")
"""Why a session does not start at a given state or as a given agent (SEMANTICS 6.2)."""
