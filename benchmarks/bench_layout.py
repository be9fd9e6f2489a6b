"""How readable the built-in layout is at 30 and 50 states, beside Graphviz's ``dot``.

Run: python benchmarks/bench_layout.py

Draws generated workflows of 30 and 50 states of two kinds: ``random`` (the workflow of
``bench_graph.py``: the next state and two random ones per state, so long jumps both ways) and
``pipeline`` (what packs look like: a chain of steps, each with a retry a few states back, some
with a skip ahead, a loop guard on every fourth, and an escalation from every third into one
shared ``failed`` state). For each it prints, for the built-in layout and, where ``dot`` is on
``PATH``, for ``dot``'s layout of the same graph (``ppconf graph --format dot``):

- crossings: pairs of edges whose drawn curves cross (away from the nodes' boxes);
- bundled: the share of the edges' drawn length that runs within 5 px of another edge (away
  from both ends, where edges meet by design): cables of parallel lines a reader cannot follow;
- the canvas (width x height) and the scale at which a 390 px wide phone shows it whole.

Lower is better for the first two. The figures depend only on the generated graphs, so they are
the same on every run; the closing line prints the built-in layout's ratio to ``dot`` for each
(ratio <= 1 reads at least as well by these measures).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from conformance._drawing import render, workflow_graph
from conformance._drawing._layout import Layout, bend
from conformance._drawing._svg import layout_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_graph import generated_pack  # a sibling script, not a package

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # left, top, right, bottom

NEAR = 5.0  # px: two edges closer than this run as one cable
END_ROOM = 24.0  # px at each end of an edge where meeting others is by design
STEP = 3.0  # px between the samples of a curve
PHONE = 390.0 - 2 * 16.0  # the room a phone leaves a diagram


def pipeline_pack(states: int, seed: int = 11) -> dict[str, Any]:
    """A pack shaped like real workflows: a chain with retries, skips, guards and one sink."""
    rng = random.Random(seed)
    names = [f"step{i}" for i in range(states - 2)]
    definitions: dict[str, Any] = {}
    for i, name in enumerate(names):
        events = {"Done": names[i + 1] if i + 1 < len(names) else "done"}
        if i >= 1:
            events["Retry"] = names[max(0, i - rng.randint(1, 3))]
        if i % 5 == 2 and i + 3 < len(names):
            events["Skip"] = names[i + rng.randint(2, 3)]
        if i % 3 == 1:
            events["Escalate"] = "failed"
        state: dict[str, Any] = {"prompt_task": "work", "on_event": events}
        if i % 4 == 3:
            state["max_visits"] = 3
            state["on_max_visits"] = "failed"
        definitions[name] = state
    definitions["done"] = {"prompt_task": "work", "terminal": True}
    definitions["failed"] = {"prompt_task": "work", "terminal": True}
    pack = generated_pack(2)
    pack["workflow"] = {"version": 2, "entry": names[0], "states": definitions}
    return pack


# -- geometry -----------------------------------------------------------------------------------


def _cubic(p0: Point, p1: Point, p2: Point, p3: Point) -> list[Point]:
    length = math.dist(p0, p1) + math.dist(p1, p2) + math.dist(p2, p3)
    count = max(2, int(length / STEP))
    out = []
    for k in range(count + 1):
        t = k / count
        u = 1 - t
        out.append(
            (
                u**3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t**3 * p3[0],
                u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1],
            )
        )
    return out


def _line(p: Point, q: Point) -> list[Point]:
    count = max(1, int(math.dist(p, q) / STEP))
    return [
        (p[0] + (q[0] - p[0]) * k / count, p[1] + (q[1] - p[1]) * k / count)
        for k in range(count + 1)
    ]


def builtin_geometry(layout: Layout) -> tuple[list[Box], list[list[Point]]]:
    """The node boxes and the edges' curves, sampled, of the built-in layout."""
    boxes = [
        (n.x - n.width / 2, n.y - n.height / 2, n.x + n.width / 2, n.y + n.height / 2)
        for n in layout.nodes
    ]
    curves = []
    for edge in layout.edges:
        points = edge.points
        if edge.loop:
            curves.append(_cubic(*points))
            continue
        sampled: list[Point] = []
        for p, q in itertools.pairwise(points):
            if p[0] == q[0]:
                sampled += _line(p, q)
            else:
                c1, c2 = bend(p, q)
                sampled += _cubic(p, c1, c2, q)
        curves.append(sampled)
    return boxes, curves


