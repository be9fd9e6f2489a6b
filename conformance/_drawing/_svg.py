"""A :class:`Graph` as a standalone SVG document, laid out by the kit itself.

No style sheet, no script, no ids: styling is in presentation attributes, so several drawings
can sit inline in one HTML page without affecting each other or the page. Classes name what
each element is, for tests and for a page that wants to restyle: ``node`` (with ``terminal``,
``start``, ``visited``, ``diverged``) carrying ``data-name``; ``edge`` (with its kind, ``back``,
``taken``, ``diverged``) carrying ``data-from`` and ``data-to``. Text is in a monospace font,
so sizes computed here from character counts hold in the browser.
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from collections.abc import Sequence

from conformance._drawing._layout import (
    EdgeSpec,
    Layout,
    PlacedEdge,
    PlacedNode,
    Point,
    bend,
    layered_layout,
)
from conformance._drawing._model import Edge, Graph, Node, visible

__all__ = [
    "ARROW_HALF_WIDTH",
    "ARROW_LENGTH",
    "BACK",
    "DIVERGED",
    "DIVERGED_FILL",
    "EDGE",
    "FONT",
    "FONT_SIZE",
    "HEXAGON_SLANT",
    "INK",
    "LABEL_FONT_SIZE",
    "LABEL_LINE",
    "LINE",
    "MIN_SCALE",
    "MIN_WIDTH",
    "PAD_X",
    "PAD_Y",
    "PAPER",
    "TAKEN",
    "TERMINAL_INSET",
    "VISITED_FILL",
    "escape",
    "layout_of",
    "quoteattr",
    "render_svg",
]

FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace"
FONT_SIZE = 12.0
LINE = 16.0
LABEL_FONT_SIZE = 11.0
LABEL_LINE = 14.0
PAD_X = 10.0
PAD_Y = 6.0
MIN_WIDTH = 48.0
TERMINAL_INSET = 3.0
HEXAGON_SLANT = 10.0
ARROW_LENGTH = 8.0
ARROW_HALF_WIDTH = 4.0

MIN_SCALE = 0.85
"""The least the drawing shrinks to fit its box: its smallest text (11 px labels) stays at 9 px
or more, and a box narrower than that scrolls (a phone, a wide workflow)."""

INK = "#1f2937"
EDGE = "#4b5563"
BACK = "#2563eb"  # edges that run back up (loops): blue, so the main flow reads downwards
TAKEN = "#15803d"
DIVERGED = "#dc2626"
PAPER = "#ffffff"
VISITED_FILL = "#f0fdf4"
DIVERGED_FILL = "#fef2f2"


def layout_of(graph: Graph) -> Layout:
    """Where the nodes, edges and labels of ``graph`` go, at the sizes this renderer draws."""
    sizes = [_node_size(node) for node in graph.nodes]
    index = {node.name: number for number, node in enumerate(graph.nodes)}
    specs = []
    for edge in graph.edges:
        lines = edge.display_labels()
        label_width = max((_text_width(line, LABEL_FONT_SIZE) for line in lines), default=0.0)
        specs.append(
            EdgeSpec(index[edge.source], index[edge.target], label_width, len(lines) * LABEL_LINE)
        )
    start = next((number for number, node in enumerate(graph.nodes) if node.start), None)
    return layered_layout(sizes, specs, start)


def render_svg(graph: Graph) -> str:
    """Lay ``graph`` out and return it as an SVG document: a ``viewBox``, width 100% of its
    box, from :data:`MIN_SCALE` of its size up to its size."""
    layout = layout_of(graph)

    out = [
        '<svg xmlns="http://www.w3.org/2000/svg"'
        f' viewBox="0 0 {_n(layout.width)} {_n(layout.height)}" width="100%"'
        f' style="max-width: {_n(layout.width)}px;'
        f' min-width: {_n(layout.width * MIN_SCALE)}px; height: auto"'
        f' font-family="{FONT}" font-size="{_n(FONT_SIZE)}" fill="{INK}"'
        f' role="img" aria-label={quoteattr(graph.title)}>',
        f"<title>{escape(graph.title)}</title>",
        '<g class="edges">',
    ]
    names = {node.name: quoteattr(visible(node.name)) for node in graph.nodes}
    for edge, placed in zip(graph.edges, layout.edges, strict=True):
        out.extend(_edge(edge, placed, names))
    out.append("</g>")
    out.append('<g class="nodes">')
    for node, box in zip(graph.nodes, layout.nodes, strict=True):
        out.extend(_node(node, box))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def escape(text: str) -> str:
    """``text`` for XML character data (``visible`` text, so every character is allowed)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """``text`` as a double-quoted XML attribute value."""
    return '"' + escape(text).replace('"', "&quot;") + '"'


