"""A layered (Sugiyama-style) layout, top to bottom, in time close to linear in the graph's size.

1. Break cycles: a depth-first search from the start node (then from every node not yet seen,
   in order) reverses each edge that closes a cycle, and every edge into the start node, so the
   start node is on top.
2. Layers: the longest path from a source, then each node with more edges down than up moved
   down beside its nearest successor (shorter edges: fewer dummies, crossings and cables). Every
   edge gets a dummy vertex on each rank it crosses, while a budget proportional to the graph's
   size lasts (shortest edges first); the one beside the state it leaves carries its label (below
   it when it runs down, above it when it runs back up). An edge past the budget is drawn from
   its first dummy straight to its lower end.
3. Order within ranks: barycenter sweeps, down then up, each followed on a small graph by swaps
   of neighbours that remove crossings (as ``dot`` does); the order with the fewest crossings
   seen is kept (crossings counted per pair of ranks in O(E log V)).
4. Coordinates: each rank packed left to right, then moved a few times towards the mean of each
   vertex's neighbours, keeping order and spacing. The gap below a rank grows with the widest
   sideways move of an edge there, so edges slope rather than run flat beside each other.

Steps 3 and 4 run at most ``SWEEPS`` and ``PLACEMENT_PASSES`` rounds, and fewer on a large graph
(``ROUND_WORK``), so the whole layout stays near-linear.
5. Routes: cubic Bezier segments with vertical tangents through an edge's dummies; several edges
   at one side of a node leave from spread ports; an edge to itself is a loop on the node's right.

``benchmarks/bench_layout.py`` measures crossings and cables at 30 and 50 states beside ``dot``.

Input and output are plain numbers, so the result depends only on the input's order.
"""

from __future__ import annotations

import bisect
import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "DUMMY_BUDGET_FLOOR",
    "DUMMY_BUDGET_PER_ITEM",
    "DUMMY_GAP",
    "LABEL_PAD",
    "LOOP_REACH",
    "LOOP_STEP",
    "MARGIN",
    "MAX_RANK_GAP",
    "NODE_GAP",
    "PLACEMENT_PASSES",
    "PORT_STEP",
    "RANK_GAP",
    "ROUND_WORK",
    "SLOPE",
    "SMALL_RANK",
    "START_SPACE",
    "SWEEPS",
    "TRANSPOSE_PASSES",
    "TRANSPOSE_VERTICES",
    "EdgeSpec",
    "Layout",
    "PlacedEdge",
    "PlacedNode",
    "Point",
    "bend",
    "layered_layout",
]

Point = tuple[float, float]

SWEEPS = 24  # barycenter sweeps (down and up) at most; each costs O(V log V) ...
TRANSPOSE_VERTICES = 3_000  # swaps of neighbours after each sweep, on graphs this small ...
TRANSPOSE_PASSES = 4  # ... this many passes over every rank at most
PLACEMENT_PASSES = 8  # coordinate passes (alternating down and up) at most; each O(V) ...
SMALL_RANK = 256  # edges between two ranks counted with bisect; more, with a Fenwick tree
ROUND_WORK = 40_000  # ... and no more of either than this many vertex visits allow (at least 1)
DUMMY_BUDGET_FLOOR = 20000  # long-edge dummies any graph may use ...
DUMMY_BUDGET_PER_ITEM = 2  # ... or this many per node and edge, if more

MARGIN = 12.0
START_SPACE = 28.0  # room above the top rank for the start marker
RANK_GAP = 18.0  # below a rank, at least ...
SLOPE = 0.2  # ... or this much of the widest sideways move of an edge there ...
MAX_RANK_GAP = 90.0  # ... up to this
NODE_GAP = 24.0  # between two nodes in a rank
DUMMY_GAP = 12.0  # between a dummy and its neighbour (NODE_GAP / 2 next to a node)
PORT_STEP = 16.0
LABEL_PAD = 4.0
LOOP_REACH = 22.0  # how far a self-loop reaches right of its node, plus LOOP_STEP per loop
LOOP_STEP = 14.0


