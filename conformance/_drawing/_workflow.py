"""A pack's workflow as a :class:`Graph`: states, event edges, loop-guard redirects, highlights.

The pack need not be valid: a state that is not a mapping draws as a bare state, and an event
or a redirect naming no state is left out. Nothing depends on the pack's mapping order, so
two packs that differ only in key order draw the same.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import reference
from conformance._drawing._model import (
    DIFFERS_MARK,
    DIVERGED_MARK,
    DrawingError,
    Edge,
    Graph,
    Node,
    of_pack,
    visible,
)

__all__ = ["EdgeKey", "Transition", "workflow_graph"]

Transition = Mapping[str, Any]
"""One step of a path taken: ``{"from": ..., "to": ..., "event": ...}`` as in a session's
history, where ``to`` is the state actually entered (after any ``max_visits`` redirect)."""


def workflow_graph(
    pack: Mapping[str, Any],
    *,
    start: str | None = None,
    path: Iterable[Transition] = (),
    visited: Iterable[str] = (),
    diverged: str | Transition | None = None,
    differs: Mapping[str, Sequence[str]] | None = None,
) -> Graph:
    """Build the drawing model of ``pack``'s workflow.

    Arguments:
        pack: a loaded pack (valid or not).
        start: draw only the states reachable from this one (marked as the start); ``None``
            draws every state, with the entry marked.
        path: transitions taken, in order; their edges are marked with their numbers.
        visited: states to mark as visited (the states of ``path`` are marked anyway).
        diverged: the state (a name) or edge (a transition, ``to`` optional) where a run
            diverged; an edge that cannot be found marks its ``from`` state instead.
        differs: states whose observable data differs from what was expected (a visit count,
            an artifact), each with the lines saying how; they are marked as ``diverged`` is,
            their first line led by :data:`DIFFERS_MARK`. Names the drawing lacks are ignored.

    Raises:
        DrawingError: the pack has no workflow states, or ``start`` is not one of them.
    """
    states = _states(pack)
    if not states:
        raise DrawingError("the pack has no workflow to draw", _composition_names(pack))
    entry = pack["workflow"].get("entry")
    if start is not None and start not in states:
        raise DrawingError(f"the workflow has no state {start!r}", sorted(states))
    if start is not None:
        first: str | None = start
    else:
        first = entry if isinstance(entry, str) and entry in states else None

    edges = _edges(states)
    names = _reading_order(first, sorted(states), edges)
    if start is not None:
        keep = _reachable(start, edges)
        names = [name for name in names if name in keep]
        edges = {key: labels for key, labels in edges.items() if key[0] in keep}
    place = {name: number for number, name in enumerate(names)}

    path = tuple(path)
    taken = _taken(path, states, edges)
    seen = set(visited)
    for transition in path:
        seen.update(
            transition[side] for side in ("from", "to") if isinstance(transition.get(side), str)
        )
    if taken and first is not None:
        seen.add(first)
    diverged_state, diverged_edge = _diverged(diverged, states, edges)

    agents = _state_agents(pack, states)
    nodes = tuple(
        _node(
            name,
            states[name],
            agents.get(name, ()),
            start=name == first,
            visited=name in seen,
            diverged=name == diverged_state,
            differs=tuple((differs or {}).get(name, ())),
        )
        for name in names
    )
    drawn = tuple(
        Edge(
            source,
            target,
            kind,
            tuple(sorted(labels)),
            "dashed" if kind == "max_visits" else "solid",
            tuple(taken.get((source, target, kind), ())),
            (source, target, kind) == diverged_edge,
        )
        for (source, target, kind), labels in sorted(
            edges.items(), key=lambda item: (place[item[0][0]], place[item[0][1]], item[0][2])
        )
    )
    title = f"state {visible(start)} of the workflow" if start is not None else "the workflow"
    return Graph(title + of_pack(pack), nodes, drawn)


EdgeKey = tuple[str, str, str]  # source, target, kind ("event" or "max_visits")


class State(Protocol):
    """A state as the rulebook reads it (:func:`reference.read_workflow`); an entry that is
    not a mapping has none, and is drawn as a bare state."""

    name: str
    data: dict[str, Any]
    events: dict[str, str]
    redirect: str | None
    terminal: bool  # X2


def _states(pack: Mapping[str, Any]) -> dict[str, State | None]:
    """The workflow's states by name, as the rulebook reads them."""
    view = reference.read_workflow(pack)
    if view is None:
        return {}
    read = {state.name: state for state in view.states}
    return {name: read.get(name) for name in view.all_states if isinstance(name, str)}


def _composition_names(pack: Mapping[str, Any]) -> list[str]:
    compositions = pack.get("compositions")
    if not isinstance(compositions, Mapping):
        return []
    return sorted(name for name in compositions if isinstance(name, str))


def _events(state: State | None) -> dict[str, str]:
    """The state's ``on_event`` entries with a name and a target (event name -> target)."""
    if state is None:
        return {}
    return {event: target for event, target in state.events.items() if isinstance(event, str)}


def _edges(states: Mapping[str, State | None]) -> dict[EdgeKey, set[str]]:
    """Edges between existing states, each with its labels: one edge per pair and kind (a
    terminal state's too: drawn, though they never fire)."""
    edges: dict[EdgeKey, set[str]] = {}
    for name, state in states.items():
        for event, target in _events(state).items():
            if target in states:
                edges.setdefault((name, target, "event"), set()).add(visible(event))
        redirect = _redirect(state)
        if redirect is not None and redirect in states:
            edges[(name, redirect, "max_visits")] = {"max_visits"}
    return edges


