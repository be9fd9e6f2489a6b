"""A :class:`Graph` as a Mermaid ``flowchart`` (top down), for Markdown that renders Mermaid.

Node ids are :func:`node_key` of the names (any name works, and no id is a Mermaid keyword);
labels are quoted with Mermaid's ``#code;`` entities for the characters that would end or
change them. Highlights are ``classDef`` and ``linkStyle`` lines, and text markers in labels.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance._drawing._model import Graph, node_key

__all__ = ["START", "render_mermaid"]

START = "start_"  # the start marker's id; node ids all begin with "n_"

_SHAPES = {"box": ('["', '"]'), "terminal": ('(["', '"])'), "hexagon": ('{{"', '"}}')}
_ARROWS = {"solid": "-->", "dashed": "-.->", "dotted": "-.->"}
_ENTITIES = {'"': "#quot;", "#": "#35;", "&": "#amp;", "<": "#lt;", ">": "#gt;", "`": "#96;"}


def render_mermaid(graph: Graph) -> str:
    """Return ``graph`` as Mermaid flowchart text."""
    out = ["flowchart TD", f"  %% {graph.title}"]
    for node in graph.nodes:
        opening, closing = _SHAPES[node.shape]
        out.append(f"  {node_key(node.name)}{opening}{_label(node.lines)}{closing}")
    links = 0
    start = next((node for node in graph.nodes if node.start), None)
    if start is not None:
        out.append(f'  {START}(("start")) --> {node_key(start.name)}')
        links += 1
    taken, diverged = [], []
    for edge in graph.edges:
        lines = edge.display_labels()
        label = f'|"{_label(lines)}"|' if lines else ""
        arrow = _ARROWS[edge.style]
        out.append(f"  {node_key(edge.source)} {arrow}{label} {node_key(edge.target)}")
        if edge.diverged:
            diverged.append(str(links))
        elif edge.taken:
            taken.append(str(links))
        links += 1
    visited = [node_key(n.name) for n in graph.nodes if n.visited and not n.diverged]
    wrong = [node_key(n.name) for n in graph.nodes if n.diverged]
    if visited:
        out.append("  classDef visited fill:#f0fdf4,stroke:#15803d,stroke-width:2px")
        out.append(f"  class {','.join(visited)} visited")
    if wrong:
        out.append("  classDef diverged fill:#fef2f2,stroke:#dc2626,stroke-width:3px")
        out.append(f"  class {','.join(wrong)} diverged")
    if taken:
        out.append(f"  linkStyle {','.join(taken)} stroke:#15803d,stroke-width:3px")
    if diverged:
        out.append(f"  linkStyle {','.join(diverged)} stroke:#dc2626,stroke-width:3px")
    return "\n".join(out) + "\n"


def _label(lines: Sequence[str]) -> str:
    return "<br/>".join("".join(_ENTITIES.get(char, char) for char in line) for line in lines)