def _n(value: float) -> str:
    """A number with one decimal, the same text on every run and platform."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _text_width(text: str, size: float) -> float:
    """The width of ``text`` in the monospace font: wide characters count twice, marks none."""
    cells = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        cells += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return cells * size * 0.6


def _node_size(node: Node) -> tuple[float, float]:
    width = max(_text_width(line, FONT_SIZE) for line in node.lines) + 2 * PAD_X
    height = len(node.lines) * LINE + 2 * PAD_Y
    if node.shape == "terminal":
        width += 2 * TERMINAL_INSET + height / 2  # room for the rounded ends
        height += 2 * TERMINAL_INSET
    elif node.shape == "hexagon":
        width += 2 * HEXAGON_SLANT
    return max(width, MIN_WIDTH), height


def _classes(*names: str | None) -> str:
    return " ".join(name for name in names if name)


def _edge(edge: Edge, placed: PlacedEdge, names: dict[str, str]) -> list[str]:
    """An edge's group: its path, arrowhead and label. ``names``: node name -> attribute."""
    colour = DIVERGED if edge.diverged else TAKEN if edge.taken else BACK if placed.back else EDGE
    stroke_width = 3.0 if edge.diverged else 2.6 if edge.taken else 1.4
    dash = {"solid": "", "dashed": ' stroke-dasharray="6 4"', "dotted": ' stroke-dasharray="2 3"'}
    classes = _classes(
        "edge",
        edge.kind,
        "back" if placed.back else None,
        "taken" if edge.taken else None,
        "diverged" if edge.diverged else None,
    )
    out = [
        f'<g class="{classes}" data-from={names[edge.source]} data-to={names[edge.target]}>',
        f'<path d="{_route(placed)}" fill="none" stroke="{colour}"'
        f' stroke-width="{_n(stroke_width)}"{dash[edge.style]}/>',
        f'<path d="{_arrow(_arrival(placed), placed.points[-1])}" fill="{colour}"/>',
    ]
    lines = edge.display_labels()
    if placed.label is not None and lines:
        x, y = placed.label
        width = max(_text_width(line, LABEL_FONT_SIZE) for line in lines) + 4
        height = len(lines) * LABEL_LINE
        out.append(
            f'<rect x="{_n(x - width / 2)}" y="{_n(y - height / 2)}" width="{_n(width)}"'
            f' height="{_n(height)}" fill="{PAPER}" fill-opacity="0.85"/>'
        )
        weight = ' font-weight="bold"' if edge.diverged else ""
        fill = f' fill="{DIVERGED}"' if edge.diverged else ""
        out.append(
            f'<text text-anchor="middle" font-size="{_n(LABEL_FONT_SIZE)}"{weight}{fill}>'
            + _tspans(lines, x, y, LABEL_LINE)
            + "</text>"
        )
    out.append("</g>")
    return out


def _p(point: Point) -> str:
    """A point as ``x y``. Coordinates are never negative (the layout starts at a margin), so
    unlike :func:`_n` this needs no ``-0.0`` guard, and it is the hot path of big drawings."""
    return f"{point[0]:.1f} {point[1]:.1f}"


def _route(placed: PlacedEdge) -> str:
    """The path data of an edge: vertical-tangent curves, straight where points align."""
    points = placed.points
    d = [f"M{_p(points[0])}"]
    if placed.loop:
        d.append(f"C{_p(points[1])} {_p(points[2])} {_p(points[3])}")
        return " ".join(d)
    for p, q in itertools.pairwise(points):
        if p[0] == q[0]:
            d.append(f"V{q[1]:.1f}")
        else:
            c1, c2 = bend(p, q)
            d.append(f"C{_p(c1)} {_p(c2)} {_p(q)}")
    return " ".join(d)