def dot_geometry(dot_text: str) -> tuple[list[Box], list[list[Point]], tuple[float, float]] | None:
    """The same, of ``dot``'s layout (``dot -Tjson``), or None without ``dot``."""
    binary = shutil.which("dot")
    if binary is None:
        return None
    data = json.loads(
        subprocess.run(
            [binary, "-Tjson"], input=dot_text, capture_output=True, text=True, check=True
        ).stdout
    )
    boxes = []
    for node in data.get("objects", []):
        if "pos" not in node or node.get("name") == "start_":
            continue
        x, y = (float(v) for v in node["pos"].split(","))
        w, h = float(node["width"]) * 72, float(node["height"]) * 72
        boxes.append((x - w / 2, y - h / 2, x + w / 2, y + h / 2))
    curves = []
    for edge in data.get("edges", []):
        if data["objects"][edge["tail"]].get("name") == "start_":
            continue
        sampled: list[Point] = []
        for op in edge.get("_draw_", []):
            if op["op"] in ("b", "B"):
                pts = [tuple(p) for p in op["points"]]
                for i in range(0, len(pts) - 3, 3):
                    sampled += _cubic(pts[i], pts[i + 1], pts[i + 2], pts[i + 3])  # type: ignore[arg-type]
        curves.append(sampled)
    x0, y0, x1, y1 = (float(v) for v in data["bb"].split(","))
    return boxes, curves, (x1 - x0, y1 - y0)


def _inside(point: Point, boxes: Sequence[Box], pad: float) -> bool:
    return any(
        b[0] - pad <= point[0] <= b[2] + pad and b[1] - pad <= point[1] <= b[3] + pad for b in boxes
    )


def _segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    def side(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def crossings(boxes: Sequence[Box], curves: Sequence[Sequence[Point]]) -> int:
    """Pairs of distinct edges whose curves cross at least once outside every node's box."""
    cell = 24.0
    grid: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for e, curve in enumerate(curves):
        for i, (p, q) in enumerate(itertools.pairwise(curve)):
            keys = {(int(p[0] // cell), int(p[1] // cell)), (int(q[0] // cell), int(q[1] // cell))}
            for key in keys:
                grid.setdefault(key, []).append((e, i))
    crossed: set[tuple[int, int]] = set()
    for members in grid.values():
        for (e1, i1), (e2, i2) in itertools.combinations(members, 2):
            if e1 == e2 or (min(e1, e2), max(e1, e2)) in crossed:
                continue
            a, b = curves[e1][i1], curves[e1][i1 + 1]
            c, d = curves[e2][i2], curves[e2][i2 + 1]
            if _segments_cross(a, b, c, d) and not _inside(a, boxes, 4.0):
                crossed.add((min(e1, e2), max(e1, e2)))
    return len(crossed)


def bundled(curves: Sequence[Sequence[Point]]) -> float:
    """The share of the edges' length (away from their ends) running within NEAR of another."""
    grid: dict[tuple[int, int], list[tuple[int, Point]]] = {}
    middles: list[list[Point]] = []
    for e, curve in enumerate(curves):
        walked, kept = 0.0, []
        total = sum(math.dist(p, q) for p, q in itertools.pairwise(curve))
        for p, q in itertools.pairwise(curve):
            walked += math.dist(p, q)
            if END_ROOM < walked < total - END_ROOM:
                kept.append(q)
        middles.append(kept)
        for point in kept:
            grid.setdefault((int(point[0] // NEAR), int(point[1] // NEAR)), []).append((e, point))
    near = count = 0
    for e, kept in enumerate(middles):
        for point in kept:
            count += 1
            gx, gy = int(point[0] // NEAR), int(point[1] // NEAR)
            if any(
                other != e and math.dist(point, seen) < NEAR
                for dx in (-1, 0, 1)
                for dy in (-1, 0, 1)
                for other, seen in grid.get((gx + dx, gy + dy), ())
            ):
                near += 1
    return near / count if count else 0.0


def measure(
    boxes: Sequence[Box], curves: Sequence[Sequence[Point]], size: tuple[float, float]
) -> dict[str, float]:
    return {
        "crossings": crossings(boxes, curves),
        "bundled": bundled(curves),
        "width": size[0],
        "height": size[1],
        "phone_scale": min(1.0, PHONE / size[0]),
    }


def cases() -> Iterable[tuple[str, dict[str, Any]]]:
    for states in (30, 50):
        yield f"random {states}", generated_pack(states)
        yield f"pipeline {states}", pipeline_pack(states)


def _show(figures: dict[str, float]) -> str:
    return (
        f"{figures['crossings']:>4.0f} crossings, {figures['bundled'] * 100:>4.1f}% bundled, "
        f"{figures['width']:>5.0f} x {figures['height']:<5.0f} "
        f"(phone scale {figures['phone_scale']:.2f})"
    )


def main() -> None:
    ratios = []
    for name, pack in cases():
        graph = workflow_graph(pack)
        layout = layout_of(graph)
        ours = measure(*builtin_geometry(layout), (layout.width, layout.height))
        print(f"{name:<12} built-in: {_show(ours)}")
        found = dot_geometry(render(graph, "dot"))
        if found is None:
            continue
        boxes, curves, size = found
        theirs = measure(boxes, curves, size)
        print(f"{'':<12} dot:      {_show(theirs)}")
        ratios.append(
            f"{name}: crossings {ours['crossings'] / max(theirs['crossings'], 1):.2f}, "
            f"bundled {ours['bundled'] / max(theirs['bundled'], 1e-9):.2f}"
        )
    if ratios:
        print("built-in / dot (<= 1: at least as readable):", "; ".join(ratios))
    else:
        print("dot is not on PATH: no comparison (Debian's graphviz package has it)")


if __name__ == "__main__":
    main()