@dataclass(frozen=True)
class EdgeSpec:
    """An edge to lay out: node indices and the size of its label (0 x 0 for none)."""

    source: int
    target: int
    label_width: float = 0.0
    label_height: float = 0.0


@dataclass(frozen=True)
class PlacedNode:
    """A node's box: centre and size."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class PlacedEdge:
    """An edge's route from source to target, and the centre of its label (if it has one).

    Attributes:
        points: for a ``loop`` (an edge to its own node), the four points of one cubic Bezier;
            else the points to pass through, each pair joined by a curve that leaves and
            arrives vertically (:func:`bend`), a straight line where they are one above the
            other.
        label: the centre of the label, if the edge has one.
        back: the edge runs against the layering (it closes a cycle, or enters the start).
        loop: the edge joins a node to itself.
    """

    points: tuple[Point, ...]
    label: Point | None
    back: bool
    loop: bool


@dataclass(frozen=True)
class Layout:
    """Where everything goes, in a ``width`` x ``height`` canvas with its origin at top left."""

    width: float
    height: float
    nodes: tuple[PlacedNode, ...]
    edges: tuple[PlacedEdge, ...]


def layered_layout(
    sizes: Sequence[tuple[float, float]], edges: Sequence[EdgeSpec], start: int | None = None
) -> Layout:
    """Lay out nodes of the given ``(width, height)`` and ``edges`` between them, top to bottom.

    Arguments:
        sizes: one ``(width, height)`` per node.
        edges: the edges; several may join the same two nodes, and a node may join itself.
        start: the node to put on the top rank (and whose incoming edges run back up), if any.
    """
    count = len(sizes)
    loops: dict[int, list[int]] = {}
    plain: list[int] = []
    for index, edge in enumerate(edges):
        if edge.source == edge.target:
            loops.setdefault(edge.source, []).append(index)
        else:
            plain.append(index)

    reversed_, preorder = _break_cycles(count, edges, plain, start)
    upper = [0] * len(edges)
    lower = [0] * len(edges)
    for index in plain:
        edge = edges[index]
        a, b = (edge.target, edge.source) if reversed_[index] else (edge.source, edge.target)
        upper[index], lower[index] = a, b
    layer = _layers(count, [(upper[i], lower[i]) for i in plain], start)

    # Vertices: the nodes, then dummies. Ranks: a node on layer L is on rank 2L.
    loop_room = [0.0] * count
    for node, members in loops.items():
        widest = max(edges[i].label_width for i in members)
        loop_room[node] = _loop_reach(len(members) - 1) * 0.75 + LABEL_PAD * 2 + widest
    grid = _Grid(
        rank=[2 * level for level in layer],
        width=[sizes[v][0] + loop_room[v] for v in range(count)],
        height=[sizes[v][1] for v in range(count)],
        order_key=[float(position) for position in preorder],
        ups=[[] for _ in range(count)],
        downs=[[] for _ in range(count)],
    )
    chains, labelled = _add_dummies(
        grid,
        edges,
        sorted(plain, key=lambda i: (layer[lower[i]] - layer[upper[i]], i)),
        upper,
        lower,
        back=reversed_,
    )

    ranks = _order(grid.rank, grid.order_key, grid.ups, grid.downs)
    xs = _place(ranks, grid.width, grid.ups, grid.downs, count=count, loop_room=loop_room)
    gaps = _gaps(ranks, xs, grid.downs)
    ys, tallest, bottom = _rank_heights(ranks, grid.height, gaps, start is not None)

    # Shift so the leftmost slot starts at the margin (loops and labels are inside slots).
    vertices = range(len(grid.rank))
    left = min((xs[v] - grid.width[v] / 2 for v in vertices), default=0.0)
    right = max((xs[v] + grid.width[v] / 2 for v in vertices), default=0.0)
    dx = MARGIN - left
    centre = [xs[v] + dx - (loop_room[v] / 2 if v < count else 0.0) for v in vertices]
    vy = [ys[r] for r in grid.rank]
    placed = tuple(PlacedNode(centre[v], vy[v], sizes[v][0], sizes[v][1]) for v in range(count))

    routes: dict[int, list[Point]] = {}
    for index in plain:
        points: list[Point] = []
        for vertex in chains[index]:
            # Straight down through a label, or alongside the nodes of the rank it crosses.
            half = (grid.height[vertex] or tallest[grid.rank[vertex]]) / 2
            points.append((centre[vertex], vy[vertex] - half))
            if half:
                points.append((centre[vertex], vy[vertex] + half))
        routes[index] = points
    # Ports: where each edge meets the bottom (leaving downwards) or the top of a node.
    bottoms: dict[int, list[tuple[float, int]]] = {}
    tops: dict[int, list[tuple[float, int]]] = {}
    for index in plain:
        bottoms.setdefault(upper[index], []).append((routes[index][0][0], index))
        tops.setdefault(lower[index], []).append((routes[index][-1][0], index))
    out_port = _ports(bottoms, placed, +1)
    in_port = _ports(tops, placed, -1)

    laid: list[PlacedEdge] = []
    for index, edge in enumerate(edges):
        if edge.source == edge.target:
            laid.append(_loop(placed[edge.source], loops[edge.source].index(index), edge))
            continue
        points = [out_port[index], *routes[index], in_port[index]]
        if reversed_[index]:
            points.reverse()
        carrier = labelled[index]
        label = (centre[carrier], vy[carrier]) if edge.label_width > 0 else None
        laid.append(PlacedEdge(tuple(points), label, reversed_[index], False))
    return Layout(right - left + 2 * MARGIN, bottom + MARGIN, placed, tuple(laid))


@dataclass(frozen=True)
class _Grid:
    """Per vertex (the nodes, then the dummies): rank, slot size, starting order key, and
    neighbours on the rank above and below."""

    rank: list[int]
    width: list[float]
    height: list[float]
    order_key: list[float]
    ups: list[list[int]]
    downs: list[list[int]]


def _add_dummies(
    grid: _Grid,
    edges: Sequence[EdgeSpec],
    by_span: Sequence[int],
    upper: Sequence[int],
    lower: Sequence[int],
    *,
    back: Sequence[bool],
) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Give each edge its chain of dummies, shortest edges first; return edge -> chain, and
    edge -> the dummy that carries its label.

    The label sits next to the state the edge leaves, so a state's events read around it: on
    the rank below the upper end for an edge running down, on the rank above the lower end for
    one running back up. The dummies, one per rank down to the lower end, come out of a budget
    proportional to the graph; an edge past it keeps only one dummy, below its upper end (which
    carries its label), and is drawn from there straight to its lower end.
    """
    rank, ups, downs = grid.rank, grid.ups, grid.downs
    budget = max(DUMMY_BUDGET_FLOOR, DUMMY_BUDGET_PER_ITEM * (len(rank) + len(edges)))
    chains: dict[int, list[int]] = {}
    labelled: dict[int, int] = {}
    for index in by_span:
        a, b = upper[index], lower[index]
        extra = rank[b] - rank[a] - 2
        shortcut = extra > budget
        if shortcut:
            extra = 0
        budget -= extra
        edge = edges[index]
        chain = []
        previous = a
        carrier = extra if back[index] else 0
        for step in range(extra + 1):
            vertex = len(rank)
            label = step == carrier and edge.label_width > 0
            if step == carrier:
                labelled[index] = vertex
            rank.append(rank[a] + 1 + step)
            grid.width.append(edge.label_width + 2 * LABEL_PAD if label else 0.0)
            grid.height.append(edge.label_height if label else 0.0)
            grid.order_key.append(grid.order_key[a] + 0.5)
            ups.append([previous])
            downs.append([])
            downs[previous].append(vertex)
            chain.append(vertex)
            previous = vertex
        if not shortcut:
            downs[previous].append(b)
            ups[b].append(previous)
        chains[index] = chain
    return chains, labelled


