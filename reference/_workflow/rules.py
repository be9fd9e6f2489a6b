"""The workflow rules of SEMANTICS.md sections 2 and 6: what ``reference.validate`` checks in
a pack's ``workflow`` after the schema, with ``control`` (RFC 0014) and the states agents are
backed by (RFC 0011).

As for compositions, each rule is a small function that yields diagnostics, reading a
:class:`WorkflowView`; the rules about single states go through its :class:`State` objects.
The view reads each state once, in document order, into flat lists indexed by state number, on
which the graph rules run in linear time (strongly connected components, reachability). The
rules skip what is malformed (the schema has reported it), so one run reports everything once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from reference import _graph
from reference._diagnostics import Diagnostic
from reference._json import is_integer, json_pointer

SUPPORTED_WORKFLOW_VERSIONS = (1, 2)
CONTROLS = ("user", "agent")
"""The values of a state's ``control`` (RFC 0014); absent means ``user``."""
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
    view = WorkflowView.read(pack, workflow)
    return [d for rule in (*WORKFLOW_RULES, *STATE_RULES) for d in rule(view)]


def error(code: str, where: str, message: str) -> Diagnostic:
    """An error at a JSON pointer."""
    return Diagnostic(code, "error", where, message)


def warning(code: str, where: str, message: str) -> Diagnostic:
    """A warning at a JSON pointer."""
    return Diagnostic(code, "warning", where, message)


# -- what the rules read ----------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class State:
    """One well-formed state (an object) of ``workflow.states``.

    Attributes:
        number: position in document order among the well-formed states.
        name: its key.
        data: the state object.
        events: its ``on_event`` entries whose targets are strings.
        targets: the numbers of the known states those entries target.
        guard: ``max_visits`` when an integer >= 1.
        redirect: ``on_max_visits`` when a string.
        marked_terminal: ``terminal: true``.
        terminal: X2: ``terminal: true``, or no ``on_event`` entries (the v1.3 convention).
        agent_control: ``control: agent`` (RFC 0014; any other value holds the turn for the
            user, as an absent one does).
    """

    number: int
    name: str
    data: dict[str, Any]
    events: dict[str, str]
    targets: list[int]
    guard: int | None
    redirect: str | None
    marked_terminal: bool
    terminal: bool
    agent_control: bool

    def pointer(self, *tokens: str) -> str:
        """A pointer into this state."""
        return json_pointer("workflow", "states", self.name, *tokens)


