"""A :class:`Graph` as Graphviz DOT text (``dot -Tsvg`` draws it where Graphviz is installed).

Node ids are :func:`node_key` of the names; labels are DOT strings with ``\\`` and ``"``
escaped. Highlights are colours and pen widths, and text markers in labels.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance._drawing._model import Graph, node_key

__all__ = ["FONT", "START", "render_dot"]

START = "start_"  # the start marker's id; node ids all begin with "n_"
FONT = "Helvetica"


def render_dot(graph: Graph) -> str:
    """Return ``graph`` as a DOT ``digraph``."""
    out = [
        "digraph ppconf {",
        f'  graph [label={_string([graph.title])}, labelloc=t, fontname="{FONT}", rankdir=TB];',
        f'  node [shape=box, style=rounded, fontname="{FONT}", fontsize=11];',
        f'  edge [fontname="{FONT}", fontsize=10];',
    ]
    for node in graph.nodes:
        attributes = [f"label={_string(node.lines)}"]
        style = ["rounded"]
        if node.shape == "terminal":
            attributes.append("peripheries=2")
        elif node.shape == "hexagon":
            attributes.append("shape=hexagon")
            style = []
        if node.diverged:
            style += ["filled", "bold"]
            attributes += ['color="#dc2626"', 'fillcolor="#fef2f2"', "penwidth=3"]
        elif node.visited:
            style += ["filled"]
            attributes += ['color="#15803d"', 'fillcolor="#f0fdf4"', "penwidth=2"]
        if style != ["rounded"]:
            attributes.append(f'style="{",".join(style)}"')
        out.append(f"  {node_key(node.name)} [{', '.join(attributes)}];")
    start = next((node for node in graph.nodes if node.start), None)
    if start is not None:
        out.append(f'  {START} [shape=point, width=0.12, label=""];')
        out.append(f"  {START} -> {node_key(start.name)};")
    for edge in graph.edges:
        attributes = []
        lines = edge.display_labels()
        if lines:
            attributes.append(f"label={_string(lines)}")
        if edge.style != "solid":
            attributes.append(f"style={edge.style}")
        if edge.diverged:
            attributes += ['color="#dc2626"', 'fontcolor="#dc2626"', "penwidth=3"]
        elif edge.taken:
            attributes += ['color="#15803d"', "penwidth=2.5"]
        suffix = f" [{', '.join(attributes)}]" if attributes else ""
        out.append(f"  {node_key(edge.source)} -> {node_key(edge.target)}{suffix};")
    out.append("}")
    return "\n".join(out) + "\n"


def _string(lines: Sequence[str]) -> str:
    """A DOT string showing ``lines`` one per line (centred)."""
    escaped = (line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)
    return '"' + "\\n".join(escaped) + '"'