def _redirect(state: State | None) -> str | None:
    """The state's ``on_max_visits``, if it names one."""
    return None if state is None else state.redirect


def _successors(edges: Iterable[EdgeKey]) -> dict[str, list[str]]:
    successors: dict[str, list[str]] = {}
    for source, target, _ in sorted(edges):
        successors.setdefault(source, []).append(target)
    return successors


def _breadth_first(
    root: str, successors: Mapping[str, list[str]], seen: set[str], out: list[str]
) -> None:
    """Append to ``out`` the states reachable from ``root`` not in ``seen`` (which grows)."""
    seen.add(root)
    out.append(root)
    queue = deque([root])
    while queue:
        for target in successors.get(queue.popleft(), ()):
            if target not in seen:
                seen.add(target)
                out.append(target)
                queue.append(target)


def _reachable(start: str, edges: Iterable[EdgeKey]) -> set[str]:
    found: list[str] = []
    _breadth_first(start, _successors(edges), set(), found)
    return set(found)


def _reading_order(first: str | None, names: list[str], edges: Iterable[EdgeKey]) -> list[str]:
    """States in the order a reader meets them: breadth first from ``first``, then the rest
    (sorted, each with what it reaches), never in the pack's mapping order."""
    successors = _successors(edges)
    seen: set[str] = set()
    order: list[str] = []
    for root in ([first] if first is not None else []) + names:
        if root not in seen:
            _breadth_first(root, successors, seen, order)
    return order


def _state_agents(pack: Mapping[str, Any], states: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """RFC 0011: the agent members backed by each state (``agents.members.<m>.state``)."""
    found: dict[str, list[str]] = {}
    for member, state in reference.agent_members(pack):
        if state is not None and state in states:
            found.setdefault(state, []).append(member)
    return {state: tuple(sorted(names)) for state, names in found.items()}


def _node(
    name: str,
    read: State | None,
    agents: tuple[str, ...],
    *,
    start: bool,
    visited: bool,
    diverged: bool,
    differs: tuple[str, ...] = (),
) -> Node:
    state: Mapping[str, Any] = {} if read is None else read.data
    lines = [visible(name)]
    orchestration = state.get("orchestration")
    composition = state.get("composition")
    if isinstance(composition, str):
        lines.append(f"composition: {visible(composition)}")
    elif orchestration == "composition":
        lines.append("orchestration: composition")
    if isinstance(orchestration, str) and orchestration not in ("internal", "composition"):
        lines.append(f"orchestration: {visible(orchestration)}")
    control = state.get("control")
    if isinstance(control, str) and control != "user":
        lines.append(f"control: {visible(control)}")
    limit = state.get("max_visits")
    if isinstance(limit, int) and not isinstance(limit, bool):
        lines.append(f"max_visits: {limit}")
    lines.extend(f"agent: {visible(agent)}" for agent in agents)
    if diverged:
        lines.append(DIVERGED_MARK)
    for number, note in enumerate(differs):
        lines.append(f"{DIFFERS_MARK} {visible(note)}" if number == 0 else visible(note))
    return Node(
        name,
        tuple(lines),
        "terminal" if read is None or read.terminal else "box",
        start=start,
        visited=visited,
        diverged=diverged or bool(differs),
    )


def _resolve(
    transition: Transition,
    states: Mapping[str, State | None],
    edges: Mapping[EdgeKey, set[str]],
) -> list[EdgeKey]:
    """The edges one transition used: its event edge, then any redirects to where it ended.

    ``to`` is the state entered; when a loop guard redirected the event, the event edge leads
    elsewhere and the ``max_visits`` edges from there lead to ``to``. Returns ``[]`` when the
    drawing holds no such edges (a path from another pack, or a restricted drawing).
    """
    source, target, event = (transition.get(k) for k in ("from", "to", "event"))
    if not isinstance(source, str) or source not in states:
        return []
    if isinstance(event, str):
        first = _events(states[source]).get(event)
        if first is None or visible(event) not in edges.get((source, first, "event"), ()):
            return []
    elif isinstance(target, str) and (source, target, "event") in edges:
        return [(source, target, "event")]
    else:
        return []
    used = [(source, first, "event")]
    if target is None or target == first:
        return used
    # Follow the loop-guard redirects; each state once, so a redirect cycle ends.
    current, seen = first, {first}
    while current != target:
        redirect = _redirect(states[current])
        if redirect is None or redirect in seen:
            return []
        key = (current, redirect, "max_visits")
        if key not in edges:
            return []
        used.append(key)
        current = redirect
        seen.add(redirect)
    return used


def _taken(
    path: Iterable[Transition],
    states: Mapping[str, State | None],
    edges: Mapping[EdgeKey, set[str]],
) -> dict[EdgeKey, list[int]]:
    taken: dict[EdgeKey, list[int]] = {}
    for number, transition in enumerate(path, start=1):
        for key in _resolve(transition, states, edges):
            taken.setdefault(key, []).append(number)
    return taken


def _diverged(
    diverged: str | Transition | None,
    states: Mapping[str, State | None],
    edges: Mapping[EdgeKey, set[str]],
) -> tuple[str | None, EdgeKey | None]:
    """The diverging state, or the diverging edge (the event edge of a redirected one)."""
    if diverged is None:
        return None, None
    if isinstance(diverged, str):
        return diverged, None
    used = _resolve(diverged, states, edges)
    if used:
        return None, used[0]
    source = diverged.get("from")
    return (source if isinstance(source, str) else None), None