def _arrival(placed: PlacedEdge) -> Point:
    """A point the edge comes from just before its end, for the arrowhead's direction."""
    points = placed.points
    if placed.loop:
        return points[2]
    before, end = points[-2], points[-1]
    return end[0], before[1]  # every route arrives vertically


def _arrow(before: Point, tip: Point) -> str:
    """A filled triangle with its point at ``tip``, pointing away from ``before``."""
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy)
    if length < 1e-6:
        dx, dy, length = 0.0, 1.0, 1.0
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - ux * ARROW_LENGTH, tip[1] - uy * ARROW_LENGTH
    left = (bx - uy * ARROW_HALF_WIDTH, by + ux * ARROW_HALF_WIDTH)
    right = (bx + uy * ARROW_HALF_WIDTH, by - ux * ARROW_HALF_WIDTH)
    return f"M{_p(tip)} L{_p(left)} L{_p(right)} Z"


def _tspans(
    lines: Sequence[str], x: float, y: float, line: float, *, bold_first: bool = False
) -> str:
    """Lines of text centred on ``(x, y)``, one ``tspan`` each."""
    baseline = y - len(lines) * line / 2 + line * 0.75
    out = []
    for number, text in enumerate(lines):
        weight = ' font-weight="bold"' if bold_first and number == 0 else ""
        out.append(
            f'<tspan x="{_n(x)}" y="{_n(baseline + number * line)}"{weight}>{escape(text)}</tspan>'
        )
    return "".join(out)


def _node(node: Node, box: PlacedNode) -> list[str]:
    stroke, fill, stroke_width = INK, PAPER, 1.2
    if node.diverged:
        stroke, fill, stroke_width = DIVERGED, DIVERGED_FILL, 3.0
    elif node.visited:
        stroke, fill, stroke_width = TAKEN, VISITED_FILL, 2.0
    paint = f'fill="{fill}" stroke="{stroke}" stroke-width="{_n(stroke_width)}"'
    classes = _classes(
        "node",
        node.shape,
        "start" if node.start else None,
        "visited" if node.visited else None,
        "diverged" if node.diverged else None,
    )
    left, top = box.x - box.width / 2, box.y - box.height / 2
    out = [f'<g class="{classes}" data-name={quoteattr(visible(node.name))}>']
    if node.shape == "terminal":
        # A stadium with a double border, as a flowchart's end.
        out.append(_rect(left, top, box.width, box.height, radius=box.height / 2, paint=paint))
        inset = TERMINAL_INSET
        inner_height = box.height - 2 * inset
        out.append(
            _rect(
                left + inset,
                top + inset,
                box.width - 2 * inset,
                inner_height,
                radius=inner_height / 2,
                paint=f'fill="none" stroke="{stroke}" stroke-width="{_n(stroke_width)}"',
            )
        )
    elif node.shape == "hexagon":
        right, bottom, slant = left + box.width, top + box.height, HEXAGON_SLANT
        corners = [
            (left, box.y),
            (left + slant, top),
            (right - slant, top),
            (right, box.y),
            (right - slant, bottom),
            (left + slant, bottom),
        ]
        out.append(
            f'<polygon points="{" ".join(_p(c).replace(" ", ",") for c in corners)}" {paint}/>'
        )
    else:
        out.append(_rect(left, top, box.width, box.height, radius=6.0, paint=paint))
    out.append(
        '<text text-anchor="middle">'
        + _tspans(node.lines, box.x, box.y, LINE, bold_first=True)
        + "</text>"
    )
    if node.start:
        # A filled dot with an arrow into the node, as a state diagram's initial state.
        dot = (box.x, top - 22.0)
        tip = (box.x, top)
        out.append(f'<circle cx="{_n(dot[0])}" cy="{_n(dot[1])}" r="5" fill="{INK}"/>')
        out.append(f'<path d="M{_p(dot)} L{_p(tip)}" stroke="{INK}" stroke-width="1.4"/>')
        out.append(f'<path d="{_arrow(dot, tip)}" fill="{INK}"/>')
    out.append("</g>")
    return out


def _rect(x: float, y: float, width: float, height: float, *, radius: float, paint: str) -> str:
    return (
        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" height="{_n(height)}"'
        f' rx="{_n(radius)}" {paint}/>'
    )
