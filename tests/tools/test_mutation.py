"""The mutation tool: which changes it makes, and the checked-in survivors file."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tools.mutation._campaign import MODULES, choose, every_mutant
from tools.mutation._mutants import apply, mutants
from tools.mutation._survivors import KINDS, read_survivors

SOURCE = '''\
"""A module docstring."""
from typing import Literal

Mode = Literal["fast", "slow"]
__all__ = ["limit"]


def limit(count: int, mode: str = "fast") -> bool:
    """A function docstring."""
    assert count >= 0
    total = 0
    total += count
    if count < 3 and mode == "fast":
        return True
    if not mode:
        raise ValueError("no mode")
    return False
'''


def test_each_operator_makes_its_change() -> None:
    found = {(m.operator, m.description) for m in mutants("example", SOURCE)}
    assert found == {
        ("number", "0 -> 1"),
        ("arithmetic", "+= -> -="),
        ("delete", "augassign -> pass"),
        ("boolop", "and -> or"),
        ("compare", "< -> <="),
        ("number", "3 -> 4"),
        ("compare", "== -> !="),
        ("string", "'fast' -> 'fastX'"),
        ("bool", "True -> False"),
        ("return", "return x -> return None"),
        ("not", "not x -> x"),
        ("delete", "raise -> pass"),
        ("bool", "False -> True"),
    }


def test_docstrings_annotations_asserts_and_types_are_left_alone() -> None:
    lines = {m.line for m in mutants("example", SOURCE)}
    # docstrings (1, 9), the Literal type (4), __all__ (5), the signature's annotations and
    # default (8: the default "fast" is a value, but a signature's line holds only it), assert (10)
    assert lines.isdisjoint({1, 4, 5, 9, 10})


def test_every_mutant_compiles_and_differs() -> None:
    original = ast.dump(ast.parse(SOURCE))
    for mutant in mutants("example", SOURCE):
        tree = apply(SOURCE, mutant)
        compile(tree, "example.py", "exec")
        assert ast.dump(tree) != original, mutant


def test_ids_are_unique_and_stable() -> None:
    first = mutants("example", SOURCE)
    assert len({m.id for m in first}) == len(first)
    assert [m.id for m in mutants("example", SOURCE)] == [m.id for m in first]


def test_the_sample_is_seeded_and_stratified() -> None:
    found = every_mutant(MODULES[2:3])
    sample = choose(found, 0.25, seed=7)
    assert sample == choose(found, 0.25, seed=7)
    assert {m.operator for m in sample} == {m.operator for m in found}
    assert choose(found, 1.0, seed=7) == found


def test_the_survivors_file_reads_and_names_known_kinds() -> None:
    entries = read_survivors()
    assert entries
    assert {e.kind for e in entries.values()} <= set(KINDS)
    for entry in entries.values():
        assert entry.id.split(":")[0] in MODULES, entry.id


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- {id: a, change: x, kind: odd, why: y}", "kind 'odd' is not one of"),
        ("- {id: a, change: x, kind: rfc-allowed, why: y}", "give statement"),
        ("- {id: a, change: x, kind: killed-by, why: y}", "give case"),
        ("- {id: a, kind: equivalent}", "give change, why"),
        (
            "- {id: a, change: x, kind: equivalent, why: y}\n"
            "- {id: a, change: x, kind: equivalent, why: y}",
            "a is explained twice",
        ),
    ],
)
def test_a_bad_survivors_entry_says_which_and_what_to_write(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "survivors.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_survivors(path)
