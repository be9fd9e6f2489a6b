"""The workflow rules of SEMANTICS.md section 2: what ``reference.validate`` checks in a pack's
``workflow`` after the schema.

Each state is read once, in document order; the graph rules run in linear time on flat lists
(strongly connected components, reachability). The rules skip what is malformed (the schema
has reported it), so one run reports everything once.
"""

from __future__ import annotations

import re
from typing import Any

from reference import _graph
from reference._diagnostics import Diagnostic, Severity
from reference._json import is_integer, json_pointer

SUPPORTED_WORKFLOW_VERSIONS = (1, 2)
ORCHESTRATIONS = ("internal", "external", "hybrid", "composition")
PERSISTENCES = ("transient", "persistent")
_PASCAL_CASE = re.compile(r"[A-Z][a-zA-Z0-9]*")
# The name runs up to the first character that cannot be part of it, so filters and nested
# access (`{{artifacts.log|upper}}`, `{{artifacts.report.summary}}`) still name `log`, `report`.
_ARTIFACT_REFERENCE = re.compile(r"\{\{\s*artifacts\.([A-Za-z0-9_-]+)")


def diagnostics(pack: dict[str, Any], workflow: dict[str, Any]) -> list[Diagnostic]:
    """Return the diagnostics of a pack's ``workflow`` object (unsorted).

    Arguments:
        pack: the loaded pack (the schema has already been applied to it).
        workflow: its ``workflow`` object.
    """
    return _WorkflowRules(pack, workflow).diagnostics()


