"""Pictures of a pack: its workflow and its compositions, as Mermaid, DOT or SVG text.

The pack need not be valid: what is there is drawn, what is malformed is left out. The same
pack gives the same text, byte for byte, whatever the order of its mappings. SVG is laid out
here (no network, no system binary, no script), so a report can inline it::

    from conformance._drawing import draw_workflow

    svg = draw_workflow(
        pack,
        format="svg",
        path=[{"from": "plan", "to": "implement", "event": "PlanReady"}],
        diverged={"from": "implement", "event": "CodeReady"},
    )

What a workflow drawing shows: states (the entry, or ``start``, with a start marker; terminal
states, ``terminal: true`` or no ``on_event``, as double-bordered stadiums; markers for
``max_visits``, an ``orchestration`` other than ``internal``, ``control`` other than ``user``,
a composition-mode state's composition, and the agents backed by a state); one edge per pair
of states carrying all their event names; ``on_max_visits`` redirects dashed, labelled
``max_visits``. A composition drawing shows steps with their kind, array order, a branch's
``then``/``else``, a parallel's fan-out and fan-in, and ``depends_on`` (dotted).

Highlights: edges of the path taken are green and labelled ``taken: <transition numbers>``;
visited states are green; the diverging state or edge is red and labelled ``[diverged]``, so
it is visible without colour; a state whose observable data differs from what was expected (a
visit count, an artifact) is red with ``[differs]`` and how.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from conformance._drawing._composition import composition_graph
from conformance._drawing._dot import render_dot
from conformance._drawing._mermaid import render_mermaid
from conformance._drawing._model import (
    DIFFERS_MARK,
    DIVERGED_MARK,
    DrawingError,
    Edge,
    Graph,
    Node,
)
from conformance._drawing._svg import render_svg
from conformance._drawing._workflow import Transition, workflow_graph

__all__ = [
    "DIFFERS_MARK",
    "DIVERGED_MARK",
    "FORMATS",
    "DrawingError",
    "Edge",
    "Format",
    "Graph",
    "Node",
    "Transition",
    "composition_graph",
    "draw_composition",
    "draw_workflow",
    "render",
    "workflow_graph",
]

Format = Literal["mermaid", "dot", "svg"]
FORMATS: tuple[Format, ...] = ("mermaid", "dot", "svg")

_RENDERERS: dict[str, Callable[[Graph], str]] = {
    "mermaid": render_mermaid,
    "dot": render_dot,
    "svg": render_svg,
}


def render(graph: Graph, format: Format) -> str:
    """Return ``graph`` as text in ``format`` (``mermaid``, ``dot`` or ``svg``).

    Raises:
        ValueError: an unknown format.
    """
    try:
        renderer = _RENDERERS[format]
    except KeyError:
        raise ValueError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}") from None
    return renderer(graph)


def draw_workflow(
    pack: Mapping[str, Any],
    *,
    format: Format,
    start: str | None = None,
    path: Iterable[Transition] = (),
    visited: Iterable[str] = (),
    diverged: str | Transition | None = None,
    differs: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """Draw ``pack``'s workflow.

    Arguments:
        pack: a loaded pack (``reference.load_pack``), valid or not.
        format: ``mermaid``, ``dot`` or ``svg``.
        start: draw only the states reachable from this state, marked as the start (for a large
            workflow, or a state-backed agent); ``None`` draws every state, the entry marked.
        path: the transitions taken, in order, each ``{"from", "to", "event"}`` as in a
            session's ``history`` (``to`` is the state entered, after any ``max_visits``
            redirect; the redirect edges are marked too). Their edges show their numbers.
        visited: states to mark as visited, besides those on ``path``.
        diverged: where a run diverged: a state name, or a transition ``{"from", "event"}``
            (``"to"`` optional) whose edge is marked; an edge the drawing does not hold marks
            its ``from`` state instead.
        differs: states whose observable data differs from what the case expected (a visit
            count, an artifact), each with lines saying how, e.g. ``{"test": ["visits: 3,
            expected 2"]}``: marked red like ``diverged``, the first line led by ``[differs]``.

    Raises:
        DrawingError: the pack has no workflow states (``known`` lists its compositions), or
            ``start`` is not a state (``known`` lists the states).
    """
    graph = workflow_graph(
        pack, start=start, path=path, visited=visited, diverged=diverged, differs=differs
    )
    return render(graph, format)


def draw_composition(pack: Mapping[str, Any], name: str, *, format: Format) -> str:
    """Draw the step graph of composition ``name`` of ``pack``.

    Raises:
        DrawingError: the pack has no composition ``name`` (``known`` lists those it has).
    """
    return render(composition_graph(pack, name), format)