def _rounds(most: int, vertices: int) -> int:
    """How many rounds of a per-vertex improvement to run: bounded, so the layout stays linear."""
    return max(1, min(most, ROUND_WORK // max(vertices, 1)))


# -- 1. cycles and 2. layers --------------------------------------------------------------------


def _break_cycles(
    count: int, edges: Sequence[EdgeSpec], plain: Sequence[int], start: int | None
) -> tuple[list[bool], list[int]]:
    """Which edges to reverse, and each node's depth-first discovery number."""
    successors: list[list[int]] = [[] for _ in range(count)]
    for index in plain:
        successors[edges[index].source].append(index)
    reversed_ = [False] * len(edges)
    state = [0] * count  # 0 unseen, 1 on the stack, 2 done
    preorder = [0] * count
    seen = 0
    roots = ([start] if start is not None else []) + list(range(count))
    for root in roots:
        if state[root]:
            continue
        state[root] = 1
        preorder[root] = seen
        seen += 1
        stack = [(root, iter(successors[root]))]
        while stack:
            node, pending = stack[-1]
            for index in pending:
                target = edges[index].target
                if target == start or state[target] == 1:
                    reversed_[index] = True
                elif state[target] == 0:
                    state[target] = 1
                    preorder[target] = seen
                    seen += 1
                    stack.append((target, iter(successors[target])))
                    break
            else:
                state[node] = 2
                stack.pop()
    return reversed_, preorder


def _layers(count: int, dag: Sequence[tuple[int, int]], start: int | None) -> list[int]:
    """Longest-path layering of an acyclic graph (Kahn's order), then each node with more
    edges down than up moved down next to its nearest successor (bottom up, so a whole run of
    them can move): shorter edges, so fewer dummies, crossings and cables. ``start`` stays on
    top."""
    successors: list[list[int]] = [[] for _ in range(count)]
    indegree = [0] * count
    for a, b in dag:
        successors[a].append(b)
        indegree[b] += 1
    ups = list(indegree)
    layer = [0] * count
    order = []
    ready = deque(v for v in range(count) if indegree[v] == 0)
    while ready:
        node = ready.popleft()
        order.append(node)
        for target in successors[node]:
            layer[target] = max(layer[target], layer[node] + 1)
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    for node in reversed(order):
        below = successors[node]
        if node != start and below and len(below) > ups[node]:
            layer[node] = max(layer[node], min(layer[t] for t in below) - 1)
    return layer


# -- 3. order within ranks ----------------------------------------------------------------------


def _order(
    rank: Sequence[int],
    order_key: Sequence[float],
    ups: Sequence[Sequence[int]],
    downs: Sequence[Sequence[int]],
) -> list[list[int]]:
    """Vertices per rank, left to right, after the barycenter sweeps."""
    ranks: list[list[int]] = [[] for _ in range(max(rank, default=-1) + 1)]
    for vertex in sorted(range(len(rank)), key=lambda v: (order_key[v], v)):
        ranks[rank[vertex]].append(vertex)
    position = [0] * len(rank)

    def number(members: Sequence[int]) -> None:
        for index, vertex in enumerate(members):
            position[vertex] = index

    for members in ranks:
        number(members)
    best = [list(members) for members in ranks]
    fewest = _crossings(ranks, position, downs)

    barycenter = [0.0] * len(rank)

    def sweep(indices: range, neighbours: Sequence[Sequence[int]]) -> None:
        for r in indices:
            members = ranks[r]
            for vertex in members:
                near = neighbours[vertex]
                if len(near) == 1:
                    barycenter[vertex] = position[near[0]]
                elif near:
                    barycenter[vertex] = sum(position[n] for n in near) / len(near)
                else:
                    barycenter[vertex] = position[vertex]
            members.sort(key=barycenter.__getitem__)  # stable: ties keep their order
            number(members)

    transpose = len(rank) <= TRANSPOSE_VERTICES
    for _ in range(_rounds(SWEEPS, len(rank))):
        sweep(range(1, len(ranks)), ups)
        sweep(range(len(ranks) - 2, -1, -1), downs)
        if transpose:
            _transpose(ranks, position, ups, downs)
        crossings = _crossings(ranks, position, downs)
        if crossings < fewest:
            fewest = crossings
            best = [list(members) for members in ranks]
    return best


def _transpose(
    ranks: Sequence[list[int]],
    position: list[int],
    ups: Sequence[Sequence[int]],
    downs: Sequence[Sequence[int]],
) -> None:
    """Swap neighbours in a rank while that removes crossings with the ranks above and below
    (as Graphviz's ``dot`` does after each sweep); a few passes at most."""

    def cost(u: int, v: int) -> int:
        """Crossings between the edges of ``u`` and ``v`` with ``u`` left of ``v``."""
        total = 0
        for near in (ups, downs):
            for a in near[u]:
                pa = position[a]
                for b in near[v]:
                    if position[b] < pa:
                        total += 1
        return total

    for _ in range(TRANSPOSE_PASSES):
        improved = False
        for members in ranks:
            for i in range(len(members) - 1):
                u, v = members[i], members[i + 1]
                if cost(v, u) < cost(u, v):
                    members[i], members[i + 1] = v, u
                    position[u], position[v] = i + 1, i
                    improved = True
        if not improved:
            return


def _crossings(
    ranks: Sequence[Sequence[int]], position: Sequence[int], downs: Sequence[Sequence[int]]
) -> int:
    """Edge crossings between consecutive ranks: with the edges taken left to right by their
    upper end, the pairs whose lower ends come in the opposite order."""
    total = 0
    for members in ranks:
        ends: list[int] = []
        for vertex in members:
            below = downs[vertex]
            if len(below) == 1:  # every dummy, most nodes
                ends.append(position[below[0]])
            elif below:
                ends.extend(sorted(position[target] for target in below))
        total += _inversions(ends)
    return total


def _inversions(ends: Sequence[int]) -> int:
    """Pairs ``i < j`` with ``ends[i] > ends[j]``, in O(n log n)."""
    total = 0
    if len(ends) <= SMALL_RANK:
        # A sorted list and bisect: each step is a C call (insort's shift is cheap this small).
        seen: list[int] = []
        for end in ends:
            total += len(seen) - bisect.bisect_right(seen, end)
            bisect.insort(seen, end)
        return total
    size = max(ends) + 1
    tree = [0] * (size + 1)  # a Fenwick tree of the ends seen so far
    for count, end in enumerate(ends):
        index, not_after = end + 1, 0
        while index > 0:
            not_after += tree[index]
            index -= index & -index
        total += count - not_after
        index = end + 1
        while index <= size:
            tree[index] += 1
            index += index & -index
    return total


# -- 4. coordinates -----------------------------------------------------------------------------


def _place(
    ranks: Sequence[Sequence[int]],
    width: Sequence[float],
    ups: Sequence[Sequence[int]],
    downs: Sequence[Sequence[int]],
    *,
    count: int,
    loop_room: Sequence[float],
) -> list[float]:
    """The x of every vertex's centre (of its slot, self-loop room included)."""
    # Edges meet a node's box, left of its loop room: its centre is ``x - shift``.
    shift = [loop_room[v] / 2 if v < count else 0.0 for v in range(len(width))]
    gaps = []  # per rank, the least distance between neighbours' centres
    for members in ranks:
        between = []
        for a, b in itertools.pairwise(members):
            nodes = (a < count) + (b < count)
            spacing = NODE_GAP if nodes == 2 else NODE_GAP / 2 if nodes else DUMMY_GAP
            between.append((width[a] + width[b]) / 2 + spacing)
        gaps.append(between)

    x = [0.0] * len(width)
    widest = max((sum(between) for between in gaps), default=0.0)
    for members, between in zip(ranks, gaps, strict=True):
        at = (widest - sum(between)) / 2  # each rank centred under the widest
        for index, vertex in enumerate(members):
            if index:
                at += between[index - 1]
            x[vertex] = at

    for pass_number in range(_rounds(PLACEMENT_PASSES, len(width))):
        downward = pass_number % 2 == 0
        neighbours = ups if downward else downs
        for r in range(len(ranks)) if downward else range(len(ranks) - 1, -1, -1):
            members, between = ranks[r], gaps[r]
            wanted = []
            for vertex in members:
                near = neighbours[vertex]
                if len(near) == 1:
                    wanted.append(x[near[0]] - shift[near[0]] + shift[vertex])
                elif near:
                    mean = sum(x[n] - shift[n] for n in near) / len(near)
                    wanted.append(mean + shift[vertex])
                else:
                    wanted.append(x[vertex])
            # Closest order-keeping positions from the left and from the right; their mean
            # keeps the spacing too (both do, and the constraints are linear).
            left = list(wanted)
            for i, least in enumerate(between):
                left[i + 1] = max(left[i + 1], left[i] + least)
            right = wanted
            for i in range(len(between) - 1, -1, -1):
                right[i] = min(right[i], right[i + 1] - between[i])
            for i, vertex in enumerate(members):
                x[vertex] = (left[i] + right[i]) / 2
    return x


def _gaps(
    ranks: Sequence[Sequence[int]], x: Sequence[float], downs: Sequence[Sequence[int]]
) -> list[float]:
    """The room below each rank: more where an edge moves far sideways, so that it slopes
    instead of running flat beside the others there (where edges would merge into a cable)."""
    gaps = []
    for members in ranks:
        widest = max((abs(x[v] - x[w]) for v in members for w in downs[v]), default=0.0)
        gaps.append(min(MAX_RANK_GAP, max(RANK_GAP, widest * SLOPE)))
    return gaps


def _rank_heights(
    ranks: Sequence[Sequence[int]],
    height: Sequence[float],
    gaps: Sequence[float],
    has_start: bool,
) -> tuple[list[float], list[float], float]:
    """Per rank, the y of its centre line and its height; and the bottom of the last rank."""
    ys, heights = [], []
    top = MARGIN + (START_SPACE if has_start else 0.0)
    gap = 0.0
    for members, gap in zip(ranks, gaps, strict=True):
        tallest = max((height[v] for v in members), default=0.0)
        ys.append(top + tallest / 2)
        heights.append(tallest)
        top += tallest + gap
    return ys, heights, top - gap


# -- 5. routes ----------------------------------------------------------------------------------


def _ports(
    sides: dict[int, list[tuple[float, int]]], nodes: Sequence[PlacedNode], direction: int
) -> dict[int, Point]:
    """Spread the edges meeting one side of a node along it, in the order they go off."""
    ports: dict[int, Point] = {}
    for node, attached in sides.items():
        box = nodes[node]
        attached.sort()
        step = min(PORT_STEP, max(box.width - 24.0, 0.0) / max(len(attached) - 1, 1))
        y = box.y + direction * box.height / 2
        middle = (len(attached) - 1) / 2
        for position, (_, index) in enumerate(attached):
            ports[index] = (box.x + (position - middle) * step, y)
    return ports


def bend(p: Point, q: Point) -> tuple[Point, Point]:
    """The two control points of the cubic from ``p`` to ``q`` that leaves and arrives
    vertically."""
    middle = (p[1] + q[1]) / 2
    return (p[0], middle), (q[0], middle)


def _loop_reach(number: int) -> float:
    return LOOP_REACH + LOOP_STEP * number


def _loop(box: PlacedNode, number: int, edge: EdgeSpec) -> PlacedEdge:
    """The ``number``-th loop of a node on itself, on its right side, with its label beyond."""
    right = box.x + box.width / 2
    rise = min(box.height / 4, 8.0) + 3.0 * number
    reach = _loop_reach(number)
    curve = (
        (right, box.y - rise),
        (right + reach, box.y - rise - 10.0),
        (right + reach, box.y + rise + 10.0),
        (right, box.y + rise),
    )
    label = None
    if edge.label_width > 0:
        offset = (number - 0.5) * (edge.label_height + 2.0) if number else 0.0
        label = (right + reach * 0.75 + LABEL_PAD + edge.label_width / 2, box.y + offset)
    return PlacedEdge(curve, label, False, True)
