"""The import graph of ``reference/``: no cycles, and nothing from the kit.

Each module is read with :mod:`ast` (nothing is imported). An edge goes from a module to each
module of ``reference`` it imports: ``import reference.a.b`` and ``from reference.a import b``
name ``reference.a.b`` when that is a module, else ``reference.a``. A package's ``__init__``
runs before its modules, but that is not counted as an import of it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from import_graph import cycle_through
from import_graph import module_names as package_modules

PACKAGE = Path(__file__).resolve().parents[2] / "reference"


def module_names() -> dict[str, Path]:
    """Every module of ``reference``, by dotted name (a package by its own name)."""
    return package_modules(PACKAGE)


def imported(path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``reference`` (and of ``conformance``) that the module at ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.add(name if name in modules else node.module)
    return {name for name in found if name.split(".")[0] in ("reference", "conformance")}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    return {name: imported(path, modules) for name, path in modules.items()}


def test_the_graph_sees_the_imports_it_should() -> None:
    graph = import_graph()
    assert "reference._loading.yaml_reader" in graph["reference._loading"]
    assert "reference._json" in graph["reference._loading.document"]
    assert len(graph) >= 15


@pytest.mark.parametrize("module", sorted(import_graph()))
def test_no_module_imports_a_module_that_imports_it_back(module: str) -> None:
    cycle = cycle_through(import_graph(), module)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert cycle_through(graph, "a") == ["a", "b", "c", "a"]
    assert cycle_through(graph, "d") is None


def test_reference_never_imports_the_kit() -> None:
    for module, targets in import_graph().items():
        assert not [t for t in targets if t.startswith("conformance")], module
