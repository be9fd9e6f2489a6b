"""What each diagnostic code of the reference validator means, in one line: the rules of
``ppconf validate --format sarif`` and anything else that explains a code to a person.

The codes are the kit's vocabulary (docs/semantics.md sections 2, 4.1 and 2.5, which have the
full rules); severities are the validator's. A code may later cite the RFC statements it rests
on (:attr:`Code.statements`): the SARIF rules carry them in their property bag when it does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Code:
    """One diagnostic code.

    Attributes:
        code: the code, e.g. ``entry-unknown``.
        severity: ``error`` (the pack is invalid) or ``warning``.
        summary: what it reports, one sentence without a final period.
        statements: ids of the RFC statements it rests on, where known (none yet).
    """

    code: str
    severity: Literal["error", "warning"]
    summary: str
    statements: tuple[str, ...] = ()


def _codes(severity: Literal["error", "warning"], rows: Mapping[str, str]) -> dict[str, Code]:
    return {code: Code(code, severity, summary) for code, summary in rows.items()}


CODES: Mapping[str, Code] = {
    **_codes(
        "error",
        {
            "schema": "the pack does not match the PromptPack schema (a missing field, a wrong "
            "type, an unknown key)",
            "workflow-version-unsupported": "workflow.version is an integer other than 1 or 2",
            "entry-unknown": "workflow.entry is not a key of workflow.states",
            "prompt-task-unknown": "a state's prompt_task is not a key of prompts",
            "prompt-task-missing": "a state not in composition mode has no prompt_task",
            "event-target-unknown": "an on_event target is not a key of workflow.states",
            "on-max-visits-unknown": "on_max_visits is not a key of workflow.states",
            "orchestration-invalid": "a state's orchestration is none of internal, external, "
            "hybrid, composition",
            "composition-missing": "a state with orchestration: composition has no composition",
            "composition-not-allowed": "a state not in composition mode has a composition",
            "composition-unknown": "a composition-mode state's composition is not a key of "
            "compositions",
            "control-invalid": "a state's control is a string other than user and agent",
            "agent-state-unknown": "an agent member's state is not a key of workflow.states",
            "agent-state-without-workflow": "an agent member names a state in a pack without a "
            "workflow",
            "provider-unknown": "a provider is neither default nor the key of a "
            "requires.providers item",
            "composition-version-unsupported": "a composition's version is an integer other than 1",
            "composition-name-reserved": "a composition is named workflow__transition or "
            "workflow__set_artifact",
            "step-id-invalid": "a step id does not match ^[a-zA-Z_][a-zA-Z0-9_]*$",
            "step-id-duplicate": "a step id is used twice in one composition",
            "step-kind-unknown": "a step kind is none of prompt, agent, tool, branch, parallel "
            "and not vendor-namespaced",
            "step-field-missing": "a step lacks a field its kind needs (id, kind, prompt_task, "
            "tool, predicate, then)",
            "step-prompt-task-unknown": "a prompt or agent step's prompt_task is not a key of "
            "prompts",
            "step-tool-unknown": "a tool named by a step is not a key of tools",
            "step-eval-unknown": "an eval id of a step's modifiers is not in scope",
            "step-target-unknown": "a depends_on item, then or else names no step of the "
            "composition",
            "reference-unresolved": "a ${...} reference names neither the input nor the output "
            "of an earlier step",
            "agent-termination-missing": "an agent step has no termination, or one without "
            "max_steps and tool_called",
            "parallel-branches-too-few": "a parallel step has fewer than two branches",
            "parallel-reduce-missing": "a parallel step has no reduce",
            "reduce-strategy-unknown": "a reduce strategy is none of append, replace, barrier "
            "and not vendor-namespaced",
            "predicate-invalid": "a branch predicate is malformed (variant, op, value or path)",
            "step-graph-cycle": "the steps of a composition depend on each other in a cycle",
            "composition-output-unknown": "a composition's output names no step, or a branch step",
        },
    ),
    **_codes(
        "warning",
        {
            "event-name-style": "an event name is not PascalCase",
            "cycle-unbounded": "a cycle of transitions has no max_visits and the workflow no "
            "max_total_visits budget",
            "loop-without-budget": "the transitions contain a cycle and the workflow has no "
            "engine.budget",
            "unreachable-state": "a state is not reachable from the entry",
            "no-terminal-path": "no terminal state is reachable from a state",
            "no-terminal-state": "no state of the workflow is terminal",
            "terminal-with-transitions": "a state marked terminal: true has on_event entries",
            "redirect-cycle": "on_max_visits redirects form a cycle",
            "artifact-undeclared": "a prompt a state uses reads an artifact no state declares",
            "artifact-mode-conflict": "two states declare one artifact with different modes",
            "budget-below-max-visits": "max_total_visits is below the sum of the reachable "
            "states' max_visits",
            "persistence-unknown": "a state's persistence is neither transient nor persistent",
            "dead-end-state": "a state of a version 2 workflow is not terminal and has no "
            "transitions and no max_visits",
            "control-agent-terminal": "control: agent on a state marked terminal: true",
            "control-cycle-unbounded": "a cycle of control: agent states has no max_visits and "
            "never hands the turn back",
            "provider-optional-referenced": "a provider names a requirement with required: false",
            "provider-role-not-llm": "the provider of a call that must produce free text has a "
            "role other than llm",
            "composition-unreferenced": "no workflow state runs the composition",
            "join-without-depends-on": "a step right after a branch or parallel step has no "
            "depends_on",
            "parallel-member-kind": "a branch or parallel step among a parallel's branches, "
            "which not every runtime runs",
        },
    ),
}
"""Every code the validator reports, errors first, each in the order of docs/semantics.md."""

LOAD_ERROR = Code(
    "load-error",
    "error",
    "the file cannot be read as a pack: unreadable, not JSON or YAML, a duplicate key, past a "
    "size or depth limit, or a root that is not a mapping",
)
"""Not a validator code: what ``ppconf validate`` reports for a file it cannot load."""


def describe(code: str) -> Code:
    """The :class:`Code` of ``code``; an unknown one (a newer validator's) is described as such."""
    known = CODES.get(code)
    if known is not None:
        return known
    if code == LOAD_ERROR.code:
        return LOAD_ERROR
    return Code(code, "error", f"diagnostic code {code}")


__all__ = ["CODES", "LOAD_ERROR", "Code", "describe"]
