"""The drawing model every renderer reads: nodes, edges and their highlights, in a fixed order.

Builders (``_workflow``, ``_composition``) turn a pack into a :class:`Graph`; renderers
(``_mermaid``, ``_dot``, ``_svg``) turn a graph into text. Everything here is already sorted
and display-safe, so a renderer only lays out and escapes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "DIFFERS_MARK",
    "DIVERGED_MARK",
    "DrawingError",
    "Edge",
    "Graph",
    "LineStyle",
    "Node",
    "Shape",
    "node_key",
    "of_pack",
    "visible",
]

Shape = Literal["box", "terminal", "hexagon"]
LineStyle = Literal["solid", "dashed", "dotted"]

DIVERGED_MARK = "[diverged]"
"""The text put on the diverging node or edge, so it is visible without colour."""

DIFFERS_MARK = "[differs]"
"""The text that leads the notes of a state whose observable data differs from the expected."""


class DrawingError(ValueError):
    """A drawing was asked of something the pack does not hold.

    Attributes:
        message: what is missing, in one sentence.
        known: the names that could have been asked for instead (sorted).
    """

    def __init__(self, message: str, known: Iterable[str] = ()) -> None:
        self.message = message
        self.known = tuple(known)
        super().__init__(message)


@dataclass(frozen=True)
class Node:
    """A state or a step.

    Attributes:
        name: the state name or step id as written in the pack (unique in its graph).
        lines: the text to show: the name first, then one marker per line (display-safe).
        shape: ``box``, ``terminal`` (a state that ends the workflow) or ``hexagon`` (a branch).
        start: where the drawing starts (the workflow's entry, ``--state``, a first step).
        visited: on the path taken.
        diverged: the place a run diverged.
    """

    name: str
    lines: tuple[str, ...]
    shape: Shape = "box"
    start: bool = False
    visited: bool = False
    diverged: bool = False


@dataclass(frozen=True)
class Edge:
    """An arrow between two nodes of the same graph.

    Attributes:
        source: the name of the node it leaves.
        target: the name of the node it enters.
        kind: what it stands for: ``event``, ``max_visits``, ``order``, ``branch``,
            ``fan-out``, ``fan-in`` or ``depends_on``.
        labels: the text on it, one entry per line (e.g. every event from source to target).
        style: ``solid``, ``dashed`` (a loop-guard redirect) or ``dotted`` (a dependency).
        taken: 1-based numbers of the transitions of the path taken that used it.
        diverged: the place a run diverged.
    """

    source: str
    target: str
    kind: str
    labels: tuple[str, ...] = ()
    style: LineStyle = "solid"
    taken: tuple[int, ...] = ()
    diverged: bool = False

    def display_labels(self) -> tuple[str, ...]:
        """The labels followed by the highlight markers, as every renderer shows them."""
        lines = list(self.labels)
        if self.taken:
            numbers = [str(n) for n in self.taken[:3]]
            more = f" ... ({len(self.taken)}x)" if len(self.taken) > 3 else ""
            lines.append(f"taken: {', '.join(numbers)}{more}")
        if self.diverged:
            lines.append(DIVERGED_MARK)
        return tuple(lines)


@dataclass(frozen=True)
class Graph:
    """What to draw: nodes in reading order, edges in the order of their ends, then kind.

    Attributes:
        title: one line saying what is drawn (display-safe).
        nodes: the nodes; their order is the layout's starting order.
        edges: the edges; endpoints are names of ``nodes``.
    """

    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


def visible(text: str) -> str:
    """``text`` with control, surrogate and non-character code points written as ``\\xNN``.

    Names come from YAML and JSON, which can hold any code point; XML 1.0, DOT and Mermaid
    cannot, and a newline inside a name would break a one-line label.
    """
    if text.isprintable():
        return text
    out = []
    for char in text:
        code = ord(char)
        if char == " " or unicodedata.category(char) not in ("Cc", "Cs", "Cn", "Zl", "Zp"):
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


def of_pack(pack: Mapping[str, Any]) -> str:
    """`` of pack <id>``, to end a title; nothing for a pack without a string id."""
    pack_id = pack.get("id")
    return f" of pack {visible(pack_id)}" if isinstance(pack_id, str) else ""


def node_key(name: str) -> str:
    """An identifier for ``name`` made of ``[A-Za-z0-9_]`` only, distinct for distinct names.

    Letters and digits stay, ``_`` doubles, anything else becomes ``_<hex code>_``; the ``n_``
    prefix keeps clear of each format's keywords (``end``, ``graph``, ``node`` ...).
    """
    out = ["n_"]
    for char in name:
        if char.isascii() and char.isalnum():
            out.append(char)
        elif char == "_":
            out.append("__")
        else:
            out.append(f"_{ord(char):x}_")
    return "".join(out)
