"""A composition's step graph as a :class:`Graph` (RFC 0010).

Steps are nodes showing their kind; edges follow the array order, a branch's ``then`` and
``else`` (labelled so), a parallel's fan-out to its branches and fan-in to the next step, and
``depends_on`` (dotted). Where a branch's two targets follow each other, the first goes on
past the second, which the branch skipped if the first ran. Several reasons to connect the
same two steps make one edge. The steps are read as the rulebook reads them
(:func:`reference.read_composition`); malformed ones (not a mapping, no string id, an id seen
before) are left out.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import reference
from conformance._drawing._model import DrawingError, Edge, Graph, Node, of_pack, visible

__all__ = ["Step", "composition_graph"]


class Step(Protocol):
    """A step as the rulebook reads it (:func:`reference.read_composition`)."""

    data: dict[str, Any]
    id: str | None
    kind: str | None
    members: list[int]  # a parallel's branches, by number


# When one edge stands for several reasons, it is called after the first of these it has.
_KIND_ORDER = ("branch", "fan-out", "fan-in", "order", "depends_on")


def composition_graph(pack: Mapping[str, Any], name: str) -> Graph:
    """Build the drawing model of composition ``name`` of ``pack``.

    Raises:
        DrawingError: the pack has no composition ``name``.
    """
    compositions = pack.get("compositions")
    known = (
        sorted(key for key in compositions if isinstance(key, str))
        if isinstance(compositions, Mapping)
        else []
    )
    if name not in known:
        raise DrawingError(f"the pack has no composition {name!r}", known)
    read = reference.read_composition(pack, name)
    top = _well_formed(read.steps[number] for number in read.tops if number >= 0)
    output = read.fields.get("output")

    def members(step: Step) -> list[Step]:
        """A parallel's branches that have an id."""
        return [read.steps[m] for m in step.members if read.steps[m].id is not None]

    steps = list(_all_steps(top, members))
    ids = {step.id for step in steps}
    reasons: dict[tuple[str, str], dict[str, set[str]]] = {}

    def connect(source: Any, target: Any, kind: str, label: str = "") -> None:
        if isinstance(source, str) and isinstance(target, str) and {source, target} <= ids:
            labels = reasons.setdefault((source, target), {}).setdefault(kind, set())
            if label:
                labels.add(label)

    arms = {
        frozenset((step.data["then"], step.data["else"]))
        for step in steps
        if step.kind == "branch"
        and isinstance(step.data.get("then"), str)
        and isinstance(step.data.get("else"), str)
        and step.data["then"] != step.data["else"]
    }
    for index, (before, after) in enumerate(itertools.pairwise(top)):
        if members(before):  # a parallel's fan-in edges lead to the next step instead
            continue
        if frozenset((before.id, after.id)) in arms:
            # The other arm of the branch: skipped whenever this one ran (RFC 0010, C2), so
            # this arm goes on past it (an edge into it would read as "both run").
            if index + 2 < len(top):
                connect(before.id, top[index + 2].id, "order")
            continue
        connect(before.id, after.id, "order")
    for index, step in enumerate(top):
        following = top[index + 1].id if index + 1 < len(top) else None
        for leaf in _leaves(step, members):
            if leaf is not step and following is not None:
                connect(leaf.id, following, "fan-in")
    for step in steps:
        if step.kind == "branch":
            connect(step.id, step.data.get("then"), "branch", "then")
            connect(step.id, step.data.get("else"), "branch", "else")
        for member in members(step):
            connect(step.id, member.id, "fan-out")
        depends_on = step.data.get("depends_on")
        for dependency in depends_on if isinstance(depends_on, list) else ():
            connect(dependency, step.id, "depends_on")

    nodes = tuple(
        _node(step, start=index == 0, output=step.id == output) for index, step in enumerate(steps)
    )
    place = {step.id: number for number, step in enumerate(steps)}
    edges = tuple(
        _edge(source, target, reasons[source, target])
        for source, target in sorted(reasons, key=lambda pair: (place[pair[0]], place[pair[1]]))
    )
    return Graph(f"composition {visible(name)}{of_pack(pack)}", nodes, edges)


Members = Callable[[Step], list[Step]]


def _well_formed(steps: Iterable[Step]) -> list[Step]:
    """The steps with an id not seen before among them."""
    seen: set[str] = set()
    kept = []
    for step in steps:
        if step.id is not None and step.id not in seen:
            seen.add(step.id)
            kept.append(step)
    return kept


def _all_steps(top: Sequence[Step], members: Members) -> Iterator[Step]:
    """Every step, depth first: each parallel followed by its branches; ids unique."""
    seen: set[str | None] = set()
    stack = list(reversed(top))
    while stack:
        step = stack.pop()
        if step.id in seen:
            continue
        seen.add(step.id)
        yield step
        stack.extend(reversed(members(step)))


def _leaves(step: Step, members: Members) -> Iterator[Step]:
    """Where a step's work ends: the step itself, or the leaves of a parallel's branches."""
    if not members(step):
        yield step
        return
    stack = list(reversed(members(step)))
    while stack:
        member = stack.pop()
        nested = members(member)
        if nested:
            stack.extend(reversed(nested))
        else:
            yield member


def _node(step: Step, *, start: bool, output: bool) -> Node:
    kind, data = step.kind, step.data
    kind_text = visible(kind) if kind is not None else "(no kind)"
    detail = None
    if kind in ("prompt", "agent"):
        detail = data.get("prompt_task")
    elif kind == "tool":
        detail = data.get("tool")
    elif kind == "parallel":
        reduce = data.get("reduce")
        detail = reduce.get("strategy") if isinstance(reduce, Mapping) else None
    assert step.id is not None
    lines = [
        visible(step.id),
        f"{kind_text}: {visible(detail)}" if isinstance(detail, str) else kind_text,
    ]
    if output:
        lines.append("output")
    return Node(step.id, tuple(lines), "hexagon" if kind == "branch" else "box", start=start)


def _edge(source: str, target: str, kinds: Mapping[str, set[str]]) -> Edge:
    kind = next(k for k in _KIND_ORDER if k in kinds)
    labels = sorted(set().union(*kinds.values()))
    if kind == "depends_on":
        return Edge(source, target, kind, (), "dotted")
    if "depends_on" in kinds:
        labels.append("depends_on")
    return Edge(source, target, kind, tuple(labels))