@dataclass(eq=False)
class WorkflowView:
    """A pack's ``workflow`` as the rules read it.

    Attributes:
        pack: the pack.
        data: the ``workflow`` object.
        all_states: ``workflow.states`` (empty when it is not an object).
        states: the well-formed states, in document order.
        number: state name -> number, for the well-formed states.
        declared: artifact -> mode of its first declaration ("" for a malformed one, which
            still declares it).
        mode_conflicts: artifact -> the number of the first state declaring it with another
            mode than its first declaration.
    """

    pack: dict[str, Any]
    data: dict[str, Any]
    all_states: dict[str, Any]
    states: list[State] = field(default_factory=list)
    number: dict[str, int] = field(default_factory=dict)
    declared: dict[str, str] = field(default_factory=dict)
    mode_conflicts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def read(cls, pack: dict[str, Any], workflow: dict[str, Any]) -> WorkflowView:
        """Read every well-formed state once, in document order."""
        raw_states = workflow.get("states")
        view = cls(pack, workflow, raw_states if isinstance(raw_states, dict) else {})
        names = [n for n, s in view.all_states.items() if isinstance(s, dict)]
        view.number = {name: i for i, name in enumerate(names)}
        number = view.number
        for name in names:
            data = view.all_states[name]
            events = _on_event(data)
            marked_terminal = data.get("terminal") is True
            state = State(
                number=len(view.states),
                name=name,
                data=data,
                events=events,
                targets=[number[t] for t in events.values() if t in number],
                guard=_max_visits(data),
                redirect=_string(data, "on_max_visits"),
                marked_terminal=marked_terminal,
                terminal=marked_terminal or not events,
                agent_control=data.get("control") == "agent",
            )
            view.states.append(state)
            if "artifacts" in data:
                view.read_artifacts(state)
        return view

    def read_artifacts(self, state: State) -> None:
        """Record a state's artifact declarations (workflow-scoped) and any mode conflict."""
        artifacts = state.data.get("artifacts")
        if not isinstance(artifacts, dict):
            return
        for artifact, definition in artifacts.items():
            mode = definition.get("mode", "replace") if isinstance(definition, dict) else None
            if mode not in ("replace", "append"):
                # Malformed (the schema says so), but declared all the same.
                self.declared.setdefault(artifact, "")
                continue
            first = self.declared.setdefault(artifact, mode)
            if first and first != mode:
                self.mode_conflicts.setdefault(artifact, state.number)

    # the transition graph, computed once for the rules that need it

    @cached_property
    def terminal(self) -> list[bool]:
        """X2 for each state, by number."""
        return [state.terminal for state in self.states]

    @cached_property
    def event_edges(self) -> list[list[int]]:
        """The ``on_event`` edges by state number (a terminal state's never fire)."""
        return [[] if state.terminal else state.targets for state in self.states]

    @cached_property
    def redirects(self) -> list[int | None]:
        """The ``on_max_visits`` edge of each state, to a known state."""
        return [
            self.number.get(s.redirect) if s.redirect is not None else None for s in self.states
        ]

    @cached_property
    def components(self) -> list[list[int]]:
        """The strongly connected components of the ``on_event`` edges."""
        return _graph.strongly_connected_components(self.event_edges)

    @cached_property
    def has_loop(self) -> bool:
        """Whether the ``on_event`` edges hold a cycle."""
        edges = self.event_edges
        return any(_graph.is_cyclic(c, edges) for c in self.components)

    @cached_property
    def agent_roots(self) -> list[tuple[str, int]]:
        """``(member, state number)`` for each agent member backed by a known state (RFC
        0011), in document order: where invoking that agent enters the workflow."""
        members = agent_members(self.pack)
        return [(member, self.number[state]) for member, state in members if state in self.number]

    @property
    def budget(self) -> dict[str, Any] | None:
        """``engine.budget`` when it is an object."""
        engine = self.data.get("engine")
        budget = engine.get("budget") if isinstance(engine, dict) else None
        return budget if isinstance(budget, dict) else None

    @property
    def newer_version(self) -> bool:
        """Whether ``version`` is 2 or more (the version-2 lints apply)."""
        version = self.data.get("version")
        return is_integer(version) and version >= 2


# -- the workflow rules -----------------------------------------------------------------------


def version(view: WorkflowView) -> Iterator[Diagnostic]:
    """``workflow-version-unsupported``: an integer other than 1 or 2 (others: the schema)."""
    value = view.data.get("version")
    if is_integer(value) and value not in SUPPORTED_WORKFLOW_VERSIONS:
        yield error(
            "workflow-version-unsupported",
            "/workflow/version",
            f"workflow version {value} is not supported (supported: 1, 2)",
        )


def entry(view: WorkflowView) -> Iterator[Diagnostic]:
    """``entry-unknown``: ``entry`` is not a key of ``states``."""
    value = view.data.get("entry")
    states = view.data.get("states")
    if isinstance(states, dict) and isinstance(value, str) and value not in states:
        yield error("entry-unknown", "/workflow/entry", f"entry {value!r} is not a state")


def templates(view: WorkflowView) -> Iterator[Diagnostic]:
    """``artifact-undeclared``: a template a state uses reads an artifact no state declares."""
    prompts = view.pack.get("prompts")
    if not isinstance(prompts, dict):
        return
    tasks = {task for s in view.states if (task := _string(s.data, "prompt_task")) is not None}
    for task in sorted(tasks):
        prompt = prompts.get(task)
        template = prompt.get("system_template") if isinstance(prompt, dict) else None
        if not isinstance(template, str):
            continue
        for name in sorted(set(_ARTIFACT_REFERENCE.findall(template))):
            if name not in view.declared:
                yield warning(
                    "artifact-undeclared",
                    json_pointer("prompts", task, "system_template"),
                    f"the template reads {{{{artifacts.{name}}}}} but no state declares "
                    f"artifact {name!r}",
                )


