"""Validating packs: the schema, then every workflow rule of SEMANTICS.md section 2.

Every rule reports under a stable code with a JSON pointer. The checks after the schema are
written to survive malformed input (they skip what the schema already reported), so one run
reports everything it can, once, in a deterministic order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, TypeGuard

import jsonschema_rs

from reference import _graph
from reference._pointer import describe_json_type, pointer, pointer_from_path
from reference._resources import schema_path

Severity = Literal["error", "warning"]

SUPPORTED_WORKFLOW_VERSIONS = (1, 2)
ORCHESTRATIONS = ("internal", "external", "hybrid", "composition")
PERSISTENCES = ("transient", "persistent")
_PASCAL_CASE = re.compile(r"[A-Z][a-zA-Z0-9]*")
# The name runs up to the first character that cannot be part of it, so filters and nested
# access (`{{artifacts.log|upper}}`, `{{artifacts.report.summary}}`) still name `log`, `report`.
_ARTIFACT_REFERENCE = re.compile(r"\{\{\s*artifacts\.([A-Za-z0-9_-]+)")


@dataclass(frozen=True)
class Diagnostic:
    """One finding of the validator.

    Attributes:
        code: the stable SEMANTICS code, e.g. ``entry-unknown``.
        severity: ``error`` (the pack is invalid) or ``warning`` (it is not).
        path: JSON pointer to the value the finding is about.
        message: a sentence for people; compare codes and paths, never messages.
    """

    code: str
    severity: Severity
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity} {self.code} at {self.path or '/'}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        """Return the diagnostic as plain JSON-able data."""
        return {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
        }


def sort_key(diagnostic: Diagnostic) -> tuple[int, str, str, str]:
    """Errors first, then by path, code and message: the order every tool prints."""
    return (diagnostic.severity != "error", diagnostic.path, diagnostic.code, diagnostic.message)


def is_valid(diagnostics: Iterable[Diagnostic]) -> bool:
    """Whether a list of diagnostics has no error (warnings never make a pack invalid)."""
    return not any(d.severity == "error" for d in diagnostics)


def validate(pack: Any) -> list[Diagnostic]:
    """Validate a loaded pack and return its diagnostics, errors first, in a stable order.

    Arguments:
        pack: the document as loaded from JSON or YAML (normally a ``dict``).
    """
    if not isinstance(pack, dict):
        kind = describe_json_type(pack)
        return [Diagnostic("schema", "error", "", f"a pack must be an object, not {kind}")]
    found = _schema_diagnostics(pack)
    workflow = pack.get("workflow")
    if isinstance(workflow, dict):
        found.extend(_WorkflowRules(pack, workflow).diagnostics())
    return sorted(found, key=sort_key)


# -- the schema -------------------------------------------------------------------------------


@cache
def _pack_schema_validator() -> Any:
    with open(schema_path("promptpack.schema.json"), encoding="utf-8") as stream:
        schema = json.load(stream)
    return jsonschema_rs.validator_for(schema)


def _schema_diagnostics(pack: dict[str, Any]) -> list[Diagnostic]:
    found = []
    for error in _pack_schema_validator().iter_errors(pack):
        instance_path = list(error.instance_path)
        where = pointer_from_path(instance_path)
        code = _code_for_schema_error(instance_path, list(error.schema_path), error.kind)
        if code is None:
            continue
        message = error.message
        if code == "prompt-task-missing":
            message = "a state not in composition mode needs a prompt_task"
        elif code == "composition-missing":
            message = "orchestration: composition needs a composition name"
        elif code == "composition-not-allowed":
            message = "composition is only allowed with orchestration: composition"
        found.append(Diagnostic(code, "error", where, message))
    return found


def _code_for_schema_error(
    instance_path: list[str | int], schema_path: list[str | int], kind: Any
) -> str | None:
    """Map a schema violation to its own SEMANTICS code where it has one (None: drop it)."""
    in_state = "WorkflowState" in schema_path
    if in_state and schema_path[-2:] == ["else", "required"]:
        return "prompt-task-missing"
    if in_state and schema_path[-2:] == ["then", "required"]:
        return "composition-missing"
    if in_state and schema_path[-2:] == ["else", "not"]:
        return "composition-not-allowed"
    if in_state and instance_path[-1:] == ["orchestration"] and schema_path[-1:] == ["enum"]:
        return "orchestration-invalid"
    if instance_path == ["workflow", "version"] and isinstance(
        kind, jsonschema_rs.ValidationErrorKind.Minimum
    ):
        return None  # an integer other than 1 or 2: reported as workflow-version-unsupported
    return "schema"


# -- the workflow rules -----------------------------------------------------------------------


def is_integer(value: Any) -> TypeGuard[int | float]:
    """Whether a loaded value is an integer in JSON terms (``2`` or ``2.0``, not ``True``)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer()
    )


