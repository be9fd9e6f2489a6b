"""The import graph of ``conformance/``: the kit uses only the reference's public API, and its
modules import each other without cycles.

Each module is read with :mod:`ast` (nothing is imported). Only imports that run when the
module is imported count: those at module level, outside ``if TYPE_CHECKING:`` (a function's
own imports run when it is called, which is how the kit keeps Hypothesis and the drawing code
out of commands that do not need them).
"""

from __future__ import annotations

import ast
import functools
import itertools
from pathlib import Path

import pytest
from import_graph import cycle_through
from import_graph import module_names as package_modules

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "conformance"


def module_names() -> dict[str, Path]:
    """Every module of ``conformance``, by dotted name (a package by its own name)."""
    return package_modules(PACKAGE)


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """The statements that run on import: module level, ``if TYPE_CHECKING:`` left out."""
    found: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found.extend(node.orelse)
            continue
        found.append(node)
    return found


def imports(path: Path, modules: dict[str, Path]) -> tuple[set[str], set[str]]:
    """What a module imports on import: the kit's modules, and names from ``reference``."""
    kit: set[str] = set()
    reference: set[str] = set()
    for node in _module_level(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "reference":
                    reference.add(alias.name)
                elif alias.name.split(".")[0] == "conformance":
                    kit.add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            root = node.module.split(".")[0]
            if root == "reference":
                reference.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif root == "conformance":
                for alias in node.names:
                    name = f"{node.module}.{alias.name}"
                    kit.add(name if name in modules else node.module)
    return kit, reference


@functools.cache
def graph() -> dict[str, set[str]]:
    modules = module_names()
    return {name: imports(path, modules)[0] - {name} for name, path in modules.items()}


def test_the_kit_uses_only_the_reference_public_api() -> None:
    modules = module_names()
    private = {
        f"{name}: {used}"
        for name, path in modules.items()
        for used in imports(path, modules)[1]
        if any(part.startswith("_") for part in used.split(".")[1:])
    }
    assert not private, "the kit reaches into the reference's private modules:\n" + "\n".join(
        sorted(private)
    )


@pytest.mark.parametrize("module", sorted(module_names()))
def test_no_import_cycle(module: str) -> None:
    # A package importing its own modules is how it re-exports them, not a cycle.
    cycle = cycle_through(graph(), module)
    if cycle is not None and all(
        later.startswith(earlier + ".") or earlier.startswith(later + ".")
        for earlier, later in itertools.pairwise(cycle)
    ):
        cycle = None
    assert cycle is None, " -> ".join(cycle or [])


def test_the_graph_is_read() -> None:
    edges = graph()
    assert "conformance._judging.runner" in edges["conformance._judging.records"]
    assert "conformance._catalog.statements" in edges["conformance._catalog.cases"]


LAYERS = (
    ("conformance._basics",),
    ("conformance._runtime", "conformance._protocol"),
    ("conformance._catalog",),
    ("conformance._judging",),
    ("conformance._views", "conformance._report", "conformance._drawing"),
)
"""The kit's layers, lowest first: what every part builds on; the runtime side; the catalog;
running and judging; the views. A module imports only from its own layer or a lower one; the
commands, the plugin, the fuzzer and the public API (every other module) may import any."""


def layer_of(module: str) -> int | None:
    for number, packages in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in packages):
            return number
    return None


def test_every_flat_module_is_in_a_layer_or_an_entry_point() -> None:
    entry_points = {
        "conformance",
        "conformance.__main__",
        "conformance._cli",
        "conformance._fuzz",
        "conformance._options",
        "conformance._plugin",
        "conformance._plugin_settings",
        "conformance.strategies",
    }
    top = {".".join(name.split(".")[:2]) for name in module_names()}
    assert {name for name in top if layer_of(name) is None} == entry_points


@pytest.mark.parametrize("module", [m for m in sorted(module_names()) if layer_of(m) is not None])
def test_a_module_imports_nothing_from_a_higher_layer(module: str) -> None:
    layer = layer_of(module)
    assert layer is not None
    higher = sorted(
        target for target in graph()[module] if (found := layer_of(target)) is None or found > layer
    )
    assert not higher, f"{module} (layer {layer}) imports from higher up: {higher}"