def loops(view: WorkflowView) -> Iterator[Diagnostic]:
    """``loop-without-budget`` (a cycle of ``on_event`` edges, no ``engine.budget``) and
    ``cycle-unbounded`` (once per component holding a cycle through states without
    ``max_visits``, when no ``max_total_visits`` bounds it)."""
    if not view.has_loop:
        return
    engine = view.data.get("engine")
    if not (isinstance(engine, dict) and "budget" in engine):
        yield warning(
            "loop-without-budget",
            "/workflow",
            "the workflow has a loop but no engine.budget; add one as a safety net",
        )
    budget = view.budget
    if budget is not None and is_integer(budget.get("max_total_visits")):
        return
    component_of = [0] * len(view.states)
    for index, component in enumerate(view.components):
        for node in component:
            component_of[node] = index
    unguarded = [state.guard is None for state in view.states]
    free_edges = [
        [t for t in targets if unguarded[t]] if unguarded[v] else []
        for v, targets in enumerate(view.event_edges)
    ]
    flagged = sorted(
        {
            component_of[c[0]]
            for c in _graph.strongly_connected_components(free_edges)
            if unguarded[c[0]] and _graph.is_cyclic(c, free_edges)
        }
    )
    for index in flagged:
        members = sorted(view.states[i].name for i in view.components[index])
        yield warning(
            "cycle-unbounded",
            json_pointer("workflow", "states", members[0]),
            "states " + ", ".join(members) + " form a loop with no max_visits and no "
            "engine.budget.max_total_visits; it could run forever",
        )


def reachability(view: WorkflowView) -> Iterator[Diagnostic]:
    """``unreachable-state`` (not reachable from ``entry`` nor from the state of an agent
    member, RFC 0011) and ``budget-below-max-visits`` (``max_total_visits`` below the sum of
    the reachable states' ``max_visits``)."""
    value = view.data.get("entry")
    if not (isinstance(value, str) and value in view.number):
        return
    roots = [view.number[value], *(number for _, number in view.agent_roots)]
    seen = _graph.reachable(roots, view.event_edges, view.redirects)
    origin = f"the entry {value!r}" + (" or an agent's state" if view.agent_roots else "")
    for state in view.states:
        if not seen[state.number]:
            yield warning(
                "unreachable-state",
                state.pointer(),
                f"state {state.name!r} cannot be reached from {origin}",
            )
    budget = view.budget
    total_visits = budget.get("max_total_visits") if budget is not None else None
    if is_integer(total_visits):
        bound = sum(s.guard or 0 for s in view.states if seen[s.number])
        if total_visits < bound:
            yield warning(
                "budget-below-max-visits",
                "/workflow/engine/budget/max_total_visits",
                f"max_total_visits {total_visits} is below {bound}, the sum of the max_visits "
                "of the reachable states; some limits can never be reached",
            )


def terminal_paths(view: WorkflowView) -> Iterator[Diagnostic]:
    """``no-terminal-state`` and ``no-terminal-path`` (no terminal state reachable from it)."""
    if not view.states:
        return
    if not any(view.terminal):
        yield warning(
            "no-terminal-state",
            "/workflow/states",
            "no state is terminal; mark the exit states terminal: true",
        )
    finishes = _graph.reachable(
        [i for i, t in enumerate(view.terminal) if t],
        _graph.reverse(view.event_edges, view.redirects),
    )
    for state in view.states:
        if not finishes[state.number]:
            yield warning(
                "no-terminal-path",
                state.pointer(),
                f"no terminal state can be reached from {state.name!r}; only a limit stops it",
            )