class _WorkflowRules:
    """The checks of SEMANTICS section 2 on one pack's ``workflow`` object.

    Each state is read once, in document order: the per-state rules run as it is read, and
    what the graph rules need is kept in flat lists indexed by state number.
    """

    def __init__(self, pack: dict[str, Any], workflow: dict[str, Any]) -> None:
        self.pack = pack
        self.workflow = workflow
        raw_states = workflow.get("states")
        self.all_states: dict[str, Any] = raw_states if isinstance(raw_states, dict) else {}
        # Only well-formed states take part; the schema has reported the others.
        self.names = [n for n, s in self.all_states.items() if isinstance(s, dict)]
        self.number = {name: i for i, name in enumerate(self.names)}
        self.events: list[dict[str, str]] = []
        self.targets: list[list[int]] = []  # on_event targets, by number (known states only)
        self.guards: list[int | None] = []
        self.redirects: list[int | None] = []
        # X2: terminal is `terminal: true`, or no on_event entries (the v1.3 convention).
        self.terminal: list[bool] = []
        self.tasks: set[str] = set()
        self.declared: dict[str, str] = {}  # artifact -> mode of its first declaration
        self.found: list[Diagnostic] = []

    def diagnostics(self) -> list[Diagnostic]:
        self.check_version()
        self.check_entry()
        version = self.workflow.get("version")
        self.newer_version = is_integer(version) and version >= 2
        conflicted: set[str] = set()
        for name in self.names:
            self.read_state(name, self.all_states[name], conflicted)
        self.check_templates()
        self.check_graph()
        return self.found

    def report(self, code: str, severity: Severity, where: str, message: str) -> None:
        self.found.append(Diagnostic(code, severity, where, message))

    # the workflow object

    def check_version(self) -> None:
        version = self.workflow.get("version")
        if is_integer(version) and version not in SUPPORTED_WORKFLOW_VERSIONS:
            self.report(
                "workflow-version-unsupported",
                "error",
                "/workflow/version",
                f"workflow version {version} is not supported (supported: 1, 2)",
            )

    def check_entry(self) -> None:
        entry = self.workflow.get("entry")
        states = self.workflow.get("states")
        if isinstance(states, dict) and isinstance(entry, str) and entry not in states:
            self.report(
                "entry-unknown", "error", "/workflow/entry", f"entry {entry!r} is not a state"
            )

    # one state

    def read_state(self, name: str, state: dict[str, Any], conflicted: set[str]) -> None:
        """Record what the graph rules need of a state, and run the rules about it alone."""
        base = ("workflow", "states", name)
        events = _on_event(state)
        guard = _max_visits(state)
        marked_terminal = state.get("terminal") is True
        redirect = _string(state, "on_max_visits")
        self.events.append(events)
        targets: list[int] = []
        self.targets.append(targets)
        self.guards.append(guard)
        self.terminal.append(marked_terminal or not events)
        self.redirects.append(self.number.get(redirect) if redirect is not None else None)

        # references (errors)
        composition_mode = state.get("orchestration") == "composition"
        task = _string(state, "prompt_task")
        if task is not None:
            self.tasks.add(task)
            prompts = self.pack.get("prompts")
            if not composition_mode and isinstance(prompts, dict) and task not in prompts:
                self.report(
                    "prompt-task-unknown",
                    "error",
                    json_pointer(*base, "prompt_task"),
                    f"prompt_task {task!r} is not a key of prompts",
                )
        for event, target in events.items():
            index = self.number.get(target)
            if index is not None:
                targets.append(index)
            elif target not in self.all_states:
                self.report(
                    "event-target-unknown",
                    "error",
                    json_pointer(*base, "on_event", event),
                    f"event {event!r} targets {target!r}, which is not a state",
                )
            if not _PASCAL_CASE.fullmatch(event):
                self.report(
                    "event-name-style",
                    "warning",
                    json_pointer(*base, "on_event", event),
                    f"event name {event!r} is not PascalCase",
                )
        if redirect is not None and redirect not in self.all_states:
            self.report(
                "on-max-visits-unknown",
                "error",
                json_pointer(*base, "on_max_visits"),
                f"on_max_visits {redirect!r} is not a state",
            )
        composition = _string(state, "composition")
        if composition_mode and composition is not None:
            compositions = self.pack.get("compositions")
            if not (isinstance(compositions, dict) and composition in compositions):
                self.report(
                    "composition-unknown",
                    "error",
                    json_pointer(*base, "composition"),
                    f"composition {composition!r} is not a key of compositions",
                )

        # warnings about the state alone
        if marked_terminal and events:
            self.report(
                "terminal-with-transitions",
                "warning",
                json_pointer(*base, "on_event"),
                f"terminal state {name!r} declares on_event transitions; they never fire",
            )
        persistence = state.get("persistence")
        if isinstance(persistence, str) and persistence not in PERSISTENCES:
            self.report(
                "persistence-unknown",
                "warning",
                json_pointer(*base, "persistence"),
                f"persistence {persistence!r} is neither 'transient' nor 'persistent'",
            )
        if self.newer_version and not marked_terminal and not events and guard is None:
            self.report(
                "dead-end-state",
                "warning",
                json_pointer(*base),
                f"state {name!r} has no transitions and no max_visits but is not marked "
                "terminal: true; mark it terminal or add transitions",
            )

        # artifact declarations, workflow-scoped
        artifacts = state.get("artifacts")
        if not isinstance(artifacts, dict):
            return
        for artifact, definition in artifacts.items():
            mode = definition.get("mode", "replace") if isinstance(definition, dict) else None
            if mode not in ("replace", "append"):
                # Malformed (the schema says so), but declared all the same.
                self.declared.setdefault(artifact, "")
                continue
            first = self.declared.setdefault(artifact, mode)
            if first and first != mode and artifact not in conflicted:
                conflicted.add(artifact)
                self.report(
                    "artifact-mode-conflict",
                    "warning",
                    json_pointer(*base, "artifacts", artifact),
                    f"artifact {artifact!r} is declared with mode {first!r} elsewhere "
                    f"and {mode!r} here",
                )

    # templates

    def check_templates(self) -> None:
        """``artifact-undeclared``: a template the workflow uses reads an undeclared artifact."""
        prompts = self.pack.get("prompts")
        if not isinstance(prompts, dict):
            return
        for task in sorted(self.tasks):
            prompt = prompts.get(task)
            template = prompt.get("system_template") if isinstance(prompt, dict) else None
            if not isinstance(template, str):
                continue
            for reference in sorted(set(_ARTIFACT_REFERENCE.findall(template))):
                if reference not in self.declared:
                    self.report(
                        "artifact-undeclared",
                        "warning",
                        json_pointer("prompts", task, "system_template"),
                        f"the template reads {{{{artifacts.{reference}}}}} but no state "
                        f"declares artifact {reference!r}",
                    )

    # the transition graph

    def check_graph(self) -> None:
        if not self.names:
            return
        terminal = self.terminal
        event_edges = [
            [] if end else targets for end, targets in zip(terminal, self.targets, strict=True)
        ]
        # The transition graph: these on_event edges plus one on_max_visits edge per state.
        redirect = self.redirects
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
        if isinstance(entry, str) and entry in self.number:
            seen = _graph.reachable([self.number[entry]], event_edges, redirect)
            for i, name in enumerate(self.names):
                if not seen[i]:
                    self.report(
                        "unreachable-state",
                        "warning",
                        json_pointer("workflow", "states", name),
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
                    json_pointer("workflow", "states", name),
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
                json_pointer("workflow", "states", ordered[0], "on_max_visits"),
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
                json_pointer("workflow", "states", members[0]),
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


def _string(state: dict[str, Any], field: str) -> str | None:
    value = state.get(field)
    return value if isinstance(value, str) else None