class _WorkflowRules:
    """The checks of SEMANTICS section 2 on one pack's ``workflow`` object."""

    def __init__(self, pack: dict[str, Any], workflow: dict[str, Any]) -> None:
        self.pack = pack
        self.workflow = workflow
        raw_states = workflow.get("states")
        self.states_ok = isinstance(raw_states, dict)
        # Only well-formed states take part; the schema has reported the others.
        self.states: dict[str, dict[str, Any]] = (
            {k: v for k, v in raw_states.items() if isinstance(v, dict)}
            if isinstance(raw_states, dict)
            else {}
        )
        self.names = list(self.states)
        self.number = {name: i for i, name in enumerate(self.names)}
        # Each state's fields, read once, tolerating malformed values.
        self.events = [_on_event(s) for s in self.states.values()]
        self.guards = [_max_visits(s) for s in self.states.values()]
        # X2: terminal is `terminal: true`, or no on_event entries (the v1.3 convention).
        self.terminal = [
            s.get("terminal") is True or not events
            for s, events in zip(self.states.values(), self.events, strict=True)
        ]
        self.found: list[Diagnostic] = []

    def diagnostics(self) -> list[Diagnostic]:
        self.check_version()
        self.check_references()
        self.check_state_warnings()
        self.check_artifacts()
        self.check_graph()
        return self.found

    def report(self, code: str, severity: Severity, where: str, message: str) -> None:
        self.found.append(Diagnostic(code, severity, where, message))

    def string(self, state: dict[str, Any], field: str) -> str | None:
        value = state.get(field)
        return value if isinstance(value, str) else None

    # errors

    def check_version(self) -> None:
        version = self.workflow.get("version")
        if is_integer(version) and version not in SUPPORTED_WORKFLOW_VERSIONS:
            self.report(
                "workflow-version-unsupported",
                "error",
                "/workflow/version",
                f"workflow version {version} is not supported (supported: 1, 2)",
            )

    def check_references(self) -> None:
        entry = self.workflow.get("entry")
        if self.states_ok and isinstance(entry, str) and entry not in self.workflow["states"]:
            self.report(
                "entry-unknown", "error", "/workflow/entry", f"entry {entry!r} is not a state"
            )
        prompts = self.pack.get("prompts")
        compositions = self.pack.get("compositions")
        for (name, state), events in zip(self.states.items(), self.events, strict=True):
            base = ("workflow", "states", name)
            composition_mode = state.get("orchestration") == "composition"
            task = self.string(state, "prompt_task")
            known_task = not isinstance(prompts, dict) or task is None or task in prompts
            if not composition_mode and not known_task:
                self.report(
                    "prompt-task-unknown",
                    "error",
                    pointer(*base, "prompt_task"),
                    f"prompt_task {task!r} is not a key of prompts",
                )
            for event, target in events.items():
                if target not in self.workflow["states"]:
                    self.report(
                        "event-target-unknown",
                        "error",
                        pointer(*base, "on_event", event),
                        f"event {event!r} targets {target!r}, which is not a state",
                    )
            redirect = self.string(state, "on_max_visits")
            if redirect is not None and redirect not in self.workflow["states"]:
                self.report(
                    "on-max-visits-unknown",
                    "error",
                    pointer(*base, "on_max_visits"),
                    f"on_max_visits {redirect!r} is not a state",
                )
            composition = self.string(state, "composition")
            if composition_mode and composition is not None:
                known = isinstance(compositions, dict) and composition in compositions
                if not known:
                    self.report(
                        "composition-unknown",
                        "error",
                        pointer(*base, "composition"),
                        f"composition {composition!r} is not a key of compositions",
                    )

    # per-state warnings

    def check_state_warnings(self) -> None:
        version = self.workflow.get("version")
        for i, (name, state) in enumerate(self.states.items()):
            base = ("workflow", "states", name)
            events = self.events[i]
            for event in events:
                if not _PASCAL_CASE.fullmatch(event):
                    self.report(
                        "event-name-style",
                        "warning",
                        pointer(*base, "on_event", event),
                        f"event name {event!r} is not PascalCase",
                    )
            if state.get("terminal") is True and events:
                self.report(
                    "terminal-with-transitions",
                    "warning",
                    pointer(*base, "on_event"),
                    f"terminal state {name!r} declares on_event transitions; they never fire",
                )
            persistence = state.get("persistence")
            if isinstance(persistence, str) and persistence not in PERSISTENCES:
                self.report(
                    "persistence-unknown",
                    "warning",
                    pointer(*base, "persistence"),
                    f"persistence {persistence!r} is neither 'transient' nor 'persistent'",
                )
            if (
                is_integer(version)
                and version >= 2
                and state.get("terminal") is not True
                and not events
                and self.guards[i] is None
            ):
                self.report(
                    "dead-end-state",
                    "warning",
                    pointer(*base),
                    f"state {name!r} has no transitions and no max_visits but is not marked "
                    "terminal: true; mark it terminal or add transitions",
                )

    # artifacts

    def check_artifacts(self) -> None:
        declared: dict[str, str] = {}  # name -> mode of its first declaration
        conflicted: set[str] = set()
        for name, state in self.states.items():
            artifacts = state.get("artifacts")
            if not isinstance(artifacts, dict):
                continue
            for artifact, definition in artifacts.items():
                mode = definition.get("mode", "replace") if isinstance(definition, dict) else None
                if mode not in ("replace", "append"):
                    declared.setdefault(
                        artifact, ""
                    )  # malformed (the schema says so), but declared
                    continue
                first = declared.setdefault(artifact, mode)
                if first and first != mode and artifact not in conflicted:
                    conflicted.add(artifact)
                    self.report(
                        "artifact-mode-conflict",
                        "warning",
                        pointer("workflow", "states", name, "artifacts", artifact),
                        f"artifact {artifact!r} is declared with mode {first!r} elsewhere "
                        f"and {mode!r} here",
                    )
        prompts = self.pack.get("prompts")
        if not isinstance(prompts, dict):
            return
        used = sorted(
            {task for s in self.states.values() if (task := self.string(s, "prompt_task"))}
        )
        for task in used:
            prompt = prompts.get(task)
            template = prompt.get("system_template") if isinstance(prompt, dict) else None
            if not isinstance(template, str):
                continue
            for reference in sorted(set(_ARTIFACT_REFERENCE.findall(template))):
                if reference not in declared:
                    self.report(
                        "artifact-undeclared",
                        "warning",
                        pointer("prompts", task, "system_template"),
                        f"the template reads {{{{artifacts.{reference}}}}} but no state "
                        f"declares artifact {reference!r}",
                    )

    # the transition graph

    def check_graph(self) -> None:
        if not self.names:
            return
        number = self.number
        states = list(self.states.values())
        terminal = self.terminal
        event_edges = [
            [] if terminal[i] else [number[t] for t in events.values() if t in number]
            for i, events in enumerate(self.events)
        ]
        # The transition graph: these on_event edges plus one on_max_visits edge per state.
        redirect: list[int | None] = [
            number.get(self.string(s, "on_max_visits") or "") for s in states
        ]
        engine = self.workflow.get("engine")
        budget = engine.get("budget") if isinstance(engine, dict) else None
        total_visits = budget.get("max_total_visits") if isinstance(budget, dict) else None

        # Loops: strongly connected components of the on_event edges.
        components = _graph.strongly_connected_components(event_edges)
        cyclic = [c for c in components if _graph.is_cyclic(c, event_edges)]
        if cyclic and not (isinstance(engine, dict) and "budget" in engine):
            self.report(
                "loop-without-budget",
                "warning",
                "/workflow",
                "the workflow has a loop but no engine.budget; add one as a safety net",
            )
        if cyclic and not is_integer(total_visits):
            self.check_unbounded_cycles(components, event_edges)

        # Reachability from the entry, and paths to a terminal state.
        entry = self.workflow.get("entry")
        if isinstance(entry, str) and entry in number:
            seen = _graph.reachable([number[entry]], event_edges, redirect)
            for i, name in enumerate(self.names):
                if not seen[i]:
                    self.report(
                        "unreachable-state",
                        "warning",
                        pointer("workflow", "states", name),
                        f"state {name!r} cannot be reached from the entry {entry!r}",
                    )
            if is_integer(total_visits):
                bound = sum(g or 0 for g, reached in zip(self.guards, seen, strict=True) if reached)
                if total_visits < bound:
                    self.report(
                        "budget-below-max-visits",
                        "warning",
                        "/workflow/engine/budget/max_total_visits",
                        f"max_total_visits {total_visits} is below {bound}, the sum of the "
                        "max_visits of the reachable states; some limits can never be reached",
                    )
        if not any(terminal):
            self.report(
                "no-terminal-state",
                "warning",
                "/workflow/states",
                "no state is terminal; mark the exit states terminal: true",
            )
        finishes = _graph.reachable(
            [i for i, t in enumerate(terminal) if t], _graph.reverse(event_edges, redirect)
        )
        for i, name in enumerate(self.names):
            if not finishes[i]:
                self.report(
                    "no-terminal-path",
                    "warning",
                    pointer("workflow", "states", name),
                    f"no terminal state can be reached from {name!r}; only a limit stops it",
                )

        # Forced exits that never exit.
        for cycle in _graph.functional_cycles(redirect):
            members = [self.names[i] for i in cycle]
            first = members.index(min(members))
            ordered = members[first:] + members[:first]
            self.report(
                "redirect-cycle",
                "warning",
                pointer("workflow", "states", ordered[0], "on_max_visits"),
                "on_max_visits chain never exits: " + " -> ".join([*ordered, ordered[0]]),
            )

    def check_unbounded_cycles(
        self,
        components: list[list[int]],
        event_edges: list[list[int]],
    ) -> None:
        """Warn once per component holding a cycle through states without ``max_visits``."""
        component_of = [0] * len(self.names)
        for index, component in enumerate(components):
            for node in component:
                component_of[node] = index
        unguarded = [g is None for g in self.guards]
        free_edges = [
            [t for t in targets if unguarded[t]] if unguarded[v] else []
            for v, targets in enumerate(event_edges)
        ]
        flagged = sorted(
            {
                component_of[c[0]]
                for c in _graph.strongly_connected_components(free_edges)
                if unguarded[c[0]] and _graph.is_cyclic(c, free_edges)
            }
        )
        for index in flagged:
            members = sorted(self.names[i] for i in components[index])
            self.report(
                "cycle-unbounded",
                "warning",
                pointer("workflow", "states", members[0]),
                "states " + ", ".join(members) + " form a loop with no max_visits and no "
                "engine.budget.max_total_visits; it could run forever",
            )


def _on_event(state: dict[str, Any]) -> dict[str, str]:
    raw = state.get("on_event")
    if not isinstance(raw, dict):
        return {}
    if all(isinstance(target, str) for target in raw.values()):
        return raw  # the common case: no copy
    return {event: target for event, target in raw.items() if isinstance(target, str)}


def _max_visits(state: dict[str, Any]) -> int | None:
    value = state.get("max_visits")
    return int(value) if is_integer(value) and value >= 1 else None