def redirect_cycles(view: WorkflowView) -> Iterator[Diagnostic]:
    """``redirect-cycle``: once per cycle of ``on_max_visits`` edges, from its first state."""
    for cycle in _graph.functional_cycles(view.redirects):
        members = [view.states[i].name for i in cycle]
        first = members.index(min(members))
        ordered = members[first:] + members[:first]
        yield warning(
            "redirect-cycle",
            json_pointer("workflow", "states", ordered[0], "on_max_visits"),
            "on_max_visits chain never exits: " + " -> ".join([*ordered, ordered[0]]),
        )


def control_cycles(view: WorkflowView) -> Iterator[Diagnostic]:
    """``control-cycle-unbounded`` (warning, RFC 0014 rule 4): once per strongly connected
    component of the ``on_event`` edges among non-terminal ``control: agent`` states that holds
    a cycle, when none of its states has ``max_visits`` and no state that hands the turn back
    (``control`` user or absent, or terminal) can be reached from it. ``engine.budget`` does not
    silence it: the RFC names only ``max_visits``.

    Reaching such a state follows ``on_event`` edges and the ``on_max_visits`` edges of states
    that have ``max_visits`` (elsewhere a redirect never fires).
    """
    in_loop = [s.agent_control and not s.terminal for s in view.states]
    if not any(in_loop):
        return
    edges = view.event_edges  # a looping state is not terminal: these are all its events
    components = [
        c
        for c in _graph.strongly_connected_components(edges, within=in_loop)
        if (len(c) > 1 or c[0] in edges[c[0]]) and all(view.states[v].guard is None for v in c)
    ]
    if not components:
        return
    hands_back = _hands_back(view, in_loop)
    for component in components:
        if any(hands_back[v] for v in component):
            continue
        members = sorted(view.states[v].name for v in component)
        yield warning(
            "control-cycle-unbounded",
            json_pointer("workflow", "states", members[0]),
            "control: agent states " + ", ".join(members) + " form a loop with no max_visits "
            "and no reachable state that hands the turn back to the user; the agent could "
            "keep the turn forever",
        )


def _hands_back(view: WorkflowView, in_loop: list[bool]) -> list[bool]:
    """For each looping state (``in_loop``), whether a state outside them can be reached from
    it, over ``on_event`` edges and the ``on_max_visits`` edges of guarded states.

    Found backwards from the looping states with an edge leaving them, over the edges among
    them, kept in flat lists (one slice of predecessors per state): a large workflow makes no
    container per state, which would make the collector's full passes part of the cost.
    """
    count = len(view.states)
    redirects = view.redirects
    looping = [v for v in range(count) if in_loop[v]]
    offsets = [0] * (count + 1)
    exits = []
    for v in looping:
        leaves = False
        for target in view.event_edges[v]:
            if in_loop[target]:
                offsets[target + 1] += 1
            else:
                leaves = True
        redirect = redirects[v] if view.states[v].guard is not None else None
        if redirect is not None:
            if in_loop[redirect]:
                offsets[redirect + 1] += 1
            else:
                leaves = True
        if leaves:
            exits.append(v)
    for v in range(count):
        offsets[v + 1] += offsets[v]
    predecessors = [0] * offsets[count]
    free = offsets[:count]
    for v in looping:
        redirect = redirects[v] if view.states[v].guard is not None else None
        for target in view.event_edges[v]:
            if in_loop[target]:
                predecessors[free[target]] = v
                free[target] += 1
        if redirect is not None and in_loop[redirect]:
            predecessors[free[redirect]] = v
            free[redirect] += 1
    seen = [False] * count
    for v in exits:
        seen[v] = True
    while exits:
        node = exits.pop()
        for i in range(offsets[node], offsets[node + 1]):
            source = predecessors[i]
            if not seen[source]:
                seen[source] = True
                exits.append(source)
    return seen


# -- the rules about each state, in document order -------------------------------------------


def prompt_task(view: WorkflowView) -> Iterator[Diagnostic]:
    """``prompt-task-unknown``: not a key of ``prompts`` (composition mode is exempt)."""
    prompts = view.pack.get("prompts")
    for state in view.states:
        task = _string(state.data, "prompt_task")
        if (
            task is not None
            and state.data.get("orchestration") != "composition"
            and isinstance(prompts, dict)
            and task not in prompts
        ):
            yield error(
                "prompt-task-unknown",
                state.pointer("prompt_task"),
                f"prompt_task {task!r} is not a key of prompts",
            )


