"""Linear-time graph algorithms over states numbered ``0..n-1`` with successor lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def strongly_connected_components(
    successors: Sequence[Sequence[int]], within: Sequence[bool] | None = None
) -> list[list[int]]:
    """Return the strongly connected components (Tarjan's algorithm, iterative).

    Arguments:
        successors: ``successors[v]`` lists the targets of the edges leaving ``v``.
        within: optionally, the nodes of the subgraph to use (``within[v]``): the others, and
            the edges to them, are left out, without a copy of the edge lists.
    """
    count = len(successors)
    index = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if index[root] != -1 or (within is not None and not within[root]):
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        # The depth-first walk as two parallel stacks (node, next edge), so that no
        # garbage-collected object is made per edge.
        work = [root]
        position = [0]
        while work:
            node = work[-1]
            edges = successors[node]
            next_edge = position[-1]
            if next_edge < len(edges):
                position[-1] = next_edge + 1
                target = edges[next_edge]
                if within is not None and not within[target]:
                    continue
                if index[target] == -1:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack[target] = True
                    work.append(target)
                    position.append(0)
                elif on_stack[target] and index[target] < low[node]:
                    low[node] = index[target]
                continue
            work.pop()
            position.pop()
            if work:
                parent = work[-1]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def is_cyclic(component: Sequence[int], successors: Sequence[Sequence[int]]) -> bool:
    """Whether a strongly connected component contains a cycle (a self-loop counts)."""
    if len(component) > 1:
        return True
    node = component[0]
    return node in successors[node]


def reachable(
    starts: Iterable[int],
    successors: Sequence[Sequence[int]],
    extra: Sequence[int | None] = (),
) -> list[bool]:
    """Return, for every node, whether it can be reached from one of ``starts``.

    Arguments:
        starts: the nodes to start from.
        successors: ``successors[v]`` lists the targets of the edges leaving ``v``.
        extra: optionally, one more edge per node (``None`` for none), such as a redirect.
    """
    seen = [False] * len(successors)
    frontier = []
    for start in starts:
        if not seen[start]:
            seen[start] = True
            frontier.append(start)
    while frontier:
        node = frontier.pop()
        for target in successors[node]:
            if not seen[target]:
                seen[target] = True
                frontier.append(target)
        if extra:
            redirect = extra[node]
            if redirect is not None and not seen[redirect]:
                seen[redirect] = True
                frontier.append(redirect)
    return seen


def reverse(
    successors: Sequence[Sequence[int]], extra: Sequence[int | None] = ()
) -> list[list[int]]:
    """Return the predecessor lists of a graph (with the ``extra`` edges of :func:`reachable`)."""
    predecessors: list[list[int]] = [[] for _ in successors]
    for node, targets in enumerate(successors):
        for target in targets:
            predecessors[target].append(node)
    for node, redirect in enumerate(extra):
        if redirect is not None:
            predecessors[redirect].append(node)
    return predecessors


def functional_cycles(next_node: Sequence[int | None]) -> list[list[int]]:
    """Return the cycles of a graph where each node has at most one successor.

    Each cycle is listed once, in edge order, starting from its first member seen.
    """
    state = [0] * len(next_node)  # 0 unvisited, 1 on the current walk, 2 finished
    cycles: list[list[int]] = []
    for start in range(len(next_node)):
        walk: list[int] = []
        node: int | None = start
        while node is not None and state[node] == 0:
            state[node] = 1
            walk.append(node)
            node = next_node[node]
        if node is not None and state[node] == 1:
            cycles.append(walk[walk.index(node) :])
        for member in walk:
            state[member] = 2
    return cycles
