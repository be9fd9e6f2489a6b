"""What the import-graph tests of ``reference/`` and ``conformance/`` share: the modules of a
package by dotted name, and the search for an import cycle."""

from __future__ import annotations

from collections.abc import Mapping, Set
from pathlib import Path


def module_names(package: Path) -> dict[str, Path]:
    """Every module of the package in folder ``package``, by dotted name (a package by its own
    name)."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def cycle_through(graph: Mapping[str, Set[str]], start: str) -> list[str] | None:
    """A shortest import path from ``start`` back to itself, if there is one."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for name in frontier:
            for target in sorted(graph.get(name, ())):
                if target == start:
                    return [*paths[name], start]
                if target not in paths:
                    paths[target] = [*paths[name], target]
                    following.append(target)
        frontier = following
    return None