def events(view: WorkflowView) -> Iterator[Diagnostic]:
    """``event-target-unknown`` (the target is no state) and ``event-name-style`` (warning:
    the event name is not PascalCase)."""
    for state in view.states:
        for event, target in state.events.items():
            if target not in view.all_states:
                yield error(
                    "event-target-unknown",
                    state.pointer("on_event", event),
                    f"event {event!r} targets {target!r}, which is not a state",
                )
            if not _PASCAL_CASE.fullmatch(event):
                yield warning(
                    "event-name-style",
                    state.pointer("on_event", event),
                    f"event name {event!r} is not PascalCase",
                )


def on_max_visits(view: WorkflowView) -> Iterator[Diagnostic]:
    """``on-max-visits-unknown``: ``on_max_visits`` is no state."""
    for state in view.states:
        if state.redirect is not None and state.redirect not in view.all_states:
            yield error(
                "on-max-visits-unknown",
                state.pointer("on_max_visits"),
                f"on_max_visits {state.redirect!r} is not a state",
            )


def composition(view: WorkflowView) -> Iterator[Diagnostic]:
    """``composition-unknown``: a composition-mode state names no composition of the pack."""
    for state in view.states:
        name = _string(state.data, "composition")
        if state.data.get("orchestration") == "composition" and name is not None:
            compositions = view.pack.get("compositions")
            if not (isinstance(compositions, dict) and name in compositions):
                yield error(
                    "composition-unknown",
                    state.pointer("composition"),
                    f"composition {name!r} is not a key of compositions",
                )


def terminal_with_transitions(view: WorkflowView) -> Iterator[Diagnostic]:
    """``terminal-with-transitions`` (warning): ``terminal: true`` with ``on_event`` entries."""
    for state in view.states:
        if state.marked_terminal and state.events:
            yield warning(
                "terminal-with-transitions",
                state.pointer("on_event"),
                f"terminal state {state.name!r} declares on_event transitions; they never fire",
            )


def persistence(view: WorkflowView) -> Iterator[Diagnostic]:
    """``persistence-unknown`` (warning): neither ``transient`` nor ``persistent``."""
    for state in view.states:
        value = state.data.get("persistence")
        if isinstance(value, str) and value not in PERSISTENCES:
            yield warning(
                "persistence-unknown",
                state.pointer("persistence"),
                f"persistence {value!r} is neither 'transient' nor 'persistent'",
            )


def dead_end(view: WorkflowView) -> Iterator[Diagnostic]:
    """``dead-end-state`` (warning, version 2): not marked terminal, no transitions, no guard."""
    for state in view.states:
        if (
            view.newer_version
            and not state.marked_terminal
            and not state.events
            and state.guard is None
        ):
            yield warning(
                "dead-end-state",
                state.pointer(),
                f"state {state.name!r} has no transitions and no max_visits but is not "
                "marked terminal: true; mark it terminal or add transitions",
            )


def control_agent_terminal(view: WorkflowView) -> Iterator[Diagnostic]:
    """``control-agent-terminal`` (warning, RFC 0014 rule 3): ``control: agent`` on a state
    marked ``terminal: true``, where it has no effect."""
    for state in view.states:
        if state.agent_control and state.marked_terminal:
            yield warning(
                "control-agent-terminal",
                state.pointer("control"),
                f"terminal state {state.name!r} declares control: agent, which has no effect: "
                "a terminal state ends the conversation",
            )


def artifact_modes(view: WorkflowView) -> Iterator[Diagnostic]:
    """``artifact-mode-conflict`` (warning): once per artifact, at the first declaration
    whose mode differs from its first one."""
    for state in view.states:
        artifacts = state.data.get("artifacts")
        if not isinstance(artifacts, dict):
            return
        for artifact, definition in artifacts.items():
            if view.mode_conflicts.get(artifact) != state.number:
                continue
            mode = definition.get("mode", "replace") if isinstance(definition, dict) else None
            if mode in ("replace", "append") and mode != view.declared[artifact]:
                yield warning(
                    "artifact-mode-conflict",
                    state.pointer("artifacts", artifact),
                    f"artifact {artifact!r} is declared with mode {view.declared[artifact]!r} "
                    f"elsewhere and {mode!r} here",
                )


WORKFLOW_RULES: tuple[Callable[[WorkflowView], Iterator[Diagnostic]], ...] = (
    version,
    entry,
    templates,
    loops,
    reachability,
    terminal_paths,
    redirect_cycles,
    control_cycles,
)
"""The rules read once per workflow."""

STATE_RULES: tuple[Callable[[WorkflowView], Iterator[Diagnostic]], ...] = (
    prompt_task,
    events,
    on_max_visits,
    composition,
    terminal_with_transitions,
    persistence,
    dead_end,
    control_agent_terminal,
    artifact_modes,
)
"""The rules about each well-formed state (each reads every state, in document order)."""


# -- the rules about agents backed by states (RFC 0011), whether or not there is a workflow ----


def agent_states(pack: dict[str, Any]) -> Iterator[Diagnostic]:
    """``agent-state-without-workflow`` (an agent member's ``state`` in a pack without
    ``workflow``) and ``agent-state-unknown`` (not a key of ``workflow.states``), at
    ``/agents/members/<member>/state``.

    Arguments:
        pack: the loaded pack (an object).
    """
    workflow = pack.get("workflow")
    states = workflow.get("states") if isinstance(workflow, dict) else None
    for member, state in agent_members(pack):
        if state is None:
            continue
        where = json_pointer("agents", "members", member, "state")
        if "workflow" not in pack:
            yield error(
                "agent-state-without-workflow",
                where,
                f"agent {member!r} is backed by state {state!r} but the pack has no workflow",
            )
        elif isinstance(states, dict) and state not in states:
            yield error(
                "agent-state-unknown",
                where,
                f"agent {member!r} is backed by state {state!r}, which is not a workflow state",
            )


def agent_prompts(pack: dict[str, Any]) -> Iterator[Diagnostic]:
    """``agent-member-unknown``: an ``agents.members`` key, or ``agents.entry``, that is not a
    key of ``prompts`` (RFC 0011 rule 3, RFC 0007's rule restated), at
    ``/agents/members/<member>`` or ``/agents/entry``. A member backed by a state is no
    exception: its key still names the prompt its Agent Card comes from.

    Arguments:
        pack: the loaded pack (an object).
    """
    agents = pack.get("agents")
    prompts = pack.get("prompts")
    if not isinstance(agents, dict) or not isinstance(prompts, dict):
        return  # the schema has reported a malformed (or missing) section
    entry = agents.get("entry")
    if isinstance(entry, str) and entry not in prompts:
        yield error(
            "agent-member-unknown",
            json_pointer("agents", "entry"),
            f"agents.entry {entry!r} is not a key of prompts: name the prompt of the entry agent",
        )
    members = agents.get("members")
    if not isinstance(members, dict):
        return
    for member in members:
        if member not in prompts:
            yield error(
                "agent-member-unknown",
                json_pointer("agents", "members", member),
                f"agents member {member!r} is not a key of prompts: a member key names the "
                "prompt the agent is made from (add that prompt, or rename the member)",
            )


def agent_members(pack: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """RFC 0011: ``(member, state)`` for each ``agents.members`` entry, in document order;
    ``state`` is ``None`` for a member without a string ``state`` (a prompt-backed agent, or
    one the schema reports)."""
    agents = pack.get("agents")
    members = agents.get("members") if isinstance(agents, Mapping) else None
    if not isinstance(members, Mapping):
        return []
    return [(str(name), _member_state(member)) for name, member in members.items()]


def _member_state(member: Any) -> str | None:
    state = member.get("state") if isinstance(member, Mapping) else None
    return state if isinstance(state, str) else None


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
